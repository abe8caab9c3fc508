/*
 * zoo_vision.c — the zoo's vision models (docs/models.md): ResNet-50,
 * ResNet-RS, EfficientNet, MNIST and the detectors RetinaNet, Mask R-CNN and
 * ShapeMask with their TPU post-processing (TF Model Garden, official/vision),
 * on the builders of zoo_build.h.
 */
#include "workloads/zoo_build.h"

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
    for (uint64_t t = 0; t < tiles && !b->rc; t++) {
        snprintf(p, sizeof p, "%s.nms.t%llu", pfx, (unsigned long long)t);
        vu(b, p, "slice", (vop){tb * 4, 0, 0, 1, 1, 0, 0, V10_FUSE_NONE});
        for (uint64_t j = 0; j < t && !b->rc; j++) {
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
    for (uint64_t i = 0; i < images && !b->rc; i++) { /* a failure stops the loops */
        for (uint64_t c = 0; c < classes && !b->rc; c++) {
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


/* ---- the models ---- */

/*
 * ResNet-50 v1.5 at 224x224: He, Zhang, Ren, Sun, "Deep Residual Learning
 * for Image Recognition", CVPR 2016; v1.5 moves the stride to the 3x3 conv
 * (NVIDIA/MLPerf).  Published: 4.09 GMACs per image (conv + FC).
 */
void zoo_resnet50(zb *b)
{
    fmap x = {b->n, 224, 224, 3};
    classifier(b, resnet_trunk(b, x, &RESNET50, NULL), 1000);
}

/*
 * ResNet-RS-50 at 160x160: Bello, Fedus, Du, Cubuk, Srinivas, Lin, Shlens,
 * Zoph, "Revisiting ResNets: Improved Training and Scaling Strategies",
 * NeurIPS 2021.  Published: 4.6 GFLOPs (= 2 x MACs: 2.3 GMACs), 36M params.
 */
void zoo_resnet_rs(zb *b)
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
void zoo_efficientnet(zb *b)
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

void zoo_mnist(zb *b)
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
void zoo_retinanet(zb *b)
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

void zoo_maskrcnn(zb *b)
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

void zoo_shapemask(zb *b)
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

