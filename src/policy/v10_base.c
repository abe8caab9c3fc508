/*
 * v10_base.c — V10 without fairness: an SA and a VU may serve different
 * tenants at once; a freed FU goes round robin among the tenants whose next
 * operator needs it.  No preemption.
 */
#include "policy/common.h"

typedef struct base_state {
    int last[V10_FU_TYPES]; /* last tenant served per FU type */
} base_state;

static int base_init(v10_engine *e, void *st, v10_err *err)
{
    (void)e, (void)err;
    base_state *s = st;
    for (int ty = 0; ty < V10_FU_TYPES; ty++)
        s->last[ty] = -1;
    return 0;
}

static int base_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    base_state *s = st;
    int type = (int)v10p_fu_type(e, f);
    s->last[type] = policy_round_robin(cand, s->last[type]);
    return s->last[type];
}

const v10_policy_ops v10_policy_v10_base = {
    .name = "v10-base",
    .summary = "V10 operator scheduler: SA and VU serve different tenants; round robin",
    .hw_scheduler = 1,
    .state_size = sizeof(base_state),
    .init = base_init,
    .pick = base_pick,
};
