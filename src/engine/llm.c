/*
 * llm.c — the engine's hooks for LLM servers (docs/llm.md, "Serving
 * tenants"): an LLM tenant's engine request is one serving iteration.  At
 * an iteration's start the server (tenant/llm_server.c) says what it
 * computes and the tenant's operator arrays point at that iteration's
 * stream (built into buffers sized at setup, so nothing is allocated);
 * when its last operator completes the server is told, and the next
 * iteration starts (after its host time, host_us, if any), or the tenant
 * sleeps until its next arrival (its slot in the event queue).  A
 * pipeline's stage 0 sends the iteration on through the other stages
 * (each a queue in turn, standalone time stretched as stage 0's) and
 * starts its next, up to pp_batches in flight; the server is told when
 * an iteration is back from the last stage (the same slot wakes the
 * tenant for it).
 */
#include "engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE UINT64_MAX

static void iter_finish(v10_engine *e, int ti);

int eng_llm_setup(v10_engine *e, int i, v10_err *err)
{
    tenant *t = &e->tenants[i];
    v10_llm_tenant *L = &e->llm[i];
    if (!e->llm || !L->n)
        return v10_err_set(err, "tenant %d (%s): its LLM server was not loaded", i,
                           e->cfg->tenants[i].model);
    t->llm = L;
    t->model = &L->stream.model;
    t->work = L->stream.work; /* the last stream built: every array initialized */
    t->bytes = L->stream.bytes;
    t->fu_of = L->stream.fu;
    t->macs = L->stream.macs;
    t->bpw = t->act = NULL; /* an iteration's few operators: computed as each starts */
    t->req_work = L->stream.total_work;
    t->rate_per_cycle = 0;
    t->outstanding = 0;
    t->n_requests = L->n;
    return 0;
}

/* Schedules tenant ti's slot at t, or cancels it for NONE; an entry
 * already at t stays where it is (moving it would put it after the
 * others scheduled at t). */
static void set_slot(v10_engine *e, int ti, uint64_t t)
{
    int slot = eng_slot_tenant(e, ti);
    if (t == NONE)
        v10_evq_cancel(&e->evq, slot);
    else if (!v10_evq_scheduled(&e->evq, slot) || e->evq.time[slot] != t)
        v10_evq_set(&e->evq, slot, t);
}

/* When tenant ti's slot fires next: the oldest iteration away coming
 * back; its host time passing; or, free on this chip with room in the
 * pipeline and nothing to run (`starved`), the next arrival. */
static void wake_at(v10_engine *e, int ti, int starved)
{
    const v10_llm_tenant *L = e->tenants[ti].llm;
    uint64_t t = L->n_away ? L->back[L->away_head] : NONE;
    if (L->host_wait && L->host_at < t)
        t = L->host_at;
    if (starved) {
        uint64_t at = v10_llm_server_next_arrival(&L->server);
        V10_ASSERT(at > e->now);
        t = at < t ? at : t;
    }
    set_slot(e, ti, t);
}

/* Tenant ti is free on this chip and the pipeline has room: its next
 * iteration, if the server has one to run, is chosen and issued (after its
 * host time, host_us, if any).  Returns 0 if there is none. */
static int start_next(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    v10_llm_iter it;
    if (!v10_llm_server_next(&L->server, e->now, &it))
        return 0;
    /* Sizes were checked at load, and the buffers fit every iteration of
     * the tenant's requests (llm_tenant.c): a failure here can only be
     * memory. */
    if (v10_llm_stream_build(&L->stream, &it, NULL)) {
        e->oom = e->alert = 1;
        return 1;
    }
    t->work = L->stream.work;
    t->bytes = L->stream.bytes;
    t->fu_of = L->stream.fu;
    t->macs = L->stream.macs;
    t->req_work = L->stream.total_work;
    L->iter_start = e->now;
    if (L->host_cycles) {
        /* host_us: the serving runtime's host work for the iteration
         * (scheduling, input preparation, its launch and the sampled
         * tokens' return) before its operators run: the tenant waits
         * until then, no FU held. */
        L->host_wait = 1;
        L->host_at = e->now + L->host_cycles;
        return 1;
    }
    L->ops_start = e->now;
    eng_issue(e, ti);
    return 1;
}

/* Tenant ti is free on this chip: its next iteration if the pipeline has
 * room and the server one to run, and its slot at the next thing it
 * waits for (with room and nothing to run, the next arrival too). */
static void start_or_wait(v10_engine *e, int ti)
{
    const v10_llm_tenant *L = e->tenants[ti].llm;
    int room = L->n_away < L->pp_batches;
    wake_at(e, ti, room && !start_next(e, ti));
}

/* Tenant ti's slot: the iterations back from the other stages by now end
 * (oldest first); a host time passed issues its iteration; a tenant free
 * on this chip starts its next iteration if it can.  Also the first call,
 * at the run's start. */
void eng_llm_wake(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    int back = 0;
    while (L->n_away && L->back[L->away_head] <= e->now) {
        iter_finish(e, ti); /* free here, it starts what it can and schedules the slot */
        back = 1;
    }
    if (L->host_wait && L->host_at <= e->now) {
        L->host_wait = 0;
        L->ops_start = e->now;
        eng_issue(e, ti);
        wake_at(e, ti, 0);
    } else if (t->state != V10P_IDLE || L->host_wait) {
        wake_at(e, ti, 0); /* busy here: the iterations away, the host time */
    } else if (!back) {
        start_or_wait(e, ti); /* an arrival, or the run's start */
    }
}

/* The oldest iteration away is back (or, without a pipeline, this chip's
 * operators are done): it has run on every chip, and the server is told;
 * a tenant free on this chip starts its next iteration. */
static void iter_finish(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    const v10_llm_iter *it = v10_llm_server_oldest(&L->server);
    uint64_t started = L->iter_start;
    if (L->n_away) {
        started = L->started[L->away_head];
        L->away_head = (L->away_head + 1) % L->pp_batches;
        L->n_away--;
    }
    int decode = it->kind == V10_LLM_ITER_DECODE; /* a chunked one traces its prefill tokens */
    eng_trace_push(e, decode ? V10_TR_DECODE : V10_TR_PREFILL, started, e->now, -1, ti,
                   (uint32_t)(decode ? it->n : it->token_sum));
    if (e->cfg->check) {
        /* Tokens in order: a prefill (or chunk of one) is of a request
         * that has emitted nothing (or, recomputing a preempted request,
         * not all), a decode of one that emitted at least its first token
         * and not its last; each sequence emits at most one. */
        for (uint32_t k = 0; k < it->n; k++) {
            const v10_llm_req_state *r = &L->server.r[it->req[k]];
            int prefill = k >= it->n_decode;
            int first_ok = r->emitted == 0 || (r->preempted && r->emitted < r->output);
            if (prefill ? !first_ok : (r->emitted < 1 || r->emitted >= r->output)) {
                fprintf(stderr, "v10sim: invariant violated at cycle %llu: tenant %d: request "
                                "%u emits out of order (%u of %u emitted, %s)\n",
                        (unsigned long long)e->now, ti, it->req[k], r->emitted, r->output,
                        prefill ? "prefill" : "decode");
                abort();
            }
        }
    }
    uint64_t before = L->server.tokens_emitted, n = it->n_emit;
    v10_llm_server_done(&L->server, e->now);
    V10_ASSERT(L->server.tokens_emitted == before + n);
    if (!L->counted && v10_llm_server_finished(&L->server)) {
        L->counted = 1;
        t->finish_cycle = e->now;
        e->n_done++;
    }
    if (t->state == V10P_IDLE && !L->host_wait) {
        /* Free here: its next iteration (the busy one's task on this chip
         * goes on, and its slot is scheduled by the caller). */
        start_or_wait(e, ti);
        eng_notify(e, V10_EV_REQ_DONE, ti);
    }
    eng_check_window(e);
}

/* An iteration sent on at `at` to the pipeline's other stages, each
 * taking its standalone time (with `stretch`, x times that: the cycles up
 * to each stage's end stretched, rounded up):
 * stage s starts it once it is done with the iterations sent before.
 * Returns when the last stage is done with it. */
static uint64_t through_stages(v10_llm_tenant *L, uint64_t at, int stretch, double x)
{
    const v10_llm_stream *st = &L->stream;
    uint32_t pp = st->cfg.pp;
    uint64_t done = 0; /* the stretched standalone cycles of stages 1..s */
    double room = (double)(UINT64_MAX - at) / 2; /* the clock cannot wrap */
    for (uint32_t s = 1; s < pp; s++) {
        uint64_t upto = s + 1 < pp ? st->remote_mid * s : st->remote_cycles;
        if (stretch) {
            double c = ceil((double)upto * x);
            upto = (uint64_t)(c < room ? c : room);
        }
        uint64_t start = at > L->stage_free[s] ? at : L->stage_free[s];
        at = L->stage_free[s] = start + (upto - done);
        done = upto;
    }
    return at;
}

void eng_llm_iter_done(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    /* This chip's part of the iteration is done. */
    L->iter_work += (double)t->req_work;
    t->cur_req++;
    t->completed++;
    t->op = 0;
    t->req_done_work = 0;
    eng_set_state(e, ti, V10P_IDLE);
    if (!L->stream.remote_cycles) {
        iter_finish(e, ti);
        return;
    }
    /* Pipeline parallelism: the iteration goes on through the other
     * stages' chips, holding none of this chip's FUs, for their
     * standalone time (the stream's remote_cycles), stretched by
     * pp_stretch as this stage was: elapsed over standalone cycles,
     * >= 1 (an operator never runs faster than alone). */
    uint64_t work = L->stream.total_work, took = e->now - L->ops_start;
    int stretch = L->pp_stretch && work && took > work;
    uint32_t k = (L->away_head + L->n_away++) % L->pp_batches;
    L->back[k] = through_stages(L, e->now, stretch, stretch ? (double)took / (double)work : 1);
    L->started[k] = L->iter_start;
    start_or_wait(e, ti);
    eng_notify(e, V10_EV_REQ_DONE, ti); /* its task on this chip is done */
}

/* --check: the KV cache within capacity and the batch bound (after every
 * event, in constant time); at the end, every request finished with all
 * its tokens, in order, and the tokens counted once. */
void eng_llm_check(const v10_engine *e, const tenant *t, int end, char *msg, size_t cap)
{
    const v10_llm_server *s = &t->llm->server;
    int ti = (int)(t - e->tenants);
    msg[0] = 0;
    if (s->kv_used > s->o.kv_capacity_tokens || s->n_run > s->o.max_batch) {
        snprintf(msg, cap, "tenant %d: KV cache %llu of %llu tokens, batch %u of %u", ti,
                 (unsigned long long)s->kv_used, (unsigned long long)s->o.kv_capacity_tokens,
                 s->n_run, s->o.max_batch);
        return;
    }
    if (!end)
        return;
    uint64_t sum = 0;
    for (size_t k = 0; k < s->n; k++) {
        const v10_llm_req_state *r = &s->r[k];
        sum += r->emitted;
        int bad = r->emitted != r->output || r->finished == UINT64_MAX ||
                  r->arrival > r->admitted || r->admitted > r->first_token ||
                  r->first_token > r->finished;
        if (bad) {
            snprintf(msg, cap, "tenant %d: request %zu emitted %u of %u tokens", ti, k,
                     r->emitted, r->output);
            return;
        }
    }
    if (sum != s->tokens_emitted)
        snprintf(msg, cap, "tenant %d: %llu tokens emitted, requests count %llu", ti,
                 (unsigned long long)s->tokens_emitted, (unsigned long long)sum);
}
