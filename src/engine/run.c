/*
 * run.c — v10_run: loads the tenants' models, sets up and runs the engine
 * under the chosen policy, and hands the counters to the metrics layer.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "metrics/metrics.h"
#include "tenant/horizon.h"
#include "v10/cost.h"
#include "v10/pool.h"

void v10_policy_params_default(v10_policy_params *p)
{
    memset(p, 0, sizeof *p);
    p->slice_cycles = 0;        /* the NPU's (32768 on v10-isca23) */
    p->pmt_slice_us = 1000.0;   /* 1 ms: keeps a 30 µs task switch near 3% */
    p->pmt_share_priority = 1;  /* slices proportional to priority */
    p->prema_drain_frac = 0.25; /* drain if the task ends within 1/4 slice */
}

const char *v10_preempt_name(v10_preempt_model m)
{
    return m == V10_PREEMPT_TILE ? "tile" : "drain";
}

int v10_preempt_parse(const char *s, v10_preempt_model *out)
{
    if (!strcmp(s, "drain"))
        *out = V10_PREEMPT_DRAIN;
    else if (!strcmp(s, "tile"))
        *out = V10_PREEMPT_TILE;
    else
        return -1;
    return 0;
}

void v10_run_config_default(v10_run_config *c)
{
    memset(c, 0, sizeof *c);
    v10_npu_preset("v10-isca23", &c->npu, NULL);
    snprintf(c->policy, sizeof c->policy, "v10-full");
    v10_policy_params_default(&c->params);
    c->requests = 20;
    c->warmup = 2;
    c->seed = 1;
    c->contention = 1;
    c->preempt = V10_PREEMPT_DRAIN; /* the paper's operator preemption */
}

void v10_trace_fini(v10_trace *t)
{
    free(t->recs);
    memset(t, 0, sizeof *t);
}

void v10_run_result_fini(v10_run_result *r)
{
    free(r->tenants);
    free(r->fus);
    memset(r, 0, sizeof *r);
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
    for (; own && loaded < nt; loaded++)
        if (v10_model_load(cfg->tenants[loaded].model, &cfg->npu, &own[loaded], err)) {
            v10_err_prefix(err, "tenant %zu", loaded);
            goto done;
        }
    if (v10_run_check_horizon(cfg, models, err)) /* too long for the 64-bit clock */
        goto done;
    if (v10_engine_alloc(&e, cfg, models, policy->state_size, err))
        goto done;
    v10_progress bar;
    if (cfg->progress) { /* drawn only once the run has lasted 3 s */
        v10_progress_start(&bar, "requests simulated", (size_t)(cfg->requests * nt));
        const char *after = getenv("V10_PROGRESS_AFTER"); /* seconds; tests set 0 */
        bar.quiet_s = after ? atof(after) : 3;
        e.bar = &bar;
    }
    int run_rc = v10_engine_run(&e, cfg, policy, models, err);
    if (cfg->progress)
        v10_progress_end(&bar);
    if (run_rc)
        goto done;
    rc = v10_metrics_compute(&e, models, out, err);
done:
    v10_engine_free(&e);
    for (size_t i = 0; i < loaded; i++)
        v10_model_fini(&own[i]);
    free(own);
    return rc;
}
