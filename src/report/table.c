/*
 * table.c — renders a v10_tab as text, CSV or JSON (see v10/table.h).
 *
 * Cells are kept as typed values in one flat array, row-major; a row is
 * complete when it has exactly one cell per column (asserted).
 */
#include "v10/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "util/csv.h"
#include "util/json.h"
#include "util/names.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/err.h"

typedef struct col {
    char *name;
    v10_col_kind kind;
    int digits;
} col;

typedef struct cell {
    char *s;
    int64_t i;
    double r;
} cell;

struct v10_tab {
    col *cols;
    size_t n_cols;
    cell *cells;     /* n_rows * n_cols */
    size_t n_cells, cap_cells;
    unsigned char *footer; /* per row */
    size_t n_rows, cap_rows;
    int oom;               /* an allocation failed: every later call is a no-op */
};

/* Grows *p to n bytes; on failure leaves *p alone, marks the table failed
 * (sticky, like a stream's error flag) and returns -1. */
static int grow(v10_tab *t, void *p, size_t n)
{
    void *q = realloc(*(void **)p, n ? n : 1);
    if (!q) {
        t->oom = 1;
        return -1;
    }
    *(void **)p = q;
    return 0;
}

static char *dup_str(v10_tab *t, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = NULL;
    if (grow(t, &d, n))
        return NULL;
    memcpy(d, s, n);
    return d;
}

v10_tab *v10_tab_create(void)
{
    return calloc(1, sizeof(v10_tab));
}

void v10_tab_destroy(v10_tab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_cols; i++)
        free(t->cols[i].name);
    for (size_t i = 0; i < t->n_cells; i++)
        free(t->cells[i].s);
    free(t->cols);
    free(t->cells);
    free(t->footer);
    free(t);
}

int v10_tab_status(const v10_tab *t, v10_err *err)
{
    if (!t || t->oom)
        return v10_err_set(err, "out of memory building a result table");
    return 0;
}

void v10_tab_col(v10_tab *t, const char *name, v10_col_kind kind, int digits)
{
    if (!t || t->oom)
        return;
    V10_ASSERT(t->n_rows == 0);
    char *d = dup_str(t, name);
    if (!d || grow(t, &t->cols, (t->n_cols + 1) * sizeof *t->cols)) {
        free(d);
        return;
    }
    t->cols[t->n_cols++] = (col){d, kind, digits};
}

void v10_tab_row(v10_tab *t)
{
    if (!t || t->oom)
        return;
    V10_ASSERT(t->n_cells == t->n_rows * t->n_cols);
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
        if (grow(t, &t->footer, cap))
            return;
        t->cap_rows = cap;
    }
    t->footer[t->n_rows++] = 0;
}

void v10_tab_footer(v10_tab *t)
{
    if (!t || t->oom)
        return;
    V10_ASSERT(t->n_rows > 0);
    t->footer[t->n_rows - 1] = 1;
}

/* The next cell of the current row, or NULL once the table has failed. */
static cell *next_cell(v10_tab *t, v10_col_kind kind)
{
    if (!t || t->oom)
        return NULL;
    V10_ASSERT(t->n_rows > 0 && t->n_cells < t->n_rows * t->n_cols);
    V10_ASSERT(t->cols[t->n_cells % t->n_cols].kind == kind);
    if (t->n_cells == t->cap_cells) {
        size_t cap = t->cap_cells ? 2 * t->cap_cells : 64;
        if (grow(t, &t->cells, cap * sizeof *t->cells))
            return NULL;
        t->cap_cells = cap;
    }
    cell *c = &t->cells[t->n_cells++];
    memset(c, 0, sizeof *c);
    return c;
}

void v10_tab_str(v10_tab *t, const char *s)
{
    char *d = t && !t->oom ? dup_str(t, s) : NULL;
    cell *c = d ? next_cell(t, V10_COL_STR) : NULL;
    if (c)
        c->s = d;
    else
        free(d);
}

void v10_tab_int(v10_tab *t, int64_t v)
{
    cell *c = next_cell(t, V10_COL_INT);
    if (c)
        c->i = v;
}

void v10_tab_real(v10_tab *t, double v)
{
    cell *c = next_cell(t, V10_COL_REAL);
    if (c)
        c->r = v;
}

size_t v10_tab_rows(const v10_tab *t) { return t ? t->n_rows : 0; }

/* Formats one cell as text into buf. */
static void fmt_cell(const col *c, const cell *v, char *buf, size_t n)
{
    switch (c->kind) {
    case V10_COL_STR:
        snprintf(buf, n, "%s", v->s);
        break;
    case V10_COL_INT:
        snprintf(buf, n, "%lld", (long long)v->i);
        break;
    case V10_COL_REAL:
        if (!isfinite(v->r))
            snprintf(buf, n, "%s", isnan(v->r) ? "nan" : (v->r > 0 ? "inf" : "-inf"));
        else
            snprintf(buf, n, "%.*f", c->digits, v->r);
        break;
    }
}

/* As fmt_cell, for the readable table: an undefined figure (NaN, e.g. SLO
 * attainment without an SLO) shows as "-". */
static void fmt_text_cell(const col *c, const cell *v, char *buf, size_t n)
{
    if (c->kind == V10_COL_REAL && isnan(v->r))
        snprintf(buf, n, "-");
    else
        fmt_cell(c, v, buf, n);
    /* Names are escaped where they enter (util/text.h); a terminal gets no
     * control byte from a table whatever a caller passed. */
    if (c->kind == V10_COL_STR)
        v10_name_escape(buf, n, buf);
}

static int write_text(const v10_tab *t, FILE *f)
{
    size_t *w = calloc(t->n_cols ? t->n_cols : 1, sizeof *w);
    if (!w)
        return -1;
    char buf[256];
    for (size_t j = 0; j < t->n_cols; j++) {
        v10_name_escape(buf, sizeof buf, t->cols[j].name);
        w[j] = strlen(buf);
    }
    for (size_t i = 0; i < t->n_rows; i++)
        for (size_t j = 0; j < t->n_cols; j++) {
            fmt_text_cell(&t->cols[j], &t->cells[i * t->n_cols + j], buf, sizeof buf);
            size_t l = strlen(buf);
            if (l > w[j])
                w[j] = l;
        }
    size_t total = 0;
    for (size_t j = 0; j < t->n_cols; j++)
        total += w[j] + (j ? 2 : 0);
    for (size_t j = 0; j < t->n_cols; j++) {
        v10_name_escape(buf, sizeof buf, t->cols[j].name);
        if (t->cols[j].kind == V10_COL_STR)
            fprintf(f, "%s%-*s", j ? "  " : "", (int)w[j], buf);
        else
            fprintf(f, "%s%*s", j ? "  " : "", (int)w[j], buf);
    }
    fputc('\n', f);
    for (size_t k = 0; k < total; k++)
        fputc('-', f);
    fputc('\n', f);
    for (size_t i = 0; i < t->n_rows; i++) {
        if (t->footer[i] && (i == 0 || !t->footer[i - 1])) {
            for (size_t k = 0; k < total; k++)
                fputc('-', f);
            fputc('\n', f);
        }
        for (size_t j = 0; j < t->n_cols; j++) {
            fmt_text_cell(&t->cols[j], &t->cells[i * t->n_cols + j], buf, sizeof buf);
            if (t->cols[j].kind == V10_COL_STR)
                fprintf(f, "%s%-*s", j ? "  " : "", (int)w[j], buf);
            else
                fprintf(f, "%s%*s", j ? "  " : "", (int)w[j], buf);
        }
        fputc('\n', f);
    }
    free(w);
    return 0;
}

static int write_csv(const v10_tab *t, FILE *f)
{
    char buf[256];
    for (size_t j = 0; j < t->n_cols; j++) {
        if (j)
            fputc(',', f);
        v10_csv_put(f, t->cols[j].name);
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->n_rows; i++) {
        for (size_t j = 0; j < t->n_cols; j++) {
            if (j)
                fputc(',', f);
            const col *c = &t->cols[j];
            const cell *v = &t->cells[i * t->n_cols + j];
            if (c->kind == V10_COL_REAL && isfinite(v->r))
                v10_num_fmt(v->r, buf, sizeof buf);
            else
                fmt_cell(c, v, buf, sizeof buf);
            v10_csv_put(f, buf);
        }
        fputc('\n', f);
    }
    return 0;
}

static cJSON *cell_json(const col *c, const cell *v)
{
    switch (c->kind) {
    case V10_COL_STR:
        return cJSON_CreateString(v->s);
    case V10_COL_INT:
        return cJSON_CreateNumber((double)v->i);
    case V10_COL_REAL:
        return isfinite(v->r) ? cJSON_CreateNumber(v->r) : cJSON_CreateNull();
    }
    return NULL;
}

cJSON *v10_tab_to_json(const v10_tab *t)
{
    if (v10_tab_status(t, NULL))
        return NULL;
    unsigned mark = v10_json_mark();
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < t->n_rows; i++) {
        cJSON *obj = cJSON_CreateObject();
        if (!v10_json_push(arr, obj))
            break;
        for (size_t j = 0; j < t->n_cols; j++) {
            const col *c = &t->cols[j];
            cJSON *v = cell_json(c, &t->cells[i * t->n_cols + j]);
            const char *dot = strchr(c->name, '.');
            if (!dot) {
                v10_json_add(obj, c->name, v);
                continue;
            }
            char head[128];
            size_t hl = (size_t)(dot - c->name);
            if (hl >= sizeof head)
                hl = sizeof head - 1;
            memcpy(head, c->name, hl);
            head[hl] = 0;
            cJSON *sub = cJSON_GetObjectItemCaseSensitive(obj, head);
            if (!sub) {
                sub = cJSON_CreateObject();
                if (!v10_json_add(obj, head, sub))
                    sub = NULL;
            }
            v10_json_add(sub, dot + 1, v);
        }
    }
    if (v10_json_failed_since(mark)) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

int v10_tab_write(const v10_tab *t, v10_format fmt, FILE *f)
{
    if (v10_tab_status(t, NULL))
        return -1;
    switch (fmt) {
    case V10_FMT_TABLE:
        return write_text(t, f);
    case V10_FMT_CSV:
        return write_csv(t, f);
    case V10_FMT_JSON: {
        unsigned mark = v10_json_mark();
        return v10_doc_json(v10_tab_to_json(t), mark, f);
    }
    }
    return -1;
}

int v10_format_parse(const char *s, v10_format *out)
{
    static const char *const names[] = {"table", "json", "csv", NULL};
    static const v10_format fmts[] = {V10_FMT_TABLE, V10_FMT_JSON, V10_FMT_CSV};
    long i = v10_name_lookup(s, names, 3); /* as people type it: "JSON" */
    if (i < 0)
        return -1;
    *out = fmts[i];
    return 0;
}

void v10_tab_cols(v10_tab *t, const v10_col_spec *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v10_tab_col(t, cols[i].name, cols[i].kind, cols[i].digits);
}
