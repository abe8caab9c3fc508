/*
 * batch.c — v10_pool_run (v10/pool.h): a batch of independent simulations
 * (run --policy all, repro, fleet, collocate) on the one thread pool
 * (util/pool.h); result i lands in results[i].
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/horizon.h"
#include "util/pool.h"
#include "v10/pool.h"

typedef struct batch {
    const v10_pool_job *job;
    pthread_mutex_t lock; /* serializes job->done, as v10/pool.h promises */
    double *work;         /* the runs' estimated events, or NULL */
    size_t *order;        /* item k of the pool runs point order[k]; NULL: k itself */
} batch;

/* Item i of the estimate pass (work[i], written by this item only). */
static int estimate_one(void *ctx, size_t i, v10_err *err)
{
    (void)err;
    batch *b = ctx;
    const v10_pool_job *j = b->job;
    b->work[i] = j->skip && j->skip[i] ? 0 : v10_run_estimate_work(&j->cfgs[i]);
    return 0;
}

/* A point and its estimated work, to sort by decreasing work (ties: the
 * lower index first). */
typedef struct ranked {
    double work;
    size_t i;
} ranked;

static int by_work(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->work != y->work)
        return (x->work < y->work) - (x->work > y->work);
    return (x->i > y->i) - (x->i < y->i);
}

/* b->order: the points by decreasing b->work; work[] and skip[] (n each,
 * skip optional) are permuted to follow it.  -1: out of memory. */
static int longest_first(batch *b, size_t n, unsigned char *skip)
{
    ranked *r = malloc((n ? n : 1) * sizeof *r);
    unsigned char *sk = skip ? malloc(n ? n : 1) : NULL;
    if (!r || !(b->order = malloc((n ? n : 1) * sizeof *b->order)) || (skip && !sk)) {
        free(r);
        free(sk);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (ranked){b->work[i], i};
    qsort(r, n, sizeof *r, by_work);
    for (size_t k = 0; k < n; k++) {
        b->order[k] = r[k].i;
        b->work[k] = r[k].work;
        if (skip)
            sk[k] = skip[r[k].i];
    }
    if (skip)
        memcpy(skip, sk, n);
    free(sk);
    free(r);
    return 0;
}

/* What a failed run was, for its message in any command's words: "resnet50
 * + ncf under pmt" (each tenant's model spec, cut to fit). */
static void describe(const v10_run_config *c, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t t = 0; t < c->n_tenants && o < cap; t++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%.60s", t ? " + " : "", c->tenants[t].model);
    if (o < cap)
        snprintf(buf + o, cap - o, "%s under %s", c->n_tenants == 1 ? " alone" : "", c->policy);
}

static int run_one(void *ctx, size_t k, v10_err *err)
{
    batch *b = ctx;
    const v10_pool_job *j = b->job;
    size_t i = b->order ? b->order[k] : k;
    v10_run_result local, *r = j->results ? &j->results[i] : &local;
    int rc = v10_run(&j->cfgs[i], r, err);
    if (rc == 0 && j->done) {
        pthread_mutex_lock(&b->lock);
        rc = j->done(j->ctx, i, r, err);
        pthread_mutex_unlock(&b->lock);
    }
    if (!j->results)
        v10_run_result_fini(&local); /* safe after a failed run too */
    if (rc) {
        char what[256];
        describe(&j->cfgs[i], what, sizeof what);
        v10_err_prefix(err, "%s", what);
    }
    return rc;
}

int v10_pool_run(const v10_pool_job *job, v10_err *err)
{
    batch b = {.job = job};
    pthread_mutex_init(&b.lock, NULL);
    v10_pool_spec spec = {.n = job->n, .run = run_one, .ctx = &b, .progress = job->progress};
    /* Each run's estimated work: the order of a batch handed out longest
     * first (a long run started last keeps one thread busy while the
     * others idle), and the weights of the bar's ETA (issue 24: repro's
     * longest runs come first, and its ETA by count said 20 min for a 2
     * min job).  Skipped runs need none.  Estimated on the pool's
     * threads: loading a run's models for an NPU not seen yet costs them
     * there (the isca23 cache's copies, 149 MB for RetinaNet), which on
     * one thread kept the other core idle for 1 to 4 s of `repro --quick`
     * before its first run (issue 22; RetinaNet's copies still come one
     * after another, under its cache lock).  An estimate reads only its
     * own configuration and the caches, so the weights are the same. */
    int bar = job->weigh && v10_progress_wanted(job->progress);
    if ((bar || job->longest_first) && (b.work = calloc(job->n ? job->n : 1, sizeof *b.work))) {
        v10_pool_spec est = {.n = job->n, .run = estimate_one, .ctx = &b};
        v10_err ignored; /* out of memory for the pass: index order, the bar counts runs */
        if (v10_pool_for(&est, job->threads, &ignored)) {
            free(b.work);
            b.work = NULL;
        }
    }
    _Static_assert(sizeof *job->skip == sizeof(int), "skip is an int array");
    unsigned char *skip = NULL;
    int rc = 0;
    if (job->skip) { /* the pool's skip flags are bytes */
        skip = malloc(job->n ? job->n : 1);
        if (!skip)
            rc = v10_err_set(err, "out of memory");
        for (size_t i = 0; skip && i < job->n; i++)
            skip[i] = job->skip[i] != 0;
        spec.skip = skip;
    }
    if (rc == 0 && b.work && job->longest_first && longest_first(&b, job->n, skip))
        rc = v10_err_set(err, "out of memory");
    spec.work = bar ? b.work : NULL;
    if (rc == 0)
        rc = v10_pool_for(&spec, job->threads, err);
    free(skip);
    free(b.work);
    free(b.order);
    pthread_mutex_destroy(&b.lock);
    return rc;
}
