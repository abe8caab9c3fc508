/*
 * model.h — the operator IR and models (docs/models.md "How operators are formed").
 *
 * A model is an in-order stream of operators; each operator is bound to one
 * FU type and carries its work.  Operators are described by shape (GEMM
 * M,N,K; vector elements x ops; gather bytes) or, for traces, by given
 * cycles; the cost model (cost.h) fills the cost fields for one NPU.
 *
 * Ownership: a v10_model owns its ops array and v10_model_fini frees it,
 * unless `shared` is set: then the array belongs to a process-wide cache of
 * built-in models (the isca23 set), is read-only, and fini only forgets it.
 */
#ifndef V10_MODEL_H
#define V10_MODEL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/npu.h"

#define V10_OPNAME_MAX 48

typedef enum v10_fu_type {
    V10_FU_SA = 0,
    V10_FU_VU = 1,
    V10_FU_ICI = 2, /* a chip's link engine: collectives over its inter-chip links
                       (an NPU of several chips only, docs/llm.md) */
} v10_fu_type;
#define V10_FU_TYPES 3
/* The compute types, SA and VU: what a model's profile, a collocation
 * feature and a models report count (a collective runs on the link engine). */
#define V10_FU_COMPUTE 2

typedef enum v10_op_kind {
    V10_OP_GEMM = 0, /* SA: `count` independent (M x K) * (K x N), with an
                        element-wise epilogue of `ops_per_elem` per output */
    V10_OP_VECTOR,   /* VU: `elems` elements x `ops_per_elem` ALU ops */
    V10_OP_GATHER,   /* VU: `rows` rows of `minor` elements, one DMA each */
    V10_OP_RAW,      /* from a trace: `given_cycles` of FU work */
    V10_OP_SORT,     /* VU: `count` independent bitonic sorts (or top-`k`
                        selections) of `elems` / `count` keys each */
    V10_OP_ALLREDUCE, /* ICI: `elems` bytes summed over the NPU's chips, each
                         ending with the whole (a ring's reduce-scatter, then
                         its all-gather) */
    V10_OP_ALLGATHER, /* ICI: `elems` bytes in all, each chip contributing 1/chips */
    V10_OP_SEND,      /* ICI: `elems` bytes sent to one neighbouring chip over one
                         link (a pipeline stage's activations to the next stage) */
} v10_op_kind;

/* Where an element-wise VU op goes (v10_model_vec). */
typedef enum v10_fuse {
    V10_FUSE_NONE = 0, /* an operator of its own */
    V10_FUSE_VU,       /* into the previous fusible VU op of the same size
                          (XLA's loop fusion), else an operator of its own */
    V10_FUSE_SA,       /* into the previous SA op's output when the sizes
                          match (XLA's output fusion: a convolution with its
                          residual add), else as V10_FUSE_VU */
} v10_fuse;

/*
 * One operator.  Description fields are set by whoever builds the model;
 * cost fields are derived by v10_cost_op() and depend on the NPU.
 * Invariant after costing: cycles = max(compute_cycles, mem_cycles) +
 * issue_cycles, tiles >= 1.
 */
typedef struct v10_op {
    char name[V10_OPNAME_MAX];
    v10_fu_type fu;
    v10_op_kind kind;
    /* description */
    uint64_t m, n, k;          /* GEMM shape (SA ops) */
    uint64_t count;            /* independent GEMMs (batched matmul), >= 1 */
    uint64_t elems;            /* VU: elements processed (logical, unpadded) */
    uint64_t ops_per_elem;     /* VU: ALU ops per element; SA: epilogue ops
                                  per output element (fused VU work) */
    uint64_t rows;             /* GATHER: rows (slabs of second x minor) fetched */
    uint32_t minor, second;    /* VU: the tensor's minor and second-minor
                                  dimensions, padded to the VU's lanes and
                                  sublanes when costed (0: dense) */
    uint32_t loads;            /* VU: vregs loaded per output vreg; SA: per
                                  output vreg, by its epilogue */
    uint32_t xlu;              /* VU: cross-lane passes per vreg (reductions
                                  over the minor dimension, transposes) */
    uint32_t topk;             /* SORT: keys kept per sort (0: a full sort) */
    uint32_t payload;          /* SORT: 1 if each key carries an index */
    uint64_t hbm_bytes;        /* HBM traffic, bytes */
    uint64_t vmem_bytes;       /* resident operand (the smaller GEMM operand,
                                  kept in vector memory while the other
                                  streams past it), bytes; 0 for streaming ops */
    uint64_t restream_bytes;   /* the streamed operand, re-read once per extra
                                  chunk when vmem_bytes exceeds the share */
    uint64_t given_cycles;     /* RAW: FU cycles at full speed */
    uint32_t chips;            /* ALLREDUCE, ALLGATHER: the chips taking part (a
                                  tensor-parallel group); 0: every chip of the NPU */
    uint32_t given_tiles;      /* RAW: tiles (0: derive) */
    int fusible;               /* element-wise: the next one may fuse in */
    /* cost (filled by the cost model) */
    uint64_t macs;             /* multiply-accumulates (SA) */
    uint64_t flops;            /* 2 x macs for SA, elems x ops for VU */
    uint64_t compute_cycles;   /* FU cycles with ideal memory */
    uint64_t spill_bytes;      /* extra HBM traffic with the whole vector memory */
    uint64_t mem_cycles;       /* (HBM + spill bytes) / bandwidth, cycles */
    uint64_t cycles;           /* standalone duration, cycles */
    uint32_t tiles;            /* preemption granularity (SA folds, VU chunks) */
} v10_op;

typedef struct v10_model {
    char name[V10_NAME_MAX];   /* as the user named it, e.g. "resnet50" */
    uint32_t batch;
    uint32_t weight_bytes;     /* bytes per weight in HBM, read by the GEMM and
                                  conv builders: 0 or 2 bf16, 4 f32 (a Keras
                                  mixed-precision model keeps f32 variables) */
    v10_op *ops;
    size_t n_ops, cap_ops;
    int shared;                /* ops are the cache's: read-only, not freed */
    const v10_op *origin;      /* shared: the cache's operators ops were costed
                                  from, ops itself for those; every model with
                                  one origin has its operators' descriptions,
                                  FU types, MACs and compute cycles (only their
                                  HBM, spill and duration figures differ with
                                  the NPU).  NULL otherwise */
    uint64_t total_cycles;     /* sum of the ops' cycles, set by v10_cost_model
                                  (0: not known; adding or removing an op clears
                                  it, and only costing changes an op's cycles) */
} v10_model;

void v10_model_init(v10_model *m, const char *name, uint32_t batch);
void v10_model_fini(v10_model *m);
int v10_model_copy(v10_model *dst, const v10_model *src, v10_err *err);

/*
 * The spread of a costed model's operator lengths on one FU type, in
 * standalone cycles.  Percentiles are nearest-rank (p50 of 1, 2, 3, 4 is
 * 2) through util/hist.h: exact below 1024 cycles, within 0.05% above.
 * cv is the population standard deviation over the mean.  Every figure is
 * 0 for an FU type with no operators; cv is 0 for a single one.
 */
typedef struct v10_len_stats {
    uint64_t n;                /* operators of this FU type */
    uint64_t min, max;         /* cycles */
    double p50, p95;           /* cycles */
    double mean;               /* cycles */
    double cv;                 /* stddev / mean */
} v10_len_stats;

/* Fills out[ty] for every FU type from m's costed cycles (one pass for
 * all, so collocation and the reports share one definition).
 * -1 with err set when out of memory. */
int v10_model_len_stats(const v10_model *m, v10_len_stats out[V10_FU_TYPES], v10_err *err);

/* Makes room for `n` operators in all (no-op if there is).  -1 on failure. */
int v10_model_reserve(v10_model *m, size_t n, v10_err *err);
/* Appends a copy of *op.  Returns -1 on allocation failure. */
int v10_model_push(v10_model *m, const v10_op *op, v10_err *err);

/*
 * Builders used by the zoo and the importers.  Each appends one operator (or
 * folds its work into the previous one) and returns 0, or -1 with err set
 * (overflowing or zero dimensions, allocation).  Tensors are bf16 (2 bytes
 * per element) in HBM; the VU computes in f32 (docs/models.md, "The vector
 * unit's cost model").
 *
 * gemm: `count` independent (m x k)(k x n) products with bias and activation
 *   fused (XLA style).  weights_in_hbm: 1 if the (k x n) operand is a
 *   parameter read from HBM, 0 if it is an activation (attention).
 * conv: lowered to GEMM as SCALE-Sim does (M = batch*oh*ow, K = kh*kw*c,
 *   N = filters), with explicit padding.
 * vec: a VU op over a tensor of d->elems elements whose two minor
 *   dimensions are d->minor x d->second (0: dense), d->ops ALU ops per
 *   element, d->in_tensors inputs of its size read, d->xlu cross-lane passes
 *   per vreg; d->fuse says whether it may join the op before it.
 * vector: v10_model_vec on a dense tensor with no cross-lane work, fusing
 *   into the previous VU op if `fusible` (the importers' form).
 * gather: `rows` rows of `dim` elements fetched one DMA per row; a DMA
 *   moves whole tiles of the table's tiled layout, so its HBM bytes are
 *   the cost model's (v10_cost_op), not the row's.
 * sort: `count` independent sorts of `n` keys each (a bitonic network), or
 *   with topk > 0 the topk largest of each (whichever of a sort and topk
 *   selection passes is cheaper); payload: each key carries its index.
 */
typedef struct v10_vec_desc {
    uint64_t elems;      /* logical elements of the output */
    uint64_t minor;      /* minor (lane) dimension of the tensor; 0: dense */
    uint64_t second;     /* second-minor (sublane) dimension; 0: dense */
    uint64_t ops;        /* ALU ops per element */
    uint32_t in_tensors; /* input tensors of this size read from HBM */
    uint32_t loads;      /* vregs loaded per output vreg (window taps);
                            0: in_tensors */
    uint32_t xlu;        /* cross-lane passes per vreg */
    v10_fuse fuse;
} v10_vec_desc;

int v10_model_gemm(v10_model *m, const char *name, uint64_t count, uint64_t M,
                   uint64_t N, uint64_t K, int weights_in_hbm, v10_err *err);
int v10_model_conv(v10_model *m, const char *name, uint64_t batch, uint64_t h,
                   uint64_t w, uint64_t c, uint64_t filters, uint64_t kh,
                   uint64_t kw, uint64_t stride, uint64_t pad, v10_err *err);
/* A convolution given as its GEMM, (M x K)(K x N), M the batch's output
 * pixels, K = filter_h x filter_w x channels, N the filters, whose
 * in_elems input elements are read once (not im2col's K-fold copy): what
 * v10_model_conv lowers to, for a reader (a SCALE-Sim topology) whose
 * output size follows its own rule. */
int v10_model_lowered_conv(v10_model *m, const char *name, uint64_t M, uint64_t N, uint64_t K,
                           uint64_t in_elems, v10_err *err);
int v10_model_vec(v10_model *m, const char *name, const v10_vec_desc *d, v10_err *err);
int v10_model_vector(v10_model *m, const char *name, uint64_t elems,
                     uint64_t ops_per_elem, uint64_t in_tensors, int fusible,
                     v10_err *err);
int v10_model_gather(v10_model *m, const char *name, uint64_t rows,
                     uint64_t dim, v10_err *err);
/* gather of `rows` slabs of second x minor elements each (a beam's whole
 * cache, say): one DMA per slab. */
int v10_model_gather_slab(v10_model *m, const char *name, uint64_t rows, uint64_t second,
                          uint64_t minor, v10_err *err);
int v10_model_sort(v10_model *m, const char *name, uint64_t count, uint64_t n,
                   uint64_t topk, int payload, v10_err *err);
/* collective: an all-reduce or all-gather (kind) of `bytes` over `chips`
 * chips (0: the NPU's), or a send of `bytes` to a neighbouring chip
 * (V10_OP_SEND, chips ignored), on the link engine (V10_FU_ICI).  It moves
 * nothing through HBM: its buffers are operators' outputs in vector memory
 * (ours). */
int v10_model_collective(v10_model *m, const char *name, v10_op_kind kind, uint64_t bytes,
                         uint32_t chips,
                         v10_err *err);

/* ---- model specs (src/workloads/spec.c: above the IR, importers and cost) ---- */

/*
 * Loads a model from a spec, costed for `npu`:
 *   NAME[:batch=N]      a built-in zoo model
 *   PATH.csv[:batch=N]  an operator-trace CSV (batch is recorded only)
 *   PATH.onnx[:batch=N][:unknown=vu]  an ONNX graph (v10/onnx.h, docs/onnx.md)
 * Errors name the model, file and line.
 */
int v10_model_load(const char *spec, const v10_npu *npu, v10_model *out,
                   v10_err *err);
/* The same for a simulation (v10_run) only: an isca23/ model is served by
 * v10_isca23_load_run, whose operators carry the core's costing (what a
 * run reads of them is the same on npu) and only its total cycles npu's.
 * Load with v10_model_load whatever reports operators. */
int v10_model_load_run(const char *spec, const v10_npu *npu, v10_model *out,
                       v10_err *err);

/*
 * The files a model spec reads, for hashing its inputs: the model file (a
 * trace CSV, an ONNX graph, an llm/ JSON configuration) and its profile=
 * files; built-in models (the zoo, isca23/, llm/ presets) read none.  Calls
 * fn(path, ctx) for each and stops at the first non-zero result, which it
 * returns; -1 with err set on a malformed spec; else 0.
 */
int v10_model_spec_files(const char *spec, int (*fn)(const char *path, void *ctx), void *ctx,
                         v10_err *err);

/* The zoo: names (NULL-terminated), default batch, and construction. */
extern const char *const v10_zoo_names[];
int v10_zoo_default_batch(const char *name, uint32_t *batch);
int v10_zoo_build(const char *name, uint32_t batch, v10_model *out,
                  v10_err *err);

/* Operator-trace CSV (see docs/formats.md).  `npu` converts a `us` column to
 * cycles.  The writer emits each operator's standalone cycles (a trace
 * operator pays no further fixed cost), so re-reading the file on the same
 * NPU reproduces the profile exactly. */
int v10_trace_csv_read(const char *path, const v10_npu *npu, v10_model *out,
                       v10_err *err);
/* The same from an open stream; `path` names it in messages. */
int v10_trace_csv_parse(FILE *f, const char *path, const v10_npu *npu, v10_model *out,
                        v10_err *err);
int v10_trace_csv_write(const v10_model *m, const v10_npu *npu, FILE *f);

const char *v10_fu_name(v10_fu_type fu);

#endif
