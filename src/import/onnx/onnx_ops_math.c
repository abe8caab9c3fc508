/*
 * onnx_ops_math.c — ONNX operators that do arithmetic (onnx_impl.h):
 * element-wise, normalization and softmax, matmul-like (Conv,
 * ConvTranspose, Gemm, MatMul: SA operators), pooling and reductions.
 * Each handler infers its outputs' shapes and emits its operators; the
 * table in onnx_import.c has checked its inputs' presence and ranks.
 */
#include "import/onnx/onnx_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"

/* --------------------------------------------------- element-wise nodes */

int onnx_h_unary(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    shape s = in[0]->s;
    if (onnx_vu_op(c, in, n_in, &s, d->ops, 1, 1, 0))
        return -1;
    /* Neg and Abs of shape arithmetic (ONNX function expansions use them) */
    int neg = !strcmp(d->op, "Neg"), abs_ = !strcmp(d->op, "Abs");
    int64_t *vals = NULL;
    uint64_t n = onnx_numel(&s);
    if (in[0]->vals && (neg || abs_) && (vals = malloc((n ? n : 1) * sizeof *vals)))
        for (uint64_t i = 0; i < n; i++) {
            int64_t v = in[0]->vals[i], r = v;
            if ((neg || v < 0) && v10_sub_i64(0, v, &r)) {
                free(vals);
                return onnx_nerr(c, "integer %s of %lld overflows 64 bits", d->op, (long long)v);
            }
            vals[i] = r;
        }
    int rc = onnx_def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

/* Identity, Dropout (inference): the output is the input. */
int onnx_h_alias(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    c->node_epi = in[0]->epi;
    if (onnx_def_out(c, 0, &in[0]->s, in[0]->vals))
        return -1;
    c->node_epi = 0;
    return onnx_def_out(c, 1, &in[0]->s, NULL); /* Dropout's mask */
}

/* The range of ONNX's integer TensorProto types, by data type; 0 for
 * others.  Bool folds to 0 or 1. */
static int int_range(int64_t to, int64_t *lo, int64_t *hi)
{
    static const struct {
        int64_t to, lo, hi;
    } R[] = {
        {2, 0, UINT8_MAX},          {3, INT8_MIN, INT8_MAX},   {4, 0, UINT16_MAX},
        {5, INT16_MIN, INT16_MAX},  {6, INT32_MIN, INT32_MAX}, {7, INT64_MIN, INT64_MAX},
        {9, 0, 1},                  {12, 0, UINT32_MAX},       {13, 0, INT64_MAX},
    };
    for (size_t i = 0; i < sizeof R / sizeof *R; i++)
        if (R[i].to == to) {
            *lo = R[i].lo, *hi = R[i].hi;
            return 1;
        }
    return 0;
}

int onnx_h_cast(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    int64_t to = onnx_attr_int(c, "to", 0), lo = 0, hi = 0;
    int int_type = int_range(to, &lo, &hi);
    if (onnx_vu_op(c, in, n_in, &in[0]->s, d->ops, 1, 1, 0))
        return -1;
    uint64_t n = onnx_numel(&in[0]->s);
    int64_t *vals = NULL;
    if (int_type && in[0]->vals && (vals = malloc((n ? n : 1) * sizeof *vals)))
        for (uint64_t i = 0; i < n; i++) {
            int64_t v = in[0]->vals[i];
            if (to == 9) /* bool */
                v = v != 0;
            else if (v < lo || v > hi) { /* would wrap: no shape computes that */
                free(vals);
                return onnx_nerr(c, "Cast of %lld to an integer of [%lld, %lld] (to=%lld) "
                                    "overflows", (long long)v, (long long)lo, (long long)hi,
                                 (long long)to);
            }
            vals[i] = v;
        }
    int rc = onnx_def_out(c, 0, &in[0]->s, vals);
    free(vals);
    return rc;
}

/* Integer evaluation of a binary op on constants, checked: 1 evaluated, 0
 * not evaluated (another op, a division by zero), -1 if the exact result
 * does not fit in 64 bits (docs/onnx.md: shape arithmetic never wraps). */
static int eval_binary(const char *op, int64_t a, int64_t b, int64_t *r)
{
    if (!strcmp(op, "Add"))
        return v10_add_i64(a, b, r) ? -1 : 1;
    if (!strcmp(op, "Sub"))
        return v10_sub_i64(a, b, r) ? -1 : 1;
    if (!strcmp(op, "Mul"))
        return v10_mul_i64(a, b, r) ? -1 : 1;
    if (!strcmp(op, "Div") && b != 0) {
        if (a == INT64_MIN && b == -1)
            return -1;
        *r = a / b;
    } else if (!strcmp(op, "Equal"))
        *r = a == b;
    else if (!strcmp(op, "Max"))
        *r = a > b ? a : b;
    else if (!strcmp(op, "Min"))
        *r = a < b ? a : b;
    else
        return 0;
    return 1;
}

/* Add, Sub, Mul, Div, Pow, comparisons, Max/Min/Sum/Mean (variadic), Where. */
int onnx_h_broadcast(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    size_t n = 0;
    shape s = {0, {0}};
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i])
            continue;
        if (n == 0)
            s = in[i]->s;
        else if (onnx_broadcast(c, &s, &in[i]->s, &s))
            return -1;
        n++;
    }
    if (n == 0)
        return onnx_nerr(c, "no inputs");
    int64_t *vals = NULL;
    uint64_t ne = onnx_numel(&s);
    if (n_in == 2 && in[0] && in[1] && in[0]->vals && in[1]->vals && ne <= MAX_VALS) {
        vals = malloc((ne ? ne : 1) * sizeof *vals);
        if (!vals)
            return onnx_nerr(c, "out of memory");
        for (size_t i = 0; i < ne; i++) {
            int64_t a = in[0]->vals[onnx_bcast_index(i, &s, &in[0]->s)];
            int64_t b = in[1]->vals[onnx_bcast_index(i, &s, &in[1]->s)];
            int ev = eval_binary(c->node->op_type, a, b, &vals[i]);
            if (ev < 0) {
                free(vals);
                return onnx_nerr(c, "integer %s of %lld and %lld overflows 64 bits",
                                 c->node->op_type, (long long)a, (long long)b);
            }
            if (!ev) {
                free(vals);
                vals = NULL;
                break;
            }
        }
    }
    uint64_t ops = d->ops * (n > 2 ? n - 1 : 1);
    int rc = onnx_vu_op(c, in, n_in, &s, ops, 1, 1, 0);
    if (!rc)
        rc = onnx_def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

int onnx_h_softmax(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in;
    uint32_t ax = 0; /* a scalar has no axis: nothing reduces across lanes */
    if (in[0]->s.rank && onnx_axis_of(c, onnx_attr_int(c, "axis", -1), in[0]->s.rank, "axis", &ax))
        return -1;
    /* fusible: a preceding scale or mask add joins it; the max and the sum
     * reduce across lanes when the axis is the last (XLA's layout) */
    if (onnx_vu_op(c, in, 1, &in[0]->s, d->ops, 1, 0, ax + 1 == in[0]->s.rank ? 2 : 0))
        return -1;
    return onnx_def_out(c, 0, &in[0]->s, NULL);
}

int onnx_h_batchnorm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    const tensor *x = in[0];
    for (size_t i = 1; i < 5 && i < n_in; i++)
        if (in[i] && onnx_numel(&in[i]->s) != (uint64_t)x->s.d[1])
            return onnx_nerr(c, "input '%s' has %llu elements, expected the %lld channels of X",
                             in[i]->name, (unsigned long long)onnx_numel(&in[i]->s),
                             (long long)x->s.d[1]);
    if (onnx_vu_op(c, in, n_in, &x->s, d->ops, 1, 1, 0))
        return -1;
    shape ch = {1, {x->s.d[1]}};
    if (onnx_def_out(c, 0, &x->s, NULL))
        return -1;
    c->node_epi = 0; /* training-mode running statistics */
    return onnx_def_out(c, 1, &ch, NULL) || onnx_def_out(c, 2, &ch, NULL) ? -1 : 0;
}

int onnx_h_layernorm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in;
    const tensor *x = in[0];
    uint32_t ax;
    if (onnx_axis_of(c, onnx_attr_int(c, "axis", -1), x->s.rank, "axis", &ax))
        return -1;
    /* the mean and variance reduce across lanes (the last axis normalized) */
    if (onnx_vu_op(c, in, 1, &x->s, d->ops, 1, 0, 2))
        return -1;
    shape st = x->s;
    for (uint32_t i = ax; i < st.rank; i++)
        st.d[i] = 1;
    if (onnx_def_out(c, 0, &x->s, NULL))
        return -1;
    return onnx_def_out(c, 1, &st, NULL) || onnx_def_out(c, 2, &st, NULL) ? -1 : 0;
}

/* ------------------------------------------------------ matmul-like nodes */

/* Reads the spatial attributes of Conv / ConvTranspose / pools for `ns`
 * spatial dims: kernel, strides, dilations, pads (begin, end). */
typedef struct window {
    int64_t k[MAX_RANK], s[MAX_RANK], dil[MAX_RANK], pb[MAX_RANK], pe[MAX_RANK];
    char auto_pad[16];
} window;

static int read_window(ctx *c, uint32_t ns, const int64_t *kernel_from, window *w)
{
    size_t n;
    const int64_t *k = onnx_attr_ints(c, "kernel_shape", &n);
    if (!k && kernel_from)
        k = kernel_from, n = ns;
    if (!k)
        return onnx_nerr(c, "attribute kernel_shape is required");
    if (n != ns)
        return onnx_nerr(c, "kernel_shape has %zu dims, expected %u", n, ns);
    size_t ns_, nd, np;
    const int64_t *s = onnx_attr_ints(c, "strides", &ns_);
    const int64_t *dl = onnx_attr_ints(c, "dilations", &nd);
    const int64_t *p = onnx_attr_ints(c, "pads", &np);
    if ((s && ns_ != ns) || (dl && nd != ns) || (p && np != 2 * (size_t)ns))
        return onnx_nerr(c, "strides/dilations/pads do not match %u spatial dims", ns);
    for (uint32_t i = 0; i < ns; i++) {
        w->k[i] = k[i];
        w->s[i] = s ? s[i] : 1;
        w->dil[i] = dl ? dl[i] : 1;
        w->pb[i] = p ? p[i] : 0;
        w->pe[i] = p ? p[i + ns] : 0;
        if (w->k[i] < 1 || w->s[i] < 1 || w->dil[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 ||
            w->k[i] > MAX_WINDOW || w->s[i] > MAX_WINDOW || w->dil[i] > MAX_WINDOW ||
            w->pb[i] > MAX_ELEMS || w->pe[i] > MAX_ELEMS)
            return onnx_nerr(c, "kernel, strides and dilations must be in [1, 2^24] and pads in "
                                "[0, 2^50]");
    }
    onnx_attr_str(c, "auto_pad", w->auto_pad, sizeof w->auto_pad, "NOTSET");
    if (strcmp(w->auto_pad, "NOTSET") && strcmp(w->auto_pad, "VALID") &&
        strcmp(w->auto_pad, "SAME_UPPER") && strcmp(w->auto_pad, "SAME_LOWER"))
        return onnx_nerr(c, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                         w->auto_pad);
    return 0;
}

/* Output size of a sliding window over `in` (Conv and pools). */
static int window_out(ctx *c, const window *w, uint32_t i, int64_t in, int ceil_mode,
                      int64_t *out)
{
    int64_t dk = (w->k[i] - 1) * w->dil[i] + 1;
    if (!strcmp(w->auto_pad, "SAME_UPPER") || !strcmp(w->auto_pad, "SAME_LOWER")) {
        *out = (in + w->s[i] - 1) / w->s[i];
        return 0;
    }
    int64_t span = in + (strcmp(w->auto_pad, "VALID") ? w->pb[i] + w->pe[i] : 0) - dk;
    if (span < 0)
        return onnx_nerr(c, "window of %lld is larger than the padded input (%lld) in spatial "
                            "dim %u", (long long)dk, (long long)(span + dk), i);
    *out = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
    if (ceil_mode && (*out - 1) * w->s[i] >= in + w->pb[i])
        (*out)--; /* the last window must start inside the input or left pad */
    return 0;
}

/* Conv and ConvTranspose: X (N, C, spatial...) and W of the same rank, the
 * window attributes; *ns gets the number of spatial dims. */
static int conv_inputs(ctx *c, tensor **in, uint32_t *ns, window *w)
{
    *ns = in[0]->s.rank - 2;
    if (in[1]->s.rank != in[0]->s.rank)
        return onnx_nerr(c, "W has rank %u, X rank %u", in[1]->s.rank, in[0]->s.rank);
    return read_window(c, *ns, in[1]->s.d + 2, w);
}

int onnx_h_conv(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    uint32_t ns;
    window w;
    if (conv_inputs(c, in, &ns, &w))
        return -1;
    const tensor *x = in[0], *wt = in[1];
    int64_t g = onnx_attr_int(c, "group", 1), C = x->s.d[1], F = wt->s.d[0];
    if (g < 1 || g > MAX_WINDOW || C % g || F % g || wt->s.d[1] * g != C)
        return onnx_nerr(c, "group %lld does not divide X's %lld channels into W's %lld per group "
                            "(and %lld filters)", (long long)g, (long long)C,
                         (long long)wt->s.d[1], (long long)F);
    for (uint32_t i = 0; i < ns; i++)
        if (w.k[i] != wt->s.d[2 + i])
            return onnx_nerr(c, "kernel_shape does not match W");
    shape y = {x->s.rank, {x->s.d[0], F}};
    for (uint32_t i = 0; i < ns; i++)
        if (window_out(c, &w, i, x->s.d[2 + i], 0, &y.d[2 + i]))
            return -1;
    if (onnx_check_shape(&y))
        return onnx_def_out(c, 0, &y, NULL);
    uint64_t N = (uint64_t)x->s.d[0], opix = onnx_prod(y.d, 2, y.rank);
    uint64_t kern = onnx_prod(w.k, 0, ns);
    int plain = ns == 2 && g == 1 && !strcmp(w.auto_pad, "NOTSET") && w.s[0] == w.s[1];
    for (uint32_t i = 0; i < ns; i++)
        plain = plain && w.dil[i] == 1 && w.pb[i] == w.pb[0] && w.pe[i] == w.pb[0];
    if (c->all_const) {
        /* folded */
    } else if (plain && onnx_numel(&y)) {
        if (onnx_emitted(c, v10_model_conv(c->m, c->opname, N, (uint64_t)x->s.d[2],
                                           (uint64_t)x->s.d[3], (uint64_t)C, (uint64_t)F,
                                           (uint64_t)w.k[0], (uint64_t)w.k[1], (uint64_t)w.s[0],
                                           (uint64_t)w.pb[0], c->err)))
            return -1;
        onnx_sa_emitted(c, onnx_numel(&y));
    } else if (g > 1 && g == C && F == C) {
        /* Depthwise: a VU stencil, one FMA per tap, the window's rows loaded
         * once each, as the zoo does. */
        uint64_t reads;
        if (onnx_prod_attr(c, w.s, ns, "strides", &reads) ||
            onnx_emit_vec(c, onnx_numel(&y), &y, kern, (uint32_t)reads, (uint32_t)w.k[0], 0,
                          V10_FUSE_VU))
            return -1;
    } else {
        /* Lowered to `g` GEMMs: M = batch x output pixels, K = taps x C/g. */
        if (onnx_emit_gemm(c, (uint64_t)g, N * opix, (uint64_t)(F / g), kern * (uint64_t)(C / g),
                           g == 1))
            return -1;
    }
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_conv_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    uint32_t ns;
    window w;
    if (conv_inputs(c, in, &ns, &w))
        return -1;
    const tensor *x = in[0], *wt = in[1];
    int64_t g = onnx_attr_int(c, "group", 1), C = x->s.d[1];
    if (g < 1 || g > MAX_WINDOW || wt->s.d[0] != C || C % g)
        return onnx_nerr(c, "W's first dim %lld must equal X's %lld channels, divisible by group "
                            "%lld", (long long)wt->s.d[0], (long long)C, (long long)g);
    int64_t F = wt->s.d[1] * g;
    if (F > MAX_ELEMS)
        return onnx_nerr(c, "%lld output channels", (long long)F);
    size_t nop, nos;
    const int64_t *op = onnx_attr_ints(c, "output_padding", &nop);
    const int64_t *os = onnx_attr_ints(c, "output_shape", &nos);
    if ((op && nop != ns) || (os && nos != ns && nos != x->s.rank))
        return onnx_nerr(c, "output_padding/output_shape do not match %u spatial dims", ns);
    shape y = {x->s.rank, {x->s.d[0], F}};
    for (uint32_t i = 0; i < ns; i++) {
        int64_t dk = (w.k[i] - 1) * w.dil[i] + 1, in_i = x->s.d[2 + i];
        if (os)
            y.d[2 + i] = os[i + nos - ns];
        else if (in_i > MAX_WINDOW || (op && (op[i] < 0 || op[i] > MAX_WINDOW)))
            return onnx_nerr(c, "input size or output_padding over 2^24 in spatial dim %u", i);
        else if (!strcmp(w.auto_pad, "SAME_UPPER") || !strcmp(w.auto_pad, "SAME_LOWER"))
            y.d[2 + i] = in_i * w.s[i];
        else
            y.d[2 + i] = w.s[i] * (in_i - 1) + (op ? op[i] : 0) + dk -
                         (strcmp(w.auto_pad, "VALID") ? w.pb[i] + w.pe[i] : 0);
        if (y.d[2 + i] < 0)
            return onnx_nerr(c, "negative output size in spatial dim %u", i);
    }
    if (onnx_check_shape(&y))
        return onnx_def_out(c, 0, &y, NULL);
    /* Every input pixel emits a kernel patch: M = batch x input pixels,
     * N = taps x F/g, K = C/g (as the zoo's Mask R-CNN deconv). */
    uint64_t taps, patch;
    if (onnx_prod_attr(c, w.k, ns, "kernel_shape", &taps) ||
        (v10_mul_u64(taps, (uint64_t)(F / g), &patch) &&
         onnx_nerr(c, "kernel taps times output channels overflow 64 bits")))
        return -1;
    if (!c->all_const &&
        onnx_emit_gemm(c, (uint64_t)g, (uint64_t)x->s.d[0] * onnx_prod(x->s.d, 2, x->s.rank),
                       patch, (uint64_t)(C / g), g == 1))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_gemm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *a = in[0], *b = in[1];
    int ta = onnx_attr_int(c, "transA", 0) != 0, tb = onnx_attr_int(c, "transB", 0) != 0;
    int64_t M = a->s.d[ta], K = a->s.d[!ta], K2 = b->s.d[tb], N = b->s.d[!tb];
    if (K != K2)
        return onnx_nerr(c, "inner dimensions differ: A gives K=%lld, B gives K=%lld",
                         (long long)K, (long long)K2);
    shape y = {2, {M, N}};
    if (n_in > 2 && in[2]) {
        shape t;
        if (onnx_broadcast(c, &in[2]->s, &y, &t))
            return -1;
        if (t.d[0] != M || t.d[1] != N)
            return onnx_nerr(c, "C does not broadcast to [%lld,%lld]", (long long)M, (long long)N);
    }
    if (!c->all_const && onnx_emit_gemm(c, 1, (uint64_t)M, (uint64_t)N, (uint64_t)K, 1))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_matmul(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *a = in[0], *b = in[1];
    /* 1-D operands are promoted, then the added dim removed (numpy). */
    shape A = a->s, B = b->s;
    if (A.rank == 1)
        A = (shape){2, {1, a->s.d[0]}};
    if (B.rank == 1)
        B = (shape){2, {b->s.d[0], 1}};
    int64_t M = A.d[A.rank - 2], K = A.d[A.rank - 1], K2 = B.d[B.rank - 2], N = B.d[B.rank - 1];
    if (K != K2)
        return onnx_nerr(c, "inner dimensions differ: A gives K=%lld, B gives K=%lld",
                         (long long)K, (long long)K2);
    shape ba = {A.rank - 2, {0}}, bb = {B.rank - 2, {0}}, batch;
    memcpy(ba.d, A.d, ba.rank * sizeof *ba.d);
    memcpy(bb.d, B.d, bb.rank * sizeof *bb.d);
    if (onnx_broadcast(c, &ba, &bb, &batch))
        return -1;
    shape y = batch;
    if (a->s.rank > 1)
        y.d[y.rank++] = M;
    if (b->s.rank > 1) {
        if (y.rank >= MAX_RANK)
            return onnx_nerr(c, "output rank over %d", MAX_RANK);
        y.d[y.rank++] = N;
    }
    if (onnx_check_shape(&y))
        return onnx_def_out(c, 0, &y, NULL);
    if (!c->all_const) {
        uint64_t nb = onnx_numel(&batch);
        int rc = bb.rank == 0 || onnx_numel(&bb) == 1
                     /* one weight matrix: the batch folds into M (fc on rows) */
                     ? onnx_emit_gemm(c, 1, nb * (uint64_t)M, (uint64_t)N, (uint64_t)K, 1)
                     /* batched products of activations (attention) */
                     : onnx_emit_gemm(c, nb, (uint64_t)M, (uint64_t)N, (uint64_t)K, 0);
        if (rc)
            return -1;
    }
    return onnx_def_out(c, 0, &y, NULL);
}

/* ------------------------------------------------------------ reductions */

int onnx_h_pool(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    uint32_t ns = x->s.rank - 2;
    window w;
    if (read_window(c, ns, NULL, &w))
        return -1;
    int ceil_mode = onnx_attr_int(c, "ceil_mode", 0) != 0;
    shape y = x->s;
    for (uint32_t i = 0; i < ns; i++)
        if (window_out(c, &w, i, x->s.d[2 + i], ceil_mode, &y.d[2 + i]))
            return -1;
    /* As the zoo's pool: k taps per output, reading stride^n outputs' worth. */
    uint64_t taps, reads;
    if (onnx_prod_attr(c, w.k, ns, "kernel_shape", &taps) ||
        onnx_prod_attr(c, w.s, ns, "strides", &reads))
        return -1;
    if (!onnx_check_shape(&y) && !c->all_const &&
        onnx_emit_vec(c, onnx_numel(&y), &y, taps, (uint32_t)reads, (uint32_t)taps, 0,
                      V10_FUSE_NONE))
        return -1;
    if (onnx_def_out(c, 0, &y, NULL))
        return -1;
    return onnx_def_out(c, 1, &y, NULL); /* MaxPool's Indices */
}

int onnx_h_global_pool(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    shape y = x->s;
    for (uint32_t i = 2; i < y.rank; i++)
        y.d[i] = 1;
    uint64_t area = onnx_prod(x->s.d, 2, x->s.rank);
    if (!c->all_const && onnx_emit_vec(c, onnx_numel(&y), &y, area, (uint32_t)area,
                                       (uint32_t)area, 0, V10_FUSE_NONE))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

/* ReduceX (axes, keepdims, noop_with_empty_axes), ArgMax/ArgMin (axis). */
int onnx_h_reduce(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    const tensor *x = in[0];
    int keep = onnx_attr_int(c, "keepdims", 1) != 0, reduce[MAX_RANK] = {0};
    const int64_t *axes;
    long na;
    int64_t one_axis;
    if (!strncmp(c->node->op_type, "Arg", 3)) {
        one_axis = onnx_attr_int(c, "axis", 0);
        axes = &one_axis;
        na = 1;
    } else if (onnx_axes_of(c, in, n_in, 1, "axes", &axes, &na)) {
        return -1;
    }
    if (na <= 0 && onnx_attr_int(c, "noop_with_empty_axes", 0)) {
        if (onnx_vu_op(c, in, 1, &x->s, 1, 0, 0, 0))
            return -1;
        return onnx_def_out(c, 0, &x->s, NULL);
    }
    for (uint32_t i = 0; i < x->s.rank; i++)
        reduce[i] = na <= 0;
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (onnx_axis_of(c, axes[i], x->s.rank, "axis", &a))
            return -1;
        reduce[a] = 1;
    }
    shape y = {0, {0}};
    uint64_t rs = 1;
    for (uint32_t i = 0; i < x->s.rank; i++) {
        if (reduce[i])
            rs *= (uint64_t)x->s.d[i];
        if (!reduce[i] || keep)
            y.d[y.rank++] = reduce[i] ? 1 : x->s.d[i];
    }
    /* As the zoo's global pool: rs ops per output, reading rs inputs each;
     * across lanes when the last axis is reduced. */
    if (!c->all_const &&
        onnx_emit_vec(c, onnx_numel(&y), &y, rs * d->ops, (uint32_t)rs, (uint32_t)rs,
                      reduce[x->s.rank - 1] ? 1 : 0, V10_FUSE_NONE))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

