/*
 * llm_server.h — an LLM inference server with iteration-level (continuous)
 * batching, as a state machine driven by the engine's clock: requests
 * arrive, wait in a queue, are admitted between iterations while the batch
 * and the KV cache have room, get their prompt prefilled (which emits their
 * first token), then emit one token per decode iteration until done, and
 * leave (docs/llm.md).
 *
 * The server decides *what* each iteration computes; the engine decides
 * *when* it runs (it costs the iteration's operator stream, v10_llm_prefill
 * and v10_llm_decode, and shares the NPU with other tenants).  Protocol:
 *
 *     v10_llm_server_init(&s, reqs, n, &opts, err);
 *     loop: v10_llm_server_next(&s, now, &it)  -> an iteration, or none
 *           (none: idle until v10_llm_server_next_arrival(&s))
 *           ... the engine runs `it` ...
 *           v10_llm_server_done(&s, end);
 *     v10_llm_server_stats(&s, &st);  v10_llm_server_fini(&s);
 *
 * Scheduling (docs/llm.md).  With chunked prefill (the default) an
 * iteration is what vLLM V1's scheduler makes of a step
 * (vllm/v1/core/sched/scheduler.py, Scheduler.schedule): the running
 * requests first, in the order they were admitted, each taking the tokens
 * it has left to compute (one for a decode, the rest of its prompt for a
 * prefill) within what remains of the max_prefill_tokens budget; each
 * gets KV blocks of V10_LLM_KV_BLOCK tokens for the tokens it is scheduled
 * (vllm/v1/core/kv_cache_manager.py, allocate_slots), and when they do not
 * fit the newest running request is preempted (its blocks freed, to be
 * recomputed later: prompt and emitted tokens prefilled again), down to
 * the request itself, which then waits with the rest; then, only if no
 * request was preempted, waiting requests (the preempted ones first, the
 * last preempted first, then arrivals in order) are admitted while the
 * batch, the budget and the KV blocks for their first chunk allow,
 * stopping at the first that does not fit (no overtaking).  A prompt
 * longer than what the budget leaves is prefilled over several
 * iterations and emits its first token with its last chunk.  Without
 * chunking (vLLM V0's scheduler): admission reserves the blocks of the
 * whole prompt, an iteration prefills whole prompts (up to
 * max_prefill_tokens, at least one) and otherwise decodes every running
 * request once, the newest preempted while their next blocks do not fit.
 * Nothing is ever reserved for output a request has not made: a server
 * does not know output lengths.
 */
#ifndef V10_LLM_SERVER_H
#define V10_LLM_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/llm.h"
#include "v10/llm_trace.h"
#include "v10/model.h"
#include "v10/npu.h"

/* KV cache block, tokens: vLLM's default block_size (CacheConfig, 16 on
 * GPUs; Kwon et al., SOSP 2023, use 16 as well). */
#define V10_LLM_KV_BLOCK 16

typedef struct v10_llm_server_opts {
    uint32_t max_batch;          /* requests admitted at once, >= 1 */
    uint64_t kv_capacity_tokens; /* KV cache tokens that fit beside the weights, >= 1 */
    uint64_t max_prefill_tokens; /* token budget of an iteration, >= 1: chunked, its
                                    decodes and prefill chunks; else a prefill's prompts */
    int chunked;                 /* 1: chunked prefill mixed with decodes */
    double clock_mhz;            /* converts arrival seconds to cycles, > 0 */
    uint32_t kv_block;           /* KV block (page) size, tokens, >= 1 */
    uint32_t max_inflight;       /* iterations handed out and not done at once, in
                                    [1, 64]: a pipeline's batches in flight (> 1
                                    needs chunked) */
} v10_llm_server_opts;

/* Defaults: kv_block V10_LLM_KV_BLOCK; one iteration in flight; max_batch 256, vLLM's default max_num_seqs (EngineArgs in
 * vllm/engine/arg_utils.py; docs.vllm.ai, "Engine Arguments"), so that KV
 * space, not a batch cap, limits a server as in vLLM; max_prefill_tokens
 * 4096 (vLLM's max_num_batched_tokens ranges 2048-8192 by usage context);
 * chunked prefill on (vLLM V1's scheduler always chunks); kv_capacity and
 * clock must be set. */
void v10_llm_server_opts_default(v10_llm_server_opts *o);

typedef enum v10_llm_iter_kind {
    V10_LLM_ITER_PREFILL = 1, /* prompts of seqs[0..n) */
    V10_LLM_ITER_DECODE,      /* one token for each of seqs[0..n) */
    V10_LLM_ITER_MIXED,       /* chunked: decodes seqs[0..n_decode), then prompt chunks */
} v10_llm_iter_kind;

/*
 * One iteration; the arrays are the server's, valid until the next call.
 * Sequences [0, n_decode) decode, the rest prefill (whole prompts, or in
 * MIXED chunks of them); sequences [0, n_emit) emit a token: every decode,
 * and every prefill but a MIXED iteration's last chunk when it does not
 * end its prompt (n_emit is n or n - 1).
 */
typedef struct v10_llm_iter {
    v10_llm_iter_kind kind;
    uint32_t n;               /* sequences */
    const uint32_t *req;      /* their request indices */
    const uint32_t *tokens;   /* a decode's context length including the token
                                 being made; a prefill's prompt (or chunk) tokens */
    uint64_t token_sum;       /* PREFILL, DECODE: sum of tokens[]; MIXED: the
                                 prefill chunks' tokens */
    uint32_t n_decode, n_emit;
    const uint32_t *past;     /* MIXED: a chunk's tokens already in the cache (0 for
                                 decodes); NULL otherwise */
} v10_llm_iter;

/* One request's life, in cycles (UINT64_MAX: not reached yet). */
typedef struct v10_llm_req_state {
    uint64_t arrival, admitted, first_token, finished;
    uint32_t prompt, output;  /* tokens */
    uint32_t emitted;         /* output tokens emitted so far, <= output */
    uint32_t preempted;       /* times its KV blocks were taken back */
    uint32_t computed;        /* tokens of its current prefill scheduled (computed, or
                                 in an iteration in flight; chunked; 0 when admitted
                                 and after a preemption) */
    int prefilled;            /* its cache holds prompt + emitted tokens (0 when
                                 admitted, and again after a preemption) */
    uint64_t kv_alloc;        /* KV tokens its blocks hold (whole blocks; 0 when
                                 not running) */
    uint32_t flying;          /* iterations handed out and not done that hold it (more
                                 than one only with chunks of its prompt) */
} v10_llm_req_state;

/*
 * Invariants: requests are in arrival order; the queue is the preempted
 * requests (pre[0..n_pre), the last one first) then the requests arrived
 * and never admitted, in order (indices [head, arrived)); the running set
 * holds at most max_batch admitted, unfinished requests in admission
 * order, and n_run + n_pre <= max_batch; kv_used = the sum of the running
 * requests' kv_alloc <= kv_capacity_tokens, each a whole number of blocks
 * covering the tokens it has computed and is scheduled to compute; a
 * request's emitted count only grows, by one per iteration that includes
 * it.  The iterations in flight, at most max_inflight, are fly[(fly_head +
 * k) % max_inflight] for k < n_fly, oldest first, each with its own
 * max_batch-long arrays; their requests are running and flying (in that
 * many of them), none preempted, and none in two but with chunks of its
 * prompt.
 */
typedef struct v10_llm_server {
    v10_llm_server_opts o;
    v10_llm_req_state *r;
    size_t n;
    size_t arrived;            /* requests with arrival <= the last `now` seen */
    size_t head;               /* first request not admitted yet */
    uint32_t *run;             /* running set, admission order */
    uint32_t n_run;
    uint32_t *pre;             /* preempted, waiting to be recomputed (max_batch) */
    uint32_t n_pre;
    uint64_t preemptions;      /* KV preemptions so far */
    uint64_t kv_used, kv_peak;
    uint32_t *it_req, *it_tok, *it_past; /* the iterations' arrays, max_batch each */
    v10_llm_iter *fly;         /* the iterations in flight (max_inflight) */
    uint32_t fly_head, n_fly;
    size_t finished;
    uint64_t tokens_emitted;   /* output tokens emitted so far (a window is
                                  the difference of two readings) */
    uint64_t iterations[4];    /* by kind (index 1 prefill, 2 decode, 3 mixed) */
} v10_llm_server;

/*
 * Copies the n requests (arrival seconds become cycles at o->clock_mhz).
 * -1 with err set if an option is out of range or a request could never
 * finish (even alone, the blocks of its prompt plus output exceed the KV
 * capacity: named by its index and both sizes).
 */
int v10_llm_server_init(v10_llm_server *s, const v10_llm_request *reqs, size_t n,
                        const v10_llm_server_opts *o, v10_err *err);
void v10_llm_server_fini(v10_llm_server *s);

/* Cycle of the first request not yet arrived at `now`, or UINT64_MAX. */
uint64_t v10_llm_server_next_arrival(const v10_llm_server *s);

/*
 * At cycle `now` (non-decreasing, fewer than max_inflight iterations in
 * flight): takes in the arrivals up to now, admits what fits, and fills
 * *it with the next iteration of the running requests not in flight and
 * those admitted.  Returns 1, or 0 if there is nothing to run until the
 * next arrival or an iteration in flight is done (or ever, once all
 * requests have finished).
 */
int v10_llm_server_next(v10_llm_server *s, uint64_t now, v10_llm_iter *it);

/* The oldest iteration in flight ended at cycle `now`: its sequences emit
 * a token each; finished requests leave and free their KV space. */
void v10_llm_server_done(v10_llm_server *s, uint64_t now);

/* The oldest iteration in flight (the one v10_llm_server_done ends next), or
 * NULL when none is. */
static inline const v10_llm_iter *v10_llm_server_oldest(const v10_llm_server *s)
{
    return s->n_fly ? &s->fly[s->fly_head] : NULL;
}

/* 1 once every request has finished. */
static inline int v10_llm_server_finished(const v10_llm_server *s)
{
    return s->finished == s->n;
}

/* Latency distribution of one metric over the finished requests, µs; NAN
 * (null in JSON) without a sample. */
typedef struct v10_llm_dist {
    double avg, p50, p95, p99;
    size_t n;                  /* samples */
} v10_llm_dist;

typedef struct v10_llm_stats {
    size_t completed;          /* requests finished in the window */
    uint64_t tokens;           /* their output tokens */
    v10_llm_dist ttft;         /* arrival -> first token */
    v10_llm_dist tpot;         /* (finish - first token) / (output - 1), output > 1 */
    v10_llm_dist e2e;          /* arrival -> last token */
    v10_llm_dist queue;        /* arrival -> admission */
    double slo_ttft, slo_tpot; /* fraction within the SLO; -1 without one */
    uint64_t kv_peak;          /* most KV tokens held at once (whole blocks) */
    uint64_t prefills, decodes; /* iterations that prefill (whole prompts or chunks,
                                   with or without decodes), and decode-only ones */
    uint64_t kv_preemptions;   /* requests preempted for KV blocks (whole run) */
    uint64_t first_arrival, last_finish; /* cycles: the span of the window's requests,
                                            from the first's arrival to the last finish
                                            (0, 0 without requests) */
} v10_llm_stats;

/*
 * Statistics over requests that finished in cycles [from, to) (to == 0: no
 * end).  SLOs in µs, 0 for none.
 * -1 only if out of memory.
 */
int v10_llm_server_stats(const v10_llm_server *s, uint64_t from, uint64_t to,
                         double slo_ttft_us, double slo_tpot_us, v10_llm_stats *st,
                         v10_err *err);

/*
 * The per-request samples behind v10_llm_server_stats' TTFT and TPOT, over
 * the same requests (finished in cycles [from, to), to == 0: no end), µs,
 * in request (arrival) order: *ttft holds one per request (*n_ttft), *tpot
 * one per request with more than one output token (*n_tpot).  The arrays
 * are malloc'd (never NULL on success) and the caller frees them.
 * -1 only if out of memory.
 */
int v10_llm_server_samples(const v10_llm_server *s, uint64_t from, uint64_t to, double **ttft,
                           size_t *n_ttft, double **tpot, size_t *n_tpot, v10_err *err);

/*
 * An iteration's operator stream, costed for one NPU and one share of its
 * vector memory (src/tenant/llm_stream.c): what the engine runs for the
 * iteration.  A prefill of k prompts is one v10_llm_prefill_batch stream
 * (the weights read once for all k, each prompt's attention its own); a
 * decode is one v10_llm_decode stream; a chunked (MIXED) iteration one
 * v10_llm_mixed stream.  Buffers are sized at init for
 * max_batch sequences, so building an iteration allocates nothing (a
 * longer stream than the estimate grows them once).
 *
 * Invariant after v10_llm_stream_build: n_ops >= 1; work[i], bytes[i],
 * fu[i], macs[i] describe operator i of `model`; total_work = sum of work.
 */
typedef struct v10_llm_stream {
    v10_llm_config cfg;
    v10_npu npu;
    uint64_t vmem_share;      /* bytes of vector memory the tenant holds */
    v10_model model;          /* the last iteration's operators */
    uint64_t *work, *bytes;   /* per op: standalone cycles and HBM bytes with the share */
    uint8_t *fu;              /* per op: v10_fu_type */
    double *macs;             /* per op */
    size_t n_ops, cap;
    uint64_t total_work;
    /* A pipeline's stage 0 (cfg.pp > 1): the standalone cycles of the
     * iteration on the other stages' chips, each with the same share of
     * vector memory (stages 1 to pp - 2 alike, then the last); 0 for a
     * whole model.  remote holds the last of them built.  remote_mid is
     * one of stages 1 to pp - 2 (0 if there are none), so the last stage
     * takes remote_cycles - (pp - 2) x remote_mid. */
    uint64_t remote_cycles, remote_mid;
    v10_model remote;
} v10_llm_stream;

/* Sizes the buffers for prefills of up to max_batch sequences (the most a
 * prefill of the tenant's requests can hold) beside any decode; -1 if the
 * configuration is invalid or memory runs out. */
int v10_llm_stream_init(v10_llm_stream *s, const v10_llm_config *cfg, const v10_npu *npu,
                        uint64_t vmem_share, uint32_t max_batch, v10_err *err);
/* Builds and costs the stream of `it` (and for a pipeline remote_cycles);
 * -1 with err set on a bad size. */
int v10_llm_stream_build(v10_llm_stream *s, const v10_llm_iter *it, v10_err *err);
void v10_llm_stream_fini(v10_llm_stream *s);

#endif
