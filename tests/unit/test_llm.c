/*
 * test_llm.c — decoder LLMs (v10/llm.h) and the Azure trace reader
 * (v10/llm_trace.h): every preset's parameters, KV bytes and FLOPs per
 * token against closed forms written out here from the published configs;
 * the operator streams' shapes and HBM traffic; the HBM fit check; the JSON
 * form and its errors; the trace excerpts in tests/data/llm/ and bad traces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "v10/cost.h"
#include "v10/llm.h"
#include "v10/llm_trace.h"
#include "v10/model.h"
#include "v10/npu.h"
#include "v10/sim.h"

#define DATA "tests/data/llm/"

static v10_llm_config preset(const char *name)
{
    v10_llm_config c;
    v10_err err = {{0}};
    if (v10_llm_preset(name, &c, &err))
        fail_msg("%s", err.msg);
    return c;
}

static v10_npu npu_named(const char *name)
{
    v10_npu n;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_preset(name, &n, &err), 0);
    return n;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t l = strlen(s), k = strlen(suffix);
    return l >= k && !strcmp(s + l - k, suffix);
}

/*
 * Each preset written out from its config.json, independently of llm.c:
 * total parameters as HuggingFace reports them (sum of the checkpoint's
 * tensors), the linear layers' weights, and the attention width heads x
 * head_dim x layers.
 */
typedef struct expect {
    const char *name;
    uint64_t params;        /* published parameter count */
    uint64_t matmul;        /* linear layers + LM head */
    uint64_t kv_per_token;  /* 2 x layers x kv_heads x head_dim x 2 B */
    uint64_t attn;          /* layers x heads x head_dim */
} expect;

static const expect EXPECT[] = {
    /* 48 x (QKV 1600x4800 + proj 1600^2 + MLP 2 x 1600x6400) + head 1600x50257 */
    {"gpt2-xl", 1557611200ull, 48ull * (1600 * 4800 + 1600 * 1600 + 2 * 1600 * 6400) + 1600ull * 50257,
     2ull * 48 * 25 * 64 * 2, 48ull * 25 * 64},
    /* 16 x (Q 2048^2 + KV 2 x 2048x512 + O 2048^2 + 3 x 2048x8192) + 2048x128256 */
    {"llama3.2-1b", 1235814400ull,
     16ull * (2048 * 2048 + 2 * 2048 * 512 + 2048 * 2048 + 3ull * 2048 * 8192) + 2048ull * 128256,
     2ull * 16 * 8 * 64 * 2, 16ull * 32 * 64},
    {"llama2-7b", 6738415616ull, 32ull * (4ull * 4096 * 4096 + 3ull * 4096 * 11008) + 4096ull * 32000,
     2ull * 32 * 32 * 128 * 2, 32ull * 32 * 128},
    {"llama3-8b", 8030261248ull,
     32ull * (2ull * 4096 * 4096 + 2ull * 4096 * 1024 + 3ull * 4096 * 14336) + 4096ull * 128256,
     2ull * 32 * 8 * 128 * 2, 32ull * 32 * 128},
};
#define N_EXPECT (sizeof EXPECT / sizeof EXPECT[0])

static void presets_match_closed_forms(void **state)
{
    (void)state;
    size_t n = 0;
    for (const char *const *p = v10_llm_preset_names; *p; p++)
        n++;
    assert_int_equal(n, N_EXPECT);
    for (size_t i = 0; i < N_EXPECT; i++) {
        const expect *e = &EXPECT[i];
        v10_llm_config c = preset(e->name);
        assert_string_equal(c.name, e->name); /* names and presets in one order */
        v10_err err = {{0}};
        assert_int_equal(v10_llm_validate(&c, &err), 0);
        assert_int_equal(v10_llm_params(&c), e->params);
        assert_int_equal(v10_llm_weight_bytes(&c), 2 * e->params);
        assert_int_equal(v10_llm_matmul_params(&c), e->matmul);
        assert_int_equal(v10_llm_kv_bytes_per_token(&c), e->kv_per_token);
        for (uint64_t ctx = 1; ctx <= c.max_context; ctx *= 7)
            assert_int_equal(v10_llm_flops_per_token(&c, ctx), 2 * e->matmul + 4 * e->attn * ctx);
    }
    assert_int_equal(v10_llm_kv_bytes_per_token(&(v10_llm_config){.layers = 32, .kv_heads = 8,
                                                                   .head_dim = 128}),
                     131072); /* Llama 3 8B: 128 KiB per token */
}

/* 2 x the MACs of the model's matmuls: SA GEMMs and the VU's attention dot
 * products (one FMA per element of attn.qk and attn.av). */
static uint64_t stream_flops(const v10_model *m)
{
    uint64_t f = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        if (op->kind == V10_OP_GEMM)
            f += 2 * op->count * op->m * op->n * op->k;
        else if (ends_with(op->name, "attn.qk") || ends_with(op->name, "attn.av"))
            f += 2 * op->elems * op->ops_per_elem;
    }
    return f;
}

/* A decode iteration of one sequence does exactly the per-token FLOPs. */
static void decode_flops_per_token(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        uint32_t ctx[3] = {1, 100, c.max_context};
        for (int j = 0; j < 3; j++) {
            v10_model m;
            v10_err err = {{0}};
            v10_model_init(&m, c.name, 1);
            assert_int_equal(v10_llm_decode(&c, 1, &ctx[j], &m, &err), 0);
            assert_int_equal(stream_flops(&m), v10_llm_flops_per_token(&c, ctx[j]));
            v10_model_fini(&m);
        }
        /* a batch: the sum over its sequences */
        v10_model m;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 3);
        assert_int_equal(v10_llm_decode(&c, 3, ctx, &m, &err), 0);
        uint64_t want = 0;
        for (int j = 0; j < 3; j++)
            want += v10_llm_flops_per_token(&c, ctx[j]);
        assert_int_equal(stream_flops(&m), want);
        v10_model_fini(&m);
    }
}

/* gpt2-xl decoding at context 1024 is the zoo's gpt-decode step, MAC for MAC. */
static void gpt2_matches_zoo(void **state)
{
    (void)state;
    v10_llm_config c = preset("gpt2-xl");
    v10_model zoo;
    v10_err err = {{0}};
    assert_int_equal(v10_zoo_build("gpt-decode", 1, &zoo, &err), 0);
    assert_int_equal(stream_flops(&zoo), v10_llm_flops_per_token(&c, 1024));
    v10_model_fini(&zoo);
}

/* The weight GEMMs: M = tokens of the iteration, (N, K) from the config. */
static void check_weight_gemms(const v10_llm_config *c, const v10_model *m, uint64_t M,
                               uint64_t head_m)
{
    uint64_t qkv = ((uint64_t)c->heads + 2ull * c->kv_heads) * c->head_dim, weights = 0;
    int swiglu = c->ffn_act == V10_LLM_SWIGLU, seen_qkv = 0, seen_head = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        uint64_t n = 0, k = 0, mm = M;
        if (ends_with(op->name, "attn.qkv"))
            n = qkv, k = c->hidden, seen_qkv++;
        else if (ends_with(op->name, "attn.o"))
            n = c->hidden, k = (uint64_t)c->heads * c->head_dim;
        else if (ends_with(op->name, "mlp.gate_up") || ends_with(op->name, "mlp.up"))
            n = (swiglu ? 2ull : 1ull) * c->ffn, k = c->hidden;
        else if (ends_with(op->name, "mlp.down"))
            n = c->hidden, k = c->ffn;
        else if (!strcmp(op->name, "head.lm"))
            n = c->vocab, k = c->hidden, mm = head_m, seen_head++;
        else
            continue;
        assert_int_equal(op->fu, V10_FU_SA);
        assert_int_equal(op->count, 1);
        assert_int_equal(op->m, mm);
        assert_int_equal(op->n, n);
        assert_int_equal(op->k, k);
        weights += n * k;
    }
    assert_int_equal(seen_qkv, c->layers);
    assert_int_equal(seen_head, 1);
    assert_int_equal(weights, v10_llm_matmul_params(c)); /* each weight read once */
}

static void prefill_shapes(void **state)
{
    (void)state;
    const uint64_t P = 37;
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        v10_model m;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 1);
        assert_int_equal(v10_llm_prefill(&c, P, &m, &err), 0);
        check_weight_gemms(&c, &m, P, 1); /* logits of the last position only */
        uint64_t group = c.heads / c.kv_heads, attn = 0;
        for (size_t j = 0; j < m.n_ops; j++) {
            const v10_op *op = &m.ops[j];
            int qk = ends_with(op->name, "attn.qk"), av = ends_with(op->name, "attn.av");
            if (!qk && !av)
                continue;
            attn++;
            assert_int_equal(op->kind, V10_OP_GEMM); /* causal attention on the SA */
            assert_int_equal(op->count, c.kv_heads);
            assert_int_equal(op->m, group * P);
            assert_int_equal(op->n, qk ? P : c.head_dim);
            assert_int_equal(op->k, qk ? c.head_dim : P);
        }
        assert_int_equal(attn, 2ull * c.layers);
        /* prefill FLOPs: P tokens' matmuls, the full P x P score matrix, one LM head */
        uint64_t lm = 2ull * c.vocab * c.hidden;
        assert_int_equal(stream_flops(&m), P * (2 * v10_llm_matmul_params(&c) - lm) + lm +
                                               4ull * c.layers * c.heads * c.head_dim * P * P);
        v10_model_fini(&m);
    }
}

static void decode_shapes_and_hbm(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        uint32_t ctx[5] = {1, 10, 100, 1000, c.max_context < 2000 ? c.max_context : 2000};
        uint64_t sum = 0;
        for (int j = 0; j < 5; j++)
            sum += ctx[j];
        v10_model m;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 5);
        assert_int_equal(v10_llm_decode(&c, 5, ctx, &m, &err), 0);
        check_weight_gemms(&c, &m, 5, 5);
        uint64_t kv = 0, attn_ops = 0;
        for (size_t j = 0; j < m.n_ops; j++) {
            const v10_op *op = &m.ops[j];
            if (op->kind == V10_OP_GEMM)
                assert_int_equal(op->count, 1); /* no attention GEMMs in decode */
            if (ends_with(op->name, "attn.qk") || ends_with(op->name, "attn.av")) {
                assert_int_equal(op->fu, V10_FU_VU);
                assert_int_equal(op->elems, (uint64_t)c.heads * c.head_dim * sum);
                /* its K (or V) read, plus the queries and scores */
                uint64_t k = sum * c.kv_heads * c.head_dim * 2;
                assert_true(op->hbm_bytes >= k);
                kv += k;
                attn_ops++;
            }
        }
        assert_int_equal(attn_ops, 2ull * c.layers);
        assert_int_equal(kv, sum * v10_llm_kv_bytes_per_token(&c));
        /* costed: HBM bytes >= the weights read once + the KV cache read */
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        uint64_t hbm = 0;
        for (size_t j = 0; j < m.n_ops; j++)
            hbm += m.ops[j].hbm_bytes;
        assert_true(hbm >= 2 * v10_llm_matmul_params(&c) + kv);
        v10_model_fini(&m);
    }
}

/* A prefill of several prompts in one iteration (v10_llm_prefill_batch):
 * the weight GEMMs have M = the sum of the prompts and read the weights
 * once; each prompt keeps its own attention; the FLOPs are the prompts'
 * own, summed (the matmuls are linear in M, the LM head runs per prompt). */
static void batched_prefill(void **state)
{
    (void)state;
    const uint32_t P[3] = {37, 5, 20};
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        v10_model m, one;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 1);
        assert_int_equal(v10_llm_prefill_batch(&c, 3, P, &m, &err), 0);
        check_weight_gemms(&c, &m, 62, 3);
        uint64_t flops = 0, attn = 0;
        for (int k = 0; k < 3; k++) {
            v10_model_init(&one, c.name, 1);
            assert_int_equal(v10_llm_prefill(&c, P[k], &one, &err), 0);
            flops += stream_flops(&one);
            v10_model_fini(&one);
        }
        assert_int_equal(stream_flops(&m), flops);
        for (size_t j = 0; j < m.n_ops; j++)
            if (ends_with(m.ops[j].name, "attn.qk")) {
                assert_int_equal(m.ops[j].n, P[attn % 3]); /* prompt by prompt, each layer */
                attn++;
            }
        assert_int_equal(attn, 3ull * c.layers);
        assert_int_equal(v10_llm_prefill_batch(&c, 0, P, &m, &err), -1);
        v10_model_fini(&m);
    }
}

/* Fused attention (the default) moves Q, K, V and the output; the scores
 * stay on chip.  Unfused, QK^T writes the heads x P x P scores, P.V reads
 * them back and the softmax reads and writes them too. */
static void fused_attention(void **state)
{
    (void)state;
    const uint64_t P = 300;
    v10_npu npu = npu_named("tpuv4-core");
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        assert_int_equal(c.attention, V10_LLM_FUSED);
        uint64_t hbm[2] = {0, 0}, cycles[2];
        for (int u = 0; u < 2; u++) {
            c.attention = u ? V10_LLM_UNFUSED : V10_LLM_FUSED;
            v10_model m;
            v10_err err = {{0}};
            v10_model_init(&m, c.name, 1);
            assert_int_equal(v10_llm_prefill(&c, P, &m, &err), 0);
            uint64_t q = (uint64_t)c.heads * P * c.head_dim * 2, rows;
            uint64_t kv = (uint64_t)c.kv_heads * P * c.head_dim * 2;
            uint64_t scores = c.heads * v10_llm_causal_blocks(P, 0, &rows) * 2;
            for (size_t j = 0; j < m.n_ops; j++) {
                const v10_op *op = &m.ops[j];
                if (ends_with(op->name, "attn.qk") || ends_with(op->name, "attn.av"))
                    assert_int_equal(op->hbm_bytes, q + kv + (u ? scores : 0));
                if (ends_with(op->name, "attn.softmax"))
                    assert_true(u ? op->hbm_bytes >= 2 * scores : op->hbm_bytes == 0);
                hbm[u] += op->hbm_bytes;
            }
            assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
            cycles[u] = m.total_cycles;
            v10_model_fini(&m);
        }
        uint64_t rows, area = v10_llm_causal_blocks(P, 0, &rows);
        assert_true(hbm[1] >= hbm[0] + 4ull * c.layers * c.heads * area * 2);
        assert_true(cycles[0] <= cycles[1]);
    }
}

/*
 * Causal attention (v10_llm_causal_blocks, a flash kernel's 128 x 128
 * blocks on and below the diagonal): for a whole prompt of n x 128 tokens
 * the QK^T and P.V GEMMs of every layer do heads x head_dim x 128^2 x
 * n(n + 1) / 2 MACs each, exactly, between the exact causal count
 * P(P + 1) / 2 per head and dim and the full P^2; the prompt's FLOPs are
 * its matmuls', this attention and one LM head.  A 300-token prompt:
 * blocks of 300 x 128, 172 x 128 and 44 x 44 (62,352 scores, 516 rows over
 * 3 key blocks); a chunk of 256 after 128 cached tokens: 256, 256 and 128
 * rows of 128 keys (81,920), the GEMMs' M the mean rows rounded up (214).
 * Decode attention reads the whole cache.
 */
static void causal_flops(void **state)
{
    (void)state;
    uint64_t rows;
    assert_int_equal(v10_llm_causal_blocks(300, 0, &rows), 62352);
    assert_int_equal(rows, 516);
    assert_int_equal(v10_llm_causal_blocks(256, 128, &rows), 81920);
    assert_int_equal(rows, 640);
    assert_int_equal(v10_llm_causal_blocks(1, 4095, &rows), 4096); /* a decode-like row */
    assert_int_equal(v10_llm_causal_blocks(37, 0, &rows), 37 * 37);
    for (size_t i = 0; i < N_EXPECT; i++) {
        v10_llm_config c = preset(EXPECT[i].name);
        uint64_t lm = 2ull * c.vocab * c.hidden, per = 2ull * c.layers * c.heads * c.head_dim;
        for (uint64_t n = 1; n <= 32; n *= 2) {
            uint64_t P = 128 * n;
            if (P > c.max_context)
                continue;
            uint64_t area = 128 * 128 * n * (n + 1) / 2;
            assert_int_equal(v10_llm_causal_blocks(P, 0, &rows), area);
            assert_true(area >= P * (P + 1) / 2 && (n == 1 ? area == P * P : area < P * P));
            v10_model m;
            v10_err err = {{0}};
            v10_model_init(&m, c.name, 1);
            assert_int_equal(v10_llm_prefill(&c, P, &m, &err), 0);
            uint64_t attn = 0;
            for (size_t j = 0; j < m.n_ops; j++)
                if (ends_with(m.ops[j].name, "attn.qk") || ends_with(m.ops[j].name, "attn.av"))
                    attn += 2 * m.ops[j].count * m.ops[j].m * m.ops[j].n * m.ops[j].k;
            assert_int_equal(attn, 2 * per * area);
            assert_int_equal(stream_flops(&m),
                             P * (2 * v10_llm_matmul_params(&c) - lm) + lm + 2 * per * area);
            v10_model_fini(&m);
        }
        /* a later chunk: within one row per key block of the blocks' count */
        uint32_t dec = 100, chunk = 256, past = 128;
        v10_model m;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 1);
        assert_int_equal(v10_llm_mixed(&c, 1, &dec, 1, &chunk, &past, 1, &m, &err), 0);
        uint64_t group = c.heads / c.kv_heads;
        for (size_t j = 0; j < m.n_ops; j++)
            if (ends_with(m.ops[j].name, "attn.qk") && m.ops[j].kind == V10_OP_GEMM) {
                assert_int_equal(m.ops[j].m, group * 214);
                assert_int_equal(m.ops[j].n, 384);
                uint64_t macs = m.ops[j].count * m.ops[j].m * m.ops[j].n * m.ops[j].k;
                uint64_t exact = c.heads * 81920ull * c.head_dim;
                assert_true(macs >= exact && macs <= exact + c.heads * 3ull * 128 * c.head_dim);
            }
        v10_model_fini(&m);
    }
}

/* No stream beats the roofline: a lone prefill or decode takes at least
 * its matmul FLOPs at the SAs' peak and its weight (and KV) bytes at the
 * HBM bandwidth, on every preset model and both NPUs of docs/llm.md, each
 * operator over the engines the NPU's op_mapping gives it alone (all four
 * SAs of tpuv4-core). */
static void bounds_never_beaten(void **state)
{
    (void)state;
    const char *npus[2] = {"v10-isca23", "tpuv4-core"};
    for (int n = 0; n < 2; n++) {
        v10_npu npu = npu_named(npus[n]);
        double peak = 2.0 * npu.sa_count * npu.sa_rows * npu.sa_cols; /* FLOPs per cycle */
        double bw = v10_npu_hbm_bytes_per_cycle(&npu);
        for (size_t i = 0; i < N_EXPECT; i++) {
            v10_llm_config c = preset(EXPECT[i].name);
            double w = 2.0 * (double)v10_llm_matmul_params(&c);
            for (int k = 0; k < 5; k++) {
                const uint32_t P[3] = {128, 1024, 4096}, B[2] = {1, 32};
                if (k < 3 && P[k] > c.max_context)
                    continue;
                v10_model m;
                v10_err err = {{0}};
                v10_model_init(&m, c.name, 1);
                double flops, bytes;
                if (k < 3) {
                    assert_int_equal(v10_llm_prefill(&c, P[k], &m, &err), 0);
                    flops = (double)stream_flops(&m);
                    bytes = w;
                } else {
                    uint32_t ctx[32];
                    for (int j = 0; j < 32; j++)
                        ctx[j] = 1024;
                    assert_int_equal(v10_llm_decode(&c, B[k - 3], ctx, &m, &err), 0);
                    flops = (double)B[k - 3] * (double)v10_llm_flops_per_token(&c, 1024);
                    bytes = w + (double)B[k - 3] * 1024 * (double)v10_llm_kv_bytes_per_token(&c);
                }
                assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
                assert_int_equal(v10_cost_map_model(&npu, &m, &err), 0); /* as run alone */
                double bound = flops / peak > bytes / bw ? flops / peak : bytes / bw;
                assert_true((double)m.total_cycles >= bound);
                v10_model_fini(&m);
            }
        }
    }
}

/*
 * llama2-7b alone on tpuv4-core as the preset maps it (each operator over
 * its four SAs), against tools/llm_bounds.py's roofline max(FLOPs / peak,
 * bytes / HBM bandwidth): the prefill of 1,024 tokens (2 x linear params x
 * P + one LM head + causal attention 2 x layers x heads x head_dim x P^2;
 * the weights and the P tokens' K and V) within 1.3x, the decode of one
 * sequence over 1,024 tokens (2 x matmul params + 4 x layers x heads x
 * head_dim x 1024; the weights and the 1,024 tokens' K and V) within 1.1x,
 * neither below.
 */
static void llama2_7b_near_roofline(void **state)
{
    (void)state;
    v10_npu npu = npu_named("tpuv4-core");
    v10_llm_config c = preset("llama2-7b");
    double peak = 2.0 * npu.sa_count * npu.sa_rows * npu.sa_cols; /* FLOPs a cycle */
    double bw = v10_npu_hbm_bytes_per_cycle(&npu);
    double lm = (double)c.vocab * c.hidden, lin = (double)v10_llm_matmul_params(&c) - lm;
    double kvpt = (double)v10_llm_kv_bytes_per_token(&c), P = 1024;
    double attn = 2.0 * c.layers * c.heads * c.head_dim;
    double bound[2] = {
        fmax((2 * lin * P + 2 * lm + attn * P * P) / peak, (2 * (lin + lm) + P * kvpt) / bw),
        fmax((2 * (lin + lm) + 2 * attn * 1024) / peak, (2 * (lin + lm) + 1024 * kvpt) / bw),
    };
    const double most[2] = {1.3, 1.1};
    for (int k = 0; k < 2; k++) {
        v10_model m;
        v10_err err = {{0}};
        v10_model_init(&m, c.name, 1);
        uint32_t ctx = 1024;
        assert_int_equal(k ? v10_llm_decode(&c, 1, &ctx, &m, &err)
                           : v10_llm_prefill(&c, 1024, &m, &err), 0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        assert_int_equal(v10_cost_map_model(&npu, &m, &err), 0);
        double ratio = (double)m.total_cycles / bound[k];
        if (!(ratio >= 1 && ratio <= most[k]))
            fail_msg("%s: %.3fx its roofline, expected 1 to %.1f", k ? "TPOT" : "TTFT", ratio,
                     most[k]);
        v10_model_fini(&m);
    }
}

static void bad_phase_sizes(void **state)
{
    (void)state;
    v10_llm_config c = preset("llama2-7b");
    v10_model m;
    v10_err err = {{0}};
    v10_model_init(&m, c.name, 1);
    assert_int_equal(v10_llm_prefill(&c, 0, &m, &err), -1);
    assert_non_null(strstr(err.msg, "max_context = 4096"));
    assert_int_equal(v10_llm_prefill(&c, 4097, &m, &err), -1);
    uint32_t ctx[2] = {5, 4097};
    assert_int_equal(v10_llm_decode(&c, 2, ctx, &m, &err), -1);
    assert_non_null(strstr(err.msg, "sequence 1 has context 4097"));
    ctx[1] = 0;
    assert_int_equal(v10_llm_decode(&c, 2, ctx, &m, &err), -1);
    assert_int_equal(v10_llm_decode(&c, 0, ctx, &m, &err), -1);
    assert_int_equal(m.n_ops, 0);
    v10_model_fini(&m);
}

static void fit_check(void **state)
{
    (void)state;
    v10_llm_config c = preset("llama3-8b");
    v10_npu v4 = npu_named("tpuv4-core"), isca = npu_named("v10-isca23");
    assert_int_equal(isca.hbm_capacity_bytes, 32ull << 30);
    assert_int_equal(v4.hbm_capacity_bytes, 16ull << 30);
    v10_err err = {{0}};
    uint64_t w = v10_llm_weight_bytes(&c), kvt = v10_llm_kv_bytes_per_token(&c);
    assert_int_equal(v10_llm_check_fit(&c, &v4, 0, &err), 0);
    /* the boundary: exactly full fits, one token more does not */
    uint64_t room = (v4.hbm_capacity_bytes - w) / kvt;
    assert_int_equal(v10_llm_check_fit(&c, &v4, room, &err), 0);
    assert_int_equal(v10_llm_check_fit(&c, &v4, room + 1, &err), -1);
    char need[32], have[32];
    snprintf(need, sizeof need, "%llu", (unsigned long long)w);
    snprintf(have, sizeof have, "%llu", (unsigned long long)v4.hbm_capacity_bytes);
    assert_non_null(strstr(err.msg, need));
    assert_non_null(strstr(err.msg, have));
    assert_non_null(strstr(err.msg, "tpuv4-core"));
    /* weights alone too big */
    v10_npu small = isca;
    small.hbm_capacity_bytes = 8ull << 30;
    assert_int_equal(v10_llm_check_fit(&c, &small, 0, &err), -1);
    assert_non_null(strstr(err.msg, need));
    assert_non_null(strstr(err.msg, "8589934592"));
    /* the capacity is an NPU JSON key like any other */
    v10_npu j;
    assert_int_equal(v10_npu_from_json("{\"hbm_capacity_bytes\": 8589934592}", "c.json", &j,
                                       &err), 0);
    assert_int_equal(j.hbm_capacity_bytes, 8ull << 30);
    assert_int_equal(v10_npu_from_json("{\"hbm_capacity_bytes\": 1000}", "c.json", &j, &err),
                     -1);
    assert_non_null(strstr(err.msg, "hbm_capacity_bytes"));
    /* an absurd token count is refused, not wrapped around */
    assert_int_equal(v10_llm_check_fit(&c, &isca, UINT64_MAX / 2, &err), -1);
    /* the model loader checks the fit on the NPU it costs for */
    v10_model m;
    assert_int_equal(v10_model_load("llm/llama3-8b:decode=32x1024", &v4, &m, &err), -1);
    assert_non_null(strstr(err.msg, have));
    assert_null(m.ops);
}

static void spec_form(void **state)
{
    (void)state;
    v10_npu npu = npu_named("v10-isca23");
    v10_model a, b;
    v10_err err = {{0}};
    assert_int_equal(v10_model_load("llm/llama3.2-1b:decode=2x100,3x50,7", &npu, &a, &err), 0);
    assert_int_equal(a.batch, 6);
    v10_llm_config c = preset("llama3.2-1b");
    uint32_t ctx[6] = {100, 100, 50, 50, 50, 7};
    v10_model_init(&b, "direct", 6);
    assert_int_equal(v10_llm_decode(&c, 6, ctx, &b, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &b, &err), 0);
    assert_int_equal(a.n_ops, b.n_ops);
    assert_int_equal(v10_model_cycles(&a), v10_model_cycles(&b));
    v10_model_fini(&a);
    v10_model_fini(&b);
    assert_int_equal(v10_model_load("llm/gpt2-xl:prefill=1024", &npu, &a, &err), 0);
    assert_int_equal(a.batch, 1);
    assert_true(v10_model_cycles(&a) > 0);
    v10_model_fini(&a);
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"llm/llama3-8b", "needs a phase"},
        {"llm/llama3-8b:prefill=0", "prefill"},
        {"llm/llama3-8b:prefill=8193", "max_context = 8192"},
        {"llm/llama3-8b:prefill=12x", "prefill"},
        {"llm/llama3-8b:decode=x5", "decode"},
        {"llm/llama3-8b:decode=0x5", "decode"},
        {"llm/llama3-8b:decode=4x", "decode"},
        {"llm/llama3-8b:decode=4x5,", "decode"},
        {"llm/llama3-8b:decode=65537x1", "decode"},
        {"llm/llama3-8b:decode=40000x1,40000x1", "more than 65536"},
        {"llm/llama3-8b:decode=4x5:batch=4", "batch="},
        {"llm/gpt-9:prefill=4", "unknown LLM 'gpt-9'"},
        {"bert:decode=4x5", "llm/ models only"},
        {"llm/no/such.json:prefill=4", "no/such.json: cannot open"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        if (v10_model_load(bad[i].spec, &npu, &a, &err) != -1)
            fail_msg("%s accepted", bad[i].spec);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("%s: message '%s' lacks '%s'", bad[i].spec, err.msg, bad[i].needle);
        assert_null(a.ops);
    }
}

/* A tenant spec hands the phase to the model loader and keeps its own keys. */
static void tenant_spec(void **state)
{
    (void)state;
    v10_tenant_spec t;
    v10_err err = {{0}};
    assert_int_equal(v10_tenant_spec_parse("llm/llama3-8b:decode=4x5:priority=2", &t, &err), 0);
    assert_string_equal(t.model, "llm/llama3-8b:decode=4x5");
    assert_true(t.priority == 2.0);
    assert_int_equal(v10_tenant_spec_parse("llm/gpt2-xl:prefill=64", &t, &err), 0);
    assert_string_equal(t.model, "llm/gpt2-xl:prefill=64");
    assert_int_equal(v10_tenant_spec_parse("llm/gpt2-xl:prefil=64", &t, &err), -1);
    assert_non_null(strstr(err.msg, "slo_us, profile, row, prefill, decode, trace, lengths"));
}

/* ---- the JSON form ---- */

static void json_configs(void **state)
{
    (void)state;
    /* Mistral 7B v0.1 (its config.json): 7,241,732,096 parameters published */
    const char *mistral = "{\"name\": \"mistral-7b\", \"layers\": 32, \"hidden\": 4096,"
                          " \"heads\": 32, \"kv_heads\": 8, \"ffn\": 14336, \"vocab\": 32000,"
                          " \"max_context\": 32768}";
    v10_llm_config c;
    v10_err err = {{0}};
    assert_int_equal(v10_llm_from_json(mistral, "m.json", &c, &err), 0);
    assert_string_equal(c.name, "mistral-7b");
    assert_int_equal(c.head_dim, 128);
    assert_int_equal(c.ffn_act, V10_LLM_SWIGLU);
    assert_int_equal(c.norm, V10_LLM_RMSNORM);
    assert_int_equal(v10_llm_params(&c), 7241732096ull);
    /* over a base: only the given keys change; unnamed, it is named by origin */
    assert_int_equal(v10_llm_from_json("{\"base\": \"llama3-8b\", \"max_context\": 1024}",
                                       "short.json", &c, &err), 0);
    v10_llm_config want = preset("llama3-8b");
    want.max_context = 1024;
    snprintf(want.name, sizeof want.name, "short.json");
    assert_memory_equal(&c, &want, sizeof c);
    /* GPT-2 style keys */
    assert_int_equal(v10_llm_from_json("{\"layers\": 12, \"hidden\": 768, \"heads\": 12, "
                                       "\"ffn\": 3072, \"vocab\": 50257, \"max_context\": 1024, "
                                       "\"ffn_act\": \"gelu\", \"norm\": \"layernorm\", "
                                       "\"positions\": \"learned\", \"bias\": true, "
                                       "\"tied_embeddings\": true}", "gpt2.json", &c, &err), 0);
    assert_int_equal(v10_llm_params(&c), 124439808ull); /* GPT-2 small, as published */

    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"base\": \"llama3-8b\", \"layer\": 3}", "unknown key 'layer'"},
        {"{\"base\": \"llama3-8b\", \"layers\": 0}", "key 'layers'"},
        {"{\"base\": \"llama3-8b\", \"hidden\": \"big\"}", "key 'hidden'"},
        {"{\"base\": \"llama3-8b\", \"heads\": 2.5}", "key 'heads'"},
        {"{\"base\": \"llama3-8b\", \"vocab\": 1e12}", "key 'vocab'"},
        {"{\"base\": \"llama3-8b\", \"ffn_act\": \"relu\"}", "key 'ffn_act'"},
        {"{\"base\": \"llama3-8b\", \"bias\": 1}", "key 'bias'"},
        {"{\"base\": \"llama3-8b\", \"kv_heads\": 5}", "kv_heads = 5"},
        {"{\"base\": \"llama3-8b\", \"kv_heads\": 64}", "kv_heads = 64"},
        {"{\"base\": \"llama9\"}", "key 'base'"},
        {"{\"base\": 3}", "key 'base'"},
        {"{\"base\": \"llama3-8b\", \"name\": \"\"}", "key 'name'"},
        {"{\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"ffn\": 128, \"max_context\": 8}",
         "missing key 'vocab'"},
        {"{\"layers\": 2, \"hidden\": 65, \"heads\": 4, \"ffn\": 128, \"vocab\": 9, "
         "\"max_context\": 8}", "key 'head_dim' is needed"},
        {"[1, 2]", "JSON object"},
        {"{\n\"layers\": 2,\n\"hidden\": }", "cfg.json:3: malformed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        if (v10_llm_from_json(bad[i].text, "cfg.json", &c, &err) != -1)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err.msg, bad[i].needle) || !strstr(err.msg, "cfg.json"))
            fail_msg("%s: message '%s' lacks '%s' or the origin", bad[i].text, err.msg,
                     bad[i].needle);
    }
}

/* Writes `text` to a fresh temporary file; returns its path (static). */
static const char *write_tmp(const char *name, const char *text)
{
    static char dir[64], path[160];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/v10_llm_XXXXXX");
        assert_non_null(mkdtemp(dir));
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void json_file_in_spec(void **state)
{
    (void)state;
    const char *path = write_tmp("tiny.json", "{\"name\": \"tiny\", \"layers\": 2, \"hidden\": 256,"
                                              " \"heads\": 4, \"kv_heads\": 2, \"ffn\": 512,"
                                              " \"vocab\": 1000, \"max_context\": 128}\n");
    char spec[256];
    snprintf(spec, sizeof spec, "llm/%s:decode=4x128", path);
    v10_npu npu = npu_named("v10-isca23");
    v10_model m;
    v10_err err = {{0}};
    if (v10_model_load(spec, &npu, &m, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(m.batch, 4);
    v10_model_fini(&m);
    path = write_tmp("bad.json", "{\"base\": \"gpt2-xl\", \"heads\": 7}");
    snprintf(spec, sizeof spec, "llm/%s:prefill=4", path);
    assert_int_equal(v10_model_load(spec, &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "bad.json"));
    assert_non_null(strstr(err.msg, "kv_heads"));
    unlink(path);
    unlink(write_tmp("tiny.json", ""));
}

/* ---- the trace reader ---- */

static void trace_excerpts(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        uint64_t prompt, output;   /* column sums */
        double last_s;             /* last arrival after the first, seconds */
        uint32_t p0, o0;           /* first row */
    } files[] = {
        /* 18:16:47.9441270 - 18:15:46.6805900 */
        {DATA "azure_conv_200.csv", 180695, 47050, 61.263537, 374, 44},
        /* 18:20:23.0695450 - 18:17:03.9799600 */
        {DATA "azure_code_200.csv", 414215, 4907, 199.089585, 4808, 10},
    };
    for (size_t i = 0; i < 2; i++) {
        v10_llm_trace t;
        v10_err err = {{0}};
        if (v10_llm_trace_read(files[i].file, 1.0, 0.0, &t, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(t.n, 200);
        uint64_t p = 0, o = 0;
        for (size_t j = 0; j < t.n; j++) {
            p += t.reqs[j].prompt_tokens;
            o += t.reqs[j].output_tokens;
            if (j)
                assert_true(t.reqs[j].arrival_s >= t.reqs[j - 1].arrival_s);
        }
        assert_int_equal(p, files[i].prompt);
        assert_int_equal(o, files[i].output);
        assert_int_equal(t.reqs[0].prompt_tokens, files[i].p0);
        assert_int_equal(t.reqs[0].output_tokens, files[i].o0);
        assert_true(t.reqs[0].arrival_s == 0.0);
        assert_true(fabs(t.reqs[199].arrival_s - files[i].last_s) < 1e-9);
        v10_llm_trace_fini(&t);
        /* scale and offset: arrival = gap x scale + offset */
        assert_int_equal(v10_llm_trace_read(files[i].file, 0.5, 10.0, &t, &err), 0);
        assert_true(t.reqs[0].arrival_s == 10.0);
        assert_true(fabs(t.reqs[199].arrival_s - (10.0 + files[i].last_s / 2)) < 1e-9);
        v10_llm_trace_fini(&t);
    }
}

static void trace_bad_files(void **state)
{
    (void)state;
    static const char H[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    static const char R1[] = "2023-11-16 18:15:46.6805900,374,44\n";
    static const struct {
        const char *name, *body, *needle1, *needle2;
    } cases[] = {
        {"month.csv", "2023-13-16 18:15:46.6805900,374,44\n", "month.csv:3:", "TIMESTAMP"},
        {"feb30.csv", "2023-02-30 00:00:00,1,1\n", "feb30.csv:3:", "TIMESTAMP"},
        {"hour.csv", "2023-11-16 24:00:00,1,1\n", "hour.csv:3:", "TIMESTAMP"},
        {"garbage.csv", "yesterday,1,1\n", "garbage.csv:3:", "'yesterday'"},
        {"frac.csv", "2023-11-16 18:15:47.1234567890,1,1\n", "frac.csv:3:", "TIMESTAMP"},
        {"tz.csv", "2023-11-16 18:15:47Z,1,1\n", "tz.csv:3:", "TIMESTAMP"},
        {"negative.csv", "2023-11-16 18:15:47.0,-5,44\n", "negative.csv:3:", "negative"},
        {"zero.csv", "2023-11-16 18:15:47.0,5,0\n", "zero.csv:3:", "GeneratedTokens"},
        {"float.csv", "2023-11-16 18:15:47.0,12.5,4\n", "float.csv:3:", "ContextTokens"},
        {"huge.csv", "2023-11-16 18:15:47.0,4294967296,4\n", "huge.csv:3:", "ContextTokens"},
        {"empty_cell.csv", "2023-11-16 18:15:47.0,,4\n", "empty_cell.csv:3:", "ContextTokens"},
        {"unsorted.csv", "2023-11-16 18:15:45.0,5,4\n", "unsorted.csv:3:", "line 2"},
        {"fields.csv", "2023-11-16 18:15:47.0,5\n", "fields.csv:3:", "fields"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s%s", H, R1, cases[i].body);
        const char *path = write_tmp(cases[i].name, text);
        v10_llm_trace t;
        v10_err err = {{0}};
        if (v10_llm_trace_read(path, 1.0, 0.0, &t, &err) != -1)
            fail_msg("%s accepted", cases[i].name);
        if (!strstr(err.msg, cases[i].needle1) || !strstr(err.msg, cases[i].needle2))
            fail_msg("%s: message '%s' lacks '%s' or '%s'", cases[i].name, err.msg,
                     cases[i].needle1, cases[i].needle2);
        assert_null(t.reqs);
        unlink(path);
    }
    static const struct {
        const char *name, *text, *needle;
    } whole[] = {
        {"empty.csv", "", "empty"},
        {"header_only.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n\n", "no requests"},
        {"missing_col.csv", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:47.0,5\n",
         "missing_col.csv:1: missing column 'GeneratedTokens'"},
        {"unknown_col.csv", "TIMESTAMP,ContextTokens,GeneratedTokens,Model\n",
         "unknown_col.csv:1: unknown column 'Model'"},
        {"twice.csv", "TIMESTAMP,ContextTokens,ContextTokens\n", "given twice"},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        const char *path = write_tmp(whole[i].name, whole[i].text);
        v10_llm_trace t;
        v10_err err = {{0}};
        assert_int_equal(v10_llm_trace_read(path, 1.0, 0.0, &t, &err), -1);
        if (!strstr(err.msg, whole[i].needle))
            fail_msg("%s: message '%s' lacks '%s'", whole[i].name, err.msg, whole[i].needle);
        unlink(path);
    }
    /* a line past the CSV line limit */
    char *longer = malloc(6000);
    assert_non_null(longer);
    snprintf(longer, 6000, "%s%s2023-11-16 18:15:47.%05000d,1,1\n", H, R1, 0);
    const char *lpath = write_tmp("long.csv", longer);
    free(longer);
    v10_llm_trace lt;
    v10_err lerr = {{0}};
    assert_int_equal(v10_llm_trace_read(lpath, 1.0, 0.0, &lt, &lerr), -1);
    assert_non_null(strstr(lerr.msg, "long.csv:3: line longer than"));
    unlink(lpath);
    /* columns in another order, CRLF line ends, a byte-order mark: all fine */
    const char *path = write_tmp("reordered.csv", "\xEF\xBB\xBFGeneratedTokens,TIMESTAMP,"
                                                  "ContextTokens\r\n7,2023-11-16 18:15:47,9\r\n"
                                                  "8,2023-11-16 18:15:48.5,10\r\n");
    v10_llm_trace t;
    v10_err err = {{0}};
    if (v10_llm_trace_read(path, 2.0, 1.0, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.reqs[1].prompt_tokens, 10);
    assert_int_equal(t.reqs[1].output_tokens, 8);
    assert_true(t.reqs[1].arrival_s == 1.0 + 1.5 * 2.0);
    v10_llm_trace_fini(&t);
    /* scale and offset out of range */
    assert_int_equal(v10_llm_trace_read(path, 0.0, 0.0, &t, &err), -1);
    assert_non_null(strstr(err.msg, "time scale"));
    assert_int_equal(v10_llm_trace_read(path, 1.0, -1.0, &t, &err), -1);
    assert_non_null(strstr(err.msg, "start offset"));
    unlink(path);
    assert_int_equal(v10_llm_trace_read("/nonexistent/x.csv", 1.0, 0.0, &t, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.csv: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(presets_match_closed_forms),
        cmocka_unit_test(decode_flops_per_token),
        cmocka_unit_test(gpt2_matches_zoo),
        cmocka_unit_test(prefill_shapes),
        cmocka_unit_test(decode_shapes_and_hbm),
        cmocka_unit_test(batched_prefill),
        cmocka_unit_test(fused_attention), cmocka_unit_test(causal_flops),
        cmocka_unit_test(llama2_7b_near_roofline),
        cmocka_unit_test(bounds_never_beaten),
        cmocka_unit_test(bad_phase_sizes),
        cmocka_unit_test(fit_check),
        cmocka_unit_test(spec_form),
        cmocka_unit_test(tenant_spec),
        cmocka_unit_test(json_configs),
        cmocka_unit_test(json_file_in_spec),
        cmocka_unit_test(trace_excerpts),
        cmocka_unit_test(trace_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
