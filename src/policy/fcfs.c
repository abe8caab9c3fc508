/*
 * fcfs.c — temporal sharing, whole core per request, in arrival order, run
 * to completion.  A request boundary leaves no context to save, so no
 * switch cost is charged.
 */
#include "policy/common.h"

typedef struct fcfs_state {
    int owner; /* tenant whose request holds the core, -1 none */
} fcfs_state;

static int fcfs_init(v10_engine *e, void *st, v10_err *err)
{
    (void)e, (void)err;
    ((fcfs_state *)st)->owner = -1;
    return 0;
}

/* The tenant whose current request arrived first (ties: lower index). */
static int earliest(const v10_engine *e)
{
    int best = -1;
    for (int i = 0; i < v10p_n_tenants(e); i++) {
        if (!policy_has_work(e, i))
            continue;
        if (best < 0 || v10p_arrival(e, i) < v10p_arrival(e, best))
            best = i;
    }
    return best;
}

static int fcfs_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)f;
    fcfs_state *s = st;
    if (s->owner < 0)
        s->owner = earliest(e);
    return policy_pick_owner(s->owner, cand);
}

static void fcfs_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    fcfs_state *s = st;
    if (k == V10_EV_REQ_DONE && t == s->owner)
        s->owner = earliest(e);
}

const v10_policy_ops v10_policy_fcfs = {
    .name = "fcfs",
    .summary = "temporal: whole core per request, arrival order, no preemption",
    .state_size = sizeof(fcfs_state),
    .init = fcfs_init,
    .pick = fcfs_pick,
    .on_event = fcfs_event,
};
