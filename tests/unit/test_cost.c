/*
 * test_cost.c — the operator cost model against closed forms: the VU's
 * slots, padded tiles, bitonic sorts and top-k, row gathers, SA epilogues
 * and VU dot products, the HBM roofline, max(compute, memory) + issue on
 * every op of every zoo model, tiles, and overflow as an error rather than
 * a wrap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "util/checked.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/npu.h"

static v10_npu npu_default(void)
{
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    return n;
}

/* ceil(bytes / (330e9 / 700e6)) = ceil(bytes * 7 / 3300), exactly. */
static uint64_t isca23_mem_cycles(uint64_t bytes)
{
    return (bytes * 7 + 3299) / 3300;
}

/* One VU op of the v10-isca23 core (1024 lanes as 8 sublanes x 128, 2 ALU
 * ops a lane, one vreg load and one store a cycle): checks cycles =
 * max(compute, HBM) + vu_issue_cycles, tiles and FLOPs around `compute`. */
static void check_vu_op(const v10_npu *npu, const v10_op *op, uint64_t compute)
{
    assert_int_equal(op->fu, V10_FU_VU);
    assert_int_equal(op->compute_cycles, compute);
    assert_int_equal(op->mem_cycles, isca23_mem_cycles(op->hbm_bytes));
    uint64_t body = compute > op->mem_cycles ? compute : op->mem_cycles;
    assert_int_equal(op->cycles, body + npu->vu_issue_cycles);
    assert_int_equal(op->tiles, (compute + npu->vu_tile_cycles - 1) / npu->vu_tile_cycles);
}

static v10_op cost_vec(const v10_npu *npu, const v10_vec_desc *d)
{
    v10_err err;
    v10_model m;
    v10_model_init(&m, "vu", 1);
    assert_int_equal(v10_model_vec(&m, "v", d, &err), 0);
    assert_int_equal(v10_cost_model(npu, &m, &err), 0);
    v10_op op = m.ops[0];
    v10_model_fini(&m);
    return op;
}

/*
 * A dense VU op: ceil(elems / 1024) vregs, each as long as its busiest
 * slot: ALU ops / 2, vregs loaded / 1, the store / 1, cross-lane passes x
 * vu_xlu_cycles (docs/models.md, "The vector unit's cost model").
 */
static void vu_slots_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    static const uint64_t ks[] = {1, 2, 7, 100, 1000, 123457};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        uint64_t k = ks[i];
        /* 2048 elements x k ops: 2 vregs x max(k / 2, 1 store) */
        v10_op a = cost_vec(&npu, &(v10_vec_desc){.elems = 2048, .ops = k});
        check_vu_op(&npu, &a, k == 1 ? 2 : k);
        assert_int_equal(a.flops, 2048 * k);
        /* 2048 k elements x 1 op: store-bound, a cycle a vreg */
        v10_op b = cost_vec(&npu, &(v10_vec_desc){.elems = 2048 * k, .ops = 1});
        check_vu_op(&npu, &b, 2 * k);
    }
    /* three inputs, two ops: load-bound, 3 cycles a vreg; 6 window taps, 6 */
    v10_op c = cost_vec(&npu, &(v10_vec_desc){.elems = 4096, .ops = 2, .in_tensors = 3});
    check_vu_op(&npu, &c, 4 * 3);
    assert_int_equal(c.hbm_bytes, 4096 * 4 * 2); /* three inputs and the output, bf16 */
    v10_op d = cost_vec(&npu, &(v10_vec_desc){.elems = 4096, .ops = 2, .in_tensors = 1,
                                             .loads = 6});
    check_vu_op(&npu, &d, 4 * 6);
    /* four cross-lane passes a vreg (a softmax's max and sum, say) */
    v10_op e = cost_vec(&npu, &(v10_vec_desc){.elems = 4096, .ops = 2, .xlu = 4});
    check_vu_op(&npu, &e, 4 * 4 * npu.vu_xlu_cycles);
    /* a VU with twice the lanes halves an ALU-bound op */
    v10_npu wide = npu;
    wide.vu_lanes *= 2;
    v10_op f = cost_vec(&wide, &(v10_vec_desc){.elems = 2048, .ops = 1000});
    assert_int_equal(f.compute_cycles, 500);
}

/*
 * Small tensors pad to the 8 x 128 register tile: a tensor of shape
 * [n, second, minor] takes n x pad8(second) x pad128(minor) / 1024 vregs.
 */
static void padded_tile_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    /* 1000 scalars, each its own 1 x 1 tensor: a vreg each */
    v10_op a = cost_vec(&npu, &(v10_vec_desc){.elems = 1000, .ops = 2, .minor = 1,
                                             .second = 1});
    check_vu_op(&npu, &a, 1000);
    /* 5 x [9 x 130]: 5 x 16 x 256 / 1024 = 20 vregs (dense: 6) */
    v10_op b = cost_vec(&npu, &(v10_vec_desc){.elems = 5 * 9 * 130, .ops = 2, .minor = 130,
                                             .second = 9});
    check_vu_op(&npu, &b, 20);
    /* minor only: 1000 elements as 100 rows of 10, padded to 104 x 128 */
    v10_op c = cost_vec(&npu, &(v10_vec_desc){.elems = 1000, .ops = 2, .minor = 10});
    check_vu_op(&npu, &c, 13);
    /* a tile-aligned tensor costs what the dense one does */
    v10_op d = cost_vec(&npu, &(v10_vec_desc){.elems = 64 * 8 * 128, .ops = 2, .minor = 128,
                                             .second = 8});
    check_vu_op(&npu, &d, 64);
}

/*
 * A bitonic sort of n keys (Batcher): p = 2^ceil(log2 n) keys, L = log2 p,
 * L(L+1)/2 stages of p/2 compare-exchanges, n log^2 n in all.  Each stage
 * is one pass over the ceil(p / 1024) vregs at one cycle a vreg (a load and
 * a store, or a cross-lane permute inside a vreg); keys with an index
 * beside them take two.  A top-k is the cheaper of that and k passes of a
 * max (a load a vreg, a cross-lane reduce) and a masking (compare, select,
 * store): k (2 vregs + 1).
 */
static void sort_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    static const struct { uint64_t n, topk; int payload; uint64_t want; } c[] = {
        {1u << 16, 0, 0, 64 * 136},        /* L = 16: 136 stages over 64 vregs */
        {1u << 16, 0, 1, 2 * 64 * 136},    /* with indices */
        {1000, 0, 0, 55},                  /* padded to 1024 keys: L = 10 */
        {1u << 16, 4, 0, 4 * (2 * 64 + 1)}, /* top-4 by selection */
        {1u << 16, 100, 0, 64 * 136},       /* top-100: the sort is cheaper */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        v10_model m;
        v10_model_init(&m, "sort", 1);
        assert_int_equal(v10_model_sort(&m, "s", 1, c[i].n, c[i].topk, c[i].payload, &err), 0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        check_vu_op(&npu, &m.ops[0], c[i].want);
        /* the keys read once, the kept ones (and their indices) written */
        uint64_t kept = c[i].topk ? c[i].topk : c[i].n;
        assert_int_equal(m.ops[0].hbm_bytes, 4 * c[i].n + 4 * kept * (c[i].payload ? 2 : 1));
        v10_model_fini(&m);
    }
    /* 32 independent sorts of 2^16 keys: 32 x the one */
    v10_model m;
    v10_model_init(&m, "sort", 1);
    assert_int_equal(v10_model_sort(&m, "s", 32, 1u << 16, 0, 0, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    assert_int_equal(m.ops[0].compute_cycles, 32 * 64 * 136);
    assert_int_equal(m.ops[0].flops, 32ull * 65536 * 136); /* a min or max a key a stage */
    v10_model_fini(&m);
}

/*
 * A gather of r rows of d words: one DMA descriptor per row, every
 * dma_row_cycles; each reads the whole 8 x 128 tiles that hold its row
 * (4 KiB for d <= 128) and writes the row out padded to 128 lanes.
 */
static void gather_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    static const struct { uint64_t rows, dim, bytes_per_row; } g[] = {
        {1000, 64, 4096 + 128 * 4},   /* one tile, the row padded to 128 */
        {26, 128, 4096 + 128 * 4},
        {7, 300, 3 * 4096 + 384 * 4}, /* three tiles across */
    };
    for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
        v10_model m;
        v10_model_init(&m, "gather", 1);
        assert_int_equal(v10_model_gather(&m, "e", g[i].rows, g[i].dim, &err), 0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        assert_int_equal(m.ops[0].hbm_bytes, g[i].rows * g[i].bytes_per_row);
        check_vu_op(&npu, &m.ops[0], g[i].rows * npu.dma_row_cycles);
        v10_model_fini(&m);
    }
    /* a slab of 16 x 256 a row (a beam's cache): 2 x 2 tiles, 16 x 256 words */
    v10_model m;
    v10_model_init(&m, "slab", 1);
    assert_int_equal(v10_model_gather_slab(&m, "c", 10, 16, 256, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    assert_int_equal(m.ops[0].hbm_bytes, 10 * (4 * 4096 + 16 * 256 * 4));
    check_vu_op(&npu, &m.ops[0], 10 * npu.dma_row_cycles);
    v10_model_fini(&m);
}

/*
 * An SA op's fused epilogue (XLA's output fusion) runs on the VU as the
 * results leave the array: the op takes max(GEMM, epilogue), the epilogue
 * being ceil(M / 8) x ceil(N / 128) output vregs x its busiest slot.  A
 * cheap epilogue hides; a 40-op one (a GELU, a layer norm's tail) sets the
 * length of a 4096 x 128 x 128 product.
 */
static void sa_epilogue_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    uint64_t per = v10_cost_gemm_cycles(4096, 128, 128, 128, 128, V10_DF_WS, V10_SA_TPU, NULL);
    static const struct { uint64_t ops; uint32_t in; uint64_t epi; } e[] = {
        {2, 1, 512},      /* bias add + ReLU: 512 vregs x 1 */
        {40, 1, 512 * 20}, /* 40 ALU ops: 20 cycles a vreg */
        {2, 4, 512 * 3},  /* three extra inputs loaded: 3 a vreg */
    };
    for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
        v10_model m;
        v10_model_init(&m, "epi", 1);
        assert_int_equal(v10_model_gemm(&m, "g", 1, 4096, 128, 128, 1, &err), 0);
        assert_int_equal(v10_model_vec(&m, "act", &(v10_vec_desc){.elems = 4096 * 128,
                                                                   .ops = e[i].ops,
                                                                   .in_tensors = e[i].in,
                                                                   .fuse = V10_FUSE_SA},
                                       &err),
                         0);
        assert_int_equal(m.n_ops, 1); /* folded into the GEMM */
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        const v10_op *op = &m.ops[0];
        assert_int_equal(op->fu, V10_FU_SA);
        assert_int_equal(op->compute_cycles, per > e[i].epi ? per : e[i].epi);
        assert_int_equal(op->macs, 4096ull * 128 * 128); /* the epilogue adds no MACs */
        v10_model_fini(&m);
    }
    assert_true(per > 512 && per < 512 * 20);
}

/*
 * A GEMM of at most vu_dot_rows (8) rows runs on the VU, as XLA emits a
 * matrix-vector product: each of the K x N weights' vregs is loaded once
 * and multiplied by the M rows (an FMA a row), ceil(K N / 1024) x
 * max(M / 2, 1 load, 1 store) cycles; 9 rows go to the SA.
 */
static void vu_dot_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    static const struct { uint64_t m; uint64_t want; } d[] = {
        {1, 16384}, {2, 16384}, {4, 2 * 16384}, {8, 4 * 16384},
    };
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        v10_model m;
        v10_model_init(&m, "dot", 1);
        assert_int_equal(v10_model_gemm(&m, "g", 1, d[i].m, 4096, 4096, 1, &err), 0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        check_vu_op(&npu, &m.ops[0], d[i].want);
        assert_int_equal(m.ops[0].macs, d[i].m * 4096 * 4096);
        v10_model_fini(&m);
    }
    v10_model m;
    v10_model_init(&m, "dot", 1);
    assert_int_equal(v10_model_gemm(&m, "g", 1, 9, 4096, 4096, 1, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    assert_int_equal(m.ops[0].fu, V10_FU_SA);
    /* with vu_dot_rows 0 every GEMM stays on the SA */
    v10_npu sa_only = npu;
    sa_only.vu_dot_rows = 0;
    v10_model_fini(&m);
    v10_model_init(&m, "dot", 1);
    assert_int_equal(v10_model_gemm(&m, "g", 1, 1, 4096, 4096, 1, &err), 0);
    assert_int_equal(v10_cost_model(&sa_only, &m, &err), 0);
    assert_int_equal(m.ops[0].fu, V10_FU_SA);
    v10_model_fini(&m);
}

/* A trace's operator costs its given cycles (they include its issue);
 * a costed one adds its FU's issue cycles. */
static void issue_per_fu(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    v10_op op;
    memset(&op, 0, sizeof op);
    op.fu = V10_FU_VU;
    op.kind = V10_OP_RAW;
    op.given_cycles = 5000;
    assert_int_equal(v10_cost_op(&npu, &op, &err), 0);
    assert_int_equal(op.cycles, 5000);
    assert_int_equal(v10_cost_issue_cycles(&npu, &op), 0);
    op.kind = V10_OP_VECTOR;
    assert_int_equal(v10_cost_issue_cycles(&npu, &op), npu.vu_issue_cycles);
    op.fu = V10_FU_SA;
    op.kind = V10_OP_GEMM;
    assert_int_equal(v10_cost_issue_cycles(&npu, &op), npu.issue_cycles);
}

/* A GEMM with huge traffic is memory bound: ceil(bytes / bytes per cycle) +
 * issue; doubling the bandwidth halves the memory time. */
static void hbm_roofline(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    v10_model m;
    v10_model_init(&m, "mem", 1);
    assert_int_equal(v10_model_gemm(&m, "fc", 1, 256, 256, 256, 1, &err), 0);
    v10_op op = m.ops[0];
    op.hbm_bytes = 1000000000001ull; /* not a multiple of anything nice */
    op.vmem_bytes = 0;
    assert_int_equal(v10_cost_op(&npu, &op, &err), 0);
    assert_true(op.compute_cycles < op.mem_cycles);
    assert_int_equal(op.mem_cycles, isca23_mem_cycles(op.hbm_bytes));
    assert_int_equal(op.cycles, isca23_mem_cycles(op.hbm_bytes) + npu.issue_cycles);
    v10_npu fast = npu;
    fast.hbm_gbps *= 2;
    v10_op op2 = op;
    assert_int_equal(v10_cost_op(&fast, &op2, &err), 0);
    assert_int_equal(op2.mem_cycles, (op.hbm_bytes * 7 + 6599) / 6600);
    assert_int_equal(op2.compute_cycles, op.compute_cycles);
    /* the same GEMM with its real traffic is compute bound */
    assert_int_equal(v10_cost_op(&npu, &m.ops[0], &err), 0);
    assert_true(m.ops[0].compute_cycles > m.ops[0].mem_cycles);
    assert_int_equal(m.ops[0].cycles, m.ops[0].compute_cycles + npu.issue_cycles);
    v10_model_fini(&m);
}

/*
 * One GEMM over k engines (op_mapping "all", v10_cost_split_cycles) on
 * tpuv4-core (4 SAs of 128x128, 1050 MHz, 600 GB/s).  A prefill-like
 * (2048 x 512)(512 x 512): 4 x 4 = 16 folds, compute R + 15 x M + M + R + C
 * - 2 = 128 + 30720 + 2048 + 254 = 33150 cycles; over k engines
 * ceil(33150 x ceil(16 / k) / 16): 8288 (k = 4), 12432 (k = 3), 16575
 * (k = 2), each above its HBM time.  A decode-like (1 x 4096)(4096 x 4096): 1024 folds of 128 cycles
 * (the weight load, double-buffered), 128 + 1023 x 128 + 1 + 254 = 131327;
 * compute bound on one SA, HBM bound on four (32832 compute cycles against
 * its 33.6 MB at 600e9 / 1050e6 bytes per cycle).  k = 1 is the op's cost.
 */
static void split_closed_form(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_preset("tpuv4-core", &npu, &err), 0);
    npu.vu_dot_rows = 0; /* the 1-row product on the SA, as a GEMM */
    v10_model m;
    v10_model_init(&m, "split", 1);
    assert_int_equal(v10_model_gemm(&m, "prefill", 1, 2048, 512, 512, 1, &err), 0);
    assert_int_equal(v10_model_gemm(&m, "decode", 1, 1, 4096, 4096, 1, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    const v10_op *p = &m.ops[0], *d = &m.ops[1];
    assert_int_equal(p->compute_cycles, 33150);
    assert_int_equal(p->tiles, 16);
    assert_true(p->mem_cycles < 8288);
    static const uint64_t want[] = {0, 33150, 16575, 12432, 8288};
    for (uint32_t k = 1; k <= 4; k++)
        assert_int_equal(v10_cost_split_cycles(&npu, p, p->hbm_bytes, k),
                         want[k] + npu.issue_cycles);
    assert_int_equal(v10_cost_split_cycles(&npu, p, p->hbm_bytes, 1), p->cycles);
    assert_int_equal(d->compute_cycles, 131327);
    assert_int_equal(d->tiles, 1024);
    double bpc = 600e9 / 1050e6;
    uint64_t mem = (uint64_t)ceil((double)d->hbm_bytes / bpc);
    assert_int_equal(d->mem_cycles, mem);
    assert_true(mem > 32832 && mem < 131327);
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 1), 131327 + npu.issue_cycles);
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 4), mem + npu.issue_cycles);
    /* 64 engines: still no faster than the HBM */
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 64), mem + npu.issue_cycles);
    v10_model_fini(&m);
}

/*
 * A model as it runs alone (v10_cost_map_model, what profile and models
 * report): on tpuv4-core ("all") each operator is split over the engines
 * of its type, 4 SAs and 1 VU, so the prefill-like GEMM above takes 8288
 * + issue cycles, the decode-like one its HBM time, and a VU operator what it
 * takes on one VU; under "one" nothing changes.
 */
static void map_model_alone(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_preset("tpuv4-core", &npu, &err), 0);
    assert_int_equal(npu.op_mapping, V10_MAP_ALL);
    npu.vu_dot_rows = 0; /* the 1-row product on the SAs, as a GEMM */
    assert_int_equal(v10_cost_engines(&npu, V10_FU_SA), 4);
    assert_int_equal(v10_cost_engines(&npu, V10_FU_VU), 1);
    v10_model m, one;
    v10_model_init(&m, "map", 1);
    assert_int_equal(v10_model_gemm(&m, "prefill", 1, 2048, 512, 512, 1, &err), 0);
    assert_int_equal(v10_model_gemm(&m, "decode", 1, 1, 4096, 4096, 1, &err), 0);
    assert_int_equal(v10_model_vector(&m, "act", 1 << 20, 3, 1, 0, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
    assert_int_equal(v10_model_copy(&one, &m, &err), 0);
    assert_int_equal(v10_cost_map_model(&npu, &m, &err), 0);
    assert_int_equal(m.ops[0].cycles, 8288 + npu.issue_cycles);
    assert_int_equal(m.ops[0].compute_cycles, 8288);
    assert_int_equal(m.ops[1].cycles, m.ops[1].mem_cycles + npu.issue_cycles);
    assert_int_equal(m.ops[2].cycles, one.ops[2].cycles);
    assert_int_equal(m.total_cycles, m.ops[0].cycles + m.ops[1].cycles + m.ops[2].cycles);
    for (size_t i = 0; i < m.n_ops; i++) { /* the description stays */
        assert_int_equal(m.ops[i].tiles, one.ops[i].tiles);
        assert_int_equal(m.ops[i].macs, one.ops[i].macs);
        assert_int_equal(m.ops[i].cycles, v10_cost_split_cycles(&npu, &one.ops[i],
                                                                one.ops[i].hbm_bytes,
                                                                i < 2 ? 4 : 1));
    }
    npu.op_mapping = V10_MAP_ONE;
    assert_int_equal(v10_cost_engines(&npu, V10_FU_SA), 1);
    assert_int_equal(v10_cost_map_model(&npu, &one, &err), 0);
    assert_int_equal(one.ops[0].cycles, 33150 + npu.issue_cycles);
    v10_model_fini(&m);
    v10_model_fini(&one);
}

/* SA tiles = folds (x count); FLOPs = 2 MACs; zero work never costs 0. */
static void sa_tiles_are_folds(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    static const struct { uint64_t count, M, N, K; } g[] = {
        {1, 1000, 300, 200}, {3, 1000, 300, 200}, {1, 9, 1, 1}, {16, 128, 64, 512},
        {1, 4096, 128, 128}, {1, 9, 129, 129},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        v10_model m;
        v10_model_init(&m, "sa", 1);
        assert_int_equal(v10_model_gemm(&m, "g", g[i].count, g[i].M, g[i].N, g[i].K, 1, &err),
                         0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        const v10_op *op = &m.ops[0];
        uint64_t folds = ((g[i].K + 127) / 128) * ((g[i].N + 127) / 128);
        uint64_t f2;
        uint64_t all = v10_cost_gemm_batch_cycles(g[i].count, g[i].M, g[i].N, g[i].K, 128,
                                                  128, V10_DF_WS, V10_SA_TPU, &f2);
        assert_int_equal(f2, folds);
        assert_int_equal(op->tiles, folds * g[i].count);
        assert_int_equal(op->compute_cycles, all);
        /* the products stream back to back: never longer than one by one */
        assert_true(all <= g[i].count * v10_cost_gemm_cycles(g[i].M, g[i].N, g[i].K, 128, 128,
                                                             V10_DF_WS, V10_SA_TPU, NULL));
        assert_int_equal(op->macs, g[i].count * g[i].M * g[i].N * g[i].K);
        assert_int_equal(op->flops, 2 * op->macs);
        assert_true(op->cycles >= npu.issue_cycles + 1);
        v10_model_fini(&m);
    }
}

/* The invariant of model.h on every op of every zoo model at its default
 * batch, and on the same models with a quarter of the vector memory. */
static void zoo_invariants(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    size_t n_models = 0;
    for (const char *const *name = v10_zoo_names; *name; name++, n_models++) {
        v10_model m;
        v10_err err = {{0}};
        if (v10_model_load(*name, &npu, &m, &err))
            fail_msg("%s: %s", *name, err.msg);
        assert_true(m.n_ops > 0);
        uint64_t sum = 0;
        double bpc = v10_npu_hbm_bytes_per_cycle(&npu);
        for (size_t i = 0; i < m.n_ops; i++) {
            const v10_op *op = &m.ops[i];
            uint64_t body = op->compute_cycles > op->mem_cycles ? op->compute_cycles
                                                                : op->mem_cycles;
            uint32_t issue = v10_npu_issue_cycles(&npu, op->fu);
            if (op->cycles != body + issue)
                fail_msg("%s op %zu (%s): cycles %llu != max(%llu, %llu) + %u", *name, i,
                         op->name, (unsigned long long)op->cycles,
                         (unsigned long long)op->compute_cycles,
                         (unsigned long long)op->mem_cycles, issue);
            assert_true(op->tiles >= 1);
            assert_true(op->compute_cycles >= 1);
            assert_true(op->fu == V10_FU_SA || op->fu == V10_FU_VU);
            /* SA ops are GEMMs; a GEMM on the VU has at most vu_dot_rows rows */
            assert_true(op->fu == V10_FU_SA ? op->kind == V10_OP_GEMM
                                            : op->kind != V10_OP_GEMM ||
                                                  op->m <= npu.vu_dot_rows);
            /* mem = ceil((hbm + spill) / bytes per cycle), within rounding */
            double mem = ((double)op->hbm_bytes + (double)op->spill_bytes) / bpc;
            assert_true((double)op->mem_cycles >= mem - 1e-6 * mem - 1e-9);
            assert_true((double)op->mem_cycles < mem + 1.0 + 1e-6 * mem);
            if (op->kind == V10_OP_GEMM && op->fu == V10_FU_SA) {
                uint64_t folds;
                v10_cost_gemm_cycles(op->m, op->n, op->k, npu.sa_rows, npu.sa_cols,
                                     npu.sa_dataflow, V10_SA_TPU, &folds);
                if (folds * op->count <= UINT32_MAX)
                    assert_int_equal(op->tiles, folds * op->count);
                assert_int_equal(op->macs, op->count * op->m * op->n * op->k);
            }
            /* shared-memory costing agrees with the op at the full share */
            uint64_t bytes;
            assert_int_equal(v10_cost_shared_cycles(&npu, op, npu.vmem_bytes, &bytes),
                             op->cycles);
            assert_int_equal(bytes, op->hbm_bytes + op->spill_bytes);
            /* a smaller share never makes an op faster */
            assert_true(v10_cost_shared_cycles(&npu, op, npu.vmem_bytes / 4, &bytes) >=
                        op->cycles);
            sum += op->cycles;
        }
        assert_int_equal(v10_model_cycles(&m), sum);
        assert_int_equal(m.total_cycles, sum); /* kept by v10_cost_model */
        /* A copy keeps it; adding an op forgets it until the model is costed. */
        v10_model c;
        assert_int_equal(v10_model_copy(&c, &m, &err), 0);
        assert_int_equal(c.total_cycles, sum);
        assert_int_equal(v10_model_vector(&c, "extra", 1u << 20, 4, 1, 0, &err), 0);
        assert_int_equal(c.total_cycles, 0);
        assert_int_equal(v10_cost_model(&npu, &c, &err), 0);
        assert_int_equal(v10_model_cycles(&c), sum + c.ops[c.n_ops - 1].cycles);
        v10_model_fini(&c);
        v10_model_fini(&m);
    }
    print_message("checked %zu zoo models\n", n_models);
    assert_true(n_models >= 1);
}

/* Spill: a resident operand twice the share re-streams the other once. */
static void spill_closed_form(void **state)
{
    (void)state;
    v10_op op;
    memset(&op, 0, sizeof op);
    op.vmem_bytes = 1000;
    op.restream_bytes = 777;
    assert_int_equal(v10_cost_spill_bytes(&op, 1000), 0);
    assert_int_equal(v10_cost_spill_bytes(&op, 500), 777);
    assert_int_equal(v10_cost_spill_bytes(&op, 499), 2 * 777);
    assert_int_equal(v10_cost_spill_bytes(&op, 1), 999 * 777);
}

/* Overflowing sizes are errors with a message, never a wrapped number. */
static void overflow_is_error(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err = {{0}};
    v10_model m;
    v10_model_init(&m, "huge", 1);
    const uint64_t big = 1ull << 40;
    assert_int_equal(v10_model_gemm(&m, "g", 1, big, big, big, 1, &err), -1);
    assert_non_null(strstr(err.msg, "overflow"));
    assert_int_equal(v10_model_vector(&m, "v", big, big, 1, 0, &err), -1);
    assert_int_equal(v10_model_gather(&m, "e", big * big, 1, &err), -1);
    assert_int_equal(v10_model_conv(&m, "c", big, big, big, 3, 64, 3, 3, 1, 1, &err), -1);
    assert_int_equal(m.n_ops, 0);
    /* zero dimensions are errors too */
    assert_int_equal(v10_model_gemm(&m, "z", 1, 0, 8, 8, 1, &err), -1);
    /* an op built by hand past the builders' checks: the cost model refuses */
    v10_op op;
    memset(&op, 0, sizeof op);
    snprintf(op.name, sizeof op.name, "handmade");
    op.fu = V10_FU_SA;
    op.kind = V10_OP_GEMM;
    op.count = 1;
    op.m = op.n = op.k = 1ull << 30;
    err.msg[0] = 0;
    assert_int_equal(v10_cost_op(&npu, &op, &err), -1);
    assert_non_null(strstr(err.msg, "handmade"));
    memset(&op, 0, sizeof op);
    op.fu = V10_FU_VU;
    op.kind = V10_OP_VECTOR;
    op.elems = big;
    op.ops_per_elem = big;
    assert_int_equal(v10_cost_op(&npu, &op, &err), -1);
    /* a trace op's given cycles are its duration, even the largest (no
     * issue is added to wrap it) */
    memset(&op, 0, sizeof op);
    op.fu = V10_FU_VU;
    op.kind = V10_OP_RAW;
    op.given_cycles = UINT64_MAX - 1;
    assert_int_equal(v10_cost_op(&npu, &op, &err), 0);
    assert_int_equal(op.cycles, UINT64_MAX - 1);
    /* a model whose total latency would wrap */
    memset(&op, 0, sizeof op);
    op.kind = V10_OP_RAW;
    op.given_cycles = UINT64_MAX / 2;
    assert_int_equal(v10_model_push(&m, &op, &err), 0);
    assert_int_equal(v10_model_push(&m, &op, &err), 0);
    assert_int_equal(v10_model_push(&m, &op, &err), 0);
    assert_int_equal(v10_cost_model(&npu, &m, &err), -1);
    v10_model_fini(&m);
    /* checked arithmetic itself */
    uint64_t r;
    assert_int_equal(v10_mul_u64(1ull << 31, 1ull << 32, &r), 0);
    assert_int_equal(r, 1ull << 63);
    assert_int_equal(v10_mul_u64(r, 2, &r), -1);
    assert_int_equal(v10_mul_u64(big, big, &r), -1);
    assert_int_equal(v10_add_u64(UINT64_MAX, 1, &r), -1);
    assert_int_equal(v10_add_u64(UINT64_MAX - 1, 1, &r), 0);
    assert_int_equal(r, UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vu_slots_closed_form), cmocka_unit_test(padded_tile_closed_form),
        cmocka_unit_test(sort_closed_form), cmocka_unit_test(gather_closed_form),
        cmocka_unit_test(sa_epilogue_closed_form), cmocka_unit_test(vu_dot_closed_form),
        cmocka_unit_test(issue_per_fu),    cmocka_unit_test(split_closed_form), cmocka_unit_test(map_model_alone),    cmocka_unit_test(hbm_roofline),
        cmocka_unit_test(sa_tiles_are_folds), cmocka_unit_test(zoo_invariants),
        cmocka_unit_test(spill_closed_form), cmocka_unit_test(overflow_is_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
