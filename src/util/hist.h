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
 */
#ifndef V10_UTIL_HIST_H
#define V10_UTIL_HIST_H

#include <stdint.h>

#define V10_HIST_SUB 10
#define V10_HIST_BUCKETS ((64 - V10_HIST_SUB + 1) << V10_HIST_SUB)

typedef struct v10_hist {
    uint64_t *count;            /* V10_HIST_BUCKETS */
    uint64_t n, min, max;
    double sum;                 /* of the values, for the mean */
} v10_hist;

/* 0, or -1 when out of memory. */
int v10_hist_init(v10_hist *h);
void v10_hist_fini(v10_hist *h);

static inline unsigned v10_hist_index(uint64_t v)
{
    if (v < (1ull << V10_HIST_SUB))
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e >= V10_HIST_SUB */
    unsigned shift = e - V10_HIST_SUB;
    return ((shift + 1) << V10_HIST_SUB) + (unsigned)((v >> shift) - (1ull << V10_HIST_SUB));
}

static inline void v10_hist_add(v10_hist *h, uint64_t v)
{
    h->count[v10_hist_index(v)]++;
    if (!h->n || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->n++;
    h->sum += (double)v;
}

/* Nearest-rank p-th percentile (0 < p <= 100); NaN when empty. */
double v10_hist_percentile(const v10_hist *h, double p);

#endif
