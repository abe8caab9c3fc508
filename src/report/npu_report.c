/*
 * npu_report.c — `npu`: one resolved NPU configuration with its derived
 * figures (key/value table or JSON), or the presets' main figures
 * (v10/model_report.h).
 */
#include <math.h>

#include <cjson/cJSON.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/model_report.h"

/* Peak figures: a MAC is 2 FLOPs; every PE does one MAC per cycle. */
static double peak_sa_tflops(const v10_npu *n)
{
    return 2.0 * n->sa_count * n->sa_rows * n->sa_cols * n->clock_mhz * 1e6 / 1e12;
}

static double peak_vu_gflops(const v10_npu *n)
{
    return (double)n->vu_count * n->vu_lanes * n->vu_ops_per_lane * n->clock_mhz * 1e6 / 1e9;
}

/* The derived figures, as a JSON object (caller owns it); NULL on OOM. */
static cJSON *derived_json(const v10_npu *n)
{
    cJSON *d = cJSON_CreateObject();
    if (!d)
        return NULL;
    double bpc = v10_npu_hbm_bytes_per_cycle(n);
    cJSON_AddNumberToObject(d, "peak_sa_tflops", peak_sa_tflops(n));
    cJSON_AddNumberToObject(d, "peak_vu_gflops", peak_vu_gflops(n));
    cJSON_AddNumberToObject(d, "hbm_bytes_per_cycle", bpc);
    /* Machine balance: FLOPs the SAs can do per HBM byte (roofline ridge). */
    cJSON_AddNumberToObject(d, "sa_flops_per_hbm_byte",
                            peak_sa_tflops(n) * 1e12 / (n->hbm_gbps * 1e9));
    cJSON_AddNumberToObject(d, "vmem_mib", (double)n->vmem_bytes / (1024.0 * 1024.0));
    cJSON_AddNumberToObject(d, "slice_us", v10_npu_cycles_to_us(n, (double)n->slice_cycles));
    cJSON_AddNumberToObject(d, "sa_switch_us",
                            v10_npu_cycles_to_us(n, (double)n->sa_switch_cycles));
    cJSON_AddNumberToObject(d, "sa_switch_lost_cycles",
                            (double)(n->sa_switch_cycles - n->sa_switch_overlap_cycles));
    cJSON_AddNumberToObject(d, "vu_switch_cycles", (double)v10_npu_vu_switch_cycles(n));
    cJSON_AddNumberToObject(d, "vu_switch_us",
                            v10_npu_cycles_to_us(n, (double)v10_npu_vu_switch_cycles(n)));
    cJSON_AddNumberToObject(d, "pmt_switch_cycles", (double)v10_npu_pmt_switch_cycles(n));
    /* Power at full activity from the energies per operation (docs/energy.md). */
    cJSON_AddNumberToObject(d, "sa_dynamic_w", v10_npu_sa_dynamic_w(n));
    cJSON_AddNumberToObject(d, "vu_dynamic_w", v10_npu_vu_dynamic_w(n));
    return d;
}

/* A JSON scalar as text: integers without a fraction, others to 6 digits. */
static void scalar_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
        snprintf(buf, n, "%.0f", v->valuedouble);
    else
        snprintf(buf, n, "%.6g", v->valuedouble);
}

/* Writes t if it was built whole, then destroys it. */
static int write_tab(v10_tab *t, v10_format fmt, FILE *f, v10_err *err)
{
    int rc = v10_tab_status(t, err);
    if (!rc && v10_tab_write(t, fmt, f))
        rc = v10_err_set(err, "cannot write the output");
    v10_tab_destroy(t);
    return rc ? -1 : v10_doc_status(f, err);
}

/* One NPU: key/value rows (table) or {...fields, "derived": {...}} (json). */
int v10_npu_report(const v10_npu *n, v10_format fmt, FILE *f, v10_err *err)
{
    unsigned mark = v10_json_mark();
    cJSON *o = v10_npu_to_json(n), *d = derived_json(n);
    if (fmt == V10_FMT_JSON) {
        if (o)
            v10_json_add(o, "derived", d);
        else
            cJSON_Delete(d);
        if (v10_doc_json(o, mark, f))
            return v10_err_set(err, "out of memory building the output");
        return v10_doc_status(f, err);
    }
    if (!o || !d || v10_json_failed_since(mark)) {
        cJSON_Delete(o);
        cJSON_Delete(d);
        return v10_err_set(err, "out of memory building the output");
    }
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "key", V10_COL_STR, 0);
    v10_tab_col(t, "value", V10_COL_STR, 0);
    char buf[128];
    const cJSON *v;
    cJSON_ArrayForEach(v, o) {
        scalar_text(v, buf, sizeof buf);
        v10_tab_row(t);
        v10_tab_str(t, v->string);
        v10_tab_str(t, buf);
    }
    int first = 1;
    cJSON_ArrayForEach(v, d) {
        scalar_text(v, buf, sizeof buf);
        v10_tab_row(t);
        if (first)
            v10_tab_footer(t); /* a rule sets the derived figures off */
        first = 0;
        v10_tab_str(t, v->string);
        v10_tab_str(t, buf);
    }
    int rc = write_tab(t, V10_FMT_TABLE, f, err);
    cJSON_Delete(o);
    cJSON_Delete(d);
    return rc;
}

int v10_npu_list_report(v10_format fmt, FILE *f, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "sa_count", V10_COL_INT, 0);
    v10_tab_col(t, "sa_rows", V10_COL_INT, 0);
    v10_tab_col(t, "sa_cols", V10_COL_INT, 0);
    v10_tab_col(t, "vu_count", V10_COL_INT, 0);
    v10_tab_col(t, "vmem_mib", V10_COL_REAL, 0);
    v10_tab_col(t, "hbm_gbps", V10_COL_REAL, 1);
    v10_tab_col(t, "clock_mhz", V10_COL_REAL, 0);
    v10_tab_col(t, "peak_sa_tflops", V10_COL_REAL, 2);
    v10_tab_col(t, "peak_vu_gflops", V10_COL_REAL, 1);
    for (size_t i = 0; v10_npu_preset_names[i]; i++) {
        v10_npu n;
        v10_err e;
        V10_ASSERT(v10_npu_preset(v10_npu_preset_names[i], &n, &e) == 0);
        v10_tab_row(t);
        v10_tab_str(t, n.name);
        v10_tab_int(t, n.sa_count);
        v10_tab_int(t, n.sa_rows);
        v10_tab_int(t, n.sa_cols);
        v10_tab_int(t, n.vu_count);
        v10_tab_real(t, (double)n.vmem_bytes / (1024.0 * 1024.0));
        v10_tab_real(t, n.hbm_gbps);
        v10_tab_real(t, n.clock_mhz);
        v10_tab_real(t, peak_sa_tflops(&n));
        v10_tab_real(t, peak_vu_gflops(&n));
    }
    return write_tab(t, fmt, f, err);
}
