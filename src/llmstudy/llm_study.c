/*
 * llm_study.c — the LLM study's computation (docs/llm.md, "The LLM study"):
 * derives each LLM service's trace rate from its solo busy fraction, then
 * runs every (service, partner, policy, NPU) point as one batch on the
 * thread pool and keeps the figures the report needs.
 *
 * The load rule.  Alone at trace rate scale s, the server holds an FU for
 * W(s) cycles to serve the trace's first N requests, which arrive over
 * D / s seconds (D: their span in the trace).  Its offered load is
 * rho(s) = W(s) / f / (D / s), f the clock; W depends on s only through
 * batching (more requests share an iteration at higher rates), so rho is
 * locally a power of s, rho ~ c * s^a with a <= 1.  Starting at s = 1, the
 * first step assumes a = 1 (s <- s * target / rho); each later step fits a
 * to the last two solo runs (a = log(rho1/rho0) / log(s1/s0), kept in
 * [0.1, 1]) and solves s <- s1 * (target / rho1)^(1/a).  CAL_STEPS such
 * steps, each one solo run per service and NPU, set rho to the target.  The alone row reports
 * rho and the busy fraction measured at the s used (W over the run's
 * length, which adds the last requests' service after the last arrival),
 * so the rule's accuracy is visible.  Only solo runs enter the rule; no
 * pair's figures feed back into the load.
 *
 * Beside each other, the two LLM servers serve only the requests arriving
 * in the shorter of their two spans (the overlap rule, common_requests);
 * every run keeps its servers' per-request samples for the CDF plots.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro/study.h"
#include "util/num.h"
#include "v10/llm_study.h"
#include "v10/llm_trace.h"
#include "v10/npu.h"
#include "v10/pool.h"
#include "v10/sim.h"

#define CAL_STEPS 4

static const char *const services[V10_LLMS_SERVICES] = {"conv", "code"};
/* The pairs' policies: the paper's, then V10-Full with
 * v10-full.preempt=ready (docs/architecture.md, "Preemption when a tenant
 * becomes ready"), named as repro's fairness study names it. */
static const struct {
    const char *name, *policy;
    int ready;
} policies[] = {{"pmt", "pmt", 0},
                {"v10-fair", "v10-fair", 0},
                {"v10-full", "v10-full", 0},
                {"v10-full+ready", "v10-full", 1}};
#define NPOLS (sizeof policies / sizeof policies[0])
#define NPARTNERS (NM + 1) /* the isca23 services, then the other LLM service */

/* One batch: configurations with two tenant slots each, and their results. */
typedef struct batch {
    v10_run_config *cfg;
    v10_tenant_spec *spec; /* 2 per configuration */
    v10_run_result *res;
    size_t n;
} batch;

static void batch_fini(batch *b)
{
    for (size_t i = 0; b->res && i < b->n; i++)
        v10_run_result_fini(&b->res[i]);
    free(b->cfg);
    free(b->spec);
    free(b->res);
    memset(b, 0, sizeof *b);
}

static int batch_alloc(batch *b, size_t n, v10_err *err)
{
    b->cfg = calloc(n, sizeof *b->cfg);
    b->spec = calloc(2 * n, sizeof *b->spec);
    b->res = calloc(n, sizeof *b->res);
    b->n = n;
    if (!b->cfg || !b->spec || !b->res) {
        batch_fini(b);
        return v10_err_set(err, "llm-study: out of memory");
    }
    return 0;
}

static int batch_run(const v10_llm_study_opts *o, batch *b, const char *label, size_t *runs,
                     v10_err *err)
{
    v10_pool_job job = {.cfgs = b->cfg, .results = b->res, .n = b->n,
                        .threads = o->threads, .progress = o->progress ? label : NULL,
                        .weigh = 1};
    *runs += b->n;
    return v10_pool_run(&job, err);
}

static void trace_path(const v10_llm_study_opts *o, int svc, char *out, size_t cap)
{
    if (o->trace_dir)
        snprintf(out, cap, "%s/AzureLLMInferenceTrace_%s.csv", o->trace_dir, services[svc]);
    else /* the excerpts the binary carries (tests/data/llm/) */
        snprintf(out, cap, "@azure_%s_200", services[svc]);
}

/* Service svc's server at trace rate scale `scale`; requests > 0: its own
 * count (requests=; the LLM pairs' overlap rule), else the run's. */
static int llm_spec(const v10_llm_study *S, int svc, double scale, uint64_t requests,
                    v10_tenant_spec *t, v10_err *err)
{
    char path[V10_SPEC_MAX / 2], s[V10_SPEC_MAX], opt[128] = "";
    trace_path(&S->opts, svc, path, sizeof path);
    int k = 0;
    if (S->opts.slo_ttft_ms > 0)
        k += snprintf(opt + k, sizeof opt - (size_t)k, ":slo_ttft_ms=%.17g", S->opts.slo_ttft_ms);
    if (S->opts.slo_tpot_ms > 0)
        k += snprintf(opt + k, sizeof opt - (size_t)k, ":slo_tpot_ms=%.17g", S->opts.slo_tpot_ms);
    if (requests)
        snprintf(opt + k, sizeof opt - (size_t)k, ":requests=%llu", (unsigned long long)requests);
    snprintf(s, sizeof s, "llm/%s:trace=%s:rate_scale=%.17g%s", S->model, path, scale, opt);
    return v10_tenant_spec_parse(s, t, err);
}

static int config(const v10_llm_study *S, batch *b, size_t i, const char *npu, const char *policy,
                  size_t n_tenants, v10_err *err)
{
    v10_run_config *c = &b->cfg[i];
    v10_run_config_default(c);
    if (v10_npu_preset(npu, &c->npu, err))
        return -1;
    snprintf(c->policy, sizeof c->policy, "%s", policy);
    c->tenants = &b->spec[2 * i];
    c->n_tenants = n_tenants;
    c->requests = S->opts.requests;
    c->warmup = 0; /* every request of the trace prefix counts */
    c->seed = S->opts.seed;
    c->contention = 1;
    c->no_attribution = 1; /* the study reads latencies and busy time, not states */
    return 0;
}

/* The busy fraction of tenant 0 over the run. */
static double busy(const v10_run_result *r)
{
    return r->end_cycle ? (double)r->tenants[0].active_cycles / (double)r->end_cycle : NAN;
}

/* Each service's trace (arrivals from 0 s at rate scale 1), read once. */
typedef struct traces {
    v10_llm_trace t[V10_LLMS_SERVICES];
    double span[V10_LLMS_SERVICES]; /* of the first `requests` arrivals, s */
} traces;

static void traces_fini(traces *T)
{
    for (int v = 0; v < V10_LLMS_SERVICES; v++)
        v10_llm_trace_fini(&T->t[v]);
}

static int traces_read(const v10_llm_study *S, traces *T, v10_err *err)
{
    memset(T, 0, sizeof *T);
    for (int v = 0; v < V10_LLMS_SERVICES; v++) {
        char path[V10_SPEC_MAX];
        trace_path(&S->opts, v, path, sizeof path);
        if (v10_llm_trace_read(path, 1.0, 0.0, &T->t[v], err)) {
            traces_fini(T);
            if (S->opts.trace_dir) /* the user's folder: say what it must hold */
                v10_err_prefix(err, "--trace-dir %s must hold the full Azure traces "
                                    "AzureLLMInferenceTrace_{conv,code}.csv (without it, "
                                    "the built-in 200-request excerpts are used)",
                               S->opts.trace_dir);
            return -1;
        }
        const v10_llm_trace *t = &T->t[v];
        size_t n = S->opts.requests < t->n ? (size_t)S->opts.requests : t->n;
        T->span[v] = t->reqs[n - 1].arrival_s - t->reqs[0].arrival_s;
        if (!(T->span[v] > 0)) {
            traces_fini(T);
            return v10_err_set(err, "%s: the first %zu requests arrive at one instant; the "
                                    "load rule needs a span (use more --requests)", path, n);
        }
    }
    return 0;
}

/*
 * The overlap rule for the LLM pairs (docs/llm.md): alone, service v's N
 * requests arrive over span[v] / s_v (its own rate scale s_v).  Beside the
 * other LLM service, both serve only what arrives in the shorter of the two
 * spans, T: each takes the fewest first requests of its trace whose
 * arrivals reach T (at most N), so both servers' arrivals cover the same
 * interval at the rates their load rule set.  Trace timing and solo-derived
 * scales only; the service with the longer span serves fewer than N, and
 * its reference alone is a solo run of the same requests.
 */
static uint64_t common_requests(const traces *T, int v, double s_v, double end)
{
    const v10_llm_trace *t = &T->t[v];
    size_t k = 1;
    while (k < t->n && t->reqs[k - 1].arrival_s / s_v < end)
        k++;
    return k;
}

/* The row of tenant 0 of run r; takes its per-request samples (sorted). */
static void fill_row(v10_llm_study_row *w, v10_run_result *r, int svc, const char *partner,
                     const char *policy, const char *npu, double scale, double b_alone,
                     double load)
{
    v10_tenant_result *t = &r->tenants[0];
    w->ttft_us = t->ttft_samples_us;
    w->tpot_us = t->tpot_samples_us;
    w->n_ttft = t->ttft_us.n;
    w->n_tpot = t->tpot_us.n;
    t->ttft_samples_us = t->tpot_samples_us = NULL;
    v10_sort_doubles(w->ttft_us, w->n_ttft);
    v10_sort_doubles(w->tpot_us, w->n_tpot);
    snprintf(w->service, sizeof w->service, "%s", services[svc]);
    snprintf(w->partner, sizeof w->partner, "%s", partner);
    snprintf(w->policy, sizeof w->policy, "%s", policy);
    snprintf(w->npu, sizeof w->npu, "%s", npu);
    w->rate_scale = scale;
    w->busy_alone = b_alone;
    w->load_alone = load;
    w->llm_requests = t->llm_requests;
    const v10_llm_dist *d[2] = {&t->ttft_us, &t->tpot_us};
    double *o[2] = {w->ttft_ms, w->tpot_ms};
    for (int k = 0; k < 2; k++) {
        o[k][0] = d[k]->p50 / 1e3;
        o[k][1] = d[k]->p95 / 1e3;
        o[k][2] = d[k]->p99 / 1e3;
    }
    w->tokens_per_s = t->tokens_per_s;
    w->tokens_per_s_active = t->tokens_per_s_active;
    w->j_per_token = t->llm_tokens ? t->energy_j / (double)t->llm_tokens : NAN;
    w->alone_ttft_p95_ms = w->ttft_ms[1];
    w->alone_tpot_p95_ms = w->tpot_ms[1];
    w->slo_ttft = t->slo_ttft < 0 ? NAN : t->slo_ttft;
    w->slo_tpot = t->slo_tpot < 0 ? NAN : t->slo_tpot;
    w->partner_rps = w->partner_np = w->partner_tokens_per_s = NAN;
    if (r->n_tenants > 1) {
        const v10_tenant_result *z = &r->tenants[1];
        w->partner_rps = z->throughput_rps;
        w->partner_np = z->np;
        if (z->llm) {
            w->partner_tokens_per_s = z->tokens_per_s;
            w->partner_requests = z->completed;
        }
    }
    w->util_sa = r->util_sa;
    w->util_vu = r->util_vu;
}

/* Rate scales per (service, NPU), from solo runs (the load rule above);
 * the last solo batch, at the scales used, fills the alone rows. */
static int calibrate(v10_llm_study *S, const traces *T, double *scale, size_t *runs,
                     v10_err *err)
{
    size_t n = V10_LLMS_SERVICES * S->n_npus;
    const double *span = T->span;
    double prev_s[V10_LLMS_SERVICES * NSCALE], prev_rho[V10_LLMS_SERVICES * NSCALE];
    for (size_t i = 0; i < n; i++)
        scale[i] = 1.0;
    for (int step = 0; step <= CAL_STEPS; step++) {
        batch b = {0};
        if (batch_alloc(&b, n, err))
            return -1;
        int bad = 0;
        for (size_t i = 0; i < n && !bad; i++)
            bad = llm_spec(S, (int)(i % V10_LLMS_SERVICES), scale[i], 0, &b.spec[2 * i], err) ||
                  config(S, &b, i, S->npus[i / V10_LLMS_SERVICES], "solo", 1, err);
        if (bad || batch_run(&S->opts, &b, "llm-study: load", runs, err)) {
            batch_fini(&b);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            double f = b.cfg[i].npu.clock_mhz * 1e6;
            double w = (double)b.res[i].tenants[0].active_cycles / f;
            double rho = w / (span[i % V10_LLMS_SERVICES] / scale[i]);
            if (step == CAL_STEPS)
                fill_row(&S->rows[i], &b.res[i], (int)(i % V10_LLMS_SERVICES), "", "solo",
                         S->npus[i / V10_LLMS_SERVICES], scale[i], busy(&b.res[i]), rho);
            else if (rho > 0 && isfinite(rho)) {
                double a = 1.0;
                if (step > 0 && prev_rho[i] > 0 && scale[i] != prev_s[i])
                    a = log(rho / prev_rho[i]) / log(scale[i] / prev_s[i]);
                a = isfinite(a) ? fmin(1.0, fmax(0.1, a)) : 1.0;
                prev_s[i] = scale[i];
                prev_rho[i] = rho;
                scale[i] = fmin(1e6, fmax(1e-6, scale[i] * pow(S->opts.target_busy / rho, 1 / a)));
            }
        }
        batch_fini(&b);
    }
    return 0;
}

/* The LLM pairs' request counts per (NPU, service) (the overlap rule) and
 * each service's TTFT/TPOT p95 alone over those requests: the alone row's
 * if it is all N, else one more solo run. */
static int references(v10_llm_study *S, const traces *T, const double *scale, uint64_t *common,
                      double (*ref)[2], v10_err *err)
{
    size_t n = V10_LLMS_SERVICES * S->n_npus, m = 0, idx[V10_LLMS_SERVICES * NSCALE];
    for (size_t k = 0; k < S->n_npus; k++) {
        size_t j = k * V10_LLMS_SERVICES;
        double end = fmin(T->span[0] / scale[j], T->span[1] / scale[j + 1]);
        for (int v = 0; v < V10_LLMS_SERVICES; v++)
            common[j + (size_t)v] = common_requests(T, v, scale[j + (size_t)v], end);
    }
    for (size_t i = 0; i < n; i++) {
        ref[i][0] = S->rows[i].ttft_ms[1];
        ref[i][1] = S->rows[i].tpot_ms[1];
        if (common[i] < S->opts.requests)
            idx[m++] = i;
    }
    if (!m)
        return 0;
    batch b = {0};
    if (batch_alloc(&b, m, err))
        return -1;
    int bad = 0;
    for (size_t q = 0; q < m && !bad; q++) {
        size_t i = idx[q];
        bad = llm_spec(S, (int)(i % V10_LLMS_SERVICES), scale[i], common[i], &b.spec[2 * q], err) ||
              config(S, &b, q, S->npus[i / V10_LLMS_SERVICES], "solo", 1, err);
    }
    if (bad || batch_run(&S->opts, &b, "llm-study: references", &S->runs, err)) {
        batch_fini(&b);
        return -1;
    }
    for (size_t q = 0; q < m; q++) {
        ref[idx[q]][0] = b.res[q].tenants[0].ttft_us.p95 / 1e3;
        ref[idx[q]][1] = b.res[q].tenants[0].tpot_us.p95 / 1e3;
    }
    batch_fini(&b);
    return 0;
}

int v10_llm_study_run(const v10_llm_study_opts *o, v10_llm_study **out, v10_err *err)
{
    *out = NULL;
    v10_llm_study *S = calloc(1, sizeof *S);
    if (!S)
        return v10_err_set(err, "llm-study: out of memory");
    S->opts = *o;
    if (!S->opts.requests)
        S->opts.requests = o->quick ? 10 : 200;
    if (!(S->opts.target_busy > 0))
        S->opts.target_busy = 0.5;
    snprintf(S->model, sizeof S->model, "%s", o->model ? o->model : "llama3.2-1b");
    S->opts.model = S->model;
    S->n_npus = o->scale ? NSCALE : 1;
    for (size_t k = 0; k < S->n_npus; k++)
        S->npus[k] = repro_scale_npus[k];
    size_t n_alone = V10_LLMS_SERVICES * S->n_npus;
    size_t n_pairs = V10_LLMS_SERVICES * NPARTNERS * NPOLS * S->n_npus;
    S->rows = calloc(n_alone + n_pairs, sizeof *S->rows);
    double scale[V10_LLMS_SERVICES * NSCALE];
    uint64_t common[V10_LLMS_SERVICES * NSCALE]; /* requests in the LLM pairs */
    double ref[V10_LLMS_SERVICES * NSCALE][2];   /* alone over them: TTFT, TPOT p95 ms */
    batch b = {0};
    traces T;
    if (!S->rows) {
        v10_llm_study_destroy(S);
        return v10_err_set(err, "llm-study: out of memory");
    }
    S->n_rows = n_alone + n_pairs;
    if (traces_read(S, &T, err)) {
        v10_llm_study_destroy(S);
        return -1;
    }
    if (calibrate(S, &T, scale, &S->runs, err) ||
        references(S, &T, scale, common, ref, err) || batch_alloc(&b, n_pairs, err))
        goto fail;
    /* Pairs, in row order: NPU, service, partner, policy. */
    for (size_t i = 0; i < n_pairs; i++) {
        size_t pol = i % NPOLS, p = i / NPOLS % NPARTNERS;
        size_t svc = i / (NPOLS * NPARTNERS) % V10_LLMS_SERVICES;
        size_t k = i / (NPOLS * NPARTNERS * V10_LLMS_SERVICES);
        v10_tenant_spec *t = &b.spec[2 * i];
        size_t j = k * V10_LLMS_SERVICES + svc, jo = k * V10_LLMS_SERVICES + 1 - svc;
        int bad = llm_spec(S, (int)svc, scale[j], p < NM ? 0 : common[j], &t[0], err);
        if (!bad && p < NM) {
            char m[64];
            snprintf(m, sizeof m, "isca23/%s", repro_models[p]);
            bad = v10_tenant_spec_parse(m, &t[1], err);
        } else if (!bad) {
            bad = llm_spec(S, (int)(1 - svc), scale[jo], common[jo], &t[1], err);
        }
        if (bad || config(S, &b, i, S->npus[k], policies[pol].policy, 2, err))
            goto fail;
        b.cfg[i].params.full_preempt_ready = policies[pol].ready;
    }
    if (batch_run(&S->opts, &b, "llm-study: pairs", &S->runs, err))
        goto fail;
    for (size_t i = 0; i < n_pairs; i++) {
        size_t pol = i % NPOLS, p = i / NPOLS % NPARTNERS;
        size_t svc = i / (NPOLS * NPARTNERS) % V10_LLMS_SERVICES;
        size_t k = i / (NPOLS * NPARTNERS * V10_LLMS_SERVICES);
        char partner[64];
        if (p < NM)
            snprintf(partner, sizeof partner, "%s", repro_models[p]);
        else
            snprintf(partner, sizeof partner, "llm-%s", services[1 - svc]);
        const v10_llm_study_row *alone = &S->rows[k * V10_LLMS_SERVICES + svc];
        fill_row(&S->rows[n_alone + i], &b.res[i], (int)svc, partner, policies[pol].name, S->npus[k],
                 alone->rate_scale, alone->busy_alone, alone->load_alone);
        /* the reference alone: over the same requests (the overlap rule's) */
        const double *rf = p < NM ? (const double[2]){alone->ttft_ms[1], alone->tpot_ms[1]}
                                  : ref[k * V10_LLMS_SERVICES + svc];
        S->rows[n_alone + i].alone_ttft_p95_ms = rf[0];
        S->rows[n_alone + i].alone_tpot_p95_ms = rf[1];
    }
    batch_fini(&b);
    traces_fini(&T);
    *out = S;
    return 0;
fail:
    batch_fini(&b);
    traces_fini(&T);
    v10_llm_study_destroy(S);
    return -1;
}

void v10_llm_study_destroy(v10_llm_study *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->rows && i < s->n_rows; i++) {
        free(s->rows[i].ttft_us);
        free(s->rows[i].tpot_us);
    }
    free(s->rows);
    free(s);
}
