/*
 * llm_tenant.c — an LLM serving tenant's setup (llm_tenant.h): its requests
 * from a trace or Poisson arrivals, its HBM segment and KV capacity, its
 * server and iteration stream, and its alone-length estimate.
 */
#include "v10/llm_tenant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"

/* N Poisson arrivals at `rate` requests/s whose lengths are rows of t drawn
 * uniformly with the tenant's generator (seeded as the engine seeds its
 * arrival streams: the run's seed split by tenant index). */
static void poisson(v10_llm_request *out, size_t n, const v10_llm_trace *t, double rate,
                    uint64_t seed, size_t index)
{
    uint64_t s[4];
    v10_xoshiro_seed(s, seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(index + 1)));
    double at = 0;
    for (size_t k = 0; k < n; k++) {
        at += -log1p(-v10_xoshiro_unit(s)) / rate;
        size_t row = (size_t)(v10_xoshiro_unit(s) * (double)t->n);
        out[k] = t->reqs[row < t->n ? row : t->n - 1];
        out[k].arrival_s = at;
    }
}

/* The requests: the trace's first `requests`, or Poisson draws. */
static int requests_of(v10_llm_tenant *L, const v10_tenant_spec *sp, size_t index,
                       uint64_t requests, uint64_t seed, v10_err *err)
{
    v10_llm_trace t;
    memset(&t, 0, sizeof t);
    int trace = sp->llm == 1;
    if (v10_llm_trace_read(sp->llm_file, trace ? 1.0 / sp->rate_scale : 1.0,
                           trace ? sp->start_s : 0, &t, err))
        return -1;
    int rc = -1;
    if (sp->llm_requests)
        requests = sp->llm_requests;
    if (trace && t.n < requests) {
        v10_err_set(err, "%s: %zu requests, but %s asks for the first %llu", sp->llm_file, t.n,
                    sp->llm_requests ? "requests=" : "--requests", (unsigned long long)requests);
        goto done;
    }
    if (!(L->reqs = calloc((size_t)requests, sizeof *L->reqs))) {
        v10_err_set(err, "%s: out of memory for %llu requests", sp->llm_file,
                    (unsigned long long)requests);
        goto done;
    }
    L->n = (size_t)requests;
    /* Every request the run may use must fit the context and the KV cache:
     * a trace's first n, and every row of a lengths= file (whichever rows
     * a seed draws, the file is valid or not). */
    size_t check = trace ? L->n : t.n;
    for (size_t k = 0; k < check; k++) {
        const v10_llm_request *q = &t.reqs[k];
        uint64_t len = (uint64_t)q->prompt_tokens + q->output_tokens;
        if (len > L->cfg.max_context || len > L->kv_capacity_tokens) {
            int ctx = len > L->cfg.max_context;
            v10_err_set(err, "%s: request %zu (row %zu after the header): %u prompt + %u "
                             "output tokens exceed %s's %s of %llu", sp->llm_file, k, k + 1,
                        q->prompt_tokens, q->output_tokens, L->cfg.name,
                        ctx ? "max_context" : "KV cache",
                        (unsigned long long)(ctx ? L->cfg.max_context : L->kv_capacity_tokens));
            goto done;
        }
    }
    if (trace)
        memcpy(L->reqs, t.reqs, L->n * sizeof *L->reqs);
    else
        poisson(L->reqs, L->n, &t, sp->rate_rps, seed, index);
    rc = 0;
done:
    v10_llm_trace_fini(&t);
    return rc;
}

/* Cycles of one iteration over n sequences of `tokens` each. */
static int iter_cycles(v10_llm_tenant *L, v10_llm_iter_kind kind, uint32_t tokens, double *out,
                       v10_err *err)
{
    uint32_t req = 0;
    v10_llm_iter it = {.kind = kind, .n = 1, .req = &req, .tokens = &tokens, .n_emit = 1,
                       .n_decode = kind == V10_LLM_ITER_DECODE,
                       .token_sum = tokens};
    if (v10_llm_stream_build(&L->stream, &it, err))
        return -1;
    *out = (double)L->stream.total_work + (double)L->stream.remote_cycles;
    return 0;
}

/* The estimates of serving every request alone, at the mean prompt and
 * context: one at a time (an upper bound, for the run-length limit), and with
 * decodes batched max_batch at a time (decode iterations cost about as
 * much at any small batch: they stream the weights), whose iterations are
 * one prefill per request and one decode per decode time over the span
 * and the batched work, at most one per output token. */
static int estimate(v10_llm_tenant *L, double clock_mhz, uint32_t max_batch, v10_err *err)
{
    double prompt = 0, out = 0;
    for (size_t k = 0; k < L->n; k++) {
        prompt += L->reqs[k].prompt_tokens;
        out += L->reqs[k].output_tokens;
    }
    double n = (double)L->n, pf, dec;
    uint32_t p = (uint32_t)fmax(1, round(prompt / n));
    uint32_t ctx = (uint32_t)fmin(L->cfg.max_context, round((prompt + out / 2) / n) + 1);
    if (iter_cycles(L, V10_LLM_ITER_PREFILL, p, &pf, err) ||
        iter_cycles(L, V10_LLM_ITER_DECODE, ctx, &dec, err))
        return -1;
    L->ops_per_iteration = L->stream.n_ops;
    L->alone_cycles = n * pf + (out - n) * dec;
    L->batched_cycles = n * pf + (out - n) * dec / max_batch;
    L->span_cycles = L->reqs[L->n - 1].arrival_s * clock_mhz * 1e6;
    /* (a pipeline's pp_batches in flight: that many decodes a decode time) */
    L->iterations = n + fmin(out - n, (L->span_cycles + L->batched_cycles) * L->pp_batches /
                                          fmax(1, dec));
    return 0;
}

/* The most sequences one prefill of this trace can hold (llm_server.c's
 * rule: prompts join while their tokens fit the prefill budget, the first
 * always; chunked, whole prompts but for a first and a last chunk): the
 * stream's buffers are sized to it, not to the worst case of max_batch
 * prompts (issue 24: 16 servers reserved 10 GB). */
static uint32_t prefill_seqs(const v10_llm_tenant *L, const v10_llm_server_opts *o)
{
    uint32_t shortest = UINT32_MAX;
    for (size_t k = 0; k < L->n; k++)
        if (L->reqs[k].prompt_tokens < shortest)
            shortest = L->reqs[k].prompt_tokens;
    uint64_t seqs = (o->chunked ? 2 : 1) + o->max_prefill_tokens / (shortest ? shortest : 1);
    if (seqs > o->max_batch)
        seqs = o->max_batch;
    return (uint32_t)(seqs < L->n ? seqs : L->n);
}

/* Sizes tenant `index`'s KV cache (docs/llm.md, "HBM"): each tenant holds
 * an even segment of HBM, as the paper segments memory between tenants
 * (V10, ISCA 2023, Section 4); the k servers of one model (equal model
 * specs) pool their segments and hold one copy of its weights, which are
 * read-only; V10_LLM_WORKSPACE_PCT of the pool is workspace (activations,
 * the runtime's scratch), and the rest beside the weights is split evenly
 * into the servers' KV caches. */
static int size_kv(v10_llm_tenant *L, const v10_tenant_spec *specs, size_t n_tenants,
                   size_t index, const v10_npu *npu, v10_err *err)
{
    const v10_tenant_spec *sp = &specs[index];
    L->segment_bytes = npu->hbm_capacity_bytes / n_tenants;
    L->weight_sharers = 0;
    for (size_t j = 0; j < n_tenants; j++)
        L->weight_sharers += specs[j].llm && !strcmp(specs[j].model, sp->model);
    uint64_t k = L->weight_sharers, pool = L->segment_bytes * k; /* <= hbm_capacity_bytes */
    L->workspace_bytes = pool / 100 * V10_LLM_WORKSPACE_PCT;
    uint64_t weights = v10_llm_weight_bytes(&L->cfg), usable = pool - L->workspace_bytes;
    if (weights >= usable)
        return v10_err_set(err, "%s: weights of %llu bytes do not fit the %llu bytes left of "
                                "%llu tenant HBM segment(s) of %llu bytes (hbm_capacity_bytes "
                                "%llu / %zu tenants) after the %d%% workspace, leaving no room "
                                "for the KV cache",
                           sp->model, (unsigned long long)weights, (unsigned long long)usable,
                           (unsigned long long)k, (unsigned long long)L->segment_bytes,
                           (unsigned long long)npu->hbm_capacity_bytes, n_tenants,
                           V10_LLM_WORKSPACE_PCT);
    L->kv_capacity_tokens = (usable - weights) / k / v10_llm_kv_bytes_per_token(&L->cfg);
    if (!L->kv_capacity_tokens)
        return v10_err_set(err, "%s: no KV token fits beside the weights (%llu bytes) in "
                                "%llu bytes of HBM", sp->model, (unsigned long long)weights,
                           (unsigned long long)usable);
    return 0;
}

int v10_llm_tenant_load(v10_llm_tenant *L, const v10_tenant_spec *specs, size_t n_tenants,
                        size_t index, const v10_npu *npu, uint64_t requests, uint64_t seed,
                        v10_err *err)
{
    const v10_tenant_spec *sp = &specs[index];
    memset(L, 0, sizeof *L);
    if (v10_llm_resolve_stage(sp->model + 4, npu, sp->pp, 0, &L->cfg, err) ||
        size_kv(L, specs, n_tenants, index, npu, err) ||
        requests_of(L, sp, index, requests, seed, err))
        return -1;
    L->slo_ttft_us = sp->slo_ttft_ms * 1e3;
    L->slo_tpot_us = sp->slo_tpot_ms * 1e3;
    v10_llm_server_opts o;
    v10_llm_server_opts_default(&o);
    if (sp->max_batch)
        o.max_batch = sp->max_batch;
    if (sp->max_prefill_tokens)
        o.max_prefill_tokens = sp->max_prefill_tokens;
    o.chunked = !sp->whole_prefill;
    o.kv_capacity_tokens = L->kv_capacity_tokens;
    o.clock_mhz = npu->clock_mhz;
    if (sp->kv_block)
        o.kv_block = sp->kv_block;
    /* vLLM's TPU runtime: the shapes it compiles (docs/llm.md, "Padding to
     * compiled shapes"); the stream copies the configuration below. */
    L->cfg.pad_tokens = sp->pad_tokens ? (uint32_t)o.max_prefill_tokens : 0;
    L->cfg.pad_reqs = sp->pad_reqs ? o.max_batch : 0;
    L->cfg.kv_page = sp->pad_kv ? o.kv_block : 0;
    L->host_cycles = (uint64_t)llround(sp->host_us * npu->clock_mhz);
    L->pp_stretch = !sp->pp_unstretched;
    /* vLLM V1 keeps a batch a stage in flight (its engine core's batch
     * queue holds pipeline_parallel_size batches); its V0 scheduler, which
     * prefills whole prompts, is modelled with one (docs/llm.md). */
    uint32_t pp = sp->pp > 1 ? sp->pp : 1;
    L->pp_batches = sp->pp_batches ? sp->pp_batches : o.chunked ? pp : 1;
    o.max_inflight = L->pp_batches;
    L->back = calloc(L->pp_batches, sizeof *L->back);
    L->started = calloc(L->pp_batches, sizeof *L->started);
    L->stage_free = calloc(pp, sizeof *L->stage_free);
    if (!L->back || !L->started || !L->stage_free)
        return v10_err_set(err, "%s: out of memory", sp->model);
    if (v10_llm_server_init(&L->server, L->reqs, L->n, &o, err) ||
        v10_llm_stream_init(&L->stream, &L->cfg, npu, npu->vmem_bytes / n_tenants,
                            prefill_seqs(L, &o), err) ||
        estimate(L, npu->clock_mhz, o.max_batch, err)) {
        v10_err_prefix(err, "%s", sp->model);
        return -1;
    }
    return 0;
}

void v10_llm_tenant_fini(v10_llm_tenant *L)
{
    free(L->reqs);
    free(L->back);
    free(L->started);
    free(L->stage_free);
    v10_llm_server_fini(&L->server);
    v10_llm_stream_fini(&L->stream);
    memset(L, 0, sizeof *L);
}

int v10_tenant_model_load(const v10_tenant_spec *sp, const v10_npu *npu, v10_model *out,
                          v10_err *err)
{
    if (!sp->llm)
        return v10_model_load(sp->model, npu, out, err);
    v10_llm_config c;
    if (v10_llm_resolve(sp->model + 4, &c, err))
        return -1;
    v10_model_init(out, c.name, 1);
    return 0;
}
