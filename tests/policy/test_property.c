/*
 * test_property.c — property-style test: random configurations drawn from a
 * fixed master seed (tenant mixes of zoo models and trace CSVs with small
 * batches, priorities, closed-loop or Poisson arrivals; every registered
 * policy; every NPU preset; contention on or off; random time slices and
 * seeds) all run with the engine's invariant checks on (cfg.check: a broken
 * invariant aborts), and every result obeys the metric invariants below.
 * PROPERTY_RUNS overrides the number of configurations (default 80);
 * PROPERTY_FIRST=k skips (draws but does not run) the configurations before k.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "v10/sim.h"

#define MASTER_SEED 0x5eed10ull
#define MAX_T 4

/* Small enough that 80 runs take seconds under ASan. */
static const char *const models[] = {
    "mnist", "ncf", "dlrm", "bert", "resnet50", "efficientnet", "transformer", "vit",
    "tests/data/engine/sa_vu.csv", "tests/data/engine/vu_heavy.csv",
    "tests/data/engine/sa_heavy.csv", "tests/data/engine/membound.csv",
};
#define N_MODELS (sizeof models / sizeof models[0])

static uint64_t pick(uint64_t *rng, uint64_t n) { return v10_rng_next(rng) % n; }

static int is_zoo(const char *m) { return !strchr(m, '/'); }

/* Draws configuration k into cfg and ts; describes it in desc. */
static void draw(uint64_t *rng, v10_run_config *cfg, v10_tenant_spec *ts, char *desc,
                 size_t cap)
{
    v10_run_config_default(cfg);
    const v10_policy_ops *pol = v10_policy_at(pick(rng, v10_policy_count()));
    snprintf(cfg->policy, sizeof cfg->policy, "%s", v10_policy_name(pol));
    size_t n_presets = 0;
    while (v10_npu_preset_names[n_presets])
        n_presets++;
    const char *npu = v10_npu_preset_names[pick(rng, n_presets)];
    assert_int_equal(v10_npu_preset(npu, &cfg->npu, NULL), 0);
    size_t nt = strcmp(cfg->policy, "solo") ? 1 + pick(rng, MAX_T) : 1;
    int len = snprintf(desc, cap, "%s on %s:", cfg->policy, npu);
    for (size_t i = 0; i < nt; i++) {
        char spec[256];
        const char *m = models[pick(rng, N_MODELS)];
        int n = snprintf(spec, sizeof spec, "%s", m);
        if (is_zoo(m))
            n += snprintf(spec + n, sizeof spec - (size_t)n, ":batch=%u",
                          1u << pick(rng, 3)); /* 1, 2 or 4 */
        n += snprintf(spec + n, sizeof spec - (size_t)n, ":priority=%g",
                      (double)(1 + pick(rng, 8)) / 2);
        if (pick(rng, 3) == 0) /* a third are open loop */
            snprintf(spec + n, sizeof spec - (size_t)n, ":rate=%llu",
                     (unsigned long long)(50 + pick(rng, 5000)));
        else if (pick(rng, 3) == 0)
            snprintf(spec + n, sizeof spec - (size_t)n, ":outstanding=%u",
                     (unsigned)(1 + pick(rng, 3)));
        v10_err err;
        if (v10_tenant_spec_parse(spec, &ts[i], &err))
            fail_msg("%s", err.msg);
        len += snprintf(desc + len, cap - (size_t)len, " %s", spec);
    }
    cfg->tenants = ts;
    cfg->n_tenants = nt;
    cfg->requests = 2 + pick(rng, 5);
    cfg->warmup = pick(rng, 2);
    cfg->seed = v10_rng_next(rng);
    cfg->contention = pick(rng, 4) != 0;
    cfg->check = 1;
    if (pick(rng, 2))
        cfg->params.slice_cycles = 512ull << pick(rng, 8);
    cfg->params.pmt_share_priority = (int)pick(rng, 2);
    snprintf(desc + len, cap - (size_t)len,
             "; --requests %llu --warmup %llu --seed %llu%s --slice-cycles %llu "
             "--pmt-share %s", (unsigned long long)cfg->requests,
             (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed,
             cfg->contention ? "" : " --no-contention",
             (unsigned long long)cfg->params.slice_cycles,
             cfg->params.pmt_share_priority ? "priority" : "equal");
}

#define CHECK(cond) \
    do { if (!(cond)) fail_msg("config %d (%s): %s", k, desc, #cond); } while (0)

static void random_configs(void **state)
{
    (void)state;
    const char *env = getenv("PROPERTY_RUNS");
    int runs = env ? atoi(env) : 80;
    const char *first_env = getenv("PROPERTY_FIRST");
    int first = first_env ? atoi(first_env) : 0;
    uint64_t rng = MASTER_SEED;
    int refused = 0;
    for (int k = 0; k < runs; k++) {
        v10_run_config cfg;
        v10_tenant_spec ts[MAX_T];
        char desc[2048];
        draw(&rng, &cfg, ts, desc, sizeof desc);
        if (k < first)
            continue;
        v10_run_result r;
        v10_err err;
        if (v10_run(&cfg, &r, &err)) {
            /* The documented refusals (docs/limits.md): an open-loop
             * tenant offered more than it is served leaves others no
             * progress (the event budget stops the run) or grows its queue
             * without bound.  (Spatial partitioning has an allocation for
             * every mix.) */
            int open_loop = 0;
            for (size_t i = 0; i < cfg.n_tenants; i++)
                open_loop |= ts[i].rate_rps > 0;
            int ok = open_loop && (strstr(err.msg, "run too long") ||
                                   strstr(err.msg, "without bound"));
            if (!ok)
                fail_msg("config %d (%s): %s", k, desc, err.msg);
            refused++;
            continue;
        }
        CHECK(r.n_tenants == cfg.n_tenants);
        double eps = 1e-9;
        CHECK(r.util_sa >= 0 && r.util_sa <= 1 + eps);
        CHECK(r.util_vu >= 0 && r.util_vu <= 1 + eps);
        CHECK(r.util_hbm >= 0); /* without contention HBM demand may exceed the bandwidth */
        if (cfg.contention)
            CHECK(r.util_hbm <= 1 + eps);
        CHECK(r.overlap >= 0 && r.overlap <= 1 + eps);
        /* With one SA and one VU, both busy at once implies each busy. */
        if (cfg.npu.sa_count == 1 && cfg.npu.vu_count == 1 && strcmp(cfg.policy, "spatial"))
            CHECK(r.overlap <= fmin(r.util_sa, r.util_vu) + eps);
        CHECK(r.window_start <= r.window_end && r.window_end <= r.end_cycle);
        if (!(r.stp >= 0 && isfinite(r.stp)))
            fail_msg("config %d (%s): STP %g", k, desc, r.stp);
        CHECK(r.fairness >= 0 && r.fairness <= 1 + eps); /* an open-loop tenant may make no progress in a short window */
        CHECK(r.jain >= 0 && r.jain <= 1 + eps);
        for (size_t i = 0; i < r.n_tenants; i++) {
            const v10_tenant_result *t = &r.tenants[i];
            CHECK(t->completed >= cfg.requests); /* each reaches its count; some keep going */
            CHECK(t->alone_cycles > 0);
            CHECK(t->np >= 0 && isfinite(t->np));
            /* No request completed inside the window (a window shorter
             * than a PMT slice, say): latency is undefined, NaN. */
            if (isnan(t->lat_avg_us)) {
                CHECK(isnan(t->lat_p50_us) && isnan(t->lat_p95_us) && isnan(t->lat_p99_us));
                continue;
            }
            CHECK(t->lat_p50_us <= t->lat_p95_us + eps && t->lat_p95_us <= t->lat_p99_us + eps);
            CHECK(t->lat_avg_us > 0);
        }
        for (size_t f = 0; f < r.n_fus; f++)
            CHECK(r.fus[f].exec_cycles + r.fus[f].switch_cycles <= r.end_cycle);
        if (cfg.n_tenants == 1 && !strcmp(cfg.policy, "solo"))
            CHECK(r.preemptions == 0);
        v10_run_result_fini(&r);
    }
    print_message("%d random configurations, %d refused (overload)\n", runs, refused);
    assert_true(refused < runs / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
