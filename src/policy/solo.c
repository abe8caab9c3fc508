/* solo.c — one tenant alone on the NPU: the T_alone reference. */
#include "policy/common.h"

static int solo_init(v10_engine *e, void *st, v10_err *err)
{
    (void)st;
    if (v10p_chip_tenants(e) != 1) /* every chip simulated: one on each */
        return v10_err_set(err, "policy solo runs exactly one tenant (got %d)",
                           v10p_chip_tenants(e));
    return 0;
}

static int solo_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)e, (void)st, (void)f;
    return __builtin_ctzll(cand);
}

const v10_policy_ops v10_policy_solo = {
    .name = "solo",
    .summary = "one tenant alone (standalone reference for normalization)",
    .init = solo_init,
    .pick = solo_pick,
};
