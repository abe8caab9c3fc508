/*
 * test_view.c — the engine's view of a model (src/model/view.h): the memo
 * of views of the cache's shared models serves the same values as computing
 * them, one entry per (model, NPU cost, share), only for shared models,
 * sharing arrays between entries where the values are the same; and a
 * run gives the same result whether its models come from the memo and
 * without a costed copy (v10_model_load_run) or as private costed
 * copies, on the core and on other NPUs.  Also the isca23 cache's cost key: NPUs whose vector memory holds
 * the model's largest resident operand share one costed model, and a
 * smaller one gets its own, costed as a private copy would be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/sim.h"

static void load(const char *spec, const v10_npu *npu, v10_model *m)
{
    v10_err err = {0};
    if (v10_model_load(spec, npu, m, &err))
        fail_msg("%s: %s", spec, err.msg);
}

/* The view computed into private buffers. */
static void fill(const v10_model *m, const v10_npu *npu, uint64_t share, v10_op_view *v,
                 v10_op_view_bufs *b)
{
    size_t n = m->n_ops;
    *b = (v10_op_view_bufs){calloc(n, 8), calloc(n, 8), calloc(n, 1), calloc(n, 8)};
    v10_err err = {0};
    assert_int_equal(v10_op_view_fill(m, npu, share, b, v, &err), 0);
}

static void free_bufs(v10_op_view_bufs *b)
{
    free(b->work);
    free(b->bytes);
    free(b->fu);
    free(b->macs);
}

static void assert_same_view(const v10_op_view *a, const v10_op_view *b, size_t n)
{
    assert_int_equal(a->req_work, b->req_work);
    assert_memory_equal(a->work, b->work, n * sizeof *a->work);
    assert_memory_equal(a->bytes, b->bytes, n * sizeof *a->bytes);
    assert_memory_equal(a->fu, b->fu, n);
    assert_memory_equal(a->macs, b->macs, n * sizeof *a->macs);
}

static void memo_serves_the_computed_values(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err = {0};
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
    v10_model m;
    load("isca23/shapemask", &npu, &m);
    assert_true(m.shared);
    uint64_t half = npu.vmem_bytes / 2, sixteenth = 64 << 10; /* 64 KiB: operands spill */
    v10_op_view a, again, small, want;
    v10_op_view_bufs b;
    assert_int_equal(v10_op_view_shared(&m, &npu, half, &a, &err), 1);
    assert_int_equal(v10_op_view_shared(&m, &npu, half, &again, &err), 1);
    assert_ptr_equal(a.work, again.work); /* one entry, served twice */
    fill(&m, &npu, half, &want, &b);
    assert_same_view(&a, &want, m.n_ops);
    free_bufs(&b);
    /* Another share is another entry, with its own values. */
    assert_int_equal(v10_op_view_shared(&m, &npu, sixteenth, &small, &err), 1);
    assert_ptr_not_equal(small.work, a.work);
    fill(&m, &npu, sixteenth, &want, &b);
    assert_same_view(&small, &want, m.n_ops);
    uint64_t bytes_half = 0, bytes_small = 0;
    for (size_t k = 0; k < m.n_ops; k++) {
        bytes_half += a.bytes[k];
        bytes_small += small.bytes[k];
    }
    assert_true(bytes_small > bytes_half); /* less vector memory: operands re-read */
    free_bufs(&b);
    v10_model_fini(&m);
}

/* The costings of one calibrated model for NPUs that differ in HBM
 * bandwidth or vector memory share the arrays that hold the same values:
 * the FU types and MACs always, the bytes at one share, the work at one
 * share and bandwidth; and every array still holds the computed values. */
static void views_share_what_costing_leaves_alike(void **state)
{
    (void)state;
    v10_npu core, slow, small;
    v10_err err = {0};
    assert_int_equal(v10_npu_preset("v10-isca23", &core, &err), 0);
    slow = core;
    slow.hbm_gbps = core.hbm_gbps / 4;
    small = core;
    small.vmem_bytes = 64 << 10; /* its own costed copy: operands spill */
    v10_model m, on_slow, on_small;
    load("isca23/transformer", &core, &m);
    load("isca23/transformer", &slow, &on_slow);
    load("isca23/transformer", &small, &on_small);
    assert_ptr_equal(m.origin, m.ops);
    assert_ptr_equal(on_slow.origin, m.ops);
    assert_ptr_equal(on_small.origin, m.ops);
    assert_ptr_not_equal(on_slow.ops, m.ops);
    assert_ptr_not_equal(on_small.ops, m.ops);
    uint64_t share = 32 << 10;
    v10_op_view a, b, c, want;
    v10_op_view_bufs bufs;
    assert_int_equal(v10_op_view_shared(&m, &core, share, &a, &err), 1);
    assert_int_equal(v10_op_view_shared(&on_slow, &slow, share, &b, &err), 1);
    assert_int_equal(v10_op_view_shared(&on_small, &small, share, &c, &err), 1);
    assert_ptr_equal(b.fu, a.fu);
    assert_ptr_equal(b.macs, a.macs);
    assert_ptr_equal(b.bytes, a.bytes);
    assert_ptr_not_equal(b.work, a.work);
    assert_true(b.req_work > a.req_work); /* a quarter of the bandwidth: HBM binds */
    assert_ptr_equal(c.work, a.work);     /* same bandwidth and share: the same view */
    fill(&on_slow, &slow, share, &want, &bufs);
    assert_same_view(&b, &want, m.n_ops);
    free_bufs(&bufs);
    fill(&on_small, &small, share, &want, &bufs);
    assert_same_view(&c, &want, m.n_ops);
    free_bufs(&bufs);
    v10_model_fini(&m);
    v10_model_fini(&on_slow);
    v10_model_fini(&on_small);
}

static void only_shared_models_are_memoized(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err = {0};
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
    v10_model zoo, shared, own;
    load("resnet50", &npu, &zoo);
    load("isca23/mnist", &npu, &shared);
    assert_int_equal(v10_model_copy(&own, &shared, &err), 0);
    v10_op_view v;
    assert_int_equal(v10_op_view_shared(&zoo, &npu, npu.vmem_bytes, &v, &err), 0);
    assert_int_equal(v10_op_view_shared(&own, &npu, npu.vmem_bytes, &v, &err), 0);
    v10_model_fini(&zoo);
    v10_model_fini(&shared);
    v10_model_fini(&own);
}

/* The same pair run as v10_run loads it (the cache's models, through the
 * memo; on an NPU other than the core, the core's operators with that
 * NPU's total cycles: v10_isca23_load_run) and from private copies costed
 * for the NPU gives the same figures: on the core, with a quarter of its
 * HBM bandwidth, and with a vector memory small enough to spill. */
static void runs_do_not_depend_on_the_memo(void **state)
{
    (void)state;
    const char *specs[2] = {"isca23/bert", "isca23/dlrm"};
    v10_run_config cfg;
    v10_run_config_default(&cfg);
    v10_err err = {0};
    v10_tenant_spec ts[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(v10_tenant_spec_parse(specs[i], &ts[i], &err), 0);
    cfg.tenants = ts;
    cfg.n_tenants = 2;
    cfg.requests = 4;
    cfg.warmup = 1;
    v10_npu core = cfg.npu;
    double core_stp = 0;
    for (int variant = 0; variant < 3; variant++) {
        cfg.npu = core;
        if (variant == 1)
            cfg.npu.hbm_gbps = core.hbm_gbps / 4;
        if (variant == 2)
            cfg.npu.vmem_bytes = 256 << 10;
        cfg.models = NULL;
        v10_run_result memo, own;
        if (v10_run(&cfg, &memo, &err))
            fail_msg("%s", err.msg);
        v10_model shared[2], copy[2], run;
        for (int i = 0; i < 2; i++) {
            load(specs[i], &cfg.npu, &shared[i]);
            assert_int_equal(v10_model_copy(&copy[i], &shared[i], &err), 0);
            assert_false(copy[i].shared);
            assert_int_equal(v10_model_load_run(specs[i], &cfg.npu, &run, &err), 0);
            assert_int_equal(v10_model_cycles(&run), v10_model_cycles(&shared[i]));
            assert_ptr_equal(run.ops, shared[i].origin);
            if (variant == 1) /* a costed copy, which the run does without */
                assert_ptr_not_equal(shared[i].ops, shared[i].origin);
            v10_model_fini(&run);
        }
        cfg.models = copy;
        if (v10_run(&cfg, &own, &err))
            fail_msg("%s", err.msg);
        assert_true(memo.stp == own.stp);
        assert_true(memo.antt == own.antt);
        assert_int_equal(memo.window_end, own.window_end);
        assert_int_equal(memo.events, own.events);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(memo.tenants[i].alone_cycles, own.tenants[i].alone_cycles);
            assert_true(memo.tenants[i].lat_p95_us == own.tenants[i].lat_p95_us);
            v10_model_fini(&shared[i]);
            v10_model_fini(&copy[i]);
        }
        if (variant == 0)
            core_stp = memo.stp;
        else /* the NPU changed the figures */
            assert_true(memo.stp != core_stp);
        v10_run_result_fini(&memo);
        v10_run_result_fini(&own);
    }
}

static void cache_key_ignores_memory_that_spills_nothing(void **state)
{
    (void)state;
    v10_npu core, big, small;
    v10_err err = {0};
    assert_int_equal(v10_npu_preset("v10-isca23", &core, &err), 0);
    v10_model m, on_big, on_small, want;
    load("isca23/bert", &core, &m);
    uint64_t resident = 0;
    for (size_t k = 0; k < m.n_ops; k++)
        resident = m.ops[k].vmem_bytes > resident ? m.ops[k].vmem_bytes : resident;
    assert_true(resident > 0 && resident <= core.vmem_bytes);
    big = core;
    big.vmem_bytes = 2 * core.vmem_bytes;
    load("isca23/bert", &big, &on_big);
    assert_ptr_equal(on_big.ops, m.ops); /* costs alike: the same model */
    small = core;
    small.vmem_bytes = resident / 2;
    load("isca23/bert", &small, &on_small);
    assert_ptr_not_equal(on_small.ops, m.ops);
    assert_int_equal(v10_model_copy(&want, &m, &err), 0);
    assert_int_equal(v10_cost_model(&small, &want, &err), 0);
    assert_int_equal(on_small.n_ops, want.n_ops);
    assert_memory_equal(on_small.ops, want.ops, want.n_ops * sizeof *want.ops);
    assert_int_equal(v10_model_cycles(&on_small), v10_model_cycles(&want));
    uint64_t spill_core = 0, spill_small = 0; /* operands re-read with less memory */
    for (size_t k = 0; k < m.n_ops; k++) {
        spill_core += m.ops[k].spill_bytes;
        spill_small += on_small.ops[k].spill_bytes;
    }
    assert_int_equal(spill_core, 0);
    assert_true(spill_small > 0);
    v10_model_fini(&want);
    v10_model_fini(&on_small);
    v10_model_fini(&on_big);
    v10_model_fini(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memo_serves_the_computed_values),
        cmocka_unit_test(views_share_what_costing_leaves_alike),
        cmocka_unit_test(only_shared_models_are_memoized),
        cmocka_unit_test(runs_do_not_depend_on_the_memo),
        cmocka_unit_test(cache_key_ignores_memory_that_spills_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
