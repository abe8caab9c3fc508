/*
 * attrib.c — where each tenant's time goes (docs/attribution.md): every
 * cycle of a tenant's run is in one v10_attr_state, some of them lost to
 * named partners.  A tenant's state changes only when it or an FU changes
 * state, or when HBM rates move, so it is added up at those transitions
 * (the tenants marked in e->attr_dirty), never per cycle or per event.
 */
#include "engine/engine.h"

#include <string.h>

/* The partner tenant i loses most to now, or -1 (the trace's label). */
static int main_partner(const v10_engine *e, int i)
{
    const double *w = e->attr_w + (size_t)i * (size_t)e->n_tenants;
    int best = -1;
    for (uint64_t m = e->tenants[i].a_partners; m; m &= m - 1) {
        int j = __builtin_ctzll(m);
        if (best < 0 || w[j] > w[best])
            best = j;
    }
    return best;
}

const char *v10_attr_name(v10_attr_state s)
{
    static const char *const names[V10_ATTR_STATES] = {
        "exec", "hbm", "wait_sa", "wait_vu", "held", "switch", "switch_by", "preempted", "idle",
    };
    return (unsigned)s < V10_ATTR_STATES ? names[s] : "?";
}

/* Adds tenant i's time since a_since to its state (and the lost part to
 * its partners by their weights). */
static void settle_one(v10_engine *e, int i)
{
    tenant *t = &e->tenants[i];
    uint64_t dt = e->now - t->a_since;
    if (!dt)
        return;
    if (e->trace)
        eng_trace_record(e->trace, V10_TR_STATE, t->a_since, e->now, -1, i,
                         (uint32_t)t->a_state | (uint32_t)(main_partner(e, i) + 1) << 8);
    t->a_since = e->now;
    int nt = e->n_tenants, st = t->a_state;
    double *row = e->attr + (size_t)i * V10_ATTR_STATES;
    double lost = (double)dt;
    if (st == V10_ATTR_HBM) {
        lost = (double)dt * (1.0 - t->a_frac);
        row[V10_ATTR_EXEC] += (double)dt - lost;
    }
    row[st] += lost;
    double *to = e->attr_lost + ((size_t)i * V10_ATTR_STATES + (size_t)st) * (size_t)nt;
    const double *w = e->attr_w + (size_t)i * (size_t)nt;
    for (uint64_t m = t->a_partners; m; m &= m - 1) {
        int j = __builtin_ctzll(m);
        to[j] += lost * w[j];
    }
}

/* Weighs the partners in tenant i's a_partners equally (into its row of attr_w). */
static void equal_weights(v10_engine *e, int i)
{
    uint64_t m = e->tenants[i].a_partners;
    int k = 0;
    for (uint64_t b = m; b; b &= b - 1)
        k++;
    double *w = e->attr_w + (size_t)i * (size_t)e->n_tenants;
    for (uint64_t b = m; b; b &= b - 1)
        w[__builtin_ctzll(b)] = 1.0 / k;
}

/* The other tenants drawing HBM bandwidth beside tenant i's operator on FU u. */
static uint64_t hbm_mask(const v10_engine *e, int i, const fu *u)
{
    uint64_t m = 0;
    for (int k = 0; k < e->n_busy; k++) {
        const fu *v = &e->fus[e->busy[k]];
        if (v != u && v->tenant != i && v->hbm_rate > 0)
            m |= 1ull << v->tenant;
    }
    return m;
}

/* Tenant i executing on FU u below its full rate: the others on the HBM,
 * weighted by the bandwidth they draw. */
static void hbm_partners(v10_engine *e, int i, const fu *u)
{
    tenant *t = &e->tenants[i];
    double *w = e->attr_w + (size_t)i * (size_t)e->n_tenants, sum = 0;
    t->a_partners = 0;
    for (int k = 0; k < e->n_busy; k++) {
        const fu *v = &e->fus[e->busy[k]];
        if (v == u || v->tenant == i || v->hbm_rate <= 0)
            continue;
        if (!(t->a_partners >> v->tenant & 1))
            w[v->tenant] = 0;
        t->a_partners |= 1ull << v->tenant;
        w[v->tenant] += v->hbm_rate;
        sum += v->hbm_rate;
    }
    for (uint64_t b = t->a_partners; b; b &= b - 1)
        w[__builtin_ctzll(b)] /= sum;
}

/* What the FUs of type ty that tenant `who` may use are doing (partitions:
 * the shared ones and its own). */
static void sum_fus(const v10_engine *e, int ty, int who, eng_fu_sum *s)
{
    memset(s, 0, sizeof *s);
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        if ((int)u->type != ty || (u->owner >= 0 && u->owner != who))
            continue;
        if (u->state == V10P_FU_FREE)
            s->free = 1;
        else if (u->state == V10P_FU_SWITCH)
            s->switching |= u->switch_tenant >= 0 ? 1ull << u->switch_tenant : 0;
        else if (u->state == V10P_FU_RESTORE)
            s->switching |= 1ull << u->tenant;
        else
            s->held |= 1ull << u->tenant;
    }
}

/* Tenant i is READY and s sums up the FUs it may use of the type its next
 * operator needs: its state and partners.  In order: one is free (the
 * policy keeps i off it); one is saving i's own context; one executes
 * another tenant's operator; all are switching contexts — whose: the
 * FUs', else (the free FUs held by a whole-core switch) the contexts the
 * core switches (sw_all), else the tenants still draining. */
static int ready_state(const v10_engine *e, int i, const eng_fu_sum *s, uint64_t sw_all,
                       uint64_t *partners)
{
    const tenant *t = &e->tenants[i];
    uint64_t me = 1ull << i;
    if (s->free) {
        *partners = e->running & ~me;
        return t->a_preempted ? V10_ATTR_PREEMPTED : V10_ATTR_HELD;
    }
    if (s->switching & me)
        return V10_ATTR_SWITCH;
    if (s->held) {
        *partners = s->held;
        return t->a_preempted                  ? V10_ATTR_PREEMPTED
               : t->fu_of[t->op] == V10_FU_SA ? V10_ATTR_WAIT_SA
                                              : V10_ATTR_WAIT_VU;
    }
    uint64_t by = s->switching & ~me;
    if (!by)
        by = sw_all & ~me;
    if (!by)
        by = e->running & ~me;
    *partners = by;
    return V10_ATTR_SWITCH_BY;
}

/* Tenant i's state now (sum: the FUs by type, with sw_all).  An unchanged
 * state (and partners) keeps its interval open; otherwise the interval is
 * settled and the new state taken. */
static void refresh_one(v10_engine *e, int i, const eng_fu_sum *sum, uint64_t sw_all)
{
    tenant *t = &e->tenants[i];
    uint64_t partners = 0;
    int st;
    const fu *u = NULL;
    if (t->state == V10P_IDLE) {
        st = V10_ATTR_IDLE;
    } else if (t->state == V10P_READY) {
        int ty = t->fu_of[t->op];
        eng_fu_sum own;
        if (sum[ty].owned) /* partitions: only its own and the shared FUs */
            sum_fus(e, ty, i, &own);
        st = ready_state(e, i, sum[ty].owned ? &own : &sum[ty], sw_all, &partners);
    } else {
        u = &e->fus[t->fu];
        st = u->state == V10P_FU_RESTORE   ? V10_ATTR_SWITCH
             : u->rate < u->full_rate ? V10_ATTR_HBM
                                      : V10_ATTR_EXEC;
    }
    if (st == t->a_state && st != V10_ATTR_HBM && partners == t->a_partners)
        return;
    if (st == V10_ATTR_HBM && t->a_state == st && u->rate / u->full_rate == t->a_frac &&
        !(t->a_partners & (t->a_partners - 1)) && hbm_mask(e, i, u) == t->a_partners)
        return; /* the same slowdown; one partner's weight is 1 whatever it draws */
    settle_one(e, i);
    t->a_state = (uint8_t)st;
    t->a_partners = partners;
    if (st == V10_ATTR_HBM) {
        t->a_frac = u->rate / u->full_rate;
        hbm_partners(e, i, u);
    } else if (partners) {
        equal_weights(e, i);
    }
}

/*
 * Reclassifies the tenants marked dirty and those waiting for an FU type
 * whose summary changed since the last call (a waiting tenant's state
 * depends only on it, on the running tenants and on the contexts being
 * switched); with partitions, every waiting tenant.  Called after every
 * event: most change no summary, and cost a few compares.
 */
void eng_attr_refresh(v10_engine *e)
{
    eng_fu_sum *seen = e->attr_seen;
    uint64_t sw_all = e->attr_switching[V10_FU_SA] | e->attr_switching[V10_FU_VU];
    uint64_t moved = e->running ^ e->attr_seen_running;
    moved |= sw_all ^ (seen[V10_FU_SA].switching | seen[V10_FU_VU].switching);
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        eng_fu_sum *x = &seen[ty];
        int free = e->n_free[ty] > 0;
        if (moved || e->attr_owned || free != x->free || e->attr_held[ty] != x->held ||
            e->attr_switching[ty] != x->switching)
            e->attr_dirty |= e->ready[ty];
        x->free = free;
        x->owned = e->attr_owned;
        x->held = e->attr_held[ty];
        x->switching = e->attr_switching[ty];
    }
    e->attr_seen_running = e->running;
    for (uint64_t m = e->attr_dirty; m; m &= m - 1)
        refresh_one(e, __builtin_ctzll(m), seen, sw_all);
    e->attr_dirty = 0;
}

void eng_attr_settle(v10_engine *e)
{
    for (int i = 0; i < e->n_tenants; i++)
        settle_one(e, i);
}

void eng_attr_open_window(v10_engine *e)
{
    eng_attr_settle(e);
    size_t na = (size_t)e->n_tenants * V10_ATTR_STATES;
    memcpy(e->attr_base, e->attr, na * sizeof *e->attr);
    memcpy(e->attr_lost_base, e->attr_lost, na * (size_t)e->n_tenants * sizeof *e->attr);
    e->attr_window = 1;
}
