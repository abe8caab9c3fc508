/*
 * kmeans.c — k-means (Lloyd) with k-means++ seeding, the clustering step of
 * collocation; the best of several seeded restarts wins.  Deterministic for
 * (points, k, seed).
 */
#include <math.h>
#include <string.h>

#include "util/rng.h"
#include "v10/colloc.h"

static double dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t i = 0; i < d; i++)
        s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

size_t v10_kmeans_nearest(const v10_kmeans *km, const double *x)
{
    size_t best = 0;
    double bd = INFINITY;
    for (size_t c = 0; c < km->k; c++) {
        double dd = dist2(km->centroid[c], x, km->d);
        if (dd < bd) { /* ties go to the lower index */
            bd = dd;
            best = c;
        }
    }
    return best;
}

/* One k-means++ seeding and Lloyd iterations; returns the inertia. */
static double kmeans_once(v10_kmeans *km, const double *X, size_t n, size_t d, uint64_t *rng,
                          int *assign)
{
    size_t k = km->k;
    double dmin[64 * 16];
    V10_ASSERT(n <= sizeof dmin / sizeof dmin[0]);
    size_t first = (size_t)(v10_rng_unit(rng) * (double)n);
    memcpy(km->centroid[0], &X[first * d], d * sizeof(double));
    for (size_t i = 0; i < n; i++)
        dmin[i] = dist2(&X[i * d], km->centroid[0], d);
    for (size_t c = 1; c < k; c++) {
        double tot = 0;
        for (size_t i = 0; i < n; i++)
            tot += dmin[i];
        size_t pick = 0;
        if (tot > 0) {
            double r = v10_rng_unit(rng) * tot;
            for (pick = 0; pick + 1 < n && r >= dmin[pick]; pick++)
                r -= dmin[pick];
            while (dmin[pick] <= 0 && pick + 1 < n) /* never re-pick a centre */
                pick++;
        } else {
            pick = c % n; /* all points coincide */
        }
        memcpy(km->centroid[c], &X[pick * d], d * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            double dd = dist2(&X[i * d], km->centroid[c], d);
            if (dd < dmin[i])
                dmin[i] = dd;
        }
    }
    for (size_t i = 0; i < n; i++)
        assign[i] = -1;
    for (int it = 0; it < 300; it++) {
        int changed = 0;
        for (size_t i = 0; i < n; i++) {
            int c = (int)v10_kmeans_nearest(km, &X[i * d]);
            changed |= c != assign[i];
            assign[i] = c;
        }
        if (!changed)
            break;
        for (size_t c = 0; c < k; c++) {
            double sum[V10_FEAT_MAX] = {0};
            size_t cnt = 0;
            for (size_t i = 0; i < n; i++)
                if (assign[i] == (int)c) {
                    cnt++;
                    for (size_t j = 0; j < d; j++)
                        sum[j] += X[i * d + j];
                }
            if (cnt) {
                for (size_t j = 0; j < d; j++)
                    km->centroid[c][j] = sum[j] / (double)cnt;
            } else {
                /* An empty cluster takes the point farthest from its centre. */
                size_t far = 0;
                double fd = -1;
                for (size_t i = 0; i < n; i++) {
                    double dd = dist2(&X[i * d], km->centroid[assign[i]], d);
                    if (dd > fd) {
                        fd = dd;
                        far = i;
                    }
                }
                memcpy(km->centroid[c], &X[far * d], d * sizeof(double));
                assign[far] = (int)c;
            }
        }
    }
    double in = 0;
    for (size_t i = 0; i < n; i++)
        in += dist2(&X[i * d], km->centroid[assign[i]], d);
    return in;
}

void v10_kmeans_fit(v10_kmeans *km, const double *X, size_t n, size_t d, size_t k,
                    uint64_t seed, int restarts, int *assign)
{
    V10_ASSERT(n >= 1 && d >= 1 && d <= V10_FEAT_MAX && k >= 1);
    memset(km, 0, sizeof *km);
    if (k > n)
        k = n;
    if (k > V10_K_MAX)
        k = V10_K_MAX;
    uint64_t rng = seed ^ 0x6b6d65616e73ull; /* "kmeans": decouple from other draws */
    v10_kmeans best, cur;
    int tmp[64 * 16];
    V10_ASSERT(n <= sizeof tmp / sizeof tmp[0]);
    best.inertia = INFINITY;
    for (int r = 0; r < (restarts < 1 ? 1 : restarts); r++) {
        memset(&cur, 0, sizeof cur);
        cur.k = k;
        cur.d = d;
        cur.inertia = kmeans_once(&cur, X, n, d, &rng, tmp);
        if (cur.inertia < best.inertia - 1e-12) {
            best = cur;
            memcpy(assign, tmp, n * sizeof *assign);
        }
    }
    *km = best;
}
