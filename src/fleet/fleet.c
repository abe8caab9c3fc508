/*
 * fleet.c — placing N services on M NPUs (docs/repro.md, "Fleet"): by
 * clustering (the paper's collocation scores), by greedy complementarity of
 * standalone utilizations, and at random; then every NPU of every placement
 * is simulated (independent runs on the thread pool).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc/span.h"
#include "util/rng.h"
#include "v10/fleet.h"
#include "v10/pool.h"

const char *v10_placement_name(v10_placement p)
{
    static const char *const n[V10_PLACEMENTS] = {"cluster", "greedy", "random"};
    return (unsigned)p < V10_PLACEMENTS ? n[p] : "?";
}

/* ---- placement -------------------------------------------------------------------- */

/* Capacity of NPU j: n services dealt as evenly as possible. */
static size_t capacity(size_t n, size_t m, size_t j) { return n / m + (j < n % m); }

/* Sum of pairwise scores of the services sharing an NPU. */
static double objective(const double *S, size_t n, const size_t *npu_of)
{
    double t = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (npu_of[i] == npu_of[j])
                t += S[i * n + j];
    return t;
}

/*
 * Cluster placement: services in decreasing order of their best pairwise
 * score each join the NPU with room whose members they score best with
 * (an empty NPU scores the mean), then pairwise swaps between NPUs while
 * any swap raises the total within-NPU score.  Deterministic.
 */
static void place_by_scores(const double *S, size_t n, size_t m, size_t *npu_of)
{
    size_t *order = malloc(n * sizeof *order), *used = calloc(m, sizeof *used);
    double *best = malloc(n * sizeof *best);
    V10_ASSERT(order && used && best);
    double mean = 0;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        best[i] = -INFINITY;
        for (size_t j = 0; j < n; j++)
            if (j != i) {
                best[i] = fmax(best[i], S[i * n + j]);
                mean += S[i * n + j] / (double)(n * (n - 1));
            }
    }
    for (size_t i = 1; i < n; i++) /* stable insertion sort, descending best */
        for (size_t j = i; j > 0 && best[order[j]] > best[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        npu_of[i] = m; /* unplaced */
    for (size_t oi = 0; oi < n; oi++) {
        size_t s = order[oi], pick = m;
        double ps = -INFINITY;
        for (size_t j = 0; j < m; j++) {
            if (used[j] >= capacity(n, m, j))
                continue;
            double sc = 0;
            size_t cnt = 0;
            for (size_t t = 0; t < n; t++)
                if (npu_of[t] == j) {
                    sc += S[s * n + t];
                    cnt++;
                }
            sc = cnt ? sc / (double)cnt : mean;
            if (sc > ps + 1e-12) {
                ps = sc;
                pick = j;
            }
        }
        V10_ASSERT(pick < m);
        npu_of[s] = pick;
        used[pick]++;
    }
    double cur = objective(S, n, npu_of);
    for (int pass = 0; pass < 100; pass++) {
        int improved = 0;
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++) {
                if (npu_of[a] == npu_of[b])
                    continue;
                size_t t = npu_of[a];
                npu_of[a] = npu_of[b];
                npu_of[b] = t;
                double nv = objective(S, n, npu_of);
                if (nv > cur + 1e-9) {
                    cur = nv;
                    improved = 1;
                } else {
                    npu_of[b] = npu_of[a];
                    npu_of[a] = t;
                }
            }
        if (!improved)
            break;
    }
    free(order);
    free(used);
    free(best);
}

/*
 * Greedy complementarity: services in decreasing order of their dominant
 * standalone utilization each go to the NPU with room whose summed load
 * max(sum SA, sum VU, sum HBM) stays lowest after adding them.
 */
static void place_greedy(const v10_profile *p, size_t n, size_t m, size_t *npu_of)
{
    size_t *order = malloc(n * sizeof *order), *used = calloc(m, sizeof *used);
    double(*load)[3] = calloc(m, sizeof *load);
    V10_ASSERT(order && used && load);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
#define DOM(i) fmax(p[i].util_sa, fmax(p[i].util_vu, p[i].util_hbm))
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && DOM(order[j]) > DOM(order[j - 1]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
#undef DOM
    for (size_t oi = 0; oi < n; oi++) {
        size_t s = order[oi], pick = m;
        double pv = INFINITY;
        for (size_t j = 0; j < m; j++) {
            if (used[j] >= capacity(n, m, j))
                continue;
            double v = fmax(load[j][0] + p[s].util_sa,
                            fmax(load[j][1] + p[s].util_vu, load[j][2] + p[s].util_hbm));
            /* Prefer emptier NPUs on ties so every NPU gets its share. */
            v += 1e-9 * (double)used[j];
            if (v < pv - 1e-12) {
                pv = v;
                pick = j;
            }
        }
        V10_ASSERT(pick < m);
        npu_of[s] = pick;
        used[pick]++;
        load[pick][0] += p[s].util_sa;
        load[pick][1] += p[s].util_vu;
        load[pick][2] += p[s].util_hbm;
    }
    free(order);
    free(used);
    free(load);
}

static void place_random(size_t n, size_t m, uint64_t seed, size_t *npu_of)
{
    size_t *perm = malloc(n * sizeof *perm);
    V10_ASSERT(perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t rng = seed ^ 0x706c616365ull; /* "place" */
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(v10_rng_unit(&rng) * (double)i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        npu_of[perm[i]] = i % m;
    free(perm);
}

/* ---- the fleet run -------------------------------------------------------------------- */

void v10_fleet_result_fini(v10_fleet_result *r)
{
    free(r->prof);
    free(r->cluster);
    for (int k = 0; k < V10_PLACEMENTS; k++) {
        free(r->plan[k].npu_of);
        free(r->plan[k].svc);
        free(r->plan[k].npu_util);
        free(r->plan[k].npu_stp);
    }
    memset(r, 0, sizeof *r);
}

/* Distinct model specs (model + batch) of the services: the profiling unit. */
static size_t distinct_models(const v10_service *svc, size_t n, char (*spec)[V10_SPEC_MAX + 32],
                              size_t *of)
{
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        char s[V10_SPEC_MAX + 32];
        /* the tenant parser keeps batch= in the model spec already; given
         * twice, it is an error (issue 24) */
        if (svc[i].spec.batch && !strstr(svc[i].spec.model, ":batch="))
            snprintf(s, sizeof s, "%s:batch=%u", svc[i].spec.model, svc[i].spec.batch);
        else
            snprintf(s, sizeof s, "%s", svc[i].spec.model);
        size_t j = 0;
        while (j < nd && strcmp(spec[j], s))
            j++;
        if (j == nd)
            memcpy(spec[nd++], s, sizeof s);
        of[i] = j;
    }
    return nd;
}

int v10_fleet_run(const v10_service *svc, size_t n, const v10_fleet_opts *o,
                  v10_fleet_result *r, v10_err *err)
{
    memset(r, 0, sizeof *r);
    size_t m = o->npus;
    if (m < 1)
        return v10_err_set(err, "--npus: need at least one NPU");
    if (n < 2 * m)
        return v10_err_set(err, "%zu services on %zu NPUs: need at least two per NPU", n, m);
    if (n > 4096)
        return v10_err_set(err, "%zu services: at most 4096", n);
    if ((n + m - 1) / m > 64)
        return v10_err_set(err, "%zu services per NPU: at most 64", (n + m - 1) / m);
    r->n = n;
    r->npus = m;
    int rc = -1;
    char(*dspec)[V10_SPEC_MAX + 32] = calloc(n, sizeof *dspec);
    const char **dptr = calloc(n, sizeof *dptr);
    size_t *dof = calloc(n, sizeof *dof);
    v10_profile *dprof = calloc(n, sizeof *dprof);
    double *S = calloc(n * n, sizeof *S);
    v10_run_config *cfgs = NULL;
    v10_run_result *res = NULL;
    v10_tenant_spec *ten = NULL, *rep = NULL;
    size_t nruns = 0;
    v10_span span;
    v10_span_init(&span, &o->base.npu);
    r->prof = calloc(n, sizeof *r->prof);
    r->cluster = calloc(n, sizeof *r->cluster);
    if (!dspec || !dptr || !dof || !dprof || !S || !r->prof || !r->cluster) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    /* 1. Profile each distinct model alone. */
    size_t nd = distinct_models(svc, n, dspec, dof);
    if (nd > 64) {
        v10_err_set(err, "%zu distinct models: at most 64", nd);
        goto done;
    }
    for (size_t i = 0; i < nd; i++)
        dptr[i] = dspec[i];
    if (v10_profile_models(dptr, nd, &o->base.npu, o->threads,
                           o->progress ? "fleet: profiling" : NULL, dprof, err))
        goto done;
    for (size_t i = 0; i < n; i++)
        r->prof[i] = dprof[dof[i]];

    /* 2. Cluster the distinct models and score each cluster pair by
     *    simulating its representatives (the model nearest each centroid)
     *    together under pmt and v10-full: the paper's offline scoring. */
    double F[64 * V10_PROFILE_FEATS], P[64][V10_FEAT_MAX];
    for (size_t i = 0; i < nd; i++)
        v10_profile_features(&dprof[i], &F[i * V10_PROFILE_FEATS]);
    v10_pca pca;
    v10_kmeans km;
    int dcl[64];
    v10_colloc_cluster(F, nd, NULL, &o->colloc, dcl, &pca, &km, P);
    size_t k = km.k, repm[V10_K_MAX];
    for (size_t c = 0; c < k; c++) {
        double bd = INFINITY;
        repm[c] = 0;
        for (size_t i = 0; i < nd; i++) {
            double dd = 0;
            for (size_t j = 0; j < pca.k; j++)
                dd += (P[i][j] - km.centroid[c][j]) * (P[i][j] - km.centroid[c][j]);
            if (dcl[i] == (int)c && dd < bd) {
                bd = dd;
                repm[c] = i;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        r->cluster[i] = dcl[dof[i]];
    size_t ncp = k * (k + 1) / 2;
    nruns = 2 * ncp;
    for (int pl = 0; pl < V10_PLACEMENTS; pl++)
        nruns += m;
    cfgs = calloc(nruns, sizeof *cfgs);
    res = calloc(nruns, sizeof *res);
    rep = calloc(2 * ncp, sizeof *rep);
    ten = calloc(V10_PLACEMENTS * n, sizeof *ten);
    if (!cfgs || !res || !rep || !ten) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    size_t q = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a; b < k; b++, q++) {
            if (v10_tenant_spec_parse(dspec[repm[a]], &rep[2 * q], err) ||
                v10_tenant_spec_parse(dspec[repm[b]], &rep[2 * q + 1], err))
                goto done;
            if (v10_colloc_pair_configs(&span, &o->base, &rep[2 * q], &cfgs[2 * q], err))
                goto done;
        }
    v10_pool_job job = {.cfgs = cfgs, .results = res, .n = 2 * ncp, .threads = o->threads,
                        .progress = o->progress ? "fleet: scoring clusters" : NULL};
    if (v10_pool_run(&job, err))
        goto done;
    double cscore[V10_K_MAX][V10_K_MAX];
    q = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a; b < k; b++, q++) {
            cscore[a][b] = cscore[b][a] = v10_colloc_pair_gain(&res[2 * q]);
        }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            S[i * n + j] = i == j ? 0 : cscore[r->cluster[i]][r->cluster[j]];

    /* 3. Place three ways. */
    for (int pl = 0; pl < V10_PLACEMENTS; pl++) {
        v10_fleet_plan *pp = &r->plan[pl];
        pp->how = (v10_placement)pl;
        pp->npu_of = calloc(n, sizeof *pp->npu_of);
        pp->svc = calloc(n, sizeof *pp->svc);
        pp->npu_util = calloc(m, sizeof *pp->npu_util);
        pp->npu_stp = calloc(m, sizeof *pp->npu_stp);
        if (!pp->npu_of || !pp->svc || !pp->npu_util || !pp->npu_stp) {
            v10_err_set(err, "out of memory");
            goto done;
        }
        if (pl == V10_PLACE_CLUSTER)
            place_by_scores(S, n, m, pp->npu_of);
        else if (pl == V10_PLACE_GREEDY)
            place_greedy(r->prof, n, m, pp->npu_of);
        else
            place_random(n, m, o->colloc.seed, pp->npu_of);
    }

    /* 4. Simulate every NPU of every placement; tenants keep file order. */
    size_t base_i = 2 * ncp;
    for (int pl = 0; pl < V10_PLACEMENTS; pl++) {
        v10_tenant_spec *t = &ten[(size_t)pl * n];
        size_t off = 0;
        for (size_t j = 0; j < m; j++) {
            v10_run_config *c = &cfgs[base_i + (size_t)pl * m + j];
            *c = o->base;
            c->trace = NULL;
            c->no_attribution = 1; /* nobody reads where the time went */
            c->op_states = 0;
            c->tenants = &t[off];
            size_t cnt = 0;
            for (size_t i = 0; i < n; i++)
                if (r->plan[pl].npu_of[i] == j)
                    t[off + cnt++] = svc[i].spec;
            V10_ASSERT(cnt >= 2);
            c->n_tenants = cnt;
            if (!(c->requests = v10_span_requests(&span, &t[off], cnt, o->base.requests, err)))
                goto done;
            off += cnt;
        }
    }
    v10_pool_job job2 = {.cfgs = cfgs + base_i, .results = res + base_i,
                         .n = V10_PLACEMENTS * m, .threads = o->threads,
                         .progress = o->progress ? "fleet: simulating NPUs" : NULL};
    if (v10_pool_run(&job2, err))
        goto done;
    for (int pl = 0; pl < V10_PLACEMENTS; pl++) {
        v10_fleet_plan *pp = &r->plan[pl];
        double p95 = 0;
        for (size_t j = 0; j < m; j++) {
            const v10_run_result *rr = &res[base_i + (size_t)pl * m + j];
            pp->npu_util[j] = rr->util_overall;
            pp->npu_stp[j] = rr->stp;
            pp->util_overall += rr->util_overall / (double)m;
            pp->util_sa += rr->util_sa / (double)m;
            pp->util_vu += rr->util_vu / (double)m;
            pp->stp_total += rr->stp;
            size_t t = 0;
            for (size_t i = 0; i < n; i++)
                if (pp->npu_of[i] == j) {
                    const v10_tenant_result *tr = &rr->tenants[t++];
                    pp->svc[i].npu = j;
                    pp->svc[i].np = tr->np;
                    pp->svc[i].throughput_rps = tr->throughput_rps;
                    pp->svc[i].lat_avg_us = tr->lat_avg_us;
                    pp->svc[i].lat_p95_us = tr->lat_p95_us;
                    p95 += pp->svc[i].lat_p95_us / (double)n;
                }
        }
        pp->lat_p95_mean_us = p95;
    }
    rc = 0;
done:
    if (res)
        for (size_t i = 0; i < nruns; i++)
            v10_run_result_fini(&res[i]);
    free(res);
    free(cfgs);
    free(rep);
    free(ten);
    v10_span_fini(&span);
    free(S);
    free(dprof);
    free(dof);
    free(dptr);
    free(dspec);
    if (rc)
        v10_fleet_result_fini(r);
    return rc;
}
