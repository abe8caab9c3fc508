/*
 * sensitivity.c — the render hooks of `v10sim repro`'s sensitivity
 * studies of what the paper leaves open: the reading of its 384-cycle SA
 * switch (slice_reading.csv/.svg) and PMT's time slice (pmt_slice.csv/.svg).
 * src/repro/registry.c runs them in table order with the other studies'.
 */
#include <math.h>
#include <string.h>

#include "repro/study.h"

/* pmt_slice.csv and pmt_slice.svg: the headline (V10-Full over PMT) with
 * PMT slices of 1, 2 and 4 ms, a sensitivity row: the paper does not state
 * its PMT slice. */
int repro_render_pmts(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cols[] = {
        {"pmt_slice_us", V10_COL_INT, 0}, {"pair", V10_COL_STR, 0},
        {"pmt_stp", V10_COL_REAL, 4}, {"pmt_switch_frac", V10_COL_REAL, 4},
        {"stp_ratio", V10_COL_REAL, 4}, {"util_ratio", V10_COL_REAL, 4},
        {"lat_avg_speedup", V10_COL_REAL, 4}, {"lat_p95_speedup", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    double xs[NPMTS], m[4][NPMTS];
    for (size_t j = 0; j < NPMTS; j++) {
        size_t pmt[NPP];
        for (size_t p = 0; p < NPP; p++)
            pmt[p] = repro_at(R, S_PMTS, p, j, 0);
        repro_ratios q;
        repro_mean_ratios_vs(R, pmt, &q);
        xs[j] = (double)(1u << j);
        m[0][j] = q.stp;
        m[1][j] = q.util;
        m[2][j] = q.lat;
        m[3][j] = q.p95;
        for (size_t p = 0; p < NPP; p++) {
            const v10_run_result *r = &R->res[pmt[p]];
            v10_tab_row(t);
            v10_tab_int(t, (int64_t)(1000u << j));
            v10_tab_str(t, R->pairs[p].name);
            v10_tab_real(t, r->stp);
            v10_tab_real(t, repro_switch_frac(r));
            v10_tab_real(t, q.stp_pair[p]);
            v10_tab_real(t, q.util_pair[p]);
            v10_tab_real(t, q.lat_pair[p]);
            v10_tab_real(t, q.p95_pair[p]);
        }
    }
    if (repro_add_tab(out, "pmt_slice.csv", t, err))
        return -1;
    static const char *xl[NPMTS] = {"1 ms", "2 ms", "4 ms"};
    v10_svg_series ss[4] = {{"STP ratio", m[0]},
                            {"utilization ratio", m[1]},
                            {"avg latency: PMT / V10-Full", m[2]},
                            {"p95 latency: PMT / V10-Full", m[3]}};
    v10_svg_chart c = {.kind = V10_SVG_LINES, .title = "The headline under PMT slices of 1, 2, 4 ms",
                       .xlabel = "PMT time slice", .ylabel = "V10-Full over PMT, mean of 11 pairs",
                       .n_x = NPMTS, .x = xs, .log2_x = 1, .x_labels = xl, .series = ss,
                       .n_series = 4, .ref_y = 1};
    return repro_add_chart(out, cs, "pmt_slice.svg", &c,
                     "V10-Full over PMT with PMT time slices of 1 ms (the default), 2 ms and "
                     "4 ms: the paper does not state its slice, so this is a sensitivity row.",
                     err);
}

/* slice_reading.csv and slice_reading.svg: the slice study under both
 * readings of the SA switch, each against PMT on its own NPU. */
int repro_render_read(const repro *R, repro_charts *cs, v10_repro_out *out, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cols[] = {
        {"slice_cycles", V10_COL_INT, 0}, {"sa_switch_overlap_cycles", V10_COL_INT, 0},
        {"pair", V10_COL_STR, 0}, {"stp", V10_COL_REAL, 4}, {"stp_vs_pmt", V10_COL_REAL, 4},
        {"switch_frac", V10_COL_REAL, 4}, {"preemptions", V10_COL_INT, 0},
    };
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    double xs[NREADSL], m_stp[NREAD][NREADSL] = {{0}}, m_sw[NREAD][NREADSL] = {{0}};
    for (size_t k = 0; k < NREAD; k++) {
        v10_npu n;
        repro_reading_npu(R, k, &n);
        for (size_t j = 0; j < NREADSL; j++) {
            xs[j] = (double)repro_read_slice(j);
            for (size_t p = 0; p < NPP; p++) {
                const v10_run_result *r = repro_read_res(R, p, j, k),
                                     *r0 = repro_read_pmt(R, p, k);
                v10_tab_row(t);
                v10_tab_int(t, (int64_t)repro_read_slice(j));
                v10_tab_int(t, n.sa_switch_overlap_cycles);
                v10_tab_str(t, R->pairs[p].name);
                v10_tab_real(t, r->stp);
                v10_tab_real(t, repro_ratio(r->stp, r0->stp));
                v10_tab_real(t, repro_switch_frac(r));
                v10_tab_int(t, (int64_t)r->preemptions);
                m_stp[k][j] += repro_ratio(r->stp, r0->stp) / NPP;
                m_sw[k][j] += repro_switch_frac(r) / NPP;
            }
        }
    }
    if (repro_add_tab(out, "slice_reading.csv", t, err))
        return -1;
    v10_svg_series ss[4] = {{"STP / PMT, drain overlapping the switch (paper)", m_stp[0]},
                            {"STP / PMT, switch after the drain", m_stp[1]},
                            {"switching time, drain overlapping", m_sw[0]},
                            {"switching time, switch after the drain", m_sw[1]}};
    v10_svg_chart c = {.kind = V10_SVG_LINES,
                       .title = "Time slice under both readings of the SA switch",
                       .xlabel = "time slice (cycles)", .ylabel = "mean over the 11 pairs",
                       .n_x = NREADSL, .x = xs, .log2_x = 1, .series = ss, .n_series = 4,
                       .ref_y = 1};
    return repro_add_chart(out, cs, "slice_reading.svg", &c,
                     "V10-Full over PMT as the slice shrinks, with the 384-cycle SA switch read "
                     "as the paper does (the 128-cycle drain overlapping it: 256 cycles lost) "
                     "and as 384 cycles lost after the drain, each against PMT on its NPU.",
                     err);
}
