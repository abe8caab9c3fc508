/*
 * cost.h — the operator cost model, the one place that turns an operator's
 * work into cycles on an NPU (docs/formats.md §3 states the formula).
 */
#ifndef V10_COST_H
#define V10_COST_H

#include <stdint.h>

#include "v10/model.h"
#include "v10/npu.h"

/* SA timing mode. */
typedef enum v10_sa_mode {
    V10_SA_TPU = 0,  /* next fold's weights load while the current streams */
    V10_SA_SCALESIM, /* SCALE-Sim v2 compute cycles: no overlap of loads */
} v10_sa_mode;

/* Compute cycles of one (M x K)(K x N) GEMM on an rows x cols array with
 * ideal memory; folds (array mappings) returned through *folds if non-NULL. */
uint64_t v10_cost_gemm_cycles(uint64_t M, uint64_t N, uint64_t K,
                              uint32_t rows, uint32_t cols, v10_dataflow df,
                              v10_sa_mode mode, uint64_t *folds);

/* `count` independent GEMMs of that shape one after another: SCALE-Sim
 * mode runs each alone (count x the above); TPU mode keeps loading the
 * next fold's weights while the current one streams, across products, so
 * the pipeline fills and drains once.  *folds gets one product's. */
uint64_t v10_cost_gemm_batch_cycles(uint64_t count, uint64_t M, uint64_t N, uint64_t K,
                                    uint32_t rows, uint32_t cols, v10_dataflow df,
                                    v10_sa_mode mode, uint64_t *folds);

/* Fills the cost fields of *op for `npu` (default TPU mode).  A GEMM of
 * at most npu->vu_dot_rows rows is costed on the VU (op->fu set to it) as
 * a multiply and a reduce over its weights; every other op keeps its FU.  Returns -1
 * with err set if a figure would overflow 64 bits. */
int v10_cost_op(const v10_npu *npu, v10_op *op, v10_err *err);

/* The fixed cost added to op's duration: its FU type's issue cycles
 * (v10_npu_issue_cycles), or 0 for a trace operator, whose cycles are its
 * whole standalone duration. */
uint32_t v10_cost_issue_cycles(const v10_npu *npu, const v10_op *op);

/* Costs every op of a model. */
int v10_cost_model(const v10_npu *npu, v10_model *m, v10_err *err);

/* Standalone latency of one request (sum of op cycles). */
uint64_t v10_model_cycles(const v10_model *m);

/*
 * Vector-memory sharing.  A GEMM keeps its smaller operand (vmem_bytes)
 * resident and streams the other (restream_bytes) past it; when the
 * resident operand exceeds the tenant's share it is split into
 * ceil(vmem_bytes / share) chunks and the other operand is streamed once
 * per chunk (classic blocking).  Returns the extra HBM bytes.
 */
uint64_t v10_cost_spill_bytes(const v10_op *op, uint64_t share_bytes);

/* Standalone cycles of a costed op split over k engines of its FU type
 * (op_mapping "all", docs/design.md "Operators over several engines"):
 * its tiles are divided, ceil(tiles / k) per engine, so its compute is
 * ceil(compute_cycles x ceil(tiles / k) / tiles); its `bytes` of HBM
 * traffic take as long as on one engine.  max(compute, HBM) + issue, as
 * v10_cost_op; k = 1 gives v10_cost_shared_cycles' figure for those bytes. */
uint64_t v10_cost_split_cycles(const v10_npu *npu, const v10_op *op, uint64_t bytes, uint32_t k);
/* Its compute alone over k engines: ceil(compute_cycles x ceil(tiles / k) / tiles). */
uint64_t v10_cost_split_compute(const v10_op *op, uint32_t k);

/* Operator op's cycles of full activity (docs/energy.md) per unit of its
 * `work`, standalone cycles: a GEMM's MACs over the array's PEs, a vector
 * operator's ALU ops over the lanes' ops a cycle, none for a gather (its
 * bytes draw the memories' energy); a trace's operator from its MACs (SA)
 * or FLOPs (VU) when it gives them, else its compute cycles; at most 1.
 * Dynamic energy is charged at this rate as the operator's work is done. */
double v10_cost_activity(const v10_npu *npu, const v10_op *op, uint64_t work);

/* The engines of type `fu` one operator runs on when its tenant has the
 * core to itself: 1 under op_mapping "one", else every engine of the type
 * (under "alloc" and "harvest" a lone tenant's allocation is all of them). */
uint32_t v10_cost_engines(const v10_npu *npu, v10_fu_type fu);

/*
 * A costed model as it runs alone on `npu` (what `profile` and `models`
 * report): each operator's compute and duration split over
 * v10_cost_engines of its type (v10_cost_split_cycles, the engine's gang
 * rule), its HBM time unchanged; a no-op under "one".  The description
 * (tiles, MACs, compute of one engine) is lost from compute_cycles, so
 * write an operator-trace CSV from the unmapped model.  -1 with err set
 * if a figure overflows 64 bits.
 */
int v10_cost_map_model(const v10_npu *npu, v10_model *m, v10_err *err);
/* The cycles of one request of costed model m alone on npu, each operator
 * as v10_cost_map_model maps it (its total without changing m): the
 * latency a solo run measures, against which progress is normalized;
 * v10_model_cycles under "one".  UINT64_MAX if it overflows. */
uint64_t v10_cost_alone_cycles(const v10_npu *npu, const v10_model *m);
/* *m as it runs alone on `npu` (v10_cost_map_model), taking its own copy
 * first if its operators are a cache's (m->shared); nothing under
 * op_mapping "one".  On failure *m is freed. */
int v10_cost_map_alone(const v10_npu *npu, v10_model *m, v10_err *err);

/* Standalone cycles of a costed op when its tenant holds `share_bytes` of
 * vector memory; *bytes gets its HBM traffic including spills.  With
 * share_bytes = npu->vmem_bytes this equals op->cycles. */
uint64_t v10_cost_shared_cycles(const v10_npu *npu, const v10_op *op, uint64_t share_bytes,
                                uint64_t *bytes);

/* A costed op alone: the cycles it waits on HBM beyond its compute
 * (mem_cycles - compute_cycles, or 0), and the HBM bandwidth in GB/s it
 * would need to run without them, (hbm + spill bytes) / compute time, as
 * SCALE-Sim reports a layer's stall-free DRAM bandwidth (0 for an op
 * with no compute). */
uint64_t v10_cost_stall_cycles(const v10_op *op);
double v10_cost_stallfree_gbps(const v10_npu *npu, const v10_op *op);

#endif
