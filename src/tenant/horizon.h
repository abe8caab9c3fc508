/*
 * horizon.h — the run-length limit (docs/limits.md): simulated time is a
 * 64-bit cycle count, so a run whose estimated length could come near 2^64
 * cycles is refused up front instead of wrapping.
 */
#ifndef V10_HORIZON_H
#define V10_HORIZON_H

#include "v10/sim.h"

/* Estimated run length may not exceed 2^60 cycles (about 52,000 years at
 * 700 MHz): a 16x margin under the 64-bit clock for the estimate's slack. */
#define V10_HORIZON_MAX_CYCLES (1ull << 60)

/*
 * Estimates an upper bound on the run's length in cycles from the costed
 * models (models[i] serves cfg->tenants[i]):
 *   (longest Poisson arrival span x 4 + 4 x sum of requests x alone latency)
 *   x (1 + largest context switch / shortest slice).
 * The engine stops a run that outlasts this (scaled by the priority spread)
 * by V10_STALL_FACTOR: a policy that starves a tenant, or an open-loop
 * tenant whose backlog grows without bound, ends in an error, not a hang.
 */
double v10_run_estimate_cycles(const v10_run_config *cfg, const v10_model *models);
#define V10_STALL_FACTOR 16.0

/* -1 with err set if the estimate exceeds V10_HORIZON_MAX_CYCLES. */
int v10_run_check_horizon(const v10_run_config *cfg, const v10_model *models, v10_err *err);

#endif
