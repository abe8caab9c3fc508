/*
 * check.c — the engine's invariants, verified while running with --check
 * (tests/policy/test_conformance.c runs every policy so), and the error of
 * a run whose simulated time passed the clock limit.
 */
#include "engine/engine.h"
#include "engine/attrib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Simulated time passed the clock limit: names the first tenant still short. */
int eng_stalled(const v10_engine *e, v10_err *err)
{
    int i = 0;
    while (i < e->n_tenants && eng_done_count(&e->tenants[i]) >= e->tenants[i].n_requests)
        i++;
    V10_ASSERT(i < e->n_tenants);
    const tenant *t = &e->tenants[i];
    double years = (double)e->now / (e->npu->clock_mhz * 1e6) / (365.25 * 86400);
    return v10_err_set(err, "run too long: simulated time passed cycle %llu (%.3g years at "
                            "%g MHz), as far as the 64-bit clock goes, with tenant %d (%s) at "
                            "%llu of %llu requests; use fewer requests, higher rates or "
                            "shorter models (docs/limits.md)",
                       (unsigned long long)e->stall_cycle, years, e->npu->clock_mhz, i,
                       e->cfg->tenants[i].model, (unsigned long long)eng_done_count(t),
                       (unsigned long long)t->n_requests);
}

/* ---- invariants (--check) -------------------------------------------------------- */

static void check_fail(const v10_engine *e, const char *what)
{
    fprintf(stderr, "v10sim: invariant violated at cycle %llu (policy %s): %s\n",
            (unsigned long long)e->now, e->policy->name, what);
    abort();
}

/*
 * Under HBM contention (one chip): every busy FU's rate is the one that
 * max-min fair shares give it now, computed afresh the plain way, a walk
 * of every busy FU each pass (what rates.c's water_fill computes with
 * fewer loads, and share_hbm applies only to the FUs it can move): the
 * rates, and so every event time, are what a walk of every operator at
 * every change would set.  The FU whose rate differs, or -1.
 */
static int rates_differ(const v10_engine *e, double *want)
{
    double left = e->hbm_bytes_per_cycle;
    int n = e->n_busy, unsat = n;
    char served[V10_MAX_FUS] = {0};
    double share = 0;
    while (unsat > 0) {
        share = left / unsat;
        int was = unsat;
        for (int i = 0; i < n; i++) {
            double d = e->fus[e->busy[i]].demand;
            if (!served[i] && d <= share) {
                served[i] = 1;
                left -= d;
                unsat--;
            }
        }
        if (unsat == was)
            break;
    }
    for (int i = 0; i < n; i++) {
        const fu *u = &e->fus[e->busy[i]];
        *want = eng_granted_rate(u, served[i] ? u->demand : share);
        if (!eng_follower(u) && u->rate != *want)
            return e->busy[i];
    }
    return -1;
}

void eng_check_state(const v10_engine *e)
{
    char msg[256];
    int followers = 0, listed = 0;
    if (e->released >= 0) {
        snprintf(msg, sizeof msg, "FU %d's release is pending after the dispatch", e->released);
        check_fail(e, msg);
    }
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        followers += eng_follower(u);
        if ((u->state == V10P_FU_BUSY || u->state == V10P_FU_RESTORE) != (u->tenant >= 0) ||
            (u->stopping && u->tenant < 0)) {
            snprintf(msg, sizeof msg, "FU %d: state and tenant disagree", f);
            check_fail(e, msg);
        }
        /* eng_update_rates' fast path relies on it. */
        if (u->state == V10P_FU_BUSY && !e->contended && u->rate != u->full_rate) {
            snprintf(msg, sizeof msg, "FU %d runs below full rate with the HBM not shared", f);
            check_fail(e, msg);
        }
        /* eng_update_rates visits the slow set and the FUs begun since
         * its last call, not every busy FU (rates.c, share_hbm). */
        int busy_op = u->state == V10P_FU_BUSY && !eng_follower(u);
        int slow = (int)(e->slow_fus[eng_fu_word(f)] >> (f & 63) & 1);
        if (slow != (busy_op && u->rate != u->full_rate)) {
            snprintf(msg, sizeof msg, "FU %d: in the slow set %d, its rate %g of %g", f, slow,
                     u->rate, u->full_rate);
            check_fail(e, msg);
        }
        if (busy_op && !v10_evq_scheduled(&e->evq, f)) {
            snprintf(msg, sizeof msg, "FU %d executes with no event", f);
            check_fail(e, msg);
        }
        /* Attribution charges the slowdown kept beside the rate, and its
         * partner rule for two tenants needs each demand within the HBM
         * (attrib.c, eng_attr_fu_hbm_charge). */
        if (u->state == V10P_FU_BUSY && u->demand > e->hbm_bytes_per_cycle) {
            snprintf(msg, sizeof msg, "FU %d demands %g HBM bytes a cycle, more than the %g "
                     "there are", f, u->demand, e->hbm_bytes_per_cycle);
            check_fail(e, msg);
        }
        if (u->slowdown < 0 || u->slowdown > 1 ||
            (u->state == V10P_FU_BUSY && u->rate == u->full_rate && u->slowdown != 0)) {
            snprintf(msg, sizeof msg, "FU %d: its slowdown %g disagrees with its rate %g of %g",
                     f, u->slowdown, u->rate, u->full_rate);
            check_fail(e, msg);
        }
        /* No FU runs two operators: each holds one tenant's, as that
         * tenant's FU or a follower of it in its state (a gang, fu.c). */
        int holder = eng_follower(u) ? u->lead : f;
        if (u->tenant >= 0 && e->tenants[u->tenant].fu != holder) {
            snprintf(msg, sizeof msg, "FU %d runs tenant %d, which holds FU %d", f, u->tenant,
                     e->tenants[u->tenant].fu);
            check_fail(e, msg);
        }
        if (eng_follower(u) &&
            (u->tenant < 0 || e->fus[u->lead].tenant != u->tenant ||
             e->fus[u->lead].state != u->state || e->fus[u->lead].type != u->type ||
             eng_follower(&e->fus[u->lead]) || u->rate != 0)) {
            snprintf(msg, sizeof msg, "FU %d follows FU %d but not its operator", f, u->lead);
            check_fail(e, msg);
        }
        int linked = 0; /* a leader's list: its followers, each once (no cycle) */
        for (int g = eng_follower(u) ? -1 : u->next; g >= 0 && linked <= e->n_fus;
             g = e->fus[g].next)
            linked += e->fus[g].lead == f ? 1 : e->n_fus + 1;
        if (linked > e->n_fus) {
            snprintf(msg, sizeof msg, "FU %d: its gang's list is broken", f);
            check_fail(e, msg);
        }
        listed += linked;
    }
    if (followers != listed) {
        snprintf(msg, sizeof msg, "%d FUs follow a gang's leader, %d are on the leaders' lists",
                 followers, listed);
        check_fail(e, msg);
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        if ((t->state == V10P_RUNNING) != (t->fu >= 0) ||
            (t->fu >= 0 && e->fus[t->fu].tenant != i) ||
            (int)(e->running >> i & 1) != (t->state == V10P_RUNNING)) {
            snprintf(msg, sizeof msg, "tenant %d: running state and FU disagree", i);
            check_fail(e, msg);
        }
        if (t->remaining < -1e-6 || t->remaining > (double)t->work[t->op] + 1e-6) {
            snprintf(msg, sizeof msg, "tenant %d: remaining work out of range", i);
            check_fail(e, msg);
        }
        if (e->active_key[i] != (t->active_cycles << 6 | (uint64_t)i)) {
            snprintf(msg, sizeof msg, "tenant %d: its pick key is stale", i);
            check_fail(e, msg);
        }
        if (t->cur_req > t->issued || t->completed != t->cur_req) {
            snprintf(msg, sizeof msg, "tenant %d: request counters out of order", i);
            check_fail(e, msg);
        }
        if (t->llm) {
            eng_llm_check(e, t, 0, msg, sizeof msg);
            if (msg[0])
                check_fail(e, msg);
        }
        /* Every chip simulated: a shard READY for a collective waits at
         * its group's barrier until every shard has reached it. */
        int at_bar = t->state == V10P_READY && t->fu_of[t->op] == V10_FU_ICI &&
                     e->n_chips > 1 && !eng_bar_passed(t);
        if (at_bar != (int)(e->bar_wait[e->n_chips > 1 ? i % e->chip_tenants : 0] >> i & 1)) {
            snprintf(msg, sizeof msg, "tenant %d: at a collective's barrier %d, in its wait %d",
                     i, at_bar, !at_bar);
            check_fail(e, msg);
        }
        for (int ty = 0; ty < V10_FU_TYPES; ty++)
            if ((int)(e->ready[ty] >> i & 1) !=
                (t->state == V10P_READY && t->fu_of[t->op] == ty && !at_bar)) {
                snprintf(msg, sizeof msg, "tenant %d: ready mask of FU type %d is stale", i, ty);
                check_fail(e, msg);
            }
    }
    /* eng_update_rates decides with the running sum of the demands when it
     * is far from the bandwidth: it must stay within rounding of theirs
     * (rates.c, demands_exceed: 1e-10 of the bandwidth; a demand missed
     * or counted twice is far more).  Without contention nobody reads it
     * and nothing adds it up afresh. */
    double demand = eng_busy_demand(e);
    if (e->cfg->contention && fabs(e->demand_sum - demand) > 1e-9 * e->hbm_bytes_per_cycle) {
        snprintf(msg, sizeof msg, "the busy FUs demand %.17g HBM bytes a cycle, the running "
                 "sum says %.17g", demand, e->demand_sum);
        check_fail(e, msg);
    }
    double want = 0;
    int f_off = e->contended && e->n_chips == 1 ? rates_differ(e, &want) : -1;
    if (f_off >= 0) {
        snprintf(msg, sizeof msg, "FU %d runs at rate %.17g, its max-min fair share gives %.17g",
                 f_off, e->fus[f_off].rate, want);
        check_fail(e, msg);
    }
    int switching = 0, n_free[V10_FU_TYPES] = {0};
    for (int f = 0; f < e->n_fus; f++) {
        switching += e->fus[f].state == V10P_FU_SWITCH || e->fus[f].state == V10P_FU_RESTORE;
        n_free[e->fus[f].type] += e->fus[f].state == V10P_FU_FREE;
    }
    if (switching != e->n_switching || n_free[0] != e->n_free[0] || n_free[1] != e->n_free[1] ||
        n_free[2] != e->n_free[2]) {
        snprintf(msg, sizeof msg, "FU counts are stale: %d switching (counted %d), %d, %d and "
                 "%d free (counted %d, %d and %d)", switching, e->n_switching, n_free[0],
                 n_free[1], n_free[2], e->n_free[0], e->n_free[1], e->n_free[2]);
        check_fail(e, msg);
    }
    /* Attribution's masks (eng_attr_fu_bit): each FU state's tenants, by
     * type, or the tallies' word of them. */
    uint64_t fus[V10P_FU_RESTORE + 1][V10_FU_TYPES] = {{0}};
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        int who = u->state == V10P_FU_FREE ? -1 : eng_switch_tenant(u, u->state);
        if (who >= 0)
            fus[u->state][u->type] |= 1ull << who;
    }
    uint64_t tally_fus = eng_tally_fus_of(fus);
    for (int st = V10P_FU_BUSY; st <= V10P_FU_RESTORE && !e->attr_off && !e->attr_tally; st++)
        for (int ty = 0; ty < V10_FU_TYPES; ty++)
            if (fus[st][ty] != e->attr_fus[st][ty]) {
                snprintf(msg, sizeof msg, "attribution's mask of FU state %d, type %d is "
                         "%#llx, the FUs' %#llx", st, ty,
                         (unsigned long long)e->attr_fus[st][ty],
                         (unsigned long long)fus[st][ty]);
                check_fail(e, msg);
            }
    if (e->attr_tally && tally_fus != e->tally_fus) {
        snprintf(msg, sizeof msg, "the tallies' FU word is %#llx, the FUs' %#llx",
                 (unsigned long long)e->tally_fus, (unsigned long long)tally_fus);
        check_fail(e, msg);
    }
    for (int f = 0; f < e->n_fus; f++)
        if ((e->fus[f].state == V10P_FU_FREE) !=
            !!(e->free_fus[eng_fu_word(f)] & eng_fu_bit(f))) {
            snprintf(msg, sizeof msg, "FU %d: free set disagrees with its state", f);
            check_fail(e, msg);
        }
    for (int f = 0, k = 0; f < e->n_fus; f++)
        if ((e->fus[f].state == V10P_FU_BUSY) != (k < e->n_busy && e->busy[k] == f)) {
            snprintf(msg, sizeof msg, "FU %d: busy list disagrees with its state", f);
            check_fail(e, msg);
        } else if (e->fus[f].state == V10P_FU_BUSY) {
            k++;
        }
}

/* Energy adds up at the window's end (energy.c), before the run's end
 * settles the FUs' clocks. */
void eng_check_energy(const v10_engine *e)
{
    char msg[256];
    if (eng_energy_check(e, msg, sizeof msg))
        check_fail(e, msg);
}

void eng_check_end(const v10_engine *e)
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
        /* Completed requests (a server's iterations), plus what the one in
         * service has done. */
        want += (t->llm ? t->llm->iter_work : (double)t->completed * (double)t->req_work) +
                t->req_done_work;
        if (eng_done_count(t) < t->n_requests) {
            snprintf(msg, sizeof msg, "tenant %d completed %llu of %llu requests", i,
                     (unsigned long long)eng_done_count(t), (unsigned long long)t->n_requests);
            check_fail(e, msg);
        }
        if (t->llm) {
            eng_llm_check(e, t, 1, msg, sizeof msg);
            if (msg[0])
                check_fail(e, msg);
        }
    }
    if (fabs(fu_work - t_work) > 1e-6 * want + 1 || fabs(t_work - want) > 1e-6 * want + 1) {
        snprintf(msg, sizeof msg, "work not conserved: FUs %.0f, tenants %.0f, requests %.0f",
                 fu_work, t_work, want);
        check_fail(e, msg);
    }
    /* Attribution (unless the run counts none): each tenant's states add up
     * to the run and the window (one cycle of rounding), and no partner is
     * charged more than a state. */
    double win = (double)(e->win[1].time - e->win[0].time);
    size_t nt = (size_t)e->n_tenants, S = V10_ATTR_STATES;
    for (size_t i = 0; i < nt && !e->attr_off; i++) {
        double run = 0, in_win = 0;
        for (size_t s = 0; s < S; s++) {
            size_t k = i * S + s;
            double lost = 0;
            for (size_t j = 0; j < nt; j++)
                lost += e->attr_lost[k * nt + j];
            if (!eng_attr_in_exec(s)) { /* hbm and partition are within exec's counter */
                run += e->attr[k];
                in_win += e->attr[k] - e->attr_base[k];
            }
            if (lost > e->attr[k] * (1 + 1e-9) + 1e-6) {
                snprintf(msg, sizeof msg, "tenant %zu: %.0f cycles of %s charged to partners, "
                         "%.0f in the state", i, lost, v10_attr_name((v10_attr_state)s),
                         e->attr[k]);
                check_fail(e, msg);
            }
        }
        const tenant *t = &e->tenants[i];
        for (size_t s = 0; t->op_attr && s < S; s++) { /* per operator: the same sums */
            double by_op = 0, own = s == V10_ATTR_IDLE ? 0 : e->attr[i * S + s];
            for (size_t op = 0; op < t->model->n_ops; op++)
                by_op += t->op_attr[op * S + s];
            if (fabs(by_op - own) > 1e-9 * fabs(own) + 1) {
                snprintf(msg, sizeof msg, "tenant %zu: its operators' %s cycles sum to %.1f, "
                         "its own to %.1f", i, v10_attr_name((v10_attr_state)s), by_op, own);
                check_fail(e, msg);
            }
        }
        if (fabs(run - (double)e->now) > 1 || fabs(in_win - win) > 1) {
            snprintf(msg, sizeof msg, "tenant %zu: states sum to %.1f cycles of a %llu-cycle "
                     "run and %.1f of a %.0f-cycle window", i, run,
                     (unsigned long long)e->now, in_win, win);
            check_fail(e, msg);
        }
    }
    if ((double)exec + 1e-6 < fu_work * 0.999999) {
        snprintf(msg, sizeof msg, "FUs executed %llu cycles for %.0f cycles of work",
                 (unsigned long long)exec, fu_work);
        check_fail(e, msg);
    }
}

