/*
 * v10_full.c — V10 with fair sharing and operator preemption (paper §4):
 * a timer fires every slice and matches waiting tenants to the FUs they
 * need.  The holders with the highest scores go first: each is preempted
 * for the waiting tenant with the lowest score whose next operator needs
 * that FU type, if that score is lower than the holder's.  A waiting tenant
 * takes at most one FU, so every preempted FU has a waiter to take it.  The
 * FU pays the SA or VU context switch (384 cycles for a 128x128 SA, paper).
 *
 * Beyond the paper, v10-full.preempt=ready (docs/architecture.md,
 * "Preemption when a tenant becomes ready"): the same matching also runs
 * as soon as a tenant becomes ready for an FU type whose FUs are all
 * taken, not only at the next tick, but no operator is preempted before
 * it has held its FU for the quantum (v10-full.quantum_cycles), and only
 * for a waiter owed at least a slice (below); a match the quantum blocks
 * is retried when it ends.  A tenant whose operators
 * are short and alternate between the SA and the VU is otherwise ready
 * for the SA just after a long operator of another tenant took it, and
 * waits for the next tick each time.
 */
#include "policy/common.h"

/*
 * The timer ticks at every multiple of the slice, but a tick with nobody
 * waiting does nothing, so it is armed only while someone may be waiting:
 * a tick that finds no waiter disarms it, and the next event that leaves
 * a tenant READY re-arms it at the next multiple.  The ticks that fire are
 * the ones that could act; with short slices and long operators that saves
 * most of the run's events (the slice study at 512 cycles).  With
 * preempt=ready it also fires at the event that leaves a tenant waiting
 * for a type with no free FU, and at the end of a quantum that blocked a
 * match; it then goes back to the next multiple of the slice.
 * Invariant: armed == 1 iff the engine's timer is set.
 */
typedef struct full_state {
    int armed;
    /* since[t]: when tenant t's operator was last given an FU (full_pick;
     * a tenant holds one operator at a time), the start of its quantum. */
    uint64_t since[V10_MAX_TENANTS];
} full_state;

/* The default quantum, in context switches of the FU's type: a ready
 * preemption takes an FU from an operator that has held it for at least
 * 9 switches, so the switch it costs is at most a tenth of the FU's time
 * between two such preemptions (docs/architecture.md, "Preemption when a
 * tenant becomes ready"). */
#define QUANTUM_SWITCHES 9

/*
 * preempt=ready: a match made off the ticks (at the event that left a
 * tenant waiting, or at the end of a quantum) preempts only for a waiter
 * owed at least a slice of FU time: its active cycles that far below what
 * the holder's score gives it (v10p_cycles_to_score).  Under the paper's
 * rule a holder runs up to a slice past a waiter before the next tick
 * hands the FU over; a debt within that is the ticks' to settle, and a
 * preemption for it buys what the next tick does a little sooner, for a
 * switch, often two when that tick hands the FU back (resnet50 + ncf,
 * docs/architecture.md).  The ticks match as the paper does, debt or not.
 */
static int owed_a_slice(const v10_engine *e, int w, int holder, uint64_t slice)
{
    return v10p_cycles_to_score(e, w, v10p_score(e, holder)) >= (double)slice;
}

/* The context switch of FU f's type, cycles (paper: 384 for a 128x128 SA). */
static uint64_t switch_cost(const v10_engine *e, int f)
{
    return v10_npu_switch_cycles(v10p_npu(e), (int)v10p_fu_type(e, f));
}

/* The least cycles an operator keeps FU f before a preemption
 * (preempt=ready). */
static uint64_t quantum(const v10_engine *e, int f)
{
    uint64_t q = v10p_params(e)->full_quantum_cycles;
    return q ? q : QUANTUM_SWITCHES * switch_cost(e, f);
}

/* 1 if some FU of type ty is free (the dispatch after this event offers it). */
static int type_free(const v10_engine *e, int ty)
{
    for (int f = 0; f < v10p_n_fus(e); f++)
        if ((int)v10p_fu_type(e, f) == ty && v10p_fu_state(e, f) == V10P_FU_FREE)
            return 1;
    return 0;
}

static int full_init(v10_engine *e, void *st, v10_err *err)
{
    (void)err;
    ((full_state *)st)->armed = 1;
    v10p_set_timer(e, policy_slice_cycles(e));
    return 0;
}

/* preempt=ready: a tenant left READY for a type with no free FU is
 * matched after this event's dispatch (the timer at now), not at the next
 * tick; the timer then goes back to the ticks. */
static void full_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    (void)k;
    full_state *s = st;
    if (v10p_state(e, t) != V10P_READY)
        return;
    if (v10p_params(e)->full_preempt_ready && !type_free(e, v10p_next_fu(e, t))) {
        s->armed = 1;
        v10p_set_timer(e, v10p_now(e));
        return;
    }
    if (s->armed)
        return;
    uint64_t slice = policy_slice_cycles(e), now = v10p_now(e);
    uint64_t next = now % slice ? (now / slice + 1) * slice : now;
    s->armed = 1;
    v10p_set_timer(e, next);
}

static int full_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)f;
    int w = v10p_lowest_score(e, cand);
    ((full_state *)st)->since[w] = v10p_now(e);
    return w;
}

/* The unmatched waiting tenant with the lowest score (key: its score's
 * order, v10p_score_keys) that may take FU f (the engine's eligibility;
 * ties: the lower index), or -1.  `matched`
 * holds tenant bits.  The eligible set is the ready set of f's type less
 * whom f's owner or may_run exclude, so this walks the candidates the
 * ready set would give, in the same order, with one call for all. */
static int best_waiter(const v10_engine *e, int f, const double *key, uint64_t matched)
{
    int best = -1;
    for (uint64_t m = v10p_eligible_mask(e, f) & ~matched; m; m &= m - 1) {
        int i = __builtin_ctzll(m); /* ascending: ties keep the lower index */
        if (best < 0 || key[i] < key[best])
            best = i;
    }
    return best;
}

/*
 * A tick scores only the tenants it may read: the waiting ones and the
 * holders it may preempt (an idle tenant's score is never compared), with
 * one call for all; it only compares scores, so it takes keys in their
 * order (v10p_score_keys: with equal priorities and arrivals, the active
 * cycles, two divisions fewer per tenant).  The holders' tenants are read
 * once: a preemption asked for here takes effect at a later event
 * (policy_api.h), so no FU changes hands during the tick.
 */
static void full_timer(v10_engine *e, void *st)
{
    full_state *s = st;
    double key[V10_MAX_TENANTS];
    char seen[V10_MAX_FUS], freeing[V10_MAX_FUS];
    int holder[V10_MAX_FUS];
    int nf = v10p_n_fus(e);
    uint64_t waiting = v10p_ready_mask(e, V10_FU_SA) | v10p_ready_mask(e, V10_FU_VU) |
                       v10p_ready_mask(e, V10_FU_ICI);
    if (!waiting) {
        s->armed = 0; /* nobody to preempt for: sleep until someone waits */
        return;
    }
    /* The next tick; with preempt=ready the timer also fires off the
     * ticks, so it is the next multiple of the slice, or sooner if a
     * quantum blocks a match until then (set once the matching is done). */
    uint64_t now = v10p_now(e), slice = policy_slice_cycles(e), wake = 0;
    int ready = v10p_params(e)->full_preempt_ready;
    if (ready)
        wake = (now / slice + 1) * slice;
    else
        v10p_set_timer(e, now + slice);
    /* An FU on its way to being free (free, switching, or with a stop
     * pending) will go to the best waiter, who needs no preemption.  Only
     * an executing operator with no stop pending may be preempted. */
    uint64_t scored = waiting, matched = 0;
    for (int f = 0; f < nf; f++) {
        v10p_fstate st_f = v10p_fu_state(e, f);
        int stopping = v10p_fu_stopping(e, f);
        seen[f] = st_f != V10P_FU_BUSY || stopping;
        freeing[f] = st_f == V10P_FU_FREE || st_f == V10P_FU_SWITCH || stopping;
        if (!seen[f]) {
            holder[f] = v10p_fu_tenant(e, f);
            scored |= 1ull << holder[f];
        }
    }
    v10p_score_keys(e, scored, key);
    for (int f = 0; f < nf; f++) {
        int w = freeing[f] ? best_waiter(e, f, key, matched) : -1;
        if (w >= 0)
            matched |= 1ull << w;
    }
    for (;;) {
        int f = -1;
        for (int k = 0; k < nf; k++)
            if (!seen[k] && (f < 0 || key[holder[k]] > key[holder[f]]))
                f = k;
        if (f < 0)
            break;
        seen[f] = 1;
        int w = best_waiter(e, f, key, matched);
        if (w < 0 || !(key[w] < key[holder[f]]))
            continue;
        if (ready && now % slice && !owed_a_slice(e, w, holder[f], slice))
            continue; /* the next tick's to settle */
        if (ready && now - s->since[holder[f]] < quantum(e, f)) {
            uint64_t end = s->since[holder[f]] + quantum(e, f); /* > now */
            wake = end < wake ? end : wake;
            continue; /* w may still take another FU */
        }
        matched |= 1ull << w;
        if (v10p_preempt(e, f, switch_cost(e, f)))
            v10p_count_switch(e);
    }
    if (ready)
        v10p_set_timer(e, wake);
}

/* 0 stands for the NPU's slice. */
static double npu_slice(double v, const v10_npu *npu) { return v != 0 ? v : (double)npu->slice_cycles; }

static const v10_param_def full_params[] = {
    {.name = "v10-full.slice_cycles", .key = "slice_cycles", .type = V10_PARAM_U64,
     .offset = offsetof(v10_policy_params, slice_cycles), .def = 0, .min = 0, .max = 0x1p40,
     .help = "preemption time slice, cycles; 0: the NPU's (32768 on v10-isca23)",
     .effective = npu_slice},
    {.name = "v10-full.preempt", .key = "full_preempt", .type = V10_PARAM_CHOICE,
     .offset = offsetof(v10_policy_params, full_preempt_ready), .def = 0, .min = 0, .max = 1,
     .choices = "tick|ready",
     .help = "preempt at timer ticks (the paper's), or also when a tenant becomes ready "
             "for a busy FU"},
    {.name = "v10-full.quantum_cycles", .key = "quantum_cycles", .type = V10_PARAM_U64,
     .offset = offsetof(v10_policy_params, full_quantum_cycles), .def = 0, .min = 0,
     .max = 0x1p40,
     .help = "preempt=ready: least cycles an operator keeps its FU; 0: 9 context switches "
             "of the FU's type (SA 3456, VU 594 on v10-isca23)"},
};

const v10_policy_ops v10_policy_v10_full = {
    .name = "v10-full",
    .summary = "V10 + Algorithm 1 + operator preemption every time slice",
    .hw_scheduler = 1,
    .V10P_PARAMS(full_params),
    .state_size = sizeof(full_state),
    .init = full_init,
    .pick = full_pick,
    .on_timer = full_timer,
    .on_event = full_event,
};
