/* evq.c — allocation of the engine's event queue (evq.h). */
#include "util/evq.h"

#include <stdlib.h>
#include <string.h>

int v10_evq_init(v10_evq *q, int cap)
{
    memset(q, 0, sizeof *q);
    size_t n = cap > 0 ? (size_t)cap : 1;
    q->at = calloc(n, sizeof *q->at);
    q->slot_at = calloc(n, sizeof *q->slot_at);
    q->pos = malloc(n * sizeof *q->pos);
    q->time = calloc(n, sizeof *q->time);
    if (!q->at || !q->slot_at || !q->pos || !q->time)
        return -1;
    for (int s = 0; s < cap; s++)
        q->pos[s] = -1;
    q->cap = cap;
    return 0;
}

void v10_evq_fini(v10_evq *q)
{
    free(q->at);
    free(q->slot_at);
    free(q->pos);
    free(q->time);
    memset(q, 0, sizeof *q);
}
