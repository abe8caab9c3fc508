/*
 * repro.c — `v10sim repro`: every experiment of the V10 paper that the
 * simulator can reproduce (DESIGN §7), run as one batch on the thread pool,
 * then rendered in memory as CSVs, SVG plots, summary.md and report.html.
 *
 * Request-length mismatch: in a pair such as BERT (411 ms a request) + NCF
 * (4 µs), NCF keeps issuing requests until BERT has completed its count
 * (the engine's window, docs/architecture.md); a run of short models gets
 * more requests so that it spans several PMT slices (src/fleet/fleet.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "colloc/span.h"
#include "v10/repro.h"
#include "v10/cost.h"
#include "v10/pool.h"
#include "v10/svg.h"
#include "v10/table.h"

/* ---- the paper's workloads --------------------------------------------------------- */

#define NM 11
static const char *const models[NM] = {
    "bert", "dlrm", "efficientnet", "maskrcnn", "mnist", "ncf",
    "resnet50", "resnet-rs", "retinanet", "shapemask", "transformer",
};

/* The paper's 11 pairs (DESIGN §7), in its order and naming order. */
#define NPP 11
static const char *const paper_pairs[NPP][2] = {
    {"bert", "ncf"},          {"bert", "retinanet"},    {"resnet50", "retinanet"},
    {"ncf", "resnet50"},      {"bert", "transformer"},  {"bert", "dlrm"},
    {"resnet-rs", "shapemask"}, {"efficientnet", "resnet50"}, {"mnist", "ncf"},
    {"dlrm", "resnet50"},     {"resnet-rs", "maskrcnn"},
};

/* Paper headline figures (Xue et al., ISCA 2023, abstract and §6). */
#define PAPER_UTIL 1.64
#define PAPER_SA 1.63
#define PAPER_VU 1.65
#define PAPER_HBM 1.47
#define PAPER_STP 1.57
#define PAPER_LAT 1.56
#define PAPER_P95 1.74
#define PAPER_OVERLAP 0.63
#define PAPER_ACC_CLUSTER 0.8473
#define PAPER_ACC_HEUR 0.6491
#define PAPER_ACC_RANDOM 0.4483

#define NPOL 4
static const char *const pols[NPOL] = {"pmt", "v10-base", "v10-fair", "v10-full"};
enum { P_PMT = 0, P_BASE, P_FAIR, P_FULL };

#define NPAIR 55
#define NSLICE 12   /* 512 .. 1,048,576 cycles, powers of two */
#define NSPLIT 5    /* 50-50 .. 90-10 */
#define NVMEM 4     /* 8, 16, 32, 64 MiB */
#define NSCALE 4    /* 1, 2, 4, 8 SAs and VUs */
#define NTEN 4      /* 2, 4, 8, 16 tenants */
#define MAXT 16
static const char *const scale_npus[NSCALE] = {"v10-isca23", "v10-isca23-2x", "v10-isca23-4x",
                                               "v10-isca23-8x"};

enum { S_PAIRS = 0, S_SLICE, S_PRIO, S_VMEM, S_SCALE, S_CONT };

typedef struct point {
    int study;
    size_t n_t;
} point;

typedef struct pair {
    int a, b;   /* model indices, in naming order */
    int paper;  /* 1 for the paper's pairs */
    char name[64];
} pair;

typedef struct repro {
    const v10_repro_opts *o;
    const char *set;        /* workload set: "isca23" or "zoo" */
    char spec[NM][64];      /* what each model is loaded as, e.g. "isca23/bert" */
    int pairs_only;         /* only the paper's pairs (the other set, for comparison) */
    struct repro *alt;      /* the other workload set's pairs, or NULL */
    uint64_t requests, warmup;
    v10_npu npu;
    v10_span span;
    v10_profile prof[NM];
    pair pairs[NPAIR];
    v10_run_config *cfgs;
    point *pts;
    v10_tenant_spec *specs; /* MAXT per point */
    v10_run_result *res;
    size_t n, cap;
    /* indices into the point list */
    size_t i_pairs[NPAIR][NPOL], i_slice[NPP][NSLICE], i_prio[NPP][NSPLIT][2],
        i_vmem[NPP][NVMEM][2], i_scale[NSCALE][NTEN][2], i_cont[NPP][2];
    v10_colloc_result col, col_med;
    double med_threshold;
    double max_resident_mib;  /* largest vmem_bytes of any operator */
    v10_repro_out *out;
} repro;

static int model_index(const char *name)
{
    for (int i = 0; i < NM; i++)
        if (!strcmp(models[i], name))
            return i;
    return -1;
}

/* ---- building the batch ---------------------------------------------------------------- */

/* Appends a point running `n_t` models (indices) with priorities under
 * policy `pol` on `npu`; returns its index or (size_t)-1 on error. */
static size_t add_point(repro *R, int study, const int *ms, const double *prio, size_t n_t,
                        const char *pol, const v10_npu *npu, v10_err *err)
{
    if (R->n == R->cap) {
        size_t nc = R->cap ? 2 * R->cap : 256;
        v10_run_config *c = realloc(R->cfgs, nc * sizeof *c);
        if (c)
            R->cfgs = c;
        point *p = realloc(R->pts, nc * sizeof *p);
        if (p)
            R->pts = p;
        v10_tenant_spec *s = realloc(R->specs, nc * MAXT * sizeof *s);
        if (s)
            R->specs = s;
        if (!c || !p || !s)
            return (size_t)v10_err_set(err, "out of memory");
        R->cap = nc;
    }
    size_t i = R->n;
    point *pt = &R->pts[i];
    memset(pt, 0, sizeof *pt);
    pt->study = study;
    pt->n_t = n_t;
    v10_tenant_spec *ts = &R->specs[i * MAXT];
    for (size_t t = 0; t < n_t; t++) {
        char spec[V10_SPEC_MAX + 64];
        snprintf(spec, sizeof spec, "%s:priority=%g", R->spec[ms[t]], prio ? prio[t] : 1.0);
        if (v10_tenant_spec_parse(spec, &ts[t], err))
            return (size_t)-1;
    }
    uint64_t req = v10_span_requests(&R->span, ts, n_t, R->requests, err);
    if (!req)
        return (size_t)-1;
    v10_run_config *c = &R->cfgs[i];
    v10_run_config_default(c);
    c->npu = *npu;
    snprintf(c->policy, sizeof c->policy, "%s", pol);
    c->n_tenants = n_t;
    c->requests = req;
    c->warmup = R->warmup;
    c->seed = R->o->seed;
    /* The studies are sized here and known to finish; the event budget
     * guards a user's run, and its estimate assumes time-sharing of the
     * whole core (658 s simulated for the 16-tenant point at 12 requests,
     * ~20x the events it takes).  The stall guard still applies. */
    c->max_events = UINT64_MAX;
    R->n++;
    return i;
}

static int build(repro *R, v10_err *err)
{
    size_t np = 0;
    /* Paper pairs first, in the paper's order, then the rest in name order. */
    for (int i = 0; i < NPP; i++) {
        pair *p = &R->pairs[np++];
        p->a = model_index(paper_pairs[i][0]);
        p->b = model_index(paper_pairs[i][1]);
        V10_ASSERT(p->a >= 0 && p->b >= 0);
        p->paper = 1;
    }
    for (int a = 0; a < NM; a++)
        for (int b = a + 1; b < NM; b++) {
            int seen = 0;
            for (size_t i = 0; i < NPP; i++)
                seen |= (R->pairs[i].a == a && R->pairs[i].b == b) ||
                        (R->pairs[i].a == b && R->pairs[i].b == a);
            if (!seen) {
                R->pairs[np].a = a;
                R->pairs[np].b = b;
                R->pairs[np++].paper = 0;
            }
        }
    V10_ASSERT(np == NPAIR);
    for (size_t i = 0; i < NPAIR; i++)
        snprintf(R->pairs[i].name, sizeof R->pairs[i].name, "%s+%s", models[R->pairs[i].a],
                 models[R->pairs[i].b]);

#define ADD(dst, study, ms, prio, n, pol, npu)                                                  \
    do {                                                                                       \
        size_t ix_ = add_point(R, study, ms, prio, n, pol, npu, err);                          \
        if (ix_ == (size_t)-1)                                                                 \
            return -1;                                                                         \
        dst = ix_;                                                                             \
    } while (0)

    /* The scalability study first: its 16-tenant runs are the longest, and
     * the pool hands out points in order, so starting them first keeps both
     * threads busy to the end (longest job first).  Results are by index,
     * so the order changes nothing in the outputs. */
    if (!R->pairs_only) {
        for (int s = 0; s < NSCALE; s++) {
            v10_npu n;
            if (v10_npu_preset(scale_npus[s], &n, err))
                return -1;
            for (int t = 0; t < NTEN; t++) {
                size_t nt = 2u << t;
                int ms[MAXT];
                for (size_t i = 0; i < nt / 2; i++) {
                    ms[2 * i] = R->pairs[i].a;
                    ms[2 * i + 1] = R->pairs[i].b;
                }
                for (int k = 0; k < 2; k++)
                    ADD(R->i_scale[s][t][k], S_SCALE, ms, NULL, nt, k ? "v10-full" : "pmt", &n);
            }
        }
    }
    /* The other set, shown beside for comparison, runs the paper's pairs only. */
    for (size_t p = 0; p < (R->pairs_only ? (size_t)NPP : (size_t)NPAIR); p++) {
        int ms[2] = {R->pairs[p].a, R->pairs[p].b};
        for (int k = 0; k < NPOL; k++)
            ADD(R->i_pairs[p][k], S_PAIRS, ms, NULL, 2, pols[k], &R->npu);
    }
    if (R->pairs_only)
        goto studies_done;
    for (size_t p = 0; p < NPP; p++) {
        int ms[2] = {R->pairs[p].a, R->pairs[p].b};
        for (int s = 0; s < NSLICE; s++) {
            ADD(R->i_slice[p][s], S_SLICE, ms, NULL, 2, "v10-full", &R->npu);
            R->cfgs[R->i_slice[p][s]].params.slice_cycles = 512ull << s;
        }
        for (int s = 0; s < NSPLIT; s++) {
            double pr[2] = {50.0 + 10 * s, 50.0 - 10 * s};
            for (int k = 0; k < 2; k++)
                ADD(R->i_prio[p][s][k], S_PRIO, ms, pr, 2, k ? "v10-full" : "pmt", &R->npu);
        }
        for (int v = 0; v < NVMEM; v++) {
            v10_npu n = R->npu;
            n.vmem_bytes = (8ull << v) << 20;
            for (int k = 0; k < 2; k++)
                ADD(R->i_vmem[p][v][k], S_VMEM, ms, NULL, 2, k ? "v10-full" : "pmt", &n);
        }
        for (int k = 0; k < 2; k++) {
            ADD(R->i_cont[p][k], S_CONT, ms, NULL, 2, k ? "v10-full" : "pmt", &R->npu);
            R->cfgs[R->i_cont[p][k]].contention = 0;
        }
    }
#undef ADD
studies_done:
    for (size_t i = 0; i < R->n; i++)
        R->cfgs[i].tenants = &R->specs[i * MAXT];
    return 0;
}

/* ---- per-run figures ------------------------------------------------------------------- */

static const v10_run_result *res_at(const repro *R, size_t i) { return &R->res[i]; }

static double switch_frac(const v10_run_result *r)
{
    double w = (double)(r->end_cycle ? r->end_cycle : 1);
    return (double)r->switch_cycles / w;
}
static double ratio(double a, double b) { return b > 0 ? a / b : NAN; }

/* Running mean that skips undefined values (a tenant with no measured request). */
typedef struct mean {
    double sum;
    unsigned n, skipped;
} mean;
static void mean_add(mean *m, double v)
{
    if (isfinite(v)) {
        m->sum += v;
        m->n++;
    } else {
        m->skipped++;
    }
}
static double mean_get(const mean *m) { return m->n ? m->sum / m->n : NAN; }

/* Mean over the two tenants of lat(base) / lat(x): > 1 means x is faster. */
static double lat_speedup(const repro *R, size_t base, size_t x, int p95)
{
    double s = 0;
    for (size_t t = 0; t < 2; t++) {
        const v10_tenant_result *a = &R->res[base].tenants[t], *b = &R->res[x].tenants[t];
        s += p95 ? ratio(a->lat_p95_us, b->lat_p95_us) : ratio(a->lat_avg_us, b->lat_avg_us);
    }
    return s / 2;
}

/* ---- output files ------------------------------------------------------------------------ */

static int add_file(repro *R, const char *name, char *data, size_t len, v10_err *err)
{
    v10_repro_out *o = R->out;
    v10_artifact *f = realloc(o->files, (o->n_files + 1) * sizeof *f);
    if (!f) {
        free(data);
        return v10_err_set(err, "out of memory");
    }
    o->files = f;
    v10_artifact *a = &f[o->n_files++];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->data = data;
    a->len = len;
    return 0;
}

static int add_tab(repro *R, const char *name, v10_tab *t, v10_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return v10_err_set(err, "out of memory");
    int bad = v10_tab_write(t, V10_FMT_CSV, f);
    bad |= fclose(f) != 0;
    if (bad) {
        free(buf);
        return v10_err_set(err, "%s: rendering failed", name);
    }
    return add_file(R, name, buf, len, err);
}

/* Charts kept for the HTML report. */
typedef struct chart {
    char name[64];
    char caption[400];
    char *svg;
} chart;

typedef struct charts {
    chart c[24];
    size_t n;
} charts;

static int add_chart(repro *R, charts *cs, const char *name, const v10_svg_chart *c,
                     const char *caption, v10_err *err)
{
    char *svg = v10_svg_render(c);
    if (!svg)
        return v10_err_set(err, "%s: rendering failed", name);
    V10_ASSERT(cs->n < sizeof cs->c / sizeof cs->c[0]);
    chart *ch = &cs->c[cs->n++];
    snprintf(ch->name, sizeof ch->name, "%s", name);
    snprintf(ch->caption, sizeof ch->caption, "%s", caption);
    ch->svg = svg;
    char *copy = strdup(svg);
    if (!copy)
        return v10_err_set(err, "out of memory");
    return add_file(R, name, copy, strlen(copy), err);
}

/* Upper bound on STP(V10-Full) / STP(PMT) for pair p: the perfect-overlap
 * STP bound of the standalone profiles over the simulated PMT STP. */
static double bound_ratio(const repro *R, size_t p)
{
    return ratio(v10_profile_pair_bound(&R->prof[R->pairs[p].a], &R->prof[R->pairs[p].b]),
                 res_at(R, R->i_pairs[p][P_PMT])->stp);
}

/* Mean ratios of V10-Full over PMT over the paper's pairs. */
typedef struct ratios {
    double util, sa, vu, hbm, stp, lat, p95, overlap, switch_frac, bound;
    unsigned lat_skipped;  /* pairs without a latency ratio (no measured request) */
    double util_pair[NPP], stp_pair[NPP], lat_pair[NPP], p95_pair[NPP];
} ratios;

static void mean_ratios(const repro *R, ratios *q)
{
    memset(q, 0, sizeof *q);
    mean ml = {0}, mp = {0};
    for (size_t p = 0; p < NPP; p++) {
        size_t ip = R->i_pairs[p][P_PMT], iff = R->i_pairs[p][P_FULL];
        const v10_run_result *a = res_at(R, ip), *b = res_at(R, iff);
        q->util_pair[p] = ratio(b->util_overall, a->util_overall);
        q->stp_pair[p] = ratio(b->stp, a->stp);
        q->lat_pair[p] = lat_speedup(R, ip, iff, 0);
        q->p95_pair[p] = lat_speedup(R, ip, iff, 1);
        q->util += q->util_pair[p] / NPP;
        q->sa += ratio(b->util_sa, a->util_sa) / NPP;
        q->vu += ratio(b->util_vu, a->util_vu) / NPP;
        q->hbm += ratio(b->util_hbm, a->util_hbm) / NPP;
        q->stp += q->stp_pair[p] / NPP;
        mean_add(&ml, q->lat_pair[p]);
        mean_add(&mp, q->p95_pair[p]);
        q->overlap += b->overlap / NPP;
        q->switch_frac += switch_frac(b) / NPP;
        q->bound += bound_ratio(R, (size_t)p) / NPP;
    }
    q->lat = mean_get(&ml);
    q->p95 = mean_get(&mp);
    q->lat_skipped = ml.skipped > mp.skipped ? ml.skipped : mp.skipped;
}

static int render_pairs(repro *R, charts *cs, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    const char *cols[] = {"pair", "paper", "policy", "model_1", "model_2", "requests"};
    for (size_t i = 0; i < 6; i++)
        v10_tab_col(t, cols[i], i == 1 || i >= 5 ? V10_COL_INT : V10_COL_STR, 0);
    const char *rc[] = {"sa", "vu", "hbm", "overall", "overlap", "stp", "antt", "fairness",
                        "np_1", "np_2", "lat_avg_us_1", "lat_avg_us_2", "lat_p95_us_1",
                        "lat_p95_us_2", "switch_frac", "stp_bound"};
    for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++)
        v10_tab_col(t, rc[i], V10_COL_REAL, i >= 10 && i <= 13 ? 2 : 4);
    v10_tab_col(t, "preemptions", V10_COL_INT, 0);
    for (size_t p = 0; p < NPAIR; p++)
        for (int k = 0; k < NPOL; k++) {
            size_t i = R->i_pairs[p][k];
            const v10_run_result *r = res_at(R, i);
            v10_tab_row(t);
            v10_tab_str(t, R->pairs[p].name);
            v10_tab_int(t, R->pairs[p].paper);
            v10_tab_str(t, pols[k]);
            v10_tab_str(t, models[R->pairs[p].a]);
            v10_tab_str(t, models[R->pairs[p].b]);
            v10_tab_int(t, R->cfgs[i].requests);
            v10_tab_real(t, r->util_sa);
            v10_tab_real(t, r->util_vu);
            v10_tab_real(t, r->util_hbm);
            v10_tab_real(t, r->util_overall);
            v10_tab_real(t, r->overlap);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, r->antt);
            v10_tab_real(t, r->fairness);
            v10_tab_real(t, r->tenants[0].np);
            v10_tab_real(t, r->tenants[1].np);
            v10_tab_real(t, r->tenants[0].lat_avg_us);
            v10_tab_real(t, r->tenants[1].lat_avg_us);
            v10_tab_real(t, r->tenants[0].lat_p95_us);
            v10_tab_real(t, r->tenants[1].lat_p95_us);
            v10_tab_real(t, switch_frac(r));
            v10_tab_real(t, v10_profile_pair_bound(&R->prof[R->pairs[p].a],
                                                   &R->prof[R->pairs[p].b]));
            v10_tab_int(t, (int64_t)r->preemptions);
        }
    int rc_ = add_tab(R, "pairs.csv", t, err);
    v10_tab_destroy(t);
    if (rc_)
        return -1;

    /* Normalized-to-PMT grouped bars over the paper's pairs. */
    const char *cats[NPP];
    double y[NPOL][NPP], yl[NPOL][NPP], yp[NPOL][NPP], yu[NPOL][NPP], yo[NPOL][NPP];
    for (size_t p = 0; p < NPP; p++) {
        cats[p] = R->pairs[p].name;
        size_t i0 = R->i_pairs[p][P_PMT];
        for (int k = 0; k < NPOL; k++) {
            size_t i = R->i_pairs[p][k];
            y[k][p] = ratio(res_at(R, i)->stp, res_at(R, i0)->stp);
            yu[k][p] = ratio(res_at(R, i)->util_overall, res_at(R, i0)->util_overall);
            /* latency normalized to PMT: lat(x) / lat(PMT), lower is better */
            yl[k][p] = 1 / lat_speedup(R, i0, i, 0);
            yp[k][p] = 1 / lat_speedup(R, i0, i, 1);
            yo[k][p] = res_at(R, i)->overlap;
        }
    }
    v10_svg_series s[NPOL];
    v10_svg_chart c = {.kind = V10_SVG_BARS, .n_x = NPP, .cats = cats, .series = s,
                       .n_series = NPOL, .ref_y = 1, .width = 900, .height = 420};
    struct {
        const char *file, *title, *ylab, *cap;
        double(*v)[NPP];
        double ref;
    } figs[] = {
        {"throughput.svg", "Aggregated throughput (STP) normalized to PMT", "STP / STP(PMT)",
         "Throughput (STP = sum of normalized progress) of each policy over PMT, per paper pair.",
         y, 1},
        {"utilization.svg", "Utilization (mean of SA and VU) normalized to PMT",
         "utilization / PMT", "Overall FU utilization of each policy over PMT, per paper pair.",
         yu, 1},
        {"latency_avg.svg", "Average latency normalized to PMT (lower is better)",
         "latency / PMT", "Per-inference average latency over PMT (mean of the two tenants).",
         yl, 1},
        {"latency_p95.svg", "95th-percentile latency normalized to PMT (lower is better)",
         "p95 latency / PMT", "95th-percentile latency over PMT (mean of the two tenants).", yp,
         1},
        {"overlap.svg", "SA and VU busy at the same time", "fraction of the window",
         "Fraction of the window in which an SA and a VU are both busy (paper: 63% for V10).",
         yo, NAN},
    };
    for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
        for (int k = 0; k < NPOL; k++)
            s[k] = (v10_svg_series){pols[k], figs[f].v[k]};
        c.title = figs[f].title;
        c.ylabel = figs[f].ylab;
        c.ref_y = figs[f].ref;
        if (add_chart(R, cs, figs[f].file, &c, figs[f].cap, err))
            return -1;
    }

    /* V10-Full over PMT per resource. */
    double br[3][NPP];
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *a = res_at(R, R->i_pairs[p][P_PMT]),
                             *b = res_at(R, R->i_pairs[p][P_FULL]);
        br[0][p] = ratio(b->util_sa, a->util_sa);
        br[1][p] = ratio(b->util_vu, a->util_vu);
        br[2][p] = ratio(b->util_hbm, a->util_hbm);
    }
    v10_svg_series sb[3] = {{"SA", br[0]}, {"VU", br[1]}, {"HBM", br[2]}};
    v10_svg_chart cb = {.kind = V10_SVG_BARS, .title = "V10-Full over PMT by resource",
                        .ylabel = "utilization(V10-Full) / utilization(PMT)", .n_x = NPP,
                        .cats = cats, .series = sb, .n_series = 3, .ref_y = 1, .width = 900,
                        .height = 420};
    if (add_chart(R, cs, "util_breakdown.svg", &cb,
                  "SA, VU and HBM-bandwidth utilization of V10-Full over PMT, per paper pair.",
                  err))
        return -1;

    /* All 55 pairs, sorted by gain. */
    size_t ord[NPAIR];
    double g[NPAIR], gs[NPAIR], bs[NPAIR];
    const char *names[NPAIR];
    for (size_t p = 0; p < NPAIR; p++) {
        ord[p] = p;
        g[p] = ratio(res_at(R, R->i_pairs[p][P_FULL])->stp, res_at(R, R->i_pairs[p][P_PMT])->stp);
    }
    for (size_t i = 1; i < NPAIR; i++)
        for (size_t j = i; j > 0 && g[ord[j]] > g[ord[j - 1]]; j--) {
            size_t tmp = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = tmp;
        }
    for (size_t i = 0; i < NPAIR; i++) {
        names[i] = R->pairs[ord[i]].name;
        gs[i] = g[ord[i]];
        bs[i] = bound_ratio(R, ord[i]);
    }
    v10_svg_series sa[2] = {{"V10-Full / PMT (simulated)", gs},
                            {"bound: 2 / max(1, sum SA, sum VU, sum HBM) / STP(PMT)", bs}};
    v10_svg_chart ca = {.kind = V10_SVG_BARS, .title = "STP gain of V10-Full over PMT, all 55 pairs",
                        .ylabel = "STP(V10-Full) / STP(PMT)", .n_x = NPAIR, .cats = names,
                        .series = sa, .n_series = 2, .ref_y = 1.3, .width = 1100,
                        .height = 480};
    return add_chart(R, cs, "all_pairs.svg", &ca,
                     "STP gain for every pair of the eleven models, sorted, beside the bound "
                     "from standalone utilizations; the dashed line is the 1.3x "
                     "'beneficial' threshold.",
                     err);
}

static int render_studies(repro *R, charts *cs, v10_err *err)
{
    const char *pnames[NPP];
    for (size_t p = 0; p < NPP; p++)
        pnames[p] = R->pairs[p].name;
    /* Time slice. */
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "slice_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    const char *sc[] = {"stp", "stp_vs_pmt", "overall", "overlap", "lat_avg_speedup",
                        "lat_p95_speedup", "switch_frac"};
    for (size_t i = 0; i < 7; i++)
        v10_tab_col(t, sc[i], V10_COL_REAL, 4);
    v10_tab_col(t, "preemptions", V10_COL_INT, 0);
    double xs[NSLICE], m_stp[NSLICE] = {0}, m_util[NSLICE] = {0}, m_lat[NSLICE] = {0},
                       m_p95[NSLICE] = {0}, m_sw[NSLICE] = {0};
    mean ml[NSLICE] = {{0}}, mp[NSLICE] = {{0}};
    char xl_buf[NSLICE][16];
    const char *xl[NSLICE];
    for (int s = 0; s < NSLICE; s++) {
        xs[s] = (double)(512ull << s);
        unsigned long long v = 512ull << s;
        if (v >= 1048576)
            snprintf(xl_buf[s], 16, "%lluM", v >> 20);
        else if (v >= 1024)
            snprintf(xl_buf[s], 16, "%lluK", v >> 10);
        else
            snprintf(xl_buf[s], 16, "%llu", v);
        xl[s] = xl_buf[s];
        for (size_t p = 0; p < NPP; p++) {
            size_t i = R->i_slice[p][s], i0 = R->i_pairs[p][P_PMT];
            const v10_run_result *r = res_at(R, i), *r0 = res_at(R, i0);
            v10_tab_row(t);
            v10_tab_int(t, (int64_t)(512ull << s));
            v10_tab_str(t, pnames[p]);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, ratio(r->stp, r0->stp));
            v10_tab_real(t, r->util_overall);
            v10_tab_real(t, r->overlap);
            v10_tab_real(t, lat_speedup(R, i0, i, 0));
            v10_tab_real(t, lat_speedup(R, i0, i, 1));
            v10_tab_real(t, switch_frac(r));
            v10_tab_int(t, (int64_t)r->preemptions);
            m_stp[s] += ratio(r->stp, r0->stp) / NPP;
            m_util[s] += ratio(r->util_overall, r0->util_overall) / NPP;
            mean_add(&ml[s], lat_speedup(R, i0, i, 0));
            mean_add(&mp[s], lat_speedup(R, i0, i, 1));
            m_sw[s] += switch_frac(r) / NPP;
        }
    }
    for (int s = 0; s < NSLICE; s++) {
        m_lat[s] = mean_get(&ml[s]);
        m_p95[s] = mean_get(&mp[s]);
    }
    int rc = add_tab(R, "slice.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    v10_svg_series ss[5] = {{"STP / PMT", m_stp},
                            {"utilization / PMT", m_util},
                            {"avg latency: PMT / V10-Full", m_lat},
                            {"p95 latency: PMT / V10-Full", m_p95},
                            {"context-switch time fraction", m_sw}};
    v10_svg_chart c = {.kind = V10_SVG_LINES, .title = "V10-Full: preemption time slice",
                       .xlabel = "time slice (cycles)", .ylabel = "mean over the 11 pairs",
                       .n_x = NSLICE, .x = xs, .log2_x = 1, .x_labels = xl, .series = ss,
                       .n_series = 5, .ref_y = 1};
    if (add_chart(R, cs, "slice.svg", &c,
                  "Sensitivity to V10's preemption time slice (512 to 1M cycles), mean over "
                  "the paper's pairs; the default is 32K cycles.",
                  err))
        return -1;

    /* Priority splits. */
    t = v10_tab_create();
    v10_tab_col(t, "split", V10_COL_STR, 0);
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "priority_1", V10_COL_REAL, 0);
    v10_tab_col(t, "priority_2", V10_COL_REAL, 0);
    v10_tab_col(t, "np_1", V10_COL_REAL, 4);
    v10_tab_col(t, "np_2", V10_COL_REAL, 4);
    v10_tab_col(t, "share_1", V10_COL_REAL, 4);
    v10_tab_col(t, "target_share_1", V10_COL_REAL, 2);
    v10_tab_col(t, "stp", V10_COL_REAL, 4);
    double xsp[NSPLIT], tgt[NSPLIT], sh[2][NSPLIT] = {{0}}, st[2][NSPLIT] = {{0}};
    char spl_buf[NSPLIT][16];
    const char *spl[NSPLIT];
    for (int s = 0; s < NSPLIT; s++) {
        xsp[s] = 50 + 10 * s;
        tgt[s] = xsp[s] / 100;
        snprintf(spl_buf[s], 16, "%d-%d", 50 + 10 * s, 50 - 10 * s);
        spl[s] = spl_buf[s];
        for (size_t p = 0; p < NPP; p++)
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = res_at(R, R->i_prio[p][s][k]);
                double n1 = r->tenants[0].np, n2 = r->tenants[1].np;
                double share = n1 + n2 > 0 ? n1 / (n1 + n2) : NAN;
                v10_tab_row(t);
                v10_tab_str(t, spl[s]);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->tenants[0].priority);
                v10_tab_real(t, r->tenants[1].priority);
                v10_tab_real(t, n1);
                v10_tab_real(t, n2);
                v10_tab_real(t, share);
                v10_tab_real(t, tgt[s]);
                v10_tab_real(t, r->stp);
                sh[k][s] += share / NPP;
                st[k][s] += r->stp / NPP;
            }
    }
    rc = add_tab(R, "priority.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    v10_svg_series sp[5] = {{"target share", tgt},   {"PMT: share of tenant 1", sh[0]},
                            {"V10-Full: share of tenant 1", sh[1]}, {"PMT: STP", st[0]},
                            {"V10-Full: STP", st[1]}};
    v10_svg_chart cp = {.kind = V10_SVG_LINES, .title = "Priority splits",
                        .xlabel = "priority split (tenant 1 - tenant 2)",
                        .ylabel = "mean over the 11 pairs", .n_x = NSPLIT, .x = xsp,
                        .x_labels = spl, .series = sp, .n_series = 5, .ref_y = NAN};
    if (add_chart(R, cs, "priority.svg", &cp,
                  "Share of normalized progress won by the higher-priority tenant, NP1 / (NP1 + "
                  "NP2), against its priority share, and STP.",
                  err))
        return -1;

    /* Vector-memory size. */
    t = v10_tab_create();
    v10_tab_col(t, "vmem_mib", V10_COL_INT, 0);
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "stp", V10_COL_REAL, 4);
    v10_tab_col(t, "overall", V10_COL_REAL, 4);
    v10_tab_col(t, "hbm", V10_COL_REAL, 4);
    double xv[NVMEM], vs[3][NVMEM] = {{0}};
    for (int v = 0; v < NVMEM; v++) {
        xv[v] = 8 << v;
        for (size_t p = 0; p < NPP; p++) {
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = res_at(R, R->i_vmem[p][v][k]);
                v10_tab_row(t);
                v10_tab_int(t, 8 << v);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->stp);
                v10_tab_real(t, r->util_overall);
                v10_tab_real(t, r->util_hbm);
                vs[k][v] += r->stp / NPP;
            }
            vs[2][v] += ratio(res_at(R, R->i_vmem[p][v][1])->stp,
                              res_at(R, R->i_vmem[p][v][0])->stp) / NPP;
        }
    }
    rc = add_tab(R, "vmem.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    v10_svg_series sv[3] = {{"PMT: STP", vs[0]}, {"V10-Full: STP", vs[1]},
                            {"V10-Full / PMT", vs[2]}};
    v10_svg_chart cv = {.kind = V10_SVG_LINES, .title = "Vector-memory size",
                        .xlabel = "vector memory (MiB), split evenly among tenants",
                        .ylabel = "mean over the 11 pairs", .n_x = NVMEM, .x = xv,
                        .log2_x = 1, .series = sv, .n_series = 3, .ref_y = 1};
    if (add_chart(R, cs, "vmem.svg", &cv,
                  "Sensitivity to the vector-memory size (8 to 64 MiB): smaller shares force "
                  "GEMM blocking and extra HBM traffic.",
                  err))
        return -1;

    /* Scalability. */
    t = v10_tab_create();
    v10_tab_col(t, "npu", V10_COL_STR, 0);
    v10_tab_col(t, "sas", V10_COL_INT, 0);
    v10_tab_col(t, "tenants", V10_COL_INT, 0);
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    const char *scc[] = {"stp", "overall", "sa", "vu", "hbm", "overlap", "stp_vs_pmt"};
    for (size_t i = 0; i < 7; i++)
        v10_tab_col(t, scc[i], V10_COL_REAL, 4);
    double xt[NTEN], gsc[NSCALE][NTEN], usc[NSCALE][NTEN];
    char snm[NSCALE][32], unm[NSCALE][40];
    for (int s = 0; s < NSCALE; s++) {
        snprintf(snm[s], 32, "%d SA + %d VU", 1 << s, 1 << s);
        snprintf(unm[s], 40, "%d SA + %d VU", 1 << s, 1 << s);
        for (int n = 0; n < NTEN; n++) {
            xt[n] = 2 << n;
            const v10_run_result *r0 = res_at(R, R->i_scale[s][n][0]);
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = res_at(R, R->i_scale[s][n][k]);
                v10_tab_row(t);
                v10_tab_str(t, scale_npus[s]);
                v10_tab_int(t, 1 << s);
                v10_tab_int(t, 2 << n);
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->stp);
                v10_tab_real(t, r->util_overall);
                v10_tab_real(t, r->util_sa);
                v10_tab_real(t, r->util_vu);
                v10_tab_real(t, r->util_hbm);
                v10_tab_real(t, r->overlap);
                v10_tab_real(t, ratio(r->stp, r0->stp));
            }
            gsc[s][n] = ratio(res_at(R, R->i_scale[s][n][1])->stp, r0->stp);
            usc[s][n] = res_at(R, R->i_scale[s][n][1])->util_overall;
        }
    }
    rc = add_tab(R, "scalability.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    v10_svg_series sg[NSCALE], su[NSCALE];
    for (int s = 0; s < NSCALE; s++) {
        sg[s] = (v10_svg_series){snm[s], gsc[s]};
        su[s] = (v10_svg_series){unm[s], usc[s]};
    }
    v10_svg_chart cg = {.kind = V10_SVG_LINES, .title = "Scalability: STP of V10-Full over PMT",
                        .xlabel = "collocated workloads", .ylabel = "STP(V10-Full) / STP(PMT)",
                        .n_x = NTEN, .x = xt, .log2_x = 1, .series = sg, .n_series = NSCALE,
                        .ref_y = 1};
    if (add_chart(R, cs, "scalability.svg", &cg,
                  "V10-Full over PMT on cores with 1, 2, 4 and 8 SAs and VUs (HBM scaled with "
                  "them) running 2 to 16 workloads (the paper's pairs in order).",
                  err))
        return -1;
    v10_svg_chart cu = cg;
    cu.title = "Scalability: V10-Full utilization";
    cu.ylabel = "utilization (mean of SA and VU)";
    cu.series = su;
    cu.ref_y = NAN;
    if (add_chart(R, cs, "scalability_util.svg", &cu,
                  "V10-Full's overall utilization as workloads and FUs grow.", err))
        return -1;

    /* Contention on vs off. */
    t = v10_tab_create();
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "contention", V10_COL_STR, 0);
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "stp", V10_COL_REAL, 4);
    v10_tab_col(t, "overall", V10_COL_REAL, 4);
    v10_tab_col(t, "hbm", V10_COL_REAL, 4);
    v10_tab_col(t, "stp_vs_pmt", V10_COL_REAL, 4);
    double con[2][NPP];
    for (size_t p = 0; p < NPP; p++)
        for (int on = 1; on >= 0; on--) {
            size_t ip = on ? R->i_pairs[p][P_PMT] : R->i_cont[p][0];
            size_t iv = on ? R->i_pairs[p][P_FULL] : R->i_cont[p][1];
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = res_at(R, k ? iv : ip);
                v10_tab_row(t);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, on ? "on" : "off");
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->stp);
                v10_tab_real(t, r->util_overall);
                v10_tab_real(t, r->util_hbm);
                v10_tab_real(t, ratio(r->stp, res_at(R, ip)->stp));
            }
            con[on][p] = ratio(res_at(R, iv)->stp, res_at(R, ip)->stp);
        }
    rc = add_tab(R, "contention.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    v10_svg_series scn[2] = {{"contention on", con[1]}, {"contention off", con[0]}};
    v10_svg_chart ccn = {.kind = V10_SVG_BARS, .title = "HBM contention on vs off",
                         .ylabel = "STP(V10-Full) / STP(PMT)", .n_x = NPP, .cats = pnames,
                         .series = scn, .n_series = 2, .ref_y = 1, .width = 900, .height = 420};
    return add_chart(R, cs, "contention.svg", &ccn,
                     "V10-Full's STP gain over PMT with operators sharing HBM bandwidth (on) "
                     "and with ideal, unshared bandwidth (off).",
                     err);
}

static int render_collocation(repro *R, charts *cs, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "model", V10_COL_STR, 0);
    for (int f = 0; f < V10_PROFILE_FEATS; f++)
        v10_tab_col(t, v10_profile_feature_names[f], V10_COL_REAL, 4);
    v10_tab_col(t, "alone_us", V10_COL_REAL, 2);
    v10_tab_col(t, "ops", V10_COL_INT, 0);
    v10_tab_col(t, "cluster", V10_COL_INT, 0);
    v10_tab_col(t, "pc1", V10_COL_REAL, 3);
    v10_tab_col(t, "pc2", V10_COL_REAL, 3);
    for (int m = 0; m < NM; m++) {
        double f[V10_PROFILE_FEATS];
        v10_profile_features(&R->prof[m], f);
        v10_tab_row(t);
        v10_tab_str(t, models[m]);
        for (int j = 0; j < V10_PROFILE_FEATS; j++)
            v10_tab_real(t, f[j]);
        v10_tab_real(t, v10_npu_cycles_to_us(&R->npu, (double)R->prof[m].alone_cycles));
        v10_tab_int(t, (int64_t)R->prof[m].n_ops);
        v10_tab_int(t, R->col.cluster[m]);
        v10_tab_real(t, R->col.coord[m][0]);
        v10_tab_real(t, R->col.coord[m][1]);
    }
    int rc = add_tab(R, "profiles.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    t = v10_tab_create();
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "gain", V10_COL_REAL, 4);
    v10_tab_col(t, "beneficial", V10_COL_INT, 0);
    v10_tab_col(t, "cluster_score", V10_COL_REAL, 4);
    v10_tab_col(t, "pred_cluster", V10_COL_INT, 0);
    v10_tab_col(t, "pred_heuristic", V10_COL_INT, 0);
    v10_tab_col(t, "pred_random", V10_COL_INT, 0);
    for (size_t i = 0; i < R->col.n_pairs; i++) {
        const v10_colloc_pair *q = &R->col.pairs[i];
        char nm[64];
        snprintf(nm, sizeof nm, "%s+%s", models[q->a], models[q->b]);
        v10_tab_row(t);
        v10_tab_str(t, nm);
        v10_tab_real(t, q->gain);
        v10_tab_int(t, q->truth);
        v10_tab_real(t, q->score);
        v10_tab_int(t, q->pred_cluster);
        v10_tab_int(t, q->pred_heuristic);
        v10_tab_int(t, q->pred_random);
    }
    rc = add_tab(R, "collocation.csv", t, err);
    v10_tab_destroy(t);
    if (rc)
        return -1;
    static const char *cats[3] = {"clustering", "utilization heuristic", "random"};
    double ours[3] = {R->col.acc_cluster, R->col.acc_heuristic, R->col.acc_random};
    double med[3] = {R->col_med.acc_cluster, R->col_med.acc_heuristic, R->col_med.acc_random};
    double paper[3] = {PAPER_ACC_CLUSTER, PAPER_ACC_HEUR, PAPER_ACC_RANDOM};
    char medname[64];
    snprintf(medname, sizeof medname, "ours, threshold = median gain %.3f", R->med_threshold);
    v10_svg_series s[3] = {{"ours, threshold 1.3", ours}, {medname, med}, {"paper", paper}};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = "Collocation: leave-two-workloads-out accuracy",
                       .ylabel = "accuracy", .n_x = 3, .cats = cats, .series = s, .n_series = 3,
                       .ref_y = NAN, .width = 800, .height = 380};
    return add_chart(R, cs, "collocation.svg", &c,
                     "Accuracy of predicting beneficial pairs: clustering vs the SA-heavy/VU-heavy "
                     "heuristic vs a seeded coin, beside the paper's figures.",
                     err);
}

/* ---- summary.md and report.html ------------------------------------------------------------ */

static void md_row(FILE *f, const char *what, double ours, double paper, const char *unit)
{
    fprintf(f, "| %s | %s%.3f | %s%.2f | %+.0f%% |\n", what, unit, ours, unit, paper,
            100 * (ours / paper - 1));
}

/* Headline ratios and per-pair STP of both workload sets, side by side. */
static void md_sets(FILE *f, const repro *R, const ratios *q)
{
    const repro *A = R->alt;
    ratios qa;
    mean_ratios(A, &qa);
    fprintf(f, "## Both workload sets\n\n"
               "`isca23`: the zoo's architectures calibrated to the paper's measured solo TPU "
               "profiles (SA/VU busy, HBM utilization, Table 1 operator lengths; "
               "docs/models.md).  `zoo`: the architectures as the cost model alone sees them.  "
               "This report's studies use `%s` (`repro --workloads`).\n\n"
               "| V10-Full over PMT, mean of the paper's 11 pairs | %s | %s | paper |\n"
               "|---|---|---|---|\n", R->set, R->set, A->set);
    fprintf(f, "| STP | ×%.3f | ×%.3f | ×%.2f |\n", q->stp, qa.stp, PAPER_STP);
    fprintf(f, "| utilization | ×%.3f | ×%.3f | ×%.2f |\n", q->util, qa.util, PAPER_UTIL);
    fprintf(f, "| average latency | ÷%.3f | ÷%.3f | ÷%.2f |\n", q->lat, qa.lat, PAPER_LAT);
    fprintf(f, "| p95 latency | ÷%.3f | ÷%.3f | ÷%.2f |\n", q->p95, qa.p95, PAPER_P95);
    fprintf(f, "| SA+VU overlap (V10-Full) | %.1f%% | %.1f%% | %.0f%% |\n\n", 100 * q->overlap,
            100 * qa.overlap, 100 * PAPER_OVERLAP);
    fprintf(f, "STP of each policy on the paper's pairs:\n\n"
               "| pair | set | PMT | V10-Base | V10-Fair | V10-Full | V10-Full / PMT |\n"
               "|---|---|---|---|---|---|---|\n");
    for (size_t p = 0; p < NPP; p++)
        for (int k = 0; k < 2; k++) {
            const repro *X = k ? A : R;
            fprintf(f, "| %s | %s |", X->pairs[p].name, X->set);
            for (int pol = 0; pol < NPOL; pol++)
                fprintf(f, " %.3f |", res_at(X, X->i_pairs[p][pol])->stp);
            fprintf(f, " ×%.3f |\n", ratio(res_at(X, X->i_pairs[p][P_FULL])->stp,
                                           res_at(X, X->i_pairs[p][P_PMT])->stp));
        }
    fprintf(f, "\n");
}

static char *summary_md(repro *R, const ratios *q)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "# V10 reproduction: summary\n\n"
               "v10sim %s, NPU `%s` (1 SA 128x128, 1 VU, %.0f GB/s HBM, %.0f MHz), seed %llu, "
               "%llu requests per tenant (warm-up %llu)%s.  %zu simulations plus %d standalone "
               "profiles.\n\n",
            V10_VERSION, R->npu.name, R->npu.hbm_gbps, R->npu.clock_mhz,
            (unsigned long long)R->o->seed, (unsigned long long)R->requests,
            (unsigned long long)R->warmup, R->o->quick ? ", **--quick** (noisier)" : "", R->n,
            NM);
    fprintf(f, "## V10-Full over PMT, mean over the paper's 11 pairs\n\n"
               "Per pair: utilization and STP ratios V10-Full / PMT; latency ratios PMT / "
               "V10-Full (mean of the two tenants); then the mean over the pairs.\n\n"
               "| metric | ours | paper | ours vs paper |\n|---|---|---|---|\n");
    md_row(f, "utilization (mean of SA and VU)", q->util, PAPER_UTIL, "×");
    md_row(f, "SA utilization", q->sa, PAPER_SA, "×");
    md_row(f, "VU utilization", q->vu, PAPER_VU, "×");
    md_row(f, "HBM bandwidth utilization", q->hbm, PAPER_HBM, "×");
    md_row(f, "aggregated throughput (STP)", q->stp, PAPER_STP, "×");
    md_row(f, "average latency", q->lat, PAPER_LAT, "÷");
    md_row(f, "95th-percentile latency", q->p95, PAPER_P95, "÷");
    fprintf(f, "| SA and VU busy together (V10-Full) | %.1f%% | %.0f%% | %+.0f%% |\n",
            100 * q->overlap, 100 * PAPER_OVERLAP, 100 * (q->overlap / PAPER_OVERLAP - 1));
    fprintf(f, "| context-switch time (V10-Full) | %.2f%% | < 2%% | |\n", 100 * q->switch_frac);
    fprintf(f, "| bound on the STP ratio from standalone profiles | ×%.3f | | |\n\n", q->bound);
    if (q->lat_skipped)
        fprintf(f, "%u pair(s) had a tenant without a measured request under one policy; the "
                   "latency means leave them out.\n\n", q->lat_skipped);

    md_sets(f, R, q);
    fprintf(f, "Per pair, workload set `%s` (V10-Full over PMT; bound = 2 / max(1, SA₁+SA₂, VU₁+VU₂, HBM₁+HBM₂) "
               "/ STP(PMT), the most perfect overlap could give):\n\n"
               "| pair | SA / VU alone (1) | SA / VU alone (2) | STP PMT | STP V10-Full "
               "| STP ratio | bound | utilization | avg latency ÷ | p95 latency ÷ | overlap |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n", R->set);
    for (size_t p = 0; p < NPP; p++) {
        const v10_profile *a = &R->prof[R->pairs[p].a], *b = &R->prof[R->pairs[p].b];
        fprintf(f, "| %s | %.2f / %.2f | %.2f / %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f "
                   "| %.3f | %.1f%% |\n",
                R->pairs[p].name, a->util_sa, a->util_vu, b->util_sa, b->util_vu,
                res_at(R, R->i_pairs[p][P_PMT])->stp, res_at(R, R->i_pairs[p][P_FULL])->stp,
                q->stp_pair[p], bound_ratio(R, p), q->util_pair[p], q->lat_pair[p],
                q->p95_pair[p], 100 * res_at(R, R->i_pairs[p][P_FULL])->overlap);
    }
    double gmin = INFINITY, gmax = 0, gmean = 0;
    unsigned nben = 0;
    for (size_t p = 0; p < NPAIR; p++) {
        double g = ratio(res_at(R, R->i_pairs[p][P_FULL])->stp, res_at(R, R->i_pairs[p][P_PMT])->stp);
        gmin = fmin(gmin, g);
        gmax = fmax(gmax, g);
        gmean += g / NPAIR;
        nben += g >= 1.3;
    }
    fprintf(f, "\nAll 55 pairs: STP gain %.3f to %.3f (mean %.3f); %u of 55 reach the paper's "
               "1.3× 'beneficial' threshold.\n\n",
            gmin, gmax, gmean, nben);

    fprintf(f, "## Collocation (leave two workloads out, %zu pairs)\n\n"
               "| predictor | accuracy (threshold 1.3) | accuracy (threshold = median gain "
               "%.3f) | paper |\n|---|---|---|---|\n",
            R->col.n_pairs, R->med_threshold);
    fprintf(f, "| clustering (k = 5, PCA, k-means) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_cluster, 100 * R->col_med.acc_cluster, 100 * PAPER_ACC_CLUSTER);
    fprintf(f, "| utilization heuristic (SA-heavy + VU-heavy) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_heuristic, 100 * R->col_med.acc_heuristic, 100 * PAPER_ACC_HEUR);
    fprintf(f, "| random (one seeded coin per pair) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_random, 100 * R->col_med.acc_random, 100 * PAPER_ACC_RANDOM);
    fprintf(f, "| random, mean of 1000 seeded draws | %.1f%% | %.1f%% | |\n\n",
            100 * R->col.acc_random_mean, 100 * R->col_med.acc_random_mean);
    fprintf(f, "Ground truth at 1.3: %u beneficial of %zu; at the median: %u.  Confusion "
               "(tp/fp/tn/fn) at 1.3: clustering %u/%u/%u/%u, heuristic %u/%u/%u/%u, random "
               "%u/%u/%u/%u.\n\n",
            R->col.n_beneficial, R->col.n_pairs, R->col_med.n_beneficial, R->col.cm_cluster.tp,
            R->col.cm_cluster.fp, R->col.cm_cluster.tn, R->col.cm_cluster.fn,
            R->col.cm_heuristic.tp, R->col.cm_heuristic.fp, R->col.cm_heuristic.tn,
            R->col.cm_heuristic.fn, R->col.cm_random.tp, R->col.cm_random.fp,
            R->col.cm_random.tn, R->col.cm_random.fn);

    /* Why the numbers differ. */
    double sa_mean = 0, vu_mean = 0;
    for (int m = 0; m < NM; m++) {
        sa_mean += R->prof[m].util_sa / NM;
        vu_mean += R->prof[m].util_vu / NM;
    }
    unsigned sa_heavy = 0;
    for (int m = 0; m < NM; m++)
        sa_heavy += R->prof[m].util_sa >= R->prof[m].util_vu;
    fprintf(f, "## Where and why we differ from the paper\n\n");
    if (strcmp(R->set, "zoo"))
        fprintf(f, "* **Workloads.**  The isca23 models take from the paper only what it "
                   "measured for each workload *alone* (SA and VU busy, HBM utilization, mean "
                   "operator lengths); the rest — operator counts, order, the places of added "
                   "vector work, HBM per operator — comes from the architectures "
                   "(docs/models.md).  Nothing is fitted to a multi-tenant result.\n");
    else
    fprintf(f, "* **Throughput gain ×%.2f vs ×%.2f (%+.0f%%).**  V10 gains by running one "
               "tenant's VU operators under another's SA operators, so a pair can gain at most "
               "what its standalone profiles leave idle: with perfect overlap and no "
               "interference, STP ≤ 2 / max(1, SA₁+SA₂, VU₁+VU₂, HBM₁+HBM₂).  Our eleven models, "
               "whose operator costs are *synthesized* from their published architectures "
               "(GEMMs on a 128×128 weight-stationary array, fused element-wise work on a "
               "1024-lane VU), keep the SA busy %.0f%% of the time on average and the VU only "
               "%.0f%% (%u of 11 are SA-heavy), so even perfect overlap could raise STP over PMT by "
               "×%.2f on average over the paper's pairs; V10-Full reaches ×%.2f.  The paper profiles real TPU executions, in which "
               "vector work (layout changes, normalization, embedding and data formatting "
               "inside XLA fusions) takes a much larger share, leaving far more room to "
               "overlap.  We did not tune any cost constant toward the paper's figure.\n",
            q->stp, PAPER_STP, 100 * (q->stp / PAPER_STP - 1), 100 * sa_mean, 100 * vu_mean,
            sa_heavy, q->bound, q->stp);
    int zoo = !strcmp(R->set, "zoo");
    if (!zoo)
        fprintf(f, "* **Throughput gain ×%.2f vs ×%.2f (%+.0f%%).**  Perfect overlap of the "
                   "standalone profiles, with no interference, would give ×%.2f over PMT on "
                   "average over the paper's pairs (STP ≤ 2 / max(1, SA₁+SA₂, VU₁+VU₂, "
                   "HBM₁+HBM₂)); V10-Full reaches %.0f%% of that.  What remains different "
                   "from the paper comes from choices the data leave open: where the added "
                   "vector work sits in each program (docs/models.md), our PMT (whole-core "
                   "switch of 30 µs every 1 ms) and HBM contention by max-min sharing.\n",
                q->stp, PAPER_STP, 100 * (q->stp / PAPER_STP - 1), q->bound,
                100 * q->stp / q->bound);
    fprintf(f, "* **Utilization ×%.2f vs ×%.2f (SA ×%.2f, VU ×%.2f) and overlap %.0f%% vs "
               "63%%.**  %s\n",
            q->util, PAPER_UTIL, q->sa, q->vu, 100 * q->overlap,
            zoo ? "These follow from the same cause: SA utilization under PMT is already "
                  "high, so V10 can raise it little, and the VU, which V10 fills best, "
                  "carries little work."
                : "Most of the paper's pairs join an SA-heavy with a VU-heavy workload, "
                  "so V10 raises both units' utilization alike.");
    fprintf(f, "* **Latency ÷%.2f / ÷%.2f vs ÷%.2f / ÷%.2f.**  Latency gains come from the same "
               "overlap plus V10's finer interleaving: under PMT (1 ms slices, 30 µs task "
               "switch) a short request that misses its tenant's slice waits a whole slice.\n",
            q->lat, q->p95, PAPER_LAT, PAPER_P95);
    fprintf(f, "* **Collocation.**  %u of %zu pairs pass 1.3×; clustering predicts %.1f%% "
               "of them right and the utilization heuristic %.1f%% (paper: 84.73%% and "
               "64.91%%).  %s\n",
            R->col.n_beneficial, R->col.n_pairs, 100 * R->col.acc_cluster,
            100 * R->col.acc_heuristic,
            zoo ? "With gains this small, accuracy at 1.3× mostly measures the base rate; "
                  "the median-gain threshold gives a balanced problem on which the three "
                  "predictors can be compared."
            : R->col.acc_heuristic > R->col.acc_cluster
                ? "On the calibrated profiles a pair's gain is decided almost entirely by "
                  "whether one workload is SA-heavy and the other VU-heavy — exactly the "
                  "heuristic's rule — so it beats k-means over PCA features (five clusters "
                  "of eleven workloads, leave-two-out); we report it as measured."
                : "");
    fprintf(f, "* **Windows.**  Each run lasts until every tenant has completed %llu "
               "requests (more for short pairs, so that a run spans four PMT slices; column "
               "`requests` of pairs.csv), tenants that finish first keep loading the NPU, and "
               "metrics cover the time after every tenant's warm-up%s.\n\n",
            (unsigned long long)R->requests,
            R->o->quick ? " in --quick mode, so figures are noisier than the full run's" : "");
    /* Sensitivity studies, in numbers. */
    fprintf(f, "## Sensitivity studies (means over the 11 paper pairs)\n\n");
    {
        double best = 0, bslice = 0, st[NSLICE], sw0 = 0;
        for (int k = 0; k < NSLICE; k++) {
            mean m = {0};
            for (size_t p = 0; p < NPP; p++)
                mean_add(&m, ratio(res_at(R, R->i_slice[p][k])->stp,
                                   res_at(R, R->i_pairs[p][P_PMT])->stp));
            st[k] = mean_get(&m);
            if (st[k] > best) {
                best = st[k];
                bslice = (double)(512ull << k);
            }
        }
        for (size_t p = 0; p < NPP; p++)
            sw0 += switch_frac(res_at(R, R->i_slice[p][0])) / NPP;
        fprintf(f, "* **Time slice**: STP over PMT ×%.3f at 512 cycles (context switching "
                   "%.1f%% of the time), best ×%.3f at %.0f cycles, ×%.3f at 1M cycles "
                   "(coarse slices let long operators hold an FU).\n",
                st[0], 100 * sw0, best, bslice, st[NSLICE - 1]);
        double sh[2][NSPLIT] = {{0}};
        for (int k = 0; k < NSPLIT; k++)
            for (size_t p = 0; p < NPP; p++)
                for (int pol = 0; pol < 2; pol++) {
                    const v10_run_result *r = res_at(R, R->i_prio[p][k][pol]);
                    sh[pol][k] += r->tenants[0].np / (r->tenants[0].np + r->tenants[1].np) / NPP;
                }
        fprintf(f, "* **Priorities**: the high-priority tenant's share of normalized progress, "
                   "NP₁/(NP₁+NP₂), goes from %.2f to %.2f under PMT (slices proportional to "
                   "priority) and from %.2f to %.2f under V10-Full as the split goes from 50-50 "
                   "to 90-10.  V10 is work-conserving: Algorithm 1 orders tenants by "
                   "active_rate / priority only when they compete for the same FU, so the "
                   "low-priority tenant still runs on whichever FU the other is not using.\n",
                sh[0][0], sh[0][NSPLIT - 1], sh[1][0], sh[1][NSPLIT - 1]);
        double vs[NVMEM] = {0}, vh[NVMEM] = {0};
        for (int v = 0; v < NVMEM; v++)
            for (size_t p = 0; p < NPP; p++) {
                vs[v] += res_at(R, R->i_vmem[p][v][1])->stp / NPP;
                vh[v] += res_at(R, R->i_vmem[p][v][1])->util_hbm / NPP;
            }
        fprintf(f, "* **Vector memory**: V10-Full STP %.3f / %.3f / %.3f / %.3f at 8 / 16 / 32 / "
                   "64 MiB (HBM utilization %.3f / %.3f / %.3f / %.3f).  The largest resident "
                   "GEMM operand among the eleven models is %.2f MiB; smaller shares re-stream "
                   "operands (more HBM traffic), but the operators that spill are compute-bound, "
                   "so the extra traffic hides under compute and throughput barely moves.\n",
                vs[0], vs[1], vs[2], vs[3], vh[0], vh[1], vh[2], vh[3], R->max_resident_mib);
        const v10_run_result *s1 = res_at(R, R->i_scale[0][NTEN - 1][1]),
                             *s8 = res_at(R, R->i_scale[NSCALE - 1][NTEN - 1][1]),
                             *p8 = res_at(R, R->i_scale[NSCALE - 1][NTEN - 1][0]);
        fprintf(f, "* **Scalability**: with 16 workloads, V10-Full reaches STP %.2f on one SA + "
                   "one VU and %.2f on 8 + 8 (utilization %.2f and %.2f).  PMT gives the "
                   "whole core to one tenant at a time and a tenant's in-order operator stream "
                   "occupies one FU at a time, so PMT's STP stays near 1 (%.2f on 8 + 8) and "
                   "the STP ratio there (×%.1f) measures PMT's idle FUs more than V10.\n",
                s1->stp, s8->stp, s1->util_overall, s8->util_overall, p8->stp,
                ratio(s8->stp, p8->stp));
        double con[2] = {0};
        for (size_t p = 0; p < NPP; p++) {
            con[1] += ratio(res_at(R, R->i_pairs[p][P_FULL])->stp,
                            res_at(R, R->i_pairs[p][P_PMT])->stp) / NPP;
            con[0] += ratio(res_at(R, R->i_cont[p][1])->stp, res_at(R, R->i_cont[p][0])->stp) / NPP;
        }
        fprintf(f, "* **Contention**: STP over PMT ×%.3f with operators sharing HBM bandwidth, "
                   "×%.3f without.\n\n",
                con[1], con[0]);
    }
    fprintf(f, "Files: pairs.csv (every pair × policy), slice.csv, priority.csv, vmem.csv, "
               "scalability.csv, contention.csv, profiles.csv, collocation.csv, the SVG plots "
               "and report.html.\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *report_html(repro *R, const charts *cs, const ratios *q, const char *md)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    v10_html_begin(f, "V10 (ISCA 2023) reproduction with v10sim");
    char line[512];
    snprintf(line, sizeof line,
             "V10-Full over PMT, mean over the paper's 11 pairs: STP x%.3f (paper x1.57), "
             "utilization x%.3f (x1.64), average latency /%.3f (/1.56), p95 latency /%.3f "
             "(/1.74), SA-VU overlap %.1f%% (63%%).",
             q->stp, q->util, q->lat, q->p95, 100 * q->overlap);
    v10_html_p(f, line);
    v10_html_markdown(f, md);
    v10_html_h2(f, "Figures");
    for (size_t i = 0; i < cs->n; i++) {
        char cap[512];
        snprintf(cap, sizeof cap, "%s (%s)", cs->c[i].caption, cs->c[i].name);
        v10_html_figure(f, cs->c[i].svg, cap);
    }
    v10_html_end(f);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        free(buf);
        return NULL;
    }
    (void)R;
    return buf;
}

/* ---- driver -------------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void v10_repro_out_fini(v10_repro_out *out)
{
    for (size_t i = 0; i < out->n_files; i++)
        free(out->files[i].data);
    free(out->files);
    memset(out, 0, sizeof *out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
                 models[m]);
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
    if (build(R, err))
        return -1;
    R->res = calloc(R->n, sizeof *R->res);
    if (!R->res)
        return v10_err_set(err, "out of memory");
    return 0;
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
    free(R->pts);
    free(R->specs);
    free(R);
}

static int run_batch(repro *R, v10_err *err)
{
    char what[64];
    snprintf(what, sizeof what, "repro (%s%s)", R->set, R->pairs_only ? ", pairs" : "");
    v10_pool_job job = {.cfgs = R->cfgs, .results = R->res, .n = R->n,
                        .threads = R->o->threads, .progress = R->o->progress ? what : NULL};
    return v10_pool_run(&job, err);
}

int v10_repro_run(const v10_repro_opts *o, v10_repro_out *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
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
    R->out = out;
    R->alt = A;
    A->out = out;
    charts cs = {.n = 0};
    int rc = -1;
    if (prepare(R, o, set, 0, err) ||
        prepare(A, o, strcmp(set, "zoo") ? "zoo" : "isca23", 1, err))
        goto done;
    if (run_batch(R, err) || run_batch(A, err))
        goto done;
    out->runs = R->n + A->n + 2 * NM;
    /* Collocation from the all-pairs ground truth. */
    double gain[NM * NM] = {0}, gl[NPAIR];
    for (size_t p = 0; p < NPAIR; p++) {
        double g = ratio(res_at(R, R->i_pairs[p][P_FULL])->stp, res_at(R, R->i_pairs[p][P_PMT])->stp);
        int a = R->pairs[p].a, b = R->pairs[p].b;
        gain[a * NM + b] = gain[b * NM + a] = g;
        gl[p] = g;
    }
    qsort(gl, NPAIR, sizeof gl[0], cmp_double);
    R->med_threshold = gl[NPAIR / 2];
    v10_colloc_opts co;
    v10_colloc_opts_default(&co);
    co.seed = o->seed;
    if (v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col, err))
        goto done;
    co.threshold = R->med_threshold;
    if (v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col_med, err))
        goto done;

    ratios q;
    mean_ratios(R, &q);
    for (int k = 0; k < 2; k++) {
        const repro *X = k ? A : R;
        ratios x;
        mean_ratios(X, &x);
        v10_repro_headline *h = &out->head[k];
        snprintf(h->set, sizeof h->set, "%s", X->set);
        h->stp = x.stp;
        h->util = x.util;
        h->lat = x.lat;
        h->p95 = x.p95;
        h->overlap = x.overlap;
    }
    if (render_pairs(R, &cs, err) || render_studies(R, &cs, err) ||
        render_collocation(R, &cs, err))
        goto done;
    char *md = summary_md(R, &q);
    if (!md) {
        v10_err_set(err, "summary.md: rendering failed");
        goto done;
    }
    char *html = report_html(R, &cs, &q, md);
    if (add_file(R, "summary.md", md, strlen(md), err))
        goto done;
    if (!html) {
        v10_err_set(err, "report.html: rendering failed");
        goto done;
    }
    if (add_file(R, "report.html", html, strlen(html), err))
        goto done;
    rc = 0;
done:
    for (size_t i = 0; i < cs.n; i++)
        free(cs.c[i].svg);
    repro_free(R);
    repro_free(A);
    out->wall_seconds = now_s() - t0;
    if (rc)
        v10_repro_out_fini(out);
    return rc;
}
