/*
 * test_zoo.c — the built-in models against their published MACs or against
 * hand-derived analytic totals, plus structural checks: linear scaling with
 * batch, both FU types present, default batches, names, no empty operators,
 * and errors for unknown names.  MACs are computed here from the operator
 * descriptions (count x M x N x K), independent of the cost model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "v10/model.h"

#define G 1e9

typedef struct tally {
    double macs;          /* SA MACs */
    double backbone_macs; /* SA MACs of ops named stem.* / layer* (ResNets) */
    double dw_macs;       /* depthwise MACs on the VU (ops named *.dwKxK) */
    size_t sa, vu;        /* op counts */
} tally;

static void build(const char *name, uint32_t batch, v10_model *m)
{
    v10_err err;
    if (v10_zoo_build(name, batch, m, &err))
        fail_msg("%s: %s", name, err.msg);
}

static tally count(const v10_model *m)
{
    tally t = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        if (op->fu == V10_FU_SA) {
            t.sa++;
            assert_int_equal(op->kind, V10_OP_GEMM);
            double macs = (double)op->count * (double)op->m * (double)op->n * (double)op->k;
            t.macs += macs;
            if (!strncmp(op->name, "stem.", 5) || !strncmp(op->name, "layer", 5))
                t.backbone_macs += macs;
        } else {
            t.vu++;
            const char *dw = strstr(op->name, ".dw");
            unsigned kh, kw;
            if (dw && sscanf(dw, ".dw%ux%u", &kh, &kw) == 2)
                t.dw_macs += (double)op->elems * kh * kw;
        }
    }
    return t;
}

static tally model_tally(const char *name)
{
    v10_model m;
    build(name, 1, &m);
    tally t = count(&m);
    v10_model_fini(&m);
    return t;
}

static void assert_within(const char *what, double got, double want, double tol)
{
    double rel = fabs(got - want) / want;
    if (rel > tol)
        fail_msg("%s: %.6g vs %.6g (%.2f%% off, tolerance %.1f%%)", what, got, want,
                 100 * rel, 100 * tol);
}

/* 3x3 conv 256 -> 256, MACs per output pixel (FPN and head convs). */
#define C3_256 (9.0 * 256 * 256)

/* ---- published figures ---- */

/* He et al. CVPR 2016; v1.5 (stride on the 3x3): 4.09 GMACs incl. FC. */
static void test_resnet50(void **state)
{
    (void)state;
    assert_within("resnet50", model_tally("resnet50").macs, 4.09 * G, 0.05);
}

/* Bello et al. NeurIPS 2021, ResNet-RS-50 at 160: 4.6 GFLOPs = 2 x MACs. */
static void test_resnet_rs(void **state)
{
    (void)state;
    assert_within("resnet-rs (FLOPs)", 2 * model_tally("resnet-rs").macs, 4.6 * G, 0.05);
}

/* Tan & Le ICML 2019: 0.39 G multiply-adds including the depthwise convs,
 * which we run on the VU (so they are counted from the VU ops). */
static void test_efficientnet(void **state)
{
    (void)state;
    tally t = model_tally("efficientnet");
    assert_true(t.dw_macs > 0);
    assert_within("efficientnet", t.macs + t.dw_macs, 0.39 * G, 0.05);
}

/* Dosovitskiy et al. ICLR 2021: ViT-B/16 17.6 G(multiply-adds). */
static void test_vit(void **state)
{
    (void)state;
    assert_within("vit", model_tally("vit").macs, 17.6 * G, 0.03);
}

/* ---- analytic totals (exact: each is the architecture written out) ---- */

/* BERT-large, 384 tokens: per layer per token QKV+out 4d^2, FFN 2 x d x 4d
 * (= 12 d^2), QK^T and P.V 2 x 384 x d; plus the SQuAD span head d x 2. */
static void test_bert(void **state)
{
    (void)state;
    double d = 1024, t = 384;
    double want = 24 * t * (12 * d * d + 2 * t * d) + t * d * 2; /* 123.21 G */
    assert_within("bert", model_tally("bert").macs, want, 1e-9);
}

/* Transformer-base translating 128 source tokens into 128 target tokens
 * by beam search (beam 4, the Model Garden reference): d 512, FFN 2048,
 * vocab 33708.  Encoder layer per token: 12 d^2 + 2 x 128 x d; the
 * cross-attention keys and values once, 2 d^2 per source token a layer.
 * Each of the 128 steps runs the decoder on the 4 beams' last tokens:
 * per layer self QKV 3 d^2, its projection d^2, cross Q and projection
 * 2 d^2, FFN 8 d^2 (attention over the caches is multiply-reduce on the VU:
 * no MACs), then the logits d x vocab.  Total 23.03 G. */
static void test_transformer(void **state)
{
    (void)state;
    double d = 512, s = 128, steps = 128, beam = 4, v = 33708;
    double enc = 6 * s * (12 * d * d + 2 * s * d), cross_kv = 6 * s * 2 * d * d;
    double dec = steps * beam * (6 * 14 * d * d + d * v);
    assert_within("transformer", model_tally("transformer").macs, enc + cross_kv + dec, 1e-9);
}

/* GPT-2 XL decode step, KV cache of 1024: per layer 12 d^2 (QKV, out, MLP
 * 4d) + 2 x 1024 x d (QK^T, P.V); LM head d x 50257.  1.712 G per token. */
static void test_gpt_decode(void **state)
{
    (void)state;
    double d = 1600, ctx = 1024;
    double want = 48 * (12 * d * d + 2 * ctx * d) + d * 50257;
    assert_within("gpt-decode", model_tally("gpt-decode").macs, want, 1e-9);

    /* Weight GEMMs have M = batch: the step streams weights (memory-bound). */
    v10_model m;
    build("gpt-decode", 8, &m);
    for (size_t i = 0; i < m.n_ops; i++)
        if (m.ops[i].fu == V10_FU_SA && m.ops[i].count == 1)
            assert_int_equal(m.ops[i].m, 8);
    v10_model_fini(&m);
}

/* DLRM: bottom 13x512 + 512x256 + 256x128 = 170,496; interaction
 * 27 x 27 x 128 = 93,312; top 479x1024 + 1024x1024 + 1024x512 + 512x256 +
 * 256x1 = 2,194,688.  Total 2,458,496 per sample. */
static void test_dlrm(void **state)
{
    (void)state;
    double want = (13 * 512 + 512 * 256 + 256 * 128) + 27 * 27 * 128 +
                  (479 * 1024 + 1024 * 1024 + 1024 * 512 + 512 * 256 + 256 * 1);
    assert_true(want == 2458496);
    assert_within("dlrm", model_tally("dlrm").macs, want, 1e-12);
}

/* NeuMF: MLP 256x256 + 256x128 + 128x64, predict 128x1 = 106,624 per
 * item, and MLPerf's evaluation scores each user's positive with 999
 * negatives: 1000 items a request. */
static void test_ncf(void **state)
{
    (void)state;
    double want = 1000.0 * (256 * 256 + 256 * 128 + 128 * 64 + 128 * 1);
    assert_true(want == 106624000);
    assert_within("ncf", model_tally("ncf").macs, want, 1e-12);
}

/* MNIST CNN: conv1 28^2 x 25 x 32 = 627,200; conv2 14^2 x 800 x 64 =
 * 10,035,200; fc1 3136 x 1024 = 3,211,264; fc2 1024 x 10.  13,883,904. */
static void test_mnist(void **state)
{
    (void)state;
    double want = 28 * 28 * 25 * 32 + 14 * 14 * 800 * 64 + 3136 * 1024 + 1024 * 10;
    assert_true(want == 13883904);
    assert_within("mnist", model_tally("mnist").macs, want, 1e-12);
}

/*
 * Detection backbones: the published ResNet conv MACs at 224 (FC excluded)
 * scale with the pixel count exactly, since 640 and 1024 are multiples of
 * 32 like 224; 5% tolerance as for ResNet-50 itself.  The FPN and heads
 * are checked exactly against the architecture written out.
 */
static double resnet_scaled(double published_224, double side)
{
    return (published_224 - 2048.0 * 1000) * (side / 224) * (side / 224);
}

/* Retina heads over levels with `px` pixels in all: 8 x 3x3 convs, class
 * predictor 9 x 91 outputs, box predictor 9 x 4. */
static double retina_heads(double px)
{
    return px * (8 * C3_256 + 9 * 256 * (9 * 91) + 9 * 256 * 9 * 4);
}

static void test_retinanet(void **state)
{
    (void)state;
    tally t = model_tally("retinanet");
    assert_within("retinanet backbone", t.backbone_macs, resnet_scaled(4.09 * G, 640), 0.05);
    /* P3..P7 at 640: 80, 40, 20, 10, 5. */
    double fpn = 80.0 * 80 * 512 * 256 + 40.0 * 40 * 1024 * 256 + 20.0 * 20 * 2048 * 256 +
                 (80 * 80 + 40 * 40 + 20 * 20) * C3_256 + (10 * 10 + 5 * 5) * C3_256;
    double heads = retina_heads(80 * 80 + 40 * 40 + 20 * 20 + 10 * 10 + 5 * 5);
    assert_within("retinanet fpn+heads", t.macs - t.backbone_macs, fpn + heads, 1e-9);
}

static void test_maskrcnn(void **state)
{
    (void)state;
    tally t = model_tally("maskrcnn");
    assert_within("maskrcnn backbone", t.backbone_macs, resnet_scaled(4.09 * G, 1024), 0.05);
    /* P2..P6 at 1024: 256, 128, 64, 32, 16. */
    double px25 = 256 * 256 + 128 * 128 + 64 * 64 + 32 * 32;
    double fpn = 256.0 * 256 * 256 * 256 + 128.0 * 128 * 512 * 256 + 64.0 * 64 * 1024 * 256 +
                 32.0 * 32 * 2048 * 256 + px25 * C3_256 + 16 * 16 * C3_256;
    double rpn = (px25 + 16 * 16) * (C3_256 + 256 * 3 + 256 * 12);
    double box = 1000 * (7.0 * 7 * 256 * 1024 + 1024 * 1024 + 1024 * 91 + 1024 * 364);
    double mask = 100 * (4.0 * 14 * 14 * C3_256 + 14.0 * 14 * 256 * 1024 + 28.0 * 28 * 256 * 91);
    assert_within("maskrcnn fpn+heads", t.macs - t.backbone_macs, fpn + rpn + box + mask,
                  1e-9);
}

static void test_shapemask(void **state)
{
    (void)state;
    tally t = model_tally("shapemask");
    /* ResNet-101 v1.5: 7.8 GMACs at 224 (He et al. 2016, torchvision). */
    assert_within("shapemask backbone", t.backbone_macs, resnet_scaled(7.8 * G, 1024), 0.05);
    /* P3..P7 at 1024: 128, 64, 32, 16, 8. */
    double px35 = 128 * 128 + 64 * 64 + 32 * 32;
    double fpn = 128.0 * 128 * 512 * 256 + 64.0 * 64 * 1024 * 256 + 32.0 * 32 * 2048 * 256 +
                 px35 * C3_256 + (16 * 16 + 8 * 8) * C3_256;
    double heads = retina_heads(px35 + 16 * 16 + 8 * 8);
    /* Per detection (100): prior 256x32 + 32x1024; coarse 1x1 256->128,
     * prior embed 1->128, 4 x 3x3 128, 1x1 ->1 at 32x32; fine 1x1 256->128,
     * 4 x 3x3 128, x4 deconv 128 -> 16x128, 1x1 -> 1 at 128x128. */
    double c3 = 9.0 * 128 * 128, px = 32 * 32;
    double coarse = px * (256 * 128 + 128 + 4 * c3 + 128);
    double fine = px * (256 * 128 + 4 * c3 + 128 * 2048) + 128 * 128 * 128;
    double mask = 100 * (256 * 32 + 32 * 1024 + coarse + fine);
    assert_within("shapemask fpn+heads", t.macs - t.backbone_macs, fpn + heads + mask, 1e-9);
}

/* ---- structure ---- */

static size_t n_models(void)
{
    size_t n = 0;
    while (v10_zoo_names[n])
        n++;
    return n;
}

static void test_names_and_batches(void **state)
{
    (void)state;
    static const char *const expect[] = {
        "bert", "dlrm", "efficientnet", "gpt-decode", "maskrcnn", "mnist", "ncf",
        "resnet50", "resnet-rs", "retinanet", "shapemask", "transformer", "vit",
    };
    assert_int_equal(n_models(), sizeof expect / sizeof *expect);
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
        uint32_t batch = 0;
        assert_string_equal(v10_zoo_names[i], expect[i]);
        assert_int_equal(v10_zoo_default_batch(expect[i], &batch), 0);
        uint32_t want = !strcmp(expect[i], "maskrcnn") ? 16 : !strcmp(expect[i], "shapemask") ? 8 : 32;
        assert_int_equal(batch, want);
    }
    uint32_t batch = 7;
    assert_int_equal(v10_zoo_default_batch("resnet", &batch), -1);
    assert_int_equal(batch, 7);
}

/* Every op is named, has work, and MACs are exactly linear in batch. */
static void test_every_model(void **state)
{
    (void)state;
    for (size_t i = 0; v10_zoo_names[i]; i++) {
        const char *name = v10_zoo_names[i];
        v10_model m1, m2;
        build(name, 1, &m1);
        build(name, 2, &m2);
        assert_string_equal(m1.name, name);
        assert_int_equal(m2.batch, 2);
        /* The detectors post-process image by image: their operator count
         * grows with the batch; every other model's is the batch's. */
        int per_image = !strcmp(name, "retinanet") || !strcmp(name, "maskrcnn") ||
                        !strcmp(name, "shapemask");
        if (per_image)
            assert_true(m2.n_ops > m1.n_ops);
        else
            assert_int_equal(m1.n_ops, m2.n_ops);
        for (size_t j = 0; j < m1.n_ops; j++) {
            const v10_op *op = &m1.ops[j];
            if (!op->name[0])
                fail_msg("%s: op %zu has no name", name, j);
            int work = op->kind == V10_OP_GEMM
                           ? op->count && op->m && op->n && op->k
                           : op->elems && op->ops_per_elem && op->hbm_bytes;
            if (!work)
                fail_msg("%s: op %s has no work", name, op->name);
            if (!per_image)
                assert_string_equal(op->name, m2.ops[j].name);
        }
        tally t1 = count(&m1), t2 = count(&m2);
        if (t2.macs != 2 * t1.macs)
            fail_msg("%s: batch 2 gives %.6g MACs, batch 1 %.6g", name, t2.macs, t1.macs);
        if (!t1.sa || !t1.vu)
            fail_msg("%s: %zu SA and %zu VU ops; expected both", name, t1.sa, t1.vu);
        v10_model_fini(&m1);
        v10_model_fini(&m2);
    }
}

static void test_errors(void **state)
{
    (void)state;
    v10_model m;
    v10_err err = {{0}};
    assert_int_equal(v10_zoo_build("resnet-51", 1, &m, &err), -1);
    assert_non_null(strstr(err.msg, "resnet-51"));
    assert_non_null(strstr(err.msg, "resnet50"));
    assert_non_null(strstr(err.msg, "vit"));
    assert_null(m.ops);
    assert_int_equal(m.n_ops, 0);

    err.msg[0] = 0;
    assert_int_equal(v10_zoo_build("bert", 0, &m, &err), -1);
    assert_non_null(strstr(err.msg, "batch"));
    assert_null(m.ops);

    /* A batch that overflows a 64-bit operand size fails cleanly. */
    assert_int_equal(v10_zoo_build("shapemask", UINT32_MAX, &m, &err), -1);
    assert_non_null(strstr(err.msg, "overflow"));
    assert_null(m.ops);
    assert_int_equal(m.n_ops, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet50),    cmocka_unit_test(test_resnet_rs),
        cmocka_unit_test(test_efficientnet), cmocka_unit_test(test_vit),
        cmocka_unit_test(test_bert),        cmocka_unit_test(test_transformer),
        cmocka_unit_test(test_gpt_decode),  cmocka_unit_test(test_dlrm),
        cmocka_unit_test(test_ncf),         cmocka_unit_test(test_mnist),
        cmocka_unit_test(test_retinanet),   cmocka_unit_test(test_maskrcnn),
        cmocka_unit_test(test_shapemask),   cmocka_unit_test(test_names_and_batches),
        cmocka_unit_test(test_every_model), cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
