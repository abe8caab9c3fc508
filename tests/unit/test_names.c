/*
 * test_names.c — names as people type them (src/util/names.h): an exact
 * name first; else case and blanks at either end ignored when that leaves
 * one name; two names that differ only in case are refused rather than
 * guessed; a near miss gets the nearest names, and a far one none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/names.h"

static const char *const POLICIES[] = {"solo", "fcfs", "pmt", "prema", "spatial",
                                       "v10-base", "v10-fair", "v10-full", NULL};

static void lookup(void **state)
{
    (void)state;
    static const struct {
        const char *typed;
        long want;
    } cases[] = {
        {"pmt", 2},       {"PMT", 2},        {"V10-Full", 7}, {" v10-full ", 7},
        {"\tspatial", 4}, {"v10-ful", -1},   {"", -1},        {"pmt,", -1},
        {"v10 full", -1}, {"solo solo", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        long got = v10_name_lookup(cases[i].typed, POLICIES, (size_t)-1);
        if (got != cases[i].want)
            fail_msg("'%s': want %ld, got %ld", cases[i].typed, cases[i].want, got);
    }
    /* n bounds the list as the NULL does */
    assert_int_equal(v10_name_lookup("fcfs", POLICIES, 1), -1);
    assert_int_equal(v10_name_lookup("solo", POLICIES, 1), 0);
    /* a word longer than any name is no name */
    char longw[200];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = 0;
    assert_int_equal(v10_name_lookup(longw, POLICIES, (size_t)-1), -1);
}

/* Two names alike but for case: the exact one is found, the others are
 * ambiguous and refused. */
static void ambiguous(void **state)
{
    (void)state;
    static const char *const names[] = {"Net", "net", "other", NULL};
    assert_int_equal(v10_name_lookup("Net", names, (size_t)-1), 0);
    assert_int_equal(v10_name_lookup("net", names, (size_t)-1), 1);
    assert_int_equal(v10_name_lookup("NET", names, (size_t)-1), -1);
    assert_int_equal(v10_name_lookup("OTHER", names, (size_t)-1), 2);
}

static void hint(void **state)
{
    (void)state;
    static const struct {
        const char *typed;
        const char *prefix;
        const char *want;
    } cases[] = {
        {"v10-ful", NULL, "; did you mean 'v10-full'?"},           /* one letter off */
        {"pmtt", NULL, "; did you mean 'pmt'?"},
        {"prmea", NULL, "; did you mean 'prema'?"},                /* two neighbours swapped */
        {"v10-fu", NULL, "; did you mean 'v10-full'?"},            /* begins a name */
        {"v10", NULL, "; did you mean 'v10-base', 'v10-fair' or 'v10-full'?"},
        {"spatial", "isca23/", "; did you mean 'isca23/spatial'?"}, /* the prefix */
        {"quantum", NULL, ""},                                     /* nothing near */
        {"", NULL, ""},
        {"x", NULL, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char h[160];
        v10_name_hint(h, sizeof h, cases[i].typed, POLICIES, (size_t)-1, cases[i].prefix);
        if (strcmp(h, cases[i].want))
            fail_msg("'%s': want \"%s\", got \"%s\"", cases[i].typed, cases[i].want, h);
    }
    /* cut to the room given, still a string */
    char small[12];
    v10_name_hint(small, sizeof small, "v10", POLICIES, (size_t)-1, NULL);
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookup),
        cmocka_unit_test(ambiguous),
        cmocka_unit_test(hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
