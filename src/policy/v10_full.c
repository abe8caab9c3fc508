/*
 * v10_full.c — V10 with fair sharing and operator preemption (paper §4):
 * a timer fires every slice and matches waiting tenants to the FUs they
 * need.  The holders with the highest scores go first: each is preempted
 * for the waiting tenant with the lowest score whose next operator needs
 * that FU type, if that score is lower than the holder's.  A waiting tenant
 * takes at most one FU, so every preempted FU has a waiter to take it.  The
 * FU pays the SA or VU context switch (384 cycles for a 128x128 SA, paper).
 */
#include "policy/common.h"

static int full_init(v10_engine *e, void *st, v10_err *err)
{
    (void)st, (void)err;
    v10_engine_set_timer(e, policy_slice_cycles(e));
    return 0;
}

static int full_pick(v10_engine *e, void *st, int f, const int *cand, int n)
{
    (void)st, (void)f;
    return policy_lowest_score(e, cand, n);
}

/* The unmatched waiting tenant with the lowest score that may take FU u
 * (ties: the lower index), or -1. */
static int best_waiter(const v10_engine *e, const fu *u, const double *score,
                       const char *matched)
{
    int best = -1;
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        if (matched[i] || t->state != T_READY || v10_tenant_next_fu(t) != (int)u->type ||
            (u->owner >= 0 && u->owner != i))
            continue;
        if (best < 0 || score[i] < score[best])
            best = i;
    }
    return best;
}

static void full_timer(v10_engine *e, void *st)
{
    (void)st;
    double score[V10_MAX_TENANTS];
    char matched[V10_MAX_TENANTS], seen[V10_MAX_FUS];
    int waiting = 0;
    for (int i = 0; i < e->n_tenants; i++)
        waiting += e->tenants[i].state == T_READY;
    v10_engine_set_timer(e, e->now + policy_slice_cycles(e));
    if (!waiting)
        return; /* nobody to preempt for (the common tick) */
    for (int i = 0; i < e->n_tenants; i++) {
        score[i] = v10_engine_score(e, i);
        matched[i] = 0;
    }
    /* An FU on its way to being free (free, switching, or with a stop
     * pending) will go to the best waiter, who needs no preemption.  Only
     * an executing operator with no stop pending may be preempted. */
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        seen[f] = u->state != FU_BUSY || u->stopping;
        int freeing = u->state == FU_FREE || u->state == FU_SWITCH || u->stopping;
        int w = freeing ? best_waiter(e, u, score, matched) : -1;
        if (w >= 0)
            matched[w] = 1;
    }
    for (;;) {
        int f = -1;
        for (int k = 0; k < e->n_fus; k++)
            if (!seen[k] && (f < 0 || score[e->fus[k].tenant] > score[e->fus[f].tenant]))
                f = k;
        if (f < 0)
            break;
        seen[f] = 1;
        const fu *u = &e->fus[f];
        int w = best_waiter(e, u, score, matched);
        if (w < 0 || !(score[w] < score[u->tenant]))
            continue;
        matched[w] = 1;
        uint64_t cost = u->type == V10_FU_SA ? e->npu->sa_switch_cycles
                                             : e->npu->vu_switch_cycles;
        if (v10_engine_preempt(e, f, cost))
            v10_engine_count_switch(e);
    }
}

const v10_policy_ops v10_policy_v10_full = {
    .name = "v10-full",
    .summary = "V10 + Algorithm 1 + operator preemption every time slice",
    .params = "--slice-cycles N (default: the NPU's, 32768)",
    .init = full_init,
    .pick = full_pick,
    .on_timer = full_timer,
};
