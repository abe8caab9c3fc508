/*
 * registry.c — the reproduction's table of studies, like the policy
 * registry: one entry per study {name, grid, plan, render}, and the two
 * drivers that walk it, v10_repro_run (set up, plan every study into one
 * batch, run, evaluate collocation) and v10_repro_render (every study's
 * files in table order, then summary.md and report.html).  It sits above
 * the plans (studies.c) and the renderers (render.c, summary.c), which
 * never refer to it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro/study.h"

/* Run lengths (repro_length, docs/repro.md "Run lengths"): the pairs'
 * runs carry the headline, its latency percentiles and attribution, and
 * so do PMT's slices (the headline's latency under each); the other
 * sensitivity studies report means over the pairs of throughput ratios
 * and progress shares; the scalability study STP and utilization only,
 * summed over up to 16 tenants.  --quick's scalability runs are one
 * request with no warm-up (the window from cycle 0): its STP lies as near
 * the full run's as at 2 requests with 1 of warm-up, for half the events,
 * where the pairs' and the other studies' figures would move several
 * times further (measured in docs/repro.md, "Run lengths"). */
#define LEN_PAIRS {{12, 2}, {3, 1}}
#define LEN_SENSITIVITY {{6, 1}, {2, 1}}
#define LEN_SCALE {{4, 1}, {1, 0}}
#define LEN_NONE {{0, 0}, {0, 0}}
/* The fairness study's own runs (the other set's pairs the pairs' study
 * does not run, --fairness-both) report progress shares, to three
 * decimals: measured in docs/repro.md, "Run lengths". */
#define LEN_FAIR LEN_SENSITIVITY

const repro_study repro_studies[N_STUDIES] = {
    [S_PAIRS] = {"pairs", {NPAIR, NPOL, 1}, LEN_PAIRS, SETS_BOTH, repro_plan_pairs,
                 repro_render_pairs},
    [S_SLICE] = {"slice", {NPP, NSLICE, 1}, LEN_SENSITIVITY, 0, repro_plan_slice,
                 repro_render_slice},
    [S_PRIO] = {"priority", {NPP, NSPLIT, 2}, LEN_SENSITIVITY, 0, repro_plan_prio,
                repro_render_prio},
    [S_VMEM] = {"vmem", {NPP, NVMEM, 2}, LEN_SENSITIVITY, 0, repro_plan_vmem, repro_render_vmem},
    /* [V10-Full on each NPU, then PMT on the paper's core][workloads] */
    [S_SCALE] = {"scalability", {NSCALE + 1, NTEN, 1}, LEN_SCALE, 0, repro_plan_scale,
                 repro_render_scale},
    [S_CONT] = {"contention", {NPP, 2, 1}, LEN_SENSITIVITY, 0, repro_plan_cont,
                repro_render_cont},
    /* [pair][slice, then PMT as the reference] under the other reading */
    [S_READ] = {"slice_reading", {NPP, NREADSL + 1, 1}, LEN_SENSITIVITY, 0, repro_plan_read,
                repro_render_read},
    [S_PMTS] = {"pmt_slice", {NPP, NPMTS, 1}, LEN_PAIRS, 0, repro_plan_pmts, repro_render_pmts},
    /* From the pairs' runs: profiles.csv, collocation.csv. */
    [S_COLLOC] = {"collocation", {0, 0, 0}, LEN_NONE, 0, NULL, repro_render_colloc},
    /* From the pairs' runs: energy.csv, energy.svg, energy_split.svg. */
    [S_ENERGY] = {"energy", {0, 0, 0}, LEN_NONE, 0, NULL, repro_render_energy},
    /* [pair][the paper's policies, then V10-Full with preempt=ready]: the
     * pairs' runs where the pairs' study has them; the other set's with
     * --fairness-both (a fifth more simulation: docs/repro.md) */
    [S_FAIR] = {"fairness", {NPAIR, NFAIR, 1}, LEN_FAIR, SETS_BOTH_OPT, repro_plan_fair,
                repro_render_fair},
};

/* Plans every study R runs, in table order (a study's run may stand for
 * one of an earlier study: same_as, studies.c; the pool runs them longest
 * first whatever the order: repro_run_batches). */
static int plan(repro *R, v10_err *err)
{
    for (int s = 0; s < N_STUDIES; s++) {
        const repro_study *st = &repro_studies[s];
        int other = st->both_sets == SETS_BOTH ||
                    (st->both_sets == SETS_BOTH_OPT && R->o->fairness_both);
        if (!st->plan || (R->pairs_only && !other))
            continue;
        R->base[s] = R->n;
        memcpy(R->dim[s], st->dim, sizeof R->dim[s]);
        R->len[s] = st->len[R->o->quick != 0];
        R->study[s] = st->name;
        if (st->plan(R, err))
            return -1;
    }
    return 0;
}

/* Runs of R's batch that are simulated (not another's result: R->same). */
static size_t repro_simulated(const repro *R)
{
    size_t n = 0;
    for (size_t i = 0; i < R->n; i++)
        n += R->same[i] == i;
    return n;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int v10_repro_run(const v10_repro_opts *o, v10_repro **out, v10_err *err)
{
    *out = NULL;
    double t0 = now_s();
    const char *set = o->workloads[0] ? o->workloads : "isca23";
    if (strcmp(set, "isca23") && strcmp(set, "zoo"))
        return v10_err_set(err, "workloads '%s': expected isca23 or zoo", set);
    repro *R = calloc(1, sizeof *R), *A = calloc(1, sizeof *A);
    if (!R || !A) {
        free(R);
        free(A);
        return v10_err_set(err, "out of memory");
    }
    R->alt = A;
    if (repro_prepare(R, o, set, 0, err) ||
        repro_prepare(A, o, strcmp(set, "zoo") ? "zoo" : "isca23", 1, err) ||
        repro_load(R, A, err) || plan(R, err) || plan(A, err) ||
        repro_run_batches(R, A, err) || repro_collocation(R, err)) {
        v10_repro_destroy(R);
        return -1;
    }
    R->runs = repro_simulated(R) + repro_simulated(A) + 2 * NM;
    R->wall_seconds = now_s() - t0;
    *out = R;
    return 0;
}

int v10_repro_render(const v10_repro *R, v10_repro_out *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    out->runs = R->runs;
    out->wall_seconds = R->wall_seconds;
    v10_repro_headlines(R, out->head);
    repro_charts cs = {.n = 0};
    int rc = -1;
    for (int s = 0; s < N_STUDIES; s++)
        if (repro_studies[s].render(R, &cs, out, err))
            goto done;
    if (repro_render_attrib(R, &cs, out, err)) /* the pairs' attribution.csv and .svg */
        goto done;
    char *md = repro_summary_md(R);
    if (!md) {
        v10_err_set(err, "summary.md: rendering failed");
        goto done;
    }
    char *html = repro_report_html(R, &cs, md);
    if (repro_add_file(out, "summary.md", md, strlen(md), err)) {
        free(html);
        goto done;
    }
    if (!html) {
        v10_err_set(err, "report.html: rendering failed");
        goto done;
    }
    if (repro_add_file(out, "report.html", html, strlen(html), err))
        goto done;
    rc = 0;
done:
    for (size_t i = 0; i < cs.n; i++)
        free(cs.c[i].svg);
    if (rc)
        v10_repro_out_fini(out);
    return rc;
}
