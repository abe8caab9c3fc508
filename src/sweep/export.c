/*
 * export.c — the files a finished sweep leaves for other tools, written
 * from the result store (store.c) once every point is recorded:
 * results.jsonl (the rows, sorted by index) and results.csv (one flat row
 * per point, for pandas).  Each is written whole or not at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "sweep/store.h"
#include "util/csv.h"
#include "util/file.h"
#include "util/json.h"
#include "util/num.h"
#include "util/text.h"

/* A growing text: p[0 .. n) NUL-terminated in cap bytes; once oom is set
 * (an allocation failed) the text is incomplete and must not be written. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > cap)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* A CSV cell, quoted as the one CSV writer quotes (util/csv.h). */
static void sb_cell(sbuf *b, const char *s)
{
    if (!v10_csv_needs_quotes(s)) {
        sb_str(b, s);
        return;
    }
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            sb_put(b, "\"\"", 2);
        else
            sb_put(b, s, 1);
    }
    sb_put(b, "\"", 1);
}

/* A JSON value as one CSV cell: lists of strings join with '+', lists of
 * numbers with ';', objects as compact JSON, null as empty. */
static void sb_json_cell(sbuf *b, const cJSON *j)
{
    char num[V10_NUM_MAX];
    if (!j || cJSON_IsNull(j)) {
        return;
    } else if (cJSON_IsString(j)) {
        sb_cell(b, j->valuestring);
    } else if (cJSON_IsNumber(j)) {
        v10_num_fmt(j->valuedouble, num, sizeof num); /* parsed JSON: finite */
        sb_str(b, num);
    } else if (cJSON_IsBool(j)) {
        sb_str(b, cJSON_IsTrue(j) ? "true" : "false");
    } else if (cJSON_IsArray(j)) {
        sbuf t = {0};
        for (const cJSON *c = j->child; c; c = c->next) {
            if (c != j->child)
                sb_str(&t, cJSON_IsString(c) ? "+" : ";");
            if (cJSON_IsString(c)) { /* a tenant spec as given: its control bytes escaped */
                char esc[1024];
                v10_name_escape(esc, sizeof esc, c->valuestring);
                sb_str(&t, esc);
            }
            else {
                v10_num_fmt(c->valuedouble, num, sizeof num);
                sb_str(&t, num);
            }
        }
        sb_cell(b, t.p ? t.p : "");
        b->oom |= t.oom;
        free(t.p);
    } else {
        char *t = cJSON_PrintUnformatted(j);
        sb_cell(b, t ? t : "");
        b->oom |= !t;
        free(t);
    }
}

static const cJSON *path_get(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* Configuration columns: the point's own setting if the spec gives it, else
 * the value the run used. */
static const char *const cfg_cols[] = {"mix", "priority", "npu", "policy", "slice_cycles",
                                       "pmt_slice_us", "pmt_share", "prema_drain_frac",
                                       "contention", "requests", "warmup", "seed"};
static const char *const metric_cols[][2] = {
    {"window_cycles", NULL}, {"utilization", "sa"}, {"utilization", "vu"},
    {"utilization", "hbm"}, {"utilization", "overall"}, {"utilization", "overlap"},
    {"utilization", "sa_flops"}, {"system", "stp"}, {"system", "antt"},
    {"system", "fairness"}, {"system", "jain"}, {"overheads", "preemptions"},
    {"overheads", "context_switches"}, {"overheads", "switch_cycles"},
};
static const char *const tenant_cols[][2] = {
    {"model", NULL}, {"batch", NULL}, {"priority", NULL}, {"completed", NULL},
    {"throughput_rps", NULL}, {"np", NULL}, {"alone_latency_us", NULL},
    {"latency_us", "avg"}, {"latency_us", "p50"}, {"latency_us", "p95"},
    {"latency_us", "p99"}, {"slo_attainment", NULL}, {"preemptions", NULL},
};
/* The run's energy (docs/energy.md), under the names `run --format csv`
 * gives its columns: the column, then the JSON path. */
static const char *const energy_cols[][3] = {
    {"energy_j", "system", "energy_j"},
    {"power_w", "system", "power_w"},
    {"inferences_per_j", "system", "inferences_per_j"},
    {"energy_unattributed_j", "system", "energy_unattributed_j"},
};
/* Then per tenant where its time went (docs/attribution.md; empty cells with
 * "attribution": false) and its energy, each under `run --format csv`'s
 * name after tK_: tK_STATE_cycles for each state, tK_lost_to_tJ_cycles for
 * each tenant J (the row's lost_to, by J's name; 0 for K itself), and
 * these, the column and the tenant's JSON key. */
static const char *const tenant_energy_cols[][2] = {
    {"tenant_energy_j", "energy_j"},
    {"energy_per_request_j", "energy_per_request_j"},
};
#define N_OF(a) (sizeof a / sizeof a[0])

static void cfg_cell(sbuf *b, const cJSON *point, const cJSON *cfg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(point, key);
    if (v) {
        sb_json_cell(b, v);
        return;
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(cfg, "tenants");
    if (!strcmp(key, "mix") || !strcmp(key, "priority")) {
        cJSON *arr = cJSON_CreateArray();
        for (const cJSON *t = ts ? ts->child : NULL; arr && t; t = t->next)
            v10_json_push(arr, cJSON_Duplicate(
                cJSON_GetObjectItemCaseSensitive(t, key[0] == 'm' ? "model" : "priority"), 1));
        sb_json_cell(b, arr);
        cJSON_Delete(arr);
    } else if (!strcmp(key, "npu")) {
        sb_json_cell(b, path_get(cfg, "npu", "name"));
    } else if (strstr(key, "slice") || strstr(key, "pmt") || strstr(key, "prema")) {
        sb_json_cell(b, path_get(cfg, "params", key));
    } else {
        sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(cfg, key));
    }
}

/* The header line of results.csv for rows of up to max_t tenants. */
static void csv_header(sbuf *b, const v10_sweep *s, size_t max_t)
{
    char col[128];
    sb_str(b, "index,id");
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        sb_str(b, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_cell(b, s->set[j].key);
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        snprintf(col, sizeof col, ",%s%s%s", metric_cols[k][1] ? metric_cols[k][0] : "",
                 metric_cols[k][1] ? "_" : "",
                 metric_cols[k][1] ? metric_cols[k][1] : metric_cols[k][0]);
        sb_str(b, col);
    }
    for (size_t k = 0; k < N_OF(energy_cols); k++) {
        sb_str(b, ",");
        sb_str(b, energy_cols[k][0]);
    }
    for (size_t t = 0; t < max_t; t++) {
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            snprintf(col, sizeof col, ",t%zu_%s%s%s", t, tenant_cols[k][0],
                     tenant_cols[k][1] ? "_" : "", tenant_cols[k][1] ? tenant_cols[k][1] : "");
            sb_str(b, col);
        }
        for (int k = 0; k < V10_ATTR_STATES; k++) {
            snprintf(col, sizeof col, ",t%zu_%s_cycles", t, v10_attr_name((v10_attr_state)k));
            sb_str(b, col);
        }
        for (size_t p = 0; p < max_t; p++) {
            snprintf(col, sizeof col, ",t%zu_lost_to_t%zu_cycles", t, p);
            sb_str(b, col);
        }
        for (size_t k = 0; k < N_OF(tenant_energy_cols); k++) {
            snprintf(col, sizeof col, ",t%zu_%s", t, tenant_energy_cols[k][0]);
            sb_str(b, col);
        }
    }
    sb_str(b, ",error\n");
}

/* One row of results.csv from one parsed result row. */
static void csv_row(sbuf *b, const v10_sweep *s, const cJSON *r, size_t max_t)
{
    const cJSON *point = path_get(r, "point", NULL);
    const cJSON *res = path_get(r, "result", NULL), *cfg = path_get(res, "config", NULL);
    sb_json_cell(b, path_get(r, "index", NULL));
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "id", NULL));
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        cfg_cell(b, point, cfg, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(point, s->set[j].key));
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        sb_str(b, ",");
        sb_json_cell(b, path_get(res, metric_cols[k][0], metric_cols[k][1]));
    }
    for (size_t k = 0; k < N_OF(energy_cols); k++) {
        sb_str(b, ",");
        sb_json_cell(b, path_get(res, energy_cols[k][1], energy_cols[k][2]));
    }
    const cJSON *ts = path_get(res, "tenants", NULL);
    for (size_t t = 0; t < max_t; t++) {
        const cJSON *tj = cJSON_GetArrayItem(ts, (int)t);
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            sb_str(b, ",");
            if (tj)
                sb_json_cell(b, path_get(tj, tenant_cols[k][0], tenant_cols[k][1]));
        }
        for (int k = 0; k < V10_ATTR_STATES; k++) {
            sb_str(b, ",");
            sb_json_cell(b, path_get(tj, "states_cycles", v10_attr_name((v10_attr_state)k)));
        }
        const cJSON *lost = path_get(tj, "lost_to", NULL);
        for (size_t q = 0; q < max_t; q++) {
            sb_str(b, ",");
            const cJSON *name = path_get(cJSON_GetArrayItem(ts, (int)q), "name", NULL);
            if (lost && q == t)
                sb_str(b, "0"); /* as run's own column */
            else if (lost && cJSON_IsString(name))
                sb_json_cell(b, path_get(lost, name->valuestring, "total"));
        }
        for (size_t k = 0; k < N_OF(tenant_energy_cols); k++) {
            sb_str(b, ",");
            sb_json_cell(b, path_get(tj, tenant_energy_cols[k][1], NULL));
        }
    }
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "error", NULL));
    sb_str(b, "\n");
}

/* The two exports being written, and the next index expected. */
typedef struct export {
    const v10_sweep *s;
    size_t max_t, next;
    v10_wfile jsonl, csv;
    sbuf b; /* one CSV line */
} export;

static int export_row(void *ctx, size_t i, const char *row, size_t len, v10_err *err)
{
    export *x = ctx;
    if (i != x->next)
        return v10_err_set(err, "%s: point %zu is missing", x->jsonl.name, x->next);
    x->next++;
    if (fwrite(row, 1, len, x->jsonl.f) != len || fputc('\n', x->jsonl.f) == EOF)
        return v10_err_set(err, "%s: %s", x->jsonl.name, strerror(errno));
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_Parse(row);
    if (!o)
        return v10_json_failed_since(mark)
                   ? v10_err_set(err, "%s: out of memory", x->csv.name)
                   : v10_err_set(err, "point %zu: the stored row is not JSON", i);
    x->b.n = 0;
    csv_row(&x->b, x->s, o, x->max_t);
    cJSON_Delete(o);
    if (x->b.oom || v10_json_failed_since(mark))
        return v10_err_set(err, "%s: out of memory", x->csv.name);
    if (fwrite(x->b.p, 1, x->b.n, x->csv.f) != x->b.n)
        return v10_err_set(err, "%s: %s", x->csv.name, strerror(errno));
    return 0;
}

/*
 * Writes results.jsonl and results.csv, rows in index order, streaming from
 * the store (memory: one row), each into a temporary that is fsync'ed and
 * renamed (v10_wfile).  results.csv goes last: once it is there, the sweep
 * is complete.
 */
int v10_sweep_store_finish(v10_sweep_store *st, v10_err *err)
{
    const v10_sweep *s = sweep_store_spec(st);
    if (v10_sweep_store_count(st) < s->points)
        return 0;
    export x = {.s = s};
    if (sweep_store_stats(st, &x.max_t, err))
        return -1;
    char jp[4200], cp[4200];
    snprintf(jp, sizeof jp, "%s/results.jsonl", sweep_store_dir(st));
    snprintf(cp, sizeof cp, "%s/results.csv", sweep_store_dir(st));
    const v10_outdir *d = sweep_store_outdir(st);
    if (v10_outdir_wopen(d, "results.jsonl", &x.jsonl, 1, err))
        return -1;
    if (v10_outdir_wopen(d, "results.csv", &x.csv, 1, err)) {
        v10_wfile_abort(&x.jsonl);
        return -1;
    }
    csv_header(&x.b, s, x.max_t);
    int rc = 0;
    if (x.b.oom)
        rc = v10_err_set(err, "%s: out of memory", cp);
    else if (fwrite(x.b.p, 1, x.b.n, x.csv.f) != x.b.n)
        rc = v10_err_set(err, "%s: %s", cp, strerror(errno));
    if (rc == 0)
        rc = sweep_store_rows(st, export_row, &x, err);
    if (rc == 0 && x.next != s->points)
        rc = v10_err_set(err, "%s: point %zu is missing", jp, x.next);
    if (rc == 0)
        rc = v10_wfile_commit(&x.jsonl, err);
    else
        v10_wfile_abort(&x.jsonl);
    if (rc == 0)
        rc = v10_wfile_commit(&x.csv, err);
    else
        v10_wfile_abort(&x.csv);
    free(x.b.p);
    return rc;
}
