/*
 * zoo_seq.c — the zoo's sequence and recommendation models (docs/models.md):
 * BERT, the Transformer with beam-search decoding, ViT, a decoder-LLM step,
 * DLRM and NCF, on the builders of zoo_build.h.
 */
#include "workloads/zoo_build.h"

/* ---- transformer building blocks ---- */

/*
 * Multi-head attention of `rows_q` query tokens (per sequence: tq) over tk
 * keys, model width d, `heads` heads, for b->n sequences.  Projections are
 * SA GEMMs (Q, K, V each, as the Model Garden's EinsumDense layers); QK^T
 * and P.V are batched GEMMs (count = batch*heads, operands are
 * activations); the mask add and softmax are one VU op; the output
 * projection carries the residual add (its output fusion).
 */
static void attention(zb *b, const char *pfx, uint64_t tq, uint64_t tk, uint64_t d,
                      uint64_t heads, int self, int causal)
{
    uint64_t n = b->n, dh = d / heads;
    if (self) {
        gemm(b, pfx, "qkv", 1, n * tq, 3 * d, d, 1);
    } else {
        gemm(b, pfx, "q", 1, n * tq, d, d, 1);
        gemm(b, pfx, "kv", 1, n * tk, 2 * d, d, 1);
    }
    gemm(b, pfx, "qk", n * heads, tq, tk, dh, 0);
    softmax(b, pfx, "softmax", n * heads * tq, tk, causal);
    gemm(b, pfx, "av", n * heads, tq, dh, tk, 0);
    gemm(b, pfx, "proj", 1, n * tq, d, d, 1);
    vu(b, pfx, "add", ew2(n * tq, d, OPS_ADD, 2, V10_FUSE_SA));
}

/* Position-wise FFN: d -> ff with activation fused, ff -> d with the
 * residual add fused. */
static void ffn(zb *b, const char *pfx, uint64_t rows, uint64_t d, uint64_t ff)
{
    fc(b, pfx, "ffn1", rows, d, ff);
    fc(b, pfx, "ffn2", rows, ff, d);
    vu(b, pfx, "add", ew2(rows, d, OPS_ADD, 2, V10_FUSE_SA));
}

/* Post-LN encoder layer (BERT, Transformer): attention, add+LN, FFN, add+LN. */
static void encoder_layer(zb *b, const char *pfx, uint64_t t, uint64_t d, uint64_t heads,
                          uint64_t ff)
{
    char p[V10_OPNAME_MAX];
    snprintf(p, sizeof p, "%s.attn", pfx);
    attention(b, p, t, t, d, heads, 1, 0);
    layernorm(b, p, "ln", b->n * t, d);
    snprintf(p, sizeof p, "%s.mlp", pfx);
    ffn(b, p, b->n * t, d, ff);
    layernorm(b, p, "ln", b->n * t, d);
}

/* Pre-LN layer (ViT, GPT-2): LN, attention (+ add); LN, MLP (+ add). */
static void preln_layer(zb *b, const char *pfx, uint64_t tq, uint64_t tk, uint64_t d,
                        uint64_t heads, uint64_t ff, int causal)
{
    char p[V10_OPNAME_MAX];
    uint64_t rows = b->n * tq;
    snprintf(p, sizeof p, "%s.attn", pfx);
    layernorm(b, p, "ln", rows, d);
    attention(b, p, tq, tk, d, heads, 1, causal);
    snprintf(p, sizeof p, "%s.mlp", pfx);
    layernorm(b, p, "ln", rows, d);
    ffn(b, p, rows, d, ff);
}


void zoo_bert(zb *b)
{
    const uint64_t t = 384, d = 1024;
    uint64_t rows = b->n * t;
    gather(b, "embed", "word", rows, d);
    vu(b, "embed", "sum", ew2(rows, d, 2 * OPS_ADD, 3, V10_FUSE_VU));
    layernorm(b, "embed", "ln", rows, d);
    vu(b, "embed", "mask", ew2(b->n * t, t, 2, 1, V10_FUSE_NONE));
    for (int l = 0; l < 24; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "layer%d", l);
        encoder_layer(b, pfx, t, d, 16, 4096);
    }
    fc(b, "qa", "span", rows, d, 2);
    format(b, "qa", "unstack", rows, 2, 1);
}

/*
 * Transformer-base (WMT En-De) as the Model Garden's Transformer
 * (official/nlp/transformer) translates on a TPU: Vaswani et al.,
 * "Attention Is All You Need", NeurIPS 2017.  6 + 6 post-LN layers, d 512,
 * 8 heads, FFN 2048, shared 33,708-token vocabulary, 128 source tokens.
 * The encoder runs once; the encoder-decoder keys and values are projected
 * once and tiled to the beams.  Then the decode loop: beam search
 * (beam_search.py: TRANSFORMER_BEAM 4) with padded_decode, as TPUs need
 * static shapes: caches of max_decode_length = 128 + 50 (extra_decode_length)
 * positions, TRANSFORMER_STEPS steps (the zoo's target length).  Each step
 * runs the decoder on the beams' last tokens (attention over the cache as
 * multiply-reduce on the VU: XLA strength-reduces a dot of one row), the
 * output logits, a log-softmax, the top 2 x beam of beam x vocab, the
 * gathers of the chosen beams' sequences and caches, and the alive and
 * finished bookkeeping.
 */
#define TRANSFORMER_BEAM 4
#define TRANSFORMER_STEPS 128
#define TRANSFORMER_MAX_LEN (128 + 50)

static void decoder_step(zb *b, uint64_t step, uint64_t s, uint64_t d, uint64_t h,
                         uint64_t ff, uint64_t vocab)
{
    uint64_t r = b->n * TRANSFORMER_BEAM, L = TRANSFORMER_MAX_LEN, kv = r * L * d;
    char p[V10_OPNAME_MAX], q[2 * V10_OPNAME_MAX];
    snprintf(p, sizeof p, "dec.s%llu", (unsigned long long)step);
    gather(b, p, "embed", r, d);
    vu(b, p, "scale_pos", ew2(r, d, 2 * OPS_ADD, 1, V10_FUSE_NONE));
    for (uint64_t l = 0; l < 6; l++) {
        snprintf(q, sizeof q, "%s.l%llu", p, (unsigned long long)l);
        gemm(b, q, "self.qkv", 1, r, 3 * d, d, 1);
        vu(b, q, "self.cache_k", ew2(r, d, 1, 1, V10_FUSE_NONE));
        vu(b, q, "self.cache_v", ew2(r, d, 1, 1, V10_FUSE_NONE));
        vu(b, q, "self.qk", (vop){kv, d, L, OPS_FMA, 1, 0, 1, V10_FUSE_NONE});
        softmax(b, q, "self.softmax", r * h, L, 1);
        vu(b, q, "self.av", (vop){kv, d, L, OPS_FMA, 1, 0, 0, V10_FUSE_NONE});
        gemm(b, q, "self.proj", 1, r, d, d, 1);
        vu(b, q, "self.add", ew2(r, d, OPS_ADD, 2, V10_FUSE_SA));
        layernorm(b, q, "self.ln", r, d);
        gemm(b, q, "cross.q", 1, r, d, d, 1);
        vu(b, q, "cross.qk", (vop){r * s * d, d, s, OPS_FMA, 1, 0, 1, V10_FUSE_NONE});
        softmax(b, q, "cross.softmax", r * h, s, 0);
        vu(b, q, "cross.av", (vop){r * s * d, d, s, OPS_FMA, 1, 0, 0, V10_FUSE_NONE});
        gemm(b, q, "cross.proj", 1, r, d, d, 1);
        vu(b, q, "cross.add", ew2(r, d, OPS_ADD, 2, V10_FUSE_SA));
        layernorm(b, q, "cross.ln", r, d);
        ffn(b, q, r, d, ff);
        layernorm(b, q, "mlp.ln", r, d);
    }
    layernorm(b, p, "ln", r, d);
    fc(b, p, "logits", r, d, vocab);
    /* Beam search: log-softmax, the candidates' scores, top 2 x beam. */
    vu(b, p, "log_softmax", rowred(r, vocab, OPS_SOFTMAX, 2));
    vu(b, p, "add_alive", ew2(r, vocab, OPS_ADD, 2, V10_FUSE_NONE));
    sort(b, p, "top_2k", b->n, TRANSFORMER_BEAM * vocab, 2 * TRANSFORMER_BEAM);
    vu(b, p, "beam_ids", ew2(b->n, 2 * TRANSFORMER_BEAM, 4, 1, V10_FUSE_NONE));
    /* Grow the alive beams: gather the chosen beams' sequences and every
     * layer's key and value caches, then write the new ids. */
    uint64_t r2 = 2 * r;
    gather_slab(b, p, "gather_seq", r2, 1, L);
    for (int c = 0; c < 12; c++) {
        snprintf(q, sizeof q, "%s.gather_cache%d", p, c);
        gather_slab(b, q, "grow", r2, L, d);
    }
    vu(b, p, "update_seq", ew2(r2, L, 1, 1, V10_FUSE_NONE));
    vu(b, p, "finished_flags", ew2(b->n, 2 * TRANSFORMER_BEAM, 3, 2, V10_FUSE_NONE));
    /* The new alive set: top beam of 2 x beam, gathered again. */
    sort(b, p, "top_alive", b->n, 2 * TRANSFORMER_BEAM, TRANSFORMER_BEAM);
    gather(b, p, "alive_seq", r, L);
    for (int c = 0; c < 12; c++) {
        snprintf(q, sizeof q, "%s.alive_cache%d", p, c);
        gather_slab(b, q, "keep", r, L, d);
    }
    /* The finished set: length penalty, concat, top beam of 3 x beam. */
    vu(b, p, "length_norm", ew2(b->n, 2 * TRANSFORMER_BEAM, 6, 2, V10_FUSE_NONE));
    format(b, p, "concat_finished", b->n * 3 * TRANSFORMER_BEAM, L, 0);
    sort(b, p, "top_finished", b->n, 3 * TRANSFORMER_BEAM, TRANSFORMER_BEAM);
    gather(b, p, "finished_seq", r, L);
    vu(b, p, "finished_scores", ew2(b->n, TRANSFORMER_BEAM, 2, 2, V10_FUSE_NONE));
    tiny(b, p, "cond");
}

void zoo_transformer(zb *b)
{
    const uint64_t s = 128, d = 512, h = 8, ff = 2048, vocab = 33708;
    uint64_t n = b->n;
    gather(b, "enc.embed", "gather", n * s, d);
    vu(b, "enc.embed", "scale_pos", ew2(n * s, d, 2 * OPS_ADD, 2, V10_FUSE_NONE));
    vu(b, "enc", "attn_bias", ew2(n * s, s, 2, 1, V10_FUSE_NONE));
    for (int l = 0; l < 6; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "enc%d", l);
        encoder_layer(b, pfx, s, d, h, ff);
    }
    /* The encoder-decoder keys and values, once, tiled to the beams. */
    for (int l = 0; l < 6; l++) {
        char pfx[24];
        snprintf(pfx, sizeof pfx, "dec%d.cross", l);
        gemm(b, pfx, "kv", 1, n * s, 2 * d, d, 1);
        format(b, pfx, "tile_beams", n * TRANSFORMER_BEAM * s, 2 * d, 0);
    }
    vu(b, "dec", "init_cache", ew2(n * TRANSFORMER_BEAM * TRANSFORMER_MAX_LEN, 12 * d, 1, 0,
                                    V10_FUSE_NONE));
    for (uint64_t step = 0; step < TRANSFORMER_STEPS; step++)
        decoder_step(b, step, s, d, h, ff, vocab);
}

/*
 * ViT-B/16 at 224x224: Dosovitskiy et al., "An Image is Worth 16x16 Words:
 * Transformers for Image Recognition at Scale", ICLR 2021.  12 pre-LN
 * layers, d 768, 12 heads, MLP 3072 (GELU fused), 196 patches + [CLS].
 * Published: 17.6 GFLOPs (multiply-adds, as the paper counts them).
 */
void zoo_vit(zb *b)
{
    const uint64_t t = 197, d = 768;
    fmap x = {b->n, 224, 224, 3};
    image_input(b, x);
    /* 16x16 stride-16 patch embedding: a conv with no padding. */
    if (!b->rc)
        b->rc = v10_model_conv(b->m, "patch_embed", x.n, x.h, x.w, x.c, d, 16, 16, 16, 0,
                               b->err);
    format(b, "embed", "cls_concat", b->n * t, d, 0);
    vu(b, "embed", "pos", ew2(b->n * t, d, OPS_ADD, 2, V10_FUSE_VU));
    for (int l = 0; l < 12; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "block%d", l);
        preln_layer(b, pfx, t, t, d, 12, 4 * d, 0);
    }
    layernorm(b, "head", "ln", b->n * t, d);
    fc(b, "head", "fc", b->n, d, 1000);
    softmax(b, "head", "softmax", b->n, 1000, 0);
}

/*
 * One decoding step of GPT-2 XL (1.5B): Radford, Wu, Child, Luan, Amodei,
 * Sutskever, "Language Models are Unsupervised Multitask Learners", OpenAI
 * 2019.  48 pre-LN layers, d 1600, 25 heads, MLP 6400, vocab 50257; each
 * sequence emits one token attending over a KV cache of 1024 tokens (the
 * full context).  Every weight GEMM has M = batch, so the step is bound by
 * streaming 3.1 GB of weights and, in attention, the KV cache.  Analytic
 * MACs per token: 48 x (12 x 1600^2 + 2 x 1024 x 1600) + 1600 x 50257.
 */
void zoo_gpt_decode(zb *b)
{
    const uint64_t ctx = 1024, d = 1600, vocab = 50257;
    gather(b, "embed", "gather", b->n * 2, d); /* token and position rows */
    vu(b, "embed", "add", ew2(b->n, d, OPS_ADD, 2, V10_FUSE_VU));
    for (int l = 0; l < 48; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "h%d", l);
        preln_layer(b, pfx, 1, ctx, d, 25, 4 * d, 0);
    }
    layernorm(b, "head", "ln_f", b->n, d);
    fc(b, "head", "lm", b->n, d, vocab);
    softmax(b, "head", "softmax", b->n, vocab, 0);
}

/*
 * DLRM as in MLPerf (Criteo Terabyte): Naumov et al., "Deep Learning
 * Recommendation Model for Personalization and Recommendation Systems",
 * arXiv 1906.00091, 2019.  13 dense features (log(1 + x)) -> bottom MLP
 * 512-256-128; 26 embedding tables of dim 128, each looked up one row per
 * sample, all in one operator (TPUEmbedding's lookup of every table for a
 * step), one DMA per row; the 27 vectors concatenated; pairwise dot interaction
 * as a batched GEMM (27x128)(128x27); its 351 lower-triangle dots selected
 * and concatenated with the dense vector (479) -> top MLP
 * 1024-1024-512-256-1 (sigmoid fused).
 */
#define DLRM_TABLES 26

void zoo_dlrm(zb *b)
{
    static const uint64_t bottom[] = {13, 512, 256, 128};
    static const uint64_t top[] = {479, 1024, 1024, 512, 256, 1};
    const uint64_t dim = 128, vecs = DLRM_TABLES + 1;
    char sfx[16];
    vu(b, "dense", "log1p", ew2(b->n, 13, OPS_EXP + 2, 1, V10_FUSE_NONE));
    for (size_t i = 0; i + 1 < sizeof bottom / sizeof *bottom; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "bottom", sfx, b->n, bottom[i], bottom[i + 1]);
    }
    vu(b, "sparse", "hash", ew2(b->n, DLRM_TABLES, 3, 1, V10_FUSE_NONE));
    gather(b, "emb", "lookup", b->n * DLRM_TABLES, dim);
    format(b, "interact", "concat", b->n * vecs, dim, 0);
    gemm(b, "interact", "dot", b->n, vecs, vecs, dim, 0);
    vu(b, "interact", "tril",
       (vop){b->n * vecs * vecs, vecs, vecs, 2, 1, 0, 1, V10_FUSE_NONE});
    format(b, "interact", "concat_dense", b->n, top[0], 0);
    for (size_t i = 0; i + 1 < sizeof top / sizeof *top; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "top", sfx, b->n, top[i], top[i + 1]);
    }
}

/*
 * NeuMF as in MLPerf (MovieLens-20M), as the Model Garden's NCF
 * (official/recommendation) evaluates it: He, Liao, Zhang, Nie, Hu, Chua,
 * "Neural Collaborative Filtering", WWW 2017.  Each of the batch's users is
 * scored against its held-out item and NCF_EVAL_NEGATIVES sampled ones
 * (rconst.NUM_EVAL_NEGATIVES); one user and one item embedding table of
 * 64 + 128 (GMF and MLP halves); GMF: element-wise product; MLP: the
 * 128-wide halves concatenated (256) -> 256 -> 128 -> 64; predict
 * [64 | 64] -> 1; then the ranking metrics: the 1,000 logits of each user
 * sorted (tf.argsort), the held-out item's position found, hit rate and
 * NDCG at 10.
 */
#define NCF_EVAL_NEGATIVES 999

void zoo_ncf(zb *b)
{
    static const uint64_t mlp[] = {256, 256, 128, 64};
    const uint64_t mf_dim = 64, emb = mf_dim + mlp[0] / 2, items = NCF_EVAL_NEGATIVES + 1;
    uint64_t r = b->n * items;
    gather(b, "embed", "user", r, emb);
    gather(b, "embed", "item", r, emb);
    vu(b, "gmf", "mul", ew2(r, mf_dim, OPS_ADD, 2, V10_FUSE_NONE));
    format(b, "mlp", "concat", r, mlp[0], 0);
    char sfx[16];
    for (size_t i = 0; i + 1 < sizeof mlp / sizeof *mlp; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "mlp", sfx, r, mlp[i], mlp[i + 1]);
    }
    format(b, "neumf", "concat", r, mf_dim + mlp[3], 0);
    fc(b, "neumf", "predict", r, mf_dim + mlp[3], 1);
    vu(b, "eval", "dup_mask", ew2(b->n, items, 3, 2, V10_FUSE_NONE));
    sort(b, "eval", "argsort", b->n, items, 0);
    vu(b, "eval", "position", rowred(b->n, items, 3, 2));
    vu(b, "eval", "metrics", ew2(b->n, 2, 8, 1, V10_FUSE_NONE));
}

/*
 * The TensorFlow "Deep MNIST" CNN (TensorFlow tutorials, 2015; LeCun et al.,
 * Proc. IEEE 1998 for the task): 28x28x1 -> conv 5x5 32 -> maxpool 2 ->
 * conv 5x5 64 -> maxpool 2 -> FC 3136-1024 -> FC 1024-10 -> softmax.  The
 * flat input is reshaped to an image (one channel in the lanes) and the
 * last feature map flattened for the FC (both relayouts on the VU).
 */
