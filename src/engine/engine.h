/*
 * engine.h — the discrete-event engine's state and the calls between its
 * files: engine.c, the loop and life cycle; record.c, the trace and the
 * window's snapshots; rates.c, HBM water-filling; fu.c, dispatch,
 * execution and preemption; partition.c, the FUs divided among tenants
 * (spatial partitions, allocations); arrivals.c, requests and their arrivals;
 * llm.c, LLM servers' iterations; check.c, invariants; api.c, the
 * policies' view (engine/policy_api.h); attrib.c, where each tenant's time
 * goes (its calls: engine/attrib.h); the event queue is util/evq.h.
 * Calls go one way: engine.c calls the others, fu.c calls arrivals.c,
 * llm.c and record.c, llm.c calls arrivals.c and record.c, check.c calls
 * llm.c and attrib.c, attrib.c calls record.c, fu.c, record.c and check.c
 * call energy.c (energy and power, energy.h), and no file calls back.
 * Only src/engine, src/sim (which drives a run) and src/metrics (which
 * reads the finished counters) include this header; policies see the
 * engine through engine/policy_api.h.
 *
 * Time is integer cycles; events are ordered by (time, sequence number).
 * Each tenant is an in-order operator stream with at most one operator in
 * flight; each FU runs at most one operator at a time.
 */
#ifndef V10_ENGINE_H
#define V10_ENGINE_H

#include <math.h>
#include <stdint.h>

#include "model/view.h"
#include "engine/energy.h"
#include "engine/policy_api.h"
#include "util/evq.h"
#include "util/hist.h"
#include "v10/llm_tenant.h"
#include "v10/sim.h"

/* Requests one tenant may have waiting (an open-loop tenant arriving faster
 * than it is served); past this the run fails (32 MiB of arrival times). */
#define V10_MAX_BACKLOG (1 << 22)

/* Words of a bit set over the FUs. */
#define V10_FU_WORDS ((V10_MAX_FUS + 63) / 64)

/* FU f's word and bit in a bit set over the FUs (e->free_fus). */
static inline unsigned eng_fu_word(int f) { return (unsigned)f >> 6; }
static inline uint64_t eng_fu_bit(int f) { return 1ull << ((unsigned)f & 63); }

/* Cumulative counters at one instant; the window is the difference of two. */
typedef struct v10_snapshot {
    uint64_t time;
    double busy[V10_FU_TYPES];  /* executing cycles x speed, summed over FUs */
    double overlap;             /* cycles with an SA and a VU both executing */
    double hbm_bytes;
    double macs;
    double progress[V10_MAX_TENANTS]; /* requests, fractional */
    eng_energy_acc energy;      /* joules (energy.c) */
} v10_snapshot;

/*
 * One tenant: its model, its requests and its row of V10's context table.
 * Invariants: state == T_RUNNING iff fu >= 0; cur_req < issued when not
 * IDLE; 0 <= remaining <= work of the current operator; the arrival cycles
 * of requests cur_req..issued-1 sit in the ring `pend` at index
 * request & (pend_cap - 1).  A tenant keeps generating load after its
 * n_requests-th completion until every tenant has reached its own, so the
 * others never run alone at the end of a run.
 */
typedef struct tenant {
    /* What a policy's score reads (v10p_score, V10's context table), first
     * and together: a pick or a tick scores every candidate, so these
     * share one cache line per tenant; the cold fields (the latency
     * histogram, 2 KB) come last. */
    uint64_t score_time;        /* v10p_score's memo: the cycle it was taken ... */
    double score;               /* ... and the score then (UINT64_MAX: none) */
    uint64_t active_cycles;     /* cycles with an operator executing, up to the
                                   start of the current one (eng_active_cycles) */
    uint64_t arrive_cycle;      /* when its first request arrived at the NPU */
    double priority;
    v10p_tstate state;          /* changed only through eng_set_state */
    int fu;                     /* FU holding its operator, or -1 */
    const uint64_t *work;       /* per op: standalone cycles with its vmem share */
    const uint64_t *bytes;      /* per op: HBM bytes with its vmem share */
    const uint8_t *fu_of;       /* per op: its FU type (the hot loop's copy) */
    const double *macs;         /* per op: MACs (the hot loop's copy) */
    const double *bpw, *act;    /* per op: bytes / work and v10_cost_activity at its
                                   work (the hot loop's copies), or NULL: computed
                                   as it starts */
    uint64_t req_work;          /* sum of work: one request */
    double rate_per_cycle;      /* Poisson arrivals; 0 = closed loop */
    uint32_t outstanding;
    uint64_t n_requests;        /* completions this tenant must reach */
    uint64_t *pend;             /* ring: arrival cycle of each pending request */
    uint64_t pend_cap;          /* power of two */
    uint64_t issued, completed, cur_req;
    size_t op;                  /* current operator of the current request */
    double remaining;           /* standalone cycles left of the current op */
    double req_done_work;       /* work completed in the current request */
    uint64_t preemptions;
    int saved;                  /* its current operator was preempted mid-way
                                   (drain model): its context is saved */
    uint64_t rng[4];            /* xoshiro256** state for its arrivals */
    double work_done;           /* standalone cycles executed, whole run */
    double en_act[V10_FU_TYPES]; /* full-activity cycles of that work, by FU type
                                   (energy.c) */
    double en_bytes;            /* HBM bytes they moved (energy.c: eng_hbm_bytes) */
    /* attribution (attrib.c): the state it has been in since a_since and
     * the partners it loses that time to (bits), each a_share of it */
    uint8_t a_state;            /* v10_attr_state; in a shared wait (a_lazy), whether
                                   it was preempted (attr_preempted) when it joined */
    uint8_t a_lazy;             /* 1 + the FU type it waits for in the type's
                                   shared wait (eng_wait), charged from a_snap
                                   when it leaves; 0: a_state since a_since */
    uint64_t a_since;
    uint64_t a_partners;
    double a_share;
    size_t a_op;                /* the operator of that interval (op_attr) */
    double *op_attr;            /* with cfg->op_states: [op * S + s], cumulative
                                   cycles from cycle 0; op_attr_base at the
                                   window's opening; else NULL */
    double *op_attr_base;
    /* An LLM server (llm.c), or NULL: each engine request is one of its
     * iterations, whose operator arrays (model, work, ...) point at the
     * server's stream; its count is reached when all its requests finish. */
    v10_llm_tenant *llm;
    /* Every chip simulated (cfg->every_chip; else unused): the request and
     * operator at which its shards last met at a collective's barrier
     * (eng_bar_passed), bar_req = UINT64_MAX before the first. */
    uint64_t bar_req;
    size_t bar_op;
    /* cold: read at setup and when a request completes */
    const v10_model *model;
    v10_hist lat;               /* latencies (cycles) of requests completed in the window */
    uint64_t slo_ok;            /* of those, within the tenant's SLO */
    uint64_t finish_cycle;      /* when its last request completed */
} tenant;

/*
 * One functional unit (physical, or a spatial partition of one).
 * Invariants: state is FU_BUSY or FU_RESTORE iff tenant >= 0; stopping
 * only when FU_BUSY or FU_RESTORE; `covered` is 1 from the end of a switch
 * or hold until the next operator starts on the FU (that switch restored
 * the incoming operator's context, so a resumed operator pays no restore).
 */
typedef struct fu {
    v10_fu_type type;
    int owner;                  /* spatial: the only tenant allowed, or -1 */
    double speed;               /* compute fraction of a physical FU, (0, 1] */
    v10p_fstate state;
    int tenant;                 /* running tenant or -1 */
    uint64_t seg_start;         /* start of the current execution segment */
    uint64_t rate_time;         /* when `rate` took effect */
    double rate;                /* standalone cycles per cycle, (0, 1] */
    double full_rate;           /* rate with no contention (speed-adjusted) */
    double demand;              /* HBM bytes per cycle at full_rate */
    double bytes_per_work;      /* HBM bytes per standalone cycle of the op */
    double hbm_rate;            /* rate x bytes_per_work: HBM bytes per cycle now */
    double slowdown;            /* 1 - rate / full_rate: the part of each cycle lost
                                   to HBM sharing (rates.c) */
    uint64_t slow_since;        /* when that slowdown was last charged (attrib.c,
                                   eng_attr_fu_hbm) */
    double seg_rem0;            /* remaining work when the segment started */
    int stopping;               /* a preemption is pending */
    double stop_at;             /* remaining work at which to stop: 0 = finish */
    uint64_t stop_time;         /* stopping, drain model: cycle the drain ends */
    uint64_t switch_cost;       /* cycles of switching after the stop */
    int covered;                /* see the invariants above */
    uint64_t switch_start;
    int switch_tenant;          /* whose context is being switched (trace) */
    uint64_t since;             /* when the FU entered its state */
    uint64_t exec_cycles, switch_cycles; /* of states left (eng_fu_exec_cycles) */
    double work;                /* standalone work executed */
    double macs;                /* MACs executed */
    double act_per_work;        /* busy: full-activity cycles of its operator per unit
                                   of work (v10_cost_activity) */
    double act;                 /* full-activity cycles executed (dynamic energy) */
    /* op_mapping "all" or "alloc": an operator holds a gang of FUs of one
     * type.  Its leader (the FU it was offered) carries the operator: its
     * rate, its event, its work; `next` links the others, each a follower
     * (lead = the leader) in the leader's state with the leader's tenant,
     * executing no work of its own and scheduling no event.  Otherwise -1
     * both. */
    int lead;                   /* a follower: its leader; else -1 */
    int next;                   /* the gang's next follower, or -1 */
} fu;

/* What the FUs of one type are doing, as a waiting tenant sees it (attrib.c). */
typedef struct eng_fu_sum {
    int free;                   /* one is free */
    int owned;                  /* one is a partition (spatial) */
    uint64_t held;              /* tenants executing on one */
    uint64_t switching;         /* tenants whose context one saves or restores */
} eng_fu_sum;

/*
 * The shared wait of one FU type (attrib.c, "Lazy waits" in
 * docs/attribution.md): every tenant waiting for the type that no
 * tenant-specific rule sets apart (`spec`) is in the same class with the
 * same partners, so the type integrates them once (e->wait_cum) and such a
 * tenant is charged the difference when it stops waiting.  Invariant:
 * while some tenant is in the wait (joined), the class and partners have
 * been these since `since`, and wait_cum holds every earlier interval in
 * which some tenant was in it; while nobody is, the class may be out of
 * date (stale), and is taken anew before the next tenant joins.
 */
#define V10_ATTR_WAIT_CLASSES 3 /* free, held, switch_by (attrib.c) */
typedef struct eng_wait {
    uint8_t cls;                /* free, held or switch_by, or stale (attrib.c's W_*) */
    uint64_t partners;          /* who the time is lost to, each `share` of it */
    double share;               /* < 0: not counted yet */
    uint64_t since;
    uint64_t spec;              /* tenants this type's class does not describe */
    uint64_t joined;            /* tenants in the wait (a_lazy) */
} eng_wait;

/*
 * Tallies (attrib.c; "Tallies" in docs/attribution.md): with few tenants,
 * the time spent in each configuration of what a tenant's state is read
 * from, keyed by that configuration (attrib.c, tally_key), and classified
 * only when the table is flushed.  An entry with cycles == 0 is empty.
 */
#define ENG_TALLY_TENANTS 3     /* partners' shares of 1 and 1/2 only: exact sums */
#define ENG_TALLY_BITS 8
#define ENG_TALLY_SLOTS (1 << ENG_TALLY_BITS)
typedef struct eng_tally {
    uint64_t key, cycles;
} eng_tally;

struct v10_engine {
    const v10_run_config *cfg;
    const v10_npu *npu;
    const v10_policy_ops *policy;
    void *pstate;
    v10_trace *trace;           /* cfg->trace, read at every operator's end */
    uint64_t now;
    tenant *tenants;
    int n_tenants;
    fu *fus;
    int n_fus, max_fus, n_phys[V10_FU_TYPES];
    double hbm_bytes_per_cycle;
    /* counters */
    uint64_t events, preemptions, context_switches;
    uint64_t overlap_cycles;
    int busy_by_type[V10_FU_TYPES];
    /* measurement window */
    v10_snapshot win[2];
    int window_started;
    uint64_t end_cycle;
    double wall_seconds;
    /* internals (engine.c) */
    v10_evq evq;              /* one slot per FU, tenant (arrivals), the timer */
    /* ready[ty]: bit i set iff tenant i is READY and its next operator
     * needs FU type ty (eng_set_state keeps them so; dispatch reads them). */
    uint64_t ready[V10_FU_TYPES];
    uint64_t running;           /* bit i set iff tenant i is RUNNING (eng_set_state) */
    /* 1 while every priority is 1 and every tenant that has arrived (of
     * n_arrived) arrived at first_arrive (eng_issue keeps it): then V10's
     * scores order as the active cycles do (api.c, scores_by_active). */
    int scores_by_active, n_arrived;
    uint64_t first_arrive;
    /* Per tenant i: its active_cycles << 6 | i (fu_clock keeps it; six
     * bits: V10_MAX_TENANTS), in one array, so that a pick compares its
     * candidates' active cycles, ties the lower index, as integers read
     * from one or two cache lines (api.c, v10p_lowest_score).  Exact
     * while active_cycles < 2^58; read only below 2^51 (scores_by_active). */
    uint64_t active_key[V10_MAX_TENANTS];
    int *busy, n_busy;          /* the FUs in FU_BUSY, ascending (fu.c keeps it) */
    /* The FUs whose operator began executing since the last
     * eng_update_rates, ascending, each once (begin_exec adds them,
     * eng_update_rates empties it): the only busy FUs without an event. */
    int *started, n_started;
    /* The busy FUs (not followers) whose operator runs below its full
     * rate, u->rate != u->full_rate: bit f set iff so (rates.c sets it
     * with the rate, fu.c clears it as the FU leaves FU_BUSY or its tenant
     * takes it back; --check verifies it).  With e->started and
     * the FUs the water level caps, they are every FU whose rate a change
     * of the HBM's shares can move (rates.c, share_hbm). */
    uint64_t slow_fus[V10_FU_WORDS];
    unsigned fu_words;          /* the words of an FU bit set in use: max_fus / 64, rounded up */
    int n_switching;            /* FUs in FU_SWITCH or FU_RESTORE (fu.c keeps it) */
    /* An FU whose operator completed this event, freed as far as the
     * policy and the dispatch see (its state, tenant, the free set), with
     * the rest of leaving FU_BUSY (the busy list, busy_by_type, the demands'
     * sum, attribution's mask) pending until the dispatch ends, so that a
     * tenant that takes it back for its next operator undoes nothing
     * (fu.c, "Kept FUs"); -1: none.  Only between an FU's event and the
     * end of the dispatch that follows. */
    int released;
    int released_tenant;        /* ... the tenant whose operator it was */
    double released_demand;     /* ... that operator's demand */
    uint64_t released_dirty;    /* ... and that tenant's bit of attr_dirty before */
    int n_free[V10_FU_TYPES];   /* FUs in FU_FREE by type (fu.c keeps it) */
    uint64_t free_fus[V10_FU_WORDS]; /* bit f set iff FU f is in FU_FREE (fu.c keeps it) */
    uint64_t type_fus[V10_FU_TYPES][V10_FU_WORDS]; /* bit f set iff FU f is of the type */
    v10_op_view *view;          /* per tenant: its model as run (model/view.h), from
                                   the memo or computed into the pools */
    uint64_t *work_pool, *bytes_pool;  /* per op of the tenants not memoized, back to back */
    uint8_t *fu_pool;
    double *macs_pool;
    double *ratio_pool;         /* per op of every tenant: bytes / work, activity */
    const double *ratio[V10_MAX_TENANTS]; /* tenant i's in ratio_pool (engine.c, ratios) */
    uint64_t collective;        /* the tenants whose model has a collective (ratios) */
    int rates_dirty;
    /* 1: this event's dispatch waits for a later event at the same cycle
     * (eng_switch_ends_with_others); the loop clears it. */
    int defer_dispatch;
    int reclaim;                /* op_mapping "reclaim": eng_reclaim after each dispatch */
    int contended;              /* the last eng_update_rates shared HBM (rates below full) */
    /* The busy FUs' demands summed as they enter and leave FU_BUSY (fu.c),
     * so that eng_update_rates need not add them up at every call: a
     * running sum, within rounding of the one it would add (rates.c says how
     * it decides with it). */
    double demand_sum;
    uint64_t demand_moves;      /* its additions since it was last added up afresh */
    int oom;                    /* a request log could not grow */
    int backlog;                /* 1 + tenant whose queue passed V10_MAX_BACKLOG */
    /* Set with oom, backlog and window_started: the loop looks at them
     * (and clears it) only then, not at every event. */
    int alert;
    uint64_t stall_cycle;       /* the run fails past this (V10_CLOCK_LIMIT) */
    int n_done;                 /* tenants whose requests all completed */
    /* The event budget's and progress's check (sim/run.c): once the run
     * has processed check_at events, check() may stop it (-1 with err set)
     * and must set a later check_at; NULL: none. */
    uint64_t check_at;
    int (*check)(v10_engine *e, void *ctx, v10_err *err);
    void *check_ctx;
    v10_llm_tenant *llm;        /* per tenant, set by sim/run.c: n > 0 for LLM servers */
    /* op_mapping "alloc", "harvest", "reclaim": each tenant's allocation of each
     * type's FUs, the most an operator of it runs on under "alloc"
     * (eng_alloc_engines); unused otherwise. */
    int alloc_fus[V10_MAX_TENANTS][V10_FU_TYPES];
    /* Attribution (attrib.c), cumulative cycles from cycle 0: attr[i][s] of
     * tenant i in state s, except that attr[i][exec] counts every cycle it
     * executes, the parts lost to HBM sharing and to a slice of an FU
     * (attr[i][hbm], attr[i][partition]) included, so that it is
     * a sum of whole cycles, exact in any order (the state `exec` is the
     * difference: eng_attr_exec_net); attr_lost[(i * S + s) * nt + j] the
     * part lost to tenant j; *_base the same when the window opened.  The
     * per-operator counters (op_attr) follow the same rule.  attr_dirty:
     * tenants whose state may have changed this event (eng_attr_refresh
     * reclassifies), and bit 63 if an FU without a tenant changed state
     * (with 64 tenants, tenant 63's: refreshing a tenant whose state did
     * not change charges nothing new, though a lone waiter may join its
     * type's wait sooner); nonzero after any change attribution reads.
     * HBM losses: each busy FU's own are charged when its slowdown changes
     * (eng_attr_fu_hbm), with the partner's share when there are two
     * tenants; with more (attr_hbm_split) the partners' shares are charged
     * interval by interval from hbm_since, when the HBM rates or the busy
     * FUs last changed (eng_attr_hbm_settle). */
    double *attr, *attr_lost, *attr_base, *attr_lost_base;
    uint64_t attr_dirty;
    uint64_t hbm_since;
    int attr_hbm_split;
    int attr_window;            /* the *_base counters are taken */
    int attr_off;               /* cfg->no_attribution: nothing is counted */
    int attr_owned;             /* some FU is a partition (spatial) */
    /* By FU state and type, kept by fu_set_state (eng_attr_fu_bit): the
     * tenants executing on one (BUSY), whose context one saves (SWITCH, its
     * switch_tenant) or restores (RESTORE); the FREE row is unused.  held
     * and switching (attrib.c) read them; --check verifies them.  Not kept
     * with attribution off, nor with tallies (tally_fus instead). */
    uint64_t attr_fus[V10P_FU_RESTORE + 1][V10_FU_TYPES];
    /* The tenants whose current operator was preempted and has not run
     * since (any preemption model; fu.c keeps it). */
    uint64_t attr_preempted;
    eng_fu_sum attr_seen[V10_FU_TYPES]; /* the FUs at the last refresh, by type */
    uint64_t attr_seen_running;
    /* Lazy waits (attr_lazy: no partitions and no trace): each type's
     * shared wait, wait_cum[(ty * W + c) * (1 + nt)] its cumulative cycles
     * in class c followed by each partner's share of them (W classes), and
     * a_snap[(i * W + c) * (1 + nt)] the same when tenant i began waiting. */
    int attr_lazy;
    eng_wait wait[V10_FU_TYPES];
    double *wait_cum, *a_snap;
    /* Tallies (attr_tally: at most ENG_TALLY_TENANTS tenants, and no
     * partitions, trace or per-operator counters, which the interval rule
     * serves): the configuration since tally_since, and the table, of which
     * tally_used entries are taken.  Every tenant is charged from it;
     * a_state and the shared waits are unused. */
    int attr_tally;
    uint64_t tally_key, tally_since;
    /* The FUs' part of the configuration, kept by fu_set_state instead of
     * attr_fus (eng_attr_fu_bit): bit eng_tally_fu_field(s, type) *
     * ENG_TALLY_TENANTS + i for tenant i on an FU of that type in state s
     * (as attr_fus; the FREE bits are unused). */
    uint64_t tally_fus;
    int tally_used;
    eng_tally tally[ENG_TALLY_SLOTS];
    eng_energy en;              /* energy accounts (energy.c) */
    /* Every chip simulated (cfg->every_chip, docs/llm.md "Every chip"):
     * n_chips chips of chip_tenants tenants each, tenant i on chip
     * i / chip_tenants, a shard of group i % chip_tenants; FUs chip by chip,
     * fus_per_chip each.  Invariant: a tenant READY for a collective is in
     * ready[ICI] iff its group's shards have all reached that collective
     * (eng_bar_passed); until then its bit is in bar_wait[group].
     * n_chips = 1 otherwise (one chip stands for all). */
    int n_chips, chip_tenants, fus_per_chip;
    uint64_t bar_wait[V10_MAX_TENANTS];
    /* Per FU: the tenants that may run on it (eng_eligible_mask): every
     * tenant, a partition's owner, or with every chip simulated its chip's
     * (kept out of `fu`, whose size the loop's indexing is tuned to). */
    uint64_t fu_tmask[V10_MAX_FUS];
};

/* The latest cycle a run may reach (sim/run.c passes it as stall_cycle):
 * a quarter of the 64-bit clock, so that no time computed from it wraps.
 * A run is bounded by its events (the event budget, sim/run.c), not by an
 * estimate of its cycles: no estimate can foresee every way a valid
 * configuration adds time (power-gating wake-ups, context switches, a
 * policy's waits), so a slow run is never taken for a starved one. */
#define V10_CLOCK_LIMIT (1ull << 62)

/* Engine life cycle (used by sim/run.c).  alloc sets up FUs from the NPU
 * and every array the loop touches; run simulates, failing once simulated
 * time passes stall_cycle; free releases. */
int v10_engine_alloc(v10_engine *e, const v10_run_config *cfg, const v10_model *models,
                     size_t state_size, v10_err *err);
int v10_engine_run(v10_engine *e, const v10_run_config *cfg, const v10_policy_ops *policy,
                   const v10_model *models, uint64_t stall_cycle, v10_err *err);
void v10_engine_free(v10_engine *e);

/* ---- between the engine's files ------------------------------------------- */

/* Heap slots: FUs 0..max_fus-1, then one per tenant, then the timer. */
static inline int eng_slot_tenant(const v10_engine *e, int t) { return e->max_fus + t; }
static inline int eng_slot_timer(const v10_engine *e) { return e->max_fus + e->n_tenants; }
/* Every tenant's bit (bit i for tenant i < n_tenants). */
static inline uint64_t eng_all_tenants(const v10_engine *e)
{
    return e->n_tenants < 64 ? (1ull << e->n_tenants) - 1 : ~0ull;
}

/* Remaining work of the operator on busy FU u at the current time. */
static inline double eng_rem_now(const v10_engine *e, const fu *u)
{
    const tenant *t = &e->tenants[u->tenant];
    double r = t->remaining - u->rate * (double)(e->now - u->rate_time);
    return r < u->stop_at ? u->stop_at : r;
}

/* The work busy FU u's operator has executed since its segment began
 * (begin_exec; seg_rem0), not yet credited (eng_credit). */
static inline double eng_seg_work(const v10_engine *e, const fu *u)
{
    return u->seg_rem0 - eng_rem_now(e, u);
}

/* The busy FUs' HBM demands, added up in the busy list's order (rates.c,
 * and --check against the running e->demand_sum). */
static inline double eng_busy_demand(const v10_engine *e)
{
    double total = 0;
    for (int i = 0; i < e->n_busy; i++)
        total += e->fus[e->busy[i]].demand;
    return total;
}

/* FU u follows another's operator (op_mapping "all", "alloc"): it has no
 * work, rate or event of its own. */
static inline int eng_follower(const fu *u) { return u->lead >= 0; }
/* The FUs of the gang FU u leads (1: u alone; fu.c). */
int eng_gang_size(const v10_engine *e, const fu *u);

/* eng_energy_leave (energy.c) of a busy FU u: its tenant's executing
 * cycles on the type, inline for the loop's commonest change of state. */
static inline void eng_energy_leave_busy(v10_engine *e, const fu *u)
{
    e->en.busy[u->tenant][u->type] += (double)(e->now - u->since) * u->speed;
}

/* Cycles FU u has executed so far: the intervals of the busy states it
 * left, which fu.c adds as it leaves them, plus the one it is in. */
static inline uint64_t eng_fu_exec_cycles(const v10_engine *e, const fu *u)
{
    return u->exec_cycles + (u->state == V10P_FU_BUSY ? e->now - u->since : 0);
}

/* Cycles tenant t has had an operator executing so far. */
static inline uint64_t eng_active_cycles(const v10_engine *e, const tenant *t)
{
    const fu *u = t->fu >= 0 ? &e->fus[t->fu] : NULL;
    return t->active_cycles + (u && u->state == V10P_FU_BUSY ? e->now - u->since : 0);
}

/* Brings the tenant on FU u up to now at the FU's current rate. */
static inline void eng_sync_fu(v10_engine *e, fu *u)
{
    e->tenants[u->tenant].remaining = eng_rem_now(e, u);
    u->rate_time = e->now;
}

/* Every chip simulated: whether tenant t's shards have all reached its
 * current operator, a collective (so it may run). */
static inline int eng_bar_passed(const tenant *t)
{
    return t->bar_req == t->cur_req && t->bar_op == t->op;
}

/* Every chip simulated: the shards of tenant ti's group (every chip's). */
static inline uint64_t eng_group_mask(const v10_engine *e, int ti)
{
    uint64_t m = 0;
    for (int c = 0; c < e->n_chips; c++)
        m |= 1ull << (c * e->chip_tenants + ti % e->chip_tenants);
    return m;
}

/* Tenant ti, READY for a collective its shards have not all reached,
 * reaches it (engine.c): the last to come releases every shard. */
void eng_bar_arrive(v10_engine *e, int ti);

/* FU u (f) ends its switch now: whether another FU ends switching the
 * same context (or holding for the same switch of the core) at this cycle
 * too, with operators over several FUs (op_mapping not "one").  A
 * preempted gang's FUs, or a core's, then come free together, as on the
 * hardware, though each has its own event: the dispatch waits for the
 * last of them, else the first to come free would go alone to a waiter
 * that takes every free FU of its type (fu.c, gang_gather). */
static inline int eng_switch_ends_with_others(const v10_engine *e, const fu *u, int f)
{
    if (e->npu->op_mapping == V10_MAP_ONE)
        return 0;
    for (int g = 0; g < e->n_fus; g++) {
        const fu *v = &e->fus[g];
        if (g != f && v->state == V10P_FU_SWITCH && v->switch_tenant == u->switch_tenant &&
            v10_evq_scheduled(&e->evq, g) && e->evq.time[g] == e->now)
            return 1;
    }
    return 0;
}

/* Moves tenant ti to state st, keeping the ready masks; call it once the
 * tenant's next operator (t->op, t->fu_of) is set. */
static inline void eng_set_state(v10_engine *e, int ti, v10p_tstate st)
{
    tenant *t = &e->tenants[ti];
    uint64_t bit = 1ull << ti;
    e->ready[V10_FU_SA] &= ~bit;
    e->ready[V10_FU_VU] &= ~bit;
    e->ready[V10_FU_ICI] &= ~bit;
    e->running &= ~bit;
    e->attr_dirty |= bit;
    t->state = st;
    if (st == V10P_READY) {
        uint8_t ty = t->fu_of[t->op];
        if (__builtin_expect(ty == V10_FU_ICI && e->n_chips > 1, 0) && !eng_bar_passed(t))
            eng_bar_arrive(e, ti);
        else
            e->ready[ty] |= bit;
    } else if (st == V10P_RUNNING) {
        e->running |= bit;
    }
}

/* The one eligibility rule (policy_api.h, v10p_eligible) for every tenant
 * at once: the tenants in the ready mask of FU f's type, f's owner alone
 * if f is a partition, and those the policy's may_run (if any) allows. */
static inline uint64_t eng_eligible_mask(const v10_engine *e, int f)
{
    const fu *u = &e->fus[f];
    uint64_t m = e->ready[u->type] & e->fu_tmask[f]; /* a partition: its owner's bit */
    if (m && e->policy->may_run)
        m &= e->policy->may_run(e, e->pstate, f);
    return m;
}

static inline int eng_eligible(const v10_engine *e, int ti, int f)
{
    return eng_eligible_mask(e, f) >> ti & 1;
}

static inline void eng_notify(v10_engine *e, v10_ev_kind k, int t)
{
    if (e->policy->on_event)
        e->policy->on_event(e, e->pstate, k, t);
}

/* Cycles until FU u reaches its stop point at its current rate: the end
 * of its work (or of its tile, stop_at), or the end of a drain. */
static inline uint64_t eng_time_to_stop(const v10_engine *e, const fu *u)
{
    double left = e->tenants[u->tenant].remaining - u->stop_at;
    uint64_t c = 0;
    if (left > 1e-9) {
        /* ceil(x), at least 1, through one truncation instead of the
         * libm-free emulation of ceil that x86-64 without SSE4.1 compiles
         * (the loop's longest chain); capped far past any run's end. */
        double x = (u->rate == 1.0 ? left : left / u->rate) - 1e-9; /* same value */
        if (x >= 0x1p62)
            c = (uint64_t)1 << 62;
        else if (x > 0) {
            int64_t k = (int64_t)x;
            c = (uint64_t)k + ((double)k < x);
        }
        if (c < 1)
            c = 1;
    }
    if (u->stopping && u->stop_time - e->now < c)
        c = u->stop_time - e->now;
    return c;
}

/* Busy FU u's rate when the HBM grants it `alloc` bytes a cycle: its full
 * rate when served in full (alloc = demand, without the division), else
 * the full rate scaled by the part of its demand granted (rates.c, and
 * --check's water-filling). */
static inline double eng_granted_rate(const fu *u, double alloc)
{
    double r = u->full_rate;
    if (u->demand > 0 && alloc != u->demand) {
        r = u->full_rate * (alloc / u->demand);
        if (r > u->full_rate)
            r = u->full_rate;
    }
    return r;
}

/* An operator's HBM bytes per standalone cycle of its work (none for an
 * operator of no work): engine.c's ratios at set-up, fu.c's as an LLM
 * iteration's operator starts. */
static inline double eng_bytes_per_work(uint64_t bytes, uint64_t work)
{
    return work ? (double)bytes / (double)work : 0;
}

/* Credits `done` cycles of the current operator's work to FU u and tenant t. */
static inline void eng_credit(fu *u, tenant *t, double done)
{
    u->work += done;
    u->macs += t->macs[t->op] * done / (double)t->work[t->op];
    u->act += done * u->act_per_work;
    t->work_done += done;
    t->req_done_work += done;
    t->en_act[u->type] += done * u->act_per_work;
    t->en_bytes += done * u->bytes_per_work;
}

/* Requests tenant t has completed toward its count: an LLM server's
 * finished requests, not its iterations. */
static inline uint64_t eng_done_count(const tenant *t)
{
    return t->llm ? (uint64_t)t->llm->server.finished : t->completed;
}

/* LLM servers (llm.c): set up tenant i; its slot fired (an arrival, a host
 * time, a batch back, the run's start); its iteration's operators here ended. */
int eng_llm_setup(v10_engine *e, int i, v10_err *err);
void eng_llm_wake(v10_engine *e, int ti);
void eng_llm_iter_done(v10_engine *e, int ti);
void eng_llm_check(const v10_engine *e, const tenant *t, int end, char *msg, size_t cap);

/* FU f's operator has begun executing at its full rate, with no event yet:
 * eng_update_rates schedules it (keeps e->started ascending, each once). */
static inline void eng_mark_started(v10_engine *e, int f)
{
    int i = e->n_started;
    for (; i > 0 && e->started[i - 1] >= f; i--)
        if (e->started[i - 1] == f)
            return;
    for (int k = e->n_started++; k > i; k--)
        e->started[k] = e->started[k - 1];
    e->started[i] = f;
}

/* Recomputes the running operators' rates and moves their events (rates.c). */
void eng_update_rates(v10_engine *e);
/* op_mapping alloc, harvest, reclaim: sets alloc_fus from the tenants' priorities (partition.c). */
void eng_alloc_engines(v10_engine *e);
/* Offers the free FUs to the policy (fu.c). */
void eng_dispatch(v10_engine *e);
/* op_mapping "reclaim", after each dispatch: waiting tenants take lent FUs back (reclaim.c). */
void eng_reclaim(v10_engine *e);
/* Adds every FU's time in its current state to its counters (fu.c), as
 * if it left it now: at the end of a run, before the metrics read them. */
void eng_settle_clocks(v10_engine *e);
/* FU f's event: its operator stops or its switch or restore ends (fu.c). */
void eng_fu_event(v10_engine *e, int f);
/* A request of tenant ti arrives now; its next Poisson arrival (arrivals.c). */
void eng_issue(v10_engine *e, int ti);
void eng_arrival_event(v10_engine *e, int ti);
uint64_t eng_interarrival(tenant *t);
/* Sets up tenant i from its model's view (e->view[i]), its request log and
 * its arrival stream (arrivals.c). */
int eng_tenant_setup(v10_engine *e, int i, const v10_model *m, const v10_tenant_spec *sp,
                     v10_err *err);
/* Records a completed request's latency if the window is open (arrivals.c). */
void eng_log_latency(v10_engine *e, tenant *t, int ti, uint64_t cycles);
/* Cumulative counters now, for the window's edges (record.c). */
void eng_snapshot(const v10_engine *e, v10_snapshot *s);
/* Opens the window once every tenant is past its warm-up (record.c). */
void eng_check_window(v10_engine *e);
/* Appends a record to the run's trace, if it has one (record.c); the
 * check is inline so that untraced runs pay no call.  eng_trace_record
 * returns the record, for a caller to fill the fields its kind adds (an
 * LLM operator's name, a power record's unit), or NULL when out of memory
 * (tr->oom is set). */
v10_trace_rec *eng_trace_record(v10_trace *tr, v10_trace_kind k, uint64_t start, uint64_t end,
                                int f, int t, uint32_t op);
static inline void eng_trace_push(v10_engine *e, v10_trace_kind k, uint64_t start,
                                  uint64_t end, int f, int t, uint32_t op)
{
    if (e->trace)
        eng_trace_record(e->trace, k, start, end, f, t, op);
}
/* Records tenant ti's current operator's segment [start, end) on FU f; an
 * LLM server's by its name (record.c). */
void eng_trace_op_record(v10_engine *e, uint64_t start, uint64_t end, int f, int ti);
static inline void eng_trace_op(v10_engine *e, uint64_t start, uint64_t end, int f, int ti)
{
    if (e->trace)
        eng_trace_op_record(e, start, end, f, ti);
}
/* --check (check.c): aborts naming the broken invariant. */
void eng_check_state(const v10_engine *e);
void eng_check_end(const v10_engine *e);
void eng_check_energy(const v10_engine *e);
/* Simulated time passed stall_cycle: the error naming the first tenant short of its count. */
int eng_stalled(const v10_engine *e, v10_err *err);

#endif
