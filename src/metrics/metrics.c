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
 * statistics cover the requests completed in the window.  An LLM server's
 * metrics (TTFT, TPOT, ...) come from its own per-request record over the
 * window; it has no closed-form alone latency, so it is left out of STP,
 * ANTT, fairness and Jain (docs/llm.md).
 */
#include "metrics/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/attrib.h"
#include "util/text.h"
#include "v10/cost.h"

void v10_run_result_fini(v10_run_result *r)
{
    for (size_t i = 0; r->tenants && i < r->n_tenants; i++) {
        free(r->tenants[i].ttft_samples_us);
        free(r->tenants[i].tpot_samples_us);
        free(r->tenants[i].lost_to);
        free(r->tenants[i].op_states);
    }
    free(r->tenants);
    free(r->fus);
    memset(r, 0, sizeof *r);
}

/* An LLM server's metrics over the requests finished after cycle `from`
 * (the window opens as a warm-up request finishes: that one is not in it,
 * as for other tenants). */
static int llm_result(const v10_llm_tenant *L, uint64_t from, double W, double hz,
                      v10_tenant_result *r, v10_err *err)
{
    v10_llm_stats st;
    size_t n_ttft, n_tpot;
    if (v10_llm_server_stats(&L->server, from + 1, 0, L->slo_ttft_us, L->slo_tpot_us, &st, err) ||
        v10_llm_server_samples(&L->server, from + 1, 0, &r->ttft_samples_us, &n_ttft,
                               &r->tpot_samples_us, &n_tpot, err))
        return -1;
    r->llm = 1;
    r->completed = L->server.finished;
    r->ttft_us = st.ttft;
    r->tpot_us = st.tpot;
    r->e2e_us = st.e2e;
    r->queue_us = st.queue;
    r->llm_requests = st.completed;
    r->llm_tokens = st.tokens;
    /* No request finished in the window: no rate to give (null, not 0). */
    r->tokens_per_s = st.completed ? (double)st.tokens / W * hz : NAN;
    uint64_t span = st.last_finish - st.first_arrival;
    r->tokens_per_s_active = span ? (double)st.tokens / (double)span * hz : NAN;
    r->throughput_rps = st.completed ? (double)st.completed / W * hz : NAN;
    r->np = NAN;
    r->lat_avg_us = st.e2e.avg;
    r->lat_p50_us = st.e2e.p50;
    r->lat_p95_us = st.e2e.p95;
    r->lat_p99_us = st.e2e.p99;
    r->slo_attainment = -1;
    r->slo_ttft = st.slo_ttft;
    r->slo_tpot = st.slo_tpot;
    r->kv_peak_tokens = st.kv_peak;
    r->kv_capacity_tokens = L->kv_capacity_tokens;
    r->prefills = st.prefills;
    r->kv_preemptions = st.kv_preemptions;
    r->decodes = st.decodes;
    return 0;
}

/* Tenant i's states and what it lost to each partner over the window
 * (the engine's cumulative counters less those when the window opened). */
static int attribution(const v10_engine *e, int i, v10_tenant_result *r)
{
    size_t nt = (size_t)e->n_tenants, S = V10_ATTR_STATES;
    r->lost_to = calloc(nt * S, sizeof *r->lost_to);
    if (!r->lost_to)
        return -1;
    for (size_t s = 0; s < S; s++) {
        size_t k = (size_t)i * S + s;
        r->state_cycles[s] = e->attr[k] - e->attr_base[k];
        for (size_t j = 0; j < nt; j++)
            r->lost_to[j * S + s] = e->attr_lost[k * nt + j] - e->attr_lost_base[k * nt + j];
    }
    eng_attr_exec_net(r->state_cycles);
    const tenant *t = &e->tenants[i];
    if (t->op_attr) {
        size_t n = t->model->n_ops * S;
        r->op_states = malloc(n * sizeof *r->op_states);
        if (!r->op_states)
            return -1;
        for (size_t k = 0; k < n; k++)
            r->op_states[k] = t->op_attr[k] - t->op_attr_base[k];
        for (size_t k = 0; k < n; k += S)
            eng_attr_exec_net(r->op_states + k);
        r->n_ops = t->model->n_ops;
    }
    return 0;
}

/* The window's energy (docs/energy.md): the engine's accounts at its end
 * less those at its start; per request of each tenant's progress (an LLM
 * server's: its requests finished in the window). */
static void energy(const v10_engine *e, double seconds, v10_run_result *out)
{
    const eng_energy_acc *a = &e->win[0].energy, *b = &e->win[1].energy;
    v10_energy_result *r = &out->energy;
    for (int u = 0; u < V10_EN_UNITS; u++)
        for (int s = 0; s < V10_EN_STATES; s++) {
            r->unit_j[u][s] = b->unit_j[u][s] - a->unit_j[u][s];
            r->total_j += r->unit_j[u][s];
        }
    r->static_j = b->static_j - a->static_j;
    r->dynamic_j = b->dynamic_j - a->dynamic_j;
    r->unattributed_j = b->unattributed_j - a->unattributed_j;
    r->power_w = seconds > 0 ? r->total_j / seconds : NAN;
    double done = 0;
    for (size_t i = 0; i < out->n_tenants; i++) {
        v10_tenant_result *t = &out->tenants[i];
        double reqs = t->llm ? (double)t->llm_requests : t->throughput_rps * seconds;
        t->energy_j = b->tenant_j[i] - a->tenant_j[i];
        t->energy_per_request_j = reqs > 0 ? t->energy_j / reqs : NAN;
        done += reqs;
    }
    r->inferences_per_j = r->total_j > 0 ? done / r->total_j : NAN;
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
    int n_np = 0; /* tenants in the system metrics: all but LLM servers */
    for (int i = 0; i < nt; i++) {
        const tenant *t = &e->tenants[i];
        v10_tenant_result *r = &out->tenants[i];
        const v10_tenant_spec *sp = &e->cfg->tenants[i];
        int k = snprintf(r->name, sizeof r->name, "t%d:", i); /* and the model name's end */
        v10_name_tail(r->name + k, sizeof r->name - (size_t)k, models[i].name);
        snprintf(r->model, sizeof r->model, "%s", models[i].name);
        r->batch = models[i].batch;
        r->priority = t->priority;
        r->completed = t->completed;
        r->alone_cycles = v10_cost_alone_cycles(npu, &models[i]); /* as a solo run measures */
        double prog = b->progress[i] - a->progress[i];
        r->throughput_rps = prog / W * hz;
        r->np = prog / W * (double)r->alone_cycles;
        r->preemptions = t->preemptions;
        r->active_cycles = t->active_cycles;
        r->work_done = t->work_done;
        if (attribution(e, i, r)) {
            v10_run_result_fini(out);
            return v10_err_set(err, "out of memory computing metrics");
        }
        const v10_hist *h = &t->lat;
        double n = (double)h->n;
        r->lat_avg_us = h->n ? v10_npu_cycles_to_us(npu, h->sum / n) : NAN;
        r->lat_p50_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 50));
        r->lat_p95_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 95));
        r->lat_p99_us = v10_npu_cycles_to_us(npu, v10_hist_percentile(h, 99));
        r->slo_attainment = sp->slo_us > 0 && h->n ? (double)t->slo_ok / n : -1;
        if (t->llm) {
            if (llm_result(t->llm, a->time, W, hz, r, err)) {
                v10_run_result_fini(out);
                return -1;
            }
            continue;
        }
        n_np++;
        sum_np += r->np;
        sum_np2 += r->np * r->np;
        sum_inv += r->np > 0 ? 1.0 / r->np : INFINITY;
        if (r->np < min_np)
            min_np = r->np;
        if (r->np > max_np)
            max_np = r->np;
    }
    energy(e, W / hz, out);
    out->stp = n_np ? sum_np : NAN;
    out->antt = n_np ? sum_inv / n_np : NAN;
    out->fairness = max_np > 0 ? min_np / max_np : n_np ? 0 : NAN;
    out->jain = sum_np2 > 0 ? sum_np * sum_np / (n_np * sum_np2) : n_np ? 0 : NAN;
    return 0;
}
