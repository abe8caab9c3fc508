/*
 * report.h — writers for run results: the summary table, JSON, CSV, and the
 * Perfetto / Chrome trace-event timeline.  Writers only write; the caller
 * owns the stream (and makes file output atomic, see src/cli/cli.h).
 */
#ifndef V10_REPORT_H
#define V10_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "v10/sim.h"
#include "v10/table.h"

/* The whole run as one JSON object (version, config, seed, metrics, perf);
 * caller owns it; NULL on allocation failure. */
cJSON *v10_report_run_json(const v10_run_config *cfg, const v10_run_result *r);

/* The settings the run ran with, as `run --config` reads them back
 * (v10/settings.h; recorded in the report as "settings"): the tenants as
 * specs, the policy, the NPU (its preset's name when unchanged, else every
 * field), every policy parameter as set, requests, warm-up, seed,
 * contention, attribution, preemption model.  Caller owns it; NULL when
 * memory ran out. */
cJSON *v10_report_settings_json(const v10_run_config *cfg);

/* Writes one run in the given format.  Returns -1 on allocation or write failure. */
int v10_report_run(const v10_run_config *cfg, const v10_run_result *r, v10_format fmt, FILE *f);

/* Appends one row per tenant to a comparison table (one run per policy). */
void v10_report_compare_cols(v10_tab *t);
void v10_report_compare_row(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
/* The same with where each tenant's time went (docs/attribution.md) as
 * CSV cells: <state>_cycles, then lost_to_t<j>_cycles for j < n_tenants;
 * then, when cfg has an LLM server, its columns (docs/llm.md "Outputs"),
 * empty for the other tenants. */
void v10_report_compare_attr_cols(v10_tab *t, const v10_run_config *cfg);
void v10_report_compare_attr_row(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
/* The "LLM serving" section of a comparison: policy, tenant and the LLM
 * columns in ms, one row per server; the rows return how many they added. */
void v10_report_llm_cols(v10_tab *t);
int v10_report_llm_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
/* "Where the time went": one row per tenant, each state as % of the window,
 * the % lost to partners and the partner it lost most to (the run table's
 * section; `run --policy all` prints one for every policy).  The link
 * engine's wait (wait_ici) is a column only when cfg's NPU has several
 * chips (one chip has no link engine); JSON and CSV carry every state. */
void v10_report_time_cols(v10_tab *t, const v10_run_config *cfg);
void v10_report_time_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
/* Per operator (v10_run_config.op_states; docs/attribution.md): one row
 * per operator of each tenant that has them, for every policy run: its
 * standalone cycles, HBM bytes, memory stall alone and stall-free
 * bandwidth, and the window's cycles in each state spent on it. */
void v10_report_op_cols(v10_tab *t);
void v10_report_op_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
/* The system figures of a run as eight cells, in the order of the columns
 * sa, vu, hbm, overall, overlap, stp, antt, fairness. */
/* Energy per policy and tenant (docs/energy.md): the multi-policy table's
 * last section. */
void v10_report_energy_cols(v10_tab *t);
void v10_report_energy_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r);
void v10_report_system_cells(v10_tab *t, const v10_run_result *r);

/* Writes the timeline of a traced run as Chrome trace-event JSON (opens in
 * ui.perfetto.dev).  Operator names come from cfg->models, the models the
 * run used (required: nothing is read again); a record that does not match
 * them is an error, not a crash. */
int v10_trace_write(const v10_trace *tr, const v10_run_config *cfg, const v10_run_result *r,
                    FILE *f, v10_err *err);

/* One output file, in memory (src/report/doc.c): the files of a repro or
 * an LLM study, written whole by the CLI. */
typedef struct v10_artifact {
    char name[64];
    char *data;
    size_t len;
} v10_artifact;

/* Appends a file named `name` owning data (malloc'd; freed on failure) to
 * *files (n files, realloc'd).  NULL data (a failed rendering) is an error
 * naming the file. */
int v10_artifact_add(v10_artifact **files, size_t *n, const char *name, char *data, size_t len,
                     v10_err *err);

/* A self-contained report.html of files[0..n): the title, the Markdown md
 * (NULL: none; v10_html_markdown's subset), then every *.svg among the
 * files inline, its name under it.  malloc'd (its length in *len), or
 * NULL when memory ran out (src/report/html.c). */
char *v10_html_figures_page(const char *title, const char *md, const v10_artifact *files,
                            size_t n, size_t *len);

/* `run --plot DIR` (docs/formats.md, "Run plots"): appends to files
 * time_POLICY.svg, where each tenant's time went (stacked attribution
 * states, % of the window; not with no_attribution), and util_POLICY.svg,
 * each FU's executing share of 100 equal intervals of the run, read from
 * tr (the run's trace), with its numbers in util_POLICY.csv.  -1 with err when memory ran out. */
int v10_report_run_plots(const v10_run_config *cfg, const v10_run_result *r,
                         const v10_trace *tr, v10_artifact **files, size_t *n, v10_err *err);

#endif
