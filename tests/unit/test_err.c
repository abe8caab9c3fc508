/*
 * test_err.c — v10_err_set and v10_err_prefix (v10/err.h): a message that
 * fits is as formatted; one longer than V10_ERR_MAX - 1 bytes keeps its
 * start and its end (the reason after an over-long path), " ... " between,
 * never cutting a UTF-8 character; a prefix goes before the message by the
 * same rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "v10/err.h"

static void fits(void **state)
{
    (void)state;
    v10_err e;
    assert_int_equal(v10_err_set(&e, "%s:%d: batch: expected %s", "a.csv", 3, "an integer"), -1);
    assert_string_equal(e.msg, "a.csv:3: batch: expected an integer");
    v10_err_prefix(&e, "tenant %d", 0);
    assert_string_equal(e.msg, "tenant 0: a.csv:3: batch: expected an integer");
    assert_int_equal(v10_err_set(NULL, "x"), -1);
}

/* A 5,000-byte path: the message keeps its first 200 bytes and its end. */
static void long_path_keeps_reason(void **state)
{
    (void)state;
    static char path[5001];
    memset(path, 'a', 5000);
    path[0] = '/';
    v10_err e;
    v10_err_set(&e, "%s: cannot create: %s", path, "File name too long");
    size_t n = strlen(e.msg);
    assert_int_equal(n, V10_ERR_MAX - 1);
    assert_memory_equal(e.msg, path, 200);
    assert_memory_equal(e.msg + 200, " ... ", 5);
    const char *end = ": cannot create: File name too long";
    assert_string_equal(e.msg + n - strlen(end), end);
    /* a prefix on a full message: its end stays too */
    v10_err_prefix(&e, "tenant %d", 3);
    assert_int_equal(strlen(e.msg), V10_ERR_MAX - 1);
    assert_memory_equal(e.msg, "tenant 3: /aaa", 14);
    assert_string_equal(e.msg + strlen(e.msg) - strlen(end), end);
}

/* Cuts fall between UTF-8 characters: a name of 2-byte characters (é). */
static void utf8_boundaries(void **state)
{
    (void)state;
    static char name[4001];
    for (size_t i = 0; i < 4000; i += 2)
        memcpy(name + i, "\xc3\xa9", 2);
    v10_err e;
    v10_err_set(&e, "x%s: unknown", name); /* 'x' shifts the pairs to odd offsets */
    const unsigned char *m = (const unsigned char *)e.msg;
    const char *dots = strstr(e.msg, " ... ");
    assert_non_null(dots);
    size_t at = (size_t)(dots - e.msg);
    assert_true((m[at - 1] & 0xC0) != 0xC0);        /* no lead byte before the cut */
    assert_true((m[at + 5] & 0xC0) != 0x80);        /* no continuation after it */
    assert_string_equal(e.msg + strlen(e.msg) - 9, ": unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fits),
        cmocka_unit_test(long_path_keeps_reason),
        cmocka_unit_test(utf8_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
