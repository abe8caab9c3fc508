/*
 * rates.c — contention for HBM bandwidth (docs/architecture.md).  A running
 * operator demands HBM bandwidth at bytes/work per standalone cycle; when
 * demands exceed the HBM, bandwidth is shared max-min fairly and each
 * operator's rate (standalone cycles of progress per cycle) falls in
 * proportion to the bandwidth it is granted.
 */
#include "engine/engine.h"

#include <math.h>

/* Moves busy FU f's stop event to follow its new rate r, at which it loses
 * 1 - r / full_rate of each cycle to HBM sharing (its slowdown). */
static void set_rate(v10_engine *e, int f, double r)
{
    fu *u = &e->fus[f];
    eng_sync_fu(e, u);
    u->rate = r;
    u->slowdown = r < u->full_rate ? 1.0 - r / u->full_rate : 0;
    u->slow_since = e->now;
    u->hbm_rate = r * u->bytes_per_work;
    v10_evq_set(&e->evq, f, e->now + eng_time_to_stop(e, u));
}

/* Busy FU f's operator, begun this event at its full rate (begin_exec:
 * rate, slowdown and hbm_rate set, remaining as at rate_time = now), gets
 * its stop event: set_rate at its full rate, less what that leaves as it
 * is.  A whole operator at rate 1 with no stop pending ends after its
 * work, an integer W below 2^53, which is what eng_time_to_stop computes
 * for it (ceil(W - 1e-9) = W, and 0 for 0): taken from the integer, so
 * that the event's time does not wait on the conversions. */
static void start_at_full(v10_engine *e, int f)
{
    fu *u = &e->fus[f];
    const tenant *t = &e->tenants[u->tenant];
    uint64_t w = t->work[t->op];
    u->slow_since = e->now;
    int whole = u->rate == 1.0 && !u->stopping && w < (1ull << 53) && t->remaining == (double)w;
    v10_evq_set(&e->evq, f, e->now + (whole ? w : eng_time_to_stop(e, u)));
}

/*
 * Whether the busy FUs' demands, added up in the busy list's order, exceed
 * the HBM bandwidth H.  The running sum e->demand_sum (fu.c) decides
 * unless it lies within DEMAND_SLACK * H of H.  It differs from that
 * addition by less than 1e-10 H: each of its DEMAND_RESUM moves rounds
 * once, by at most 2^-53 of a sum of at most V10_MAX_FUS demands of at
 * most H each (begin_exec), 8.7e-11 H in all, and the addition itself is
 * off the exact sum by at most 4.1e-12 H.  So outside the slack both give
 * the same answer; within it, or after DEMAND_RESUM moves, the demands
 * are added up afresh, as the answer has always been taken.  (With
 * contention, every event that starts an operator calls this, so the
 * moves between two calls are a few; without, nothing reads the sum.)
 */
enum { DEMAND_RESUM = 4096 };
#define DEMAND_SLACK 1e-8

static int chips_exceed(const v10_engine *e);

static int demands_exceed(v10_engine *e)
{
    if (e->n_chips > 1)
        return chips_exceed(e);
    double hbm = e->hbm_bytes_per_cycle, total = e->demand_sum;
    if (fabs(total - hbm) > DEMAND_SLACK * hbm && e->demand_moves < DEMAND_RESUM)
        return total > hbm;
    total = eng_busy_demand(e);
    e->demand_sum = total;
    e->demand_moves = 0;
    return total > hbm;
}

/*
 * Max-min fair shares of `hbm` bytes a cycle over the demands of busy FUs
 * idx[0..n) (water-filling), into alloc[0..n): in passes, each at the
 * share left / (FUs not yet served), every FU demanding no more than the
 * share gets its demand, taken from what is left in idx's order; when a
 * pass serves nobody, the rest get the share.  The demands are read into
 * one array and each pass walks only the FUs not yet served (`rest`, in
 * idx's order), so the arithmetic is the same, in the same order, as a
 * walk of every FU each pass, at a fraction of the loads (it was most of
 * this file's instructions with 8 tenants on 8 SAs and 8 VUs).
 */
static void water_fill(const v10_engine *e, const int *idx, int n, double hbm, double *alloc)
{
    double demand[V10_MAX_FUS], left = hbm;
    int rest[V10_MAX_FUS], unsat = n;
    for (int i = 0; i < n; i++) {
        demand[i] = e->fus[idx[i]].demand;
        rest[i] = i;
    }
    while (unsat > 0) {
        double share = left / unsat;
        int kept = 0;
        for (int j = 0; j < unsat; j++) {
            int i = rest[j];
            if (demand[i] <= share) {
                alloc[i] = demand[i];
                left -= demand[i];
            } else {
                rest[kept++] = i;
            }
        }
        if (kept == unsat) { /* nobody served: the rest share what is left */
            for (int j = 0; j < unsat; j++)
                alloc[rest[j]] = share;
            break;
        }
        unsat = kept;
    }
}

/* The n busy FUs idx[] share `hbm` bytes a cycle max-min fairly
 * (water_fill); each operator whose rate changed (or that just started)
 * moves. */
static inline __attribute__((always_inline)) void share_hbm(v10_engine *e, const int *idx,
                                                            int n, double hbm)
{
    double alloc[V10_MAX_FUS];
    water_fill(e, idx, n, hbm, alloc);
    for (int i = 0; i < n; i++) {
        const fu *u = &e->fus[idx[i]];
        if (eng_follower(u))
            continue;
        /* Served in full (alloc = demand, so alloc / demand = 1): at its
         * full rate, without the division. */
        double r = u->full_rate;
        if (u->demand > 0 && alloc[i] != u->demand) {
            r = u->full_rate * (alloc[i] / u->demand);
            if (r > u->full_rate)
                r = u->full_rate;
        }
        if (!v10_evq_scheduled(&e->evq, idx[i]) || r != u->rate) {
            eng_attr_fu_hbm(e, &e->fus[idx[i]]); /* its losses at the old rate */
            set_rate(e, idx[i], r);
        }
    }
}

/* Every chip simulated: whether some chip's busy FUs demand more than its
 * HBM (the FUs are chip by chip, fus_per_chip each). */
static int chips_exceed(const v10_engine *e)
{
    double demand[V10_MAX_TENANTS] = {0}; /* a chip runs a tenant at least */
    for (int i = 0; i < e->n_busy; i++)
        demand[e->busy[i] / e->fus_per_chip] += e->fus[e->busy[i]].demand;
    for (int c = 0; c < e->n_chips; c++)
        if (demand[c] > e->hbm_bytes_per_cycle)
            return 1;
    return 0;
}

/* Every chip simulated: each chip's HBM is its own, shared among the
 * operators on its FUs; every busy FU is looked at (no fast path beyond
 * eng_update_rates's: an option for checks). */
static void rates_chips(v10_engine *e)
{
    int contended = 0;
    e->n_started = 0;
    for (int c = 0; c < e->n_chips; c++) {
        int idx[V10_MAX_FUS], n = 0, lo = c * e->fus_per_chip;
        double demand = 0;
        for (int i = 0; i < e->n_busy; i++)
            if (e->busy[i] >= lo && e->busy[i] < lo + e->fus_per_chip) {
                idx[n++] = e->busy[i];
                demand += e->fus[e->busy[i]].demand;
            }
        if (e->cfg->contention && demand > e->hbm_bytes_per_cycle) {
            share_hbm(e, idx, n, e->hbm_bytes_per_cycle);
            contended = 1;
            continue;
        }
        for (int i = 0; i < n; i++) {
            const fu *u = &e->fus[idx[i]];
            if (!eng_follower(u) && (!v10_evq_scheduled(&e->evq, idx[i]) ||
                                     u->rate != u->full_rate))
                set_rate(e, idx[i], u->full_rate);
        }
    }
    e->contended = contended;
    e->rates_dirty = 0;
}

/*
 * Recomputes every running operator's rate: max-min fair shares of the HBM
 * bandwidth over the operators' demands (water-filling), or full rate with
 * contention off; then moves each busy FU's event to its new stop time.
 *
 * Fast path: when the HBM was not oversubscribed at the last call and is
 * not now, every operator that was running then still runs at its full
 * rate (begin_exec starts each at it) and has its event, so only those
 * begun since (e->started, ascending as the busy list) move: the walk of
 * every busy FU this saves was 5% of the engine's instructions with 16
 * tenants on four SAs.
 *
 * Faster still: when, besides, no operator has begun since (e->started is
 * empty), the busy FUs are those of the last call less some (and
 * followers, whose demand is 0), so the demands sum to no more than they
 * did (each partial sum of the ascending walk is no larger: fl(x + d) is
 * nondecreasing in x, and fl(x + d) >= x for d >= 0); the HBM is still
 * not oversubscribed and nothing moves, so the sum is skipped.
 */
void eng_update_rates(v10_engine *e)
{
    if (!e->contended && !(e->n_started && e->cfg->contention && demands_exceed(e))) {
        /* Not shared before nor now: each operator begun since runs at its
         * full rate (the loop below, in the case that most events take). */
        for (int i = 0; i < e->n_started; i++) {
            const fu *u = &e->fus[e->started[i]];
            if (u->state == V10P_FU_BUSY && !eng_follower(u) &&
                !v10_evq_scheduled(&e->evq, e->started[i]))
                start_at_full(e, e->started[i]);
        }
        e->n_started = 0;
        e->rates_dirty = 0;
        return;
    }
    if (e->n_chips > 1) {
        rates_chips(e);
        return;
    }
    eng_attr_hbm(e); /* the partners' HBM shares at the rates until now */
    const int *idx = e->busy;
    int n = e->n_busy;
    int contended = e->cfg->contention && demands_exceed(e);
    int n_started = e->n_started;
    e->n_started = 0;
    if (!contended) {
        if (!e->contended) /* else, leaving contention, every busy FU may move */
            idx = e->started, n = n_started;
        for (int i = 0; i < n; i++) {
            const fu *u = &e->fus[idx[i]];
            if (u->state != V10P_FU_BUSY || eng_follower(u))
                continue; /* ended since it started; its leader carries the operator */
            if (!v10_evq_scheduled(&e->evq, idx[i]) ||
                (e->contended && u->rate != u->full_rate)) {
                if (e->contended) /* else it has just started, at full rate */
                    eng_attr_fu_hbm(e, &e->fus[idx[i]]); /* its losses at the old rate */
                set_rate(e, idx[i], u->full_rate);
            }
        }
        e->contended = 0;
        e->rates_dirty = 0;
        return;
    }
    share_hbm(e, idx, n, e->hbm_bytes_per_cycle);
    if (!e->contended)
        e->hbm_since = e->now; /* the HBM losses begin now */
    e->contended = 1;
    e->rates_dirty = 0;
}
