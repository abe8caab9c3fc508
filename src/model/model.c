/*
 * model.c — the operator IR's storage and builders (see v10/model.h); the
 * zoo and the importers build through these, and nothing here calls them
 * back (model specs are resolved in spec.c).
 *
 * Byte accounting: tensors are bf16 (2 bytes) and live in HBM between
 * operators, except inside a fused chain of element-wise VU ops, whose
 * intermediates stay in vector memory.
 */
#include "v10/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/hist.h"
#include "util/mem.h"
#include "util/text.h"
#include "v10/cost.h"

#define BYTES_PER_ELEM 2 /* bf16 */

const char *v10_fu_name(v10_fu_type fu)
{
    static const char *const names[V10_FU_TYPES] = {"SA", "VU", "ICI"};
    return (unsigned)fu < V10_FU_TYPES ? names[fu] : "?";
}

void v10_model_init(v10_model *m, const char *name, uint32_t batch)
{
    memset(m, 0, sizeof *m);
    v10_name_tail(m->name, sizeof m->name, name); /* safe for every writer; a path keeps its end */
    m->batch = batch;
}

void v10_model_fini(v10_model *m)
{
    if (!m->shared)
        free(m->ops);
    m->shared = 0;
    m->ops = NULL;
    m->origin = NULL;
    m->n_ops = m->cap_ops = 0;
    m->total_cycles = 0;
}

int v10_model_reserve(v10_model *m, size_t n, v10_err *err)
{
    V10_ASSERT(!m->shared);
    if (n <= m->cap_ops)
        return 0;
    v10_op *ops = n <= SIZE_MAX / sizeof *ops ? v10_realloc_big(m->ops, n * sizeof *ops) : NULL;
    if (!ops)
        return v10_err_set(err, "%s: out of memory", m->name);
    m->ops = ops;
    m->cap_ops = n;
    return 0;
}

/* The capacity after `cap` when full: double, but a block past 4 MiB goes
 * straight to V10_MEM_MAP_BYTES, a mapping of its own that later
 * doublings grow without a copy.  On the heap each doubling is a copy,
 * and the heap keeps the freed one resident (v10_mem_tune): 31 MB under
 * a 700,000-operator model (the zoo's RetinaNet) for the rest of the run. */
static size_t grown(size_t cap)
{
    size_t next = cap ? 2 * cap : 64, map = V10_MEM_MAP_BYTES / sizeof(v10_op) + 1;
    return next * sizeof(v10_op) > ((size_t)4 << 20) && next < map ? map : next;
}

int v10_model_push(v10_model *m, const v10_op *op, v10_err *err)
{
    if (m->n_ops == m->cap_ops && v10_model_reserve(m, grown(m->cap_ops), err))
        return -1;
    m->ops[m->n_ops] = *op;
    m->total_cycles = 0;
    v10_op *o = &m->ops[m->n_ops++];
    v10_name_escape(o->name, sizeof o->name, o->name); /* names from files: util/text.h */
    return 0;
}

int v10_model_copy(v10_model *dst, const v10_model *src, v10_err *err)
{
    v10_model_init(dst, src->name, src->batch);
    if (!src->n_ops)
        return 0;
    dst->ops = v10_malloc_big(src->n_ops * sizeof *dst->ops);
    if (!dst->ops)
        return v10_err_set(err, "%s: out of memory", src->name);
    memcpy(dst->ops, src->ops, src->n_ops * sizeof *dst->ops);
    dst->n_ops = dst->cap_ops = src->n_ops;
    dst->total_cycles = src->total_cycles;
    return 0;
}

int v10_model_len_stats(const v10_model *m, v10_len_stats out[V10_FU_TYPES], v10_err *err)
{
    v10_hist h[V10_FU_TYPES];
    memset(out, 0, V10_FU_TYPES * sizeof *out);
    for (int fu = 0; fu < V10_FU_TYPES; fu++)
        v10_hist_init(&h[fu]);
    for (size_t i = 0; i < m->n_ops; i++)
        if (v10_hist_add(&h[m->ops[i].fu], m->ops[i].cycles)) {
            for (int fu = 0; fu < V10_FU_TYPES; fu++)
                v10_hist_fini(&h[fu]);
            return v10_err_set(err, "%s: out of memory", m->name);
        }
    double sq[V10_FU_TYPES] = {0};
    for (int fu = 0; fu < V10_FU_TYPES; fu++)
        if (h[fu].n)
            out[fu].mean = h[fu].sum / (double)h[fu].n;
    /* Second pass around the mean: no cancellation for long, equal ops. */
    for (size_t i = 0; i < m->n_ops; i++) {
        double d = (double)m->ops[i].cycles - out[m->ops[i].fu].mean;
        sq[m->ops[i].fu] += d * d;
    }
    for (int fu = 0; fu < V10_FU_TYPES; fu++) {
        v10_len_stats *s = &out[fu];
        s->n = h[fu].n;
        if (s->n) {
            s->min = h[fu].min;
            s->max = h[fu].max;
            s->p50 = v10_hist_percentile(&h[fu], 50);
            s->p95 = v10_hist_percentile(&h[fu], 95);
            s->cv = s->mean > 0 ? sqrt(sq[fu] / (double)s->n) / s->mean : 0;
        }
        v10_hist_fini(&h[fu]);
    }
    return 0;
}

static void op_init(v10_op *op, const char *name, v10_fu_type fu, v10_op_kind kind)
{
    memset(op, 0, sizeof *op);
    memcpy(op->name, name, strnlen(name, sizeof op->name - 1)); /* cut to fit */
    op->fu = fu;
    op->kind = kind;
    op->count = 1;
}

static int overflow(v10_model *m, const char *name, v10_err *err)
{
    return v10_err_set(err, "%s: operator %s: size overflows 64 bits", m->name, name);
}

static uint64_t weight_bytes(const v10_model *m)
{
    return m->weight_bytes ? m->weight_bytes : BYTES_PER_ELEM;
}

int v10_model_gemm(v10_model *m, const char *name, uint64_t count, uint64_t M,
                   uint64_t N, uint64_t K, int weights_in_hbm, v10_err *err)
{
    if (!count || !M || !N || !K)
        return v10_err_set(err, "%s: operator %s: GEMM dimensions must be positive "
                                "(count=%llu M=%llu N=%llu K=%llu)", m->name, name,
                           (unsigned long long)count, (unsigned long long)M,
                           (unsigned long long)N, (unsigned long long)K);
    v10_op op;
    op_init(&op, name, V10_FU_SA, V10_OP_GEMM);
    op.count = count;
    op.m = M;
    op.n = N;
    op.k = K;
    uint64_t a, b, c, sum;
    if (V10_MUL(&a, count, M, K, BYTES_PER_ELEM) ||
        V10_MUL(&b, weights_in_hbm ? 1 : count, K, N,
                weights_in_hbm ? weight_bytes(m) : BYTES_PER_ELEM) ||
        V10_MUL(&c, count, M, N, BYTES_PER_ELEM) || v10_add_u64(a, b, &sum) ||
        v10_add_u64(sum, c, &op.hbm_bytes) || V10_MUL(&sum, count, M, N, K))
        return overflow(m, name, err);
    /* The smaller operand (per product) stays resident; the other streams. */
    op.vmem_bytes = a < b ? a / count : (weights_in_hbm ? b : b / count);
    op.restream_bytes = a < b ? b : a;
    return v10_model_push(m, &op, err);
}

int v10_model_conv(v10_model *m, const char *name, uint64_t batch, uint64_t h,
                   uint64_t w, uint64_t c, uint64_t filters, uint64_t kh,
                   uint64_t kw, uint64_t stride, uint64_t pad, v10_err *err)
{
    if (!batch || !h || !w || !c || !filters || !kh || !kw || !stride)
        return v10_err_set(err, "%s: operator %s: convolution dimensions must be positive",
                           m->name, name);
    if (h > UINT32_MAX || w > UINT32_MAX || pad > UINT32_MAX)
        return overflow(m, name, err);
    if (h + 2 * pad < kh || w + 2 * pad < kw)
        return v10_err_set(err, "%s: operator %s: %llux%llu filter larger than the padded "
                                "%llux%llu input", m->name, name, (unsigned long long)kh,
                           (unsigned long long)kw, (unsigned long long)(h + 2 * pad),
                           (unsigned long long)(w + 2 * pad));
    uint64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
    uint64_t M, K, in;
    if (V10_MUL(&M, batch, oh, ow) || V10_MUL(&K, kh, kw, c) ||
        V10_MUL(&in, batch, h, w, c, BYTES_PER_ELEM))
        return overflow(m, name, err);
    return v10_model_lowered_conv(m, name, M, filters, K, in / BYTES_PER_ELEM, err);
}

int v10_model_lowered_conv(v10_model *m, const char *name, uint64_t M, uint64_t N, uint64_t K,
                           uint64_t in_elems, v10_err *err)
{
    uint64_t in;
    if (V10_MUL(&in, in_elems, BYTES_PER_ELEM))
        return overflow(m, name, err);
    if (v10_model_gemm(m, name, 1, M, N, K, 1, err))
        return -1;
    /* The lowered GEMM reads the input once per pixel, not im2col's K-fold copy. */
    v10_op *op = &m->ops[m->n_ops - 1];
    uint64_t wts, out, sum;
    if (V10_MUL(&wts, K, N, weight_bytes(m)) || V10_MUL(&out, M, N, BYTES_PER_ELEM) ||
        v10_add_u64(in, wts, &sum) || v10_add_u64(sum, out, &op->hbm_bytes)) {
        m->n_ops--; /* take the half-built operator back */
        m->total_cycles = 0;
        return overflow(m, name, err);
    }
    op->vmem_bytes = in < wts ? in : wts;
    op->restream_bytes = in < wts ? wts : in;
    return 0;
}

/* Narrows a dimension to the op's 32-bit fields; a tensor dimension past
 * 2^32 keeps only its padding figure, which is then dense anyway. */
static uint32_t dim32(uint64_t d) { return d > UINT32_MAX ? 0 : (uint32_t)d; }

/* Folds an element-wise op into the SA op before it (XLA's output fusion):
 * its ALU work joins the epilogue, its other inputs are read there. */
static int fuse_into_sa(v10_model *m, v10_op *prev, const char *name, const v10_vec_desc *d,
                        v10_err *err)
{
    uint64_t extra = 0, in = d->in_tensors ? d->in_tensors - 1 : 0;
    if (V10_MUL(&extra, in, d->elems, BYTES_PER_ELEM) ||
        v10_add_u64(prev->ops_per_elem, d->ops, &prev->ops_per_elem) ||
        v10_add_u64(prev->hbm_bytes, extra, &prev->hbm_bytes) ||
        prev->loads > UINT32_MAX - in)
        return overflow(m, name, err);
    prev->loads += (uint32_t)in;
    return 0;
}

static uint64_t gemm_out_elems(const v10_op *op)
{
    uint64_t e;
    return V10_MUL(&e, op->count, op->m, op->n) ? 0 : e;
}

int v10_model_vec(v10_model *m, const char *name, const v10_vec_desc *d, v10_err *err)
{
    if (!d->elems || !d->ops)
        return v10_err_set(err, "%s: operator %s: vector op needs elements and ops",
                           m->name, name);
    uint32_t loads = d->loads ? d->loads : d->in_tensors;
    uint64_t bytes, ops;
    if (V10_MUL(&bytes, d->elems, (uint64_t)d->in_tensors + 1, BYTES_PER_ELEM) ||
        V10_MUL(&ops, d->elems, d->ops))
        return overflow(m, name, err);
    v10_op *prev = m->n_ops ? &m->ops[m->n_ops - 1] : NULL;
    if (d->fuse == V10_FUSE_SA && prev && prev->kind == V10_OP_GEMM &&
        gemm_out_elems(prev) == d->elems && !d->xlu)
        return fuse_into_sa(m, prev, name, d, err);
    if (d->fuse != V10_FUSE_NONE && prev && prev->fusible && prev->kind == V10_OP_VECTOR &&
        prev->elems == d->elems) {
        /* Fuse: the chained input stays in vector memory; extra inputs and
         * the per-element work add up; the output replaces the previous one. */
        uint64_t extra = 0, in = d->in_tensors ? d->in_tensors - 1 : 0;
        uint64_t more = loads ? loads - 1 : 0;
        if (V10_MUL(&extra, in, d->elems, BYTES_PER_ELEM) ||
            v10_add_u64(prev->ops_per_elem, d->ops, &prev->ops_per_elem) ||
            v10_add_u64(prev->hbm_bytes, extra, &prev->hbm_bytes) ||
            prev->loads > UINT32_MAX - more || prev->xlu > UINT32_MAX - d->xlu)
            return overflow(m, name, err);
        prev->loads += (uint32_t)more;
        prev->xlu += d->xlu;
        size_t l = strlen(prev->name);
        if (l + 2 < sizeof prev->name)
            snprintf(prev->name + l, sizeof prev->name - l, "+%s", name);
        v10_name_escape(prev->name, sizeof prev->name, prev->name);
        return 0;
    }
    v10_op op;
    op_init(&op, name, V10_FU_VU, V10_OP_VECTOR);
    op.elems = d->elems;
    op.ops_per_elem = d->ops;
    op.minor = dim32(d->minor);
    op.second = dim32(d->second);
    op.loads = loads;
    op.xlu = d->xlu;
    op.hbm_bytes = bytes; /* streaming: nothing stays resident */
    op.fusible = d->fuse != V10_FUSE_NONE;
    return v10_model_push(m, &op, err);
}

int v10_model_vector(v10_model *m, const char *name, uint64_t elems,
                     uint64_t ops_per_elem, uint64_t in_tensors, int fusible,
                     v10_err *err)
{
    if (in_tensors > UINT32_MAX)
        return overflow(m, name, err);
    v10_vec_desc d = {.elems = elems, .ops = ops_per_elem, .in_tensors = (uint32_t)in_tensors,
                      .fuse = fusible ? V10_FUSE_VU : V10_FUSE_NONE};
    return v10_model_vec(m, name, &d, err);
}

int v10_model_gather_slab(v10_model *m, const char *name, uint64_t rows, uint64_t second,
                          uint64_t minor, v10_err *err)
{
    if (!rows || !second || !minor)
        return v10_err_set(err, "%s: operator %s: gather needs rows and a dimension",
                           m->name, name);
    v10_op op;
    op_init(&op, name, V10_FU_VU, V10_OP_GATHER);
    /* The rows as they are written out; the cost model adds what the
     * DMAs read (whole tiles of the table). */
    if (V10_MUL(&op.elems, rows, second, minor) ||
        V10_MUL(&op.hbm_bytes, op.elems, BYTES_PER_ELEM))
        return overflow(m, name, err);
    op.rows = rows;
    op.second = dim32(second);
    op.minor = dim32(minor);
    op.ops_per_elem = 1;
    return v10_model_push(m, &op, err);
}

int v10_model_gather(v10_model *m, const char *name, uint64_t rows, uint64_t dim,
                     v10_err *err)
{
    return v10_model_gather_slab(m, name, rows, 1, dim, err);
}

/* Keys and indices are 32-bit words (f32 scores, s32 indices). */
#define SORT_WORD_BYTES 4

int v10_model_sort(v10_model *m, const char *name, uint64_t count, uint64_t n,
                   uint64_t topk, int payload, v10_err *err)
{
    if (!count || !n)
        return v10_err_set(err, "%s: operator %s: sort needs keys", m->name, name);
    if (topk > UINT32_MAX)
        return overflow(m, name, err);
    v10_op op;
    op_init(&op, name, V10_FU_VU, V10_OP_SORT);
    uint64_t kept = topk && topk < n ? topk : n, in, out, words = payload ? 2 : 1;
    op.count = count;
    op.topk = (uint32_t)(topk < n ? topk : 0);
    op.payload = payload != 0;
    op.ops_per_elem = 1;
    /* The keys are read once and the kept keys (and indices) written. */
    if (V10_MUL(&op.elems, count, n) || V10_MUL(&in, op.elems, SORT_WORD_BYTES) ||
        V10_MUL(&out, count, kept, words, SORT_WORD_BYTES) ||
        v10_add_u64(in, out, &op.hbm_bytes))
        return overflow(m, name, err);
    return v10_model_push(m, &op, err);
}

int v10_model_collective(v10_model *m, const char *name, v10_op_kind kind, uint64_t bytes,
                         uint32_t chips, v10_err *err)
{
    if (kind != V10_OP_ALLREDUCE && kind != V10_OP_ALLGATHER && kind != V10_OP_SEND)
        return v10_err_set(err, "%s: operator %s: a collective is an all-reduce, an "
                                "all-gather or a send", m->name, name);
    v10_op op;
    op_init(&op, name, V10_FU_ICI, kind);
    op.elems = bytes;
    op.chips = kind == V10_OP_SEND ? 0 : chips;
    return v10_model_push(m, &op, err);
}

/* Declared in v10/cost.h (the model's costs on an NPU); here, above the
 * cost model, since it copies and frees models. */
int v10_cost_map_alone(const v10_npu *npu, v10_model *m, v10_err *err)
{
    if (npu->op_mapping == V10_MAP_ONE)
        return 0;
    if (m->shared) { /* the cache's operators are read-only */
        v10_model own;
        if (v10_model_copy(&own, m, err)) {
            v10_model_fini(m);
            return -1;
        }
        v10_model_fini(m);
        *m = own;
    }
    if (v10_cost_map_model(npu, m, err)) {
        v10_model_fini(m);
        return -1;
    }
    return 0;
}
