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

/*
 * The event budget, checked on the run itself (docs/limits.md "Work"): at
 * check_at events the run's progress is the least progress of its tenants
 * (a closed loop: requests done toward its count, with the work done of
 * the one in flight; an open loop or an LLM server: simulated time over
 * its arrival span; with no progress at all, simulated time over the
 * expected length).  The events still to come are extrapolated at the
 * rate of the last interval between checks (the first: since the start),
 * so a tenant starved since the last check makes the estimate infinite;
 * a run estimated past the budget stops there.  Otherwise the next check
 * comes at twice the events, up to the budget.
 */
typedef struct event_check {
    const v10_run_config *cfg;
    const v10_llm_tenant *llm;
    double budget;           /* events */
    double T;                /* expected length, cycles (horizon.h) */
    double estimate;         /* the latest extrapolation; 0 before the first */
    double first;            /* the first (the run's events_estimated) */
    double last_events, last_f; /* at the previous check */
} event_check;

/* The fraction of its count tenant i has done, in [0, 1]. */
static double tenant_progress(const v10_engine *e, int i, const event_check *c, double hz)
{
    const tenant *t = &e->tenants[i];
    const v10_tenant_spec *sp = &c->cfg->tenants[i];
    double need = fmax(1, (double)t->n_requests);
    if (c->llm && c->llm[i].n)
        return c->llm[i].span_cycles > 0 ? fmin(1, (double)e->now / c->llm[i].span_cycles) : 1;
    if (sp->rate_rps > 0) /* its arrivals pace it */
        return fmin(1, (double)e->now / (need / sp->rate_rps * hz));
    double done = (double)eng_done_count(t);
    if (t->req_work) {
        double w = t->req_done_work;
        if (t->fu >= 0) /* the operator running now, so far */
            w += fmax(0, t->remaining - eng_rem_now(e, &e->fus[t->fu]));
        done += fmin(1, w / (double)t->req_work);
    }
    return fmin(1, done / need);
}

static int check_events(v10_engine *e, void *ctx, v10_err *err)
{
    event_check *c = ctx;
    double hz = c->cfg->npu.clock_mhz * 1e6, f = 1, events = (double)e->events;
    for (int i = 0; i < e->n_tenants; i++)
        f = fmin(f, tenant_progress(e, i, c, hz));
    if (!(f > 0))
        f = fmin(1, (double)e->now / fmax(1, c->T));
    c->estimate = f >= 1 ? events
                  : f > c->last_f
                      ? events + (1 - f) * (events - c->last_events) / (f - c->last_f)
                      : INFINITY;
    c->last_events = events;
    c->last_f = f;
    if (!(c->first > 0))
        c->first = c->estimate;
    if (c->estimate > c->budget)
        return v10_err_set(err, "run too long: about %.3g events estimated from its progress "
                                "after %.3g events (%.3g s simulated so far), about %.2g min at "
                                "the engine's %.0f million events/s (docs/benchmarks.md), over "
                                "the budget of %.3g events; use fewer requests, higher rates "
                                "of open-loop tenants, closer priorities or longer slices, or "
                                "raise the budget with --max-events (docs/limits.md)",
                           c->estimate, events, (double)e->now / hz,
                           c->estimate / V10_EVENTS_PER_S / 60, V10_EVENTS_PER_S / 1e6,
                           c->budget);
    e->check_at = (double)(2 * e->check_at) < c->budget ? 2 * e->check_at : (uint64_t)c->budget;
    return 0;
}

/* The run's inputs: its tenants' models (cfg->models, or those loaded
 * into `own`) and LLM servers' inputs (n == 0 for others). */
typedef struct inputs {
    const v10_model *models;
    v10_model *own;
    size_t loaded;
    v10_llm_tenant *llm;
} inputs;

static void inputs_free(inputs *in, size_t nt)
{
    for (size_t i = 0; in->llm && i < nt; i++)
        v10_llm_tenant_fini(&in->llm[i]);
    free(in->llm);
    for (size_t i = 0; i < in->loaded; i++)
        v10_model_fini(&in->own[i]);
    free(in->own);
    memset(in, 0, sizeof *in);
}

/* Loads cfg's inputs into *in (free with inputs_free, also after a
 * failure); 0, or -1 with err set. */
static int inputs_load(const v10_run_config *cfg, inputs *in, v10_err *err)
{
    size_t nt = cfg->n_tenants;
    memset(in, 0, sizeof *in);
    in->models = cfg->models;
    if (!in->models && !(in->models = in->own = calloc(nt, sizeof *in->own)))
        return v10_err_set(err, "out of memory");
    if (!(in->llm = calloc(nt, sizeof *in->llm)))
        return v10_err_set(err, "out of memory");
    /* Models loaded here are the run's alone: an isca23 model need not be
     * costed for this NPU (v10_model_load_run), given ones are. */
    for (; in->own && in->loaded < nt; in->loaded++) {
        const v10_tenant_spec *sp = &cfg->tenants[in->loaded];
        v10_model *m = &in->own[in->loaded];
        if (sp->llm ? v10_tenant_model_load(sp, &cfg->npu, m, err)
                    : v10_model_load_run(sp->model, &cfg->npu, m, err))
            return v10_err_prefix(err, "tenant %zu", in->loaded);
    }
    for (size_t i = 0; i < nt; i++)
        if (cfg->tenants[i].llm &&
            v10_llm_tenant_load(&in->llm[i], cfg->tenants, nt, i, &cfg->npu, cfg->requests,
                                cfg->seed, err))
            return v10_err_prefix(err, "tenant %zu", i);
    return 0;
}

double v10_run_estimate_work(const v10_run_config *cfg)
{
    inputs in = {0};
    v10_err err;
    double events = 0, T;
    if (cfg->n_tenants && cfg->n_tenants <= V10_MAX_TENANTS && cfg->requests &&
        !v10_npu_validate(&cfg->npu, &err) && !inputs_load(cfg, &in, &err))
        events = v10_run_estimate_events(cfg, in.models, in.llm, &T);
    inputs_free(&in, cfg->n_tenants);
    return events > 0 && isfinite(events) ? events : 0;
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
    if (cfg->op_states && cfg->no_attribution)
        return v10_err_set(err, "op_states: attribution per operator needs attribution "
                                "(no_attribution is set)");
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
    int rc = -1;
    v10_engine e;
    memset(&e, 0, sizeof e);
    inputs in;
    if (inputs_load(cfg, &in, err))
        goto done;
    const v10_model *models = in.models;
    v10_llm_tenant *llm = in.llm;
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
    event_check chk = {cfg, llm, cfg->max_events ? (double)cfg->max_events : V10_EVENT_BUDGET,
                       0, 0, 0, 0, 0};
    v10_run_estimate_events(cfg, models, llm, &chk.T);
    e.check = check_events;
    e.check_ctx = &chk;
    /* the first check early (a quarter of the budget at most), so that a
     * run refused costs little */
    e.check_at = (uint64_t)fmin(V10_EVENT_CHECK, fmax(1, chk.budget / 4));
    int run_rc = v10_engine_run(&e, cfg, policy, models, stall_cycle(cfg, models, llm),
                                err);
    if (cfg->progress) {
        if (!run_rc) /* every tenant reached its count */
            bar.done = bar.total;
        v10_progress_end(&bar);
    }
    if (run_rc)
        goto done;
    rc = v10_metrics_compute(&e, models, out, err);
    /* a run shorter than the first check is its own estimate */
    if (!rc)
        out->events_estimated = chk.first > 0 ? chk.first : (double)out->events;
done:
    v10_engine_free(&e);
    inputs_free(&in, nt);
    return rc;
}
