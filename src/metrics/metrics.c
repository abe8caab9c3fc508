/*
 * metrics.c — utilization, per-tenant throughput and latency, and system
 * metrics over the measurement window (docs/architecture.md).
 *
 * The window runs from the moment every tenant has completed its warm-up
 * requests to the end of the run, when every tenant has completed its
 * requests; tenants that reach their count keep generating load, so every
 * tenant competes throughout.  Throughput counts fractional progress (a
 * request in flight at either edge counts by the share of its standalone
 * work done), so windows are not quantized to whole requests.  Latency
 * statistics cover the requests completed in the window.
 */
#include "metrics/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v10/cost.h"

void v10_run_result_fini(v10_run_result *r)
{
    free(r->tenants);
    free(r->fus);
    memset(r, 0, sizeof *r);
}

int v10_metrics_compute(const v10_engine *e, const v10_model *models, v10_run_result *out,
                        v10_err *err)
{
    const v10_npu *npu = e->npu;
    const v10_snapshot *a = &e->win[0], *b = &e->win[1];
    int nt = e->n_tenants;
    double W = (double)(b->time - a->time);
    if (W <= 0)
        W = 1;
    out->window_start = a->time;
    out->window_end = b->time;
    out->end_cycle = e->end_cycle;
    double n_sa = e->n_phys[V10_FU_SA], n_vu = e->n_phys[V10_FU_VU];
    out->util_sa = (b->busy[V10_FU_SA] - a->busy[V10_FU_SA]) / (n_sa * W);
    out->util_vu = (b->busy[V10_FU_VU] - a->busy[V10_FU_VU]) / (n_vu * W);
    out->util_overall = (out->util_sa + out->util_vu) / 2;
    out->overlap = (b->overlap - a->overlap) / W;
    out->util_hbm = (b->hbm_bytes - a->hbm_bytes) / (e->hbm_bytes_per_cycle * W);
    out->util_sa_flops =
        (b->macs - a->macs) / (n_sa * npu->sa_rows * (double)npu->sa_cols * W);
    out->preemptions = e->preemptions;
    out->context_switches = e->context_switches;
    out->events = e->events;
    out->wall_seconds = e->wall_seconds;

    out->n_tenants = (size_t)nt;
    out->tenants = calloc((size_t)nt, sizeof *out->tenants);
    out->n_fus = (size_t)e->n_fus;
    out->fus = calloc((size_t)e->n_fus, sizeof *out->fus);
    if (!out->tenants || !out->fus) {
        v10_run_result_fini(out);
        return v10_err_set(err, "out of memory computing metrics");
    }
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        out->fus[f] = (v10_fu_result){(int)u->type, u->owner, u->speed, u->exec_cycles,
                                      u->switch_cycles, u->work};
        out->switch_cycles += u->switch_cycles;
    }
    double hz = npu->clock_mhz * 1e6;
    double sum_np = 0, sum_np2 = 0, sum_inv = 0, min_np = INFINITY, max_np = 0;
    for (int i = 0; i < nt; i++) {
        const tenant *t = &e->tenants[i];
        v10_tenant_result *r = &out->tenants[i];
        const v10_tenant_spec *sp = &e->cfg->tenants[i];
        snprintf(r->name, sizeof r->name, "t%d:%.50s", i, models[i].name);
        snprintf(r->model, sizeof r->model, "%s", models[i].name);
        r->batch = models[i].batch;
        r->priority = t->priority;
        r->completed = t->completed;
        r->alone_cycles = v10_model_cycles(&models[i]);
        double prog = b->progress[i] - a->progress[i];
        r->throughput_rps = prog / W * hz;
        r->np = prog / W * (double)r->alone_cycles;
        r->preemptions = t->preemptions;
        r->active_cycles = t->active_cycles;
        r->work_done = t->work_done;
        const v10_hist *h = &t->lat;
        double n = (double)h->n;
        r->lat_avg_us = h->n ? v10_npu_cycles_to_us(npu, h->sum / n) : NAN;
        r->lat_p50_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 50));
        r->lat_p95_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 95));
        r->lat_p99_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 99));
        r->slo_attainment = sp->slo_us > 0 && h->n ? (double)t->slo_ok / n : -1;
        sum_np += r->np;
        sum_np2 += r->np * r->np;
        sum_inv += r->np > 0 ? 1.0 / r->np : INFINITY;
        if (r->np < min_np)
            min_np = r->np;
        if (r->np > max_np)
            max_np = r->np;
    }
    out->stp = sum_np;
    out->antt = sum_inv / nt;
    out->fairness = max_np > 0 ? min_np / max_np : 0;
    out->jain = sum_np2 > 0 ? sum_np * sum_np / (nt * sum_np2) : 0;
    return 0;
}
