/*
 * topology_report.c — `topology`: a SCALE-Sim topology costed layer by
 * layer on one systolic array (the GEMM each layer lowers to, MACs, folds,
 * compute cycles with ideal memory, utilisation) and a total row, as a
 * table, CSV or JSON (v10/model_report.h).
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "import/topology.h"
#include "report/doc.h"
#include "util/checked.h"
#include "util/json.h"
#include "v10/model_report.h"

typedef struct totals {
    uint64_t macs, folds, cycles;
} totals;

static double util(uint64_t macs, uint64_t cycles, uint32_t rows, uint32_t cols)
{
    return (double)macs / ((double)cycles * (double)rows * (double)cols);
}

static void tab_cols(v10_tab *t)
{
    v10_tab_col(t, "layer", V10_COL_STR, 0);
    v10_tab_col(t, "M", V10_COL_INT, 0);
    v10_tab_col(t, "N", V10_COL_INT, 0);
    v10_tab_col(t, "K", V10_COL_INT, 0);
    v10_tab_col(t, "macs", V10_COL_INT, 0);
    v10_tab_col(t, "folds", V10_COL_INT, 0);
    v10_tab_col(t, "cycles", V10_COL_INT, 0);
    v10_tab_col(t, "util", V10_COL_REAL, 4);
}

/* Costs every layer into t (one row each) and sums into *tot; -1 with err
 * set if a figure does not fit the table's signed 64-bit integers. */
static int cost_layers(const char *path, const v10_topo *topo, uint32_t rows, uint32_t cols,
                       v10_dataflow df, v10_sa_mode mode, v10_tab *t, totals *tot,
                       v10_err *err)
{
    memset(tot, 0, sizeof *tot);
    for (size_t i = 0; i < topo->n_layers; i++) {
        const v10_topo_layer *L = &topo->layers[i];
        uint64_t folds;
        uint64_t cyc = v10_cost_gemm_cycles(L->M, L->N, L->K, rows, cols, df, mode, &folds);
        if (cyc == UINT64_MAX || cyc > INT64_MAX || L->macs > INT64_MAX ||
            L->M > INT64_MAX || L->N > INT64_MAX || L->K > INT64_MAX)
            return v10_err_set(err, "%s:%u: layer %s: cycle or MAC count does not fit in "
                                    "63 bits",
                               path, L->line, L->name);
        if (v10_add_u64(tot->macs, L->macs, &tot->macs) || tot->macs > INT64_MAX ||
            v10_add_u64(tot->folds, folds, &tot->folds) || tot->folds > INT64_MAX ||
            v10_add_u64(tot->cycles, cyc, &tot->cycles) || tot->cycles > INT64_MAX)
            return v10_err_set(err, "%s:%u: layer %s: totals do not fit in 63 bits", path,
                               L->line, L->name);
        v10_tab_row(t);
        v10_tab_str(t, L->name);
        v10_tab_int(t, (int64_t)L->M);
        v10_tab_int(t, (int64_t)L->N);
        v10_tab_int(t, (int64_t)L->K);
        v10_tab_int(t, (int64_t)L->macs);
        v10_tab_int(t, (int64_t)folds);
        v10_tab_int(t, (int64_t)cyc);
        v10_tab_real(t, util(L->macs, cyc, rows, cols));
    }
    return 0;
}

/* {"file", "array": {"rows","cols"}, "dataflow", "mode", "layers": [...],
 *  "totals": {...}}, written whole. */
static int write_json(const char *path, const v10_topo_costing *c, const v10_tab *t,
                      size_t n_layers, const totals *tot, FILE *f, v10_err *err)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateObject(), *tj = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddNumberToObject(arr, "rows", c->rows);
    cJSON_AddNumberToObject(arr, "cols", c->cols);
    v10_json_add(o, "array", arr);
    cJSON_AddStringToObject(o, "dataflow", v10_dataflow_name(c->df));
    cJSON_AddStringToObject(o, "mode", c->mode == V10_SA_TPU ? "tpu" : "scalesim");
    v10_json_add(o, "layers", v10_tab_to_json(t));
    cJSON_AddNumberToObject(tj, "layers", (double)n_layers);
    cJSON_AddNumberToObject(tj, "macs", (double)tot->macs);
    cJSON_AddNumberToObject(tj, "folds", (double)tot->folds);
    cJSON_AddNumberToObject(tj, "cycles", (double)tot->cycles);
    cJSON_AddNumberToObject(tj, "util", util(tot->macs, tot->cycles, c->rows, c->cols));
    v10_json_add(o, "totals", tj);
    if (v10_doc_json(o, mark, f))
        return v10_err_set(err, "out of memory building the output");
    return v10_doc_status(f, err);
}

int v10_topology_report(const char *path, const v10_topo *topo, const v10_topo_costing *c,
                        v10_format fmt, FILE *f, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    tab_cols(t);
    totals tot;
    int rc = cost_layers(path, topo, c->rows, c->cols, c->df, c->mode, t, &tot, err);
    if (rc) {
        /* cost_layers named the layer */
    } else if (fmt == V10_FMT_JSON) {
        rc = write_json(path, c, t, topo->n_layers, &tot, f, err);
    } else {
        v10_tab_row(t);
        v10_tab_str(t, "total");
        v10_tab_int(t, 0);
        v10_tab_int(t, 0);
        v10_tab_int(t, 0);
        v10_tab_int(t, (int64_t)tot.macs);
        v10_tab_int(t, (int64_t)tot.folds);
        v10_tab_int(t, (int64_t)tot.cycles);
        v10_tab_real(t, util(tot.macs, tot.cycles, c->rows, c->cols));
        v10_tab_footer(t);
        if (v10_tab_status(t, err) || v10_tab_write(t, fmt, f))
            rc = v10_err_set(err, "cannot write the output");
    }
    v10_tab_destroy(t);
    return rc ? -1 : v10_doc_status(f, err);
}
