/*
 * horizon.h — the run-length limit (docs/limits.md): simulated time is a
 * 64-bit cycle count, so a run whose estimated length could come near 2^64
 * cycles is refused up front instead of wrapping.
 */
#ifndef V10_SIM_HORIZON_H
#define V10_SIM_HORIZON_H

#include "v10/llm_tenant.h"
#include "v10/sim.h"

/* Estimated run length may not exceed 2^60 cycles (about 52,000 years at
 * 700 MHz): a 16x margin under the 64-bit clock for the estimate's slack. */
#define V10_HORIZON_MAX_CYCLES (1ull << 60)

/*
 * Estimates an upper bound on the run's length in cycles from the costed
 * models (models[i] serves cfg->tenants[i]):
 *   (longest Poisson arrival span x 4 + 4 x sum of requests x alone latency)
 *   x (1 + largest context switch / shortest slice).
 * An LLM server (llm[i].n > 0; llm may be NULL without any) counts its
 * last arrival as its span and its requests served alone, one at a time,
 * as its work (llm_tenant.h).
 * Only the up-front limit below uses it: a run is bounded while it runs by
 * its events (sim/run.c), so a policy that starves a tenant, or an
 * open-loop tenant whose backlog grows without bound, ends in an error,
 * not a hang, and a slow run is never taken for a starved one.
 */
double v10_run_estimate_cycles(const v10_run_config *cfg, const v10_model *models,
                               const v10_llm_tenant *llm);

/*
 * Estimates, before the run, the events it will process (its work for the
 * engine, as opposed to simulated time), without the 4x slack of the cycle
 * bound; an upper bound for time-sharing policies, far over on operator
 * turns (the event budget extrapolates from the run itself instead,
 * sim/run.c, and uses this only for T):
 *   T = the expected length in cycles: the longest Poisson arrival span,
 *       or the longest a tenant needs at its priority share,
 *       max_i requests x alone latency_i x (sum of priorities / priority_i);
 *   events = sum over tenants of the requests it completes in T (its count,
 *            or T / alone latency for a closed loop that keeps the NPU
 *            loaded, or T x rate for an open loop) x (2 x operators + 2),
 *            + T / shortest time slice (timer ticks, for a policy with a timer);
 *   an LLM server: its span and its work alone with decodes batched
 *   (llm_tenant.h) as above, and its estimated iterations x (2 x the
 *   operators of a decode + 2).
 */
double v10_run_estimate_events(const v10_run_config *cfg, const v10_model *models,
                               const v10_llm_tenant *llm,
                               double *cycles);

/* The events v10_run_estimate_events expects of cfg, its models and LLM
 * servers loaded for the purpose: a batch's progress bar weighs its runs
 * by it (sim/batch.c); 0 if an input does not load (the run will fail). */
double v10_run_estimate_work(const v10_run_config *cfg);

/* The default event budget (docs/limits.md): 10^9 events, about a minute
 * at the engine's rate; a run estimated over cfg->max_events (this when 0)
 * is stopped at its first check (sim/run.c), V10_EVENT_CHECK events in (or
 * a quarter of the budget, if smaller). */
#define V10_EVENT_BUDGET 1e9
#define V10_EVENT_CHECK 1e6

/* The engine's speed quoted in the refusal: events per second of
 * bench/bench_engine.c on the 2-core build machine, the lowest of its
 * configurations (docs/benchmarks.md, "Engine"). */
#define V10_EVENTS_PER_S 15e6

/* -1 with err set if the estimate exceeds V10_HORIZON_MAX_CYCLES (with the
 * estimate and what to change).  The event budget is checked on the run
 * itself (sim/run.c). */
int v10_run_check_horizon(const v10_run_config *cfg, const v10_model *models,
                          const v10_llm_tenant *llm, v10_err *err);

#endif
