/*
 * test_limits.c — the semantic limits of docs/limits.md: overflowing sizes
 * and run lengths are errors (never wrapped numbers), edge cases have their
 * documented answers, and the error paths leave caller storage safe to free.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "v10/cost.h"
#include "v10/fleet.h"
#include "v10/model.h"
#include "runcfg.h"
#include "v10/sim.h"
#include "v10/sweep.h"
#include "v10/table.h"

#define DATA "tests/data/limits/"

static void assert_err(int rc, const v10_err *err, const char *needle)
{
    assert_int_equal(rc, -1);
    if (!strstr(err->msg, needle))
        fail_msg("expected '%s' in: %s", needle, err->msg);
}

/* Runs `tenants` (NULL-terminated specs) under `policy`. */
static int run(const char *policy, const char *const *tenants, uint64_t requests,
               v10_run_result *r, v10_err *err)
{
    v10_tenant_spec ts[8];
    size_t n = 0;
    for (; tenants[n]; n++)
        if (v10_tenant_spec_parse(tenants[n], &ts[n], err))
            return -1;
    v10_run_config c;
    runcfg(&c, policy, ts, n, requests, 0);
    return v10_run(&c, r, err);
}

/* (a) A trace CSV that cannot be opened still leaves an initialized model. */
static void trace_open_failure_inits_model(void **state)
{
    (void)state;
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_model m;
    memset(&m, 0xa5, sizeof m); /* garbage, as in a caller's uninitialized variable */
    v10_err err;
    assert_err(v10_trace_csv_read(DATA "no_such_file.csv", &npu, &m, &err), &err,
               "no_such_file.csv: cannot open");
    assert_null(m.ops);
    assert_int_equal(m.n_ops, 0);
    v10_model_fini(&m); /* safe */
}

/* (b) A convolution whose byte count overflows 64 bits is refused, and the
 * model is left as it was. */
static void conv_bytes_overflow(void **state)
{
    (void)state;
    v10_model m;
    v10_model_init(&m, "huge", 1);
    v10_err err;
    assert_int_equal(v10_model_conv(&m, "ok", 1, 8, 8, 4, 4, 3, 3, 1, 1, &err), 0);
    assert_int_equal(m.n_ops, 1);
    /* A 2^31 x 2^31 input (2^63 bytes) with a 2^31 stride: one output pixel,
     * so the lowered GEMM's bytes fit (2 + 2^62 + 2^62), but input +
     * weights + output bytes (2^63 + 2^62 + 2^62) do not. */
    const uint64_t big = 1ull << 31;
    assert_err(v10_model_conv(&m, "wide", 1, big, big, 1, 1ull << 61, 1, 1, big, 0, &err), &err,
               "overflows 64 bits");
    assert_int_equal(m.n_ops, 1);
    assert_err(v10_model_conv(&m, "deep", UINT64_MAX, 4, 4, 4, 4, 1, 1, 1, 0, &err), &err,
               "overflows 64 bits");
    assert_err(v10_model_gemm(&m, "g", 1, UINT64_MAX, 2, 2, 1, &err), &err,
               "overflows 64 bits");
    assert_err(v10_model_vector(&m, "v", UINT64_MAX / 2, 1, 3, 0, &err), &err,
               "overflows 64 bits");
    assert_err(v10_model_gather(&m, "e", UINT64_MAX / 2, 3, &err), &err, "overflows 64 bits");
    assert_err(v10_model_conv(&m, "zero", 1, 8, 8, 0, 4, 3, 3, 1, 1, &err), &err,
               "must be positive");
    assert_int_equal(m.n_ops, 1);
    v10_model_fini(&m);
}

/* Fused element-wise ops: the extra inputs' bytes are checked too. */
static void fused_vector_overflow(void **state)
{
    (void)state;
    v10_model m;
    v10_model_init(&m, "fuse", 1);
    v10_err err;
    uint64_t e = 1ull << 58;
    assert_int_equal(v10_model_vector(&m, "a", e, 1, 1, 1, &err), 0);
    assert_err(v10_model_vector(&m, "b", e, 1, 40, 1, &err), &err, "overflows 64 bits");
    v10_model_fini(&m);
}

/* (c) Tables report allocation failure through v10_err, not exit(). */
static void table_failure_is_reported(void **state)
{
    (void)state;
    v10_err err;
    assert_err(v10_tab_status(NULL, &err), &err, "out of memory");
    assert_int_equal(v10_tab_write(NULL, V10_FMT_CSV, stdout), -1);
    assert_null(v10_tab_to_json(NULL));
    v10_tab_col(NULL, "x", V10_COL_INT, 0); /* a failed table ignores the rest */
    v10_tab_row(NULL);
    v10_tab_int(NULL, 1);
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "x", V10_COL_INT, 0);
    v10_tab_row(t);
    v10_tab_int(t, 7);
    assert_int_equal(v10_tab_status(t, &err), 0);
    assert_int_equal(v10_tab_rows(t), 1);
    v10_tab_destroy(t);
}

/* Costing: a duration that overflows 64 bits is an error. */
static void op_cycles_overflow(void **state)
{
    (void)state;
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_err err;
    /* A trace operator's given cycles are its whole duration: nothing is
     * added that could wrap them. */
    v10_op op = {.name = "raw", .fu = V10_FU_SA, .kind = V10_OP_RAW,
                 .given_cycles = UINT64_MAX - 10};
    assert_int_equal(v10_cost_op(&npu, &op, &err), 0);
    assert_true(op.cycles == UINT64_MAX - 10);
    op.given_cycles = 1;
    op.hbm_bytes = UINT64_MAX;
    npu.hbm_gbps = 0.001;
    assert_err(v10_cost_op(&npu, &op, &err), &err, "HBM time overflows 64 bits");
    /* A trace refuses cycles over 2^50 per operator. */
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_model m;
    assert_err(v10_model_load(DATA "wrap_total.csv", &npu, &m, &err), &err, "2^50");
}

/* Runs whose length would approach the 64-bit clock are refused; a long but
 * representable one runs and its clock is exact. */
static void run_horizon(void **state)
{
    (void)state;
    v10_run_result r;
    v10_err err;
    const char *huge[] = {DATA "huge_op.csv", DATA "huge_op.csv", NULL};
    assert_err(run("fcfs", huge, 200, &r, &err), &err, "run too long");
    const char *slow[] = {"mnist:rate=0.000001", NULL};
    assert_err(run("fcfs", slow, 10000000, &r, &err), &err, "run too long");
    const char *lng[] = {DATA "long_op.csv", NULL};
    assert_int_equal(run("solo", lng, 1000, &r, &err), 0);
    assert_int_equal(r.tenants[0].completed, 1000);
    uint64_t per = 1ull << 40; /* a trace's cycles, issue included */
    assert_true(r.end_cycle == 1000 * per);
    v10_run_result_fini(&r);
}

/* Edge cases with a defined answer (docs/limits.md). */
static void edge_cases(void **state)
{
    (void)state;
    v10_run_result r;
    v10_err err;
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_model m;
    /* An empty model (header, no operators) is an error. */
    assert_err(v10_model_load(DATA "empty_model.csv", &npu, &m, &err), &err, "empty_model.csv");
    /* Zero requests, zero tenants: errors. */
    const char *one[] = {"mnist", NULL};
    assert_err(run("fcfs", one, 0, &r, &err), &err, "requests");
    const char *none[] = {NULL};
    assert_err(run("fcfs", none, 5, &r, &err), &err, "no tenants");
    /* Priority zero, rate zero, batch zero: errors naming the key. */
    v10_tenant_spec ts;
    assert_err(v10_tenant_spec_parse("bert:priority=0", &ts, &err), &err, "priority");
    assert_err(v10_tenant_spec_parse("bert:rate=0", &ts, &err), &err, "rate");
    assert_err(v10_tenant_spec_parse("bert:batch=0", &ts, &err), &err, "batch");
    assert_err(v10_tenant_spec_parse("bert:outstanding=0", &ts, &err), &err, "outstanding");
    assert_err(v10_tenant_spec_parse("bert:batch=65537", &ts, &err), &err, "batch");
    assert_err(v10_tenant_spec_parse("bert:priority=1001", &ts, &err), &err, "priority");
    /* outstanding= only means something in a closed loop (issue 12: it was
     * silently ignored beside rate=), in either order. */
    assert_err(v10_tenant_spec_parse("bert:rate=10:outstanding=3", &ts, &err), &err,
               "outstanding=3: only a closed-loop tenant");
    assert_err(v10_tenant_spec_parse("bert:outstanding=1:rate=10", &ts, &err), &err,
               "outstanding=1: only a closed-loop tenant");
    /* The key hint offers unknown= only where it applies: ONNX files. */
    assert_err(v10_tenant_spec_parse("bert:bach=2", &ts, &err), &err,
               "(expected batch, priority, rate, outstanding, slo_us, profile or row)");
    assert_err(v10_tenant_spec_parse("m.onnx:bach=2", &ts, &err), &err,
               "slo_us, profile, row or unknown)");
    /* The same tenant twice: two independent tenants, both served in full. */
    const char *dup[] = {"mnist", "mnist", NULL};
    assert_int_equal(run("v10-full", dup, 6, &r, &err), 0);
    assert_int_equal(r.n_tenants, 2);
    assert_int_equal(r.tenants[0].completed, 6);
    assert_int_equal(r.tenants[1].completed, 6);
    v10_run_result_fini(&r);
}

static int parse_services(const char *text, v10_service **svc, size_t *n, v10_err *err)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    int rc = v10_services_parse(f, "s.csv", svc, n, err);
    fclose(f);
    return rc;
}

/* Services file: duplicates, zero rate (closed loop) and zero batch (default). */
static void services_edges(void **state)
{
    (void)state;
    v10_service *svc;
    size_t n;
    v10_err err;
    assert_err(parse_services("name,model,batch,rate_rps\na,bert,0,0\na,ncf,0,0\n", &svc, &n,
                              &err), &err, "s.csv:3: duplicate service name 'a'");
    assert_null(svc);
    assert_err(parse_services("name,model,batch,rate_rps,priority\na,bert,0,0,0\n", &svc, &n,
                              &err), &err, "s.csv:2: priority");
    assert_err(parse_services("", &svc, &n, &err), &err, "s.csv: empty");
    assert_int_equal(parse_services("name,model,batch,rate_rps\na,bert,0,0\nb,ncf,4,50\n", &svc,
                                    &n, &err), 0);
    assert_int_equal(n, 2);
    assert_true(svc[0].spec.rate_rps == 0); /* closed loop */
    assert_int_equal(svc[0].spec.batch, 0);  /* the model's default */
    assert_int_equal(svc[1].spec.batch, 4);
    free(svc);
}

/* Sweep: an empty axis is an empty product, an error. */
static void sweep_edges(void **state)
{
    (void)state;
    v10_sweep *s;
    v10_err err;
    assert_err(v10_sweep_parse("{\"axes\": {\"policy\": []}}", "w.json", &s, &err), &err,
               "empty product");
    assert_null(s);
    assert_err(v10_sweep_parse("{\"axes\": {\"requests\": [0]}}", "w.json", &s, &err), &err,
               "requests");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_open_failure_inits_model),
        cmocka_unit_test(conv_bytes_overflow),
        cmocka_unit_test(fused_vector_overflow),
        cmocka_unit_test(table_failure_is_reported),
        cmocka_unit_test(op_cycles_overflow),
        cmocka_unit_test(run_horizon),
        cmocka_unit_test(edge_cases),
        cmocka_unit_test(services_edges),
        cmocka_unit_test(sweep_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
