/*
 * pool.c — the one thread pool (util/pool.h): worker threads pulling item
 * indices from a shared counter; results land at their own index.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/pool.h"
#include "v10/pool.h"

/*
 * Invariants, every field but spec, todo, th and started (the creating
 * thread's) guarded by `lock`: `next` only moves forward and
 * every index below it was handed out or skipped; finished <= handed out;
 * once `failed` is set no index is handed out, and fail_index is the
 * lowest failing index reported so far (err its message).
 */
struct v10_pool {
    v10_pool_spec spec;
    pthread_mutex_t lock;
    size_t todo;     /* items not skipped, fixed at create */
    size_t next, finished;
    int failed;
    size_t fail_index;
    v10_err err;
    v10_progress bar;
    pthread_t th[V10_POOL_THREADS_MAX];
    int started; /* background workers running (th[0 .. started-1]) */
};

v10_pool *v10_pool_create(const v10_pool_spec *spec)
{
    v10_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->spec = *spec;
    pthread_mutex_init(&p->lock, NULL);
    p->todo = spec->n;
    if (spec->skip)
        for (size_t i = 0; i < spec->n; i++)
            p->todo -= spec->skip[i] != 0;
    v10_progress_start(&p->bar, spec->progress, p->todo);
    for (size_t i = 0; spec->work && i < spec->n; i++)
        p->bar.work_total += spec->skip && spec->skip[i] ? 0 : spec->work[i];
    return p;
}

int64_t v10_pool_take(v10_pool *p)
{
    const v10_pool_spec *s = &p->spec;
    pthread_mutex_lock(&p->lock);
    while (p->next < s->n && s->skip && s->skip[p->next])
        p->next++;
    int64_t i = p->failed || p->next == s->n ? -1 : (int64_t)p->next++;
    if (i >= 0 && s->work)
        p->bar.work_running += s->work[i];
    pthread_mutex_unlock(&p->lock);
    return i;
}

void v10_pool_done(v10_pool *p, size_t i, int rc, const v10_err *err)
{
    pthread_mutex_lock(&p->lock);
    if (rc && (!p->failed || i < p->fail_index)) {
        p->failed = 1;
        p->fail_index = i;
        p->err = *err;
    }
    p->finished++;
    if (p->spec.work) {
        p->bar.work_running -= p->spec.work[i];
        p->bar.work_done += p->spec.work[i];
    }
    v10_progress_step(&p->bar, p->finished);
    pthread_mutex_unlock(&p->lock);
}

void v10_pool_work(v10_pool *p)
{
    V10_ASSERT(p->spec.run);
    int64_t i;
    while ((i = v10_pool_take(p)) >= 0) {
        v10_err e = {{0}};
        int rc = p->spec.run(p->spec.ctx, (size_t)i, &e);
        v10_pool_done(p, (size_t)i, rc, &e);
    }
}

static void *worker(void *p)
{
    v10_pool_work(p);
    return NULL;
}

int v10_pool_start(v10_pool *p, int threads)
{
    while (p->started < threads && p->started < V10_POOL_THREADS_MAX &&
           (size_t)p->started < p->todo &&
           pthread_create(&p->th[p->started], NULL, worker, p) == 0)
        p->started++;
    return p->started;
}

int v10_pool_wait(v10_pool *p, v10_err *err)
{
    if (p->started == 0 && p->spec.run)
        v10_pool_work(p);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->th[i], NULL);
    v10_progress_end(&p->bar);
    pthread_mutex_destroy(&p->lock);
    int rc = 0;
    if (p->failed) {
        if (err)
            *err = p->err;
        rc = -1;
    }
    free(p);
    return rc;
}

int v10_pool_for(const v10_pool_spec *spec, int threads, v10_err *err)
{
    v10_pool *p = v10_pool_create(spec);
    if (!p)
        return v10_err_set(err, "out of memory");
    v10_pool_start(p, threads - 1);
    v10_pool_work(p); /* the calling thread works too */
    return v10_pool_wait(p, err);
}
