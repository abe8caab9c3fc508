/*
 * evq.h — the engine's event queue (src/engine/): an indexed set of slots
 * keyed by (time, sequence), each of `cap` slots with at most one pending
 * entry, so rescheduling a slot moves its one entry instead of leaving a
 * stale one behind.  The operations are inline because the engine's loop
 * lives on them, and never allocate.
 *
 * The scheduled slots are kept unordered and pop scans them.  A run has
 * few pending events (one per busy or switching FU, one per open-loop
 * tenant, the timer: 3 to 10 in the studies), and then a scan costs less
 * than keeping a binary heap in order, which every reschedule of a busy FU
 * (each operator start) had to sift: 7-9% fewer engine instructions for
 * two and for sixteen tenants.  With 64 open-loop tenants (~80 pending) a
 * run is ~10% slower than with the heap (docs/benchmarks.md).
 *
 * Invariants: act[0..n) holds the scheduled slots, each once, in no order;
 * pos[s] is s's index in act, or -1 if s is not scheduled; seq values are
 * unique (next_seq counts up), so the order is total and ties in time go
 * to the slot scheduled first.
 */
#ifndef V10_UTIL_EVQ_H
#define V10_UTIL_EVQ_H

#include <stdint.h>

#include "v10/err.h"

typedef struct v10_evq {
    int *act;              /* the scheduled slots, unordered */
    int *pos;              /* slot -> index in act, or -1 */
    uint64_t *time, *seq;  /* per slot: its key */
    int n, cap;
    uint64_t next_seq;
} v10_evq;

/* Allocates `cap` slots, none scheduled; -1 on allocation failure (call
 * v10_evq_fini either way).  fini frees and zeroes. */
int v10_evq_init(v10_evq *q, int cap);
void v10_evq_fini(v10_evq *q);

/* Slot a's entry comes before slot b's. */
static inline int v10_evq_before(const v10_evq *q, int a, int b)
{
    return q->time[a] < q->time[b] || (q->time[a] == q->time[b] && q->seq[a] < q->seq[b]);
}

/* Schedules (or moves) the entry of `slot` to time t, after every entry
 * already scheduled at t. */
static inline void v10_evq_set(v10_evq *q, int slot, uint64_t t)
{
    q->time[slot] = t;
    q->seq[slot] = q->next_seq++;
    if (q->pos[slot] < 0) {
        V10_ASSERT(q->n < q->cap);
        q->act[q->n] = slot;
        q->pos[slot] = q->n++;
    }
}

/* Unschedules `slot` (nothing if it is not scheduled). */
static inline void v10_evq_cancel(v10_evq *q, int slot)
{
    int i = q->pos[slot];
    if (i < 0)
        return;
    int last = q->act[--q->n];
    q->act[i] = last;
    q->pos[last] = i;
    q->pos[slot] = -1;
}

/* Removes and returns the earliest slot (its time stays in time[]), or -1. */
static inline int v10_evq_pop(v10_evq *q)
{
    if (q->n == 0)
        return -1;
    int best = q->act[0];
    for (int i = 1; i < q->n; i++)
        if (v10_evq_before(q, q->act[i], best))
            best = q->act[i];
    v10_evq_cancel(q, best);
    return best;
}

/* 1 if `slot` has an entry scheduled. */
static inline int v10_evq_scheduled(const v10_evq *q, int slot) { return q->pos[slot] >= 0; }

#endif
