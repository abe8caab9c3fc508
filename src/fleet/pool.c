/*
 * pool.c — a fixed set of worker threads pulling point indices from a
 * shared counter (dynamic load balancing); results go to their own slots.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "v10/pool.h"

typedef struct pool {
    const v10_pool_job *job;
    pthread_mutex_t lock;
    size_t next, finished;
    int failed;
    size_t fail_index;
    v10_err err;
    v10_progress bar;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    const v10_pool_job *j = p->job;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->next < j->n && j->skip && j->skip[p->next])
            p->next++;
        size_t i = p->next < j->n && !p->failed ? p->next++ : j->n;
        pthread_mutex_unlock(&p->lock);
        if (i == j->n)
            return NULL;
        v10_run_result local, *r = j->results ? &j->results[i] : &local;
        v10_err err;
        int rc = v10_run(&j->cfgs[i], r, &err);
        pthread_mutex_lock(&p->lock);
        if (rc == 0 && j->done)
            rc = j->done(j->ctx, i, r, &err);
        if (rc && (!p->failed || i < p->fail_index)) {
            p->failed = 1;
            p->fail_index = i;
            p->err = err;
        }
        p->finished++;
        v10_progress_step(&p->bar, p->finished);
        pthread_mutex_unlock(&p->lock);
        if (!j->results)
            v10_run_result_fini(&local);
    }
}

int v10_pool_run(const v10_pool_job *job, v10_err *err)
{
    pool p;
    memset(&p, 0, sizeof p);
    p.job = job;
    pthread_mutex_init(&p.lock, NULL);
    size_t todo = job->n;
    if (job->skip)
        for (size_t i = 0; i < job->n; i++)
            todo -= job->skip[i] != 0;
    v10_progress_start(&p.bar, job->progress, todo);
    int nth = job->threads < 1 ? 1 : job->threads;
    if ((size_t)nth > todo)
        nth = todo ? (int)todo : 1;
    pthread_t th[256];
    if (nth > 256)
        nth = 256;
    int started = 0;
    for (; started < nth - 1; started++)
        if (pthread_create(&th[started], NULL, worker, &p))
            break;
    worker(&p); /* the calling thread works too */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    v10_progress_end(&p.bar);
    pthread_mutex_destroy(&p.lock);
    if (p.failed) {
        if (err)
            *err = p.err;
        v10_err_prefix(err, "point %zu", p.fail_index);
        return -1;
    }
    return 0;
}
