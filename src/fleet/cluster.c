/*
 * cluster.c — the numerical core of clustering-based collocation: seeded
 * random numbers, a Jacobi eigen-solver, standardization + PCA, and k-means
 * with k-means++ seeding.  Small dense problems (a few features, tens of
 * points), so clarity wins over speed.
 */
#include <math.h>
#include <string.h>

#include "v10/fleet.h"

uint64_t v10_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull); /* splitmix64 (Steele, Lea, Flood 2014) */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double v10_rng_unit(uint64_t *s) { return (double)(v10_rng_next(s) >> 11) * 0x1.0p-53; }

/*
 * Cyclic Jacobi: rotate away the largest off-diagonal entries until the
 * off-diagonal norm is negligible.  Converges quadratically for symmetric
 * matrices; 100 sweeps is far more than a d <= 8 matrix needs.
 */
void v10_eig_sym(const double *A, size_t d, double *w, double *V)
{
    double a[V10_FEAT_MAX][V10_FEAT_MAX], v[V10_FEAT_MAX][V10_FEAT_MAX];
    V10_ASSERT(d >= 1 && d <= V10_FEAT_MAX);
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++) {
            a[i][j] = A[i * d + j];
            v[i][j] = i == j;
        }
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) {
                tot += a[i][j] * a[i][j];
                if (i != j)
                    off += a[i][j] * a[i][j];
            }
        if (off <= 1e-26 * (tot + 1e-300))
            break;
        for (size_t p = 0; p < d; p++)
            for (size_t q = p + 1; q < d; q++) {
                if (fabs(a[p][q]) < 1e-300)
                    continue;
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (size_t k = 0; k < d; k++) { /* columns p, q */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (size_t k = 0; k < d; k++) { /* rows p, q */
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (size_t k = 0; k < d; k++) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    /* Sort by eigenvalue, descending (selection sort; d is tiny). */
    size_t order[V10_FEAT_MAX];
    for (size_t i = 0; i < d; i++)
        order[i] = i;
    for (size_t i = 0; i < d; i++)
        for (size_t j = i + 1; j < d; j++)
            if (a[order[j]][order[j]] > a[order[i]][order[i]]) {
                size_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (size_t j = 0; j < d; j++) {
        size_t c = order[j];
        w[j] = a[c][c];
        size_t big = 0;
        for (size_t i = 1; i < d; i++)
            if (fabs(v[i][c]) > fabs(v[big][c]) + 1e-12)
                big = i;
        double sign = v[big][c] < 0 ? -1 : 1;
        for (size_t i = 0; i < d; i++)
            V[i * d + j] = sign * v[i][c];
    }
}

void v10_pca_fit(v10_pca *p, const double *X, size_t n, size_t d, double keep_frac)
{
    V10_ASSERT(n >= 1 && d >= 1 && d <= V10_FEAT_MAX);
    memset(p, 0, sizeof *p);
    p->d = d;
    for (size_t j = 0; j < d; j++) {
        double m = 0, s = 0;
        for (size_t i = 0; i < n; i++)
            m += X[i * d + j];
        m /= (double)n;
        for (size_t i = 0; i < n; i++)
            s += (X[i * d + j] - m) * (X[i * d + j] - m);
        s = sqrt(s / (double)n);
        p->mean[j] = m;
        p->sd[j] = s > 1e-12 * (fabs(m) + 1) ? s : 0;
    }
    double cov[V10_FEAT_MAX * V10_FEAT_MAX] = {0}, z[V10_FEAT_MAX];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++)
            z[j] = p->sd[j] > 0 ? (X[i * d + j] - p->mean[j]) / p->sd[j] : 0;
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                cov[a * d + b] += z[a] * z[b] / (double)n;
    }
    double w[V10_FEAT_MAX], V[V10_FEAT_MAX * V10_FEAT_MAX];
    v10_eig_sym(cov, d, w, V);
    double tot = 0;
    for (size_t j = 0; j < d; j++) {
        p->var[j] = w[j] > 0 ? w[j] : 0;
        tot += p->var[j];
        for (size_t i = 0; i < d; i++)
            p->axis[j][i] = V[i * d + j];
    }
    size_t kmin = d < 2 ? d : 2, k = 0;
    double acc = 0;
    while (k < d && (k < kmin || (tot > 0 && acc < keep_frac * tot - 1e-12)))
        acc += p->var[k++];
    p->k = k;
    p->explained = tot > 0 ? acc / tot : 1;
}

void v10_pca_project(const v10_pca *p, const double *x, double *out)
{
    for (size_t j = 0; j < p->k; j++) {
        double s = 0;
        for (size_t i = 0; i < p->d; i++)
            if (p->sd[i] > 0)
                s += p->axis[j][i] * (x[i] - p->mean[i]) / p->sd[i];
        out[j] = s;
    }
}

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
