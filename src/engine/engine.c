/*
 * engine.c — the discrete-event loop (docs/architecture.md, "The engine in
 * one page") and the engine's life cycle.  Every pending event belongs to
 * one slot: an FU (its operator reaches its stop point, or its context
 * switch or restore ends), a tenant (its next Poisson arrival) or the
 * policy's timer.  Slots live in an indexed event queue keyed by (time,
 * sequence) (util/evq.h), so rescheduling an FU after a rate change moves
 * its one entry instead of leaving stale events behind, and the run loop
 * never allocates: alloc sizes every array the loop touches.
 */
#include "engine/engine.h"
#include "engine/attrib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/mem.h"
#include "v10/cost.h"

/* ---- event handlers -------------------------------------------------------------- */

static void advance(v10_engine *e, uint64_t t)
{
    V10_ASSERT(t >= e->now);
    uint64_t dt = t - e->now;
    if (!dt)
        return;
    /* Executing and switching cycles are added as FUs change state (fu.c),
     * the bytes moved as work is credited (eng_credit, eng_hbm_bytes). */
    if (e->busy_by_type[V10_FU_SA] > 0 && e->busy_by_type[V10_FU_VU] > 0)
        e->overlap_cycles += dt;
    e->now = t;
}

/* Simulates the run set up by v10_engine_alloc (see engine.h).  Kept out
 * of line so that a profile names the event loop (docs/benchmarks.md counts
 * its instructions with callgrind's --toggle-collect=v10_engine_run). */
__attribute__((noinline)) int v10_engine_run(v10_engine *e, const v10_run_config *cfg,
                                             const v10_policy_ops *policy,
                                             const v10_model *models, uint64_t stall_cycle,
                                             v10_err *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int nt = (int)cfg->n_tenants;
    e->cfg = cfg;
    e->trace = cfg->trace;
    e->npu = &cfg->npu;
    e->policy = policy;
    e->n_tenants = nt;
    e->hbm_bytes_per_cycle = v10_npu_hbm_bytes_per_cycle(&cfg->npu);
    eng_energy_init(e, policy->hw_scheduler);
    for (int f = 0; f < e->n_fus; f++)
        e->fus[f].tenant = -1;
    for (int i = 0; i < nt; i++)
        if (eng_tenant_setup(e, i, &models[i], &cfg->tenants[i], err) ||
            (cfg->tenants[i].llm && eng_llm_setup(e, i, err)))
            return -1;
    e->scores_by_active = 1;
    for (int i = 0; i < nt; i++) {
        e->scores_by_active &= e->tenants[i].priority == 1.0;
        e->active_key[i] = (uint64_t)i; /* no active cycles yet */
    }
    if (cfg->op_states && eng_attr_ops_alloc(e, models, err))
        return -1;
    if (policy->init && policy->init(e, e->pstate, err))
        return -1;
    for (int f = 0; f < e->n_fus; f++) { /* after init: a policy may partition the FUs */
        e->n_free[e->fus[f].type] += e->fus[f].state == V10P_FU_FREE;
        if (e->fus[f].state == V10P_FU_FREE)
            e->free_fus[eng_fu_word(f)] |= eng_fu_bit(f);
        e->type_fus[e->fus[f].type][eng_fu_word(f)] |= eng_fu_bit(f);
    }
    if (cfg->npu.op_mapping >= V10_MAP_ALLOC)
        eng_alloc_engines(e);
    e->stall_cycle = stall_cycle;
    if (cfg->warmup == 0) {
        eng_snapshot(e, &e->win[0]);
        e->window_started = 1;
        e->attr_window = 1; /* the window's base is all zero */
    }
    for (int i = 0; i < nt; i++) {
        tenant *t = &e->tenants[i];
        if (t->llm) {
            eng_llm_wake(e, i);
        } else if (t->rate_per_cycle > 0) {
            v10_evq_set(&e->evq, eng_slot_tenant(e, i), eng_interarrival(t));
        } else {
            for (uint32_t k = 0; k < t->outstanding; k++)
                eng_issue(e, i);
        }
    }
    e->reclaim = cfg->npu.op_mapping == V10_MAP_RECLAIM;
    eng_dispatch(e);
    if (e->reclaim)
        eng_reclaim(e);
    eng_update_rates(e);
    eng_attr_start(e);
    /* A trace or --check: the loop's tail looks at every event (else only
     * at the events that set e->alert). */
    const int watch = e->trace || cfg->check;
    while (e->n_done < nt) {
        int slot = v10_evq_pop(&e->evq);
        if (slot < 0)
            return v10_err_set(err, "policy %s left work pending with nothing scheduled "
                                    "(deadlock) at cycle %llu", policy->name,
                               (unsigned long long)e->now);
        advance(e, e->evq.time[slot]);
        e->events++;
        if (slot < e->max_fus)
            eng_fu_event(e, slot);
        else if (slot < eng_slot_timer(e) && e->tenants[slot - e->max_fus].llm)
            eng_llm_wake(e, slot - e->max_fus); /* an LLM server's arrival, host time or batch */
        else if (slot < eng_slot_timer(e))
            eng_arrival_event(e, slot - e->max_fus);
        else if (policy->on_timer)
            policy->on_timer(e, e->pstate);
        if (!e->defer_dispatch) {
            eng_dispatch(e);
            if (e->reclaim) /* op_mapping "reclaim" */
                eng_reclaim(e);
        }
        e->defer_dispatch = 0;
        if (e->rates_dirty)
            eng_update_rates(e);
        eng_attr_refresh(e);
        if (e->alert | watch) { /* one test per event for the five below */
            if (e->trace)
                eng_energy_trace(e);
            if (e->window_started && !e->attr_window)
                eng_attr_open_window(e);
            if (cfg->check)
                eng_check_state(e);
            if (e->oom)
                return v10_err_set(err, "out of memory recording requests at cycle %llu",
                                   (unsigned long long)e->now);
            if (e->backlog)
                return v10_err_set(err, "tenant %d (%s): more than %d requests waiting at "
                                        "cycle %llu; its arrival rate exceeds what it is "
                                        "served, so the queue grows without bound (lower "
                                        "its rate)",
                                   e->backlog - 1, cfg->tenants[e->backlog - 1].model,
                                   V10_MAX_BACKLOG, (unsigned long long)e->now);
            e->alert = 0; /* the window is open: nothing is left to look at */
        }
        if (e->now > e->stall_cycle)
            return eng_stalled(e, err);
        if (e->events == e->check_at && e->check && e->check(e, e->check_ctx, err))
            return -1;
    }
    eng_snapshot(e, &e->win[1]);
    if (cfg->check)
        eng_check_energy(e);
    /* Operators and switches still running (tenants past their count keep
     * the load up) are counted and traced up to the end. */
    e->end_cycle = e->now;
    for (int f = 0; f < e->n_fus; f++) {
        fu *u = &e->fus[f];
        if (u->state == V10P_FU_BUSY) {
            /* Settle the partial segment so that work adds up at the end. */
            tenant *t = &e->tenants[u->tenant];
            if (!eng_follower(u))
                eng_credit(u, t, eng_seg_work(e, u));
            eng_trace_op(e, u->seg_start, e->now, f, u->tenant);
        } else if (u->state != V10P_FU_FREE) { /* switching or restoring */
            eng_trace_push(e, V10_TR_SWITCH, u->switch_start, e->now, f, u->switch_tenant, 0);
        }
    }
    if (e->trace)
        eng_energy_trace_flush(e);
    eng_settle_clocks(e);
    eng_attr_settle(e);
    if (cfg->check)
        eng_check_end(e);
    if (cfg->trace && cfg->trace->oom)
        return v10_err_set(err, "trace: out of memory (%zu events recorded)", cfg->trace->n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    e->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}

/*
 * Tenant i's per-operator ratios into its 2 x n_ops doubles at `at`: HBM
 * bytes per cycle of work, then activity (v10_cost_activity), from its
 * view (e->view[i]); the hot loop reads them as each operator starts
 * (fu.c, exec_rates), where computing them would read the operator's
 * description, far from the engine's arrays, and divide three times on
 * the way to the next decision (about a tenth of `repro --quick`'s
 * time).  Per run, not in the view's memo: that would triple the memo's
 * work arrays.
 * Also marks the tenants with a collective (e->collective), which needs
 * a link engine to run on (`ici`).
 */
static int ratios(v10_engine *e, int i, const v10_model *m, const v10_npu *npu, double *at,
                  int ici, v10_err *err)
{
    const v10_op_view *v = &e->view[i];
    double *bpw = at, *act = at + m->n_ops;
    for (size_t k = 0; k < m->n_ops; k++) {
        if (m->ops[k].fu == V10_FU_ICI) {
            if (!ici)
                return v10_err_set(err, "tenant %d (%s): operator %s is a collective, and NPU "
                                        "'%s' has one chip (chips = 1): no link engine to run it",
                                   i, m->name, m->ops[k].name, npu->name);
            e->collective |= 1ull << i;
        }
        bpw[k] = eng_bytes_per_work(v->bytes[k], v->work[k]);
        act[k] = v10_cost_activity(npu, &m->ops[k], v->work[k]);
    }
    e->ratio[i] = at;
    return 0;
}

/* Allocates everything the run loop will touch and each tenant's view of
 * its model; -1 with err set (out of memory, a request's work overflowing). */
int v10_engine_alloc(v10_engine *e, const v10_run_config *cfg, const v10_model *models,
                     size_t state_size, v10_err *err)
{
    memset(e, 0, sizeof *e);
    e->released = -1;
    int nt = (int)cfg->n_tenants;
    int nsa = (int)cfg->npu.sa_count, nvu = (int)cfg->npu.vu_count;
    /* With several chips, the simulated chip's link engine (its collectives;
     * docs/llm.md, "Several chips"), never partitioned. */
    int nici = cfg->npu.chips > 1;
    /* Every chip simulated: cfg holds every chip's tenants (sim/run.c),
     * chip by chip, and each chip its own FUs. */
    e->n_chips = cfg->every_chip ? (int)cfg->npu.chips : 1;
    e->chip_tenants = nt / e->n_chips;
    int ct = e->chip_tenants;
    /* (one chip: room for a partition of each type per tenant; several
     * chips have none, spatial partitions refusing them) */
    e->fus_per_chip = e->n_chips > 1 ? nsa + nvu + nici
                                     : (nsa > ct ? nsa : ct) + (nvu > ct ? nvu : ct) + nici;
    e->max_fus = e->fus_per_chip * e->n_chips;
    if (e->max_fus > V10_MAX_FUS || nt > V10_MAX_TENANTS)
        return v10_err_set(err, "at most %d tenants and %d FUs", V10_MAX_TENANTS, V10_MAX_FUS);
    e->fu_words = (unsigned)(e->max_fus + 63) / 64;
    /* Each tenant's model as run, with its share of its chip's vector
     * memory: from the memo, or (counted here, computed below) into the
     * pools. */
    uint64_t share = cfg->npu.vmem_bytes / (uint64_t)ct;
    e->view = calloc((size_t)nt, sizeof *e->view);
    if (!e->view)
        return v10_err_set(err, "out of memory");
    int memo[V10_MAX_TENANTS];
    size_t ops = 0, all_ops = 0;
    for (int i = 0; i < nt; i++) {
        memo[i] = v10_op_view_shared(&models[i], &cfg->npu, share, &e->view[i], err);
        if (memo[i] < 0)
            return v10_err_prefix(err, "tenant %d", i);
        ops += memo[i] ? 0 : models[i].n_ops;
        all_ops += models[i].n_ops;
    }
    int slots = e->max_fus + nt + 1;
    e->tenants = calloc((size_t)nt, sizeof *e->tenants);
    e->fus = calloc((size_t)e->max_fus, sizeof *e->fus);
    e->busy = calloc((size_t)e->max_fus, sizeof *e->busy);
    e->started = calloc((size_t)e->max_fus, sizeof *e->started);
    e->work_pool = v10_calloc_big(ops ? ops : 1, sizeof *e->work_pool);
    e->bytes_pool = v10_calloc_big(ops ? ops : 1, sizeof *e->bytes_pool);
    e->fu_pool = v10_calloc_big(ops ? ops : 1, sizeof *e->fu_pool);
    e->macs_pool = v10_calloc_big(ops ? ops : 1, sizeof *e->macs_pool);
    e->ratio_pool = v10_calloc_big(all_ops ? 2 * all_ops : 1, sizeof *e->ratio_pool);
    e->pstate = calloc(1, state_size ? state_size : 1);
    size_t na = (size_t)nt * V10_ATTR_STATES, nl = na * (size_t)nt;
    size_t nw = V10_ATTR_WAIT_CLASSES * (1 + (size_t)nt); /* one shared wait's integrals */
    e->attr = calloc(2 * na + 2 * nl + (V10_FU_TYPES + (size_t)nt) * nw, sizeof *e->attr);
    if (e->attr) { /* one block: attr, attr_base, attr_lost, attr_lost_base, wait_cum, a_snap */
        e->attr_base = e->attr + na;
        e->attr_lost = e->attr_base + na;
        e->attr_lost_base = e->attr_lost + nl;
        e->wait_cum = e->attr_lost_base + nl;
        e->a_snap = e->wait_cum + V10_FU_TYPES * nw;
    }
    if (v10_evq_init(&e->evq, slots) || !e->tenants || !e->fus || !e->busy ||
        !e->started || !e->work_pool || !e->bytes_pool || !e->fu_pool || !e->macs_pool ||
        !e->ratio_pool || !e->pstate || !e->attr)
        return v10_err_set(err, "out of memory for %d tenants x %llu requests", nt,
                           (unsigned long long)cfg->requests);
    size_t off = 0;
    for (int i = 0; i < nt; i++) {
        if (memo[i])
            continue;
        v10_op_view_bufs b = {e->work_pool + off, e->bytes_pool + off, e->fu_pool + off,
                              e->macs_pool + off};
        if (v10_op_view_fill(&models[i], &cfg->npu, share, &b, &e->view[i], err))
            return v10_err_prefix(err, "tenant %d", i);
        off += models[i].n_ops;
    }
    double *ratio = e->ratio_pool;
    for (int i = 0; i < nt; i++) {
        if (ratios(e, i, &models[i], &cfg->npu, ratio, nici, err))
            return -1;
        ratio += 2 * models[i].n_ops;
    }
    int f = 0;
    for (int c = 0; c < e->n_chips; c++) {
        uint64_t mine = e->n_chips == 1 ? ~0ull : ((1ull << ct) - 1) << (c * ct);
        for (int k = 0; k < nsa + nvu + nici; k++)
            e->fus[f++] = (fu){.type = k < nsa       ? V10_FU_SA
                                       : k < nsa + nvu ? V10_FU_VU
                                                       : V10_FU_ICI,
                               .owner = -1, .speed = 1.0, .tenant = -1, .lead = -1,
                               .next = -1};
        for (int k = 0; k < nsa + nvu + nici; k++)
            e->fu_tmask[f - 1 - k] = mine;
    }
    e->n_fus = f;
    e->n_phys[V10_FU_SA] = nsa * e->n_chips;
    e->n_phys[V10_FU_VU] = nvu * e->n_chips;
    e->n_phys[V10_FU_ICI] = nici * e->n_chips;
    return 0;
}

void v10_engine_free(v10_engine *e)
{
    v10_evq_fini(&e->evq);
    for (int i = 0; e->tenants && i < e->n_tenants; i++) {
        free(e->tenants[i].pend);
        free(e->tenants[i].op_attr);
        v10_hist_fini(&e->tenants[i].lat);
    }
    free(e->tenants);
    free(e->fus);
    free(e->busy);
    free(e->started);
    free(e->view);
    free(e->work_pool);
    free(e->bytes_pool);
    free(e->fu_pool);
    free(e->macs_pool);
    free(e->ratio_pool);
    free(e->pstate);
    free(e->attr);
    memset(e, 0, sizeof *e);
}
