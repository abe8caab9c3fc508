/*
 * studies.c — how each study plans its runs: one plan hook per study
 * (listed in src/repro/registry.c; render hooks live in
 * src/repro/render.c), each appending its grid of runs in order.
 *
 * Request-length mismatch: in a pair such as BERT (411 ms a request) + NCF
 * (4 µs), NCF keeps issuing requests until BERT has completed its count
 * (the engine's window, docs/architecture.md); a run of short models gets
 * more requests so that it spans several PMT slices (src/colloc/span.h).
 */
#include <stdlib.h>
#include <string.h>

#include "repro/study.h"

size_t repro_add(repro *R, const int *ms, const double *prio, size_t n_t, const char *pol,
                 const v10_npu *npu, repro_length len, v10_err *err)
{
    if (R->n == R->cap) {
        size_t nc = R->cap ? 2 * R->cap : 256;
        v10_run_config *c = realloc(R->cfgs, nc * sizeof *c);
        if (c)
            R->cfgs = c;
        v10_tenant_spec *s = realloc(R->specs, nc * MAXT * sizeof *s);
        if (s)
            R->specs = s;
        size_t *same = realloc(R->same, nc * sizeof *same);
        if (same)
            R->same = same;
        if (!c || !s || !same)
            return (size_t)v10_err_set(err, "out of memory");
        R->cap = nc;
    }
    size_t i = R->n;
    v10_tenant_spec *ts = &R->specs[i * MAXT];
    for (size_t t = 0; t < n_t; t++) {
        char spec[V10_SPEC_MAX + 64];
        snprintf(spec, sizeof spec, "%s:priority=%g", R->spec[ms[t]], prio ? prio[t] : 1.0);
        if (v10_tenant_spec_parse(spec, &ts[t], err))
            return (size_t)-1;
    }
    uint64_t req = v10_span_requests(&R->span, ts, n_t, len.requests, err);
    if (!req)
        return (size_t)-1;
    v10_run_config *c = &R->cfgs[i];
    v10_run_config_default(c);
    c->npu = *npu;
    snprintf(c->policy, sizeof c->policy, "%s", pol);
    c->n_tenants = n_t;
    c->requests = req;
    c->warmup = len.warmup;
    c->seed = R->o->seed;
    /* The studies are sized here and known to finish; the event budget
     * guards a user's run, and its estimate assumes time-sharing of the
     * whole core (658 s simulated for the 16-tenant point at 12 requests,
     * ~20x the events it takes). */
    c->max_events = UINT64_MAX;
    R->same[i] = i;
    R->n++;
    return i;
}

/* Adds one run of study s at grid position (i, j, k) and returns its
 * config, or NULL on error; runs must come in grid order. */
static v10_run_config *add(repro *R, int s, size_t i, size_t j, size_t k, const int *ms,
                           const double *prio, size_t n_t, const char *pol, const v10_npu *npu,
                           v10_err *err)
{
    size_t ix = repro_add(R, ms, prio, n_t, pol, npu, R->len[s], err);
    if (ix == (size_t)-1)
        return NULL;
    V10_ASSERT(ix == repro_point(R, s, i, j, k));
    /* Only the paper's pairs' attribution in the main set is reported
     * (attribution.c: attribution.csv, the stacked bars, the summary's
     * causes); a later study's run that is a pairs' run (same_as) takes
     * the pairs' result. */
    R->cfgs[ix].no_attribution = s != S_PAIRS || i >= NPP || R->pairs_only;
    return &R->cfgs[ix];
}

/*
 * The run just added (c) simulates what run `from` of an earlier study
 * does, by construction: a study's point at the NPU's own slice or vector
 * memory is the pairs' run.  It takes that result instead of being run
 * again.  The configurations differ at most in how they say it (a slice of
 * 0 stands for the NPU's), which the check below resolves through the
 * parameter's own rule (its table entry's `effective`), and in length: a
 * study whose runs are shorter (repro_length) takes the longer run, its
 * figure the more precise for it (c then records that run's length).
 */
static void same_as(repro *R, v10_run_config *c, size_t from)
{
    const v10_run_config *f = &R->cfgs[from];
    const v10_param_def *slice = v10_param_find("v10-full.slice_cycles");
    size_t ix = (size_t)(c - R->cfgs);
    V10_ASSERT(slice && slice->effective);
    V10_ASSERT(c->requests <= f->requests);
    c->requests = f->requests;
    c->warmup = f->warmup;
    V10_ASSERT(from < ix && !strcmp(c->policy, f->policy) && c->n_tenants == f->n_tenants &&
               c->seed == f->seed &&
               c->contention == f->contention && c->preempt == f->preempt &&
               c->npu.vmem_bytes == f->npu.vmem_bytes &&
               c->npu.sa_switch_overlap_cycles == f->npu.sa_switch_overlap_cycles &&
               c->params.pmt_slice_us == f->params.pmt_slice_us &&
               c->params.full_preempt_ready == f->params.full_preempt_ready &&
               slice->effective((double)c->params.slice_cycles, &c->npu) ==
                   slice->effective((double)f->params.slice_cycles, &f->npu));
    for (size_t t = 0; t < c->n_tenants; t++)
        V10_ASSERT(!strcmp(R->specs[ix * MAXT + t].model, R->specs[from * MAXT + t].model) &&
                   R->specs[ix * MAXT + t].priority == R->specs[from * MAXT + t].priority);
    R->same[ix] = from;
}

/* The two models of pair p. */
static void pair_models(const repro *R, size_t p, int ms[2])
{
    ms[0] = R->pairs[p].a;
    ms[1] = R->pairs[p].b;
}

static const char *pmt_or_full(size_t k) { return k ? "v10-full" : "pmt"; }

/* Every pair under every policy (the other set: the paper's pairs only,
 * its grid so many, so that no later study's run is read as a pair's). */
int repro_plan_pairs(repro *R, v10_err *err)
{
    if (R->pairs_only)
        R->dim[S_PAIRS][0] = NPP;
    for (size_t p = 0; p < (R->pairs_only ? (size_t)NPP : (size_t)NPAIR); p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t k = 0; k < NPOL; k++)
            if (!add(R, S_PAIRS, p, k, 0, ms, NULL, 2, repro_policies[k], &R->npu, err))
                return -1;
    }
    return 0;
}

/* V10-Full with V10's preemption time slice from 512 to 1M cycles. */
int repro_plan_slice(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t s = 0; s < NSLICE; s++) {
            v10_run_config *c = add(R, S_SLICE, p, s, 0, ms, NULL, 2, "v10-full", &R->npu, err);
            if (!c)
                return -1;
            c->params.slice_cycles = 512ull << s;
            if (c->params.slice_cycles == c->npu.slice_cycles)
                same_as(R, c, repro_at(R, S_PAIRS, p, P_FULL, 0));
        }
    }
    return 0;
}

/* Priority splits 50-50 .. 90-10 under PMT and V10-Full.  The 50-50 split
 * is equal priorities, the pairs' runs: PMT's slices are in proportion to
 * the priorities and V10's scores are each active share over its
 * priority, so only their ratio counts (priority.csv prints the split's). */
int repro_plan_prio(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t s = 0; s < NSPLIT; s++) {
            double pr[2] = {50.0 + 10 * (double)s, 50.0 - 10 * (double)s};
            for (size_t k = 0; k < 2; k++) {
                v10_run_config *c = add(R, S_PRIO, p, s, k, ms, s ? pr : NULL, 2,
                                        pmt_or_full(k), &R->npu, err);
                if (!c)
                    return -1;
                if (!s)
                    same_as(R, c, repro_at(R, S_PAIRS, p, k ? P_FULL : P_PMT, 0));
            }
        }
    }
    return 0;
}

/* The vector memory of the study's point v: 0.5, 2, 8 and 32 MiB (the
 * core's own).  Down to where the shares spill: at 8 MiB and above the
 * pairs' operators that spill are compute-bound and throughput does not
 * move (issue 24: 8 to 64 MiB drew flat lines); a share of 256 KiB
 * re-streams most GEMMs' operands and makes them memory-bound. */
uint64_t repro_vmem_bytes(size_t v) { return (512ull << 10) << (2 * v); }

/* Vector memory of 0.5 to 32 MiB under PMT and V10-Full. */
int repro_plan_vmem(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t v = 0; v < NVMEM; v++) {
            v10_npu n = R->npu;
            n.vmem_bytes = repro_vmem_bytes(v);
            for (size_t k = 0; k < 2; k++) {
                v10_run_config *c = add(R, S_VMEM, p, v, k, ms, NULL, 2, pmt_or_full(k), &n, err);
                if (!c)
                    return -1;
                if (n.vmem_bytes == R->npu.vmem_bytes)
                    same_as(R, c, repro_at(R, S_PAIRS, p, k ? P_FULL : P_PMT, 0));
            }
        }
    }
    return 0;
}

/* The pair of models a < b in R->pairs, or -1. */
static int pair_of(const repro *R, int a, int b)
{
    for (size_t p = 0; p < NPAIR; p++)
        if (R->pairs[p].a == a && R->pairs[p].b == b)
            return (int)p;
    return -1;
}

/* V10-Full with 2 to 16 workloads (repro_scale_mix) on 1 to 8 SAs and VUs,
 * then PMT with the same mixes on the paper's core.  A mix of two on the
 * paper's core, in the pairs' order, is a pair's run. */
int repro_plan_scale(repro *R, v10_err *err)
{
    for (size_t s = 0; s <= NSCALE; s++) {
        v10_npu n;
        if (v10_npu_preset(repro_scale_npus[s < NSCALE ? s : 0], &n, err))
            return -1;
        for (size_t t = 0; t < NTEN; t++) {
            int ms[MAXT];
            repro_scale_mix(t, ms);
            v10_run_config *c = add(R, S_SCALE, s, t, 0, ms, NULL, repro_scale_tenants[t],
                                    s < NSCALE ? "v10-full" : "pmt", &n, err);
            if (!c)
                return -1;
            int p = repro_scale_tenants[t] == 2 && !strcmp(n.name, R->npu.name)
                        ? pair_of(R, ms[0], ms[1]) : -1;
            if (p >= 0)
                same_as(R, c, repro_at(R, S_PAIRS, (size_t)p, s < NSCALE ? P_FULL : P_PMT, 0));
        }
    }
    return 0;
}

/* PMT and V10-Full with ideal, unshared HBM bandwidth. */
int repro_plan_cont(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t k = 0; k < 2; k++) {
            v10_run_config *c = add(R, S_CONT, p, k, 0, ms, NULL, 2, pmt_or_full(k), &R->npu,
                                    err);
            if (!c)
                return -1;
            c->contention = 0;
        }
    }
    return 0;
}

/* PMT with slices of 1, 2 and 4 ms (1 ms, the default, is the pairs' run):
 * the paper does not state its slice, so the headline's sensitivity to it. */
int repro_plan_pmts(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t j = 0; j < NPMTS; j++) {
            v10_run_config *c = add(R, S_PMTS, p, j, 0, ms, NULL, 2, "pmt", &R->npu, err);
            if (!c)
                return -1;
            double def = c->params.pmt_slice_us;
            c->params.pmt_slice_us = 1000.0 * (double)(1u << j);
            if (c->params.pmt_slice_us == def)
                same_as(R, c, repro_at(R, S_PAIRS, p, P_PMT, 0));
        }
    }
    return 0;
}

/*
 * The slice study under the other reading of the SA switch (its 384
 * cycles all lost after the drain, NPU sa_switch_overlap_cycles = 0):
 * V10-Full at 512, 2K, 8K and 32K cycles (every other point of the slice
 * study, up to the NPU's slice, above which preemptions are rare), then
 * PMT on that NPU as the reference.
 */
int repro_plan_read(repro *R, v10_err *err)
{
    v10_npu n;
    repro_reading_npu(R, 1, &n);
    for (size_t p = 0; p < NPP; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t j = 0; j <= NREADSL; j++) {
            v10_run_config *c = add(R, S_READ, p, j, 0, ms, NULL, 2,
                                    j < NREADSL ? "v10-full" : "pmt", &n, err);
            if (!c)
                return -1;
            if (j < NREADSL)
                c->params.slice_cycles = repro_read_slice(j);
        }
    }
    return 0;
}

/*
 * Every pair under the paper's four policies and under V10-Full with
 * v10-full.preempt=ready, its quantum the default (src/policy/v10_full.c).
 * A pair the pairs' study runs (all 55 of the studied set, the paper's 11
 * of the other) takes its runs for the four; the others, the other set's
 * 44, are run at this study's length (registry.c).  The option's run is
 * as long as the V10-Full run it is compared with.
 */
int repro_plan_fair(repro *R, v10_err *err)
{
    for (size_t p = 0; p < NPAIR; p++) {
        int ms[2];
        pair_models(R, p, ms);
        for (size_t k = 0; k < NFAIR; k++) {
            v10_run_config *c = add(R, S_FAIR, p, k, 0, ms, NULL, 2,
                                    k < NPOL ? repro_policies[k] : "v10-full", &R->npu, err);
            if (!c)
                return -1;
            if (k == NPOL) {
                const v10_run_config *full = &R->cfgs[repro_at(R, S_FAIR, p, P_FULL, 0)];
                c->params.full_preempt_ready = 1;
                V10_ASSERT(c->requests <= full->requests);
                c->requests = full->requests;
                c->warmup = full->warmup;
            } else if (p < R->dim[S_PAIRS][0]) {
                same_as(R, c, repro_at(R, S_PAIRS, p, k, 0));
            }
        }
    }
    return 0;
}
