/*
 * plot.c — `sweep --plot`: a figure per swept parameter, written into the
 * result folder once every point is recorded.  For each axis of two or
 * more values (policy, priority, npu fields, parameters, seed, ...):
 * plot_KEY.svg, the mean STP over the other axes at each of its values,
 * one series per policy when the policy is another axis, and report.html
 * with every figure (src/report/html.c).  Read from the store's rows, as
 * results.csv is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "sweep/store.h"
#include "util/json.h"
#include "v10/report.h"
#include "v10/svg.h"

#define MAX_SERIES 16

/* Sums of STP and their counts per axis setting, value and series. */
typedef struct plot_acc {
    const v10_sweep *s;
    const sweep_setting *policy; /* the policy axis, if it has 2+ values */
    double *sum, *cnt;           /* [setting][value][series], offsets below */
    size_t *off;                 /* per setting: its first cell (values x series) */
    size_t n_series;
} plot_acc;

/* The index of v among setting st's values, or -1. */
static int value_index(const sweep_setting *st, const cJSON *v)
{
    int i = 0;
    for (const cJSON *c = st->values->child; c; c = c->next, i++)
        if (cJSON_Compare(c, v, 1))
            return i;
    return -1;
}

static int add_row(void *ctx, size_t index, const char *row, size_t len, v10_err *err)
{
    (void)index;
    (void)len;
    plot_acc *a = ctx;
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_Parse(row);
    if (!o)
        return v10_json_failed_since(mark) ? v10_err_set(err, "out of memory")
                                           : v10_err_set(err, "a stored row is not JSON");
    const cJSON *point = cJSON_GetObjectItemCaseSensitive(o, "point");
    const cJSON *stp = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "result"),
                                         "system"), "stp");
    int series = 0;
    if (a->policy) /* which policy this row ran */
        series = value_index(a->policy,
                             cJSON_GetObjectItemCaseSensitive(point, a->policy->key));
    for (size_t k = 0; cJSON_IsNumber(stp) && series >= 0 && k < a->s->n_set; k++) {
        const sweep_setting *st = &a->s->set[k];
        if (!a->off[k])
            continue;
        int v = value_index(st, cJSON_GetObjectItemCaseSensitive(point, st->key));
        if (v < 0) /* a parameter this point's policy does not read */
            continue;
        size_t cell = a->off[k] - 1 + (size_t)v * a->n_series +
                      (st == a->policy ? 0 : (size_t)series);
        a->sum[cell] += stp->valuedouble;
        a->cnt[cell] += 1;
    }
    cJSON_Delete(o);
    return 0;
}

/* An axis value as a category label: a string as is, a mix joined by '+',
 * anything else as compact JSON. */
static char *label(const cJSON *v)
{
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    if (cJSON_IsArray(v) && v->child && cJSON_IsString(v->child)) {
        size_t n = 1;
        for (const cJSON *c = v->child; c; c = c->next)
            n += strlen(cJSON_IsString(c) ? c->valuestring : "?") + 1;
        char *s = malloc(n);
        if (s) {
            s[0] = 0;
            for (const cJSON *c = v->child; c; c = c->next)
                strcat(strcat(s, c == v->child ? "" : "+"),
                       cJSON_IsString(c) ? c->valuestring : "?");
        }
        return s;
    }
    cJSON *copy = cJSON_Duplicate(v, 1);
    char *s = copy ? v10_json_print(copy, 0) : NULL;
    cJSON_Delete(copy);
    return s;
}

/* plot_KEY.svg for setting k. */
static int figure(const plot_acc *a, size_t k, v10_artifact **files, size_t *n, v10_err *err)
{
    const sweep_setting *st = &a->s->set[k];
    size_t nv = st->n, ns = st == a->policy ? 1 : a->n_series;
    double *y = calloc(nv * ns, sizeof *y);
    char **cats = calloc(nv, sizeof *cats);
    int rc = -1;
    if (!y || !cats)
        goto done;
    size_t v = 0;
    for (const cJSON *c = st->values->child; c; c = c->next, v++)
        if (!(cats[v] = label(c)))
            goto done;
    v10_svg_series ser[MAX_SERIES];
    for (size_t q = 0; q < ns; q++) {
        for (v = 0; v < nv; v++) {
            size_t cell = a->off[k] - 1 + v * a->n_series + q;
            y[q * nv + v] = a->cnt[cell] > 0 ? a->sum[cell] / a->cnt[cell] : NAN;
        }
        const cJSON *pv = a->policy && ns > 1 ? cJSON_GetArrayItem(a->policy->values, (int)q)
                                              : NULL;
        ser[q] = (v10_svg_series){pv ? pv->valuestring : "STP", y + q * nv};
    }
    char title[200], name[96];
    snprintf(title, sizeof title, "sweep %s: mean STP over the other axes, by %s",
             a->s->name, st->key);
    snprintf(name, sizeof name, "plot_%.80s.svg", st->key);
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = title, .xlabel = st->key,
                       .ylabel = "STP (mean over the other axes)", .n_x = nv,
                       .cats = (const char *const *)cats, .series = ser, .n_series = ns,
                       .ref_y = 1};
    char *svg = v10_svg_render(&c);
    rc = v10_artifact_add(files, n, name, svg, svg ? strlen(svg) : 0, err);
done:
    if (rc && !err->msg[0])
        v10_err_set(err, "out of memory");
    for (v = 0; cats && v < nv; v++)
        free(cats[v]);
    free(cats);
    free(y);
    return rc;
}

int v10_sweep_store_plot(v10_sweep_store *st, v10_err *err)
{
    const v10_sweep *s = sweep_store_spec(st);
    if (v10_sweep_store_count(st) < v10_sweep_points(s))
        return 0;
    plot_acc a = {.s = s, .n_series = 1};
    a.off = calloc(s->n_set, sizeof *a.off);
    if (!a.off)
        return v10_err_set(err, "out of memory");
    for (size_t k = 0; k < s->n_set; k++)
        if (s->set[k].k == K_POLICY && s->set[k].is_axis && s->set[k].n >= 2 &&
            s->set[k].n <= MAX_SERIES) {
            a.policy = &s->set[k];
            a.n_series = s->set[k].n;
        }
    size_t cells = 0;
    for (size_t k = 0; k < s->n_set; k++)
        if (s->set[k].is_axis && s->set[k].n >= 2) {
            a.off[k] = cells + 1;
            cells += s->set[k].n * a.n_series;
        }
    v10_artifact *files = NULL;
    size_t n = 0;
    int rc = 0;
    err->msg[0] = 0;
    if (cells) {
        a.sum = calloc(cells, sizeof *a.sum);
        a.cnt = calloc(cells, sizeof *a.cnt);
        rc = !a.sum || !a.cnt ? v10_err_set(err, "out of memory")
                              : sweep_store_rows(st, add_row, &a, err);
        for (size_t k = 0; rc == 0 && k < s->n_set; k++)
            if (a.off[k])
                rc = figure(&a, k, &files, &n, err);
    }
    size_t len = 0;
    char *html = rc == 0 ? v10_html_figures_page("v10sim sweep: a figure per swept parameter",
                                                 NULL, files, n, &len)
                         : NULL;
    if (rc == 0)
        rc = v10_artifact_add(&files, &n, "report.html", html, len, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = v10_outdir_write(sweep_store_outdir(st), files[i].name, files[i].data,
                              files[i].len, 1, err);
    for (size_t i = 0; i < n; i++)
        free(files[i].data);
    free(files);
    free(a.sum);
    free(a.cnt);
    free(a.off);
    return rc;
}
