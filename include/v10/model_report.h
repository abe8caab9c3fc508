/*
 * model_report.h — the reports on models and hardware, one per result:
 * `models` and `profile` (src/report/models_report.c), `npu`
 * (npu_report.c), `topology` (topology_report.c) and `calibrate`
 * (calibrate_report.c).  src/cli/ parses options, loads the inputs and
 * calls these; they only render.
 *
 * No half-written document: each writer builds its whole table or JSON
 * document first (v10/table.h's sticky failure, util/json.h's mark) and
 * writes only a complete one.  Returns 0, or -1 with err set ("out of
 * memory", "cannot write the output"); the caller owns the stream.
 */
#ifndef V10_MODEL_REPORT_H
#define V10_MODEL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/npu.h"
#include "v10/table.h"
#include "v10/validate.h"

/* ---- models and profile ---- */

/*
 * Standalone profile of one request of a costed model: op counts, work and
 * time per FU type.  Invariants: fu_ops[SA] + fu_ops[VU] = ops;
 * fu_cycles[SA] + fu_cycles[VU] = cycles; len[fu] is v10_model_len_stats
 * (all 0 for an FU type with no operators); every total fits in int64_t
 * (the table's type).
 */
typedef struct v10_model_summary {
    uint64_t ops;
    uint64_t fu_ops[V10_FU_TYPES];
    uint64_t macs;                    /* per request (one batch) */
    uint64_t hbm_bytes;               /* per request */
    uint64_t cycles;                  /* standalone latency = v10_model_cycles */
    uint64_t compute_cycles, mem_cycles;
    uint64_t stall_cycles;            /* waiting on HBM alone (v10_cost_stall_cycles) */
    uint64_t tiles;
    uint64_t fu_cycles[V10_FU_TYPES]; /* time spent in each FU type's ops */
    v10_len_stats len[V10_FU_TYPES];  /* operator lengths per FU type */
} v10_model_summary;

/* Fills *s from a costed model; -1 with err set if a total exceeds 63 bits
 * or memory runs out. */
int v10_model_summarize(const v10_model *m, v10_model_summary *s, v10_err *err);

/* The `models` table: columns declared; one v10_models_row per model. */
v10_tab *v10_models_table(void);
void v10_models_row(v10_tab *t, const v10_model *m, const v10_model_summary *s,
                    const v10_npu *npu);
/* Writes it: a header line and the table, CSV, or {"version", "npu",
 * "models": [...]}. */
int v10_models_write(const v10_tab *t, const v10_npu *npu, v10_format fmt, FILE *f,
                     v10_err *err);

/* `profile`: one row per operator and the totals (table, or JSON with
 * "ops" and "totals"); CSV is the operator-trace CSV (v10_trace_csv_write). */
int v10_profile_write(const v10_model *m, const v10_model_summary *s, const v10_npu *npu,
                      v10_format fmt, FILE *f, v10_err *err);

/* ---- npu ---- */

/* One NPU: key/value rows then the derived figures (table), or its JSON
 * object with "derived" (json; no csv). */
int v10_npu_report(const v10_npu *n, v10_format fmt, FILE *f, v10_err *err);
/* The presets with their main figures. */
int v10_npu_list_report(v10_format fmt, FILE *f, v10_err *err);

/* ---- topology ---- */

struct v10_topo; /* import/topology.h */

/* How `topology` costs the layers: one rows x cols array. */
typedef struct v10_topo_costing {
    uint32_t rows, cols;
    v10_dataflow df;
    v10_sa_mode mode;
} v10_topo_costing;

/* Costs every layer of `topo` (read from `path`) and writes one row per
 * layer and a total (table, csv) or {"file", "array", "dataflow", "mode",
 * "layers", "totals"} (json).  A figure over 63 bits is an error naming
 * path:line. */
int v10_topology_report(const char *path, const struct v10_topo *topo,
                        const v10_topo_costing *c, v10_format fmt, FILE *f, v10_err *err);

/* ---- calibrate ---- */

/* What `calibrate` did: inputs and results for its report. */
typedef struct v10_calib_run {
    const char *spec;              /* the model spec calibrated */
    const v10_profile *profile;    /* the merged profile row */
    const v10_calib_report *rep;
    const v10_npu *npu;
    double arch_us, cal_us;        /* one request alone, before and after */
    const char *out;               /* the trace written, or NULL */
    const char *const *files;      /* the --profile files */
    int n_files;
} v10_calib_run;

/* Target vs achieved for every figure (table, json or csv). */
int v10_calibrate_report_write(const v10_calib_run *r, v10_format fmt, FILE *f, v10_err *err);
/* The calibrated model as an operator-trace CSV under a provenance header. */
int v10_calibrate_trace_write(const v10_calib_run *r, const v10_model *cal, FILE *f,
                              v10_err *err);

/* ---- validate ---- */

/* The model x batch rows (measured / simulated SA, VU, HBM, SA FLOPS in
 * percent, operator counts, latency), then the mean errors over the fitted,
 * held-out and all rows and the largest (table: lines after the rows; json:
 * {"version", "npu", "fit_batches", "rows", "summary"}; csv: the rows). */
int v10_validate_report_write(const v10_npu *npu, const v10_val_row *rows, size_t n,
                              const v10_val_summary *s, v10_format fmt, FILE *f,
                              v10_err *err);

#endif
