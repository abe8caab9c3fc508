/*
 * llm_tenant.h — an LLM serving tenant's inputs and server, set up from its
 * spec (sim.h, "llm/MODEL:trace=FILE..."; docs/llm.md "Serving tenants"):
 * its requests (a trace's first N, or N Poisson arrivals with lengths drawn
 * from a trace's rows), its HBM and KV capacity, its server and its
 * iteration stream, and what the run's length estimate needs.
 *
 * v10_run (src/sim/run.c) loads one per serving tenant and the engine
 * drives it; v10_llm_tenant_fini frees it (safe after a failed load).
 */
#ifndef V10_LLM_TENANT_H
#define V10_LLM_TENANT_H

#include <stddef.h>
#include <stdint.h>

#include "v10/llm_server.h"
#include "v10/sim.h"

/* The share of a server's HBM kept as workspace (activations, the
 * runtime's scratch), not for weights or KV: vLLM's gpu_memory_utilization
 * default, 0.9 (CacheConfig in vllm/config.py; docs.vllm.ai "Engine
 * Arguments"), leaves 10% of the device to everything else. */
#define V10_LLM_WORKSPACE_PCT 10

/*
 * Invariants after a successful load: reqs[0..n) in arrival order, each
 * with prompt + output <= cfg.max_context and <= kv_capacity_tokens;
 * weights + weight_sharers x kv_capacity_tokens x KV bytes per token +
 * workspace_bytes <= weight_sharers x segment_bytes.
 */
typedef struct v10_llm_tenant {
    v10_llm_config cfg;
    v10_llm_request *reqs;
    size_t n;
    uint64_t segment_bytes;       /* its share of HBM: capacity / tenants */
    uint64_t weight_sharers;      /* servers of its model on the NPU (itself included),
                                     which pool their segments and share one weight copy */
    uint64_t workspace_bytes;     /* V10_LLM_WORKSPACE_PCT of the pooled segments */
    uint64_t kv_capacity_tokens;
    double slo_ttft_us, slo_tpot_us; /* 0: none */
    v10_llm_server server;
    v10_llm_stream stream;
    /* the length estimate (sim/horizon.c): every request served alone */
    double alone_cycles;          /* prefills plus one-sequence decodes (an upper bound) */
    double batched_cycles;        /* the same with decodes max_batch at a time */
    double iterations;            /* a prefill each, and the decodes that fit the
                                     span plus the batched work, at most output - 1 each */
    double span_cycles;           /* last arrival */
    size_t ops_per_iteration;     /* operators of a one-sequence decode */
    uint64_t host_cycles;         /* host time before each iteration's operators (host_us) */
    int pp_stretch;               /* a pipeline's other stages stretched as stage 0 was */
    uint32_t pp_batches;          /* batches in flight through the pipeline, 1 to pp
                                     (the server's max_inflight) */
    /* the engine's (src/engine/llm.c) */
    uint64_t iter_start;          /* cycle the iteration on this chip started */
    uint64_t ops_start;           /* cycle its operators were issued (after its host time) */
    int host_wait;                /* 1: an iteration chosen, its host time not yet passed */
    uint64_t host_at;             /* then, when it passes */
    /* A pipeline's iterations whose operators here are done, on the other
     * stages' chips (ring of pp_batches, oldest first): each comes back
     * at back[k], having started at started[k]; stage_free[s] is when
     * stage s (1 to pp - 1) is done with the iterations sent so far. */
    uint64_t *back, *started, *stage_free;
    uint32_t away_head, n_away;
    double iter_work;             /* standalone work of the iterations whose operators
                                     here are done */
    int counted;                  /* 1 once its finish counted toward the run's end */
} v10_llm_tenant;

/*
 * Sets up tenant `index` of the run's n_tenants (specs[0..n_tenants), whose
 * servers of the same model share its weights) for `requests` requests
 * (its llm_requests instead if set): reads the file, draws Poisson
 * arrivals from `seed` (split by index), sizes the KV cache, initializes
 * the server and the stream with a vmem_share of vector memory.  -1 with
 * err naming the file, line or key: a trace shorter than `requests`, a
 * request longer than the model's context or KV cache, weights that do not
 * fit (both sizes named).
 */
int v10_llm_tenant_load(v10_llm_tenant *L, const v10_tenant_spec *specs, size_t n_tenants,
                        size_t index, const v10_npu *npu, uint64_t requests, uint64_t seed,
                        v10_err *err);
void v10_llm_tenant_fini(v10_llm_tenant *L);

/* A tenant's model: v10_model_load's, or for an LLM server an empty model
 * named after its configuration (its operators are its iterations'). */
int v10_tenant_model_load(const v10_tenant_spec *sp, const v10_npu *npu, v10_model *out,
                          v10_err *err);

#endif
