/*
 * batch.c — v10_pool_run (v10/pool.h): a batch of independent simulations
 * (run --policy all, repro, fleet, collocate) on the one thread pool
 * (util/pool.h); result i lands in results[i].
 */
#include <pthread.h>
#include <stdlib.h>

#include "sim/horizon.h"
#include "util/pool.h"
#include "v10/pool.h"

typedef struct batch {
    const v10_pool_job *job;
    pthread_mutex_t lock; /* serializes job->done, as v10/pool.h promises */
} batch;

static int run_one(void *ctx, size_t i, v10_err *err)
{
    batch *b = ctx;
    const v10_pool_job *j = b->job;
    v10_run_result local, *r = j->results ? &j->results[i] : &local;
    int rc = v10_run(&j->cfgs[i], r, err);
    if (rc == 0 && j->done) {
        pthread_mutex_lock(&b->lock);
        rc = j->done(j->ctx, i, r, err);
        pthread_mutex_unlock(&b->lock);
    }
    if (!j->results)
        v10_run_result_fini(&local); /* safe after a failed run too */
    if (rc)
        v10_err_prefix(err, "point %zu", i);
    return rc;
}

int v10_pool_run(const v10_pool_job *job, v10_err *err)
{
    batch b = {.job = job};
    pthread_mutex_init(&b.lock, NULL);
    v10_pool_spec spec = {.n = job->n, .run = run_one, .ctx = &b, .progress = job->progress};
    /* Weights for the bar's ETA: each run's estimated events (issue 24:
     * repro's longest runs come first, and its ETA by count said 20 min
     * for a 2 min job).  Skipped runs need none. */
    double *work = NULL;
    if (job->weigh && v10_progress_wanted(job->progress) && (work = calloc(job->n, sizeof *work)))
        for (size_t i = 0; i < job->n; i++)
            work[i] = job->skip && job->skip[i] ? 0 : v10_run_estimate_work(&job->cfgs[i]);
    spec.work = work;
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
    if (rc == 0)
        rc = v10_pool_for(&spec, job->threads, err);
    free(skip);
    free(work);
    pthread_mutex_destroy(&b.lock);
    return rc;
}
