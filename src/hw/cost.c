/*
 * cost.c — the operator cost model: an operator's work -> FU cycles, HBM
 * cycles, standalone duration and tiles on one NPU (docs/formats.md §3).
 *
 * standalone cycles = max(compute, HBM bytes / bandwidth) + issue overhead.
 * SA: GEMM on the NPU's systolic array (v10_cost_gemm_cycles, gemm.c).
 * VU: elements x ops per element / (lanes x ops per lane per cycle).
 * Gathers move one element per lane per cycle and are HBM bound.
 */
#include "v10/cost.h"

#include <math.h>

#include "util/checked.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

int v10_cost_op(const v10_npu *npu, v10_op *op, v10_err *err)
{
    uint64_t compute = 0, tiles = 1;
    if (op->kind != V10_OP_RAW) {
        op->macs = 0;
        op->flops = 0;
    }
    switch (op->kind) {
    case V10_OP_GEMM: {
        uint64_t folds, per, t;
        v10_sa_mode mode = npu->sa_prefetch_weights ? V10_SA_TPU : V10_SA_SCALESIM;
        per = v10_cost_gemm_cycles(op->m, op->n, op->k, npu->sa_rows, npu->sa_cols,
                                   npu->sa_dataflow, mode, &folds);
        if (per == UINT64_MAX || v10_mul_u64(per, op->count, &compute) ||
            v10_mul_u64(folds, op->count, &tiles) || v10_mul_u64(op->m, op->n, &t) ||
            v10_mul_u64(t, op->k, &t) || v10_mul_u64(t, op->count, &op->macs) ||
            v10_mul_u64(op->macs, 2, &op->flops))
            return v10_err_set(err, "operator %s: GEMM cost overflows 64 bits", op->name);
        break;
    }
    case V10_OP_VECTOR:
    case V10_OP_GATHER: {
        uint64_t per_cycle = (uint64_t)npu->vu_lanes * npu->vu_ops_per_lane;
        if (v10_mul_u64(op->elems, op->ops_per_elem, &op->flops))
            return v10_err_set(err, "operator %s: vector work overflows 64 bits", op->name);
        compute = op->kind == V10_OP_GATHER ? ceil_div(op->elems, npu->vu_lanes)
                                            : ceil_div(op->flops, per_cycle);
        if (op->kind == V10_OP_GATHER)
            op->flops = 0;
        tiles = ceil_div(compute ? compute : 1, npu->vu_tile_cycles);
        break;
    }
    case V10_OP_RAW:
        compute = op->given_cycles;
        tiles = op->given_tiles ? op->given_tiles
                                : ceil_div(compute ? compute : 1, npu->vu_tile_cycles);
        break;
    }
    if (tiles > UINT32_MAX)
        tiles = UINT32_MAX; /* a preemption point every 2^32th of the op is plenty */
    op->compute_cycles = compute;
    double spill = (double)v10_cost_spill_bytes(op, npu->vmem_bytes);
    double mem = ceil(((double)op->hbm_bytes + spill) / v10_npu_hbm_bytes_per_cycle(npu));
    if (!(mem < V10_U64_DOUBLE_MAX) || !(spill < V10_U64_DOUBLE_MAX))
        return v10_err_set(err, "operator %s: HBM time overflows 64 bits", op->name);
    op->spill_bytes = (uint64_t)spill;
    op->mem_cycles = (uint64_t)mem;
    uint64_t body = compute > op->mem_cycles ? compute : op->mem_cycles;
    if (v10_add_u64(body, npu->issue_cycles, &op->cycles))
        return v10_err_set(err, "operator %s: duration overflows 64 bits", op->name);
    op->tiles = (uint32_t)(tiles ? tiles : 1);
    return 0;
}

uint64_t v10_cost_stall_cycles(const v10_op *op)
{
    return op->mem_cycles > op->compute_cycles ? op->mem_cycles - op->compute_cycles : 0;
}

double v10_cost_stallfree_gbps(const v10_npu *npu, const v10_op *op)
{
    if (!op->compute_cycles)
        return 0;
    double bytes = (double)op->hbm_bytes + (double)op->spill_bytes;
    return bytes / (double)op->compute_cycles * npu->clock_mhz * 1e6 / 1e9;
}

int v10_cost_model(const v10_npu *npu, v10_model *m, v10_err *err)
{
    uint64_t total = 0;
    m->total_cycles = 0; /* unknown until every op is costed */
    for (size_t i = 0; i < m->n_ops; i++) {
        if (v10_cost_op(npu, &m->ops[i], err))
            return v10_err_prefix(err, "model %s", m->name);
        if (v10_add_u64(total, m->ops[i].cycles, &total))
            return v10_err_set(err, "model %s: latency overflows 64 bits", m->name);
    }
    m->total_cycles = total;
    return 0;
}

uint64_t v10_model_cycles(const v10_model *m)
{
    if (m->total_cycles) /* a detector's 10^6 ops are summed once, not per run */
        return m->total_cycles;
    uint64_t total = 0;
    for (size_t i = 0; i < m->n_ops; i++)
        total += m->ops[i].cycles;
    return total;
}

uint64_t v10_cost_spill_bytes(const v10_op *op, uint64_t share_bytes)
{
    if (op->vmem_bytes <= share_bytes || share_bytes == 0)
        return 0;
    double chunks = ceil((double)op->vmem_bytes / (double)share_bytes);
    double extra = (chunks - 1) * (double)op->restream_bytes;
    return extra < V10_U64_DOUBLE_MAX ? (uint64_t)extra : UINT64_MAX;
}

uint64_t v10_cost_split_compute(const v10_op *op, uint32_t k)
{
    uint64_t tiles = op->tiles ? op->tiles : 1;
    uint64_t per = ceil_div(tiles, k ? k : 1); /* tiles on the busiest engine */
    double compute = ceil((double)op->compute_cycles * (double)per / (double)tiles);
    return compute < V10_U64_DOUBLE_MAX ? (uint64_t)compute : UINT64_MAX;
}

uint64_t v10_cost_split_cycles(const v10_npu *npu, const v10_op *op, uint64_t bytes, uint32_t k)
{
    double compute = (double)v10_cost_split_compute(op, k);
    double mem = ceil((double)bytes / v10_npu_hbm_bytes_per_cycle(npu));
    double body = compute > mem ? compute : mem;
    return body < V10_U64_DOUBLE_MAX ? (uint64_t)body + npu->issue_cycles : UINT64_MAX;
}

uint64_t v10_cost_shared_cycles(const v10_npu *npu, const v10_op *op, uint64_t share_bytes,
                                uint64_t *bytes)
{
    double total = (double)op->hbm_bytes + (double)v10_cost_spill_bytes(op, share_bytes);
    double mem = ceil(total / v10_npu_hbm_bytes_per_cycle(npu));
    if (mem > V10_U64_DOUBLE_MAX)
        mem = V10_U64_DOUBLE_MAX;
    *bytes = total < V10_U64_DOUBLE_MAX ? (uint64_t)total : UINT64_MAX;
    uint64_t body = op->compute_cycles > (uint64_t)mem ? op->compute_cycles : (uint64_t)mem;
    return body + npu->issue_cycles;
}

uint32_t v10_cost_engines(const v10_npu *npu, v10_fu_type fu)
{
    if (npu->op_mapping == V10_MAP_ONE)
        return 1;
    return fu == V10_FU_SA ? npu->sa_count : npu->vu_count;
}

int v10_cost_map_model(const v10_npu *npu, v10_model *m, v10_err *err)
{
    if (npu->op_mapping == V10_MAP_ONE)
        return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        v10_op *op = &m->ops[i];
        uint64_t c = v10_cost_split_compute(op, v10_cost_engines(npu, op->fu));
        uint64_t body = c > op->mem_cycles ? c : op->mem_cycles;
        if (c == UINT64_MAX || v10_add_u64(body, npu->issue_cycles, &op->cycles) ||
            v10_add_u64(total, op->cycles, &total))
            return v10_err_set(err, "model %s: latency overflows 64 bits", m->name);
        op->compute_cycles = c;
    }
    m->total_cycles = total;
    return 0;
}
