/*
 * test_validate.c — the zoo's models against the V10 paper's measured TPUv2
 * profiles (v10/validate.h): on the default core the mean |error| over
 * every measured model x batch row stays within what docs/models.md
 * promises (SA and VU busy <= 10 points, HBM utilization <= 12), no row's
 * SA busy is off by more than 30 points, and the rows the fit did not use
 * (held out) are within 3 points of those it did.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v10/npu.h"
#include "v10/validate.h"

static void test_errors_within_limits(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
    v10_val_row *rows;
    size_t n;
    if (v10_validate(&npu, &rows, &n, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    /* Every row of the profiles: 11 models, 70 rows, 68 with an SA busy. */
    assert_int_equal(n, 70);
    v10_val_summary s;
    v10_validate_summarize(rows, n, &s);
    assert_int_equal(s.n[V10_VAL_ALL][V10_VAL_SA], 68);
    assert_int_equal(s.n[V10_VAL_ALL][V10_VAL_VU], 66);
    assert_int_equal(s.n[V10_VAL_ALL][V10_VAL_HBM], 70);
    const double limit[3] = {10, 10, 12};
    for (int k = 0; k < 3; k++) {
        if (!(s.mean[V10_VAL_ALL][k] <= limit[k]))
            fail_msg("metric %d: mean |error| %.2f points over the limit %.0f", k,
                     s.mean[V10_VAL_ALL][k], limit[k]);
        double gap = fabs(s.mean[V10_VAL_HELD_OUT][k] - s.mean[V10_VAL_FITTED][k]);
        if (!(gap <= 3))
            fail_msg("metric %d: held out %.2f vs fitted %.2f points", k,
                     s.mean[V10_VAL_HELD_OUT][k], s.mean[V10_VAL_FITTED][k]);
    }
    if (!(s.max[V10_VAL_SA] <= 30))
        fail_msg("%s at batch %u: SA busy off by %.1f points", rows[s.max_row[V10_VAL_SA]].model,
                 rows[s.max_row[V10_VAL_SA]].batch, s.max[V10_VAL_SA]);
    /* Each row alone: busy fractions of one core add up to 1, every figure
     * in [0, 1], and the fitted rows are those of batches 1, 32 and 512. */
    for (size_t i = 0; i < n; i++) {
        const v10_val_row *r = &rows[i];
        assert_true(fabs(r->sim[V10_VAL_SA] + r->sim[V10_VAL_VU] - 1) < 1e-9);
        for (int k = 0; k < V10_VAL_N; k++)
            assert_true(r->sim[k] >= 0 && r->sim[k] <= 1);
        assert_int_equal(r->fitted, r->batch == 1 || r->batch == 32 || r->batch == 512);
        assert_true(r->sa_ops + r->vu_ops > 0 && r->latency_us > 0);
    }
    free(rows);
}

/* The summary's arithmetic on hand-made rows: means per set, NaN where
 * nothing was measured, the largest error and its row. */
static void test_summary_arithmetic(void **state)
{
    (void)state;
    v10_val_row r[3];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < V10_VAL_N; k++)
            r[i].tpu[k] = NAN;
    r[0].fitted = 1;
    r[0].tpu[V10_VAL_SA] = 0.50, r[0].sim[V10_VAL_SA] = 0.40; /* 10 points */
    r[1].tpu[V10_VAL_SA] = 0.20, r[1].sim[V10_VAL_SA] = 0.50; /* 30 points, held out */
    r[2].tpu[V10_VAL_SA] = 0.70, r[2].sim[V10_VAL_SA] = 0.65; /* 5 points, held out */
    v10_val_summary s;
    v10_validate_summarize(r, 3, &s);
    assert_true(fabs(s.mean[V10_VAL_ALL][V10_VAL_SA] - 15) < 1e-9);
    assert_true(fabs(s.mean[V10_VAL_FITTED][V10_VAL_SA] - 10) < 1e-9);
    assert_true(fabs(s.mean[V10_VAL_HELD_OUT][V10_VAL_SA] - 17.5) < 1e-9);
    assert_true(isnan(s.mean[V10_VAL_ALL][V10_VAL_HBM]));
    assert_int_equal(s.n[V10_VAL_HELD_OUT][V10_VAL_SA], 2);
    assert_true(fabs(s.max[V10_VAL_SA] - 30) < 1e-9);
    assert_int_equal(s.max_row[V10_VAL_SA], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_arithmetic),
        cmocka_unit_test(test_errors_within_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
