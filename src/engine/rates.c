/*
 * rates.c — contention for HBM bandwidth (docs/architecture.md).  A running
 * operator demands HBM bandwidth at bytes/work per standalone cycle; when
 * demands exceed the HBM, bandwidth is shared max-min fairly and each
 * operator's rate (standalone cycles of progress per cycle) falls in
 * proportion to the bandwidth it is granted.
 */
#include "engine/engine.h"
#include "engine/attrib.h"

#include <math.h>

/* Moves busy FU f's stop event to follow its new rate r, at which it loses
 * 1 - r / full_rate of each cycle to HBM sharing (its slowdown). */
static void set_rate(v10_engine *e, int f, double r)
{
    fu *u = &e->fus[f];
    eng_sync_fu(e, u);
    u->rate = r;
    uint64_t *w = &e->slow_fus[eng_fu_word(f)];
    *w = (*w & ~eng_fu_bit(f)) | (uint64_t)(r != u->full_rate) << (f & 63);
    /* (x / 1 is x: a whole FU's operator waits for no division) */
    u->slowdown = r < u->full_rate ? 1.0 - (u->full_rate == 1.0 ? r : r / u->full_rate) : 0;
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
static inline __attribute__((always_inline)) void start_at_full(v10_engine *e, int f)
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
 * idx[0..n) (water-filling): in passes, each at the share left / (FUs not
 * yet served), every FU demanding no more than the share gets its demand,
 * taken from what is left in idx's order; when a pass serves nobody, the
 * rest get the share.  Sets the bits of the FUs that got the share (capped
 * by the water level) in capped[] and OR's them into look[], and returns
 * the share (0 if nobody is capped); every other FU got its demand.  The
 * demands are read into one array and each pass walks only the FUs not yet
 * served (`rest`, in idx's order), so the arithmetic is the same, in the
 * same order, as a walk of every FU each pass, at a fraction of the loads.
 */
static inline __attribute__((always_inline)) double
water_fill(const v10_engine *e, const int *idx, int n, double hbm, uint64_t capped[V10_FU_WORDS],
           uint64_t look[V10_FU_WORDS])
{
    double demand[V10_MAX_FUS], left = hbm;
    int rest[V10_MAX_FUS], unsat = 0;
    if (n == 0)
        return 0;
    /* The first pass, as the demands are read: every FU is unserved (if
     * it serves none, the loop's first pass finds the same share again). */
    double share0 = left / n;
    for (int i = 0; i < n; i++) {
        double d = e->fus[idx[i]].demand;
        demand[i] = d;
        if (d <= share0)
            left -= d;
        else
            rest[unsat++] = i;
    }
    while (unsat > 0) {
        double share = unsat == 1 ? left : left / unsat; /* x / 1 is x */
        int kept = 0;
        for (int j = 0; j < unsat; j++) {
            int i = rest[j];
            if (demand[i] <= share)
                left -= demand[i];
            else
                rest[kept++] = i;
        }
        if (kept == unsat) { /* nobody served: the rest share what is left */
            for (int j = 0; j < unsat; j++) {
                int f = idx[rest[j]];
                capped[eng_fu_word(f)] |= eng_fu_bit(f);
                look[eng_fu_word(f)] |= eng_fu_bit(f);
            }
            return share;
        }
        unsat = kept;
    }
    return 0;
}

/* The empty FU set (no FU capped). */
static const uint64_t no_fus[V10_FU_WORDS];

/* Moves each busy FU in `look` whose rate changes, or that has no event
 * yet, to its new rate, in ascending FU order: the share `level` for
 * those in `capped`, its full rate for the others; each charges its HBM
 * losses at the old rate first if `charge` (the HBM was shared).  An
 * operator with no event yet that keeps the full rate it began at
 * (begin_exec) gets its event from start_at_full, which is set_rate's
 * for it. */
static inline __attribute__((always_inline)) void
move_rates(v10_engine *e, const uint64_t look[V10_FU_WORDS], const uint64_t capped[V10_FU_WORDS],
           double level, int charge)
{
    for (unsigned w = 0; w < e->fu_words; w++)
        for (uint64_t m = look[w]; m; m &= m - 1) {
            int f = (int)(w * 64 + (unsigned)__builtin_ctzll(m));
            fu *u = &e->fus[f];
            if (u->state != V10P_FU_BUSY || eng_follower(u))
                continue; /* ended since it started; its leader carries the operator */
            double r = capped[w] >> (f & 63) & 1 ? eng_granted_rate(u, level) : u->full_rate;
            int fresh = !v10_evq_scheduled(&e->evq, f);
            if (fresh || r != u->rate) {
                if (charge)
                    eng_attr_fu_hbm(e, u); /* its losses at the old rate */
                if (fresh && r == u->rate)
                    start_at_full(e, f);
                else
                    set_rate(e, f, r);
            }
        }
}

/*
 * The n busy FUs idx[] share `hbm` bytes a cycle max-min fairly
 * (water_fill); each operator whose rate changed (or that just started)
 * moves.  An FU served in full is granted its full rate, so it moves only
 * if it has no event yet or ran below its full rate: only the FUs in
 * `look` can (the started ones and the slow set, eng_update_rates; or
 * every busy FU), besides those the level caps, so only those are
 * visited: every other one keeps its rate and its event, as a walk of all
 * of them would find (--check compares every rate with a fresh
 * water-filling's).
 */
static void share_hbm(v10_engine *e, const int *idx, int n, double hbm,
                      uint64_t look[V10_FU_WORDS])
{
    uint64_t at_level[V10_FU_WORDS] = {0};
    double level = water_fill(e, idx, n, hbm, at_level, look);
    move_rates(e, look, at_level, level, 1);
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
        uint64_t look[V10_FU_WORDS] = {0};
        for (int i = 0; i < n; i++)
            look[eng_fu_word(idx[i])] |= eng_fu_bit(idx[i]);
        if (e->cfg->contention && demand > e->hbm_bytes_per_cycle) {
            share_hbm(e, idx, n, e->hbm_bytes_per_cycle, look);
            contended = 1;
        } else {
            move_rates(e, look, no_fus, 0, 0); /* each at its full rate */
        }
    }
    e->contended = contended;
    e->rates_dirty = 0;
}

/* eng_update_rates when the HBM was or is shared (out of line: the
 * case most events take does not pay for its frame). */
static __attribute__((noinline)) void rates_shared(v10_engine *e)
{
    if (e->n_chips > 1) {
        rates_chips(e);
        return;
    }
    eng_attr_hbm(e); /* the partners' HBM shares at the rates until now */
    int contended = e->cfg->contention && demands_exceed(e);
    /* The FUs whose rate may move besides those the level caps: those
     * begun since the last call (no event yet) and the slow set. */
    uint64_t look[V10_FU_WORDS];
    look[0] = e->slow_fus[0]; /* (word by word: no copy's call for one word) */
    for (unsigned w = 1; w < e->fu_words; w++)
        look[w] = e->slow_fus[w];
    for (int i = 0; i < e->n_started; i++)
        look[eng_fu_word(e->started[i])] |= eng_fu_bit(e->started[i]);
    e->n_started = 0;
    if (contended) {
        share_hbm(e, e->busy, e->n_busy, e->hbm_bytes_per_cycle, look);
        if (!e->contended)
            e->hbm_since = e->now; /* the HBM losses begin now */
    } else {
        /* Every operator runs at its full rate: those begun since get
         * their event, and (leaving contention) the slow set moves; with
         * the HBM not shared before, every rate was full (--check). */
        move_rates(e, look, no_fus, 0, e->contended);
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
    rates_shared(e);
}
