/* hist.c — the latency histogram (see hist.h). */
#include "util/hist.h"

#include <math.h>
#include <stdlib.h>

int v10_hist_init(v10_hist *h)
{
    *h = (v10_hist){0};
    return 0;
}

void v10_hist_fini(v10_hist *h)
{
    for (unsigned b = 0; b < V10_HIST_BLOCKS; b++)
        free(h->block[b]);
    *h = (v10_hist){0};
}

int v10_hist_grow(v10_hist *h, unsigned b)
{
    h->block[b] = calloc(V10_HIST_BLOCK, sizeof *h->block[b]);
    return h->block[b] ? 0 : -1;
}

size_t v10_hist_bytes(const v10_hist *h)
{
    size_t n = 0;
    for (unsigned b = 0; b < V10_HIST_BLOCKS; b++)
        n += h->block[b] ? V10_HIST_BLOCK * sizeof *h->block[b] : 0;
    return n;
}

/* The smallest value of bucket i and the bucket's width. */
static void bucket(unsigned i, uint64_t *lo, uint64_t *width)
{
    if (i < (1u << V10_HIST_SUB)) {
        *lo = i;
        *width = 1;
        return;
    }
    unsigned shift = (i >> V10_HIST_SUB) - 1;
    uint64_t m = (i & ((1u << V10_HIST_SUB) - 1)) + (1ull << V10_HIST_SUB);
    *lo = m << shift;
    *width = 1ull << shift;
}

double v10_hist_percentile(const v10_hist *h, double p)
{
    if (!h->n)
        return NAN;
    double r = ceil(p / 100.0 * (double)h->n);
    uint64_t rank = r < 1 ? 1 : (uint64_t)r, seen = 0;
    if (rank >= h->n)
        return (double)h->max;
    if (rank == 1)
        return (double)h->min;
    for (unsigned i = 0; i < V10_HIST_BUCKETS; i++) {
        const uint64_t *blk = h->block[i / V10_HIST_BLOCK];
        if (!blk) {
            i += V10_HIST_BLOCK - 1; /* a block of zeros */
            continue;
        }
        seen += blk[i % V10_HIST_BLOCK];
        if (seen >= rank) {
            uint64_t lo, w;
            bucket(i, &lo, &w);
            double mid = (double)lo + (double)(w - 1) / 2;
            return fmin(fmax(mid, (double)h->min), (double)h->max);
        }
    }
    return (double)h->max; /* not reached: the counts add up to n */
}
