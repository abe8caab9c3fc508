/*
 * v10_full.c — V10 with fair sharing and operator preemption (paper §4):
 * a timer fires every slice; on each busy FU, if a waiting tenant whose
 * next operator needs that FU type has a lower score than the holder, the
 * holder is preempted at its next tile boundary and the FU pays the SA or
 * VU context switch (384 cycles for a 128x128 SA, paper).
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

static void full_timer(v10_engine *e, void *st)
{
    (void)st;
    for (int f = 0; f < e->n_fus; f++) {
        fu *u = &e->fus[f];
        if (u->state != FU_BUSY || u->stop_at > 0)
            continue;
        double held = v10_engine_score(e, u->tenant);
        int waiter = -1;
        double best = held;
        for (int i = 0; i < e->n_tenants; i++) {
            const tenant *t = &e->tenants[i];
            if (t->state != T_READY || v10_tenant_next_fu(t) != (int)u->type ||
                (u->owner >= 0 && u->owner != i))
                continue;
            double s = v10_engine_score(e, i);
            if (s < best) {
                best = s;
                waiter = i;
            }
        }
        if (waiter < 0)
            continue;
        uint64_t cost = u->type == V10_FU_SA ? e->npu->sa_switch_cycles
                                             : e->npu->vu_switch_cycles;
        if (v10_engine_preempt(e, f, cost))
            v10_engine_count_switch(e);
    }
    v10_engine_set_timer(e, e->now + policy_slice_cycles(e));
}

const v10_policy_ops v10_policy_v10_full = {
    .name = "v10-full",
    .summary = "V10 + Algorithm 1 + operator preemption every time slice",
    .params = "--slice-cycles N (default: the NPU's, 32768)",
    .init = full_init,
    .pick = full_pick,
    .on_timer = full_timer,
};
