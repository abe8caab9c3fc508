/*
 * api.c — the engine's side of engine/policy_api.h: what a policy may ask
 * about tenants and FUs.  The actions (v10p_preempt, ...) live with the FUs
 * in fu.c, the timer with them.
 */
#include "engine/engine.h"

uint64_t v10p_now(const v10_engine *e) { return e->now; }
int v10p_n_tenants(const v10_engine *e) { return e->n_tenants; }
int v10p_chip_tenants(const v10_engine *e) { return e->chip_tenants; }
int v10p_n_fus(const v10_engine *e) { return e->n_fus; }
int v10p_n_phys(const v10_engine *e, v10_fu_type type) { return e->n_phys[type]; }
const v10_npu *v10p_npu(const v10_engine *e) { return e->npu; }
const v10_policy_params *v10p_params(const v10_engine *e) { return &e->cfg->params; }

v10p_tstate v10p_state(const v10_engine *e, int t) { return e->tenants[t].state; }
double v10p_priority(const v10_engine *e, int t) { return e->tenants[t].priority; }
int v10p_next_fu(const v10_engine *e, int t) { return e->tenants[t].fu_of[e->tenants[t].op]; }

uint64_t v10p_arrival(const v10_engine *e, int t)
{
    const tenant *x = &e->tenants[t];
    return x->pend[x->cur_req & (x->pend_cap - 1)];
}

uint64_t v10p_req_work(const v10_engine *e, int t) { return e->tenants[t].req_work; }

double v10p_req_left(const v10_engine *e, int t)
{
    return (double)e->tenants[t].req_work - e->tenants[t].req_done_work;
}

/* V10 Algorithm 1's score of tenant ti, memoized per cycle: a policy asks
 * for the same scores many times in one event, and a tenant's active
 * cycles (eng_active_cycles) change only as the clock moves: an FU
 * starting or stopping at `now` adds 0 then.  The engine behind `e` is
 * never const, so the memo written through the cast is defined behaviour;
 * no policy can observe it.  Inlined into the calls below, which score
 * many tenants per call (a pick, a tick) instead of one call each. */
static inline double score_of(const v10_engine *e, int ti)
{
    tenant *t = &((v10_engine *)e)->tenants[ti];
    if (t->score_time == e->now)
        return t->score;
    uint64_t total = e->now - t->arrive_cycle;
    double rate = total ? (double)eng_active_cycles(e, t) / (double)total : 0.0;
    t->score_time = e->now;
    t->score = rate / t->priority;
    return t->score;
}

double v10p_score(const v10_engine *e, int ti) { return score_of(e, ti); }

void v10p_scores(const v10_engine *e, uint64_t mask, double *score)
{
    for (; mask; mask &= mask - 1) {
        int i = __builtin_ctzll(mask);
        score[i] = score_of(e, i);
    }
}

/*
 * Whether the arrived tenants' scores order as their active cycles do,
 * ties included, so that a comparison of scores may compare active cycles
 * and skip a score's two divisions.  While e->scores_by_active (every
 * priority is 1, every tenant arrived at first_arrive; in a closed loop
 * all at cycle 0) each score is fl(a / T) for one total T = now -
 * first_arrive, and a <= T.  Equal a give equal scores; a < b give
 * fl(a / T) < fl(b / T) if T > 0 and b < 2^51, since b/T - a/T >= 1/T is
 * at least two ulps of b/T, so the two round apart.  (At T = 0 every
 * score is 0, so active cycles do not order them.)
 */
static inline int scores_by_active(const v10_engine *e)
{
    uint64_t total = e->now - e->first_arrive;
    return e->scores_by_active && total > 0 && total < 1ull << 51;
}

/* Keys in the scores' order: with scores_by_active, the active cycles
 * (below 2^51, so exact as a double, and converted as a signed integer,
 * one instruction where an unsigned one takes a branch); a tenant not
 * RUNNING holds no FU (engine.h), so its active cycles are active_key's
 * upper bits, read from one array; a RUNNING one's add its FU's current
 * interval (eng_active_cycles).  Else the scores. */
void v10p_score_keys(const v10_engine *e, uint64_t mask, double *key)
{
    if (!scores_by_active(e)) {
        for (; mask; mask &= mask - 1) {
            int i = __builtin_ctzll(mask);
            key[i] = score_of(e, i);
        }
        return;
    }
    for (uint64_t m = mask & ~e->running; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        key[i] = (double)(int64_t)(e->active_key[i] >> 6);
    }
    for (uint64_t m = mask & e->running; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        key[i] = (double)(int64_t)eng_active_cycles(e, &e->tenants[i]);
    }
}

_Static_assert(V10_MAX_TENANTS <= 64, "engine.h's active_key packs a tenant's index in six bits");

int v10p_lowest_score(const v10_engine *e, uint64_t cand)
{
    int best = __builtin_ctzll(cand);
    uint64_t rest = cand & (cand - 1);
    if (!rest)
        return best; /* the usual case: no score to compare */
    if (scores_by_active(e)) {
        /* A candidate is READY, so it holds no FU (engine.h; --check
         * verifies it) and its active cycles are t->active_cycles, below
         * 2^51, which e->active_key holds above its index: the least key
         * is the least active cycles, ties the lower index, found with
         * conditional moves (no branch on the keys), no conversion to
         * double and no read of the tenants' records. */
        uint64_t lo = e->active_key[best];
        for (; rest; rest &= rest - 1) {
            uint64_t k = e->active_key[__builtin_ctzll(rest)];
            lo = k < lo ? k : lo;
        }
        return (int)(lo & 63);
    }
    double best_k = score_of(e, best);
    for (; rest; rest &= rest - 1) { /* ascending: ties keep the lower index */
        int i = __builtin_ctzll(rest);
        double k = score_of(e, i);
        if (k < best_k) {
            best_k = k;
            best = i;
        }
    }
    return best;
}

double v10p_cycles_to_score(const v10_engine *e, int ti, double s)
{
    const tenant *t = &e->tenants[ti];
    return s * t->priority * (double)(e->now - t->arrive_cycle) -
           (double)eng_active_cycles(e, t);
}

int v10p_eligible(const v10_engine *e, int t, int f) { return eng_eligible(e, t, f); }
uint64_t v10p_eligible_mask(const v10_engine *e, int f) { return eng_eligible_mask(e, f); }
uint64_t v10p_ready_mask(const v10_engine *e, v10_fu_type type) { return e->ready[type]; }

/* An FU holds a tenant's operator iff the tenant is RUNNING (engine.h),
 * so the RUNNING set answers without walking the FUs. */
uint64_t v10p_core_clear_mask(const v10_engine *e)
{
    uint64_t all = eng_all_tenants(e);
    if (!e->running)
        return all;
    return e->running & (e->running - 1) ? 0 : e->running; /* one holder: only it */
}

int v10p_core_clear_for(const v10_engine *e, int t) { return v10p_core_clear_mask(e) >> t & 1; }

v10_fu_type v10p_fu_type(const v10_engine *e, int f) { return e->fus[f].type; }
int v10p_fu_chip(const v10_engine *e, int f) { return f / e->fus_per_chip; }
int v10p_fu_owner(const v10_engine *e, int f) { return e->fus[f].owner; }
int v10p_fu_tenant(const v10_engine *e, int f) { return e->fus[f].tenant; }
v10p_fstate v10p_fu_state(const v10_engine *e, int f) { return e->fus[f].state; }
/* A gang's follower stops with its leader (fu.c). */
int v10p_fu_stopping(const v10_engine *e, int f)
{
    const fu *u = &e->fus[f];
    return e->fus[eng_follower(u) ? u->lead : f].stopping;
}
