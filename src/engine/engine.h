/*
 * engine.h — the discrete-event engine's state, as policies see it.
 *
 * Time is integer cycles; events are ordered by (time, sequence number).
 * Each tenant is an in-order operator stream with at most one operator in
 * flight; each FU runs at most one operator at a time.  Policies read the
 * structures below and act only through the v10_engine_* calls at the end.
 */
#ifndef V10_ENGINE_H
#define V10_ENGINE_H

#include <stdint.h>

#include "metrics/hist.h"
#include "v10/sim.h"

typedef struct v10_engine v10_engine;

#define V10_MAX_TENANTS 64
/* Requests one tenant may have waiting (an open-loop tenant arriving faster
 * than it is served); past this the run fails (32 MiB of arrival times). */
#define V10_MAX_BACKLOG (1 << 22)
#define V10_MAX_FUS 192

/* Cumulative counters at one instant; the window is the difference of two. */
typedef struct v10_snapshot {
    uint64_t time;
    double busy[V10_FU_TYPES];  /* executing cycles x speed, summed over FUs */
    double overlap;             /* cycles with an SA and a VU both executing */
    double hbm_bytes;
    double macs;
    double progress[V10_MAX_TENANTS]; /* requests, fractional */
} v10_snapshot;

/* Tenant states.  READY: has a request and its next operator is not on an
 * FU.  RUNNING: its operator holds an FU (executing, draining before a
 * preemption, or having its context restored).  IDLE: no request to serve. */
typedef enum { T_IDLE = 0, T_READY, T_RUNNING } tenant_state;

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
    const v10_model *model;
    const uint64_t *work;       /* per op: standalone cycles with its vmem share */
    const uint64_t *bytes;      /* per op: HBM bytes with its vmem share */
    const uint8_t *fu_of;       /* per op: its FU type (the hot loop's copy) */
    const double *macs;         /* per op: MACs (the hot loop's copy) */
    uint64_t req_work;          /* sum of work: one request */
    double priority;
    double rate_per_cycle;      /* Poisson arrivals; 0 = closed loop */
    uint32_t outstanding;
    uint64_t n_requests;        /* completions this tenant must reach */
    uint64_t *pend;             /* ring: arrival cycle of each pending request */
    uint64_t pend_cap;          /* power of two */
    v10_hist lat;               /* latencies (cycles) of requests completed in the window */
    uint64_t slo_ok;            /* of those, within the tenant's SLO */
    uint64_t issued, completed, cur_req;
    size_t op;                  /* current operator of the current request */
    double remaining;           /* standalone cycles left of the current op */
    double req_done_work;       /* work completed in the current request */
    tenant_state state;
    int fu;                     /* FU holding its operator, or -1 */
    /* context table (V10) */
    uint64_t active_cycles;     /* cycles with an operator executing */
    uint64_t arrive_cycle;      /* when its first request arrived at the NPU */
    uint64_t preemptions;
    int saved;                  /* its current operator was preempted mid-way
                                   (drain model): its context is saved */
    uint64_t rng[4];            /* xoshiro256** state for its arrivals */
    double work_done;           /* standalone cycles executed, whole run */
    uint64_t finish_cycle;      /* when its last request completed */
} tenant;

/* FU states.  BUSY: executing `tenant`'s operator (perhaps draining before
 * a preemption).  SWITCH: a context switch after a preemption, or a hold;
 * no operator.  RESTORE: restoring the context of `tenant`'s preempted
 * operator, which executes once the restore ends. */
typedef enum { FU_FREE = 0, FU_BUSY, FU_SWITCH, FU_RESTORE } fu_state;

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
    fu_state state;
    int tenant;                 /* running tenant or -1 */
    uint64_t seg_start;         /* start of the current execution segment */
    uint64_t rate_time;         /* when `rate` took effect */
    double rate;                /* standalone cycles per cycle, (0, 1] */
    double full_rate;           /* rate with no contention (speed-adjusted) */
    double demand;              /* HBM bytes per cycle at full_rate */
    double alloc;               /* HBM bytes per cycle granted */
    double bytes_per_work;      /* HBM bytes per standalone cycle of the op */
    double seg_rem0;            /* remaining work when the segment started */
    int stopping;               /* a preemption is pending */
    double stop_at;             /* remaining work at which to stop: 0 = finish */
    uint64_t stop_time;         /* stopping, drain model: cycle the drain ends */
    uint64_t switch_cost;       /* cycles of switching after the stop */
    int covered;                /* see the invariants above */
    uint64_t switch_start;
    int switch_tenant;          /* whose context is being switched (trace) */
    uint64_t exec_cycles, switch_cycles;
    double work;                /* standalone work executed */
    double macs;                /* MACs executed */
} fu;

struct v10_engine {
    const v10_run_config *cfg;
    const v10_npu *npu;
    const v10_policy_ops *policy;
    void *pstate;
    uint64_t now;
    tenant *tenants;
    int n_tenants;
    fu *fus;
    int n_fus, max_fus, n_phys[V10_FU_TYPES];
    double hbm_bytes_per_cycle;
    /* counters */
    uint64_t events, preemptions, context_switches;
    uint64_t overlap_cycles;
    double hbm_bytes_moved;
    int busy_by_type[V10_FU_TYPES];
    /* measurement window */
    v10_snapshot win[2];
    int window_started;
    uint64_t end_cycle;
    double wall_seconds;
    /* internals (engine.c) */
    struct evheap *heap;
    int *cand;
    uint64_t *work_pool, *bytes_pool;  /* per op of every tenant, back to back */
    uint8_t *fu_pool;
    double *macs_pool;
    int rates_dirty;
    int oom;                    /* a request log could not grow */
    int backlog;                /* 1 + tenant whose queue passed V10_MAX_BACKLOG */
    uint64_t stall_cycle;       /* the run fails past this (tenant/horizon.h) */
    int n_done;                 /* tenants whose requests all completed */
    struct v10_progress *bar;   /* progress on stderr (run.c), or NULL */
};

/* Engine life cycle (used by run.c).  alloc sets up FUs from the NPU and
 * every array the loop touches; run simulates; free releases. */
int v10_engine_alloc(v10_engine *e, const v10_run_config *cfg, const v10_model *models,
                     size_t state_size, v10_err *err);
int v10_engine_run(v10_engine *e, const v10_run_config *cfg, const v10_policy_ops *policy,
                   const v10_model *models, v10_err *err);
void v10_engine_free(v10_engine *e);

/* Policy-visible queries. */
static inline int v10_tenant_next_fu(const tenant *t) { return (int)t->fu_of[t->op]; }
/* Arrival cycle of the request the tenant is serving (state != T_IDLE). */
static inline uint64_t v10_tenant_cur_arrival(const tenant *t)
{
    return t->pend[t->cur_req & (t->pend_cap - 1)];
}
/* V10 Algorithm 1: active_rate / priority (0 before any time has passed). */
double v10_engine_score(const v10_engine *e, int t);
/* 1 if tenant t is READY and its next operator may run on FU f. */
int v10_engine_eligible(const v10_engine *e, int t, int f);

/*
 * Actions.  v10_engine_preempt takes FU f from the operator it holds and
 * switches the FU's context, charging switch_cycles as switching.  Under
 * the run's preemption model (v10_run_config.preempt): DRAIN, an SA operator
 * executes for the drain (sa_rows cycles) and a VU operator stops at once,
 * and the switch ends switch_cycles after the request (the drain overlaps
 * it); TILE, the operator runs to its next tile boundary and the switch
 * follows.  An operator still restoring its context gives the FU up at once.
 * The stop happens at a later event (V10_EV_PREEMPTED); the preempted tenant
 * is then READY and may resume on any FU of the type.  DRAIN: an operator
 * that finishes during its drain completes (V10_EV_OP_DONE) and the switch
 * still ends on time.  Returns 1 if a preemption was scheduled, 0 (doing
 * nothing) if f holds no operator, a stop is already pending, or (TILE) the
 * operator's next boundary is its end.
 * v10_engine_hold occupies a free FU with switching for `cycles` (a
 * whole-core switch).  v10_engine_set_timer arms the policy's single timer
 * at absolute cycle `at` (replacing any armed one).
 */
int v10_engine_preempt(v10_engine *e, int f, uint64_t switch_cycles);
void v10_engine_hold(v10_engine *e, int f, uint64_t cycles);
void v10_engine_set_timer(v10_engine *e, uint64_t at);
void v10_engine_count_switch(v10_engine *e);
/* Spatial partitioning: replaces the FUs of `type` with one partition per
 * tenant sized by `share` (sums to 1); called from a policy's init only. */
int v10_engine_partition(v10_engine *e, v10_fu_type type, const double *share, v10_err *err);

/*
 * A policy plug-in: a const table in one file, listed in registry.c.  The
 * engine zeroes `state_size` bytes of state before init.  Every hook must be
 * deterministic (no clocks, no global state, no unseeded randomness).
 */
typedef enum { V10_EV_ARRIVAL = 0, V10_EV_REQ_DONE, V10_EV_OP_DONE, V10_EV_PREEMPTED } v10_ev_kind;

struct v10_policy_ops {
    const char *name;
    const char *summary;  /* one line */
    const char *params;   /* the options it reads, with defaults */
    size_t state_size;
    /* Optional.  Validates the tenant mix and sets up state (timers,
     * partitions).  Returns -1 with err set to refuse the configuration. */
    int (*init)(v10_engine *e, void *st, v10_err *err);
    /* Required.  FU f is free and cand[0..n) (n >= 1, ascending) are the
     * tenants eligible for it.  Returns one of them, or -1 to leave f idle.
     * pick and may_run may look at f's type and owner, not at which FU it
     * is: once an unowned FU of a type is left idle, the engine leaves the
     * other unowned FUs of that type idle too until something is started. */
    int (*pick)(v10_engine *e, void *st, int f, const int *cand, int n);
    /* Optional.  The timer armed with v10_engine_set_timer fired.  It may
     * preempt, hold free FUs and re-arm; a preemption it asks for completes
     * at a later event, so an FU it preempts is not free yet. */
    void (*on_timer)(v10_engine *e, void *st);
    /* Optional.  Something happened to tenant t (after the engine updated it). */
    void (*on_event)(v10_engine *e, void *st, v10_ev_kind k, int t);
    /* Optional.  May tenant t run on FU f at all (beyond FU ownership)? */
    int (*may_run)(const v10_engine *e, const void *st, int t, int f);
};

#endif
