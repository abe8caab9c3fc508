/*
 * energy.c (repro) — what each policy spends per inference on the pairs
 * (docs/energy.md, docs/repro.md): energy.csv for every pair and policy,
 * energy.svg (energy per inference over PMT's) and energy_split.svg (its
 * static and dynamic parts under PMT and V10-Full), and the summary's
 * section.  Read from the pairs' runs; no simulation of its own.
 */
#include <stdio.h>
#include <string.h>

#include "repro/study.h"

/* Run r's energy per inference over the window, whole and split: the
 * static and dynamic parts and the part spent switching contexts (the
 * FUs' switching, the task switches' bytes through HBM and vector
 * memory). */
typedef struct per_inf {
    double inferences, total, stat, dyn, sw;
} per_inf;

static void per_inference(const v10_run_result *r, per_inf *x)
{
    const v10_energy_result *e = &r->energy;
    x->inferences = e->inferences_per_j * e->total_j;
    double k = x->inferences > 0 ? 1 / x->inferences : NAN;
    double sw = 0;
    for (int u = 0; u < V10_EN_UNITS; u++)
        sw += e->unit_j[u][V10_EN_SWITCH];
    *x = (per_inf){x->inferences, k * e->total_j, k * e->static_j, k * e->dynamic_j, k * sw};
}

/* STP over the mean power: throughput per watt, whatever the mix. */
static double stp_per_w(const v10_run_result *r) { return repro_ratio(r->stp, r->energy.power_w); }

/* Energy per inference of policy pol over PMT's, pair p. */
static double vs_pmt(const repro *R, size_t p, int pol)
{
    per_inf a, b;
    per_inference(repro_res(R, S_PAIRS, p, P_PMT, 0), &a);
    per_inference(repro_res(R, S_PAIRS, p, (size_t)pol, 0), &b);
    return repro_ratio(b.total, a.total);
}

int repro_render_energy(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cols[] = {
        {"pair", V10_COL_STR, 0},
        {"paper", V10_COL_INT, 0},
        {"policy", V10_COL_STR, 0},
        {"energy_j", V10_COL_REAL, 6},
        {"power_w", V10_COL_REAL, 3},
        {"inferences", V10_COL_REAL, 3},
        {"energy_per_inf_j", V10_COL_REAL, 9},
        {"static_per_inf_j", V10_COL_REAL, 9},
        {"dynamic_per_inf_j", V10_COL_REAL, 9},
        {"switch_per_inf_j", V10_COL_REAL, 9},
        {"inferences_per_j", V10_COL_REAL, 6},
        {"energy_per_inf_vs_pmt", V10_COL_REAL, 4},
        {"j_per_req_1", V10_COL_REAL, 9},
        {"j_per_req_2", V10_COL_REAL, 9},
        {"unattributed_j", V10_COL_REAL, 6},
        {"stp", V10_COL_REAL, 4},
        {"stp_per_w", V10_COL_REAL, 6},
    };
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    for (size_t p = 0; p < NPAIR; p++)
        for (int k = 0; k < NPOL; k++) {
            const v10_run_result *r = repro_res(R, S_PAIRS, p, (size_t)k, 0);
            const v10_energy_result *e = &r->energy;
            per_inf x;
            per_inference(r, &x);
            v10_tab_row(t);
            v10_tab_str(t, R->pairs[p].name);
            v10_tab_int(t, R->pairs[p].paper);
            v10_tab_str(t, repro_policies[k]);
            v10_tab_real(t, e->total_j);
            v10_tab_real(t, e->power_w);
            v10_tab_real(t, x.inferences);
            v10_tab_real(t, x.total);
            v10_tab_real(t, x.stat);
            v10_tab_real(t, x.dyn);
            v10_tab_real(t, x.sw);
            v10_tab_real(t, e->inferences_per_j);
            v10_tab_real(t, vs_pmt(R, p, k));
            v10_tab_real(t, r->tenants[0].energy_per_request_j);
            v10_tab_real(t, r->tenants[1].energy_per_request_j);
            v10_tab_real(t, e->unattributed_j);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, stp_per_w(r));
        }
    if (repro_add_tab(out, "energy.csv", t, err))
        return -1;

    /* Energy per inference over PMT's, every policy, the paper's pairs. */
    const char *cats[NPP];
    double y[NPOL][NPP];
    for (size_t p = 0; p < NPP; p++) {
        cats[p] = R->pairs[p].name;
        for (int k = 0; k < NPOL; k++)
            y[k][p] = vs_pmt(R, p, k);
    }
    v10_svg_series s[NPOL];
    for (int k = 0; k < NPOL; k++)
        s[k] = (v10_svg_series){repro_policies[k], y[k]};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = "Energy per inference normalized to PMT "
                       "(lower is better)", .ylabel = "J per inference / PMT's", .n_x = NPP,
                       .cats = cats, .series = s, .n_series = NPOL, .ref_y = 1, .width = 900,
                       .height = 420};
    if (repro_add_chart(out, cs, "energy.svg", &c,
                        "The core's energy over the window per inference completed (all the "
                        "pair's requests), each policy over PMT, per paper pair; its inverse "
                        "is perf/W (inferences per joule, energy.csv).", err))
        return -1;

    /* Static and dynamic parts under PMT and V10-Full, over PMT's total. */
    const char *sc[2 * NPP];
    char sc_buf[2 * NPP][80];
    double st[2][2 * NPP];
    for (size_t p = 0; p < NPP; p++) {
        per_inf a;
        per_inference(repro_res(R, S_PAIRS, p, P_PMT, 0), &a);
        for (int k = 0; k < 2; k++) {
            size_t bar = 2 * p + (size_t)k;
            int pol = k ? P_FULL : P_PMT;
            per_inf b;
            per_inference(repro_res(R, S_PAIRS, p, (size_t)pol, 0), &b);
            st[0][bar] = repro_ratio(b.stat, a.total);
            st[1][bar] = repro_ratio(b.dyn, a.total);
            snprintf(sc_buf[bar], sizeof sc_buf[bar], "%s %s", R->pairs[p].name,
                     repro_policies[pol]);
            sc[bar] = sc_buf[bar];
        }
    }
    v10_svg_series ss[2] = {{"static", st[0]}, {"dynamic", st[1]}};
    v10_svg_chart cs2 = {.kind = V10_SVG_BARS, .stacked = 1,
                         .title = "Energy per inference: static and dynamic, PMT and V10-Full",
                         .ylabel = "J per inference / PMT's", .n_x = 2 * NPP, .cats = sc,
                         .series = ss, .n_series = 2, .ref_y = 1, .width = 1100,
                         .height = 480};
    return repro_add_chart(out, cs, "energy_split.svg", &cs2,
                           "Energy per inference under PMT and V10-Full split into the core's "
                           "static energy (drawn whatever it does, spread over the work done) "
                           "and the dynamic energy of the work, switches and HBM bytes, over "
                           "PMT's total, per paper pair.", err);
}

void repro_energy_md(FILE *f, const repro *R)
{
    fprintf(f, "## Energy per inference\n\n"
               "The core's energy over the window per inference completed (docs/energy.md; "
               "`energy.csv`, `energy.svg`, `energy_split.svg`), PMT and V10-Full, with its "
               "static and dynamic parts, and every policy over PMT:\n\n"
               "| pair | PMT J | static | dynamic | V10-Full J | static | dynamic | V10-Base "
               "/ PMT | V10-Fair / PMT | V10-Full / PMT |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
    double m[NPOL] = {0}, mw[NPOL] = {0}, ms[2] = {0}, md[2] = {0};
    for (size_t p = 0; p < NPP; p++) {
        per_inf a, b;
        per_inference(repro_res(R, S_PAIRS, p, P_PMT, 0), &a);
        per_inference(repro_res(R, S_PAIRS, p, P_FULL, 0), &b);
        fprintf(f, "| %s | %.4g | %.0f%% | %.0f%% | %.4g | %.0f%% | %.0f%% | ×%.3f | ×%.3f | "
                   "×%.3f |\n",
                R->pairs[p].name, a.total, 100 * a.stat / a.total, 100 * a.dyn / a.total,
                b.total, 100 * b.stat / b.total, 100 * b.dyn / b.total, vs_pmt(R, p, P_BASE),
                vs_pmt(R, p, P_FAIR), vs_pmt(R, p, P_FULL));
        for (int k = 0; k < NPOL; k++) {
            m[k] += vs_pmt(R, p, k) / NPP;
            mw[k] += repro_ratio(stp_per_w(repro_res(R, S_PAIRS, p, (size_t)k, 0)),
                                 stp_per_w(repro_res(R, S_PAIRS, p, P_PMT, 0))) / NPP;
        }
        /* Each part over PMT's total: the saving split into its sources. */
        ms[0] += a.stat / a.total / NPP;
        md[0] += a.dyn / a.total / NPP;
        ms[1] += b.stat / a.total / NPP;
        md[1] += b.dyn / a.total / NPP;
    }
    fprintf(f, "\nMean over the pairs, over PMT: V10-Base ×%.3f, V10-Fair ×%.3f, V10-Full "
               "×%.3f.  Of PMT's energy per inference, static %.1f%% and dynamic %.1f%%; "
               "V10-Full's static part is %.1f%% and its dynamic part %.1f%% of it.  An "
               "inference is a request of either tenant, so a policy that completes a pair's "
               "short and long requests in other proportions moves this figure too (V10-Base "
               "favours one tenant); STP per watt, the paper's throughput metric over the mean "
               "power, does not depend on the mix: over PMT's, V10-Base ×%.3f, V10-Fair "
               "×%.3f, V10-Full ×%.3f.\n\n",
            m[P_BASE], m[P_FAIR], m[P_FULL], 100 * ms[0], 100 * md[0], 100 * ms[1],
            100 * md[1], mw[P_BASE], mw[P_FAIR], mw[P_FULL]);
    /* The pair (issue 25; docs/energy.md "What it shows"). */
    for (size_t p = 0; p < NPP; p++) {
        const repro_pair *q = &R->pairs[p];
        if (strcmp(q->name, "efficientnet+resnet50"))
            continue;
        const v10_run_result *ra = repro_res(R, S_PAIRS, p, P_PMT, 0),
                             *rb = repro_res(R, S_PAIRS, p, P_FULL, 0);
        per_inf a, b;
        per_inference(ra, &a);
        per_inference(rb, &b);
        fprintf(f, "On %s V10-Full spends %.1f%% %s energy per inference than PMT (%.3f J "
                   "against %.3f J).  The core's static power (%.1f W under PMT, drawn "
                   "whatever it does) is spread over %.2f times as many inferences a second "
                   "(STP %.3f against %.3f), so the static part falls from %.3f to %.3f J; "
                   "the dynamic part is the work itself and moves from %.3f to %.3f J.  "
                   "Switching contexts costs PMT %.3f J per inference and V10-Full %.3f J.  "
                   "V10-Full draws more power (%.1f W against %.1f W) for less time per "
                   "inference.\n\n",
                q->name, 100 * fabs(1 - b.total / a.total), b.total < a.total ? "less" : "more",
                b.total, a.total, ra->energy.static_j / ra->energy.total_j * ra->energy.power_w,
                (rb->energy.inferences_per_j * rb->energy.power_w) /
                    (ra->energy.inferences_per_j * ra->energy.power_w),
                rb->stp, ra->stp, a.stat, b.stat, a.dyn, b.dyn, a.sw, b.sw, rb->energy.power_w,
                ra->energy.power_w);
    }
}
