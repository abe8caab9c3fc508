/*
 * mem.c — big arrays on transparent huge pages where the kernel offers them
 * (see mem.h).
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "util/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20) /* x86-64 and arm64 (4 KiB base pages) */

#define BASE_PAGE ((uintptr_t)4096)

/* Asks for huge pages on the base pages [p, p + n) spans; blocks under two
 * huge pages are left alone (at most one would fit).  All of a block's
 * pages, not only its whole huge pages: a block this big is a mapping of
 * its own (glibc's mmap threshold, v10_mem_tune) starting on the page p is
 * in, and advice on part of it splits the mapping in three, which
 * mremap cannot grow; realloc then copies it to a fresh one, two copies
 * resident at once (a 700,000-operator model growing from 126 to 252 MB). */
static void *hint(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p && n >= 2 * HUGE_PAGE) {
        uintptr_t a = (uintptr_t)p & ~(BASE_PAGE - 1);
        uintptr_t b = ((uintptr_t)p + n + BASE_PAGE - 1) & ~(BASE_PAGE - 1);
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* a hint: failure is fine */
    }
#endif
    return p;
}

void v10_mem_tune(void)
{
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
    (void)mallopt(M_MMAP_THRESHOLD, (int)V10_MEM_MAP_BYTES); /* glibc's dynamic maximum */
    (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

void *v10_malloc_big(size_t n) { return hint(malloc(n), n); }

void *v10_calloc_big(size_t n, size_t size)
{
    return hint(calloc(n, size), n <= SIZE_MAX / (size ? size : 1) ? n * size : 0);
}

void *v10_realloc_big(void *p, size_t n) { return hint(realloc(p, n), n); }
