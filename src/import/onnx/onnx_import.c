/*
 * onnx_import.c — ONNX import (v10/onnx.h, docs/onnx.md): protobuf-c parses
 * the ModelProto; the graph's initializers and inputs fill the tensor
 * table; nodes are imported in graph order through the operator table
 * below (arity and ranks checked here once, shapes inferred and operators
 * emitted by the handlers of onnx_ops_*.c), or approximated on the VU
 * under unknown=vu.
 */
#include "import/onnx/onnx_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vu_ops.h"
#include "util/file.h"

#define MAX_FILE_BYTES ((size_t)1 << 31)

/* ----------------------------------------------------------- the table */

/* VU costs of ONNX element-wise ops not in the zoo (vu_ops.h for the rest). */
#define OPS_DIV   (OPS_RECIP + 1)      /* reciprocal, multiply */
#define OPS_SQRT  (OPS_RECIP + 1)      /* rsqrt seed + Newton, multiply */
#define OPS_TANH  (OPS_SIGMOID + 2)    /* 2 * sigmoid(2x) - 1 */
#define OPS_ERF   (OPS_EXP + 4)        /* exp(-x^2) times a short rational */
#define OPS_GELU  (OPS_TANH + 4)       /* 0.5x(1 + tanh(c(x + 0.044715x^3))) */
#define OPS_POW   (2 * OPS_EXP + 1)    /* exp(y log x) */

/* Arity and ranks as the ONNX operator specification (onnx.ai, Operators.md)
 * gives them, over every opset the importer reads. */
#define ANY_RANK {0, 0}
#define OP(name, fn, ops, in, consts, max_in, max_out) \
    {name, fn, ops, in, consts, max_in, max_out, {ANY_RANK, ANY_RANK}}
#define UNARY(name, ops) OP(name, onnx_h_unary, ops, "X", 0, 1, 1)
#define BINARY(name, ops) OP(name, onnx_h_broadcast, ops, NULL, 0, 2, 1)
#define NARY(name, ops) OP(name, onnx_h_broadcast, ops, NULL, 0, VARIADIC, 1)
#define REDUCE(name, max_in) OP(name, onnx_h_reduce, OPS_ADD, "data", 0, max_in, 1)

static const op_def OPS[] = {
    {"Conv", onnx_h_conv, 0, "X,W", 0, 3, 1, {{3, MAX_RANK}, ANY_RANK}},
    {"ConvTranspose", onnx_h_conv_transpose, 0, "X,W", 0, 3, 1, {{3, MAX_RANK}, ANY_RANK}},
    {"Gemm", onnx_h_gemm, 0, "A,B", 0, 3, 1, {{2, 2}, {2, 2}}},
    {"MatMul", onnx_h_matmul, 0, "A,B", 0, 2, 1, {{1, MAX_RANK}, {1, MAX_RANK}}},
    /* element-wise, broadcasting */
    BINARY("Add", OPS_ADD),
    BINARY("Sub", OPS_ADD),
    BINARY("Mul", OPS_ADD),
    BINARY("Div", OPS_DIV),
    BINARY("Pow", OPS_POW),
    NARY("Max", OPS_ADD),
    NARY("Min", OPS_ADD),
    NARY("Sum", OPS_ADD),
    NARY("Mean", OPS_ADD),
    BINARY("Equal", OPS_ADD),
    BINARY("Less", OPS_ADD),
    BINARY("LessOrEqual", OPS_ADD),
    BINARY("Greater", OPS_ADD),
    BINARY("GreaterOrEqual", OPS_ADD),
    BINARY("And", OPS_ADD),
    BINARY("Or", OPS_ADD),
    BINARY("Xor", OPS_ADD),
    BINARY("PRelu", 2 * OPS_ADD),
    OP("Where", onnx_h_broadcast, OPS_ADD, NULL, 0, 3, 1),
    /* element-wise, unary */
    UNARY("Relu", OPS_ADD),
    UNARY("LeakyRelu", 2 * OPS_ADD),
    UNARY("Elu", OPS_EXP + 2),
    UNARY("Selu", OPS_EXP + 3),
    UNARY("Sigmoid", OPS_SIGMOID),
    UNARY("HardSigmoid", 3 * OPS_ADD),
    UNARY("HardSwish", 4 * OPS_ADD),
    UNARY("Tanh", OPS_TANH),
    UNARY("Gelu", OPS_GELU),
    UNARY("Erf", OPS_ERF),
    UNARY("Exp", OPS_EXP),
    UNARY("Log", OPS_EXP),
    UNARY("Sqrt", OPS_SQRT),
    UNARY("Reciprocal", OPS_RECIP),
    UNARY("Neg", OPS_ADD),
    UNARY("Abs", OPS_ADD),
    UNARY("Floor", OPS_ADD),
    UNARY("Ceil", OPS_ADD),
    UNARY("Round", OPS_ADD),
    UNARY("Sign", OPS_ADD),
    UNARY("Not", OPS_ADD),
    OP("Clip", onnx_h_unary, 2 * OPS_ADD, "X", 0, 3, 1), /* min and max inputs */
    UNARY("Softplus", 2 * OPS_EXP + 1),
    UNARY("Softsign", OPS_RECIP + 2),
    OP("Cast", onnx_h_cast, OPS_ADD, "input", 0, 1, 1),
    OP("Identity", onnx_h_alias, 0, "input", 0, 1, 1),
    OP("Dropout", onnx_h_alias, 0, "input", 0, 3, 2), /* ratio, training_mode; mask */
    /* normalization, softmax */
    OP("Softmax", onnx_h_softmax, OPS_SOFTMAX, "input", 0, 1, 1),
    OP("LogSoftmax", onnx_h_softmax, OPS_SOFTMAX + OPS_EXP, "input", 0, 1, 1),
    /* five outputs before opset 9 (saved mean and variance) */
    {"BatchNormalization", onnx_h_batchnorm, OPS_ADD, "X", 0, 5, 5, {{2, MAX_RANK}, ANY_RANK}},
    OP("LayerNormalization", onnx_h_layernorm, OPS_LAYERNORM, "X,Scale", 0, 3, 3),
    /* pooling and reductions */
    {"MaxPool", onnx_h_pool, 0, "X", 0, 1, 2, {{3, MAX_RANK}, ANY_RANK}}, /* Indices */
    {"AveragePool", onnx_h_pool, 0, "X", 0, 1, 1, {{3, MAX_RANK}, ANY_RANK}},
    {"GlobalAveragePool", onnx_h_global_pool, 0, "X", 0, 1, 1, {{2, MAX_RANK}, ANY_RANK}},
    {"GlobalMaxPool", onnx_h_global_pool, 0, "X", 0, 1, 1, {{2, MAX_RANK}, ANY_RANK}},
    REDUCE("ReduceMean", 2), /* axes became an input in opset 18 (13 for ReduceSum) */
    REDUCE("ReduceSum", 2),
    REDUCE("ReduceMax", 2),
    REDUCE("ReduceMin", 2),
    REDUCE("ReduceProd", 2),
    REDUCE("ReduceSumSquare", 2),
    REDUCE("ReduceL2", 2),
    REDUCE("ArgMax", 1),
    REDUCE("ArgMin", 1),
    /* shapes, layout, data movement */
    OP("Shape", onnx_h_shape, 0, "data", 0, 1, 1),
    OP("Size", onnx_h_size, 0, "data", 0, 1, 1),
    OP("Constant", onnx_h_constant, 0, NULL, 0, 0, 1),
    OP("ConstantOfShape", onnx_h_constant_of_shape, 0, "shape", 1, 1, 1),
    OP("Reshape", onnx_h_reshape, 0, "data,shape", 2, 2, 1),
    OP("Flatten", onnx_h_flatten, 0, "input", 0, 1, 1),
    OP("Transpose", onnx_h_transpose, 0, "data", 0, 1, 1),
    OP("Squeeze", onnx_h_squeeze, 0, "data", 0, 2, 1),
    OP("Unsqueeze", onnx_h_unsqueeze, 0, "data", 0, 2, 1),
    OP("Concat", onnx_h_concat, 0, "inputs", 0, VARIADIC, 1),
    OP("Split", onnx_h_split, 0, "input", 0, 2, VARIADIC),
    OP("Slice", onnx_h_slice, 0, "data", 0, 5, 1),
    {"Gather", onnx_h_gather, 0, "data,indices", 0, 2, 1, {{1, MAX_RANK}, ANY_RANK}},
    OP("Expand", onnx_h_expand, 0, "input,shape", 2, 2, 1),
    OP("Tile", onnx_h_tile, 0, "input,repeats", 2, 2, 1),
    OP("Pad", onnx_h_pad, 0, "data", 0, 4, 1),
    OP("Range", onnx_h_range, 0, "start,limit,delta", 7, 3, 1),
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

/* The checks op_def promises its handler (onnx_impl.h), for every node. */
static int check_node(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    size_t i = 0;
    for (const char *p = d->in; p && *p; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char what[32];
        snprintf(what, sizeof what, "%.*s", (int)len, p);
        if (onnx_need(c, in, n_in, i, what) ||
            ((d->consts >> i & 1) && onnx_need_vals(c, in[i], what)))
            return -1;
        p = comma ? comma + 1 : p + len;
    }
    for (i = 0; i < 2; i++)
        if (d->rank[i][1] && (V10_ASSERT(i < n_in && in[i]),
                               onnx_need_rank(c, in[i], d->rank[i][0], d->rank[i][1])))
            return -1;
    if (d->max_in != VARIADIC && n_in > d->max_in)
        return onnx_nerr(c, "%zu inputs, expected at most %u", n_in, d->max_in);
    if (d->max_out != VARIADIC && c->node->n_output > d->max_out)
        return onnx_nerr(c, "%zu outputs, expected at most %u", c->node->n_output, d->max_out);
    return 0;
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
    return onnx_check_shape(s);
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
            if (!in[i]->is_const && onnx_numel(&in[i]->s) > elems)
                elems = onnx_numel(&in[i]->s);
        }
    c->all_const = 0;
    c->node_epi = 0;
    for (size_t k = 0; k < c->node->n_output; k++) {
        if (!c->node->output[k][0])
            continue;
        tensor *t = onnx_slot(c, c->node->output[k], 1);
        shape s;
        if (declared_shape(t, &s) == 0 || (have_first && (s = first, 1))) {
            if (onnx_def_out(c, k, &s, NULL))
                return -1;
            if (onnx_numel(&s) > elems)
                elems = onnx_numel(&s);
        } else {
            if (t->defined && t->producer != c->node_idx + 1)
                return onnx_nerr(c, "output '%s' is already defined", t->name);
            t->defined = 1, t->known = 0, t->producer = c->node_idx + 1;
            snprintf(t->why, sizeof t->why, "output of approximated node");
        }
    }
    /* "~" marks approximated operators in profiles and traces */
    memmove(c->opname + 1, c->opname, sizeof c->opname - 2);
    c->opname[0] = '~';
    c->opname[sizeof c->opname - 1] = 0;
    if (onnx_emit_vec(c, elems ? elems : 1, NULL, 1, n_in ? (uint32_t)n_in : 1, 0, 0,
                      V10_FUSE_NONE))
        return -1;
    size_t l = strlen(c->approx);
    if (l + 4 < sizeof c->approx)
        snprintf(c->approx + l, sizeof c->approx - l, "%s%s (%s): %s", l ? "; " : "",
                 onnx_node_name(c) ? onnx_node_name(c) : c->opname + 1, c->node->op_type, why);
    c->n_approx++;
    return 0;
}

/* ----------------------------------------------------------- the graph */

static int check_names(ctx *c, size_t n, char **names, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!names[i])
            return onnx_nerr(c, "%s %zu has no name", what, i);
    return 0;
}

static int import_node(ctx *c)
{
    const Onnx__NodeProto *n = c->node;
    if (!n->op_type || !n->op_type[0])
        return onnx_nerr(c, "node has no op_type");
    if (check_names(c, n->n_input, n->input, "input") ||
        check_names(c, n->n_output, n->output, "output"))
        return -1;
    snprintf(c->opname, sizeof c->opname, "%s", onnx_node_name(c) ? onnx_node_name(c) : n->op_type);
    if (!onnx_node_name(c))
        snprintf(c->opname, sizeof c->opname, "%s_%zu", n->op_type, c->node_idx);
    tensor *inbuf[16], **in = inbuf;
    if (n->n_input > 16 && !(in = malloc(n->n_input * sizeof *in)))
        return onnx_nerr(c, "out of memory");
    int rc = 0;
    const char *unknown = NULL;
    c->all_const = 1;
    c->node_epi = 0;
    for (size_t i = 0; i < n->n_input && !rc; i++) {
        in[i] = n->input[i][0] ? onnx_slot(c, n->input[i], 0) : NULL;
        if (n->input[i][0] && (!in[i] || !in[i]->defined))
            rc = onnx_nerr(c, "input '%s' is not a graph input, an initializer or the output of "
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
        const tensor *t = onnx_slot(c, unknown, 0);
        if (!c->opts->unknown_vu)
            rc = onnx_nerr(c, "input '%s' has an unknown shape (%s); give a static shape or "
                              "--tenant FILE.onnx:unknown=vu", unknown, t->why);
        else
            rc = approximate(c, in, n->n_input, "input shape unknown");
    } else if (!d) {
        if (!c->opts->unknown_vu)
            rc = onnx_nerr(c, "unsupported operator%s%s (docs/onnx.md lists the supported ones; "
                              "FILE.onnx:unknown=vu approximates it on the VU)",
                           n->domain && n->domain[0] ? " in domain " : "",
                           n->domain && n->domain[0] ? n->domain : "");
        else
            rc = approximate(c, in, n->n_input, "unsupported operator");
    } else {
        size_t before = c->m->n_ops;
        rc = check_node(c, in, n->n_input, d) || d->fn(c, in, n->n_input, d) ? -1 : 0;
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

/* Weight operands by node type: bit i is input i (issue 24: a weight given
 * as a graph input, not an initializer, was scaled by :batch=, its MACs
 * by batch^2). */
static const struct {
    const char *op;
    unsigned inputs;
} WEIGHT_SLOTS[] = {
    {"Conv", 0x6},  {"ConvTranspose", 0x6},       {"Gemm", 0x6},  {"MatMul", 0x2},
    {"PRelu", 0x2}, {"BatchNormalization", 0x1e}, {"LayerNormalization", 0x6},
};

/* Marks every tensor a node reads as a weight. */
static void mark_weights(ctx *c, const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; n->op_type && k < sizeof WEIGHT_SLOTS / sizeof *WEIGHT_SLOTS; k++)
            if (!strcmp(n->op_type, WEIGHT_SLOTS[k].op))
                for (size_t j = 1; j < n->n_input && j < 8; j++)
                    if (WEIGHT_SLOTS[k].inputs >> j & 1 && n->input[j] && n->input[j][0])
                        onnx_slot(c, n->input[j], 1)->weight = 1;
    }
}

/* Graph inputs: shapes from their types.  A data input's dim 0 symbolic or
 * 1 takes the batch override; a fixed one of more than 1 stays, and an
 * override that differs is refused (it would print a batch the graph does
 * not run at).  A weight (mark_weights) keeps its declared dims.  Other
 * symbolic dims leave the shape unknown. */
static int import_input(ctx *c, const Onnx__ValueInfoProto *vi, uint32_t *batch)
{
    if (!vi->name)
        return onnx_nerr(c, "a graph input has no name");
    tensor *t = onnx_slot(c, vi->name, 1);
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
        return onnx_nerr(c, "graph input '%s': rank %zu over %d", vi->name, sp->n_dim, MAX_RANK);
    t->s.rank = (uint32_t)sp->n_dim;
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = sp->dim[i];
        int sym = dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        if (i == 0 && !t->weight && (sym || dm->dim_value == 1)) {
            t->s.d[0] = c->opts->batch ? c->opts->batch : 1;
        } else if (i == 0 && !t->weight && c->opts->batch && dm->dim_value != c->opts->batch) {
            return onnx_nerr(c, "graph input '%s' has a fixed batch of %lld (dim 0), so "
                                "batch=%u cannot apply: export the model with a symbolic "
                                "(or 1) batch dimension, or drop batch=",
                             vi->name, (long long)dm->dim_value, c->opts->batch);
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
    if (onnx_check_shape(&t->s))
        return onnx_nerr(c, "graph input '%s': invalid dims (negative or over 2^50 elements)",
                         vi->name);
    t->known = 1;
    if (!*batch && t->s.rank && !t->weight)
        *batch = (uint32_t)(t->s.d[0] > 0 && t->s.d[0] < 65536 ? t->s.d[0] : 1);
    return 0;
}

static void declare(ctx *c, size_t n, Onnx__ValueInfoProto **vis)
{
    for (size_t i = 0; i < n; i++)
        if (vis[i]->name)
            onnx_slot(c, vis[i]->name, 1)->declared = vis[i];
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
        return onnx_nerr(c, "out of memory");
    declare(c, g->n_value_info, g->value_info);
    declare(c, g->n_output, g->output);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        if (!tp->name || !tp->name[0])
            return onnx_nerr(c, "initializer %zu has no name", i);
        tensor *t = onnx_slot(c, tp->name, 1);
        char what[V10_NAME_MAX + 16];
        snprintf(what, sizeof what, "initializer '%.60s'", tp->name);
        int64_t *vals;
        if (onnx_tensor_proto(c, tp, what, &t->s, &vals))
            return -1;
        free(t->vals);
        t->vals = vals;
        t->defined = t->known = t->is_const = 1;
        /* The weights' width in HBM: the first floating-point initializer's
         * (FLOAT 4 bytes, FLOAT16 and BFLOAT16 2), as the zoo keeps f32. */
        if (!c->m->weight_bytes && (tp->data_type == 1 || tp->data_type == 10 ||
                                    tp->data_type == 16))
            c->m->weight_bytes = tp->data_type == 1 ? 4 : 2;
    }
    uint32_t batch = c->opts->batch;
    mark_weights(c, g);
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
        return onnx_nerr(c, "out of memory");
    res->n_outputs = g->n_output;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = g->output[i]->name ? g->output[i]->name : "";
        const tensor *t = onnx_slot(c, nm, 0);
        if (!t || !t->defined)
            return onnx_nerr(c, "graph output '%s' is not produced by any node or input", nm);
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
    onnx_table_free(&c);
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
