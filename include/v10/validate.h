/*
 * validate.h — the architecture-derived models against what the V10 paper
 * measured for each alone on a TPUv2 core (data/tpu-profiles, embedded):
 * per model x batch row, measured and simulated SA busy, VU busy, HBM
 * utilization and SA FLOPS utilization; the mean errors over the rows the
 * fit uses and over the others (held out); and the fit of the cost model's
 * global constants (docs/models.md, "Validation against the TPU").
 *
 * Ownership: v10_validate allocates *rows; the caller frees it.
 */
#ifndef V10_VALIDATE_H
#define V10_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/npu.h"

typedef enum v10_val_metric {
    V10_VAL_SA = 0,  /* SA (MXU) busy */
    V10_VAL_VU,      /* VU (VPU) busy */
    V10_VAL_HBM,     /* HBM bandwidth used over the peak */
    V10_VAL_FLOPS,   /* SA FLOPS over the peak (reported, not fitted) */
    V10_VAL_N,
} v10_val_metric;

/* The rows the fit uses have one of these batches; the others are held
 * out. */
#define V10_VAL_FIT_BATCHES {1, 32, 512}

typedef struct v10_val_row {
    char model[32];                /* the zoo model the row names */
    uint32_t batch;
    int fitted;                    /* a batch the fit uses */
    double tpu[V10_VAL_N];         /* measured fractions; NaN: not measured */
    double sim[V10_VAL_N];         /* simulated alone on the NPU */
    uint64_t sa_ops, vu_ops;
    double latency_us;
} v10_val_row;

/* Which rows a mean is over. */
enum { V10_VAL_ALL = 0, V10_VAL_FITTED, V10_VAL_HELD_OUT, V10_VAL_SETS };

typedef struct v10_val_summary {
    double mean[V10_VAL_SETS][V10_VAL_N]; /* mean |sim - tpu| in points */
    size_t n[V10_VAL_SETS][V10_VAL_N];    /* rows with a measurement */
    double max[V10_VAL_N];                /* largest |sim - tpu|, points */
    size_t max_row[V10_VAL_N];            /* its row */
} v10_val_summary;

/* Builds every zoo model at every batch the profiles measured, costs it on
 * npu and fills *rows (n_rows of them, in the data's order).  progress, if
 * not NULL, is called after each row with (done, total, ctx).  -1 with err
 * set on failure (nothing allocated). */
int v10_validate(const v10_npu *npu, v10_val_row **rows, size_t *n_rows,
                 void (*progress)(size_t done, size_t total, void *ctx), void *ctx,
                 v10_err *err);

/* The mean and largest errors of rows[0..n). */
void v10_validate_summarize(const v10_val_row *rows, size_t n, v10_val_summary *s);

/* The global constants the fit sets (the NPU's fields), with the range it
 * searches. */
typedef struct v10_val_param {
    const char *key;    /* the NPU field, as in its JSON */
    size_t offset;      /* of its uint32_t in v10_npu */
    uint32_t min, max;
} v10_val_param;
extern const v10_val_param v10_val_params[];
extern const size_t v10_val_n_params;

/*
 * Fits the constants of v10_val_params on the rows with the fit's batches,
 * from *npu's values: coordinate descent over multiplicative steps,
 * minimizing the mean |error| of SA busy plus that of VU busy plus that of
 * HBM utilization over those rows (points).  Deterministic.  *npu gets the
 * best constants; progress (may be NULL) is called after each evaluation
 * with the evaluations done and the best objective so far.
 */
int v10_validate_fit(v10_npu *npu, void (*progress)(size_t evals, double best, void *ctx),
                     void *ctx, v10_err *err);

#endif
