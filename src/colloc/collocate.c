/*
 * collocate.c — clustering-based collocation (V10 paper §5): the pairwise
 * ground truth (V10-Full vs PMT STP) and the leave-two-workloads-out
 * evaluation of clustering against a utilization heuristic and random
 * prediction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc/span.h"
#include "util/num.h"
#include "util/rng.h"
#include "v10/pool.h"

void v10_colloc_opts_default(v10_colloc_opts *o)
{
    o->k = 5;            /* paper: five clusters */
    o->threshold = 1.3;  /* paper: beneficial = at least 1.3x throughput */
    o->keep_var = 0.9;
    o->seed = 1;
    o->restarts = 10;
}

double v10_confusion_accuracy(const v10_confusion *c)
{
    unsigned n = c->tp + c->fp + c->tn + c->fn;
    return n ? (double)(c->tp + c->tn) / n : 0;
}

int v10_colloc_pair_configs(v10_span *span, const v10_run_config *base, v10_tenant_spec *pair,
                            v10_run_config *cfg, v10_err *err)
{
    uint64_t req = v10_span_requests(span, pair, 2, base->requests, err);
    if (!req)
        return -1;
    for (int k = 0; k < 2; k++) {
        v10_run_config *c = &cfg[k];
        *c = *base;
        c->requests = req;
        c->trace = NULL;
        c->no_attribution = 1; /* nobody reads where the time went */
        c->op_states = 0;
        c->tenants = pair;
        c->n_tenants = 2;
        snprintf(c->policy, sizeof c->policy, "%s", k ? "v10-full" : "pmt");
    }
    return 0;
}

double v10_colloc_pair_gain(const v10_run_result *r)
{
    return r[0].stp > 0 ? r[1].stp / r[0].stp : 0;
}

int v10_colloc_ground_truth(const char *const *specs, size_t n, const v10_run_config *base,
                            int threads, const char *progress, double *gain,
                            double *stp_pmt, double *stp_full, v10_err *err)
{
    v10_span span;
    v10_span_init(&span, &base->npu);
    size_t np = n * (n - 1) / 2, nr = 2 * np;
    v10_tenant_spec *ts = calloc(n, sizeof *ts);
    v10_tenant_spec *pairs = calloc(2 * np + 1, sizeof *pairs);
    v10_run_config *cfgs = calloc(nr + 1, sizeof *cfgs);
    v10_run_result *res = calloc(nr + 1, sizeof *res);
    int rc = -1;
    if (!ts || !pairs || !cfgs || !res) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (v10_tenant_spec_parse(specs[i], &ts[i], err))
            goto done;
    size_t p = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++, p++) {
            pairs[2 * p] = ts[a];
            pairs[2 * p + 1] = ts[b];
            if (v10_colloc_pair_configs(&span, base, &pairs[2 * p], &cfgs[2 * p], err))
                goto done;
        }
    v10_pool_job job = {.cfgs = cfgs, .results = res, .n = nr, .threads = threads,
                        .progress = progress};
    if (v10_pool_run(&job, err))
        goto done;
    for (size_t i = 0; i < n * n; i++) {
        gain[i] = 0;
        if (stp_pmt)
            stp_pmt[i] = 0;
        if (stp_full)
            stp_full[i] = 0;
    }
    p = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++, p++) {
            double sp = res[2 * p].stp, sf = res[2 * p + 1].stp;
            double g = v10_colloc_pair_gain(&res[2 * p]);
            gain[a * n + b] = gain[b * n + a] = g;
            if (stp_pmt)
                stp_pmt[a * n + b] = stp_pmt[b * n + a] = sp;
            if (stp_full)
                stp_full[a * n + b] = stp_full[b * n + a] = sf;
        }
    rc = 0;
done:
    if (res)
        for (size_t i = 0; i < nr; i++)
            v10_run_result_fini(&res[i]);
    free(res);
    free(cfgs);
    free(pairs);
    free(ts);
    v10_span_fini(&span);
    return rc;
}

const char *const v10_colloc_method_names[V10_COLLOC_METHODS] = {
    "clustering", "heuristic", "random",
};

static int predicted(const v10_colloc_pair *q, int method)
{
    return method == V10_COLLOC_CLUSTER     ? q->pred_cluster
           : method == V10_COLLOC_HEURISTIC ? q->pred_heuristic
                                            : q->pred_random;
}

/* One method's figures from its confusion matrix and the pairs it picks. */
static void figures(v10_colloc_result *r, int method, const v10_confusion *c)
{
    v10_colloc_figures *f = &r->fig[method];
    f->accuracy = v10_confusion_accuracy(c);
    f->bad_caught = c->tn + c->fp ? (double)c->tn / (c->tn + c->fp) : NAN;
    f->picked = c->tp + c->fp;
    f->worst_gain = NAN;
    f->worst_pair = r->n_pairs;
    for (size_t i = 0; i < r->n_pairs; i++)
        if (predicted(&r->pairs[i], method) &&
            (f->worst_pair == r->n_pairs || r->pairs[i].gain < f->worst_gain)) {
            f->worst_gain = r->pairs[i].gain;
            f->worst_pair = i;
        }
}

static void tally(v10_confusion *c, int pred, int truth)
{
    if (pred && truth)
        c->tp++;
    else if (pred)
        c->fp++;
    else if (truth)
        c->fn++;
    else
        c->tn++;
}

void v10_colloc_cluster(const double *F, size_t n, const int *ex, const v10_colloc_opts *o,
                        int *cl, v10_pca *pca_out, v10_kmeans *km_out,
                        double coord[][V10_FEAT_MAX])
{
    V10_ASSERT(n >= 1 && n <= 64);
    double Xt[64 * V10_PROFILE_FEATS] = {0}, P[64 * V10_FEAT_MAX] = {0};
    size_t nt = 0, idx[64];
    for (size_t i = 0; i < n; i++)
        if (!ex || !ex[i]) {
            memcpy(&Xt[nt * V10_PROFILE_FEATS], &F[i * V10_PROFILE_FEATS],
                   sizeof(double) * V10_PROFILE_FEATS);
            idx[nt++] = i;
        }
    v10_pca pca;
    v10_pca_fit(&pca, Xt, nt, V10_PROFILE_FEATS, o->keep_var);
    for (size_t i = 0; i < nt; i++)
        v10_pca_project(&pca, &Xt[i * V10_PROFILE_FEATS], &P[i * pca.k]);
    v10_kmeans km;
    int asg[64];
    v10_kmeans_fit(&km, P, nt, pca.k, o->k, o->seed, o->restarts, asg);
    for (size_t i = 0; i < nt; i++)
        cl[idx[i]] = asg[i];
    for (size_t i = 0; i < n; i++) {
        double y[V10_FEAT_MAX] = {0};
        v10_pca_project(&pca, &F[i * V10_PROFILE_FEATS], y);
        if (ex && ex[i])
            cl[i] = (int)v10_kmeans_nearest(&km, y);
        if (coord)
            memcpy(coord[i], y, sizeof y);
    }
    if (pca_out)
        *pca_out = pca;
    if (km_out)
        *km_out = km;
}

int v10_colloc_evaluate(const v10_profile *prof, size_t n, const double *gain,
                        const v10_colloc_opts *o, v10_colloc_result *r, v10_err *err)
{
    memset(r, 0, sizeof *r);
    if (n < 4 || n > 64)
        return v10_err_set(err, "collocation needs 4 to 64 models (got %zu)", n);
    if (o->k < 1 || o->k > V10_K_MAX)
        return v10_err_set(err, "k = %zu: expected 1..%d", o->k, V10_K_MAX);
    double F[64 * V10_PROFILE_FEATS];
    for (size_t i = 0; i < n; i++) {
        v10_profile_features(&prof[i], &F[i * V10_PROFILE_FEATS]);
        r->sa_heavy[i] = prof[i].util_sa >= prof[i].util_vu;
    }
    r->n = n;
    r->threshold = o->threshold;
    v10_colloc_cluster(F, n, NULL, o, r->cluster, &r->pca, &r->km, r->coord);
    r->n_pairs = n * (n - 1) / 2;
    r->pairs = calloc(r->n_pairs, sizeof *r->pairs);
    if (!r->pairs)
        return v10_err_set(err, "out of memory");
    uint64_t rng = o->seed ^ 0x72616e646f6dull; /* "random" */
    size_t p = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++, p++) {
            v10_colloc_pair *q = &r->pairs[p];
            q->a = a;
            q->b = b;
            q->gain = gain[a * n + b];
            q->truth = q->gain >= o->threshold;
            r->n_beneficial += (unsigned)q->truth;
            /* Leave a and b out: cluster the rest, score cluster pairs. */
            int ex[64] = {0}, cl[64];
            ex[a] = ex[b] = 1;
            v10_colloc_cluster(F, n, ex, o, cl, NULL, NULL, NULL);
            double sum[V10_K_MAX][V10_K_MAX] = {{0}}, all = 0;
            unsigned cnt[V10_K_MAX][V10_K_MAX] = {{0}}, nall = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++) {
                    if (ex[i] || ex[j])
                        continue;
                    int x = cl[i] < cl[j] ? cl[i] : cl[j], y = cl[i] < cl[j] ? cl[j] : cl[i];
                    sum[x][y] += gain[i * n + j];
                    cnt[x][y]++;
                    all += gain[i * n + j];
                    nall++;
                }
            int x = cl[a] < cl[b] ? cl[a] : cl[b], y = cl[a] < cl[b] ? cl[b] : cl[a];
            q->score = cnt[x][y] ? sum[x][y] / cnt[x][y] : nall ? all / nall : 1;
            q->score_pairs = cnt[x][y];
            q->pred_cluster = q->score >= o->threshold;
            if (!cnt[x][y]) {
                r->cluster_fallback++;
                r->cluster_fallback_wrong += (unsigned)(q->pred_cluster != q->truth);
            }
            q->pred_heuristic = r->sa_heavy[a] != r->sa_heavy[b];
            q->pred_random = v10_rng_unit(&rng) < 0.5;
            tally(&r->cm_cluster, q->pred_cluster, q->truth);
            tally(&r->cm_heuristic, q->pred_heuristic, q->truth);
            tally(&r->cm_random, q->pred_random, q->truth);
        }
    double g[64 * 63 / 2];
    for (size_t i = 0; i < r->n_pairs; i++)
        g[i] = r->pairs[i].gain;
    v10_sort_doubles(g, r->n_pairs);
    r->gain_min = g[0];
    r->gain_max = g[r->n_pairs - 1];
    r->gain_median = g[r->n_pairs / 2];
    r->acc_cluster = v10_confusion_accuracy(&r->cm_cluster);
    r->acc_heuristic = v10_confusion_accuracy(&r->cm_heuristic);
    r->acc_random = v10_confusion_accuracy(&r->cm_random);
    r->n_bad = (unsigned)r->n_pairs - r->n_beneficial;
    figures(r, V10_COLLOC_CLUSTER, &r->cm_cluster);
    figures(r, V10_COLLOC_HEURISTIC, &r->cm_heuristic);
    figures(r, V10_COLLOC_RANDOM, &r->cm_random);
    /* Expected accuracy of coin flipping, estimated over 1000 seeded draws. */
    uint64_t rng2 = o->seed ^ 0x6578706563746564ull; /* "expected" */
    double acc = 0;
    for (int t = 0; t < 1000; t++) {
        unsigned ok = 0;
        for (size_t i = 0; i < r->n_pairs; i++)
            ok += (v10_rng_unit(&rng2) < 0.5) == r->pairs[i].truth;
        acc += (double)ok / (double)r->n_pairs;
    }
    r->acc_random_mean = acc / 1000;
    return 0;
}

void v10_colloc_result_fini(v10_colloc_result *r)
{
    free(r->pairs);
    r->pairs = NULL;
}

