/*
 * test_num.c — v10_num_fmt (src/util/num.h): the fewest of 15, 16 and 17
 * significant digits that read back exactly, over fixed cases and 200,000
 * random doubles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"

static void test_fixed(void **state)
{
    (void)state;
    char b[V10_NUM_MAX];
    struct { double v; const char *want; } cases[] = {
        {0.39, "0.39"},                        /* %.17g: 0.39000000000000001 */
        {0.1 + 0.2, "0.30000000000000004"},   /* needs all 17 */
        {1.0 / 3, "0.3333333333333333"},      /* needs 16 */
        {0, "0"},
        {-2.5, "-2.5"},
        {1e300, "1e+300"},
        {5e-324, "4.94065645841247e-324"},   /* the smallest subnormal */
        {NAN, "nan"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v10_num_fmt(cases[i].v, b, sizeof b);
        assert_string_equal(b, cases[i].want);
    }
    /* a range error in the same digits: %g said "64" and "1.09951e+12" */
    char r[V10_RANGE_MAX];
    assert_string_equal(v10_num_range(64.0000001, 1, 64, r, sizeof r),
                        "64.0000001 is out of range [1, 64]");
    assert_string_equal(v10_num_range(1e99, 1024, 1099511627776.0, r, sizeof r),
                        "1e+99 is out of range [1024, 1099511627776]");
    assert_string_equal(v10_num_range(-DBL_MAX, 0.1 + 0.2, 5e-324, r, sizeof r),
                        "-1.7976931348623157e+308 is out of range [0.30000000000000004, "
                        "4.94065645841247e-324]");
}

static void test_random_round_trip(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char b[V10_NUM_MAX], shorter[V10_NUM_MAX];
    for (int k = 0; k < 200000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
            continue;
        v10_num_fmt(v, b, sizeof b);
        assert_true(strtod(b, NULL) == v);
        /* Not longer than needed: one digit fewer (down to 15) does not read back. */
        int digits = 15;
        for (; digits < 17; digits++) {
            snprintf(shorter, sizeof shorter, "%.*g", digits, v);
            if (strtod(shorter, NULL) == v)
                break;
        }
        snprintf(shorter, sizeof shorter, "%.*g", digits, v);
        assert_string_equal(b, shorter);
    }
}

/* v10_order_desc: decreasing keys, equal keys in index order. */
static void test_order_desc(void **state)
{
    (void)state;
    const double key[] = {2, 5, 2, -1, 5, 0};
    const size_t want[] = {1, 4, 0, 2, 5, 3};
    size_t order[6];
    assert_int_equal(v10_order_desc(key, 6, order), 0);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(order[i], want[i]);
    assert_int_equal(v10_order_desc(key, 0, order), 0);
}

/* v10_kth_largest: what a descending sort puts at k - 1, for every k, on
 * arrays with long runs of equal keys (a model's repeated layers), sorted
 * ones either way, and one of a single value. */
static void test_kth_largest(void **state)
{
    (void)state;
    enum { N = 257 };
    double v[N], sorted[N], work[N];
    uint64_t x = 88172645463325252u; /* xorshift64: a fixed sequence */
    for (int shape = 0; shape < 5; shape++) {
        for (int i = 0; i < N; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[i] = shape == 0 ? (double)(x % 1000)      /* few ties */
                 : shape == 1 ? (double)(x % 4)         /* runs of equal keys */
                 : shape == 2 ? (double)i               /* ascending */
                 : shape == 3 ? (double)(N - i)         /* descending */
                              : 7.5;                    /* all equal */
            sorted[i] = v[i];
        }
        v10_sort_doubles(sorted, N); /* ascending: the k-th largest is sorted[N - k] */
        for (size_t k = 1; k <= N; k++) {
            memcpy(work, v, sizeof v);
            double got = v10_kth_largest(work, N, k);
            if (got != sorted[N - k])
                fail_msg("shape %d, k %zu: %g, expected %g", shape, k, got, sorted[N - k]);
            v10_sort_doubles(work, N); /* reordered, not changed */
            assert_memory_equal(work, sorted, sizeof sorted);
        }
    }
    double one = 3;
    assert_true(v10_kth_largest(&one, 1, 1) == 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_order_desc),
        cmocka_unit_test(test_kth_largest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
