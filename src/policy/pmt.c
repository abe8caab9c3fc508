/*
 * pmt.c — the paper's baseline, preemptive multi-tenancy (PREMA lineage):
 * the whole core belongs to one tenant's task at a time; at the end of its
 * time slice the core switches to the next tenant with work, paying the
 * task context switch (20-40 µs, paper; default 30 µs) on every FU: the
 * running operators are preempted (policy_core_switch) and the core's
 * context saved to and restored from HBM.  A slice starts when the switch
 * has completed, so the outgoing task's drain and the switch are not taken
 * from the incoming task's slice.  Slices are equal, or proportional to
 * priority (the default).
 */
#include "policy/common.h"

/* Invariant: while `running` (owner >= 0), the timer is armed for the end
 * of the owner's slice; before (no owner yet, or a switch completing) a
 * firing timer is a stale one and is ignored. */
typedef struct pmt_state {
    int owner;   /* tenant owning the core, -1 none */
    int running; /* the owner's slice has started */
} pmt_state;

static uint64_t slice_of(const v10_engine *e, int t)
{
    uint64_t base = policy_pmt_slice_cycles(e);
    if (!e->cfg->params.pmt_share_priority)
        return base;
    double mean = 0;
    for (int i = 0; i < e->n_tenants; i++)
        mean += e->tenants[i].priority / e->n_tenants;
    double s = (double)base * e->tenants[t].priority / mean;
    return s < 1 ? 1 : (uint64_t)s;
}

/* The next tenant after `from` (round robin) with a request, or -1. */
static int next_with_work(const v10_engine *e, int from)
{
    for (int k = 1; k <= e->n_tenants; k++) {
        int i = (from + k + e->n_tenants) % e->n_tenants;
        if (policy_has_work(e, i))
            return i;
    }
    return -1;
}

/* Hands the core to `to`, paying the task switch if it changes hands; its
 * slice starts when it first gets an FU (pmt_pick), i.e. once the switch
 * has completed. */
static void give(v10_engine *e, pmt_state *s, int to)
{
    if (to == s->owner || to < 0)
        return;
    if (s->owner >= 0)
        policy_core_switch(e, v10_npu_pmt_switch_cycles(e->npu));
    s->owner = to;
    s->running = 0;
}

static int pmt_init(v10_engine *e, void *st, v10_err *err)
{
    (void)e, (void)err;
    ((pmt_state *)st)->owner = -1;
    return 0;
}

static int pmt_pick(v10_engine *e, void *st, int f, const int *cand, int n)
{
    (void)f;
    pmt_state *s = st;
    if (s->owner < 0)
        s->owner = cand[0];
    for (int i = 0; i < n; i++)
        if (cand[i] == s->owner) {
            if (!s->running) {
                s->running = 1;
                v10_engine_set_timer(e, e->now + slice_of(e, s->owner));
            }
            return s->owner;
        }
    return -1;
}

/* No tenant starts while another tenant's operator still drains. */
static int pmt_may_run(const v10_engine *e, const void *st, int t, int f)
{
    (void)f;
    const pmt_state *s = st;
    return (s->owner < 0 || t == s->owner) && policy_core_clear_for(e, t);
}

static void pmt_timer(v10_engine *e, void *st)
{
    pmt_state *s = st;
    if (!s->running)
        return; /* a switch is completing; the next slice starts after it */
    int next = next_with_work(e, s->owner);
    if (next >= 0 && next != s->owner)
        give(e, s, next);
    else
        v10_engine_set_timer(e, e->now + slice_of(e, s->owner));
}

static void pmt_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    pmt_state *s = st;
    if (s->owner < 0 || policy_has_work(e, s->owner))
        return;
    /* The owner ran out of requests: give the core to someone who has one. */
    if (k == V10_EV_REQ_DONE || k == V10_EV_ARRIVAL) {
        int next = next_with_work(e, s->owner);
        (void)t;
        give(e, s, next);
    }
}

const v10_policy_ops v10_policy_pmt = {
    .name = "pmt",
    .summary = "temporal: whole core per tenant task, time slices, task context switch",
    .params = "--pmt-slice-us X (1000), --pmt-share equal|priority (priority), "
              "NPU pmt_switch_us (30)",
    .state_size = sizeof(pmt_state),
    .init = pmt_init,
    .pick = pmt_pick,
    .on_timer = pmt_timer,
    .on_event = pmt_event,
    .may_run = pmt_may_run,
};
