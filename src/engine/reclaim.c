/*
 * reclaim.c — op_mapping "reclaim": a tenant waiting for an FU type takes
 * back at once the FUs it is allotted (partition.c, eng_alloc_engines) that
 * other tenants' operators borrowed under harvesting (fu.c, gang_gather),
 * by preempting the borrowers, as Neu10 reclaims a vNPU's harvested
 * engines.  Its own file: it preempts (fu.c), and fu.c calls partition.c.
 */
#include "engine/engine.h"

/* Whether tenant i may take some free FU of type ty (eng_eligible): the
 * dispatch just left it one, the policy holding it off. */
static int may_take_free(const v10_engine *e, int ty, int i)
{
    for (unsigned w = 0; w < e->fu_words; w++)
        for (uint64_t m = e->free_fus[w] & e->type_fus[ty][w]; m; m &= m - 1)
            if (eng_eligible(e, i, (int)(w * 64 + (unsigned)__builtin_ctzll(m))))
                return 1;
    return 0;
}

/* The FUs beyond its tenant's allocation of the gang of type ty that FU f
 * leads (0: f is of another type, follows, holds no operator, or its
 * tenant holds no more than its allocation); a tenant on an FU is
 * executing or restoring (engine.h). */
static int lent(const v10_engine *e, int f, int ty)
{
    const fu *u = &e->fus[f];
    if ((int)u->type != ty || u->tenant < 0 || eng_follower(u) || u->next < 0)
        return 0;
    int k = eng_gang_size(e, u) - e->alloc_fus[u->tenant][u->type];
    return k > 0 ? k : 0;
}

/*
 * op_mapping "reclaim" (Neu10's reclaiming of harvested engines): a
 * tenant READY for an FU type after the dispatch, that may take no free
 * FU of it, is owed its allocation of the type (at most one FU per tile
 * of its operator), and takes it back at once from the tenants whose
 * operators of the type run on more FUs than their own allocations (they
 * borrowed them, fu.c gang_gather): each such gang it may run on is
 * preempted, in FU order, until the FUs lent by the gangs stopping cover
 * what it is owed.  A preempted gang drains and switches at the type's
 * context switch cost (v10_npu_switch_cycles) as a policy's preemption
 * does, its FUs come free together (eng_switch_ends_with_others), and the
 * dispatch then hands them out by the allocations (harvest's rule: a
 * borrower takes no FU another waiting tenant is owed).  The FUs lent by
 * gangs already stopping (preempted by the policy or for an earlier
 * waiter) count first, so that each lent FU is reclaimed once.
 */
void eng_reclaim(v10_engine *e)
{
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        if (!e->ready[ty])
            continue;
        int back = 0; /* lent FUs on their way back, not yet claimed */
        for (int f = 0; f < e->n_fus; f++)
            back += e->fus[f].stopping ? lent(e, f, ty) : 0;
        for (uint64_t m = e->ready[ty]; m; m &= m - 1) {
            int i = __builtin_ctzll(m);
            if (may_take_free(e, ty, i))
                continue;
            const tenant *t = &e->tenants[i];
            int owed = e->alloc_fus[i][ty];
            if ((uint32_t)owed > t->model->ops[t->op].tiles)
                owed = (int)t->model->ops[t->op].tiles; /* an FU with no tile would idle */
            for (int f = 0; f < e->n_fus && back < owed; f++) {
                int k = lent(e, f, ty);
                if (k && !e->fus[f].stopping && e->fus[f].tenant != i && eng_eligible(e, i, f) &&
                    v10p_preempt(e, f, v10_npu_switch_cycles(e->npu, ty))) {
                    v10p_count_switch(e);
                    back += k;
                }
            }
            back = back > owed ? back - owed : 0;
        }
    }
}
