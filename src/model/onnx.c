/*
 * onnx.c — ONNX import (v10/onnx.h, docs/onnx.md): protobuf-c parses the
 * ModelProto; shapes are inferred node by node in graph order; matmul-like
 * nodes become SA operators, the rest VU operators, through the builders of
 * v10/model.h, fused the way the zoo fuses (an SA op absorbs its bias,
 * batchnorm and activation; element-wise chains fuse in the VU builder).
 */
#include "v10/onnx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnx/onnx.pb-c.h>

#include "model/vu_ops.h"
#include "util/checked.h"
#include "util/file.h"

#define MAX_RANK V10_ONNX_MAX_RANK
#define MAX_VALS 4096           /* integer constants evaluated at import time */
#define MAX_ELEMS (INT64_C(1) << 50) /* largest tensor accepted, elements */
#define MAX_FILE_BYTES ((size_t)1 << 31)
#define MAX_WINDOW (INT64_C(1) << 24) /* kernel, stride, dilation, group bound */

/* VU costs of ONNX element-wise ops not in the zoo (vu_ops.h for the rest). */
#define OPS_DIV   (OPS_RECIP + 1)      /* reciprocal, multiply */
#define OPS_SQRT  (OPS_RECIP + 1)      /* rsqrt seed + Newton, multiply */
#define OPS_TANH  (OPS_SIGMOID + 2)    /* 2 * sigmoid(2x) - 1 */
#define OPS_ERF   (OPS_EXP + 4)        /* exp(-x^2) times a short rational */
#define OPS_GELU  (OPS_TANH + 4)       /* 0.5x(1 + tanh(c(x + 0.044715x^3))) */
#define OPS_POW   (2 * OPS_EXP + 1)    /* exp(y log x) */

/* A tensor shape: rank dims, each >= 0; the element count fits MAX_ELEMS. */
typedef struct shape {
    uint32_t rank;
    int64_t d[MAX_RANK];
} shape;

/*
 * One named value of the graph, in an open-addressing table keyed by name.
 * `defined` once a graph input, initializer or node produced it; `known` if
 * its shape is (only unknown_vu mode and symbolic graph inputs leave it 0,
 * with `why`).  `is_const`: computed from initializers/constants only (no
 * operator is emitted for it); `vals` holds its integer values when the
 * importer evaluated them (shape arithmetic).  `epi` is the SA epilogue
 * generation it belongs to (see fold_epilogue), 0 for none.
 */
typedef struct tensor {
    const char *name; /* borrowed from the ModelProto; NULL: empty slot */
    int defined, known, is_const;
    shape s;
    int64_t *vals;    /* owned; numel(s) entries, or NULL */
    unsigned epi;
    size_t producer;  /* node index + 1; 0 for graph inputs and initializers */
    const Onnx__ValueInfoProto *declared; /* value_info / graph output entry */
    char why[160];    /* unknown: why */
} tensor;

typedef struct ctx {
    const char *path;
    const v10_onnx_opts *opts;
    v10_model *m;
    v10_err *err;
    tensor *tab;
    size_t cap;                   /* power of two */
    const Onnx__NodeProto *node;  /* the node being imported */
    size_t node_idx;
    char opname[V10_OPNAME_MAX];  /* its operator name */
    int all_const;                /* every present input is constant */
    unsigned node_epi;            /* epilogue generation stamped on its outputs */
    unsigned epi_gen;             /* current SA epilogue */
    size_t epi_nops;              /* n_ops right after that SA op */
    uint64_t epi_elems;           /* its output elements */
    size_t n_approx;
    char approx[V10_ERR_MAX];
} ctx;

typedef struct op_def op_def;
typedef int (*handler)(ctx *c, tensor **in, size_t n_in, const op_def *d);
struct op_def {
    const char *op;
    handler fn;
    uint64_t ops; /* VU ops per element, where it applies */
};

/* ---------------------------------------------------------------- errors */

static const char *node_name(const ctx *c)
{
    return c->node && c->node->name && c->node->name[0] ? c->node->name : NULL;
}

/* "PATH: node 'NAME' (OP): message"; returns -1. */
static int nerr(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int nerr(ctx *c, const char *fmt, ...)
{
    char msg[V10_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->node)
        return v10_err_set(c->err, "%s: %s", c->path, msg);
    const char *nm = node_name(c);
    if (nm)
        return v10_err_set(c->err, "%s: node '%s' (%s): %s", c->path, nm, c->node->op_type, msg);
    return v10_err_set(c->err, "%s: node #%zu (%s): %s", c->path, c->node_idx, c->node->op_type,
                       msg);
}

static void fmt_shape(const shape *s, char *buf, size_t sz)
{
    size_t l = (size_t)snprintf(buf, sz, "[");
    for (uint32_t i = 0; i < s->rank && l < sz; i++)
        l += (size_t)snprintf(buf + l, sz - l, "%s%lld", i ? "," : "", (long long)s->d[i]);
    if (l < sz)
        snprintf(buf + l, sz - l, "]");
}

/* ---------------------------------------------------------------- shapes */

static uint64_t numel(const shape *s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n *= (uint64_t)s->d[i]; /* bounded by check_shape */
    return n;
}

/* Validates dims (>= 0, element count <= MAX_ELEMS). */
static int check_shape(const shape *s)
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

static uint64_t prod(const int64_t *d, size_t lo, size_t hi)
{
    uint64_t n = 1;
    for (size_t i = lo; i < hi; i++)
        n *= (uint64_t)d[i];
    return n;
}

/* Normalizes a possibly negative axis against rank r (ONNX convention). */
static int axis_of(ctx *c, int64_t a, uint32_t r, const char *what, uint32_t *out)
{
    *out = 0;
    if (a < -(int64_t)r || a >= (int64_t)r)
        return nerr(c, "%s %lld out of range for rank %u", what, (long long)a, r);
    *out = (uint32_t)(a < 0 ? a + r : a);
    return 0;
}

/* Multidirectional (numpy) broadcasting of a and b into o. */
static int broadcast(ctx *c, const shape *a, const shape *b, shape *out)
{
    shape r = {a->rank > b->rank ? a->rank : b->rank, {0}}, *o = &r;
    for (uint32_t i = 0; i < o->rank; i++) {
        int64_t x = i + a->rank >= o->rank ? a->d[i + a->rank - o->rank] : 1;
        int64_t y = i + b->rank >= o->rank ? b->d[i + b->rank - o->rank] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[96], sb[96];
            fmt_shape(a, sa, sizeof sa);
            fmt_shape(b, sb, sizeof sb);
            return nerr(c, "input shapes %s and %s do not broadcast", sa, sb);
        }
        o->d[i] = x == 1 ? y : x;
    }
    *out = r;
    return 0;
}

/* Index into a broadcast input for flat index `i` of output o. */
static size_t bcast_index(size_t i, const shape *o, const shape *in)
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

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of `name`, found or (create) claimed; NULL if absent. */
static tensor *slot(ctx *c, const char *name, int create)
{
    for (size_t i = hash(name) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
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

static void table_free(ctx *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->tab[i].vals);
    free(c->tab);
}

static int set_vals(ctx *c, tensor *t, const int64_t *vals)
{
    free(t->vals);
    t->vals = NULL;
    uint64_t n = numel(&t->s);
    if (!vals || n > MAX_VALS)
        return 0;
    t->vals = malloc((n ? n : 1) * sizeof *t->vals);
    if (!t->vals)
        return nerr(c, "out of memory");
    memcpy(t->vals, vals, n * sizeof *vals);
    return 0;
}

/* Defines output k of the current node with shape s (values optional). */
static int def_out(ctx *c, size_t k, const shape *s, const int64_t *vals)
{
    if (k >= c->node->n_output || !c->node->output[k][0])
        return 0; /* optional output not requested */
    if (check_shape(s)) {
        char b[128];
        fmt_shape(s, b, sizeof b);
        return nerr(c, "output '%s': invalid shape %s (negative or over 2^50 elements)",
                    c->node->output[k], b);
    }
    tensor *t = slot(c, c->node->output[k], 1);
    if (t->defined && t->producer != c->node_idx + 1)
        return nerr(c, "output '%s' is already defined", t->name);
    t->defined = t->known = 1;
    t->s = *s;
    t->is_const = c->all_const;
    t->epi = c->node_epi;
    t->producer = c->node_idx + 1;
    t->why[0] = 0;
    return set_vals(c, t, vals);
}

/* ------------------------------------------------------------ attributes */

static const Onnx__AttributeProto *attr(const ctx *c, const char *name)
{
    for (size_t i = 0; i < c->node->n_attribute; i++) {
        const Onnx__AttributeProto *a = c->node->attribute[i];
        if (a->name && !strcmp(a->name, name))
            return a;
    }
    return NULL;
}

static int64_t attr_int(const ctx *c, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = attr(c, name);
    return a && a->has_i ? a->i : def;
}

/* The ints of attribute `name` (NULL if absent); *n gets their count. */
static const int64_t *attr_ints(const ctx *c, const char *name, size_t *n)
{
    const Onnx__AttributeProto *a = attr(c, name);
    *n = a ? a->n_ints : 0;
    return a && a->n_ints ? a->ints : NULL;
}

static void attr_str(const ctx *c, const char *name, char *buf, size_t sz, const char *def)
{
    const Onnx__AttributeProto *a = attr(c, name);
    if (!a || !a->has_s) {
        snprintf(buf, sz, "%s", def);
        return;
    }
    size_t l = a->s.len < sz - 1 ? a->s.len : sz - 1;
    memcpy(buf, a->s.data, l);
    buf[l] = 0;
}

/* ---------------------------------------------------------------- inputs */

static tensor *input(tensor **in, size_t n_in, size_t i)
{
    return i < n_in ? in[i] : NULL;
}

/* Requires input i to be present. */
static int need(ctx *c, tensor **in, size_t n_in, size_t i, const char *what)
{
    if (!input(in, n_in, i))
        return nerr(c, "missing input %zu (%s)", i, what);
    return 0;
}

/* Requires the values of t (an integer constant the importer evaluated). */
static int need_vals(ctx *c, const tensor *t, const char *what)
{
    if (!t->vals)
        return nerr(c, "%s (input '%s') must be an integer constant the importer can "
                       "evaluate (an initializer, Constant or shape arithmetic)", what, t->name);
    return 0;
}

static int need_rank(ctx *c, const tensor *t, uint32_t lo, uint32_t hi)
{
    if (t->s.rank < lo || t->s.rank > hi)
        return nerr(c, "input '%s' has rank %u, expected %u..%u", t->name, t->s.rank, lo, hi);
    return 0;
}

/* Axes from attribute `name` or else from input `idx`; *n = -1 if neither. */
static int axes_of(ctx *c, tensor **in, size_t n_in, size_t idx, const char *name,
                   const int64_t **axes, long *n)
{
    size_t na;
    *axes = attr_ints(c, name, &na);
    *n = *axes ? (long)na : -1;
    tensor *t = input(in, n_in, idx);
    if (!*axes && t) {
        if (need_vals(c, t, name))
            return -1;
        *axes = t->vals;
        *n = (long)numel(&t->s);
    }
    return 0;
}

/* ------------------------------------------------------------- emitting */

static int emitted(ctx *c, int rc)
{
    if (rc)
        return v10_err_prefix(c->err, "%s", c->path);
    return 0;
}

/* An SA op just emitted: its output opens a new epilogue. */
static void sa_emitted(ctx *c, uint64_t out_elems)
{
    c->epi_gen++;
    c->epi_nops = c->m->n_ops;
    c->epi_elems = out_elems;
    c->node_epi = c->epi_gen;
}

static int emit_gemm(ctx *c, uint64_t count, uint64_t M, uint64_t N, uint64_t K, int w_hbm)
{
    if (!count || !M || !N || !K)
        return 0; /* an empty product: no work */
    if (emitted(c, v10_model_gemm(c->m, c->opname, count, M, N, K, w_hbm, c->err)))
        return -1;
    sa_emitted(c, count * M * N);
    return 0;
}

static int emit_vec(ctx *c, uint64_t elems, uint64_t ops, uint64_t in_tensors, int fusible)
{
    if (!elems || !ops)
        return 0;
    return emitted(c, v10_model_vector(c->m, c->opname, elems, ops, in_tensors, fusible,
                                       c->err));
}

/*
 * Fusion into the SA op (XLA style): an element-wise node whose non-constant
 * inputs all belong to the epilogue of the SA op emitted last (its output or
 * values computed from it by earlier folded nodes), with nothing emitted
 * since, and of the same size, is folded: bias adds, batchnorm, activations
 * and the GELU chain cost nothing extra.  Returns 1 if folded.
 */
static int fold_epilogue(ctx *c, tensor **in, size_t n_in, uint64_t out_elems)
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

/* A VU op over `out`: nothing if every input is constant; for element-wise
 * ops (`elementwise`), folded into the SA epilogue if possible; else one
 * (fusible) vector op reading the inputs of full size. */
static int vu_op(ctx *c, tensor **in, size_t n_in, const shape *out, uint64_t ops, int fusible,
                 int elementwise)
{
    uint64_t ne = numel(out);
    if (c->all_const || (elementwise && fold_epilogue(c, in, n_in, ne)))
        return 0;
    uint64_t full = 0;
    for (size_t i = 0; i < n_in; i++)
        if (in[i] && numel(&in[i]->s) == ne)
            full++;
    return emit_vec(c, ne, ops, full ? full : 1, fusible);
}

/* A data-movement op (copy/concat/slice...): one VU op over the output. */
static int vu_copy(ctx *c, const shape *out)
{
    if (c->all_const)
        return 0;
    return emit_vec(c, numel(out), OPS_ADD, 1, 0);
}

/* --------------------------------------------------- element-wise nodes */

static int h_unary(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "X"))
        return -1;
    shape s = in[0]->s;
    if (vu_op(c, in, n_in, &s, d->ops, 1, 1))
        return -1;
    /* Neg and Abs of shape arithmetic (ONNX function expansions use them) */
    int neg = !strcmp(d->op, "Neg"), abs_ = !strcmp(d->op, "Abs");
    int64_t *vals = NULL;
    uint64_t n = numel(&s);
    if (in[0]->vals && (neg || abs_) && (vals = malloc((n ? n : 1) * sizeof *vals)))
        for (uint64_t i = 0; i < n; i++) {
            int64_t v = in[0]->vals[i];
            vals[i] = v == INT64_MIN ? v : (neg || v < 0) ? -v : v;
        }
    int rc = def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

/* Identity, Dropout (inference): the output is the input. */
static int h_alias(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "input"))
        return -1;
    c->node_epi = in[0]->epi;
    if (def_out(c, 0, &in[0]->s, in[0]->vals))
        return -1;
    c->node_epi = 0;
    return def_out(c, 1, &in[0]->s, NULL); /* Dropout's mask */
}

static int h_cast(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "input"))
        return -1;
    int64_t to = attr_int(c, "to", 0);
    int int_type = to == 2 || to == 3 || to == 4 || to == 5 || to == 6 || to == 7 ||
                   to == 9 || to == 12 || to == 13;
    if (vu_op(c, in, n_in, &in[0]->s, d->ops, 1, 1))
        return -1;
    return def_out(c, 0, &in[0]->s, int_type ? in[0]->vals : NULL);
}

/* Integer evaluation of a binary op on constants; 0 if not evaluated. */
static int eval_binary(const char *op, int64_t a, int64_t b, int64_t *r)
{
    if (!strcmp(op, "Add"))
        *r = (int64_t)((uint64_t)a + (uint64_t)b);
    else if (!strcmp(op, "Sub"))
        *r = (int64_t)((uint64_t)a - (uint64_t)b);
    else if (!strcmp(op, "Mul"))
        *r = (int64_t)((uint64_t)a * (uint64_t)b);
    else if (!strcmp(op, "Div") && b != 0 && !(a == INT64_MIN && b == -1))
        *r = a / b;
    else if (!strcmp(op, "Equal"))
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
static int h_broadcast(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    size_t n = 0;
    shape s = {0, {0}};
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i])
            continue;
        if (n == 0)
            s = in[i]->s;
        else if (broadcast(c, &s, &in[i]->s, &s))
            return -1;
        n++;
    }
    if (n == 0)
        return nerr(c, "no inputs");
    int64_t *vals = NULL;
    uint64_t ne = numel(&s);
    if (n_in == 2 && in[0] && in[1] && in[0]->vals && in[1]->vals && ne <= MAX_VALS) {
        vals = malloc((ne ? ne : 1) * sizeof *vals);
        if (!vals)
            return nerr(c, "out of memory");
        for (size_t i = 0; i < ne; i++)
            if (!eval_binary(c->node->op_type, in[0]->vals[bcast_index(i, &s, &in[0]->s)],
                             in[1]->vals[bcast_index(i, &s, &in[1]->s)], &vals[i])) {
                free(vals);
                vals = NULL;
                break;
            }
    }
    uint64_t ops = d->ops * (n > 2 ? n - 1 : 1);
    int rc = vu_op(c, in, n_in, &s, ops, 1, 1);
    if (!rc)
        rc = def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

static int h_softmax(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "input"))
        return -1;
    uint32_t ax;
    if (in[0]->s.rank && axis_of(c, attr_int(c, "axis", -1), in[0]->s.rank, "axis", &ax))
        return -1;
    /* fusible: a preceding scale or mask add joins it */
    if (vu_op(c, in, 1, &in[0]->s, d->ops, 1, 0))
        return -1;
    return def_out(c, 0, &in[0]->s, NULL);
}

static int h_batchnorm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "X"))
        return -1;
    const tensor *x = in[0];
    if (need_rank(c, x, 2, MAX_RANK))
        return -1;
    for (size_t i = 1; i < 5 && i < n_in; i++)
        if (in[i] && numel(&in[i]->s) != (uint64_t)x->s.d[1])
            return nerr(c, "input '%s' has %llu elements, expected the %lld channels of X",
                        in[i]->name, (unsigned long long)numel(&in[i]->s),
                        (long long)x->s.d[1]);
    if (vu_op(c, in, n_in, &x->s, d->ops, 1, 1))
        return -1;
    shape ch = {1, {x->s.d[1]}};
    if (def_out(c, 0, &x->s, NULL))
        return -1;
    c->node_epi = 0; /* training-mode running statistics */
    return def_out(c, 1, &ch, NULL) || def_out(c, 2, &ch, NULL) ? -1 : 0;
}

static int h_layernorm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "X") || need(c, in, n_in, 1, "Scale"))
        return -1;
    const tensor *x = in[0];
    uint32_t ax;
    if (axis_of(c, attr_int(c, "axis", -1), x->s.rank, "axis", &ax))
        return -1;
    if (vu_op(c, in, 1, &x->s, d->ops, 1, 0))
        return -1;
    shape st = x->s;
    for (uint32_t i = ax; i < st.rank; i++)
        st.d[i] = 1;
    if (def_out(c, 0, &x->s, NULL))
        return -1;
    return def_out(c, 1, &st, NULL) || def_out(c, 2, &st, NULL) ? -1 : 0;
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
    const int64_t *k = attr_ints(c, "kernel_shape", &n);
    if (!k && kernel_from)
        k = kernel_from, n = ns;
    if (!k)
        return nerr(c, "attribute kernel_shape is required");
    if (n != ns)
        return nerr(c, "kernel_shape has %zu dims, expected %u", n, ns);
    size_t ns_, nd, np;
    const int64_t *s = attr_ints(c, "strides", &ns_);
    const int64_t *dl = attr_ints(c, "dilations", &nd);
    const int64_t *p = attr_ints(c, "pads", &np);
    if ((s && ns_ != ns) || (dl && nd != ns) || (p && np != 2 * (size_t)ns))
        return nerr(c, "strides/dilations/pads do not match %u spatial dims", ns);
    for (uint32_t i = 0; i < ns; i++) {
        w->k[i] = k[i];
        w->s[i] = s ? s[i] : 1;
        w->dil[i] = dl ? dl[i] : 1;
        w->pb[i] = p ? p[i] : 0;
        w->pe[i] = p ? p[i + ns] : 0;
        if (w->k[i] < 1 || w->s[i] < 1 || w->dil[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 ||
            w->k[i] > MAX_WINDOW || w->s[i] > MAX_WINDOW || w->dil[i] > MAX_WINDOW ||
            w->pb[i] > MAX_ELEMS || w->pe[i] > MAX_ELEMS)
            return nerr(c, "kernel, strides and dilations must be in [1, 2^24] and pads in "
                           "[0, 2^50]");
    }
    attr_str(c, "auto_pad", w->auto_pad, sizeof w->auto_pad, "NOTSET");
    if (strcmp(w->auto_pad, "NOTSET") && strcmp(w->auto_pad, "VALID") &&
        strcmp(w->auto_pad, "SAME_UPPER") && strcmp(w->auto_pad, "SAME_LOWER"))
        return nerr(c, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
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
        return nerr(c, "window of %lld is larger than the padded input (%lld) in spatial "
                       "dim %u", (long long)dk, (long long)(span + dk), i);
    *out = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
    if (ceil_mode && (*out - 1) * w->s[i] >= in + w->pb[i])
        (*out)--; /* the last window must start inside the input or left pad */
    return 0;
}

/* Conv and ConvTranspose: X (N, C, spatial...) and W of the same rank, the
 * window attributes; *ns gets the number of spatial dims. */
static int conv_inputs(ctx *c, tensor **in, size_t n_in, uint32_t *ns, window *w)
{
    if (need(c, in, n_in, 0, "X") || need(c, in, n_in, 1, "W") ||
        need_rank(c, in[0], 3, MAX_RANK))
        return -1;
    *ns = in[0]->s.rank - 2;
    if (in[1]->s.rank != in[0]->s.rank)
        return nerr(c, "W has rank %u, X rank %u", in[1]->s.rank, in[0]->s.rank);
    return read_window(c, *ns, in[1]->s.d + 2, w);
}

static int h_conv(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    uint32_t ns;
    window w;
    if (conv_inputs(c, in, n_in, &ns, &w))
        return -1;
    const tensor *x = in[0], *wt = in[1];
    int64_t g = attr_int(c, "group", 1), C = x->s.d[1], F = wt->s.d[0];
    if (g < 1 || g > MAX_WINDOW || C % g || F % g || wt->s.d[1] * g != C)
        return nerr(c, "group %lld does not divide X's %lld channels into W's %lld per group "
                       "(and %lld filters)", (long long)g, (long long)C,
                    (long long)wt->s.d[1], (long long)F);
    for (uint32_t i = 0; i < ns; i++)
        if (w.k[i] != wt->s.d[2 + i])
            return nerr(c, "kernel_shape does not match W");
    shape y = {x->s.rank, {x->s.d[0], F}};
    for (uint32_t i = 0; i < ns; i++)
        if (window_out(c, &w, i, x->s.d[2 + i], 0, &y.d[2 + i]))
            return -1;
    if (check_shape(&y))
        return def_out(c, 0, &y, NULL);
    uint64_t N = (uint64_t)x->s.d[0], opix = prod(y.d, 2, y.rank), kern = prod(w.k, 0, ns);
    int plain = ns == 2 && g == 1 && !strcmp(w.auto_pad, "NOTSET") && w.s[0] == w.s[1];
    for (uint32_t i = 0; i < ns; i++)
        plain = plain && w.dil[i] == 1 && w.pb[i] == w.pb[0] && w.pe[i] == w.pb[0];
    if (c->all_const) {
        /* folded */
    } else if (plain && numel(&y)) {
        if (emitted(c, v10_model_conv(c->m, c->opname, N, (uint64_t)x->s.d[2],
                                      (uint64_t)x->s.d[3], (uint64_t)C, (uint64_t)F,
                                      (uint64_t)w.k[0], (uint64_t)w.k[1], (uint64_t)w.s[0],
                                      (uint64_t)w.pb[0], c->err)))
            return -1;
        sa_emitted(c, numel(&y));
    } else if (g > 1 && g == C && F == C) {
        /* Depthwise: a VU stencil, one FMA per tap, as the zoo does. */
        if (emit_vec(c, numel(&y), kern, prod(w.s, 0, ns), 1))
            return -1;
    } else {
        /* Lowered to `g` GEMMs: M = batch x output pixels, K = taps x C/g. */
        if (emit_gemm(c, (uint64_t)g, N * opix, (uint64_t)(F / g), kern * (uint64_t)(C / g),
                      g == 1))
            return -1;
    }
    return def_out(c, 0, &y, NULL);
}

static int h_conv_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    uint32_t ns;
    window w;
    if (conv_inputs(c, in, n_in, &ns, &w))
        return -1;
    const tensor *x = in[0], *wt = in[1];
    int64_t g = attr_int(c, "group", 1), C = x->s.d[1];
    if (g < 1 || g > MAX_WINDOW || wt->s.d[0] != C || C % g)
        return nerr(c, "W's first dim %lld must equal X's %lld channels, divisible by group "
                       "%lld", (long long)wt->s.d[0], (long long)C, (long long)g);
    int64_t F = wt->s.d[1] * g;
    if (F > MAX_ELEMS)
        return nerr(c, "%lld output channels", (long long)F);
    size_t nop, nos;
    const int64_t *op = attr_ints(c, "output_padding", &nop);
    const int64_t *os = attr_ints(c, "output_shape", &nos);
    if ((op && nop != ns) || (os && nos != ns && nos != x->s.rank))
        return nerr(c, "output_padding/output_shape do not match %u spatial dims", ns);
    shape y = {x->s.rank, {x->s.d[0], F}};
    for (uint32_t i = 0; i < ns; i++) {
        int64_t dk = (w.k[i] - 1) * w.dil[i] + 1, in_i = x->s.d[2 + i];
        if (os)
            y.d[2 + i] = os[i + nos - ns];
        else if (in_i > MAX_WINDOW || (op && (op[i] < 0 || op[i] > MAX_WINDOW)))
            return nerr(c, "input size or output_padding over 2^24 in spatial dim %u", i);
        else if (!strcmp(w.auto_pad, "SAME_UPPER") || !strcmp(w.auto_pad, "SAME_LOWER"))
            y.d[2 + i] = in_i * w.s[i];
        else
            y.d[2 + i] = w.s[i] * (in_i - 1) + (op ? op[i] : 0) + dk -
                         (strcmp(w.auto_pad, "VALID") ? w.pb[i] + w.pe[i] : 0);
        if (y.d[2 + i] < 0)
            return nerr(c, "negative output size in spatial dim %u", i);
    }
    if (check_shape(&y))
        return def_out(c, 0, &y, NULL);
    /* Every input pixel emits a kernel patch: M = batch x input pixels,
     * N = taps x F/g, K = C/g (as the zoo's Mask R-CNN deconv). */
    if (!c->all_const &&
        emit_gemm(c, (uint64_t)g, (uint64_t)x->s.d[0] * prod(x->s.d, 2, x->s.rank),
                  prod(w.k, 0, ns) * (uint64_t)(F / g), (uint64_t)(C / g), g == 1))
        return -1;
    return def_out(c, 0, &y, NULL);
}

static int h_gemm(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "A") || need(c, in, n_in, 1, "B"))
        return -1;
    const tensor *a = in[0], *b = in[1];
    if (need_rank(c, a, 2, 2) || need_rank(c, b, 2, 2))
        return -1;
    int ta = attr_int(c, "transA", 0) != 0, tb = attr_int(c, "transB", 0) != 0;
    int64_t M = a->s.d[ta], K = a->s.d[!ta], K2 = b->s.d[tb], N = b->s.d[!tb];
    if (K != K2)
        return nerr(c, "inner dimensions differ: A gives K=%lld, B gives K=%lld",
                    (long long)K, (long long)K2);
    shape y = {2, {M, N}};
    if (n_in > 2 && in[2]) {
        shape t;
        if (broadcast(c, &in[2]->s, &y, &t))
            return -1;
        if (t.d[0] != M || t.d[1] != N)
            return nerr(c, "C does not broadcast to [%lld,%lld]", (long long)M, (long long)N);
    }
    if (!c->all_const && emit_gemm(c, 1, (uint64_t)M, (uint64_t)N, (uint64_t)K, 1))
        return -1;
    return def_out(c, 0, &y, NULL);
}

static int h_matmul(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "A") || need(c, in, n_in, 1, "B"))
        return -1;
    const tensor *a = in[0], *b = in[1];
    if (need_rank(c, a, 1, MAX_RANK) || need_rank(c, b, 1, MAX_RANK))
        return -1;
    /* 1-D operands are promoted, then the added dim removed (numpy). */
    shape A = a->s, B = b->s;
    if (A.rank == 1)
        A = (shape){2, {1, a->s.d[0]}};
    if (B.rank == 1)
        B = (shape){2, {b->s.d[0], 1}};
    int64_t M = A.d[A.rank - 2], K = A.d[A.rank - 1], K2 = B.d[B.rank - 2], N = B.d[B.rank - 1];
    if (K != K2)
        return nerr(c, "inner dimensions differ: A gives K=%lld, B gives K=%lld",
                    (long long)K, (long long)K2);
    shape ba = {A.rank - 2, {0}}, bb = {B.rank - 2, {0}}, batch;
    memcpy(ba.d, A.d, ba.rank * sizeof *ba.d);
    memcpy(bb.d, B.d, bb.rank * sizeof *bb.d);
    if (broadcast(c, &ba, &bb, &batch))
        return -1;
    shape y = batch;
    if (a->s.rank > 1)
        y.d[y.rank++] = M;
    if (b->s.rank > 1) {
        if (y.rank >= MAX_RANK)
            return nerr(c, "output rank over %d", MAX_RANK);
        y.d[y.rank++] = N;
    }
    if (check_shape(&y))
        return def_out(c, 0, &y, NULL);
    if (!c->all_const) {
        uint64_t nb = numel(&batch);
        int rc = bb.rank == 0 || numel(&bb) == 1
                     /* one weight matrix: the batch folds into M (fc on rows) */
                     ? emit_gemm(c, 1, nb * (uint64_t)M, (uint64_t)N, (uint64_t)K, 1)
                     /* batched products of activations (attention) */
                     : emit_gemm(c, nb, (uint64_t)M, (uint64_t)N, (uint64_t)K, 0);
        if (rc)
            return -1;
    }
    return def_out(c, 0, &y, NULL);
}

/* ------------------------------------------------------------ reductions */

static int h_pool(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "X"))
        return -1;
    const tensor *x = in[0];
    if (need_rank(c, x, 3, MAX_RANK))
        return -1;
    uint32_t ns = x->s.rank - 2;
    window w;
    if (read_window(c, ns, NULL, &w))
        return -1;
    int ceil_mode = attr_int(c, "ceil_mode", 0) != 0;
    shape y = x->s;
    for (uint32_t i = 0; i < ns; i++)
        if (window_out(c, &w, i, x->s.d[2 + i], ceil_mode, &y.d[2 + i]))
            return -1;
    /* As the zoo's pool: k taps per output, reading stride^n outputs' worth. */
    if (!check_shape(&y) && !c->all_const &&
        emit_vec(c, numel(&y), prod(w.k, 0, ns), prod(w.s, 0, ns), 0))
        return -1;
    if (def_out(c, 0, &y, NULL))
        return -1;
    return def_out(c, 1, &y, NULL); /* MaxPool's Indices */
}

static int h_global_pool(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "X"))
        return -1;
    const tensor *x = in[0];
    if (need_rank(c, x, 2, MAX_RANK))
        return -1;
    shape y = x->s;
    for (uint32_t i = 2; i < y.rank; i++)
        y.d[i] = 1;
    uint64_t area = prod(x->s.d, 2, x->s.rank);
    if (!c->all_const && emit_vec(c, numel(&y), area, area, 0))
        return -1;
    return def_out(c, 0, &y, NULL);
}

/* ReduceX (axes, keepdims, noop_with_empty_axes), ArgMax/ArgMin (axis). */
static int h_reduce(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    int keep = attr_int(c, "keepdims", 1) != 0, reduce[MAX_RANK] = {0};
    const int64_t *axes;
    long na;
    int64_t one_axis;
    if (!strncmp(c->node->op_type, "Arg", 3)) {
        one_axis = attr_int(c, "axis", 0);
        axes = &one_axis;
        na = 1;
    } else if (axes_of(c, in, n_in, 1, "axes", &axes, &na)) {
        return -1;
    }
    if (na <= 0 && attr_int(c, "noop_with_empty_axes", 0)) {
        if (vu_op(c, in, 1, &x->s, 1, 0, 0))
            return -1;
        return def_out(c, 0, &x->s, NULL);
    }
    for (uint32_t i = 0; i < x->s.rank; i++)
        reduce[i] = na <= 0;
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (axis_of(c, axes[i], x->s.rank, "axis", &a))
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
    /* As the zoo's global pool: rs ops per output, reading rs inputs each. */
    if (!c->all_const && emit_vec(c, numel(&y), rs * d->ops, rs, 0))
        return -1;
    return def_out(c, 0, &y, NULL);
}

/* ------------------------------------------------------- shape and layout */

static int h_shape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    int64_t r = in[0]->s.rank, lo = attr_int(c, "start", 0), hi = attr_int(c, "end", r);
    lo = lo < 0 ? lo + r : lo;
    hi = hi < 0 ? hi + r : hi;
    lo = lo < 0 ? 0 : lo > r ? r : lo;
    hi = hi < 0 ? 0 : hi > r ? r : hi;
    shape y = {1, {hi > lo ? hi - lo : 0}};
    c->all_const = 1; /* a shape is known at import time */
    return def_out(c, 0, &y, in[0]->s.d + lo);
}

static int h_size(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    int64_t v = (int64_t)numel(&in[0]->s);
    shape y = {0, {0}};
    c->all_const = 1;
    return def_out(c, 0, &y, &v);
}

/* Reads the dims and integer values of a TensorProto. */
static int tensor_proto(ctx *c, const Onnx__TensorProto *tp, const char *what, shape *s,
                        int64_t **vals)
{
    *vals = NULL;
    if (tp->n_dims > MAX_RANK)
        return nerr(c, "%s: rank %zu over %d", what, tp->n_dims, MAX_RANK);
    s->rank = (uint32_t)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++)
        s->d[i] = tp->dims[i];
    if (check_shape(s))
        return nerr(c, "%s: invalid dims (negative or over 2^50 elements)", what);
    uint64_t n = numel(s);
    int32_t dt = tp->has_data_type ? tp->data_type : 0;
    int is64 = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    int is32 = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    int small = dt == 2 || dt == 3 || dt == 4 || dt == 5 || dt == 9; /* int32_data */
    if (n > MAX_VALS || !(is64 || is32 || small))
        return 0;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return nerr(c, "out of memory");
    size_t w = is64 ? 8 : 4;
    if (tp->has_raw_data && (is64 || is32)) {
        if (tp->raw_data.len != n * w) {
            free(v);
            return nerr(c, "%s: raw_data has %zu bytes, expected %llu", what,
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

static int h_constant(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)in, (void)n_in, (void)d;
    shape s = {0, {0}};
    int64_t *vals = NULL;
    const Onnx__AttributeProto *a;
    c->all_const = 1;
    if ((a = attr(c, "value")) && a->t) {
        if (tensor_proto(c, a->t, "attribute value", &s, &vals))
            return -1;
    } else if ((a = attr(c, "value_int")) && a->has_i) {
        int rc = def_out(c, 0, &s, &a->i);
        return rc;
    } else if ((a = attr(c, "value_ints"))) {
        s = (shape){1, {(int64_t)a->n_ints}};
        return def_out(c, 0, &s, a->ints);
    } else if ((a = attr(c, "value_float")) || (a = attr(c, "value_string"))) {
        /* a scalar */
    } else if ((a = attr(c, "value_floats"))) {
        s = (shape){1, {(int64_t)a->n_floats}};
    } else if ((a = attr(c, "value_strings"))) {
        s = (shape){1, {(int64_t)a->n_strings}};
    } else {
        return nerr(c, "no supported value attribute (value, value_int(s), value_float(s), "
                       "value_string(s))");
    }
    int rc = def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

static int h_constant_of_shape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "shape") || need_vals(c, in[0], "shape"))
        return -1;
    shape s = {(uint32_t)numel(&in[0]->s), {0}};
    if (s.rank > MAX_RANK)
        return nerr(c, "rank %u over %d", s.rank, MAX_RANK);
    memcpy(s.d, in[0]->vals, s.rank * sizeof *s.d);
    if (check_shape(&s))
        return def_out(c, 0, &s, NULL);
    int64_t fill = 0, *vals = NULL;
    const Onnx__AttributeProto *a = attr(c, "value");
    if (a && a->t) {
        shape vs;
        int64_t *vv;
        if (tensor_proto(c, a->t, "attribute value", &vs, &vv))
            return -1;
        if (!vv || numel(&vs) != 1) {
            free(vv);
            c->all_const = 1;
            return def_out(c, 0, &s, NULL);
        }
        fill = vv[0];
        free(vv);
    }
    uint64_t n = numel(&s);
    if (n <= MAX_VALS && (vals = malloc((n ? n : 1) * sizeof *vals)))
        for (uint64_t i = 0; i < n; i++)
            vals[i] = fill;
    c->all_const = 1;
    int rc = def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

static int h_reshape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data") || need(c, in, n_in, 1, "shape") ||
        need_vals(c, in[1], "shape"))
        return -1;
    const tensor *x = in[0];
    uint64_t n = numel(&in[1]->s);
    if (n > MAX_RANK)
        return nerr(c, "target rank %llu over %d", (unsigned long long)n, MAX_RANK);
    int allowzero = attr_int(c, "allowzero", 0) != 0;
    shape y = {(uint32_t)n, {0}};
    int infer = -1;
    uint64_t known = 1;
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t v = in[1]->vals[i];
        if (v == 0 && !allowzero) {
            if (i >= x->s.rank)
                return nerr(c, "target dim %u is 0 (copy) but the input has rank %u", i,
                            x->s.rank);
            v = x->s.d[i];
        } else if (v == -1) {
            if (infer >= 0)
                return nerr(c, "more than one -1 in the target shape");
            infer = (int)i;
            continue;
        } else if (v < 0) {
            return nerr(c, "target dim %u is %lld", i, (long long)v);
        }
        y.d[i] = v;
        if (v && (v10_mul_u64(known, (uint64_t)v, &known) || known > (uint64_t)MAX_ELEMS))
            return nerr(c, "target shape overflows");
        if (!v)
            known = 0;
    }
    uint64_t total = numel(&x->s);
    if (infer >= 0) {
        if (!known || total % known)
            return nerr(c, "cannot infer the -1 dim: %llu elements into a multiple of %llu",
                        (unsigned long long)total, (unsigned long long)known);
        y.d[infer] = (int64_t)(total / known);
    } else if (numel(&y) != total || check_shape(&y)) {
        char a[128], b[128];
        fmt_shape(&x->s, a, sizeof a);
        fmt_shape(&y, b, sizeof b);
        return nerr(c, "cannot reshape %s into %s: element counts differ", a, b);
    }
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return def_out(c, 0, &y, x->vals);
}

static int h_flatten(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "input"))
        return -1;
    const tensor *x = in[0];
    int64_t a = attr_int(c, "axis", 1);
    if (a < -(int64_t)x->s.rank || a > (int64_t)x->s.rank)
        return nerr(c, "axis %lld out of range for rank %u", (long long)a, x->s.rank);
    uint32_t ax = (uint32_t)(a < 0 ? a + x->s.rank : a);
    shape y = {2, {(int64_t)prod(x->s.d, 0, ax), (int64_t)prod(x->s.d, ax, x->s.rank)}};
    c->node_epi = x->epi;
    return def_out(c, 0, &y, x->vals);
}

/* Transpose: a layout change the consumer absorbs (XLA assigns layouts). */
static int h_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    size_t np;
    const int64_t *perm = attr_ints(c, "perm", &np);
    if (perm && np != x->s.rank)
        return nerr(c, "perm has %zu entries, input rank is %u", np, x->s.rank);
    shape y = {x->s.rank, {0}};
    int seen[MAX_RANK] = {0};
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t p = perm ? perm[i] : (int64_t)(y.rank - 1 - i);
        if (p < 0 || p >= (int64_t)y.rank || seen[p]++)
            return nerr(c, "perm is not a permutation of 0..%u", y.rank - 1);
        y.d[i] = x->s.d[p];
    }
    c->node_epi = x->epi;
    return def_out(c, 0, &y, x->s.rank <= 1 ? x->vals : NULL);
}

static int h_squeeze(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    const int64_t *axes;
    long na;
    if (axes_of(c, in, n_in, 1, "axes", &axes, &na))
        return -1;
    int drop[MAX_RANK] = {0};
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (axis_of(c, axes[i], x->s.rank, "axis", &a))
            return -1;
        if (x->s.d[a] != 1)
            return nerr(c, "cannot squeeze axis %u of size %lld", a, (long long)x->s.d[a]);
        drop[a] = 1;
    }
    shape y = {0, {0}};
    for (uint32_t i = 0; i < x->s.rank; i++)
        if (!(na < 0 ? x->s.d[i] == 1 : drop[i]))
            y.d[y.rank++] = x->s.d[i];
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return def_out(c, 0, &y, x->vals);
}

static int h_unsqueeze(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    const int64_t *axes;
    long na;
    if (axes_of(c, in, n_in, 1, "axes", &axes, &na))
        return -1;
    if (na < 0)
        return nerr(c, "axes are required");
    if (x->s.rank + (uint64_t)na > MAX_RANK)
        return nerr(c, "output rank over %d", MAX_RANK);
    uint32_t r = x->s.rank + (uint32_t)na;
    int ins[MAX_RANK] = {0};
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (axis_of(c, axes[i], r, "axis", &a))
            return -1;
        if (ins[a]++)
            return nerr(c, "axis %u repeated", a);
    }
    shape y = {r, {0}};
    for (uint32_t i = 0, j = 0; i < r; i++)
        y.d[i] = ins[i] ? 1 : x->s.d[j++];
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return def_out(c, 0, &y, x->vals);
}

static int h_concat(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "inputs"))
        return -1;
    shape y = in[0]->s;
    uint32_t ax;
    if (axis_of(c, attr_int(c, "axis", 0), y.rank, "axis", &ax))
        return -1;
    int have_vals = y.rank == 1;
    y.d[ax] = 0;
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i])
            continue;
        if (in[i]->s.rank != y.rank)
            return nerr(c, "input '%s' has rank %u, expected %u", in[i]->name,
                        in[i]->s.rank, y.rank);
        for (uint32_t k = 0; k < y.rank; k++)
            if (k != ax && in[i]->s.d[k] != y.d[k])
                return nerr(c, "input '%s' differs in dim %u (%lld, expected %lld)",
                            in[i]->name, k, (long long)in[i]->s.d[k], (long long)y.d[k]);
        y.d[ax] += in[i]->s.d[ax];
        if (y.d[ax] > MAX_ELEMS)
            return nerr(c, "output too large");
        have_vals = have_vals && in[i]->vals;
    }
    int64_t *vals = NULL;
    if (have_vals && y.d[0] <= MAX_VALS && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals))) {
        size_t k = 0;
        for (size_t i = 0; i < n_in; i++)
            if (in[i]) {
                memcpy(vals + k, in[i]->vals, (size_t)in[i]->s.d[0] * sizeof *vals);
                k += (size_t)in[i]->s.d[0];
            }
    }
    int rc = check_shape(&y) ? 0 : vu_copy(c, &y);
    if (!rc)
        rc = def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

static int h_split(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "input"))
        return -1;
    const tensor *x = in[0];
    uint32_t ax;
    if (axis_of(c, attr_int(c, "axis", 0), x->s.rank, "axis", &ax))
        return -1;
    const int64_t *split;
    long ns;
    if (axes_of(c, in, n_in, 1, "split", &split, &ns))
        return -1;
    size_t nout = c->node->n_output;
    if (!nout)
        return nerr(c, "no outputs");
    int64_t dim = x->s.d[ax], sum = 0;
    if (ns >= 0) {
        if ((size_t)ns != nout)
            return nerr(c, "split has %ld entries for %zu outputs", ns, nout);
        for (long i = 0; i < ns; i++) {
            if (split[i] < 0 || split[i] > MAX_ELEMS)
                return nerr(c, "split entry %ld is %lld", i, (long long)split[i]);
            sum += split[i];
            if (sum > MAX_ELEMS)
                return nerr(c, "split sums over 2^50");
        }
        if (sum != dim)
            return nerr(c, "split sums to %lld, axis %u has %lld", (long long)sum, ax,
                        (long long)dim);
    } else if (dim % (int64_t)nout) {
        return nerr(c, "axis %u of %lld does not split evenly into %zu outputs", ax,
                    (long long)dim, nout);
    }
    if (vu_copy(c, &x->s))
        return -1;
    for (size_t k = 0; k < nout; k++) {
        shape y = x->s;
        y.d[ax] = ns >= 0 ? split[k] : dim / (int64_t)nout;
        if (def_out(c, k, &y, NULL))
            return -1;
    }
    return 0;
}

/* Clamped slice length along one dim (ONNX Slice semantics). */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *first)
{
    if (start < 0)
        start = start < -dim ? 0 : start + dim;
    if (end < 0)
        end = end < -dim ? -1 : end + dim;
    if (step > 0) {
        start = start > dim ? dim : start;
        end = end < 0 ? 0 : end > dim ? dim : end;
        *first = start;
        return end > start ? (end - start + step - 1) / step : 0;
    }
    start = start > dim - 1 ? dim - 1 : start;
    end = end > dim - 1 ? dim - 1 : end;
    *first = start;
    return start > end ? (start - end + (-step) - 1) / (-step) : 0;
}

static int h_slice(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    const int64_t *st, *en, *ax = NULL, *sp = NULL;
    size_t n, n2, na = 0, nsp = 0;
    if ((st = attr_ints(c, "starts", &n))) {
        en = attr_ints(c, "ends", &n2);
        ax = attr_ints(c, "axes", &na);
        if (!en)
            return nerr(c, "attribute ends is required");
    } else {
        if (need(c, in, n_in, 1, "starts") || need(c, in, n_in, 2, "ends") ||
            need_vals(c, in[1], "starts") || need_vals(c, in[2], "ends"))
            return -1;
        st = in[1]->vals, n = numel(&in[1]->s);
        en = in[2]->vals, n2 = numel(&in[2]->s);
        tensor *ta = input(in, n_in, 3), *ts = input(in, n_in, 4);
        if (ta && need_vals(c, ta, "axes"))
            return -1;
        if (ts && need_vals(c, ts, "steps"))
            return -1;
        if (ta)
            ax = ta->vals, na = numel(&ta->s);
        if (ts)
            sp = ts->vals, nsp = numel(&ts->s);
    }
    if (n2 != n || (ax && na != n) || (sp && nsp != n))
        return nerr(c, "starts, ends, axes and steps differ in length");
    shape y = x->s;
    int64_t first[MAX_RANK] = {0}, step[MAX_RANK];
    int done[MAX_RANK] = {0};
    for (uint32_t i = 0; i < MAX_RANK; i++)
        step[i] = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t a;
        if (!ax && i >= x->s.rank)
            return nerr(c, "more starts than input dims");
        if (axis_of(c, ax ? ax[i] : (int64_t)i, x->s.rank, "axis", &a))
            return -1;
        if (done[a]++)
            return nerr(c, "axis %u repeated", a);
        int64_t s = sp ? sp[i] : 1;
        if (s == 0)
            return nerr(c, "step %zu is 0", i);
        s = s < -MAX_ELEMS ? -MAX_ELEMS : s > MAX_ELEMS ? MAX_ELEMS : s; /* same length */
        step[a] = s;
        int64_t b = st[i] < -MAX_ELEMS ? -MAX_ELEMS : st[i] > MAX_ELEMS ? MAX_ELEMS : st[i];
        int64_t e = en[i] < -MAX_ELEMS - 1 ? -MAX_ELEMS - 1 : en[i] > MAX_ELEMS ? MAX_ELEMS : en[i];
        y.d[a] = slice_len(x->s.d[a], b, e, s, &first[a]);
    }
    int64_t *vals = NULL;
    if (x->vals && x->s.rank == 1 && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals)))
        for (int64_t i = 0; i < y.d[0]; i++)
            vals[i] = x->vals[first[0] + i * step[0]];
    int rc = vu_copy(c, &y);
    if (!rc)
        rc = def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

static int h_gather(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data") || need(c, in, n_in, 1, "indices"))
        return -1;
    const tensor *x = in[0], *idx = in[1];
    if (need_rank(c, x, 1, MAX_RANK))
        return -1;
    uint32_t ax;
    if (axis_of(c, attr_int(c, "axis", 0), x->s.rank, "axis", &ax))
        return -1;
    if (x->s.rank - 1 + idx->s.rank > MAX_RANK)
        return nerr(c, "output rank over %d", MAX_RANK);
    shape y = {0, {0}};
    for (uint32_t i = 0; i < ax; i++)
        y.d[y.rank++] = x->s.d[i];
    for (uint32_t i = 0; i < idx->s.rank; i++)
        y.d[y.rank++] = idx->s.d[i];
    for (uint32_t i = ax + 1; i < x->s.rank; i++)
        y.d[y.rank++] = x->s.d[i];
    if (check_shape(&y))
        return def_out(c, 0, &y, NULL);
    int64_t *vals = NULL;
    uint64_t ni = numel(&idx->s);
    if (x->vals && idx->vals && x->s.rank == 1) {
        vals = malloc((ni ? ni : 1) * sizeof *vals);
        if (!vals)
            return nerr(c, "out of memory");
        for (uint64_t i = 0; i < ni; i++) {
            int64_t k = idx->vals[i];
            if (k < -x->s.d[0] || k >= x->s.d[0]) {
                free(vals);
                return nerr(c, "index %lld out of range for %lld entries", (long long)k,
                            (long long)x->s.d[0]);
            }
            vals[i] = x->vals[k < 0 ? k + x->s.d[0] : k];
        }
    }
    int rc = 0;
    if (!c->all_const) {
        if (x->is_const && ax == 0) /* an embedding lookup: rows of a table */
            rc = numel(&y) ? emitted(c, v10_model_gather(c->m, c->opname, ni,
                                                         prod(x->s.d, 1, x->s.rank), c->err))
                           : 0;
        else
            rc = vu_copy(c, &y);
    }
    if (!rc)
        rc = def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

static int h_expand(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "input") || need(c, in, n_in, 1, "shape") ||
        need_vals(c, in[1], "shape"))
        return -1;
    shape t = {(uint32_t)numel(&in[1]->s), {0}}, y;
    if (t.rank > MAX_RANK)
        return nerr(c, "rank %u over %d", t.rank, MAX_RANK);
    memcpy(t.d, in[1]->vals, t.rank * sizeof *t.d);
    if (check_shape(&t))
        return nerr(c, "invalid target shape");
    if (broadcast(c, &in[0]->s, &t, &y))
        return -1;
    if (!check_shape(&y) && vu_copy(c, &y))
        return -1;
    return def_out(c, 0, &y, NULL);
}

static int h_tile(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "input") || need(c, in, n_in, 1, "repeats") ||
        need_vals(c, in[1], "repeats"))
        return -1;
    const tensor *x = in[0];
    if (numel(&in[1]->s) != x->s.rank)
        return nerr(c, "repeats has %llu entries, input rank is %u",
                    (unsigned long long)numel(&in[1]->s), x->s.rank);
    shape y = x->s;
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t r = in[1]->vals[i];
        if (r < 0 || r > MAX_ELEMS || (r && y.d[i] > MAX_ELEMS / r))
            return nerr(c, "repeats entry %u is %lld", i, (long long)r);
        y.d[i] *= r;
    }
    if (!check_shape(&y) && vu_copy(c, &y))
        return -1;
    return def_out(c, 0, &y, NULL);
}

static int h_pad(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    if (need(c, in, n_in, 0, "data"))
        return -1;
    const tensor *x = in[0];
    size_t np;
    const int64_t *pads = attr_ints(c, "pads", &np);
    if (!pads) {
        if (need(c, in, n_in, 1, "pads") || need_vals(c, in[1], "pads"))
            return -1;
        pads = in[1]->vals, np = numel(&in[1]->s);
    }
    if (input(in, n_in, 3))
        return nerr(c, "the axes input is not supported");
    if (np != 2 * (size_t)x->s.rank)
        return nerr(c, "pads has %zu entries, expected %u", np, 2 * x->s.rank);
    shape y = x->s;
    for (uint32_t i = 0; i < y.rank; i++) {
        if (pads[i] < -MAX_ELEMS || pads[i] > MAX_ELEMS || pads[i + y.rank] < -MAX_ELEMS ||
            pads[i + y.rank] > MAX_ELEMS)
            return nerr(c, "pad out of range");
        y.d[i] += pads[i] + pads[i + y.rank];
        if (y.d[i] < 0)
            return nerr(c, "pads make dim %u negative", i);
    }
    if (!check_shape(&y) && vu_copy(c, &y))
        return -1;
    return def_out(c, 0, &y, NULL);
}

static int h_range(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    for (size_t i = 0; i < 3; i++)
        if (need(c, in, n_in, i, "start/limit/delta") ||
            need_vals(c, in[i], i == 0 ? "start" : i == 1 ? "limit" : "delta"))
            return -1;
    int64_t s = in[0]->vals[0], l = in[1]->vals[0], dl = in[2]->vals[0];
    if (dl == 0)
        return nerr(c, "delta is 0");
    if (s < -MAX_ELEMS || s > MAX_ELEMS || l < -MAX_ELEMS || l > MAX_ELEMS ||
        dl < -MAX_ELEMS || dl > MAX_ELEMS)
        return nerr(c, "start/limit/delta out of range");
    int64_t n = dl > 0 ? (l - s + dl - 1) / dl : (s - l + (-dl) - 1) / (-dl);
    shape y = {1, {n > 0 ? n : 0}};
    int64_t *vals = NULL;
    if (y.d[0] <= MAX_VALS && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals)))
        for (int64_t i = 0; i < y.d[0]; i++)
            vals[i] = s + i * dl;
    int rc = vu_copy(c, &y);
    if (!rc)
        rc = def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

/* ----------------------------------------------------------- the table */

static const op_def OPS[] = {
    {"Conv", h_conv, 0},
    {"ConvTranspose", h_conv_transpose, 0},
    {"Gemm", h_gemm, 0},
    {"MatMul", h_matmul, 0},
    /* element-wise, broadcasting */
    {"Add", h_broadcast, OPS_ADD},
    {"Sub", h_broadcast, OPS_ADD},
    {"Mul", h_broadcast, OPS_ADD},
    {"Div", h_broadcast, OPS_DIV},
    {"Pow", h_broadcast, OPS_POW},
    {"Max", h_broadcast, OPS_ADD},
    {"Min", h_broadcast, OPS_ADD},
    {"Sum", h_broadcast, OPS_ADD},
    {"Mean", h_broadcast, OPS_ADD},
    {"Equal", h_broadcast, OPS_ADD},
    {"Less", h_broadcast, OPS_ADD},
    {"LessOrEqual", h_broadcast, OPS_ADD},
    {"Greater", h_broadcast, OPS_ADD},
    {"GreaterOrEqual", h_broadcast, OPS_ADD},
    {"And", h_broadcast, OPS_ADD},
    {"Or", h_broadcast, OPS_ADD},
    {"Xor", h_broadcast, OPS_ADD},
    {"PRelu", h_broadcast, 2 * OPS_ADD},
    {"Where", h_broadcast, OPS_ADD},
    /* element-wise, unary */
    {"Relu", h_unary, OPS_ADD},
    {"LeakyRelu", h_unary, 2 * OPS_ADD},
    {"Elu", h_unary, OPS_EXP + 2},
    {"Selu", h_unary, OPS_EXP + 3},
    {"Sigmoid", h_unary, OPS_SIGMOID},
    {"HardSigmoid", h_unary, 3 * OPS_ADD},
    {"HardSwish", h_unary, 4 * OPS_ADD},
    {"Tanh", h_unary, OPS_TANH},
    {"Gelu", h_unary, OPS_GELU},
    {"Erf", h_unary, OPS_ERF},
    {"Exp", h_unary, OPS_EXP},
    {"Log", h_unary, OPS_EXP},
    {"Sqrt", h_unary, OPS_SQRT},
    {"Reciprocal", h_unary, OPS_RECIP},
    {"Neg", h_unary, OPS_ADD},
    {"Abs", h_unary, OPS_ADD},
    {"Floor", h_unary, OPS_ADD},
    {"Ceil", h_unary, OPS_ADD},
    {"Round", h_unary, OPS_ADD},
    {"Sign", h_unary, OPS_ADD},
    {"Not", h_unary, OPS_ADD},
    {"Clip", h_unary, 2 * OPS_ADD},
    {"Softplus", h_unary, 2 * OPS_EXP + 1},
    {"Softsign", h_unary, OPS_RECIP + 2},
    {"Cast", h_cast, OPS_ADD},
    {"Identity", h_alias, 0},
    {"Dropout", h_alias, 0},
    /* normalization, softmax */
    {"Softmax", h_softmax, OPS_SOFTMAX},
    {"LogSoftmax", h_softmax, OPS_SOFTMAX + OPS_EXP},
    {"BatchNormalization", h_batchnorm, OPS_ADD},
    {"LayerNormalization", h_layernorm, OPS_LAYERNORM},
    /* pooling and reductions */
    {"MaxPool", h_pool, 0},
    {"AveragePool", h_pool, 0},
    {"GlobalAveragePool", h_global_pool, 0},
    {"GlobalMaxPool", h_global_pool, 0},
    {"ReduceMean", h_reduce, OPS_ADD},
    {"ReduceSum", h_reduce, OPS_ADD},
    {"ReduceMax", h_reduce, OPS_ADD},
    {"ReduceMin", h_reduce, OPS_ADD},
    {"ReduceProd", h_reduce, OPS_ADD},
    {"ReduceSumSquare", h_reduce, OPS_ADD},
    {"ReduceL2", h_reduce, OPS_ADD},
    {"ArgMax", h_reduce, OPS_ADD},
    {"ArgMin", h_reduce, OPS_ADD},
    /* shapes, layout, data movement */
    {"Shape", h_shape, 0},
    {"Size", h_size, 0},
    {"Constant", h_constant, 0},
    {"ConstantOfShape", h_constant_of_shape, 0},
    {"Reshape", h_reshape, 0},
    {"Flatten", h_flatten, 0},
    {"Transpose", h_transpose, 0},
    {"Squeeze", h_squeeze, 0},
    {"Unsqueeze", h_unsqueeze, 0},
    {"Concat", h_concat, 0},
    {"Split", h_split, 0},
    {"Slice", h_slice, 0},
    {"Gather", h_gather, 0},
    {"Expand", h_expand, 0},
    {"Tile", h_tile, 0},
    {"Pad", h_pad, 0},
    {"Range", h_range, 0},
};
#define N_OPS (sizeof OPS / sizeof *OPS)

static const op_def *find_op(const Onnx__NodeProto *n)
{
    const char *dom = n->domain ? n->domain : "";
    int std = !dom[0] || !strcmp(dom, "ai.onnx");
    for (size_t i = 0; i < N_OPS; i++)
        if (!strcmp(OPS[i].op, n->op_type) &&
            (std || (!strcmp(dom, "com.microsoft") && !strcmp(n->op_type, "Gelu"))))
            return &OPS[i];
    return NULL;
}

/* --------------------------------------------------------- approximation */

/* The shape declared for t (value_info or graph output), if fully static. */
static int declared_shape(const tensor *t, shape *s)
{
    const Onnx__ValueInfoProto *vi = t ? t->declared : NULL;
    if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type || !vi->type->tensor_type->shape)
        return -1;
    const Onnx__TensorShapeProto *sp = vi->type->tensor_type->shape;
    if (sp->n_dim > MAX_RANK)
        return -1;
    s->rank = (uint32_t)sp->n_dim;
    for (size_t i = 0; i < sp->n_dim; i++) {
        if (sp->dim[i]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            return -1;
        s->d[i] = sp->dim[i]->dim_value;
    }
    return check_shape(s);
}

/*
 * unknown_vu: the node becomes one VU op over its largest known tensor (one
 * ALU op per element, reading every input), outputs take their declared
 * shape, else the first input's, else stay unknown.  Recorded in c->approx.
 */
static int approximate(ctx *c, tensor **in, size_t n_in, const char *why)
{
    uint64_t elems = 0;
    shape first = {0, {0}};
    int have_first = 0;
    for (size_t i = 0; i < n_in; i++)
        if (in[i] && in[i]->known) {
            if (!have_first)
                first = in[i]->s, have_first = 1;
            if (!in[i]->is_const && numel(&in[i]->s) > elems)
                elems = numel(&in[i]->s);
        }
    c->all_const = 0;
    c->node_epi = 0;
    for (size_t k = 0; k < c->node->n_output; k++) {
        if (!c->node->output[k][0])
            continue;
        tensor *t = slot(c, c->node->output[k], 1);
        shape s;
        if (declared_shape(t, &s) == 0 || (have_first && (s = first, 1))) {
            if (def_out(c, k, &s, NULL))
                return -1;
            if (numel(&s) > elems)
                elems = numel(&s);
        } else {
            if (t->defined && t->producer != c->node_idx + 1)
                return nerr(c, "output '%s' is already defined", t->name);
            t->defined = 1, t->known = 0, t->producer = c->node_idx + 1;
            snprintf(t->why, sizeof t->why, "output of approximated node");
        }
    }
    /* "~" marks approximated operators in profiles and traces */
    memmove(c->opname + 1, c->opname, sizeof c->opname - 2);
    c->opname[0] = '~';
    c->opname[sizeof c->opname - 1] = 0;
    if (emit_vec(c, elems ? elems : 1, 1, n_in ? n_in : 1, 0))
        return -1;
    size_t l = strlen(c->approx);
    if (l + 4 < sizeof c->approx)
        snprintf(c->approx + l, sizeof c->approx - l, "%s%s (%s): %s", l ? "; " : "",
                 node_name(c) ? node_name(c) : c->opname + 1, c->node->op_type, why);
    c->n_approx++;
    return 0;
}

/* ----------------------------------------------------------- the graph */

static int check_names(ctx *c, size_t n, char **names, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!names[i])
            return nerr(c, "%s %zu has no name", what, i);
    return 0;
}

static int import_node(ctx *c)
{
    const Onnx__NodeProto *n = c->node;
    if (!n->op_type || !n->op_type[0])
        return nerr(c, "node has no op_type");
    if (check_names(c, n->n_input, n->input, "input") ||
        check_names(c, n->n_output, n->output, "output"))
        return -1;
    snprintf(c->opname, sizeof c->opname, "%s", node_name(c) ? node_name(c) : n->op_type);
    if (!node_name(c))
        snprintf(c->opname, sizeof c->opname, "%s_%zu", n->op_type, c->node_idx);
    tensor *inbuf[16], **in = inbuf;
    if (n->n_input > 16 && !(in = malloc(n->n_input * sizeof *in)))
        return nerr(c, "out of memory");
    int rc = 0;
    const char *unknown = NULL;
    c->all_const = 1;
    c->node_epi = 0;
    for (size_t i = 0; i < n->n_input && !rc; i++) {
        in[i] = n->input[i][0] ? slot(c, n->input[i], 0) : NULL;
        if (n->input[i][0] && (!in[i] || !in[i]->defined))
            rc = nerr(c, "input '%s' is not a graph input, an initializer or the output of "
                         "an earlier node", n->input[i]);
        else if (in[i] && !in[i]->known && !unknown)
            unknown = in[i]->name;
        else if (in[i] && !in[i]->is_const)
            c->all_const = 0;
    }
    const op_def *d = find_op(n);
    if (rc) {
        /* fallthrough */
    } else if (unknown) {
        const tensor *t = slot(c, unknown, 0);
        if (!c->opts->unknown_vu)
            rc = nerr(c, "input '%s' has an unknown shape (%s); give a static shape or "
                         "--tenant FILE.onnx:unknown=vu", unknown, t->why);
        else
            rc = approximate(c, in, n->n_input, "input shape unknown");
    } else if (!d) {
        if (!c->opts->unknown_vu)
            rc = nerr(c, "unsupported operator%s%s (docs/onnx.md lists the supported ones; "
                         "FILE.onnx:unknown=vu approximates it on the VU)",
                      n->domain && n->domain[0] ? " in domain " : "",
                      n->domain && n->domain[0] ? n->domain : "");
        else
            rc = approximate(c, in, n->n_input, "unsupported operator");
    } else {
        size_t before = c->m->n_ops;
        rc = d->fn(c, in, n->n_input, d);
        if (rc && c->opts->unknown_vu && c->m->n_ops == before) {
            char why[V10_ERR_MAX];
            const char *p = strstr(c->err->msg, "): ");
            snprintf(why, sizeof why, "%s", p ? p + 3 : c->err->msg);
            rc = approximate(c, in, n->n_input, why);
        }
    }
    if (in != inbuf)
        free(in);
    return rc;
}

/* Graph inputs: shapes from their types; dim 0 symbolic or 1 takes the
 * batch override; other symbolic dims leave the shape unknown. */
static int import_input(ctx *c, const Onnx__ValueInfoProto *vi, uint32_t *batch)
{
    if (!vi->name)
        return nerr(c, "a graph input has no name");
    tensor *t = slot(c, vi->name, 1);
    if (t->defined)
        return 0; /* also an initializer (IR < 4): the initializer wins */
    t->defined = 1;
    t->producer = 0;
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
        snprintf(t->why, sizeof t->why, "graph input '%.60s' is not a tensor", vi->name);
        return 0;
    }
    const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
    if (!sp) {
        snprintf(t->why, sizeof t->why, "graph input '%.60s' declares no shape", vi->name);
        return 0;
    }
    if (sp->n_dim > MAX_RANK)
        return nerr(c, "graph input '%s': rank %zu over %d", vi->name, sp->n_dim, MAX_RANK);
    t->s.rank = (uint32_t)sp->n_dim;
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = sp->dim[i];
        int sym = dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        if (i == 0 && (sym || dm->dim_value == 1)) {
            t->s.d[0] = c->opts->batch ? c->opts->batch : 1;
        } else if (sym) {
            snprintf(t->why, sizeof t->why, "graph input '%.40s' dim %zu is symbolic '%.30s'",
                     vi->name, i,
                     dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                             dm->dim_param ? dm->dim_param : "?");
            return 0;
        } else {
            t->s.d[i] = dm->dim_value;
        }
    }
    if (check_shape(&t->s))
        return nerr(c, "graph input '%s': invalid dims (negative or over 2^50 elements)",
                    vi->name);
    t->known = 1;
    if (!*batch && t->s.rank)
        *batch = (uint32_t)(t->s.d[0] > 0 && t->s.d[0] < 65536 ? t->s.d[0] : 1);
    return 0;
}

static void declare(ctx *c, size_t n, Onnx__ValueInfoProto **vis)
{
    for (size_t i = 0; i < n; i++)
        if (vis[i]->name)
            slot(c, vis[i]->name, 1)->declared = vis[i];
}

static int import_graph(ctx *c, const Onnx__GraphProto *g, v10_onnx_result *res)
{
    size_t count = g->n_input + g->n_initializer + g->n_value_info + g->n_output + 8;
    for (size_t i = 0; i < g->n_node; i++)
        count += g->node[i]->n_output;
    c->cap = 16;
    while (c->cap < 2 * count)
        c->cap *= 2;
    if (!(c->tab = calloc(c->cap, sizeof *c->tab)))
        return nerr(c, "out of memory");
    declare(c, g->n_value_info, g->value_info);
    declare(c, g->n_output, g->output);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        if (!tp->name || !tp->name[0])
            return nerr(c, "initializer %zu has no name", i);
        tensor *t = slot(c, tp->name, 1);
        char what[V10_NAME_MAX + 16];
        snprintf(what, sizeof what, "initializer '%.60s'", tp->name);
        int64_t *vals;
        if (tensor_proto(c, tp, what, &t->s, &vals))
            return -1;
        free(t->vals);
        t->vals = vals;
        t->defined = t->known = t->is_const = 1;
    }
    uint32_t batch = c->opts->batch;
    for (size_t i = 0; i < g->n_input; i++)
        if (import_input(c, g->input[i], &batch))
            return -1;
    c->m->batch = batch ? batch : 1;
    for (size_t i = 0; i < g->n_node; i++) {
        c->node = g->node[i];
        c->node_idx = i;
        if (import_node(c))
            return -1;
    }
    c->node = NULL;
    if (!res)
        return 0;
    if (g->n_output && !(res->outputs = calloc(g->n_output, sizeof *res->outputs)))
        return nerr(c, "out of memory");
    res->n_outputs = g->n_output;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = g->output[i]->name ? g->output[i]->name : "";
        const tensor *t = slot(c, nm, 0);
        if (!t || !t->defined)
            return nerr(c, "graph output '%s' is not produced by any node or input", nm);
        v10_onnx_shape *o = &res->outputs[i];
        snprintf(o->name, sizeof o->name, "%s", nm);
        o->known = t->known;
        o->rank = t->s.rank;
        memcpy(o->dims, t->s.d, sizeof o->dims);
    }
    res->n_approx = c->n_approx;
    memcpy(res->approx, c->approx, sizeof res->approx);
    return 0;
}

int v10_onnx_parse(const uint8_t *data, size_t size, const char *path, const char *name,
                   const v10_onnx_opts *opts, v10_model *out, v10_onnx_result *res,
                   v10_err *err)
{
    static const v10_onnx_opts defaults = {0, 0};
    v10_model_init(out, name, 1);
    if (res)
        memset(res, 0, sizeof *res);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, data);
    if (!mp)
        return v10_err_set(err, "%s: not an ONNX model (the protobuf does not parse as a "
                                "ModelProto)", path);
    ctx c = {.path = path, .opts = opts ? opts : &defaults, .m = out, .err = err};
    int rc;
    if (!mp->graph)
        rc = v10_err_set(err, "%s: the ModelProto has no graph", path);
    else
        rc = import_graph(&c, mp->graph, res);
    if (rc == 0 && c.n_approx && c.m->n_ops == 0)
        rc = 0;
    table_free(&c);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (rc) {
        v10_model_fini(out);
        if (res)
            v10_onnx_result_fini(res);
    }
    return rc;
}

/* Reads a whole file (at most MAX_FILE_BYTES), once (util/file.h). */
static int slurp(const char *path, uint8_t **data, size_t *size, v10_err *err)
{
    *data = (uint8_t *)v10_file_read(path, MAX_FILE_BYTES, size, err);
    return *data ? 0 : -1;
}

int v10_onnx_read(const char *path, const v10_onnx_opts *opts, v10_model *out,
                  v10_onnx_result *res, v10_err *err)
{
    uint8_t *data;
    size_t size;
    memset(out, 0, sizeof *out);
    if (slurp(path, &data, &size, err))
        return -1;
    int rc = v10_onnx_parse(data, size, path, path, opts, out, res, err);
    free(data);
    return rc;
}

void v10_onnx_result_fini(v10_onnx_result *res)
{
    free(res->outputs);
    res->outputs = NULL;
    res->n_outputs = 0;
}

int v10_onnx_tensor_file_shape(const char *path, v10_onnx_shape *shape_out, v10_err *err)
{
    uint8_t *data;
    size_t size;
    if (slurp(path, &data, &size, err))
        return -1;
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, size, data);
    free(data);
    if (!tp)
        return v10_err_set(err, "%s: not a serialized TensorProto", path);
    int rc = 0;
    memset(shape_out, 0, sizeof *shape_out);
    if (tp->n_dims > MAX_RANK) {
        rc = v10_err_set(err, "%s: rank %zu over %d", path, tp->n_dims, MAX_RANK);
    } else {
        snprintf(shape_out->name, sizeof shape_out->name, "%s", tp->name ? tp->name : "");
        shape_out->known = 1;
        shape_out->rank = (uint32_t)tp->n_dims;
        for (size_t i = 0; i < tp->n_dims; i++)
            shape_out->dims[i] = tp->dims[i];
    }
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return rc;
}
