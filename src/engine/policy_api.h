/*
 * policy_api.h — everything a scheduling policy sees of the engine: the
 * plug-in table it defines (v10_policy_ops), its parameter table
 * (v10_param_def, include/v10/sim.h) and the v10p_* calls.  A policy
 * includes this header (and policy/common.h), never engine/engine.h, so
 * the engine's structures can change without touching any policy.
 *
 * Ownership: every v10p_* call borrows the engine; nothing a call returns
 * outlives the hook it was called from.  Tenants and FUs are indices,
 * 0 <= t < v10p_n_tenants(e) and 0 <= f < v10p_n_fus(e).
 */
#ifndef V10_POLICY_API_H
#define V10_POLICY_API_H

#include <stdint.h>

#include "v10/sim.h"

typedef struct v10_engine v10_engine;

/* Limits a policy may size its state arrays by. */
#define V10_MAX_TENANTS 64
#define V10_MAX_FUS 192

/* Tenant states.  READY: has a request and its next operator is not on an
 * FU.  RUNNING: its operator holds an FU (executing, draining before a
 * preemption, or having its context restored).  IDLE: no request to serve. */
typedef enum { V10P_IDLE = 0, V10P_READY, V10P_RUNNING } v10p_tstate;

/* FU states.  BUSY: executing a tenant's operator (perhaps draining before
 * a preemption).  SWITCH: a context switch after a preemption, or a hold;
 * no operator.  RESTORE: restoring the context of a preempted operator,
 * which executes once the restore ends. */
typedef enum { V10P_FU_FREE = 0, V10P_FU_BUSY, V10P_FU_SWITCH, V10P_FU_RESTORE } v10p_fstate;

/* ---- queries (pure; valid in every hook) ---------------------------------- */

uint64_t v10p_now(const v10_engine *e);                 /* cycles */
int v10p_n_tenants(const v10_engine *e);
int v10p_chip_tenants(const v10_engine *e); /* tenants a chip runs (every chip simulated:
                                               n_tenants / chips; else n_tenants) */
int v10p_n_fus(const v10_engine *e);                    /* partitions count once each */
int v10p_n_phys(const v10_engine *e, v10_fu_type type); /* physical FUs of the type */
const v10_npu *v10p_npu(const v10_engine *e);
const v10_policy_params *v10p_params(const v10_engine *e);

v10p_tstate v10p_state(const v10_engine *e, int t);
double v10p_priority(const v10_engine *e, int t);
/* The FU type its next operator needs (meaningful unless IDLE). */
int v10p_next_fu(const v10_engine *e, int t);
/* Arrival cycle of the request it is serving (state != V10P_IDLE). */
uint64_t v10p_arrival(const v10_engine *e, int t);
/* Standalone cycles of one request, and of its current request still to do. */
uint64_t v10p_req_work(const v10_engine *e, int t);
double v10p_req_left(const v10_engine *e, int t);
/* V10 Algorithm 1: active_rate / priority (0 before any time has passed).
 * v10p_scores sets score[t] to it for each tenant t in `mask` (tenant
 * bits) and leaves the other entries alone.  v10p_score_keys sets key[t]
 * instead, for tenants that have arrived (not IDLE before their first
 * request): keys that order as the scores do, ties included, for
 * comparing with each other only (the scores, or the active cycles when
 * every score has the same divisor).  v10p_lowest_score returns the
 * candidate of `cand` (READY tenants' bits, not empty) with the lowest
 * score (ties: the lower index), scoring none if there is one.  One call
 * scores many tenants: a pick or a tick calls these, not v10p_score per
 * tenant. */
double v10p_score(const v10_engine *e, int t);
void v10p_scores(const v10_engine *e, uint64_t mask, double *score);
void v10p_score_keys(const v10_engine *e, uint64_t mask, double *key);
int v10p_lowest_score(const v10_engine *e, uint64_t cand);
/* The active cycles tenant t (arrived) lacks to reach score s: s x its
 * priority x its cycles since its first arrival, less its active cycles
 * (<= 0 if its score is s or more).  What t is owed to catch up with a
 * tenant of score s; with equal priorities and arrivals, the difference
 * of the two tenants' active cycles. */
double v10p_cycles_to_score(const v10_engine *e, int t, double s);
/* The one eligibility rule: 1 if tenant t is READY, its next operator
 * needs FU f's type, f is unowned or t's partition, and the policy's
 * may_run (if any) agrees.  The engine offers an FU only to eligible
 * tenants; a policy asking "who could take f" asks this. */
int v10p_eligible(const v10_engine *e, int t, int f);
/* The tenants eligible for FU f, as tenant bits: bit t is v10p_eligible(e,
 * t, f) (one may_run call for all of them). */
uint64_t v10p_eligible_mask(const v10_engine *e, int f);
/* The READY tenants whose next operator needs FU type `type`: bit t set
 * for tenant t (V10_MAX_TENANTS <= 64).  Every tenant eligible for an FU
 * of that type is in it; a policy looking for one walks these bits. */
uint64_t v10p_ready_mask(const v10_engine *e, v10_fu_type type);
/* 1 if no FU holds an operator of a tenant other than t (whole-core
 * sharing: nobody starts while another tenant's operator drains); and the
 * tenants t for which it is 1, as a set of tenant bits. */
int v10p_core_clear_for(const v10_engine *e, int t);
uint64_t v10p_core_clear_mask(const v10_engine *e);

v10_fu_type v10p_fu_type(const v10_engine *e, int f);
int v10p_fu_chip(const v10_engine *e, int f); /* every chip simulated: FU f's chip (its
                                                  tenants' only); else 0 */
int v10p_fu_owner(const v10_engine *e, int f);   /* spatial partition owner, -1 shared */
/* With op_mapping "all" or "alloc" one operator may hold several FUs of a
 * type (a gang, docs/design.md §2): each reports the tenant, state and
 * pending stop of the operator, and v10p_preempt on any of them preempts
 * the operator on all of them. */
int v10p_fu_tenant(const v10_engine *e, int f);  /* tenant holding it, -1 none */
v10p_fstate v10p_fu_state(const v10_engine *e, int f);
int v10p_fu_stopping(const v10_engine *e, int f); /* a preemption is pending */

/*
 * ---- actions ------------------------------------------------------------------
 * v10p_preempt takes FU f from the operator it holds and switches the FU's
 * context, charging switch_cycles as switching.  Under the run's
 * preemption model (v10_run_config.preempt): DRAIN, an SA operator
 * executes for the drain (sa_rows cycles) and a VU operator stops at once,
 * and the switch ends switch_cycles after the drain began plus the part of
 * the drain the switch does not overlap (the NPU's sa_switch_overlap_cycles:
 * by default the whole drain, so switch_cycles after the request); TILE, the operator runs to its next tile boundary and the switch
 * follows.  An operator still restoring its context gives the FU up at once.
 * The stop happens at a later event (V10_EV_PREEMPTED); the preempted tenant
 * is then READY and may resume on any FU of the type.  DRAIN: an operator
 * that finishes during its drain completes (V10_EV_OP_DONE) and the switch
 * still ends on time.  Returns 1 if a preemption was scheduled, 0 (doing
 * nothing) if f holds no operator, a stop is already pending, or (TILE) the
 * operator's next boundary is its end.
 * v10p_hold occupies a free FU with switching for `cycles` (a whole-core
 * switch).  v10p_set_timer arms the policy's single timer at absolute cycle
 * `at` >= now (replacing any armed one).  v10p_count_switch counts one
 * context switch in the run's overheads.  v10p_move_context records
 * `bytes` moved between the core and HBM by a switch (a whole-core task
 * switch saving and restoring the tasks' state): their energy only, the
 * switch's cycles already stand for their time (docs/energy.md).
 */
int v10p_preempt(v10_engine *e, int f, uint64_t switch_cycles);
void v10p_hold(v10_engine *e, int f, uint64_t cycles);
void v10p_set_timer(v10_engine *e, uint64_t at);
void v10p_count_switch(v10_engine *e);
void v10p_move_context(v10_engine *e, double bytes);
/* Spatial partitioning: replaces the FUs of `type` with one partition per
 * tenant sized by `share` (sums to 1); called from a policy's init only. */
int v10p_partition(v10_engine *e, v10_fu_type type, const double *share, v10_err *err);

/*
 * ---- the plug-in ------------------------------------------------------------------
 * A policy is a const table in one file, listed in registry.c.  The engine
 * zeroes `state_size` bytes of state before init.  Every hook must be
 * deterministic (no clocks, no global state, no unseeded randomness).
 */
typedef enum { V10_EV_ARRIVAL = 0, V10_EV_REQ_DONE, V10_EV_OP_DONE, V10_EV_PREEMPTED } v10_ev_kind;

struct v10_policy_ops {
    const char *name;
    const char *summary;  /* one line */
    /* The parameters it reads: each named "<name>.<param>", mapped onto a
     * field of v10_policy_params; n_params entries (0: none).  Two policies
     * reading one field declare the same type, default and range. */
    const v10_param_def *param_defs;
    size_t n_params;
    size_t state_size;
    /* 1: the policy runs on V10's hardware operator scheduler, whose power
     * the run's energy counts (NPU sched_w); 0: software on the host. */
    int hw_scheduler;
    /* Optional.  Validates the tenant mix and sets up state (timers,
     * partitions).  Returns -1 with err set to refuse the configuration. */
    int (*init)(v10_engine *e, void *st, v10_err *err);
    /* Required.  FU f is free and `cand` (tenant bits, not empty) are the
     * tenants eligible for it (v10p_eligible).  Returns one of them, or -1
     * to leave f idle.  pick and may_run may look at f's type and owner,
     * not at which FU it is: once an unowned FU of a type is left idle, the
     * engine leaves the other unowned FUs of that type idle too until
     * something is started. */
    int (*pick)(v10_engine *e, void *st, int f, uint64_t cand);
    /* Optional.  The timer armed with v10p_set_timer fired.  It may
     * preempt, hold free FUs and re-arm; a preemption it asks for completes
     * at a later event, so an FU it preempts is not free yet. */
    void (*on_timer)(v10_engine *e, void *st);
    /* Optional.  Something happened to tenant t (after the engine updated it). */
    void (*on_event)(v10_engine *e, void *st, v10_ev_kind k, int t);
    /* Optional.  The tenants that may run on FU f at all (beyond FU type
     * and ownership), as a set of tenant bits like v10p_ready_mask: one
     * call per FU offered, not one per tenant.  Part of v10p_eligible;
     * must not act. */
    uint64_t (*may_run)(const v10_engine *e, const void *st, int f);
};

#endif
