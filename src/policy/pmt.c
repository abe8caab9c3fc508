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
 * of the owner's slice, unless `asleep`; before (no owner yet, or a switch
 * completing) a firing timer is a stale one and is ignored.  A slice that
 * ends with no other tenant waiting changes nothing but the next slice's
 * end, and so does every one after it until one does: the timer sleeps
 * (asleep, from the end `tick`) and the first tenant to arrive re-arms it
 * for the end the owner's slices would have reached then (pmt_event). */
typedef struct pmt_state {
    int owner;     /* tenant owning the core, -1 none (first: policy_owner_may_run) */
    int running;   /* the owner's slice has started */
    int asleep;    /* no timer armed: nobody else waited at `tick` */
    uint64_t tick; /* when asleep: the end of the owner's last slice that ticked */
} pmt_state;
_Static_assert(offsetof(pmt_state, owner) == 0, "policy_owner_may_run reads the owner first");

static uint64_t slice_of(const v10_engine *e, int t)
{
    uint64_t base = policy_pmt_slice_cycles(e);
    if (!v10p_params(e)->pmt_share_priority)
        return base;
    double mean = 0;
    int nt = v10p_n_tenants(e);
    for (int i = 0; i < nt; i++)
        mean += v10p_priority(e, i) / nt;
    double s = (double)base * v10p_priority(e, t) / mean;
    return s < 1 ? 1 : (uint64_t)s;
}

/* The next tenant after `from` (round robin) with a request, or -1. */
static int next_with_work(const v10_engine *e, int from)
{
    int nt = v10p_n_tenants(e);
    for (int k = 1; k <= nt; k++) {
        int i = (from + k + nt) % nt;
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
        policy_core_switch(e, v10_npu_pmt_switch_cycles(v10p_npu(e)));
    s->owner = to;
    s->running = 0;
}

static int pmt_init(v10_engine *e, void *st, v10_err *err)
{
    (void)e, (void)err;
    ((pmt_state *)st)->owner = -1;
    return 0;
}

static int pmt_pick(v10_engine *e, void *st, int f, uint64_t cand)
{
    (void)f;
    pmt_state *s = st;
    if (s->owner < 0)
        s->owner = __builtin_ctzll(cand); /* the lowest */
    int pick = policy_pick_owner(s->owner, cand);
    if (pick >= 0 && !s->running) {
        s->running = 1;
        v10p_set_timer(e, v10p_now(e) + slice_of(e, s->owner));
    }
    return pick;
}

static void pmt_timer(v10_engine *e, void *st)
{
    pmt_state *s = st;
    if (!s->running)
        return; /* a switch is completing; the next slice starts after it */
    int next = next_with_work(e, s->owner);
    if (next >= 0 && next != s->owner) {
        give(e, s, next);
    } else { /* nobody else waits: sleep until someone does */
        s->asleep = 1;
        s->tick = v10p_now(e);
    }
}

static void pmt_event(v10_engine *e, void *st, v10_ev_kind k, int t)
{
    pmt_state *s = st;
    if (s->asleep && k == V10_EV_ARRIVAL && t != s->owner) {
        /* The owner's slices have kept ending every `len` cycles since
         * `tick`: the timer is armed for the first end after `tick` from
         * now on (now itself if one ends now: it runs after this event,
         * with the arrival's tenant waiting). */
        uint64_t len = slice_of(e, s->owner), now = v10p_now(e);
        uint64_t ends = (now - s->tick + len - 1) / len;
        s->asleep = 0;
        v10p_set_timer(e, s->tick + (ends ? ends : 1) * len);
    }
    if (s->owner < 0 || policy_has_work(e, s->owner))
        return;
    /* The owner ran out of requests: give the core to someone who has one. */
    if (k == V10_EV_REQ_DONE || k == V10_EV_ARRIVAL) {
        int next = next_with_work(e, s->owner);
        (void)t;
        give(e, s, next);
    }
}

/* The slice is PREMA's quantum too (prema.slice_us). */
static const v10_param_def pmt_params[] = {
    POLICY_PMT_SLICE_PARAM("pmt.slice_us", "time slice, us (1 ms keeps a 30 us task switch "
                                           "near 3%; PREMA's quantum too)"),
    {.name = "pmt.share", .key = "pmt_share", .type = V10_PARAM_CHOICE,
     .offset = offsetof(v10_policy_params, pmt_share_priority), .def = 1, .min = 0, .max = 1,
     .choices = "equal|priority", .help = "slices equal, or proportional to priority"},
};

const v10_policy_ops v10_policy_pmt = {
    .name = "pmt",
    .summary = "temporal: whole core per tenant task, time slices, task context switch",
    .V10P_PARAMS(pmt_params),
    .state_size = sizeof(pmt_state),
    .init = pmt_init,
    .pick = pmt_pick,
    .on_timer = pmt_timer,
    .on_event = pmt_event,
    .may_run = policy_owner_may_run, /* no tenant starts while another's operator drains */
};
