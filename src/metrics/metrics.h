/*
 * metrics.h — turns the engine's counters into the figures docs/architecture.md defines.
 */
#ifndef V10_METRICS_H
#define V10_METRICS_H

#include "engine/engine.h"

/* Fills *out from a finished engine; -1 with err set on allocation failure. */
int v10_metrics_compute(const v10_engine *e, const v10_model *models, v10_run_result *out,
                        v10_err *err);

#endif
