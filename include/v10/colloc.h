/*
 * colloc.h — clustering-based collocation (V10 paper §5): the linear
 * algebra (eigen-decomposition, PCA), k-means, standalone profiles, the
 * pairwise ground truth and the leave-two-workloads-out evaluation.
 *
 * Everything here is computed, never printed: results come back in structs
 * that src/report/collocate_report.c renders.  Batches of simulations go
 * through v10_pool_run, so results do not depend on the thread count.
 *
 * Ownership: *_fini frees what the matching call allocated; inputs are borrowed.
 */
#ifndef V10_COLLOC_H
#define V10_COLLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "v10/sim.h"
#include "v10/table.h"

/* ---- linear algebra and k-means (src/colloc/linalg.c, kmeans.c) ------------------ */

#define V10_FEAT_MAX 12  /* features per point */
#define V10_K_MAX 16     /* clusters */

/*
 * Eigen-decomposition of a symmetric d x d matrix A (row-major,
 * d <= V10_FEAT_MAX; GSL's gsl_eigen_symmv): eigenvalues in w (descending),
 * eigenvector j in column j of V (row-major d x d), each of unit length with
 * its largest component positive (so the result is unique up to equal
 * eigenvalues).
 */
void v10_eig_sym(const double *A, size_t d, double *w, double *V);

/* Standardization + principal components fitted on n points.
 * Invariants: 1 <= k <= d <= V10_FEAT_MAX; sd[j] == 0 marks a constant
 * column (it contributes nothing to a projection); var[] is descending and
 * >= 0; axis[j] has unit length, its largest component positive. */
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

/* Invariants: 1 <= k <= min(n, V10_K_MAX); only centroid[0..k-1][0..d-1] are set. */
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

/* ---- profiles (src/colloc/profile.c) --------------------------------------------- */

/* A model's standalone profile: the collocation features (paper §5).
 * Operator-length statistics are per unit, indexed by v10_fu_type; a unit
 * the model never uses has n_unit_ops 0 and all three lengths 0. */
typedef struct v10_profile {
    char model[V10_SPEC_MAX];     /* tenant spec of the model */
    double util_sa, util_vu;      /* busy fraction running alone */
    double util_hbm;              /* HBM bandwidth utilization running alone */
    double op_mean_cycles[V10_FU_COMPUTE];  /* standalone operator length, cycles */
    double op_min_cycles[V10_FU_COMPUTE];
    double op_max_cycles[V10_FU_COMPUTE];
    size_t n_unit_ops[V10_FU_COMPUTE];      /* operators per unit */
    uint64_t alone_cycles;        /* one request, cycles */
    size_t n_ops;
} v10_profile;

#define V10_PROFILE_FEATS 9
extern const char *const v10_profile_feature_names[V10_PROFILE_FEATS];

/* The feature vector: SA, VU and HBM utilization, then log10 of the SA
 * operator length mean / min / max and the same for the VU (lengths span
 * five orders of magnitude; a unit without operators gives log10 1 = 0). */
void v10_profile_features(const v10_profile *p, double *f);

/* Per-unit operator-length statistics (count, mean, min, max of the ops'
 * standalone `cycles`) of ops[n] into p; the other fields are untouched. */
void v10_profile_op_lengths(const v10_op *ops, size_t n, v10_profile *p);

/* Profiles each spec: loads and costs it for `npu` (operator lengths) and
 * runs it alone under `solo` (utilizations).  Runs on `threads` threads. */
int v10_profile_models(const char *const *specs, size_t n, const v10_npu *npu, int threads,
                       const char *progress, v10_profile *out, v10_err *err);

/* v10_profile_models in two steps, for a caller that runs the solo runs
 * in a batch of its own (repro): the solo run of spec on npu (cfg->tenants
 * points at *ts), then the profile from its result. */
int v10_profile_config(const char *spec, const v10_npu *npu, v10_tenant_spec *ts,
                       v10_run_config *cfg, v10_err *err);
int v10_profile_finish(const char *spec, const v10_npu *npu, const v10_run_result *res,
                       v10_profile *out, v10_err *err);
/* v10_profile_finish's two halves, for a caller that holds the loaded
 * model (repro): the profile of spec's model m costed for npu (its name,
 * operator lengths, standalone cycles; the rest zero), then the
 * utilizations of its solo run. */
void v10_profile_of_model(const char *spec, const v10_npu *npu, const v10_model *m,
                          v10_profile *out);
void v10_profile_of_run(const v10_run_result *res, v10_profile *out);

/* Upper bound on the STP of a pair with perfect overlap and no
 * interference: 2 / max(1, sa_a + sa_b, vu_a + vu_b, hbm_a + hbm_b). */
double v10_profile_pair_bound(const v10_profile *a, const v10_profile *b);

/* ---- collocation (src/colloc/collocate.c) ---------------------------------------- */

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

/*
 * Clusters the feature rows F (n x V10_PROFILE_FEATS, n <= 64) not excluded
 * (ex[i] = 1; ex NULL excludes none): fits standardization and PCA (keeping
 * o->keep_var of the variance) and k-means (o->k, o->seed, o->restarts) on
 * them, then gives every row its cluster in cl[n], excluded ones by nearest
 * centroid.  pca_out, km_out and coord (each row's PCA coordinates) are
 * optional.
 */
void v10_colloc_cluster(const double *F, size_t n, const int *ex, const v10_colloc_opts *o,
                        int *cl, v10_pca *pca_out, v10_kmeans *km_out,
                        double coord[][V10_FEAT_MAX]);

/* One evaluated pair.  Invariant: a < b < n index the profiles; truth and
 * the pred_* are 0 or 1. */
typedef struct v10_colloc_pair {
    size_t a, b;
    double gain;         /* STP(v10-full) / STP(pmt), simulated */
    int truth;           /* gain >= threshold */
    double score;        /* clustering: predicted gain (cluster-pair mean) */
    unsigned score_pairs;/* training pairs that score averages; 0: the cluster
                            pair had none and took the mean training gain */
    int pred_cluster, pred_heuristic, pred_random;
} v10_colloc_pair;

/* The predictors, in the order of v10_colloc_result.fig. */
enum { V10_COLLOC_CLUSTER, V10_COLLOC_HEURISTIC, V10_COLLOC_RANDOM, V10_COLLOC_METHODS };
extern const char *const v10_colloc_method_names[V10_COLLOC_METHODS];

/* The three figures the paper reports for each collocation method
 * (defined in docs/repro.md), over the leave-two-out predictions. */
typedef struct v10_colloc_figures {
    double accuracy;     /* (tp + tn) / pairs */
    double bad_caught;   /* tn / (tn + fp): share of the bad pairs (gain below the
                            threshold) predicted not beneficial; NAN if no pair is bad */
    double worst_gain;   /* lowest simulated gain among the pairs predicted
                            beneficial (the worst collocation the method makes);
                            NAN if it predicts none */
    size_t worst_pair;   /* index in pairs[] of that pair (the first on a tie);
                            n_pairs if none */
    unsigned picked;     /* pairs predicted beneficial: tp + fp */
} v10_colloc_figures;

/* Invariants: 4 <= n <= 64; n_pairs == n (n - 1) / 2 with pairs[] in
 * (a, b) lexicographic order; each confusion matrix sums to n_pairs;
 * n_beneficial + n_bad == n_pairs; gain_min <= gain_median <= gain_max. */
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
    v10_colloc_figures fig[V10_COLLOC_METHODS]; /* clustering, heuristic, random */
    double threshold;              /* beneficial: gain >= threshold (the options') */
    unsigned n_beneficial;         /* ground-truth positives */
    unsigned n_bad;                /* ground-truth negatives: the bad pairs */
    unsigned cluster_fallback;     /* clustering predictions from an empty cluster
                                      pair (score_pairs 0) */
    unsigned cluster_fallback_wrong; /* ... of them wrong */
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
 * requests so that a run spans several PMT slices (src/colloc/span.h). */
int v10_colloc_ground_truth(const char *const *specs, size_t n, const v10_run_config *base,
                            int threads, const char *progress, double *gain,
                            double *stp_pmt, double *stp_full, v10_err *err);

/* ---- rendering (src/report/collocate_report.c) ------------------------------------ */

/* Writes an evaluation of the models names[r->n] (profiles prof, options co,
 * pair runs from base) as a table, JSON or CSV (fmt; CSV: the per-method
 * figures alone), whole or not at all.
 * Returns -1 on allocation or write failure. */
int v10_colloc_report(const v10_colloc_result *r, const v10_profile *prof,
                      const char *const *names, const v10_colloc_opts *co,
                      const v10_run_config *base, v10_format fmt, FILE *f);

/* Writes the three figures per method (accuracy, bad pairs caught, worst
 * collocation picked) of r as a Markdown section, with a plain reading of
 * which method leads on each, for repro's summary.md.  Returns -1 on a
 * write failure. */
int v10_colloc_figures_md(const v10_colloc_result *r, const char *const *names, FILE *f);

#endif
