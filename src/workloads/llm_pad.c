/*
 * llm_pad.c — the shapes vLLM's TPU runtime compiles and pads an LLM
 * iteration to (docs/llm.md, "Validation against published serving
 * figures"): its token and request buckets, and the whole KV pages its
 * paged attention kernel reads.  The stream builder (llm.c) applies them
 * when a server's configuration asks (v10_llm_config's pad_tokens,
 * pad_reqs, kv_page).
 */
#include "v10/llm.h"

/*
 * vLLM's TPU runtime compiles one graph per padded shape and pads each
 * step to the next (vllm/v1/worker/tpu_model_runner.py): the scheduled
 * tokens to the first of 16, 32, 64, ... (_get_token_paddings with
 * VLLM_TPU_BUCKET_PADDING_GAP's default 0: powers of two from 16, the
 * last the first >= max_num_batched_tokens), the requests whose logits
 * are computed to 8, 16, 32, ... (_get_req_paddings: MIN_NUM_SEQS = 8,
 * then powers of two, capped at max_num_seqs).  v10_llm_pad_tokens and
 * v10_llm_pad_reqs; 0 for `max`: no padding (n itself).
 */
uint64_t v10_llm_pad_tokens(uint64_t n, uint64_t max)
{
    if (!max)
        return n;
    uint64_t b = 16;
    while (b < n && b < max)
        b *= 2;
    return b >= n ? b : n;
}

uint64_t v10_llm_pad_reqs(uint64_t n, uint64_t max)
{
    if (!max)
        return n;
    uint64_t b = 8;
    while (b < n)
        b *= 2;
    uint64_t cap = max > 8 ? max : 8; /* max_num_reqs = max(max_num_seqs, MIN_NUM_SEQS) */
    return b < cap ? b : cap > n ? cap : n;
}

/* Tokens of K and V a sequence of `ctx` keys reads: whole pages of `page`
 * tokens (0: its own ctx), as the ragged paged attention kernel copies
 * them (jax/experimental/pallas/ops/tpu/ragged_paged_attention.py,
 * MultiPageAsyncCopyDescriptor: page by page). */
uint64_t v10_llm_kv_read(uint64_t ctx, uint32_t page)
{
    return page ? (ctx + page - 1) / page * page : ctx;
}

/* The decodes' cached tokens read in all: sum, or with kv_page whole pages. */
uint64_t v10_llm_kv_read_sum(const v10_llm_config *c, uint32_t n, const uint32_t *ctx,
                             uint64_t sum)
{
    if (!c->kv_page)
        return sum;
    sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += v10_llm_kv_read(ctx[i], c->kv_page);
    return sum;
}
