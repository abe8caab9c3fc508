/*
 * fleet.h — profiling, clustering-based collocation, fleet placement and the
 * paper reproduction (DESIGN §1 item 4, §7, §8).
 *
 * Everything here is computed, never printed: results come back in structs
 * (or, for the reproduction, as named in-memory files) that src/cli/ renders
 * and writes atomically.  Batches of simulations go through v10_pool_run, so
 * results do not depend on the thread count.
 *
 * Ownership: *_fini frees what the matching call allocated; inputs are borrowed.
 */
#ifndef V10_FLEET_H
#define V10_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "v10/sim.h"

/* ---- deterministic random numbers (splitmix64) --------------------------------- */

uint64_t v10_rng_next(uint64_t *state);
double v10_rng_unit(uint64_t *state); /* uniform in [0, 1) */

/* ---- clustering (src/fleet/cluster.c) ------------------------------------------ */

#define V10_FEAT_MAX 8   /* features per point */
#define V10_K_MAX 16     /* clusters */

/*
 * Jacobi eigen-decomposition of a symmetric d x d matrix A (row-major,
 * d <= V10_FEAT_MAX): eigenvalues in w (descending), eigenvector j in
 * column j of V (row-major d x d), each of unit length with its largest
 * component positive (so the result is unique).
 */
void v10_eig_sym(const double *A, size_t d, double *w, double *V);

/* Standardization + principal components fitted on n points. */
typedef struct v10_pca {
    size_t d, k;                              /* input dims, kept components */
    double mean[V10_FEAT_MAX], sd[V10_FEAT_MAX];
    double axis[V10_FEAT_MAX][V10_FEAT_MAX];  /* axis[j]: j-th principal direction */
    double var[V10_FEAT_MAX];                 /* variance along each axis, descending */
    double explained;                         /* fraction of variance kept */
} v10_pca;

/* Fits on X (n x d, row-major): z-scores each column (a constant column
 * scores 0), then keeps the fewest components explaining >= keep_frac of
 * the variance, at least min(2, d). */
void v10_pca_fit(v10_pca *p, const double *X, size_t n, size_t d, double keep_frac);
/* Projects one point (d values) onto the kept components (k values). */
void v10_pca_project(const v10_pca *p, const double *x, double *out);

typedef struct v10_kmeans {
    size_t k, d;
    double centroid[V10_K_MAX][V10_FEAT_MAX];
    double inertia;  /* sum of squared distances to the assigned centroid */
} v10_kmeans;

/*
 * k-means (Lloyd) with k-means++ seeding drawn from `seed`; the best of
 * `restarts` seedings (lowest inertia) wins.  k is clamped to n.  Writes
 * each point's cluster to assign[n].  Deterministic for (X, k, seed).
 */
void v10_kmeans_fit(v10_kmeans *km, const double *X, size_t n, size_t d, size_t k,
                    uint64_t seed, int restarts, int *assign);
size_t v10_kmeans_nearest(const v10_kmeans *km, const double *x);

/* ---- profiles (src/fleet/collocate.c) ------------------------------------------ */

/* A model's standalone profile: the collocation features (paper §5). */
typedef struct v10_profile {
    char model[V10_SPEC_MAX];     /* tenant spec of the model */
    double util_sa, util_vu;      /* busy fraction running alone */
    double util_hbm;              /* HBM bandwidth utilization running alone */
    double op_mean_cycles, op_min_cycles, op_max_cycles;
    uint64_t alone_cycles;        /* one request, cycles */
    size_t n_ops;
} v10_profile;

#define V10_PROFILE_FEATS 6
extern const char *const v10_profile_feature_names[V10_PROFILE_FEATS];

/* The feature vector: SA, VU and HBM utilization and log10 of the operator
 * length mean / min / max (lengths span five orders of magnitude). */
void v10_profile_features(const v10_profile *p, double *f);

/* Profiles each spec: loads and costs it for `npu` (operator lengths) and
 * runs it alone under `solo` (utilizations).  Runs on `threads` threads. */
int v10_profile_models(const char *const *specs, size_t n, const v10_npu *npu, int threads,
                       const char *progress, v10_profile *out, v10_err *err);

/* Upper bound on the STP of a pair with perfect overlap and no
 * interference: 2 / max(1, sa_a + sa_b, vu_a + vu_b, hbm_a + hbm_b). */
double v10_profile_pair_bound(const v10_profile *a, const v10_profile *b);

/* ---- collocation ----------------------------------------------------------------- */

typedef struct v10_colloc_opts {
    size_t k;              /* clusters (default 5, as in the paper) */
    double threshold;      /* beneficial: STP(v10-full) >= threshold x STP(pmt); 1.3 */
    double keep_var;       /* PCA: fraction of variance kept (0.9) */
    uint64_t seed;         /* k-means++ seeding and the random baseline */
    int restarts;          /* k-means restarts (10) */
} v10_colloc_opts;

void v10_colloc_opts_default(v10_colloc_opts *o);

typedef struct v10_confusion {
    unsigned tp, fp, tn, fn;
} v10_confusion;

double v10_confusion_accuracy(const v10_confusion *c);

/* One evaluated pair (a < b index the profiles). */
typedef struct v10_colloc_pair {
    size_t a, b;
    double gain;         /* STP(v10-full) / STP(pmt), simulated */
    int truth;           /* gain >= threshold */
    double score;        /* clustering: predicted gain (cluster-pair mean) */
    int pred_cluster, pred_heuristic, pred_random;
} v10_colloc_pair;

typedef struct v10_colloc_result {
    size_t n;                      /* models */
    v10_pca pca;                   /* fitted on all models (for display) */
    v10_kmeans km;
    int cluster[64];               /* cluster of each model (all-model fit) */
    double coord[64][V10_FEAT_MAX];/* PCA coordinates (all-model fit) */
    int sa_heavy[64];              /* heuristic class: util_sa >= util_vu */
    size_t n_pairs;
    v10_colloc_pair *pairs;
    v10_confusion cm_cluster, cm_heuristic, cm_random;
    double acc_cluster, acc_heuristic, acc_random;
    double acc_random_mean;        /* mean accuracy over 1000 seeded draws */
    unsigned n_beneficial;         /* ground-truth positives */
    double gain_min, gain_max;     /* over the pairs */
    double gain_median;            /* upper median: a threshold that makes about
                                      half the pairs beneficial */
} v10_colloc_result;

/*
 * Leave-two-workloads-out evaluation.  gain[a * n + b] (a != b) is the
 * simulated STP ratio of models a and b.  For each pair (a, b): fit
 * standardization, PCA and k-means on the other n - 2 models, assign a and
 * b to their nearest centroids, score every cluster pair by the mean gain
 * of the training pairs (those involving neither a nor b) that fall in it,
 * and predict beneficial if the score of (cluster a, cluster b) passes the
 * threshold; a cluster pair without training pairs takes the mean training
 * gain.  Heuristic: beneficial iff one model is SA-heavy and the other
 * VU-heavy.  Random: a fair coin per pair from the seed.  n is 4..64.
 */
int v10_colloc_evaluate(const v10_profile *prof, size_t n, const double *gain,
                        const v10_colloc_opts *o, v10_colloc_result *r, v10_err *err);
void v10_colloc_result_fini(v10_colloc_result *r);

/* Simulates every pair (a < b) of the models under pmt and v10-full from
 * `base` (NPU, requests, seed, contention; its policy and tenants are
 * ignored) and fills gain[n * n] symmetrically (diagonal 0); stp_pmt and
 * stp_full (optional, n * n) get the raw STPs.  Short pairs run more
 * requests so that a run spans several PMT slices (src/fleet/fleet.h). */
int v10_colloc_ground_truth(const char *const *specs, size_t n, const v10_run_config *base,
                            int threads, const char *progress, double *gain,
                            double *stp_pmt, double *stp_full, v10_err *err);

/* ---- fleet (src/fleet/fleet.c) ---------------------------------------------------- */

/* One service of a fleet: a name and a tenant spec (model, batch, rate, priority). */
typedef struct v10_service {
    char name[V10_NAME_MAX];
    v10_tenant_spec spec;
    size_t line; /* in the services file, for messages */
} v10_service;

/*
 * Reads a services CSV (docs/repro.md, "Fleet"):
 *   name,model,batch,rate_rps[,priority]
 * with a header line, '#' comments and blank lines allowed; batch 0 = the
 * model's default, rate_rps 0 = closed loop.  Errors name the file and line.
 * *out is malloc'd.
 */
int v10_services_read(const char *path, v10_service **out, size_t *n, v10_err *err);
/* The same from an open stream; `path` names it in messages. */
int v10_services_parse(FILE *f, const char *path, v10_service **out, size_t *n, v10_err *err);
/* Loads each distinct model of the services on `npu` once, so that an
 * unknown model or a bad model file is reported as PATH:LINE of the first
 * service naming it. */
int v10_services_check(const v10_service *svc, size_t n, const char *path, const v10_npu *npu,
                       v10_err *err);

typedef enum v10_placement {
    V10_PLACE_CLUSTER = 0,  /* cluster-pair gains, greedy + pairwise swaps */
    V10_PLACE_GREEDY,       /* greedy complementarity of standalone utilizations */
    V10_PLACE_RANDOM,       /* seeded shuffle dealt round robin */
} v10_placement;
#define V10_PLACEMENTS 3
const char *v10_placement_name(v10_placement p);

typedef struct v10_fleet_opts {
    size_t npus;               /* M >= 1; every NPU gets >= 2 services */
    v10_run_config base;       /* NPU, policy, requests, seed, contention */
    v10_colloc_opts colloc;    /* clustering parameters */
    int threads;
    int progress;              /* draw progress bars */
} v10_fleet_opts;

typedef struct v10_fleet_service_result {
    size_t npu;                /* where it was placed */
    double np, throughput_rps, lat_avg_us, lat_p95_us;
} v10_fleet_service_result;

typedef struct v10_fleet_plan {
    v10_placement how;
    size_t *npu_of;                    /* n services: NPU index */
    v10_fleet_service_result *svc;     /* n services */
    double *npu_util, *npu_stp;        /* M NPUs: overall utilization, STP */
    double util_overall, util_sa, util_vu; /* mean over NPUs */
    double stp_total;                  /* sum over NPUs */
    double lat_p95_mean_us;            /* mean over services */
} v10_fleet_plan;

typedef struct v10_fleet_result {
    size_t n, npus;
    v10_profile *prof;                 /* per service */
    int *cluster;                      /* per service */
    v10_fleet_plan plan[V10_PLACEMENTS];
} v10_fleet_result;

/* Profiles, clusters, places the services three ways and simulates every
 * NPU of every placement.  Needs n >= 2 * npus. */
int v10_fleet_run(const v10_service *svc, size_t n, const v10_fleet_opts *o,
                  v10_fleet_result *r, v10_err *err);
void v10_fleet_result_fini(v10_fleet_result *r);

/* ---- reproduction (src/fleet/repro.c) ---------------------------------------------- */

typedef struct v10_repro_opts {
    int quick;          /* fewer requests and points: under a minute on two cores */
    int threads;
    uint64_t seed;
    int progress;
    char workloads[16];  /* "isca23" (default, also "") or "zoo" */
} v10_repro_opts;

/* One output file, in memory. */
typedef struct v10_artifact {
    char name[64];
    char *data;
    size_t len;
} v10_artifact;

/* Headline figures of one workload set: V10-Full over PMT, mean of the
 * paper's 11 pairs (latencies as PMT / V10-Full). */
typedef struct v10_repro_headline {
    char set[16];             /* "isca23" or "zoo" */
    double stp, util, lat, p95, overlap;
} v10_repro_headline;

typedef struct v10_repro_out {
    v10_artifact *files;
    size_t n_files;
    size_t runs;              /* simulations executed */
    double wall_seconds;
    v10_repro_headline head[2]; /* the studied set, then the other */
} v10_repro_out;

/* Runs every experiment (DESIGN §7) and renders pairs.csv, one CSV per
 * study, the SVG plots, summary.md and report.html in memory. */
int v10_repro_run(const v10_repro_opts *o, v10_repro_out *out, v10_err *err);
void v10_repro_out_fini(v10_repro_out *out);

#endif
