/*
 * v10_base.c — V10 without fairness: an SA and a VU may serve different
 * tenants at once; a freed FU goes round robin among the tenants whose next
 * operator needs it.  No preemption.
 */
#include "policy/common.h"

typedef struct base_state {
    int last[V10_MAX_TENANTS][V10_FU_TYPES]; /* last tenant served per chip (every chip
                                                simulated: each its own round) and FU type */
} base_state;

static int base_init(v10_engine *e, void *st, v10_err *err)
{
    (void)e, (void)err;
    base_state *s = st;
    for (int c = 0; c < V10_MAX_TENANTS; c++)
        for (int ty = 0; ty < V10_FU_TYPES; ty++)
            s->last[c][ty] = -1;
    return 0;
}

static int base_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    base_state *s = st;
    int *last = &s->last[v10p_fu_chip(e, f)][v10p_fu_type(e, f)];
    *last = policy_round_robin(cand, *last);
    return *last;
}

const v10_policy_ops v10_policy_v10_base = {
    .name = "v10-base",
    .summary = "V10 operator scheduler: SA and VU serve different tenants; round robin",
    .hw_scheduler = 1,
    .state_size = sizeof(base_state),
    .init = base_init,
    .pick = base_pick,
};
