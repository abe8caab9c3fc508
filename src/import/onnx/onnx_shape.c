/*
 * onnx_shape.c — the ONNX importer's per-node machinery (onnx_impl.h):
 * errors naming the node, shapes and broadcasting, the tensor table,
 * attributes and input checks, TensorProto values, and emitting operators
 * through the builders of v10/model.h with the SA epilogue fusion.
 */
#include "import/onnx/onnx_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vu_ops.h"
#include "util/checked.h"
#include "util/text.h"

/* ---------------------------------------------------------------- errors */

const char *onnx_node_name(const ctx *c)
{
    return c->node && c->node->name && c->node->name[0] ? c->node->name : NULL;
}

/* "PATH: node 'NAME' (OP): message"; returns -1. */
int onnx_nerr(ctx *c, const char *fmt, ...)
              {
              char msg[V10_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->node)
        return v10_err_set(c->err, "%s: %s", c->path, msg);
    const char *nm = onnx_node_name(c);
    if (nm)
        return v10_err_set(c->err, "%s: node '%s' (%s): %s", c->path, nm, c->node->op_type, msg);
    return v10_err_set(c->err, "%s: node #%zu (%s): %s", c->path, c->node_idx, c->node->op_type,
                       msg);
}

void onnx_fmt_shape(const shape *s, char *buf, size_t sz)
{
    size_t l = (size_t)snprintf(buf, sz, "[");
    for (uint32_t i = 0; i < s->rank && l < sz; i++)
        l += (size_t)snprintf(buf + l, sz - l, "%s%lld", i ? "," : "", (long long)s->d[i]);
    if (l < sz)
        snprintf(buf + l, sz - l, "]");
}

/* ---------------------------------------------------------------- shapes */

/* The element count of a shape onnx_check_shape accepted (at most 2^50:
 * the product cannot wrap). */
uint64_t onnx_numel(const shape *s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n *= (uint64_t)s->d[i]; /* bounded by check_shape */
    return n;
}

/* Validates dims (>= 0, element count <= MAX_ELEMS). */
int onnx_check_shape(const shape *s)
{
    uint64_t n = 1;
    int zero = 0;
    for (uint32_t i = 0; i < s->rank; i++) {
        if (s->d[i] < 0 || s->d[i] > MAX_ELEMS)
            return -1;
        if (s->d[i] == 0)
            zero = 1;
        else if (v10_mul_u64(n, (uint64_t)s->d[i], &n) || n > (uint64_t)MAX_ELEMS)
            return -1;
    }
    (void)zero;
    return 0;
}

uint64_t onnx_prod(const int64_t *d, size_t lo, size_t hi)
{
    uint64_t n = 1;
    for (size_t i = lo; i < hi; i++)
        n *= (uint64_t)d[i];
    return n;
}

int onnx_prod_attr(ctx *c, const int64_t *d, size_t n, const char *what, uint64_t *out)
{
    uint64_t p = 1;
    for (size_t i = 0; i < n; i++)
        if (d[i] < 0 || v10_mul_u64(p, (uint64_t)d[i], &p))
            return onnx_nerr(c, "the product of %s overflows 64 bits", what);
    *out = p;
    return 0;
}

/* Normalizes a possibly negative axis against rank r (ONNX convention). */
int onnx_axis_of(ctx *c, int64_t a, uint32_t r, const char *what, uint32_t *out)
{
    *out = 0;
    if (a < -(int64_t)r || a >= (int64_t)r)
        return onnx_nerr(c, "%s %lld out of range for rank %u", what, (long long)a, r);
    *out = (uint32_t)(a < 0 ? a + r : a);
    return 0;
}

/* Multidirectional (numpy) broadcasting of a and b into o. */
int onnx_broadcast(ctx *c, const shape *a, const shape *b, shape *out)
{
    shape r = {a->rank > b->rank ? a->rank : b->rank, {0}}, *o = &r;
    for (uint32_t i = 0; i < o->rank; i++) {
        int64_t x = i + a->rank >= o->rank ? a->d[i + a->rank - o->rank] : 1;
        int64_t y = i + b->rank >= o->rank ? b->d[i + b->rank - o->rank] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[96], sb[96];
            onnx_fmt_shape(a, sa, sizeof sa);
            onnx_fmt_shape(b, sb, sizeof sb);
            return onnx_nerr(c, "input shapes %s and %s do not broadcast", sa, sb);
        }
        o->d[i] = x == 1 ? y : x;
    }
    *out = r;
    return 0;
}

/* Index into a broadcast input for flat index `i` of output o. */
size_t onnx_bcast_index(size_t i, const shape *o, const shape *in)
{
    size_t idx = 0, stride = 1;
    for (uint32_t k = o->rank; k-- > 0;) {
        size_t coord = i % (size_t)o->d[k];
        i /= (size_t)o->d[k];
        if (k + in->rank >= o->rank) {
            uint32_t ik = k + in->rank - o->rank;
            if (in->d[ik] != 1)
                idx += coord * stride;
            stride *= (size_t)in->d[ik];
        }
    }
    return idx;
}

/* ----------------------------------------------------------- the table */

/* The slot of `name`, found or (create) claimed; NULL if absent. */
tensor *onnx_slot(ctx *c, const char *name, int create)
{
    for (size_t i = (size_t)v10_hash_str(name) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        tensor *t = &c->tab[i];
        if (!t->name) {
            if (!create)
                return NULL;
            t->name = name;
            return t;
        }
        if (!strcmp(t->name, name))
            return t;
    }
}

void onnx_table_free(ctx *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->tab[i].vals);
    free(c->tab);
}

int onnx_set_vals(ctx *c, tensor *t, const int64_t *vals)
{
    free(t->vals);
    t->vals = NULL;
    uint64_t n = onnx_numel(&t->s);
    if (!vals || n > MAX_VALS)
        return 0;
    t->vals = malloc((n ? n : 1) * sizeof *t->vals);
    if (!t->vals)
        return onnx_nerr(c, "out of memory");
    memcpy(t->vals, vals, n * sizeof *vals);
    return 0;
}

/* Defines output k of the current node with shape s (values optional). */
int onnx_def_out(ctx *c, size_t k, const shape *s, const int64_t *vals)
{
    if (k >= c->node->n_output || !c->node->output[k][0])
        return 0; /* optional output not requested */
    if (onnx_check_shape(s)) {
        char b[128];
        onnx_fmt_shape(s, b, sizeof b);
        return onnx_nerr(c, "output '%s': invalid shape %s (negative or over 2^50 elements)",
                         c->node->output[k], b);
    }
    tensor *t = onnx_slot(c, c->node->output[k], 1);
    if (t->defined && t->producer != c->node_idx + 1)
        return onnx_nerr(c, "output '%s' is already defined", t->name);
    t->defined = t->known = 1;
    t->s = *s;
    t->is_const = c->all_const;
    t->epi = c->node_epi;
    t->producer = c->node_idx + 1;
    t->why[0] = 0;
    return onnx_set_vals(c, t, vals);
}

/* ------------------------------------------------------------ attributes */

const Onnx__AttributeProto *onnx_attr(const ctx *c, const char *name)
{
    for (size_t i = 0; i < c->node->n_attribute; i++) {
        const Onnx__AttributeProto *a = c->node->attribute[i];
        if (a->name && !strcmp(a->name, name))
            return a;
    }
    return NULL;
}

int64_t onnx_attr_int(const ctx *c, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    return a && a->has_i ? a->i : def;
}

/* The ints of attribute `name` (NULL if absent); *n gets their count. */
const int64_t *onnx_attr_ints(const ctx *c, const char *name, size_t *n)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    *n = a ? a->n_ints : 0;
    return a && a->n_ints ? a->ints : NULL;
}

void onnx_attr_str(const ctx *c, const char *name, char *buf, size_t sz, const char *def)
{
    const Onnx__AttributeProto *a = onnx_attr(c, name);
    if (!a || !a->has_s) {
        snprintf(buf, sz, "%s", def);
        return;
    }
    size_t l = a->s.len < sz - 1 ? a->s.len : sz - 1;
    memcpy(buf, a->s.data, l);
    buf[l] = 0;
}

/* ---------------------------------------------------------------- inputs */

tensor *onnx_input(tensor **in, size_t n_in, size_t i)
{
    return i < n_in ? in[i] : NULL;
}

/* Requires input i to be present. */
int onnx_need(ctx *c, tensor **in, size_t n_in, size_t i, const char *what)
{
    if (!onnx_input(in, n_in, i))
        return onnx_nerr(c, "missing input %zu (%s)", i, what);
    return 0;
}

/* Requires the values of t (an integer constant the importer evaluated). */
int onnx_need_vals(ctx *c, const tensor *t, const char *what)
{
    if (!t->vals)
        return onnx_nerr(c, "%s (input '%s') must be an integer constant the importer can "
                            "evaluate (an initializer, Constant or shape arithmetic)",
                         what, t->name);
    return 0;
}

int onnx_need_rank(ctx *c, const tensor *t, uint32_t lo, uint32_t hi)
{
    if (t->s.rank < lo || t->s.rank > hi)
        return onnx_nerr(c, "input '%s' has rank %u, expected %u..%u", t->name, t->s.rank, lo, hi);
    return 0;
}

/* Axes from attribute `name` or else from input `idx`; *n = -1 if neither. */
int onnx_axes_of(ctx *c, tensor **in, size_t n_in, size_t idx, const char *name,
                 const int64_t **axes, long *n)
{
    size_t na;
    *axes = onnx_attr_ints(c, name, &na);
    *n = *axes ? (long)na : -1;
    tensor *t = onnx_input(in, n_in, idx);
    if (!*axes && t) {
        if (onnx_need_vals(c, t, name))
            return -1;
        *axes = t->vals;
        *n = (long)onnx_numel(&t->s);
    }
    return 0;
}

/* Reads the dims and integer values of a TensorProto. */
int onnx_tensor_proto(ctx *c, const Onnx__TensorProto *tp, const char *what, shape *s,
                      int64_t **vals)
{
    *vals = NULL;
    if (tp->n_dims > MAX_RANK)
        return onnx_nerr(c, "%s: rank %zu over %d", what, tp->n_dims, MAX_RANK);
    s->rank = (uint32_t)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++)
        s->d[i] = tp->dims[i];
    if (onnx_check_shape(s))
        return onnx_nerr(c, "%s: invalid dims (negative or over 2^50 elements)", what);
    uint64_t n = onnx_numel(s);
    int32_t dt = tp->has_data_type ? tp->data_type : 0;
    int is64 = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    int is32 = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    int small = dt == 2 || dt == 3 || dt == 4 || dt == 5 || dt == 9; /* int32_data */
    if (n > MAX_VALS || !(is64 || is32 || small))
        return 0;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return onnx_nerr(c, "out of memory");
    size_t w = is64 ? 8 : 4;
    if (tp->has_raw_data && (is64 || is32)) {
        if (tp->raw_data.len != n * w) {
            free(v);
            return onnx_nerr(c, "%s: raw_data has %zu bytes, expected %llu", what,
                             tp->raw_data.len, (unsigned long long)(n * w));
        }
        for (size_t i = 0; i < n; i++) { /* little-endian, per the ONNX spec */
            uint64_t x = 0;
            for (size_t b = 0; b < w; b++)
                x |= (uint64_t)tp->raw_data.data[i * w + b] << (8 * b);
            v[i] = is64 ? (int64_t)x : (int64_t)(int32_t)(uint32_t)x;
        }
    } else if (is64 && tp->n_int64_data == n) {
        memcpy(v, tp->int64_data, n * sizeof *v);
    } else if (!is64 && !tp->has_raw_data && tp->n_int32_data == n) {
        for (size_t i = 0; i < n; i++)
            v[i] = tp->int32_data[i];
    } else {
        free(v); /* stored elsewhere (external data): shape only */
        return 0;
    }
    *vals = v;
    return 0;
}

/* ------------------------------------------------------------- emitting */

int onnx_emitted(ctx *c, int rc)
{
    if (rc)
        return v10_err_prefix(c->err, "%s", c->path);
    return 0;
}

/* An SA op just emitted: its output opens a new epilogue. */
void onnx_sa_emitted(ctx *c, uint64_t out_elems)
{
    c->epi_gen++;
    c->epi_nops = c->m->n_ops;
    c->epi_elems = out_elems;
    c->node_epi = c->epi_gen;
}

int onnx_emit_gemm(ctx *c, uint64_t count, uint64_t M, uint64_t N, uint64_t K, int w_hbm)
{
    if (!count || !M || !N || !K)
        return 0; /* an empty product: no work */
    if (onnx_emitted(c, v10_model_gemm(c->m, c->opname, count, M, N, K, w_hbm, c->err)))
        return -1;
    onnx_sa_emitted(c, count * M * N);
    return 0;
}

/* The VU's view of a tensor's layout: an NCHW activation as XLA lays it
 * out on a TPU (features in the lanes, the width in the sublanes; the
 * batch in the sublanes once the spatial axes are pooled away, as the
 * zoo's global pool), any other the last two axes. */
static void vu_dims(const shape *s, uint64_t *minor, uint64_t *second)
{
    *minor = *second = 0;
    if (!s || !s->rank)
        return;
    if (s->rank == 4) {
        *minor = (uint64_t)s->d[1];
        *second = s->d[2] == 1 && s->d[3] == 1 ? (uint64_t)s->d[0] : (uint64_t)s->d[3];
    } else {
        *minor = (uint64_t)s->d[s->rank - 1];
        *second = s->rank > 1 ? (uint64_t)s->d[s->rank - 2] : 0;
    }
}

int onnx_emit_vec(ctx *c, uint64_t elems, const shape *out, uint64_t ops, uint32_t in_tensors,
                  uint32_t loads, uint32_t xlu, v10_fuse fuse)
{
    if (!elems || !ops)
        return 0;
    v10_vec_desc d = {.elems = elems, .ops = ops, .in_tensors = in_tensors, .loads = loads,
                      .xlu = xlu, .fuse = fuse};
    vu_dims(out, &d.minor, &d.second);
    return onnx_emitted(c, v10_model_vec(c->m, c->opname, &d, c->err));
}

/*
 * Fusion into the SA op (XLA style): an element-wise node whose non-constant
 * inputs all belong to the epilogue of the SA op emitted last (its output or
 * values computed from it by earlier folded nodes), with nothing emitted
 * since, and of the same size, is folded: bias adds, batchnorm, activations
 * and the GELU chain cost nothing extra.  Returns 1 if folded.
 */
int onnx_fold_epilogue(ctx *c, tensor **in, size_t n_in, uint64_t out_elems)
{
    if (!c->epi_gen || c->m->n_ops != c->epi_nops || out_elems != c->epi_elems)
        return 0;
    int any = 0;
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i] || in[i]->is_const)
            continue;
        if (in[i]->epi != c->epi_gen)
            return 0;
        any = 1;
    }
    if (any)
        c->node_epi = c->epi_gen;
    return any;
}

/* An element-wise node that adds one full-size tensor to the epilogue of
 * the SA op emitted last (a residual add): every other non-constant input
 * belongs to that epilogue.  Folds it into the SA op as XLA's output
 * fusion does (the zoo's V10_FUSE_SA) and returns 1; else 0. */
static int fold_residual(ctx *c, tensor **in, size_t n_in, const shape *out, uint64_t ops)
{
    uint64_t ne = onnx_numel(out);
    if (!c->epi_gen || c->m->n_ops != c->epi_nops || ne != c->epi_elems)
        return 0;
    size_t own = 0, foreign = 0;
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i] || in[i]->is_const)
            continue;
        if (in[i]->epi == c->epi_gen)
            own++;
        else if (onnx_numel(&in[i]->s) == ne)
            foreign++;
        else
            return 0;
    }
    if (own != 1 || foreign != 1 ||
        onnx_emit_vec(c, ne, out, ops, 2, 0, 0, V10_FUSE_SA))
        return 0;
    c->epi_nops = c->m->n_ops; /* still the SA op, which the add joined */
    c->node_epi = c->epi_gen;
    return 1;
}

/* A VU op over `out`: nothing if every input is constant; for element-wise
 * ops (`elementwise`), folded into the SA epilogue if possible (also a
 * residual add); else one (fusible) vector op reading the inputs of full
 * size. */
int onnx_vu_op(ctx *c, tensor **in, size_t n_in, const shape *out, uint64_t ops, int fusible,
               int elementwise, uint32_t xlu)
{
    uint64_t ne = onnx_numel(out);
    if (c->all_const || (elementwise && (onnx_fold_epilogue(c, in, n_in, ne) ||
                                         fold_residual(c, in, n_in, out, ops))))
        return 0;
    uint32_t full = 0;
    for (size_t i = 0; i < n_in; i++)
        if (in[i] && onnx_numel(&in[i]->s) == ne)
            full++;
    return onnx_emit_vec(c, ne, out, ops, full ? full : 1, 0, xlu,
                         fusible ? V10_FUSE_VU : V10_FUSE_NONE);
}

/* A data-movement op (copy/concat/slice...): one VU op over the output. */
int onnx_vu_copy(ctx *c, const shape *out, int transpose)
{
    if (c->all_const)
        return 0;
    return onnx_emit_vec(c, onnx_numel(out), out, OPS_ADD, 1, 0, transpose ? 1 : 0,
                         V10_FUSE_NONE);
}
