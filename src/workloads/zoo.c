/*
 * zoo.c — the built-in models (docs/models.md): the V10 paper's eleven workloads
 * plus a decoder-LLM step and ViT, built from their published architectures
 * and from the inference graphs their reference implementations run on a TPU
 * (TensorFlow Model Garden, MLPerf references, XLA), with the operator
 * builders of v10/model.h.
 *
 * Fusion follows XLA on a TPU: a matmul or convolution carries its bias,
 * folded batchnorm, activation and residual add (its output fusion, one SA
 * op); consecutive element-wise VU ops of one size fuse (the builder does
 * it); pooling, depthwise convolutions, softmax, layer norm, data
 * formatting, sorting, detection post-processing, beam search and gathers
 * run on the VU.  docs/models.md cites each model's graph, says what is
 * approximated, and checks its MACs against the published figure.
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

/* A VU op over a tensor of `n` elements whose minor dimensions are
 * minor x second (0: dense): `ops` ALU ops per element, `in` inputs of its
 * size read, `xlu` cross-lane passes per register. */
typedef struct vop {
    uint64_t n, minor, second, ops;
    uint32_t in, loads, xlu;
    v10_fuse fuse;
} vop;

static void vu(zb *b, const char *pfx, const char *sfx, vop o)
{
    v10_vec_desc d = {.elems = o.n, .minor = o.minor, .second = o.second, .ops = o.ops,
                      .in_tensors = o.in, .loads = o.loads, .xlu = o.xlu, .fuse = o.fuse};
    if (!b->rc)
        b->rc = v10_model_vec(b->m, opname(b, pfx, sfx), &d, b->err);
}

/* Element-wise op on an NHWC tensor (channels in the lanes). */
static vop ew(fmap x, uint64_t ops, uint32_t in, v10_fuse fuse)
{
    return (vop){elems(x), x.c, x.w, ops, in, 0, 0, fuse};
}

/* Element-wise op on a rows x cols matrix. */
static vop ew2(uint64_t rows, uint64_t cols, uint64_t ops, uint32_t in, v10_fuse fuse)
{
    return (vop){rows * cols, cols, rows, ops, in, 0, 0, fuse};
}

/* A reduction over the minor dimension of a rows x cols matrix (softmax,
 * layer norm): `passes` cross-lane reductions per register. */
static vop rowred(uint64_t rows, uint64_t cols, uint64_t ops, uint32_t passes)
{
    return (vop){rows * cols, cols, rows, ops, 1, 0, passes, V10_FUSE_NONE};
}

/* Data formatting XLA leaves as an operator (a transpose, pad, concat or
 * convert of a rows x cols view): one move per element, a cross-lane pass
 * per register when the minor dimension changes. */
static void format(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols,
                   int transpose)
{
    vu(b, pfx, sfx, (vop){rows * cols, cols, rows, 1, 1, 0, transpose ? 1u : 0u, V10_FUSE_NONE});
}

/* A scalar or tiny op: a while loop's condition, a counter, a bookkeeping
 * step on a few values.  Its cost is the operator's fixed cost. */
static void tiny(zb *b, const char *pfx, const char *sfx)
{
    vu(b, pfx, sfx, (vop){1, 0, 0, 1, 1, 0, 0, V10_FUSE_NONE});
}

static void gather(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t dim)
{
    if (!b->rc)
        b->rc = v10_model_gather(b->m, opname(b, pfx, sfx), rows, dim, b->err);
}

/* A gather of `rows` slabs of second x minor elements (one DMA each). */
static void gather_slab(zb *b, const char *pfx, const char *sfx, uint64_t rows,
                        uint64_t second, uint64_t minor)
{
    if (!b->rc)
        b->rc = v10_model_gather_slab(b->m, opname(b, pfx, sfx), rows, second, minor, b->err);
}

static void sort(zb *b, const char *pfx, const char *sfx, uint64_t count, uint64_t n,
                 uint64_t topk)
{
    if (!b->rc)
        b->rc = v10_model_sort(b->m, opname(b, pfx, sfx), count, n, topk, 1, b->err);
}

/* VU: k x k pooling with stride: k*k taps loaded per output register,
 * stride^2 outputs' worth of input read. */
static fmap pool(zb *b, const char *pfx, const char *sfx, fmap x, uint64_t k, uint64_t stride)
{
    uint64_t pad = (k - 1) / 2;
    fmap y = {x.n, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, x.c};
    vu(b, pfx, sfx,
       (vop){elems(y), y.c, y.w, k * k, (uint32_t)(stride * stride), (uint32_t)(k * k), 0,
             V10_FUSE_NONE});
    return y;
}

/* VU: global average pool to n x 1 x 1 x c: the adds run across registers
 * (the pixels are outer dimensions), one register load per input one. */
static fmap gpool(zb *b, const char *pfx, const char *sfx, fmap x)
{
    fmap y = {x.n, 1, 1, x.c};
    uint32_t px = (uint32_t)(x.h * x.w);
    vu(b, pfx, sfx, (vop){elems(y), y.c, y.n, px, px, px, 0, V10_FUSE_NONE});
    return y;
}

/* VU: depthwise k x k conv, one FMA per tap per output register; the
 * window's k rows are loaded once each and slid along the width in
 * registers.  Fusible so that the batchnorm and activation that follow
 * join it. */
static fmap dwconv(zb *b, const char *pfx, fmap x, uint64_t k, uint64_t stride)
{
    char sfx[16];
    snprintf(sfx, sizeof sfx, "dw%llux%llu", (unsigned long long)k, (unsigned long long)k);
    uint64_t pad = (k - 1) / 2;
    fmap y = {x.n, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1, x.c};
    vu(b, pfx, sfx,
       (vop){elems(y), y.c, y.w, k * k, (uint32_t)(stride * stride), (uint32_t)k, 0,
             V10_FUSE_VU});
    return y;
}

/* Fully connected layer on rows x k activations. */
static void fc(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t k, uint64_t n)
{
    gemm(b, pfx, sfx, 1, rows, n, k, 1);
}

/* Softmax over the last of rows x cols: max and sum reductions across
 * lanes, subtract, exp, scale. */
static void softmax(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols,
                    int masked)
{
    vu(b, pfx, sfx, rowred(rows, cols, masked ? OPS_MASK_SOFTMAX : OPS_SOFTMAX, 2));
}

/* Layer norm over the last of rows x cols (mean and variance reductions). */
static void layernorm(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols)
{
    vu(b, pfx, sfx, rowred(rows, cols, OPS_LAYERNORM, 2));
}

/* Argmax over the last of rows x cols: a max and an index select per
 * element, a cross-lane pass for each. */
static void argmax(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols)
{
    vu(b, pfx, sfx, rowred(rows, cols, 2 * OPS_ADD, 2));
}

/* Input images: the f32 pixels cast to bf16 and normalized (mean and
 * standard deviation per channel) before the first convolution. */
static void image_input(zb *b, fmap x)
{
    vu(b, "input", "normalize", ew(x, 2 * OPS_ADD + 1, 1, V10_FUSE_NONE));
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
    vu(b, p, "scale", ew(x, OPS_ADD, 1, V10_FUSE_VU)); /* and the pooled scales */
}

typedef struct resnet_cfg {
    uint64_t blocks[4];  /* bottlenecks per stage (layer1..layer4) */
    int rs;              /* ResNet-RS: ResNet-D stem and shortcut, SE 0.25 */
} resnet_cfg;

/*
 * Bottleneck block, v1.5 (stride on the 3x3).  The projection shortcut is
 * emitted first.  Without SE the residual add and relu are conv3's output
 * fusion (an SA op reading the shortcut); with SE they follow the channel
 * scale, which needs the pooled conv3 output first, in one VU op.
 * ResNet-D (He et al., CVPR 2019) shortcut: 2x2 average pool, then a
 * stride-1 projection.
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
    vu(b, pfx, "add_relu", ew(y, OPS_ADD_RELU, 2, cfg->rs ? V10_FUSE_VU : V10_FUSE_SA));
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
    image_input(b, x);
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

/* Classifier: global average pool, FC, softmax, and the predicted class. */
static void classifier(zb *b, fmap x, uint64_t classes)
{
    x = gpool(b, "head", "avgpool", x);
    fc(b, "head", "fc", x.n, x.c, classes);
    softmax(b, "head", "softmax", x.n, classes, 0);
    argmax(b, "head", "argmax", x.n, classes);
}

static const resnet_cfg RESNET50 = {{3, 4, 6, 3}, 0};
static const resnet_cfg RESNET101 = {{3, 4, 23, 3}, 0};
static const resnet_cfg RESNET_RS50 = {{3, 4, 6, 3}, 1};

/*
 * Feature pyramid (Lin et al., CVPR 2017) over C_lo..C5 -> P_lo..P_hi,
 * FPN_CH channels: 1x1 laterals, nearest 2x upsample + add (the lateral's
 * output fusion), 3x3 output convs; levels above 5 by 3x3 stride-2 convs
 * on the level below (relu'd first from P7 on, fused into the conv that
 * reads it), as in the TPU reference detection models.  c[] is C2..C5;
 * p[l] receives P_l.
 */
static void fpn(zb *b, const fmap c[4], int lo, int hi, fmap p[8])
{
    char sfx[24];
    for (int l = 5; l >= lo; l--) {
        snprintf(sfx, sizeof sfx, "lateral%d", l);
        fmap lat = conv(b, "fpn", sfx, c[l - 2], FPN_CH, 1, 1);
        if (l < 5) {
            snprintf(sfx, sizeof sfx, "topdown%d", l);
            vu(b, "fpn", sfx, ew(lat, OPS_ADD, 2, V10_FUSE_SA));
        }
        snprintf(sfx, sizeof sfx, "out%d", l);
        p[l] = conv(b, "fpn", sfx, lat, FPN_CH, 3, 1);
    }
    for (int l = 6; l <= hi; l++) {
        snprintf(sfx, sizeof sfx, "p%d", l);
        p[l] = conv(b, "fpn", sfx, p[l - 1], FPN_CH, 3, 2);
    }
}

/* ---- detection post-processing (TF Model Garden, official/vision) ---- */

/*
 * nms.sorted_non_max_suppression_padded (official/vision/ops/nms.py; the
 * same algorithm as tf.image.non_max_suppression_padded) over `batch`
 * sets of `boxes` score-sorted boxes, keeping `max_out`: the boxes are
 * padded to tiles of NMS_TILE; a while loop visits the tiles in order; for
 * tile t an inner while loop suppresses it by each earlier tile (an IoU
 * matrix reduced over the earlier tile, then a mask), then the tile
 * suppresses itself (an IoU matrix, masked, and a while loop of
 * self-suppression passes until one changes nothing: NMS_SELF_PASSES,
 * the fewest that can end it), updates the boxes and counts what it kept.
 * Every tile is visited: the loop stops early only once max_out boxes are
 * kept, which the detectors' low score thresholds make rare.  Then the
 * kept boxes are selected by a top-k over their positions and gathered.
 * Each step is one XLA fusion; each loop iteration also evaluates its
 * condition, a small op of its own.
 */
#define NMS_TILE 512      /* NMS_TILE_SIZE in official/vision/ops/nms.py */
#define NMS_SELF_PASSES 1 /* our choice: the self-suppression loop's fewest passes */

static void nms_padded(zb *b, const char *pfx, uint64_t batch, uint64_t boxes, uint64_t max_out)
{
    char p[V10_OPNAME_MAX], q[2 * V10_OPNAME_MAX];
    uint64_t tiles = (boxes + NMS_TILE - 1) / NMS_TILE, tb = batch * NMS_TILE;
    uint64_t all = batch * tiles * NMS_TILE;
    vop pair = {tb * NMS_TILE, NMS_TILE, NMS_TILE, OPS_IOU + 1, 0, 1, 0, V10_FUSE_NONE};
    vop pass = {tb * NMS_TILE, NMS_TILE, NMS_TILE, 2 * OPS_ADD, 1, 0, 1, V10_FUSE_NONE};
    vu(b, pfx, "nms.pad", (vop){all * 4, 0, 0, 1, 1, 0, 0, V10_FUSE_NONE});
    for (uint64_t t = 0; t < tiles; t++) {
        snprintf(p, sizeof p, "%s.nms.t%llu", pfx, (unsigned long long)t);
        vu(b, p, "slice", (vop){tb * 4, 0, 0, 1, 1, 0, 0, V10_FUSE_NONE});
        for (uint64_t j = 0; j < t; j++) {
            snprintf(q, sizeof q, "%s.x%llu", p, (unsigned long long)j);
            vu(b, q, "iou_all", pair);
            vu(b, q, "mask", (vop){tb * 4, 0, 0, 2, 2, 0, 0, V10_FUSE_NONE});
            tiny(b, q, "cond");
        }
        vu(b, p, "self_iou", pair);
        for (int s = 0; s < NMS_SELF_PASSES; s++) {
            vu(b, p, "can_suppress", pass);
            vu(b, p, "suppress", pass);
            vu(b, p, "iou_sum", pass);
            tiny(b, p, "self_cond");
        }
        vu(b, p, "suppressed", pass);
        vu(b, p, "update", (vop){all * 4, 0, 0, 3, 2, 0, 0, V10_FUSE_NONE});
        vu(b, p, "count", (vop){tb * 4, 0, 0, 2, 1, 0, 1, V10_FUSE_NONE});
        tiny(b, p, "cond");
    }
    sort(b, pfx, "nms.select", batch, tiles * NMS_TILE, max_out);
    gather(b, pfx, "nms.gather", batch * max_out, 4);
}

/*
 * The per-class detection generator, _generate_detections_v1 of the
 * Model Garden (official/vision/modeling/layers/detection_generator.py):
 * for each image, for each class, its scores' top pre_nms_top_k (a sort),
 * their boxes gathered, padded NMS keeping max_det, the kept boxes and
 * scores gathered and the invalid ones masked; then the classes'
 * detections concatenated and the best max_det of them kept.
 */
static void detect_per_class(zb *b, const char *pfx, uint64_t images, uint64_t candidates,
                             uint64_t classes, uint64_t pre_nms, uint64_t max_det)
{
    char p[V10_OPNAME_MAX];
    uint64_t k = candidates < pre_nms ? candidates : pre_nms;
    for (uint64_t i = 0; i < images; i++) {
        for (uint64_t c = 0; c < classes; c++) {
            snprintf(p, sizeof p, "%s.i%llu.c%llu", pfx, (unsigned long long)i,
                     (unsigned long long)c);
            vu(b, p, "scores", (vop){candidates, 0, 0, 1, 1, 0, 1, V10_FUSE_NONE});
            sort(b, p, "top_k", 1, candidates, k);
            gather(b, p, "boxes", k, 4);
            nms_padded(b, p, 1, k, max_det);
            gather(b, p, "kept", 2 * max_det, 4);
            vu(b, p, "valid", (vop){max_det * 4, 0, 0, 2, 1, 0, 0, V10_FUSE_NONE});
        }
        snprintf(p, sizeof p, "%s.i%llu", pfx, (unsigned long long)i);
        format(b, p, "concat", classes * max_det, 4, 0);
        sort(b, p, "top_k", 1, classes * max_det, max_det);
        gather(b, p, "gather", 3 * max_det, 4);
    }
}

/*
 * RetinaNet heads (Lin et al., ICCV 2017): per level, a class subnet and a
 * box subnet of 4 x (3x3 conv FPN_CH + relu) and a 3x3 predictor; weights
 * are shared across levels but each level is its own op.  Then the
 * multilevel detection generator: per level, the class logits through a
 * sigmoid and the box deltas decoded against the anchors (reshaped to
 * anchors x classes), then per-class NMS.  Returns the anchors over all
 * levels.
 */
#define RETINA_ANCHORS 9     /* 3 scales x 3 aspect ratios */
#define RETINA_CLASSES 91    /* COCO label space of the TPU reference */
#define RETINA_PRE_NMS 5000  /* pre_nms_top_k of the Model Garden RetinaNet */
#define RETINA_DETECTIONS 100 /* max_num_detections */

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
        char pfx[24];
        snprintf(pfx, sizeof pfx, "post.p%d", l);
        uint64_t a = b->n * p[l].h * p[l].w * RETINA_ANCHORS;
        format(b, pfx, "reshape", a, RETINA_CLASSES, 1);
        vu(b, pfx, "sigmoid", ew2(a, RETINA_CLASSES, OPS_SIGMOID, 1, V10_FUSE_VU));
        vu(b, pfx, "decode", ew2(a, 4, OPS_BOX_DECODE, 2, V10_FUSE_NONE));
        anchors += p[l].h * p[l].w * RETINA_ANCHORS;
    }
    format(b, "post", "concat", b->n * anchors, RETINA_CLASSES, 0);
    detect_per_class(b, "post", b->n, anchors, RETINA_CLASSES - 1, RETINA_PRE_NMS,
                     RETINA_DETECTIONS);
    return anchors;
}

/*
 * RoIAlign (He et al., ICCV 2017) of `rois` boxes to out x out bins of
 * `c` channels, as the TPU reference's multilevel_crop_and_resize does it:
 * each bin's bilinear sample gathers 4 neighbouring feature vectors (one
 * row DMA each), then interpolates.  Returns the crops as a batch of RoIs.
 */
static fmap roi_align(zb *b, const char *pfx, uint64_t rois, uint64_t out, uint64_t c)
{
    fmap y = {rois, out, out, c};
    vu(b, pfx, "roi_level", (vop){rois * 4, 0, 0, 12, 1, 0, 0, V10_FUSE_NONE});
    gather(b, pfx, "roi_gather", rois * out * out * 4, c);
    vu(b, pfx, "roi_interp", (vop){elems(y), c, out, OPS_BILINEAR, 4, 4, 0, V10_FUSE_NONE});
    return y;
}

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
 * blocks (the TPU reference, tensorflow/tpu models/official/efficientnet):
 * 1x1 expand (SA, batchnorm and swish fused), depthwise kxk (VU, its
 * batchnorm and swish fused), SE 0.25 of the block input, 1x1 project (SA),
 * the residual add its output fusion when shapes match.
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
    image_input(b, x);
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
            vu(b, pfx, "bn_swish", ew(y, OPS_SWISH + 2, 1, V10_FUSE_VU));
            squeeze_excite(b, pfx, y, in_c / 4 ? in_c / 4 : 1);
            y = conv(b, pfx, "project", y, stage[s].out, 1, 1);
            if (stride == 1 && in_c == stage[s].out)
                vu(b, pfx, "add", ew(y, OPS_ADD, 2, V10_FUSE_SA));
            x = y;
        }
    }
    x = conv(b, "head", "conv", x, 1280, 1, 1);
    classifier(b, x, 1000);
}

/*
 * BERT-large on SQuAD at 384 tokens (MLPerf Inference; the Model Garden's
 * BertSpanLabeler): Devlin, Chang, Lee, Toutanova, "BERT: Pre-training of
 * Deep Bidirectional Transformers for Language Understanding", NAACL 2019.
 * 24 layers, d 1024, 16 heads, FFN 4096 (GELU fused).  Word embeddings
 * gathered, position and type embeddings added, the attention mask built
 * from the input mask.  Analytic MACs per sequence: 24 x 384 x (12 x 1024^2
 * + 2 x 384 x 1024) + 384 x 1024 x 2 (span head) = 123.21 G.
 */
static void build_bert(zb *b)
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

static void build_transformer(zb *b)
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
static void build_vit(zb *b)
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
static void build_gpt_decode(zb *b)
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

static void build_dlrm(zb *b)
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

static void build_ncf(zb *b)
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
static void build_mnist(zb *b)
{
    fmap x = {b->n, 28, 28, 1};
    vu(b, NULL, "reshape", ew(x, 2, 1, V10_FUSE_NONE));
    x = conv(b, NULL, "conv1", x, 32, 5, 1);
    x = pool(b, NULL, "pool1", x, 2, 2);
    x = conv(b, NULL, "conv2", x, 64, 5, 1);
    x = pool(b, NULL, "pool2", x, 2, 2);
    format(b, NULL, "flatten", b->n * x.h * x.w, x.c, 1);
    fc(b, NULL, "fc1", b->n, x.h * x.w * x.c, 1024);
    fc(b, NULL, "fc2", b->n, 1024, 10);
    softmax(b, NULL, "softmax", b->n, 10, 0);
    argmax(b, NULL, "argmax", b->n, 10);
}

/*
 * RetinaNet at 640x640 (the Model Garden's RetinaNet, official/vision):
 * Lin, Goyal, Girshick, He, Dollar, "Focal Loss for Dense Object
 * Detection", ICCV 2017.  ResNet-50 v1.5 + FPN P3-P7, class and box
 * subnets, per-class NMS.
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
 * Mask R-CNN at 1024x1024 (the Model Garden's Mask R-CNN, official/vision):
 * He, Gkioxari, Dollar, Girshick, "Mask R-CNN", ICCV 2017.  ResNet-50 v1.5
 * + FPN P2-P6; RPN (3 anchors per location) on every level; proposals per
 * level: top MRCNN_RPN_PRE_NMS scores, boxes decoded, NMS (batched over the
 * images) keeping MRCNN_PROPOSALS, then the best MRCNN_PROPOSALS over the
 * levels; RoIAlign 7x7 and the 2-FC box head (1024); per-class detection
 * (as RetinaNet); the MRCNN_DETECTIONS detections through RoIAlign 14x14
 * and the mask head (4 x 3x3 conv 256, 2x2 stride-2 deconv, 1x1 to 91
 * class masks at 28x28), each detection's class mask gathered.
 */
#define MRCNN_RPN_PRE_NMS 2000 /* rpn_pre_nms_top_k */
#define MRCNN_PROPOSALS 1000   /* rpn_post_nms_top_k */
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
        uint64_t a = p[l].h * p[l].w * 3, k = a < MRCNN_RPN_PRE_NMS ? a : MRCNN_RPN_PRE_NMS;
        sort(b, pfx, "top_k", n, a, k);
        gather(b, pfx, "boxes", n * k, 4);
        vu(b, pfx, "decode", ew2(n * k, 4, OPS_BOX_DECODE + 4, 2, V10_FUSE_NONE));
        nms_padded(b, pfx, n, k, MRCNN_PROPOSALS);
        anchors += a;
    }
    format(b, "rpn", "concat", n * 5 * MRCNN_PROPOSALS, 4, 0);
    sort(b, "rpn", "top_k", n, 5 * MRCNN_PROPOSALS, MRCNN_PROPOSALS);
    gather(b, "rpn", "proposals", n * MRCNN_PROPOSALS, 4);

    uint64_t r = n * MRCNN_PROPOSALS;
    fmap roi = roi_align(b, "box_head", r, 7, FPN_CH);
    format(b, "box_head", "flatten", r, elems(roi) / r, 1);
    fc(b, "box_head", "fc6", r, elems(roi) / r, 1024);
    fc(b, "box_head", "fc7", r, 1024, 1024);
    fc(b, "box_head", "cls", r, 1024, MRCNN_CLASSES);
    fc(b, "box_head", "box", r, 1024, MRCNN_CLASSES * 4);
    softmax(b, "box_head", "softmax", r, MRCNN_CLASSES, 0);
    vu(b, "box_head", "decode", ew2(r * MRCNN_CLASSES, 4, OPS_BOX_DECODE, 2, V10_FUSE_NONE));
    detect_per_class(b, "detect", n, MRCNN_PROPOSALS, MRCNN_CLASSES - 1, RETINA_PRE_NMS,
                     MRCNN_DETECTIONS);

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
    vu(b, "mask_head", "depth_to_space", ew(up, 1, 1, V10_FUSE_NONE));
    y = conv(b, "mask_head", "logits", up, MRCNN_CLASSES, 1, 1);
    vu(b, "mask_head", "class_mask", (vop){d * y.h * y.w, 0, 0, 2, 1, 0, 1, V10_FUSE_NONE});
    vu(b, "mask_head", "sigmoid", ew2(d * y.h, y.w, OPS_SIGMOID, 1, V10_FUSE_VU));
}

/*
 * ShapeMask at 1024x1024 (TPU reference): Kuo, Angelova, Malik, Lin,
 * "ShapeMask: Learning to Segment Novel Objects by Refining Shape Priors",
 * ICCV 2019.  ResNet-101 v1.5 + FPN P3-P7 with RetinaNet heads and
 * detection as the detector; for the top 100 detections, the mask branch
 * after the TPU reference config (crop 32x32, 128 channels, 4 convs,
 * upsample x4): shape prior (pooled RoI feature -> 32 cluster weights ->
 * weighted sum of 32x32 prior masks), coarse mask (prior embedded +
 * features, 4 x 3x3 conv), fine mask (instance embedding, 4 x 3x3 conv, x4
 * deconv, 1x1 logits).
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
    softmax(b, "prior", "softmax", r, SHAPE_CLUSTERS, 0);
    fc(b, "prior", "combine", r, SHAPE_CLUSTERS, px); /* weighted prior masks */

    fmap prior = {r, SHAPE_CROP, SHAPE_CROP, 1};
    fmap y = conv(b, "coarse", "reduce", f, SHAPE_CH, 1, 1);
    conv(b, "coarse", "prior_embed", prior, SHAPE_CH, 1, 1);
    vu(b, "coarse", "fuse", ew(y, OPS_ADD, 2, V10_FUSE_SA));
    shape_convs(b, "coarse", &y);
    y = conv(b, "coarse", "logits", y, 1, 1, 1);
    vu(b, "coarse", "sigmoid", ew2(r * SHAPE_CROP, SHAPE_CROP, OPS_SIGMOID, 1, V10_FUSE_VU));

    /* Instance embedding: mask-weighted average of the features, subtracted. */
    y = conv(b, "fine", "reduce", f, SHAPE_CH, 1, 1);
    vu(b, "fine", "embed", ew(y, 2 * OPS_ADD, 2, V10_FUSE_NONE));
    vu(b, "fine", "center", ew(y, OPS_ADD, 1, V10_FUSE_NONE));
    shape_convs(b, "fine", &y);
    gemm(b, "fine", "upsample", 1, r * px, SHAPE_CH * SHAPE_UPSAMPLE * SHAPE_UPSAMPLE,
         SHAPE_CH, 1);
    fmap up = {r, SHAPE_CROP * SHAPE_UPSAMPLE, SHAPE_CROP * SHAPE_UPSAMPLE, SHAPE_CH};
    vu(b, "fine", "depth_to_space", ew(up, 1, 1, V10_FUSE_NONE));
    y = conv(b, "fine", "logits", up, 1, 1, 1);
    vu(b, "fine", "sigmoid", ew2(r * up.h, up.w, OPS_SIGMOID, 1, V10_FUSE_VU));
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
    /* The TensorFlow references keep their variables in f32 (Keras's
     * mixed_bfloat16 policy casts them to bf16 inside each layer). */
    out->weight_bytes = 4;
    zb b = {.m = out, .err = err, .n = batch, .rc = 0};
    e->build(&b);
    if (b.rc) {
        v10_model_fini(out);
        return -1;
    }
    return 0;
}
