/*
 * test_text.c — v10_name_escape (src/util/text.h): printable ASCII and
 * valid UTF-8 stay as they are, control characters and invalid bytes
 * become \xHH, the copy is cut at a character boundary, escaping twice
 * changes nothing, and dst may be src.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/text.h"

static const struct {
    const char *src;
    size_t cap;
    const char *want;
} CASES[] = {
    {"conv1/relu", 48, "conv1/relu"},                    /* printable ASCII: as is */
    {"", 48, ""},
    {"abcdef", 4, "abc"},                                /* cut to cap - 1 */
    {"a\nb", 48, "a\\x0ab"},                             /* C0 control */
    {"x\x7fy", 48, "x\\x7fy"},                           /* DEL */
    {"\x1b[31mred", 48, "\\x1b[31mred"},                 /* an escape sequence */
    {"\xff" "ok", 48, "\\xffok"},                        /* not UTF-8 */
    {"caf\xc3\xa9", 48, "caf\xc3\xa9"},                  /* valid UTF-8: as is */
    {"caf\xc3\xa9", 5, "caf"},                           /* never inside a sequence */
    {"ab\ncd", 5, "ab"},                                 /* never inside an escape */
    {"\xc2\x85" "x", 48, "\\xc2\\x85x"},                 /* C1 control (U+0085) */
};

static void cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char out[64], again[64];
        v10_name_escape(out, CASES[i].cap, CASES[i].src);
        if (strcmp(out, CASES[i].want))
            fail_msg("case %zu: got '%s', want '%s'", i, out, CASES[i].want);
        v10_name_escape(again, sizeof again, out);
        assert_string_equal(again, out); /* escaping again changes nothing */
    }
}

static void in_place(void **state)
{
    (void)state;
    char buf[48] = "in\tplace";
    v10_name_escape(buf, sizeof buf, buf);
    assert_string_equal(buf, "in\\x09place");
    char plain[48] = "resnet50/conv1";
    v10_name_escape(plain, 8, plain);
    assert_string_equal(plain, "resnet5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cases),
        cmocka_unit_test(in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
