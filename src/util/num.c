/* num.c — strict decimal numbers in, shortest exact numbers out (see num.h). */
#include "util/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "v10/err.h"

static int digit(char c) { return c >= '0' && c <= '9'; }

/* Length of the digits at s with no leading zero (a lone 0 is fine); 0 if none. */
static size_t whole(const char *s)
{
    if (s[0] == '0')
        return digit(s[1]) ? 0 : 1;
    size_t n = 0;
    while (digit(s[n]))
        n++;
    return n;
}

int v10_parse_u64(const char *s, uint64_t *out)
{
    size_t n = whole(s);
    if (!n || s[n])
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int v10_parse_f64(const char *s, double *out)
{
    const char *p = s + (*s == '-');
    size_t n = whole(p);
    if (!n)
        return -1;
    p += n;
    if (*p == '.') {
        if (!digit(*++p))
            return -1;
        while (digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        if (!digit(*p))
            return -1;
        while (digit(*p))
            p++;
    }
    if (*p)
        return -1;
    double v = strtod(s, NULL);
    if (!isfinite(v)) /* 1e999: too large */
        return -1;
    *out = v;
    return 0;
}

void v10_num_fmt(double v, char *out, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(out, cap, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    /* 17 significant digits always round-trip a binary64 (IEEE 754-2008,
     * 5.12.2); fewer often do. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, cap, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

const char *v10_num_range(double v, double lo, double hi, char *out, size_t cap)
{
    char a[V10_NUM_MAX], l[V10_NUM_MAX], h[V10_NUM_MAX];
    v10_num_fmt(v, a, sizeof a);
    v10_num_fmt(lo, l, sizeof l);
    v10_num_fmt(hi, h, sizeof h);
    snprintf(out, cap, "%s is out of range [%s, %s]", a, l, h);
    return out;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void v10_sort_doubles(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

double v10_kth_largest(double *v, size_t n, size_t k)
{
    V10_ASSERT(k >= 1 && k <= n);
    size_t lo = 0, hi = n, want = k - 1; /* v[want] in descending order */
    for (;;) {
        /* Median of three as the pivot; a three-way partition of [lo, hi)
         * into > pivot, == pivot, < pivot, so runs of equal keys (a model's
         * repeated layers) take one step. */
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t gt = lo, i = lo, lt = hi;
        while (i < lt) {
            double x = v[i];
            if (x > piv) {
                v[i++] = v[gt];
                v[gt++] = x;
            } else if (x < piv) {
                v[i] = v[--lt];
                v[lt] = x;
            } else {
                i++;
            }
        }
        if (want < gt)
            hi = gt;
        else if (want >= lt)
            lo = lt;
        else
            return piv;
    }
}

/* An index and its key, for v10_order_desc. */
typedef struct keyed {
    double key;
    size_t i;
} keyed;

static int by_key_desc(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    return a->key > b->key ? -1 : a->key < b->key ? 1 : (a->i > b->i) - (a->i < b->i);
}

int v10_order_desc(const double *key, size_t n, size_t *order)
{
    keyed *kv = malloc((n ? n : 1) * sizeof *kv);
    if (!kv)
        return -1;
    for (size_t i = 0; i < n; i++)
        kv[i] = (keyed){key[i], i};
    qsort(kv, n, sizeof *kv, by_key_desc);
    for (size_t i = 0; i < n; i++)
        order[i] = kv[i].i;
    free(kv);
    return 0;
}
