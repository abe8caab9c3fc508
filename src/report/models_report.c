/*
 * models_report.c — `models` (one standalone profile row per model) and
 * `profile` (one row per operator of one model, then its totals), as a
 * table, CSV or JSON (v10/model_report.h).
 */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/doc.h"
#include "util/checked.h"
#include "v10/cost.h"
#include "util/json.h"
#include "v10/model_report.h"

static int add63(uint64_t *acc, uint64_t v)
{
    return v10_add_u64(*acc, v, acc) || *acc > INT64_MAX ? -1 : 0;
}

int v10_model_summarize(const v10_model *m, v10_model_summary *s, v10_err *err)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        int fu = op->fu;
        if (add63(&s->macs, op->macs) || add63(&s->hbm_bytes, op->hbm_bytes) ||
            add63(&s->cycles, op->cycles) || add63(&s->compute_cycles, op->compute_cycles) ||
            add63(&s->mem_cycles, op->mem_cycles) || add63(&s->tiles, op->tiles) ||
            add63(&s->stall_cycles, v10_cost_stall_cycles(op)) ||
            add63(&s->fu_cycles[fu], op->cycles))
            return v10_err_set(err, "model %s: totals exceed 63 bits", m->name);
        s->fu_ops[fu]++;
        s->ops++;
    }
    V10_ASSERT(s->cycles == v10_model_cycles(m));
    return v10_model_len_stats(m, s->len, err);
}

static double us(const v10_npu *npu, uint64_t cycles)
{
    return v10_npu_cycles_to_us(npu, (double)cycles);
}

static double frac(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

static int tab_ok(const v10_tab *t, v10_err *err) { return v10_tab_status(t, err); }

/* ---- models ------------------------------------------------------------ */

v10_tab *v10_models_table(void)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "batch", V10_COL_INT, 0);
    v10_tab_col(t, "ops", V10_COL_INT, 0);
    v10_tab_col(t, "sa_ops", V10_COL_INT, 0);
    v10_tab_col(t, "vu_ops", V10_COL_INT, 0);
    v10_tab_col(t, "macs", V10_COL_INT, 0);
    v10_tab_col(t, "hbm_bytes", V10_COL_INT, 0);
    v10_tab_col(t, "latency_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "latency_us", V10_COL_REAL, 1);
    v10_tab_col(t, "sa_busy", V10_COL_REAL, 3);
    v10_tab_col(t, "vu_busy", V10_COL_REAL, 3);
    v10_tab_col(t, "hbm_util", V10_COL_REAL, 3);
    /* Operator lengths per FU type (v10_len_stats), in µs, then their
     * coefficient of variation. */
    static const char *const len[V10_FU_COMPUTE] = {"sa_op_len_us", "vu_op_len_us"};
    static const char *const cv[V10_FU_COMPUTE] = {"sa_op_len_cv", "vu_op_len_cv"};
    static const char *const stat[] = {"min", "p50", "mean", "p95", "max"};
    char name[64];
    for (int fu = 0; fu < V10_FU_COMPUTE; fu++) {
        for (size_t k = 0; k < sizeof stat / sizeof *stat; k++) {
            snprintf(name, sizeof name, "%s.%s", len[fu], stat[k]);
            v10_tab_col(t, name, V10_COL_REAL, 2);
        }
        v10_tab_col(t, cv[fu], V10_COL_REAL, 3);
    }
    return t;
}

void v10_models_row(v10_tab *t, const v10_model *m, const v10_model_summary *s,
                    const v10_npu *npu)
{
    v10_tab_row(t);
    v10_tab_str(t, m->name);
    v10_tab_int(t, m->batch);
    v10_tab_int(t, (int64_t)s->ops);
    v10_tab_int(t, (int64_t)s->fu_ops[V10_FU_SA]);
    v10_tab_int(t, (int64_t)s->fu_ops[V10_FU_VU]);
    v10_tab_int(t, (int64_t)s->macs);
    v10_tab_int(t, (int64_t)s->hbm_bytes);
    v10_tab_int(t, (int64_t)s->cycles);
    v10_tab_real(t, us(npu, s->cycles));
    v10_tab_real(t, frac(s->fu_cycles[V10_FU_SA], s->cycles));
    v10_tab_real(t, frac(s->fu_cycles[V10_FU_VU], s->cycles));
    v10_tab_real(t, s->cycles ? (double)s->hbm_bytes /
                                    (v10_npu_hbm_bytes_per_cycle(npu) * (double)s->cycles)
                              : 0.0);
    for (int fu = 0; fu < V10_FU_COMPUTE; fu++) {
        const v10_len_stats *l = &s->len[fu];
        v10_tab_real(t, us(npu, l->min));
        v10_tab_real(t, v10_npu_cycles_to_us(npu, l->p50));
        v10_tab_real(t, v10_npu_cycles_to_us(npu, l->mean));
        v10_tab_real(t, v10_npu_cycles_to_us(npu, l->p95));
        v10_tab_real(t, us(npu, l->max));
        v10_tab_real(t, l->cv);
    }
}

/* {"version", "npu": {...}, key: rows[, extra_key: extra]}, written whole. */
static int write_wrapped(const v10_npu *npu, unsigned mark, const char *key, cJSON *rows,
                         const char *extra_key, cJSON *extra, FILE *f, v10_err *err)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddStringToObject(o, "version", V10_VERSION);
        v10_json_add(o, "npu", v10_npu_to_json(npu));
        v10_json_add(o, key, rows);
        if (extra_key)
            v10_json_add(o, extra_key, extra);
    } else {
        cJSON_Delete(rows);
        cJSON_Delete(extra);
    }
    if (v10_doc_json(o, mark, f))
        return v10_err_set(err, "out of memory building the output");
    return v10_doc_status(f, err);
}

int v10_models_write(const v10_tab *t, const v10_npu *npu, v10_format fmt, FILE *f,
                     v10_err *err)
{
    if (tab_ok(t, err))
        return -1;
    if (fmt == V10_FMT_JSON)
        return write_wrapped(npu, v10_json_mark(), "models", v10_tab_to_json(t), NULL, NULL,
                             f, err);
    if (fmt == V10_FMT_TABLE)
        fprintf(f, "NPU %s: %u SA %ux%u, %u VU, %.0f GB/s HBM, %.0f MHz; one request each\n\n",
                npu->name, npu->sa_count, npu->sa_rows, npu->sa_cols, npu->vu_count,
                npu->hbm_gbps, npu->clock_mhz);
    if (v10_tab_write(t, fmt, f))
        return v10_err_set(err, "cannot write the output");
    return v10_doc_status(f, err);
}

/* ---- profile ----------------------------------------------------------- */

static void profile_cols(v10_tab *t)
{
    v10_tab_col(t, "index", V10_COL_INT, 0);
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "fu", V10_COL_STR, 0);
    v10_tab_col(t, "cycles", V10_COL_INT, 0);
    v10_tab_col(t, "us", V10_COL_REAL, 2);
    v10_tab_col(t, "compute_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "mem_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "hbm_bytes", V10_COL_INT, 0);
    v10_tab_col(t, "bound", V10_COL_STR, 0);
    v10_tab_col(t, "stall_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "stallfree_gbps", V10_COL_REAL, 1);
    v10_tab_col(t, "tiles", V10_COL_INT, 0);
    v10_tab_col(t, "macs", V10_COL_INT, 0);
}

/* The totals as one JSON object (the `models` row of this model). */
static cJSON *totals_json(const v10_model *m, const v10_model_summary *s, const v10_npu *npu)
{
    v10_tab *t = v10_models_table();
    v10_models_row(t, m, s, npu);
    cJSON *rows = v10_tab_to_json(t);
    v10_tab_destroy(t);
    if (!rows)
        return NULL;
    cJSON *one = cJSON_DetachItemFromArray(rows, 0);
    cJSON_Delete(rows);
    if (one) {
        cJSON_AddNumberToObject(one, "compute_cycles", (double)s->compute_cycles);
        cJSON_AddNumberToObject(one, "mem_cycles", (double)s->mem_cycles);
        cJSON_AddNumberToObject(one, "tiles", (double)s->tiles);
    }
    return one;
}

static int write_profile(v10_tab *t, const v10_model *m, const v10_model_summary *s,
                         const v10_npu *npu, v10_format fmt, FILE *f, v10_err *err)
{
    if (fmt == V10_FMT_JSON) {
        unsigned mark = v10_json_mark();
        cJSON *rows = tab_ok(t, err) ? NULL : v10_tab_to_json(t);
        return write_wrapped(npu, mark, "ops", rows, "totals", totals_json(m, s, npu), f,
                             err);
    }
    v10_tab_row(t);
    v10_tab_footer(t);
    v10_tab_int(t, (int64_t)s->ops);
    v10_tab_str(t, "total");
    v10_tab_str(t, "-");
    v10_tab_int(t, (int64_t)s->cycles);
    v10_tab_real(t, us(npu, s->cycles));
    v10_tab_int(t, (int64_t)s->compute_cycles);
    v10_tab_int(t, (int64_t)s->mem_cycles);
    v10_tab_int(t, (int64_t)s->hbm_bytes);
    v10_tab_str(t, "-");
    v10_tab_int(t, (int64_t)s->stall_cycles);
    v10_tab_real(t, NAN); /* "-": a rate of the whole model is no op's */
    v10_tab_int(t, (int64_t)s->tiles);
    v10_tab_int(t, (int64_t)s->macs);
    if (tab_ok(t, err))
        return -1;
    fprintf(f, "model %s, batch %u, on NPU %s: %zu operators (%llu SA, %llu VU", m->name,
            m->batch, npu->name, m->n_ops, (unsigned long long)s->fu_ops[V10_FU_SA],
            (unsigned long long)s->fu_ops[V10_FU_VU]);
    if (s->fu_ops[V10_FU_ICI]) /* several chips: the collectives, on the link engine */
        fprintf(f, ", %llu ICI %.1f%% of the time", (unsigned long long)s->fu_ops[V10_FU_ICI],
                100.0 * frac(s->fu_cycles[V10_FU_ICI], s->cycles));
    fprintf(f, "), %.1f us alone; SA busy %.1f%%, VU busy %.1f%%\n", us(npu, s->cycles),
            100.0 * frac(s->fu_cycles[V10_FU_SA], s->cycles),
            100.0 * frac(s->fu_cycles[V10_FU_VU], s->cycles));
    for (int fu = 0; fu < V10_FU_COMPUTE; fu++) {
        const v10_len_stats *l = &s->len[fu];
        fprintf(f, "%s operator lengths (us): min %.2f  p50 %.2f  mean %.2f  p95 %.2f  "
                   "max %.2f  CV %.3f\n",
                v10_fu_name((v10_fu_type)fu), us(npu, l->min), v10_npu_cycles_to_us(npu, l->p50),
                v10_npu_cycles_to_us(npu, l->mean), v10_npu_cycles_to_us(npu, l->p95),
                us(npu, l->max), l->cv);
    }
    fputc('\n', f);
    if (v10_tab_write(t, fmt, f))
        return v10_err_set(err, "cannot write the output");
    return v10_doc_status(f, err);
}

int v10_profile_write(const v10_model *m, const v10_model_summary *s, const v10_npu *npu,
                      v10_format fmt, FILE *f, v10_err *err)
{
    if (fmt == V10_FMT_CSV) /* the operator-trace CSV: it reads back as a model */
        return v10_trace_csv_write(m, npu, f) ? v10_err_set(err, "cannot write the output")
                                              : 0;
    v10_tab *t = v10_tab_create();
    profile_cols(t);
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        v10_tab_row(t);
        v10_tab_int(t, (int64_t)i);
        v10_tab_str(t, op->name);
        v10_tab_str(t, v10_fu_name(op->fu));
        /* v10_model_summarize checked that every sum, hence every term, fits int64. */
        v10_tab_int(t, (int64_t)op->cycles);
        v10_tab_real(t, us(npu, op->cycles));
        v10_tab_int(t, (int64_t)op->compute_cycles);
        v10_tab_int(t, (int64_t)op->mem_cycles);
        v10_tab_int(t, (int64_t)op->hbm_bytes);
        v10_tab_str(t, op->compute_cycles >= op->mem_cycles ? "compute" : "memory");
        v10_tab_int(t, (int64_t)v10_cost_stall_cycles(op));
        v10_tab_real(t, v10_cost_stallfree_gbps(npu, op));
        v10_tab_int(t, op->tiles);
        v10_tab_int(t, (int64_t)op->macs);
    }
    int rc = write_profile(t, m, s, npu, fmt, f, err);
    v10_tab_destroy(t);
    return rc;
}
