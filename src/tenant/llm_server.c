/*
 * llm_server.c — continuous batching for an LLM tenant (v10/llm_server.h):
 * the queue, admission under the batch and KV-cache bounds, the choice of
 * each iteration, token accounting, and TTFT/TPOT statistics.
 */
#include "v10/llm_server.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/num.h"

#define NONE UINT64_MAX

/* KV space held, in tokens, by whole blocks of o->kv_block tokens. */
static uint64_t blocks_in(const v10_llm_server_opts *o, uint64_t tokens)
{
    return (tokens + o->kv_block - 1) / o->kv_block * o->kv_block;
}

void v10_llm_server_opts_default(v10_llm_server_opts *o)
{
    o->max_batch = 256; /* vLLM's max_num_seqs (EngineArgs, vllm/engine/arg_utils.py) */
    o->max_prefill_tokens = 4096;
    o->chunked = 1; /* vLLM V1's scheduler always chunks prefills */
    o->kv_capacity_tokens = 0;
    o->clock_mhz = 0;
    o->kv_block = V10_LLM_KV_BLOCK;
    o->max_inflight = 1;
}

int v10_llm_server_init(v10_llm_server *s, const v10_llm_request *reqs, size_t n,
                        const v10_llm_server_opts *o, v10_err *err)
{
    memset(s, 0, sizeof *s);
    if (o->max_batch < 1 || o->max_batch > 1u << 20)
        return v10_err_set(err, "LLM server: max_batch %u out of range [1, 1048576]",
                           o->max_batch);
    if (o->kv_capacity_tokens < 1 || o->max_prefill_tokens < 1)
        return v10_err_set(err, "LLM server: the KV capacity and the prefill budget must "
                                "be at least one token");
    if (o->kv_block < 1)
        return v10_err_set(err, "LLM server: kv_block must be at least one token");
    if (!(o->clock_mhz > 0 && o->clock_mhz < 1e6))
        return v10_err_set(err, "LLM server: clock %g MHz out of range (0, 1e6)", o->clock_mhz);
    if (o->max_inflight < 1 || o->max_inflight > 64)
        return v10_err_set(err, "LLM server: max_inflight %u out of range [1, 64]",
                           o->max_inflight);
    if (o->max_inflight > 1 && !o->chunked)
        return v10_err_set(err, "LLM server: %u iterations in flight need the chunked "
                                "scheduler (chunked prefill)", o->max_inflight);
    s->o = *o;
    s->n = n;
    size_t slots = (size_t)o->max_batch * o->max_inflight; /* <= 2^26 */
    s->r = calloc(n ? n : 1, sizeof *s->r);
    s->run = calloc(o->max_batch, sizeof *s->run);
    s->it_req = calloc(slots, sizeof *s->it_req);
    s->it_tok = calloc(slots, sizeof *s->it_tok);
    s->it_past = calloc(slots, sizeof *s->it_past);
    s->pre = calloc(o->max_batch, sizeof *s->pre);
    s->fly = calloc(o->max_inflight, sizeof *s->fly);
    if (!s->r || !s->run || !s->it_req || !s->it_tok || !s->it_past || !s->pre || !s->fly) {
        v10_llm_server_fini(s);
        return v10_err_set(err, "LLM server: out of memory for %zu requests", n);
    }
    double per_s = o->clock_mhz * 1e6;
    for (size_t i = 0; i < n; i++) {
        v10_llm_req_state *q = &s->r[i];
        /* Alone, its last decode holds prompt + output - 1 tokens' blocks. */
        uint64_t need = (uint64_t)reqs[i].prompt_tokens + reqs[i].output_tokens;
        if (blocks_in(&s->o, need - 1) > o->kv_capacity_tokens) {
            v10_llm_server_fini(s);
            return v10_err_set(err,
                               "LLM request %zu needs %llu KV tokens (prompt %u + output %u) "
                               "but the KV cache holds %llu: it could never finish",
                               i, (unsigned long long)need, reqs[i].prompt_tokens,
                               reqs[i].output_tokens,
                               (unsigned long long)o->kv_capacity_tokens);
        }
        double at = nearbyint(reqs[i].arrival_s * per_s);
        q->arrival = at < V10_U64_DOUBLE_MAX ? (uint64_t)at : NONE - 1;
        if (i && q->arrival < s->r[i - 1].arrival)
            q->arrival = s->r[i - 1].arrival; /* rounding never reorders */
        q->prompt = reqs[i].prompt_tokens;
        q->output = reqs[i].output_tokens;
        q->admitted = q->first_token = q->finished = NONE;
    }
    return 0;
}

void v10_llm_server_fini(v10_llm_server *s)
{
    free(s->r);
    free(s->run);
    free(s->it_req);
    free(s->it_tok);
    free(s->it_past);
    free(s->pre);
    free(s->fly);
    memset(s, 0, sizeof *s);
}

uint64_t v10_llm_server_next_arrival(const v10_llm_server *s)
{
    return s->arrived < s->n ? s->r[s->arrived].arrival : NONE;
}

/* The tokens request q's next iteration has in the cache once it ran: its
 * prompt and every emitted token (the last one's K and V are written by
 * that iteration; a recomputed request's prefill writes them all). */
static uint64_t context_of(const v10_llm_req_state *q)
{
    return (uint64_t)q->prompt + q->emitted;
}

/* The waiting request admitted next: the last preempted, else the first
 * arrival not admitted yet (vLLM puts a preempted request back at the
 * front of its queue); the caller checks that there is one. */
static uint32_t waiting_head(const v10_llm_server *s)
{
    return s->n_pre ? s->pre[s->n_pre - 1] : (uint32_t)s->head;
}

/* Moves waiting_head into the running set at cycle `now`. */
static void admit_head(v10_llm_server *s, uint64_t now)
{
    uint32_t i = waiting_head(s);
    if (s->r[i].admitted == NONE)
        s->r[i].admitted = now;
    if (s->n_pre)
        s->n_pre--;
    else
        s->head++;
    s->run[s->n_run++] = i;
}

#define NO_REQ UINT32_MAX

/* Preempts the newest running request not in flight, among run[lo..]
 * (vLLM's default, recompute): its blocks are freed and it waits at the
 * front of the queue, to be prefilled again over its prompt and the
 * tokens it emitted.  Returns its index, or NO_REQ if each is in flight. */
static uint32_t preempt_newest(v10_llm_server *s, uint32_t lo)
{
    uint32_t j = s->n_run;
    while (j > lo && s->r[s->run[j - 1]].flying)
        j--;
    if (j == lo)
        return NO_REQ;
    uint32_t i = s->run[--j];
    memmove(s->run + j, s->run + j + 1, (--s->n_run - j) * sizeof *s->run);
    v10_llm_req_state *q = &s->r[i];
    s->kv_used -= q->kv_alloc;
    q->kv_alloc = 0;
    q->prefilled = 0;
    q->computed = 0;
    q->preempted++;
    s->preemptions++;
    s->pre[s->n_pre++] = i;
    return i;
}

/* Without chunking: admits waiting requests while the batch and the KV
 * blocks have room for their whole prompt (a preempted request: its
 * prompt and the tokens it emitted), in waiting_head's order; stops at the
 * first that does not fit (no overtaking). */
static void admit(v10_llm_server *s, uint64_t now)
{
    while (s->n_run < s->o.max_batch && (s->n_pre || s->head < s->arrived)) {
        v10_llm_req_state *q = &s->r[waiting_head(s)];
        uint64_t need = blocks_in(&s->o, context_of(q));
        if (s->kv_used + need > s->o.kv_capacity_tokens)
            break;
        s->kv_used += need;
        if (s->kv_used > s->kv_peak)
            s->kv_peak = s->kv_used;
        q->kv_alloc = need;
        admit_head(s, now);
    }
}

/* Without chunking, before a decode: every running request takes the
 * blocks its next token needs; while they do not fit, the newest running
 * request is preempted.  The oldest is never preempted, so it always
 * progresses. */
static void grow(v10_llm_server *s)
{
    uint64_t need = 0;
    for (uint32_t j = 0; j < s->n_run; j++)
        need += blocks_in(&s->o, context_of(&s->r[s->run[j]]));
    while (need > s->o.kv_capacity_tokens && s->n_run > 1) {
        need -= blocks_in(&s->o, context_of(&s->r[s->run[s->n_run - 1]]));
        preempt_newest(s, 0); /* nothing flies without chunks */
    }
    s->kv_used = need;
    for (uint32_t j = 0; j < s->n_run; j++) {
        v10_llm_req_state *q = &s->r[s->run[j]];
        q->kv_alloc = blocks_in(&s->o, context_of(q));
    }
    if (s->kv_used > s->kv_peak)
        s->kv_peak = s->kv_used;
}

/* The arrays of the iteration being built (max_batch each). */
typedef struct arrays {
    uint32_t *req, *tok, *past;
} arrays;

/* Appends request i to the iteration being built: `tokens` of it (a
 * decode's context, a prefill's prompt or chunk) after `past` cached. */
static void add(const arrays *sl, uint32_t *k, uint32_t i, uint32_t tokens, uint32_t past)
{
    sl->req[*k] = i;
    sl->tok[*k] = tokens;
    sl->past[*k] = past;
    (*k)++;
}

/* Without chunking: every admitted request not yet prefilled (a new
 * prompt, or a preempted request's prompt and emitted tokens), in
 * admission order, whole, within the token budget (always at least one);
 * if there is none, a decode of every running request. */
static void whole(v10_llm_server *s, const arrays *sl, v10_llm_iter *it)
{
    uint32_t k = 0;
    uint64_t sum = 0;
    for (uint32_t j = 0; j < s->n_run; j++) {
        const v10_llm_req_state *q = &s->r[s->run[j]];
        if (q->prefilled)
            continue;
        uint32_t t = (uint32_t)context_of(q);
        if (k && sum + t > s->o.max_prefill_tokens)
            break;
        add(sl, &k, s->run[j], t, 0);
        sum += t;
    }
    *it = (v10_llm_iter){V10_LLM_ITER_PREFILL, k, sl->req, sl->tok, sum, 0, k, NULL};
    if (k)
        return;
    grow(s);
    for (uint32_t j = 0; j < s->n_run; j++) {
        /* its cache (prompt + emitted, the last emitted token not yet
         * written) plus the token being made */
        uint32_t t = (uint32_t)context_of(&s->r[s->run[j]]);
        add(sl, &k, s->run[j], t, 0);
        sum += t;
    }
    *it = (v10_llm_iter){V10_LLM_ITER_DECODE, k, sl->req, sl->tok, sum, k, k, NULL};
}

/* The tokens of request q whose K and V are in its cache: a prefilled
 * request's context but the token its next decode makes; else what its
 * prefill has computed or has in flight. */
static uint64_t cached_of(const v10_llm_req_state *q)
{
    return q->prefilled ? context_of(q) - 1 : q->computed;
}

/* vLLM V1's KVCacheManager.allocate_slots (vllm/v1/core/kv_cache_manager.py):
 * gives request q the blocks for its cached tokens and the n it is
 * scheduled to compute, beyond those it holds; 0 (nothing taken) if the
 * free blocks cannot hold them. */
static int alloc_slots(v10_llm_server *s, v10_llm_req_state *q, uint64_t n)
{
    uint64_t want = blocks_in(&s->o, cached_of(q) + n);
    if (want <= q->kv_alloc)
        return 1;
    if (s->kv_used + (want - q->kv_alloc) > s->o.kv_capacity_tokens)
        return 0;
    s->kv_used += want - q->kv_alloc;
    q->kv_alloc = want;
    if (s->kv_used > s->kv_peak)
        s->kv_peak = s->kv_used;
    return 1;
}

/*
 * Chunked: one step of vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py,
 * Scheduler.schedule, FCFS, no prefix caching).  First the running
 * requests in admission order while the budget lasts: each is scheduled
 * the tokens it has left (a decode one, a prefill the rest of its prompt
 * and emitted tokens) or what remains of the budget, after allocate_slots
 * for them; while that fails the newest running request is preempted, and
 * if that is the request itself scheduling the running ones stops.  A
 * request in an iteration in flight is not preempted, and is scheduled
 * again only for the next chunk of its prompt: its next token waits for
 * the last (vLLM V1 with a batch queue advances a request's computed
 * tokens as it schedules them, so a pipeline's next batch may carry a
 * prompt's next chunk, and a decode needs the token sampled).  Then,
 * only on a step that preempted nobody, waiting requests in waiting_head's
 * order while the batch and the budget have room, each scheduled its
 * first chunk (its whole prompt, or what remains of the budget) if
 * allocate_slots finds the blocks for it, stopping at the first that does
 * not fit.  The iteration lists the decodes first, then the chunks in the
 * order they were scheduled: only the last can end short of its prompt
 * (the budget ran out there).
 */
static void chunked(v10_llm_server *s, const arrays *sl, uint64_t now, v10_llm_iter *it)
{
    uint64_t budget = s->o.max_prefill_tokens, ctx = 0, sum = 0;
    uint32_t d = 0, top = s->o.max_batch, n_emit = 0; /* chunks from the top down */
    int preempted = 0;
    for (uint32_t j = 0; j <= s->n_run && budget; j++) {
        int running = j < s->n_run;
        if (!running) { /* the waiting requests, on a step that preempted nobody */
            if (preempted || s->n_run >= s->o.max_batch || !(s->n_pre || s->head < s->arrived))
                break;
            v10_llm_req_state *q = &s->r[waiting_head(s)];
            if (!alloc_slots(s, q, context_of(q) < budget ? context_of(q) : budget))
                break;
            admit_head(s, now); /* now running, at index j */
        }
        uint32_t i = s->run[j];
        v10_llm_req_state *q = &s->r[i];
        uint64_t left = q->prefilled ? 1 : context_of(q) - q->computed;
        if (q->flying && (q->prefilled || !left))
            continue; /* its next token waits for its iteration in flight */
        uint64_t n = left < budget ? left : budget;
        if (running) {
            int ok;
            while (!(ok = alloc_slots(s, q, n))) {
                /* the newest after those scheduled (itself if not in flight) */
                uint32_t v = preempt_newest(s, j + (q->flying > 0));
                if (v == NO_REQ)
                    break;
                preempted = 1;
                if (v == i)
                    break;
            }
            if (!ok)
                break;
        }
        budget -= n;
        if (q->prefilled) {
            add(sl, &d, i, (uint32_t)context_of(q), 0);
            ctx += context_of(q);
        } else {
            top--;
            sl->req[top] = i;
            sl->tok[top] = (uint32_t)n;
            sl->past[top] = q->computed;
            q->computed += (uint32_t)n;
            sum += n;
        }
        n_emit += n == left;
    }
    /* The chunks, scheduled top-down from max_batch, go after the decodes
     * in scheduling order. */
    uint32_t c = s->o.max_batch - top;
    for (uint32_t a = top, b = s->o.max_batch - 1; a < b; a++, b--) {
        uint32_t t;
        t = sl->req[a], sl->req[a] = sl->req[b], sl->req[b] = t;
        t = sl->tok[a], sl->tok[a] = sl->tok[b], sl->tok[b] = t;
        t = sl->past[a], sl->past[a] = sl->past[b], sl->past[b] = t;
    }
    memmove(sl->req + d, sl->req + top, c * sizeof *sl->req);
    memmove(sl->tok + d, sl->tok + top, c * sizeof *sl->tok);
    memmove(sl->past + d, sl->past + top, c * sizeof *sl->past);
    if (!c)
        *it = (v10_llm_iter){V10_LLM_ITER_DECODE, d, sl->req, sl->tok, ctx, d, d, NULL};
    else
        *it = (v10_llm_iter){V10_LLM_ITER_MIXED, d + c, sl->req, sl->tok, sum, d, n_emit,
                             sl->past};
}

int v10_llm_server_next(v10_llm_server *s, uint64_t now, v10_llm_iter *it)
{
    while (s->arrived < s->n && s->r[s->arrived].arrival <= now)
        s->arrived++;
    if (s->n_fly == s->o.max_inflight)
        return 0;
    uint32_t k = (s->fly_head + s->n_fly) % s->o.max_inflight;
    size_t at = (size_t)k * s->o.max_batch;
    const arrays sl = {s->it_req + at, s->it_tok + at, s->it_past + at};
    v10_llm_iter *f = &s->fly[k];
    if (s->o.chunked) {
        chunked(s, &sl, now, f);
    } else {
        admit(s, now);
        whole(s, &sl, f);
    }
    if (!f->n)
        return 0;
    for (uint32_t j = 0; j < f->n; j++)
        s->r[f->req[j]].flying++;
    s->n_fly++;
    *it = *f;
    return 1;
}

void v10_llm_server_done(v10_llm_server *s, uint64_t now)
{
    if (!s->n_fly)
        return;
    const v10_llm_iter *f = &s->fly[s->fly_head];
    s->fly_head = (s->fly_head + 1) % s->o.max_inflight;
    s->n_fly--;
    s->iterations[f->kind]++;
    for (uint32_t j = 0; j < f->n; j++) {
        v10_llm_req_state *q = &s->r[f->req[j]];
        q->flying--;
        if (j >= f->n_decode) { /* a prefill emits once its prompt is all computed */
            if ((f->past ? f->past[j] : 0) + f->tokens[j] < context_of(q))
                continue;
            q->prefilled = 1;
        }
        if (q->emitted == 0)
            q->first_token = now;
        q->emitted++;
        s->tokens_emitted++;
        if (q->emitted == q->output)
            q->finished = now;
    }
    /* Finished requests leave; the rest keep their admission order. */
    uint32_t w = 0;
    for (uint32_t j = 0; j < s->n_run; j++) {
        v10_llm_req_state *q = &s->r[s->run[j]];
        if (q->finished != NONE) {
            s->kv_used -= q->kv_alloc;
            q->kv_alloc = 0;
            s->finished++;
        } else {
            s->run[w++] = s->run[j];
        }
    }
    s->n_run = w;
}

/* Nearest-rank percentiles and the mean of v[0..n), sorted in place; NAN
 * for each without a sample (printed as null, "-" or an empty cell). */
static void dist(double *v, size_t n, v10_llm_dist *d)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    if (!n) {
        d->avg = d->p50 = d->p95 = d->p99 = NAN;
        return;
    }
    v10_sort_doubles(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    d->avg = sum / (double)n;
    const double p[3] = {0.50, 0.95, 0.99};
    double *out[3] = {&d->p50, &d->p95, &d->p99};
    for (int i = 0; i < 3; i++) {
        size_t rank = (size_t)ceil(p[i] * (double)n);
        *out[i] = v[(rank ? rank : 1) - 1];
    }
}

/* 1 if request q finished in cycles [from, to) (to == 0: no end). */
static int in_window(const v10_llm_req_state *q, uint64_t from, uint64_t to)
{
    return q->finished != NONE && q->finished >= from && (!to || q->finished < to);
}

/* Request q's TPOT, µs per token (output > 1). */
static double tpot_of(const v10_llm_req_state *q, double us)
{
    return (double)(q->finished - q->first_token) * us / (q->output - 1);
}

int v10_llm_server_stats(const v10_llm_server *s, uint64_t from, uint64_t to,
                         double slo_ttft_us, double slo_tpot_us, v10_llm_stats *st,
                         v10_err *err)
{
    memset(st, 0, sizeof *st);
    size_t cap = s->n ? s->n : 1;
    double *ttft = malloc(cap * sizeof *ttft), *tpot = malloc(cap * sizeof *tpot);
    double *e2e = malloc(cap * sizeof *e2e), *queue = malloc(cap * sizeof *queue);
    if (!ttft || !tpot || !e2e || !queue) {
        free(ttft), free(tpot), free(e2e), free(queue);
        return v10_err_set(err, "LLM statistics: out of memory for %zu requests", s->n);
    }
    double us = 1.0 / s->o.clock_mhz; /* µs per cycle */
    size_t n = 0, n_tpot = 0, ok_ttft = 0, ok_tpot = 0;
    for (size_t i = 0; i < s->n; i++) {
        const v10_llm_req_state *q = &s->r[i];
        if (!in_window(q, from, to))
            continue;
        if (!n || q->arrival < st->first_arrival)
            st->first_arrival = q->arrival;
        if (q->finished > st->last_finish)
            st->last_finish = q->finished;
        ttft[n] = (double)(q->first_token - q->arrival) * us;
        e2e[n] = (double)(q->finished - q->arrival) * us;
        queue[n] = (double)(q->admitted - q->arrival) * us;
        ok_ttft += slo_ttft_us > 0 && ttft[n] <= slo_ttft_us;
        st->tokens += q->output;
        if (q->output > 1) {
            tpot[n_tpot] = tpot_of(q, us);
            ok_tpot += slo_tpot_us > 0 && tpot[n_tpot] <= slo_tpot_us;
            n_tpot++;
        }
        n++;
    }
    st->completed = n;
    st->slo_ttft = slo_ttft_us > 0 && n ? (double)ok_ttft / (double)n : -1;
    st->slo_tpot = slo_tpot_us > 0 && n_tpot ? (double)ok_tpot / (double)n_tpot : -1;
    dist(ttft, n, &st->ttft);
    dist(tpot, n_tpot, &st->tpot);
    dist(e2e, n, &st->e2e);
    dist(queue, n, &st->queue);
    st->kv_peak = s->kv_peak;
    st->prefills = s->iterations[V10_LLM_ITER_PREFILL] + s->iterations[V10_LLM_ITER_MIXED];
    st->decodes = s->iterations[V10_LLM_ITER_DECODE];
    st->kv_preemptions = s->preemptions;
    free(ttft), free(tpot), free(e2e), free(queue);
    return 0;
}

int v10_llm_server_samples(const v10_llm_server *s, uint64_t from, uint64_t to, double **ttft,
                           size_t *n_ttft, double **tpot, size_t *n_tpot, v10_err *err)
{
    size_t cap = s->n ? s->n : 1;
    *ttft = malloc(cap * sizeof **ttft);
    *tpot = malloc(cap * sizeof **tpot);
    *n_ttft = *n_tpot = 0;
    if (!*ttft || !*tpot) {
        free(*ttft), free(*tpot);
        *ttft = *tpot = NULL;
        return v10_err_set(err, "LLM samples: out of memory for %zu requests", s->n);
    }
    double us = 1.0 / s->o.clock_mhz;
    for (size_t i = 0; i < s->n; i++) {
        const v10_llm_req_state *q = &s->r[i];
        if (!in_window(q, from, to))
            continue;
        (*ttft)[(*n_ttft)++] = (double)(q->first_token - q->arrival) * us;
        if (q->output > 1)
            (*tpot)[(*n_tpot)++] = tpot_of(q, us);
    }
    return 0;
}
