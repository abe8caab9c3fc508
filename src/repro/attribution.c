/*
 * attribution.c — where the time went in the reproduction's pairs
 * (docs/attribution.md): attribution.csv and a stacked bar per paper pair
 * and policy (PMT, V10-Base, V10-Fair, V10-Full), and the summary's
 * sentence per pair naming its largest cause of lost progress under
 * V10-Base and V10-Full.
 */
#include <stdio.h>
#include <stdlib.h>

#include "repro/study.h"

/* The chart's causes: attribution states, the waits and switches merged. */
enum { C_EXEC = 0, C_HBM, C_WAIT_SA, C_WAIT_VU, C_HELD, C_SWITCH, C_PREEMPTED, C_IDLE, NC };
static const char *const cause_name[NC] = {
    "executing", "slowed by HBM sharing", "waiting for the SA", "waiting for the VU",
    "kept off a free FU", "context switches", "preempted", "idle"};
static const char *const cause_key[NC] = {"exec",      "hbm",    "wait_sa",   "wait_vu",
                                          "held",      "switch", "preempted", "idle"};

/* Tenant i's share of the window in each cause. */
static void causes(const v10_run_result *r, size_t i, double c[NC])
{
    double w = (double)(r->window_end - r->window_start);
    const double *s = r->tenants[i].state_cycles;
    double k = w > 0 ? 1 / w : 0;
    c[C_EXEC] = k * s[V10_ATTR_EXEC];
    c[C_HBM] = k * s[V10_ATTR_HBM];
    c[C_WAIT_SA] = k * s[V10_ATTR_WAIT_SA];
    c[C_WAIT_VU] = k * s[V10_ATTR_WAIT_VU];
    c[C_HELD] = k * s[V10_ATTR_HELD];
    c[C_SWITCH] = k * (s[V10_ATTR_SWITCH] + s[V10_ATTR_SWITCH_BY]);
    c[C_PREEMPTED] = k * s[V10_ATTR_PREEMPTED];
    c[C_IDLE] = k * s[V10_ATTR_IDLE];
}

/* The pair's mean over its two tenants (each bar sums to 1). */
static void pair_causes(const v10_run_result *r, double c[NC])
{
    double a[NC], b[NC];
    causes(r, 0, a);
    causes(r, 1, b);
    for (int k = 0; k < NC; k++)
        c[k] = (a[k] + b[k]) / 2;
}

/* The largest cause other than executing. */
static int top_cause(const double c[NC])
{
    int best = C_HBM;
    for (int k = C_HBM; k < NC; k++)
        if (c[k] > c[best])
            best = k;
    return best;
}

int repro_render_attrib(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    v10_tab_col(t, "np", V10_COL_REAL, 4);
    for (int s = 0; s < V10_ATTR_STATES; s++)
        v10_tab_col(t, v10_attr_name((v10_attr_state)s), V10_COL_REAL, 4);
    v10_tab_col(t, "lost_to_partner", V10_COL_REAL, 4);
    const char *cats[NPP * NPOL];
    char cat_buf[NPP * NPOL][80];
    double y[NC][NPP * NPOL];
    for (size_t p = 0; p < NPP; p++)
        for (int k = 0; k < NPOL; k++) {
            const v10_run_result *r = repro_res(R, S_PAIRS, p, (size_t)k, 0);
            double w = (double)(r->window_end - r->window_start), inv = w > 0 ? 1 / w : 0;
            for (size_t i = 0; i < 2; i++) {
                const v10_tenant_result *x = &r->tenants[i];
                v10_tab_row(t);
                v10_tab_str(t, R->pairs[p].name);
                v10_tab_str(t, repro_policies[k]);
                v10_tab_str(t, x->name);
                v10_tab_real(t, x->np);
                for (int s = 0; s < V10_ATTR_STATES; s++)
                    v10_tab_real(t, inv * x->state_cycles[s]);
                double lost = 0;
                for (int s = 0; s < V10_ATTR_STATES; s++)
                    lost += x->lost_to[(1 - i) * V10_ATTR_STATES + (size_t)s];
                v10_tab_real(t, inv * lost);
            }
            size_t bar = p * NPOL + (size_t)k;
            double c[NC];
            pair_causes(r, c);
            for (int s = 0; s < NC; s++)
                y[s][bar] = c[s];
            snprintf(cat_buf[bar], sizeof cat_buf[bar], "%s %s", R->pairs[p].name,
                     repro_policies[k]);
            cats[bar] = cat_buf[bar];
        }
    if (repro_add_tab(out, "attribution.csv", t, err))
        return -1;
    v10_svg_series ser[NC];
    for (int s = 0; s < NC; s++)
        ser[s] = (v10_svg_series){cause_name[s], y[s]};
    v10_svg_chart ch = {.kind = V10_SVG_BARS, .stacked = 1,
                        .title = "Where the time went: the paper's pairs under each policy",
                        .ylabel = "share of the window (mean of the two tenants)",
                        .n_x = NPP * NPOL, .cats = cats, .series = ser, .n_series = NC,
                        .ref_y = NAN, .width = 1400, .height = 520};
    return repro_add_chart(out, cs, "attribution.svg", &ch,
                           "Each tenant's window split into where its time went "
                           "(docs/attribution.md), the mean of the pair's two tenants; "
                           "attribution.csv has every state per tenant and what each lost "
                           "to its partner.",
                           err);
}

void repro_attrib_md(FILE *f, const repro *R)
{
    fprintf(f, "\n## Where the time went\n\n"
               "Each pair's largest cause of lost progress (a tenant's time not spent "
               "executing at full rate, mean of the two tenants; `attribution.csv`, "
               "`attribution.svg`, docs/attribution.md), under PMT, V10-Base and V10-Full, "
               "and V10-Full's STP over PMT:\n\n");
    fprintf(f, "| pair | PMT | V10-Base | V10-Full | STP gain |\n|---|---|---|---|---|\n");
    for (size_t p = 0; p < NPP; p++) {
        fprintf(f, "| %s", R->pairs[p].name);
        static const int pol[3] = {P_PMT, P_BASE, P_FULL};
        for (int k = 0; k < 3; k++) {
            double c[NC];
            pair_causes(repro_res(R, S_PAIRS, p, (size_t)pol[k], 0), c);
            int top = top_cause(c);
            if (c[top] > 0)
                fprintf(f, " | %s, %.0f%%", cause_name[top], 100 * c[top]);
            else
                fprintf(f, " | none");
        }
        fprintf(f, " | %.2f× |\n", repro_pair_gain(R, p));
    }
    /* The means over the pairs, per policy: what V10's gain is made of. */
    double m[NPOL][NC] = {{0}};
    for (size_t p = 0; p < NPP; p++)
        for (int k = 0; k < NPOL; k++) {
            double c[NC];
            pair_causes(repro_res(R, S_PAIRS, p, (size_t)k, 0), c);
            for (int s = 0; s < NC; s++)
                m[k][s] += c[s] / NPP;
        }
    fprintf(f, "\nMean over the pairs, share of a tenant's window:\n\n| policy |");
    for (int s = 0; s < NC; s++)
        fprintf(f, " %s |", cause_key[s]);
    fprintf(f, "\n|---|");
    for (int s = 0; s < NC; s++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int k = 0; k < NPOL; k++) {
        fprintf(f, "| %s |", repro_policies[k]);
        for (int s = 0; s < NC; s++)
            fprintf(f, " %.1f%% |", 100 * m[k][s]);
        fprintf(f, "\n");
    }
    fprintf(f, "\nV10-Full executes %.1f%% of each tenant's window against PMT's %.1f%%: PMT "
               "loses %.1f%% to preemption and %.1f%% to context switches, V10-Full %.1f%% "
               "waiting for an FU its partner holds, %.1f%% to HBM sharing and %.1f%% "
               "preempted.\n\n",
            100 * m[P_FULL][C_EXEC], 100 * m[P_PMT][C_EXEC], 100 * m[P_PMT][C_PREEMPTED],
            100 * m[P_PMT][C_SWITCH], 100 * (m[P_FULL][C_WAIT_SA] + m[P_FULL][C_WAIT_VU]),
            100 * m[P_FULL][C_HBM], 100 * m[P_FULL][C_PREEMPTED]);
}
