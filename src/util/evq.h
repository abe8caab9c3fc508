/*
 * evq.h — the engine's event queue (src/engine/): an indexed set of slots
 * keyed by (time, sequence), each of `cap` slots with at most one pending
 * entry, so rescheduling a slot moves its one entry instead of leaving a
 * stale one behind.  The operations are inline because the engine's loop
 * lives on them, and never allocate.
 *
 * The scheduled entries are kept in the order they were scheduled and pop
 * scans them.  A run has few pending events (one per busy or switching FU,
 * one per open-loop tenant, the timer: 3 to 10 in the studies), and then a
 * scan costs less than keeping a binary heap in order, which every
 * reschedule of a busy FU (each operator start) had to sift.  With 64
 * open-loop tenants (~80 pending) the first scan ran ~10% slower than the
 * heap, and the branch-free one below takes back about 6% of its CPU
 * (measured with bench/bench_engine when the scan replaced the heap).
 *
 * Keeping the entries in scheduling order makes the sequence number the
 * index: the earliest entry is the first one with the least time, which a
 * scan of the times alone finds with conditional moves, with no branch
 * that depends on the data.  The scan that compared (time, seq) pairs
 * mispredicted about once an entry and was half of the loop's own time
 * with 16 tenants on four SAs and VUs.  The price is a shift of the
 * entries after one that leaves (pop, cancel, or a reschedule, which moves
 * the entry to the end), a few moves of a loop that predicts well.
 *
 * Invariants: at[0..n) and slot_at[0..n) hold the scheduled entries' times
 * and slots, each slot once, in the order they were (last) scheduled, so
 * ties in time go to the slot scheduled first; pos[s] is the index of s's
 * entry, or -1 if s is not scheduled; time[s] is the time s was last
 * scheduled at (still there once popped).
 */
#ifndef V10_UTIL_EVQ_H
#define V10_UTIL_EVQ_H

#include <stdint.h>

#include "v10/err.h"

typedef struct v10_evq {
    uint64_t *at;          /* the scheduled entries' times, in scheduling order */
    int *slot_at;          /* their slots, in the same order */
    int *pos;              /* slot -> index in at/slot_at, or -1 */
    uint64_t *time;        /* per slot: the time it was last scheduled at */
    int n, cap;
} v10_evq;

/* Allocates `cap` slots, none scheduled; -1 on allocation failure (call
 * v10_evq_fini either way).  fini frees and zeroes. */
int v10_evq_init(v10_evq *q, int cap);
void v10_evq_fini(v10_evq *q);

/* Removes entry i, moving the later entries down one (keeping their order). */
static inline void v10_evq_remove_at(v10_evq *q, int i)
{
    q->pos[q->slot_at[i]] = -1;
    q->n--;
    for (; i < q->n; i++) {
        int s = q->slot_at[i + 1];
        q->at[i] = q->at[i + 1];
        q->slot_at[i] = s;
        q->pos[s] = i;
    }
}

/* Schedules (or moves) the entry of `slot` to time t, after every entry
 * already scheduled at t. */
static inline void v10_evq_set(v10_evq *q, int slot, uint64_t t)
{
    q->time[slot] = t;
    if (q->pos[slot] >= 0)
        v10_evq_remove_at(q, q->pos[slot]);
    V10_ASSERT(q->n < q->cap);
    q->pos[slot] = q->n;
    q->at[q->n] = t;
    q->slot_at[q->n++] = slot;
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
    uint64_t bt = q->at[0];
    for (int i = 1; i < q->n; i++) { /* the first least time: conditional moves */
        uint64_t t = q->at[i];
        best = t < bt ? i : best;
        bt = t < bt ? t : bt;
    }
    int slot = q->slot_at[best];
    v10_evq_remove_at(q, best);
    return slot;
}

/* 1 if `slot` has an entry scheduled. */
static inline int v10_evq_scheduled(const v10_evq *q, int slot) { return q->pos[slot] >= 0; }

#endif
