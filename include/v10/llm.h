/*
 * llm.h — decoder-only LLMs from their configuration (docs/models.md "LLM
 * models"): presets, a JSON form, sizes (weights, KV cache, FLOPs per
 * token), the HBM fit check, and the two serving phases — a prefill of P
 * prompt tokens and one decode iteration over a batch of sequences — as
 * operator streams appended to a v10_model for the one cost model (cost.h).
 *
 * Weights and the KV cache are bf16 in HBM.  A v10_llm_config is plain
 * data, copied by value.  Serving (continuous batching, TTFT/TPOT) is not
 * built on this yet.
 */
#ifndef V10_LLM_H
#define V10_LLM_H

#include <stdint.h>

#include "v10/err.h"
#include "v10/model.h"
#include "v10/npu.h"

typedef enum v10_llm_ffn {
    V10_LLM_GELU = 0, /* up (GELU fused) and down projections (GPT-2) */
    V10_LLM_SWIGLU,   /* gate and up projections, silu(gate) x up, down (Llama) */
} v10_llm_ffn;

typedef enum v10_llm_norm {
    V10_LLM_LAYERNORM = 0, /* gamma and beta per channel (GPT-2) */
    V10_LLM_RMSNORM,       /* gamma only (Llama) */
} v10_llm_norm;

typedef enum v10_llm_pos {
    V10_LLM_LEARNED = 0,   /* a max_context x hidden table added to the input (GPT-2) */
    V10_LLM_ROTARY,        /* rotary embeddings applied to Q and K (Llama) */
} v10_llm_pos;

typedef enum v10_llm_attn {
    V10_LLM_FUSED = 0,     /* flash attention: Q, K, V and the output move, scores stay
                              on chip (the default; docs/models.md "Attention") */
    V10_LLM_UNFUSED,       /* QK^T, softmax and P.V as separate operators, the scores
                              written to HBM and read back */
} v10_llm_attn;

/*
 * One decoder-only transformer, pre-norm.  Invariants (v10_llm_validate):
 * every count >= 1; heads is a multiple of kv_heads (grouped-query
 * attention; kv_heads == heads is plain multi-head attention); head_dim is
 * its own field because it need not be hidden / heads.
 */
typedef struct v10_llm_config {
    char name[V10_NAME_MAX];
    uint32_t layers;          /* decoder blocks */
    uint32_t hidden;          /* model width (d_model) */
    uint32_t heads;           /* query heads */
    uint32_t kv_heads;        /* key/value heads (GQA groups) */
    uint32_t head_dim;        /* per-head width */
    uint32_t ffn;             /* FFN inner width (intermediate_size) */
    uint32_t vocab;           /* vocabulary, rows of the embedding */
    uint32_t max_context;     /* longest sequence, tokens */
    v10_llm_ffn ffn_act;
    v10_llm_norm norm;
    v10_llm_pos positions;
    int bias;                 /* 1: the linear layers have biases (GPT-2) */
    int tied_embeddings;      /* 1: the LM head is the embedding table */
    v10_llm_attn attention;   /* how attention is compiled (not a property of the model) */
    uint32_t tp;              /* 0 or 1: the whole model; N > 1: one chip's shard of the
                                 model split over N chips (v10_llm_shard; not a JSON key) */
    uint32_t pp, stage;       /* pp 0 or 1: every layer; S > 1: pipeline stage `stage`
                                 (0 to S - 1) of S, layers its share (v10_llm_pipeline;
                                 not JSON keys) */
    /* The serving runtime's compiled shapes (a server's pad_* keys, docs/llm.md
     * "Padding to compiled shapes"; not JSON keys; 0: none, as for a phase).
     * pad_tokens: an iteration's tokens run through the token-wise operators
     * padded to the next of 16, 32, 64, ... (the last the first >= pad_tokens);
     * pad_reqs: the LM head and sampling run for every scheduled sequence,
     * padded to 8, 16, 32, ... up to pad_reqs; kv_page: attention reads and
     * scores each sequence's K and V in whole pages of kv_page tokens. */
    uint32_t pad_tokens, pad_reqs, kv_page;
} v10_llm_config;

/* vLLM's TPU runtime's compiled shapes (src/workloads/llm.c): n tokens
 * padded to 16, 32, 64, ... (the last the first >= max); n sequences to 8,
 * 16, 32, ... capped at max (at least 8); max 0: n itself. */
uint64_t v10_llm_pad_tokens(uint64_t n, uint64_t max);
uint64_t v10_llm_pad_reqs(uint64_t n, uint64_t max);
/* Tokens of K and V attention reads for ctx keys: whole pages of `page`
 * (0: ctx); over n sequences of c (c->kv_page), whose exact sum is `sum`. */
uint64_t v10_llm_kv_read(uint64_t ctx, uint32_t page);
uint64_t v10_llm_kv_read_sum(const v10_llm_config *c, uint32_t n, const uint32_t *ctx,
                             uint64_t sum);

/* Names of the presets, NULL-terminated. */
extern const char *const v10_llm_preset_names[];

/* Fills *out with preset `name`; -1 (listing the presets) if unknown. */
int v10_llm_preset(const char *name, v10_llm_config *out, v10_err *err);

/*
 * A JSON object of config keys (docs/formats.md "LLM configuration"):
 * "base" names a preset to start from; without it every size key is
 * required.  Unknown keys, wrong types and out-of-range values are errors
 * naming `origin` and the key.
 */
int v10_llm_from_json(const char *text, const char *origin, v10_llm_config *out,
                      v10_err *err);

/* A preset name, or a JSON file (a spec ending in .json or containing '/'). */
int v10_llm_resolve(const char *spec, v10_llm_config *out, v10_err *err);

/* Checks the invariants above; -1 names the first offending key. */
int v10_llm_validate(const v10_llm_config *c, v10_err *err);

/*
 * One chip's shard of c under tensor parallelism over `tp` chips
 * (Megatron's split, Shoeybi et al., arXiv:1909.08053, 2019, as vLLM shards
 * a model): the QKV and the FFN's gate and up projections by columns, the
 * attention output and FFN down projections by rows, so that each chip holds
 * heads / tp query heads, kv_heads / tp KV heads (one KV head, replicated on
 * tp / kv_heads chips, when there are fewer KV heads than chips), ffn / tp of
 * the FFN and vocab / tp (rounded up) of the embedding and LM head; the
 * hidden width, norms and residuals are every chip's.  Its streams add the
 * collectives, on the link engine: an all-reduce of the embedding's rows
 * (a vocabulary-parallel table), one after each block's attention output
 * projection and one after its FFN (two a layer), each of the rows x hidden
 * activations, and an all-gather of the logits before sampling.  tp <= 1
 * leaves c whole.  -1 with err set when heads or ffn is not a multiple of
 * tp, or kv_heads and tp do not divide one another.
 */
int v10_llm_shard(const v10_llm_config *c, uint32_t tp, v10_llm_config *out, v10_err *err);

/*
 * Pipeline stage `stage` of c split over `pp` stages (as vLLM's pipeline
 * parallelism splits a model, get_pp_indices in vllm/distributed/utils.py,
 * here evenly): layers / pp consecutive blocks; the first stage also holds
 * the embedding, the last the final norm and the LM head (a copy of the
 * table when the embeddings are tied).  A stage but the last ends its
 * stream with a send of its activations (rows x hidden) to the next
 * stage's chip (V10_OP_SEND).  pp <= 1 leaves c whole.  -1 with err set
 * when layers is not a multiple of pp or stage >= pp.
 */
int v10_llm_pipeline(const v10_llm_config *c, uint32_t pp, uint32_t stage, v10_llm_config *out,
                     v10_err *err);

/* v10_llm_resolve, then the shard of one of npu's chips (v10_llm_shard over
 * npu->chips): the model as each chip of the NPU runs it. */
int v10_llm_resolve_on(const char *spec, const v10_npu *npu, v10_llm_config *out,
                       v10_err *err);
/* The same with `pp` pipeline stages (pp 0 or 1: none): stage `stage` of the
 * model sharded over the npu->chips / pp chips of a stage; -1 with err set
 * when pp does not divide npu->chips (both named), or as the two above. */
int v10_llm_resolve_stage(const char *spec, const v10_npu *npu, uint32_t pp, uint32_t stage,
                          v10_llm_config *out, v10_err *err);

/* ---- sizes (closed forms; docs/models.md) ---- */

/* Parameters: embeddings, every linear layer (and biases), norms. */
uint64_t v10_llm_params(const v10_llm_config *c);
/* Weights held in HBM: params x 2 bytes (bf16). */
uint64_t v10_llm_weight_bytes(const v10_llm_config *c);
/* Parameters the GEMMs of one token read: every linear layer and the LM
 * head (not the gathered embedding rows, biases or norms). */
uint64_t v10_llm_matmul_params(const v10_llm_config *c);
/* KV cache per token: 2 (K and V) x layers x kv_heads x head_dim x 2 bytes. */
uint64_t v10_llm_kv_bytes_per_token(const v10_llm_config *c);
/* Matmul FLOPs of one token attending over `ctx` tokens (itself included):
 * 2 x matmul_params + 4 x layers x heads x head_dim x ctx (QK^T and P.V). */
uint64_t v10_llm_flops_per_token(const v10_llm_config *c, uint64_t ctx);

/* The most sequences one iteration (or a decode= phase) holds, as batch=. */
#define V10_LLM_MAX_SEQS 65536

/* Causal attention's block, query rows and keys: a flash-attention
 * kernel computes the scores in blocks of this many and skips those above
 * the diagonal (JAX's Pallas TPU flash attention, BlockSizes.get_default:
 * block_q = block_k = 128). */
#define V10_LLM_ATTN_BLOCK 128

/*
 * The score elements a flash-attention kernel computes for `t` queries
 * after `past` cached keys, causally, in V10_LLM_ATTN_BLOCK blocks (every
 * block on or below the diagonal, whole): the sum over key blocks c of the
 * query rows that see block c times its keys.  *rows gets the sum of
 * those rows.  For a whole prompt of n x 128 tokens, 128^2 x n(n + 1) / 2
 * elements (the exact causal count is P(P + 1) / 2).
 */
uint64_t v10_llm_causal_blocks(uint64_t t, uint64_t past, uint64_t *rows);

/*
 * Weights plus the KV cache of `kv_tokens` tokens must fit the NPU's
 * hbm_capacity_bytes; -1 otherwise, the message naming both sizes.
 */
int v10_llm_check_fit(const v10_llm_config *c, const v10_npu *npu, uint64_t kv_tokens,
                      v10_err *err);

/* ---- phases as operator streams (appended to *m, not costed) ---- */

/*
 * The prefill of one sequence of `tokens` prompt tokens: every weight GEMM
 * has M = tokens; causal attention is batched GEMMs on the SA over the
 * blocks v10_llm_causal_blocks computes; the LM head
 * and sampling run for the last position only.  The QKV GEMM's output write
 * is the K/V written to the cache.  -1 with err set on a bad size.
 */
int v10_llm_prefill(const v10_llm_config *c, uint64_t tokens, v10_model *m, v10_err *err);

/*
 * The prefill of n_seqs prompts in one iteration, as a serving stack runs
 * it (vLLM flattens the batch's tokens): the weight GEMMs have M = the sum
 * of the prompts and read the weights once; each prompt's causal attention
 * is its own; the LM head runs for each prompt's last position.  With one
 * prompt, the stream of v10_llm_prefill.
 */
int v10_llm_prefill_batch(const v10_llm_config *c, uint32_t n_seqs, const uint32_t *tokens,
                          v10_model *m, v10_err *err);

/*
 * One decode iteration: `n_seqs` sequences each emit one token; sequence i
 * attends over ctx_lens[i] tokens (its cache plus itself, 1..max_context).
 * Weight GEMMs have M = n_seqs and read the weights once; attention over
 * the KV cache is VU work whose HBM traffic is the K and V read.
 */
int v10_llm_decode(const v10_llm_config *c, uint32_t n_seqs, const uint32_t *ctx_lens,
                   v10_model *m, v10_err *err);

/*
 * One iteration of chunked prefill, as vLLM flattens it: n_dec decodes
 * (ctx_lens[i] as in v10_llm_decode) and n_chunk prompt chunks (chunk[j]
 * tokens after past[j] already in the cache; a chunk attends causally over
 * its past and itself) in one sequence of n_dec + sum(chunk) rows: the
 * weight GEMMs read the weights once, each decode attends over its cache as
 * in v10_llm_decode, each chunk's attention is GEMMs over past + chunk keys
 * as in v10_llm_prefill_batch; the LM head runs for the n_out sequences
 * that emit a token (the decodes, and the chunks that end their prompt).
 * Without chunks it is v10_llm_decode's stream; without decodes and with
 * every past 0 and n_out = n_chunk, v10_llm_prefill_batch's.
 */
int v10_llm_mixed(const v10_llm_config *c, uint32_t n_dec, const uint32_t *ctx_lens,
                  uint32_t n_chunk, const uint32_t *chunk, const uint32_t *past,
                  uint32_t n_out, v10_model *m, v10_err *err);

/*
 * The model-spec form (docs/formats.md): `llm/MODEL` with a phase option
 * `phase` ("prefill=P" or "decode=NxC[,NxC...]", C alone meaning 1xC).
 * Builds, checks the fit on `npu` and leaves *out uncosted; `text` (the
 * whole spec) names the model and its errors.
 */
int v10_llm_build_spec(const char *text, const char *model, const char *phase,
                       const v10_npu *npu, v10_model *out, v10_err *err);

#endif
