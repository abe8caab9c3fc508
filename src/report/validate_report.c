/*
 * validate_report.c — `validate`: the zoo's models beside the V10 paper's
 * measured TPUv2 profiles, row by row, and the mean errors (table, CSV or
 * JSON; v10/model_report.h).
 */
#include <math.h>

#include <cjson/cJSON.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/model_report.h"

static const char *const METRIC[V10_VAL_N] = {"sa_busy", "vu_busy", "hbm_util", "flops_util"};
static const char *const SET[V10_VAL_SETS] = {"all", "fitted", "held_out"};

static v10_tab *rows_table(const v10_val_row *rows, size_t n)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "model", V10_COL_STR, 0);
    v10_tab_col(t, "batch", V10_COL_INT, 0);
    v10_tab_col(t, "set", V10_COL_STR, 0);
    char name[48];
    for (int k = 0; k < V10_VAL_N; k++) {
        snprintf(name, sizeof name, "%s.tpu", METRIC[k]);
        v10_tab_col(t, name, V10_COL_REAL, 1);
        snprintf(name, sizeof name, "%s.sim", METRIC[k]);
        v10_tab_col(t, name, V10_COL_REAL, 1);
    }
    v10_tab_col(t, "sa_ops", V10_COL_INT, 0);
    v10_tab_col(t, "vu_ops", V10_COL_INT, 0);
    v10_tab_col(t, "latency_us", V10_COL_REAL, 1);
    for (size_t i = 0; i < n; i++) {
        const v10_val_row *r = &rows[i];
        v10_tab_row(t);
        v10_tab_str(t, r->model);
        v10_tab_int(t, r->batch);
        v10_tab_str(t, r->fitted ? "fitted" : "held_out");
        for (int k = 0; k < V10_VAL_N; k++) {
            v10_tab_real(t, 100 * r->tpu[k]);
            v10_tab_real(t, 100 * r->sim[k]);
        }
        v10_tab_int(t, (int64_t)r->sa_ops);
        v10_tab_int(t, (int64_t)r->vu_ops);
        v10_tab_real(t, r->latency_us);
    }
    return t;
}

static cJSON *summary_json(const v10_val_row *rows, const v10_val_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *mean = cJSON_AddObjectToObject(o, "mean_abs_error_pct");
    for (int set = 0; set < V10_VAL_SETS; set++) {
        cJSON *m = cJSON_AddObjectToObject(mean, SET[set]);
        for (int k = 0; k < V10_VAL_N; k++)
            cJSON_AddItemToObject(m, METRIC[k], isnan(s->mean[set][k])
                                                     ? cJSON_CreateNull()
                                                     : cJSON_CreateNumber(s->mean[set][k]));
    }
    cJSON *max = cJSON_AddObjectToObject(o, "max_abs_error_pct");
    for (int k = 0; k < V10_VAL_N; k++) {
        cJSON *m = cJSON_AddObjectToObject(max, METRIC[k]);
        cJSON_AddNumberToObject(m, "error", s->max[k]);
        cJSON_AddStringToObject(m, "model", rows[s->max_row[k]].model);
        cJSON_AddNumberToObject(m, "batch", rows[s->max_row[k]].batch);
    }
    return o;
}

static void summary_text(const v10_val_row *rows, const v10_val_summary *s, FILE *f)
{
    fprintf(f, "\nmean |simulated - measured|, points   sa_busy  vu_busy  hbm_util  flops_util\n");
    for (int set = 0; set < V10_VAL_SETS; set++) {
        fprintf(f, "  %-8s (%2zu rows)                 ", SET[set], s->n[set][V10_VAL_SA]);
        for (int k = 0; k < V10_VAL_N; k++)
            fprintf(f, k == V10_VAL_FLOPS ? "  %10.1f" : " %8.1f", s->mean[set][k]);
        fputc('\n', f);
    }
    fprintf(f, "largest                              ");
    for (int k = 0; k < V10_VAL_N; k++)
        fprintf(f, k == V10_VAL_FLOPS ? "  %10.1f" : " %8.1f", s->max[k]);
    fputc('\n', f);
    for (int k = 0; k < V10_VAL_FLOPS; k++)
        fprintf(f, "  largest %s error: %s at batch %u\n", METRIC[k], rows[s->max_row[k]].model,
                rows[s->max_row[k]].batch);
}

int v10_validate_report_write(const v10_npu *npu, const v10_val_row *rows, size_t n,
                              const v10_val_summary *s, v10_format fmt, FILE *f, v10_err *err)
{
    v10_tab *t = rows_table(rows, n);
    int rc = v10_tab_status(t, err);
    if (!rc && fmt == V10_FMT_JSON) {
        unsigned mark = v10_json_mark();
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "version", V10_VERSION);
        cJSON_AddItemToObject(o, "npu", v10_npu_to_json(npu));
        static const int fit[] = V10_VAL_FIT_BATCHES;
        cJSON_AddItemToObject(o, "fit_batches",
                              cJSON_CreateIntArray(fit, (int)(sizeof fit / sizeof *fit)));
        cJSON_AddItemToObject(o, "rows", v10_tab_to_json(t));
        cJSON_AddItemToObject(o, "summary", summary_json(rows, s));
        if (v10_doc_json(o, mark, f))
            rc = v10_err_set(err, "cannot write the output");
    } else if (!rc) {
        if (fmt == V10_FMT_TABLE)
            fprintf(f, "the zoo alone on NPU %s against the V10 paper's TPUv2 profiles "
                       "(percent; fitted: batches 1, 32, 512)\n\n", npu->name);
        if (v10_tab_write(t, fmt, f))
            rc = v10_err_set(err, "cannot write the output");
        else if (fmt == V10_FMT_TABLE && n)
            summary_text(rows, s, f);
    }
    v10_tab_destroy(t);
    return rc ? -1 : v10_doc_status(f, err);
}
