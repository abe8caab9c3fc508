/*
 * spatial.c — static spatial partitioning: the SAs and VUs are split among
 * tenants in proportion to priority, and a tenant only ever uses its own.
 * With fewer FUs of a type than tenants, each tenant gets a fraction of the
 * FUs' compute (a partition of the array / lanes) at reduced speed; HBM
 * bandwidth stays shared.
 */
#include "policy/common.h"

/*
 * A tenant's shares of one FU type, one entry per tenant, summing to 1.
 * With at least as many FUs as tenants they are the priority shares (the
 * engine rounds them to whole FUs).  With fewer, a tenant's partition is a
 * slice of one FU: it has one operator in flight, so it can never use more
 * than one FU's compute.  A priority share above 1/n_phys is capped there
 * and the excess goes to the others in proportion to priority
 * (water-filling), so every priority mix has an allocation.
 */
static void fu_shares(const v10_engine *e, v10_fu_type type, double *share)
{
    int nt = v10p_n_tenants(e), n_phys = v10p_n_phys(e, type);
    int capped[V10_MAX_TENANTS] = {0};
    double free_fus = n_phys; /* FUs of compute not yet given to a capped tenant */
    for (int changed = 1; changed;) {
        changed = 0;
        double sum = 0;
        for (int i = 0; i < nt; i++)
            if (!capped[i])
                sum += v10p_priority(e, i);
        for (int i = 0; i < nt; i++) {
            if (capped[i])
                continue;
            double s = v10p_priority(e, i) / sum * free_fus; /* FUs of compute */
            if (n_phys < nt && s >= 1) {
                capped[i] = 1;
                free_fus -= 1;
                changed = 1;
                break; /* the others' shares grow: recompute them */
            }
            share[i] = s / n_phys;
        }
    }
    for (int i = 0; i < nt; i++)
        if (capped[i])
            share[i] = 1.0 / n_phys; /* (1.0 / n) * n rounds to at most 1 */
}

static int spatial_init(v10_engine *e, void *st, v10_err *err)
{
    (void)st;
    double share[V10_MAX_TENANTS];
    fu_shares(e, V10_FU_SA, share);
    if (v10p_partition(e, V10_FU_SA, share, err))
        return -1;
    fu_shares(e, V10_FU_VU, share);
    return v10p_partition(e, V10_FU_VU, share, err);
}

static int spatial_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)e, (void)st, (void)f;
    return __builtin_ctzll(cand); /* only the FU's owner is eligible */
}

const v10_policy_ops v10_policy_spatial = {
    .name = "spatial",
    .summary = "static spatial partitioning of SAs and VUs by priority",
    .init = spatial_init,
    .pick = spatial_pick,
};
