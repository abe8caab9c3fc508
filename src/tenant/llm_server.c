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

/* KV space held, in tokens, by whole blocks of V10_LLM_KV_BLOCK tokens. */
static uint64_t blocks_of(uint64_t tokens)
{
    return (tokens + V10_LLM_KV_BLOCK - 1) / V10_LLM_KV_BLOCK * V10_LLM_KV_BLOCK;
}

void v10_llm_server_opts_default(v10_llm_server_opts *o)
{
    o->max_batch = 256; /* vLLM's max_num_seqs (EngineArgs, vllm/engine/arg_utils.py) */
    o->max_prefill_tokens = 4096;
    o->chunked = 1; /* vLLM V1's scheduler always chunks prefills */
    o->kv_capacity_tokens = 0;
    o->clock_mhz = 0;
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
    if (!(o->clock_mhz > 0 && o->clock_mhz < 1e6))
        return v10_err_set(err, "LLM server: clock %g MHz out of range (0, 1e6)", o->clock_mhz);
    s->o = *o;
    s->n = n;
    s->r = calloc(n ? n : 1, sizeof *s->r);
    s->run = calloc(o->max_batch, sizeof *s->run);
    s->it_req = calloc(o->max_batch, sizeof *s->it_req);
    s->it_tok = calloc(o->max_batch, sizeof *s->it_tok);
    s->it_past = calloc(o->max_batch, sizeof *s->it_past);
    s->pre = calloc(o->max_batch, sizeof *s->pre);
    if (!s->r || !s->run || !s->it_req || !s->it_tok || !s->it_past || !s->pre) {
        v10_llm_server_fini(s);
        return v10_err_set(err, "LLM server: out of memory for %zu requests", n);
    }
    double per_s = o->clock_mhz * 1e6;
    for (size_t i = 0; i < n; i++) {
        v10_llm_req_state *q = &s->r[i];
        /* Alone, its last decode holds prompt + output - 1 tokens' blocks. */
        uint64_t need = (uint64_t)reqs[i].prompt_tokens + reqs[i].output_tokens;
        if (blocks_of(need - 1) > o->kv_capacity_tokens) {
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

/* Admits waiting requests while the batch and the KV blocks have room for
 * their next iteration: first the preempted ones (the last preempted
 * first, as vLLM puts them back at the front of its queue), then arrivals
 * in order; stops at the first that does not fit (no overtaking). */
static void admit(v10_llm_server *s, uint64_t now)
{
    while (s->n_run < s->o.max_batch && (s->n_pre || s->head < s->arrived)) {
        uint32_t i = s->n_pre ? s->pre[s->n_pre - 1] : (uint32_t)s->head;
        v10_llm_req_state *q = &s->r[i];
        uint64_t need = blocks_of(context_of(q));
        if (s->kv_used + need > s->o.kv_capacity_tokens)
            break;
        s->kv_used += need;
        if (s->kv_used > s->kv_peak)
            s->kv_peak = s->kv_used;
        if (q->admitted == NONE)
            q->admitted = now;
        if (s->n_pre)
            s->n_pre--;
        else
            s->head++;
        s->run[s->n_run++] = i;
    }
}

/* Before a decode: every running request takes the blocks its next token
 * needs; while they do not fit, the newest running request is preempted
 * (vLLM's default, recompute): its blocks are freed and it waits at the
 * front of the queue, to be prefilled again over its prompt and the tokens
 * it emitted.  The oldest is never preempted, so it always progresses. */
static void grow(v10_llm_server *s)
{
    uint64_t need = 0;
    for (uint32_t j = 0; j < s->n_run; j++)
        need += blocks_of(context_of(&s->r[s->run[j]]));
    while (need > s->o.kv_capacity_tokens && s->n_run > 1) {
        uint32_t i = s->run[--s->n_run];
        v10_llm_req_state *q = &s->r[i];
        need -= blocks_of(context_of(q));
        q->prefilled = 0;
        q->computed = 0;
        q->preempted++;
        s->preemptions++;
        s->pre[s->n_pre++] = i;
    }
    s->kv_used = need;
    if (s->kv_used > s->kv_peak)
        s->kv_peak = s->kv_used;
}

/* Appends request i to the iteration being built: `tokens` of it (a
 * decode's context, a prefill's prompt or chunk) after `past` cached. */
static void add(v10_llm_server *s, uint32_t *k, uint32_t i, uint32_t tokens, uint32_t past)
{
    s->it_req[*k] = i;
    s->it_tok[*k] = tokens;
    s->it_past[*k] = past;
    (*k)++;
}

/* Without chunking: every admitted request not yet prefilled (a new
 * prompt, or a preempted request's prompt and emitted tokens), in
 * admission order, whole, within the token budget (always at least one);
 * if there is none, a decode of every running request. */
static void whole(v10_llm_server *s, v10_llm_iter *it)
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
        add(s, &k, s->run[j], t, 0);
        sum += t;
    }
    *it = (v10_llm_iter){V10_LLM_ITER_PREFILL, k, s->it_req, s->it_tok, sum, 0, k, NULL};
    if (k)
        return;
    grow(s);
    for (uint32_t j = 0; j < s->n_run; j++) {
        /* its cache (prompt + emitted, the last emitted token not yet
         * written) plus the token being made */
        uint32_t t = (uint32_t)context_of(&s->r[s->run[j]]);
        add(s, &k, s->run[j], t, 0);
        sum += t;
    }
    *it = (v10_llm_iter){V10_LLM_ITER_DECODE, k, s->it_req, s->it_tok, sum, k, k, NULL};
}

/* Chunked (vLLM V1's scheduler): every prefilled running request decodes,
 * one token of the budget each; what remains of the budget goes to the
 * prompts not yet prefilled, in admission order, each taking what it has
 * left or what remains (so at most the last chunk ends short of its
 * prompt).  Decodes always run, so a long prompt never starves them; when
 * they fill the budget no chunk joins until some finish. */
static void chunked(v10_llm_server *s, v10_llm_iter *it)
{
    grow(s);
    uint32_t k = 0;
    uint64_t ctx = 0;
    for (uint32_t j = 0; j < s->n_run; j++) {
        const v10_llm_req_state *q = &s->r[s->run[j]];
        if (q->prefilled) {
            add(s, &k, s->run[j], (uint32_t)context_of(q), 0);
            ctx += context_of(q);
        }
    }
    uint32_t n_dec = k, n_emit = k;
    uint64_t left = s->o.max_prefill_tokens > k ? s->o.max_prefill_tokens - k : 0, sum = 0;
    for (uint32_t j = 0; j < s->n_run && left; j++) {
        const v10_llm_req_state *q = &s->r[s->run[j]];
        if (q->prefilled)
            continue;
        uint64_t rest = context_of(q) - q->computed, c = rest < left ? rest : left;
        add(s, &k, s->run[j], (uint32_t)c, q->computed);
        n_emit += c == rest;
        left -= c;
        sum += c;
    }
    if (k == n_dec)
        *it = (v10_llm_iter){V10_LLM_ITER_DECODE, k, s->it_req, s->it_tok, ctx, k, k, NULL};
    else
        *it = (v10_llm_iter){V10_LLM_ITER_MIXED, k, s->it_req, s->it_tok, sum, n_dec, n_emit,
                             s->it_past};
}

int v10_llm_server_next(v10_llm_server *s, uint64_t now, v10_llm_iter *it)
{
    while (s->arrived < s->n && s->r[s->arrived].arrival <= now)
        s->arrived++;
    admit(s, now);
    if (s->o.chunked)
        chunked(s, &s->it);
    else
        whole(s, &s->it);
    if (!s->it.n)
        return 0;
    s->in_flight = 1;
    *it = s->it;
    return 1;
}

void v10_llm_server_done(v10_llm_server *s, uint64_t now)
{
    if (!s->in_flight)
        return;
    s->in_flight = 0;
    s->iterations[s->it.kind]++;
    for (uint32_t j = 0; j < s->it.n; j++) {
        v10_llm_req_state *q = &s->r[s->it_req[j]];
        if (j >= s->it.n_decode) { /* a prefill emits once its prompt is all computed */
            q->computed += s->it_tok[j];
            if (q->computed < context_of(q))
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
            s->kv_used -= blocks_of(context_of(q) - 1); /* what its last iteration held */
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
