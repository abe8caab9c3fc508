/*
 * hist.h — a log-linear histogram of latencies in cycles, so that a run of
 * any number of requests records them in constant memory.
 *
 * The scheme is HdrHistogram's (G. Tene, https://hdrhistogram.github.io/):
 * values below 2^V10_HIST_SUB are counted exactly; above, each power of two
 * is split into 2^V10_HIST_SUB equal buckets, so a bucket's width is at most
 * 2^-V10_HIST_SUB of its values.  A percentile is the nearest-rank bucket's
 * midpoint, clamped to the smallest and largest value seen (the first and
 * last ranks are those values): exact when all values are equal or below
 * 1024 cycles, within 0.05% otherwise.
 *
 * The counts live in blocks of V10_HIST_BLOCK buckets allocated when a
 * value first lands in one: a tenant's latencies fill a few blocks of 2
 * KiB, not the 440 KiB of every bucket (issue 24: 64 LLM servers reserved
 * 28 MB of histograms, touched in full when a batch's later runs reused
 * the heap).
 */
#ifndef V10_UTIL_HIST_H
#define V10_UTIL_HIST_H

#include <stddef.h>
#include <stdint.h>

#define V10_HIST_SUB 10
#define V10_HIST_BUCKETS ((64 - V10_HIST_SUB + 1) << V10_HIST_SUB)
#define V10_HIST_BLOCK 256 /* buckets per block */
#define V10_HIST_BLOCKS (V10_HIST_BUCKETS / V10_HIST_BLOCK)

/* Invariant: block[b] is NULL or V10_HIST_BLOCK counts, bucket i's at
 * block[i / V10_HIST_BLOCK][i % V10_HIST_BLOCK]; a NULL block counts 0;
 * the counts add up to n. */
typedef struct v10_hist {
    uint64_t *block[V10_HIST_BLOCKS];
    uint64_t n, min, max;
    double sum;                 /* of the values, for the mean */
} v10_hist;

/* 0 (allocates nothing: blocks come with the values). */
int v10_hist_init(v10_hist *h);
void v10_hist_fini(v10_hist *h);

/* Allocates block b; 0, or -1 when out of memory. */
int v10_hist_grow(v10_hist *h, unsigned b);

/* Bytes of counts allocated (blocks), for tests and memory figures. */
size_t v10_hist_bytes(const v10_hist *h);

static inline unsigned v10_hist_index(uint64_t v)
{
    if (v < (1ull << V10_HIST_SUB))
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e >= V10_HIST_SUB */
    unsigned shift = e - V10_HIST_SUB;
    return ((shift + 1) << V10_HIST_SUB) + (unsigned)((v >> shift) - (1ull << V10_HIST_SUB));
}

/* Records v; 0, or -1 when out of memory for its block (v not recorded). */
static inline int v10_hist_add(v10_hist *h, uint64_t v)
{
    unsigned i = v10_hist_index(v), b = i / V10_HIST_BLOCK;
    if (!h->block[b] && v10_hist_grow(h, b))
        return -1;
    h->block[b][i % V10_HIST_BLOCK]++;
    if (!h->n || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->n++;
    h->sum += (double)v;
    return 0;
}

/* Nearest-rank p-th percentile (0 < p <= 100); NaN when empty. */
double v10_hist_percentile(const v10_hist *h, double p);

#endif
