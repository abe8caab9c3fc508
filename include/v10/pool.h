/*
 * pool.h — runs many independent simulations on N threads.  The engine keeps
 * no global state, so points are independent; results land at their own
 * index, so the outcome is the same whatever the thread count.
 *
 * A batch (v10_pool_run: `run --policy all`, `repro`, `fleet`, `collocate`)
 * and a sweep's queue (v10/sweep.h) run on the same thread pool
 * (src/util/pool.h).  With `progress` set, a progress bar with ETA goes
 * to stderr when it is a terminal (or V10_PROGRESS=1), else a line every
 * 10 s once a command has run that long (V10_PROGRESS=0: nothing).
 */
#ifndef V10_POOL_H
#define V10_POOL_H

#include <stddef.h>

#include "v10/sim.h"

/* Called (from a worker thread, serialized by the pool) after point i
 * finishes; may record it durably.  Returns 0, or -1 to stop the pool
 * (the error is then reported by v10_pool_run). */
typedef int (*v10_pool_done_fn)(void *ctx, size_t i, const v10_run_result *r, v10_err *err);

typedef struct v10_pool_job {
    const v10_run_config *cfgs; /* n configurations */
    v10_run_result *results;    /* n results (may be NULL if done() keeps them) */
    int *skip;                  /* optional: skip[i] != 0 means already done */
    size_t n;
    int threads;                /* >= 1 */
    const char *progress;       /* label for the progress bar, or NULL */
    int weigh;                  /* the bar's ETA weighs runs by their estimated events */
    int longest_first;          /* hand runs out in order of their estimated work, the
                                   longest first (src/sim/batch.c), so that the threads
                                   end together; else in index order */
    v10_pool_done_fn done;      /* optional */
    void *ctx;
} v10_pool_job;

/* Runs every non-skipped point.  Returns 0, or -1 with err set to the first
 * failing point's message (by index order among failures seen). */
int v10_pool_run(const v10_pool_job *job, v10_err *err);

/* A progress bar on stderr: [#####     ] 12/50  24%  ETA 0:31  label.
 * With work_total > 0 the fraction (bar, percent, ETA) is of the work,
 * done plus half of what is running, not of the items: a batch whose
 * first items are its longest (repro) no longer shows an ETA 10x over. */
typedef struct v10_progress {
    const char *label;
    size_t total, done;
    double work_total, work_done, work_running; /* 0, or in any one unit */
    double t0;
    int enabled;     /* 0: off; 1: the bar; 2: lines (stderr not a terminal) */
    double last_draw;
    double quiet_s;  /* draw nothing until this many seconds have passed (0: at once) */
    int drawn;       /* something was drawn (end finishes the line only then) */
    double every_s;  /* lines: seconds between them */
} v10_progress;

void v10_progress_start(v10_progress *p, const char *label, size_t total);
/* Whether a bar or lines would be drawn for this label (V10_PROGRESS,
 * whether stderr is a terminal): the work estimate is skipped if not. */
int v10_progress_wanted(const char *label);
/* Seconds left after elapsed_s, or -1 before 5% is done (an ETA from the
 * first few percent is a guess). */
double v10_progress_eta_s(const v10_progress *p, double elapsed_s);
void v10_progress_step(v10_progress *p, size_t done);
void v10_progress_end(v10_progress *p);

#endif
