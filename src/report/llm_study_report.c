/*
 * llm_study_report.c — `v10sim llm-study`'s files (docs/llm.md, "The LLM
 * study"): llm_study.csv (one row per service x partner x policy x NPU,
 * and each service alone), per service and NPU the TTFT p95, TPOT p95 and
 * partner-progress plots, the TTFT and TPOT CDFs (llm_cdf.csv holds their
 * points), tokens/s against the partner's progress, and summary.md whose
 * every figure is read from the rows.  Each file is rendered whole in
 * memory (report/doc.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "util/num.h"
#include "v10/llm_study.h"
#include "v10/svg.h"
#include "v10/table.h"

#define MAXP 16 /* partners per service */
#define NPOL 4

/* The study's policies (llm_study.c), the last V10-Full with
 * v10-full.preempt=ready. */
static const char *const pols[NPOL] = {"pmt", "v10-fair", "v10-full", "v10-full+ready"};
static const char *const pol_names[NPOL] = {"PMT", "V10-Fair", "V10-Full",
                                            "V10-Full, preempt=ready"};

/* One service on one NPU: its alone row and its pair rows by partner and
 * policy.  Invariant: pair[p][k] is non-NULL for p < n_partners. */
typedef struct view {
    const v10_llm_study_row *alone;
    const v10_llm_study_row *pair[MAXP][NPOL];
    const char *partner[MAXP];
    size_t n_partners;
} view;

static int pol_index(const char *p)
{
    for (int k = 0; k < NPOL; k++)
        if (!strcmp(pols[k], p))
            return k;
    return -1;
}

static void view_of(const v10_llm_study *s, const char *npu, const char *svc, view *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < s->n_rows; i++) {
        const v10_llm_study_row *r = &s->rows[i];
        if (strcmp(r->npu, npu) || strcmp(r->service, svc))
            continue;
        if (!r->partner[0]) {
            v->alone = r;
            continue;
        }
        int k = pol_index(r->policy);
        V10_ASSERT(k >= 0);
        size_t p = 0;
        while (p < v->n_partners && strcmp(v->partner[p], r->partner))
            p++;
        if (p == v->n_partners) {
            V10_ASSERT(p < MAXP);
            v->partner[v->n_partners++] = r->partner;
        }
        v->pair[p][k] = r;
    }
    V10_ASSERT(v->alone);
}

static int add_file(v10_llm_study_out *out, const char *name, char *data, size_t len,
                    v10_err *err)
{
    return v10_artifact_add(&out->files, &out->n_files, name, data, len, err);
}

/* ---- llm_study.csv -------------------------------------------------------------------- */

static const v10_col_spec cols[] = {
    {"npu", V10_COL_STR, 0},          {"service", V10_COL_STR, 0},
    {"partner", V10_COL_STR, 0},      {"policy", V10_COL_STR, 0},
    {"rate_scale", V10_COL_REAL, 4},  {"load_alone", V10_COL_REAL, 4},
    {"busy_alone", V10_COL_REAL, 4},
    {"llm_requests", V10_COL_INT, 0}, {"ttft_p50_ms", V10_COL_REAL, 3},
    {"ttft_p95_ms", V10_COL_REAL, 3}, {"ttft_p99_ms", V10_COL_REAL, 3},
    {"tpot_p50_ms", V10_COL_REAL, 3}, {"tpot_p95_ms", V10_COL_REAL, 3},
    {"tpot_p99_ms", V10_COL_REAL, 3}, {"tokens_per_s", V10_COL_REAL, 2},
    {"tokens_per_s_active", V10_COL_REAL, 2},
    {"slo_ttft", V10_COL_REAL, 4},    {"slo_tpot", V10_COL_REAL, 4},
    {"partner_rps", V10_COL_REAL, 4}, {"partner_np", V10_COL_REAL, 4},
    {"partner_tokens_per_s", V10_COL_REAL, 2}, {"partner_requests", V10_COL_INT, 0},
    {"alone_ttft_p95_ms", V10_COL_REAL, 3}, {"alone_tpot_p95_ms", V10_COL_REAL, 3},
    {"util_sa", V10_COL_REAL, 4},
    {"util_vu", V10_COL_REAL, 4},
    {"j_per_token", V10_COL_REAL, 6},
};

static int tab_csv(const void *t, FILE *f) { return v10_tab_write(t, V10_FMT_CSV, f); }

static int render_csv(const v10_llm_study *s, v10_llm_study_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < s->n_rows; i++) {
        const v10_llm_study_row *r = &s->rows[i];
        v10_tab_row(t);
        v10_tab_str(t, r->npu);
        v10_tab_str(t, r->service);
        v10_tab_str(t, r->partner[0] ? r->partner : "alone");
        v10_tab_str(t, r->policy);
        v10_tab_real(t, r->rate_scale);
        v10_tab_real(t, r->load_alone);
        v10_tab_real(t, r->busy_alone);
        v10_tab_int(t, (int64_t)r->llm_requests);
        for (int k = 0; k < 3; k++)
            v10_tab_real(t, r->ttft_ms[k]);
        for (int k = 0; k < 3; k++)
            v10_tab_real(t, r->tpot_ms[k]);
        v10_tab_real(t, r->tokens_per_s);
        v10_tab_real(t, r->tokens_per_s_active);
        v10_tab_real(t, r->slo_ttft);
        v10_tab_real(t, r->slo_tpot);
        v10_tab_real(t, r->partner_rps);
        v10_tab_real(t, r->partner_np);
        v10_tab_real(t, r->partner_tokens_per_s);
        v10_tab_int(t, (int64_t)r->partner_requests);
        v10_tab_real(t, r->alone_ttft_p95_ms);
        v10_tab_real(t, r->alone_tpot_p95_ms);
        v10_tab_real(t, r->util_sa);
        v10_tab_real(t, r->util_vu);
        v10_tab_real(t, r->j_per_token);
    }
    if (v10_tab_status(t, err)) {
        v10_tab_destroy(t);
        return -1;
    }
    size_t len;
    char *buf = v10_doc_render(tab_csv, t, &len);
    v10_tab_destroy(t);
    return add_file(out, "llm_study.csv", buf, len, err);
}

/* ---- plots ---------------------------------------------------------------------------- */

enum { F_TTFT, F_TPOT, F_NP, NFIG };

static double figure(const v10_llm_study_row *r, int f)
{
    return f == F_TTFT ? r->ttft_ms[1] : f == F_TPOT ? r->tpot_ms[1] : r->partner_np;
}

static int render_plots(const view *v, const char *svc, const char *npu, v10_llm_study_out *out,
                        v10_err *err)
{
    static const char *const stem[NFIG] = {"ttft_p95", "tpot_p95", "partner_np"};
    static const char *const ylab[NFIG] = {"TTFT p95 (ms)", "TPOT p95 (ms)",
                                           "partner's normalized progress"};
    for (int f = 0; f < NFIG; f++) {
        double y[NPOL][MAXP];
        v10_svg_series ser[NPOL];
        for (int k = 0; k < NPOL; k++) {
            for (size_t p = 0; p < v->n_partners; p++)
                y[k][p] = figure(v->pair[p][k], f);
            ser[k] = (v10_svg_series){pol_names[k], y[k]};
        }
        char title[160], name[96];
        snprintf(title, sizeof title, "llm-%s on %s: %s beside each partner%s", svc, npu,
                 ylab[f], f == F_NP ? "" : " (dashed: alone)");
        snprintf(name, sizeof name, "%s_%s_%s.svg", stem[f], svc, npu);
        v10_svg_chart c = {.kind = V10_SVG_BARS, .title = title, .xlabel = "partner",
                           .ylabel = ylab[f], .n_x = v->n_partners, .cats = v->partner,
                           .series = ser, .n_series = NPOL,
                           .ref_y = f == F_NP ? NAN : figure(v->alone, f),
                           .width = 1000, .height = 420};
        char *svg = v10_svg_render(&c);
        if (add_file(out, name, svg, svg ? strlen(svg) : 0, err))
            return -1;
    }
    return 0;
}

/* ---- CDFs and tokens/s ---------------------------------------------------------------- */

/* A curve is the empirical CDF at CDF_POINTS evenly spaced ranks: exact
 * samples, at most 1/CDF_POINTS apart in fraction (under a pixel of the
 * plot), so a pooled curve of thousands of requests stays a small file. */
#define CDF_POINTS 200
/* The x axis is logarithmic when the largest plotted value exceeds the
 * smallest by more than this factor (TTFT spans queueing and prefills). */
#define LOG_SPREAD 30.0

enum { C_ALONE, C_POL, NCURVE = C_POL + NPOL };

static int llm_partner(const char *p) { return !strncmp(p, "llm-", 4); }

/* Points (ms, fraction) of an empirical CDF; `samples` requests. */
typedef struct curve {
    double x[CDF_POINTS + 1], y[CDF_POINTS + 1];
    size_t n, samples;
} curve;

/* The CDF of the sorted v[0..n) (µs) at ranks r = ceil(k n / K), k = 1..K,
 * K = min(n, CDF_POINTS): (v[r-1] ms, r / n), preceded by the smallest
 * sample when the first rank is above 1. */
static void cdf_of(const double *v, size_t n, curve *c)
{
    c->n = 0;
    c->samples = n;
    if (!n)
        return;
    size_t K = n < CDF_POINTS ? n : CDF_POINTS;
    if ((n + K - 1) / K > 1) {
        c->x[c->n] = v[0] / 1e3;
        c->y[c->n++] = 1.0 / (double)n;
    }
    for (size_t k = 1; k <= K; k++) {
        size_t r = (k * n + K - 1) / K;
        c->x[c->n] = v[r - 1] / 1e3;
        c->y[c->n++] = (double)r / (double)n;
    }
}

/* Metric m's samples of a row (0: TTFT, 1: TPOT). */
static const double *samples(const v10_llm_study_row *r, int m, size_t *n)
{
    *n = m ? r->n_tpot : r->n_ttft;
    return m ? r->tpot_us : r->ttft_us;
}

/* Policy k's CDF of metric m pooled over the view's isca23 partners. */
static int pooled(const view *v, int k, int m, curve *c, v10_err *err)
{
    size_t total = 0, n;
    for (size_t p = 0; p < v->n_partners; p++)
        if (!llm_partner(v->partner[p])) {
            samples(v->pair[p][k], m, &n);
            total += n;
        }
    double *all = malloc((total ? total : 1) * sizeof *all);
    if (!all)
        return v10_err_set(err, "llm-study: out of memory for %zu samples", total);
    total = 0;
    for (size_t p = 0; p < v->n_partners; p++)
        if (!llm_partner(v->partner[p])) {
            const double *s = samples(v->pair[p][k], m, &n);
            if (n)
                memcpy(all + total, s, n * sizeof *s);
            total += n;
        }
    v10_sort_doubles(all, total);
    cdf_of(all, total, c);
    free(all);
    return 0;
}

static const v10_col_spec cdf_cols[] = {
    {"npu", V10_COL_STR, 0},      {"service", V10_COL_STR, 0}, {"metric", V10_COL_STR, 0},
    {"curve", V10_COL_STR, 0},    {"requests", V10_COL_INT, 0}, {"fraction", V10_COL_REAL, 6},
    {"ms", V10_COL_REAL, 6},
};

/* Per metric, the TTFT / TPOT CDF SVG of the service alone and of each
 * policy pooled over the isca23 partners; the points go to llm_cdf.csv. */
static int render_cdfs(const view *v, const char *svc, const char *npu, v10_tab *tab,
                       v10_llm_study_out *out, v10_err *err)
{
    static const char *const metric[2] = {"ttft", "tpot"};
    static const char *const label[2] = {"TTFT", "TPOT"};
    size_t n_iso = 0;
    for (size_t p = 0; p < v->n_partners; p++)
        n_iso += !llm_partner(v->partner[p]);
    curve *c = malloc(NCURVE * sizeof *c);
    if (!c)
        return v10_err_set(err, "llm-study: out of memory");
    for (int m = 0; m < 2; m++) {
        size_t n;
        const double *a = samples(v->alone, m, &n);
        cdf_of(a, n, &c[C_ALONE]);
        for (int k = 0; k < NPOL; k++)
            if (pooled(v, k, m, &c[C_POL + k], err)) {
                free(c);
                return -1;
            }
        char names[NCURVE][64];
        v10_svg_series ser[NCURVE];
        v10_svg_points pts[NCURVE];
        double lo = INFINITY, hi = 0;
        for (int q = 0; q < NCURVE; q++) {
            snprintf(names[q], sizeof names[q], "%s (%zu requests)",
                     q == C_ALONE ? "alone" : pol_names[q - C_POL], c[q].samples);
            ser[q] = (v10_svg_series){names[q], c[q].y};
            pts[q] = (v10_svg_points){c[q].x, c[q].n, NULL};
            for (size_t i = 0; i < c[q].n; i++) {
                if (c[q].x[i] > 0)
                    lo = fmin(lo, c[q].x[i]);
                hi = fmax(hi, c[q].x[i]);
                v10_tab_row(tab);
                v10_tab_str(tab, npu);
                v10_tab_str(tab, svc);
                v10_tab_str(tab, metric[m]);
                v10_tab_str(tab, q == C_ALONE ? "alone" : pols[q - C_POL]);
                v10_tab_int(tab, (int64_t)c[q].samples);
                v10_tab_real(tab, c[q].y[i]);
                v10_tab_real(tab, c[q].x[i]);
            }
        }
        int log_x = hi > LOG_SPREAD * lo;
        char title[200], xlab[64], name[96];
        snprintf(title, sizeof title,
                 "llm-%s on %s: %s CDF alone, and per policy pooled over %zu isca23 partners", svc,
                 npu, label[m], n_iso);
        snprintf(xlab, sizeof xlab, "%s (ms%s)", label[m], log_x ? ", log scale" : "");
        snprintf(name, sizeof name, "%s_cdf_%s_%s.svg", metric[m], svc, npu);
        v10_svg_chart ch = {.kind = V10_SVG_XY, .title = title, .xlabel = xlab,
                            .ylabel = "fraction of requests", .series = ser, .points = pts,
                            .n_series = NCURVE, .log10_x = log_x, .steps = 1, .ref_y = NAN,
                            .width = 1000, .height = 460};
        char *svg = v10_svg_render(&ch);
        if (add_file(out, name, svg, svg ? strlen(svg) : 0, err)) {
            free(c);
            return -1;
        }
    }
    free(c);
    return 0;
}

/* The service's tokens/s over its active span, relative to alone, against
 * the isca23 partner's normalized progress: one point per partner and
 * policy. */
static int render_tokens(const view *v, const char *svc, const char *npu, v10_llm_study_out *out,
                         v10_err *err)
{
    double x[NPOL][MAXP], y[NPOL][MAXP];
    const char *lab[MAXP];
    size_t n = 0;
    double base = v->alone->tokens_per_s_active;
    for (size_t p = 0; p < v->n_partners; p++) {
        if (llm_partner(v->partner[p]))
            continue;
        for (int k = 0; k < NPOL; k++) {
            x[k][n] = v->pair[p][k]->partner_np;
            y[k][n] = v->pair[p][k]->tokens_per_s_active / base;
        }
        lab[n++] = v->partner[p];
    }
    v10_svg_series ser[NPOL];
    v10_svg_points pts[NPOL];
    for (int k = 0; k < NPOL; k++) {
        ser[k] = (v10_svg_series){pol_names[k], y[k]};
        pts[k] = (v10_svg_points){x[k], n, lab};
    }
    char title[200], name[96];
    snprintf(title, sizeof title,
             "llm-%s on %s: tokens/s over its active span (dashed: alone, %.1f) vs partner", svc,
             npu, base);
    snprintf(name, sizeof name, "tokens_np_%s_%s.svg", svc, npu);
    v10_svg_chart ch = {.kind = V10_SVG_XY, .title = title,
                        .xlabel = "isca23 partner's normalized progress",
                        .ylabel = "tokens/s / alone", .series = ser, .points = pts,
                        .n_series = NPOL, .scatter = 1, .ref_y = 1, .width = 1000,
                        .height = 460};
    char *svg = v10_svg_render(&ch);
    return add_file(out, name, svg, svg ? strlen(svg) : 0, err);
}

/* ---- summary.md ----------------------------------------------------------------------- */

/* Compares policy k against PMT on figure f over the partners: how many
 * lower / higher, the largest change each way and its partner. */
static void compare(FILE *f, const view *v, int fig, int k, const char *what)
{
    size_t lo = 0, hi = 0, n = 0;
    double best = 0, worst = 0, sum = 0;
    const char *bp = "", *wp = "";
    for (size_t p = 0; p < v->n_partners; p++) {
        double a = figure(v->pair[p][0], fig), b = figure(v->pair[p][k], fig);
        if (!(a > 0) || !isfinite(b))
            continue;
        double d = b / a - 1;
        n++;
        sum += b / a;
        if (d < 0) {
            lo++;
            if (d < best) { best = d; bp = v->partner[p]; }
        } else if (d > 0) {
            hi++;
            if (d > worst) { worst = d; wp = v->partner[p]; }
        }
    }
    if (!n) {
        fprintf(f, "* %s: no comparable runs.\n", what);
        return;
    }
    fprintf(f, "* %s under %s vs PMT: lower beside %zu of %zu partners", what, pol_names[k], lo, n);
    if (lo)
        fprintf(f, " (at most %.1f%% lower, beside %s)", -100 * best, bp);
    fprintf(f, ", higher beside %zu", hi);
    if (hi)
        fprintf(f, " (at most %.1f%% higher, beside %s)", 100 * worst, wp);
    fprintf(f, "; mean ratio %.3f.\n", sum / (double)n);
}

/* Mean over partners of policy k's TTFT or TPOT p95 over the service's
 * alone over the same requests (the row's alone_* figures). */
static double vs_alone(const view *v, int fig, int k)
{
    double sum = 0;
    size_t n = 0;
    for (size_t p = 0; p < v->n_partners; p++) {
        const v10_llm_study_row *r = v->pair[p][k];
        double a = fig == F_TTFT ? r->alone_ttft_p95_ms : r->alone_tpot_p95_ms;
        double b = figure(r, fig);
        if (a > 0 && isfinite(b)) {
            sum += b / a;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

/* Mean over the isca23 partners of policy k's tokens/s over alone's:
 * over the active span (active = 1) or the run's window. */
static double tokens_vs_alone(const view *v, int k, int active)
{
    double a = active ? v->alone->tokens_per_s_active : v->alone->tokens_per_s, sum = 0;
    size_t n = 0;
    for (size_t p = 0; p < v->n_partners; p++) {
        const v10_llm_study_row *r = v->pair[p][k];
        double b = active ? r->tokens_per_s_active : r->tokens_per_s;
        if (!llm_partner(v->partner[p]) && a > 0 && isfinite(b)) {
            sum += b / a;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

/* Mean over the isca23 partners of the service's energy per output token
 * under policy k, J. */
static double j_per_token(const view *v, int k)
{
    double sum = 0;
    size_t n = 0;
    for (size_t p = 0; p < v->n_partners; p++) {
        const v10_llm_study_row *r = v->pair[p][k];
        if (!llm_partner(v->partner[p]) && r && isfinite(r->j_per_token)) {
            sum += r->j_per_token;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

/* Policy k's fairness beside the isca23 partners: a pair's progress is
 * the service's tokens/s over its active span against alone's and the
 * partner's normalized progress; the least of either over the partners
 * (and whose), and the mean and least fairness (a pair's least progress
 * over its most). */
static void fairness_line(FILE *f, const view *v, int k)
{
    double least = INFINITY, mean = 0, worst = INFINITY;
    const char *who = "", *whose = "";
    size_t n = 0;
    for (size_t p = 0; p < v->n_partners; p++) {
        const v10_llm_study_row *r = v->pair[p][k];
        double a = v->alone->tokens_per_s_active;
        double np[2] = {a > 0 ? r->tokens_per_s_active / a : NAN, r->partner_np};
        if (llm_partner(v->partner[p]) || !(np[0] > 0) || !(np[1] > 0))
            continue;
        for (int t = 0; t < 2; t++)
            if (np[t] < least) {
                least = np[t];
                who = v->partner[p];
                whose = t ? "the partner" : "the service";
            }
        double fair = fmin(np[0], np[1]) / fmax(np[0], np[1]);
        mean += fair;
        worst = fmin(worst, fair);
        n++;
    }
    if (!n)
        return;
    fprintf(f, "* %s, fairness beside the %zu isca23 partners (the service's tokens/s over "
               "its active span against alone, the partner's normalized progress): least "
               "progress %.3f (%s, beside %s), mean fairness %.3f, least %.3f.\n",
            pol_names[k], n, least, whose, who, mean / (double)n, worst);
}

static void summary_view(FILE *f, const view *v, const char *svc, const char *npu)
{
    const v10_llm_study_row *a = v->alone;
    fprintf(f, "## llm-%s on %s\n\n", svc, npu);
    fprintf(f, "Alone: rate_scale %.4f, offered load %.1f%%, busy %.1f%% over the run, "
               "%llu requests, TTFT p95 %.2f ms, "
               "TPOT p95 %.3f ms, %.1f tokens/s, %.4f J per output token.\n\n",
            a->rate_scale, 100 * a->load_alone, 100 * a->busy_alone, (unsigned long long)a->llm_requests,
            a->ttft_ms[1], a->tpot_ms[1], a->tokens_per_s, a->j_per_token);
    static const char *const figs[NFIG] = {"TTFT p95 ms", "TPOT p95 ms", "partner NP"};
    fprintf(f, "| partner |");
    for (int fig = 0; fig < NFIG; fig++)
        for (int k = 0; k < NPOL; k++)
            fprintf(f, " %s%s%s |", k ? "" : figs[fig], k ? "" : " ", pol_names[k]);
    fprintf(f, "\n|---|");
    for (int c = 0; c < NFIG * NPOL; c++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (size_t p = 0; p < v->n_partners; p++) {
        fprintf(f, "| %s", v->partner[p]);
        for (int fig = 0; fig < NFIG; fig++)
            for (int k = 0; k < NPOL; k++) {
                double x = figure(v->pair[p][k], fig);
                if (isfinite(x))
                    fprintf(f, " | %.*f", fig == F_TTFT ? 2 : 3, x);
                else
                    fprintf(f, " | -");
            }
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
    for (int k = 1; k < NPOL; k++) {
        compare(f, v, F_TTFT, k, "TTFT p95");
        compare(f, v, F_TPOT, k, "TPOT p95");
        compare(f, v, F_NP, k, "Partner NP (isca23 partners)");
    }
    for (int k = 0; k < NPOL; k++)
        fprintf(f, "* %s: TTFT p95 on average %.2fx alone, TPOT p95 %.2fx alone; tokens/s over "
                   "the active span %.3fx alone (over the run's window %.3fx); %.4f J per "
                   "output token (the energy charged to the service, docs/energy.md).\n",
                pol_names[k], vs_alone(v, F_TTFT, k), vs_alone(v, F_TPOT, k),
                tokens_vs_alone(v, k, 1), tokens_vs_alone(v, k, 0), j_per_token(v, k));
    for (int k = 0; k < NPOL; k++)
        fairness_line(f, v, k);
    for (size_t p = 0; p < v->n_partners; p++)
        if (llm_partner(v->partner[p]))
            fprintf(f, "* Beside %s (the overlap rule: both serve the requests arriving in "
                       "the shorter of their spans): this service %llu requests, the partner "
                       "%llu; alone over the same %llu requests, TTFT p95 %.2f ms and TPOT p95 "
                       "%.3f ms (the ratios above use these).\n",
                    v->partner[p], (unsigned long long)v->pair[p][0]->llm_requests,
                    (unsigned long long)v->pair[p][0]->partner_requests,
                    (unsigned long long)v->pair[p][0]->llm_requests,
                    v->pair[p][0]->alone_ttft_p95_ms, v->pair[p][0]->alone_tpot_p95_ms);
    fprintf(f, "\n");
}

static int write_summary(const void *ctx, FILE *f)
{
    const v10_llm_study *s = ctx;
    fprintf(f, "# LLM study: %s beside other services\n\n", s->model);
    fprintf(f, "%zu simulations; %llu requests of each trace per run%s.  Each service's trace "
               "rate is scaled so that its offered load alone (busy time over the arrivals' span) "
               "is %.0f%% (docs/llm.md, \"The LLM study\"); \"busy\" below is the solo run's busy "
               "time over its whole length.  Lower TTFT/TPOT is better; a ratio below 1 vs PMT means "
               "operator-level sharing helped the LLM service, above 1 that it hurt.  "
               "Partner NP is the isca23 partner's normalized progress (higher is better; "
               "an LLM partner has none).  The CDF plots pool each policy's requests over the "
               "isca23 partners; tokens/s over the active span counts a server's tokens from its "
               "first request's arrival to its last one's finish.\n\n",
            s->runs, (unsigned long long)s->opts.requests, s->opts.quick ? " (--quick)" : "",
            100 * s->opts.target_busy);
    if (s->opts.quick) /* as repro says of its --quick figures */
        fprintf(f, "**--quick: a smoke test, not a result.**  With %llu requests a run, a p95 "
                   "is one of the slowest requests and the figures are much noisier than the "
                   "full run's: they do not support comparing policies' TTFT or TPOT tails "
                   "(which of V10-Fair and V10-Full serves a trace better, by how much, or "
                   "whether either beats PMT); a quick run can reverse the full run's "
                   "conclusion.  Run without --quick (200 requests) for those.\n\n",
                (unsigned long long)s->opts.requests);
    for (size_t k = 0; k < s->n_npus; k++)
        for (size_t i = 0; i < s->n_rows; i++) {
            const v10_llm_study_row *r = &s->rows[i];
            if (r->partner[0] || strcmp(r->npu, s->npus[k]))
                continue;
            view v;
            view_of(s, s->npus[k], r->service, &v);
            summary_view(f, &v, r->service, s->npus[k]);
        }
    return 0;
}

int v10_llm_study_render(const v10_llm_study *s, v10_llm_study_out *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    v10_tab *cdf = v10_tab_create();
    v10_tab_cols(cdf, cdf_cols, sizeof cdf_cols / sizeof cdf_cols[0]);
    if (render_csv(s, out, err))
        goto fail;
    for (size_t i = 0; i < s->n_rows; i++) {
        const v10_llm_study_row *r = &s->rows[i];
        if (r->partner[0])
            continue;
        view v;
        view_of(s, r->npu, r->service, &v);
        if (render_plots(&v, r->service, r->npu, out, err) ||
            render_cdfs(&v, r->service, r->npu, cdf, out, err) ||
            render_tokens(&v, r->service, r->npu, out, err))
            goto fail;
    }
    if (v10_tab_status(cdf, err))
        goto fail;
    size_t clen;
    char *cbuf = v10_doc_render(tab_csv, cdf, &clen);
    v10_tab_destroy(cdf);
    cdf = NULL;
    if (add_file(out, "llm_cdf.csv", cbuf, clen, err))
        goto fail;
    size_t len;
    char *md = v10_doc_render(write_summary, s, &len);
    if (add_file(out, "summary.md", md, len, err))
        goto fail;
    /* report.html, as repro's: summary.md, then every plot above inline */
    char *html = v10_html_figures_page("LLM serving beside other services: v10sim llm-study",
                                       md, out->files, out->n_files, &len);
    if (add_file(out, "report.html", html, len, err))
        goto fail;
    return 0;
fail:
    v10_tab_destroy(cdf);
    v10_llm_study_out_fini(out);
    return -1;
}

void v10_llm_study_out_fini(v10_llm_study_out *out)
{
    for (size_t i = 0; i < out->n_files; i++)
        free(out->files[i].data);
    free(out->files);
    memset(out, 0, sizeof *out);
}
