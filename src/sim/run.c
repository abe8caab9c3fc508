/*
 * run.c — v10_run, one simulation: checks the configuration, loads the
 * tenants' models (unless the caller gives them), refuses runs too long for
 * the clock (horizon.h), runs the engine under the chosen policy with its
 * stall guard, and hands the counters to the metrics layer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "metrics/metrics.h"
#include "sim/horizon.h"
#include "v10/pool.h"

/* The stall guard: the estimate (horizon.h), stretched by how small a
 * share the least-favoured tenant may get, plus a million cycles so that
 * tiny runs are never cut short. */
static uint64_t stall_cycle(const v10_run_config *cfg, const v10_model *models,
                            const v10_llm_tenant *llm)
{
    double psum = 0, pmin = INFINITY;
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        psum += cfg->tenants[i].priority;
        pmin = fmin(pmin, cfg->tenants[i].priority);
    }
    double stall = V10_STALL_FACTOR * (1 + psum / pmin) * v10_run_estimate_cycles(cfg, models, llm);
    return stall < 0x1p62 ? (uint64_t)stall + 1000000 : 1ull << 62;
}

int v10_run(const v10_run_config *cfg, v10_run_result *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    const v10_policy_ops *policy = v10_policy_find(cfg->policy);
    if (!policy)
        return v10_err_set(err, "unknown policy '%s' (see 'v10sim policies')", cfg->policy);
    if (cfg->n_tenants == 0)
        return v10_err_set(err, "no tenants: give at least one --tenant");
    if (cfg->n_tenants > V10_MAX_TENANTS)
        return v10_err_set(err, "%zu tenants: at most %d", cfg->n_tenants, V10_MAX_TENANTS);
    if (cfg->requests == 0)
        return v10_err_set(err, "requests: must be at least 1");
    if (cfg->warmup >= cfg->requests)
        return v10_err_set(err, "warmup (%llu) must be less than requests (%llu)",
                           (unsigned long long)cfg->warmup, (unsigned long long)cfg->requests);
    for (size_t i = 0; i < cfg->n_tenants; i++) /* else its window never opens */
        if (cfg->tenants[i].llm_requests && cfg->tenants[i].llm_requests <= cfg->warmup)
            return v10_err_set(err, "tenant %zu (%s): requests=%llu must exceed --warmup %llu",
                               i, cfg->tenants[i].model,
                               (unsigned long long)cfg->tenants[i].llm_requests,
                               (unsigned long long)cfg->warmup);
    if (v10_npu_validate(&cfg->npu, err))
        return -1;
    size_t nt = cfg->n_tenants;
    v10_model *own = NULL; /* the models this call loads, if the caller gave none */
    const v10_model *models = cfg->models;
    if (!models && !(models = own = calloc(nt, sizeof *own)))
        return v10_err_set(err, "out of memory");
    int rc = -1;
    size_t loaded = 0;
    v10_engine e;
    memset(&e, 0, sizeof e);
    v10_llm_tenant *llm = calloc(nt, sizeof *llm); /* LLM servers' inputs; n == 0 others */
    if (!llm) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (; own && loaded < nt; loaded++)
        if (v10_tenant_model_load(&cfg->tenants[loaded], &cfg->npu, &own[loaded], err)) {
            v10_err_prefix(err, "tenant %zu", loaded);
            goto done;
        }
    for (size_t i = 0; i < nt; i++)
        if (cfg->tenants[i].llm &&
            v10_llm_tenant_load(&llm[i], &cfg->tenants[i], &cfg->npu, nt, i, cfg->requests,
                                cfg->seed, err)) {
            v10_err_prefix(err, "tenant %zu", i);
            goto done;
        }
    if (v10_run_check_horizon(cfg, models, llm, err)) /* too long for the 64-bit clock */
        goto done;
    if (v10_engine_alloc(&e, cfg, models, policy->state_size, err))
        goto done;
    e.llm = llm;
    v10_progress bar;
    if (cfg->progress) { /* drawn only once the run has lasted 3 s */
        v10_progress_start(&bar, "requests simulated", (size_t)(cfg->requests * nt));
        const char *after = getenv("V10_PROGRESS_AFTER"); /* seconds; tests set 0 */
        bar.quiet_s = after ? atof(after) : 3;
        e.bar = &bar;
    }
    int run_rc = v10_engine_run(&e, cfg, policy, models, stall_cycle(cfg, models, llm),
                                err);
    if (cfg->progress)
        v10_progress_end(&bar);
    if (run_rc)
        goto done;
    rc = v10_metrics_compute(&e, models, out, err);
done:
    v10_engine_free(&e);
    for (size_t i = 0; llm && i < nt; i++)
        v10_llm_tenant_fini(&llm[i]);
    free(llm);
    for (size_t i = 0; i < loaded; i++)
        v10_model_fini(&own[i]);
    free(own);
    return rc;
}
