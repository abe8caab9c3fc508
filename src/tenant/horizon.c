/*
 * horizon.c — refuses runs too long for the 64-bit cycle clock (see
 * horizon.h).  The estimate is in doubles, so it cannot overflow itself.
 */
#include "tenant/horizon.h"

#include "v10/cost.h"

double v10_run_estimate_cycles(const v10_run_config *cfg, const v10_model *models)
{
    const v10_npu *npu = &cfg->npu;
    double hz = npu->clock_mhz * 1e6, work = 0, span = 0;
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        work += (double)cfg->requests * (double)v10_model_cycles(&models[i]);
        if (cfg->tenants[i].rate_rps > 0) {
            double s = (double)cfg->requests / cfg->tenants[i].rate_rps * hz;
            span = s > span ? s : span;
        }
    }
    double sw = (double)npu->sa_switch_cycles;
    if (npu->vu_switch_cycles > sw)
        sw = npu->vu_switch_cycles;
    if ((double)v10_npu_pmt_switch_cycles(npu) > sw)
        sw = (double)v10_npu_pmt_switch_cycles(npu);
    double slice = (double)(cfg->params.slice_cycles ? cfg->params.slice_cycles
                                                     : npu->slice_cycles);
    double pmt_slice = cfg->params.pmt_slice_us * npu->clock_mhz;
    if (pmt_slice >= 1 && pmt_slice < slice)
        slice = pmt_slice;
    if (slice < 1)
        slice = 1;
    return (4 * span + 4 * work) * (1 + sw / slice);
}

int v10_run_check_horizon(const v10_run_config *cfg, const v10_model *models, v10_err *err)
{
    double hz = cfg->npu.clock_mhz * 1e6, est = v10_run_estimate_cycles(cfg, models);
    if (!(est <= (double)V10_HORIZON_MAX_CYCLES))
        return v10_err_set(err, "run too long: about %.3g cycles estimated (%.3g s simulated), "
                                "over the limit of 2^60 cycles; use fewer requests, shorter "
                                "models or higher rates (docs/limits.md)",
                           est, est / hz);
    return 0;
}
