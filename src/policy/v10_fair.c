/*
 * v10_fair.c — V10 with priority-based fair sharing (paper, Algorithm 1):
 * a freed FU goes to the waiting tenant with the lowest
 * active_cycles / total_cycles / priority.  No preemption.
 */
#include "policy/common.h"

static int fair_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)st, (void)f;
    return v10p_lowest_score(e, cand);
}

const v10_policy_ops v10_policy_v10_fair = {
    .name = "v10-fair",
    .summary = "V10 + Algorithm 1: lowest active_rate/priority first; no preemption",
    .hw_scheduler = 1,
    .pick = fair_pick,
};
