/*
 * test_energy.c — energy and power (docs/energy.md): a lone tenant's energy
 * per request is the hand calculation from its operators and the preset's
 * watts; energy is conserved (units and states, static and dynamic, the
 * tenants with the unattributed part) under every policy; power gating
 * saves energy on a mostly idle VU and costs at most its wake-ups in
 * latency; V10-Full spends less per inference than PMT on the paper's
 * EfficientNet + ResNet-50; dynamic energy is per operation (the same
 * request on a larger array or a gang of SAs takes the same, at more
 * power); a lone model on tpuv4-core draws between the preset's idle
 * figure and its measured maximum.
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

/* Runs `policy` with invariant checks (energy's included) on `npu` (a
 * preset, or JSON text when it starts with '{'). */
static void run(const char *policy, const char *const *specs, size_t n, uint64_t requests,
                const char *npu, v10_run_result *res)
{
    static v10_tenant_spec ts[8];
    v10_run_config cfg;
    v10_err err;
    runcfg(&cfg, policy, ts, n, requests, requests / 10);
    if (npu && npu[0] == '{')
        assert_int_equal(v10_npu_from_json(npu, "test", &cfg.npu, &err), 0);
    else if (npu)
        assert_int_equal(v10_npu_resolve(npu, &cfg.npu, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
    assert_int_equal(runcfg_run(&cfg, res), 0);
}

static int close_to(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* Requests completed in the window, all tenants (fractional progress). */
static double requests(const v10_run_result *r, double hz)
{
    double s = (double)(r->window_end - r->window_start), n = 0;
    for (size_t i = 0; i < r->n_tenants; i++)
        n += r->tenants[i].throughput_rps * s / hz;
    return n;
}

/*
 * sa_vu.csv alone on the paper's core: three SA operators of 5000, 7000
 * and 4000 cycles and three VU operators of 3000, 2000 and 3500 (a trace
 * gives whole cycles, issue included), all compute-bound, 3.9 MB of HBM
 * traffic a request.
 * A trace gives no MACs or FLOPs, so an operator is at full activity for
 * its compute cycles, not its issue: its energy is each FU's static power
 * while it holds an operator, its dynamic power at full activity (the
 * energy per MAC times 128 x 128 MACs a cycle, per op times 8 x 128 x 2 ops)
 * over its compute cycles, and the HBM's and the vector memory's energy
 * per byte; the system's adds the idle figure over the request.
 */
static void test_lone_tenant_hand_calculation(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    const double hz = 700e6, sa = 16000, vu = 8500, bytes = 3.9e6;
    const double jb = n.hbm_w_per_gbps * 1e-9 + n.vmem_pj_per_byte * 1e-12;
    const double pd_sa = n.sa_pj_per_mac * 1e-12 * 128 * 128 * hz;
    const double pd_vu = n.vu_pj_per_op * 1e-12 * 8 * 128 * 2 * hz;
    /* NeuSim's TPUv2 per-SA and per-VU dynamic watts, as energies */
    assert_true(close_to(pd_sa, 22.55530667, 1e-9));
    assert_true(close_to(pd_vu, 2 * 2.121728, 1e-9));
    assert_true(close_to(v10_npu_sa_dynamic_w(&n), pd_sa, 1e-12));
    double dyn = (pd_sa * 16000 + pd_vu * 8500) / hz + jb * bytes;
    double held = (n.sa_static_w * sa + n.vu_static_w * vu) / hz + dyn;
    /* The static parts sum to the preset's idle power (NeuSim's rule). */
    double idle = n.sa_static_w + n.vu_static_w + n.vmem_static_w + n.hbm_static_w +
                  n.other_static_w;
    assert_true(close_to(idle, n.idle_w, 1e-6));
    double system = idle * (sa + vu) / hz + dyn;
    const char *s[] = {D "sa_vu.csv"};
    v10_run_result r;
    run("solo", s, 1, 20, NULL, &r);
    assert_true(close_to(r.tenants[0].energy_per_request_j, held, 1e-9));
    assert_true(close_to(1 / r.energy.inferences_per_j, system, 1e-9));
    assert_true(close_to(r.energy.power_w, system / ((sa + vu) / hz), 1e-9));
    /* Alone, it never switches and nothing is gated; the scheduler (V10's
     * hardware) draws nothing under solo. */
    for (int u = 0; u < V10_EN_UNITS; u++) {
        assert_true(r.energy.unit_j[u][V10_EN_SWITCH] == 0);
        assert_true(r.energy.unit_j[u][V10_EN_GATED] == 0);
    }
    v10_run_result_fini(&r);
    /* Under V10-Full it is the same work, plus the scheduler's watts. */
    run("v10-full", s, 1, 20, NULL, &r);
    double sched = n.sched_w * (sa + vu) / hz;
    assert_true(close_to(1 / r.energy.inferences_per_j, system + sched, 1e-9));
    v10_run_result_fini(&r);
}

/* The result's own sums: cells, static + dynamic, tenants + unattributed,
 * power x window. */
static void assert_conserved(const v10_run_result *r)
{
    const v10_energy_result *e = &r->energy;
    double cells = 0, tenants = e->unattributed_j;
    for (int u = 0; u < V10_EN_UNITS; u++)
        for (int s = 0; s < V10_EN_STATES; s++) {
            assert_true(e->unit_j[u][s] >= -1e-12);
            cells += e->unit_j[u][s];
        }
    for (size_t i = 0; i < r->n_tenants; i++) {
        assert_true(r->tenants[i].energy_j >= 0); /* 0: not run in the window (a PMT slice) */
        tenants += r->tenants[i].energy_j;
    }
    assert_true(tenants > e->unattributed_j);
    assert_true(e->total_j > 0 && e->static_j > 0 && e->dynamic_j > 0);
    assert_true(close_to(cells, e->total_j, 1e-12));
    assert_true(close_to(e->static_j + e->dynamic_j, e->total_j, 1e-9));
    assert_true(close_to(tenants, e->total_j, 1e-4));
    double secs = (double)(r->window_end - r->window_start) / 700e6;
    assert_true(close_to(e->power_w * secs, e->total_j, 1e-12));
    assert_true(close_to(e->inferences_per_j * e->total_j, requests(r, 700e6), 1e-9));
}

static void test_conservation_every_policy(void **state)
{
    (void)state;
    const char *mixes[][3] = {{D "sa_vu.csv", D "vu_heavy.csv", NULL},
                              {D "sa_heavy.csv", D "membound.csv", D "vu_heavy.csv:rate=2000"}};
    const char *npus[] = {NULL, "{\"pg_idle_cycles\": 500}", "v10-isca23-2x"};
    for (size_t p = 0; p < v10_policy_count(); p++) {
        const char *name = v10_policy_name(v10_policy_at(p));
        if (!strcmp(name, "solo"))
            continue;
        for (size_t m = 0; m < 2; m++)
            for (size_t k = 0; k < 3; k++) {
                v10_run_result r;
                run(name, mixes[m], mixes[m][2] ? 3 : 2, 10, npus[k], &r);
                assert_conserved(&r);
                v10_run_result_fini(&r);
            }
    }
}

/*
 * sa_heavy.csv keeps the SA busy and the VU idle but for an 800-cycle pool
 * a request: gated after 1000 idle cycles, the VU saves nearly all of its
 * static power less its wake-ups, and each request waits at most one
 * wake-up per operator (here exactly one, the VU's: the SA is never idle
 * that long).
 */
static void test_power_gating(void **state)
{
    (void)state;
    const char *s[] = {D "sa_heavy.csv"};
    v10_run_result off, on;
    run("solo", s, 1, 20, NULL, &off);
    run("solo", s, 1, 20, "{\"pg_idle_cycles\": 1000, \"pg_wake_cycles\": 10}", &on);
    const double *a = off.energy.unit_j[V10_EN_VU], *b = on.energy.unit_j[V10_EN_VU];
    assert_true(b[V10_EN_GATED] > 0 && a[V10_EN_GATED] == 0);
    assert_true(b[V10_EN_IDLE] + b[V10_EN_GATED] < 0.2 * (a[V10_EN_IDLE] + a[V10_EN_GATED]));
    assert_true(on.energy.total_j < off.energy.total_j);
    assert_true(on.energy.inferences_per_j > off.energy.inferences_per_j);
    /* The SA is never gated. */
    assert_true(on.energy.unit_j[V10_EN_SA][V10_EN_GATED] == 0);
    double wake_us = 10 / 700.0;
    double d = on.tenants[0].lat_avg_us - off.tenants[0].lat_avg_us;
    assert_true(d > 0 && d <= 4 * wake_us + 1e-9);
    assert_true(fabs(d - wake_us) < 1e-9);
    assert_conserved(&on);
    v10_run_result_fini(&off);
    v10_run_result_fini(&on);
    /* A threshold no idle interval reaches changes nothing. */
    run("solo", s, 1, 20, NULL, &off);
    run("solo", s, 1, 20, "{\"pg_idle_cycles\": 1000000000}", &on);
    assert_true(on.energy.total_j == off.energy.total_j);
    assert_true(on.tenants[0].lat_avg_us == off.tenants[0].lat_avg_us);
    v10_run_result_fini(&off);
    v10_run_result_fini(&on);
}

/* The paper's pair: sharing the core spends the static power on more work. */
static void test_v10_full_below_pmt(void **state)
{
    (void)state;
    const char *s[] = {"isca23/efficientnet", "isca23/resnet50"};
    v10_run_result pmt, full;
    run("pmt", s, 2, 20, NULL, &pmt);
    run("v10-full", s, 2, 20, NULL, &full);
    double e_pmt = 1 / pmt.energy.inferences_per_j, e_full = 1 / full.energy.inferences_per_j;
    assert_true(e_full < 0.9 * e_pmt);
    /* It draws more power, for less time per inference. */
    assert_true(full.energy.power_w > pmt.energy.power_w);
    /* PMT's task switches move state through HBM; V10's do not. */
    assert_true(pmt.energy.unit_j[V10_EN_HBM][V10_EN_SWITCH] > 0);
    assert_true(full.energy.unit_j[V10_EN_HBM][V10_EN_SWITCH] == 0);
    assert_conserved(&pmt);
    assert_conserved(&full);
    v10_run_result_fini(&pmt);
    v10_run_result_fini(&full);
}

/*
 * Dynamic energy is per operation: ResNet-50 alone on tpuv4-core with one
 * 128 x 128 SA per operator, with one 256 x 256 SA per operator (the same
 * energy per MAC) and with each operator over the four SAs (the preset's
 * "all") does the same MACs, VU ops and HBM bytes a request, so the same
 * dynamic energy a request, to rounding; the larger array and the gang
 * take fewer cycles for it, so they draw more power.  A lone model on
 * tpuv4-core draws between the preset's idle figure and its measured
 * maximum.
 */
static void test_energy_per_operation(void **state)
{
    (void)state;
    const char *g[] = {"resnet50"};
    const char *npus[3] = {"{\"base\": \"tpuv4-core\", \"op_mapping\": \"one\"}",
                           "{\"base\": \"tpuv4-core\", \"op_mapping\": \"one\", "
                           "\"sa_rows\": 256, \"sa_cols\": 256}",
                           "tpuv4-core"};
    double per[3], power[3];
    for (int k = 0; k < 3; k++) {
        v10_run_result r;
        run("solo", g, 1, 10, npus[k], &r);
        per[k] = r.energy.dynamic_j / requests(&r, 1050e6);
        power[k] = r.energy.power_w;
        v10_run_result_fini(&r);
    }
    assert_true(close_to(per[1], per[0], 1e-6));
    assert_true(close_to(per[2], per[0], 1e-6));
    assert_true(power[1] > power[0] && power[2] > power[0]);
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset("tpuv4-core", &n, &err), 0);
    assert_true(n.max_w == 96 && n.idle_w == 45);
    const char *models[] = {"isca23/resnet50", "isca23/efficientnet", "isca23/bert"};
    for (size_t i = 0; i < 3; i++) {
        v10_run_result r;
        run("solo", &models[i], 1, 10, "tpuv4-core", &r);
        assert_true(r.energy.power_w > n.idle_w && r.energy.power_w <= n.max_w);
        v10_run_result_fini(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_tenant_hand_calculation),
        cmocka_unit_test(test_conservation_every_policy),
        cmocka_unit_test(test_power_gating),
        cmocka_unit_test(test_v10_full_below_pmt),
        cmocka_unit_test(test_energy_per_operation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
