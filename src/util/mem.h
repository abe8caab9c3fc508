/*
 * mem.h — allocation of big arrays (a calibrated model's operators, the
 * engine's per-operator arrays): malloc, calloc and realloc, plus a request
 * for transparent huge pages on blocks of several MiB.  Such arrays are
 * filled once, right after allocation; on 4 KiB pages the kernel's page
 * faults cost more than the filling (`v10sim models isca23/retinanet`, 170
 * MB of operators: 1.35 s on 4 KiB pages, 0.65 s on 2 MiB pages, this VM).
 * The request is a hint (Linux madvise MADV_HUGEPAGE, honoured when the
 * kernel's transparent_hugepage mode is "madvise" or "always"); nothing the
 * program computes depends on it.  Free with free().
 */
#ifndef V10_UTIL_MEM_H
#define V10_UTIL_MEM_H

#include <stddef.h>

/* Process-wide: keeps freed memory for reuse instead of returning it to the
 * kernel at once (glibc: trim and mmap thresholds).  A batch of runs frees
 * and allocates the same sizes run after run (an engine's per-operator
 * arrays, histograms' blocks); handing those back made the kernel clear
 * fresh pages for every run (repro --quick: 1 s of its 3 s of system
 * time).  Call once at
 * start-up; a no-op elsewhere than glibc. */
void v10_mem_tune(void);

/* The size from which glibc gives a block a mapping of its own once
 * v10_mem_tune has run (its mmap threshold): such a block grows by
 * mremap, without a copy. */
#define V10_MEM_MAP_BYTES ((size_t)32 << 20)

void *v10_malloc_big(size_t n);
void *v10_calloc_big(size_t n, size_t size);
void *v10_realloc_big(void *p, size_t n);

#endif
