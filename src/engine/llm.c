/*
 * llm.c — the engine's hooks for LLM servers (docs/llm.md, "Serving
 * tenants"): an LLM tenant's engine request is one serving iteration.  At
 * an iteration's start the server (tenant/llm_server.c) says what it
 * computes and the tenant's operator arrays point at that iteration's
 * stream (built into buffers sized at setup, so nothing is allocated);
 * when its last operator completes (and, for a pipeline's stage 0, the
 * other stages' time has passed) the server is told, and the next
 * iteration starts (after its host time, host_us, if any), or the tenant
 * sleeps until its next arrival (its arrival slot in the event queue).
 */
#include "engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

void eng_llm_wake(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    V10_ASSERT(t->state == V10P_IDLE);
    if (L->remote_wait) { /* the pipeline's other stages are done */
        L->remote_wait = 0;
        iter_finish(e, ti);
        return;
    }
    if (L->host_done) { /* the host time of the iteration chosen before has passed */
        L->host_done = 0;
        L->ops_start = e->now;
        eng_issue(e, ti);
        return;
    }
    v10_llm_iter it;
    if (!v10_llm_server_next(&L->server, e->now, &it)) {
        uint64_t at = v10_llm_server_next_arrival(&L->server);
        V10_ASSERT(at > e->now);
        if (at != UINT64_MAX)
            v10_evq_set(&e->evq, eng_slot_tenant(e, ti), at);
        return;
    }
    /* Sizes were checked at load, and the buffers fit every iteration of
     * the tenant's requests (llm_tenant.c): a failure here can only be
     * memory. */
    if (v10_llm_stream_build(&L->stream, &it, NULL)) {
        e->oom = e->alert = 1;
        return;
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
         * tokens' return) before its operators run: the tenant sleeps
         * until then, no FU held. */
        L->host_done = 1;
        v10_evq_set(&e->evq, eng_slot_tenant(e, ti), e->now + L->host_cycles);
        return;
    }
    L->ops_start = e->now;
    eng_issue(e, ti);
}

/* The iteration has run on every chip: the server is told. */
static void iter_finish(v10_engine *e, int ti)
{
    tenant *t = &e->tenants[ti];
    v10_llm_tenant *L = t->llm;
    const v10_llm_iter *it = &L->server.it;
    int decode = it->kind == V10_LLM_ITER_DECODE; /* a chunked one traces its prefill tokens */
    eng_trace_push(e, decode ? V10_TR_DECODE : V10_TR_PREFILL, L->iter_start, e->now, -1, ti,
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
    L->iter_work += (double)t->req_work;
    t->cur_req++;
    t->completed++;
    t->op = 0;
    t->req_done_work = 0;
    if (!L->counted && v10_llm_server_finished(&L->server)) {
        L->counted = 1;
        t->finish_cycle = e->now;
        e->n_done++;
    }
    eng_set_state(e, ti, V10P_IDLE);
    eng_llm_wake(e, ti);
    eng_notify(e, V10_EV_REQ_DONE, ti);
    eng_check_window(e);
}

void eng_llm_iter_done(v10_engine *e, int ti)
{
    v10_llm_tenant *L = e->tenants[ti].llm;
    uint64_t remote = L->stream.remote_cycles;
    if (remote) {
        /* Pipeline parallelism: the iteration goes on through the other
         * stages' chips, holding none of this chip's FUs, for their
         * standalone time (the stream's remote_cycles), stretched by
         * pp_stretch as this stage was: elapsed over standalone cycles,
         * >= 1 (an operator never runs faster than alone). */
        uint64_t work = L->stream.total_work, took = e->now - L->ops_start;
        if (L->pp_stretch && work && took > work) {
            double c = ceil((double)remote * ((double)took / (double)work));
            double room = (double)(UINT64_MAX - e->now) / 2; /* the clock cannot wrap */
            remote = (uint64_t)(c < room ? c : room);
        }
        eng_set_state(e, ti, V10P_IDLE);
        L->remote_wait = 1;
        v10_evq_set(&e->evq, eng_slot_tenant(e, ti), e->now + remote);
        eng_notify(e, V10_EV_REQ_DONE, ti); /* its task on this chip is done */
        return;
    }
    iter_finish(e, ti);
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
