/*
 * llm_study_report.c — `v10sim llm-study`'s files (docs/llm.md, "The LLM
 * study"): llm_study.csv (one row per service x partner x policy x NPU,
 * and each service alone), per service and NPU the TTFT p95, TPOT p95 and
 * partner-progress plots, and summary.md whose every figure is read from
 * the rows.  Each file is rendered whole in memory (report/doc.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "v10/llm_study.h"
#include "v10/svg.h"
#include "v10/table.h"

#define MAXP 16 /* partners per service */
#define NPOL 3

static const char *const pols[NPOL] = {"pmt", "v10-fair", "v10-full"};
static const char *const pol_names[NPOL] = {"PMT", "V10-Fair", "V10-Full"};

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
    {"slo_ttft", V10_COL_REAL, 4},    {"slo_tpot", V10_COL_REAL, 4},
    {"partner_rps", V10_COL_REAL, 4}, {"partner_np", V10_COL_REAL, 4},
    {"partner_tokens_per_s", V10_COL_REAL, 2}, {"util_sa", V10_COL_REAL, 4},
    {"util_vu", V10_COL_REAL, 4},
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
        v10_tab_real(t, r->slo_ttft);
        v10_tab_real(t, r->slo_tpot);
        v10_tab_real(t, r->partner_rps);
        v10_tab_real(t, r->partner_np);
        v10_tab_real(t, r->partner_tokens_per_s);
        v10_tab_real(t, r->util_sa);
        v10_tab_real(t, r->util_vu);
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

/* Mean over partners of policy k's figure over the alone figure. */
static double vs_alone(const view *v, int fig, int k)
{
    double a = figure(v->alone, fig), sum = 0;
    size_t n = 0;
    for (size_t p = 0; p < v->n_partners; p++) {
        double b = figure(v->pair[p][k], fig);
        if (a > 0 && isfinite(b)) {
            sum += b / a;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

static void summary_view(FILE *f, const view *v, const char *svc, const char *npu)
{
    const v10_llm_study_row *a = v->alone;
    fprintf(f, "## llm-%s on %s\n\n", svc, npu);
    fprintf(f, "Alone: rate_scale %.4f, offered load %.1f%%, busy %.1f%% over the run, "
               "%llu requests, TTFT p95 %.2f ms, "
               "TPOT p95 %.3f ms, %.1f tokens/s.\n\n",
            a->rate_scale, 100 * a->load_alone, 100 * a->busy_alone, (unsigned long long)a->llm_requests,
            a->ttft_ms[1], a->tpot_ms[1], a->tokens_per_s);
    fprintf(f, "| partner | TTFT p95 ms PMT | V10-Fair | V10-Full | TPOT p95 ms PMT | "
               "V10-Fair | V10-Full | partner NP PMT | V10-Fair | V10-Full |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
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
        fprintf(f, "* %s: TTFT p95 on average %.2fx alone, TPOT p95 %.2fx alone.\n",
                pol_names[k], vs_alone(v, F_TTFT, k), vs_alone(v, F_TPOT, k));
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
               "an LLM partner has none).\n\n",
            s->runs, (unsigned long long)s->opts.requests, s->opts.quick ? " (--quick)" : "",
            100 * s->opts.target_busy);
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
    if (render_csv(s, out, err))
        goto fail;
    for (size_t i = 0; i < s->n_rows; i++) {
        const v10_llm_study_row *r = &s->rows[i];
        if (r->partner[0])
            continue;
        view v;
        view_of(s, r->npu, r->service, &v);
        if (render_plots(&v, r->service, r->npu, out, err))
            goto fail;
    }
    size_t len;
    char *md = v10_doc_render(write_summary, s, &len);
    if (add_file(out, "summary.md", md, len, err))
        goto fail;
    return 0;
fail:
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
