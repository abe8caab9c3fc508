/*
 * test_attrib.c — where the time goes (docs/attribution.md): a two-tenant
 * run per state whose breakdown is known in closed form, and the
 * invariants every policy keeps (states sum to the window, execution is
 * the standalone work done, partners are charged what the states lost).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runcfg.h"
#include "v10/sim.h"

#define D "tests/data/engine/"
#define S V10_ATTR_STATES

/* Runs with invariant checks on (they include the sum of the states). */
static void run(const char *policy, const char *a, const char *b, uint64_t requests,
                uint64_t warmup, int contention, v10_run_result *res)
{
    static v10_tenant_spec ts[2];
    v10_run_config cfg;
    v10_err err;
    size_t n = b ? 2 : 1;
    assert_int_equal(v10_tenant_spec_parse(a, &ts[0], &err), 0);
    if (b)
        assert_int_equal(v10_tenant_spec_parse(b, &ts[1], &err), 0);
    runcfg(&cfg, policy, ts, n, requests, warmup);
    cfg.contention = contention;
    assert_int_equal(runcfg_run(&cfg, res), 0);
}

static double win(const v10_run_result *r) { return (double)(r->window_end - r->window_start); }
static double st(const v10_run_result *r, size_t i, v10_attr_state s)
{
    return r->tenants[i].state_cycles[s];
}
/* What tenant i lost to tenant j in state s. */
static double lost(const v10_run_result *r, size_t i, size_t j, v10_attr_state s)
{
    return r->tenants[i].lost_to[j * S + s];
}
static double lost_all(const v10_run_result *r, size_t i, size_t j)
{
    double x = 0;
    for (int s = 0; s < S; s++)
        x += lost(r, i, j, (v10_attr_state)s);
    return x;
}

/* The invariants of every run: each tenant's states sum to the window;
 * executing at full rate is the standalone work done (NP x window, for a
 * tenant whose request is its model's standalone latency and whose FU is
 * whole; an operator's end is rounded up to a whole cycle, so within a
 * cycle per operator); nothing is lost to oneself. */
static void invariants(const v10_run_result *r, int whole_fus)
{
    for (size_t i = 0; i < r->n_tenants; i++) {
        double sum = 0;
        for (int s = 0; s < S; s++) {
            assert_true(st(r, i, (v10_attr_state)s) >= -1e-6);
            sum += st(r, i, (v10_attr_state)s);
        }
        assert_true(fabs(sum - win(r)) <= 1);
        if (whole_fus)
            assert_true(fabs(st(r, i, V10_ATTR_EXEC) - r->tenants[i].np * win(r)) <=
                        1e-4 * win(r) + 1);
        assert_true(lost_all(r, i, i) == 0);
    }
}

/* A VU-only tenant beside an SA-only tenant under V10-Base, HBM not
 * shared: both execute all the time, nobody waits. */
static void test_vu_beside_sa_never_waits(void **state)
{
    (void)state;
    v10_run_result r;
    run("v10-base", D "attr_sa.csv", D "attr_vu.csv", 40, 4, 0, &r);
    invariants(&r, 1);
    for (size_t i = 0; i < 2; i++) {
        assert_true(fabs(st(&r, i, V10_ATTR_EXEC) - win(&r)) <= 1);
        assert_true(lost_all(&r, i, 1 - i) == 0);
    }
    v10_run_result_fini(&r);
}

/* Two SA-only tenants under FCFS: each waits exactly while the other's
 * operators run, and loses that wait to it. */
static void test_fcfs_waits_the_others_operators(void **state)
{
    (void)state;
    v10_run_result r;
    run("fcfs", D "attr_sa.csv", D "attr_sa_short.csv", 40, 0, 0, &r);
    invariants(&r, 1);
    for (size_t i = 0; i < 2; i++) {
        size_t j = 1 - i;
        /* The SA never idles: the window is both tenants' operators. */
        assert_true(fabs(st(&r, i, V10_ATTR_EXEC) + st(&r, j, V10_ATTR_EXEC) - win(&r)) <= 1);
        assert_true(fabs(st(&r, i, V10_ATTR_WAIT_SA) - st(&r, j, V10_ATTR_EXEC)) <= 1);
        assert_true(fabs(lost(&r, i, j, V10_ATTR_WAIT_SA) - st(&r, i, V10_ATTR_WAIT_SA)) <= 1e-6);
        assert_true(st(&r, i, V10_ATTR_WAIT_VU) == 0 && st(&r, i, V10_ATTR_PREEMPTED) == 0);
    }
    /* Alternating requests from cycle 0, 40 of each, of 10000 and 4000
     * cycles (the trace's cycles, issue included). */
    assert_true(fabs(st(&r, 0, V10_ATTR_EXEC) - 40.0 * 10000) <= 1);
    assert_true(fabs(st(&r, 1, V10_ATTR_WAIT_SA) - 40.0 * 10000) <= 1);
    v10_run_result_fini(&r);
}

/* PMT: an SA-only and a VU-only tenant take turns on the whole core.  The
 * one off the core waits beside a free FU (held, or preempted once its own
 * operator was stopped), charged to the owner; the whole-core switches are
 * the outgoing tenant's own and the incoming one's "switch_by". */
static void test_pmt_held_preempted_switch(void **state)
{
    (void)state;
    v10_run_result r;
    run("pmt", D "attr_sa.csv", D "attr_vu.csv", 400, 0, 0, &r);
    invariants(&r, 1);
    assert_true(r.preemptions >= 4); /* slices that end inside an operator */
    double sw = 0;
    for (size_t i = 0; i < 2; i++) {
        size_t j = 1 - i;
        double off = st(&r, i, V10_ATTR_HELD) + st(&r, i, V10_ATTR_PREEMPTED);
        assert_true(off > 0.2 * win(&r));
        assert_true(fabs(lost(&r, i, j, V10_ATTR_HELD) + lost(&r, i, j, V10_ATTR_PREEMPTED) - off)
                    <= 1e-6 * win(&r));
        /* Off the core while the other executes, less its drains (128
         * cycles each for the SA, nothing for the VU). */
        assert_true(off <= st(&r, j, V10_ATTR_EXEC) + 1);
        assert_true(off >= st(&r, j, V10_ATTR_EXEC) - 128.0 * ((double)r.preemptions + 1));
        assert_true(st(&r, i, V10_ATTR_WAIT_SA) == 0 && st(&r, i, V10_ATTR_WAIT_VU) == 0);
        sw += st(&r, i, V10_ATTR_SWITCH);
        /* What one switches, the other waits for. */
        assert_true(fabs(st(&r, j, V10_ATTR_SWITCH_BY) - lost(&r, j, i, V10_ATTR_SWITCH_BY) -
                         lost(&r, j, j, V10_ATTR_SWITCH_BY)) <= 1e-6 * win(&r));
    }
    /* One tenant's switch is the other's wait, which also covers the SA's
     * drains (the outgoing operator still executing, 128 cycles each). */
    double by = st(&r, 0, V10_ATTR_SWITCH_BY) + st(&r, 1, V10_ATTR_SWITCH_BY);
    assert_true(sw > 0.9 * 21000 * (double)r.context_switches);
    assert_true(by >= sw - 1 && by <= sw + 128.0 * (double)r.preemptions + 1);
    v10_run_result_fini(&r);
}

/* V10-Full with two SA-only tenants on one SA (window = whole run): the
 * SA is always executing, switching or restoring someone.  Whoever does
 * not execute waits (or is preempted) for the other's operator; what one
 * switches (its own save or restore) the other waits for as switch_by. */
static void test_v10_full_preempted_and_switches(void **state)
{
    (void)state;
    v10_run_result r;
    run("v10-full", D "long_sa.csv", D "sa_heavy.csv", 6, 0, 0, &r);
    invariants(&r, 1);
    assert_true(r.preemptions > 0);
    const v10_fu_result *sa = &r.fus[0];
    assert_int_equal(sa->type, V10_FU_SA);
    double ex0 = st(&r, 0, V10_ATTR_EXEC), ex1 = st(&r, 1, V10_ATTR_EXEC);
    /* The over-served long operators are preempted, the short ones never. */
    assert_true(st(&r, 0, V10_ATTR_PREEMPTED) > 0.2 * win(&r));
    assert_true(st(&r, 1, V10_ATTR_PREEMPTED) == 0 && st(&r, 1, V10_ATTR_SWITCH) == 0);
    assert_true(fabs(lost(&r, 0, 1, V10_ATTR_PREEMPTED) - st(&r, 0, V10_ATTR_PREEMPTED)) <= 1e-6);
    /* Tenant 0's own switches: each preemption's save (384 - 128 drain
     * cycles) and restore (384), all the FU-cycles switching but those of
     * a save whose operator finished in its drain (it had moved on). */
    double sw0 = st(&r, 0, V10_ATTR_SWITCH);
    assert_true(fabs(sw0 - 640.0 * (double)r.preemptions) <= 1);
    assert_true(sw0 <= (double)r.switch_cycles + 1);
    /* Tenant 1 waits for the saves (it is on the VU during the restores). */
    double by1 = st(&r, 1, V10_ATTR_SWITCH_BY);
    assert_true(fabs(by1 - 256.0 * (double)r.context_switches) <= 256);
    assert_true(fabs(lost(&r, 1, 0, V10_ATTR_SWITCH_BY) - by1) <= 1e-6);
    for (size_t i = 0; i < 2; i++)
        assert_true(st(&r, i, V10_ATTR_HELD) == 0 && st(&r, i, V10_ATTR_IDLE) == 0 &&
                    st(&r, i, V10_ATTR_HBM) == 0);
    assert_true(fabs(ex0 + ex1 - (double)sa->exec_cycles - (double)r.fus[1].exec_cycles) <= 1);
    v10_run_result_fini(&r);
}

/* Two memory-bound tenants on different FUs under V10-Base: each executes
 * beside the other and loses the slowed part to it, nothing else. */
static void test_hbm_lost_to_the_partner(void **state)
{
    (void)state;
    v10_run_result r;
    run("v10-base", D "attr_mem_sa.csv", D "attr_mem_vu.csv", 40, 4, 1, &r);
    invariants(&r, 1);
    for (size_t i = 0; i < 2; i++) {
        double h = st(&r, i, V10_ATTR_HBM);
        assert_true(h > 0.3 * win(&r)); /* both want nearly all of the HBM */
        assert_true(fabs(st(&r, i, V10_ATTR_EXEC) + h - win(&r)) <= 1);
        assert_true(fabs(lost(&r, i, 1 - i, V10_ATTR_HBM) - h) <= 1e-6 * h);
    }
    v10_run_result_fini(&r);
}

/* Three memory-bound tenants on two SAs and two VUs (v10-isca23-2x, the
 * HBM twice the core's) under V10-Base: each operator runs beside one or
 * both others, and the part it loses is split over those drawing the HBM
 * (in proportion to their bandwidth, interval by interval): every cycle
 * lost has a partner, so the partners' shares add up to the loss, and the
 * two alike tenants lose to each other and to the third. */
static void test_hbm_split_over_three(void **state)
{
    (void)state;
    static v10_tenant_spec ts[3];
    v10_err err;
    const char *specs[3] = {D "attr_mem_sa.csv", D "attr_mem_sa.csv", D "attr_mem_vu.csv"};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
    v10_run_config cfg;
    runcfg(&cfg, "v10-base", ts, 3, 40, 4);
    assert_int_equal(v10_npu_preset("v10-isca23-2x", &cfg.npu, &err), 0);
    v10_run_result r;
    assert_int_equal(runcfg_run(&cfg, &r), 0);
    invariants(&r, 1);
    for (size_t i = 0; i < 3; i++) {
        double h = st(&r, i, V10_ATTR_HBM), shares = 0;
        assert_true(h > 0.1 * win(&r));
        for (size_t j = 0; j < 3; j++)
            shares += lost(&r, i, j, V10_ATTR_HBM);
        assert_true(fabs(shares - h) <= 1e-9 * h);
        for (size_t j = 0; j < 3; j++)
            assert_true(j == i || lost(&r, i, j, V10_ATTR_HBM) > 0.05 * h);
    }
    v10_run_result_fini(&r);
}

/* A Poisson tenant alone: executing or idle, and its idle time is the
 * window less its work. */
static void test_idle_between_requests(void **state)
{
    (void)state;
    v10_run_result r;
    run("solo", D "attr_sa.csv:rate=20000", NULL, 60, 6, 0, &r);
    invariants(&r, 1);
    double ex = st(&r, 0, V10_ATTR_EXEC), idle = st(&r, 0, V10_ATTR_IDLE);
    assert_true(fabs(ex + idle - win(&r)) <= 1);
    /* 20000 requests/s of 10064 cycles at 700 MHz: 29% busy on average. */
    assert_true(idle > 0.4 * win(&r));
    v10_run_result_fini(&r);
}

/* Every policy on a mixed pair: the invariants hold and each tenant's
 * losses name the other. */
static void test_every_policy(void **state)
{
    (void)state;
    for (size_t k = 0; k < v10_policy_count(); k++) {
        const char *p = v10_policy_name(v10_policy_at(k));
        if (!strcmp(p, "solo"))
            continue;
        v10_run_result r;
        run(p, D "sa_vu.csv", D "vu_heavy.csv", 60, 6, 1, &r);
        invariants(&r, strcmp(p, "spatial") != 0);
        if (strcmp(p, "spatial")) /* its own FUs: it may lose only HBM */
            for (size_t i = 0; i < 2; i++)
                assert_true(lost_all(&r, i, 1 - i) > 0);
        v10_run_result_fini(&r);
    }
}

/* Runs the first n tenants of ts under policy p on NPU preset npu (NULL:
 * the default), invariant checks on, `requests` each (a tenth of them
 * warm-up), traced into tr if given, with attribution unless no_attr. */
static void run_many(const char *p, const v10_tenant_spec *ts, size_t n, const char *npu,
                     uint64_t requests, v10_trace *tr, int no_attr, v10_run_result *r)
{
    v10_run_config cfg;
    v10_err err;
    runcfg(&cfg, p, ts, n, requests, requests / 10);
    if (npu)
        assert_int_equal(v10_npu_preset(npu, &cfg.npu, &err), 0);
    cfg.trace = tr;
    cfg.no_attribution = no_attr;
    assert_int_equal(runcfg_run(&cfg, r), 0);
}

/* Runs the first n tenants of ts under policy p on NPU preset npu
 * untraced and traced (the interval rule) and fails naming the first
 * state or partner the two charge differently; returns whether some tenant
 * waited for an FU (or was held, preempted or switched). */
static int rules_agree(const char *p, const v10_tenant_spec *ts, size_t n, const char *npu)
{
    v10_run_result r[2];
    v10_trace tr;
    memset(&tr, 0, sizeof tr);
    for (int traced = 0; traced < 2; traced++)
        run_many(p, ts, n, npu, 30, traced ? &tr : NULL, 0, &r[traced]);
    assert_true(r[0].window_end == r[1].window_end && r[0].events == r[1].events);
    /* Up to three tenants every counter is a sum of whole cycles and
     * halves, which the tallies and the interval rule add exactly. */
    double tol = n <= 3 ? 0 : 1e-9 * win(&r[0]) + 1e-6;
    int waited = 0;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < S; s++) {
            v10_attr_state a = (v10_attr_state)s;
            waited |= a >= V10_ATTR_WAIT_SA && a <= V10_ATTR_PREEMPTED && st(&r[0], i, a) > 0;
            if (fabs(st(&r[0], i, a) - st(&r[1], i, a)) > tol)
                fail_msg("%s, %zu tenants on %s: tenant %zu %s: %.3f untraced, %.3f traced", p,
                         n, npu ? npu : "the default NPU", i, v10_attr_name(a), st(&r[0], i, a),
                         st(&r[1], i, a));
            for (size_t j = 0; j < n; j++)
                if (fabs(lost(&r[0], i, j, a) - lost(&r[1], i, j, a)) > tol)
                    fail_msg("%s, %zu tenants on %s: tenant %zu %s lost to %zu: %.3f "
                             "untraced, %.3f traced",
                             p, n, npu ? npu : "the default NPU", i, v10_attr_name(a), j,
                             lost(&r[0], i, j, a), lost(&r[1], i, j, a));
        }
    v10_trace_fini(&tr);
    v10_run_result_fini(&r[0]);
    v10_run_result_fini(&r[1]);
    return waited;
}

/* The tenants the rule tests run: SA and VU operators, memory-bound ones,
 * and an open-loop one (idle time). */
static void rule_tenants(v10_tenant_spec ts[6])
{
    v10_err err;
    const char *specs[6] = {D "sa_vu.csv", D "vu_heavy.csv", D "sa_heavy.csv:rate=2000",
                            D "sa_vu.csv", D "vu_heavy.csv", D "sa_heavy.csv"};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
}

/* A tenant's time is charged three ways (docs/attribution.md): from the
 * tallies of configurations with up to three tenants, from each FU type's
 * shared-wait integrals with more, and, with a trace (which records every
 * interval), interval by interval.  Each must agree with the last on every
 * state and partner, under every policy, with two, three (shares of a
 * half), four and six tenants (shares of a third and a fifth, several
 * waiting beside each other) and open-loop idle time. */
static void test_every_rule_matches_the_traced_one(void **state)
{
    (void)state;
    static v10_tenant_spec ts[6];
    rule_tenants(ts);
    static const size_t counts[] = {2, 3, 4, 6};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (size_t k = 0, n = counts[c]; k < v10_policy_count(); k++) {
            const char *p = v10_policy_name(v10_policy_at(k));
            if (strcmp(p, "solo") && !rules_agree(p, ts, n, NULL) &&
                strcmp(p, "spatial")) /* the runs exercise the waits */
                fail_msg("%s, %zu tenants: no tenant waited", p, n);
        }
}

/* The same on two SAs and two VUs (v10-isca23-2x), with four and six
 * tenants: a tenant's context may be saved on one FU of a type while
 * another is free, and shared waits then move while some waiters are
 * switching (attrib.c, switching_as_before). */
static void test_every_rule_matches_on_two_of_each(void **state)
{
    (void)state;
    static v10_tenant_spec ts[6];
    rule_tenants(ts);
    for (size_t n = 4; n <= 6; n += 2)
        for (size_t k = 0; k < v10_policy_count(); k++) {
            const char *p = v10_policy_name(v10_policy_at(k));
            if (strcmp(p, "solo") && !rules_agree(p, ts, n, "v10-isca23-2x") &&
                strcmp(p, "spatial"))
                fail_msg("%s, %zu tenants on v10-isca23-2x: no tenant waited", p, n);
        }
}

/* x and y are equal, or both NaN (a latency with no request measured). */
static int same(double x, double y) { return x == y || (x != x && y != y); }

/* A run that counts no attribution (no_attribution, for callers that read
 * none of it) is the same run: every other figure equal to the bit, under
 * every policy, with tallies (two tenants) and shared waits (four); its
 * states and partners are zero; per-operator states need attribution. */
static void test_without_attribution_the_run_is_the_same(void **state)
{
    (void)state;
    static v10_tenant_spec ts[4];
    v10_err err;
    const char *specs[4] = {D "sa_vu.csv", D "vu_heavy.csv", D "sa_heavy.csv", D "sa_vu.csv"};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
    for (size_t n = 2; n <= 4; n += 2)
        for (size_t k = 0; k < v10_policy_count(); k++) {
            const char *p = v10_policy_name(v10_policy_at(k));
            if (!strcmp(p, "solo")) /* one tenant at a time */
                continue;
            v10_run_result r[2];
            for (int off = 0; off < 2; off++)
                run_many(p, ts, n, NULL, 12, NULL, off, &r[off]);
            assert_true(r[0].events == r[1].events && r[0].window_end == r[1].window_end);
            assert_true(r[0].stp == r[1].stp && r[0].overlap == r[1].overlap &&
                        r[0].energy.total_j == r[1].energy.total_j);
            for (size_t i = 0; i < n; i++) {
                const v10_tenant_result *a = &r[0].tenants[i], *b = &r[1].tenants[i];
                assert_true(a->np == b->np && same(a->lat_p95_us, b->lat_p95_us) &&
                            a->energy_j == b->energy_j && a->preemptions == b->preemptions);
                double on = 0;
                for (int s = 0; s < S; s++) {
                    on += a->state_cycles[s];
                    assert_true(b->state_cycles[s] == 0);
                    for (size_t j = 0; j < n; j++)
                        assert_true(b->lost_to[j * S + (size_t)s] == 0);
                }
                assert_true(fabs(on - win(&r[0])) <= 1); /* the other run did count */
            }
            v10_run_result_fini(&r[0]);
            v10_run_result_fini(&r[1]);
        }
    v10_run_config cfg;
    v10_run_config_default(&cfg);
    cfg.tenants = ts;
    cfg.n_tenants = 1;
    cfg.op_states = 1;
    cfg.no_attribution = 1;
    v10_run_result r;
    assert_int_equal(v10_run(&cfg, &r, &err), -1);
    assert_non_null(strstr(err.msg, "no_attribution"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vu_beside_sa_never_waits),
        cmocka_unit_test(test_fcfs_waits_the_others_operators),
        cmocka_unit_test(test_pmt_held_preempted_switch),
        cmocka_unit_test(test_v10_full_preempted_and_switches),
        cmocka_unit_test(test_hbm_lost_to_the_partner),
        cmocka_unit_test(test_hbm_split_over_three),
        cmocka_unit_test(test_idle_between_requests),
        cmocka_unit_test(test_every_policy),
        cmocka_unit_test(test_every_rule_matches_the_traced_one),
        cmocka_unit_test(test_every_rule_matches_on_two_of_each),
        cmocka_unit_test(test_without_attribution_the_run_is_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
