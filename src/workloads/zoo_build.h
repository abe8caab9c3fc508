/*
 * zoo_build.h — the zoo's build context and operator builders, shared by
 * the model files (zoo_vision.c: the CNNs and detectors; zoo_seq.c: the
 * transformers and recommenders) and the registry (zoo.c).  Internal to
 * src/workloads/.
 */
#ifndef V10_ZOO_BUILD_H
#define V10_ZOO_BUILD_H

#include <stdio.h>
#include <string.h>

#include "model/vu_ops.h"
#include "v10/model.h"

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

static inline uint64_t elems(fmap x) { return x.n * x.h * x.w * x.c; }

static const char *opname(zb *b, const char *pfx, const char *sfx)
{
    /* "pfx.sfx" or "sfx"; a longer name is cut to fit: names label
     * operators, nothing more.  Copies, not snprintf: a detector names
     * ~10^6 operators. */
    size_t cap = sizeof b->name - 1, n = 0;
    if (pfx && *pfx) {
        n = strnlen(pfx, cap);
        memcpy(b->name, pfx, n);
        if (n < cap)
            b->name[n++] = '.';
    }
    size_t l = strnlen(sfx, cap - n);
    memcpy(b->name + n, sfx, l);
    b->name[n + l] = '\0';
    return b->name;
}

/* SA: `count` (M x K)(K x N) with bias and activation fused. */
static inline void gemm(zb *b, const char *pfx, const char *sfx, uint64_t count, uint64_t M,
                 uint64_t N, uint64_t K, int weights_in_hbm)
{
    if (!b->rc)
        b->rc = v10_model_gemm(b->m, opname(b, pfx, sfx), count, M, N, K, weights_in_hbm,
                               b->err);
}

/* SA: k x k conv, "same" padding, batchnorm and activation folded in. */
static inline fmap conv(zb *b, const char *pfx, const char *sfx, fmap x, uint64_t filters,
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

static inline void vu(zb *b, const char *pfx, const char *sfx, vop o)
{
    v10_vec_desc d = {.elems = o.n, .minor = o.minor, .second = o.second, .ops = o.ops,
                      .in_tensors = o.in, .loads = o.loads, .xlu = o.xlu, .fuse = o.fuse};
    if (!b->rc)
        b->rc = v10_model_vec(b->m, opname(b, pfx, sfx), &d, b->err);
}

/* Element-wise op on an NHWC tensor (channels in the lanes). */
static inline vop ew(fmap x, uint64_t ops, uint32_t in, v10_fuse fuse)
{
    return (vop){elems(x), x.c, x.w, ops, in, 0, 0, fuse};
}

/* Element-wise op on a rows x cols matrix. */
static inline vop ew2(uint64_t rows, uint64_t cols, uint64_t ops, uint32_t in, v10_fuse fuse)
{
    return (vop){rows * cols, cols, rows, ops, in, 0, 0, fuse};
}

/* A reduction over the minor dimension of a rows x cols matrix (softmax,
 * layer norm): `passes` cross-lane reductions per register. */
static inline vop rowred(uint64_t rows, uint64_t cols, uint64_t ops, uint32_t passes)
{
    return (vop){rows * cols, cols, rows, ops, 1, 0, passes, V10_FUSE_NONE};
}

/* Data formatting XLA leaves as an operator (a transpose, pad, concat or
 * convert of a rows x cols view): one move per element, a cross-lane pass
 * per register when the minor dimension changes. */
static inline void format(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols,
                   int transpose)
{
    vu(b, pfx, sfx, (vop){rows * cols, cols, rows, 1, 1, 0, transpose ? 1u : 0u, V10_FUSE_NONE});
}

/* A scalar or tiny op: a while loop's condition, a counter, a bookkeeping
 * step on a few values.  Its cost is the operator's fixed cost. */
static inline void tiny(zb *b, const char *pfx, const char *sfx)
{
    vu(b, pfx, sfx, (vop){1, 0, 0, 1, 1, 0, 0, V10_FUSE_NONE});
}

static inline void gather(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t dim)
{
    if (!b->rc)
        b->rc = v10_model_gather(b->m, opname(b, pfx, sfx), rows, dim, b->err);
}

/* A gather of `rows` slabs of second x minor elements (one DMA each). */
static inline void gather_slab(zb *b, const char *pfx, const char *sfx, uint64_t rows,
                        uint64_t second, uint64_t minor)
{
    if (!b->rc)
        b->rc = v10_model_gather_slab(b->m, opname(b, pfx, sfx), rows, second, minor, b->err);
}

static inline void sort(zb *b, const char *pfx, const char *sfx, uint64_t count, uint64_t n,
                 uint64_t topk)
{
    if (!b->rc)
        b->rc = v10_model_sort(b->m, opname(b, pfx, sfx), count, n, topk, 1, b->err);
}

/* VU: k x k pooling with stride: k*k taps loaded per output register,
 * stride^2 outputs' worth of input read. */
static inline fmap pool(zb *b, const char *pfx, const char *sfx, fmap x, uint64_t k, uint64_t stride)
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
static inline fmap gpool(zb *b, const char *pfx, const char *sfx, fmap x)
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
static inline fmap dwconv(zb *b, const char *pfx, fmap x, uint64_t k, uint64_t stride)
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
static inline void fc(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t k, uint64_t n)
{
    gemm(b, pfx, sfx, 1, rows, n, k, 1);
}

/* Softmax over the last of rows x cols: max and sum reductions across
 * lanes, subtract, exp, scale. */
static inline void softmax(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols,
                    int masked)
{
    vu(b, pfx, sfx, rowred(rows, cols, masked ? OPS_MASK_SOFTMAX : OPS_SOFTMAX, 2));
}

/* Layer norm over the last of rows x cols (mean and variance reductions). */
static inline void layernorm(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols)
{
    vu(b, pfx, sfx, rowred(rows, cols, OPS_LAYERNORM, 2));
}

/* Argmax over the last of rows x cols: a max and an index select per
 * element, a cross-lane pass for each. */
static inline void argmax(zb *b, const char *pfx, const char *sfx, uint64_t rows, uint64_t cols)
{
    vu(b, pfx, sfx, rowred(rows, cols, 2 * OPS_ADD, 2));
}

/* Input images: the f32 pixels cast to bf16 and normalized (mean and
 * standard deviation per channel) before the first convolution. */
static inline void image_input(zb *b, fmap x)
{
    vu(b, "input", "normalize", ew(x, 2 * OPS_ADD + 1, 1, V10_FUSE_NONE));
}


/* ---- the models (each builds one request of batch b->n) ---- */

void zoo_bert(zb *b);
void zoo_dlrm(zb *b);
void zoo_efficientnet(zb *b);
void zoo_gpt_decode(zb *b);
void zoo_maskrcnn(zb *b);
void zoo_mnist(zb *b);
void zoo_ncf(zb *b);
void zoo_resnet50(zb *b);
void zoo_resnet_rs(zb *b);
void zoo_retinanet(zb *b);
void zoo_shapemask(zb *b);
void zoo_transformer(zb *b);
void zoo_vit(zb *b);

#endif
