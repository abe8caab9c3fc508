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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_order_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
