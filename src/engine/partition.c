/*
 * partition.c — the FUs a policy divides among the tenants: spatial
 * partitions (v10p_partition: whole FUs by share, or slices of one),
 * op_mapping "alloc"/"harvest"/"reclaim"'s allocations of each type's FUs
 * by priority (eng_alloc_engines), and with every chip simulated each chip's
 * FUs to its own tenants, whose shards meet at each collective
 * (eng_bar_arrive).
 */
#include "engine/engine.h"

#include <math.h>

/* n whole FUs among nt <= n tenants by share (sums to 1): at least one
 * each, the rest by largest remainder (ties: the lower index). */
static void whole_fus(int n, int nt, const double *share, int *given)
{
    int left = n - nt;
    double rem[V10_MAX_TENANTS];
    for (int i = 0; i < nt; i++) {
        double want = share[i] * n - 1;
        int w = want > 0 ? (int)floor(want) : 0;
        if (w > left)
            w = left;
        given[i] = 1 + w;
        left -= w;
        rem[i] = want - w;
    }
    while (left > 0) {
        int best = 0;
        for (int i = 1; i < nt; i++)
            if (rem[i] > rem[best])
                best = i;
        given[best]++;
        rem[best] = -1e9;
        left--;
    }
}

/* Each tenant's allocation of each type's FUs, by priority: whole FUs as
 * a spatial partition gives them (whole_fus), or one each when there are
 * fewer FUs than tenants.  Counts, not particular FUs (Neu10 maps a
 * vNPU's engines onto any free physical ones); not reserved while idle. */
void eng_alloc_engines(v10_engine *e)
{
    int nt = e->n_tenants;
    double sum = 0, share[V10_MAX_TENANTS];
    for (int i = 0; i < nt; i++)
        sum += e->tenants[i].priority;
    for (int i = 0; i < nt; i++)
        share[i] = e->tenants[i].priority / sum;
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        int given[V10_MAX_TENANTS];
        if (e->n_phys[ty] >= nt)
            whole_fus(e->n_phys[ty], nt, share, given);
        for (int i = 0; i < nt; i++)
            e->alloc_fus[i][ty] = e->n_phys[ty] >= nt ? given[i] : 1;
    }
}

int v10p_partition(v10_engine *e, v10_fu_type type, const double *share, v10_err *err)
{
    int n_phys = e->n_phys[type], nt = e->n_tenants;
    if (e->n_chips > 1)
        return v10_err_set(err, "spatial partitions with every chip simulated (every_chip) "
                                "are not built: simulate one chip");
    fu keep[V10_MAX_FUS];
    int nk = 0;
    for (int f = 0; f < e->n_fus; f++)
        if (e->fus[f].type != type)
            keep[nk++] = e->fus[f];
    fu parts[V10_MAX_FUS];
    int np = 0;
    if (n_phys >= nt) {
        int given[V10_MAX_TENANTS];
        whole_fus(n_phys, nt, share, given);
        for (int i = 0; i < nt; i++)
            for (int k = 0; k < given[i]; k++)
                parts[np++] = (fu){.type = type, .owner = i, .speed = 1.0, .tenant = -1,
                                   .lead = -1, .next = -1};
    } else {
        /* Fewer FUs than tenants: each tenant gets a slice of the FUs'
         * compute (a partition of the array's columns / the VU's lanes). */
        for (int i = 0; i < nt; i++) {
            double s = share[i] * n_phys;
            if (!(s > 0 && s <= 1))
                return v10_err_set(err, "spatial: tenant %d's share of the %s is %g", i,
                                   v10_fu_name(type), s);
            parts[np++] = (fu){.type = type, .owner = i, .speed = s, .tenant = -1, .lead = -1,
                               .next = -1};
        }
    }
    if (nk + np > e->max_fus)
        return v10_err_set(err, "spatial: too many partitions");
    e->n_fus = 0;
    for (int f = 0; f < nk; f++)
        e->fus[e->n_fus++] = keep[f];
    for (int f = 0; f < np; f++)
        e->fus[e->n_fus++] = parts[f];
    for (int f = 0; f < e->n_fus; f++) /* a partition runs its owner's operators only */
        e->fu_tmask[f] = e->fus[f].owner >= 0 ? 1ull << e->fus[f].owner : ~0ull;
    return 0;
}


/*
 * A collective is one operation of every chip's shard of a tenant: none
 * may begin it before all have reached it (a ring step needs its
 * neighbours' data).  Tenant ti, READY for its current collective, joins
 * its group's barrier; the last shard to come releases them all, each
 * then READY for its link engine, and marked past this collective so that
 * a shard preempted mid-collective is READY again at once.  Modelled at
 * the collective's entry only: each chip's link engine then runs it for
 * its own standalone time.
 */
void eng_bar_arrive(v10_engine *e, int ti)
{
    int g = ti % e->chip_tenants;
    uint64_t all = eng_group_mask(e, ti);
    e->bar_wait[g] |= 1ull << ti;
    if (e->bar_wait[g] != all)
        return;
    e->bar_wait[g] = 0;
    for (uint64_t m = all; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        tenant *t = &e->tenants[k];
        V10_ASSERT(t->state == V10P_READY && t->fu_of[t->op] == V10_FU_ICI);
        t->bar_req = t->cur_req;
        t->bar_op = t->op;
        e->ready[V10_FU_ICI] |= 1ull << k;
    }
    e->attr_dirty |= all;
}
