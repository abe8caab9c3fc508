/* heap.c — allocation of the indexed event heap (heap.h). */
#include "util/heap.h"

#include <stdlib.h>
#include <string.h>

int v10_heap_init(v10_heap *h, int cap)
{
    memset(h, 0, sizeof *h);
    size_t n = cap > 0 ? (size_t)cap : 1;
    h->heap = calloc(n, sizeof *h->heap);
    h->pos = malloc(n * sizeof *h->pos);
    h->time = calloc(n, sizeof *h->time);
    h->seq = calloc(n, sizeof *h->seq);
    if (!h->heap || !h->pos || !h->time || !h->seq)
        return -1;
    for (int s = 0; s < cap; s++)
        h->pos[s] = -1;
    h->cap = cap;
    return 0;
}

void v10_heap_fini(v10_heap *h)
{
    free(h->heap);
    free(h->pos);
    free(h->time);
    free(h->seq);
    memset(h, 0, sizeof *h);
}
