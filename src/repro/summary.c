/*
 * summary.c — `v10sim repro`'s summary.md (our ratios beside the
 * paper's, both workload sets, collocation, where and why we differ, the
 * sensitivity studies in numbers) and the self-contained report.html that
 * carries it with every plot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "repro/study.h"
#include "v10/svg.h"

static void md_row(FILE *f, const char *what, double ours, double paper, const char *unit)
{
    fprintf(f, "| %s | %s%.3f | %s%.2f | %+.0f%% |\n", what, unit, ours, unit, paper,
            100 * (ours / paper - 1));
}

/* Headline ratios and per-pair STP of both workload sets, side by side. */
static void md_sets(FILE *f, const repro *R, const repro_ratios *q)
{
    const repro *A = R->alt;
    repro_ratios qa;
    repro_mean_ratios(A, &qa);
    fprintf(f, "## Both workload sets\n\n"
               "`isca23`: the zoo's architectures calibrated to the paper's measured solo TPU "
               "profiles (SA/VU busy, HBM utilization, Table 1 operator lengths; "
               "docs/models.md).  `zoo`: the architectures as the cost model alone sees them.  "
               "This report's studies use `%s` (`repro --workloads`).\n\n"
               "| V10-Full over PMT, mean of the paper's 11 pairs | %s | %s | paper |\n"
               "|---|---|---|---|\n", R->set, R->set, A->set);
    fprintf(f, "| STP | ×%.3f | ×%.3f | ×%.2f |\n", q->stp, qa.stp, PAPER_STP);
    fprintf(f, "| utilization | ×%.3f | ×%.3f | ×%.2f |\n", q->util, qa.util, PAPER_UTIL);
    fprintf(f, "| average latency | ÷%.3f | ÷%.3f | ÷%.2f |\n", q->lat, qa.lat, PAPER_LAT);
    fprintf(f, "| p95 latency | ÷%.3f | ÷%.3f | ÷%.2f |\n", q->p95, qa.p95, PAPER_P95);
    fprintf(f, "| SA+VU overlap (V10-Full) | %.1f%% | %.1f%% | %.0f%% |\n\n", 100 * q->overlap,
            100 * qa.overlap, 100 * PAPER_OVERLAP);
    fprintf(f, "STP of each policy on the paper's pairs:\n\n"
               "| pair | set | PMT | V10-Base | V10-Fair | V10-Full | V10-Full / PMT |\n"
               "|---|---|---|---|---|---|---|\n");
    for (size_t p = 0; p < NPP; p++)
        for (int k = 0; k < 2; k++) {
            const repro *X = k ? A : R;
            fprintf(f, "| %s | %s |", X->pairs[p].name, X->set);
            for (int pol = 0; pol < NPOL; pol++)
                fprintf(f, " %.3f |", repro_res(X, S_PAIRS, p, pol, 0)->stp);
            fprintf(f, " ×%.3f |\n", repro_ratio(repro_res(X, S_PAIRS, p, P_FULL, 0)->stp,
                                           repro_res(X, S_PAIRS, p, P_PMT, 0)->stp));
        }
    fprintf(f, "\n");
}

/* Mean over the paper's pairs of STP(policy pol) / STP(PMT). */
static double mean_stp_ratio(const repro *R, int pol)
{
    double m = 0;
    for (size_t p = 0; p < NPP; p++)
        m += repro_ratio(repro_res(R, S_PAIRS, p, pol, 0)->stp,
                         repro_res(R, S_PAIRS, p, P_PMT, 0)->stp) / NPP;
    return m;
}

/* Mean over the paper's pairs of STP(V10-Full) / STP(PMT) at slice j of
 * S_READ under reading k, and the fraction of the time spent switching. */
static double mean_read_ratio(const repro *R, size_t j, size_t k)
{
    repro_mean m = {0};
    for (size_t p = 0; p < NPP; p++)
        repro_mean_add(&m, repro_ratio(repro_read_res(R, p, j, k)->stp,
                                       repro_read_pmt(R, p, k)->stp));
    return repro_mean_get(&m);
}

static double mean_read_switch(const repro *R, size_t j, size_t k)
{
    double m = 0;
    for (size_t p = 0; p < NPP; p++)
        m += repro_switch_frac(repro_read_res(R, p, j, k)) / NPP;
    return m;
}

/* "model (in pair a+b)" for the worst tenant w. */
static const char *worst_model(const repro *R, const repro_worst *w)
{
    return repro_models[w->tenant ? R->pairs[w->pair].b : R->pairs[w->pair].a];
}

/*
 * The paper's figures on what preemption is worth (V10-Base and V10-Fair,
 * Base's worst latency, the slice curve, collocation) beside ours, each gap
 * with the measured figure that explains it: how much of the workloads'
 * busy time is in operators longer than a time slice (the only waits
 * preemption can cut), the overlap Base reaches without it, the partner's
 * longest operator against the worst tenant's request, and the switching
 * time at short slices.  Every sentence is generated from the run.
 */
static void md_beside_paper(FILE *f, const repro *R)
{
    double base = mean_stp_ratio(R, P_BASE), fair = mean_stp_ratio(R, P_FAIR),
           full = mean_stp_ratio(R, P_FULL), paper_pre = PAPER_STP / PAPER_BASE_STP;
    double ov_base = 0, ov_base_max = 0, ov_full = 0, lf = 0, pre_best = 0;
    size_t pbest = 0;
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *b = repro_res(R, S_PAIRS, p, P_BASE, 0),
                             *x = repro_res(R, S_PAIRS, p, P_FULL, 0);
        ov_base += b->overlap / NPP;
        ov_base_max = fmax(ov_base_max, b->overlap);
        ov_full += x->overlap / NPP;
        lf += (R->long_frac[R->pairs[p].a] + R->long_frac[R->pairs[p].b]) / (2 * NPP);
        if (repro_ratio(x->stp, b->stp) > pre_best) {
            pre_best = repro_ratio(x->stp, b->stp);
            pbest = p;
        }
    }
    repro_worst wa, wp;
    repro_worst_lat(R, P_BASE, 0, &wa);
    repro_worst_lat(R, P_BASE, 1, &wp);
    size_t kd = NREADSL - 1; /* the largest slice of both readings */
    double s0[NREAD], sd[NREAD], sw[NREAD];
    for (size_t k = 0; k < NREAD; k++) {
        s0[k] = mean_read_ratio(R, 0, k);
        sd[k] = mean_read_ratio(R, kd, k);
        sw[k] = mean_read_switch(R, 0, k);
    }
    fprintf(f, "## Beside the paper's figures on preemption, latency and collocation\n\n"
               "Means over the paper's 11 pairs; the paper's figures as it states them "
               "(§6).\n\n| figure | ours | paper |\n|---|---|---|\n");
    fprintf(f, "| V10-Base STP over PMT | ×%.3f | ×%.2f |\n", base, PAPER_BASE_STP);
    fprintf(f, "| V10-Fair STP over PMT | ×%.3f | ×%.2f |\n", fair, PAPER_BASE_STP);
    fprintf(f, "| what preemption adds: STP of V10-Full / V10-Base | ×%.3f | ×%.2f (%.2f / "
               "%.2f) |\n", full / base, paper_pre, PAPER_STP, PAPER_BASE_STP);
    fprintf(f, "| V10-Base SA and VU busy together: mean / highest pair | %.1f%% / %.1f%% | "
               "up to %.0f%% |\n", 100 * ov_base, 100 * ov_base_max,
            100 * PAPER_BASE_OVERLAP_MAX);
    fprintf(f, "| V10-Base worst per-tenant average latency over PMT's | ×%.2f (%s in %s) | "
               "up to ×%.1f |\n", wa.ratio, worst_model(R, &wa), R->pairs[wa.pair].name,
            PAPER_BASE_WORST_LAT);
    fprintf(f, "| V10-Base worst per-tenant p95 latency over PMT's | ×%.2f (%s in %s) | |\n",
            wp.ratio, worst_model(R, &wp), R->pairs[wp.pair].name);
    for (size_t k = 0; k < NREAD; k++)
        fprintf(f, "| V10-Full STP over PMT at 512 / %llu cycles of slice, %s | ×%.3f / ×%.3f "
                   "| %s |\n", (unsigned long long)repro_read_slice(kd), repro_reading_names[k],
                s0[k], sd[k],
                k ? "" : "falls steeply as the slice nears the switch cost (Fig. 13's 384 "
                         "cycles)");
    fprintf(f, "| collocation accuracy (threshold 1.3): clustering / heuristic / random | "
               "%.1f%% / %.1f%% / %.1f%% | %.2f%% / %.2f%% / %.2f%% |\n\n",
            100 * R->col.acc_cluster, 100 * R->col.acc_heuristic, 100 * R->col.acc_random,
            100 * PAPER_ACC_CLUSTER, 100 * PAPER_ACC_HEUR, 100 * PAPER_ACC_RANDOM);

    const char *more = full / base < paper_pre / 1.05   ? "less than"
                       : full / base > paper_pre * 1.05 ? "more than"
                                                        : "about as much as";
    repro_ratios q;
    repro_mean_ratios(R, &q);
    fprintf(f, "* **What preemption is worth.**  Preemption adds ×%.3f, %s the paper's ×%.2f.  "
               "Perfect overlap of each pair's standalone profiles, with no interference, "
               "bounds STP over PMT at ×%.3f on average; V10-Base reaches ×%.3f without "
               "preemption (%.0f%% of that bound), keeping SA and VU busy together %.1f%% of "
               "the window (V10-Full: %.1f%%), so at most ×%.3f is left for preemption to "
               "add.  Preemption cuts the waits behind operators longer than the %llu-cycle "
               "slice; such operators hold %.1f%% of the paper's workloads' busy FU time "
               "alone (mean over the pairs' tenants), and where preemption adds most (%s, "
               "×%.3f) the two workloads spend %.1f%% and %.1f%% of their busy time in them.\n",
            full / base, more, paper_pre, q.bound, base, 100 * base / q.bound, 100 * ov_base,
            100 * ov_full, q.bound / base, (unsigned long long)R->npu.slice_cycles, 100 * lf,
            R->pairs[pbest].name, pre_best, 100 * R->long_frac[R->pairs[pbest].a],
            100 * R->long_frac[R->pairs[pbest].b]);
    {
        int me = wa.tenant ? R->pairs[wa.pair].b : R->pairs[wa.pair].a,
            other = wa.tenant ? R->pairs[wa.pair].a : R->pairs[wa.pair].b;
        fprintf(f, "* **V10-Base's worst latency** (×%.2f against the paper's up to ×%.1f) "
                   "is %s's beside %s: its request takes %.1f µs alone, and %s's longest "
                   "operator %.1f µs, which a request of %s waits out whole without "
                   "preemption; PMT bounds such a wait by its %.0f µs slice.\n",
                wa.ratio, PAPER_BASE_WORST_LAT, repro_models[me], repro_models[other],
                v10_npu_cycles_to_us(&R->npu, (double)R->prof[me].alone_cycles),
                repro_models[other], v10_npu_cycles_to_us(&R->npu, R->op_max_cycles[other]),
                repro_models[me], R->cfgs[repro_at(R, S_PAIRS, wa.pair, P_PMT, 0)].params.pmt_slice_us);
    }
    fprintf(f, "* **Short slices.**  At 512 cycles V10-Full spends %.1f%% of the time "
               "switching with the drain overlapping the 384-cycle switch (%u cycles lost a "
               "switch) and %.1f%% with the whole switch after the drain; STP over PMT falls "
               "from ×%.3f at %llu cycles to ×%.3f (%+.0f%%), and to ×%.3f (%+.0f%%) "
               "under the other reading.\n",
            100 * sw[0], R->npu.sa_switch_cycles - R->npu.sa_switch_overlap_cycles, 100 * sw[1],
            sd[0], (unsigned long long)repro_read_slice(kd), s0[0], 100 * (s0[0] / sd[0] - 1),
            s0[1], 100 * (s0[1] / sd[1] - 1));
    fprintf(f, "\n");
}

/* The headline with PMT slices of 1, 2 and 4 ms: a sensitivity row. */
static void md_pmt_slices(FILE *f, const repro *R)
{
    fprintf(f, "## The headline under PMT slices of 1, 2 and 4 ms\n\n"
               "The paper does not state PMT's time slice; we default to 1 ms.  V10-Full "
               "over PMT, mean of the 11 pairs:\n\n"
               "| PMT slice | STP | utilization | average latency | p95 latency | PMT switching |\n"
               "|---|---|---|---|---|---|\n");
    for (size_t j = 0; j < NPMTS; j++) {
        size_t pmt[NPP];
        double sw = 0;
        for (size_t p = 0; p < NPP; p++) {
            pmt[p] = repro_at(R, S_PMTS, p, j, 0);
            sw += repro_switch_frac(&R->res[pmt[p]]) / NPP;
        }
        repro_ratios q;
        repro_mean_ratios_vs(R, pmt, &q);
        fprintf(f, "| %u ms | ×%.3f | ×%.3f | ÷%.3f | ÷%.3f | %.1f%% |\n", 1u << j, q.stp,
                q.util, q.lat, q.p95, 100 * sw);
    }
    fprintf(f, "\n");
}

static int write_summary(const void *ctx, FILE *f)
{
    const repro *R = ctx;
    repro_ratios q0;
    repro_mean_ratios(R, &q0);
    const repro_ratios *q = &q0;
    const repro_length *lp = &R->len[S_PAIRS], *ls = &R->len[S_SLICE], *lc = &R->len[S_SCALE];
    fprintf(f, "# V10 reproduction: summary\n\n"
               "v10sim %s, NPU `%s` (1 SA 128x128, 1 VU, %.0f GB/s HBM, %.0f MHz), seed %llu, "
               "%u requests per tenant (warm-up %u) in the pairs' and PMT slices' runs, %u (%u) "
               "in the other sensitivity studies' and %u (%u) in the scalability study's%s.  %zu "
               "simulations: this set's studies, the other set's %d paper pairs and both sets' "
               "%d standalone profiles (a run whose result another's stands for is counted "
               "once).\n\n",
            V10_VERSION, R->npu.name, R->npu.hbm_gbps, R->npu.clock_mhz,
            (unsigned long long)R->o->seed, lp->requests, lp->warmup, ls->requests, ls->warmup,
            lc->requests, lc->warmup, R->o->quick ? ", **--quick** (noisier)" : "", R->runs,
            NPP, 2 * NM);
    fprintf(f, "## V10-Full over PMT, mean over the paper's 11 pairs\n\n"
               "Per pair: utilization and STP ratios V10-Full / PMT; latency ratios PMT / "
               "V10-Full (mean of the two tenants); then the mean over the pairs.\n\n"
               "| metric | ours | paper | ours vs paper |\n|---|---|---|---|\n");
    md_row(f, "utilization (mean of SA and VU)", q->util, PAPER_UTIL, "×");
    md_row(f, "SA utilization", q->sa, PAPER_SA, "×");
    md_row(f, "VU utilization", q->vu, PAPER_VU, "×");
    md_row(f, "HBM bandwidth utilization", q->hbm, PAPER_HBM, "×");
    md_row(f, "aggregated throughput (STP)", q->stp, PAPER_STP, "×");
    md_row(f, "average latency", q->lat, PAPER_LAT, "÷");
    md_row(f, "95th-percentile latency", q->p95, PAPER_P95, "÷");
    fprintf(f, "| SA and VU busy together (V10-Full) | %.1f%% | %.0f%% | %+.0f%% |\n",
            100 * q->overlap, 100 * PAPER_OVERLAP, 100 * (q->overlap / PAPER_OVERLAP - 1));
    fprintf(f, "| context-switch time (V10-Full) | %.2f%% | < 2%% | |\n", 100 * q->switch_frac);
    fprintf(f, "| bound on the STP ratio from standalone profiles | ×%.3f | | |\n\n", q->bound);
    if (q->lat_skipped)
        fprintf(f, "%u pair(s) had a tenant without a measured request under one policy; the "
                   "latency means leave them out.\n\n", q->lat_skipped);

    md_sets(f, R, q);
    fprintf(f, "Per pair, workload set `%s` (V10-Full over PMT; bound = 2 / max(1, SA₁+SA₂, VU₁+VU₂, HBM₁+HBM₂) "
               "/ STP(PMT), the most perfect overlap could give):\n\n"
               "| pair | SA / VU alone (1) | SA / VU alone (2) | STP PMT | STP V10-Full "
               "| STP ratio | bound | utilization | avg latency ÷ | p95 latency ÷ | overlap |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n", R->set);
    for (size_t p = 0; p < NPP; p++) {
        const v10_profile *a = &R->prof[R->pairs[p].a], *b = &R->prof[R->pairs[p].b];
        fprintf(f, "| %s | %.2f / %.2f | %.2f / %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f "
                   "| %.3f | %.1f%% |\n",
                R->pairs[p].name, a->util_sa, a->util_vu, b->util_sa, b->util_vu,
                repro_res(R, S_PAIRS, p, P_PMT, 0)->stp, repro_res(R, S_PAIRS, p, P_FULL, 0)->stp,
                q->stp_pair[p], repro_bound_ratio(R, p), q->util_pair[p], q->lat_pair[p],
                q->p95_pair[p], 100 * repro_res(R, S_PAIRS, p, P_FULL, 0)->overlap);
    }
    double gmean = 0;
    for (size_t p = 0; p < NPAIR; p++)
        gmean += repro_pair_gain(R, p) / NPAIR;
    fprintf(f, "\nAll 55 pairs: STP gain %.3f to %.3f (mean %.3f); %u of 55 reach the paper's "
               "1.3× 'beneficial' threshold.\n\n",
            R->col.gain_min, R->col.gain_max, gmean, R->col.n_beneficial);
    repro_attrib_md(f, R);
    repro_energy_md(f, R);
    repro_fair_md(f, R);

    fprintf(f, "## Collocation (leave two workloads out, %zu pairs)\n\n"
               "| predictor | accuracy (threshold 1.3) | accuracy (threshold = median gain "
               "%.3f) | paper |\n|---|---|---|---|\n",
            R->col.n_pairs, R->col.gain_median);
    fprintf(f, "| clustering (k = 5, PCA, k-means) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_cluster, 100 * R->col_med.acc_cluster, 100 * PAPER_ACC_CLUSTER);
    fprintf(f, "| utilization heuristic (SA-heavy + VU-heavy) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_heuristic, 100 * R->col_med.acc_heuristic, 100 * PAPER_ACC_HEUR);
    fprintf(f, "| random (one seeded coin per pair) | %.1f%% | %.1f%% | %.2f%% |\n",
            100 * R->col.acc_random, 100 * R->col_med.acc_random, 100 * PAPER_ACC_RANDOM);
    fprintf(f, "| random, mean of 1000 seeded draws | %.1f%% | %.1f%% | |\n\n",
            100 * R->col.acc_random_mean, 100 * R->col_med.acc_random_mean);
    fprintf(f, "Ground truth at 1.3: %u beneficial of %zu; at the median: %u.  Confusion "
               "(tp/fp/tn/fn) at 1.3: clustering %u/%u/%u/%u, heuristic %u/%u/%u/%u, random "
               "%u/%u/%u/%u.\n\n",
            R->col.n_beneficial, R->col.n_pairs, R->col_med.n_beneficial, R->col.cm_cluster.tp,
            R->col.cm_cluster.fp, R->col.cm_cluster.tn, R->col.cm_cluster.fn,
            R->col.cm_heuristic.tp, R->col.cm_heuristic.fp, R->col.cm_heuristic.tn,
            R->col.cm_heuristic.fn, R->col.cm_random.tp, R->col.cm_random.fp,
            R->col.cm_random.tn, R->col.cm_random.fn);
    /* Collocation: the paper's three figures per method (src/report/collocate_report.c). */
    v10_colloc_figures_md(&R->col, repro_models, f);

    /* Why the numbers differ. */
    double sa_mean = 0, vu_mean = 0;
    for (int m = 0; m < NM; m++) {
        sa_mean += R->prof[m].util_sa / NM;
        vu_mean += R->prof[m].util_vu / NM;
    }
    unsigned sa_heavy = 0;
    for (int m = 0; m < NM; m++)
        sa_heavy += R->prof[m].util_sa >= R->prof[m].util_vu;
    md_beside_paper(f, R);
    md_pmt_slices(f, R);
    fprintf(f, "## Where and why we differ from the paper\n\n");
    if (strcmp(R->set, "zoo"))
        fprintf(f, "* **Workloads.**  The isca23 models take from the paper only what it "
                   "measured for each workload *alone* (SA and VU busy, HBM utilization, mean "
                   "operator lengths); the rest — operator counts, order, the places of added "
                   "vector work, HBM per operator — comes from the architectures "
                   "(docs/models.md).  Nothing is fitted to a multi-tenant result.\n");
    else
    fprintf(f, "* **Throughput gain ×%.2f vs ×%.2f (%+.0f%%).**  V10 gains by running one "
               "tenant's VU operators under another's SA operators, so a pair can gain at most "
               "what its standalone profiles leave idle: with perfect overlap and no "
               "interference, STP ≤ 2 / max(1, SA₁+SA₂, VU₁+VU₂, HBM₁+HBM₂).  Our eleven models, "
               "whose operator costs are *synthesized* from their published architectures "
               "(GEMMs on a 128×128 weight-stationary array, fused element-wise work on a "
               "1024-lane VU), keep the SA busy %.0f%% of the time on average and the VU only "
               "%.0f%% (%u of 11 are SA-heavy), so even perfect overlap could raise STP over PMT by "
               "×%.2f on average over the paper's pairs; V10-Full reaches ×%.2f.  The paper profiles real TPU executions, in which "
               "vector work (layout changes, normalization, embedding and data formatting "
               "inside XLA fusions) takes a much larger share, leaving far more room to "
               "overlap.  We did not tune any cost constant toward the paper's figure.\n",
            q->stp, PAPER_STP, 100 * (q->stp / PAPER_STP - 1), 100 * sa_mean, 100 * vu_mean,
            sa_heavy, q->bound, q->stp);
    int zoo = !strcmp(R->set, "zoo");
    if (!zoo)
        fprintf(f, "* **Throughput gain ×%.2f vs ×%.2f (%+.0f%%).**  Perfect overlap of the "
                   "standalone profiles, with no interference, would give ×%.2f over PMT on "
                   "average over the paper's pairs (STP ≤ 2 / max(1, SA₁+SA₂, VU₁+VU₂, "
                   "HBM₁+HBM₂)); V10-Full reaches %.0f%% of that.  What remains different "
                   "from the paper comes from choices the data leave open: where the added "
                   "vector work sits in each program (docs/models.md), our PMT (whole-core "
                   "switch of 30 µs every 1 ms) and HBM contention by max-min sharing.\n",
                q->stp, PAPER_STP, 100 * (q->stp / PAPER_STP - 1), q->bound,
                100 * q->stp / q->bound);
    fprintf(f, "* **Utilization ×%.2f vs ×%.2f (SA ×%.2f, VU ×%.2f) and overlap %.0f%% vs "
               "63%%.**  %s\n",
            q->util, PAPER_UTIL, q->sa, q->vu, 100 * q->overlap,
            zoo ? "These follow from the same cause: SA utilization under PMT is already "
                  "high, so V10 can raise it little, and the VU, which V10 fills best, "
                  "carries little work."
                : "Most of the paper's pairs join an SA-heavy with a VU-heavy workload, "
                  "so V10 raises both units' utilization alike.");
    fprintf(f, "* **Latency ÷%.2f / ÷%.2f vs ÷%.2f / ÷%.2f.**  Latency gains come from the same "
               "overlap plus V10's finer interleaving: under PMT (1 ms slices, 30 µs task "
               "switch) a short request that misses its tenant's slice waits a whole slice.\n",
            q->lat, q->p95, PAPER_LAT, PAPER_P95);
    fprintf(f, "* **Collocation.**  %u of %zu pairs pass 1.3×; clustering predicts %.1f%% "
               "of them right and the utilization heuristic %.1f%% (paper: 84.73%% and "
               "64.91%%).  %s\n",
            R->col.n_beneficial, R->col.n_pairs, 100 * R->col.acc_cluster,
            100 * R->col.acc_heuristic,
            zoo ? "With gains this small, accuracy at 1.3× mostly measures the base rate; "
                  "the median-gain threshold gives a balanced problem on which the three "
                  "predictors can be compared."
            : R->col.acc_heuristic > R->col.acc_cluster
                ? "On the calibrated profiles a pair's gain is decided almost entirely by "
                  "whether one workload is SA-heavy and the other VU-heavy — exactly the "
                  "heuristic's rule — so it beats k-means over PCA features (five clusters "
                  "of eleven workloads, leave-two-out); we report it as measured."
                : "");
    fprintf(f, "* **Windows.**  Each run lasts until every tenant has completed its "
               "requests (%u in the pairs' and PMT slices' runs, %u in the other sensitivity "
               "studies', %u in the scalability study's; more for short pairs, so that a run spans four PMT "
               "slices; column `requests` of pairs.csv), tenants that finish first keep "
               "loading the NPU, and metrics cover the time after every tenant's warm-up%s%s.  "
               "A study's point at the core's own parameters is the pairs' run "
               "(docs/repro.md, \"Run lengths\").\n\n",
            R->len[S_PAIRS].requests, R->len[S_SLICE].requests, R->len[S_SCALE].requests,
            R->len[S_SCALE].warmup ? ""
                                   : " (the scalability study's runs have none: from the start)",
            R->o->quick ? " in --quick mode, so figures are noisier than the full run's" : "");
    /* Sensitivity studies, in numbers. */
    fprintf(f, "## Sensitivity studies (means over the 11 paper pairs)\n\n");
    {
        double best = 0, bslice = 0, st[NSLICE], sw0 = 0;
        for (int k = 0; k < NSLICE; k++) {
            repro_mean m = {0};
            for (size_t p = 0; p < NPP; p++)
                repro_mean_add(&m, repro_ratio(repro_res(R, S_SLICE, p, k, 0)->stp,
                                   repro_res(R, S_PAIRS, p, P_PMT, 0)->stp));
            st[k] = repro_mean_get(&m);
            if (st[k] > best) {
                best = st[k];
                bslice = (double)(512ull << k);
            }
        }
        for (size_t p = 0; p < NPP; p++)
            sw0 += repro_switch_frac(repro_res(R, S_SLICE, p, 0, 0)) / NPP;
        fprintf(f, "* **Time slice**: STP over PMT ×%.3f at 512 cycles (context switching "
                   "%.1f%% of the time), best ×%.3f at %.0f cycles, ×%.3f at 1M cycles "
                   "(coarse slices let long operators hold an FU).  With the SA switch's 384 "
                   "cycles all lost after the drain instead of overlapping it: ×%.3f at 512 "
                   "cycles (switching %.1f%%), ×%.3f at %llu (slice_reading.csv).\n",
                st[0], 100 * sw0, best, bslice, st[NSLICE - 1], mean_read_ratio(R, 0, 1),
                100 * mean_read_switch(R, 0, 1), mean_read_ratio(R, NREADSL - 1, 1),
                (unsigned long long)repro_read_slice(NREADSL - 1));
        double sh[2][NSPLIT] = {{0}};
        for (int k = 0; k < NSPLIT; k++)
            for (size_t p = 0; p < NPP; p++)
                for (int pol = 0; pol < 2; pol++) {
                    const v10_run_result *r = repro_res(R, S_PRIO, p, k, pol);
                    sh[pol][k] += r->tenants[0].np / (r->tenants[0].np + r->tenants[1].np) / NPP;
                }
        fprintf(f, "* **Priorities**: the high-priority tenant's share of normalized progress, "
                   "NP₁/(NP₁+NP₂), goes from %.2f to %.2f under PMT (slices proportional to "
                   "priority) and from %.2f to %.2f under V10-Full as the split goes from 50-50 "
                   "to 90-10.  V10 is work-conserving: Algorithm 1 orders tenants by "
                   "active_rate / priority only when they compete for the same FU, so the "
                   "low-priority tenant still runs on whichever FU the other is not using.\n",
                sh[0][0], sh[0][NSPLIT - 1], sh[1][0], sh[1][NSPLIT - 1]);
        double vs[NVMEM] = {0}, vh[NVMEM] = {0};
        for (int v = 0; v < NVMEM; v++)
            for (size_t p = 0; p < NPP; p++) {
                vs[v] += repro_res(R, S_VMEM, p, v, 1)->stp / NPP;
                vh[v] += repro_res(R, S_VMEM, p, v, 1)->util_hbm / NPP;
            }
        fprintf(f, "* **Vector memory**: V10-Full STP %.3f / %.3f / %.3f / %.3f at 0.5 / 2 / 8 / "
                   "32 MiB, split between the two tenants (HBM utilization %.3f / %.3f / %.3f / "
                   "%.3f).  The largest resident GEMM operand among the eleven models is %.2f "
                   "MiB; a smaller share re-streams operands (more HBM traffic).  From 8 MiB up "
                   "the operators that spill are compute-bound, so the extra traffic hides "
                   "under compute and throughput barely moves (%.3f to %.3f); at 0.5 MiB the "
                   "GEMMs that spill turn memory-bound and STP falls to %.0f%% of the core's.\n",
                vs[0], vs[1], vs[2], vs[3], vh[0], vh[1], vh[2], vh[3], R->max_resident_mib,
                vs[2], vs[3], 100 * vs[0] / vs[3]);
        const v10_run_result *s1 = repro_res(R, S_SCALE, 0, NTEN - 1, 0),
                             *s8 = repro_res(R, S_SCALE, NSCALE - 1, NTEN - 1, 0),
                             *p1 = repro_res(R, S_SCALE, NSCALE, NTEN - 1, 0),
                             *s8two = repro_res(R, S_SCALE, NSCALE - 1, 0, 0);
        fprintf(f, "* **Scalability** (the paper's metric: throughput summed over the "
                   "workloads, each over its throughput running alone): with %u workloads "
                   "(every one of the eleven at least once), V10-Full reaches %.2f on one SA + "
                   "one VU and %.2f on 8 + 8 (utilization %.2f and %.2f); with %u on 8 + 8, "
                   "%.2f.  PMT on the paper's core stays at %.2f with %u: it runs one workload "
                   "at a time.\n",
                repro_scale_tenants[NTEN - 1], s1->stp, s8->stp, s1->util_overall,
                s8->util_overall, repro_scale_tenants[0], s8two->stp, p1->stp,
                repro_scale_tenants[NTEN - 1]);
        double con[2] = {0};
        for (size_t p = 0; p < NPP; p++) {
            con[1] += repro_ratio(repro_res(R, S_PAIRS, p, P_FULL, 0)->stp,
                            repro_res(R, S_PAIRS, p, P_PMT, 0)->stp) / NPP;
            con[0] += repro_ratio(repro_res(R, S_CONT, p, 1, 0)->stp, repro_res(R, S_CONT, p, 0, 0)->stp) / NPP;
        }
        fprintf(f, "* **Contention**: STP over PMT ×%.3f with operators sharing HBM bandwidth, "
                   "×%.3f without.\n\n",
                con[1], con[0]);
    }
    fprintf(f, "Files: pairs.csv (every pair × policy), slice.csv, priority.csv, vmem.csv, "
               "scalability.csv, contention.csv, slice_reading.csv, pmt_slice.csv, profiles.csv, "
               "collocation.csv, attribution.csv, energy.csv, "
               "the SVG plots "
               "and report.html.\n");
    return 0;
}

typedef struct html_doc {
    const repro *R;
    const repro_charts *cs;
    const char *md;
} html_doc;

static int write_html(const void *ctx, FILE *f)
{
    const html_doc *d = ctx;
    const repro_charts *cs = d->cs;
    repro_ratios q0;
    repro_mean_ratios(d->R, &q0);
    const repro_ratios *q = &q0;
    v10_html_begin(f, "V10 (ISCA 2023) reproduction with v10sim");
    char line[512];
    snprintf(line, sizeof line,
             "V10-Full over PMT, mean over the paper's 11 pairs: STP x%.3f (paper x1.57), "
             "utilization x%.3f (x1.64), average latency /%.3f (/1.56), p95 latency /%.3f "
             "(/1.74), SA-VU overlap %.1f%% (63%%).",
             q->stp, q->util, q->lat, q->p95, 100 * q->overlap);
    v10_html_p(f, line);
    v10_html_markdown(f, d->md);
    v10_html_h2(f, "Figures");
    for (size_t i = 0; i < cs->n; i++) {
        char cap[512];
        snprintf(cap, sizeof cap, "%s (%s)", cs->c[i].caption, cs->c[i].name);
        v10_html_figure(f, cs->c[i].svg, cap);
    }
    v10_html_end(f);
    return 0;
}


char *repro_summary_md(const repro *R) { return v10_doc_render(write_summary, R, NULL); }

char *repro_report_html(const repro *R, const repro_charts *cs, const char *md)
{
    html_doc d = {R, cs, md};
    return v10_doc_render(write_html, &d, NULL);
}
