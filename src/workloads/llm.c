/*
 * llm.c — decoder-only LLMs from their configuration (see v10/llm.h):
 * presets with their cited configs, the JSON form, closed-form sizes, the
 * HBM fit check, and prefill / decode phases as operator streams built
 * with the v10/model.h builders, so the one cost model (cost.c) prices them.
 */
#include "v10/llm.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/vu_ops.h"
#include "util/checked.h"
#include "util/config.h"
#include "util/file.h"
#include "util/json.h"
#include "util/text.h"

#define BYTES_PER_ELEM 2 /* bf16 weights, activations and KV cache */

/*
 * Presets, each from the model's HuggingFace config.json (the field names
 * there: num_hidden_layers / n_layer, hidden_size / n_embd,
 * num_attention_heads / n_head, num_key_value_heads, head_dim,
 * intermediate_size / n_inner, vocab_size, max_position_embeddings /
 * n_positions, tie_word_embeddings).
 */
static const v10_llm_config presets[] = {
    /* huggingface.co/openai-community/gpt2-xl/blob/main/config.json: n_layer 48,
     * n_embd 1600, n_head 25, n_inner null (= 4 x n_embd = 6400), vocab_size
     * 50257, n_positions 1024, activation_function gelu_new, learned position
     * table, LayerNorm, biased Conv1D layers, LM head tied to wte. */
    {.name = "gpt2-xl", .layers = 48, .hidden = 1600, .heads = 25, .kv_heads = 25,
     .head_dim = 64, .ffn = 6400, .vocab = 50257, .max_context = 1024,
     .ffn_act = V10_LLM_GELU, .norm = V10_LLM_LAYERNORM, .positions = V10_LLM_LEARNED,
     .bias = 1, .tied_embeddings = 1},
    /* huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json:
     * num_hidden_layers 16, hidden_size 2048, num_attention_heads 32,
     * num_key_value_heads 8, head_dim 64, intermediate_size 8192, vocab_size
     * 128256, max_position_embeddings 131072, hidden_act silu, RMSNorm,
     * rope, tie_word_embeddings true. */
    {.name = "llama3.2-1b", .layers = 16, .hidden = 2048, .heads = 32, .kv_heads = 8,
     .head_dim = 64, .ffn = 8192, .vocab = 128256, .max_context = 131072,
     .ffn_act = V10_LLM_SWIGLU, .norm = V10_LLM_RMSNORM, .positions = V10_LLM_ROTARY,
     .bias = 0, .tied_embeddings = 1},
    /* huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json:
     * num_hidden_layers 32, hidden_size 4096, num_attention_heads 32,
     * num_key_value_heads 32, intermediate_size 11008, vocab_size 32000,
     * max_position_embeddings 4096, hidden_act silu, tie_word_embeddings false. */
    {.name = "llama2-7b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32,
     .head_dim = 128, .ffn = 11008, .vocab = 32000, .max_context = 4096,
     .ffn_act = V10_LLM_SWIGLU, .norm = V10_LLM_RMSNORM, .positions = V10_LLM_ROTARY,
     .bias = 0, .tied_embeddings = 0},
    /* huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json:
     * num_hidden_layers 32, hidden_size 4096, num_attention_heads 32,
     * num_key_value_heads 8, intermediate_size 14336, vocab_size 128256,
     * max_position_embeddings 8192, hidden_act silu, tie_word_embeddings false. */
    {.name = "llama3-8b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
     .head_dim = 128, .ffn = 14336, .vocab = 128256, .max_context = 8192,
     .ffn_act = V10_LLM_SWIGLU, .norm = V10_LLM_RMSNORM, .positions = V10_LLM_ROTARY,
     .bias = 0, .tied_embeddings = 0},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

const char *const v10_llm_preset_names[] = {"gpt2-xl", "llama3.2-1b", "llama2-7b",
                                            "llama3-8b", NULL};
_Static_assert(sizeof v10_llm_preset_names / sizeof *v10_llm_preset_names == N_PRESETS + 1,
               "v10_llm_preset_names and presets list the same models");

static void get_preset(size_t i, void *out) { *(v10_llm_config *)out = presets[i]; }
static int read_llm(const cJSON *root, const char *origin, void *out, v10_err *err);
static const v10_config_kind KIND = {"LLM", "LLM configuration keys", v10_llm_preset_names,
                                     get_preset, read_llm};

int v10_llm_preset(const char *name, v10_llm_config *out, v10_err *err)
{
    return v10_config_preset(&KIND, name, out, err);
}

/* ---- the JSON form: a field table drives parsing and validation ---- */

typedef enum { K_U32, K_BOOL, K_ENUM } kkind;
typedef struct key {
    const char *name;
    kkind kind;
    size_t off;
    uint32_t min, max;        /* K_U32 range */
    const char *const *words; /* K_ENUM: the accepted strings, by value */
    int required;             /* without "base" */
} key;

static const char *const ffn_words[] = {"gelu", "swiglu", NULL};
static const char *const norm_words[] = {"layernorm", "rmsnorm", NULL};
static const char *const pos_words[] = {"learned", "rotary", NULL};
static const char *const attn_words[] = {"fused", "unfused", NULL};

/*
 * Ranges keep every closed form below 2^64 (layers x (heads + 2 kv_heads) x
 * head_dim x hidden < 2^55; 4 x layers x heads x head_dim x max_context
 * < 2^58), so the size functions need no overflow checks.
 */
#define U(k, lo, hi, req) {#k, K_U32, offsetof(v10_llm_config, k), lo, hi, NULL, req}
#define B(k) {#k, K_BOOL, offsetof(v10_llm_config, k), 0, 1, NULL, 0}
#define E(k, w) {#k, K_ENUM, offsetof(v10_llm_config, k), 0, 0, w, 0}
static const key keys[] = {
    U(layers, 1, 1024, 1),
    U(hidden, 1, 1u << 20, 1),
    U(heads, 1, 1024, 1),
    U(kv_heads, 1, 1024, 0),
    U(head_dim, 1, 4096, 0),
    U(ffn, 1, 1u << 22, 1),
    U(vocab, 1, 1u << 24, 1),
    U(max_context, 1, 1u << 24, 1),
    E(ffn_act, ffn_words),
    E(norm, norm_words),
    E(positions, pos_words),
    B(bias),
    B(tied_embeddings),
    E(attention, attn_words),
};
#undef U
#undef B
#undef E
#define N_KEYS (sizeof keys / sizeof keys[0])

static uint32_t *u32_at(v10_llm_config *c, const key *k)
{
    return (uint32_t *)(void *)((char *)c + k->off);
}

static const uint32_t *u32_of(const v10_llm_config *c, const key *k)
{
    return (const uint32_t *)(const void *)((const char *)c + k->off);
}

int v10_llm_validate(const v10_llm_config *c, v10_err *err)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (keys[i].kind != K_U32)
            continue;
        uint32_t v = *u32_of(c, &keys[i]);
        if (v < keys[i].min || v > keys[i].max)
            return v10_err_set(err, "LLM '%s': %s = %u is out of range [%u, %u]", c->name,
                               keys[i].name, v, keys[i].min, keys[i].max);
    }
    if (c->kv_heads > c->heads || c->heads % c->kv_heads)
        return v10_err_set(err, "LLM '%s': kv_heads = %u must divide heads = %u (grouped-query "
                                "attention)", c->name, c->kv_heads, c->heads);
    return 0;
}

/* Sets one key from a JSON value; -1 names origin and key. */
static int set_key(v10_llm_config *c, const key *k, const cJSON *v, const char *origin,
                   v10_err *err)
{
    if (k->kind == K_BOOL) {
        if (!cJSON_IsBool(v))
            return v10_err_set(err, "%s: key '%s': expected true or false", origin, k->name);
        *(int *)(void *)((char *)c + k->off) = cJSON_IsTrue(v);
        return 0;
    }
    if (k->kind == K_ENUM) {
        for (int i = 0; cJSON_IsString(v) && k->words[i]; i++)
            if (!strcmp(v->valuestring, k->words[i])) {
                *(int *)(void *)((char *)c + k->off) = i; /* the enums count from 0 */
                return 0;
            }
        return v10_err_set(err, "%s: key '%s': expected \"%s\" or \"%s\"", origin, k->name,
                           k->words[0], k->words[1]);
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return v10_err_set(err, "%s: key '%s': expected an integer in [%u, %u]", origin,
                           k->name, k->min, k->max);
    double d = v->valuedouble;
    if (!(d >= k->min && d <= k->max))
        return v10_err_set(err, "%s: key '%s': %g is out of range [%u, %u]", origin, k->name,
                           d, k->min, k->max);
    *u32_at(c, k) = (uint32_t)d;
    return 0;
}

/* Without "base": kv_heads defaults to heads, head_dim to hidden / heads,
 * the rest to a Llama-style block (SwiGLU, RMSNorm, rotary, no biases). */
static int fill_defaults(v10_llm_config *c, const cJSON *root, const char *origin,
                         v10_err *err)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (keys[i].required && !cJSON_GetObjectItemCaseSensitive(root, keys[i].name))
            return v10_err_set(err, "%s: missing key '%s' (required without \"base\")", origin,
                               keys[i].name);
    if (!cJSON_GetObjectItemCaseSensitive(root, "kv_heads"))
        c->kv_heads = c->heads;
    if (!cJSON_GetObjectItemCaseSensitive(root, "head_dim")) {
        if (c->hidden % c->heads)
            return v10_err_set(err, "%s: key 'head_dim' is needed: hidden = %u is not a "
                                    "multiple of heads = %u", origin, c->hidden, c->heads);
        c->head_dim = c->hidden / c->heads;
    }
    return 0;
}

/* The JSON form (v10_config_kind.read): the keys over the preset named by
 * "base" (a Llama-style block if none), then validated. */
static int read_llm(const cJSON *root, const char *origin, void *vout, v10_err *err)
{
    v10_llm_config *out = vout;
    memset(out, 0, sizeof *out);
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
    if (base && (!cJSON_IsString(base) || v10_llm_preset(base->valuestring, out, err))) {
        if (!cJSON_IsString(base))
            v10_err_set(err, "expected a preset name");
        v10_err_prefix(err, "%s: key 'base'", origin);
        return -1;
    }
    v10_name_tail(out->name, sizeof out->name, origin); /* a path, escaped */
    if (!base) { /* a Llama-style block unless the keys say otherwise */
        out->ffn_act = V10_LLM_SWIGLU;
        out->norm = V10_LLM_RMSNORM;
        out->positions = V10_LLM_ROTARY;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, root) {
        if (!strcmp(v->string, "base"))
            continue;
        if (!strcmp(v->string, "name")) {
            if (v10_json_name(v, origin, out->name, sizeof out->name, err))
                return -1;
            continue;
        }
        size_t i = 0;
        while (i < N_KEYS && strcmp(keys[i].name, v->string))
            i++;
        if (i == N_KEYS)
            return v10_err_set(err, "%s: unknown key '%s' (expected base, name, layers, hidden, "
                                    "heads, kv_heads, head_dim, ffn, vocab, max_context, "
                                    "ffn_act, norm, positions, bias, tied_embeddings, attention)",
                               origin, v->string);
        if (set_key(out, &keys[i], v, origin, err))
            return -1;
    }
    if (!base && fill_defaults(out, root, origin, err))
        return -1;
    if (v10_llm_validate(out, err)) {
        v10_err_prefix(err, "%s", origin);
        return -1;
    }
    return 0;
}

int v10_llm_from_json(const char *text, const char *origin, v10_llm_config *out,
                      v10_err *err)
{
    return v10_config_from_json(&KIND, text, origin, out, err);
}

int v10_llm_resolve(const char *spec, v10_llm_config *out, v10_err *err)
{
    return v10_config_resolve(&KIND, spec, out, err);
}

/* ---- sizes ---- */

static uint64_t qkv_width(const v10_llm_config *c)
{
    return ((uint64_t)c->heads + 2ull * c->kv_heads) * c->head_dim;
}

static uint64_t ffn_mats(const v10_llm_config *c) { return c->ffn_act == V10_LLM_SWIGLU ? 3 : 2; }

/* Weights of one block's linear layers: QKV, output projection, FFN. */
static uint64_t layer_matmul_params(const v10_llm_config *c)
{
    uint64_t attn_out = (uint64_t)c->heads * c->head_dim;
    return (uint64_t)c->hidden * qkv_width(c) + attn_out * c->hidden +
           ffn_mats(c) * c->hidden * c->ffn;
}

/* A pipeline stage's ends (v10_llm_pipeline): the first holds the
 * embedding, the last the LM head; a whole model both. */
static int first_stage(const v10_llm_config *c) { return c->pp <= 1 || c->stage == 0; }
static int last_stage(const v10_llm_config *c) { return c->pp <= 1 || c->stage + 1 == c->pp; }

uint64_t v10_llm_matmul_params(const v10_llm_config *c)
{
    return c->layers * layer_matmul_params(c) +
           (last_stage(c) ? (uint64_t)c->vocab * c->hidden : 0);
}

uint64_t v10_llm_params(const v10_llm_config *c)
{
    uint64_t h = c->hidden;
    uint64_t norm = c->norm == V10_LLM_LAYERNORM ? 2 * h : h; /* gamma (and beta) */
    uint64_t bias = c->bias ? qkv_width(c) + h + (ffn_mats(c) - 1) * c->ffn + h : 0;
    uint64_t table = (uint64_t)c->vocab * h;
    uint64_t pos = c->positions == V10_LLM_LEARNED ? (uint64_t)c->max_context * h : 0;
    uint64_t embed = first_stage(c) ? table + pos : 0;
    /* the last stage of a pipeline holds its own copy of a tied table */
    uint64_t head = !last_stage(c) ? 0 : norm + (c->tied_embeddings && c->pp <= 1 ? 0 : table);
    return embed + c->layers * (layer_matmul_params(c) + bias + 2 * norm) + head;
}

uint64_t v10_llm_weight_bytes(const v10_llm_config *c)
{
    return v10_llm_params(c) * BYTES_PER_ELEM;
}

uint64_t v10_llm_kv_bytes_per_token(const v10_llm_config *c)
{
    return 2ull * c->layers * c->kv_heads * c->head_dim * BYTES_PER_ELEM;
}

uint64_t v10_llm_flops_per_token(const v10_llm_config *c, uint64_t ctx)
{
    return 2 * v10_llm_matmul_params(c) +
           4ull * c->layers * c->heads * c->head_dim * ctx;
}

int v10_llm_check_fit(const v10_llm_config *c, const v10_npu *npu, uint64_t kv_tokens,
                      v10_err *err)
{
    uint64_t w = v10_llm_weight_bytes(c), kv, need;
    int over = v10_mul_u64(kv_tokens, v10_llm_kv_bytes_per_token(c), &kv) ||
               v10_add_u64(w, kv, &need);
    if (w > npu->hbm_capacity_bytes)
        return v10_err_set(err, "LLM '%s': weights of %llu bytes (%.2f GB) do not fit the "
                                "HBM capacity of NPU '%s', %llu bytes (%.2f GB)",
                           c->name, (unsigned long long)w, (double)w / 1e9, npu->name,
                           (unsigned long long)npu->hbm_capacity_bytes,
                           (double)npu->hbm_capacity_bytes / 1e9);
    if (over || need > npu->hbm_capacity_bytes) {
        char kvs[64];
        if (over)
            snprintf(kvs, sizeof kvs, "more than 2^64 bytes");
        else
            snprintf(kvs, sizeof kvs, "%llu bytes, %.2f GB", (unsigned long long)kv,
                     (double)kv / 1e9);
        return v10_err_set(err, "LLM '%s': weights of %llu bytes (%.2f GB) plus the KV cache "
                                "of %llu tokens (%s) do not fit the HBM capacity of NPU "
                                "'%s', %llu bytes (%.2f GB)",
                           c->name, (unsigned long long)w, (double)w / 1e9,
                           (unsigned long long)kv_tokens, kvs, npu->name,
                           (unsigned long long)npu->hbm_capacity_bytes,
                           (double)npu->hbm_capacity_bytes / 1e9);
    }
    return 0;
}

/* ---- phases: a build context whose first failure sticks ---- */

typedef struct lb {
    const v10_llm_config *c;
    v10_model *m;
    v10_err *err;
    int rc; /* 0, or -1 once a builder failed (err holds why) */
    char name[V10_OPNAME_MAX];
} lb;

/* Operator name "L<layer>.<sfx>", or <sfx> for layer < 0. */
static const char *opname(lb *b, int layer, const char *sfx)
{
    if (layer >= 0)
        snprintf(b->name, sizeof b->name, "L%d.%s", layer, sfx);
    else
        snprintf(b->name, sizeof b->name, "%s", sfx);
    return b->name;
}

static void gemm(lb *b, int layer, const char *sfx, uint64_t count, uint64_t M, uint64_t N,
                 uint64_t K, int weights)
{
    if (!b->rc)
        b->rc = v10_model_gemm(b->m, opname(b, layer, sfx), count, M, N, K, weights, b->err);
}

static void vec(lb *b, int layer, const char *sfx, uint64_t elems, uint64_t ops,
                uint64_t in_tensors, int fusible)
{
    if (!b->rc)
        b->rc = v10_model_vector(b->m, opname(b, layer, sfx), elems, ops, in_tensors, fusible,
                                 b->err);
}

/* A VU operator whose HBM traffic is given rather than one tensor per input. */
static void vec_bytes(lb *b, int layer, const char *sfx, uint64_t elems, uint64_t ops,
                      uint64_t hbm_bytes)
{
    vec(b, layer, sfx, elems, ops, 1, 0); /* not fusible: always a new operator */
    if (!b->rc)
        b->m->ops[b->m->n_ops - 1].hbm_bytes = hbm_bytes;
}

/* A collective over the chips of a sharded model (c->tp > 1) of `bytes`;
 * nothing for a whole one. */
static void collective(lb *b, int layer, const char *sfx, v10_op_kind kind, uint64_t bytes)
{
    if (!b->rc && b->c->tp > 1)
        b->rc = v10_model_collective(b->m, opname(b, layer, sfx), kind, bytes, b->c->tp, b->err);
}

static uint64_t norm_ops(const v10_llm_config *c)
{
    return c->norm == V10_LLM_LAYERNORM ? OPS_LAYERNORM : OPS_RMSNORM;
}

/* Token embedding of `tokens` rows (plus the position rows, added). */
static void embed(lb *b, uint64_t tokens)
{
    const v10_llm_config *c = b->c;
    int learned = c->positions == V10_LLM_LEARNED;
    if (!b->rc)
        b->rc = v10_model_gather(b->m, "embed.gather", tokens * (learned ? 2 : 1), c->hidden,
                                 b->err);
    /* A shard's table holds 1/tp of the vocabulary: each chip gathers the
     * rows it holds (zeros elsewhere) and an all-reduce sums them
     * (VocabParallelEmbedding; the gather's cost is that of every row). */
    collective(b, -1, "embed.allreduce", V10_OP_ALLREDUCE, tokens * c->hidden * BYTES_PER_ELEM);
    if (learned)
        vec(b, -1, "embed.add", tokens * c->hidden, OPS_ADD, 2, 1);
}

/*
 * Attention over the KV cache for one decode iteration: for each of the
 * sum_ctx (sequence, key) pairs, every query head does head_dim FMAs for
 * QK^T and head_dim for P.V.  Each kv head's K and V are read from HBM once
 * for the query heads that share it (GQA).
 */
static void cache_attention(lb *b, int l, uint64_t seqs, uint64_t sum_ctx)
{
    const v10_llm_config *c = b->c;
    uint64_t hd = c->head_dim, qh = c->heads;
    uint64_t kv_read = sum_ctx * c->kv_heads * hd * BYTES_PER_ELEM; /* K, or V */
    uint64_t q = seqs * qh * hd * BYTES_PER_ELEM, scores = qh * sum_ctx * BYTES_PER_ELEM;
    if (c->attention == V10_LLM_FUSED) /* the scores never leave the chip */
        scores = 0;
    vec_bytes(b, l, "attn.qk", qh * hd * sum_ctx, OPS_FMA, kv_read + q + scores);
    if (c->attention == V10_LLM_FUSED)
        vec_bytes(b, l, "attn.softmax", qh * sum_ctx, OPS_SOFTMAX, 0);
    else
        vec(b, l, "attn.softmax", qh * sum_ctx, OPS_SOFTMAX, 1, 0);
    vec_bytes(b, l, "attn.av", qh * hd * sum_ctx, OPS_FMA, kv_read + scores + q);
}

/*
 * Causal attention as a flash-attention kernel computes it: the scores in
 * blocks of V10_LLM_ATTN_BLOCK query rows by V10_LLM_ATTN_BLOCK keys, each
 * block run only if some query in it sees some key in it (on or below the
 * diagonal: the blocks above it are skipped, the ones it crosses computed
 * whole and masked inside), as JAX's Pallas TPU kernel does
 * (jax/experimental/pallas/ops/tpu/flash_attention.py: below_or_on_diag,
 * BlockSizes.get_default's block_q = block_k = 128).  For `t` queries
 * after `past` cached keys (query i at position past + i, key blocks from
 * position 0): key block c is computed with the query rows of every block
 * from the first that reaches position c x 128 to the last.  *rows gets
 * the sum over key blocks of those rows and the return is the score
 * elements computed, sum over key blocks of rows x the block's keys.
 */
uint64_t v10_llm_causal_blocks(uint64_t t, uint64_t past, uint64_t *rows)
{
    const uint64_t B = V10_LLM_ATTN_BLOCK, nk = past + t;
    uint64_t area = 0;
    *rows = 0;
    for (uint64_t c = 0; c * B < nk; c++) {
        uint64_t first = c * B > past ? c * B - past : 0; /* first query that sees it */
        uint64_t r0 = first / B;                           /* its query block */
        uint64_t r = t - r0 * B, k = nk - c * B < B ? nk - c * B : B;
        *rows += r;
        area += r * k;
    }
    return area;
}

/* Causal self-attention of `t` prompt tokens after `past` ones already in
 * the cache (0 for a whole prompt; a later chunk of a chunked prefill
 * otherwise): batched GEMMs, one per kv head, whose M rows are the `group`
 * query heads sharing it x the query rows over past + t keys, and a
 * softmax over the scores, in the blocks v10_llm_causal_blocks computes.
 * Each GEMM holds a key block's keys (QK^T) or values (P.V) stationary per
 * fold and streams the query rows that see that block, so its M is the
 * mean of those rows over the key blocks (exact for a whole prompt of a
 * multiple of 128 tokens; rounded up otherwise); the softmax covers the
 * computed blocks. */
static void prompt_attention(lb *b, int l, uint64_t t, uint64_t past)
{
    const v10_llm_config *c = b->c;
    uint64_t group = c->heads / c->kv_heads, nk = past + t, rows;
    uint64_t area = v10_llm_causal_blocks(t, past, &rows);
    uint64_t blocks = (nk + V10_LLM_ATTN_BLOCK - 1) / V10_LLM_ATTN_BLOCK;
    uint64_t m = (rows + blocks - 1) / blocks;
    gemm(b, l, "attn.qk", c->kv_heads, group * m, nk, c->head_dim, 0);
    size_t qk = b->m->n_ops - 1;
    vec(b, l, "attn.softmax", (uint64_t)c->heads * area, OPS_MASK_SOFTMAX, 1, 0);
    size_t sm = b->m->n_ops - 1;
    gemm(b, l, "attn.av", c->kv_heads, group * m, c->head_dim, nk, 0);
    if (b->rc)
        return;
    /* Q, K, V and the output move as their whole tensors; a GEMM's own
     * rule would read m query rows and write m x nk scores. */
    v10_op *o = b->m->ops;
    uint64_t q = (uint64_t)c->heads * t * c->head_dim * BYTES_PER_ELEM; /* Q, or the output */
    uint64_t kv = (uint64_t)c->kv_heads * v10_llm_kv_read(nk, c->kv_page) * c->head_dim *
                  BYTES_PER_ELEM; /* K, or V */
    uint64_t scores = (uint64_t)c->heads * area * BYTES_PER_ELEM;
    if (c->attention == V10_LLM_FUSED) {
        /* Fused (flash attention, Dao et al., NeurIPS 2022): the scores
         * stay in on-chip memory: QK^T reads Q and K and writes nothing,
         * the softmax moves nothing, P.V reads V and writes the output.
         * (The operators stay three, each on its FU.) */
        o[qk].hbm_bytes = q + kv;
        o[sm].hbm_bytes = 0;
        o[b->m->n_ops - 1].hbm_bytes = kv + q;
    } else { /* the computed scores written, read and written back, read */
        o[qk].hbm_bytes = q + kv + scores;
        o[sm].hbm_bytes = 2 * scores;
        o[b->m->n_ops - 1].hbm_bytes = scores + kv + q;
    }
}

/*
 * One iteration's rows (v10_llm_mixed): n_dec decoding sequences, one row
 * each, attending over sum_ctx cached tokens in all; then n_chunk prompt
 * chunks, chunk[j] rows after past[j] cached tokens (past NULL: none);
 * `outs` of the sequences emit a token (the LM head's rows).
 */
typedef struct rows {
    uint64_t n_dec, sum_ctx;
    uint32_t n_chunk;
    const uint32_t *chunk, *past;
    uint64_t outs;
} rows;

/*
 * The whole stream: embedding, `layers` pre-norm blocks over every row,
 * then the final norm, LM head and sampling for the rows that emit.
 */
static void build(lb *b, const rows *r)
{
    const v10_llm_config *c = b->c;
    uint64_t h = c->hidden, t = r->n_dec, attn_w = (uint64_t)c->heads * c->head_dim;
    for (uint32_t j = 0; j < r->n_chunk; j++)
        t += r->chunk[j];
    /* Padded to a compiled shape, the token-wise operators run over the
     * padding too; attention is each sequence's own (the padding belongs
     * to none). */
    t = v10_llm_pad_tokens(t, c->pad_tokens);
    if (first_stage(c))
        embed(b, t);
    /* a stage's layers are named by their place in the whole model */
    int l0 = c->pp > 1 ? (int)(c->stage * c->layers) : 0;
    for (int l = l0; l < l0 + (int)c->layers; l++) {
        vec(b, l, "attn.norm", t * h, norm_ops(c), 1, 1);
        gemm(b, l, "attn.qkv", 1, t, qkv_width(c), h, 1); /* its K, V output: the cache write */
        if (c->positions == V10_LLM_ROTARY)
            vec(b, l, "attn.rope", t * ((uint64_t)c->heads + c->kv_heads) * c->head_dim,
                OPS_ROPE, 1, 0);
        if (r->n_dec)
            cache_attention(b, l, r->n_dec, r->sum_ctx);
        for (uint32_t j = 0; j < r->n_chunk; j++)
            prompt_attention(b, l, r->chunk[j], r->past ? r->past[j] : 0);
        gemm(b, l, "attn.o", 1, t, h, attn_w, 1);
        collective(b, l, "attn.allreduce", V10_OP_ALLREDUCE, t * h * BYTES_PER_ELEM);
        vec(b, l, "attn.add", t * h, OPS_ADD, 2, 1);
        vec(b, l, "mlp.norm", t * h, norm_ops(c), 1, 1);
        if (c->ffn_act == V10_LLM_SWIGLU) {
            gemm(b, l, "mlp.gate_up", 1, t, 2ull * c->ffn, h, 1);
            vec(b, l, "mlp.swiglu", t * c->ffn, OPS_SWISH + OPS_ADD, 2, 0);
        } else {
            gemm(b, l, "mlp.up", 1, t, c->ffn, h, 1); /* GELU fused */
        }
        gemm(b, l, "mlp.down", 1, t, h, c->ffn, 1);
        collective(b, l, "mlp.allreduce", V10_OP_ALLREDUCE, t * h * BYTES_PER_ELEM);
        vec(b, l, "mlp.add", t * h, OPS_ADD, 2, 1);
    }
    if (!last_stage(c)) { /* the activations on to the next stage's chip */
        if (!b->rc)
            b->rc = v10_model_collective(b->m, "pp.send", V10_OP_SEND, t * h * BYTES_PER_ELEM,
                                         0, b->err);
        return;
    }
    /* With pad_reqs, as vLLM's TPU runtime: logits for every scheduled
     * sequence (a chunk that does not end its prompt discards its), padded. */
    uint64_t outs = c->pad_reqs ? v10_llm_pad_reqs(r->n_dec + r->n_chunk, c->pad_reqs) : r->outs;
    if (!outs)
        return; /* a chunk that does not end its prompt samples nothing */
    vec(b, -1, "head.norm", outs * h, norm_ops(c), 1, 1); /* fuses in decode */
    gemm(b, -1, "head.lm", 1, outs, c->vocab, h, 1); /* tied: the embedding table */
    /* A shard's logits are 1/tp of the vocabulary's: gathered, every chip
     * samples from the whole (vLLM gathers them to sample). */
    uint64_t vocab = c->tp > 1 ? (uint64_t)c->vocab * c->tp : c->vocab;
    collective(b, -1, "head.allgather", V10_OP_ALLGATHER, outs * vocab * BYTES_PER_ELEM);
    vec(b, -1, "head.sample", outs * vocab, OPS_SOFTMAX + OPS_ADD, 1, 0);
}

/* Checks n (1..V10_LLM_MAX_SEQS, `what` naming the phase) and sums v[0..n), each
 * 1..max_context (`len` naming the length); -1 with err naming the
 * offending sequence. */
static int sum_lengths(const v10_llm_config *c, const char *what, const char *len, uint32_t n,
                       const uint32_t *v, uint64_t *sum, v10_err *err)
{
    if (n < 1 || n > V10_LLM_MAX_SEQS)
        return v10_err_set(err, "%s: %s of %u sequences: expected 1 to %d", c->name, what, n,
                           V10_LLM_MAX_SEQS);
    *sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] < 1 || v[i] > c->max_context)
            return v10_err_set(err, "%s: %s: sequence %u has %s %u: expected 1 to "
                                    "max_context = %u", c->name, what, i, len, v[i],
                               c->max_context);
        *sum += v[i];
    }
    return 0;
}

int v10_llm_prefill(const v10_llm_config *c, uint64_t tokens, v10_model *m, v10_err *err)
{
    if (tokens < 1 || tokens > c->max_context)
        return v10_err_set(err, "%s: prefill of %llu tokens: expected 1 to max_context = %u",
                           c->name, (unsigned long long)tokens, c->max_context);
    uint32_t t = (uint32_t)tokens;
    return v10_llm_prefill_batch(c, 1, &t, m, err);
}

int v10_llm_prefill_batch(const v10_llm_config *c, uint32_t n_seqs, const uint32_t *tokens,
                          v10_model *m, v10_err *err)
{
    rows r = {.n_chunk = n_seqs, .chunk = tokens, .outs = n_seqs};
    uint64_t sum;
    if (sum_lengths(c, "prefill", "prompt", n_seqs, tokens, &sum, err))
        return -1;
    lb b = {.c = c, .m = m, .err = err};
    build(&b, &r);
    return b.rc;
}

int v10_llm_decode(const v10_llm_config *c, uint32_t n_seqs, const uint32_t *ctx_lens,
                   v10_model *m, v10_err *err)
{
    rows r = {.n_dec = n_seqs, .outs = n_seqs};
    if (sum_lengths(c, "decode", "context", n_seqs, ctx_lens, &r.sum_ctx, err))
        return -1;
    r.sum_ctx = v10_llm_kv_read_sum(c, n_seqs, ctx_lens, r.sum_ctx);
    lb b = {.c = c, .m = m, .err = err};
    build(&b, &r);
    return b.rc;
}

int v10_llm_mixed(const v10_llm_config *c, uint32_t n_dec, const uint32_t *ctx_lens,
                  uint32_t n_chunk, const uint32_t *chunk, const uint32_t *past,
                  uint32_t n_out, v10_model *m, v10_err *err)
{
    rows r = {.n_dec = n_dec, .n_chunk = n_chunk, .chunk = chunk, .past = past, .outs = n_out};
    uint64_t sum;
    if ((n_dec && sum_lengths(c, "decode", "context", n_dec, ctx_lens, &r.sum_ctx, err)) ||
        (n_chunk && sum_lengths(c, "prefill", "chunk", n_chunk, chunk, &sum, err)))
        return -1;
    if (!n_dec && !n_chunk)
        return v10_err_set(err, "%s: an iteration of no sequences", c->name);
    if (n_dec)
        r.sum_ctx = v10_llm_kv_read_sum(c, n_dec, ctx_lens, r.sum_ctx);
    if ((uint64_t)n_dec + n_chunk > V10_LLM_MAX_SEQS || n_out < n_dec ||
        n_out > n_dec + n_chunk)
        return v10_err_set(err, "%s: iteration of %u decodes and %u chunks emitting %u tokens: "
                                "expected at most %d sequences, each decode emitting",
                           c->name, n_dec, n_chunk, n_out, V10_LLM_MAX_SEQS);
    for (uint32_t j = 0; j < n_chunk; j++)
        if ((uint64_t)past[j] + chunk[j] > c->max_context)
            return v10_err_set(err, "%s: prefill chunk %u: %u tokens after %u exceed "
                                    "max_context = %u", c->name, j, chunk[j], past[j],
                               c->max_context);
    lb b = {.c = c, .m = m, .err = err};
    build(&b, &r);
    return b.rc;
}
