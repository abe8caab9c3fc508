/*
 * run.c — running a sweep's missing points: the queue hands them out one
 * at a time from the one thread pool (util/pool.h) and records each
 * finished row in the store.  Local threads run points through it; the MPI
 * coordinator (src/cli/main_mpi.c) also takes indices for remote ranks and
 * records the rows they send back.
 */
#include <pthread.h>
#include <stdlib.h>

#include "util/pool.h"
#include "v10/sweep.h"

/*
 * The pool hands out each index that the store lacks once (skip = the
 * store's done flags, read only for indices not yet handed out, while the
 * store writes only those handed out); a failure stops it.  `lock`
 * serializes every call on the store.
 */
struct v10_sweep_queue {
    const v10_sweep *s;
    v10_sweep_store *st;
    pthread_mutex_t lock;
    v10_pool *pool;
};

static int append(v10_sweep_queue *q, size_t i, const char *row, v10_err *err)
{
    pthread_mutex_lock(&q->lock);
    int rc = v10_sweep_store_append(q->st, i, row, err);
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* The pool's item: run point i and record its row. */
static int run_one(void *ctx, size_t i, v10_err *err)
{
    v10_sweep_queue *q = ctx;
    char *row;
    if (v10_sweep_run_point(q->s, i, &row, err))
        return -1;
    int rc = append(q, i, row, err);
    free(row);
    return rc;
}

v10_sweep_queue *v10_sweep_queue_create(const v10_sweep *s, v10_sweep_store *st,
                                        const char *progress)
{
    v10_sweep_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->s = s;
    q->st = st;
    v10_pool_spec spec = {.n = v10_sweep_points(s), .skip = v10_sweep_store_done(st),
                          .run = run_one, .ctx = q, .progress = progress};
    if (!(q->pool = v10_pool_create(&spec))) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    return q;
}

int64_t v10_sweep_queue_take(v10_sweep_queue *q) { return v10_pool_take(q->pool); }

void v10_sweep_queue_record(v10_sweep_queue *q, size_t i, const char *row, const char *msg)
{
    v10_err e;
    int rc = row ? append(q, i, row, &e) : v10_err_set(&e, "%s", msg ? msg : "failed");
    v10_pool_done(q->pool, i, rc, &e);
}

int v10_sweep_queue_start(v10_sweep_queue *q, int threads)
{
    return v10_pool_start(q->pool, threads);
}

void v10_sweep_work(v10_sweep_queue *q) { v10_pool_work(q->pool); }

int v10_sweep_queue_destroy(v10_sweep_queue *q, v10_err *err)
{
    int rc = v10_pool_wait(q->pool, err);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return rc;
}

int v10_sweep_run_local(const v10_sweep *s, v10_sweep_store *st, int threads,
                        const char *progress, v10_err *err)
{
    v10_sweep_queue *q = v10_sweep_queue_create(s, st, progress);
    if (!q)
        return v10_err_set(err, "out of memory");
    v10_sweep_queue_start(q, threads - 1);
    v10_sweep_work(q); /* the calling thread works too */
    return v10_sweep_queue_destroy(q, err);
}
