/*
 * onnx_impl.h — what the files of the ONNX importer share (not public; the
 * API is v10/onnx.h): the tensor table and per-node context, shape and
 * attribute helpers (onnx_shape.c), the operator handlers (onnx_ops_math.c,
 * onnx_ops_layout.c) and their table (onnx_import.c).
 *
 * Errors: every helper that fails sets c->err through onnx_nerr ("PATH:
 * node 'NAME' (OP): message") and returns -1.
 */
#ifndef V10_MODEL_ONNX_IMPL_H
#define V10_MODEL_ONNX_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <onnx/onnx.pb-c.h>

#include "v10/onnx.h"

#define MAX_RANK V10_ONNX_MAX_RANK
#define MAX_VALS 4096           /* integer constants evaluated at import time */
#define MAX_ELEMS (INT64_C(1) << 50) /* largest tensor accepted, elements */
#define MAX_WINDOW (INT64_C(1) << 24) /* kernel, stride, dilation, group bound */

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
 * generation it belongs to (see onnx_fold_epilogue), 0 for none.
 */
typedef struct tensor {
    const char *name; /* borrowed from the ModelProto; NULL: empty slot */
    int defined, known, is_const;
    shape s;
    int64_t *vals;    /* owned; numel(s) entries, or NULL */
    unsigned epi;
    size_t producer;  /* node index + 1; 0 for graph inputs and initializers */
    const Onnx__ValueInfoProto *declared; /* value_info / graph output entry */
    int weight;       /* a node reads it as a weight (a graph input keeps its batch) */
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

/*
 * One supported operator (the table OPS[] in onnx_import.c).  Before `fn`
 * runs, the importer checks, in this order: each required input i (named
 * in `in`, comma-separated) is present, and if bit i of `consts` is set,
 * its integer values are known; inputs 0 and 1 have a rank in
 * [rank[i][0], rank[i][1]] (both 0: any); at most max_in inputs and
 * max_out outputs (VARIADIC: any number).  So a handler reads
 * in[0 .. required) without checking them.
 */
#define VARIADIC 0xff
typedef struct op_def op_def;
typedef int (*handler)(ctx *c, tensor **in, size_t n_in, const op_def *d);
struct op_def {
    const char *op;
    handler fn;
    uint64_t ops;            /* VU ops per element, where it applies */
    const char *in;          /* required inputs, comma-separated; NULL: none */
    unsigned consts;         /* bit i: required input i is an integer constant */
    uint8_t max_in, max_out; /* arity bounds, or VARIADIC */
    uint8_t rank[2][2];      /* rank ranges of inputs 0 and 1 */
};

/* ---- errors and shapes (onnx_shape.c) ---- */
const char *onnx_node_name(const ctx *c);
/* "PATH: node 'NAME' (OP): message"; returns -1. */
int onnx_nerr(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void onnx_fmt_shape(const shape *s, char *buf, size_t sz);
uint64_t onnx_numel(const shape *s);
/* Validates dims (>= 0, element count <= MAX_ELEMS); -1 without a message. */
int onnx_check_shape(const shape *s);
uint64_t onnx_prod(const int64_t *d, size_t lo, size_t hi);
/* The product of n attribute values not bounded by a checked shape
 * (kernel sizes, strides of a pool): -1 naming `what` on overflow. */
int onnx_prod_attr(ctx *c, const int64_t *d, size_t n, const char *what, uint64_t *out);
/* Normalizes a possibly negative axis against rank r (ONNX convention). */
int onnx_axis_of(ctx *c, int64_t a, uint32_t r, const char *what, uint32_t *out);
/* Multidirectional (numpy) broadcasting of a and b into out. */
int onnx_broadcast(ctx *c, const shape *a, const shape *b, shape *out);
/* Index into a broadcast input for flat index `i` of output o. */
size_t onnx_bcast_index(size_t i, const shape *o, const shape *in);

/* ---- the tensor table (onnx_shape.c) ---- */
/* The slot of `name`, found or (create) claimed; NULL if absent. */
tensor *onnx_slot(ctx *c, const char *name, int create);
void onnx_table_free(ctx *c);
int onnx_set_vals(ctx *c, tensor *t, const int64_t *vals);
/* Defines output k of the current node with shape s (values optional). */
int onnx_def_out(ctx *c, size_t k, const shape *s, const int64_t *vals);
/* Reads the dims and integer values of a TensorProto. */
int onnx_tensor_proto(ctx *c, const Onnx__TensorProto *tp, const char *what, shape *s,
                      int64_t **vals);

/* ---- attributes and inputs (onnx_shape.c) ---- */
const Onnx__AttributeProto *onnx_attr(const ctx *c, const char *name);
int64_t onnx_attr_int(const ctx *c, const char *name, int64_t def);
/* The ints of attribute `name` (NULL if absent); *n gets their count. */
const int64_t *onnx_attr_ints(const ctx *c, const char *name, size_t *n);
void onnx_attr_str(const ctx *c, const char *name, char *buf, size_t sz, const char *def);
tensor *onnx_input(tensor **in, size_t n_in, size_t i);
/* Requires input i to be present. */
int onnx_need(ctx *c, tensor **in, size_t n_in, size_t i, const char *what);
/* Requires the values of t (an integer constant the importer evaluated). */
int onnx_need_vals(ctx *c, const tensor *t, const char *what);
int onnx_need_rank(ctx *c, const tensor *t, uint32_t lo, uint32_t hi);
/* Axes from attribute `name` or else from input `idx`; *n = -1 if neither. */
int onnx_axes_of(ctx *c, tensor **in, size_t n_in, size_t idx, const char *name,
                 const int64_t **axes, long *n);

/* ---- emitting operators (onnx_shape.c) ---- */
int onnx_emitted(ctx *c, int rc);
/* An SA op just emitted: its output opens a new epilogue. */
void onnx_sa_emitted(ctx *c, uint64_t out_elems);
int onnx_emit_gemm(ctx *c, uint64_t count, uint64_t M, uint64_t N, uint64_t K, int w_hbm);
/* A VU op over `elems` elements laid out as `out` (NULL: dense): `ops` ALU
 * ops each, `in_tensors` inputs of its size read, `loads` registers loaded
 * per output register (0: in_tensors), `xlu` cross-lane passes per
 * register (v10_model_vec). */
int onnx_emit_vec(ctx *c, uint64_t elems, const shape *out, uint64_t ops, uint32_t in_tensors,
                  uint32_t loads, uint32_t xlu, v10_fuse fuse);
int onnx_fold_epilogue(ctx *c, tensor **in, size_t n_in, uint64_t out_elems);
/* `xlu`: cross-lane passes per register (2 for a softmax or a norm, which
 * reduce along the last axis). */
int onnx_vu_op(ctx *c, tensor **in, size_t n_in, const shape *out, uint64_t ops, int fusible,
               int elementwise, uint32_t xlu);
/* A data-movement op (copy/concat/slice...): one VU op over the output;
 * `transpose`: the minor dimension changes (a cross-lane pass). */
int onnx_vu_copy(ctx *c, const shape *out, int transpose);

/* ---- handlers: element-wise, normalization, matmul-like, reductions
 * (onnx_ops_math.c) ---- */
int onnx_h_unary(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_alias(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_cast(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_broadcast(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_softmax(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_batchnorm(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_layernorm(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_conv(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_conv_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_gemm(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_matmul(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_pool(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_global_pool(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_reduce(ctx *c, tensor **in, size_t n_in, const op_def *d);
/* ---- handlers: shapes, constants, layout, data movement (onnx_ops_layout.c) ---- */
int onnx_h_shape(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_size(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_constant(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_constant_of_shape(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_reshape(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_flatten(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_squeeze(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_unsqueeze(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_concat(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_split(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_slice(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_gather(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_expand(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_tile(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_pad(ctx *c, tensor **in, size_t n_in, const op_def *d);
int onnx_h_range(ctx *c, tensor **in, size_t n_in, const op_def *d);

#endif
