/*
 * prema.c — PREMA (Choi & Rhu, "PREMA: A Predictive Multi-task Scheduling
 * Algorithm For Preemptible Neural Processing Units", HPCA 2020), whole-core
 * temporal sharing.
 *
 * At every scheduling point (each quantum, and whenever a request ends)
 * waiting tasks earn tokens: priority x (time waited / estimated isolated
 * time).  The threshold is the highest priority level not above the largest
 * token; among tasks whose tokens reach it, the shortest estimated remaining
 * job runs.  PREMA's levels are its priority classes; with equal priorities
 * that alone is plain shortest-job-first, which starves a long task forever
 * when a short one keeps re-issuing (closed loop).  Our choice, documented
 * in docs/architecture.md: above the highest priority the levels continue as
 * a doubling ladder, so a task that has waited long enough becomes the only
 * candidate — PREMA's token aging, made to bound the wait.  To preempt, PREMA chooses dynamically: it DRAINs (lets the
 * running request finish, no switch cost) when that request would end
 * within a fraction of the quantum, and CHECKPOINTs (task context switch)
 * otherwise.
 */
#include "policy/common.h"

typedef struct prema_state {
    int owner;                      /* -1 none (first: policy_owner_may_run) */
    int draining;                   /* 1: owner finishes its request first */
    uint64_t last;                  /* last token update */
    double token[V10_MAX_TENANTS];
} prema_state;
_Static_assert(offsetof(prema_state, owner) == 0, "policy_owner_may_run reads the owner first");

static void earn(v10_engine *e, prema_state *s)
{
    uint64_t now = v10p_now(e);
    double dt = (double)(now - s->last);
    for (int i = 0; i < v10p_n_tenants(e); i++)
        if (i != s->owner && policy_has_work(e, i))
            s->token[i] += v10p_priority(e, i) * dt / (double)v10p_req_work(e, i);
    s->last = now;
}

/* PREMA's candidate selection; -1 if nobody has work. */
static int choose(const v10_engine *e, const prema_state *s)
{
    double top = -1;
    int nt = v10p_n_tenants(e);
    for (int i = 0; i < nt; i++)
        if (policy_has_work(e, i) && s->token[i] > top)
            top = s->token[i];
    if (top < 0)
        return -1;
    /* Threshold: the highest level reached, where the levels are the
     * tenants' priorities and, above the highest, a doubling ladder. */
    double thr = 0, maxp = 0;
    for (int i = 0; i < nt; i++) {
        double p = v10p_priority(e, i);
        if (p <= top && p > thr)
            thr = p;
        if (p > maxp)
            maxp = p;
    }
    for (double lv = 2 * maxp; lv <= top; lv *= 2)
        thr = lv;
    int best = -1;
    for (int i = 0; i < nt; i++) {
        if (!policy_has_work(e, i) || s->token[i] < thr)
            continue;
        if (best < 0 || v10p_req_left(e, i) < v10p_req_left(e, best))
            best = i;
    }
    return best;
}

static void schedule(v10_engine *e, prema_state *s, int at_boundary)
{
    earn(e, s);
    int next = choose(e, s);
    if (next < 0 || next == s->owner)
        return;
    if (s->owner < 0 || at_boundary) {
        s->owner = next; /* request boundary: nothing to save */
        s->draining = 0;
        return;
    }
    double quantum = (double)policy_pmt_slice_cycles(e);
    if (v10p_req_left(e, s->owner) <= v10p_params(e)->prema_drain_frac * quantum) {
        s->draining = 1;
        return;
    }
    policy_core_switch(e, v10_npu_pmt_switch_cycles(v10p_npu(e)));
    s->owner = next;
}

static int prema_init(v10_engine *e, void *st, v10_err *err)
{
    (void)err;
    prema_state *s = st;
    s->owner = -1;
    for (int i = 0; i < v10p_n_tenants(e); i++)
        s->token[i] = v10p_priority(e, i);
    v10p_set_timer(e, policy_pmt_slice_cycles(e));
    return 0;
}

static int prema_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)f;
    prema_state *s = st;
    if (s->owner < 0)
        schedule(e, s, 1);
    return policy_pick_owner(s->owner, cand);
}

static void prema_timer(v10_engine *e, void *st)
{
    prema_state *s = st;
    if (!s->draining)
        schedule(e, s, 0);
    v10p_set_timer(e, v10p_now(e) + policy_pmt_slice_cycles(e));
}

static void prema_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    prema_state *s = st;
    if (k != V10_EV_REQ_DONE && k != V10_EV_ARRIVAL)
        return;
    if (k == V10_EV_REQ_DONE) {
        s->token[t] = v10p_priority(e, t); /* a new task starts afresh */
        if (t == s->owner) {
            s->draining = 0;
            schedule(e, s, 1);
        }
    } else if (s->owner < 0 || !policy_has_work(e, s->owner)) {
        s->owner = -1;
        schedule(e, s, 1);
    }
}

/* The quantum is PMT's slice (pmt.slice_us). */
static const v10_param_def prema_params[] = {
    POLICY_PMT_SLICE_PARAM("prema.slice_us", "quantum (scheduling period), us; PMT's time "
                                             "slice too"),
    {.name = "prema.drain_frac", .key = "prema_drain_frac", .type = V10_PARAM_DOUBLE,
     .offset = offsetof(v10_policy_params, prema_drain_frac), .def = 0.25, .min = 0, .max = 1000,
     .help = "drain (no switch) if the running task ends within this many quanta"},
};

const v10_policy_ops v10_policy_prema = {
    .name = "prema",
    .summary = "PREMA (HPCA'20): token-based priority, shortest job, checkpoint or drain",
    .V10P_PARAMS(prema_params),
    .state_size = sizeof(prema_state),
    .init = prema_init,
    .pick = prema_pick,
    .on_timer = prema_timer,
    .on_event = prema_event,
    .may_run = policy_owner_may_run,
};
