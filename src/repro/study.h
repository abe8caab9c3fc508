/*
 * study.h (internal) — the reproduction's state and its studies, shared by
 * the plans (studies.c, repro.c) and the renderers (render.c, sensitivity.c,
 * attribution.c, summary.c) of src/repro/.
 *
 * A study is one entry of repro_studies[] (src/repro/registry.c), like a
 * policy in the policy registry: its name, the shape of its grid of
 * simulations, a plan hook (src/repro/studies.c) that appends them to the
 * batch and a render hook (src/repro/render.c) that turns their
 * results into files.  Its runs are addressed through repro_at(), so no
 * study keeps its own index table.  Only registry.c refers to the table:
 * the hooks read the grid from the state, so neither layer calls back.
 */
#ifndef V10_REPRO_STUDY_H
#define V10_REPRO_STUDY_H

#include <math.h>

#include "colloc/span.h"
#include "v10/repro.h"
#include "v10/svg.h"
#include "v10/table.h"

/* ---- the paper's workloads (Xue et al., ISCA 2023, §6 and Table 1) --------------- */

#define NM 11     /* workloads */
#define NPP 11    /* the paper's pairs */
#define NPAIR 55  /* every pair of the eleven */
#define NPOL 4    /* pmt, v10-base, v10-fair, v10-full */
#define MAXT 16   /* tenants of the largest run (scalability) */
#define NSLICE 12 /* time slices 512 .. 1,048,576 cycles, powers of two */
#define NSPLIT 5  /* priority splits 50-50 .. 90-10 */
#define NVMEM 4   /* vector memories 0.5, 2, 8, 32 MiB (repro_vmem_bytes) */
#define NSCALE 4  /* 1, 2, 4, 8 SAs and VUs */
#define NTEN 6    /* 2, 4, 6, 8, 12, 16 workloads (repro_scale_tenants) */
#define NREAD 2   /* readings of the SA switch: the NPU's, and no drain overlap */
#define NREADSL 4 /* slices of the other reading: 512, 2K, 8K, 32K cycles */
#define NPMTS 3   /* PMT slices 1, 2, 4 ms */
enum { P_PMT = 0, P_BASE, P_FAIR, P_FULL };
/* The fairness study's policies: the NPOL above, then V10-Full with
 * v10-full.preempt=ready (src/repro/fairness.c). */
#define NFAIR (NPOL + 1)
extern const char *const repro_fair_policies[NFAIR];

extern const char *const repro_models[NM];
extern const char *const repro_policies[NPOL];
extern const char *const repro_scale_npus[NSCALE];
extern const unsigned repro_scale_tenants[NTEN];
/* The scalability study's mix of repro_scale_tenants[t] workloads. */
void repro_scale_mix(size_t t, int *ms);

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
/* The paper's figures beside which the summary sets V10-Base, V10-Fair and
 * the time slice (Xue et al., ISCA 2023, §6): Base and Fair reach STP x1.25
 * over PMT; Base keeps SA and VU busy together up to 48% of the time; a
 * tenant's latency under Base is up to 4.3x its latency under PMT. */
#define PAPER_BASE_STP 1.25
#define PAPER_BASE_OVERLAP_MAX 0.48
#define PAPER_BASE_WORST_LAT 4.3

/* The studies, in the order they are rendered (and listed in report.html). */
enum { S_PAIRS = 0, S_SLICE, S_PRIO, S_VMEM, S_SCALE, S_CONT, S_READ, S_PMTS, S_COLLOC,
       S_ENERGY, S_FAIR, N_STUDIES };

/* Invariant: a < b index repro_models (naming order); the first NPP pairs
 * are the paper's, in its order (paper == 1). */
typedef struct repro_pair {
    int a, b;
    int paper;
    char name[64];  /* "bert+ncf" */
} repro_pair;

typedef struct v10_repro repro;

/* Charts kept for report.html, in the order they were made. */
typedef struct repro_chart {
    char name[64];
    char caption[400];
    char *svg;
} repro_chart;

typedef struct repro_charts {
    repro_chart c[32];
    size_t n;
} repro_charts;

/*
 * How long a study's runs are: requests of the longest tenant, of them
 * warm-up (the span rule raises short runs: studies.c), in the full run
 * and with --quick.  Set by what the study reports (docs/repro.md, "Run
 * lengths"): the pairs' latency percentiles need the most completed
 * requests; throughput, utilization and progress shares count fractional
 * progress and settle sooner.
 */
typedef struct repro_length {
    unsigned requests, warmup;
} repro_length;

/* Which sets a study runs for: the studied one only; the other too (the
 * pairs' study: its paper's pairs only); the other too with
 * --fairness-both (v10_repro_opts.fairness_both). */
enum { SETS_STUDIED = 0, SETS_BOTH, SETS_BOTH_OPT };

typedef struct repro_study {
    const char *name;
    size_t dim[3];     /* its runs: a dim[0] x dim[1] x dim[2] grid, row-major; 0 0 0: none */
    repro_length len[2]; /* full, --quick */
    int both_sets;     /* SETS_*: whether it also runs for the other workload set */
    /* Appends the study's runs to R in grid order (repro_point); NULL if it
     * only reads other studies' runs.  Deterministic. */
    int (*plan)(repro *R, v10_err *err);
    /* Appends the study's files (and charts) to out; reads R only. */
    int (*render)(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
} repro_study;

extern const repro_study repro_studies[N_STUDIES];

/*
 * One workload set's reproduction.  Invariants: cfgs, specs and res hold n
 * runs (capacity cap; tenants of run i at specs[i * MAXT]); study s's runs
 * are base[s] .. base[s] + the size of its grid dim[s], in grid order (no
 * runs: dim[s] all 0); res[] is filled
 * once the batch has run; col and col_med are set once it has (full set
 * only).
 */
struct v10_repro {
    const v10_repro_opts *o;
    const char *set;         /* workload set: "isca23" or "zoo" */
    char spec[NM][64];       /* what each model is loaded as, e.g. "isca23/bert" */
    int pairs_only;          /* only the paper's pairs (the other set, for comparison) */
    repro *alt;              /* the other workload set, or NULL */
    v10_npu npu;
    v10_span span;
    v10_profile prof[NM];
    repro_pair pairs[NPAIR];
    v10_run_config *cfgs;
    v10_tenant_spec *specs;  /* MAXT per run */
    v10_run_result *res;
    size_t *same;            /* per run: the run whose result stands for it, itself
                                or an earlier one simulating the same configuration
                                (same_as, studies.c), which it is not run again for */
    size_t n, cap;
    size_t base[N_STUDIES];  /* first run of each study */
    size_t dim[N_STUDIES][3];/* each study's grid (its table entry's dim) */
    repro_length len[N_STUDIES]; /* each study's run length in this mode (its entry's len) */
    const char *study[N_STUDIES]; /* each study's name (its entry's), for repro_profile */
    v10_colloc_result col, col_med;  /* thresholds 1.3 and the median gain */
    double max_resident_mib; /* largest vmem_bytes of any operator */
    double resident_mib[NM]; /* each model's largest */
    double op_max_cycles[NM];/* each model's longest operator alone, cycles */
    double long_frac[NM];    /* its share of FU-busy cycles in operators longer
                                than the NPU's V10 time slice */
    double wall_seconds;
    size_t runs;             /* simulations of both sets, profiles included */
};

/* The run planned at grid position (i, j, k) of study s. */
static inline size_t repro_point(const repro *R, int s, size_t i, size_t j, size_t k)
{
    const size_t *d = R->dim[s];
    V10_ASSERT(i < d[0] && j < d[1] && k < d[2]);
    return R->base[s] + (i * d[1] + j) * d[2] + k;
}

/* The run whose result is that of grid position (i, j, k) of study s. */
static inline size_t repro_at(const repro *R, int s, size_t i, size_t j, size_t k)
{
    return R->same[repro_point(R, s, i, j, k)];
}

static inline const v10_run_result *repro_res(const repro *R, int s, size_t i, size_t j,
                                              size_t k)
{
    return &R->res[repro_at(R, s, i, j, k)];
}

/* ---- figures of runs (src/repro/figures.c) ---------------------------------------------- */

static inline double repro_ratio(double a, double b) { return b > 0 ? a / b : NAN; }

/* Fraction of the run spent switching contexts. */
double repro_switch_frac(const v10_run_result *r);

/* Running mean that skips undefined values (a tenant with no measured request). */
typedef struct repro_mean {
    double sum;
    unsigned n, skipped;
} repro_mean;
void repro_mean_add(repro_mean *m, double v);
double repro_mean_get(const repro_mean *m);

/* Mean over the two tenants of lat(base) / lat(x): > 1 means x is faster. */
double repro_lat_speedup(const v10_run_result *base, const v10_run_result *x, int p95);

/* STP(V10-Full) / STP(PMT) of pair p. */
double repro_pair_gain(const repro *R, size_t p);

/* Upper bound on pair p's STP ratio: the perfect-overlap STP bound of the
 * standalone profiles over the simulated PMT STP. */
double repro_bound_ratio(const repro *R, size_t p);

/* Mean ratios of V10-Full over PMT over the paper's pairs. */
typedef struct repro_ratios {
    double util, sa, vu, hbm, stp, lat, p95, overlap, switch_frac, bound;
    unsigned lat_skipped;  /* pairs without a latency ratio (no measured request) */
    double util_pair[NPP], stp_pair[NPP], lat_pair[NPP], p95_pair[NPP];
} repro_ratios;
void repro_mean_ratios(const repro *R, repro_ratios *q);
/* The same with PMT taken, for pair p, from run pmt[p] (another PMT slice). */
void repro_mean_ratios_vs(const repro *R, const size_t pmt[NPP], repro_ratios *q);

/* The NPU of reading k of the SA switch: 0 the NPU's own (the paper's:
 * the drain overlaps the 384 cycles), 1 no overlap. */
void repro_reading_npu(const repro *R, size_t k, v10_npu *out);
extern const char *const repro_reading_names[NREAD];
/* Slice j of study S_READ (512 << 2j cycles), and its index in S_SLICE. */
static inline uint64_t repro_read_slice(size_t j) { return 512ull << (2 * j); }
static inline size_t repro_read_in_slice(size_t j) { return 2 * j; }
/* V10-Full at slice j of S_READ under reading k, and PMT under reading k,
 * of pair p (reading 0: the slice study's and the pairs' runs). */
const v10_run_result *repro_read_res(const repro *R, size_t p, size_t j, size_t k);
const v10_run_result *repro_read_pmt(const repro *R, size_t p, size_t k);

/* The worst per-tenant latency ratio lat(policy pol) / lat(PMT) over the
 * paper's pairs (average latency, or p95). */
typedef struct repro_worst {
    double ratio;
    size_t pair;
    int tenant;   /* 0 or 1: model a or b of the pair */
} repro_worst;
void repro_worst_lat(const repro *R, int pol, int p95, repro_worst *w);

/* ---- set-up and runs (src/repro/repro.c, workloads.c, studies.c) ------------------- */

/* Sets up R for workload set `set` ("isca23" or "zoo"; pairs_only: the
 * other set): specs, NPU, span, the pairs.  repro_load then loads both
 * sets' models (the figures above) before either plans. */
int repro_prepare(repro *R, const v10_repro_opts *o, const char *set, int pairs_only,
                  v10_err *err);
int repro_load(repro *R, repro *A, v10_err *err);
/* Runs R's and A's planned batches and their models' solo runs on the
 * pool, filling res[] and prof[] of both. */
int repro_run_batches(repro *R, repro *A, v10_err *err);
/* Collocation at the paper's threshold and at the median gain (col, col_med). */
int repro_collocation(repro *R, v10_err *err);

int repro_plan_pairs(repro *R, v10_err *err);
int repro_plan_slice(repro *R, v10_err *err);
int repro_plan_prio(repro *R, v10_err *err);
int repro_plan_vmem(repro *R, v10_err *err);
/* Bytes of vector memory at the vmem study's point v (< NVMEM). */
uint64_t repro_vmem_bytes(size_t v);
int repro_plan_scale(repro *R, v10_err *err);
int repro_plan_cont(repro *R, v10_err *err);
int repro_plan_pmts(repro *R, v10_err *err);
int repro_plan_read(repro *R, v10_err *err);
int repro_plan_fair(repro *R, v10_err *err);


/* Appends a run of the n_t models ms[] (priorities prio, or all 1) under
 * policy pol on npu, len long; returns its index, or (size_t)-1 with err
 * set. */
size_t repro_add(repro *R, const int *ms, const double *prio, size_t n_t, const char *pol,
                 const v10_npu *npu, repro_length len, v10_err *err);
/* The paper's pairs in its order, then the rest in name order. */
void repro_pairs(repro *R);

/* ---- rendering (src/repro/render.c, sensitivity.c, attribution.c, summary.c) ---- */

/* Appends a file (takes data) / a CSV of t (destroys t) / an SVG chart kept
 * for report.html. */
int repro_add_file(v10_repro_out *out, const char *name, char *data, size_t len, v10_err *err);
int repro_add_tab(v10_repro_out *out, const char *name, v10_tab *t, v10_err *err);
int repro_add_chart(v10_repro_out *out, repro_charts *cs, const char *name,
                    const v10_svg_chart *c, const char *caption, v10_err *err);

int repro_render_pairs(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_slice(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_prio(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_vmem(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_scale(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_cont(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_colloc(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_pmts(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
int repro_render_read(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
/* fairness.csv and fairness.svg over the set's 55 pairs
 * (src/repro/fairness.c), and the summary's section. */
int repro_render_fair(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
void repro_fair_md(FILE *f, const repro *R);

/* Where the time went (attribution.c): attribution.csv and .svg for the
 * paper's pairs under each policy; the summary's section naming each
 * pair's largest cause of lost progress. */
int repro_render_attrib(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
void repro_attrib_md(FILE *f, const repro *R);

/* Energy per inference and perf/W (src/repro/energy.c, docs/energy.md):
 * energy.csv, energy.svg and energy_split.svg from the pairs' runs; the
 * summary's section explaining V10-Full's saving over PMT. */
int repro_render_energy(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err);
void repro_energy_md(FILE *f, const repro *R);

char *repro_summary_md(const repro *R);
char *repro_report_html(const repro *R, const repro_charts *cs, const char *md);

#endif
