/*
 * fairness.c — the fairness study's render hook and summary section: the
 * paper's four policies and V10-Full with preempt=ready (docs/architecture.md,
 * "Preemption when a tenant becomes ready") over all 55 pairs of the
 * studied workload set, and of the other with --fairness-both: STP, each
 * pair's least normalized progress, the fairness index (least over most
 * progress) and preemptions per request (fairness.csv, fairness.svg); and
 * the tenants that a policy gives less than half of what PMT gives them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro/study.h"

const char *const repro_fair_policies[NFAIR] = {"pmt", "v10-base", "v10-fair", "v10-full",
                                                "v10-full+ready"};
static const char *const labels[NFAIR] = {"PMT", "V10-Base", "V10-Fair", "V10-Full",
                                          "V10-Full, preempt=ready"};

/* Run (pair p, policy k) of S's fairness study. */
static const v10_run_result *fres(const repro *S, size_t p, size_t k)
{
    return repro_res(S, S_FAIR, p, k, 0);
}

/* Preemptions per request completed (whole run, both tenants). */
static double per_request(const v10_run_result *r)
{
    uint64_t done = 0;
    for (size_t t = 0; t < r->n_tenants; t++)
        done += r->tenants[t].completed;
    return repro_ratio((double)r->preemptions, (double)done);
}

static double min_np(const v10_run_result *r) { return fmin(r->tenants[0].np, r->tenants[1].np); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One policy's figures over the 55 pairs of one set: means, the least,
 * and the median of the pairs' preemptions per request (a mean would be
 * the few pairs of a seconds-long request and a microseconds-long one). */
typedef struct fair_stats {
    double stp, fairness, worst_fair, worst_np, per_req;
    size_t worst_pair;
    int worst_tenant;
    unsigned starved; /* tenants given < half their progress under PMT */
} fair_stats;

static void fair_stats_of(const repro *S, size_t k, fair_stats *s)
{
    double per_req[NPAIR];
    memset(s, 0, sizeof *s);
    s->worst_np = s->worst_fair = INFINITY;
    for (size_t p = 0; p < NPAIR; p++) {
        const v10_run_result *r = fres(S, p, k), *r0 = fres(S, p, P_PMT);
        s->stp += r->stp / NPAIR;
        s->fairness += r->fairness / NPAIR;
        per_req[p] = per_request(r);
        s->worst_fair = fmin(s->worst_fair, r->fairness);
        for (int t = 0; t < 2; t++) {
            if (r->tenants[t].np < s->worst_np) {
                s->worst_np = r->tenants[t].np;
                s->worst_pair = p;
                s->worst_tenant = t;
            }
            s->starved += r->tenants[t].np < 0.5 * r0->tenants[t].np;
        }
    }
    qsort(per_req, NPAIR, sizeof *per_req, cmp_double);
    s->per_req = per_req[NPAIR / 2];
}

/* The sets the study ran (X[0] the studied one, X[1] the other if it
 * ran there: --fairness-both); returns how many. */
static int fair_sets(const repro *R, const repro *X[2])
{
    X[0] = R;
    X[1] = R->alt;
    return R->alt->dim[S_FAIR][0] ? 2 : 1;
}

/* Appends fairness.csv's rows of set X, policy k. */
static void fair_rows(v10_tab *t, const repro *X, size_t k)
{
    for (size_t p = 0; p < NPAIR; p++) {
        const v10_run_result *r = fres(X, p, k), *r0 = fres(X, p, P_PMT);
        v10_tab_row(t);
        v10_tab_str(t, X->set);
        v10_tab_str(t, X->pairs[p].name);
        v10_tab_int(t, X->pairs[p].paper);
        v10_tab_str(t, repro_fair_policies[k]);
        v10_tab_int(t, (int64_t)X->cfgs[repro_at(X, S_FAIR, p, k, 0)].requests);
        v10_tab_real(t, r->stp);
        v10_tab_real(t, r->tenants[0].np);
        v10_tab_real(t, r->tenants[1].np);
        v10_tab_real(t, min_np(r));
        v10_tab_real(t, r->fairness);
        v10_tab_real(t, fmin(repro_ratio(r->tenants[0].np, r0->tenants[0].np),
                             repro_ratio(r->tenants[1].np, r0->tenants[1].np)));
        v10_tab_int(t, (int64_t)r->preemptions);
        v10_tab_real(t, per_request(r));
    }
}

int repro_render_fair(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cols[] = {
        {"set", V10_COL_STR, 0},        {"pair", V10_COL_STR, 0},
        {"paper", V10_COL_INT, 0},      {"policy", V10_COL_STR, 0},
        {"requests", V10_COL_INT, 0},   {"stp", V10_COL_REAL, 4},
        {"np_1", V10_COL_REAL, 4},      {"np_2", V10_COL_REAL, 4},
        {"min_np", V10_COL_REAL, 4},    {"fairness", V10_COL_REAL, 4},
        {"min_np_vs_pmt", V10_COL_REAL, 4}, {"preemptions", V10_COL_INT, 0},
        {"preemptions_per_request", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    const repro *X[2];
    int n = fair_sets(R, X);
    /* Per set: the least progress, the mean and the least fairness. */
    double y[2][3][NFAIR];
    for (int s = 0; s < n; s++)
        for (size_t k = 0; k < NFAIR; k++) {
            fair_stats st;
            fair_stats_of(X[s], k, &st);
            y[s][0][k] = st.worst_np;
            y[s][1][k] = st.fairness;
            y[s][2][k] = st.worst_fair;
            fair_rows(t, X[s], k);
        }
    if (repro_add_tab(out, "fairness.csv", t, err))
        return -1;
    static const char *const what[3] = {"least progress of any tenant",
                                        "mean fairness (least / most progress of a pair)",
                                        "least fairness of a pair"};
    char name[3][2][80];
    v10_svg_series ss[6];
    for (int j = 0; j < 3; j++)
        for (int s = 0; s < n; s++) {
            snprintf(name[j][s], sizeof name[j][s], "%s%s%s", what[j], n > 1 ? ", " : "",
                     n > 1 ? X[s]->set : "");
            ss[n * j + s] = (v10_svg_series){name[j][s], y[s][j]};
        }
    char title[96];
    snprintf(title, sizeof title, "Fairness over the 55 pairs (%s%s%s)", R->set,
             n > 1 ? ", " : "", n > 1 ? R->alt->set : "");
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = title,
                       .ylabel = "normalized progress / fairness index", .n_x = NFAIR,
                       .cats = labels, .series = ss, .n_series = (size_t)(3 * n), .ref_y = 0.5,
                       .width = 900 + 100 * (n - 1), .height = 420};
    return repro_add_chart(out, cs, "fairness.svg", &c,
                           "Per policy and workload set, over the set's 55 pairs: the least "
                           "normalized progress any tenant gets, and the mean and least "
                           "fairness index (a pair's least progress over its most). Dashed: "
                           "half the core.",
                           err);
}

void repro_fair_md(FILE *f, const repro *R)
{
    const repro *X[2];
    int n = fair_sets(R, X);
    fprintf(f, "## Fairness over all 55 pairs\n\n"
               "The paper's policies and V10-Full with `v10-full.preempt=ready` (a tenant "
               "ready for a busy FU and owed a slice is matched at once, not at the next "
               "tick, once the holder has had its quantum; docs/architecture.md) over every "
               "pair of the set (`fairness.csv`, `fairness.svg`");
    if (n > 1)
        fprintf(f, "; with `--fairness-both`, the %s set too, its 44 pairs beyond the "
                   "paper's at %u requests", R->alt->set, R->alt->len[S_FAIR].requests);
    fprintf(f, ").  Least progress: the least normalized progress of any tenant; "
               "fairness: a pair's least progress over its most; starved: tenants given "
               "less than half their progress under PMT.\n\n"
               "| set | policy | mean STP | least progress (pair: tenant) | mean fairness "
               "| least fairness | preemptions per request (median) | starved |\n"
               "|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < n; s++)
        for (size_t k = 0; k < NFAIR; k++) {
            fair_stats st;
            fair_stats_of(X[s], k, &st);
            const repro_pair *q = &X[s]->pairs[st.worst_pair];
            fprintf(f, "| %s | %s | %.3f | %.3f (%s: %s) | %.3f | %.3f | %.1f | %u |\n",
                    X[s]->set, labels[k], st.stp, st.worst_np, q->name,
                    repro_models[st.worst_tenant ? q->b : q->a], st.fairness, st.worst_fair,
                    st.per_req, st.starved);
        }
    fprintf(f, "\n");
}
