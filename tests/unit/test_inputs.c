/*
 * test_inputs.c — input sets (src/util/file.h): a file read into a set is
 * served from the set while it is in use, whatever happens to the file
 * (edited, removed); with a set in use a file not in it is refused and the
 * miss noted; a set packed for another process unpacks to the same paths
 * and bytes (NUL bytes and empty files included), and a malformed buffer
 * is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file.h"

/* Writes n bytes to a fresh temporary file; its path into path[64]. */
static void put_file(char *path, const char *data, size_t n)
{
    strcpy(path, "/tmp/v10-inputs-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
}

static void served_from_the_set(void **state)
{
    (void)state;
    char a[64], gone[64];
    put_file(a, "first\n", 6);
    put_file(gone, "x", 1); /* a file never put into the set */
    v10_inputs in = {0};
    v10_err err;
    assert_int_equal(v10_inputs_add(&in, a, &err), 0);
    FILE *f = fopen(a, "w");
    assert_non_null(f);
    fputs("second, longer\n", f); /* the file changes after it was read */
    fclose(f);
    assert_int_equal(v10_inputs_add(&in, a, &err), 0); /* kept as read */
    assert_int_equal(in.n, 1);

    assert_null(v10_inputs_use(&in));
    size_t n = 0;
    char *b = v10_file_read(a, 100, &n, &err);
    assert_non_null(b);
    assert_int_equal(n, 6);
    assert_string_equal(b, "first\n");
    free(b);
    unlink(a); /* removed: still served */
    FILE *s = v10_input_open(a, &err);
    assert_non_null(s);
    char line[32];
    assert_non_null(fgets(line, sizeof line, s));
    assert_string_equal(line, "first\n");
    assert_null(fgets(line, sizeof line, s));
    fclose(s);
    assert_int_equal(v10_inputs_missed(), 0);
    /* A file not in the set: refused (though it exists), and noted once. */
    assert_null(v10_file_read(gone, 100, &n, &err));
    assert_non_null(strstr(err.msg, "not among the input files"));
    assert_null(v10_input_open(gone, &err));
    assert_int_equal(v10_inputs_missed(), 1);
    assert_int_equal(v10_inputs_missed(), 0);
    /* The size limit holds for the set's bytes as for a file's. */
    assert_null(v10_file_read(a, 5, &n, &err));
    assert_non_null(strstr(err.msg, "larger than 5 bytes"));

    assert_ptr_equal(v10_inputs_use(NULL), &in);
    b = v10_file_read(gone, 100, &n, &err); /* no set: the file */
    assert_non_null(b);
    assert_string_equal(b, "x");
    free(b);
    unlink(gone);
    v10_inputs_fini(&in);
    assert_int_equal(in.n, 0);
}

static void pack_unpack(void **state)
{
    (void)state;
    v10_inputs in = {0}, out = {0};
    v10_err err;
    assert_int_equal(v10_inputs_put(&in, "a.csv", "x,y\n1,2\n", 8, &err), 0);
    assert_int_equal(v10_inputs_put(&in, "empty.csv", "", 0, &err), 0);
    assert_int_equal(v10_inputs_put(&in, "m.onnx", "\0\1\0" "12\0", 6, &err), 0);
    assert_int_equal(v10_inputs_put(&in, "a.csv", "other", 5, &err), 0); /* kept */
    size_t len = 0;
    char *p = v10_inputs_pack(&in, &len);
    assert_non_null(p);
    assert_int_equal(v10_inputs_unpack(&out, p, len, &err), 0);
    assert_int_equal(out.n, 3);
    for (size_t i = 0; i < in.n; i++) {
        const v10_input *x = v10_inputs_find(&out, in.v[i].path);
        assert_non_null(x);
        assert_int_equal(x->len, in.v[i].len);
        assert_memory_equal(x->data, in.v[i].data, x->len);
        assert_int_equal(x->data[x->len], 0);
    }
    assert_memory_equal(v10_inputs_find(&out, "a.csv")->data, "x,y\n1,2\n", 8);
    /* An empty input reads as empty through a stream too. */
    assert_null(v10_inputs_use(&out));
    v10_err e2;
    FILE *f = v10_input_open("empty.csv", &e2);
    assert_non_null(f);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
    v10_inputs_use(NULL);
    v10_inputs_fini(&out);
    /* Cut short, or a length past the end: refused. */
    assert_int_equal(v10_inputs_unpack(&out, p, len - 1, &err), -1);
    assert_non_null(strstr(err.msg, "malformed"));
    v10_inputs_fini(&out);
    assert_int_equal(v10_inputs_unpack(&out, "a\0" "99\0" "x", 6, &err), -1);
    v10_inputs_fini(&out);
    assert_int_equal(v10_inputs_unpack(&out, "a\0" "-1\0" "x", 6, &err), -1);
    v10_inputs_fini(&out);
    free(p);
    v10_inputs_fini(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(served_from_the_set),
        cmocka_unit_test(pack_unpack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
