/*
 * pool.h — the one thread pool: runs fn(ctx, i) for every index i in
 * [0, n) that is not skipped, on N threads that pull the next index from a
 * shared counter (dynamic load balancing, so long and short items balance).
 * Each item writes its result at its own index, so the outcome is the same
 * whatever the thread count.  The first failure stops handing out items
 * (those in flight finish); the error reported is the failure of lowest
 * index among those seen.  A progress bar with ETA (v10/pool.h) counts the
 * finished items when `progress` is set.
 *
 * Users: the simulation batch (v10_pool_run, src/sim/batch.c), the
 * sweep's queue (src/sweep/run.c) and, through it, the MPI coordinator,
 * which hands indices to remote ranks with _take and _done while a local
 * worker thread runs others.
 *
 *   v10_pool_for(&spec, threads, err)          everything, the caller working
 * or, piece by piece:
 *   p = v10_pool_create(&spec); v10_pool_start(p, k);  k background workers
 *   ... i = v10_pool_take(p); ...; v10_pool_done(p, i, rc, &e);   items run elsewhere
 *   v10_pool_wait(p, err);                     join (and free) the pool
 */
#ifndef V10_UTIL_POOL_H
#define V10_UTIL_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"

/* More worker threads than this are not started. */
#define V10_POOL_THREADS_MAX 256

/* Runs item i: 0, or -1 with err set.  Called from several threads at
 * once, each i once; it must touch only what item i owns (or lock). */
typedef int (*v10_pool_fn)(void *ctx, size_t i, v10_err *err);

typedef struct v10_pool_spec {
    size_t n;                   /* items 0 .. n-1 */
    const unsigned char *skip;  /* optional: skip[i] != 0 means i is not run; read
                                   only for indices not handed out yet */
    v10_pool_fn run;            /* NULL only if every item runs elsewhere (_take) */
    void *ctx;
    const char *progress;       /* label of the progress bar, or NULL for none */
    const double *work;         /* optional: item i's estimated work, for the bar's ETA */
} v10_pool_spec;

typedef struct v10_pool v10_pool;

/* A pool over spec's items (copied); no thread runs yet.  NULL: out of memory. */
v10_pool *v10_pool_create(const v10_pool_spec *spec);
/* Starts up to `threads` background workers running spec.run (never more
 * than the items to run, nor V10_POOL_THREADS_MAX); returns how many started. */
int v10_pool_start(v10_pool *p, int threads);
/* The next index to run, or -1 when none remain or an item failed. */
int64_t v10_pool_take(v10_pool *p);
/* The outcome of item i run outside the workers (rc 0, or -1 and err). */
void v10_pool_done(v10_pool *p, size_t i, int rc, const v10_err *err);
/* Runs items on the calling thread until none remain. */
void v10_pool_work(v10_pool *p);
/* Joins the workers (when none could be started, the calling thread first
 * runs what remains, so every item runs even without threads), ends the
 * progress bar and frees the pool.  0, or -1 with the first failure's err. */
int v10_pool_wait(v10_pool *p, v10_err *err);

/* All of the above: `threads` threads, the caller's included. */
int v10_pool_for(const v10_pool_spec *spec, int threads, v10_err *err);

#endif
