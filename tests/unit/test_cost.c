/*
 * test_cost.c — the operator cost model against closed forms: VU
 * throughput, the HBM roofline, max(compute, memory) + issue on every op of
 * every zoo model, tiles, and overflow as an error rather than a wrap.
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

/* elems x ops = 2048 k costs exactly k cycles on 1024 lanes x 2 ops. */
static void vu_closed_form(void **state)
{
    (void)state;
    v10_npu npu = npu_default();
    v10_err err;
    static const uint64_t ks[] = {1, 7, 100, 1000, 123457};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        uint64_t k = ks[i];
        v10_model m;
        v10_model_init(&m, "vu", 1);
        /* 2048 elements x k ops, one output tensor and no input: 4096 bytes */
        assert_int_equal(v10_model_vector(&m, "v", 2048, k, 0, 0, &err), 0);
        /* and 2048 k elements x 1 op */
        assert_int_equal(v10_model_vector(&m, "w", 2048 * k, 1, 0, 0, &err), 0);
        assert_int_equal(v10_cost_model(&npu, &m, &err), 0);
        for (size_t j = 0; j < 2; j++) {
            const v10_op *op = &m.ops[j];
            assert_int_equal(op->fu, V10_FU_VU);
            assert_int_equal(op->compute_cycles, k);
            assert_int_equal(op->flops, 2048 * k);
            assert_int_equal(op->mem_cycles, isca23_mem_cycles(op->hbm_bytes));
            uint64_t body = k > op->mem_cycles ? k : op->mem_cycles;
            assert_int_equal(op->cycles, body + npu.issue_cycles);
            /* one tile per started vu_tile_cycles chunk */
            assert_int_equal(op->tiles, (k + npu.vu_tile_cycles - 1) / npu.vu_tile_cycles);
        }
        /* few bytes: compute bound once k exceeds 9 memory cycles */
        if (k >= 10)
            assert_int_equal(m.ops[0].cycles, k + npu.issue_cycles);
        v10_model_fini(&m);
    }
    /* a VU with twice the lanes halves the compute time */
    v10_npu wide = npu;
    wide.vu_lanes *= 2;
    v10_model m;
    v10_model_init(&m, "vu", 1);
    assert_int_equal(v10_model_vector(&m, "v", 2048, 1000, 0, 0, &err), 0);
    assert_int_equal(v10_cost_model(&wide, &m, &err), 0);
    assert_int_equal(m.ops[0].compute_cycles, 500);
    v10_model_fini(&m);
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
        assert_int_equal(v10_cost_split_cycles(&npu, p, p->hbm_bytes, k), want[k] + 64);
    assert_int_equal(v10_cost_split_cycles(&npu, p, p->hbm_bytes, 1), p->cycles);
    assert_int_equal(d->compute_cycles, 131327);
    assert_int_equal(d->tiles, 1024);
    double bpc = 600e9 / 1050e6;
    uint64_t mem = (uint64_t)ceil((double)d->hbm_bytes / bpc);
    assert_int_equal(d->mem_cycles, mem);
    assert_true(mem > 32832 && mem < 131327);
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 1), 131327 + 64);
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 4), mem + 64);
    /* 64 engines: still no faster than the HBM */
    assert_int_equal(v10_cost_split_cycles(&npu, d, d->hbm_bytes, 64), mem + 64);
    v10_model_fini(&m);
}

/*
 * A model as it runs alone (v10_cost_map_model, what profile and models
 * report): on tpuv4-core ("all") each operator is split over the engines
 * of its type, 4 SAs and 1 VU, so the prefill-like GEMM above takes 8288
 * + 64 cycles, the decode-like one its HBM time, and a VU operator what it
 * takes on one VU; under "one" nothing changes.
 */
static void map_model_alone(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_preset("tpuv4-core", &npu, &err), 0);
    assert_int_equal(npu.op_mapping, V10_MAP_ALL);
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
    assert_int_equal(m.ops[0].cycles, 8288 + 64);
    assert_int_equal(m.ops[0].compute_cycles, 8288);
    assert_int_equal(m.ops[1].cycles, m.ops[1].mem_cycles + 64);
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
    assert_int_equal(one.ops[0].cycles, 33150 + 64);
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
        {1, 1000, 300, 200}, {3, 1000, 300, 200}, {1, 1, 1, 1}, {16, 128, 64, 512},
        {1, 4096, 128, 128}, {1, 7, 129, 129},
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
        uint64_t per = v10_cost_gemm_cycles(g[i].M, g[i].N, g[i].K, 128, 128, V10_DF_WS,
                                            V10_SA_TPU, &f2);
        assert_int_equal(f2, folds);
        assert_int_equal(op->tiles, folds * g[i].count);
        assert_int_equal(op->compute_cycles, per * g[i].count);
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
            if (op->cycles != body + npu.issue_cycles)
                fail_msg("%s op %zu (%s): cycles %llu != max(%llu, %llu) + %u", *name, i,
                         op->name, (unsigned long long)op->cycles,
                         (unsigned long long)op->compute_cycles,
                         (unsigned long long)op->mem_cycles, npu.issue_cycles);
            assert_true(op->tiles >= 1);
            assert_true(op->compute_cycles >= 1);
            assert_true(op->fu == V10_FU_SA || op->fu == V10_FU_VU);
            assert_true(op->fu == V10_FU_SA ? op->kind == V10_OP_GEMM
                                            : op->kind != V10_OP_GEMM);
            /* mem = ceil((hbm + spill) / bytes per cycle), within rounding */
            double mem = ((double)op->hbm_bytes + (double)op->spill_bytes) / bpc;
            assert_true((double)op->mem_cycles >= mem - 1e-6 * mem - 1e-9);
            assert_true((double)op->mem_cycles < mem + 1.0 + 1e-6 * mem);
            if (op->kind == V10_OP_GEMM) {
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
    /* a trace op whose duration would wrap */
    memset(&op, 0, sizeof op);
    op.fu = V10_FU_VU;
    op.kind = V10_OP_RAW;
    op.given_cycles = UINT64_MAX - 1;
    assert_int_equal(v10_cost_op(&npu, &op, &err), -1);
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
        cmocka_unit_test(vu_closed_form),    cmocka_unit_test(split_closed_form), cmocka_unit_test(map_model_alone),    cmocka_unit_test(hbm_roofline),
        cmocka_unit_test(sa_tiles_are_folds), cmocka_unit_test(zoo_invariants),
        cmocka_unit_test(spill_closed_form), cmocka_unit_test(overflow_is_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
