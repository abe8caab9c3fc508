/*
 * zoo.c — the built-in models (docs/models.md): the V10 paper's eleven workloads
 * plus a decoder-LLM step and ViT, generated from their published
 * architectures with the operator builders of v10/model.h.
 *
 * Fusion follows an XLA-style compiler: a matmul/conv carries its bias,
 * folded batchnorm and activation (one SA op); consecutive element-wise VU
 * ops fuse (the builder does it); depthwise convs, pooling, softmax,
 * layernorm, RoIAlign and NMS run on the VU.  docs/models.md documents each
 * model, what is approximated, and its MACs against the published figure.
 */
#include "v10/model.h"

#include <stdio.h>
#include <string.h>

#include "model/vu_ops.h"
#include "util/text.h"

#define FPN_CH 256      /* FPN and head width (Lin et al. 2017) */

/* ---- build context: the first failure sticks; later calls do nothing ---- */

typedef struct zb {
    v10_model *m;
    v10_err *err;
    uint64_t n;   /* batch */
    int rc;       /* 0, or -1 once a builder failed (err holds why) */
    char name[V10_OPNAME_MAX];
} zb;

/* An NHWC activation: n images (or RoIs), h x w pixels, c channels. */
typedef struct fmap {
    uint64_t n, h, w, c;
} fmap;

static uint64_t elems(fmap x) { return x.n * x.h * x.w * x.c; }

static const char *opname(zb *b, const char *pfx, const char *sfx)
{
    /* A longer name is cut to fit: names label operators, nothing more. */
    int n = pfx && *pfx ? snprintf(b->name, sizeof b->name, "%s.%s", pfx, sfx)
                        : snprintf(b->name, sizeof b->name, "%s", sfx);
    if (n < 0)
        b->name[0] = '\0'; /* an encoding error: no name rather than garbage */
    return b->name;
}

/* SA: `count` (M x K)(K x N) with bias and activation fused. */
static void gemm(zb *b, const char *pfx, const char *sfx, uint64_t count, uint64_t M,
                 uint64_t N, uint64_t K, int weights_in_hbm)
{
    if (!b->rc)
        b->rc = v10_model_gemm(b->m, opname(b, pfx, sfx), count, M, N, K, weights_in_hbm,
                               b->err);
}

/* SA: k x k conv, "same" padding, batchnorm and activation folded in. */
static fmap conv(zb *b, const char *pfx, const char *sfx, fmap x, uint64_t filters,
                 uint64_t k, uint64_t stride)
{
    uint64_t pad = (k - 1) / 2;
    if (!b->rc)
        b->rc = v10_model_conv(b->m, opname(b, pfx, sfx), x.n, x.h, x.w, x.c, filters, k, k,
                               stride, pad, b->err);
    fmap y = {x.n, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, filters};
    return y;
}

/* VU: element-wise or reduction op; fusible ones chain into the previous. */
static void vec(zb *b, const char *pfx, const char *sfx, uint64_t n_elems, uint64_t ops,
                uint64_t in_tensors, int fusible)
{
    if (!b->rc)
        b->rc = v10_model_vector(b->m, opname(b, pfx, sfx), n_elems, ops, in_tensors,
                                 fusible, b->err);
}

static void gather(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t dim)
{
    if (!b->rc)
        b->rc = v10_model_gather(b->m, opname(b, pfx, sfx), rows, dim, b->err);
}

/* VU: k x k pooling with stride; per output element k*k ops, reading
 * stride^2 outputs' worth of input (expressed as in_tensors). */
static fmap pool(zb *b, const char *pfx, const char *sfx, fmap x, uint64_t k, uint64_t stride)
{
    uint64_t pad = (k - 1) / 2;
    fmap y = {x.n, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, x.c};
    vec(b, pfx, sfx, elems(y), k * k, stride * stride, 0);
    return y;
}

/* VU: global average pool to n x 1 x 1 x c: one add per input element. */
static fmap gpool(zb *b, const char *pfx, const char *sfx, fmap x)
{
    fmap y = {x.n, 1, 1, x.c};
    vec(b, pfx, sfx, elems(y), x.h * x.w, x.h * x.w, 0);
    return y;
}

/* VU: depthwise k x k conv, one FMA per tap per output element.  Fusible
 * so that the activation that follows joins it (a VU stencil epilogue). */
static fmap dwconv(zb *b, const char *pfx, fmap x, uint64_t k, uint64_t stride)
{
    char sfx[16];
    snprintf(sfx, sizeof sfx, "dw%llux%llu", (unsigned long long)k, (unsigned long long)k);
    uint64_t pad = (k - 1) / 2;
    fmap y = {x.n, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, x.c};
    vec(b, pfx, sfx, elems(y), k * k, stride * stride, 1);
    return y;
}

/* Fully connected layer on rows x k activations. */
static void fc(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t k, uint64_t n)
{
    gemm(b, pfx, sfx, 1, rows, n, k, 1);
}

/* ---- CNN building blocks ---- */

/*
 * Squeeze-and-excite (Hu et al., CVPR 2018): global pool (VU), reduce FC,
 * expand FC with sigmoid (SA), channel scale (VU, fusible so a following
 * residual add joins it).
 */
static void squeeze_excite(zb *b, const char *pfx, fmap x, uint64_t reduced)
{
    char p[V10_OPNAME_MAX];
    snprintf(p, sizeof p, "%s.se", pfx);
    gpool(b, p, "pool", x);
    fc(b, p, "reduce", x.n, x.c, reduced);
    fc(b, p, "expand", x.n, reduced, x.c);
    vec(b, p, "scale", elems(x), OPS_ADD, 1, 1);
}

typedef struct resnet_cfg {
    uint64_t blocks[4];  /* bottlenecks per stage (layer1..layer4) */
    int rs;              /* ResNet-RS: ResNet-D stem and shortcut, SE 0.25 */
} resnet_cfg;

/*
 * Bottleneck block, v1.5 (stride on the 3x3).  The projection shortcut is
 * emitted first so that the SE scale and the residual add+relu are adjacent
 * and fuse into one VU op.  ResNet-D (He et al., CVPR 2019) shortcut:
 * 2x2 average pool, then a stride-1 projection.
 */
static fmap bottleneck(zb *b, const char *pfx, fmap x, uint64_t width, uint64_t stride,
                       const resnet_cfg *cfg)
{
    if (x.c != 4 * width || stride != 1) {
        fmap s = x;
        if (cfg->rs && stride > 1)
            s = pool(b, pfx, "down.pool", x, 2, stride);
        conv(b, pfx, "downsample", s, 4 * width, 1, cfg->rs ? 1 : stride);
    }
    fmap y = conv(b, pfx, "conv1", x, width, 1, 1);
    y = conv(b, pfx, "conv2", y, width, 3, stride);
    y = conv(b, pfx, "conv3", y, 4 * width, 1, 1);
    if (cfg->rs)
        squeeze_excite(b, pfx, y, width); /* ratio 0.25 of 4*width */
    vec(b, pfx, "add_relu", elems(y), OPS_ADD_RELU, 2, 1);
    return y;
}

/*
 * ResNet trunk (He et al., CVPR 2016) from the input image to C5; c[0..3]
 * receive C2..C5 (strides 4..32).  ResNet-RS (Bello et al., NeurIPS 2021)
 * uses the ResNet-D stem (3x3 convs of 32, 32, 64) and replaces the stem
 * max pool by a 3x3 stride-2 conv, as in the TF Model Garden config.
 */
static fmap resnet_trunk(zb *b, fmap x, const resnet_cfg *cfg, fmap c[4])
{
    if (cfg->rs) {
        x = conv(b, "stem", "conv1", x, 32, 3, 2);
        x = conv(b, "stem", "conv2", x, 32, 3, 1);
        x = conv(b, "stem", "conv3", x, 64, 3, 1);
        x = conv(b, "stem", "down", x, 64, 3, 2);
    } else {
        x = conv(b, "stem", "conv", x, 64, 7, 2);
        x = pool(b, "stem", "maxpool", x, 3, 2);
    }
    for (int s = 0; s < 4; s++) {
        uint64_t width = 64u << s;
        for (uint64_t i = 0; i < cfg->blocks[s]; i++) {
            char pfx[V10_OPNAME_MAX];
            snprintf(pfx, sizeof pfx, "layer%d.%llu", s + 1, (unsigned long long)i);
            x = bottleneck(b, pfx, x, width, (s > 0 && i == 0) ? 2 : 1, cfg);
        }
        if (c)
            c[s] = x;
    }
    return x;
}

/* Classifier: global average pool, FC, softmax. */
static void classifier(zb *b, fmap x, uint64_t classes)
{
    x = gpool(b, "head", "avgpool", x);
    fc(b, "head", "fc", x.n, x.c, classes);
    vec(b, "head", "softmax", x.n * classes, OPS_SOFTMAX, 1, 1);
}

static const resnet_cfg RESNET50 = {{3, 4, 6, 3}, 0};
static const resnet_cfg RESNET101 = {{3, 4, 23, 3}, 0};
static const resnet_cfg RESNET_RS50 = {{3, 4, 6, 3}, 1};

/*
 * Feature pyramid (Lin et al., CVPR 2017) over C_lo..C5 -> P_lo..P_hi,
 * FPN_CH channels: 1x1 laterals, nearest 2x upsample + add (VU), 3x3
 * output convs; levels above 5 by 3x3 stride-2 convs on the level below
 * (relu'd first from P7 on), as in the TPU reference detection models.
 * c[] is C2..C5; p[l] receives P_l.
 */
static void fpn(zb *b, const fmap c[4], int lo, int hi, fmap p[8])
{
    char sfx[24];
    for (int l = 5; l >= lo; l--) {
        snprintf(sfx, sizeof sfx, "lateral%d", l);
        fmap lat = conv(b, "fpn", sfx, c[l - 2], FPN_CH, 1, 1);
        if (l < 5) {
            snprintf(sfx, sizeof sfx, "topdown%d", l);
            vec(b, "fpn", sfx, elems(lat), OPS_ADD, 2, 0);
        }
        snprintf(sfx, sizeof sfx, "out%d", l);
        p[l] = conv(b, "fpn", sfx, lat, FPN_CH, 3, 1);
    }
    for (int l = 6; l <= hi; l++) {
        if (l > 6) {
            snprintf(sfx, sizeof sfx, "p%d_relu", l - 1);
            vec(b, "fpn", sfx, elems(p[l - 1]), OPS_ADD, 1, 0);
        }
        snprintf(sfx, sizeof sfx, "p%d", l);
        p[l] = conv(b, "fpn", sfx, p[l - 1], FPN_CH, 3, 2);
    }
}

/*
 * RetinaNet heads (Lin et al., ICCV 2017): per level, a class subnet and a
 * box subnet of 4 x (3x3 conv FPN_CH + relu) and a 3x3 predictor; weights
 * are shared across levels but each level is its own op.  Then sigmoid on
 * the class logits, box decode, and NMS over `cand` candidates per level
 * (VU).  Returns the anchors over all levels.
 */
#define RETINA_ANCHORS 9  /* 3 scales x 3 aspect ratios */
#define RETINA_CLASSES 91 /* COCO label space of the TPU reference */
#define RETINA_CAND    1000 /* pre-NMS top-k per level (TPU reference) */

static uint64_t retina_heads(zb *b, const fmap p[8], int lo, int hi)
{
    uint64_t anchors = 0;
    for (int l = lo; l <= hi; l++) {
        static const char *const net[2] = {"cls", "box"};
        for (int h = 0; h < 2; h++) {
            char pfx[24], sfx[16];
            snprintf(pfx, sizeof pfx, "%s_net.p%d", net[h], l);
            fmap x = p[l];
            for (int i = 0; i < 4; i++) {
                snprintf(sfx, sizeof sfx, "conv%d", i + 1);
                x = conv(b, pfx, sfx, x, FPN_CH, 3, 1);
            }
            conv(b, pfx, "predict", x, RETINA_ANCHORS * (h ? 4 : RETINA_CLASSES), 3, 1);
        }
        anchors += p[l].h * p[l].w * RETINA_ANCHORS;
    }
    vec(b, "post", "sigmoid", b->n * anchors * RETINA_CLASSES, OPS_SIGMOID, 1, 0);
    vec(b, "post", "decode", b->n * anchors * 4, OPS_BOX_DECODE, 1, 0);
    vec(b, "post", "nms", b->n * (uint64_t)(hi - lo + 1) * RETINA_CAND, OPS_NMS_BOX, 1, 0);
    return anchors;
}

/*
 * RoIAlign (He et al., ICCV 2017) of `rois` boxes to out x out bins of
 * `c` channels: each bin samples one bilinear point from 4 neighbouring
 * feature vectors (a gather on the VU, as the TPU reference does it),
 * then interpolates.  Returns the cropped features as a batch of RoIs.
 */
static fmap roi_align(zb *b, const char *pfx, uint64_t rois, uint64_t out, uint64_t c)
{
    fmap y = {rois, out, out, c};
    gather(b, pfx, "roi_gather", rois * out * out * 4, c);
    vec(b, pfx, "roi_interp", elems(y), OPS_BILINEAR, 4, 0);
    return y;
}

/* ---- transformer building blocks ---- */

/*
 * Multi-head attention of `rows_q` query tokens (per sequence: tq) over tk
 * keys, model width d, `heads` heads, for b->n sequences.  kv_rows: tokens
 * whose K/V are projected here (0: K/V come from a cache, projected before).
 * Projections are SA GEMMs; QK^T and P.V are batched GEMMs (count =
 * batch*heads, operands are activations); softmax is a VU op.
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
    vec(b, pfx, "softmax", n * heads * tq * tk, causal ? OPS_MASK_SOFTMAX : OPS_SOFTMAX, 1, 0);
    gemm(b, pfx, "av", n * heads, tq, dh, tk, 0);
    gemm(b, pfx, "proj", 1, n * tq, d, d, 1);
}

/* Residual add followed by layernorm: one fused VU op. */
static void add_ln(zb *b, const char *pfx, uint64_t rows, uint64_t d)
{
    vec(b, pfx, "add", rows * d, OPS_ADD, 2, 1);
    vec(b, pfx, "ln", rows * d, OPS_LAYERNORM, 1, 1);
}

/* Position-wise FFN: d -> ff with activation fused, ff -> d. */
static void ffn(zb *b, const char *pfx, uint64_t rows, uint64_t d, uint64_t ff)
{
    fc(b, pfx, "ffn1", rows, d, ff);
    fc(b, pfx, "ffn2", rows, ff, d);
}

/* Post-LN encoder layer (BERT, Transformer): attention, add+LN, FFN, add+LN. */
static void encoder_layer(zb *b, const char *pfx, uint64_t t, uint64_t d, uint64_t heads,
                          uint64_t ff)
{
    char p[V10_OPNAME_MAX];
    snprintf(p, sizeof p, "%s.attn", pfx);
    attention(b, p, t, t, d, heads, 1, 0);
    add_ln(b, p, b->n * t, d);
    snprintf(p, sizeof p, "%s.mlp", pfx);
    ffn(b, p, b->n * t, d, ff);
    add_ln(b, p, b->n * t, d);
}

/* Pre-LN layer (ViT, GPT-2): LN, attention, add; LN, MLP, add.  The add
 * that ends one half fuses with the LN that starts the next. */
static void preln_layer(zb *b, const char *pfx, uint64_t tq, uint64_t tk, uint64_t d,
                        uint64_t heads, uint64_t ff, int causal)
{
    char p[V10_OPNAME_MAX];
    uint64_t rows = b->n * tq;
    snprintf(p, sizeof p, "%s.attn", pfx);
    vec(b, p, "ln", rows * d, OPS_LAYERNORM, 1, 1);
    attention(b, p, tq, tk, d, heads, 1, causal);
    vec(b, p, "add", rows * d, OPS_ADD, 2, 1);
    snprintf(p, sizeof p, "%s.mlp", pfx);
    vec(b, p, "ln", rows * d, OPS_LAYERNORM, 1, 1);
    ffn(b, p, rows, d, ff);
    vec(b, p, "add", rows * d, OPS_ADD, 2, 1);
}

/* ---- the models ---- */

/*
 * ResNet-50 v1.5 at 224x224: He, Zhang, Ren, Sun, "Deep Residual Learning
 * for Image Recognition", CVPR 2016; v1.5 moves the stride to the 3x3 conv
 * (NVIDIA/MLPerf).  Published: 4.09 GMACs per image (conv + FC).
 */
static void build_resnet50(zb *b)
{
    fmap x = {b->n, 224, 224, 3};
    classifier(b, resnet_trunk(b, x, &RESNET50, NULL), 1000);
}

/*
 * ResNet-RS-50 at 160x160: Bello, Fedus, Du, Cubuk, Srinivas, Lin, Shlens,
 * Zoph, "Revisiting ResNets: Improved Training and Scaling Strategies",
 * NeurIPS 2021.  Published: 4.6 GFLOPs (= 2 x MACs: 2.3 GMACs), 36M params.
 */
static void build_resnet_rs(zb *b)
{
    fmap x = {b->n, 160, 160, 3};
    classifier(b, resnet_trunk(b, x, &RESNET_RS50, NULL), 1000);
}

/*
 * EfficientNet-B0 at 224x224: Tan, Le, "EfficientNet: Rethinking Model
 * Scaling for Convolutional Neural Networks", ICML 2019.  Published: 0.39 G
 * multiply-adds (FLOPs in the paper's convention), 5.3M params.  MBConv
 * blocks: 1x1 expand (SA, swish), depthwise kxk (VU, swish fused), SE 0.25
 * of the block input, 1x1 project (SA), residual add (VU) when shapes match.
 */
static void build_efficientnet(zb *b)
{
    static const struct {
        uint64_t expand, k, stride, out, repeats;
    } stage[7] = {
        {1, 3, 1, 16, 1},  {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2}, {6, 3, 2, 80, 3},
        {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1},
    };
    fmap x = {b->n, 224, 224, 3};
    x = conv(b, "stem", "conv", x, 32, 3, 2);
    for (int s = 0; s < 7; s++) {
        for (uint64_t i = 0; i < stage[s].repeats; i++) {
            char pfx[V10_OPNAME_MAX];
            snprintf(pfx, sizeof pfx, "block%d.%llu", s + 1, (unsigned long long)i);
            uint64_t stride = i == 0 ? stage[s].stride : 1, in_c = x.c;
            fmap y = x;
            if (stage[s].expand != 1)
                y = conv(b, pfx, "expand", y, in_c * stage[s].expand, 1, 1);
            y = dwconv(b, pfx, y, stage[s].k, stride);
            vec(b, pfx, "swish", elems(y), OPS_SWISH, 1, 1);
            squeeze_excite(b, pfx, y, in_c / 4 ? in_c / 4 : 1);
            y = conv(b, pfx, "project", y, stage[s].out, 1, 1);
            if (stride == 1 && in_c == stage[s].out)
                vec(b, pfx, "add", elems(y), OPS_ADD, 2, 1);
            x = y;
        }
    }
    x = conv(b, "head", "conv", x, 1280, 1, 1);
    classifier(b, x, 1000);
}

/*
 * BERT-large on SQuAD at 384 tokens (MLPerf Inference): Devlin, Chang, Lee,
 * Toutanova, "BERT: Pre-training of Deep Bidirectional Transformers for
 * Language Understanding", NAACL 2019.  24 layers, d 1024, 16 heads, FFN
 * 4096 (GELU fused).  Analytic MACs per sequence: 24 x 384 x (12 x 1024^2 +
 * 2 x 384 x 1024) + 384 x 1024 x 2 (span head) = 123.21 G.
 */
static void build_bert(zb *b)
{
    const uint64_t t = 384, d = 1024, vocab_rows = 3; /* word, position, segment */
    uint64_t rows = b->n * t;
    gather(b, "embed", "gather", rows * vocab_rows, d);
    vec(b, "embed", "sum", rows * d, 2 * OPS_ADD, vocab_rows, 1);
    vec(b, "embed", "ln", rows * d, OPS_LAYERNORM, 1, 1);
    for (int l = 0; l < 24; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "layer%d", l);
        encoder_layer(b, pfx, t, d, 16, 4096);
    }
    fc(b, "qa", "span", rows, d, 2);
    vec(b, "qa", "softmax", rows * 2, OPS_SOFTMAX, 1, 0);
}

/*
 * Transformer-base (WMT En-De): Vaswani et al., "Attention Is All You Need",
 * NeurIPS 2017.  6 + 6 post-LN layers, d 512, 8 heads, FFN 2048, shared
 * 33,708-token vocabulary (MLPerf/TF official), source and target of 128
 * tokens.  The decoder is one teacher-forced pass over the 128 target
 * positions (what a cached greedy decode does in total, without beam
 * search), with causal self-attention computed in full.
 */
static void build_transformer(zb *b)
{
    const uint64_t s = 128, t = 128, d = 512, h = 8, ff = 2048, vocab = 33708;
    uint64_t n = b->n;
    gather(b, "enc.embed", "gather", n * s, d);
    vec(b, "enc.embed", "scale_pos", n * s * d, 2 * OPS_ADD, 2, 0);
    for (int l = 0; l < 6; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "enc%d", l);
        encoder_layer(b, pfx, s, d, h, ff);
    }
    gather(b, "dec.embed", "gather", n * t, d);
    vec(b, "dec.embed", "scale_pos", n * t * d, 2 * OPS_ADD, 2, 0);
    for (int l = 0; l < 6; l++) {
        char pfx[24], p[V10_OPNAME_MAX];
        snprintf(pfx, sizeof pfx, "dec%d", l);
        snprintf(p, sizeof p, "%s.self", pfx);
        attention(b, p, t, t, d, h, 1, 1);
        add_ln(b, p, n * t, d);
        snprintf(p, sizeof p, "%s.cross", pfx);
        attention(b, p, t, s, d, h, 0, 0);
        add_ln(b, p, n * t, d);
        snprintf(p, sizeof p, "%s.mlp", pfx);
        ffn(b, p, n * t, d, ff);
        add_ln(b, p, n * t, d);
    }
    fc(b, "dec", "logits", n * t, d, vocab);
    vec(b, "dec", "softmax", n * t * vocab, OPS_SOFTMAX, 1, 0);
}

/*
 * ViT-B/16 at 224x224: Dosovitskiy et al., "An Image is Worth 16x16 Words:
 * Transformers for Image Recognition at Scale", ICLR 2021.  12 pre-LN
 * layers, d 768, 12 heads, MLP 3072 (GELU fused), 196 patches + [CLS].
 * Published: 17.6 GFLOPs (multiply-adds, as the paper counts them).
 */
static void build_vit(zb *b)
{
    const uint64_t t = 197, d = 768;
    fmap x = {b->n, 224, 224, 3};
    /* 16x16 stride-16 patch embedding: a conv with no padding. */
    if (!b->rc)
        b->rc = v10_model_conv(b->m, "patch_embed", x.n, x.h, x.w, x.c, d, 16, 16, 16, 0,
                               b->err);
    vec(b, "embed", "cls_pos", b->n * t * d, OPS_ADD, 2, 1);
    for (int l = 0; l < 12; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "block%d", l);
        preln_layer(b, pfx, t, t, d, 12, 4 * d, 0);
    }
    vec(b, "head", "ln", b->n * t * d, OPS_LAYERNORM, 1, 1);
    fc(b, "head", "fc", b->n, d, 1000);
    vec(b, "head", "softmax", b->n * 1000, OPS_SOFTMAX, 1, 0);
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
static void build_gpt_decode(zb *b)
{
    const uint64_t ctx = 1024, d = 1600, vocab = 50257;
    gather(b, "embed", "gather", b->n * 2, d); /* token and position rows */
    vec(b, "embed", "add", b->n * d, OPS_ADD, 2, 1);
    for (int l = 0; l < 48; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "h%d", l);
        preln_layer(b, pfx, 1, ctx, d, 25, 4 * d, 0);
    }
    vec(b, "head", "ln_f", b->n * d, OPS_LAYERNORM, 1, 1);
    fc(b, "head", "lm", b->n, d, vocab);
    vec(b, "head", "softmax", b->n * vocab, OPS_SOFTMAX, 1, 0);
}

/*
 * DLRM as in MLPerf Inference (Criteo Terabyte): Naumov et al., "Deep
 * Learning Recommendation Model for Personalization and Recommendation
 * Systems", arXiv 1906.00091, 2019.  13 dense features -> bottom MLP
 * 512-256-128; 26 embedding tables of dim 128 (one gather op over all
 * tables); pairwise dot interaction of the 27 vectors as a batched GEMM
 * (27x128)(128x27); the 351 lower-triangle dots + dense vector (479) ->
 * top MLP 1024-1024-512-256-1 (sigmoid fused).
 */
static void build_dlrm(zb *b)
{
    static const uint64_t bottom[] = {13, 512, 256, 128};
    static const uint64_t top[] = {479, 1024, 1024, 512, 256, 1};
    const uint64_t tables = 26, dim = 128, vecs = tables + 1;
    char sfx[16];
    for (size_t i = 0; i + 1 < sizeof bottom / sizeof *bottom; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "bottom", sfx, b->n, bottom[i], bottom[i + 1]);
    }
    gather(b, "emb", "gather", b->n * tables, dim);
    gemm(b, "interact", "dot", b->n, vecs, vecs, dim, 0);
    vec(b, "interact", "tril_concat", b->n * top[0], OPS_ADD, 1, 0);
    for (size_t i = 0; i + 1 < sizeof top / sizeof *top; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "top", sfx, b->n, top[i], top[i + 1]);
    }
}

/*
 * NeuMF as in MLPerf Training (MovieLens-20M): He, Liao, Zhang, Nie, Hu,
 * Chua, "Neural Collaborative Filtering", WWW 2017.  GMF: user and item
 * embeddings of 64, element-wise product (VU).  MLP: embeddings of 128
 * each, concatenated (256) -> 256 -> 128 -> 64.  Predict: [64 | 64] -> 1
 * with sigmoid fused.
 */
static void build_ncf(zb *b)
{
    static const uint64_t mlp[] = {256, 256, 128, 64};
    const uint64_t mf_dim = 64;
    gather(b, "gmf", "embed", b->n * 2, mf_dim);
    vec(b, "gmf", "mul", b->n * mf_dim, OPS_ADD, 2, 0);
    gather(b, "mlp", "embed", b->n * 2, mlp[0] / 2);
    char sfx[16];
    for (size_t i = 0; i + 1 < sizeof mlp / sizeof *mlp; i++) {
        snprintf(sfx, sizeof sfx, "fc%zu", i);
        fc(b, "mlp", sfx, b->n, mlp[i], mlp[i + 1]);
    }
    fc(b, "neumf", "predict", b->n, mf_dim + mlp[3], 1);
}

/*
 * The TensorFlow "Deep MNIST" CNN (TensorFlow tutorials, 2015; LeCun et al.,
 * Proc. IEEE 1998 for the task): 28x28x1 -> conv 5x5 32 -> maxpool 2 ->
 * conv 5x5 64 -> maxpool 2 -> FC 3136-1024 -> FC 1024-10 -> softmax.
 */
static void build_mnist(zb *b)
{
    fmap x = {b->n, 28, 28, 1};
    x = conv(b, NULL, "conv1", x, 32, 5, 1);
    x = pool(b, NULL, "pool1", x, 2, 2);
    x = conv(b, NULL, "conv2", x, 64, 5, 1);
    x = pool(b, NULL, "pool2", x, 2, 2);
    fc(b, NULL, "fc1", b->n, x.h * x.w * x.c, 1024);
    fc(b, NULL, "fc2", b->n, 1024, 10);
    vec(b, NULL, "softmax", b->n * 10, OPS_SOFTMAX, 1, 0);
}

/*
 * RetinaNet at 640x640 (TPU reference / MLPerf-era TF detection): Lin,
 * Goyal, Girshick, He, Dollar, "Focal Loss for Dense Object Detection",
 * ICCV 2017.  ResNet-50 v1.5 + FPN P3-P7, class and box subnets, NMS.
 */
static void build_retinanet(zb *b)
{
    fmap c[4], p[8];
    fmap x = {b->n, 640, 640, 3};
    resnet_trunk(b, x, &RESNET50, c);
    fpn(b, c, 3, 7, p);
    retina_heads(b, p, 3, 7);
}

/*
 * Mask R-CNN at 1024x1024 (TPU reference): He, Gkioxari, Dollar, Girshick,
 * "Mask R-CNN", ICCV 2017.  ResNet-50 v1.5 + FPN P2-P6; RPN (3 anchors per
 * location) on every level; 1000 proposals per image after NMS go through
 * RoIAlign 7x7 and the 2-FC box head (1024); the top 100 detections go
 * through RoIAlign 14x14 and the mask head (4 x 3x3 conv 256, 2x2 stride-2
 * deconv, 1x1 to 91 class masks at 28x28).
 */
#define MRCNN_PROPOSALS 1000
#define MRCNN_DETECTIONS 100
#define MRCNN_CLASSES 91

static void build_maskrcnn(zb *b)
{
    fmap c[4], p[8];
    fmap x = {b->n, 1024, 1024, 3};
    uint64_t n = b->n, anchors = 0;
    resnet_trunk(b, x, &RESNET50, c);
    fpn(b, c, 2, 6, p);
    for (int l = 2; l <= 6; l++) {
        char pfx[24]; /* a short word, any int, NUL */
        snprintf(pfx, sizeof pfx, "rpn.p%d", l);
        fmap y = conv(b, pfx, "conv", p[l], FPN_CH, 3, 1);
        conv(b, pfx, "objectness", y, 3, 1, 1);
        conv(b, pfx, "box", y, 3 * 4, 1, 1);
        anchors += p[l].h * p[l].w * 3;
    }
    vec(b, "rpn", "decode", n * anchors * 4, OPS_BOX_DECODE, 1, 0);
    vec(b, "rpn", "nms", n * 5 * RETINA_CAND, OPS_NMS_BOX, 1, 0);

    uint64_t r = n * MRCNN_PROPOSALS;
    fmap roi = roi_align(b, "box_head", r, 7, FPN_CH);
    fc(b, "box_head", "fc6", r, elems(roi) / r, 1024);
    fc(b, "box_head", "fc7", r, 1024, 1024);
    fc(b, "box_head", "cls", r, 1024, MRCNN_CLASSES);
    fc(b, "box_head", "box", r, 1024, MRCNN_CLASSES * 4);
    vec(b, "box_head", "softmax", r * MRCNN_CLASSES, OPS_SOFTMAX, 1, 0);
    vec(b, "box_head", "decode", r * MRCNN_CLASSES * 4, OPS_BOX_DECODE, 1, 0);
    vec(b, "box_head", "nms", r, OPS_NMS_BOX, 1, 0);

    uint64_t d = n * MRCNN_DETECTIONS;
    fmap y = roi_align(b, "mask_head", d, 14, FPN_CH);
    for (int i = 0; i < 4; i++) {
        char sfx[16];
        snprintf(sfx, sizeof sfx, "conv%d", i + 1);
        y = conv(b, "mask_head", sfx, y, FPN_CH, 3, 1);
    }
    /* 2x2 stride-2 transposed conv: every input pixel emits a 2x2 patch. */
    gemm(b, "mask_head", "deconv", 1, d * y.h * y.w, 4 * FPN_CH, FPN_CH, 1);
    fmap up = {d, 2 * y.h, 2 * y.w, FPN_CH};
    y = conv(b, "mask_head", "logits", up, MRCNN_CLASSES, 1, 1);
    vec(b, "mask_head", "sigmoid", elems(y), OPS_SIGMOID, 1, 0);
}

/*
 * ShapeMask at 1024x1024 (TPU reference): Kuo, Angelova, Malik, Lin,
 * "ShapeMask: Learning to Segment Novel Objects by Refining Shape Priors",
 * ICCV 2019.  ResNet-101 v1.5 + FPN P3-P7 with RetinaNet heads as the
 * detector; for the top 100 detections, approximated mask branch after the
 * TPU reference config (crop 32x32, 128 channels, 4 convs, upsample x4):
 * shape prior (pooled RoI feature -> 32 cluster weights -> weighted sum of
 * 32x32 prior masks), coarse mask (prior embedded + features, 4 x 3x3 conv),
 * fine mask (instance embedding, 4 x 3x3 conv, x4 deconv, 1x1 logits).
 */
#define SHAPE_DETECTIONS 100
#define SHAPE_CROP 32
#define SHAPE_CH 128
#define SHAPE_CLUSTERS 32
#define SHAPE_UPSAMPLE 4

static void shape_convs(zb *b, const char *pfx, fmap *y)
{
    for (int i = 0; i < 4; i++) {
        char sfx[16];
        snprintf(sfx, sizeof sfx, "conv%d", i + 1);
        *y = conv(b, pfx, sfx, *y, SHAPE_CH, 3, 1);
    }
}

static void build_shapemask(zb *b)
{
    fmap c[4], p[8];
    fmap x = {b->n, 1024, 1024, 3};
    resnet_trunk(b, x, &RESNET101, c);
    fpn(b, c, 3, 7, p);
    retina_heads(b, p, 3, 7);

    uint64_t r = b->n * SHAPE_DETECTIONS, px = SHAPE_CROP * SHAPE_CROP;
    fmap f = roi_align(b, "shape", r, SHAPE_CROP, FPN_CH);
    fmap pooled = gpool(b, "prior", "pool", f);
    fc(b, "prior", "cluster_fc", r, pooled.c, SHAPE_CLUSTERS);
    vec(b, "prior", "softmax", r * SHAPE_CLUSTERS, OPS_SOFTMAX, 1, 0);
    fc(b, "prior", "combine", r, SHAPE_CLUSTERS, px); /* weighted prior masks */

    fmap prior = {r, SHAPE_CROP, SHAPE_CROP, 1};
    fmap y = conv(b, "coarse", "reduce", f, SHAPE_CH, 1, 1);
    conv(b, "coarse", "prior_embed", prior, SHAPE_CH, 1, 1);
    vec(b, "coarse", "fuse", elems(y), OPS_ADD, 2, 0);
    shape_convs(b, "coarse", &y);
    y = conv(b, "coarse", "logits", y, 1, 1, 1);
    vec(b, "coarse", "sigmoid", elems(y), OPS_SIGMOID, 1, 0);

    /* Instance embedding: mask-weighted average of the features, subtracted. */
    y = conv(b, "fine", "reduce", f, SHAPE_CH, 1, 1);
    vec(b, "fine", "embed", elems(y), 2 * OPS_ADD, 2, 0);
    vec(b, "fine", "center", elems(y), OPS_ADD, 1, 0);
    shape_convs(b, "fine", &y);
    gemm(b, "fine", "upsample", 1, r * px, SHAPE_CH * SHAPE_UPSAMPLE * SHAPE_UPSAMPLE,
         SHAPE_CH, 1);
    fmap up = {r, SHAPE_CROP * SHAPE_UPSAMPLE, SHAPE_CROP * SHAPE_UPSAMPLE, SHAPE_CH};
    y = conv(b, "fine", "logits", up, 1, 1, 1);
    vec(b, "fine", "sigmoid", elems(y), OPS_SIGMOID, 1, 0);
}

/* ---- registry ---- */

typedef struct zoo_entry {
    const char *name;
    uint32_t batch;  /* default batch (V10 paper, §evaluation) */
    void (*build)(zb *b);
} zoo_entry;

static const zoo_entry ZOO[] = {
    {"bert", 32, build_bert},
    {"dlrm", 32, build_dlrm},
    {"efficientnet", 32, build_efficientnet},
    {"gpt-decode", 32, build_gpt_decode},
    {"maskrcnn", 16, build_maskrcnn},
    {"mnist", 32, build_mnist},
    {"ncf", 32, build_ncf},
    {"resnet50", 32, build_resnet50},
    {"resnet-rs", 32, build_resnet_rs},
    {"retinanet", 32, build_retinanet},
    {"shapemask", 8, build_shapemask},
    {"transformer", 32, build_transformer},
    {"vit", 32, build_vit},
};
#define ZOO_N (sizeof ZOO / sizeof *ZOO)

const char *const v10_zoo_names[] = {
    "bert", "dlrm", "efficientnet", "gpt-decode", "maskrcnn", "mnist", "ncf",
    "resnet50", "resnet-rs", "retinanet", "shapemask", "transformer", "vit", NULL,
};
_Static_assert(sizeof v10_zoo_names / sizeof *v10_zoo_names == ZOO_N + 1,
               "v10_zoo_names and ZOO list the same models");

static const zoo_entry *find(const char *name)
{
    for (size_t i = 0; i < ZOO_N; i++)
        if (!strcmp(ZOO[i].name, name))
            return &ZOO[i];
    return NULL;
}

int v10_zoo_default_batch(const char *name, uint32_t *batch)
{
    const zoo_entry *e = find(name);
    if (!e)
        return -1;
    *batch = e->batch;
    return 0;
}

int v10_zoo_build(const char *name, uint32_t batch, v10_model *out, v10_err *err)
{
    v10_model_init(out, name, batch);
    const zoo_entry *e = find(name);
    if (!e) {
        char known[256];
        return v10_err_set(err, "unknown model '%s' (built-in models: %s)", name,
                           v10_names_join(known, sizeof known, v10_zoo_names, ""));
    }
    if (batch == 0)
        return v10_err_set(err, "%s: batch must be at least 1", name);
    zb b = {.m = out, .err = err, .n = batch, .rc = 0};
    e->build(&b);
    if (b.rc) {
        v10_model_fini(out);
        return -1;
    }
    return 0;
}
