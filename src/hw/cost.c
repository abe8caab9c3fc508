/*
 * cost.c — the operator cost model: an operator's work -> FU cycles, HBM
 * cycles, standalone duration and tiles on one NPU (docs/formats.md §3;
 * the vector unit's rules: docs/models.md, "The vector unit's cost model").
 *
 * standalone cycles = max(compute, HBM bytes / bandwidth) + issue overhead.
 * SA: GEMM on the NPU's systolic array (v10_cost_gemm_cycles, gemm.c), or
 *   its element-wise epilogue on the VU if that takes longer.
 * VU: a tensor occupies vector registers of vu_sublanes x (vu_lanes /
 *   vu_sublanes) words, its two minor dimensions padded to that tile; each
 *   output register costs the busiest of the bundle's slots — ALU ops over
 *   vu_ops_per_lane, loads and stores over the load and store slots, and
 *   cross-lane passes at vu_xlu_cycles each (a VLIW core issues them in
 *   parallel, so the slowest sets the pace).
 * Gathers issue one DMA per row, every dma_row_cycles.
 * Sorts are bitonic networks of compare-exchange stages; a top-k is the
 *   cheaper of that and k selection passes.
 */
#include "v10/cost.h"

#include <math.h>

#include "util/checked.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static double pad_to(double x, double q) { return ceil(x / q) * q; }

/* Vector registers a tensor of `elems` words occupies when its minor and
 * second-minor dimensions (0: dense) are padded to the register's tile. */
static double vu_vregs(const v10_npu *npu, double elems, uint64_t minor, uint64_t second)
{
    double lanes = npu->vu_lanes / npu->vu_sublanes ? (double)(npu->vu_lanes / npu->vu_sublanes)
                                                     : 1.0;
    double padded = elems;
    if (minor && second)
        padded = ceil(elems / ((double)minor * (double)second)) *
                 pad_to((double)second, npu->vu_sublanes) * pad_to((double)minor, lanes);
    else if (minor)
        padded = pad_to(ceil(elems / (double)minor), npu->vu_sublanes) *
                 pad_to((double)minor, lanes);
    return ceil(padded / npu->vu_lanes);
}

/* Cycles per output register of a VU op: the busiest slot. */
static double vu_slots(const v10_npu *npu, double ops, double loads, double stores, double xlu)
{
    double c = ops / npu->vu_ops_per_lane;
    double l = loads / npu->vu_load_vregs, st = stores / npu->vu_store_vregs;
    double x = xlu * npu->vu_xlu_cycles;
    if (l > c)
        c = l;
    if (st > c)
        c = st;
    return x > c ? x : c;
}

/*
 * A bitonic network over p = 2^L keys (Batcher 1968) has L(L+1)/2 stages of
 * p/2 compare-exchanges each; stage (i, j), i = 1..L, j = i-1..0, pairs keys
 * 2^j apart.  Pairs in different registers are a load, a min or max and a
 * store per register; pairs inside one register (2^j < vu_lanes) need a
 * cross-lane permute instead, while the data stays in registers.  Each key
 * costs one ALU op per stage (its min or max), two and a half with an index
 * beside it (the compare is shared, both words are selected).
 */
static double sort_cycles(const v10_npu *npu, double count, double n, int payload)
{
    double L = n > 1 ? ceil(log2(n)) : 0, p = pow(2, L), words = payload ? 2 : 1;
    double in_vreg = floor(log2((double)npu->vu_lanes)), stages_in = 0, stages = L * (L + 1) / 2;
    for (double i = 1; i <= L; i++)
        stages_in += i < in_vreg ? i : in_vreg;
    double vregs = ceil(count * p / npu->vu_lanes), ops = payload ? 2.5 : 1;
    double c_out = vu_slots(npu, ops, words, words, 0);
    double c_in = vu_slots(npu, ops, 0, 0, words);
    return vregs * ((stages - stages_in) * c_out + stages_in * c_in);
}

/* k selection passes: each a max over the keys (a load and a max per
 * register, a cross-lane pass per sort to finish) and a pass masking the
 * winner out (a compare, a select and a store per register). */
static double select_cycles(const v10_npu *npu, double count, double n, double k, int payload)
{
    double words = payload ? 2 : 1, vregs = count * ceil(n / npu->vu_lanes);
    double find = vregs * vu_slots(npu, 1, words, 0, 0) + count * npu->vu_xlu_cycles;
    double mask = vregs * vu_slots(npu, 2, words, words, 0);
    return k * (find + mask);
}

/* A tile of the VU's layout, in bytes: vu_sublanes x (vu_lanes / vu_sublanes)
 * 32-bit words (8 x 128 x 4 = 4 KiB on a TPU; a bf16 tile packs 16 x 128). */
static double tile_bytes(const v10_npu *npu) { return 4.0 * npu->vu_lanes; }

/* A gather's HBM bytes.  TPU tensors live in HBM in 8 x 128 tiles of
 * 32-bit words and a DMA reads whole tiles, so each row (a second x minor
 * slab) costs the tiles that hold it -- one 128-wide embedding row, a
 * 4 KiB tile -- and is written out as its words, the minor dimension
 * padded to the tile's lanes. */
static double gather_bytes(const v10_npu *npu, const v10_op *op)
{
    double lanes = npu->vu_lanes / npu->vu_sublanes ? (double)(npu->vu_lanes / npu->vu_sublanes)
                                                     : 1.0;
    double tiles = ceil((double)op->second / npu->vu_sublanes) * ceil((double)op->minor / lanes);
    double row = (double)op->second * pad_to((double)op->minor, lanes) * 4.0;
    return (double)op->rows * (tiles * tile_bytes(npu) + row);
}

/* The VU's compute cycles of a costed vector-unit op. */
static double vu_compute(const v10_npu *npu, const v10_op *op)
{
    switch (op->kind) {
    case V10_OP_VECTOR:
        return vu_vregs(npu, (double)op->elems, op->minor, op->second) *
               vu_slots(npu, (double)op->ops_per_elem, op->loads, 1, op->xlu);
    case V10_OP_GATHER:
        /* One DMA descriptor per row (its HBM bytes: gather_bytes). */
        return (double)op->rows * npu->dma_row_cycles;
    case V10_OP_SORT: {
        double count = (double)op->count, n = (double)op->elems / count;
        double c = sort_cycles(npu, count, n, op->payload);
        if (op->topk) {
            double s = select_cycles(npu, count, n, op->topk, op->payload);
            c = s < c ? s : c;
        }
        return c;
    }
    default:
        return 0;
    }
}

/* An SA op's element-wise epilogue on the VU (XLA's output fusion): per
 * output register its ALU ops, the registers its other inputs load, and
 * the store; the MXU's results arrive in registers. */
static double sa_epilogue(const v10_npu *npu, const v10_op *op)
{
    if (!op->ops_per_elem)
        return 0;
    return (double)op->count *
           vu_vregs(npu, (double)op->m * (double)op->n, op->n, op->m) *
           vu_slots(npu, (double)op->ops_per_elem, op->loads, 1, 0);
}

uint32_t v10_cost_issue_cycles(const v10_npu *npu, const v10_op *op)
{
    /* A collective's fixed cost is its steps' latency (in its cycles). */
    return op->kind == V10_OP_RAW || op->fu == V10_FU_ICI ? 0
                                                          : v10_npu_issue_cycles(npu, op->fu);
}

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
        op->fu = op->m <= npu->vu_dot_rows ? V10_FU_VU : V10_FU_SA;
        if (op->fu == V10_FU_VU) {
            /* Each weight register is loaded once and multiplied by the
             * m rows (an FMA each); the sums run down the sublanes. */
            double c = ceil((double)op->count * vu_vregs(npu, (double)op->k * (double)op->n,
                                                         op->n, op->k) *
                            vu_slots(npu, (double)op->m + (double)op->ops_per_elem,
                                     1 + op->loads, 1, 0));
            if (!(c < V10_U64_DOUBLE_MAX) || V10_MUL(&op->macs, op->count, op->m, op->n, op->k) ||
                v10_mul_u64(op->macs, 2, &op->flops))
                return v10_err_set(err, "operator %s: GEMM cost overflows 64 bits", op->name);
            compute = (uint64_t)c;
            tiles = ceil_div(compute ? compute : 1, npu->vu_tile_cycles);
            break;
        }
        v10_sa_mode mode = npu->sa_prefetch_weights ? V10_SA_TPU : V10_SA_SCALESIM;
        per = v10_cost_gemm_batch_cycles(op->count, op->m, op->n, op->k, npu->sa_rows,
                                         npu->sa_cols, npu->sa_dataflow, mode, &folds);
        compute = per;
        if (per == UINT64_MAX || v10_mul_u64(folds, op->count, &tiles) ||
            v10_mul_u64(op->m, op->n, &t) ||
            v10_mul_u64(t, op->k, &t) || v10_mul_u64(t, op->count, &op->macs) ||
            v10_mul_u64(op->macs, 2, &op->flops))
            return v10_err_set(err, "operator %s: GEMM cost overflows 64 bits", op->name);
        double epi = ceil(sa_epilogue(npu, op));
        if (!(epi < V10_U64_DOUBLE_MAX))
            return v10_err_set(err, "operator %s: GEMM epilogue overflows 64 bits", op->name);
        if ((uint64_t)epi > compute)
            compute = (uint64_t)epi;
        break;
    }
    case V10_OP_VECTOR:
    case V10_OP_GATHER:
    case V10_OP_SORT: {
        double c = ceil(vu_compute(npu, op));
        if (!(c < V10_U64_DOUBLE_MAX))
            return v10_err_set(err, "operator %s: vector work overflows 64 bits", op->name);
        compute = (uint64_t)c;
        if (op->kind == V10_OP_GATHER) {
            double b = gather_bytes(npu, op);
            if (!(b < V10_U64_DOUBLE_MAX))
                return v10_err_set(err, "operator %s: gather bytes overflow 64 bits", op->name);
            op->hbm_bytes = (uint64_t)b;
        }
        if (op->kind == V10_OP_SORT) {
            /* One ALU op per key per network stage. */
            double L = op->elems > op->count ? ceil(log2((double)op->elems / (double)op->count)) : 0;
            op->flops = (uint64_t)fmin((double)op->elems * L * (L + 1) / 2, V10_U64_DOUBLE_MAX);
        } else if (op->kind == V10_OP_VECTOR &&
                 v10_mul_u64(op->elems, op->ops_per_elem, &op->flops))
            return v10_err_set(err, "operator %s: vector work overflows 64 bits", op->name);
        tiles = ceil_div(compute ? compute : 1, npu->vu_tile_cycles);
        break;
    }
    case V10_OP_ALLREDUCE:
    case V10_OP_ALLGATHER:
    case V10_OP_SEND: {
        /* The link engine's ring over the op's group
         * (v10_npu_collective_cycles); each step a preemption point, its
         * data sent.  A send is one step.  Nothing of either on one chip. */
        int all = op->kind == V10_OP_ALLREDUCE;
        uint32_t N = op->chips ? op->chips : npu->chips;
        op->fu = V10_FU_ICI;
        compute = op->kind == V10_OP_SEND ? v10_npu_send_cycles(npu, op->elems)
                                          : v10_npu_collective_cycles(npu, N, all, op->elems);
        if (compute == UINT64_MAX)
            return v10_err_set(err, "operator %s: collective overflows 64 bits", op->name);
        tiles = N > 1 && op->kind != V10_OP_SEND ? (all ? 2 : 1) * (uint64_t)(N - 1) : 1;
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
    if (v10_add_u64(body, v10_cost_issue_cycles(npu, op), &op->cycles))
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
    return body < V10_U64_DOUBLE_MAX ? (uint64_t)body + v10_cost_issue_cycles(npu, op)
                                     : UINT64_MAX;
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
    return body + v10_cost_issue_cycles(npu, op);
}

double v10_cost_activity(const v10_npu *npu, const v10_op *op, uint64_t work)
{
    double act;
    if (op->kind == V10_OP_GATHER)
        act = 0;
    else if (op->fu == V10_FU_SA && (op->kind == V10_OP_GEMM || op->macs))
        act = (double)op->macs / ((double)npu->sa_rows * npu->sa_cols);
    else if (op->fu == V10_FU_VU && (op->kind == V10_OP_VECTOR || op->flops))
        act = (double)op->flops / ((double)npu->vu_lanes * npu->vu_ops_per_lane);
    else
        act = (double)op->compute_cycles;
    act /= (double)(work ? work : 1);
    return act < 1 ? act : 1;
}

uint32_t v10_cost_engines(const v10_npu *npu, v10_fu_type fu)
{
    if (npu->op_mapping == V10_MAP_ONE || fu == V10_FU_ICI) /* one link engine a chip */
        return 1;
    return fu == V10_FU_SA ? npu->sa_count : npu->vu_count;
}

/* Operator op alone on npu as its op_mapping runs it: its compute over
 * the engines of its type (*compute), and its cycles, the issue included;
 * UINT64_MAX if they overflow. */
static uint64_t mapped_cycles(const v10_npu *npu, const v10_op *op, uint64_t *compute)
{
    uint64_t c = v10_cost_split_compute(op, v10_cost_engines(npu, op->fu)), cycles;
    uint64_t body = c > op->mem_cycles ? c : op->mem_cycles;
    *compute = c;
    if (c == UINT64_MAX || v10_add_u64(body, v10_cost_issue_cycles(npu, op), &cycles))
        return UINT64_MAX;
    return cycles;
}

int v10_cost_map_model(const v10_npu *npu, v10_model *m, v10_err *err)
{
    if (npu->op_mapping == V10_MAP_ONE)
        return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        v10_op *op = &m->ops[i];
        uint64_t c, cycles = mapped_cycles(npu, op, &c);
        if (cycles == UINT64_MAX || v10_add_u64(total, cycles, &total))
            return v10_err_set(err, "model %s: latency overflows 64 bits", m->name);
        op->cycles = cycles;
        op->compute_cycles = c;
    }
    m->total_cycles = total;
    return 0;
}

uint64_t v10_cost_alone_cycles(const v10_npu *npu, const v10_model *m)
{
    if (npu->op_mapping == V10_MAP_ONE)
        return v10_model_cycles(m);
    uint64_t total = 0, c;
    for (size_t i = 0; i < m->n_ops; i++) {
        uint64_t cycles = mapped_cycles(npu, &m->ops[i], &c);
        if (cycles == UINT64_MAX || v10_add_u64(total, cycles, &total))
            return UINT64_MAX;
    }
    return total;
}
