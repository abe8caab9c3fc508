/*
 * render.c — `v10sim repro`'s files: each study's render hook (its
 * CSV and SVG plots, in memory; src/repro/registry.c runs them in order),
 * the in-memory file list, and the console headlines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "v10/report.h"
#include "repro/study.h"

/* ---- output files (v10_artifact_add is report/doc.c's) ---------------------------- */

int repro_add_file(v10_repro_out *out, const char *name, char *data, size_t len, v10_err *err)
{
    return v10_artifact_add(&out->files, &out->n_files, name, data, len, err);
}

static int tab_csv(const void *t, FILE *f) { return v10_tab_write(t, V10_FMT_CSV, f); }

int repro_add_tab(v10_repro_out *out, const char *name, v10_tab *t, v10_err *err)
{
    size_t len;
    char *buf = v10_doc_render(tab_csv, t, &len);
    v10_tab_destroy(t);
    if (!buf)
        return v10_err_set(err, "%s: rendering failed", name);
    return repro_add_file(out, name, buf, len, err);
}

int repro_add_chart(v10_repro_out *out, repro_charts *cs, const char *name,
                    const v10_svg_chart *c, const char *caption, v10_err *err)
{
    char *svg = v10_svg_render(c);
    if (!svg)
        return v10_err_set(err, "%s: rendering failed", name);
    V10_ASSERT(cs->n < sizeof cs->c / sizeof cs->c[0]);
    repro_chart *ch = &cs->c[cs->n++];
    snprintf(ch->name, sizeof ch->name, "%s", name);
    snprintf(ch->caption, sizeof ch->caption, "%s", caption);
    ch->svg = svg;
    char *copy = strdup(svg);
    if (!copy)
        return v10_err_set(err, "out of memory");
    return repro_add_file(out, name, copy, strlen(copy), err);
}

/* The names of the paper's pairs, for categories and table cells. */
static void pair_names(const repro *R, const char *names[NPP])
{
    for (size_t p = 0; p < NPP; p++)
        names[p] = R->pairs[p].name;
}

/* ---- the studies' render hooks ------------------------------------------------------- */

/* pairs.csv (every pair x policy) and the per-pair plots. */
int repro_render_pairs(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    const char *cols[] = {"pair", "paper", "policy", "model_1", "model_2", "requests"};
    for (size_t i = 0; i < 6; i++)
        v10_tab_col(t, cols[i], i == 1 || i >= 5 ? V10_COL_INT : V10_COL_STR, 0);
    const char *rc[] = {"sa", "vu", "hbm", "overall", "overlap", "stp", "antt", "fairness",
                        "np_1", "np_2", "lat_avg_us_1", "lat_avg_us_2", "lat_p95_us_1",
                        "lat_p95_us_2", "switch_frac", "stp_bound"};
    for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++)
        v10_tab_col(t, rc[i], V10_COL_REAL, i >= 10 && i <= 13 ? 2 : 4);
    v10_tab_col(t, "preemptions", V10_COL_INT, 0);
    for (size_t p = 0; p < NPAIR; p++)
        for (int k = 0; k < NPOL; k++) {
            size_t i = repro_at(R, S_PAIRS, p, k, 0);
            const v10_run_result *r = &R->res[i];
            v10_tab_row(t);
            v10_tab_str(t, R->pairs[p].name);
            v10_tab_int(t, R->pairs[p].paper);
            v10_tab_str(t, repro_policies[k]);
            v10_tab_str(t, repro_models[R->pairs[p].a]);
            v10_tab_str(t, repro_models[R->pairs[p].b]);
            v10_tab_int(t, R->cfgs[i].requests);
            v10_report_system_cells(t, r);
            v10_tab_real(t, r->tenants[0].np);
            v10_tab_real(t, r->tenants[1].np);
            v10_tab_real(t, r->tenants[0].lat_avg_us);
            v10_tab_real(t, r->tenants[1].lat_avg_us);
            v10_tab_real(t, r->tenants[0].lat_p95_us);
            v10_tab_real(t, r->tenants[1].lat_p95_us);
            v10_tab_real(t, repro_switch_frac(r));
            v10_tab_real(t, v10_profile_pair_bound(&R->prof[R->pairs[p].a],
                                                   &R->prof[R->pairs[p].b]));
            v10_tab_int(t, (int64_t)r->preemptions);
        }
    if (repro_add_tab(out, "pairs.csv", t, err))
        return -1;

    /* Normalized-to-PMT grouped bars over the paper's pairs. */
    const char *cats[NPP];
    double y[NPOL][NPP], yl[NPOL][NPP], yp[NPOL][NPP], yu[NPOL][NPP], yo[NPOL][NPP];
    for (size_t p = 0; p < NPP; p++) {
        cats[p] = R->pairs[p].name;
        size_t i0 = repro_at(R, S_PAIRS, p, P_PMT, 0);
        for (int k = 0; k < NPOL; k++) {
            size_t i = repro_at(R, S_PAIRS, p, k, 0);
            y[k][p] = repro_ratio(R->res[i].stp, R->res[i0].stp);
            yu[k][p] = repro_ratio(R->res[i].util_overall, R->res[i0].util_overall);
            /* latency normalized to PMT: lat(x) / lat(PMT), lower is better */
            yl[k][p] = 1 / repro_lat_speedup(&R->res[i0], &R->res[i], 0);
            yp[k][p] = 1 / repro_lat_speedup(&R->res[i0], &R->res[i], 1);
            yo[k][p] = R->res[i].overlap;
        }
    }
    v10_svg_series s[NPOL];
    v10_svg_chart c = {.kind = V10_SVG_BARS, .n_x = NPP, .cats = cats, .series = s,
                       .n_series = NPOL, .ref_y = 1, .width = 900, .height = 420};
    struct {
        const char *file, *title, *ylab, *cap;
        double(*v)[NPP];
        double ref;
    } figs[] = {
        {"throughput.svg", "Aggregated throughput (STP) normalized to PMT", "STP / STP(PMT)",
         "Throughput (STP = sum of normalized progress) of each policy over PMT, per paper pair.",
         y, 1},
        {"utilization.svg", "Utilization (mean of SA and VU) normalized to PMT",
         "utilization / PMT", "Overall FU utilization of each policy over PMT, per paper pair.",
         yu, 1},
        {"latency_avg.svg", "Average latency normalized to PMT (lower is better)",
         "latency / PMT", "Per-inference average latency over PMT (mean of the two tenants).",
         yl, 1},
        {"latency_p95.svg", "95th-percentile latency normalized to PMT (lower is better)",
         "p95 latency / PMT", "95th-percentile latency over PMT (mean of the two tenants).", yp,
         1},
        {"overlap.svg", "SA and VU busy at the same time", "fraction of the window",
         "Fraction of the window in which an SA and a VU are both busy (paper: 63% for V10).",
         yo, NAN},
    };
    for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
        for (int k = 0; k < NPOL; k++)
            s[k] = (v10_svg_series){repro_policies[k], figs[f].v[k]};
        c.title = figs[f].title;
        c.ylabel = figs[f].ylab;
        c.ref_y = figs[f].ref;
        if (repro_add_chart(out, cs, figs[f].file, &c, figs[f].cap, err))
            return -1;
    }

    /* V10-Full over PMT per resource. */
    double br[3][NPP];
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *a = repro_res(R, S_PAIRS, p, P_PMT, 0),
                             *b = repro_res(R, S_PAIRS, p, P_FULL, 0);
        br[0][p] = repro_ratio(b->util_sa, a->util_sa);
        br[1][p] = repro_ratio(b->util_vu, a->util_vu);
        br[2][p] = repro_ratio(b->util_hbm, a->util_hbm);
    }
    v10_svg_series sb[3] = {{"SA", br[0]}, {"VU", br[1]}, {"HBM", br[2]}};
    v10_svg_chart cb = {.kind = V10_SVG_BARS, .title = "V10-Full over PMT by resource",
                        .ylabel = "utilization(V10-Full) / utilization(PMT)", .n_x = NPP,
                        .cats = cats, .series = sb, .n_series = 3, .ref_y = 1, .width = 900,
                        .height = 420};
    if (repro_add_chart(out, cs, "util_breakdown.svg", &cb,
                  "SA, VU and HBM-bandwidth utilization of V10-Full over PMT, per paper pair.",
                  err))
        return -1;

    /* All 55 pairs, sorted by gain. */
    size_t ord[NPAIR];
    double g[NPAIR], gs[NPAIR], bs[NPAIR];
    const char *names[NPAIR];
    for (size_t p = 0; p < NPAIR; p++) {
        ord[p] = p;
        g[p] = repro_ratio(repro_res(R, S_PAIRS, p, P_FULL, 0)->stp, repro_res(R, S_PAIRS, p, P_PMT, 0)->stp);
    }
    for (size_t i = 1; i < NPAIR; i++)
        for (size_t j = i; j > 0 && g[ord[j]] > g[ord[j - 1]]; j--) {
            size_t tmp = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = tmp;
        }
    for (size_t i = 0; i < NPAIR; i++) {
        names[i] = R->pairs[ord[i]].name;
        gs[i] = g[ord[i]];
        bs[i] = repro_bound_ratio(R, ord[i]);
    }
    v10_svg_series sa[2] = {{"V10-Full / PMT (simulated)", gs},
                            {"bound: 2 / max(1, sum SA, sum VU, sum HBM) / STP(PMT)", bs}};
    v10_svg_chart ca = {.kind = V10_SVG_BARS, .title = "STP gain of V10-Full over PMT, all 55 pairs",
                        .ylabel = "STP(V10-Full) / STP(PMT)", .n_x = NPAIR, .cats = names,
                        .series = sa, .n_series = 2, .ref_y = 1.3, .width = 1100,
                        .height = 480};
    return repro_add_chart(out, cs, "all_pairs.svg", &ca,
                     "STP gain for every pair of the eleven models, sorted, beside the bound "
                     "from standalone utilizations; the dashed line is the 1.3x "
                     "'beneficial' threshold.",
                     err);
}

/* slice.csv and slice.svg: V10-Full over PMT as the time slice grows. */
int repro_render_slice(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    const char *pnames[NPP];
    pair_names(R, pnames);
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "slice_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    const char *sc[] = {"stp", "stp_vs_pmt", "overall", "overlap", "lat_avg_speedup",
                        "lat_p95_speedup", "switch_frac"};
    for (size_t i = 0; i < 7; i++)
        v10_tab_col(t, sc[i], V10_COL_REAL, 4);
    v10_tab_col(t, "preemptions", V10_COL_INT, 0);
    double xs[NSLICE], m_stp[NSLICE] = {0}, m_util[NSLICE] = {0}, m_lat[NSLICE] = {0},
                       m_p95[NSLICE] = {0}, m_sw[NSLICE] = {0};
    repro_mean ml[NSLICE] = {{0}}, mp[NSLICE] = {{0}};
    char xl_buf[NSLICE][16];
    const char *xl[NSLICE];
    for (int s = 0; s < NSLICE; s++) {
        xs[s] = (double)(512ull << s);
        unsigned long long v = 512ull << s;
        if (v >= 1048576)
            snprintf(xl_buf[s], 16, "%lluM", v >> 20);
        else if (v >= 1024)
            snprintf(xl_buf[s], 16, "%lluK", v >> 10);
        else
            snprintf(xl_buf[s], 16, "%llu", v);
        xl[s] = xl_buf[s];
        for (size_t p = 0; p < NPP; p++) {
            size_t i = repro_at(R, S_SLICE, p, s, 0), i0 = repro_at(R, S_PAIRS, p, P_PMT, 0);
            const v10_run_result *r = &R->res[i], *r0 = &R->res[i0];
            v10_tab_row(t);
            v10_tab_int(t, (int64_t)(512ull << s));
            v10_tab_str(t, pnames[p]);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, repro_ratio(r->stp, r0->stp));
            v10_tab_real(t, r->util_overall);
            v10_tab_real(t, r->overlap);
            v10_tab_real(t, repro_lat_speedup(&R->res[i0], &R->res[i], 0));
            v10_tab_real(t, repro_lat_speedup(&R->res[i0], &R->res[i], 1));
            v10_tab_real(t, repro_switch_frac(r));
            v10_tab_int(t, (int64_t)r->preemptions);
            m_stp[s] += repro_ratio(r->stp, r0->stp) / NPP;
            m_util[s] += repro_ratio(r->util_overall, r0->util_overall) / NPP;
            repro_mean_add(&ml[s], repro_lat_speedup(&R->res[i0], &R->res[i], 0));
            repro_mean_add(&mp[s], repro_lat_speedup(&R->res[i0], &R->res[i], 1));
            m_sw[s] += repro_switch_frac(r) / NPP;
        }
    }
    for (int s = 0; s < NSLICE; s++) {
        m_lat[s] = repro_mean_get(&ml[s]);
        m_p95[s] = repro_mean_get(&mp[s]);
    }
    if (repro_add_tab(out, "slice.csv", t, err))
        return -1;
    v10_svg_series ss[5] = {{"STP / PMT", m_stp},
                            {"utilization / PMT", m_util},
                            {"avg latency: PMT / V10-Full", m_lat},
                            {"p95 latency: PMT / V10-Full", m_p95},
                            {"context-switch time fraction", m_sw}};
    v10_svg_chart c = {.kind = V10_SVG_LINES, .title = "V10-Full: preemption time slice",
                       .xlabel = "time slice (cycles)", .ylabel = "mean over the 11 pairs",
                       .n_x = NSLICE, .x = xs, .log2_x = 1, .x_labels = xl, .series = ss,
                       .n_series = 5, .ref_y = 1};
    if (repro_add_chart(out, cs, "slice.svg", &c,
                  "Sensitivity to V10's preemption time slice (512 to 1M cycles), mean over "
                  "the paper's pairs; the default is 32K cycles.",
                  err))
        return -1;
    return 0;
}

/* priority.csv and priority.svg: progress shares under priority splits. */
int repro_render_prio(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    const char *pnames[NPP];
    pair_names(R, pnames);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec prio_cols[] = {
        {"split", V10_COL_STR, 0}, {"pair", V10_COL_STR, 0}, {"policy", V10_COL_STR, 0},
        {"priority_1", V10_COL_REAL, 0}, {"priority_2", V10_COL_REAL, 0},
        {"np_1", V10_COL_REAL, 4}, {"np_2", V10_COL_REAL, 4}, {"share_1", V10_COL_REAL, 4},
        {"target_share_1", V10_COL_REAL, 2}, {"stp", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, prio_cols, sizeof prio_cols / sizeof prio_cols[0]);
    double xsp[NSPLIT], tgt[NSPLIT], sh[2][NSPLIT] = {{0}}, st[2][NSPLIT] = {{0}};
    char spl_buf[NSPLIT][16];
    const char *spl[NSPLIT];
    for (int s = 0; s < NSPLIT; s++) {
        xsp[s] = 50 + 10 * s;
        tgt[s] = xsp[s] / 100;
        snprintf(spl_buf[s], 16, "%d-%d", 50 + 10 * s, 50 - 10 * s);
        spl[s] = spl_buf[s];
        for (size_t p = 0; p < NPP; p++)
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = repro_res(R, S_PRIO, p, s, k);
                double n1 = r->tenants[0].np, n2 = r->tenants[1].np;
                double share = n1 + n2 > 0 ? n1 / (n1 + n2) : NAN;
                v10_tab_row(t);
                v10_tab_str(t, spl[s]);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, 50 + 10 * s); /* the split's (the 50-50 runs' are 1 and 1) */
                v10_tab_real(t, 50 - 10 * s);
                v10_tab_real(t, n1);
                v10_tab_real(t, n2);
                v10_tab_real(t, share);
                v10_tab_real(t, tgt[s]);
                v10_tab_real(t, r->stp);
                sh[k][s] += share / NPP;
                st[k][s] += r->stp / NPP;
            }
    }
    if (repro_add_tab(out, "priority.csv", t, err))
        return -1;
    v10_svg_series sp[5] = {{"target share", tgt},   {"PMT: share of tenant 1", sh[0]},
                            {"V10-Full: share of tenant 1", sh[1]}, {"PMT: STP", st[0]},
                            {"V10-Full: STP", st[1]}};
    v10_svg_chart cp = {.kind = V10_SVG_LINES, .title = "Priority splits",
                        .xlabel = "priority split (tenant 1 - tenant 2)",
                        .ylabel = "mean over the 11 pairs", .n_x = NSPLIT, .x = xsp,
                        .x_labels = spl, .series = sp, .n_series = 5, .ref_y = NAN};
    return repro_add_chart(out, cs, "priority.svg", &cp,
                  "Share of normalized progress won by the higher-priority tenant, NP1 / (NP1 + "
                  "NP2), against its priority share, and STP.",
                  err);
}

/* vmem.csv and vmem.svg: throughput as the vector memory shrinks. */
int repro_render_vmem(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    const char *pnames[NPP];
    pair_names(R, pnames);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec vmem_cols[] = {
        {"vmem_mib", V10_COL_REAL, 1}, {"pair", V10_COL_STR, 0}, {"policy", V10_COL_STR, 0},
        {"stp", V10_COL_REAL, 4}, {"overall", V10_COL_REAL, 4}, {"hbm", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, vmem_cols, sizeof vmem_cols / sizeof vmem_cols[0]);
    double xv[NVMEM], vs[3][NVMEM] = {{0}};
    for (int v = 0; v < NVMEM; v++) {
        xv[v] = (double)repro_vmem_bytes((size_t)v) / (1024.0 * 1024.0);
        for (size_t p = 0; p < NPP; p++) {
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = repro_res(R, S_VMEM, p, v, k);
                v10_tab_row(t);
                v10_tab_real(t, xv[v]);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->stp);
                v10_tab_real(t, r->util_overall);
                v10_tab_real(t, r->util_hbm);
                vs[k][v] += r->stp / NPP;
            }
            vs[2][v] += repro_ratio(repro_res(R, S_VMEM, p, v, 1)->stp,
                              repro_res(R, S_VMEM, p, v, 0)->stp) / NPP;
        }
    }
    if (repro_add_tab(out, "vmem.csv", t, err))
        return -1;
    v10_svg_series sv[3] = {{"PMT: STP", vs[0]}, {"V10-Full: STP", vs[1]},
                            {"V10-Full / PMT", vs[2]}};
    v10_svg_chart cv = {.kind = V10_SVG_LINES, .title = "Vector-memory size",
                        .xlabel = "vector memory (MiB), split evenly among tenants",
                        .ylabel = "mean over the 11 pairs", .n_x = NVMEM, .x = xv,
                        .log2_x = 1, .series = sv, .n_series = 3, .ref_y = 1};
    return repro_add_chart(out, cs, "vmem.svg", &cv,
                  "Sensitivity to the vector-memory size (0.5 to 32 MiB, the core's own): "
                  "below a few MiB per tenant, GEMMs re-stream their operands, turn "
                  "memory-bound and throughput falls; from 8 MiB up the operators that spill "
                  "are compute-bound and the lines are flat.",
                  err);
}

/* scalability.csv and two plots: V10-Full with 2 to 16 workloads on 1 to 8
 * SAs and VUs (PMT on the paper's core beside it); the metric is the
 * paper's, throughput over each workload running alone (STP = sum of NP). */
int repro_render_scale(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec scale_cols[] = {
        {"npu", V10_COL_STR, 0}, {"sas", V10_COL_INT, 0}, {"tenants", V10_COL_INT, 0},
        {"policy", V10_COL_STR, 0}, {"mix", V10_COL_STR, 0},
    };
    v10_tab_cols(t, scale_cols, sizeof scale_cols / sizeof scale_cols[0]);
    const char *scc[] = {"stp", "overall", "sa", "vu", "hbm", "overlap"};
    for (size_t i = 0; i < 6; i++)
        v10_tab_col(t, scc[i], V10_COL_REAL, 4);
    double xt[NTEN], gsc[NSCALE + 1][NTEN], usc[NSCALE][NTEN];
    char snm[NSCALE + 1][40];
    for (int s = 0; s <= NSCALE; s++) {
        int k = s < NSCALE ? 1 << s : 1;
        snprintf(snm[s], sizeof snm[s], "%s: %d SA + %d VU", s < NSCALE ? "V10-Full" : "PMT", k,
                 k);
        for (int n = 0; n < NTEN; n++) {
            xt[n] = repro_scale_tenants[n];
            const v10_run_result *r = repro_res(R, S_SCALE, (size_t)s, (size_t)n, 0);
            int ms[MAXT];
            char mix[MAXT * 16] = "";
            repro_scale_mix((size_t)n, ms);
            for (unsigned i = 0; i < repro_scale_tenants[n]; i++)
                snprintf(mix + strlen(mix), sizeof mix - strlen(mix), "%s%s", i ? "+" : "",
                         repro_models[ms[i]]);
            v10_tab_row(t);
            v10_tab_str(t, repro_scale_npus[s < NSCALE ? s : 0]);
            v10_tab_int(t, k);
            v10_tab_int(t, repro_scale_tenants[n]);
            v10_tab_str(t, s < NSCALE ? "v10-full" : "pmt");
            v10_tab_str(t, mix);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, r->util_overall);
            v10_tab_real(t, r->util_sa);
            v10_tab_real(t, r->util_vu);
            v10_tab_real(t, r->util_hbm);
            v10_tab_real(t, r->overlap);
            gsc[s][n] = r->stp;
            if (s < NSCALE)
                usc[s][n] = r->util_overall;
        }
    }
    if (repro_add_tab(out, "scalability.csv", t, err))
        return -1;
    v10_svg_series sg[NSCALE + 1], su[NSCALE];
    for (int s = 0; s <= NSCALE; s++) {
        sg[s] = (v10_svg_series){snm[s], gsc[s]};
        if (s < NSCALE)
            su[s] = (v10_svg_series){snm[s], usc[s]};
    }
    v10_svg_chart cg = {.kind = V10_SVG_LINES,
                        .title = "Scalability: throughput over each workload running alone",
                        .xlabel = "collocated workloads",
                        .ylabel = "sum of throughput / throughput alone (STP)", .n_x = NTEN,
                        .x = xt, .series = sg, .n_series = NSCALE + 1, .ref_y = 1};
    if (repro_add_chart(out, cs, "scalability.svg", &cg,
                  "V10-Full's throughput summed over the collocated workloads, each over its "
                  "throughput running alone (the paper's metric), on cores with 1, 2, 4 and 8 "
                  "SAs and VUs (HBM scaled with them), 2 to 16 workloads in mixes where every "
                  "workload appears equally often; PMT on the paper's core for reference.",
                  err))
        return -1;
    v10_svg_chart cu = cg;
    cu.title = "Scalability: V10-Full utilization";
    cu.ylabel = "utilization (mean of SA and VU)";
    cu.series = su;
    cu.n_series = NSCALE;
    cu.ref_y = NAN;
    return repro_add_chart(out, cs, "scalability_util.svg", &cu,
                  "V10-Full's overall utilization as workloads and FUs grow.", err);
}

/* contention.csv and contention.svg: HBM shared vs ideal. */
int repro_render_cont(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    const char *pnames[NPP];
    pair_names(R, pnames);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cont_cols[] = {
        {"pair", V10_COL_STR, 0}, {"contention", V10_COL_STR, 0}, {"policy", V10_COL_STR, 0},
        {"stp", V10_COL_REAL, 4}, {"overall", V10_COL_REAL, 4}, {"hbm", V10_COL_REAL, 4},
        {"stp_vs_pmt", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, cont_cols, sizeof cont_cols / sizeof cont_cols[0]);
    double con[2][NPP];
    for (size_t p = 0; p < NPP; p++)
        for (int on = 1; on >= 0; on--) {
            size_t ip = on ? repro_at(R, S_PAIRS, p, P_PMT, 0) : repro_at(R, S_CONT, p, 0, 0);
            size_t iv = on ? repro_at(R, S_PAIRS, p, P_FULL, 0) : repro_at(R, S_CONT, p, 1, 0);
            for (int k = 0; k < 2; k++) {
                const v10_run_result *r = &R->res[k ? iv : ip];
                v10_tab_row(t);
                v10_tab_str(t, pnames[p]);
                v10_tab_str(t, on ? "on" : "off");
                v10_tab_str(t, k ? "v10-full" : "pmt");
                v10_tab_real(t, r->stp);
                v10_tab_real(t, r->util_overall);
                v10_tab_real(t, r->util_hbm);
                v10_tab_real(t, repro_ratio(r->stp, R->res[ip].stp));
            }
            con[on][p] = repro_ratio(R->res[iv].stp, R->res[ip].stp);
        }
    if (repro_add_tab(out, "contention.csv", t, err))
        return -1;
    v10_svg_series scn[2] = {{"contention on", con[1]}, {"contention off", con[0]}};
    v10_svg_chart ccn = {.kind = V10_SVG_BARS, .title = "HBM contention on vs off",
                         .ylabel = "STP(V10-Full) / STP(PMT)", .n_x = NPP, .cats = pnames,
                         .series = scn, .n_series = 2, .ref_y = 1, .width = 900, .height = 420};
    return repro_add_chart(out, cs, "contention.svg", &ccn,
                     "V10-Full's STP gain over PMT with operators sharing HBM bandwidth (on) "
                     "and with ideal, unshared bandwidth (off).",
                     err);
}

int repro_render_colloc(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "model", V10_COL_STR, 0);
    for (int f = 0; f < V10_PROFILE_FEATS; f++)
        v10_tab_col(t, v10_profile_feature_names[f], V10_COL_REAL, 4);
    static const v10_col_spec profile_cols[] = {
        {"alone_us", V10_COL_REAL, 2}, {"ops", V10_COL_INT, 0}, {"cluster", V10_COL_INT, 0},
        {"pc1", V10_COL_REAL, 3}, {"pc2", V10_COL_REAL, 3},
    };
    v10_tab_cols(t, profile_cols, sizeof profile_cols / sizeof profile_cols[0]);
    for (int m = 0; m < NM; m++) {
        double f[V10_PROFILE_FEATS];
        v10_profile_features(&R->prof[m], f);
        v10_tab_row(t);
        v10_tab_str(t, repro_models[m]);
        for (int j = 0; j < V10_PROFILE_FEATS; j++)
            v10_tab_real(t, f[j]);
        v10_tab_real(t, v10_npu_cycles_to_us(&R->npu, (double)R->prof[m].alone_cycles));
        v10_tab_int(t, (int64_t)R->prof[m].n_ops);
        v10_tab_int(t, R->col.cluster[m]);
        v10_tab_real(t, R->col.coord[m][0]);
        v10_tab_real(t, R->col.coord[m][1]);
    }
    if (repro_add_tab(out, "profiles.csv", t, err))
        return -1;
    t = v10_tab_create();
    static const v10_col_spec pair_cols[] = {
        {"pair", V10_COL_STR, 0}, {"gain", V10_COL_REAL, 4}, {"beneficial", V10_COL_INT, 0},
        {"cluster_score", V10_COL_REAL, 4}, {"pred_cluster", V10_COL_INT, 0},
        {"pred_heuristic", V10_COL_INT, 0}, {"pred_random", V10_COL_INT, 0},
    };
    v10_tab_cols(t, pair_cols, sizeof pair_cols / sizeof pair_cols[0]);
    for (size_t i = 0; i < R->col.n_pairs; i++) {
        const v10_colloc_pair *q = &R->col.pairs[i];
        char nm[64];
        snprintf(nm, sizeof nm, "%s+%s", repro_models[q->a], repro_models[q->b]);
        v10_tab_row(t);
        v10_tab_str(t, nm);
        v10_tab_real(t, q->gain);
        v10_tab_int(t, q->truth);
        v10_tab_real(t, q->score);
        v10_tab_int(t, q->pred_cluster);
        v10_tab_int(t, q->pred_heuristic);
        v10_tab_int(t, q->pred_random);
    }
    if (repro_add_tab(out, "collocation.csv", t, err))
        return -1;
    static const char *cats[3] = {"clustering", "utilization heuristic", "random"};
    double ours[3] = {R->col.acc_cluster, R->col.acc_heuristic, R->col.acc_random};
    double med[3] = {R->col_med.acc_cluster, R->col_med.acc_heuristic, R->col_med.acc_random};
    double paper[3] = {PAPER_ACC_CLUSTER, PAPER_ACC_HEUR, PAPER_ACC_RANDOM};
    char medname[64];
    snprintf(medname, sizeof medname, "ours, threshold = median gain %.3f", R->col.gain_median);
    v10_svg_series s[3] = {{"ours, threshold 1.3", ours}, {medname, med}, {"paper", paper}};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = "Collocation: leave-two-workloads-out accuracy",
                       .ylabel = "accuracy", .n_x = 3, .cats = cats, .series = s, .n_series = 3,
                       .ref_y = NAN, .width = 800, .height = 380};
    return repro_add_chart(out, cs, "collocation.svg", &c,
                     "Accuracy of predicting beneficial pairs: clustering vs the SA-heavy/VU-heavy "
                     "heuristic vs a seeded coin, beside the paper's figures.",
                     err);
}

/* ---- all the files ---------------------------------------------------------------------- */

void v10_repro_out_fini(v10_repro_out *out)
{
    for (size_t i = 0; i < out->n_files; i++)
        free(out->files[i].data);
    free(out->files);
    memset(out, 0, sizeof *out);
}

/* Both sets' headline ratios beside the paper's, as a few lines of text. */
static int write_headlines(const void *ctx, FILE *f)
{
    const v10_repro_out *out = ctx;
    fprintf(f, "V10-Full over PMT, mean of the paper's 11 pairs (paper: STP x%.2f, "
               "utilization x%.2f, latency /%.2f, p95 /%.2f, overlap %.0f%%):\n",
            PAPER_STP, PAPER_UTIL, PAPER_LAT, PAPER_P95, 100 * PAPER_OVERLAP);
    for (int k = 0; k < 2; k++)
        fprintf(f, "  %-7s STP x%.3f  utilization x%.3f  latency /%.3f  p95 /%.3f  "
                   "overlap %.1f%%\n", out->head[k].set, out->head[k].stp, out->head[k].util,
                out->head[k].lat, out->head[k].p95, 100 * out->head[k].overlap);
    return 0;
}

int v10_repro_headlines_write(const v10_repro_out *out, FILE *f)
{
    return v10_doc_emit(write_headlines, out, f);
}
