/*
 * harness.h — shared by the fuzz harnesses: loaders read the input from
 * an in-memory stream.
 */
#ifndef V10_FUZZ_HARNESS_H
#define V10_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a read-only stream (fmemopen). */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
    static const char empty[1];
    FILE *f = fmemopen(size ? (void *)(uintptr_t)data : (void *)(uintptr_t)empty, size ? size : 1, "r");
    if (!f)
        abort();
    if (!size)
        fgetc(f); /* fmemopen needs a non-empty buffer: consume the dummy byte */
    return f;
}

/* A NUL-terminated copy of data (caller frees). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
