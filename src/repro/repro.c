/*
 * repro.c — `v10sim repro`'s computation: for the studied workload set and
 * the other one (its paper pairs only, for comparison), profiles the eleven
 * models, plans every study of repro_studies[] into one batch, runs it on
 * the thread pool and evaluates collocation on the all-pairs ground truth;
 * plus the figures every rendering reads (ratios and means over pairs).
 * Rendering is src/report/repro_report.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro/study.h"
#include "v10/cost.h"
#include "v10/pool.h"

/* ---- figures of runs -------------------------------------------------------------------- */

double repro_switch_frac(const v10_run_result *r)
{
    double w = (double)(r->end_cycle ? r->end_cycle : 1);
    return (double)r->switch_cycles / w;
}

void repro_mean_add(repro_mean *m, double v)
{
    if (isfinite(v)) {
        m->sum += v;
        m->n++;
    } else {
        m->skipped++;
    }
}

double repro_mean_get(const repro_mean *m) { return m->n ? m->sum / m->n : NAN; }

double repro_lat_speedup(const v10_run_result *base, const v10_run_result *x, int p95)
{
    double s = 0;
    for (size_t t = 0; t < 2; t++) {
        const v10_tenant_result *a = &base->tenants[t], *b = &x->tenants[t];
        s += p95 ? repro_ratio(a->lat_p95_us, b->lat_p95_us)
                 : repro_ratio(a->lat_avg_us, b->lat_avg_us);
    }
    return s / 2;
}

double repro_pair_gain(const repro *R, size_t p)
{
    return repro_ratio(repro_res(R, S_PAIRS, p, P_FULL, 0)->stp,
                       repro_res(R, S_PAIRS, p, P_PMT, 0)->stp);
}

double repro_bound_ratio(const repro *R, size_t p)
{
    return repro_ratio(v10_profile_pair_bound(&R->prof[R->pairs[p].a], &R->prof[R->pairs[p].b]),
                       repro_res(R, S_PAIRS, p, P_PMT, 0)->stp);
}

void repro_mean_ratios(const repro *R, repro_ratios *q)
{
    memset(q, 0, sizeof *q);
    repro_mean ml = {0}, mp = {0};
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *a = repro_res(R, S_PAIRS, p, P_PMT, 0),
                             *b = repro_res(R, S_PAIRS, p, P_FULL, 0);
        q->util_pair[p] = repro_ratio(b->util_overall, a->util_overall);
        q->stp_pair[p] = repro_ratio(b->stp, a->stp);
        q->lat_pair[p] = repro_lat_speedup(a, b, 0);
        q->p95_pair[p] = repro_lat_speedup(a, b, 1);
        q->util += q->util_pair[p] / NPP;
        q->sa += repro_ratio(b->util_sa, a->util_sa) / NPP;
        q->vu += repro_ratio(b->util_vu, a->util_vu) / NPP;
        q->hbm += repro_ratio(b->util_hbm, a->util_hbm) / NPP;
        q->stp += q->stp_pair[p] / NPP;
        repro_mean_add(&ml, q->lat_pair[p]);
        repro_mean_add(&mp, q->p95_pair[p]);
        q->overlap += b->overlap / NPP;
        q->switch_frac += repro_switch_frac(b) / NPP;
        q->bound += repro_bound_ratio(R, p) / NPP;
    }
    q->lat = repro_mean_get(&ml);
    q->p95 = repro_mean_get(&mp);
    q->lat_skipped = ml.skipped > mp.skipped ? ml.skipped : mp.skipped;
}

/* ---- the batch ---------------------------------------------------------------------------- */

/* Plans every study R runs: those marked `first` before the others. */
static int plan(repro *R, v10_err *err)
{
    repro_pairs(R);
    for (int first = 1; first >= 0; first--)
        for (int s = 0; s < N_STUDIES; s++) {
            const repro_study *st = &repro_studies[s];
            if (!st->plan || st->first != first || (R->pairs_only && !st->both_sets))
                continue;
            R->base[s] = R->n;
            if (st->plan(R, err))
                return -1;
        }
    for (size_t i = 0; i < R->n; i++) /* the spec array moved as it grew */
        R->cfgs[i].tenants = &R->specs[i * MAXT];
    return 0;
}

/* Sets up R for workload set `set`: specs, standalone profiles, the batch. */
static int prepare(repro *R, const v10_repro_opts *o, const char *set, int pairs_only,
                   v10_err *err)
{
    R->o = o;
    R->set = set;
    R->pairs_only = pairs_only;
    /* Requests of the longest tenant of a run (shorter ones keep the load
     * up meanwhile), raised for short runs to span several PMT slices. */
    R->requests = o->quick ? 3 : 12;
    R->warmup = o->quick ? 1 : 2;
    const char *specs[NM];
    for (int m = 0; m < NM; m++) {
        snprintf(R->spec[m], sizeof R->spec[m], "%s%s", strcmp(set, "zoo") ? "isca23/" : "",
                 repro_models[m]);
        specs[m] = R->spec[m];
    }
    if (v10_npu_preset("v10-isca23", &R->npu, err))
        return -1;
    v10_span_init(&R->span, &R->npu);
    char what[64];
    snprintf(what, sizeof what, "repro: profiling the %s set", set);
    if (v10_profile_models(specs, NM, &R->npu, o->threads, o->progress ? what : NULL, R->prof,
                           err))
        return -1;
    for (int m = 0; m < NM; m++) {
        v10_model mod;
        if (v10_model_load(specs[m], &R->npu, &mod, err))
            return -1;
        for (size_t j = 0; j < mod.n_ops; j++)
            R->max_resident_mib = fmax(R->max_resident_mib,
                                       (double)mod.ops[j].vmem_bytes / (1024.0 * 1024.0));
        v10_model_fini(&mod);
    }
    if (plan(R, err))
        return -1;
    R->res = calloc(R->n, sizeof *R->res);
    if (!R->res)
        return v10_err_set(err, "out of memory");
    return 0;
}

static int run_batch(repro *R, v10_err *err)
{
    char what[64];
    snprintf(what, sizeof what, "repro (%s%s)", R->set, R->pairs_only ? ", pairs" : "");
    v10_pool_job job = {.cfgs = R->cfgs, .results = R->res, .n = R->n,
                        .threads = R->o->threads, .progress = R->o->progress ? what : NULL};
    return v10_pool_run(&job, err);
}

/* Collocation from the all-pairs ground truth, at the paper's threshold
 * and at the median gain (a balanced problem). */
static int collocation(repro *R, v10_err *err)
{
    double gain[NM * NM] = {0};
    for (size_t p = 0; p < NPAIR; p++) {
        int a = R->pairs[p].a, b = R->pairs[p].b;
        gain[a * NM + b] = gain[b * NM + a] = repro_pair_gain(R, p);
    }
    v10_colloc_opts co;
    v10_colloc_opts_default(&co);
    co.seed = R->o->seed;
    if (v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col, err))
        return -1;
    co.threshold = R->col.gain_median;
    return v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col_med, err);
}

static void repro_free(repro *R)
{
    if (!R)
        return;
    if (R->res)
        for (size_t i = 0; i < R->n; i++)
            v10_run_result_fini(&R->res[i]);
    v10_span_fini(&R->span);
    v10_colloc_result_fini(&R->col);
    v10_colloc_result_fini(&R->col_med);
    free(R->res);
    free(R->cfgs);
    free(R->specs);
    free(R);
}

void v10_repro_destroy(v10_repro *R)
{
    if (!R)
        return;
    repro_free(R->alt);
    repro_free(R);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int v10_repro_run(const v10_repro_opts *o, v10_repro **out, v10_err *err)
{
    *out = NULL;
    double t0 = now_s();
    const char *set = o->workloads[0] ? o->workloads : "isca23";
    if (strcmp(set, "isca23") && strcmp(set, "zoo"))
        return v10_err_set(err, "workloads '%s': expected isca23 or zoo", set);
    repro *R = calloc(1, sizeof *R), *A = calloc(1, sizeof *A);
    if (!R || !A) {
        free(R);
        free(A);
        return v10_err_set(err, "out of memory");
    }
    R->alt = A;
    if (prepare(R, o, set, 0, err) ||
        prepare(A, o, strcmp(set, "zoo") ? "zoo" : "isca23", 1, err) || run_batch(R, err) ||
        run_batch(A, err) || collocation(R, err)) {
        v10_repro_destroy(R);
        return -1;
    }
    R->runs = R->n + A->n + 2 * NM;
    R->wall_seconds = now_s() - t0;
    *out = R;
    return 0;
}

void v10_repro_headlines(const v10_repro *R, v10_repro_headline head[2])
{
    for (int k = 0; k < 2; k++) {
        const repro *X = k ? R->alt : R;
        repro_ratios x;
        repro_mean_ratios(X, &x);
        v10_repro_headline *h = &head[k];
        memset(h, 0, sizeof *h);
        snprintf(h->set, sizeof h->set, "%s", X->set);
        h->stp = x.stp;
        h->util = x.util;
        h->lat = x.lat;
        h->p95 = x.p95;
        h->overlap = x.overlap;
    }
}
