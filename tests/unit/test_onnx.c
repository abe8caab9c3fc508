/*
 * test_onnx.c — the ONNX importer on files written by others: every model
 * of Debian's libonnx-testdata (one operator each, with test_data_set_0
 * tensors) either imports with inferred output shapes equal to the shapes
 * of its output_N.pb, or is rejected with a message naming the file; never
 * a crash.  Conv, ConvTranspose, Gemm and MatMul cases check the SA MACs
 * against a hand computation from the test tensors.  Plus bad bytes,
 * options and the model-spec resolver.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dirlist.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/onnx.h"

#define TESTDATA_DEFAULT "/usr/share/libonnx-testdata/data"

static const char *testdata(void)
{
    const char *d = getenv("V10_ONNX_TESTDATA");
    return d && *d ? d : TESTDATA_DEFAULT;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static uint64_t numel(const v10_onnx_shape *s, uint32_t from)
{
    uint64_t n = 1;
    for (uint32_t i = from; i < s->rank; i++)
        n *= (uint64_t)s->dims[i];
    return n;
}

static uint64_t sa_macs(const v10_model *m)
{
    uint64_t t = 0;
    for (size_t i = 0; i < m->n_ops; i++)
        if (m->ops[i].fu == V10_FU_SA)
            t += m->ops[i].count * m->ops[i].m * m->ops[i].n * m->ops[i].k;
    return t;
}

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

static int read_shape(const char *dir, const char *file, v10_onnx_shape *s)
{
    char p[1024];
    v10_err err;
    if ((size_t)snprintf(p, sizeof p, "%s/test_data_set_0/%s", dir, file) >= sizeof p ||
        !exists(p))
        return -1;
    if (v10_onnx_tensor_file_shape(p, s, &err))
        fail_msg("%s", err.msg);
    return 0;
}

/*
 * Hand MACs of a single-operator test from its tensors: Conv numel(Y) x
 * prod(W[1:]); ConvTranspose numel(X) x prod(W[1:]); Gemm numel(Y) x
 * numel(A) / Y[0] (K, whatever transA); MatMul numel(Y) x K.  Returns 0 if
 * the case is not one of these.
 */
static int hand_macs(const char *dir, const char *test, uint64_t *macs)
{
    v10_onnx_shape y, a, w;
    if (read_shape(dir, "output_0.pb", &y) || read_shape(dir, "input_0.pb", &a))
        return 0;
    if (starts(test, "test_convtranspose") && !read_shape(dir, "input_1.pb", &w)) {
        *macs = numel(&a, 0) * numel(&w, 1);
    } else if (starts(test, "test_conv") && !starts(test, "test_convinteger") &&
               !read_shape(dir, "input_1.pb", &w)) {
        *macs = numel(&y, 0) * numel(&w, 1);
    } else if (starts(test, "test_gemm") && y.rank == 2 && y.dims[0] > 0) {
        *macs = numel(&y, 0) * numel(&a, 0) / (uint64_t)y.dims[0];
    } else if (starts(test, "test_matmul") && !starts(test, "test_matmulinteger") && a.rank) {
        *macs = numel(&y, 0) * (uint64_t)a.dims[a.rank - 1];
    } else {
        return 0;
    }
    return 1;
}

typedef struct tally {
    size_t models, imported, rejected, mac_checked, outputs_checked;
    size_t failures;
} tally;

static void check_model(const char *dir, const char *test, tally *t, FILE *log)
{
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%s/model.onnx", dir) >= sizeof path || !exists(path))
        return;
    t->models++;
    v10_model m;
    v10_onnx_result res;
    v10_err err = {{0}};
    if (v10_onnx_read(path, NULL, &m, &res, &err)) {
        t->rejected++;
        /* A clear message: names the file, and a node or what is wrong. */
        if (!starts(err.msg, path) || strlen(err.msg) < strlen(path) + 10) {
            fprintf(stderr, "FAIL %s: unclear rejection '%s'\n", test, err.msg);
            t->failures++;
        }
        fprintf(log, "reject %s: %s\n", test, err.msg + strlen(path) + 2);
        return;
    }
    int ok = 1;
    for (size_t i = 0; i < res.n_outputs; i++) {
        char f[32];
        v10_onnx_shape want;
        snprintf(f, sizeof f, "output_%zu.pb", i);
        if (read_shape(dir, f, &want))
            continue;
        const v10_onnx_shape *got = &res.outputs[i];
        int same = got->known && got->rank == want.rank &&
                   !memcmp(got->dims, want.dims, want.rank * sizeof *want.dims);
        t->outputs_checked++;
        if (!same) {
            char g[128] = "", w[128] = "";
            for (uint32_t k = 0; k < got->rank; k++)
                snprintf(g + strlen(g), sizeof g - strlen(g), "%lld,", (long long)got->dims[k]);
            for (uint32_t k = 0; k < want.rank; k++)
                snprintf(w + strlen(w), sizeof w - strlen(w), "%lld,", (long long)want.dims[k]);
            fprintf(stderr, "FAIL %s: output %zu inferred [%s] (known %d), test data [%s]\n",
                    test, i, g, got->known, w);
            ok = 0;
        }
    }
    uint64_t want_macs;
    if (ok && hand_macs(dir, test, &want_macs)) {
        t->mac_checked++;
        if (sa_macs(&m) != want_macs) {
            fprintf(stderr, "FAIL %s: %llu SA MACs, hand computation %llu\n", test,
                    (unsigned long long)sa_macs(&m), (unsigned long long)want_macs);
            ok = 0;
        }
    }
    if (ok && m.n_ops) {
        v10_npu npu;
        assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
        if (v10_cost_model(&npu, &m, &err)) {
            fprintf(stderr, "FAIL %s: costing: %s\n", test, err.msg);
            ok = 0;
        }
    }
    fprintf(log, "import %s: %zu ops, %llu MACs\n", test, m.n_ops,
            (unsigned long long)sa_macs(&m));
    t->imported += ok;
    t->failures += !ok;
    v10_model_fini(&m);
    v10_onnx_result_fini(&res);
}

static void walk(const char *group, tally *t, FILE *log)
{
    char dirpath[1024];
    snprintf(dirpath, sizeof dirpath, "%s/%s", testdata(), group);
    size_t n;
    char **names = dirlist(dirpath, &n);
    for (size_t i = 0; i < n; i++) {
        const char *name = strrchr(names[i], '/') + 1;
        check_model(names[i], name, t, log);
        free(names[i]);
    }
    free(names);
}

static void test_testdata(void **state)
{
    (void)state;
    if (!exists(testdata()))
        fail_msg("%s is missing: install libonnx-testdata (make deps)", testdata());
    tally t = {0, 0, 0, 0, 0, 0};
    const char *logpath = getenv("V10_ONNX_LOG");
    FILE *log = fopen(logpath && *logpath ? logpath : "/dev/null", "w");
    assert_non_null(log);
    static const char *const groups[] = {"node", "pytorch-converted", "pytorch-operator",
                                         "simple"};
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
        walk(groups[i], &t, log);
    fclose(log);
    printf("onnx testdata: %zu models: %zu imported with matching output shapes "
           "(%zu outputs, %zu MAC checks), %zu rejected with a message, %zu failures\n",
           t.models, t.imported, t.outputs_checked, t.mac_checked, t.rejected, t.failures);
    assert_int_equal(t.failures, 0);
    /* Debian 12's libonnx-testdata has 1072 models; most must import. */
    assert_true(t.models >= 1000);
    assert_true(t.imported >= 550);
    assert_true(t.mac_checked >= 25);
}

/* ---- bad bytes and options ---- */

static void test_garbage(void **state)
{
    (void)state;
    static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x12};
    v10_model m;
    v10_err err = {{0}};
    assert_int_equal(v10_onnx_parse(junk, sizeof junk, "junk.onnx", "junk", NULL, &m, NULL, &err),
                     -1);
    assert_non_null(strstr(err.msg, "junk.onnx: not an ONNX model"));
    /* An empty file parses as an empty ModelProto: no graph. */
    assert_int_equal(v10_onnx_parse(junk, 0, "empty.onnx", "e", NULL, &m, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "empty.onnx: the ModelProto has no graph"));
    assert_int_equal(v10_onnx_read("/nonexistent/x.onnx", NULL, &m, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.onnx: cannot open"));
}

/* Every truncation of a real model is rejected or imported, never a crash. */
static void test_truncated(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/node/test_conv_with_strides_padding/model.onnx", testdata());
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 50 && n < sizeof buf);
    size_t rejected = 0;
    for (size_t len = 0; len < n; len++) {
        v10_model m;
        v10_err err = {{0}};
        if (v10_onnx_parse(buf, len, "t.onnx", "t", NULL, &m, NULL, &err) == 0)
            v10_model_fini(&m);
        else
            rejected++, assert_true(starts(err.msg, "t.onnx: "));
    }
    assert_true(rejected > n / 2);
}

/* unknown=vu turns an unsupported node into a reported VU approximation. */
static void test_unknown_vu(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/node/test_hardmax_example/model.onnx", testdata());
    v10_model m;
    v10_onnx_result res;
    v10_err err = {{0}};
    assert_int_equal(v10_onnx_read(path, NULL, &m, &res, &err), -1);
    assert_non_null(strstr(err.msg, "(Hardmax): unsupported operator"));
    v10_onnx_opts o = {0, 1};
    assert_int_equal(v10_onnx_read(path, &o, &m, &res, &err), 0);
    assert_int_equal(res.n_approx, 1);
    assert_non_null(strstr(res.approx, "Hardmax"));
    assert_int_equal(m.n_ops, 1);
    assert_int_equal(m.ops[0].fu, V10_FU_VU);
    assert_int_equal(m.ops[0].name[0], '~');
    assert_int_equal(res.n_outputs, 1);
    assert_true(res.outputs[0].known); /* the declared output shape */
    v10_model_fini(&m);
    v10_onnx_result_fini(&res);
}

/* The spec resolver: .onnx paths, batch, unknown=vu, and their errors. */
static void test_spec(void **state)
{
    (void)state;
    char spec[1200];
    v10_npu npu;
    v10_model m;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
    snprintf(spec, sizeof spec, "%s/node/test_gemm_default_matrix_bias/model.onnx", testdata());
    assert_int_equal(v10_model_load(spec, &npu, &m, &err), 0);
    assert_int_equal(m.n_ops, 1);
    /* a 3-row product: on the VU, as XLA emits a dot of at most 8 rows
     * (NPU vu_dot_rows) */
    assert_int_equal(m.ops[0].kind, V10_OP_GEMM);
    assert_int_equal(m.ops[0].fu, V10_FU_VU);
    assert_true(m.ops[0].cycles > 0);
    v10_model_fini(&m);
    snprintf(spec, sizeof spec, "%s/node/test_hardmax_example/model.onnx:unknown=vu", testdata());
    assert_int_equal(v10_model_load(spec, &npu, &m, &err), 0);
    v10_model_fini(&m);
    assert_int_equal(v10_model_load("resnet50:unknown=vu", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "unknown=vu applies to .onnx models only"));
    assert_int_equal(v10_model_load("missing.onnx", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "missing.onnx: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_testdata),   cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_truncated),  cmocka_unit_test(test_unknown_vu),
        cmocka_unit_test(test_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
