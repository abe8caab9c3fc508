/*
 * fu.c — the functional units: offering free FUs to the policy (dispatch),
 * starting and ending operators, context restores and switches, and
 * preemption under the drain and tile models (engine/policy_api.h,
 * v10p_preempt); an FU kept for its tenant's next operator; gangs.
 * Spatial partitions are in partition.c.
 */
#include "engine/engine.h"
#include "engine/attrib.h"

#include <math.h>
#include <string.h>

#include "v10/cost.h"

/* ---- actions ---------------------------------------------------------------- */

/* Adds FU u's time in its current state, up to now, to its executing or
 * switching cycles (and its tenant's active cycles). */
static void fu_clock(v10_engine *e, fu *u)
{
    uint64_t dt = e->now - u->since;
    u->since = e->now;
    if (u->state == V10P_FU_BUSY) {
        u->exec_cycles += dt;
        if (!eng_follower(u)) { /* a gang's operator is active once, not per FU */
            e->tenants[u->tenant].active_cycles += dt;
            e->active_key[u->tenant] += dt << 6; /* the index bits stay */
        }
    } else if (u->state != V10P_FU_FREE) {
        u->switch_cycles += dt;
    }
}

/* FU f leaves context switch state s (SWITCH or RESTORE): the context's
 * tenant leaves attribution's mask of the state unless another FU of the
 * type switches the same context (a gang's FUs end their switches in one
 * event each). */
static void attr_switch_left(v10_engine *e, int f, v10p_fstate s)
{
    const fu *u = &e->fus[f];
    int who = eng_switch_tenant(u, s);
    if (who < 0 || e->attr_off)
        return; /* a hold's switch, in no mask; or no masks */
    for (int g = 0; g < e->n_fus; g++) {
        const fu *v = &e->fus[g];
        if (g != f && v->state == s && v->type == u->type && eng_switch_tenant(v, s) == who)
            return;
    }
    eng_attr_fu_bit(e, s, u->type, who, 0);
}

/* FU f leaves FU_BUSY's lists (tenant ti's operator, demanding `demand`):
 * the busy list, busy_by_type, the slow set, the demands' sum and
 * attribution's mask. */
static void busy_leave(v10_engine *e, int f, int ti, double demand)
{
    const fu *u = &e->fus[f];
    int i = 0;
    while (e->busy[i] != f)
        i++;
    for (e->n_busy--; i < e->n_busy; i++)
        e->busy[i] = e->busy[i + 1];
    e->busy_by_type[u->type]--;
    e->slow_fus[eng_fu_word(f)] &= ~eng_fu_bit(f);
    e->demand_sum = e->n_busy ? e->demand_sum - demand : 0; /* none busy: exact */
    e->demand_moves++;
    eng_attr_fu_bit(e, V10P_FU_BUSY, u->type, ti, 0);
}

/* ---- kept FUs (e->released) -------------------------------------------------------- */

/*
 * An operator that completes frees its FU, and most often the dispatch
 * that follows gives the same FU back to the same tenant's next operator
 * (nobody else waits for the type, or the policy picks it again).
 * fu_release frees FU f as far as anything before the dispatch's end can
 * see: its state, the free set, its clocks, energy and HBM losses up to
 * now; leaving the busy list and the rest of busy_leave is left pending
 * (e->released).  A tenant that takes the FU back (fu_set_state to BUSY
 * with the same tenant) then skips both halves, and any other change of an
 * FU's state first completes the pending one (release_end), as does the
 * dispatch's end: so every count is changed in the order fu_set_state
 * would have changed it, but for the busy list's leaving and rejoining by
 * the same FU, which cancel.  Nothing in between reads what is pending
 * (the loop's update of the rates, attribution and the checks come after
 * the dispatch; eng_fu_event completes it before it snapshots a window).
 */
static void release_end(v10_engine *e)
{
    int f = e->released;
    e->released = -1;
    busy_leave(e, f, e->released_tenant, e->released_demand);
}

/* Tenant released_tenant takes FU f back: the pending half of fu_release
 * and fu_set_state's entry into FU_BUSY, less what cancels (the demands'
 * sum changes as the two would change it). */
static void take_back(v10_engine *e, fu *u, int f)
{
    e->released = -1;
    e->n_free[u->type]--;
    e->free_fus[eng_fu_word(f)] &= ~eng_fu_bit(f);
    e->slow_fus[eng_fu_word(f)] &= ~eng_fu_bit(f); /* its next operator begins at full rate */
    e->demand_sum = (e->n_busy > 1 ? e->demand_sum - e->released_demand : 0) + u->demand;
    e->demand_moves += 2;
    u->state = V10P_FU_BUSY;
    e->attr_dirty |= 1ull << (u->tenant & 63);
}

/* FU f moves to state st: the one place FU states change, so that e->busy
 * stays the ascending list of busy FUs (rates.c and the loop's clock walk
 * it instead of every FU), busy_by_type counts them, n_switching counts
 * the FUs switching or restoring and n_free the free FUs of each type; and
 * the time spent in the state left is added to the FU's executing or
 * switching cycles (and its tenant's active cycles), instead of at every
 * event.  A kept FU (fu_release) is taken back or its release completed
 * first. */
static void fu_set_state(v10_engine *e, int f, v10p_fstate st)
{
    fu *u = &e->fus[f];
    v10p_fstate was = u->state;
    if (was == st)
        return;
    if (e->released >= 0) {
        if (f == e->released && st == V10P_FU_BUSY && u->tenant == e->released_tenant) {
            take_back(e, u, f);
            return;
        }
        release_end(e);
    }
    if (was == V10P_FU_BUSY || st == V10P_FU_BUSY)
        eng_attr_hbm(e); /* the partners' HBM shares while these FUs were busy */
    eng_energy_leave(e, f);
    fu_clock(e, u);
    /* Attribution's masks (eng_attr_fu_bit) are kept in each state's
     * branch (a BUSY FU has a tenant). */
    if (was == V10P_FU_FREE) {
        e->n_free[u->type]--;
        e->free_fus[eng_fu_word(f)] &= ~eng_fu_bit(f);
    } else if (was == V10P_FU_BUSY) {
        busy_leave(e, f, u->tenant, u->demand);
        eng_attr_fu_hbm(e, u); /* its HBM losses up to its stop */
    } else {
        e->n_switching--;
        attr_switch_left(e, f, was);
    }
    if (st == V10P_FU_FREE) {
        e->n_free[u->type]++;
        e->free_fus[eng_fu_word(f)] |= eng_fu_bit(f);
    } else if (st == V10P_FU_BUSY) {
        int i = e->n_busy++;
        for (; i > 0 && e->busy[i - 1] > f; i--)
            e->busy[i] = e->busy[i - 1];
        e->busy[i] = f;
        e->busy_by_type[u->type]++;
        e->demand_sum += u->demand; /* begin_exec sets it first; gang_follow, 0 */
        e->demand_moves++;
        eng_attr_fu_bit(e, V10P_FU_BUSY, u->type, u->tenant, 1);
    } else {
        e->n_switching++;
        eng_attr_fu_bit(e, st, u->type, eng_switch_tenant(u, st), 1);
    }
    u->state = st;
    /* Its tenant's state may change, and the waiting tenants' if the FUs'
     * summary does (eng_attr_refresh); without a tenant (-1), bit 63. */
    e->attr_dirty |= 1ull << (u->tenant & 63);
}

/* FU f's operator has completed: fu_set_state(f, FREE) but for the
 * pending half ("Kept FUs" above). */
static void fu_release(v10_engine *e, int f)
{
    fu *u = &e->fus[f];
    if (e->released >= 0)
        release_end(e);
    eng_attr_hbm(e);
    eng_energy_leave_busy(e, u);
    fu_clock(e, u);
    eng_attr_fu_hbm(e, u);
    e->released = f;
    e->released_tenant = u->tenant;
    e->released_demand = u->demand;
    e->released_dirty = e->attr_dirty & 1ull << u->tenant;
    e->n_free[u->type]++;
    e->free_fus[eng_fu_word(f)] |= eng_fu_bit(f);
    u->state = V10P_FU_FREE;
    e->attr_dirty |= 1ull << (u->tenant & 63);
}

void eng_settle_clocks(v10_engine *e)
{
    for (int f = 0; f < e->n_fus; f++)
        fu_clock(e, &e->fus[f]);
}

/* Cycles to restore the context of a preempted operator on FU u (drain
 * model).  SA: the reinitialization the paper's 384-cycle switch is made of
 * (reload the weights, replay the saved inputs), so the whole switch: with
 * no drain before it, nothing overlaps it.  VU: reload the registers and
 * PC, half of a save-and-restore switch (v10_npu_vu_switch_cycles).  The
 * link engine: none, a collective pauses between two ring steps, its data
 * sent (docs/llm.md, "Several chips"). */
static uint64_t restore_cycles(const v10_engine *e, const fu *u)
{
    return u->type == V10_FU_SA   ? e->npu->sa_switch_cycles
           : u->type == V10_FU_VU ? v10_npu_vu_switch_cycles(e->npu) / 2
                                  : 0;
}

/* Cycles an operator on FU u still executes once preempted (drain model):
 * an SA finishes the inputs already in the array, whose partial sums leave
 * it after crossing its rows (128 cycles on the paper's 128x128 array); a
 * VU and a link engine pause at once. */
static uint64_t drain_cycles(const v10_engine *e, const fu *u)
{
    return u->type == V10_FU_SA ? e->npu->sa_rows : 0;
}

/* ---- gangs (op_mapping "all" and "alloc", engine.h) ------------------------------ */

/*
 * Makes FU f, about to take tenant ti's operator, the leader of a gang of
 * every other free FU of its type that ti may use (v10p_eligible: the
 * policy's may_run and the partitions' owners agree), lowest first, up to
 * one per tile of the operator and ("alloc") up to ti's allocation or
 * ("harvest", "reclaim") up to the larger of it and the free FUs that the other
 * tenants waiting for the type are not owed (their allocations), linked
 * through `next`; call it while ti is still READY.  Whole FUs only: a partition
 * slice (speed < 1) runs its operator alone.  Returns the gang's size.
 */
static int gang_gather(v10_engine *e, int f, int ti)
{
    fu *u = &e->fus[f];
    int k = 1;
    if (e->npu->op_mapping == V10_MAP_ONE || u->speed < 1.0)
        return k;
    const tenant *t = &e->tenants[ti];
    v10_op_mapping map = e->npu->op_mapping;
    int cap = map == V10_MAP_ALL ? e->n_fus : e->alloc_fus[ti][u->type];
    if (map >= V10_MAP_HARVEST) { /* idle engines beyond ti's allocation */
        int spare = e->n_free[u->type];
        for (uint64_t m = e->ready[u->type] & ~(1ull << ti); m; m &= m - 1)
            spare -= e->alloc_fus[__builtin_ctzll(m)][u->type];
        cap = spare > cap ? spare : cap;
    }
    uint32_t tiles = t->model->ops[t->op].tiles; /* an FU with no tile would idle */
    if (tiles < (uint32_t)cap)
        cap = (int)tiles;
    fu *last = u;
    for (int g = 0; g < e->n_fus && k < cap; g++) {
        fu *v = &e->fus[g];
        if (g == f || v->type != u->type || v->state != V10P_FU_FREE || v->speed < 1.0 ||
            !eng_eligible(e, ti, g))
            continue;
        v->lead = f;
        v->tenant = ti;
        v->stopping = 0;
        v->stop_at = 0;
        last->next = g;
        last = v;
        k++;
    }
    return k;
}

int eng_gang_size(const v10_engine *e, const fu *u)
{
    int k = 1;
    for (int g = u->next; g >= 0; g = e->fus[g].next)
        k++;
    return k;
}

/* Every follower of leader u moves to state st with it (a restore or the
 * start of execution): it executes no work of its own (rate 0). */
static void gang_follow(v10_engine *e, const fu *u, v10p_fstate st)
{
    for (int g = u->next; g >= 0; g = e->fus[g].next) {
        fu *v = &e->fus[g];
        if (st == V10P_FU_RESTORE)
            v->switch_tenant = u->switch_tenant; /* before the state: attribution reads it */
        else if (v->state == V10P_FU_RESTORE)
            eng_trace_push(e, V10_TR_SWITCH, v->switch_start, e->now, g, v->tenant, 0);
        v->demand = 0; /* before its state: e->demand_sum adds it */
        fu_set_state(e, g, st);
        v->switch_start = e->now;
        v->seg_start = e->now;
        v->rate_time = e->now;
        v->rate = v->full_rate = v->hbm_rate = v->bytes_per_work = v->slowdown = 0;
        v->act_per_work = 0;
        v->seg_rem0 = 0;
    }
}

/* Leader u's operator (tenant ti) has left it: every follower leaves too,
 * its execution traced, and is free; or (switch_fu's rule) switches its own
 * context for `cycles` if `sw`, as the leader does. */
static void switch_fu(v10_engine *e, fu *u, int f, int ti, uint64_t cycles);
static void gang_release(v10_engine *e, fu *u, int ti, int sw, uint64_t cycles)
{
    for (int g = u->next; g >= 0;) {
        fu *v = &e->fus[g];
        int nx = v->next;
        if (v->state == V10P_FU_BUSY)
            eng_trace_op(e, v->seg_start, e->now, g, ti);
        else
            eng_trace_push(e, V10_TR_SWITCH, v->switch_start, e->now, g, ti, 0);
        fu_set_state(e, g, V10P_FU_FREE);
        v->tenant = v->lead = v->next = -1;
        v->stopping = 0;
        if (sw)
            switch_fu(e, v, g, ti, cycles);
        g = nx;
    }
    u->next = -1;
}

/* A gang's or a partition's full rate for tenant t's operator of `work`
 * cycles on FU u (leader of a gang, or speed < 1). */
static double __attribute__((noinline)) shared_rate(const v10_engine *e, const fu *u,
                                                    const tenant *t, uint64_t work)
{
    const v10_op *op = &t->model->ops[t->op];
    if (u->next >= 0) {
        /* A gang of k: the operator's tiles split over the k engines
         * (v10_cost_split_cycles), never slower than on one. */
        uint64_t split = v10_cost_split_cycles(e->npu, op, t->bytes[t->op],
                                               (uint32_t)eng_gang_size(e, u));
        return split < work ? (double)work / (double)split : 1.0;
    }
    /* A partition computes at `speed`; HBM time is unchanged. */
    double issue = v10_cost_issue_cycles(e->npu, op);
    double mem = (double)work - issue;
    double comp = (double)op->compute_cycles / u->speed;
    double slow = (comp > mem ? comp : mem) + issue;
    return (double)work / slow;
}

/* FU u's rates for tenant t's current operator: its full rate, its HBM
 * bytes per standalone cycle and its demand at the full rate. */
static inline void exec_rates(v10_engine *e, fu *u, const tenant *t)
{
    uint64_t work = t->work[t->op];
    u->full_rate = u->next >= 0 || u->speed < 1.0 ? shared_rate(e, u, t, work) : 1.0;
    if (t->act) { /* computed at set-up (engine.c, ratios): the same values */
        u->bytes_per_work = t->bpw[t->op];
        u->act_per_work = t->act[t->op];
    } else {
        u->bytes_per_work = eng_bytes_per_work(t->bytes[t->op], work);
        u->act_per_work = v10_cost_activity(e->npu, &t->model->ops[t->op], work);
    }
    u->demand = u->bytes_per_work * u->full_rate;
    if (u->demand > e->hbm_bytes_per_cycle) /* rounding: hw/cost.c gives an operator */
        u->demand = e->hbm_bytes_per_cycle; /* at least bytes / bandwidth cycles */
}

/* FU u (f), now FU_BUSY with tenant t's operator, begins its segment at
 * its full rate; eng_update_rates gives it its event. */
static inline void exec_segment(v10_engine *e, fu *u, int f, tenant *t)
{
    eng_mark_started(e, f);
    u->seg_start = e->now;
    u->rate_time = e->now;
    u->rate = u->full_rate;
    u->slowdown = 0;
    u->hbm_rate = u->rate * u->bytes_per_work;
    u->seg_rem0 = t->remaining;
    t->saved = 0;
    e->rates_dirty = 1;
}

/* Tenant ti's operator starts executing on FU u, which it holds (with its
 * gang's followers, if any). */
static void begin_exec(v10_engine *e, fu *u, int ti)
{
    tenant *t = &e->tenants[ti];
    int f = (int)(u - e->fus);
    exec_rates(e, u, t);
    fu_set_state(e, f, V10P_FU_BUSY);
    exec_segment(e, u, f, t);
    gang_follow(e, u, V10P_FU_BUSY);
}

/* FU u (f) holds tenant ti's next operator, which is RUNNING from now
 * (start_op, take_back_op). */
static inline void hold_op(v10_engine *e, fu *u, int f, int ti)
{
    u->tenant = ti;
    u->stopping = 0;
    u->stop_at = 0;
    e->attr_preempted &= ~(1ull << ti);
    eng_set_state(e, ti, V10P_RUNNING);
    e->tenants[ti].fu = f;
}

/* Tenant ti takes FU u (f) back for its next operator (kept FUs): start_op
 * and begin_exec in that case.  Its last operator completed on the FU, so
 * no context was saved and the FU was never idle (nothing to restore or
 * wake), and with one FU an operator (op_mapping "one") no gang forms. */
static inline void take_back_op(v10_engine *e, fu *u, int f, int ti)
{
    tenant *t = &e->tenants[ti];
    V10_ASSERT(!t->saved && t->remaining <= 0);
    t->remaining = (double)t->work[t->op];
    hold_op(e, u, f, ti);
    u->covered = 0;
    exec_rates(e, u, t);
    take_back(e, u, f);
    exec_segment(e, u, f, t);
    /* What attribution reads of the tenant is as it was before its
     * operator ended (executing on an FU of this type, not preempted, the
     * FU busy); with per-operator counters its operator is not. */
    if (!t->op_attr)
        e->attr_dirty = (e->attr_dirty & ~(1ull << ti)) | e->released_dirty;
}

/* Gives FU f to tenant ti's next operator: it executes now, or after its
 * context restore if it was preempted mid-way and no switch on f has
 * restored it. */
static void start_op(v10_engine *e, int f, int ti)
{
    fu *u = &e->fus[f];
    tenant *t = &e->tenants[ti];
    if (t->remaining <= 0)
        t->remaining = (double)t->work[t->op];
    gang_gather(e, f, ti);
    hold_op(e, u, f, ti);
    /* A gang waits for its slowest FU's restore and wake-up. */
    uint64_t restore = 0;
    for (int g = f; g >= 0; g = e->fus[g].next) {
        fu *v = &e->fus[g];
        uint64_t r = t->saved && !v->covered ? restore_cycles(e, v) : 0;
        r += eng_energy_wake_cycles(e, g); /* a gated FU wakes up first */
        v->covered = 0;
        restore = r > restore ? r : restore;
    }
    if (restore) {
        u->switch_tenant = ti;
        fu_set_state(e, f, V10P_FU_RESTORE);
        u->switch_start = e->now;
        gang_follow(e, u, V10P_FU_RESTORE);
        v10_evq_set(&e->evq, f, e->now + restore);
        return;
    }
    begin_exec(e, u, ti);
}

/* Tile model: stop the operator on FU u at its next tile boundary; 0 if
 * that boundary is its end. */
static int stop_at_tile(v10_engine *e, fu *u, uint64_t switch_cycles)
{
    tenant *t = &e->tenants[u->tenant];
    double W = (double)t->work[t->op];
    double T = (double)t->model->ops[t->op].tiles;
    double done = W - t->remaining;
    /* Tile boundaries are floor(k*W/T); stop at the first one >= done. */
    double k = ceil(done * T / W - 1e-12);
    double b = floor(k * W / T);
    while (b < done - 1e-9)
        b = floor(++k * W / T);
    if (b >= W - 1e-9)
        return 0; /* the operator finishes at its next boundary anyway */
    u->stop_at = W - b;
    u->stop_time = UINT64_MAX;
    u->switch_cost = switch_cycles;
    return 1;
}

/* Drain model: the operator on FU u executes for its drain, then stops
 * (or completes first).  The switch overlaps the drain by the NPU's
 * sa_switch_overlap_cycles (at most the drain): its other cycles are lost
 * after the stop, so the FU is free drain + switch_cycles - overlap cycles
 * after now (switch_cycles after now under the paper's reading, overlap =
 * drain = 128; drain + switch_cycles with no overlap). */
static void stop_after_drain(v10_engine *e, fu *u, uint64_t switch_cycles)
{
    uint64_t drain = drain_cycles(e, u);
    uint64_t overlap = e->npu->sa_switch_overlap_cycles < drain ? e->npu->sa_switch_overlap_cycles
                                                                : drain;
    u->stop_time = e->now + drain;
    u->switch_cost = switch_cycles > overlap ? switch_cycles - overlap : 0;
}

int v10p_preempt(v10_engine *e, int f, uint64_t switch_cycles)
{
    if (eng_follower(&e->fus[f]))
        f = e->fus[f].lead; /* a gang stops as one */
    fu *u = &e->fus[f];
    if (u->tenant < 0 || u->stopping)
        return 0;
    if (u->state == V10P_FU_RESTORE) {
        /* Nothing has executed: give the FU up now (at this cycle's event). */
        u->stop_time = e->now;
        u->switch_cost = switch_cycles;
    } else if (e->cfg->preempt == V10_PREEMPT_DRAIN) {
        eng_sync_fu(e, u);
        stop_after_drain(e, u, switch_cycles);
    } else {
        eng_sync_fu(e, u);
        if (!stop_at_tile(e, u, switch_cycles))
            return 0;
    }
    u->stopping = 1;
    v10_evq_set(&e->evq, f, u->state == V10P_FU_RESTORE ? e->now : e->now + eng_time_to_stop(e, u));
    return 1;
}

void v10p_hold(v10_engine *e, int f, uint64_t cycles)
{
    fu *u = &e->fus[f];
    V10_ASSERT(u->state == V10P_FU_FREE);
    if (!cycles) {
        u->covered = 1;
        return;
    }
    u->switch_tenant = -1; /* before the state: attribution reads it */
    fu_set_state(e, f, V10P_FU_SWITCH);
    u->switch_start = e->now;
    v10_evq_set(&e->evq, f, e->now + cycles);
}

void v10p_set_timer(v10_engine *e, uint64_t at)
{
    V10_ASSERT(at >= e->now);
    v10_evq_set(&e->evq, eng_slot_timer(e), at);
}

void v10p_count_switch(v10_engine *e) { e->context_switches++; }

void v10p_move_context(v10_engine *e, double bytes) { e->en.switch_bytes += bytes; }

/* FU u (f), just left by tenant ti's operator, switches its context for
 * `cycles` (the FU is covered at once if that is 0). */
static void switch_fu(v10_engine *e, fu *u, int f, int ti, uint64_t cycles)
{
    if (!cycles) {
        u->covered = 1;
        return;
    }
    u->switch_tenant = ti; /* before the state: attribution reads it */
    fu_set_state(e, f, V10P_FU_SWITCH);
    u->switch_start = e->now;
    v10_evq_set(&e->evq, f, e->now + cycles);
}

/* Tenant ti's operator has left FU u (f) on a preemption: the tenant is
 * READY again, and the FU switches its context. */
static void preempted(v10_engine *e, fu *u, int f, int ti)
{
    tenant *t = &e->tenants[ti];
    e->attr_preempted |= 1ull << ti;
    eng_set_state(e, ti, V10P_READY);
    t->saved = e->cfg->preempt == V10_PREEMPT_DRAIN;
    t->preemptions++;
    e->preemptions++;
    eng_trace_push(e, V10_TR_PREEMPT, e->now, e->now, f, ti, (uint32_t)t->op);
    switch_fu(e, u, f, ti, u->switch_cost);
    eng_notify(e, V10_EV_PREEMPTED, ti);
}

/* Tenant ti's request is complete (its last operator has left its FU):
 * its latency, its count, and (closed loop) its next request. */
static void request_done(v10_engine *e, tenant *t, int ti)
{
    uint64_t r = t->cur_req++;
    uint64_t arrived = t->pend[r & (t->pend_cap - 1)];
    V10_ASSERT(e->now >= arrived);
    t->completed++;
    t->op = 0;
    t->req_done_work = 0;
    if (e->window_started)
        eng_log_latency(e, t, ti, e->now - arrived);
    eng_trace_push(e, V10_TR_REQUEST, arrived, e->now, -1, ti, (uint32_t)r);
    if (t->completed == t->n_requests) {
        t->finish_cycle = e->now;
        e->n_done++;
    }
    eng_set_state(e, ti, t->cur_req < t->issued ? V10P_READY : V10P_IDLE);
    if (t->rate_per_cycle == 0)
        eng_issue(e, ti); /* closed loop: the client sends its next request */
    eng_notify(e, V10_EV_REQ_DONE, ti);
    if (!e->window_started && e->released >= 0) /* the window's snapshot reads it */
        release_end(e);
    eng_check_window(e);
}

/* Tenant ti's operator has left FU u: its next one, or the end of its
 * request (or of an LLM server's iteration). */
static inline void next_op(v10_engine *e, tenant *t, int ti)
{
    t->remaining = 0;
    t->op++;
    if (t->op < t->model->n_ops) {
        eng_set_state(e, ti, V10P_READY);
        eng_notify(e, V10_EV_OP_DONE, ti);
    } else if (t->llm) { /* an LLM server's iteration is complete */
        if (e->released >= 0) /* it does not read a kept FU's pending half */
            release_end(e);
        eng_llm_iter_done(e, ti);
    } else {
        request_done(e, t, ti);
    }
}

/* The operator on FU f (no gang) reached its end with no stop pending, the
 * event most runs are made of: the rest of eng_fu_event in that case
 * (its stop point stop_at is 0: the whole work). */
static inline void op_done(v10_engine *e, fu *u, int f)
{
    int ti = u->tenant;
    tenant *t = &e->tenants[ti];
    eng_credit(u, t, u->seg_rem0);
    eng_trace_op(e, u->seg_start, e->now, f, ti);
    fu_release(e, f); /* its tenant may take it back (kept FUs) */
    u->tenant = -1;
    t->fu = -1;
    e->rates_dirty = 1;
    next_op(e, t, ti);
}

void eng_fu_event(v10_engine *e, int f)
{
    fu *u = &e->fus[f];
    if (u->state == V10P_FU_BUSY && !u->stopping && u->next < 0) {
        op_done(e, u, f);
        return;
    }
    if (u->state == V10P_FU_SWITCH) {
        eng_trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, u->switch_tenant, 0);
        e->defer_dispatch = eng_switch_ends_with_others(e, u, f);
        fu_set_state(e, f, V10P_FU_FREE);
        u->covered = 1;
        return;
    }
    int ti = u->tenant;
    tenant *t = &e->tenants[ti];
    if (u->state == V10P_FU_RESTORE) {
        eng_trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, ti, 0);
        if (!u->stopping) {
            begin_exec(e, u, ti);
            return;
        }
        /* Preempted while restoring: nothing executed, the context stays saved. */
        gang_release(e, u, ti, 1, u->switch_cost);
        fu_set_state(e, f, V10P_FU_FREE);
        u->tenant = -1;
        u->stopping = 0;
        t->fu = -1;
        preempted(e, u, f, ti);
        return;
    }
    V10_ASSERT(u->state == V10P_FU_BUSY);
    /* The stop point is reached exactly, unless a drain ended first. */
    double rem = u->stop_at;
    if (u->stopping && e->now >= u->stop_time) {
        rem = eng_rem_now(e, u);
        if (rem < 1e-6)
            rem = 0; /* the operator finished as its drain ended */
    }
    int stop = u->stopping && rem > 0, finished_in_drain = u->stopping && !stop;
    if (u->next >= 0) /* its followers switch as it will */
        gang_release(e, u, ti, u->stopping,
                     u->stopping && !stop ? u->stop_time + u->switch_cost - e->now
                                          : u->switch_cost);
    t->remaining = rem;
    eng_credit(u, t, u->seg_rem0 - rem);
    eng_trace_op(e, u->seg_start, e->now, f, ti);
    fu_set_state(e, f, V10P_FU_FREE);
    u->tenant = -1;
    u->stopping = 0;
    u->stop_at = 0;
    t->fu = -1;
    e->rates_dirty = 1;
    if (stop) {
        preempted(e, u, f, ti);
        return;
    }
    if (finished_in_drain) /* the switch still ends when it would have */
        switch_fu(e, u, f, ti, u->stop_time + u->switch_cost - e->now);
    next_op(e, t, ti);
}

/* Word w of the free FUs of a type some tenant is ready for (e->free_fus,
 * e->type_fus). */
static uint64_t wanted_free(const v10_engine *e, unsigned w)
{
    uint64_t sa = e->ready[V10_FU_SA] ? e->type_fus[V10_FU_SA][w] : 0;
    uint64_t vu = e->ready[V10_FU_VU] ? e->type_fus[V10_FU_VU][w] : 0;
    uint64_t ici = e->ready[V10_FU_ICI] ? e->type_fus[V10_FU_ICI][w] : 0;
    return e->free_fus[w] & (sa | vu | ici);
}

/* The lowest free FU numbered from f up of a type some tenant is ready
 * for, or -1. */
static int next_free(const v10_engine *e, int f)
{
    if (f >= e->n_fus)
        return -1;
    unsigned w = eng_fu_word(f);
    uint64_t m = wanted_free(e, w) & -eng_fu_bit(f); /* the bits from f's up */
    while (!m) {
        if (++w * 64 >= (unsigned)e->n_fus)
            return -1;
        m = wanted_free(e, w);
    }
    return (int)(w * 64 + (unsigned)__builtin_ctzll(m));
}

/* FU f goes to tenant ti's next operator (start_op), or back to it
 * (take_back_op). */
static inline void give(v10_engine *e, int f, int ti)
{
    if (f == e->released && ti == e->released_tenant && e->npu->op_mapping == V10_MAP_ONE)
        take_back_op(e, &e->fus[f], f, ti);
    else
        start_op(e, f, ti);
}

/*
 * The dispatch when the FU released this event (e->released, kept FUs) is
 * the only free FU of a type some tenant is ready for, as after most
 * operators: eng_dispatch's walk would offer it alone.  Returns 0, doing
 * nothing, when that is not so.
 */
static int dispatch_kept(v10_engine *e)
{
    int f = e->released;
    unsigned w0 = eng_fu_word(f);
    for (unsigned w = 0; w * 64 < (unsigned)e->n_fus; w++)
        if (wanted_free(e, w) != (w == w0 ? eng_fu_bit(f) : 0))
            return 0;
    uint64_t elig = eng_eligible_mask(e, f);
    int pick = elig ? e->policy->pick(e, e->pstate, f, elig) : -1;
    if (pick >= 0) {
        V10_ASSERT(elig >> pick & 1); /* one of the candidates */
        give(e, f, pick);
    }
    if (e->released >= 0) /* kept free */
        release_end(e);
    return 1;
}

/*
 * Offers every free FU to the policy, in FU order, with the tenants whose
 * next operator needs that FU type (filtered per FU for partitions and
 * vetoes).  A tenant picked for one FU is no longer a candidate.  No FU
 * becomes free meanwhile (picks only choose; an FU a gang takes leaves
 * the free set), so the walk visits, through the free set, exactly the
 * FUs still free when it reaches them, without reading the others (a
 * third of dispatch's instructions with 16 tenants on four SAs and VUs),
 * and of those only the ones of a type some tenant is still ready for.
 */
void eng_dispatch(v10_engine *e)
{
    if (e->released >= 0 && dispatch_kept(e))
        return;
    if (!(e->ready[V10_FU_SA] && e->n_free[V10_FU_SA]) &&
        !(e->ready[V10_FU_VU] && e->n_free[V10_FU_VU]) &&
        !(e->ready[V10_FU_ICI] && e->n_free[V10_FU_ICI])) {
        if (e->released >= 0) /* nobody takes it back */
            release_end(e);
        return; /* nobody waits for a type with a free FU */
    }
    int idle[V10_FU_TYPES] = {0}; /* an unowned FU of the type was left idle */
    /* Every chip simulated: the first FU past f's chip, whose own idle FUs
     * say nothing of another chip's. */
    int chip_end = e->n_chips > 1 ? e->fus_per_chip : e->max_fus;
    for (int f = next_free(e, 0); f >= 0; f = next_free(e, f + 1)) {
        fu *u = &e->fus[f];
        int ty = (int)u->type; /* some tenant is ready for it (next_free) */
        if (f >= chip_end) {
            chip_end = (f / e->fus_per_chip + 1) * e->fus_per_chip;
            memset(idle, 0, sizeof idle);
        }
        if (u->owner < 0 && idle[ty])
            continue;
        uint64_t elig = eng_eligible_mask(e, f);
        int pick = elig ? e->policy->pick(e, e->pstate, f, elig) : -1;
        if (pick < 0) {
            idle[ty] |= u->owner < 0;
            continue;
        }
        V10_ASSERT(elig >> pick & 1); /* one of the candidates */
        give(e, f, pick);
        memset(idle, 0, sizeof idle);
    }
    if (e->released >= 0) /* kept free */
        release_end(e);
}
