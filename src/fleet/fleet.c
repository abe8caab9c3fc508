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
#include "util/num.h"
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

/*
 * Cluster placement.  The score of two services i != j is their clusters'
 * pair score, cs[cl[i] * k + cl[j]] (symmetric, k clusters); the objective
 * is the sum of the scores of the pairs sharing an NPU.
 *
 * Services in decreasing order of their best pairwise score each join the
 * NPU with room whose members they score best with on average (an empty
 * NPU scores the mean over all pairs), then pairwise swaps between NPUs in
 * index order (a < b), each kept when it raises the objective by more than
 * 1e-9, in passes until one keeps none (at most 100).  Deterministic.
 *
 * Because a score depends only on the two clusters, each NPU j is kept as
 * its count of members per cluster, cnt[j * k + c], and its affinity to
 * each cluster, aff[j * k + c] = sum over its members t of cs[c][cl[t]]
 * (recomputed from the counts, so it does not depend on the order of the
 * moves).  A service's average score on an NPU and a swap's gain then cost
 * O(1): the start is O(n m + n log n + m k^2), a pass O(n^2 + s k^2) for s
 * swaps kept, in O(m k) memory (the n x n score matrix is never formed).
 * 0, or -1 out of memory.
 */
static int place_by_scores(const double *cs, size_t k, const int *cl, size_t n, size_t m,
                           size_t *npu_of)
{
    size_t *order = malloc(n * sizeof *order), *used = calloc(m, sizeof *used);
    size_t *cnt = calloc(m * k, sizeof *cnt), total[V10_K_MAX] = {0};
    double *aff = calloc(m * k, sizeof *aff), *best = malloc(n * sizeof *best);
    int rc = -1;
    if (!order || !used || !cnt || !aff || !best)
        goto done;
    for (size_t i = 0; i < n; i++)
        total[cl[i]]++;
    /* The mean over the n (n - 1) ordered pairs, and each service's best
     * partner: a cluster with a member other than itself. */
    double mean = 0;
    for (size_t c = 0; c < k; c++)
        for (size_t d = 0; d < k && total[c]; d++)
            mean += (double)total[c] * (double)(total[d] - (c == d)) * cs[c * k + d];
    mean /= (double)n * (double)(n - 1);
    for (size_t i = 0; i < n; i++) {
        size_t c = (size_t)cl[i];
        best[i] = -INFINITY;
        for (size_t d = 0; d < k; d++)
            if (total[d] > (c == d))
                best[i] = fmax(best[i], cs[c * k + d]);
    }
    if (v10_order_desc(best, n, order))
        goto done;
#define AFF(j, c) aff[(j) * k + (c)]
#define REFRESH(j) /* aff of NPU j from its counts */                                \
    for (size_t c_ = 0; c_ < k; c_++) {                                              \
        double a_ = 0;                                                               \
        for (size_t d_ = 0; d_ < k; d_++)                                            \
            a_ += (double)cnt[(j) * k + d_] * cs[c_ * k + d_];                      \
        AFF(j, c_) = a_;                                                             \
    }
    for (size_t i = 0; i < n; i++)
        npu_of[i] = m; /* unplaced */
    for (size_t oi = 0; oi < n; oi++) {
        size_t s = order[oi], c = (size_t)cl[s], pick = m;
        double ps = -INFINITY;
        for (size_t j = 0; j < m; j++) {
            if (used[j] >= capacity(n, m, j))
                continue;
            double sc = used[j] ? AFF(j, c) / (double)used[j] : mean;
            if (sc > ps + 1e-12) {
                ps = sc;
                pick = j;
            }
        }
        V10_ASSERT(pick < m);
        npu_of[s] = pick;
        used[pick]++;
        cnt[pick * k + c]++;
        REFRESH(pick);
    }
    for (int pass = 0; pass < 100; pass++) {
        int improved = 0;
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++) {
                size_t A = npu_of[a], B = npu_of[b], ca = (size_t)cl[a], cb = (size_t)cl[b];
                if (A == B || ca == cb)
                    continue; /* the same objective */
                /* a leaves A's other members for B's others, b the reverse */
                double gain = (AFF(B, ca) - cs[ca * k + cb]) - (AFF(A, ca) - cs[ca * k + ca]) +
                              (AFF(A, cb) - cs[cb * k + ca]) - (AFF(B, cb) - cs[cb * k + cb]);
                if (gain > 1e-9) {
                    npu_of[a] = B;
                    npu_of[b] = A;
                    cnt[A * k + ca]--, cnt[A * k + cb]++;
                    cnt[B * k + cb]--, cnt[B * k + ca]++;
                    REFRESH(A);
                    REFRESH(B);
                    improved = 1;
                }
            }
        if (!improved)
            break;
    }
#undef REFRESH
#undef AFF
    rc = 0;
done:
    free(order);
    free(used);
    free(cnt);
    free(aff);
    free(best);
    return rc;
}

/*
 * Greedy complementarity: services in decreasing order of their dominant
 * standalone utilization each go to the NPU with room whose summed load
 * max(sum SA, sum VU, sum HBM) stays lowest after adding them: O(n m +
 * n log n).  0, or -1 out of memory.
 */
static int place_greedy(const v10_profile *p, size_t n, size_t m, size_t *npu_of)
{
    size_t *order = malloc(n * sizeof *order), *used = calloc(m, sizeof *used);
    double(*load)[3] = calloc(m, sizeof *load), *dom = malloc(n * sizeof *dom);
    int rc = -1;
    if (!order || !used || !load || !dom)
        goto done;
    for (size_t i = 0; i < n; i++)
        dom[i] = fmax(p[i].util_sa, fmax(p[i].util_vu, p[i].util_hbm));
    if (v10_order_desc(dom, n, order))
        goto done;
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
    rc = 0;
done:
    free(order);
    free(used);
    free(load);
    free(dom);
    return rc;
}

/* A seeded shuffle dealt round robin: O(n).  0, or -1 out of memory. */
static int place_random(size_t n, size_t m, uint64_t seed, size_t *npu_of)
{
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm)
        return -1;
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
    return 0;
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

/* first[0..m] and member[0..n): NPU j's services are member[first[j] ..
 * first[j + 1]), in index order (a counting sort: O(n + m)). */
static void members(const size_t *npu_of, size_t n, size_t m, size_t *first, size_t *member)
{
    memset(first, 0, (m + 1) * sizeof *first);
    for (size_t i = 0; i < n; i++)
        first[npu_of[i] + 1]++;
    for (size_t j = 0; j < m; j++)
        first[j + 1] += first[j];
    for (size_t i = 0; i < n; i++)
        member[first[npu_of[i]]++] = i;
    for (size_t j = m; j > 0; j--) /* each first[j] moved to first[j + 1] */
        first[j] = first[j - 1];
    first[0] = 0;
}

/* A key and where it came from, sorted by key then index. */
typedef struct tagged {
    const void *key;
    size_t len; /* of key, in elements */
    size_t i;
} tagged;

static int by_spec(const void *pa, const void *pb)
{
    const tagged *a = pa, *b = pb;
    int c = memcmp(a->key, b->key, sizeof(v10_tenant_spec));
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* A service's kind: the same number for services with the same tenant spec
 * (model, batch, rate, priority; the parser zeroes every spec whole, so the
 * bytes compare): the lowest index among them.  O(n log n).  0, or -1 out
 * of memory. */
static int service_kinds(const v10_service *svc, size_t n, size_t *kind)
{
    tagged *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++)
        t[i] = (tagged){&svc[i].spec, 1, i};
    qsort(t, n, sizeof *t, by_spec);
    for (size_t x = 0; x < n; x++) /* a group's first is its lowest index */
        kind[t[x].i] = x && !memcmp(t[x].key, t[x - 1].key, sizeof svc->spec)
                           ? kind[t[x - 1].i] : t[x].i;
    free(t);
    return 0;
}

static int by_kinds(const void *pa, const void *pb)
{
    const tagged *a = pa, *b = pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    const size_t *x = a->key, *y = b->key;
    for (size_t t = 0; t < a->len; t++)
        if (x[t] != y[t])
            return x[t] < y[t] ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The NPUs u = p m + j of the placements (NPU j of placement p holds the
 * services member[p n + first[p (m + 1) + j] ...]) grouped by the kinds of
 * their services in order: run_of[u] numbers the groups 0..*groups-1 in
 * order of their first NPU.  O(N log N) comparisons of at most 64 kinds
 * for N NPUs.  0, or -1 out of memory. */
static int distinct_npus(const size_t *first, const size_t *member, const size_t *kind,
                         size_t npus, size_t m, size_t n, size_t *run_of, size_t *groups)
{
    tagged *t = malloc(npus * sizeof *t);
    size_t *seq = malloc(n * V10_PLACEMENTS * sizeof *seq), *head = malloc(npus * sizeof *head);
    if (!t || !seq || !head) {
        free(t), free(seq), free(head);
        return -1;
    }
    for (size_t u = 0; u < npus; u++) {
        const size_t *f = &first[(u / m) * (m + 1)], *mem = &member[(u / m) * n];
        size_t j = u % m;
        for (size_t s = f[j]; s < f[j + 1]; s++)
            seq[(u / m) * n + s] = kind[mem[s]];
        t[u] = (tagged){&seq[(u / m) * n + f[j]], f[j + 1] - f[j], u};
    }
    qsort(t, npus, sizeof *t, by_kinds);
    for (size_t x = 0; x < npus; x++) /* each NPU's group, named by its first NPU */
        head[t[x].i] = x && t[x].len == t[x - 1].len &&
                               !memcmp(t[x].key, t[x - 1].key, t[x].len * sizeof *seq)
                           ? head[t[x - 1].i] : t[x].i;
    *groups = 0;
    for (size_t u = 0; u < npus; u++)
        run_of[u] = head[u] == u ? (*groups)++ : run_of[head[u]];
    free(t), free(seq), free(head);
    return 0;
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
    size_t *first = NULL, *member = NULL, *run_of = NULL, *kind = NULL;
    v10_run_config *cfgs = NULL;
    v10_run_result *res = NULL;
    v10_tenant_spec *ten = NULL, *rep = NULL;
    size_t nruns = 0;
    v10_span span;
    v10_span_init(&span, &o->base.npu);
    r->prof = calloc(n, sizeof *r->prof);
    r->cluster = calloc(n, sizeof *r->cluster);
    if (!dspec || !dptr || !dof || !dprof || !r->prof || !r->cluster) {
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
    double cscore[V10_K_MAX * V10_K_MAX];
    q = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a; b < k; b++, q++) {
            cscore[a * k + b] = cscore[b * k + a] = v10_colloc_pair_gain(&res[2 * q]);
        }

    /* 3. Place three ways. */
    v10_progress bar;
    v10_progress_start(&bar, o->progress ? "fleet: placing" : NULL, V10_PLACEMENTS);
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
        if (pl == V10_PLACE_CLUSTER ? place_by_scores(cscore, k, r->cluster, n, m, pp->npu_of)
            : pl == V10_PLACE_GREEDY ? place_greedy(r->prof, n, m, pp->npu_of)
                                     : place_random(n, m, o->colloc.seed, pp->npu_of)) {
            v10_err_set(err, "out of memory");
            goto done;
        }
        v10_progress_step(&bar, (size_t)pl + 1);
    }
    v10_progress_end(&bar);

    /* 4. Simulate every NPU of every placement; tenants keep file order.
     *    NPUs holding the same tenants in the same order would give the same
     *    result (a run is a pure function of its configuration), so each such
     *    group is simulated once: at most 3 m runs, at most as many as there
     *    are distinct NPUs. */
    first = calloc(V10_PLACEMENTS * (m + 1), sizeof *first);
    member = calloc(V10_PLACEMENTS * n, sizeof *member);
    run_of = calloc(V10_PLACEMENTS * m, sizeof *run_of);
    kind = calloc(n, sizeof *kind);
    if (!first || !member || !run_of || !kind || service_kinds(svc, n, kind)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (int pl = 0; pl < V10_PLACEMENTS; pl++) {
        size_t *f = &first[(size_t)pl * (m + 1)], *mem = &member[(size_t)pl * n];
        members(r->plan[pl].npu_of, n, m, f, mem);
        for (size_t j = 0; j < m; j++) {
            V10_ASSERT(f[j + 1] - f[j] >= 2);
            for (size_t t = f[j]; t < f[j + 1]; t++)
                ten[(size_t)pl * n + t] = svc[mem[t]].spec;
        }
    }
    size_t base_i = 2 * ncp, nnpu;
    if (distinct_npus(first, member, kind, V10_PLACEMENTS * m, m, n, run_of, &nnpu)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (size_t u = 0, seen = 0; u < V10_PLACEMENTS * m && seen < nnpu; u++) {
        if (run_of[u] != seen)
            continue; /* simulated as an earlier NPU */
        size_t pl = u / m, j = u % m, *f = &first[pl * (m + 1)];
        v10_run_config *c = &cfgs[base_i + seen++];
        *c = o->base;
        c->trace = NULL;
        c->no_attribution = 1; /* nobody reads where the time went */
        c->op_states = 0;
        c->tenants = &ten[pl * n + f[j]];
        c->n_tenants = f[j + 1] - f[j];
        if (!(c->requests = v10_span_requests(&span, c->tenants, c->n_tenants,
                                              o->base.requests, err)))
            goto done;
    }
    v10_pool_job job2 = {.cfgs = cfgs + base_i, .results = res + base_i, .n = nnpu,
                         .threads = o->threads,
                         .progress = o->progress ? "fleet: simulating NPUs" : NULL};
    if (v10_pool_run(&job2, err))
        goto done;
    for (int pl = 0; pl < V10_PLACEMENTS; pl++) {
        v10_fleet_plan *pp = &r->plan[pl];
        const size_t *f = &first[(size_t)pl * (m + 1)], *mem = &member[(size_t)pl * n];
        double p95 = 0;
        for (size_t j = 0; j < m; j++) {
            const v10_run_result *rr = &res[base_i + run_of[(size_t)pl * m + j]];
            pp->npu_util[j] = rr->util_overall;
            pp->npu_stp[j] = rr->stp;
            pp->util_overall += rr->util_overall / (double)m;
            pp->util_sa += rr->util_sa / (double)m;
            pp->util_vu += rr->util_vu / (double)m;
            pp->stp_total += rr->stp;
            for (size_t t = f[j]; t < f[j + 1]; t++) {
                const v10_tenant_result *tr = &rr->tenants[t - f[j]];
                size_t i = mem[t];
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
    free(first);
    free(member);
    free(run_of);
    free(kind);
    free(dprof);
    free(dof);
    free(dptr);
    free(dspec);
    if (rc)
        v10_fleet_result_fini(r);
    return rc;
}
