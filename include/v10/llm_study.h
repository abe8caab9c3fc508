/*
 * llm_study.h — `v10sim llm-study` (docs/llm.md, "The LLM study"): an LLM
 * service (the Azure conversation and code traces) beside each isca23
 * service and beside the other LLM service, under PMT, V10-Fair and
 * V10-Full, on v10-isca23 (and with `scale` its -2x/-4x/-8x presets), at a
 * load derived from each service's solo busy fraction.  Computed as one
 * batch per phase on the thread pool (src/llmstudy/llm_study.c), rendered
 * into named in-memory files (src/report/llm_study_report.c) that
 * src/cli/cmd_llm_study.c writes.
 *
 * Ownership: v10_llm_study_destroy frees what v10_llm_study_run allocated,
 * v10_llm_study_out_fini what v10_llm_study_render did; inputs borrowed.
 */
#ifndef V10_LLM_STUDY_H
#define V10_LLM_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/report.h" /* v10_artifact */

#define V10_LLMS_SERVICES 2 /* conv, code */

typedef struct v10_llm_study_opts {
    int quick;              /* few requests: a few seconds */
    int scale;              /* also the -2x/-4x/-8x presets */
    int threads;
    int progress;
    uint64_t seed;
    uint64_t requests;      /* per run; 0: 10 with quick, else 200 */
    double target_busy;     /* the LLM server's solo offered load, (0, 1); 0: 0.5 */
    double slo_ttft_ms, slo_tpot_ms; /* 0: none */
    const char *trace_dir;  /* NULL: tests/data/llm excerpts */
    const char *model;      /* NULL: llama3.2-1b */
} v10_llm_study_opts;

/* One LLM service's figures in one run.  Invariant: partner[0] == 0 for
 * the service alone (policy "solo"); then the partner_* fields are NAN.
 * ttft_us[0..n_ttft) and tpot_us[0..n_tpot) are the run's per-request
 * samples, sorted ascending (owned by the study). */
typedef struct v10_llm_study_row {
    char service[16];        /* "conv" or "code" */
    char partner[64];        /* isca23 model name, "llm-conv"/"llm-code", "" alone */
    char policy[16];
    char npu[32];
    double rate_scale;       /* of this service's trace */
    double load_alone;       /* its solo offered load at rate_scale (the load rule) */
    double busy_alone;       /* its solo busy fraction at rate_scale (measured) */
    uint64_t llm_requests;
    double ttft_ms[3], tpot_ms[3]; /* p50, p95, p99 */
    double tokens_per_s;     /* over the run's window */
    double tokens_per_s_active; /* over its requests' own span: first arrival to last finish */
    double slo_ttft, slo_tpot; /* fraction within; NAN: no SLO */
    double partner_rps, partner_np, partner_tokens_per_s; /* NAN where not applicable */
    uint64_t partner_requests; /* an LLM partner's requests (the overlap rule); 0 otherwise */
    double alone_ttft_p95_ms, alone_tpot_p95_ms; /* the service alone over the same
                                requests: the alone row's, or beside an LLM partner a
                                solo run of its llm_requests (the overlap rule) */
    double util_sa, util_vu;
    double j_per_token;      /* the service's energy (the units it held, its HBM bytes;
                                docs/energy.md) per output token of the window; NAN: none */
    double *ttft_us, *tpot_us;
    size_t n_ttft, n_tpot;
} v10_llm_study_row;

typedef struct v10_llm_study {
    v10_llm_study_opts opts;
    char model[64];
    size_t n_npus;
    const char *npus[4];
    v10_llm_study_row *rows; /* alone rows first (service x npu), then pairs */
    size_t n_rows;
    size_t runs;
    double wall_seconds;
} v10_llm_study;

int v10_llm_study_run(const v10_llm_study_opts *o, v10_llm_study **out, v10_err *err);
void v10_llm_study_destroy(v10_llm_study *s);

typedef struct v10_llm_study_out {
    v10_artifact *files;
    size_t n_files;
} v10_llm_study_out;

/* Renders llm_study.csv, the SVG plots and summary.md; all or nothing. */
int v10_llm_study_render(const v10_llm_study *s, v10_llm_study_out *out, v10_err *err);
void v10_llm_study_out_fini(v10_llm_study_out *out);

#endif
