/*
 * test_conformance.c — every registered policy, and each option that
 * changes how one schedules (v10-full.preempt=ready), on several tenant mixes,
 * checked against the engine's invariants from the recorded timeline:
 * each request completes exactly once, operators run in stream order, no FU
 * runs two things at once, FU busy cycles equal the work executed plus the
 * charged switch costs, utilizations lie in [0, 1], and a run is
 * deterministic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pieces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/policy_api.h"
#include "util/num.h"
#include "v10/report.h"
#include "v10/sim.h"

#define D "tests/data/engine/"

typedef struct mix {
    const char *name;
    const char *specs[4];
} mix;

static const mix mixes[] = {
    {"pair", {D "sa_vu.csv", D "vu_heavy.csv"}},
    {"same-2to1", {D "sa_vu.csv:priority=2", D "sa_vu.csv"}},
    {"three", {D "long_sa.csv", D "sa_vu.csv:priority=3", D "membound.csv"}},
    {"poisson", {D "sa_vu.csv:rate=20000", D "vu_heavy.csv:rate=30000"}},
    {"closed-2", {D "membound.csv:outstanding=2", D "long_sa.csv"}},
    /* Short operators alternating SA and VU beside a million-cycle one:
     * v10-full.preempt=ready preempts between ticks here. */
    {"short-long", {D "short_sa_vu.csv", D "huge_sa.csv"}},
    /* An LLM server (docs/llm.md): its engine requests are iterations. */
    {"llm", {"llm/llama3.2-1b:trace=tests/data/llm/azure_conv_200.csv:rate_scale=100:max_batch=4",
             D "sa_vu.csv"}},
};

/* Every registered policy, then the options that change how one behaves,
 * each as "POLICY+PARAM=VALUE" (run_mix_on sets the parameter). */
static const char *const options[] = {"v10-full+v10-full.preempt=ready"};
#define N_OPTIONS (sizeof options / sizeof options[0])

static size_t n_variants(void) { return v10_policy_count() + N_OPTIONS; }

/* "K/N" on the command line (main): the matrices whose every run asserts
 * alone (all mixes, several chips) take the policies p with p % N == K, so
 * that ctest runs them in N pieces; 0/1, all of them, by default. */
static unsigned shard = 0, shards = 1;
static int mine(size_t p) { return p % shards == shard; }

static const char *variant(size_t i)
{
    size_t n = v10_policy_count();
    return i < n ? v10_policy_name(v10_policy_at(i)) : options[i - n];
}

/* One run of `policy` (a variant) on mix m with --check, on the default NPU or (npu
 * non-NULL) on preset `npu` with op_mapping `map` and preemption model pm. */
static int run_mix_on(const char *policy, const mix *m, int contention, uint64_t seed,
                      const char *npu, v10_op_mapping map, v10_preempt_model pm,
                      v10_run_config *cfg, v10_tenant_spec *specs, v10_trace *tr,
                      v10_run_result *res)
{
    v10_run_config_default(cfg);
    if (npu) {
        v10_err e;
        assert_int_equal(v10_npu_preset(npu, &cfg->npu, &e), 0);
        cfg->npu.op_mapping = map;
        cfg->preempt = pm;
    }
    size_t n = 0;
    v10_err err;
    for (; n < 4 && m->specs[n]; n++)
        assert_int_equal(v10_tenant_spec_parse(m->specs[n], &specs[n], &err), 0);
    if (!strcmp(policy, "solo"))
        n = 1;
    const char *opt = strchr(policy, '+');
    snprintf(cfg->policy, sizeof cfg->policy, "%.*s",
             (int)(opt ? (size_t)(opt - policy) : strlen(policy)), policy);
    cfg->tenants = specs;
    cfg->n_tenants = n;
    cfg->requests = 12;
    cfg->warmup = 2;
    cfg->seed = seed;
    cfg->contention = contention;
    cfg->check = 1;
    cfg->params.pmt_slice_us = 100;
    if (opt) {
        char key[64];
        const char *eq = strchr(opt, '=');
        assert_non_null(eq);
        snprintf(key, sizeof key, "%.*s", (int)(eq - opt - 1), opt + 1);
        assert_int_equal(v10_param_set(&cfg->params, key, eq + 1, &err), 0);
    }
    cfg->trace = tr;
    memset(tr, 0, sizeof *tr);
    int rc = v10_run(cfg, res, &err);
    if (rc)
        fprintf(stderr, "%s on %s: %s\n", policy, m->name, err.msg);
    return rc;
}

static int run_mix(const char *policy, const mix *m, int contention, uint64_t seed,
                   v10_run_config *cfg, v10_tenant_spec *specs, v10_trace *tr,
                   v10_run_result *res)
{
    return run_mix_on(policy, m, contention, seed, NULL, V10_MAP_ONE, V10_PREEMPT_DRAIN, cfg, specs,
                      tr, res);
}

static int cmp_rec(const void *a, const void *b)
{
    const v10_trace_rec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static void check_timeline(const v10_run_config *cfg, const v10_run_result *r, v10_trace *tr)
{
    size_t nt = cfg->n_tenants;
    qsort(tr->recs, tr->n, sizeof *tr->recs, cmp_rec);
    /* Each tenant reaches its count (and may go on while others finish);
     * every request it completed appears exactly once. */
    for (size_t t = 0; t < nt; t++) {
        uint64_t done = r->tenants[t].completed;
        assert_true(done >= cfg->requests);
        if (r->tenants[t].llm) { /* its requests are checked by the engine (--check) */
            assert_int_equal(done, cfg->requests);
            continue;
        }
        char *seen = calloc(done, 1);
        size_t count = 0;
        for (size_t k = 0; k < tr->n; k++) {
            const v10_trace_rec *e = &tr->recs[k];
            if (e->kind != V10_TR_REQUEST || (size_t)e->tenant != t)
                continue;
            assert_true(e->op < done);
            assert_int_equal(seen[e->op], 0);
            seen[e->op] = 1;
            count++;
        }
        assert_int_equal(count, done);
        free(seen);
    }
    /* A power record names an energy unit and no FU; no other names a unit. */
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *e = &tr->recs[k];
        if (e->kind == V10_TR_POWER)
            assert_true(e->fu == -1 && e->unit >= -1 && e->unit < V10_EN_UNITS);
        else
            assert_int_equal(e->unit, -1);
    }
    /* No FU runs two things at once; busy cycles add up. */
    for (size_t f = 0; f < r->n_fus; f++) {
        uint64_t last_end = 0, exec = 0, sw = 0;
        for (size_t k = 0; k < tr->n; k++) {
            const v10_trace_rec *e = &tr->recs[k];
            if (e->fu != (int32_t)f || e->kind == V10_TR_PREEMPT || e->kind == V10_TR_REQUEST)
                continue;
            assert_true(e->start >= last_end);
            assert_true(e->end >= e->start);
            last_end = e->end;
            if (e->kind == V10_TR_OP) {
                exec += e->end - e->start;
                if (r->fus[f].owner >= 0)
                    assert_int_equal(e->tenant, r->fus[f].owner);
            } else {
                sw += e->end - e->start;
            }
        }
        assert_int_equal(exec, r->fus[f].exec_cycles);
        /* A switch still running at the end is counted but not traced. */
        assert_true(sw <= r->fus[f].switch_cycles);
    }
    /* Stream order: a tenant's segments never overlap, and op indices only
     * advance within a request (wrapping to 0 at the next request). */
    for (size_t t = 0; t < nt; t++) {
        uint64_t last_start = 0, last_end = 0;
        long last_op = -1;
        for (size_t k = 0; k < tr->n; k++) {
            const v10_trace_rec *e = &tr->recs[k];
            if (e->kind != V10_TR_OP || (size_t)e->tenant != t)
                continue;
            if (e->start == last_start && e->end == last_end && (long)e->op == last_op &&
                e->end > e->start)
                continue; /* the same segment on another FU of its gang (op_mapping "all") */
            assert_true(e->start >= last_end);
            last_start = e->start;
            assert_true((long)e->op == last_op || (long)e->op == last_op + 1 || e->op == 0);
            last_end = e->end;
            last_op = e->op;
        }
    }
    double u[] = {r->util_sa, r->util_vu, r->util_hbm, r->util_overall, r->overlap,
                  r->util_sa_flops};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        if (i == 2 && !cfg->contention)
            continue; /* idealized HBM: demand may exceed the bandwidth */
        if (!(u[i] >= 0.0 && u[i] <= 1.0 + 1e-9))
            print_message("%s: utilization %zu = %g\n", cfg->policy, i, u[i]);
        assert_true(u[i] >= 0.0);
        assert_true(u[i] <= 1.0 + 1e-9);
    }
    assert_true(r->window_end > r->window_start);
}

static void matrix_all_mixes(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_variants(); p++) {
        const char *name = variant(p);
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0] && mine(p); m++)
            for (int cont = 0; cont <= 1; cont++) {
                v10_run_config cfg;
                v10_tenant_spec specs[4];
                v10_trace tr;
                v10_run_result res;
                assert_int_equal(run_mix(name, &mixes[m], cont, 7, &cfg, specs, &tr, &res), 0);
                check_timeline(&cfg, &res, &tr);
                if (!cont) {
                    /* Without contention, FU time = standalone work + nothing else. */
                    for (size_t f = 0; f < res.n_fus; f++)
                        if (res.fus[f].speed == 1.0)
                            assert_true(fabs((double)res.fus[f].exec_cycles - res.fus[f].work) <
                                        1e-6 * res.fus[f].work + 1);
                }
                v10_trace_fini(&tr);
                v10_run_result_fini(&res);
            }
    }
}

/*
 * op_mapping "all" (an operator on every free FU of its type that its
 * tenant may use) and "alloc" (up to its tenant's allocation of them):
 * every policy on every mix, "all" on a core of 4 SAs and 4 VUs with HBM
 * contention and the drain model, "alloc" (even mixes) or "harvest" (odd
 * ones) on tpuv4-core (4 SAs, 1 VU) without contention and with the tile
 * model, and "reclaim" on tpuv4-core with contention and the drain (even
 * mixes) or tile (odd) model, with --check
 * (which verifies that each FU runs one operator, its gang's or its own,
 * and that attribution and energy still add up).  Some operator must have
 * run on a gang: an FU executed while another of its type executed the
 * same segment.
 */
static void matrix_op_mapping(void **state)
{
    (void)state;
    const char *npus[] = {"v10-isca23-4x", "tpuv4-core"};
    int ganged = 0;
    uint64_t reclaimed = 0;
    for (size_t p = 0; p < n_variants(); p++) {
        const char *name = variant(p);
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; m++)
            for (int k = 1; k <= 3; k++) { /* all, alloc/harvest, reclaim (above) */
                v10_run_config cfg;
                v10_tenant_spec specs[4];
                v10_trace tr;
                v10_run_result res;
                int cont = k & 1;
                v10_preempt_model pm = k == 2 || (k == 3 && m & 1) ? V10_PREEMPT_TILE
                                                                    : V10_PREEMPT_DRAIN;
                v10_op_mapping map = k == 1   ? V10_MAP_ALL
                                     : k == 3 ? V10_MAP_RECLAIM
                                     : m & 1  ? V10_MAP_HARVEST
                                              : V10_MAP_ALLOC;
                assert_int_equal(run_mix_on(name, &mixes[m], cont, 7, npus[k > 1], map, pm,
                                            &cfg, specs, &tr, &res), 0);
                /* a policy that never preempts: a preemption is a reclaim's */
                reclaimed += k == 3 && !strcmp(name, "v10-base") ? res.preemptions : 0;
                check_timeline(&cfg, &res, &tr);
                for (size_t i = 1; i < tr.n && !ganged; i++) {
                    const v10_trace_rec *a = &tr.recs[i - 1], *b = &tr.recs[i];
                    ganged = a->kind == V10_TR_OP && b->kind == V10_TR_OP && a->fu != b->fu &&
                             a->start == b->start && a->end == b->end && a->tenant == b->tenant;
                }
                v10_trace_fini(&tr);
                v10_run_result_fini(&res);
            }
    }
    assert_true(ganged);
    assert_true(reclaimed > 0);
}

/*
 * Several chips (docs/llm.md): every policy on tpuv4-8 (four chips, a link
 * engine a chip), with and without HBM contention, on mixes whose LLM
 * tenants are tensor-parallel shards whose collectives run on the link
 * engine: a server beside a trace, two decode phases, and a decode beside
 * a trace.  The timeline checks hold, and the link engine ran collectives
 * (a tenant that is all collectives included).
 */
static const mix chip_mixes[] = {
    {"tp-llm", {"llm/llama3.2-1b:trace=tests/data/llm/azure_conv_200.csv:rate_scale=100:"
                "max_batch=4", D "sa_vu.csv"}},
    {"tp-two", {"llm/llama3.2-1b:decode=4x64", "llm/llama3.2-1b:prefill=64"}},
    {"tp-trace", {"llm/llama3.2-1b:decode=2x32", D "vu_heavy.csv", D "membound.csv"}},
    {"pp-llm", {"llm/llama3.2-1b:trace=tests/data/llm/azure_conv_200.csv:rate_scale=100:"
                "max_batch=4:pp=2", D "sa_vu.csv"}},
};

static void matrix_several_chips(void **state)
{
    (void)state;
    for (size_t p = 0; p < v10_policy_count(); p++) {
        const char *name = v10_policy_name(v10_policy_at(p));
        for (size_t m = 0; m < sizeof chip_mixes / sizeof chip_mixes[0] && mine(p); m++)
            for (int cont = 0; cont <= 1; cont++) {
                v10_run_config cfg;
                v10_tenant_spec specs[4];
                v10_trace tr;
                v10_run_result res;
                assert_int_equal(run_mix_on(name, &chip_mixes[m], cont, 7, "tpuv4-8",
                                            V10_MAP_ALL, V10_PREEMPT_DRAIN, &cfg, specs, &tr,
                                            &res), 0);
                check_timeline(&cfg, &res, &tr);
                uint64_t ici = 0;
                for (size_t f = 0; f < res.n_fus; f++)
                    if (res.fus[f].type == V10_FU_ICI)
                        ici += res.fus[f].exec_cycles;
                assert_true(ici > 0);
                v10_trace_fini(&tr);
                v10_run_result_fini(&res);
            }
    }
}

static char *run_json(const char *policy, const mix *m, uint64_t seed)
{
    v10_run_config cfg;
    v10_tenant_spec specs[4];
    v10_trace tr;
    v10_run_result res;
    assert_int_equal(run_mix(policy, m, 1, seed, &cfg, specs, &tr, &res), 0);
    cJSON *j = v10_report_run_json(&cfg, &res);
    cJSON_DeleteItemFromObject(j, "perf");
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    v10_trace_fini(&tr);
    v10_run_result_fini(&res);
    return s;
}

static void test_deterministic(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_variants(); p++) {
        const char *name = variant(p);
        char *a = run_json(name, &mixes[3], 42), *b = run_json(name, &mixes[3], 42);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    /* A different seed changes Poisson arrivals. */
    char *a = run_json("v10-fair", &mixes[3], 1), *b = run_json("v10-fair", &mixes[3], 2);
    assert_true(strcmp(a, b) != 0);
    free(a);
    free(b);
}

static void test_registry_complete(void **state)
{
    (void)state;
    const char *want[] = {"solo", "fcfs", "pmt", "prema", "spatial", "v10-base", "v10-fair",
                          "v10-full"};
    assert_int_equal(v10_policy_count(), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const v10_policy_ops *p = v10_policy_find(want[i]);
        assert_non_null(p);
        assert_non_null(p->pick);
        assert_true(strlen(p->summary) > 10);
    }
    assert_null(v10_policy_find("nope"));
}

/*
 * Every policy's parameter table is well-formed: each name is the policy's
 * name, a dot and a parameter; min <= default <= max; a CHOICE has its
 * words and a whole range over them; two entries on one field (PMT's
 * quantum, which PREMA reads too) agree on key, type, default and range;
 * v10_policy_params_default sets each field to its default.
 */
static void test_param_tables(void **state)
{
    (void)state;
    v10_policy_params defaults;
    v10_policy_params_default(&defaults);
    size_t total = 0;
    for (size_t p = 0; p < v10_policy_count(); p++) {
        const v10_policy_ops *pol = v10_policy_at(p);
        size_t len = strlen(pol->name);
        assert_true(pol->n_params == 0 || pol->param_defs != NULL);
        for (size_t k = 0; k < v10_policy_param_count(pol); k++) {
            const v10_param_def *d = v10_policy_param_at(pol, k);
            total++;
            assert_true(!strncmp(d->name, pol->name, len) && d->name[len] == '.' &&
                        d->name[len + 1] != 0);
            assert_non_null(d->key);
            assert_true(strlen(d->help) > 10);
            assert_true(d->min <= d->def && d->def <= d->max);
            assert_true(d->offset < sizeof(v10_policy_params));
            assert_true(v10_policy_reads(pol, d));
            assert_ptr_equal(v10_param_find(d->name), d); /* names are unique */
            if (d->type == V10_PARAM_CHOICE) {
                size_t words = 1;
                for (const char *c = d->choices; *c; c++)
                    words += *c == '|';
                assert_true(d->min == 0 && d->max == (double)(words - 1));
            } else {
                assert_null(d->choices);
            }
            assert_true(v10_param_get(&defaults, d) == d->def);
            /* Another policy's entry on the same field agrees with this one. */
            const v10_param_def *o = v10_param_find(d->key);
            assert_non_null(o);
            assert_true(o->offset == d->offset && o->type == d->type && o->def == d->def &&
                        o->min == d->min && o->max == d->max && !strcmp(o->key, d->key));
        }
    }
    assert_true(total >= 4);
}

/*
 * --param round-trips: for every parameter, its range ends and its default,
 * written as text (v10_param_format, the form policies and reports print)
 * and set back by name, read back as the same value; a value outside the
 * range or of the wrong kind is refused with a message naming the key and
 * leaves the field as it was; an unknown name is refused.
 */
static void test_param_round_trip(void **state)
{
    (void)state;
    for (size_t p = 0; p < v10_policy_count(); p++) {
        const v10_policy_ops *pol = v10_policy_at(p);
        for (size_t k = 0; k < v10_policy_param_count(pol); k++) {
            const v10_param_def *d = v10_policy_param_at(pol, k);
            double probe[] = {d->min, d->max, d->def};
            for (size_t j = 0; j < 3; j++) {
                v10_policy_params a, b;
                v10_err err;
                char text[64];
                v10_policy_params_default(&a);
                assert_int_equal(v10_param_put(&a, d, probe[j], &err), 0);
                v10_param_format(d, &a, NULL, text, sizeof text);
                v10_policy_params_default(&b);
                assert_int_equal(v10_param_set(&b, d->name, text, &err), 0);
                assert_true(v10_param_get(&b, d) == probe[j]);
                assert_memory_equal(&a, &b, sizeof a);
            }
            v10_policy_params c;
            v10_err err;
            v10_policy_params_default(&c);
            char above[V10_NUM_MAX];
            v10_num_fmt(d->type == V10_PARAM_DOUBLE ? d->max * 2 + 1 : d->max + 1, above,
                        sizeof above);
            assert_int_equal(v10_param_set(&c, d->name, d->type == V10_PARAM_CHOICE ? "nope"
                                                                                    : above,
                                           &err), -1);
            assert_non_null(strstr(err.msg, d->name));
            assert_int_equal(v10_param_set(&c, d->name, "", &err), -1);
            assert_true(v10_param_get(&c, d) == d->def);
        }
    }
    v10_policy_params c;
    v10_err err;
    v10_policy_params_default(&c);
    assert_int_equal(v10_param_set(&c, "pmt.nope", "1", &err), -1);
    assert_non_null(strstr(err.msg, "pmt.nope"));
    /* A setting changes a run: PMT's slice reaches the policy. */
    assert_int_equal(v10_param_set(&c, "pmt.slice_us", "250", &err), 0);
    assert_true(c.pmt_slice_us == 250);
    assert_int_equal(v10_param_set(&c, "pmt.share", "equal", &err), 0);
    assert_int_equal(c.pmt_share_priority, 0);
}

/* test_conformance [FILTER [K/N]]: only the tests whose names match FILTER
 * (a glob, cmocka's), and of the matrices only shard K of N (mine): ctest
 * runs the whole as pieces that -j spreads over its threads
 * (CMakeLists.txt: "test_*", each matrix_* alone, the chips in halves),
 * each run in exactly one piece.  A new matrix_* needs its piece there. */
int main(int argc, char **argv)
{
    v10_test_pieces(argc, argv);
    if (argc > 2 && (sscanf(argv[2], "%u/%u", &shard, &shards) != 2 || shard >= shards)) {
        fprintf(stderr, "test_conformance: expected K/N with K < N, got '%s'\n", argv[2]);
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_complete),
        cmocka_unit_test(test_param_tables),
        cmocka_unit_test(test_param_round_trip),
        cmocka_unit_test(matrix_all_mixes),
        cmocka_unit_test(matrix_op_mapping),
        cmocka_unit_test(matrix_several_chips),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
