/*
 * harness.h — shared by the fuzz harnesses: loaders that read a path get
 * the input through a per-process temporary file.
 */
#ifndef V10_FUZZ_HARNESS_H
#define V10_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to a temporary file (same path each call); returns the path. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *ext)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/v10fuzz-%d%s", (int)getpid(), ext);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
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
