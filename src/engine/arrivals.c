/*
 * arrivals.c — requests: each tenant's Poisson arrival stream (its own
 * xoshiro256** generator, seeded by splitmix64 from the run's seed and the
 * tenant's index), its ring of pending requests and the latencies logged
 * in the window; the per-tenant setup.
 */
#include "engine/engine.h"

#include <math.h>
#include <stdlib.h>

#include "util/checked.h"
#include "util/rng.h"

/* ---- arrivals ------------------------------------------------------------------ */

uint64_t eng_interarrival(tenant *t)
{
    double u = v10_xoshiro_unit(t->rng);
    double c = -log1p(-u) / t->rate_per_cycle;
    return c < V10_U64_DOUBLE_MAX ? (uint64_t)llround(c) : UINT64_MAX / 4;
}

/* Doubles a tenant's ring of pending requests, keeping each at its index. */
static int grow_pending(v10_engine *e, tenant *t)
{
    uint64_t cap = t->pend_cap * 2;
    uint64_t *p = malloc(cap * sizeof *p);
    if (!p) {
        e->oom = e->alert = 1;
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
void eng_issue(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    if (t->issued - t->cur_req == t->pend_cap) {
        if (t->pend_cap >= V10_MAX_BACKLOG) {
            e->backlog = ti + 1;
            e->alert = 1;
            return;
        }
        if (grow_pending(e, t))
            return;
    }
    if (t->issued == 0) {
        t->arrive_cycle = e->now; /* V10's total cycles count from here */
        t->score_time = UINT64_MAX;
        if (e->n_arrived++ == 0)
            e->first_arrive = e->now;
        else if (e->now != e->first_arrive)
            e->scores_by_active = 0;
    }
    t->pend[t->issued++ & (t->pend_cap - 1)] = e->now;
    if (t->state == V10P_IDLE) {
        V10_ASSERT(t->cur_req == t->issued - 1);
        t->op = 0;
        t->remaining = 0;
        eng_set_state(e, ti, V10P_READY);
    }
    eng_notify(e, V10_EV_ARRIVAL, ti);
}

/* Records a latency measured in the window. */
void eng_log_latency(v10_engine *e, tenant *t, int ti, uint64_t cycles)
{
    if (v10_hist_add(&t->lat, cycles))
        e->oom = e->alert = 1;
    double slo = e->cfg->tenants[ti].slo_us;
    t->slo_ok += slo > 0 && v10_npu_cycles_to_us(e->npu, (double)cycles) <= slo;
}

void eng_arrival_event(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    eng_issue(e, ti);
    v10_evq_set(&e->evq, eng_slot_tenant(e, ti), e->now + eng_interarrival(t));
}

/* Sets up tenant i: its per-op arrays (the view and the ratios
 * v10_engine_alloc took), its request log and its arrival stream. */
int eng_tenant_setup(v10_engine *e, int i, const v10_model *m, const v10_tenant_spec *sp,
                     v10_err *err)
{
    tenant *t = &e->tenants[i];
    const v10_op_view *v = &e->view[i];
    t->model = m;
    t->work = v->work;
    t->bytes = v->bytes;
    t->fu_of = v->fu;
    t->macs = v->macs;
    t->bpw = e->ratio[i];
    t->act = e->ratio[i] + m->n_ops;
    t->req_work = v->req_work;
    t->priority = sp->priority;
    t->rate_per_cycle = sp->rate_rps / (e->npu->clock_mhz * 1e6);
    t->outstanding = sp->outstanding;
    t->n_requests = e->cfg->requests;
    t->state = V10P_IDLE;
    t->score_time = UINT64_MAX;
    t->fu = -1;
    /* Every chip simulated: a tensor-parallel tenant's shards are one
     * service, whose arrivals chip 0's generator draws for all; a tenant
     * without collectives is its chip's own service, chip 0's drawing what
     * the one simulated chip draws and the others their own. */
    int seed_i = i;
    if (e->n_chips > 1 && (i < e->chip_tenants || sp->llm || (e->collective >> i & 1)))
        seed_i = i % e->chip_tenants;
    t->bar_req = UINT64_MAX;
    v10_xoshiro_seed(t->rng, e->cfg->seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(seed_i + 1)));
    t->pend_cap = 16;
    while (t->pend_cap < t->outstanding)
        t->pend_cap *= 2;
    t->pend = malloc(t->pend_cap * sizeof *t->pend);
    if (!t->pend || v10_hist_init(&t->lat))
        return v10_err_set(err, "out of memory for tenant %d's request log", i);
    return 0;
}

