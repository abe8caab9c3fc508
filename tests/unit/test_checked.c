/*
 * test_checked.c — the signed checked arithmetic of util/checked.h (ONNX
 * shape arithmetic): every pair of edge values against exact 128-bit
 * arithmetic; a result is given exactly when it fits in int64_t, and
 * refused, leaving the output alone, when it does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/checked.h"

static const int64_t EDGE[] = {
    INT64_MIN, INT64_MIN + 1, INT64_MIN / 2, -(INT64_C(1) << 32) - 1, -(INT64_C(1) << 31),
    -3, -2, -1, 0, 1, 2, 3, INT64_C(1) << 31, (INT64_C(1) << 32) + 1, INT64_C(1) << 62,
    INT64_MAX / 2, INT64_MAX / 2 + 1, INT64_MAX - 1, INT64_MAX,
};
#define N_EDGE (sizeof EDGE / sizeof *EDGE)

typedef int (*op_fn)(int64_t, int64_t, int64_t *);

static void check(op_fn f, __int128 (*exact)(__int128, __int128))
{
    for (size_t i = 0; i < N_EDGE; i++)
        for (size_t j = 0; j < N_EDGE; j++) {
            __int128 want = exact(EDGE[i], EDGE[j]);
            int64_t got = 12345;
            int rc = f(EDGE[i], EDGE[j], &got);
            if (want >= INT64_MIN && want <= INT64_MAX) {
                assert_int_equal(rc, 0);
                assert_true(got == (int64_t)want);
            } else {
                assert_int_equal(rc, -1);
                assert_true(got == 12345); /* left alone */
            }
        }
}

static __int128 add(__int128 a, __int128 b) { return a + b; }
static __int128 sub(__int128 a, __int128 b) { return a - b; }
static __int128 mul(__int128 a, __int128 b) { return a * b; }

static void add_exact(void **state)
{
    (void)state;
    check(v10_add_i64, add);
}

static void sub_exact(void **state)
{
    (void)state;
    check(v10_sub_i64, sub);
}

static void mul_exact(void **state)
{
    (void)state;
    check(v10_mul_i64, mul);
    /* the example: 2^62 * 4 does not fit (wrapped, + 4 gave 4) */
    int64_t r;
    assert_int_equal(v10_mul_i64(INT64_C(1) << 62, 4, &r), -1);
    assert_int_equal(v10_mul_i64(INT64_C(1) << 62, -2, &r), 0);
    assert_true(r == INT64_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_exact),
        cmocka_unit_test(sub_exact),
        cmocka_unit_test(mul_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
