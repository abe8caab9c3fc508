/*
 * figures.c — the figures every rendering of the reproduction reads: ratios
 * of a run to its baseline, latency speed-ups, means that skip undefined
 * values, and the mean ratios of V10-Full over PMT over the paper's pairs.
 */
#include <math.h>
#include <string.h>

#include "repro/study.h"

double repro_switch_frac(const v10_run_result *r)
{
    double w = (double)(r->end_cycle ? r->end_cycle : 1);
    return (double)r->switch_cycles / w;
}

void repro_mean_add(repro_mean *m, double v)
{
    if (isfinite(v)) {
        m->sum += v;
        m->n++;
    } else {
        m->skipped++;
    }
}

double repro_mean_get(const repro_mean *m) { return m->n ? m->sum / m->n : NAN; }

double repro_lat_speedup(const v10_run_result *base, const v10_run_result *x, int p95)
{
    double s = 0;
    for (size_t t = 0; t < 2; t++) {
        const v10_tenant_result *a = &base->tenants[t], *b = &x->tenants[t];
        s += p95 ? repro_ratio(a->lat_p95_us, b->lat_p95_us)
                 : repro_ratio(a->lat_avg_us, b->lat_avg_us);
    }
    return s / 2;
}

double repro_pair_gain(const repro *R, size_t p)
{
    return repro_ratio(repro_res(R, S_PAIRS, p, P_FULL, 0)->stp,
                       repro_res(R, S_PAIRS, p, P_PMT, 0)->stp);
}

/* The perfect-overlap bound of pair p's profiles over STP of PMT run pmt. */
static double bound_over(const repro *R, size_t p, size_t pmt)
{
    return repro_ratio(v10_profile_pair_bound(&R->prof[R->pairs[p].a], &R->prof[R->pairs[p].b]),
                       R->res[pmt].stp);
}

double repro_bound_ratio(const repro *R, size_t p)
{
    return bound_over(R, p, repro_at(R, S_PAIRS, p, P_PMT, 0));
}

void repro_mean_ratios_vs(const repro *R, const size_t pmt[NPP], repro_ratios *q)
{
    memset(q, 0, sizeof *q);
    repro_mean ml = {0}, mp = {0};
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *a = &R->res[pmt[p]], *b = repro_res(R, S_PAIRS, p, P_FULL, 0);
        q->util_pair[p] = repro_ratio(b->util_overall, a->util_overall);
        q->stp_pair[p] = repro_ratio(b->stp, a->stp);
        q->lat_pair[p] = repro_lat_speedup(a, b, 0);
        q->p95_pair[p] = repro_lat_speedup(a, b, 1);
        q->util += q->util_pair[p] / NPP;
        q->sa += repro_ratio(b->util_sa, a->util_sa) / NPP;
        q->vu += repro_ratio(b->util_vu, a->util_vu) / NPP;
        q->hbm += repro_ratio(b->util_hbm, a->util_hbm) / NPP;
        q->stp += q->stp_pair[p] / NPP;
        repro_mean_add(&ml, q->lat_pair[p]);
        repro_mean_add(&mp, q->p95_pair[p]);
        q->overlap += b->overlap / NPP;
        q->switch_frac += repro_switch_frac(b) / NPP;
        q->bound += bound_over(R, p, pmt[p]) / NPP;
    }
    q->lat = repro_mean_get(&ml);
    q->p95 = repro_mean_get(&mp);
    q->lat_skipped = ml.skipped > mp.skipped ? ml.skipped : mp.skipped;
}

void repro_mean_ratios(const repro *R, repro_ratios *q)
{
    size_t pmt[NPP];
    for (size_t p = 0; p < NPP; p++)
        pmt[p] = repro_at(R, S_PAIRS, p, P_PMT, 0);
    repro_mean_ratios_vs(R, pmt, q);
}

const char *const repro_reading_names[NREAD] = {
    "the drain overlapping the switch (the paper's reading)",
    "the whole switch after the drain",
};

void repro_reading_npu(const repro *R, size_t k, v10_npu *out)
{
    *out = R->npu;
    if (k == 1)
        out->sa_switch_overlap_cycles = 0;
}

const v10_run_result *repro_read_res(const repro *R, size_t p, size_t j, size_t k)
{
    return k ? repro_res(R, S_READ, p, j, 0) : repro_res(R, S_SLICE, p, repro_read_in_slice(j), 0);
}

const v10_run_result *repro_read_pmt(const repro *R, size_t p, size_t k)
{
    return k ? repro_res(R, S_READ, p, NREADSL, 0) : repro_res(R, S_PAIRS, p, P_PMT, 0);
}

void repro_worst_lat(const repro *R, int pol, int p95, repro_worst *w)
{
    memset(w, 0, sizeof *w);
    for (size_t p = 0; p < NPP; p++) {
        const v10_run_result *a = repro_res(R, S_PAIRS, p, P_PMT, 0),
                             *b = repro_res(R, S_PAIRS, p, pol, 0);
        for (int t = 0; t < 2; t++) {
            const v10_tenant_result *x = &a->tenants[t], *y = &b->tenants[t];
            double r = p95 ? repro_ratio(y->lat_p95_us, x->lat_p95_us)
                           : repro_ratio(y->lat_avg_us, x->lat_avg_us);
            if (isfinite(r) && r > w->ratio) {
                w->ratio = r;
                w->pair = p;
                w->tenant = t;
            }
        }
    }
}

void v10_repro_headlines(const v10_repro *R, v10_repro_headline head[2])
{
    for (int k = 0; k < 2; k++) {
        const repro *X = k ? R->alt : R;
        repro_ratios x;
        repro_mean_ratios(X, &x);
        v10_repro_headline *h = &head[k];
        memset(h, 0, sizeof *h);
        snprintf(h->set, sizeof h->set, "%s", X->set);
        h->stp = x.stp;
        h->util = x.util;
        h->lat = x.lat;
        h->p95 = x.p95;
        h->overlap = x.overlap;
    }
}
