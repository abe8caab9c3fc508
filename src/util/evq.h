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
 * Each entry carries its key and its slot, so that pop's scan reads the
 * entries in one array in order instead of two arrays through an index per
 * entry (the loop's pop was 5.5% of the engine's instructions with 16
 * tenants).
 *
 * Invariants: act[0..n) holds the scheduled slots' entries, each slot
 * once, in no order; pos[s] is the index of s's entry in act, or -1 if s
 * is not scheduled; time[s] is the time s was last scheduled at (still
 * there once popped); seq values are unique (next_seq counts up), so the
 * order is total and ties in time go to the slot scheduled first.
 */
#ifndef V10_UTIL_EVQ_H
#define V10_UTIL_EVQ_H

#include <stdint.h>

#include "v10/err.h"

/* One scheduled entry: its key (time, seq) and its slot. */
typedef struct v10_evq_entry {
    uint64_t time, seq;
    int slot;
} v10_evq_entry;

typedef struct v10_evq {
    v10_evq_entry *act;    /* the scheduled entries, unordered */
    int *pos;              /* slot -> index in act, or -1 */
    uint64_t *time;        /* per slot: the time it was last scheduled at */
    int n, cap;
    uint64_t next_seq;
} v10_evq;

/* Allocates `cap` slots, none scheduled; -1 on allocation failure (call
 * v10_evq_fini either way).  fini frees and zeroes. */
int v10_evq_init(v10_evq *q, int cap);
void v10_evq_fini(v10_evq *q);

/* Entry a comes before entry b. */
static inline int v10_evq_before(const v10_evq_entry *a, const v10_evq_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Schedules (or moves) the entry of `slot` to time t, after every entry
 * already scheduled at t. */
static inline void v10_evq_set(v10_evq *q, int slot, uint64_t t)
{
    q->time[slot] = t;
    if (q->pos[slot] < 0) {
        V10_ASSERT(q->n < q->cap);
        q->pos[slot] = q->n++;
    }
    q->act[q->pos[slot]] = (v10_evq_entry){t, q->next_seq++, slot};
}

/* Removes entry i of act, moving the last entry into its place. */
static inline void v10_evq_remove_at(v10_evq *q, int i)
{
    q->pos[q->act[i].slot] = -1;
    q->n--;
    if (i != q->n) {
        q->act[i] = q->act[q->n];
        q->pos[q->act[i].slot] = i;
    }
}

/* Unschedules `slot` (nothing if it is not scheduled). */
static inline void v10_evq_cancel(v10_evq *q, int slot)
{
    if (q->pos[slot] >= 0)
        v10_evq_remove_at(q, q->pos[slot]);
}

/* Removes and returns the earliest slot (its time stays in time[]), or -1. */
static inline int v10_evq_pop(v10_evq *q)
{
    if (q->n == 0)
        return -1;
    int best = 0;
    v10_evq_entry b = q->act[0]; /* the best so far, in registers */
    for (int i = 1; i < q->n; i++)
        if (v10_evq_before(&q->act[i], &b)) {
            best = i;
            b = q->act[i];
        }
    int slot = b.slot;
    v10_evq_remove_at(q, best);
    return slot;
}

/* 1 if `slot` has an entry scheduled. */
static inline int v10_evq_scheduled(const v10_evq *q, int slot) { return q->pos[slot] >= 0; }

#endif
