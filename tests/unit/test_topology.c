/*
 * test_topology.c — the GEMM cycle model against SCALE-Sim v2's own figures
 * (shared/data/scalesim/), hand-computed OS/IS/TPU cases, and the SCALE-Sim
 * topology reader on good and bad files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/topology.h"
#include "v10/cost.h"

#define FIXTURES V10_SOURCE_DIR "/tests/data/topology/"

static const char *shared_dir(void)
{
    const char *s = getenv("V10_SHARED");
    return s && *s ? s : V10_SOURCE_DIR "/tests/data/shared";
}

static void shared_path(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", shared_dir(), rel);
}

/* ---- reference CSV (SCALE-Sim output): columns looked up by name ---- */

#define REF_MAX_COLS 32
#define REF_MAX_ROWS 128

typedef struct ref_row {
    char name[64];
    uint64_t M, N, K, macs, rows, cols, total_cycles;
} ref_row;

static int col_index(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(hdr[i], name))
            return i;
    fail_msg("reference column %s missing", name);
    return -1;
}

static int split_csv(char *line, char **f)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;; n++) {
        f[n] = p;
        char *c = strchr(p, ',');
        if (!c || n + 1 == REF_MAX_COLS) {
            n++;
            break;
        }
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static size_t read_ref(const char *rel, ref_row *out)
{
    char path[4096], line[1024], hdr_line[1024], *hdr[REF_MAX_COLS], *f[REF_MAX_COLS];
    shared_path(path, sizeof path, rel);
    FILE *fp = fopen(path, "r");
    if (!fp)
        fail_msg("cannot open %s (set V10_SHARED)", path);
    assert_non_null(fgets(hdr_line, sizeof hdr_line, fp));
    int nh = split_csv(hdr_line, hdr);
    int iname = col_index(hdr, nh, "layer_name"), iM = col_index(hdr, nh, "gemm_M"),
        iN = col_index(hdr, nh, "gemm_N"), iK = col_index(hdr, nh, "gemm_K"),
        imacs = col_index(hdr, nh, "macs"), ir = col_index(hdr, nh, "array_rows"),
        ic = col_index(hdr, nh, "array_cols"), it = col_index(hdr, nh, "total_cycles"),
        idf = col_index(hdr, nh, "dataflow");
    size_t n = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        int nf = split_csv(line, f);
        assert_int_equal(nf, nh);
        assert_true(n < REF_MAX_ROWS);
        assert_string_equal(f[idf], "ws");
        ref_row *r = &out[n++];
        snprintf(r->name, sizeof r->name, "%s", f[iname]);
        r->M = strtoull(f[iM], NULL, 10);
        r->N = strtoull(f[iN], NULL, 10);
        r->K = strtoull(f[iK], NULL, 10);
        r->macs = strtoull(f[imacs], NULL, 10);
        r->rows = strtoull(f[ir], NULL, 10);
        r->cols = strtoull(f[ic], NULL, 10);
        r->total_cycles = strtoull(f[it], NULL, 10);
    }
    fclose(fp);
    return n;
}

/* Reads topology `topo_rel` and checks every layer against `ref_rel`:
 * GEMM dims and MACs equal, cycles = SCALE-Sim's total_cycles + 1 (it
 * reports the 0-based index of the last cycle). */
static void check_against_ref(const char *topo_rel, int force, const char *ref_rel,
                              size_t want_layers)
{
    static ref_row ref[REF_MAX_ROWS];
    char path[4096];
    v10_err err = {{0}};
    v10_topo *t = NULL;
    size_t n = read_ref(ref_rel, ref);
    assert_int_equal(n, want_layers);
    shared_path(path, sizeof path, topo_rel);
    if (v10_topology_read(path, force, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t->n_layers, n);
    double max_rel = 0;
    for (size_t i = 0; i < n; i++) {
        const v10_topo_layer *L = &t->layers[i];
        assert_string_equal(L->name, ref[i].name);
        assert_int_equal(L->M, ref[i].M);
        assert_int_equal(L->N, ref[i].N);
        assert_int_equal(L->K, ref[i].K);
        assert_int_equal(L->macs, ref[i].macs);
        uint64_t folds = 0;
        uint64_t c = v10_cost_gemm_cycles(L->M, L->N, L->K, (uint32_t)ref[i].rows,
                                          (uint32_t)ref[i].cols, V10_DF_WS, V10_SA_SCALESIM,
                                          &folds);
        double rel = ((double)c - (double)ref[i].total_cycles) / (double)ref[i].total_cycles;
        if (rel < 0)
            rel = -rel;
        if (rel > max_rel)
            max_rel = rel;
        assert_true(rel < 0.01);
        assert_int_equal(c, ref[i].total_cycles + 1); /* exact up to the index/count +1 */
        uint64_t wf = ((L->K + ref[i].rows - 1) / ref[i].rows) *
                      ((L->N + ref[i].cols - 1) / ref[i].cols);
        assert_int_equal(folds, wf);
    }
    print_message("%s: %zu layers, max relative error vs SCALE-Sim %.3g%%\n", ref_rel, n,
                  100 * max_rel);
    v10_topology_free(t);
}

static void test_resnet50_matches_scalesim(void **state)
{
    (void)state;
    check_against_ref("data/topologies/Resnet50.csv", V10_TOPO_AUTO,
                      "data/scalesim/resnet50_ws_128x128.csv", 54);
}

static void test_ncf_matches_scalesim(void **state)
{
    (void)state;
    check_against_ref("data/topologies/NCF.csv", V10_TOPO_AUTO,
                      "data/scalesim/ncf_ws_128x128.csv", 12);
    check_against_ref("data/topologies/NCF.csv", V10_TOPO_GEMM,
                      "data/scalesim/ncf_ws_128x128.csv", 12);
}

/* SCALE-Sim's own regression test: alexnet_part, 32x32, WS -> 112283. */
static void test_alexnet_part_regression(void **state)
{
    (void)state;
    char path[4096];
    v10_err err = {{0}};
    v10_topo *t = NULL;
    shared_path(path, sizeof path, "data/topologies/alexnet_part.csv");
    if (v10_topology_read(path, V10_TOPO_AUTO, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t->n_layers, 1);
    const v10_topo_layer *L = &t->layers[0];
    assert_int_equal(L->ofmap_h, 55); /* ceil((224 - 11 + 4) / 4) */
    assert_int_equal(L->M, 3025);
    assert_int_equal(L->N, 96);
    assert_int_equal(L->K, 363);
    uint64_t folds;
    uint64_t c = v10_cost_gemm_cycles(L->M, L->N, L->K, 32, 32, V10_DF_WS, V10_SA_SCALESIM,
                                      &folds);
    assert_int_equal(folds, 12 * 3);
    assert_int_equal(c - 1, 112283);
    v10_topology_free(t);
}

/* Hand-computed: M=5, N=3, K=4 on a 2x2 array.
 * WS: folds ceil(4/2)*ceil(3/2) = 4, per fold M + 2R + C - 2 = 9  -> 36
 * OS: folds ceil(5/2)*ceil(3/2) = 6, per fold K + R + C - 2 = 6   -> 36
 * IS: folds ceil(4/2)*ceil(5/2) = 6, per fold N + 2R + C - 2 = 7  -> 42 */
static void test_dataflows_small(void **state)
{
    (void)state;
    uint64_t f;
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_WS, V10_SA_SCALESIM, &f), 36);
    assert_int_equal(f, 4);
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_OS, V10_SA_SCALESIM, &f), 36);
    assert_int_equal(f, 6);
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_IS, V10_SA_SCALESIM, &f), 42);
    assert_int_equal(f, 6);
    /* A non-square case: M=100, N=10, K=50 on 8 rows x 4 cols.
     * OS: ceil(100/8)*ceil(10/4) = 13*3 = 39 folds x (50 + 8 + 4 - 2 = 60) = 2340
     * IS: ceil(50/8)*ceil(100/4) = 7*25 = 175 folds x (10 + 16 + 4 - 2 = 28) = 4900 */
    assert_int_equal(v10_cost_gemm_cycles(100, 10, 50, 8, 4, V10_DF_OS, V10_SA_SCALESIM, &f),
                     2340);
    assert_int_equal(f, 39);
    assert_int_equal(v10_cost_gemm_cycles(100, 10, 50, 8, 4, V10_DF_IS, V10_SA_SCALESIM, &f),
                     4900);
    assert_int_equal(f, 175);
    /* TPU mode, same 2x2 case:
     * WS: R + (f-1) max(M,R) + M + R + C - 2 = 2 + 3*5 + 5 + 2 = 24
     * OS: f K + R + C - 2 = 24 + 2 = 26
     * IS: R + (f-1) max(N,R) + N + R + C - 2 = 2 + 5*3 + 3 + 2 = 22 */
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_WS, V10_SA_TPU, &f), 24);
    assert_int_equal(f, 4);
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_OS, V10_SA_TPU, &f), 26);
    assert_int_equal(v10_cost_gemm_cycles(5, 3, 4, 2, 2, V10_DF_IS, V10_SA_TPU, &f), 22);
    /* a stream shorter than the weight load exposes the load: M=1, R=4 */
    assert_int_equal(v10_cost_gemm_cycles(1, 8, 8, 4, 4, V10_DF_WS, V10_SA_TPU, &f),
                     4 + 3 * 4 + 1 + 4 + 4 - 2);
}

static uint64_t tpu_closed_form(uint64_t M, uint64_t N, uint64_t K, uint64_t R, uint64_t C)
{
    uint64_t f = ((K + R - 1) / R) * ((N + C - 1) / C);
    return R + (f - 1) * (M > R ? M : R) + M + (R + C - 2);
}

/* TPU (double-buffered) <= SCALE-Sim, equal to the closed form, equal for
 * one fold; over a sweep of shapes and arrays. */
static void test_tpu_mode(void **state)
{
    (void)state;
    static const uint64_t dims[] = {1, 2, 7, 31, 64, 127, 128, 129, 255, 1000, 3025, 12100};
    static const uint32_t arr[][2] = {{128, 128}, {32, 32}, {8, 4}, {256, 256}, {1, 1}};
    for (size_t a = 0; a < sizeof arr / sizeof arr[0]; a++)
        for (size_t i = 0; i < 12; i++)
            for (size_t j = 0; j < 12; j++)
                for (size_t k = 0; k < 12; k++) {
                    uint64_t M = dims[i], N = dims[j], K = dims[k], fs, ft;
                    uint32_t R = arr[a][0], C = arr[a][1];
                    for (int df = V10_DF_WS; df <= V10_DF_IS; df++) {
                        uint64_t s = v10_cost_gemm_cycles(M, N, K, R, C, (v10_dataflow)df,
                                                          V10_SA_SCALESIM, &fs);
                        uint64_t t = v10_cost_gemm_cycles(M, N, K, R, C, (v10_dataflow)df,
                                                          V10_SA_TPU, &ft);
                        assert_true(t <= s);
                        assert_int_equal(fs, ft);
                        if (fs == 1)
                            assert_int_equal(t, s);
                    }
                    assert_int_equal(v10_cost_gemm_cycles(M, N, K, R, C, V10_DF_WS,
                                                          V10_SA_TPU, NULL),
                                     tpu_closed_form(M, N, K, R, C));
                    /* IS is WS with the streamed dimension N and M tiled on cols */
                    assert_int_equal(v10_cost_gemm_cycles(M, N, K, R, C, V10_DF_IS,
                                                          V10_SA_TPU, NULL),
                                     tpu_closed_form(N, M, K, R, C));
                }
}

/* Zero dims and overflow give the UINT64_MAX sentinel, never a wrapped value. */
static void test_gemm_sentinel(void **state)
{
    (void)state;
    uint64_t f = 99;
    assert_true(v10_cost_gemm_cycles(0, 1, 1, 128, 128, V10_DF_WS, V10_SA_TPU, &f) ==
                UINT64_MAX);
    assert_int_equal(f, 0);
    assert_true(v10_cost_gemm_cycles(1, 1, 1, 0, 128, V10_DF_WS, V10_SA_TPU, NULL) ==
                UINT64_MAX);
    /* folds = 2^63 * 2 overflows */
    assert_true(v10_cost_gemm_cycles(1, UINT64_MAX, UINT64_MAX, 1, 1, V10_DF_WS,
                                     V10_SA_SCALESIM, NULL) == UINT64_MAX);
    /* folds fit, folds x stream does not */
    for (int df = V10_DF_WS; df <= V10_DF_IS; df++)
        for (int mode = V10_SA_TPU; mode <= V10_SA_SCALESIM; mode++)
            assert_true(v10_cost_gemm_cycles(UINT64_MAX / 2, 1u << 20, 1u << 20,
                                              1u << 16, 1u << 16, (v10_dataflow)df,
                                              (v10_sa_mode)mode, NULL) == UINT64_MAX);
    /* the largest layer that fits is still exact */
    assert_int_equal(v10_cost_gemm_cycles(1ull << 40, 128, 128, 128, 128, V10_DF_WS,
                                          V10_SA_SCALESIM, NULL),
                     (1ull << 40) + 256 + 126);
}

/* Whitespace, CRLF, blank lines, a missing trailing comma are accepted. */
static void test_reader_lenient(void **state)
{
    (void)state;
    v10_err err = {{0}};
    v10_topo *t = NULL;
    if (v10_topology_read(FIXTURES "ok_mixed.csv", V10_TOPO_AUTO, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t->is_gemm, 0);
    assert_int_equal(t->n_layers, 2);
    assert_string_equal(t->layers[0].name, "Conv1");
    assert_int_equal(t->layers[0].line, 3);
    assert_int_equal(t->layers[0].M, 55 * 55);
    assert_int_equal(t->layers[1].line, 5);
    assert_int_equal(t->layers[1].M, 1);
    assert_int_equal(t->layers[1].N, 1000);
    assert_int_equal(t->layers[1].K, 2048);
    assert_int_equal(t->layers[1].macs, 2048000);
    v10_topology_free(t);
    /* gemm file auto-detected; its conv view is SCALE-Sim's */
    char path[4096];
    shared_path(path, sizeof path, "data/topologies/gpt2.csv");
    if (v10_topology_read(path, V10_TOPO_AUTO, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t->is_gemm, 1);
    assert_int_equal(t->n_layers, 6);
    assert_int_equal(t->layers[2].M, 1024);
    assert_int_equal(t->layers[2].N, 4800);
    assert_int_equal(t->layers[2].K, 1600);
    assert_int_equal(t->layers[2].ofmap_w, 1);
    v10_topology_free(t);
    /* every shared topology reads */
    static const char *const all[] = {"DLRM", "Googlenet", "NCF", "Resnet50", "alexnet",
                                      "alexnet_part", "gpt2", "mobilenet",
                                      "transformer_partial", "yolo_tiny"};
    static const size_t rows[] = {10, 58, 12, 54, 5, 1, 6, 27, 6, 9};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "data/topologies/%s.csv", all[i]);
        shared_path(path, sizeof path, rel);
        if (v10_topology_read(path, V10_TOPO_AUTO, &t, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(t->n_layers, rows[i]);
        v10_topology_free(t);
    }
}

/* Fields go through the one CSV reader: a quoted layer name may hold a
 * comma; the trailing empty field SCALE-Sim writes is dropped, a second one
 * is a field; a blank line 1 is an empty header. */
static void test_reader_quoting(void **state)
{
    (void)state;
    static const char text[] = "Layer, M, N, K,\n\"fc,1\", 4, 8, 16,\nfc2, 1, 2, 3\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    v10_err err = {{0}};
    v10_topo *t = NULL;
    if (v10_topology_parse(f, "mem", V10_TOPO_AUTO, &t, &err))
        fail_msg("%s", err.msg);
    fclose(f);
    assert_int_equal(t->is_gemm, 1);
    assert_int_equal(t->n_layers, 2);
    assert_string_equal(t->layers[0].name, "fc,1");
    assert_int_equal(t->layers[0].macs, 4 * 8 * 16);
    assert_int_equal(t->layers[1].line, 3);
    v10_topology_free(t);
    static const struct { const char *text, *needle; int force; } bad[] = {
        {"Layer, M, N, K,\nfc, 4, 8, 16,,\n", "mem:2: expected 4 fields (gemm: name, M, N, K), got 5",
         V10_TOPO_AUTO},
        {"\nfc, 4, 8, 16,\n", "mem:1: header has 0 fields", V10_TOPO_AUTO},
        {"Layer, M, N, K,\n\"fc, 4, 8, 16,\n", "mem:2: malformed quoting", V10_TOPO_AUTO},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f = fmemopen((void *)bad[i].text, strlen(bad[i].text), "r");
        assert_int_equal(v10_topology_parse(f, "mem", bad[i].force, &t, &err), -1);
        fclose(f);
        assert_null(t);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].needle);
    }
    /* a forced format reads past a blank line 1 */
    f = fmemopen((void *)bad[1].text, strlen(bad[1].text), "r");
    if (v10_topology_parse(f, "mem", V10_TOPO_GEMM, &t, &err))
        fail_msg("%s", err.msg);
    fclose(f);
    assert_int_equal(t->n_layers, 1);
    assert_int_equal(t->layers[0].line, 2);
    v10_topology_free(t);
}

/* Each bad file gives -1, no topology, and a message naming file and line. */
static void expect_bad(const char *file, int force, const char *where, const char *what)
{
    v10_err err = {{0}};
    v10_topo *t = (v10_topo *)(uintptr_t)1;
    char path[4096], loc[4200];
    snprintf(path, sizeof path, FIXTURES "%s", file);
    assert_int_equal(v10_topology_read(path, force, &t, &err), -1);
    assert_null(t);
    snprintf(loc, sizeof loc, "%s%s", path, where);
    if (!strstr(err.msg, loc) || !strstr(err.msg, what))
        fail_msg("%s: message '%s' lacks '%s' or '%s'", file, err.msg, loc, what);
}

static void test_reader_errors(void **state)
{
    (void)state;
    expect_bad("does_not_exist.csv", V10_TOPO_AUTO, ": cannot open", "No such file");
    expect_bad("empty.csv", V10_TOPO_AUTO, ":1:", "empty file");
    expect_bad("header_only.csv", V10_TOPO_AUTO, ":3:", "no layers");
    expect_bad("bad_fields.csv", V10_TOPO_AUTO, ":3:", "expected 8 fields");
    expect_bad("bad_number.csv", V10_TOPO_AUTO, ":2:", "ifmap_w must be a positive integer");
    expect_bad("zero_dim.csv", V10_TOPO_AUTO, ":4:", "channels must be >= 1");
    expect_bad("negative.csv", V10_TOPO_AUTO, ":2:", "got '-64' (negative)");
    /* -0 is no negative number: it is zero, with a sign no number takes */
    expect_bad("negative_zero.csv", V10_TOPO_AUTO, ":2:",
               "num_filter must be >= 1, got '-00' (zero, with a minus sign)");
    expect_bad("filter_big.csv", V10_TOPO_AUTO, ":3:", "larger than ifmap");
    expect_bad("stride0.csv", V10_TOPO_AUTO, ":2:", "stride must be >= 1");
    expect_bad("overflow.csv", V10_TOPO_AUTO, ":2:", "overflows 64 bits");
    expect_bad("too_big.csv", V10_TOPO_AUTO, ":2:", "does not fit in 64 bits");
    expect_bad("gemm_fields.csv", V10_TOPO_AUTO, ":3:", "expected 4 fields");
    expect_bad("bad_header.csv", V10_TOPO_AUTO, ":1:", "header has 5 fields");
    /* forcing the wrong format is a field-count error on the first layer */
    char path[4096];
    v10_err err = {{0}};
    v10_topo *t = NULL;
    shared_path(path, sizeof path, "data/topologies/Resnet50.csv");
    assert_int_equal(v10_topology_read(path, V10_TOPO_GEMM, &t, &err), -1);
    assert_non_null(strstr(err.msg, ":3: expected 4 fields"));
    /* a forced format ignores the header's field count */
    assert_int_equal(v10_topology_read(FIXTURES "bad_header.csv", V10_TOPO_GEMM, &t, &err), -1);
    assert_non_null(strstr(err.msg, ":2: expected 4 fields"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet50_matches_scalesim),
        cmocka_unit_test(test_ncf_matches_scalesim),
        cmocka_unit_test(test_alexnet_part_regression),
        cmocka_unit_test(test_dataflows_small),
        cmocka_unit_test(test_tpu_mode),
        cmocka_unit_test(test_gemm_sentinel),
        cmocka_unit_test(test_reader_lenient),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_reader_quoting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
