/*
 * test_hist.c — the latency histogram (src/util/hist.h) against exact
 * nearest-rank percentiles of sorted samples: exact below 1024 cycles and for
 * constant samples, within 2^-11 relative above, monotone in p, NaN when empty;
 * memory in blocks where values land.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "util/hist.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t exact(const uint64_t *sorted, size_t n, double p)
{
    double r = ceil(p / 100.0 * (double)n);
    size_t i = r < 1 ? 0 : (size_t)r - 1;
    return sorted[i < n ? i : n - 1];
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_empty_and_constant(void **state)
{
    (void)state;
    v10_hist h;
    assert_int_equal(v10_hist_init(&h), 0);
    assert_true(isnan(v10_hist_percentile(&h, 50)));
    for (int i = 0; i < 1000; i++)
        v10_hist_add(&h, 123456789);
    for (double p = 1; p <= 100; p += 7)
        assert_true(v10_hist_percentile(&h, p) == 123456789.0);
    assert_true(h.sum / (double)h.n == 123456789.0);
    v10_hist_fini(&h);
}

static void test_small_values_exact(void **state)
{
    (void)state;
    v10_hist h;
    assert_int_equal(v10_hist_init(&h), 0);
    uint64_t v[1000];
    for (size_t i = 0; i < 1000; i++) {
        v[i] = (i * 7919) % 1024;
        v10_hist_add(&h, v[i]);
    }
    qsort(v, 1000, sizeof v[0], cmp_u64);
    for (double p = 0.5; p <= 100; p += 0.5)
        assert_true(v10_hist_percentile(&h, p) == (double)exact(v, 1000, p));
    v10_hist_fini(&h);
}

static void test_relative_error(void **state)
{
    (void)state;
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof *v), s = 88172645463325252ull;
    assert_non_null(v);
    v10_hist h;
    assert_int_equal(v10_hist_init(&h), 0);
    for (size_t i = 0; i < N; i++) {
        /* Log-uniform over 1 .. 2^60 cycles, plus the extremes. */
        unsigned bits = (unsigned)(next(&s) % 60) + 1;
        v[i] = next(&s) >> (64 - bits);
        if (i == 0)
            v[i] = UINT64_MAX;
        v10_hist_add(&h, v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    double last = 0;
    for (double p = 0.1; p <= 100; p += 0.1) {
        double want = (double)exact(v, N, p), got = v10_hist_percentile(&h, p);
        assert_true(fabs(got - want) <= want * ldexp(1, -(V10_HIST_SUB + 1)) + 0.5);
        assert_true(got >= last);
        last = got;
    }
    assert_true(v10_hist_percentile(&h, 100) == (double)UINT64_MAX);
    assert_true(v10_hist_percentile(&h, 0.0001) == (double)v[0]);
    v10_hist_fini(&h);
    free(v);
}

/* Memory follows the values: latencies within 30% of each other take two
 * blocks of counts (4 KiB), not every bucket (440 KiB); an empty histogram
 * takes none. */
static void test_sized_to_values(void **state)
{
    (void)state;
    v10_hist h;
    assert_int_equal(v10_hist_init(&h), 0);
    assert_int_equal(v10_hist_bytes(&h), 0);
    uint64_t s = 2463534242ull;
    for (int i = 0; i < 10000; i++)
        assert_int_equal(v10_hist_add(&h, 1000000 + next(&s) % 300000), 0);
    assert_int_equal(v10_hist_bytes(&h), 2 * V10_HIST_BLOCK * sizeof(uint64_t));
    assert_true(v10_hist_bytes(&h) * 100 < (size_t)V10_HIST_BUCKETS * sizeof(uint64_t));
    double p50 = v10_hist_percentile(&h, 50);
    assert_true(p50 > 1.1e6 && p50 < 1.2e6);
    v10_hist_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_constant),
        cmocka_unit_test(test_small_values_exact),
        cmocka_unit_test(test_relative_error),
        cmocka_unit_test(test_sized_to_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
