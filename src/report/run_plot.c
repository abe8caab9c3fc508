/*
 * run_plot.c — `run --plot DIR`'s figures of one run: where each tenant's
 * time went (the attribution states as stacked bars, % of the window;
 * docs/attribution.md) and each FU's utilization over the run, read from
 * the run's trace (the share of each of PLOT_BINS equal intervals its
 * operators executed; also as CSV), as files for v10_html_figures_page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v10/report.h"
#include "v10/svg.h"

#define PLOT_BINS 100

static int add_svg(v10_artifact **files, size_t *n, const char *name, const v10_svg_chart *c,
                   v10_err *err)
{
    char *svg = v10_svg_render(c);
    return v10_artifact_add(files, n, name, svg, svg ? strlen(svg) : 0, err);
}

/* time_POLICY.svg: one stacked bar per tenant, one segment per state. */
static int time_plot(const v10_run_config *cfg, const v10_run_result *r, v10_artifact **files,
                     size_t *n, v10_err *err)
{
    size_t nt = r->n_tenants;
    double w = (double)(r->window_end - r->window_start);
    double *y = calloc(V10_ATTR_STATES * (nt ? nt : 1), sizeof *y);
    const char **cats = calloc(nt ? nt : 1, sizeof *cats);
    if (!y || !cats) {
        free(y);
        free(cats);
        return v10_err_set(err, "out of memory");
    }
    v10_svg_series ser[V10_ATTR_STATES];
    size_t ns = 0; /* the states some tenant was in: a colour each */
    for (int k = 0; k < V10_ATTR_STATES; k++) {
        double any = 0, *yk = y + ns * nt;
        for (size_t i = 0; i < nt; i++)
            any += yk[i] = w > 0 ? 100 * r->tenants[i].state_cycles[k] / w : 0;
        if (any > 0)
            ser[ns++] = (v10_svg_series){v10_attr_name((v10_attr_state)k), yk};
    }
    for (size_t i = 0; i < nt; i++)
        cats[i] = r->tenants[i].name;
    char title[160], name[96];
    snprintf(title, sizeof title, "%s: where each tenant's time went (%% of the window)",
             cfg->policy);
    snprintf(name, sizeof name, "time_%s.svg", cfg->policy);
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = title, .xlabel = "tenant",
                       .ylabel = "% of the window", .n_x = nt, .cats = cats, .stacked = 1,
                       .series = ser, .n_series = ns, .ref_y = NAN};
    int rc = add_svg(files, n, name, &c, err);
    free(y);
    free(cats);
    return rc;
}

/* util_POLICY.svg: each FU's executing share of each interval of the run. */
static int util_plot(const v10_run_config *cfg, const v10_run_result *r, const v10_trace *tr,
                     v10_artifact **files, size_t *n, v10_err *err)
{
    size_t nf = r->n_fus;
    double end = (double)r->end_cycle, bin = end / PLOT_BINS;
    double *y = calloc(nf * PLOT_BINS + PLOT_BINS, sizeof *y), *x = y + nf * PLOT_BINS;
    v10_svg_series *ser = calloc(nf ? nf : 1, sizeof *ser);
    char (*names)[16] = calloc(nf ? nf : 1, sizeof *names);
    if (!y || !ser || !names) {
        free(y);
        free(ser);
        free(names);
        return v10_err_set(err, "out of memory");
    }
    for (int b = 0; b < PLOT_BINS; b++)
        x[b] = v10_npu_cycles_to_us(&cfg->npu, (b + 0.5) * bin) / 1000;
    for (size_t i = 0; tr && bin > 0 && i < tr->n; i++) {
        const v10_trace_rec *rec = &tr->recs[i];
        if (rec->kind != V10_TR_OP || rec->fu < 0 || (size_t)rec->fu >= nf)
            continue;
        double a = (double)rec->start, e = (double)rec->end;
        for (int b = (int)(a / bin); b < PLOT_BINS && b * bin < e; b++) {
            double lo = b * bin > a ? b * bin : a, hi = (b + 1) * bin < e ? (b + 1) * bin : e;
            if (hi > lo)
                y[(size_t)rec->fu * PLOT_BINS + (size_t)b] += (hi - lo) / bin;
        }
    }
    int idx[V10_FU_TYPES] = {0};
    for (size_t f = 0; f < nf; f++) {
        snprintf(names[f], sizeof names[f], "%s%d", v10_fu_name((v10_fu_type)r->fus[f].type),
                 idx[r->fus[f].type]++);
        ser[f] = (v10_svg_series){names[f], y + f * PLOT_BINS};
    }
    /* util_POLICY.csv: the same numbers, one row per interval */
    size_t cap = (size_t)PLOT_BINS * (nf + 2) * 32 + nf * 16 + 64, len = 0;
    char *csv = malloc(cap);
    if (csv) {
        len += (size_t)snprintf(csv + len, cap - len, "start_ms,end_ms");
        for (size_t f = 0; f < nf; f++)
            len += (size_t)snprintf(csv + len, cap - len, ",%s", names[f]);
        for (int b = 0; b < PLOT_BINS; b++) {
            len += (size_t)snprintf(csv + len, cap - len, "\n%.17g,%.17g",
                                    v10_npu_cycles_to_us(&cfg->npu, b * bin) / 1000,
                                    v10_npu_cycles_to_us(&cfg->npu, (b + 1) * bin) / 1000);
            for (size_t f = 0; f < nf; f++)
                len += (size_t)snprintf(csv + len, cap - len, ",%.17g",
                                        y[f * PLOT_BINS + (size_t)b]);
        }
        len += (size_t)snprintf(csv + len, cap - len, "\n");
    }
    char cname[96];
    snprintf(cname, sizeof cname, "util_%s.csv", cfg->policy);
    if (v10_artifact_add(files, n, cname, csv, len, err)) {
        free(y);
        free(ser);
        free(names);
        return -1;
    }
    char title[160], name[96];
    snprintf(title, sizeof title, "%s: utilization of each FU over the run (%d intervals)",
             cfg->policy, PLOT_BINS);
    snprintf(name, sizeof name, "util_%s.svg", cfg->policy);
    v10_svg_chart c = {.kind = V10_SVG_XY, .title = title, .xlabel = "time (ms)",
                       .ylabel = "executing share of the interval", .n_x = PLOT_BINS,
                       .series = ser, .n_series = nf, .ref_y = NAN};
    v10_svg_points *pts = calloc(nf ? nf : 1, sizeof *pts);
    int rc = -1;
    if (!pts)
        v10_err_set(err, "out of memory");
    else {
        for (size_t f = 0; f < nf; f++)
            pts[f] = (v10_svg_points){x, PLOT_BINS, NULL};
        c.points = pts;
        rc = add_svg(files, n, name, &c, err);
    }
    free(pts);
    free(y);
    free(ser);
    free(names);
    return rc;
}

int v10_report_run_plots(const v10_run_config *cfg, const v10_run_result *r,
                         const v10_trace *tr, v10_artifact **files, size_t *n, v10_err *err)
{
    if (!cfg->no_attribution && time_plot(cfg, r, files, n, err))
        return -1;
    return util_plot(cfg, r, tr, files, n, err);
}
