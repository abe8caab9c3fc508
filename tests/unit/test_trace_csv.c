/*
 * test_trace_csv.c — the operator-trace CSV: a zoo model written and read
 * back costs the same op by op; µs conversion; every bad input is -1 with
 * the file (and line) in the message.  Fixtures: tests/data/trace/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "v10/cost.h"
#include "v10/model.h"
#include "v10/npu.h"

#define DATA "tests/data/trace/"

static v10_npu npu_named(const char *name)
{
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset(name, &n, &err), 0);
    return n;
}

static char tmp_dir[64];

/* Writes `m` to model.csv in a fresh temporary directory; returns its path
 * (static storage); remove_tmp() deletes both. */
static const char *write_tmp(const v10_model *m, const v10_npu *npu)
{
    static char path[128];
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/v10_trace_XXXXXX");
    assert_non_null(mkdtemp(tmp_dir));
    snprintf(path, sizeof path, "%s/model.csv", tmp_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(v10_trace_csv_write(m, npu, f), 0);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void remove_tmp(const char *path)
{
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(tmp_dir), 0);
}

/* Same costs, but for up to `slack` cycles an operator. */
static void assert_costs_within(const v10_model *a, const v10_model *b, uint64_t slack)
{
    assert_int_equal(a->n_ops, b->n_ops);
    for (size_t i = 0; i < a->n_ops; i++) {
        const v10_op *x = &a->ops[i], *y = &b->ops[i];
        /* A trace records an operator's whole cycles (its issue included),
         * not how they split into compute, memory and issue. */
        uint64_t d = x->cycles > y->cycles ? x->cycles - y->cycles : y->cycles - x->cycles;
        if (d > slack || x->hbm_bytes != y->hbm_bytes || x->tiles != y->tiles ||
            x->fu != y->fu || x->macs != y->macs)
            fail_msg("op %zu (%s): cycles %llu/%llu bytes %llu/%llu tiles %u/%u fu %d/%d",
                     i, x->name, (unsigned long long)x->cycles,
                     (unsigned long long)y->cycles, (unsigned long long)x->hbm_bytes,
                     (unsigned long long)y->hbm_bytes, x->tiles, y->tiles, x->fu, y->fu);
    }
    if (!slack)
        assert_int_equal(v10_model_cycles(a), v10_model_cycles(b));
}

static void assert_same_costs(const v10_model *a, const v10_model *b)
{
    assert_costs_within(a, b, 0);
}

/* A zoo model -> CSV -> model costs the same on the NPU it was written for,
 * also with a vector memory small enough to spill. */
static void round_trip_resnet50(void **state)
{
    (void)state;
    static const char *const npus[] = {"v10-isca23", "tpuv4-core"};
    for (size_t k = 0; k < 2; k++) {
        v10_npu npu = npu_named(npus[k]);
        v10_model m, back;
        v10_err err = {{0}};
        if (v10_model_load("resnet50", &npu, &m, &err))
            fail_msg("%s", err.msg);
        const char *path = write_tmp(&m, &npu);
        if (v10_model_load(path, &npu, &back, &err))
            fail_msg("%s", err.msg);
        assert_same_costs(&m, &back);
        for (size_t i = 0; i < m.n_ops; i++)
            assert_int_equal(back.ops[i].kind, V10_OP_RAW);
        /* spilling reproduces too: residency columns are carried; where
         * the spill makes an operator memory-bound, the trace's operator
         * (whole cycles, issue within) loses its issue to the overlap */
        v10_npu small = npu;
        small.vmem_bytes = 64 * 1024;
        assert_int_equal(v10_cost_model(&small, &m, &err), 0);
        assert_int_equal(v10_cost_model(&small, &back, &err), 0);
        assert_costs_within(&m, &back, v10_npu_issue_cycles(&npu, V10_FU_VU));
        /* and :batch=N is recorded */
        v10_model b2;
        char spec[128];
        snprintf(spec, sizeof spec, "%s:batch=7", path);
        assert_int_equal(v10_model_load(spec, &npu, &b2, &err), 0);
        assert_int_equal(b2.batch, 7);
        v10_model_fini(&b2);
        remove_tmp(path);
        v10_model_fini(&m);
        v10_model_fini(&back);
    }
}

/* Every zoo model round-trips, not just resnet50. */
static void round_trip_zoo(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    for (const char *const *name = v10_zoo_names; *name; name++) {
        v10_model m, back;
        v10_err err = {{0}};
        if (v10_model_load(*name, &npu, &m, &err))
            fail_msg("%s", err.msg);
        const char *path = write_tmp(&m, &npu);
        if (v10_model_load(path, &npu, &back, &err))
            fail_msg("%s: %s", *name, err.msg);
        assert_same_costs(&m, &back);
        remove_tmp(path);
        v10_model_fini(&m);
        v10_model_fini(&back);
    }
}

static void small_trace(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    v10_model m;
    v10_err err = {{0}};
    if (v10_model_load(DATA "small.csv", &npu, &m, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(m.name, "small.csv");
    assert_int_equal(m.n_ops, 3);
    assert_string_equal(m.ops[0].name, "matmul");
    assert_int_equal(m.ops[0].fu, V10_FU_SA);
    assert_int_equal(m.ops[1].fu, V10_FU_VU);
    assert_int_equal(m.ops[0].compute_cycles, 1000);
    assert_int_equal(m.ops[0].cycles, 1000); /* given cycles: issue included */
    assert_int_equal(m.ops[1].cycles, 300);
    /* 1e6 bytes at 330e9/700e6 bytes per cycle: ceil(2121.2) = 2122 > 2000 */
    assert_int_equal(m.ops[2].mem_cycles, 2122);
    assert_int_equal(m.ops[2].cycles, 2122);
    /* no tiles column: one per started VU chunk */
    assert_int_equal(m.ops[2].tiles, 2);
    v10_model_fini(&m);
}

/* `us` is converted with the NPU's clock and rounded to the nearest cycle. */
static void us_column(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    v10_model m;
    v10_err err = {{0}};
    if (v10_trace_csv_read(DATA "us.csv", &npu, &m, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(m.n_ops, 3);
    assert_int_equal(m.ops[0].given_cycles, 7000);  /* 10 µs x 700 MHz */
    assert_int_equal(m.ops[1].given_cycles, 350);   /* 0.5 µs */
    assert_int_equal(m.ops[2].given_cycles, 1401);  /* 2.001 µs = 1400.7 */
    assert_string_equal(m.ops[1].name, "b");
    v10_model_fini(&m);
    /* at 1050 MHz the same file is longer in cycles */
    npu = npu_named("tpuv4-core");
    assert_int_equal(v10_trace_csv_read(DATA "us.csv", &npu, &m, &err), 0);
    assert_int_equal(m.ops[0].given_cycles, 10500);
    v10_model_fini(&m);
}

/* Each bad file: -1, model left empty, message names file (and line). */
static void bad_inputs(void **state)
{
    (void)state;
    static const struct { const char *file, *needle1, *needle2; } cases[] = {
        {"no_such_file.csv", "no_such_file.csv", "cannot open"},
        {"empty.csv", "empty.csv", "header"},
        {"no_header.csv", "no_header.csv", "header"},
        {"unknown_column.csv", "unknown_column.csv:1:", "latency"},
        {"missing_fu.csv", "missing_fu.csv:1:", "fu"},
        {"both_cycles_us.csv", "both_cycles_us.csv:1:", "exactly one"},
        {"bad_fu.csv", "bad_fu.csv:3:", "TPU"},
        {"negative_cycles.csv", "negative_cycles.csv:2:", "cycles"},
        {"zero_cycles.csv", "zero_cycles.csv:3:", "cycles"},
        {"nonnumeric_cycles.csv", "nonnumeric_cycles.csv:2:", "ten"},
        {"overflow_cycles.csv", "overflow_cycles.csv:2:", "cycles"},
        {"field_count.csv", "field_count.csv:3:", "fields"},
        {"long_line.csv", "long_line.csv:3:", "longer"},
    };
    v10_npu npu = npu_named("v10-isca23");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, DATA "%s", cases[i].file);
        v10_model m;
        v10_err err = {{0}};
        if (v10_trace_csv_read(path, &npu, &m, &err) != -1)
            fail_msg("%s accepted", cases[i].file);
        if (!strstr(err.msg, cases[i].needle1) || !strstr(err.msg, cases[i].needle2))
            fail_msg("%s: message '%s' lacks '%s' or '%s'", cases[i].file, err.msg,
                     cases[i].needle1, cases[i].needle2);
        /* the model loader reports the same */
        v10_err err2 = {{0}};
        assert_int_equal(v10_model_load(path, &npu, &m, &err2), -1);
        assert_non_null(strstr(err2.msg, cases[i].needle1));
        assert_null(m.ops); /* nothing to free after a failed load */
        assert_int_equal(m.n_ops, 0);
    }
    /* a spec option other than batch= */
    v10_model m;
    v10_err err = {{0}};
    assert_int_equal(v10_model_load(DATA "small.csv:bogus=1", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "bogus"));
    assert_int_equal(v10_model_load(DATA "small.csv:batch=0", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "batch"));
}

/* The same through an in-memory stream (the fuzzers' entry point). */
static void parse_stream(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    static const char text[] = "fu,cycles\nSA,5\nvu,6\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    assert_non_null(f);
    v10_model m;
    v10_err err = {{0}};
    assert_int_equal(v10_trace_csv_parse(f, "mem", &npu, &m, &err), 0);
    fclose(f);
    assert_int_equal(m.n_ops, 2);
    assert_string_equal(m.ops[0].name, "op0"); /* no name column */
    assert_int_equal(m.ops[1].fu, V10_FU_VU);
    v10_model_fini(&m);
    static const char bad[] = "fu,cycles\nSA,5\n# ok\nSA,5.5\n";
    f = fmemopen((void *)bad, sizeof bad - 1, "r");
    assert_non_null(f);
    assert_int_equal(v10_trace_csv_parse(f, "mem", &npu, &m, &err), -1);
    fclose(f);
    assert_non_null(strstr(err.msg, "mem:4:"));
}

/* Fields are RFC 4180 (libcsv under util/csv.h): a quoted name keeps its
 * comma, blanks and doubled quotes; malformed quoting and a NUL byte are
 * errors naming the line; a name the writer must quote reads back. */
static void quoting(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    static const char text[] = "name,fu,cycles\n\"a,b\",SA,5\n\" x \"\"y\"\" \",VU,6\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    assert_non_null(f);
    v10_model m;
    v10_err err = {{0}};
    if (v10_trace_csv_parse(f, "mem", &npu, &m, &err))
        fail_msg("%s", err.msg);
    fclose(f);
    assert_int_equal(m.n_ops, 2);
    assert_string_equal(m.ops[0].name, "a,b");
    assert_string_equal(m.ops[1].name, " x \"y\" ");
    /* written back (commas become ';', quotes and blanks are quoted), read again */
    char buf[4096];
    f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    assert_int_equal(v10_trace_csv_write(&m, &npu, f), 0);
    fclose(f);
    v10_model back;
    f = fmemopen(buf, strlen(buf), "r");
    if (v10_trace_csv_parse(f, "back", &npu, &back, &err))
        fail_msg("%s", err.msg);
    fclose(f);
    assert_string_equal(back.ops[0].name, "a;b");
    assert_string_equal(back.ops[1].name, " x \"y\" ");
    v10_model_fini(&back);
    v10_model_fini(&m);
#define WITH_NUL "name,fu,cycles\na,SA,5\nx\0y,SA,5\n"
    static const struct { const char *text; size_t len; const char *where; } bad[] = {
        {"name,fu,cycles\n\"open,SA,5\n", 0, "mem:2: malformed quoting"},
        {"name,fu,cycles\na\"b,SA,5\n", 0, "mem:2: malformed quoting"},
        {WITH_NUL, sizeof WITH_NUL - 1, "mem:3: NUL byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        f = fmemopen((void *)bad[i].text, len, "r");
        assert_non_null(f);
        assert_int_equal(v10_trace_csv_parse(f, "mem", &npu, &m, &err), -1);
        fclose(f);
        if (!strstr(err.msg, bad[i].where))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].where);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quoting),
        cmocka_unit_test(round_trip_resnet50), cmocka_unit_test(round_trip_zoo),
        cmocka_unit_test(small_trace),         cmocka_unit_test(us_column),
        cmocka_unit_test(bad_inputs),          cmocka_unit_test(parse_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
