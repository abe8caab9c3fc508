/*
 * run.c — v10_run, one simulation: checks the configuration, loads the
 * tenants' models (unless the caller gives them), refuses runs too long for
 * the clock (horizon.h), runs the engine under the chosen policy within
 * its event budget, and hands the counters to the metrics layer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "metrics/metrics.h"
#include "sim/horizon.h"
#include "v10/pool.h"

/*
 * The event budget and progress, checked on the run itself (docs/limits.md
 * "Work").  The run's progress is the least progress of its tenants, the
 * one that decides when it ends (a closed loop: requests done toward its
 * count, with the work done of the one in flight; an open loop or an LLM
 * server: simulated time over its arrival span; with no progress at all,
 * simulated time over the expected length).
 *
 * Estimates: at est_at events the events still to come are extrapolated
 * at the rate of the last interval between estimates (the first: since
 * the start), so a tenant that made no progress since the last estimate
 * makes the estimate infinite; a run estimated past the budget stops
 * there.  The next estimate comes at twice the events.  The budget itself
 * is a ceiling: a run that reaches it unfinished stops there, whatever
 * was estimated before, so no configuration runs for ever.
 *
 * Progress: with a bar or an on_progress hook, the check also runs every
 * V10_PROGRESS_EVENTS events and reports the progress.  The engine calls
 * check_events when its event count reaches e->check_at; every call sets
 * a later one (the next of: an estimate, a progress report, the budget).
 */
#define V10_PROGRESS_EVENTS 65536

typedef struct event_check {
    const v10_run_config *cfg;
    const v10_llm_tenant *llm;
    uint64_t budget;         /* events */
    uint64_t est_at;         /* the events at which the next estimate is due */
    double T;                /* expected length, cycles (horizon.h) */
    double estimate;         /* the latest extrapolation; 0 before the first */
    double first;            /* the first (the run's events_estimated) */
    double last_events, last_f; /* at the previous estimate */
    int slowest;             /* the tenant of least progress at the last check */
    double progress;         /* the run's progress at the last check, in [0, 1] */
    int report;              /* report progress (bar or hook) every V10_PROGRESS_EVENTS */
    v10_progress *bar;       /* the run's own bar, or NULL */
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

/* The run's progress (see above) into c->progress and c->slowest. */
static void run_progress(const v10_engine *e, event_check *c)
{
    double hz = c->cfg->npu.clock_mhz * 1e6, f = 1;
    c->slowest = 0;
    for (int i = 0; i < e->n_tenants; i++) {
        double fi = tenant_progress(e, i, c, hz);
        if (fi < f) {
            f = fi;
            c->slowest = i;
        }
    }
    c->progress = f;
}

/* Reports the run's progress to the hook or the bar. */
static void report(const v10_engine *e, const event_check *c)
{
    const v10_run_config *cfg = c->cfg;
    if (cfg->on_progress)
        cfg->on_progress(cfg->progress_ctx, c->progress);
    if (!c->bar)
        return;
    uint64_t done = 0, total = 0; /* requests, each tenant's up to its count */
    for (int i = 0; i < e->n_tenants; i++) {
        uint64_t d = eng_done_count(&e->tenants[i]), n = e->tenants[i].n_requests;
        done += d < n ? d : n;
        total += n; /* an LLM server's is its trace's, not --requests */
    }
    c->bar->total = (size_t)total;
    c->bar->work_done = c->progress;
    v10_progress_step(c->bar, (size_t)done);
}

/* err = "run too long: WHY (the run's state); what to change". */
static int too_long(const v10_engine *e, const event_check *c, const char *why, v10_err *err)
{
    double hz = c->cfg->npu.clock_mhz * 1e6;
    int i = c->slowest;
    return v10_err_set(err, "run too long: %s (%.3g s simulated; the slowest, tenant %d (%s), "
                            "%.1f%% done); use fewer requests, higher rates of open-loop "
                            "tenants, closer priorities or longer slices, or raise the budget "
                            "with --max-events (docs/limits.md)",
                       why, (double)e->now / hz, i, c->cfg->tenants[i].model,
                       floor(1000 * c->progress) / 10); /* unfinished: never "100.0" */
}

static int check_events(v10_engine *e, void *ctx, v10_err *err)
{
    event_check *c = ctx;
    uint64_t events = e->events;
    run_progress(e, c);
    if (c->report)
        report(e, c);
    char why[320];
    if (events >= c->est_at) {
        double f = c->progress, ev = (double)events;
        if (!(f > 0))
            f = fmin(1, (double)e->now / fmax(1, c->T));
        c->estimate = f >= 1 ? ev
                      : f > c->last_f ? ev + (1 - f) * (ev - c->last_events) / (f - c->last_f)
                                      : INFINITY;
        if (!(c->first > 0))
            c->first = c->estimate;
        if (c->estimate > (double)c->budget) {
            if (isinf(c->estimate)) /* no progress since the last estimate */
                snprintf(why, sizeof why, "about inf events estimated from its progress after "
                                          "%.3g events (none since %.3g events), over the "
                                          "budget of %llu events", ev, c->last_events,
                         (unsigned long long)c->budget);
            else
                snprintf(why, sizeof why, "about %.3g events estimated from its progress after "
                                          "%.3g events, about %.2g min at the engine's %.0f "
                                          "million events/s (docs/benchmarks.md), over the "
                                          "budget of %llu events", ceil(c->estimate), ev,
                         c->estimate / V10_EVENTS_PER_S / 60, V10_EVENTS_PER_S / 1e6,
                         (unsigned long long)c->budget);
            return too_long(e, c, why, err);
        }
        c->last_events = ev;
        c->last_f = f;
        c->est_at = events <= UINT64_MAX / 2 ? 2 * events : UINT64_MAX;
    }
    if (events >= c->budget && e->n_done < e->n_tenants) {
        snprintf(why, sizeof why, "it reached the budget of %llu events unfinished",
                 (unsigned long long)c->budget);
        return too_long(e, c, why, err);
    }
    uint64_t next = c->est_at < c->budget ? c->est_at : c->budget;
    if (c->report && events + V10_PROGRESS_EVENTS < next)
        next = events + V10_PROGRESS_EVENTS;
    e->check_at = next > events ? next : events + 1;
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
 * failure); 0, or -1 with err set.  A chip runs `per` of the tenants
 * (every chip simulated: tenant i is chip i / per's shard of tenant
 * i % per, whose HBM and vector memory it shares with its chip's only). */
static int inputs_load(const v10_run_config *cfg, size_t per, inputs *in, v10_err *err)
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
            v10_llm_tenant_load(&in->llm[i], cfg->tenants, per, i % per, &cfg->npu,
                                cfg->requests, cfg->seed, err))
            return v10_err_prefix(err, "tenant %zu", i);
    return 0;
}

double v10_run_estimate_work(const v10_run_config *cfg)
{
    inputs in = {0};
    v10_err err;
    double events = 0, T;
    if (cfg->n_tenants && cfg->n_tenants <= V10_MAX_TENANTS && cfg->requests &&
        !v10_npu_validate(&cfg->npu, &err) && !inputs_load(cfg, cfg->n_tenants, &in, &err))
        events = v10_run_estimate_events(cfg, in.models, in.llm, &T);
    inputs_free(&in, cfg->n_tenants);
    return events > 0 && isfinite(events) ? events : 0;
}

/*
 * Every chip simulated (cfg->every_chip, docs/llm.md "Every chip"): x is
 * cfg with every chip's shard of every tenant, chip by chip (chip c's
 * tenant i at c x n + i, its model and spec tenant i's), in arrays the
 * caller frees (*specs, *models).  Refused where one chip's decisions
 * would reach the others': a policy that grants the NPU to one tenant at a
 * time (may_run), op_mapping "alloc"/"harvest" (allocations over the
 * tenants of every chip), per-operator attribution; attribution is off
 * (its HBM partners would span chips).
 */
static int every_chip(const v10_run_config *cfg, const v10_policy_ops *policy,
                      v10_run_config *x, v10_tenant_spec **specs, v10_model **models,
                      v10_err *err)
{
    size_t n = cfg->n_tenants, chips = cfg->npu.chips;
    if (chips < 2)
        return v10_err_set(err, "every_chip: NPU '%s' has one chip (chips = 1): nothing to "
                                "simulate beside it", cfg->npu.name);
    if (policy->may_run)
        return v10_err_set(err, "every_chip: policy %s grants the NPU to one tenant at a "
                                "time, which would hold the other chips' shards at every "
                                "collective: simulate one chip", policy->name);
    if (cfg->npu.op_mapping >= V10_MAP_ALLOC)
        return v10_err_set(err, "every_chip: op_mapping \"%s\" allocates engines over every "
                                "chip's tenants: use \"one\" or \"all\"",
                           v10_op_mapping_name(cfg->npu.op_mapping));
    if (cfg->op_states)
        return v10_err_set(err, "every_chip: attribution is not kept (op_states)");
    for (size_t i = 0; i < n; i++)
        if (cfg->tenants[i].pp > 1)
            return v10_err_set(err, "every_chip: tenant %zu (%s) is a pipeline of %u stages, "
                                    "which every chip does not simulate (each chip would "
                                    "run its own stage): simulate one chip", i,
                               cfg->tenants[i].model, cfg->tenants[i].pp);
    if (n * chips > V10_MAX_TENANTS)
        return v10_err_set(err, "every_chip: %zu tenants on %zu chips are %zu shards: at most %d",
                           n, chips, n * chips, V10_MAX_TENANTS);
    *x = *cfg;
    x->n_tenants = n * chips;
    x->no_attribution = 1;
    *specs = calloc(n * chips, sizeof **specs);
    *models = cfg->models ? calloc(n * chips, sizeof **models) : NULL;
    if (!*specs || (cfg->models && !*models))
        return v10_err_set(err, "out of memory");
    for (size_t i = 0; i < n * chips; i++) {
        (*specs)[i] = cfg->tenants[i % n];
        if (cfg->models)
            (*models)[i] = cfg->models[i % n]; /* borrowed: the caller's arrays */
    }
    x->tenants = *specs;
    x->models = *models;
    return 0;
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
    size_t per = cfg->n_tenants; /* tenants a chip runs */
    v10_run_config xcfg;
    v10_tenant_spec *xspecs = NULL;
    v10_model *xmodels = NULL;
    int rc = -1;
    v10_engine e;
    memset(&e, 0, sizeof e);
    inputs in;
    memset(&in, 0, sizeof in);
    if (cfg->every_chip) {
        if (every_chip(cfg, policy, &xcfg, &xspecs, &xmodels, err))
            goto done;
        cfg = &xcfg;
    }
    size_t nt = cfg->n_tenants;
    if (inputs_load(cfg, per, &in, err))
        goto done;
    const v10_model *models = in.models;
    v10_llm_tenant *llm = in.llm;
    if (v10_run_check_horizon(cfg, models, llm, err)) /* too long for the 64-bit clock */
        goto done;
    if (v10_engine_alloc(&e, cfg, models, policy->state_size, err))
        goto done;
    e.llm = llm;
    v10_progress bar;
    event_check chk = {.cfg = cfg, .llm = llm, .report = cfg->progress || cfg->on_progress};
    chk.budget = cfg->max_events ? cfg->max_events : (uint64_t)V10_EVENT_BUDGET;
    if (cfg->progress && !cfg->on_progress) { /* drawn only once the run has lasted 3 s */
        v10_progress_start(&bar, "requests simulated", (size_t)(cfg->requests * nt));
        const char *after = getenv("V10_PROGRESS_AFTER"); /* seconds; tests set 0 */
        bar.quiet_s = after ? atof(after) : 3;
        bar.work_total = 1; /* the fraction is the run's progress, not requests */
        chk.bar = &bar;
    }
    v10_run_estimate_events(cfg, models, llm, &chk.T);
    e.check = check_events;
    e.check_ctx = &chk;
    /* the first estimate early (a quarter of the budget at most), so that
     * a run refused costs little */
    chk.est_at = (uint64_t)fmax(1, fmin(V10_EVENT_CHECK, (double)chk.budget / 4));
    e.check_at = chk.report && chk.est_at > V10_PROGRESS_EVENTS ? V10_PROGRESS_EVENTS
                                                                : chk.est_at;
    /* The clock limit is the engine's only cycle limit: a run is bounded
     * by its events, and a slow one is no starved one. */
    int run_rc = v10_engine_run(&e, cfg, policy, models, V10_CLOCK_LIMIT, err);
    if (!run_rc) { /* every tenant reached its count */
        chk.progress = 1;
        if (cfg->on_progress)
            cfg->on_progress(cfg->progress_ctx, 1);
    }
    if (chk.bar) {
        if (!run_rc)
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
    inputs_free(&in, cfg->n_tenants);
    free(xspecs);
    free(xmodels);
    return rc;
}
