/*
 * attrib.c — where each tenant's time goes (docs/attribution.md): every
 * cycle of a tenant's run is in one v10_attr_state, some of them lost to
 * named partners.  A tenant's state changes only when it or an FU changes
 * state, so it is added up at those transitions, never per cycle, by one
 * of three rules: with up to three tenants, time is tallied by the
 * configuration it was spent in and classified when the tallies are read
 * (tallies); with more, a tenant marked in e->attr_dirty is settled
 * interval by interval, or, waiting beside others, from its FU type's
 * shared wait (lazy waits).  The part of execution lost to HBM sharing is
 * counted by FU where its rate changes (eng_attr_fu_hbm), its partners'
 * shares with it for two tenants, interval by interval for more
 * (eng_attr_hbm_settle); so is the part lost to a spatial partition that
 * is a slice of an FU (partition_charge), with its partners' shares.
 */
#include "engine/engine.h"
#include "engine/attrib.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The tenants executing on an FU of type ty, and those whose context one
 * switches (saves or restores). */
static uint64_t held(const v10_engine *e, int ty) { return e->attr_fus[V10P_FU_BUSY][ty]; }
static uint64_t switching(const v10_engine *e, int ty)
{
    return e->attr_fus[V10P_FU_SWITCH][ty] | e->attr_fus[V10P_FU_RESTORE][ty];
}

/* The first partner tenant i loses its time to now, or -1 (the trace's
 * label: partners share a state's time equally). */
static int main_partner(const v10_engine *e, int i)
{
    uint64_t m = e->tenants[i].a_partners;
    return m ? __builtin_ctzll(m) : -1;
}

const char *v10_attr_name(v10_attr_state s)
{
    static const char *const names[V10_ATTR_STATES] = {
        "exec", "hbm", "partition", "wait_sa", "wait_vu", "wait_ici", "held", "switch", "switch_by",
        "preempted", "idle",
    };
    return (unsigned)s < V10_ATTR_STATES ? names[s] : "?";
}

/* Adds `share` to the column of each partner in mask m (to: a row
 * indexed by tenant). */
static void add_shares(double *to, uint64_t m, double share)
{
    for (; m; m &= m - 1)
        to[__builtin_ctzll(m)] += share;
}

/* A span of cycles as a double: the same value as (double)dt, converted
 * as signed (one instruction; a span is far below 2^63 cycles). */
static double cycles(uint64_t dt) { return (double)(int64_t)dt; }

/* The trace's record of tenant i's interval up to now (out of line: only
 * a traced run has one). */
static void __attribute__((noinline)) trace_state(v10_engine *e, int i)
{
    const tenant *t = &e->tenants[i];
    eng_trace_record(e->trace, V10_TR_STATE, t->a_since, e->now, -1, i,
                     (uint32_t)t->a_state | (uint32_t)(main_partner(e, i) + 1) << 8);
}

/* Adds tenant i's time since a_since to its state, and equal shares of
 * it to its partners. */
static inline void settle_one(v10_engine *e, int i)
{
    tenant *t = &e->tenants[i];
    uint64_t dt = e->now - t->a_since;
    if (!dt)
        return;
    if (e->trace)
        trace_state(e, i);
    t->a_since = e->now;
    size_t nt = (size_t)e->n_tenants, st = t->a_state;
    double d = cycles(dt);
    e->attr[(size_t)i * V10_ATTR_STATES + st] += d;
    if (t->op_attr && st != V10_ATTR_IDLE)
        t->op_attr[t->a_op * V10_ATTR_STATES + st] += d;
    if (!t->a_partners)
        return;
    double *to = e->attr_lost + ((size_t)i * V10_ATTR_STATES + st) * nt;
    add_shares(to, t->a_partners, d * t->a_share);
}

/*
 * The part of an operator's time lost to a spatial partition slower than a
 * whole FU (docs/attribution.md, `partition`): alone, the tenant's
 * operator would have the whole FU and run at rate 1; on its slice it runs
 * at full_rate (below 1 when its compute outlasts its memory time at the
 * slice's speed, fu.c's shared_rate), less its HBM slowdown.  Of each
 * cycle, the HBM takes `slowdown` (above) and the partition
 * (1 - full_rate) x (1 - slowdown) of it, so that what is left in `exec`,
 * full_rate x (1 - slowdown), is the standalone work done.  The loss is
 * the partners': the tenants owning the other slices of the FU type,
 * each by its slice's speed (with two tenants, the other one all of it).
 */
static void __attribute__((noinline)) partition_charge(v10_engine *e, const fu *u, double dt)
{
    double lost = dt * (1 - u->full_rate) * (1 - u->slowdown);
    if (!(lost > 0))
        return;
    size_t i = (size_t)u->tenant, nt = (size_t)e->n_tenants, k = V10_ATTR_PARTITION;
    e->attr[i * V10_ATTR_STATES + k] += lost; /* within exec's (engine.h) */
    const tenant *t = &e->tenants[i];
    if (t->op_attr)
        t->op_attr[t->op * V10_ATTR_STATES + k] += lost;
    double rest = 0;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *v = &e->fus[f];
        if (v->type == u->type && v->owner >= 0 && (size_t)v->owner != i)
            rest += v->speed;
    }
    if (!(rest > 0))
        return; /* nobody holds the rest (cannot happen: a slice means another) */
    double *to = e->attr_lost + (i * V10_ATTR_STATES + k) * nt;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *v = &e->fus[f];
        if (v->type == u->type && v->owner >= 0 && (size_t)v->owner != i)
            to[v->owner] += lost * v->speed / rest;
    }
}

/*
 * The part of an operator's time lost to HBM sharing: it loses `slowdown`
 * (1 - rate / full_rate, rates.c) of each cycle, counted in its tenant's
 * `hbm` (a part of the executing time its `exec` counter holds, engine.h)
 * and charged to the other operators in proportion to the bandwidth they
 * draw.  Its own part is charged per FU, when its slowdown changes or it
 * stops (eng_attr_fu_hbm: rates.c, fu.c), so that an event that changes no
 * rate charges nothing.  The partners' shares: no operator demands more
 * than the HBM gives (begin_exec), so one slowed shares the HBM with
 * another drawing; a tenant draws on one FU at most (its operator's; a
 * gang's followers draw nothing), so with two tenants that is the other
 * tenant's, charged here (--check holds all three).  With more tenants
 * the shares are split interval by interval (eng_attr_hbm_settle).
 */
void eng_attr_fu_hbm_charge(v10_engine *e, fu *u)
{
    double dt = cycles(e->now - u->slow_since);
    double lost = dt * u->slowdown;
    u->slow_since = e->now;
    size_t i = (size_t)u->tenant, nt = (size_t)e->n_tenants;
    e->attr[i * V10_ATTR_STATES + V10_ATTR_HBM] += lost; /* within exec's (engine.h) */
    const tenant *t = &e->tenants[i];
    if (t->op_attr)
        t->op_attr[t->op * V10_ATTR_STATES + V10_ATTR_HBM] += lost;
    if (nt == 2)
        e->attr_lost[(i * V10_ATTR_STATES + V10_ATTR_HBM) * nt + (i ^ 1)] += lost;
    if (u->speed < 1.0)
        partition_charge(e, u, dt);
}

/*
 * The partners' shares of the HBM losses since the rates or the busy FUs
 * last changed (e->hbm_since), with more than two tenants: over that time
 * every rate is constant, since every change of them calls this first
 * (fu.c, rates.c), and an operator's loss is split over the others in
 * proportion to the bandwidth they draw (with two busy FUs, the other one
 * has it all).
 */
void eng_attr_hbm_settle(v10_engine *e)
{
    double dt = cycles(e->now - e->hbm_since);
    e->hbm_since = e->now;
    const int *idx = e->busy, n = e->n_busy;
    size_t nt = (size_t)e->n_tenants;
    /* The busy FUs' draws and tenants, read once into arrays, and the
     * slowed ones (few: most operators run at their full rate) listed:
     * the walk below reads the draws n times for each. */
    double rate[V10_MAX_FUS], drawn = 0;
    int who[V10_MAX_FUS], slowed[V10_MAX_FUS], n_slowed = 0;
    for (int k = 0; k < n; k++) {
        const fu *u = &e->fus[idx[k]];
        rate[k] = u->hbm_rate;
        who[k] = u->tenant;
        drawn += rate[k];
        if (u->slowdown > 0) /* else at full rate (a gang's follower too) */
            slowed[n_slowed++] = k;
    }
    for (int j = 0; j < n_slowed; j++) {
        int k = slowed[j];
        double slowdown = e->fus[idx[k]].slowdown, others = drawn - rate[k];
        if (others <= 0)
            continue; /* no other draw survives the rounding of drawn - its own
                         (begin_exec: never none at all) */
        double lost = dt * slowdown;
        double *to = e->attr_lost + ((size_t)who[k] * V10_ATTR_STATES + V10_ATTR_HBM) * nt;
        if (n == 2) {
            to[who[k ^ 1]] += lost;
            continue;
        }
        double per_byte = lost / others;
        if (!(per_byte <= DBL_MAX)) { /* a draw of none would add a NaN */
            for (int m = 0; m < n; m++)
                if (m != k && rate[m] > 0)
                    to[who[m]] += per_byte * rate[m];
            continue;
        }
        /* Each other FU's share, those drawing nothing (a gang's followers)
         * included: a draw is never negative, so theirs is +0, which
         * leaves a partner's counter as it is (never -0: a sum of such
         * shares from +0), as skipping it would. */
        for (int m = 0; m < k; m++)
            to[who[m]] += per_byte * rate[m];
        for (int m = k + 1; m < n; m++)
            to[who[m]] += per_byte * rate[m];
    }
}

/* The state of a tenant waiting for an FU of type ty that another tenant
 * holds (the link engine's: a collective behind another tenant's). */
static const int wait_of[V10_FU_TYPES] = {
    [V10_FU_SA] = V10_ATTR_WAIT_SA, [V10_FU_VU] = V10_ATTR_WAIT_VU, [V10_FU_ICI] = V10_ATTR_WAIT_ICI};

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

/* Tenant i is READY, its next operator needs an FU of type ty, it is
 * `preempted` (attr_preempted) and s sums up the FUs of that type it may use:
 * its state and partners (running: the RUNNING tenants).  In order: one is
 * free (the policy keeps i off it); one is saving i's own context; one
 * executes another tenant's operator; all are switching contexts — whose:
 * the FUs', else (the free FUs held by a whole-core switch) the contexts
 * the core switches (sw_all), else the tenants still draining. */
static int ready_state(int i, int ty, int preempted, const eng_fu_sum *s, uint64_t running,
                       uint64_t sw_all, uint64_t *partners)
{
    uint64_t me = 1ull << i;
    if (s->free) {
        *partners = running & ~me;
        return preempted ? V10_ATTR_PREEMPTED : V10_ATTR_HELD;
    }
    if (s->switching & me)
        return V10_ATTR_SWITCH;
    if (s->held) {
        *partners = s->held;
        return preempted ? V10_ATTR_PREEMPTED : wait_of[ty];
    }
    uint64_t by = s->switching & ~me;
    if (!by)
        by = sw_all & ~me;
    if (!by)
        by = running & ~me;
    *partners = by;
    return V10_ATTR_SWITCH_BY;
}

/* ---- lazy waits (eng_wait, docs/attribution.md) --------------------------------- */

/* The classes of a type's shared wait: an FU of the type is free (the
 * policy holds the waiters back), one executes another tenant's operator,
 * or every one switches contexts. */
enum { W_FREE, W_HELD, W_SWITCH_BY, W_CLASSES, W_STALE = W_CLASSES /* out of date */ };
_Static_assert(W_CLASSES == V10_ATTR_WAIT_CLASSES, "engine.h sizes the integrals");

/* The state class c of type ty's shared wait puts a waiter in (as
 * ready_state would). */
static int wait_state(int c, int ty, int preempted)
{
    if (c == W_SWITCH_BY)
        return V10_ATTR_SWITCH_BY;
    if (preempted)
        return V10_ATTR_PREEMPTED;
    return c == W_FREE ? V10_ATTR_HELD : wait_of[ty];
}

/* The shared wait s implies (ready_state for a tenant in none of the masks
 * it reads); spec: the tenants ready_state would treat otherwise (their own
 * context switching, or the only partner of a whole-core switch). */
static eng_wait wait_class(const eng_fu_sum *s, uint64_t running, uint64_t sw_all)
{
    if (s->free)
        return (eng_wait){.cls = W_FREE, .partners = running};
    if (s->switching)
        return (eng_wait){.cls = s->held ? W_HELD : W_SWITCH_BY,
                          .partners = s->held ? s->held : s->switching, .spec = s->switching};
    if (s->held)
        return (eng_wait){.cls = W_HELD, .partners = s->held};
    return (eng_wait){.cls = W_SWITCH_BY, .partners = sw_all ? sw_all : running, .spec = sw_all};
}

static size_t wait_stride(const v10_engine *e) { return 1 + (size_t)e->n_tenants; }

/* 1 / the partners in mask m (0 for none). */
static double share_of(uint64_t m)
{
    int n = 0; /* a loop, not __builtin_popcountll: a libgcc call without -mpopcnt */
    for (; m; m &= m - 1)
        n++;
    return n ? 1.0 / n : 0;
}

/* Adds type ty's shared wait since w->since to its integrals.  With no
 * tenant in the wait nobody reads them over that time (a tenant that
 * joins reads only their growth from then), so they are left as they are:
 * most events of a pair change the running tenants, hence the class's
 * partners, while nobody waits. */
static inline void wait_flush(v10_engine *e, int ty)
{
    eng_wait *w = &e->wait[ty];
    uint64_t dt = e->now - w->since;
    w->since = e->now;
    if (!dt || !w->joined)
        return;
    if (w->share < 0)
        w->share = share_of(w->partners);
    double *cum = e->wait_cum + ((size_t)ty * W_CLASSES + w->cls) * wait_stride(e);
    cum[0] += cycles(dt);
    add_shares(cum + 1, w->partners, cycles(dt) * w->share);
}

static uint64_t switching_as_before(const v10_engine *e, const eng_fu_sum *s, uint64_t m);

/* Type ty's FUs are now s: its shared wait takes the class they imply, and
 * the waiters whose state or treatment may change (in spec before or
 * after; outside the wait, if the class or partners change) are marked
 * for refresh_one, but for those switching as before (switching_as_before). */
static void wait_move(v10_engine *e, int ty, const eng_fu_sum *s, uint64_t sw_all)
{
    eng_wait *w = &e->wait[ty], now = wait_class(s, e->running, sw_all);
    uint64_t mark = e->ready[ty] & (w->spec | now.spec);
    w->spec = now.spec;
    if (now.cls != w->cls || now.partners != w->partners) {
        mark |= e->ready[ty] & ~w->joined; /* those charged interval by interval */
        wait_flush(e, ty);
        w->cls = now.cls;
        w->partners = now.partners;
        w->share = -1; /* counted when first needed (wait_flush) */
    }
    e->attr_dirty |= mark & ~switching_as_before(e, s, mark);
}

/* Type ty's shared wait, out of date while nobody was in it (eng_attr_refresh),
 * takes the class its FUs s imply, from now. */
static void wait_take(v10_engine *e, int ty, const eng_fu_sum *s, uint64_t sw_all)
{
    eng_wait *w = &e->wait[ty], now = wait_class(s, e->running, sw_all);
    w->cls = now.cls;
    w->partners = now.partners;
    w->spec = now.spec;
    w->share = -1;
    w->since = e->now;
}

/* Tenant i (its own interval settled) joins type ty's shared wait. */
static void wait_join(v10_engine *e, int i, int ty)
{
    tenant *t = &e->tenants[i];
    size_t n = W_CLASSES * wait_stride(e);
    wait_flush(e, ty);
    memcpy(e->a_snap + (size_t)i * n, e->wait_cum + (size_t)ty * n, n * sizeof *e->a_snap);
    e->wait[ty].joined |= 1ull << i;
    t->a_lazy = (uint8_t)(ty + 1);
    t->a_state = (uint8_t)(e->attr_preempted >> i & 1); /* start_op clears the bit first */
    t->a_op = t->op;
}

/* to[j] += now[j] - then[j] for the n partners: rows of distinct blocks
 * (restrict: no overlap test before the vector loop). */
static void add_growth(double *restrict to, const double *restrict now,
                       const double *restrict then, size_t n)
{
    for (size_t j = 0; j < n; j++)
        to[j] += now[j] - then[j];
}

/* Tenant i leaves its type's shared wait: it is charged the integrals'
 * growth since it joined, each class to the state it implies. */
static inline void wait_leave(v10_engine *e, int i)
{
    tenant *t = &e->tenants[i];
    int ty = t->a_lazy - 1;
    size_t nt = (size_t)e->n_tenants, k = wait_stride(e);
    wait_flush(e, ty);
    const double *cum = e->wait_cum + (size_t)ty * W_CLASSES * k;
    const double *snap = e->a_snap + (size_t)i * W_CLASSES * k;
    for (int c = 0; c < W_CLASSES; c++, cum += k, snap += k) {
        double dt = cum[0] - snap[0];
        if (dt <= 0)
            continue; /* no time in this class: no share either */
        size_t st = (size_t)wait_state(c, ty, t->a_state);
        e->attr[(size_t)i * V10_ATTR_STATES + st] += dt;
        if (t->op_attr)
            t->op_attr[t->a_op * V10_ATTR_STATES + st] += dt;
        add_growth(e->attr_lost + ((size_t)i * V10_ATTR_STATES + st) * nt, cum + 1, snap + 1, nt);
    }
    e->wait[ty].joined &= ~(1ull << i);
    t->a_lazy = 0;
    t->a_since = e->now;
}

/* ---- tallies (attr_tally, docs/attribution.md) --------------------------------- */

/* The fields of a tally key, ENG_TALLY_TENANTS bits each (bit i: tenant
 * i), from the lowest: the FUs' (tally_fus: each FU state's tenants by
 * type, the FREE fields unused), then the masks a tenant's state is read
 * from (ready_state and the RUNNING rule of refresh_one), then one bit per
 * type for a free FU. */
enum { K_FUS = (V10P_FU_RESTORE + 1) * V10_FU_TYPES, /* eng_tally_fu_field's */
       K_READY_SA = K_FUS, K_READY_VU, K_READY_ICI, K_RUNNING,
       K_PREEMPTED, K_MASKS };
#define K_BITS ENG_TALLY_TENANTS
_Static_assert(K_MASKS * K_BITS + V10_FU_TYPES <= 64, "a key fits in 64 bits");

/*
 * The configuration now, as far as any tenant's state and partners depend
 * on it: the ready and running tenants, each type's executing and
 * switching tenants (tally_fus, kept by fu_set_state) and whether one of
 * its FUs is free, and which ready tenants were preempted.  A RUNNING
 * tenant restores its context iff it executes on no FU.  Shifts by
 * constants: this runs at most events.
 */
static uint64_t tally_key(const v10_engine *e)
{
    uint64_t pre = e->attr_preempted &
                   (e->ready[V10_FU_SA] | e->ready[V10_FU_VU] | e->ready[V10_FU_ICI]);
    return e->tally_fus | e->ready[V10_FU_SA] << K_READY_SA * K_BITS |
           e->ready[V10_FU_VU] << K_READY_VU * K_BITS |
           e->ready[V10_FU_ICI] << K_READY_ICI * K_BITS | e->running << K_RUNNING * K_BITS |
           pre << K_PREEMPTED * K_BITS |
           (uint64_t)(e->n_free[V10_FU_SA] > 0) << (K_MASKS * K_BITS + V10_FU_SA) |
           (uint64_t)(e->n_free[V10_FU_VU] > 0) << (K_MASKS * K_BITS + V10_FU_VU) |
           (uint64_t)(e->n_free[V10_FU_ICI] > 0) << (K_MASKS * K_BITS + V10_FU_ICI);
}

/* Charges `cycles` in the configuration `key` to every tenant: its state
 * then (as refresh_one would classify it) and equal shares to its partners. */
static void tally_charge(v10_engine *e, uint64_t key, uint64_t cycles)
{
    unsigned n = (unsigned)e->n_tenants;
    uint64_t f[K_MASKS];
    for (int k = 0; k < K_MASKS; k++)
        f[k] = key >> (k * K_BITS) & ((1u << K_BITS) - 1);
    uint64_t held[V10_FU_TYPES], sw[V10_FU_TYPES];
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        held[ty] = f[eng_tally_fu_field(V10P_FU_BUSY, ty)];
        sw[ty] = f[eng_tally_fu_field(V10P_FU_SWITCH, ty)] |
                 f[eng_tally_fu_field(V10P_FU_RESTORE, ty)];
    }
    uint64_t free = key >> (K_MASKS * K_BITS);
    uint64_t sw_all = sw[V10_FU_SA] | sw[V10_FU_VU] | sw[V10_FU_ICI];
    double dt = (double)cycles;
    for (unsigned i = 0; i < n; i++) {
        uint64_t me = 1ull << i, partners = 0;
        int st;
        if (f[K_RUNNING] & me) {
            st = (held[V10_FU_SA] | held[V10_FU_VU] | held[V10_FU_ICI]) & me ? V10_ATTR_EXEC
                                                                              : V10_ATTR_SWITCH;
        } else if ((f[K_READY_SA] | f[K_READY_VU] | f[K_READY_ICI]) & me) {
            int ty = f[K_READY_SA] & me ? V10_FU_SA : f[K_READY_VU] & me ? V10_FU_VU : V10_FU_ICI;
            eng_fu_sum s = {.free = (int)(free >> ty & 1),
                            .held = held[ty], .switching = sw[ty]};
            st = ready_state((int)i, ty, (f[K_PREEMPTED] & me) != 0, &s, f[K_RUNNING], sw_all,
                             &partners);
        } else {
            st = V10_ATTR_IDLE;
        }
        size_t row = (size_t)i * V10_ATTR_STATES + (size_t)st;
        e->attr[row] += dt;
        add_shares(e->attr_lost + row * n, partners, dt * share_of(partners));
    }
}

/* Charges every configuration the table holds, and empties it. */
static void tally_flush(v10_engine *e)
{
    for (int h = 0; h < ENG_TALLY_SLOTS; h++) {
        eng_tally *x = &e->tally[h];
        if (x->cycles)
            tally_charge(e, x->key, x->cycles);
        x->cycles = 0;
    }
    e->tally_used = 0;
}

/* Adds the time since tally_since to its configuration's entry (open
 * addressing, linear probing; flushed at three quarters full), and makes
 * `key` the configuration from now. */
static void tally_move(v10_engine *e, uint64_t key)
{
    uint64_t dt = e->now - e->tally_since, old = e->tally_key;
    e->tally_key = key;
    e->tally_since = e->now;
    if (!dt)
        return;
    /* Fibonacci hashing: the key times 2^64 / the golden ratio, top bits. */
    unsigned h = (unsigned)((old * 0x9e3779b97f4a7c15ull) >> (64 - ENG_TALLY_BITS));
    for (;; h = (h + 1) & (ENG_TALLY_SLOTS - 1)) {
        eng_tally *x = &e->tally[h];
        if (x->cycles && x->key == old) {
            x->cycles += dt;
            return;
        }
        if (!x->cycles) {
            *x = (eng_tally){old, dt};
            if (++e->tally_used >= ENG_TALLY_SLOTS * 3 / 4)
                tally_flush(e);
            return;
        }
    }
}

/* ---- classification ----------------------------------------------------------- */

/* The state of RUNNING tenant t: executing (its HBM losses:
 * eng_attr_fu_hbm), or restoring its context. */
static int running_state(const v10_engine *e, const tenant *t)
{
    return e->fus[t->fu].state == V10P_FU_RESTORE ? V10_ATTR_SWITCH : V10_ATTR_EXEC;
}

/* Whether tenant t's open interval (outside a shared wait) is state st
 * with these partners, for its current operator: refreshing it then
 * charges nothing. */
static int interval_same(const tenant *t, int st, uint64_t partners)
{
    return st == t->a_state && partners == t->a_partners && (!t->op_attr || t->op == t->a_op);
}

/* Of the tenants in m, READY for a type whose FUs are s, those that
 * refresh_one would leave as they are, whatever the type's shared wait:
 * an FU of the type switches their own context and none is free, so
 * their state is `switch` with no partner (ready_state), and they are
 * charged so already, outside the shared wait.  wait_move marks the
 * others only: most of the tenants its class sets apart (spec) are these,
 * a preempted operator's tenant while its context is saved. */
static uint64_t switching_as_before(const v10_engine *e, const eng_fu_sum *s, uint64_t m)
{
    uint64_t same = 0;
    if (s->free)
        return 0;
    for (m &= s->switching; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        const tenant *t = &e->tenants[i];
        if (!t->a_lazy && interval_same(t, V10_ATTR_SWITCH, 0))
            same |= 1ull << i;
    }
    return same;
}

/* Tenant i's state now (sum: the FUs by type, with sw_all).  A READY
 * tenant the type's shared wait describes joins it (attr_lazy); otherwise
 * an unchanged state (and partners) keeps its interval open, and a changed
 * one is settled and the new state taken. */
static void refresh_one(v10_engine *e, int i, const eng_fu_sum *sum, uint64_t sw_all)
{
    tenant *t = &e->tenants[i];
    uint64_t partners = 0;
    int st;
    if (t->state == V10P_IDLE) {
        st = V10_ATTR_IDLE;
    } else if (t->state == V10P_READY) {
        int ty = t->fu_of[t->op];
        eng_wait *w = &e->wait[ty];
        uint64_t me = 1ull << i;
        if (t->a_lazy == ty + 1 && !(w->spec & me) && (!t->op_attr || t->op == t->a_op))
            return; /* still in the same wait */
        /* A lone waiter is charged interval by interval: a lone wait is
         * short, and a snapshot of the integrals costs more than the one or
         * two changes it sees.  Beside another waiter it joins the wait. */
        if (e->attr_lazy && (e->ready[ty] & ~me)) {
            if (w->cls == W_STALE)
                wait_take(e, ty, &sum[ty], sw_all);
            if (!(w->spec & me) && (e->ready[ty] & ~(w->spec | me))) {
                if (t->a_lazy)
                    wait_leave(e, i);
                else
                    settle_one(e, i);
                wait_join(e, i, ty);
                return;
            }
        }
        eng_fu_sum own;
        if (sum[ty].owned) /* partitions: only its own and the shared FUs */
            sum_fus(e, ty, i, &own);
        st = ready_state(i, ty, (int)(e->attr_preempted >> i & 1), sum[ty].owned ? &own : &sum[ty],
                         e->running, sw_all, &partners);
    } else {
        st = running_state(e, t);
    }
    if (t->a_lazy)
        wait_leave(e, i);
    else if (interval_same(t, st, partners))
        return;
    else
        settle_one(e, i);
    t->a_state = (uint8_t)st;
    t->a_partners = partners;
    t->a_op = t->op;
    t->a_share = share_of(partners);
}

/*
 * Reclassifies the tenants marked dirty and follows each FU type's
 * summary: when it changed since the last call, the type's shared wait
 * moves (attr_lazy), or else every tenant waiting for the type is
 * reclassified (a waiting tenant's state depends only on the summary, on
 * the running tenants and on the contexts being switched).  Out of line:
 * the tallies' events do not pay for its registers.
 */
static void __attribute__((noinline)) refresh_intervals(v10_engine *e)
{
    eng_fu_sum *seen = e->attr_seen;
    uint64_t sw_all = switching(e, V10_FU_SA) | switching(e, V10_FU_VU) | switching(e, V10_FU_ICI);
    uint64_t moved = e->running ^ e->attr_seen_running;
    moved |= sw_all ^ (seen[V10_FU_SA].switching | seen[V10_FU_VU].switching |
                       seen[V10_FU_ICI].switching);
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        eng_fu_sum *x = &seen[ty];
        if (!e->ready[ty]) { /* nobody waits (nor is in the wait): none reads it */
            x->free = -1;    /* taken anew, and the wait marked stale, when one does */
            continue;
        }
        int free = e->n_free[ty] > 0;
        if (!moved && !e->attr_owned && free == x->free && held(e, ty) == x->held &&
            switching(e, ty) == x->switching)
            continue;
        x->free = free;
        x->owned = e->attr_owned;
        x->held = held(e, ty);
        x->switching = switching(e, ty);
        if (e->wait[ty].joined) {
            wait_move(e, ty, x, sw_all);
        } else { /* every waiter is charged interval by interval */
            e->attr_dirty |= e->ready[ty];
            e->wait[ty].cls = W_STALE; /* wait_take before a join */
        }
    }
    e->attr_seen_running = e->running;
    for (uint64_t m = e->attr_dirty & eng_all_tenants(e); m; m &= m - 1)
        refresh_one(e, __builtin_ctzll(m), seen, sw_all);
    e->attr_dirty = 0;
}

/*
 * Whether refresh_intervals would change nothing now but attr_seen_running:
 * nobody waits for an FU (so every type's summary is set aside, as the
 * last refresh left it: free = -1), and every tenant marked is running as
 * it was (refresh_one's rule), out of any shared wait, charged to nobody:
 * the tenant whose operator ended and whose next began at once, most
 * events of a run with as many FUs of each type as tenants.  A few loads,
 * against the whole interval rule's walk.
 */
static int nothing_moved(const v10_engine *e)
{
    if (e->ready[V10_FU_SA] | e->ready[V10_FU_VU] | e->ready[V10_FU_ICI] ||
        e->attr_seen[V10_FU_SA].free != -1 || e->attr_seen[V10_FU_VU].free != -1 ||
        e->attr_seen[V10_FU_ICI].free != -1)
        return 0;
    for (uint64_t m = e->attr_dirty & eng_all_tenants(e); m; m &= m - 1) {
        const tenant *t = &e->tenants[__builtin_ctzll(m)];
        if (t->state != V10P_RUNNING || t->a_lazy || !interval_same(t, running_state(e, t), 0))
            return 0;
    }
    return 1;
}

/* The interval rule's refresh (both out of line: the tallies' events do
 * not pay for them). */
static void __attribute__((noinline)) refresh_untallied(v10_engine *e)
{
    if (nothing_moved(e)) {
        e->attr_seen_running = e->running;
        e->attr_dirty = 0;
        return;
    }
    refresh_intervals(e);
}

/*
 * After every event.  With tallies (attr_tally), closes the
 * configuration's stretch when the configuration changed, which it can
 * only where attr_dirty is marked; otherwise the interval rule
 * (refresh_untallied).  Most events change no summary, and cost a few
 * compares.
 */
void eng_attr_refresh(v10_engine *e)
{
    if (e->attr_off || !e->attr_dirty)
        return;
    if (!e->attr_tally) {
        refresh_untallied(e);
        return;
    }
    uint64_t key = tally_key(e);
    if (key != e->tally_key)
        tally_move(e, key);
    e->attr_dirty = 0;
}

void eng_attr_start(v10_engine *e)
{
    e->attr_off = e->cfg->no_attribution;
    if (e->attr_off) /* the counters stay zero */
        return;
    e->attr_hbm_split = e->n_tenants > 2;
    for (int f = 0; f < e->n_fus; f++)
        e->attr_owned |= e->fus[f].owner >= 0;
    /* A trace records each tenant's intervals: only the interval rule has
     * them; so do the per-operator counters (each interval's operator).
     * Under partitions a tenant sees only its own FUs, not its type's. */
    int ops = 0;
    for (int i = 0; i < e->n_tenants; i++)
        ops |= e->tenants[i].op_attr != NULL;
    e->attr_tally = !e->attr_owned && !e->trace && !ops && e->n_tenants <= ENG_TALLY_TENANTS;
    e->attr_lazy = !e->attr_owned && !e->trace;
    if (e->attr_tally) {
        e->tally_fus = eng_tally_fus_of(e->attr_fus); /* the masks, kept until now */
        e->tally_key = tally_key(e);
        e->tally_since = e->now;
        return;
    }
    for (int ty = 0; ty < V10_FU_TYPES; ty++) {
        e->attr_seen[ty].free = -1; /* the first refresh takes every summary */
        e->wait[ty].cls = W_STALE;
    }
    e->attr_dirty = eng_all_tenants(e);
    eng_attr_refresh(e);
}

void eng_attr_settle(v10_engine *e)
{
    eng_attr_hbm(e);
    for (int k = 0; k < e->n_busy; k++)
        eng_attr_fu_hbm(e, &e->fus[e->busy[k]]);
    if (e->attr_off)
        return;
    if (e->attr_tally) {
        tally_move(e, e->tally_key);
        tally_flush(e);
        return;
    }
    for (int i = 0; i < e->n_tenants; i++) {
        tenant *t = &e->tenants[i];
        if (t->a_lazy) { /* charged up to now, and waiting on */
            int ty = t->a_lazy - 1;
            wait_leave(e, i);
            wait_join(e, i, ty);
        } else {
            settle_one(e, i);
        }
    }
}

int eng_attr_ops_alloc(v10_engine *e, const v10_model *models, v10_err *err)
{
    for (int i = 0; i < e->n_tenants; i++) {
        tenant *t = &e->tenants[i];
        if (t->llm) /* its operators are each iteration's: no fixed list */
            continue;
        size_t n = models[i].n_ops * V10_ATTR_STATES;
        t->op_attr = calloc(2 * n, sizeof *t->op_attr);
        if (!t->op_attr)
            return v10_err_set(err, "out of memory for the per-operator attribution of "
                                    "tenant %d (%zu operators)", i, models[i].n_ops);
        t->op_attr_base = t->op_attr + n;
    }
    return 0;
}

void eng_attr_open_window(v10_engine *e)
{
    eng_attr_settle(e);
    for (int i = 0; i < e->n_tenants; i++) {
        tenant *t = &e->tenants[i];
        if (t->op_attr)
            memcpy(t->op_attr_base, t->op_attr,
                   t->model->n_ops * V10_ATTR_STATES * sizeof *t->op_attr);
    }
    size_t na = (size_t)e->n_tenants * V10_ATTR_STATES;
    memcpy(e->attr_base, e->attr, na * sizeof *e->attr);
    memcpy(e->attr_lost_base, e->attr_lost, na * (size_t)e->n_tenants * sizeof *e->attr);
    e->attr_window = 1;
}
