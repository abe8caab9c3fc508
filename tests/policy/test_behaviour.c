/*
 * test_behaviour.c — what each policy is for, in numbers: solo matches the
 * closed-form latency; PMT shares time (STP near 1, no SA/VU overlap, fair
 * slices) and its timer sleeps while nobody else has work; V10's fair
 * sharing follows priorities; V10-Full preempts an over-served holder,
 * anywhere in an operator, only for a waiter, and a resumed operator pays
 * its restore; the active rate counts from a tenant's arrival; spatial
 * keeps tenants on their own FUs; contention slows memory-bound operators,
 * and the HBM bytes moved are the work's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "runcfg.h"
#include "v10/sim.h"

#define D "tests/data/engine/"

/* Runs with invariant checks on; tr (optional) records the timeline. */
static void run_ex(const char *policy, const char *const *specs, size_t n, uint64_t requests,
                   int contention, const char *npu, v10_preempt_model pm, v10_trace *tr,
                   v10_run_result *res)
{
    static v10_tenant_spec ts[8];
    v10_run_config cfg;
    v10_err err;
    runcfg(&cfg, policy, ts, n, requests, requests / 10);
    cfg.preempt = pm;
    cfg.trace = tr;
    if (tr)
        memset(tr, 0, sizeof *tr);
    if (npu)
        assert_int_equal(v10_npu_resolve(npu, &cfg.npu, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
    cfg.contention = contention;
    assert_int_equal(runcfg_run(&cfg, res), 0);
}

static void run(const char *policy, const char *const *specs, size_t n, uint64_t requests,
                int contention, const char *npu, v10_run_result *res)
{
    run_ex(policy, specs, n, requests, contention, npu, V10_PREEMPT_DRAIN, NULL, res);
}

static void test_solo_closed_form(void **state)
{
    (void)state;
    const char *s[] = {D "sa_vu.csv"};
    v10_run_result r;
    run("solo", s, 1, 10, 1, NULL, &r);
    /* Six compute-bound ops: 5000+3000+7000+2000+4000+3500 cycles, a
     * trace's operators costing their given cycles, issue included. */
    const uint64_t want = 24500;
    assert_int_equal(r.tenants[0].alone_cycles, want);
    double us = (double)want / 700.0;
    assert_true(fabs(r.tenants[0].lat_avg_us - us) < 1e-9);
    assert_true(fabs(r.tenants[0].lat_p99_us - us) < 1e-9);
    assert_true(fabs(r.tenants[0].np - 1.0) < 1e-9);
    assert_int_equal(r.end_cycle, 10 * want);
    assert_int_equal(r.preemptions, 0);
    v10_run_result_fini(&r);
}

/* A tenant alone makes progress 1 on every NPU, its operators over every
 * engine of their type on a TPU preset ("all") as on one engine: the
 * alone latency progress is normalized by is what a solo run measures
 * (once the sum of one-engine costs: BERT's np was 2.98 on tpuv4-core). */
static void test_solo_np_one_any_mapping(void **state)
{
    (void)state;
    static const char *const npus[] = {"v10-isca23", "tpuv3-core", "tpuv4-core", "v10-isca23-4x",
                                       "tpuv6e"};
    static const char *const models[] = {"bert", "resnet50:batch=4", "ncf"};
    for (size_t k = 0; k < sizeof npus / sizeof *npus; k++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
            const char *s[] = {models[m]};
            v10_run_result r;
            run("solo", s, 1, 3, 1, npus[k], &r);
            if (fabs(r.tenants[0].np - 1.0) > 1e-9)
                fail_msg("%s on %s: np %.6f alone", models[m], npus[k], r.tenants[0].np);
            v10_run_result_fini(&r);
        }
}

static void test_pmt_time_shares(void **state)
{
    (void)state;
    const char *s[] = {D "sa_vu.csv", D "vu_heavy.csv"};
    v10_run_result r;
    run("pmt", s, 2, 400, 1, NULL, &r);
    assert_true(r.overlap == 0.0);
    assert_true(r.stp > 0.93 && r.stp <= 1.0 + 1e-9);
    assert_true(r.context_switches > 2);
    /* Equal priorities, equal slices: similar progress. */
    assert_true(r.fairness > 0.8);
    v10_run_result_fini(&r);
}

/* PMT's timer sleeps while nobody but the owner has work (pmt.c): a tenant
 * alone ticks once, at the end of its first slice, and runs as it would
 * alone (its operators' ends are the other events); a partner arriving
 * now and then still gets the core at the end of a slice. */
static void test_pmt_sleeps_alone(void **state)
{
    (void)state;
    const char *one[] = {D "sa_vu.csv"};
    v10_run_result r;
    run("pmt", one, 1, 200, 1, NULL, &r);
    const uint64_t req = 24500; /* test_solo_closed_form's request */
    assert_int_equal(r.end_cycle, 200 * req);
    assert_true(r.end_cycle > 5 * 700000); /* five slices of 1 ms at least */
    assert_int_equal(r.events, 200 * 6 + 1);
    assert_int_equal(r.context_switches, 0);
    v10_run_result_fini(&r);
    const char *two[] = {D "sa_vu.csv", D "sa_vu.csv:rate=200"};
    run("pmt", two, 2, 20, 1, NULL, &r);
    assert_true(r.tenants[1].completed >= 20);
    assert_true(r.context_switches >= 2 * 18); /* to the partner and back, mostly */
    /* Each of its requests waits for a slice's end: more than the switch. */
    assert_true(r.tenants[1].lat_avg_us > 30 + (double)req / 700);
    assert_true((double)r.events <
                (double)r.end_cycle / 700000 + 8 * (double)r.end_cycle / (double)req);
    v10_run_result_fini(&r);
}

static double np_ratio(const char *policy)
{
    const char *s[] = {D "sa_heavy.csv:priority=2", D "sa_heavy.csv:priority=1"};
    v10_run_result r;
    run(policy, s, 2, 300, 1, NULL, &r);
    double q = r.tenants[0].np / r.tenants[1].np;
    print_message("%s: NP %.3f vs %.3f (ratio %.2f), STP %.3f\n", policy, r.tenants[0].np,
                  r.tenants[1].np, q, r.stp);
    v10_run_result_fini(&r);
    return q;
}

static void test_v10_priorities(void **state)
{
    (void)state;
    double fair = np_ratio("v10-fair"), full = np_ratio("v10-full"), base = np_ratio("v10-base");
    assert_true(fair > 1.6 && fair < 2.4);
    assert_true(full > 1.6 && full < 2.4);
    assert_true(base > 0.8 && base < 1.25); /* round robin ignores priority */
}

static void test_v10_full_preempts_overserved(void **state)
{
    (void)state;
    const char *s[] = {D "long_sa.csv", D "sa_vu.csv"};
    v10_run_result fair, full;
    run("v10-fair", s, 2, 40, 1, NULL, &fair);
    run("v10-full", s, 2, 40, 1, NULL, &full);
    assert_int_equal(fair.preemptions, 0);
    assert_true(full.preemptions > 0);
    assert_int_equal(full.tenants[0].preemptions, full.preemptions);
    /* The short-op tenant waits less behind the long operators. */
    assert_true(full.tenants[1].lat_p95_us < fair.tenants[1].lat_p95_us);
    v10_run_result_fini(&fair);
    v10_run_result_fini(&full);
    /* Tile model: each preemption pays one 384-cycle SA switch after the
     * stop, and resuming at a fold boundary costs nothing more. */
    run_ex("v10-full", s, 2, 40, 1, NULL, V10_PREEMPT_TILE, NULL, &full);
    assert_true(full.preemptions > 0);
    assert_int_equal(full.switch_cycles, 384 * full.preemptions);
    v10_run_result_fini(&full);
}

static int cmp_rec(const void *a, const void *b)
{
    const v10_trace_rec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* Sorts the timeline by (start, end): on one FU an operator segment, its
 * preemption instant and the switch after it come in that order. */
static void sort_trace(v10_trace *tr) { qsort(tr->recs, tr->n, sizeof *tr->recs, cmp_rec); }

/* The first record on FU f after index k (not an instant), or NULL. */
/* Record x is on FU f and not an instant. */
static int on_fu(const v10_trace_rec *x, int f)
{
    return x->fu == f && x->kind != V10_TR_PREEMPT;
}

static const v10_trace_rec *next_on_fu(const v10_trace *tr, size_t k, int f)
{
    for (size_t j = k + 1; j < tr->n; j++)
        if (on_fu(&tr->recs[j], f))
            return &tr->recs[j];
    return NULL;
}

/* The last record on FU f ending at or before `at` before index k (not an
 * instant), or NULL. */
static const v10_trace_rec *prev_on_fu(const v10_trace *tr, size_t k, int f)
{
    for (size_t j = k; j-- > 0;)
        if (on_fu(&tr->recs[j], f))
            return &tr->recs[j];
    return NULL;
}

/*
 * A one-fold SA operator can only be stopped mid-way.  Tile model: never
 * preempted.  Drain model (the paper's): every SA stop comes sa_rows = 128
 * cycles after a timer tick (multiples of the 32768-cycle slice), every VU
 * stop at the tick.  Under the paper's reading the SA switch ends 384
 * cycles after the tick (the drain overlapping 128 of them); with no
 * overlap it ends 384 cycles after the stop.  The VU switch ends 66 cycles
 * after the tick (32 registers of 8x128 x 32 bit and the PC, saved and
 * restored one register a cycle).  A preempted operator resumes either
 * right after a switch (which restored it) or after a restore of its own:
 * 384 cycles on the SA (weights and replay), 33 on the VU — never for free.
 */
static void preempt_drains_anywhere(const char *npu, uint64_t overlap)
{
    const char *s[] = {D "one_fold.csv", D "sa_vu.csv"};
    v10_run_result r;
    v10_trace tr;
    run_ex("v10-full", s, 2, 10, 0, npu, V10_PREEMPT_TILE, NULL, &r);
    assert_int_equal(r.tenants[0].preemptions, 0);
    v10_run_result_fini(&r);

    run_ex("v10-full", s, 2, 10, 0, npu, V10_PREEMPT_DRAIN, &tr, &r);
    assert_true(r.tenants[0].preemptions > 0);
    sort_trace(&tr);
    /* per FU type (SA, VU): drain, switch after the stop, own restore */
    const uint64_t slice = 32768, drain[2] = {128, 0}, sw[2] = {384 - overlap, 66},
                   rest[2] = {384, 33};
    int resume[8] = {0};
    uint64_t n_pre = 0, n_restore = 0, n_covered = 0;
    for (size_t k = 0; k < tr.n; k++) {
        const v10_trace_rec *x = &tr.recs[k];
        if (x->fu < 0)
            continue;
        int ty = r.fus[x->fu].type;
        if (x->kind == V10_TR_PREEMPT) {
            n_pre++;
            assert_int_equal((x->start - drain[ty]) % slice, 0);
            const v10_trace_rec *y = next_on_fu(&tr, k, x->fu);
            assert_non_null(y);
            assert_int_equal(y->kind, V10_TR_SWITCH);
            assert_int_equal(y->start, x->start);
            assert_int_equal(y->end - y->start, sw[ty]);
            resume[x->tenant] = 1;
        } else if (x->kind == V10_TR_OP && resume[x->tenant]) {
            resume[x->tenant] = 0;
            const v10_trace_rec *p = prev_on_fu(&tr, k, x->fu);
            assert_non_null(p);
            assert_int_equal(p->kind, V10_TR_SWITCH);
            assert_int_equal(p->end, x->start);
            if (p->end - p->start == rest[ty] && p->tenant == x->tenant) {
                n_restore++;
            } else {
                assert_int_equal(p->end - p->start, sw[ty]);
                n_covered++;
            }
        }
    }
    print_message("%s: %llu preemptions, %llu restores, %llu covered resumptions\n",
                  npu ? npu : "v10-isca23", (unsigned long long)n_pre,
                  (unsigned long long)n_restore, (unsigned long long)n_covered);
    assert_int_equal(n_pre, r.preemptions);
    assert_true(n_restore > 0);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
}

/* Both readings of the paper's 384-cycle SA switch (NPU
 * sa_switch_overlap_cycles): the drain overlapping it, or not at all. */
static void test_preempt_drains_anywhere(void **state)
{
    (void)state;
    preempt_drains_anywhere(NULL, 128);
    preempt_drains_anywhere("tests/data/npu/switch_no_overlap.json", 0);
}

/* 1 if tenant t has an operator segment spanning cycle `at`. */
static int executing_at(const v10_trace *tr, int t, uint64_t at)
{
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *x = &tr->recs[k];
        if (x->kind == V10_TR_OP && x->tenant == t && x->start <= at && at < x->end)
            return 1;
    }
    return 0;
}

/* 1 if an SA other than x's starts, between preemption x and `until`, an
 * operator of a tenant that was not executing when x was requested. */
static int waiter_served_elsewhere(const v10_trace *tr, const v10_run_result *r,
                                   const v10_trace_rec *x, uint64_t until)
{
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *y = &tr->recs[k];
        if (y->kind == V10_TR_OP && y->fu != x->fu && r->fus[y->fu].type == V10_FU_SA &&
            y->start >= x->start && y->start <= until &&
            !executing_at(tr, y->tenant, x->start - 128))
            return 1;
    }
    return 0;
}

/* Every SA preemption on a two-SA core is taken by a waiting tenant: the
 * FU's next operator starts as its switch ends, and is of a tenant that was
 * not executing when the preemption was requested (sa_rows = 128 cycles
 * before the stop) — not the holder of the other SA, preempted for the
 * same single waiter — or, if the other SA frees during the switch, the
 * waiter takes that one. */
static void test_v10_full_preempts_for_a_waiter(void **state)
{
    (void)state;
    const char *s[] = {D "long_sa.csv", D "one_fold.csv", D "sa_heavy.csv"};
    v10_run_result r;
    v10_trace tr;
    run_ex("v10-full", s, 3, 20, 1, "v10-isca23-2x", V10_PREEMPT_DRAIN, &tr, &r);
    sort_trace(&tr);
    uint64_t n = 0, taken = 0;
    for (size_t k = 0; k < tr.n; k++) {
        const v10_trace_rec *x = &tr.recs[k];
        if (x->kind != V10_TR_PREEMPT || r.fus[x->fu].type != V10_FU_SA)
            continue;
        const v10_trace_rec *sw = next_on_fu(&tr, k, x->fu);
        assert_non_null(sw);
        if (sw->end == r.end_cycle)
            continue; /* the run ended first */
        n++;
        const v10_trace_rec *op = next_on_fu(&tr, (size_t)(sw - tr.recs), x->fu);
        /* The waiter may instead take the other SA if it frees first,
         * during the switch; the preempted tenant then takes its own back. */
        taken += (op && op->kind == V10_TR_OP && op->start == sw->end &&
                  !executing_at(&tr, op->tenant, x->start - 128)) ||
                 waiter_served_elsewhere(&tr, &r, x, sw->end);
    }
    print_message("%llu SA preemptions, %llu taken by a waiter\n", (unsigned long long)n,
                  (unsigned long long)taken);
    assert_true(n > 100);
    assert_int_equal(taken, n);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
}

/*
 * PMT time-shares the core: a slice starts when the switch into it has
 * completed (the owner's first operator starts), so neither the outgoing
 * tenant's drain nor the switch is taken from it.  The trace shows each
 * switch request as the start of a hold on an FU that was free then: it
 * comes exactly one slice after the owner started, under either model.
 * With equal priorities the two tenants progress alike.
 */
static void test_pmt_fair_slices(void **state)
{
    (void)state;
    const char *s[] = {"resnet50", "efficientnet"};
    const uint64_t slice = 700000; /* 1000 us at 700 MHz */
    for (int pm = V10_PREEMPT_DRAIN; pm <= V10_PREEMPT_TILE; pm++) {
        v10_run_result r;
        v10_trace tr;
        run_ex("pmt", s, 2, 20, 1, NULL, (v10_preempt_model)pm, &tr, &r);
        sort_trace(&tr);
        int owner = -1;
        uint64_t since = 0, checked = 0;
        for (size_t k = 0; k < tr.n; k++) {
            const v10_trace_rec *x = &tr.recs[k];
            if (x->kind == V10_TR_OP && x->tenant != owner) {
                owner = x->tenant;
                since = x->start;
            } else if (x->kind == V10_TR_SWITCH && x->tenant < 0 && x->start > 0) {
                assert_int_equal(x->start - since, slice);
                checked++;
            }
        }
        print_message("pmt, %s model: fairness %.3f, %llu slices checked\n",
                      v10_preempt_name((v10_preempt_model)pm), r.fairness,
                      (unsigned long long)checked);
        assert_true(checked > 10);
        if (pm == V10_PREEMPT_DRAIN)
            assert_true(r.fairness > 0.95);
        v10_trace_fini(&tr);
        v10_run_result_fini(&r);
    }
}

/* Probe policy: first come first served; records tenant 0's V10 score and
 * arrival when its first operator completes. */
typedef struct probe {
    int seen;
    double score;
    uint64_t at, arrive;
} probe;

static int probe_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)e, (void)st, (void)f;
    return __builtin_ctzll(cand);
}

static void probe_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    probe *p = st;
    if (k == V10_EV_OP_DONE && t == 0 && !p->seen) {
        p->seen = 1;
        p->score = v10p_score(e, 0);
        p->at = e->now;
        p->arrive = e->tenants[0].arrive_cycle;
    }
}

/*
 * Algorithm 1's active rate counts from the tenant's arrival at the NPU: a
 * Poisson tenant alone, whose first request arrives late, has executed for
 * all of the time since it arrived when its first operator completes, so
 * its score (priority 1) is exactly 1 — not diluted by the idle time before.
 */
static void test_active_rate_from_arrival(void **state)
{
    (void)state;
    static const v10_policy_ops probe_ops = {.name = "probe", .summary = "test probe",
                                             .state_size = sizeof(probe),
                                             .pick = probe_pick, .on_event = probe_event};
    v10_tenant_spec ts;
    v10_run_config cfg;
    v10_err err;
    v10_model m;
    v10_engine e;
    v10_run_config_default(&cfg);
    /* 10 requests/s at 700 MHz: the first arrives some 10^7 cycles in. */
    assert_int_equal(v10_tenant_spec_parse(D "sa_vu.csv:rate=10", &ts, &err), 0);
    cfg.tenants = &ts;
    cfg.n_tenants = 1;
    cfg.requests = 2;
    cfg.warmup = 0;
    cfg.check = 1;
    assert_int_equal(v10_model_load(ts.model, &cfg.npu, &m, &err), 0);
    assert_int_equal(v10_engine_alloc(&e, &cfg, &m, probe_ops.state_size, &err), 0);
    assert_int_equal(v10_engine_run(&e, &cfg, &probe_ops, &m, UINT64_MAX, &err), 0);
    const probe *p = e.pstate;
    assert_true(p->seen);
    assert_true(fabs(p->score - 1.0) < 1e-12);
    assert_true(p->arrive > 100000);
    assert_int_equal(p->at - p->arrive, 5000); /* mm0, its given cycles */
    v10_engine_free(&e);
    v10_model_fini(&m);
}

/*
 * One eligibility rule: the candidates the engine offers for a free FU are
 * exactly the tenants v10p_eligible accepts for it, may_run included (this
 * probe vetoes tenant 1 on the VU), so a policy asking who could take an
 * FU gets the engine's answer.  At every offer the probe also checks the
 * whole-core query against its definition, walking the FUs: tenant t's
 * core is clear iff no FU holds another tenant's operator; and the calls
 * that answer for many tenants at once (the eligible set, the scores)
 * against the one-tenant calls.
 */
typedef struct elig_probe {
    uint64_t offers, vetoed;
    uint64_t cleared; /* offers where a tenant holding FU 0 had the core clear */
} elig_probe;

static uint64_t elig_may_run(const v10_engine *e, const void *st, int f)
{
    (void)st;
    return v10p_fu_type(e, f) == V10_FU_VU ? ~(1ull << 1) : ~0ull;
}

static int elig_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    elig_probe *p = st;
    int nt = v10p_n_tenants(e);
    assert_true(cand && cand >> nt == 0);
    for (int t = 0; t < nt; t++) {
        int offered = (int)(cand >> t & 1);
        assert_int_equal(v10p_eligible(e, t, f), offered);
        p->vetoed += !offered && v10p_state(e, t) == V10P_READY &&
                     v10p_next_fu(e, t) == (int)v10p_fu_type(e, f);
    }
    assert_true(v10p_eligible_mask(e, f) == cand);
    /* The batch score calls agree with v10p_score, one tenant at a time:
     * the lowest candidate (ties: the lower index), and only the asked
     * entries; the keys order the candidates as their scores do, ties
     * included. */
    int low = -1;
    for (int t = 0; t < nt; t++)
        if (cand >> t & 1 && (low < 0 || v10p_score(e, t) < v10p_score(e, low)))
            low = t;
    assert_int_equal(v10p_lowest_score(e, cand), low);
    double sc[3] = {-1, -1, -1};
    v10p_scores(e, 5, sc); /* tenants 0 and 2 */
    assert_true(sc[0] == v10p_score(e, 0) && sc[1] == -1 && sc[2] == v10p_score(e, 2));
    double key[3] = {-1, -1, -1};
    v10p_score_keys(e, cand, key);
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++)
            if (cand >> i & 1 && cand >> j & 1)
                assert_int_equal(key[i] < key[j], v10p_score(e, i) < v10p_score(e, j));
    /* What a tenant lacks to reach a score: nothing to reach its own (to
     * the rounding of a score), more than nothing exactly for a higher
     * one, and in cycles: the score's slope times its priority and time. */
    for (int i = 0; i < nt; i++)
        if (cand >> i & 1) {
            double si = v10p_score(e, i), T = (double)v10p_now(e);
            assert_true(fabs(v10p_cycles_to_score(e, i, si)) <= 1e-9 * (T + 1));
            assert_true(fabs(v10p_cycles_to_score(e, i, si + 0.25) -
                             0.25 * v10p_priority(e, i) * T) <= 1e-9 * (T + 1));
            for (int j = 0; j < nt; j++)
                if (cand >> j & 1 && v10p_score(e, j) > si)
                    assert_true(v10p_cycles_to_score(e, i, v10p_score(e, j)) > 0);
        }
    for (int t = 0; t < v10p_n_tenants(e); t++) {
        int clear = 1;
        for (int g = 0; g < v10p_n_fus(e); g++)
            clear &= v10p_fu_tenant(e, g) < 0 || v10p_fu_tenant(e, g) == t;
        assert_int_equal(v10p_core_clear_for(e, t), clear);
        assert_int_equal((int)(v10p_core_clear_mask(e) >> t & 1), clear);
        p->cleared += clear && v10p_fu_tenant(e, 0) == t;
    }
    p->offers++;
    return __builtin_ctzll(cand);
}

static void test_one_eligibility_rule(void **state)
{
    (void)state;
    static const v10_policy_ops probe_ops = {.name = "probe", .summary = "test probe",
                                             .state_size = sizeof(elig_probe),
                                             .pick = elig_pick, .may_run = elig_may_run};
    v10_tenant_spec ts[3];
    v10_run_config cfg;
    v10_err err;
    v10_model m[3];
    v10_engine e;
    v10_run_config_default(&cfg);
    const char *specs[] = {D "sa_vu.csv", D "sa_vu.csv", D "vu_heavy.csv"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
        assert_int_equal(v10_model_load(ts[i].model, &cfg.npu, &m[i], &err), 0);
    }
    cfg.tenants = ts;
    cfg.n_tenants = 3;
    cfg.requests = 4;
    cfg.warmup = 0;
    cfg.check = 1;
    assert_int_equal(v10_engine_alloc(&e, &cfg, m, probe_ops.state_size, &err), 0);
    /* Tenant 1 never gets a VU: its VU operators wait forever, so the run
     * stops at its stall guard; the offers up to then are what is checked. */
    assert_int_equal(v10_engine_run(&e, &cfg, &probe_ops, m, 50000000, &err), -1);
    const elig_probe *p = e.pstate;
    assert_true(p->offers > 10);
    assert_true(p->vetoed > 0); /* may_run did veto, and the rule saw it */
    assert_true(p->cleared > 0); /* the core query saw a holder with the core to itself */
    v10_engine_free(&e);
    for (int i = 0; i < 3; i++)
        v10_model_fini(&m[i]);
}

static void test_spatial_partitions(void **state)
{
    (void)state;
    const char *s[] = {D "sa_vu.csv:priority=3", D "vu_heavy.csv"};
    v10_run_result r;
    run("spatial", s, 2, 20, 1, "v10-isca23-4x", &r);
    int owned[2] = {0, 0};
    for (size_t f = 0; f < r.n_fus; f++) {
        assert_true(r.fus[f].owner == 0 || r.fus[f].owner == 1);
        assert_true(r.fus[f].speed == 1.0);
        owned[r.fus[f].owner]++;
    }
    /* 4 SAs + 4 VUs split 3:1. */
    assert_int_equal(owned[0], 6);
    assert_int_equal(owned[1], 2);
    v10_run_result_fini(&r);
    /* One SA, two tenants: half-speed partitions. */
    const char *e[] = {D "sa_vu.csv", D "sa_vu.csv"};
    run("spatial", e, 2, 10, 0, NULL, &r);
    for (size_t f = 0; f < r.n_fus; f++)
        assert_true(fabs(r.fus[f].speed - 0.5) < 1e-12);
    /* Compute-bound ops at half speed: each request takes about twice as long. */
    assert_true(r.tenants[0].np > 0.45 && r.tenants[0].np < 0.55);
    v10_run_result_fini(&r);
}

/* Fewer FUs than tenants and a priority worth more than one FU (issue 12:
 * this was refused, "tenant 0's share of the SA is 1.33333"): the tenant
 * gets one whole FU's compute and the rest is split by priority. */
static void test_spatial_caps_at_one_fu(void **state)
{
    (void)state;
    const char *s[] = {D "sa_vu.csv:priority=4", D "vu_heavy.csv", D "sa_heavy.csv"};
    v10_run_result r;
    run("spatial", s, 3, 10, 1, "v10-isca23-2x", &r);
    double want[3] = {1.0, 0.5, 0.5}, sum[V10_FU_TYPES] = {0, 0};
    assert_int_equal(r.n_fus, 6);
    for (size_t f = 0; f < r.n_fus; f++) {
        assert_true(fabs(r.fus[f].speed - want[r.fus[f].owner]) < 1e-12);
        sum[r.fus[f].type] += r.fus[f].speed;
    }
    assert_true(fabs(sum[V10_FU_SA] - 2) < 1e-12 && fabs(sum[V10_FU_VU] - 2) < 1e-12);
    v10_run_result_fini(&r);
    /* 8:3:2:1 on two SAs: 16/14 FUs is capped at one; the other FU is
     * split 3:2:1. */
    const char *m[] = {D "sa_vu.csv:priority=8", D "sa_vu.csv:priority=3",
                       D "sa_vu.csv:priority=2", D "sa_vu.csv:priority=1"};
    run("spatial", m, 4, 10, 0, "v10-isca23-2x", &r);
    double want4[4] = {1.0, 0.5, 1.0 / 3, 1.0 / 6};
    assert_int_equal(r.n_fus, 8);
    for (size_t f = 0; f < r.n_fus; f++)
        assert_true(fabs(r.fus[f].speed - want4[r.fus[f].owner]) < 1e-12);
    v10_run_result_fini(&r);
}

/*
 * op_mapping (docs/design.md, "Operators over several engines"), on a core
 * of 4 SAs and 2 VUs at 1000 MHz with 1000 bytes of HBM per cycle, solo on
 * sa_vu.csv.  "one": the six operators' given cycles (a trace's include
 * their issue), 24500 cycles, on one SA and one VU.  "all": each operator's tiles split
 * over the 4 SAs or 2 VUs, ceil(cycles x ceil(tiles / k) / tiles), against
 * its bytes / 1000 cycles of HBM:
 *   mm0  5000 x 2/8 = 1250 (HBM 1000)   act0 3000 x 2/3 = 2000
 *   mm1  7000 x 3/10 = 2100 (HBM 1500)  act1 2000 x 1/2 = 1000
 *   mm2  4000 x 2/6 -> 1334              act2 3500 x 2/4 = 1750
 * = 9434, every SA executing the SA operators' 4684 cycles and every VU
 * the VU operators' 4750.
 */
static void test_op_mapping_closed_form(void **state)
{
    (void)state;
    const char *s[] = {D "sa_vu.csv"};
    const uint64_t n = 10, one = 24500, all = 9434, sa = 1250 + 2100 + 1334,
                   vu = 2000 + 1000 + 1750;
    v10_run_result r;
    run("solo", s, 1, n, 1, "tests/data/npu/4sa2vu-one.json", &r);
    assert_int_equal(r.end_cycle, n * one);
    assert_int_equal(r.n_fus, 6);
    for (size_t f = 0; f < r.n_fus; f++) /* the first SA and the first VU only */
        assert_true((r.fus[f].exec_cycles > 0) == (f == 0 || f == 4));
    double util_one = r.util_sa;
    v10_run_result_fini(&r);
    run("solo", s, 1, n, 1, "tests/data/npu/4sa2vu-all.json", &r);
    assert_int_equal(r.end_cycle, n * all);
    assert_true(fabs(r.tenants[0].lat_avg_us - (double)all / 1000.0) < 1e-9);
    for (size_t f = 0; f < r.n_fus; f++)
        assert_int_equal(r.fus[f].exec_cycles, n * (r.fus[f].type == V10_FU_SA ? sa : vu));
    /* every SA busy: 4684 / 9434 of the time, against 16000 / 24500 of one
     * SA in four with "one" (x3.04: the SA operators' share grows too) */
    assert_true(fabs(r.util_sa - (double)sa / (double)all) < 1e-9);
    assert_true(fabs(util_one - 16000.0 / (4.0 * (double)one)) < 1e-9);
    v10_run_result_fini(&r);
}

/* The most (most = 1) or the fewest FUs of one type an operator of
 * tenant t ran on: its trace segments that began and ended together on
 * FUs of that type. */
static int gang_extreme(const v10_trace *tr, const v10_run_result *r, int t, int type, int most)
{
    int best = most ? 0 : V10_MAX_FUS;
    for (size_t a = 0; a < tr->n; a++) {
        const v10_trace_rec *x = &tr->recs[a];
        if (x->kind != V10_TR_OP || x->tenant != t || r->fus[x->fu].type != type)
            continue;
        int k = 0;
        for (size_t b = 0; b < tr->n; b++) {
            const v10_trace_rec *y = &tr->recs[b];
            k += y->kind == V10_TR_OP && y->tenant == t && y->start == x->start &&
                 y->end == x->end && r->fus[y->fu].type == type;
        }
        best = (most ? k > best : k < best) ? k : best;
    }
    return best;
}

static int widest_gang(const v10_trace *tr, const v10_run_result *r, int t, int type)
{
    return gang_extreme(tr, r, t, type, 1);
}

static int narrowest_gang(const v10_trace *tr, const v10_run_result *r, int t, int type)
{
    return gang_extreme(tr, r, t, type, 0);
}

/*
 * op_mapping "alloc": a tenant's operators run on at most its allocation,
 * its priority share of each type's FUs in whole FUs (spatial's rule).
 * Alone, all 4 SAs and 2 VUs: the closed form of "all" (9434 cycles).
 * Priorities 3 and 1 on 4 SAs and 2 VUs: 3 SAs and 1 VU, and 1 and 1;
 * with "all" the first operator to start takes every free SA, and a
 * one-tile VU operator one VU.
 */
static void test_op_mapping_alloc(void **state)
{
    (void)state;
    const char *lone[] = {D "sa_vu.csv"};
    v10_run_result r;
    run("solo", lone, 1, 10, 1, "tests/data/npu/4sa2vu-alloc.json", &r);
    assert_int_equal(r.end_cycle, 10 * 9434);
    v10_run_result_fini(&r);
    const char *pair[] = {D "long_sa.csv:priority=3", D "long_sa.csv"};
    v10_trace tr;
    run_ex("v10-fair", pair, 2, 6, 1, "tests/data/npu/4sa2vu-alloc.json", V10_PREEMPT_DRAIN, &tr,
           &r);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 3);
    assert_int_equal(widest_gang(&tr, &r, 1, V10_FU_SA), 1);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_VU), 1);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
    run_ex("v10-fair", pair, 2, 6, 1, "tests/data/npu/4sa2vu-all.json", V10_PREEMPT_DRAIN, &tr,
           &r);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 4);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_VU), 1); /* one tile: one VU */
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
}

/*
 * op_mapping "harvest": beside a VU-only tenant of priority 3 (which never
 * waits for an SA), an SA tenant of priority 1 takes all 4 SAs, where
 * "alloc" holds it to its one; two SA tenants of priorities 3 and 1 keep
 * their allocations (3 and 1) while both wait, as under "alloc".
 */
static void test_op_mapping_harvest(void **state)
{
    (void)state;
    const char *idle_owner[] = {D "long_sa.csv", D "attr_vu.csv:priority=3"};
    v10_run_result r;
    v10_trace tr;
    run_ex("v10-fair", idle_owner, 2, 4, 1, "tests/data/npu/4sa2vu-alloc.json",
           V10_PREEMPT_DRAIN, &tr, &r);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 1);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
    run_ex("v10-fair", idle_owner, 2, 4, 1, "tests/data/npu/4sa2vu-harvest.json",
           V10_PREEMPT_DRAIN, &tr, &r);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 4);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
    const char *pair[] = {D "long_sa.csv:priority=3", D "long_sa.csv"};
    run_ex("v10-fair", pair, 2, 6, 1, "tests/data/npu/4sa2vu-harvest.json", V10_PREEMPT_DRAIN,
           &tr, &r);
    assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 3);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
}

/*
 * op_mapping "all": a preempted gang's FUs, each with its own event at the
 * end of their switch, come free together, and the tenant that gets the
 * first takes all four SAs, under V10-Full's preemptions and PMT's core
 * switches alike.  Two tenants of long SA operators, each operator on every
 * SA: before, the first SA to come free went alone to the waiter and the
 * next alone to the preempted tenant, and two SAs idled beside them (an
 * operator on one SA, V10-Full's fairness 0.36).
 */
static void test_op_mapping_gang_comes_free_together(void **state)
{
    (void)state;
    const char *pair[] = {D "long_sa.csv", D "long_sa.csv"};
    const char *policies[] = {"v10-full", "pmt"};
    for (size_t p = 0; p < 2; p++) {
        v10_run_result r;
        v10_trace tr;
        run_ex(policies[p], pair, 2, 3, 1, "tests/data/npu/4sa2vu-all.json", V10_PREEMPT_DRAIN,
               &tr, &r);
        assert_true(r.preemptions + r.context_switches >= 2); /* the gangs changed hands */
        for (int t = 0; t < 2; t++)
            assert_int_equal(narrowest_gang(&tr, &r, t, V10_FU_SA), 4);
        assert_true(r.util_sa > 0.95);
        v10_trace_fini(&tr);
        v10_run_result_fini(&r);
    }
}

/* The first trace segment of tenant t's operator op (its first request's):
 * its start and end, and over how many FUs it ran (the segments that began
 * and ended with it); 0 if none. */
static int first_op(const v10_trace *tr, int t, uint32_t op, uint64_t *start, uint64_t *end)
{
    const v10_trace_rec *first = NULL;
    for (size_t a = 0; a < tr->n; a++) {
        const v10_trace_rec *x = &tr->recs[a];
        if (x->kind == V10_TR_OP && x->tenant == t && x->op == op &&
            (!first || x->start < first->start))
            first = x;
    }
    if (!first)
        return 0;
    int k = 0;
    for (size_t b = 0; b < tr->n; b++) {
        const v10_trace_rec *y = &tr->recs[b];
        k += y->kind == V10_TR_OP && y->tenant == t && y->start == first->start &&
             y->end == first->end;
    }
    *start = first->start;
    *end = first->end;
    return k;
}

/*
 * op_mapping "reclaim" (Neu10's reclaiming of harvested engines), against
 * "harvest", on 4 SAs and 2 VUs: two tenants of equal priority, each
 * allocated 2 SAs.  t0 (huge_sa.csv) starts its 500-tile SA operator on
 * all four SAs at cycle 0, t1 (vu_heavy.csv) then waiting for a VU, not an
 * SA, so harvest lends them all; t1's first VU operator ends at T and it
 * waits for its 2-tile SA operator with every SA lent.
 *   "reclaim": t0's gang is preempted at T: it drains sa_rows cycles and
 *   switches sa_switch_cycles less the overlap (stop_after_drain), its
 *   four SAs come free together, and t1's SA operator starts at
 *   T + sa_rows + sa_switch_cycles - overlap on its allocation, 2 SAs; t0
 *   resumes on the other 2.  So under V10-Base, which never preempts, and
 *   V10-Full alike.
 *   "harvest": t1 waits for t0's operator to end (V10-Base).
 */
static void test_op_mapping_reclaim(void **state)
{
    (void)state;
    const char *pair[] = {D "huge_sa.csv", D "vu_heavy.csv"};
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_resolve("tests/data/npu/4sa2vu-reclaim.json", &npu, &err), 0);
    assert_int_equal(npu.op_mapping, V10_MAP_RECLAIM);
    const uint64_t drain = npu.sa_rows,
                   wait = drain + npu.sa_switch_cycles -
                          (npu.sa_switch_overlap_cycles < drain ? npu.sa_switch_overlap_cycles
                                                                : drain);
    const char *policies[] = {"v10-base", "v10-full"};
    for (size_t p = 0; p < 2; p++) {
        v10_run_result r;
        v10_trace tr;
        run_ex(policies[p], pair, 2, 3, 1, "tests/data/npu/4sa2vu-reclaim.json",
               V10_PREEMPT_DRAIN, &tr, &r);
        uint64_t s0 = 0, e0 = 0, s1 = 0, e1 = 0, b0 = 0, b1 = 0;
        assert_int_equal(first_op(&tr, 1, 0, &s0, &e0), 2); /* emb: 9 tiles on both VUs */
        int k = first_op(&tr, 1, 1, &s1, &e1);              /* mm: 2 tiles */
        print_message("%s: t1 ready for an SA at %llu, on %d SAs at %llu (want +%llu)\n",
                      policies[p], (unsigned long long)e0, k, (unsigned long long)s1,
                      (unsigned long long)wait);
        assert_int_equal(k, 2);
        assert_int_equal(s1, e0 + wait);
        assert_int_equal(first_op(&tr, 0, 0, &b0, &b1), 4); /* t0 began on every SA */
        assert_int_equal(b1, e0 + drain);                   /* and was stopped after its drain */
        assert_int_equal(widest_gang(&tr, &r, 0, V10_FU_SA), 4);
        assert_int_equal(narrowest_gang(&tr, &r, 0, V10_FU_SA), 2); /* resumed on the rest */
        assert_true(r.preemptions >= 1 && r.context_switches >= 1);
        v10_trace_fini(&tr);
        v10_run_result_fini(&r);
    }
    v10_run_result r;
    v10_trace tr;
    run_ex("v10-base", pair, 2, 3, 1, "tests/data/npu/4sa2vu-harvest.json", V10_PREEMPT_DRAIN,
           &tr, &r);
    uint64_t s0 = 0, e0 = 0, s1 = 0, e1 = 0, b0 = 0, b1 = 0;
    assert_int_equal(first_op(&tr, 1, 0, &s0, &e0), 2);
    assert_int_equal(first_op(&tr, 0, 0, &b0, &b1), 4); /* t0's whole operator on every SA */
    assert_int_equal(first_op(&tr, 1, 1, &s1, &e1), 2);
    print_message("harvest: t1 ready for an SA at %llu, runs at %llu, t0's operator ends at "
                  "%llu\n",
                  (unsigned long long)e0, (unsigned long long)s1, (unsigned long long)b1);
    assert_int_equal(s1, b1);       /* it waited for t0's operator */
    assert_true(s1 - e0 > 100 * wait);
    assert_int_equal(r.preemptions, 0);
    v10_trace_fini(&tr);
    v10_run_result_fini(&r);
}

/* A lone tenant whose SA operators are long keeps all 4 SAs of the core
 * busy with "all" (SA utilization x4 that of "one", to the issue cycles). */
static void test_op_mapping_uses_every_sa(void **state)
{
    (void)state;
    const char *s[] = {D "long_sa.csv"};
    v10_run_result one, all;
    run("solo", s, 1, 4, 1, "tests/data/npu/4sa2vu-one.json", &one);
    run("solo", s, 1, 4, 1, "tests/data/npu/4sa2vu-all.json", &all);
    assert_true(all.util_sa > 3.9 * one.util_sa);
    assert_true(all.util_sa < 4.0 * one.util_sa + 1e-9);
    v10_run_result_fini(&one);
    v10_run_result_fini(&all);
}

static void test_contention_slows_memory_bound(void **state)
{
    (void)state;
    const char *s[] = {D "membound.csv", D "membound.csv"};
    v10_run_result on, off;
    run("v10-base", s, 2, 50, 1, NULL, &on);
    run("v10-base", s, 2, 50, 0, NULL, &off);
    assert_true(on.stp < off.stp);
    assert_true(on.util_hbm <= 1.0 + 1e-9);
    assert_true(on.util_hbm > 0.9); /* memory-bound pair saturates HBM */
    v10_run_result_fini(&on);
    v10_run_result_fini(&off);
}

/* The HBM bytes moved are the work's: an operator moves bytes / work per
 * standalone cycle of progress, so over a window that holds the whole run,
 * two tenants of one memory-bound operator each, sharing the HBM (rates
 * below full: operators end between cycles), moved exactly their work
 * done times that, under every policy; not a fraction of a cycle's bytes
 * more per operator, as when the bytes were counted by elapsed cycles. */
static void test_hbm_bytes_are_the_work(void **state)
{
    (void)state;
    const char *s[] = {D "attr_mem_sa.csv", D "attr_mem_vu.csv"};
    const double bytes[] = {15e6, 20e6}; /* each file's operator */
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_resolve("v10-isca23", &npu, &err), 0);
    double bw = v10_npu_hbm_bytes_per_cycle(&npu);
    for (size_t k = 0; k < v10_policy_count(); k++) {
        const char *pol = v10_policy_at(k)->name;
        if (!strcmp(pol, "solo"))
            continue; /* one tenant */
        v10_run_result r;
        run(pol, s, 2, 5, 1, "v10-isca23", &r); /* 5 requests: no warm-up */
        assert_int_equal(r.window_start, 0);
        assert_int_equal(r.window_end, r.end_cycle);
        double moved = r.util_hbm * bw * (double)r.window_end, want = 0;
        for (int i = 0; i < 2; i++) /* one operator a request: its work is the request's */
            want += r.tenants[i].work_done * bytes[i] / (double)r.tenants[i].alone_cycles;
        print_message("%-8s %.3f of %.3f bytes\n", pol, moved, want);
        assert_true(fabs(moved - want) < 1e-9 * want);
        v10_run_result_fini(&r);
    }
}

/* Eight zoo tenants on four SAs and four VUs under HBM contention, closed
 * loop and Poisson, under V10-Full (which preempts) with each preemption
 * model and V10-Base (which does not): operators start, stop and end at
 * random points of each other, and the HBM's max-min shares move at most
 * events.  The engine moves only the rates a change can move (rates.c);
 * --check (on here) recomputes every busy FU's share afresh, by a walk of
 * every FU, at every event and aborts unless each rate is that one to the
 * bit (check.c, rates_differ), so every event time is the old per-operator
 * walk's.  Contention is in force: it costs throughput. */
static void test_hbm_shares_every_event(void **state)
{
    (void)state;
    const char *s[] = {"resnet50", "bert:rate=4000", "ncf", "dlrm:rate=2000",
                       "efficientnet", "transformer:rate=1000", "mnist", "retinanet"};
    const struct {
        const char *policy;
        v10_preempt_model pm;
    } runs[] = {{"v10-full", V10_PREEMPT_DRAIN}, {"v10-full", V10_PREEMPT_TILE},
                {"v10-base", V10_PREEMPT_DRAIN}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        v10_run_result on, off;
        run_ex(runs[k].policy, s, 8, 2, 1, "v10-isca23-4x", runs[k].pm, NULL, &on);
        run_ex(runs[k].policy, s, 8, 2, 0, "v10-isca23-4x", runs[k].pm, NULL, &off);
        print_message("%-8s preempt %d: STP %.4f with contention, %.4f without\n",
                      runs[k].policy, (int)runs[k].pm, on.stp, off.stp);
        assert_true(on.stp < off.stp);
        v10_run_result_fini(&on);
        v10_run_result_fini(&off);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solo_closed_form),
        cmocka_unit_test(test_solo_np_one_any_mapping),
        cmocka_unit_test(test_pmt_time_shares),
        cmocka_unit_test(test_pmt_sleeps_alone),
        cmocka_unit_test(test_v10_priorities),
        cmocka_unit_test(test_v10_full_preempts_overserved),
        cmocka_unit_test(test_preempt_drains_anywhere),
        cmocka_unit_test(test_v10_full_preempts_for_a_waiter),
        cmocka_unit_test(test_pmt_fair_slices),
        cmocka_unit_test(test_active_rate_from_arrival),
        cmocka_unit_test(test_one_eligibility_rule),
        cmocka_unit_test(test_spatial_partitions),
        cmocka_unit_test(test_spatial_caps_at_one_fu),
        cmocka_unit_test(test_contention_slows_memory_bound),
        cmocka_unit_test(test_hbm_bytes_are_the_work),
        cmocka_unit_test(test_hbm_shares_every_event),
        cmocka_unit_test(test_op_mapping_closed_form),
        cmocka_unit_test(test_op_mapping_uses_every_sa),
        cmocka_unit_test(test_op_mapping_alloc),
        cmocka_unit_test(test_op_mapping_harvest),
        cmocka_unit_test(test_op_mapping_reclaim),
        cmocka_unit_test(test_op_mapping_gang_comes_free_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
