/*
 * calibrate.h — profile calibration: reshape a model's operator stream so
 * that, run alone, it shows a measured solo profile (SA and VU busy, HBM
 * utilization, mean SA and VU operator length), keeping the model's own
 * structure.  docs/models.md explains the method; the isca23 built-in
 * models are zoo models calibrated to the V10 paper's TPUv2 profiles
 * (data/tpu-profiles).
 *
 * Ownership: v10_calibrate fills a fresh model the caller finalizes with
 * v10_model_fini; the input model is only read (v10_calibrate_take
 * consumes it instead).
 */
#ifndef V10_CALIBRATE_H
#define V10_CALIBRATE_H

#include <stdint.h>

#include "v10/err.h"
#include "v10/model.h"
#include "v10/npu.h"

/*
 * A measured solo profile.  Every figure is optional: a NaN field is not
 * a target, and calibration keeps what the model's architecture implies.
 * Invariant after v10_profile_check: present fractions in [0, 1], present
 * lengths > 0, and sa_busy + vu_busy within 10 points of 100% when both
 * are given (a TPU core runs one FU type at a time, alone).
 */
typedef struct v10_profile {
    char row[V10_NAME_MAX];     /* the profile row, e.g. "resnet50" */
    uint32_t batch;             /* the row's batch, 0 if the file has none */
    double sa_busy;             /* fraction of time the SA is busy */
    double vu_busy;             /* fraction of time the VU is busy */
    double hbm_util;            /* HBM bytes/s over the NPU's peak */
    double sa_op_us;            /* mean SA operator length, µs */
    double vu_op_us;            /* mean VU operator length, µs */
    double flops_util;          /* achieved/peak FLOPS (reported, not a target) */
} v10_profile;

/* Clears every figure (NaN). */
void v10_profile_init(v10_profile *p);
/* Checks the invariant above; errors name `origin` and the field. */
int v10_profile_check(const v10_profile *p, const char *origin, v10_err *err);

/*
 * Merges into *p the row `row` (at `batch`, or the only/any row of that
 * name when the file has no batch column or batch is 0) of a profile CSV:
 * a header line naming columns in any order — model (required), batch, and
 * any of sa_busy_pct|mxu_busy_pct, vu_busy_pct|vpu_busy_pct, hbm_util_pct,
 * sa_op_us_mean, vu_op_us_mean, flops_util_pct (percentages and µs; an
 * empty cell is "not measured").  Several files may be merged into one
 * profile (the paper's utilization.csv and op_lengths.csv).  Returns 1 if
 * the row was found, 0 if not, -1 on a malformed file (file:line named).
 */
int v10_profile_merge_file(const char *path, const char *row, uint32_t batch,
                           v10_profile *p, v10_err *err);
/* The same for a CSV text in memory; `origin` names it in messages. */
int v10_profile_merge_text(const char *text, const char *origin, const char *row,
                           uint32_t batch, v10_profile *p, v10_err *err);

/* Parses "NAME[:B]" or "NAME@B" into row and batch (0 if absent). */
int v10_profile_parse_row(const char *s, char *row, size_t row_sz, uint32_t *batch,
                          v10_err *err);

/*
 * How many SA operators a calibrated model has: the choice a profile leaves
 * open (it gives the mean SA length, not the count).  docs/models.md
 * compares the two.
 */
typedef enum v10_calib_sa {
    /* Every SA layer of the architecture becomes the same number k >= 1 of
     * equal pieces, so the layers' relative lengths — their spread — are
     * kept exactly; k is the one that keeps the SA time nearest the
     * architecture's.  When the profile's SA operators are longer than the
     * layers (k would be below 1), each layer is one operator stretched to
     * the profile's mean, and the SA does less work per cycle than the
     * cost model says. */
    V10_CALIB_SA_LAYERS = 0,
    /* The SA time is the architecture's: N_sa = SA time / mean length,
     * splitting layers (the longest into one piece more) or merging
     * consecutive ones into equal-count groups, which narrows the spread. */
    V10_CALIB_SA_WORK,
} v10_calib_sa;

typedef struct v10_calib_opts {
    v10_calib_sa sa_ops;        /* default V10_CALIB_SA_LAYERS */
} v10_calib_opts;

/* "layers" or "work" into *out; -1 with err naming `s` otherwise. */
int v10_calib_sa_parse(const char *s, v10_calib_sa *out, v10_err *err);
const char *v10_calib_sa_name(v10_calib_sa s);

/* What calibration aimed at and what the calibrated model shows alone. */
typedef struct v10_calib_report {
    v10_profile target;         /* the profile, sa/vu normalized to sum 1 */
    v10_profile achieved;       /* measured on the calibrated model */
    v10_profile arch;           /* the input model as the cost model sees it */
    size_t arch_sa_ops, arch_vu_ops;
    size_t sa_ops, vu_ops;      /* after calibration */
    size_t added_vu_ops;        /* named vector operators added */
    double added_vu_us;         /* their time in one request */
    v10_calib_sa sa_choice;     /* how the SA operator count was chosen */
    double latency_us;          /* one request alone */
    double flops_util;          /* 2 x MACs / (latency x SA peak) */
} v10_calib_report;

/*
 * Calibrates `in` (a costed model) to profile `p` on `npu`; *out gets a
 * costed model of trace operators (V10_OP_RAW) whose standalone profile on
 * `npu` meets every given figure.  Method (docs/models.md): the SA keeps
 * the architecture's layers and their relative lengths, scaled to the
 * target mean and split into equal numbers of pieces (v10_calib_sa); the
 * VU time follows from the busy fractions, with the architecture's vector
 * operators kept and further vector work added as named operators where a
 * TPU does it, each as long as the tensor it touches; HBM bytes follow
 * each operator's own intensity, scaled to the target.  `rep` may be NULL.
 */
int v10_calibrate(const v10_model *in, const v10_profile *p, const v10_npu *npu,
                  v10_model *out, v10_calib_report *rep, v10_err *err);
/* The same with options (NULL: the defaults, as v10_calibrate). */
int v10_calibrate_with(const v10_model *in, const v10_profile *p, const v10_npu *npu,
                       const v10_calib_opts *opts, v10_model *out, v10_calib_report *rep,
                       v10_err *err);
/* The same, consuming `arch`: its operator array becomes *out's (the
 * calibrated operators are written over the architecture's, so a model of
 * 10^6 operators is never held twice); *arch is left empty, success or
 * not, for v10_model_fini. */
int v10_calibrate_take(v10_model *arch, const v10_profile *p, const v10_npu *npu,
                       const v10_calib_opts *opts, v10_model *out, v10_calib_report *rep,
                       v10_err *err);

/*
 * The isca23 workload set: the V10 paper's eleven workloads at its batch
 * sizes (v10_isca23_names, NULL-terminated, without the "isca23/" prefix).
 * v10_isca23_build builds zoo model `name` and calibrates it to the
 * embedded profile on the v10-isca23 core the profile describes.
 */
extern const char *const v10_isca23_names[];
/* The core the profiles describe (one TPUv2-like core), which the isca23
 * models are calibrated, and so costed, on. */
#define V10_ISCA23_CORE "v10-isca23"
int v10_isca23_build(const char *name, v10_model *out, v10_calib_report *rep, v10_err *err);
/* isca23 model `name` costed for `npu`, shared from a process-wide cache
 * (out->shared: read-only; v10_model_fini releases nothing).  The first
 * load of a model for an NPU builds it; later loads cost nothing. */
int v10_isca23_load(const char *name, const v10_npu *npu, v10_model *out, v10_err *err);
/* The same with its SA operators counted by `sa` (model spec
 * "isca23/NAME:sa_ops=work"; v10_isca23_load is sa = layers). */
int v10_isca23_load_as(const char *name, v10_calib_sa sa, const v10_npu *npu, v10_model *out,
                       v10_err *err);
/* The same for a simulation only (v10_model_load_run): on an NPU with the
 * core's VU tile, the core's costing of the operators (their tiles and
 * compute cycles, which a run reads, are the same on every such NPU) with
 * out->total_cycles costed for npu; no costed copy is made.  Its
 * operators' cycles, HBM and spill figures are the core's: do not report
 * them. */
int v10_isca23_load_run(const char *name, v10_calib_sa sa, const v10_npu *npu,
                        v10_model *out, v10_err *err);
/* The embedded profile row of isca23 model `name`. */
int v10_isca23_profile(const char *name, v10_profile *p, uint32_t *batch, v10_err *err);

#endif
