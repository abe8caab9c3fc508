/*
 * engine.c — the discrete-event engine (DESIGN §4).
 *
 * Every pending event belongs to one slot: an FU (its operator reaches its
 * stop point, or its context switch or restore ends), a tenant (its next Poisson
 * arrival) or the policy's timer.  Slots live in an indexed min-heap keyed
 * by (time, sequence), so rescheduling an FU after a rate change moves its
 * one entry instead of leaving stale events behind, and the run loop never
 * allocates.
 *
 * Contention: a running operator demands HBM bandwidth at bytes/work per
 * standalone cycle; when demands exceed the HBM, bandwidth is shared
 * max-min fairly and each operator's rate (standalone cycles of progress
 * per cycle) falls in proportion to the bandwidth it is granted.
 */
#include "engine/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenant/horizon.h"
#include "v10/cost.h"
#include "v10/pool.h"

/* ---- indexed event heap ------------------------------------------------ */

struct evheap {
    int *heap;          /* slots, heap-ordered */
    int *pos;           /* slot -> index in heap, or -1 */
    uint64_t *time, *seq;
    int n, cap;
    uint64_t next_seq;
};

static int ev_less(const struct evheap *h, int a, int b)
{
    return h->time[a] < h->time[b] || (h->time[a] == h->time[b] && h->seq[a] < h->seq[b]);
}

static void ev_swap(struct evheap *h, int i, int j)
{
    int a = h->heap[i], b = h->heap[j];
    h->heap[i] = b;
    h->heap[j] = a;
    h->pos[b] = i;
    h->pos[a] = j;
}

static void ev_sift(struct evheap *h, int i)
{
    while (i > 0 && ev_less(h, h->heap[i], h->heap[(i - 1) / 2])) {
        ev_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && ev_less(h, h->heap[l], h->heap[m]))
            m = l;
        if (r < h->n && ev_less(h, h->heap[r], h->heap[m]))
            m = r;
        if (m == i)
            return;
        ev_swap(h, i, m);
        i = m;
    }
}

/* Schedules (or moves) the event of `slot` to time t. */
static void ev_set(struct evheap *h, int slot, uint64_t t)
{
    h->time[slot] = t;
    h->seq[slot] = h->next_seq++;
    if (h->pos[slot] < 0) {
        V10_ASSERT(h->n < h->cap);
        h->heap[h->n] = slot;
        h->pos[slot] = h->n++;
    }
    ev_sift(h, h->pos[slot]);
}

static void ev_cancel(struct evheap *h, int slot)
{
    int i = h->pos[slot];
    if (i < 0)
        return;
    ev_swap(h, i, h->n - 1);
    h->n--;
    h->pos[slot] = -1;
    if (i < h->n)
        ev_sift(h, i);
}

static int ev_pop(struct evheap *h)
{
    if (h->n == 0)
        return -1;
    int s = h->heap[0];
    ev_cancel(h, s);
    return s;
}

/* ---- helpers ------------------------------------------------------------ */

static int slot_tenant(const v10_engine *e, int t) { return e->max_fus + t; }
static int slot_timer(const v10_engine *e) { return e->max_fus + e->n_tenants; }

static void trace_push(v10_engine *e, v10_trace_kind k, uint64_t start, uint64_t end, int f,
                       int t, uint32_t op)
{
    v10_trace *tr = e->cfg->trace;
    if (!tr || tr->oom)
        return;
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 4096;
        v10_trace_rec *r = realloc(tr->recs, cap * sizeof *r);
        if (!r) {
            tr->oom = 1;
            return;
        }
        tr->recs = r;
        tr->cap = cap;
    }
    tr->recs[tr->n++] = (v10_trace_rec){start, end, f, t, op, (uint8_t)k};
}

/* Remaining work of the operator on busy FU f at the current time. */
static double rem_now(const v10_engine *e, const fu *u)
{
    const tenant *t = &e->tenants[u->tenant];
    double r = t->remaining - u->rate * (double)(e->now - u->rate_time);
    return r < u->stop_at ? u->stop_at : r;
}

static void sync_fu(v10_engine *e, fu *u)
{
    tenant *t = &e->tenants[u->tenant];
    t->remaining = rem_now(e, u);
    u->rate_time = e->now;
}

/* Cycles until FU u reaches its stop point at its current rate: the end
 * of its work (or of its tile, stop_at), or the end of a drain. */
static inline uint64_t time_to_stop(const v10_engine *e, const fu *u)
{
    double left = e->tenants[u->tenant].remaining - u->stop_at;
    uint64_t c = 0;
    if (left > 1e-9) {
        double x = ceil(left / u->rate - 1e-9);
        c = x < 1 ? 1 : (uint64_t)x;
    }
    if (u->stopping && u->stop_time - e->now < c)
        c = u->stop_time - e->now;
    return c;
}

double v10_engine_score(const v10_engine *e, int ti)
{
    const tenant *t = &e->tenants[ti];
    uint64_t total = e->now - t->arrive_cycle;
    double rate = total ? (double)t->active_cycles / (double)total : 0.0;
    return rate / t->priority;
}

int v10_engine_eligible(const v10_engine *e, int ti, int f)
{
    const tenant *t = &e->tenants[ti];
    const fu *u = &e->fus[f];
    if (t->state != T_READY || (int)t->fu_of[t->op] != (int)u->type)
        return 0;
    if (u->owner >= 0 && u->owner != ti)
        return 0;
    if (e->policy->may_run && !e->policy->may_run(e, e->pstate, ti, f))
        return 0;
    return 1;
}

/* ---- rates ---------------------------------------------------------------- */

/*
 * Recomputes every running operator's rate: max-min fair shares of the HBM
 * bandwidth over the operators' demands (water-filling), or full rate with
 * contention off; then moves each busy FU's event to its new stop time.
 */
static void update_rates(v10_engine *e)
{
    int idx[V10_MAX_FUS], n = 0;
    double rate[V10_MAX_FUS];
    for (int f = 0; f < e->n_fus; f++)
        if (e->fus[f].state == FU_BUSY)
            idx[n++] = f;
    double total = 0;
    for (int i = 0; i < n; i++)
        total += e->fus[idx[i]].demand;
    if (!e->cfg->contention || total <= e->hbm_bytes_per_cycle) {
        for (int i = 0; i < n; i++) {
            rate[i] = e->fus[idx[i]].full_rate;
            e->fus[idx[i]].alloc = e->fus[idx[i]].demand;
        }
    } else {
        /* Max-min fair shares of the bandwidth (water-filling). */
        double left = e->hbm_bytes_per_cycle;
        int unsat = n;
        for (int i = 0; i < n; i++)
            e->fus[idx[i]].alloc = -1;
        while (unsat > 0) {
            double share = left / unsat;
            int progressed = 0;
            for (int i = 0; i < n; i++) {
                fu *u = &e->fus[idx[i]];
                if (u->alloc < 0 && u->demand <= share) {
                    u->alloc = u->demand;
                    left -= u->demand;
                    unsat--;
                    progressed = 1;
                }
            }
            if (!progressed) {
                for (int i = 0; i < n; i++)
                    if (e->fus[idx[i]].alloc < 0)
                        e->fus[idx[i]].alloc = share;
                break;
            }
        }
        for (int i = 0; i < n; i++) {
            const fu *u = &e->fus[idx[i]];
            double r = u->demand > 0 ? u->full_rate * (u->alloc / u->demand) : u->full_rate;
            rate[i] = r > u->full_rate ? u->full_rate : r;
        }
    }
    /* Only operators whose rate changed (or that just started) move. */
    for (int i = 0; i < n; i++) {
        fu *u = &e->fus[idx[i]];
        if (e->heap->pos[idx[i]] >= 0 && rate[i] == u->rate)
            continue;
        sync_fu(e, u);
        u->rate = rate[i];
        ev_set(e->heap, idx[i], e->now + time_to_stop(e, u));
    }
    e->rates_dirty = 0;
}

/* ---- actions ---------------------------------------------------------------- */

/* Cycles to restore the context of a preempted operator on FU u (drain
 * model).  SA: the reinitialization the paper's 384-cycle switch is made of
 * (reload the weights, replay the saved inputs; V10, ISCA 2023: the 128
 * cycles of preemption overlap the 384 of reinitialization), so the whole
 * switch.  VU: reload the registers, half of a save-and-restore switch. */
static uint64_t restore_cycles(const v10_engine *e, const fu *u)
{
    return u->type == V10_FU_SA ? e->npu->sa_switch_cycles : e->npu->vu_switch_cycles / 2;
}

/* Cycles an operator on FU u still executes once preempted (drain model):
 * an SA finishes the inputs already in the array, whose partial sums leave
 * it after crossing its rows (128 cycles on the paper's 128x128 array); a
 * VU pauses at once. */
static uint64_t drain_cycles(const v10_engine *e, const fu *u)
{
    return u->type == V10_FU_SA ? e->npu->sa_rows : 0;
}

/* Tenant ti's operator starts executing on FU u, which it holds. */
static void begin_exec(v10_engine *e, fu *u, int ti)
{
    tenant *t = &e->tenants[ti];
    const v10_op *op = &t->model->ops[t->op];
    uint64_t work = t->work[t->op];
    u->full_rate = 1.0;
    if (u->speed < 1.0) {
        /* A partition computes at `speed`; HBM time is unchanged. */
        double mem = (double)work - (double)e->npu->issue_cycles;
        double comp = (double)op->compute_cycles / u->speed;
        double slow = (comp > mem ? comp : mem) + (double)e->npu->issue_cycles;
        u->full_rate = (double)work / slow;
    }
    u->bytes_per_work = (double)t->bytes[t->op] / (double)work;
    u->demand = u->bytes_per_work * u->full_rate;
    u->state = FU_BUSY;
    u->seg_start = e->now;
    u->rate_time = e->now;
    u->rate = u->full_rate;
    u->seg_rem0 = t->remaining;
    t->saved = 0;
    e->busy_by_type[u->type]++;
    e->rates_dirty = 1;
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
    u->tenant = ti;
    u->stopping = 0;
    u->stop_at = 0;
    t->state = T_RUNNING;
    t->fu = f;
    uint64_t restore = t->saved && !u->covered ? restore_cycles(e, u) : 0;
    u->covered = 0;
    if (restore) {
        u->state = FU_RESTORE;
        u->switch_start = e->now;
        u->switch_tenant = ti;
        ev_set(e->heap, f, e->now + restore);
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
 * (or completes first); either way the switch ends switch_cycles after now. */
static void stop_after_drain(v10_engine *e, fu *u, uint64_t switch_cycles)
{
    uint64_t drain = drain_cycles(e, u);
    u->stop_time = e->now + drain;
    u->switch_cost = switch_cycles > drain ? switch_cycles - drain : 0;
}

int v10_engine_preempt(v10_engine *e, int f, uint64_t switch_cycles)
{
    fu *u = &e->fus[f];
    if (u->tenant < 0 || u->stopping)
        return 0;
    if (u->state == FU_RESTORE) {
        /* Nothing has executed: give the FU up now (at this cycle's event). */
        u->stop_time = e->now;
        u->switch_cost = switch_cycles;
    } else if (e->cfg->preempt == V10_PREEMPT_DRAIN) {
        sync_fu(e, u);
        stop_after_drain(e, u, switch_cycles);
    } else {
        sync_fu(e, u);
        if (!stop_at_tile(e, u, switch_cycles))
            return 0;
    }
    u->stopping = 1;
    ev_set(e->heap, f, u->state == FU_RESTORE ? e->now : e->now + time_to_stop(e, u));
    return 1;
}

void v10_engine_hold(v10_engine *e, int f, uint64_t cycles)
{
    fu *u = &e->fus[f];
    V10_ASSERT(u->state == FU_FREE);
    if (!cycles) {
        u->covered = 1;
        return;
    }
    u->state = FU_SWITCH;
    u->switch_start = e->now;
    u->switch_tenant = -1;
    ev_set(e->heap, f, e->now + cycles);
}

void v10_engine_set_timer(v10_engine *e, uint64_t at)
{
    V10_ASSERT(at >= e->now);
    ev_set(e->heap, slot_timer(e), at);
}

void v10_engine_count_switch(v10_engine *e) { e->context_switches++; }

static void notify(v10_engine *e, v10_ev_kind k, int t)
{
    if (e->policy->on_event)
        e->policy->on_event(e, e->pstate, k, t);
}

/* ---- arrivals ------------------------------------------------------------------ */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t interarrival(tenant *t)
{
    double u = (double)(xoshiro(t->rng) >> 11) * 0x1.0p-53;
    double c = -log1p(-u) / t->rate_per_cycle;
    return c < 1.8e19 ? (uint64_t)llround(c) : UINT64_MAX / 4;
}

/* Doubles a tenant's ring of pending requests, keeping each at its index. */
static int grow_pending(v10_engine *e, tenant *t)
{
    uint64_t cap = t->pend_cap * 2;
    uint64_t *p = malloc(cap * sizeof *p);
    if (!p) {
        e->oom = 1;
        return -1;
    }
    for (uint64_t r = t->cur_req; r < t->issued; r++)
        p[r & (cap - 1)] = t->pend[r & (t->pend_cap - 1)];
    free(t->pend);
    t->pend = p;
    t->pend_cap = cap;
    return 0;
}

/* A request of tenant ti arrives now. */
static void issue(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    if (t->issued - t->cur_req == t->pend_cap) {
        if (t->pend_cap >= V10_MAX_BACKLOG) {
            e->backlog = ti + 1;
            return;
        }
        if (grow_pending(e, t))
            return;
    }
    if (t->issued == 0)
        t->arrive_cycle = e->now; /* V10's total cycles count from here */
    t->pend[t->issued++ & (t->pend_cap - 1)] = e->now;
    if (t->state == T_IDLE) {
        V10_ASSERT(t->cur_req == t->issued - 1);
        t->state = T_READY;
        t->op = 0;
        t->remaining = 0;
    }
    notify(e, V10_EV_ARRIVAL, ti);
}

/* Records a latency measured in the window. */
static void log_latency(v10_engine *e, tenant *t, int ti, uint64_t cycles)
{
    v10_hist_add(&t->lat, cycles);
    double slo = e->cfg->tenants[ti].slo_us;
    t->slo_ok += slo > 0 && v10_npu_cycles_to_us(e->npu, (double)cycles) <= slo;
}

/* ---- measurement window ------------------------------------------------------ */

static void snapshot(const v10_engine *e, v10_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->time = e->now;
    s->overlap = (double)e->overlap_cycles;
    s->hbm_bytes = e->hbm_bytes_moved;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        double exec = (double)u->exec_cycles * u->speed;
        double macs = u->macs;
        if (u->state == FU_BUSY) {
            const tenant *t = &e->tenants[u->tenant];
            macs += t->macs[t->op] * (u->seg_rem0 - rem_now(e, u)) / (double)t->work[t->op];
        }
        s->busy[u->type] += exec;
        s->macs += macs;
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        double part = t->req_done_work; /* includes earlier segments of this op */
        if (t->state == T_RUNNING && e->fus[t->fu].state == FU_BUSY)
            part += e->fus[t->fu].seg_rem0 - rem_now(e, &e->fus[t->fu]);
        s->progress[i] = (double)t->completed + part / (double)t->req_work;
    }
}

/* The window opens once every tenant has completed its warm-up requests;
 * it closes when the run ends (every tenant has reached its count). */
static void check_window(v10_engine *e)
{
    if (e->window_started)
        return;
    for (int i = 0; i < e->n_tenants; i++)
        if (e->tenants[i].completed < e->cfg->warmup)
            return;
    snapshot(e, &e->win[0]);
    e->window_started = 1;
}

/* ---- event handlers -------------------------------------------------------------- */

static void advance(v10_engine *e, uint64_t t)
{
    V10_ASSERT(t >= e->now);
    uint64_t dt = t - e->now;
    if (!dt)
        return;
    for (int f = 0; f < e->n_fus; f++) {
        fu *u = &e->fus[f];
        if (u->state == FU_BUSY) {
            u->exec_cycles += dt;
            e->tenants[u->tenant].active_cycles += dt;
            e->hbm_bytes_moved += u->rate * u->bytes_per_work * (double)dt;
        } else if (u->state != FU_FREE) {
            u->switch_cycles += dt; /* switching or restoring */
        }
    }
    if (e->busy_by_type[V10_FU_SA] > 0 && e->busy_by_type[V10_FU_VU] > 0)
        e->overlap_cycles += dt;
    e->now = t;
}

/* Credits `done` cycles of the current operator's work to FU u and tenant t. */
static void credit(fu *u, tenant *t, double done)
{
    u->work += done;
    u->macs += t->macs[t->op] * done / (double)t->work[t->op];
    t->work_done += done;
    t->req_done_work += done;
}

/* FU u (f), just left by tenant ti's operator, switches its context for
 * `cycles` (the FU is covered at once if that is 0). */
static void switch_fu(v10_engine *e, fu *u, int f, int ti, uint64_t cycles)
{
    if (!cycles) {
        u->covered = 1;
        return;
    }
    u->state = FU_SWITCH;
    u->switch_start = e->now;
    u->switch_tenant = ti;
    ev_set(e->heap, f, e->now + cycles);
}

/* Tenant ti's operator has left FU u (f) on a preemption: the tenant is
 * READY again, and the FU switches its context. */
static void preempted(v10_engine *e, fu *u, int f, int ti)
{
    tenant *t = &e->tenants[ti];
    t->state = T_READY;
    t->saved = e->cfg->preempt == V10_PREEMPT_DRAIN;
    t->preemptions++;
    e->preemptions++;
    trace_push(e, V10_TR_PREEMPT, e->now, e->now, f, ti, (uint32_t)t->op);
    switch_fu(e, u, f, ti, u->switch_cost);
    notify(e, V10_EV_PREEMPTED, ti);
}

static void fu_event(v10_engine *e, int f)
{
    fu *u = &e->fus[f];
    if (u->state == FU_SWITCH) {
        trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, u->switch_tenant, 0);
        u->state = FU_FREE;
        u->covered = 1;
        return;
    }
    int ti = u->tenant;
    tenant *t = &e->tenants[ti];
    if (u->state == FU_RESTORE) {
        trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, ti, 0);
        if (!u->stopping) {
            begin_exec(e, u, ti);
            return;
        }
        /* Preempted while restoring: nothing executed, the context stays saved. */
        u->state = FU_FREE;
        u->tenant = -1;
        u->stopping = 0;
        t->fu = -1;
        preempted(e, u, f, ti);
        return;
    }
    V10_ASSERT(u->state == FU_BUSY);
    /* The stop point is reached exactly, unless a drain ended first. */
    double rem = u->stop_at;
    if (u->stopping && e->now >= u->stop_time) {
        rem = rem_now(e, u);
        if (rem < 1e-6)
            rem = 0; /* the operator finished as its drain ended */
    }
    int stop = u->stopping && rem > 0, finished_in_drain = u->stopping && !stop;
    t->remaining = rem;
    credit(u, t, u->seg_rem0 - rem);
    trace_push(e, V10_TR_OP, u->seg_start, e->now, f, ti, (uint32_t)t->op);
    u->state = FU_FREE;
    u->tenant = -1;
    u->stopping = 0;
    u->stop_at = 0;
    t->fu = -1;
    e->busy_by_type[u->type]--;
    e->rates_dirty = 1;
    if (stop) {
        preempted(e, u, f, ti);
        return;
    }
    if (finished_in_drain) /* the switch still ends when it would have */
        switch_fu(e, u, f, ti, u->stop_time + u->switch_cost - e->now);
    t->remaining = 0;
    t->op++;
    if (t->op < t->model->n_ops) {
        t->state = T_READY;
        notify(e, V10_EV_OP_DONE, ti);
        return;
    }
    /* The request is complete. */
    uint64_t r = t->cur_req++;
    uint64_t arrived = t->pend[r & (t->pend_cap - 1)];
    V10_ASSERT(e->now >= arrived);
    t->completed++;
    t->op = 0;
    t->req_done_work = 0;
    if (e->window_started)
        log_latency(e, t, ti, e->now - arrived);
    trace_push(e, V10_TR_REQUEST, arrived, e->now, -1, ti, (uint32_t)r);
    if (t->completed == t->n_requests) {
        t->finish_cycle = e->now;
        e->n_done++;
    }
    t->state = t->cur_req < t->issued ? T_READY : T_IDLE;
    if (t->rate_per_cycle == 0)
        issue(e, ti); /* closed loop: the client sends its next request */
    notify(e, V10_EV_REQ_DONE, ti);
    check_window(e);
}

static void arrival_event(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    issue(e, ti);
    ev_set(e->heap, slot_tenant(e, ti), e->now + interarrival(t));
}

/*
 * Offers every free FU to the policy, in FU order, with the tenants whose
 * next operator needs that FU type (filtered per FU for partitions and
 * vetoes).  A tenant picked for one FU is no longer a candidate.
 */
static void dispatch(v10_engine *e)
{
    int ready[V10_MAX_TENANTS][V10_FU_TYPES], nr[V10_FU_TYPES] = {0, 0}, any_free = 0;
    for (int f = 0; f < e->n_fus && !any_free; f++)
        any_free = e->fus[f].state == FU_FREE;
    if (!any_free)
        return;
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        if (t->state == T_READY) {
            int ty = v10_tenant_next_fu(t);
            ready[nr[ty]++][ty] = i;
        }
    }
    if (!nr[V10_FU_SA] && !nr[V10_FU_VU])
        return;
    int idle[V10_FU_TYPES] = {0, 0}; /* an unowned FU of the type was left idle */
    for (int f = 0; f < e->n_fus; f++) {
        fu *u = &e->fus[f];
        int ty = (int)u->type;
        if (u->state != FU_FREE || !nr[ty] || (u->owner < 0 && idle[ty]))
            continue;
        int n = 0;
        for (int k = 0; k < nr[ty]; k++) {
            int i = ready[k][ty];
            if (e->tenants[i].state == T_READY && (u->owner < 0 || u->owner == i) &&
                (!e->policy->may_run || e->policy->may_run(e, e->pstate, i, f)))
                e->cand[n++] = i;
        }
        int pick = n ? e->policy->pick(e, e->pstate, f, e->cand, n) : -1;
        if (pick < 0) {
            idle[ty] |= u->owner < 0;
            continue;
        }
        V10_ASSERT(v10_engine_eligible(e, pick, f));
        start_op(e, f, pick);
        idle[0] = idle[1] = 0;
    }
}

/* The run outlasted the stall guard: names the first tenant still short. */
static int stalled(const v10_engine *e, v10_err *err)
{
    int i = 0;
    while (i < e->n_tenants && e->tenants[i].completed >= e->tenants[i].n_requests)
        i++;
    V10_ASSERT(i < e->n_tenants);
    const tenant *t = &e->tenants[i];
    return v10_err_set(err, "policy %s: tenant %d (%s) completed %llu of %llu requests by cycle "
                            "%llu, %.0fx the run's estimated length; it is starved (or the "
                            "NPU is overloaded), so the run cannot finish",
                       e->policy->name, i, e->cfg->tenants[i].model,
                       (unsigned long long)t->completed, (unsigned long long)t->n_requests,
                       (unsigned long long)e->now, V10_STALL_FACTOR);
}

/* ---- invariants (--check) -------------------------------------------------------- */

static void check_fail(const v10_engine *e, const char *what)
{
    fprintf(stderr, "v10sim: invariant violated at cycle %llu (policy %s): %s\n",
            (unsigned long long)e->now, e->policy->name, what);
    abort();
}

static void check_state(const v10_engine *e)
{
    char msg[256];
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        if ((u->state == FU_BUSY || u->state == FU_RESTORE) != (u->tenant >= 0) ||
            (u->stopping && u->tenant < 0)) {
            snprintf(msg, sizeof msg, "FU %d: state and tenant disagree", f);
            check_fail(e, msg);
        }
        if (u->tenant >= 0 && e->tenants[u->tenant].fu != f) {
            snprintf(msg, sizeof msg, "FU %d runs tenant %d, which holds FU %d", f, u->tenant,
                     e->tenants[u->tenant].fu);
            check_fail(e, msg);
        }
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        if ((t->state == T_RUNNING) != (t->fu >= 0) ||
            (t->fu >= 0 && e->fus[t->fu].tenant != i)) {
            snprintf(msg, sizeof msg, "tenant %d: running state and FU disagree", i);
            check_fail(e, msg);
        }
        if (t->remaining < -1e-6 || t->remaining > (double)t->work[t->op] + 1e-6) {
            snprintf(msg, sizeof msg, "tenant %d: remaining work out of range", i);
            check_fail(e, msg);
        }
        if (t->cur_req > t->issued || t->completed != t->cur_req) {
            snprintf(msg, sizeof msg, "tenant %d: request counters out of order", i);
            check_fail(e, msg);
        }
    }
}

static void check_end(const v10_engine *e)
{
    char msg[256];
    double fu_work = 0, t_work = 0, want = 0;
    uint64_t exec = 0;
    for (int f = 0; f < e->n_fus; f++) {
        fu_work += e->fus[f].work;
        exec += e->fus[f].exec_cycles;
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        t_work += t->work_done;
        /* Completed requests, plus what the request in service has done. */
        want += (double)t->completed * (double)t->req_work + t->req_done_work;
        if (t->completed < t->n_requests) {
            snprintf(msg, sizeof msg, "tenant %d completed %llu of %llu requests", i,
                     (unsigned long long)t->completed, (unsigned long long)t->n_requests);
            check_fail(e, msg);
        }
    }
    if (fabs(fu_work - t_work) > 1e-6 * want + 1 || fabs(t_work - want) > 1e-6 * want + 1) {
        snprintf(msg, sizeof msg, "work not conserved: FUs %.0f, tenants %.0f, requests %.0f",
                 fu_work, t_work, want);
        check_fail(e, msg);
    }
    if ((double)exec + 1e-6 < fu_work * 0.999999) {
        snprintf(msg, sizeof msg, "FUs executed %llu cycles for %.0f cycles of work",
                 (unsigned long long)exec, fu_work);
        check_fail(e, msg);
    }
}

/* ---- run --------------------------------------------------------------------------- */

int v10_engine_partition(v10_engine *e, v10_fu_type type, const double *share, v10_err *err)
{
    int n_phys = e->n_phys[type], nt = e->n_tenants;
    fu keep[V10_MAX_FUS];
    int nk = 0;
    for (int f = 0; f < e->n_fus; f++)
        if (e->fus[f].type != type)
            keep[nk++] = e->fus[f];
    fu parts[V10_MAX_FUS];
    int np = 0;
    if (n_phys >= nt) {
        /* Whole FUs, largest remainder, at least one each. */
        int given[V10_MAX_TENANTS], left = n_phys - nt;
        double rem[V10_MAX_TENANTS];
        for (int i = 0; i < nt; i++) {
            double want = share[i] * n_phys - 1;
            int w = want > 0 ? (int)floor(want) : 0;
            if (w > left)
                w = left;
            given[i] = 1 + w;
            left -= w;
            rem[i] = want - w;
        }
        while (left > 0) {
            int best = 0;
            for (int i = 1; i < nt; i++)
                if (rem[i] > rem[best])
                    best = i;
            given[best]++;
            rem[best] = -1e9;
            left--;
        }
        for (int i = 0; i < nt; i++)
            for (int k = 0; k < given[i]; k++)
                parts[np++] = (fu){.type = type, .owner = i, .speed = 1.0, .tenant = -1};
    } else {
        /* Fewer FUs than tenants: each tenant gets a slice of the FUs'
         * compute (a partition of the array's columns / the VU's lanes). */
        for (int i = 0; i < nt; i++) {
            double s = share[i] * n_phys;
            if (!(s > 0 && s <= 1))
                return v10_err_set(err, "spatial: tenant %d's share of the %s is %g", i,
                                   v10_fu_name(type), s);
            parts[np++] = (fu){.type = type, .owner = i, .speed = s, .tenant = -1};
        }
    }
    if (nk + np > e->max_fus)
        return v10_err_set(err, "spatial: too many partitions");
    e->n_fus = 0;
    for (int f = 0; f < nk; f++)
        e->fus[e->n_fus++] = keep[f];
    for (int f = 0; f < np; f++)
        e->fus[e->n_fus++] = parts[f];
    return 0;
}

/* Sets up tenant i: its per-op work with its share of vector memory, in
 * arrays starting at `off` in the engine's pools. */
static int tenant_setup(v10_engine *e, int i, const v10_model *m, const v10_tenant_spec *sp,
                        size_t off, v10_err *err)
{
    tenant *t = &e->tenants[i];
    uint64_t share = e->npu->vmem_bytes / (uint64_t)e->n_tenants;
    uint64_t *work = e->work_pool + off, *bytes = e->bytes_pool + off;
    uint8_t *fu_of = e->fu_pool + off;
    double *macs = e->macs_pool + off;
    t->model = m;
    t->work = work;
    t->bytes = bytes;
    t->fu_of = fu_of;
    t->macs = macs;
    t->req_work = 0;
    for (size_t k = 0; k < m->n_ops; k++) {
        fu_of[k] = (uint8_t)m->ops[k].fu;
        macs[k] = (double)m->ops[k].macs;
        work[k] = v10_cost_shared_cycles(e->npu, &m->ops[k], share, &bytes[k]);
        if (v10_add_u64(t->req_work, work[k], &t->req_work))
            return v10_err_set(err, "tenant %d (%s): request work overflows 64 bits", i,
                               sp->model);
    }
    t->priority = sp->priority;
    t->rate_per_cycle = sp->rate_rps / (e->npu->clock_mhz * 1e6);
    t->outstanding = sp->outstanding;
    t->n_requests = e->cfg->requests;
    t->state = T_IDLE;
    t->fu = -1;
    uint64_t x = e->cfg->seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(i + 1));
    for (int k = 0; k < 4; k++)
        t->rng[k] = splitmix(&x);
    return 0;
}

int v10_engine_run(v10_engine *e, const v10_run_config *cfg, const v10_policy_ops *policy,
                   const v10_model *models, v10_err *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int nt = (int)cfg->n_tenants;
    e->cfg = cfg;
    e->npu = &cfg->npu;
    e->policy = policy;
    e->n_tenants = nt;
    e->hbm_bytes_per_cycle = v10_npu_hbm_bytes_per_cycle(&cfg->npu);
    for (int f = 0; f < e->n_fus; f++)
        e->fus[f].tenant = -1;
    size_t off = 0;
    for (int i = 0; i < nt; i++) {
        if (tenant_setup(e, i, &models[i], &cfg->tenants[i], off, err))
            return -1;
        off += models[i].n_ops;
        tenant *t = &e->tenants[i];
        t->pend_cap = 16;
        while (t->pend_cap < t->outstanding)
            t->pend_cap *= 2;
        t->pend = malloc(t->pend_cap * sizeof *t->pend);
        if (!t->pend || v10_hist_init(&t->lat))
            return v10_err_set(err, "out of memory for tenant %d's request log", i);
    }
    if (policy->init && policy->init(e, e->pstate, err))
        return -1;
    /* The stall guard (tenant/horizon.h): the estimate, stretched by how
     * small a share the least-favoured tenant may get, plus a million cycles
     * so that tiny runs are never cut short. */
    double psum = 0, pmin = INFINITY;
    for (int i = 0; i < nt; i++) {
        psum += e->tenants[i].priority;
        pmin = fmin(pmin, e->tenants[i].priority);
    }
    double stall = V10_STALL_FACTOR * (1 + psum / pmin) * v10_run_estimate_cycles(cfg, models);
    e->stall_cycle = stall < 0x1p62 ? (uint64_t)stall + 1000000 : 1ull << 62;
    if (cfg->warmup == 0) {
        snapshot(e, &e->win[0]);
        e->window_started = 1;
    }
    for (int i = 0; i < nt; i++) {
        tenant *t = &e->tenants[i];
        if (t->rate_per_cycle > 0) {
            ev_set(e->heap, slot_tenant(e, i), interarrival(t));
        } else {
            for (uint32_t k = 0; k < t->outstanding; k++)
                issue(e, i);
        }
    }
    dispatch(e);
    update_rates(e);
    while (e->n_done < nt) {
        int slot = ev_pop(e->heap);
        if (slot < 0)
            return v10_err_set(err, "policy %s left work pending with nothing scheduled "
                                    "(deadlock) at cycle %llu", policy->name,
                               (unsigned long long)e->now);
        advance(e, e->heap->time[slot]);
        e->events++;
        if (slot < e->max_fus)
            fu_event(e, slot);
        else if (slot < slot_timer(e))
            arrival_event(e, slot - e->max_fus);
        else if (policy->on_timer)
            policy->on_timer(e, e->pstate);
        dispatch(e);
        if (e->rates_dirty)
            update_rates(e);
        if (cfg->check)
            check_state(e);
        if (e->oom)
            return v10_err_set(err, "out of memory growing a request log at cycle %llu",
                               (unsigned long long)e->now);
        if (e->backlog)
            return v10_err_set(err, "tenant %d (%s): more than %d requests waiting at cycle "
                                    "%llu; its arrival rate exceeds what it is served, so "
                                    "the queue grows without bound (lower its rate)",
                               e->backlog - 1, cfg->tenants[e->backlog - 1].model,
                               V10_MAX_BACKLOG, (unsigned long long)e->now);
        if (e->now > e->stall_cycle)
            return stalled(e, err);
        if (e->bar && !(e->events & 0xffff)) { /* a long run: requests completed so far */
            uint64_t done = 0;
            for (int i = 0; i < nt; i++)
                done += e->tenants[i].completed < e->tenants[i].n_requests
                            ? e->tenants[i].completed : e->tenants[i].n_requests;
            v10_progress_step(e->bar, (size_t)done);
        }
    }
    snapshot(e, &e->win[1]);
    /* Operators and switches still running (tenants past their count keep
     * the load up) are counted and traced up to the end. */
    e->end_cycle = e->now;
    for (int f = 0; f < e->n_fus; f++) {
        fu *u = &e->fus[f];
        if (u->state == FU_BUSY) {
            /* Settle the partial segment so that work adds up at the end. */
            tenant *t = &e->tenants[u->tenant];
            credit(u, t, u->seg_rem0 - rem_now(e, u));
            trace_push(e, V10_TR_OP, u->seg_start, e->now, f, u->tenant, (uint32_t)t->op);
        } else if (u->state != FU_FREE) { /* switching or restoring */
            trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, u->switch_tenant, 0);
        }
    }
    if (cfg->check)
        check_end(e);
    if (cfg->trace && cfg->trace->oom)
        return v10_err_set(err, "trace: out of memory (%zu events recorded)", cfg->trace->n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    e->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}

/* Allocates everything the run loop will touch; -1 on allocation failure. */
int v10_engine_alloc(v10_engine *e, const v10_run_config *cfg, const v10_model *models,
                     size_t state_size, v10_err *err)
{
    memset(e, 0, sizeof *e);
    int nt = (int)cfg->n_tenants;
    int nsa = (int)cfg->npu.sa_count, nvu = (int)cfg->npu.vu_count;
    e->max_fus = (nsa > nt ? nsa : nt) + (nvu > nt ? nvu : nt);
    if (e->max_fus > V10_MAX_FUS || nt > V10_MAX_TENANTS)
        return v10_err_set(err, "at most %d tenants and %d FUs", V10_MAX_TENANTS, V10_MAX_FUS);
    size_t ops = 0;
    for (int i = 0; i < nt; i++)
        ops += models[i].n_ops;
    int slots = e->max_fus + nt + 1;
    e->heap = calloc(1, sizeof *e->heap);
    e->tenants = calloc((size_t)nt, sizeof *e->tenants);
    e->fus = calloc((size_t)e->max_fus, sizeof *e->fus);
    e->cand = calloc((size_t)nt, sizeof *e->cand);
    e->work_pool = calloc(ops, sizeof *e->work_pool);
    e->bytes_pool = calloc(ops, sizeof *e->bytes_pool);
    e->fu_pool = calloc(ops, sizeof *e->fu_pool);
    e->macs_pool = calloc(ops, sizeof *e->macs_pool);
    e->pstate = calloc(1, state_size ? state_size : 1);
    if (e->heap) {
        e->heap->heap = calloc((size_t)slots, sizeof(int));
        e->heap->pos = malloc((size_t)slots * sizeof(int));
        e->heap->time = calloc((size_t)slots, sizeof(uint64_t));
        e->heap->seq = calloc((size_t)slots, sizeof(uint64_t));
        e->heap->cap = slots;
    }
    if (!e->heap || !e->heap->heap || !e->heap->pos || !e->heap->time || !e->heap->seq ||
        !e->tenants || !e->fus || !e->cand || !e->work_pool || !e->bytes_pool || !e->fu_pool || !e->macs_pool ||
        !e->pstate)
        return v10_err_set(err, "out of memory for %d tenants x %llu requests", nt,
                           (unsigned long long)cfg->requests);
    for (int s = 0; s < slots; s++)
        e->heap->pos[s] = -1;
    int f = 0;
    for (int k = 0; k < nsa; k++)
        e->fus[f++] = (fu){.type = V10_FU_SA, .owner = -1, .speed = 1.0, .tenant = -1};
    for (int k = 0; k < nvu; k++)
        e->fus[f++] = (fu){.type = V10_FU_VU, .owner = -1, .speed = 1.0, .tenant = -1};
    e->n_fus = f;
    e->n_phys[V10_FU_SA] = nsa;
    e->n_phys[V10_FU_VU] = nvu;
    return 0;
}

void v10_engine_free(v10_engine *e)
{
    if (e->heap) {
        free(e->heap->heap);
        free(e->heap->pos);
        free(e->heap->time);
        free(e->heap->seq);
    }
    for (int i = 0; e->tenants && i < e->n_tenants; i++) {
        free(e->tenants[i].pend);
        v10_hist_fini(&e->tenants[i].lat);
    }
    free(e->heap);
    free(e->tenants);
    free(e->fus);
    free(e->cand);
    free(e->work_pool);
    free(e->bytes_pool);
    free(e->fu_pool);
    free(e->macs_pool);
    free(e->pstate);
    memset(e, 0, sizeof *e);
}
