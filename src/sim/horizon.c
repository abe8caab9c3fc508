/*
 * horizon.c — refuses runs too long for the 64-bit cycle clock (see
 * horizon.h).  The estimate is in doubles, so it cannot overflow itself.
 */
#include "sim/horizon.h"

#include <math.h>

#include "engine/policy_api.h"
#include "v10/cost.h"

/* The shortest time slice of the run's timers, cycles (at least 1). */
static double shortest_slice(const v10_run_config *cfg)
{
    const v10_npu *npu = &cfg->npu;
    double slice = (double)(cfg->params.slice_cycles ? cfg->params.slice_cycles
                                                     : npu->slice_cycles);
    double pmt_slice = cfg->params.pmt_slice_us * npu->clock_mhz;
    if (pmt_slice >= 1 && pmt_slice < slice)
        slice = pmt_slice;
    return slice < 1 ? 1 : slice;
}

/* 1 if tenant i is an LLM server. */
static int is_llm(const v10_llm_tenant *llm, size_t i) { return llm && llm[i].n > 0; }

double v10_run_estimate_cycles(const v10_run_config *cfg, const v10_model *models,
                               const v10_llm_tenant *llm)
{
    const v10_npu *npu = &cfg->npu;
    double hz = npu->clock_mhz * 1e6, work = 0, span = 0;
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        if (is_llm(llm, i)) {
            work += llm[i].alone_cycles;
            span = fmax(span, llm[i].span_cycles);
            continue;
        }
        work += (double)cfg->requests * (double)v10_model_cycles(&models[i]);
        if (cfg->tenants[i].rate_rps > 0) {
            double s = (double)cfg->requests / cfg->tenants[i].rate_rps * hz;
            span = s > span ? s : span;
        }
    }
    double sw = (double)npu->sa_switch_cycles;
    if ((double)v10_npu_vu_switch_cycles(npu) > sw)
        sw = (double)v10_npu_vu_switch_cycles(npu);
    if ((double)v10_npu_pmt_switch_cycles(npu) > sw)
        sw = (double)v10_npu_pmt_switch_cycles(npu);
    return (4 * span + 4 * work) * (1 + sw / shortest_slice(cfg));
}

double v10_run_estimate_events(const v10_run_config *cfg, const v10_model *models,
                               const v10_llm_tenant *llm, double *cycles)
{
    double hz = cfg->npu.clock_mhz * 1e6, psum = 0, T = 0;
    for (size_t i = 0; i < cfg->n_tenants; i++)
        psum += cfg->tenants[i].priority;
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        const v10_tenant_spec *t = &cfg->tenants[i];
        if (is_llm(llm, i)) {
            T = fmax(T, fmax(llm[i].batched_cycles * psum / t->priority, llm[i].span_cycles));
            continue;
        }
        double alone = (double)v10_model_cycles(&models[i]);
        double share = (double)cfg->requests * alone * psum / t->priority;
        double span = t->rate_rps > 0 ? (double)cfg->requests / t->rate_rps * hz : 0;
        T = fmax(T, fmax(share, span));
    }
    const v10_policy_ops *pol = v10_policy_find(cfg->policy);
    double events = pol && pol->on_timer ? T / shortest_slice(cfg) : 0; /* timer ticks */

    for (size_t i = 0; i < cfg->n_tenants; i++) {
        const v10_tenant_spec *t = &cfg->tenants[i];
        if (is_llm(llm, i)) {
            events += llm[i].iterations * (2.0 * (double)llm[i].ops_per_iteration + 2);
            continue;
        }
        double alone = fmax(1, (double)v10_model_cycles(&models[i]));
        double reqs = t->rate_rps > 0 ? T / hz * t->rate_rps
                                      : T / alone * (t->outstanding ? t->outstanding : 1);
        reqs = fmax(reqs, (double)cfg->requests);
        events += reqs * (2.0 * (double)models[i].n_ops + 2);
    }
    if (cycles)
        *cycles = T;
    return events;
}

int v10_run_check_horizon(const v10_run_config *cfg, const v10_model *models,
                          const v10_llm_tenant *llm, v10_err *err)
{
    double hz = cfg->npu.clock_mhz * 1e6, est = v10_run_estimate_cycles(cfg, models, llm);
    if (!(est <= (double)V10_HORIZON_MAX_CYCLES))
        return v10_err_set(err, "run too long: about %.3g cycles estimated (%.3g s simulated), "
                                "over the limit of 2^60 cycles; use fewer requests, shorter "
                                "models or higher rates (docs/limits.md)",
                           est, est / hz);
    return 0;
}
