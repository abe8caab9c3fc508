/*
 * spatial.c — static spatial partitioning: the SAs and VUs are split among
 * tenants in proportion to priority, and a tenant only ever uses its own.
 * With fewer FUs of a type than tenants, each tenant gets a fraction of the
 * FUs' compute (a partition of the array / lanes) at reduced speed; HBM
 * bandwidth stays shared.
 */
#include "policy/common.h"

static int spatial_init(v10_engine *e, void *st, v10_err *err)
{
    (void)st;
    double share[V10_MAX_TENANTS], sum = 0;
    for (int i = 0; i < e->n_tenants; i++)
        sum += e->tenants[i].priority;
    for (int i = 0; i < e->n_tenants; i++)
        share[i] = e->tenants[i].priority / sum;
    if (v10_engine_partition(e, V10_FU_SA, share, err) ||
        v10_engine_partition(e, V10_FU_VU, share, err))
        return -1;
    return 0;
}

static int spatial_pick(v10_engine *e, void *st, int f, const int *cand, int n)
{
    (void)e, (void)st, (void)f, (void)n;
    return cand[0]; /* only the FU's owner is eligible */
}

const v10_policy_ops v10_policy_spatial = {
    .name = "spatial",
    .summary = "static spatial partitioning of SAs and VUs by priority",
    .params = "none (shares follow priorities)",
    .init = spatial_init,
    .pick = spatial_pick,
};
