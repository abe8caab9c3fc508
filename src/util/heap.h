/*
 * heap.h — an indexed min-heap of slots keyed by (time, sequence): each of
 * `cap` slots has at most one pending entry, so rescheduling a slot moves
 * its one entry instead of leaving a stale one behind.  The engine's event
 * queue (src/engine/); the operations are inline because its loop lives on
 * them, and never allocate.
 *
 * Invariants: heap[0..n) holds the scheduled slots in heap order by
 * (time[s], seq[s]); pos[s] is s's index in heap, or -1 if s is not
 * scheduled; seq values are unique (next_seq counts up), so the order is
 * total and ties in time go to the slot scheduled first.
 */
#ifndef V10_UTIL_HEAP_H
#define V10_UTIL_HEAP_H

#include <stdint.h>

#include "v10/err.h"

typedef struct v10_heap {
    int *heap;             /* slots, heap-ordered */
    int *pos;              /* slot -> index in heap, or -1 */
    uint64_t *time, *seq;  /* per slot: its key */
    int n, cap;
    uint64_t next_seq;
} v10_heap;

/* Allocates `cap` slots, none scheduled; -1 on allocation failure (call
 * v10_heap_fini either way).  fini frees and zeroes. */
int v10_heap_init(v10_heap *h, int cap);
void v10_heap_fini(v10_heap *h);

static inline int v10_heap_less(const v10_heap *h, int a, int b)
{
    return h->time[a] < h->time[b] || (h->time[a] == h->time[b] && h->seq[a] < h->seq[b]);
}

static inline void v10_heap_swap(v10_heap *h, int i, int j)
{
    int a = h->heap[i], b = h->heap[j];
    h->heap[i] = b;
    h->heap[j] = a;
    h->pos[b] = i;
    h->pos[a] = j;
}

/* Restores heap order around index i (up, then down). */
static inline void v10_heap_sift(v10_heap *h, int i)
{
    while (i > 0 && v10_heap_less(h, h->heap[i], h->heap[(i - 1) / 2])) {
        v10_heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && v10_heap_less(h, h->heap[l], h->heap[m]))
            m = l;
        if (r < h->n && v10_heap_less(h, h->heap[r], h->heap[m]))
            m = r;
        if (m == i)
            return;
        v10_heap_swap(h, i, m);
        i = m;
    }
}

/* Schedules (or moves) the entry of `slot` to time t, after every entry
 * already scheduled at t. */
static inline void v10_heap_set(v10_heap *h, int slot, uint64_t t)
{
    h->time[slot] = t;
    h->seq[slot] = h->next_seq++;
    if (h->pos[slot] < 0) {
        V10_ASSERT(h->n < h->cap);
        h->heap[h->n] = slot;
        h->pos[slot] = h->n++;
    }
    v10_heap_sift(h, h->pos[slot]);
}

/* Unschedules `slot` (nothing if it is not scheduled). */
static inline void v10_heap_cancel(v10_heap *h, int slot)
{
    int i = h->pos[slot];
    if (i < 0)
        return;
    v10_heap_swap(h, i, h->n - 1);
    h->n--;
    h->pos[slot] = -1;
    if (i < h->n)
        v10_heap_sift(h, i);
}

/* Removes and returns the earliest slot (its time stays in time[]), or -1. */
static inline int v10_heap_pop(v10_heap *h)
{
    if (h->n == 0)
        return -1;
    int s = h->heap[0];
    v10_heap_cancel(h, s);
    return s;
}

/* 1 if `slot` has an entry scheduled. */
static inline int v10_heap_scheduled(const v10_heap *h, int slot) { return h->pos[slot] >= 0; }

#endif
