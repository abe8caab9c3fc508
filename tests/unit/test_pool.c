/*
 * test_pool.c — the one thread pool (src/util/pool.h): every item runs
 * exactly once whatever the thread count, skipped items never, the first
 * failure stops handing out items and is the one reported, items can be
 * taken and finished outside the workers; and the simulation batch on it
 * (v10_pool_run) gives the same results on 1 and 3 threads and handed out
 * longest first; the progress bar's ETA weighs items by their work.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/pool.h"
#include "v10/pool.h"

#define N 500

typedef struct items {
    int runs[N];          /* times item i ran (each slot is item i's own) */
    uint64_t out[N];      /* item i's result */
    size_t fail_from;     /* items >= this fail (N: none) */
    pthread_mutex_t lock; /* guards ran_total */
    size_t ran_total;
} items;

static int work(void *ctx, size_t i, v10_err *err)
{
    items *it = ctx;
    it->runs[i]++;
    uint64_t h = i + 1;
    for (int k = 0; k < 2000; k++) /* some work, so threads interleave */
        h = h * 6364136223846793005ull + 1442695040888963407ull;
    it->out[i] = h;
    pthread_mutex_lock(&it->lock);
    it->ran_total++;
    pthread_mutex_unlock(&it->lock);
    return i >= it->fail_from ? v10_err_set(err, "item %zu failed", i) : 0;
}

static items *fresh(size_t fail_from)
{
    items *it = calloc(1, sizeof *it);
    assert_non_null(it);
    it->fail_from = fail_from;
    pthread_mutex_init(&it->lock, NULL);
    return it;
}

static void done_with(items *it)
{
    pthread_mutex_destroy(&it->lock);
    free(it);
}

static void test_each_item_once_by_index(void **state)
{
    (void)state;
    items *ref = fresh(N);
    v10_pool_spec spec = {.n = N, .run = work, .ctx = ref};
    v10_err err;
    assert_int_equal(v10_pool_for(&spec, 1, &err), 0);
    static const int threads[] = {2, 3, 8, 1000};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        items *it = fresh(N);
        spec.ctx = it;
        assert_int_equal(v10_pool_for(&spec, threads[t], &err), 0);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(it->runs[i], 1);
        assert_memory_equal(it->out, ref->out, sizeof ref->out);
        done_with(it);
    }
    done_with(ref);
}

static void test_skip(void **state)
{
    (void)state;
    items *it = fresh(N);
    unsigned char skip[N];
    for (size_t i = 0; i < N; i++)
        skip[i] = i % 3 == 0;
    v10_pool_spec spec = {.n = N, .skip = skip, .run = work, .ctx = it};
    v10_err err;
    assert_int_equal(v10_pool_for(&spec, 4, &err), 0);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(it->runs[i], i % 3 != 0);
    done_with(it);
    /* Nothing to run: no thread, no call. */
    memset(skip, 1, sizeof skip);
    it = fresh(0);
    spec.ctx = it;
    assert_int_equal(v10_pool_for(&spec, 4, &err), 0);
    assert_int_equal(it->ran_total, 0);
    done_with(it);
}

/* The first failure stops the pool: on one thread nothing after it runs,
 * and the error is its own; on several, the lowest failing index seen. */
static void test_stop_on_first_failure(void **state)
{
    (void)state;
    items *it = fresh(100);
    v10_pool_spec spec = {.n = N, .run = work, .ctx = it};
    v10_err err = {{0}};
    assert_int_equal(v10_pool_for(&spec, 1, &err), -1);
    assert_string_equal(err.msg, "item 100 failed");
    assert_int_equal(it->ran_total, 101);
    done_with(it);
    it = fresh(100);
    spec.ctx = it;
    assert_int_equal(v10_pool_for(&spec, 4, &err), -1);
    assert_int_equal(strncmp(err.msg, "item 10", 7), 0); /* 100 .. 103: in flight at once */
    assert_true(it->ran_total < 110);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(it->runs[i], 1);
    done_with(it);
}

/* Items taken and finished outside the workers (as the MPI coordinator
 * does); with no worker started, wait runs the rest on the caller. */
static void test_take_and_done_outside(void **state)
{
    (void)state;
    items *it = fresh(N);
    v10_pool_spec spec = {.n = N, .run = work, .ctx = it};
    v10_pool *p = v10_pool_create(&spec);
    assert_non_null(p);
    assert_int_equal(v10_pool_start(p, 0), 0);
    int64_t a = v10_pool_take(p), b = v10_pool_take(p);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    v10_pool_done(p, (size_t)a, 0, NULL);
    v10_pool_done(p, (size_t)b, 0, NULL);
    v10_err err;
    assert_int_equal(v10_pool_wait(p, &err), 0);
    assert_int_equal(it->runs[0] + it->runs[1], 0); /* ran elsewhere */
    for (size_t i = 2; i < N; i++)
        assert_int_equal(it->runs[i], 1);
    done_with(it);
    /* An outside failure is reported, and stops the pool: nothing more runs. */
    it = fresh(N);
    spec.ctx = it;
    p = v10_pool_create(&spec);
    int64_t i = v10_pool_take(p);
    assert_int_equal(i, 0);
    v10_err e;
    v10_err_set(&e, "remote item failed");
    v10_pool_done(p, (size_t)i, -1, &e);
    assert_int_equal(v10_pool_take(p), -1);
    assert_int_equal(v10_pool_start(p, 2), 2);
    assert_int_equal(v10_pool_wait(p, &err), -1);
    assert_string_equal(err.msg, "remote item failed");
    assert_int_equal(it->ran_total, 0);
    done_with(it);
}

/* The simulation batch: results by index, the same on 1 and 3 threads and
 * with the progress bar's weights; a failing run is named by its tenants
 * and policy. */
static void test_batch(void **state)
{
    (void)state;
    enum { M = 6 };
    v10_run_config cfg[M];
    v10_tenant_spec ts[M][2];
    v10_err err;
    static const char *const policies[] = {"fcfs", "pmt", "v10-full"};
    for (size_t i = 0; i < M; i++) {
        v10_run_config_default(&cfg[i]);
        assert_int_equal(v10_tenant_spec_parse("tests/data/engine/sa_vu.csv", &ts[i][0], &err), 0);
        assert_int_equal(v10_tenant_spec_parse("tests/data/engine/vu_heavy.csv", &ts[i][1], &err),
                         0);
        cfg[i].tenants = ts[i];
        cfg[i].n_tenants = 2;
        cfg[i].requests = 4;
        cfg[i].warmup = 0;
        cfg[i].seed = 1 + i / 3;
        snprintf(cfg[i].policy, sizeof cfg[i].policy, "%s", policies[i % 3]);
    }
    v10_run_result r1[M], r3[M], rw[M];
    v10_pool_job job = {.cfgs = cfg, .results = r1, .n = M, .threads = 1};
    assert_int_equal(v10_pool_run(&job, &err), 0);
    job.results = r3;
    job.threads = 3;
    assert_int_equal(v10_pool_run(&job, &err), 0);
    /* With the bar's weights (estimated on the pool's threads first). */
    setenv("V10_PROGRESS", "1", 1);
    v10_pool_job weighed = {.cfgs = cfg, .results = rw, .n = M, .threads = 3,
                            .progress = "test_batch", .weigh = 1};
    assert_int_equal(v10_pool_run(&weighed, &err), 0);
    unsetenv("V10_PROGRESS");
    for (size_t i = 0; i < M; i++) {
        assert_int_equal(r1[i].end_cycle, r3[i].end_cycle);
        assert_true(r1[i].stp == r3[i].stp && r1[i].antt == r3[i].antt);
        assert_int_equal(r1[i].events, r3[i].events);
        assert_int_equal(r1[i].end_cycle, rw[i].end_cycle);
        assert_int_equal(r1[i].events, rw[i].events);
        v10_run_result_fini(&r1[i]);
        v10_run_result_fini(&r3[i]);
        v10_run_result_fini(&rw[i]);
    }
    snprintf(cfg[4].policy, sizeof cfg[4].policy, "nope");
    assert_int_equal(v10_pool_run(&job, &err), -1);
    /* named in words any command's user knows (its models and policy), not
     * as a batch's index */
    assert_non_null(strstr(err.msg, "tests/data/engine/sa_vu.csv + tests/data/engine/vu_heavy.csv "
                                    "under nope: unknown policy 'nope'"));
    for (size_t i = 0; i < M; i++)
        v10_run_result_fini(&r3[i]);
}

/* The order a batch's points ran in (done() is called as each finishes). */
typedef struct ran_order {
    size_t order[8], n;
} ran_order;

static int record_order(void *ctx, size_t i, const v10_run_result *r, v10_err *err)
{
    (void)r, (void)err;
    ran_order *o = ctx;
    o->order[o->n++] = i;
    return 0;
}

/* longest_first: one thread runs the points by decreasing estimated
 * events (v10_run_estimate_work; ties and skipped points aside), each
 * result still at its own index, the same as in index order. */
static void test_batch_longest_first(void **state)
{
    (void)state;
    enum { M = 5 };
    static const uint64_t requests[M] = {2, 9, 4, 9, 6};
    v10_run_config cfg[M];
    v10_tenant_spec ts[M][2];
    v10_err err;
    for (size_t i = 0; i < M; i++) {
        v10_run_config_default(&cfg[i]);
        assert_int_equal(v10_tenant_spec_parse("tests/data/engine/sa_vu.csv", &ts[i][0], &err), 0);
        assert_int_equal(v10_tenant_spec_parse("mnist", &ts[i][1], &err), 0);
        cfg[i].tenants = ts[i];
        cfg[i].n_tenants = 2;
        cfg[i].requests = requests[i];
        cfg[i].warmup = 0;
    }
    int skip[M] = {0, 0, 0, 0, 1};
    v10_run_result by_index[M], longest[M] = {{0}};
    ran_order o = {.n = 0};
    v10_pool_job job = {.cfgs = cfg, .results = by_index, .n = M, .threads = 1, .skip = skip};
    assert_int_equal(v10_pool_run(&job, &err), 0);
    job.results = longest;
    job.longest_first = 1;
    job.done = record_order;
    job.ctx = &o;
    assert_int_equal(v10_pool_run(&job, &err), 0);
    /* 9, 9 (ties: the lower index first), 4, 2 requests; point 4 skipped */
    assert_int_equal(o.n, 4);
    assert_int_equal(o.order[0], 1);
    assert_int_equal(o.order[1], 3);
    assert_int_equal(o.order[2], 2);
    assert_int_equal(o.order[3], 0);
    for (size_t i = 0; i < M - 1; i++) {
        assert_int_equal(by_index[i].events, longest[i].events);
        assert_true(by_index[i].stp == longest[i].stp);
        v10_run_result_fini(&by_index[i]);
        v10_run_result_fini(&longest[i]);
    }
}

/* The batch's shared models (src/sim/batch.c): runs that name one model on
 * NPUs differing only in what scheduling reads share one load, runs on
 * another vector memory load theirs; every result is the run's alone
 * (v10_run loading its own), on 1 and 2 threads, longest first or not.  A
 * model that does not load fails its run in the run's own words. */
static void test_batch_shared_models(void **state)
{
    (void)state;
    enum { M = 6 };
    v10_run_config cfg[M];
    v10_tenant_spec ts[M][2];
    v10_err err;
    for (size_t i = 0; i < M; i++) {
        v10_run_config_default(&cfg[i]);
        assert_int_equal(v10_tenant_spec_parse("resnet50:batch=2", &ts[i][0], &err), 0);
        assert_int_equal(v10_tenant_spec_parse(i % 2 ? "ncf:batch=4" : "resnet50:batch=2",
                                               &ts[i][1], &err), 0);
        cfg[i].tenants = ts[i];
        cfg[i].n_tenants = 2;
        cfg[i].requests = 3;
        cfg[i].warmup = 0;
        snprintf(cfg[i].policy, sizeof cfg[i].policy, "%s", i % 3 ? "v10-full" : "pmt");
        cfg[i].npu.slice_cycles = 16384u << (i % 3);  /* shares the models */
        if (i >= 4)
            cfg[i].npu.vmem_bytes /= 64;             /* costs spills: its own */
    }
    v10_run_result alone[M], one[M], two[M];
    for (size_t i = 0; i < M; i++)
        assert_int_equal(v10_run(&cfg[i], &alone[i], &err), 0);
    v10_pool_job job = {.cfgs = cfg, .results = one, .n = M, .threads = 1};
    assert_int_equal(v10_pool_run(&job, &err), 0);
    job.results = two;
    job.threads = 2;
    job.longest_first = 1;
    assert_int_equal(v10_pool_run(&job, &err), 0);
    for (size_t i = 0; i < M; i++) {
        assert_int_equal(alone[i].end_cycle, one[i].end_cycle);
        assert_int_equal(alone[i].events, one[i].events);
        assert_true(alone[i].stp == one[i].stp && alone[i].antt == one[i].antt);
        assert_int_equal(alone[i].end_cycle, two[i].end_cycle);
        assert_int_equal(alone[i].events, two[i].events);
        v10_run_result_fini(&alone[i]);
        v10_run_result_fini(&one[i]);
        v10_run_result_fini(&two[i]);
    }
    /* the vmem-cut runs spill: sharing the others' model would be wrong */
    v10_run_config whole = cfg[4];
    whole.npu.vmem_bytes *= 64;
    v10_run_result w;
    assert_int_equal(v10_run(&whole, &w, &err), 0);
    assert_int_equal(v10_run(&cfg[4], &alone[4], &err), 0);
    assert_int_not_equal(w.end_cycle, alone[4].end_cycle);
    v10_run_result_fini(&w);
    v10_run_result_fini(&alone[4]);
    assert_int_equal(v10_tenant_spec_parse("tests/data/no-such-model.csv", &ts[3][1], &err), 0);
    memset(two, 0, sizeof two);
    assert_int_equal(v10_pool_run(&job, &err), -1);
    assert_non_null(strstr(err.msg, "resnet50:batch=2 + tests/data/no-such-model.csv under pmt"));
    for (size_t i = 0; i < M; i++)
        v10_run_result_fini(&two[i]);
}

/* The bar's ETA: of the estimated work when the items carry it, what is
 * running counted half done; of the items otherwise; none before 5%.
 * repro's longest runs come first: by count its first ETA said 20:48 for
 * a 2-minute job. */
static void test_progress_eta(void **state)
{
    (void)state;
    v10_progress p;
    v10_progress_start(&p, NULL, 10);
    p.done = 1; /* the first of ten items, half of the work */
    assert_true(v10_progress_eta_s(&p, 30) == 270); /* by count: 9 more like it */
    p.work_total = 18;
    p.work_done = 9;
    assert_true(v10_progress_eta_s(&p, 30) == 30); /* by work: as long again */
    p.done = 0;
    p.work_done = 0;
    p.work_running = 1.8; /* half of it done: 5% */
    assert_true(fabs(v10_progress_eta_s(&p, 10) - 190) < 1e-9);
    p.work_running = 1.7;
    assert_true(v10_progress_eta_s(&p, 10) == -1); /* under 5%: no guess */
    v10_progress_start(&p, NULL, 100);
    p.done = 4;
    assert_true(v10_progress_eta_s(&p, 10) == -1);
    p.done = 100;
    assert_true(v10_progress_eta_s(&p, 10) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_item_once_by_index),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_stop_on_first_failure),
        cmocka_unit_test(test_take_and_done_outside),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch_longest_first),
        cmocka_unit_test(test_batch_shared_models),
        cmocka_unit_test(test_progress_eta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
