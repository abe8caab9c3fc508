/*
 * span.h (internal) — run spans, shared by repro, collocation and the fleet.
 *
 * Every tenant of a run completes at least the run's request count and keeps
 * loading the NPU until all have (docs/architecture.md), so a run lasts
 * about `requests` of its longest tenant's requests.  For a run of short
 * models that could be less than one PMT slice, and temporal sharing would
 * not be sampled at all; v10_span_requests raises the request count so that
 * the longest tenant's requests span at least min_cycles.
 */
#ifndef V10_COLLOC_SPAN_H
#define V10_COLLOC_SPAN_H

#include "v10/colloc.h"

typedef struct v10_span_model {
    char spec[V10_SPEC_MAX];  /* model spec as given (name or CSV, :batch=N) */
    uint64_t alone_cycles;    /* one request alone, on the span's NPU */
} v10_span_model;

/* Invariants: models[0..n_models) are distinct specs, n_models <= cap_models;
 * min_cycles >= 0. */
typedef struct v10_span {
    v10_npu npu;              /* the NPU the standalone lengths are taken on */
    double min_cycles;        /* a run spans at least this long; 0: no minimum */
    v10_span_model *models;   /* cache of standalone request lengths */
    size_t n_models, cap_models;
} v10_span;

/* min_cycles defaults to four PMT slices of the default policy parameters. */
void v10_span_init(v10_span *g, const v10_npu *npu);
void v10_span_fini(v10_span *g);

/* Looks up (loading once) a model spec; returns its index or -1. */
int v10_span_model_index(v10_span *g, const char *spec, v10_err *err);
/* Records spec's standalone request of alone_cycles on the span's NPU (a
 * caller that loaded it: v10_cost_alone_cycles of the model), unless the
 * cache holds it; its index, or -1 out of memory. */
int v10_span_add(v10_span *g, const char *spec, uint64_t alone_cycles, v10_err *err);

/*
 * The request count for a run of the n tenants: `base`, raised so that
 * requests x the longest tenant's standalone request >= min_cycles.
 * Not thread-safe: call before the pool.  0 on error.
 */
uint64_t v10_span_requests(v10_span *g, const v10_tenant_spec *ts, size_t n, uint64_t base,
                           v10_err *err);

/* ---- a pair's two runs (src/colloc/collocate.c) ------------------------------------ */

/* cfg[0] and cfg[1]: the tenants pair[0..1] under pmt and under v10-full,
 * from base (NPU, seed, contention, ...; no trace), with the request count
 * raised to span the pair (v10_span_requests).  -1 with err set on error. */
int v10_colloc_pair_configs(v10_span *span, const v10_run_config *base, v10_tenant_spec *pair,
                            v10_run_config *cfg, v10_err *err);
/* STP(v10-full) / STP(pmt) of a pair's results r[0..1] (0 if PMT made no progress). */
double v10_colloc_pair_gain(const v10_run_result *r);

#endif
