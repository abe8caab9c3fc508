/*
 * test_report_doc.c — rendering's all-or-nothing guard (src/report/doc.c)
 * and the reproduction's table of studies (src/repro/registry.c): a failed
 * renderer writes nothing, a good one writes every byte once; the table's
 * grids add up to the runs docs/repro.md counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "repro/study.h"

static int half_then_fail(const void *ctx, FILE *f)
{
    (void)ctx;
    fputs("{\"half\": ", f);
    return -1;
}

static int whole(const void *ctx, FILE *f)
{
    fputs((const char *)ctx, f);
    return 0;
}

static void test_doc_all_or_nothing(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(v10_doc_emit(half_then_fail, NULL, f), -1);
    assert_int_equal(ftell(f), 0); /* nothing of the failed document */
    assert_null(v10_doc_render(half_then_fail, NULL, NULL));
    assert_int_equal(v10_doc_emit(whole, "abc\n", f), 0);
    assert_int_equal(ftell(f), 4);
    fclose(f);
    size_t len = 0;
    char *s = v10_doc_render(whole, "xyz", &len);
    assert_non_null(s);
    assert_int_equal(len, 3);
    assert_string_equal(s, "xyz");
    free(s);
}

/* 965 runs for the studied set; with the other set's 11 pairs x 4
 * policies and 2 x 11 profiles, the 1031 simulations docs/repro.md counts
 * (743 simulated: 288 are another study's runs); with --fairness-both the
 * fairness study's 55 pairs x 5 policies of the other set too.  A study's run that is a
 * pairs' run is at most as long as the pairs' (same_as, studies.c), and
 * every run has a window after its warm-up. */
static void test_study_table(void **state)
{
    (void)state;
    size_t runs = 0, other = 0, opt = 0;
    for (int s = 0; s < N_STUDIES; s++) {
        const repro_study *st = &repro_studies[s];
        size_t n = st->dim[0] * st->dim[1] * st->dim[2];
        assert_non_null(st->name);
        assert_non_null(st->render);
        assert_true(st->plan ? n > 0 : n == 0);
        for (int t = 0; t < s; t++)
            assert_string_not_equal(st->name, repro_studies[t].name);
        for (int k = 0; st->plan && k < 2; k++) {
            assert_true(st->len[k].requests > st->len[k].warmup);
            assert_true(st->len[k].requests <= repro_studies[S_PAIRS].len[k].requests);
        }
        runs += n;
        if (st->both_sets == SETS_BOTH)
            other += NPP * st->dim[1] * st->dim[2];
        else if (st->both_sets == SETS_BOTH_OPT)
            opt += n;
    }
    assert_int_equal(runs, 965);
    assert_int_equal(runs + other + 2 * NM, 1031);
    assert_int_equal(opt, 55 * 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_all_or_nothing),
        cmocka_unit_test(test_study_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
