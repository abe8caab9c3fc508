/*
 * test_llm_server.c — continuous batching (v10/llm_server.h): a lone
 * request's iterations and latencies in closed form; admission under the
 * batch bound, the KV-cache bound and first-come first-served order; the
 * prefill token budget; idleness between arrivals; statistics against
 * hand-computed percentiles and SLO fractions; refused configurations;
 * chunked prefill step by step (running requests first, a long prompt over
 * several iterations, its first token with its last chunk) and its stream;
 * vLLM V1's order, preemptions and KV blocks on a hand-built trace; and
 * invariants over seeded random request streams, whole and chunked (every
 * token emitted exactly once and in order, the budget kept, no decode
 * starved, the KV cache never over capacity, every request finished).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "v10/cost.h"
#include "v10/llm_server.h"

#define NONE UINT64_MAX

/* 1 MHz: one cycle per µs, so arrival seconds x 1e6 = cycles. */
static v10_llm_server_opts opts(uint32_t max_batch, uint64_t kv)
{
    v10_llm_server_opts o;
    v10_llm_server_opts_default(&o);
    o.max_batch = max_batch;
    o.kv_capacity_tokens = kv;
    o.clock_mhz = 1.0;
    o.chunked = 0; /* whole prompts; test_chunked_* set it */
    return o;
}

static void init(v10_llm_server *s, const v10_llm_request *r, size_t n, v10_llm_server_opts o)
{
    v10_err err = {{0}};
    if (v10_llm_server_init(s, r, n, &o, &err))
        fail_msg("%s", err.msg);
}

static v10_llm_iter next(v10_llm_server *s, uint64_t now)
{
    v10_llm_iter it;
    assert_int_equal(v10_llm_server_next(s, now, &it), 1);
    return it;
}

/* One request, prompt 100, output 5, arriving at 10 µs; iterations of 1000
 * cycles: a prefill of 100 tokens, then decodes over 101..104 tokens. */
static void test_lone_request(void **state)
{
    (void)state;
    v10_llm_request r = {10e-6, 100, 5};
    v10_llm_server s;
    init(&s, &r, 1, opts(4, 1000));
    v10_llm_iter it;
    assert_int_equal(v10_llm_server_next(&s, 0, &it), 0); /* not arrived */
    assert_int_equal(v10_llm_server_next_arrival(&s), 10);
    uint64_t t = 10;
    it = next(&s, t);
    assert_int_equal(it.kind, V10_LLM_ITER_PREFILL);
    assert_int_equal(it.n, 1);
    assert_int_equal(it.tokens[0], 100);
    t += 1000;
    v10_llm_server_done(&s, t);
    assert_int_equal(s.r[0].first_token, 1010);
    for (uint32_t k = 1; k < 5; k++) {
        it = next(&s, t);
        assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
        assert_int_equal(it.n, 1);
        assert_int_equal(it.tokens[0], 100 + k);
        assert_int_equal(it.token_sum, 100 + k);
        t += 1000;
        v10_llm_server_done(&s, t);
    }
    assert_true(v10_llm_server_finished(&s));
    assert_int_equal(v10_llm_server_next(&s, t, &it), 0);
    assert_int_equal(s.kv_used, 0);

    v10_llm_stats st;
    v10_err err = {{0}};
    assert_int_equal(v10_llm_server_stats(&s, 0, 0, 1000, 1000, &st, &err), 0);
    assert_int_equal(st.completed, 1);
    assert_int_equal(st.tokens, 5);
    assert_float_equal(st.ttft.avg, 1000, 1e-9);        /* 1010 - 10 */
    assert_float_equal(st.tpot.p99, 1000, 1e-9);        /* 4000 / 4 */
    assert_float_equal(st.e2e.p50, 5000, 1e-9);
    assert_float_equal(st.queue.avg, 0, 1e-9);
    assert_float_equal(st.slo_ttft, 1.0, 1e-12);        /* 1000 <= 1000 */
    assert_float_equal(st.slo_tpot, 1.0, 1e-12);
    assert_int_equal(st.prefills, 1);
    assert_int_equal(st.decodes, 4);
    assert_int_equal(st.kv_peak, 112); /* 104 tokens at its last decode: 7 blocks of 16 */
    assert_int_equal(st.first_arrival, 10);
    assert_int_equal(st.last_finish, 5010);
    double *ttft, *tpot;
    size_t n_ttft, n_tpot;
    assert_int_equal(v10_llm_server_samples(&s, 0, 0, &ttft, &n_ttft, &tpot, &n_tpot, &err), 0);
    assert_int_equal(n_ttft, 1);
    assert_int_equal(n_tpot, 1);
    assert_float_equal(ttft[0], 1000, 1e-9);
    assert_float_equal(tpot[0], 1000, 1e-9);
    free(ttft), free(tpot);
    v10_llm_server_fini(&s);
}

/* Three requests at once, batch of two: the third waits for a slot and
 * its queueing delay is the first one's whole life. */
static void test_batch_bound(void **state)
{
    (void)state;
    v10_llm_request r[3] = {{0, 10, 2}, {0, 10, 4}, {0, 10, 1}};
    v10_llm_server s;
    init(&s, r, 3, opts(2, 1000));
    v10_llm_iter it = next(&s, 0);
    assert_int_equal(it.kind, V10_LLM_ITER_PREFILL);
    assert_int_equal(it.n, 2);
    assert_int_equal(it.req[0], 0);
    assert_int_equal(it.req[1], 1);
    v10_llm_server_done(&s, 100);
    it = next(&s, 100);                      /* both decode; r2 still waits */
    assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
    assert_int_equal(it.n, 2);
    assert_int_equal(s.r[2].admitted, NONE);
    v10_llm_server_done(&s, 200);            /* r0 done (2 tokens) */
    assert_int_equal(s.r[0].finished, 200);
    it = next(&s, 200);                      /* r2 admitted, prefilled alone */
    assert_int_equal(it.kind, V10_LLM_ITER_PREFILL);
    assert_int_equal(it.n, 1);
    assert_int_equal(it.req[0], 2);
    assert_int_equal(s.r[2].admitted, 200);
    v10_llm_server_done(&s, 300);            /* r2 done at its first token */
    assert_int_equal(s.r[2].finished, 300);
    v10_llm_stats st;
    v10_err err = {{0}};
    assert_int_equal(v10_llm_server_stats(&s, 0, 0, 0, 0, &st, &err), 0);
    assert_int_equal(st.completed, 2);
    assert_float_equal(st.queue.p99, 200, 1e-9);
    assert_float_equal(st.slo_ttft, -1, 0);
    assert_int_equal(st.tpot.n, 1);          /* r2 made one token: no TPOT */
    v10_llm_server_fini(&s);
}

/* KV capacity 300 (18 blocks of 16, 288 tokens): A's prompt of 190 takes
 * 12 blocks; B's of 240 would need 15 and does not fit; C's of 40 (3)
 * would, but does not overtake B.  B and C enter once A has left.  Only
 * prompts take blocks at admission: no output is reserved. */
static void test_kv_bound_fcfs(void **state)
{
    (void)state;
    v10_llm_request r[3] = {{0, 190, 10}, {0, 240, 10}, {0, 40, 10}};
    v10_llm_server s;
    init(&s, r, 3, opts(8, 300));
    v10_llm_iter it = next(&s, 0);
    assert_int_equal(it.n, 1);
    assert_int_equal(s.kv_used, 192);
    assert_int_equal(s.r[1].admitted, NONE);
    assert_int_equal(s.r[2].admitted, NONE);
    uint64_t t = 0;
    while (s.r[0].finished == NONE) {
        v10_llm_server_done(&s, ++t);
        if (s.r[0].finished == NONE)
            next(&s, t);
    }
    it = next(&s, t);
    assert_int_equal(it.kind, V10_LLM_ITER_PREFILL);
    assert_int_equal(it.n, 2);
    assert_int_equal(s.kv_used, 288);
    assert_int_equal(s.r[1].admitted, s.r[2].admitted);
    v10_llm_server_fini(&s);
}

/* Paged KV, preemption by recompute: 4 blocks (64 tokens), two prompts of
 * 16 with 20 output tokens each.  Both decode while their contexts fit 2
 * blocks each; at context 33 (17 tokens emitted) each needs 3, so the
 * newest, B, is preempted (its blocks freed) and waits at the front of the
 * queue; A finishes alone, then B is prefilled again over its prompt and
 * 17 tokens (33) and finishes; its first token stays the first one's. */
static void test_kv_preemption(void **state)
{
    (void)state;
    v10_llm_request r[2] = {{0, 16, 20}, {0, 16, 20}};
    v10_llm_server s;
    init(&s, r, 2, opts(8, 64));
    uint64_t t = 0, recompute = 0, prefills = 0;
    v10_llm_iter it;
    while (v10_llm_server_next(&s, t, &it)) {
        assert_true(s.kv_used <= 64);
        if (it.kind == V10_LLM_ITER_PREFILL) {
            prefills++;
            if (t > 0) { /* the recompute */
                assert_int_equal(it.n, 1);
                assert_int_equal(it.req[0], 1);
                assert_int_equal(it.tokens[0], 33);
                assert_int_equal(s.r[0].finished, t); /* after A left */
                recompute++;
            }
        }
        if (it.kind == V10_LLM_ITER_DECODE && it.n == 1 && it.req[0] == 0)
            assert_int_equal(s.r[1].preempted, 1); /* A alone only once B is out */
        v10_llm_server_done(&s, ++t);
    }
    assert_true(v10_llm_server_finished(&s));
    assert_int_equal(recompute, 1);
    assert_int_equal(prefills, 2);
    assert_int_equal(s.preemptions, 1);
    assert_int_equal(s.r[1].emitted, 20);
    assert_int_equal(s.r[1].first_token, 1);
    assert_int_equal(s.kv_peak, 64);
    assert_int_equal(s.kv_used, 0);
    v10_llm_stats st;
    v10_err err = {{0}};
    assert_int_equal(v10_llm_server_stats(&s, 0, 0, 0, 0, &st, &err), 0);
    assert_int_equal(st.kv_preemptions, 1);
    assert_int_equal(st.tokens, 40);
    v10_llm_server_fini(&s);
}

/* A prefill budget of 150 tokens: prompts of 100 and 100 are prefilled one
 * per iteration; a prompt of 500 still runs, alone. */
static void test_prefill_budget(void **state)
{
    (void)state;
    v10_llm_request r[3] = {{0, 100, 3}, {0, 100, 3}, {0, 500, 3}};
    v10_llm_server_opts o = opts(8, 10000);
    o.max_prefill_tokens = 150;
    v10_llm_server s;
    init(&s, r, 3, o);
    for (uint32_t i = 0; i < 3; i++) {
        v10_llm_iter it = next(&s, i);
        assert_int_equal(it.kind, V10_LLM_ITER_PREFILL);
        assert_int_equal(it.n, 1);
        assert_int_equal(it.req[0], i);
        v10_llm_server_done(&s, i + 1);
    }
    v10_llm_iter it = next(&s, 3);
    assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
    assert_int_equal(it.n, 3);
    assert_int_equal(it.token_sum, 101 + 101 + 501);
    v10_llm_server_fini(&s);
}

/* Statistics: nearest-rank percentiles over 20 requests whose TTFTs are
 * 1..20 ms, and the window's edges. */
static void test_stats(void **state)
{
    (void)state;
    enum { N = 20 };
    v10_llm_request r[N];
    for (int i = 0; i < N; i++)
        r[i] = (v10_llm_request){(double)i, 1, 1};
    v10_llm_server s;
    init(&s, r, N, opts(1, 16)); /* one block */
    for (int i = 0; i < N; i++) {
        uint64_t at = (uint64_t)i * 1000000;
        v10_llm_iter it = next(&s, at);
        assert_int_equal(it.req[0], (uint32_t)i);
        v10_llm_server_done(&s, at + (uint64_t)(i + 1) * 1000);
    }
    v10_llm_stats st;
    v10_err err = {{0}};
    assert_int_equal(v10_llm_server_stats(&s, 0, 0, 5000, 0, &st, &err), 0);
    assert_int_equal(st.completed, N);
    assert_float_equal(st.ttft.avg, 10500, 1e-9);
    assert_float_equal(st.ttft.p50, 10000, 1e-9); /* rank 10 */
    assert_float_equal(st.ttft.p95, 19000, 1e-9); /* rank 19 */
    assert_float_equal(st.ttft.p99, 20000, 1e-9); /* rank 20 */
    assert_float_equal(st.slo_ttft, 5.0 / N, 1e-12);
    assert_float_equal(st.slo_tpot, -1, 0);
    assert_int_equal(st.tpot.n, 0);
    /* Window [5 s, 10 s): requests 5..9 finish in it. */
    assert_int_equal(v10_llm_server_stats(&s, 5000000, 10000000, 0, 0, &st, &err), 0);
    assert_int_equal(st.completed, 5);
    assert_float_equal(st.ttft.p50, 8000, 1e-9);
    assert_int_equal(st.first_arrival, 5000000);
    assert_int_equal(st.last_finish, 9000000 + 10000);
    /* The samples behind them: the same requests, in arrival order (TTFTs
     * 6..10 ms), no TPOT (one output token each). */
    double *ttft, *tpot;
    size_t n_ttft, n_tpot;
    assert_int_equal(
        v10_llm_server_samples(&s, 5000000, 10000000, &ttft, &n_ttft, &tpot, &n_tpot, &err), 0);
    assert_int_equal(n_ttft, 5);
    assert_int_equal(n_tpot, 0);
    for (size_t i = 0; i < n_ttft; i++)
        assert_true(ttft[i] == 6000.0 + 1000.0 * (double)i);
    free(ttft), free(tpot);
    v10_llm_server_fini(&s);
}

static void test_refused(void **state)
{
    (void)state;
    v10_llm_request r[2] = {{0, 10, 10}, {1, 600, 500}};
    v10_llm_server s;
    v10_err err = {{0}};
    v10_llm_server_opts o = opts(4, 1000);
    assert_int_equal(v10_llm_server_init(&s, r, 2, &o, &err), -1);
    assert_non_null(strstr(err.msg, "request 1 needs 1100 KV tokens"));
    assert_non_null(strstr(err.msg, "holds 1000"));
    o = opts(0, 1000);
    assert_int_equal(v10_llm_server_init(&s, r, 1, &o, &err), -1);
    assert_non_null(strstr(err.msg, "max_batch 0"));
    o = opts(4, 1000);
    o.clock_mhz = 0;
    assert_int_equal(v10_llm_server_init(&s, r, 1, &o, &err), -1);
    assert_non_null(strstr(err.msg, "clock"));
}

/* Chunked prefill (vLLM V1's scheduler), a budget of 256 tokens: a short
 * request A (prompt 16, output 8) and a long one B (prompt 1000, output 2)
 * arrive together.  The first iteration prefills A whole and B's first 240
 * tokens; from then on A decodes in every iteration (one token of the
 * budget) and B takes the other 255, after 240, 495 and 750 tokens; B emits
 * its first token only with its last chunk, of 250, at the end of the
 * fourth iteration; then both decode. */
static void test_chunked_long_prompt(void **state)
{
    (void)state;
    v10_llm_request r[2] = {{0, 16, 8}, {0, 1000, 2}};
    v10_llm_server_opts o = opts(4, 4096);
    o.chunked = 1;
    o.max_prefill_tokens = 256;
    v10_llm_server s;
    init(&s, r, 2, o);
    v10_llm_iter it = next(&s, 0);
    assert_int_equal(it.kind, V10_LLM_ITER_MIXED);
    assert_int_equal(it.n, 2);
    assert_int_equal(it.n_decode, 0);
    assert_int_equal(it.n_emit, 1); /* A's prompt ends, B's does not */
    assert_int_equal(it.tokens[0], 16);
    assert_int_equal(it.tokens[1], 240);
    assert_int_equal(it.past[1], 0);
    assert_int_equal(it.token_sum, 256);
    v10_llm_server_done(&s, 1000);
    assert_int_equal(s.r[0].first_token, 1000);
    assert_int_equal(s.r[1].emitted, 0);
    assert_int_equal(s.r[1].computed, 240);
    const uint32_t chunk[3] = {255, 255, 250}, past[3] = {240, 495, 750};
    for (int k = 0; k < 3; k++) {
        it = next(&s, 1000u * (k + 1));
        assert_int_equal(it.kind, V10_LLM_ITER_MIXED);
        assert_int_equal(it.n, 2);
        assert_int_equal(it.n_decode, 1);
        assert_int_equal(it.req[0], 0); /* A decodes: never starved by B */
        assert_int_equal(it.tokens[0], 16 + 1 + k);
        assert_int_equal(it.req[1], 1);
        assert_int_equal(it.tokens[1], chunk[k]);
        assert_int_equal(it.past[1], past[k]);
        assert_int_equal(it.n_emit, k == 2 ? 2 : 1);
        assert_true(it.token_sum + it.n_decode <= 256);
        assert_int_equal(s.r[1].first_token, NONE); /* not before its last chunk */
        v10_llm_server_done(&s, 1000u * (k + 2));
    }
    assert_int_equal(s.r[1].first_token, 4000);
    assert_int_equal(s.r[1].emitted, 1);
    it = next(&s, 4000); /* both decode */
    assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
    assert_int_equal(it.n, 2);
    assert_int_equal(it.tokens[1], 1001);
    assert_int_equal(s.iterations[V10_LLM_ITER_MIXED], 4);
    v10_llm_server_fini(&s);
}

/* Decodes fill the budget: with a budget of 2 and two requests decoding,
 * a third request's prompt waits (the running requests are scheduled
 * first) and is prefilled once one of them leaves. */
static void test_chunked_decodes_first(void **state)
{
    (void)state;
    v10_llm_request r[3] = {{0, 1, 3}, {0, 1, 3}, {0, 5, 1}};
    v10_llm_server_opts o = opts(4, 4096);
    o.chunked = 1;
    o.max_prefill_tokens = 2;
    v10_llm_server s;
    init(&s, r, 3, o);
    v10_llm_iter it = next(&s, 0); /* A and B's one-token prompts */
    assert_int_equal(it.n, 2);
    assert_int_equal(it.n_emit, 2);
    v10_llm_server_done(&s, 1);
    for (uint64_t k = 1; k <= 2; k++) {
        it = next(&s, k);
        assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
        assert_int_equal(it.n, 2);
        v10_llm_server_done(&s, k + 1);
    }
    assert_int_equal(s.r[0].finished, 3);
    it = next(&s, 3); /* C, in chunks of 2 */
    assert_int_equal(it.n, 1);
    assert_int_equal(it.tokens[0], 2);
    v10_llm_server_fini(&s);
}

/*
 * vLLM V1's order (vllm/v1/core/sched/scheduler.py, Scheduler.schedule;
 * blocks from vllm/v1/core/kv_cache_manager.py, allocate_slots) on a
 * hand-built trace: 6 blocks of 16 tokens, a budget of 40 tokens, one
 * iteration a cycle.  A (prompt 16, output 6), B (48, 1), C (32, 2) and
 * D (24, 1) arrive together.  Per iteration, the tokens scheduled (a
 * decode is one) and the blocks free after scheduling:
 *
 *   1  A16 B24       waiting ones in order: A whole (1 block), B's first 24
 *                    tokens, which take 2 blocks, not the 3 of its prompt (3)
 *   2  A1 B24 C15    running first: A's 17th token takes a 2nd block, B's
 *                    last 24 a 3rd; then C is admitted with the 15 tokens
 *                    left of the budget (1 block) (0); B finishes (3)
 *   3  A1 C17 D22    C's prompt ends (its 2nd block); D admitted, 22 tokens
 *                    in 2 blocks (0)
 *   4  A1 C1         C's decode needs a 3rd block: the newest running
 *                    request, D, is preempted (2 free), C takes one (1), and
 *                    nobody is admitted on a step that preempted; C finishes (4)
 *   5  A1 D24        D recomputed whole and finishes
 *   6  A1            A finishes
 *
 * One preemption, D's.  Admitting before growing the running requests,
 * each reserving its whole prompt (what this server did before), admitted
 * C at iteration 2 into the blocks A and B's next tokens needed and
 * preempted it before it ran: two preemptions.
 */
static void test_v1_order(void **state)
{
    (void)state;
    v10_llm_request r[4] = {{0, 16, 6}, {0, 48, 1}, {0, 32, 2}, {0, 24, 1}};
    v10_llm_server_opts o = opts(8, 6 * 16);
    o.chunked = 1;
    o.max_prefill_tokens = 40;
    static const char *const want[] = {"A16 B24", "A1 B24 C15", "A1 C17 D22",
                                       "A1 C1",   "A1 D24",     "A1"};
    static const uint64_t kv_free[] = {3, 0, 0, 1, 2, 4}; /* blocks, after scheduling */
    v10_llm_server s;
    init(&s, r, 4, o);
    uint64_t now = 0;
    v10_llm_iter it;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++, now++) {
        assert_int_equal(v10_llm_server_next(&s, now, &it), 1);
        char got[64] = "";
        for (uint32_t q = 0; q < 4; q++) /* by request, a decode as one token */
            for (uint32_t j = 0; j < it.n; j++)
                if (it.req[j] == q)
                    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%c%u",
                             got[0] ? " " : "", 'A' + q, j < it.n_decode ? 1 : it.tokens[j]);
        if (strcmp(got, want[k]))
            fail_msg("iteration %zu: scheduled %s, vLLM V1 schedules %s", k + 1, got, want[k]);
        assert_int_equal(6 * 16 - s.kv_used, kv_free[k] * 16);
        assert_int_equal(s.preemptions, k >= 3);
        v10_llm_server_done(&s, now + 1);
    }
    assert_int_equal(v10_llm_server_next(&s, now, &it), 0);
    assert_true(v10_llm_server_finished(&s));
    assert_int_equal(s.r[3].preempted, 1); /* D, the one preemption */
    assert_int_equal(s.r[2].preempted, 0);
    assert_int_equal(s.r[2].admitted, 1);
    assert_int_equal(s.r[3].admitted, 2);
    assert_int_equal(s.r[3].first_token, 5);
    assert_int_equal(s.kv_used, 0);
    v10_llm_server_fini(&s);
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* A random trace from *x: 50 to 199 requests, Poisson-ish arrivals (gaps
 * up to 2 ms), prompts 1..2000, outputs 1..300; and a server's options
 * for it: a batch of 1 to 16, a KV cache of at least 2304 tokens (144
 * blocks, a request of 2000 + 300 tokens alone), a prefill budget of 1 to
 * 5000 tokens.  The caller frees the trace. */
static v10_llm_request *random_trace(uint64_t *x, size_t *n, v10_llm_server_opts *o)
{
    *n = 50 + lcg(x) % 150;
    v10_llm_request *r = calloc(*n, sizeof *r);
    assert_non_null(r);
    double t = 0;
    for (size_t i = 0; i < *n; i++) {
        t += (double)(lcg(x) % 2000) * 1e-6;
        r[i] = (v10_llm_request){t, 1 + (uint32_t)(lcg(x) % 2000), 1 + (uint32_t)(lcg(x) % 300)};
    }
    *o = opts(1 + (uint32_t)(lcg(x) % 16), 2304 + lcg(x) % 20000);
    o->max_prefill_tokens = 1 + lcg(x) % 5000;
    return r;
}

/* Random streams: Poisson-ish arrivals, prompts 1..2000, outputs 1..300,
 * iteration time growing with its tokens, whole prompts (odd seeds) or
 * chunked (even).  Invariants at every step: tokens emitted once each and
 * in order, a chunk emitting only when it ends its prompt, the prefill
 * tokens within the budget left by the decodes, every prefilled running
 * request decoding in each chunked iteration unless the budget ran out
 * first, no admission on a step that preempted (vLLM V1), the KV cache
 * within capacity, and every request finished. */
static void test_random_invariants(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t x = seed;
        size_t n;
        v10_llm_server_opts o;
        v10_llm_request *r = random_trace(&x, &n, &o);
        o.chunked = (int)(seed % 2 == 0);
        v10_llm_server s;
        init(&s, r, n, o);
        uint32_t *seen = calloc(n, sizeof *seen);
        uint64_t now = 0, iters = 0;
        size_t admitted_upto = 0;
        while (!v10_llm_server_finished(&s)) {
            v10_llm_iter it;
            uint64_t pre0 = s.preemptions;
            size_t head0 = s.head;
            if (!v10_llm_server_next(&s, now, &it)) {
                uint64_t a = v10_llm_server_next_arrival(&s);
                assert_true(a != NONE && a > now); /* idle only before an arrival */
                now = a;
                continue;
            }
            assert_true(it.n >= 1 && it.n <= o.max_batch);
            assert_true(s.kv_used <= o.kv_capacity_tokens);
            assert_true(it.n_decode <= it.n && it.n_emit <= it.n && it.n_emit + 1 >= it.n);
            assert_int_equal(it.kind == V10_LLM_ITER_MIXED, o.chunked && it.n_decode < it.n);
            uint64_t chunk_sum = 0;
            uint32_t prefilled = 0;
            for (uint32_t j = 0; j < s.n_run; j++)
                prefilled += s.r[s.run[j]].prefilled;
            if (o.chunked) {
                /* every prefilled running request decodes unless the budget
                 * ran out first; a step that preempts admits nobody */
                assert_true(it.n_decode <= prefilled);
                if (s.preemptions > pre0)
                    assert_int_equal(s.head, head0);
            }
            for (uint32_t j = 0; j < it.n; j++) {
                const v10_llm_req_state *q = &s.r[it.req[j]];
                assert_true(q->admitted != NONE && q->admitted >= q->arrival);
                assert_int_equal(q->emitted, seen[it.req[j]]);
                if (j >= it.n_decode) { /* first, or recomputed */
                    assert_true(q->emitted == 0 || (q->preempted && q->emitted < q->output));
                    uint32_t past = it.past ? it.past[j] : 0; /* chunks: now scheduled */
                    assert_int_equal(past + (o.chunked ? it.tokens[j] : 0), q->computed);
                    /* it emits exactly when the chunk ends its prompt */
                    assert_int_equal(j < it.n_emit, past + it.tokens[j] == q->prompt + q->emitted);
                    chunk_sum += it.tokens[j];
                } else {
                    assert_true(q->emitted >= 1 && q->emitted < q->output);
                    assert_true(j < it.n_emit);
                }
            }
            if (it.kind == V10_LLM_ITER_MIXED) /* the decodes' tokens count */
                assert_true(chunk_sum + it.n_decode <= o.max_prefill_tokens);
            if (o.chunked && it.n_decode < prefilled) /* a decode left out: no budget left */
                assert_int_equal(chunk_sum + it.n_decode, o.max_prefill_tokens);
            if (it.kind == V10_LLM_ITER_PREFILL && it.n > 1)
                assert_true(chunk_sum <= o.max_prefill_tokens);
            /* admission in arrival order */
            while (admitted_upto < n && s.r[admitted_upto].admitted != NONE)
                admitted_upto++;
            for (size_t i = admitted_upto; i < n; i++)
                assert_int_equal(s.r[i].admitted, NONE);
            for (uint32_t j = 0; j < it.n_emit; j++)
                seen[it.req[j]]++;
            uint64_t before = s.tokens_emitted;
            now += 100 + it.token_sum;
            v10_llm_server_done(&s, now);
            assert_int_equal(s.tokens_emitted, before + it.n_emit);
            assert_true(++iters < 10000000); /* no request starves */
        }
        uint64_t tokens = 0;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(seen[i], r[i].output_tokens);
            assert_int_equal(s.r[i].emitted, r[i].output_tokens);
            assert_true(s.r[i].first_token <= s.r[i].finished);
            tokens += r[i].output_tokens;
        }
        assert_int_equal(s.tokens_emitted, tokens);
        assert_int_equal(s.kv_used, 0);
        assert_true(s.kv_peak <= o.kv_capacity_tokens);
        free(seen);
        free(r);
        v10_llm_server_fini(&s);
    }
}

/* Two iterations in flight (a pipeline of two batches): request 0 at 0,
 * request 1 at 10.  The second batch is of the request not in flight; a
 * server with both batches out, or only flying requests, has nothing to
 * run; iterations end oldest first, and the freed request goes next. */
static void test_inflight_fifo(void **state)
{
    (void)state;
    v10_llm_request r[2] = {{0, 100, 3}, {10e-6, 50, 2}};
    v10_llm_server_opts o = opts(4, 1000);
    o.chunked = 1;
    o.max_inflight = 2;
    v10_llm_server s;
    init(&s, r, 2, o);
    v10_llm_iter it = next(&s, 0), it2;
    assert_int_equal(it.n, 1);
    assert_int_equal(it.req[0], 0);
    assert_int_equal(v10_llm_server_next(&s, 5, &it2), 0); /* request 0 flies, 1 not here */
    assert_int_equal(v10_llm_server_next_arrival(&s), 10);
    it2 = next(&s, 10);
    assert_int_equal(it2.n, 1);
    assert_int_equal(it2.req[0], 1);
    assert_int_equal(it2.tokens[0], 50);
    assert_int_equal(it.req[0], 0); /* the first batch's arrays are its own */
    assert_int_equal(it.tokens[0], 100);
    assert_int_equal(v10_llm_server_next(&s, 11, &it2), 0); /* both batches out */
    assert_ptr_equal(v10_llm_server_oldest(&s)->req, it.req);
    v10_llm_server_done(&s, 20); /* request 0's prefill */
    assert_int_equal(s.r[0].first_token, 20);
    assert_int_equal(s.r[1].first_token, NONE);
    it = next(&s, 20);
    assert_int_equal(it.kind, V10_LLM_ITER_DECODE);
    assert_int_equal(it.n, 1);
    assert_int_equal(it.req[0], 0);
    v10_llm_server_done(&s, 30); /* request 1's prefill */
    assert_int_equal(s.r[1].first_token, 30);
    it = next(&s, 30);
    assert_int_equal(it.req[0], 1);
    v10_llm_server_done(&s, 40);
    v10_llm_server_done(&s, 50);
    assert_int_equal(s.r[0].emitted, 2);
    assert_int_equal(s.r[1].finished, 50);
    it = next(&s, 50);
    assert_int_equal(it.req[0], 0);
    v10_llm_server_done(&s, 60);
    assert_true(v10_llm_server_finished(&s));
    assert_null(v10_llm_server_oldest(&s));
    assert_int_equal(s.kv_used, 0);
    v10_llm_server_fini(&s);
    /* more in flight than 64, or with whole prompts: refused */
    v10_err err = {{0}};
    o.max_inflight = 65;
    assert_int_not_equal(v10_llm_server_init(&s, r, 2, &o, &err), 0);
    o.max_inflight = 2;
    o.chunked = 0;
    assert_int_not_equal(v10_llm_server_init(&s, r, 2, &o, &err), 0);
    assert_non_null(strstr(err.msg, "need the chunked scheduler"));
}

/* Random traces with up to four iterations in flight, ended oldest first
 * at random times: a request in flight is scheduled again only for its
 * prompt's next chunk and never preempted (its blocks stay), the KV bound
 * holds, and every request emits all its tokens, in order, once. */
static void test_inflight_invariants(void **state)
{
    (void)state;
    uint64_t again = 0, preempted = 0; /* chunks of a prompt in flight; preemptions */
    for (uint64_t seed = 1; seed <= 30; seed++) {
        uint64_t x = seed;
        size_t n;
        v10_llm_server_opts o;
        v10_llm_request *r = random_trace(&x, &n, &o);
        o.chunked = 1;
        o.max_inflight = 1 + (uint32_t)(lcg(&x) % 4);
        v10_llm_server s;
        init(&s, r, n, o);
        uint32_t *seen = calloc(n, sizeof *seen), *flew = calloc(n, sizeof *flew);
        uint64_t *kv = calloc(n, sizeof *kv);
        uint64_t now = 0, iters = 0, ends[64] = {0};
        uint32_t head = 0, out = 0;
        while (!v10_llm_server_finished(&s)) {
            v10_llm_iter it;
            for (size_t i = 0; i < n; i++) {
                flew[i] = s.r[i].flying;
                kv[i] = s.r[i].kv_alloc;
            }
            int got = out < o.max_inflight && v10_llm_server_next(&s, now, &it);
            for (size_t i = 0; i < n; i++) /* a flying request keeps its blocks */
                if (flew[i])
                    assert_true(s.r[i].kv_alloc >= kv[i] && s.r[i].flying >= flew[i]);
            if (got) {
                assert_true(s.kv_used <= o.kv_capacity_tokens);
                for (uint32_t j = 0; j < it.n; j++) {
                    const v10_llm_req_state *q = &s.r[it.req[j]];
                    assert_int_equal(q->flying, flew[it.req[j]] + 1);
                    /* in flight before: only for the next chunk of its prompt */
                    if (flew[it.req[j]]) {
                        assert_true(j >= it.n_decode && it.past[j] > 0);
                        again++;
                    }
                    assert_int_equal(q->emitted, seen[it.req[j]]);
                }
                for (uint32_t j = 0; j < it.n_emit; j++)
                    seen[it.req[j]]++;
                ends[(head + out++) % 64] = now + 50 + lcg(&x) % 500;
                continue;
            }
            /* nothing more to start: the oldest ends, or the next arrival */
            uint64_t a = v10_llm_server_next_arrival(&s);
            if (out && (ends[head] <= a || out == o.max_inflight)) {
                now = ends[head] > now ? ends[head] : now;
                head = (head + 1) % 64;
                out--;
                v10_llm_server_done(&s, now);
            } else {
                assert_true(a != NONE && a > now); /* idle only before an arrival */
                now = a;
            }
            assert_true(++iters < 10000000);
        }
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(seen[i], r[i].output_tokens);
            assert_int_equal(s.r[i].emitted, r[i].output_tokens);
        }
        assert_int_equal(out, 0);
        assert_int_equal(s.kv_used, 0);
        preempted += s.preemptions;
        free(seen);
        free(flew);
        free(kv);
        free(r);
        v10_llm_server_fini(&s);
    }
    assert_true(again > 0 && preempted > 0); /* both cases were met */
}

static v10_llm_stream stream(const char *model, const char *npu_name, uint64_t share,
                             uint32_t max_batch, v10_npu *npu)
{
    v10_err err = {{0}};
    v10_llm_config c;
    v10_llm_stream s = {0}; /* fail_msg ends the test; clang cannot tell */
    if (v10_llm_preset(model, &c, &err) || v10_npu_preset(npu_name, npu, &err) ||
        v10_llm_stream_init(&s, &c, npu, share ? share : npu->vmem_bytes, max_batch, &err))
        fail_msg("%s", err.msg);
    return s;
}

/* An iteration's stream is the model the spec form builds: with the whole
 * vector memory, operator for operator the same standalone cycles. */
static void test_stream_matches_spec(void **state)
{
    (void)state;
    v10_npu npu;
    v10_llm_stream s = stream("llama3.2-1b", "v10-isca23", 0, 4, &npu);
    v10_err err = {{0}};
    uint32_t req[3] = {0, 1, 2}, ctx[3] = {10, 20, 30};
    v10_llm_iter it = {V10_LLM_ITER_DECODE, 3, req, ctx, 60, 3, 3, NULL};
    assert_int_equal(v10_llm_stream_build(&s, &it, &err), 0);
    v10_model m;
    if (v10_model_load("llm/llama3.2-1b:decode=1x10,1x20,1x30", &npu, &m, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.n_ops, m.n_ops);
    uint64_t total = 0;
    for (size_t k = 0; k < m.n_ops; k++) {
        assert_int_equal(s.work[k], m.ops[k].cycles);
        assert_int_equal(s.fu[k], m.ops[k].fu);
        total += m.ops[k].cycles;
    }
    assert_int_equal(s.total_work, total);
    assert_int_equal(total, v10_model_cycles(&m));
    v10_model_fini(&m);

    /* A prefill of prompts 5 and 7 is one stream (v10_llm_prefill_batch):
     * the second prompt adds only its attention (QK^T, softmax, P.V per
     * layer), and the weights are read once, so it costs less than the two
     * prefills back to back and more than the longer one alone. */
    uint32_t p[2] = {5, 7};
    it = (v10_llm_iter){V10_LLM_ITER_PREFILL, 2, req, p, 12, 0, 2, NULL};
    assert_int_equal(v10_llm_stream_build(&s, &it, &err), 0);
    uint64_t both = s.total_work;
    size_t ops = s.n_ops;
    uint64_t one[2];
    for (int j = 0; j < 2; j++) {
        it = (v10_llm_iter){V10_LLM_ITER_PREFILL, 1, req, &p[j], p[j], 0, 1, NULL};
        assert_int_equal(v10_llm_stream_build(&s, &it, &err), 0);
        one[j] = s.total_work;
        assert_int_equal(s.n_ops + 3 * s.cfg.layers, ops);
    }
    assert_true(both < one[0] + one[1]);
    assert_true(both > one[1]);
    v10_llm_stream_fini(&s);
}

/* The largest iterations fit the buffers sized at init: building them
 * moves no buffer (no allocation while the engine runs). */
static void test_stream_no_realloc(void **state)
{
    (void)state;
    v10_npu npu;
    v10_llm_stream s = stream("gpt2-xl", "v10-isca23", 8u << 20, 8, &npu);
    const v10_op *ops = s.model.ops;
    v10_err err = {{0}};
    uint32_t req[8] = {0}, tok[8];
    for (int j = 0; j < 8; j++)
        tok[j] = 1000;
    v10_llm_iter it = {V10_LLM_ITER_PREFILL, 8, req, tok, 8000, 0, 8, NULL};
    assert_int_equal(v10_llm_stream_build(&s, &it, &err), 0);
    it.kind = V10_LLM_ITER_DECODE;
    it.n_decode = 8;
    assert_int_equal(v10_llm_stream_build(&s, &it, &err), 0);
    assert_ptr_equal(s.model.ops, ops);
    assert_true(s.n_ops <= s.cap);
    /* A smaller vector-memory share never makes an operator cheaper. */
    v10_llm_stream w = stream("gpt2-xl", "v10-isca23", 0, 8, &npu);
    assert_int_equal(v10_llm_stream_build(&w, &it, &err), 0);
    assert_true(s.total_work >= w.total_work);
    /* A context past the model's maximum is an error naming it. */
    tok[3] = 5000;
    assert_int_equal(v10_llm_stream_build(&s, &it, &err), -1);
    assert_non_null(strstr(err.msg, "max_context"));
    v10_llm_stream_fini(&w);
    v10_llm_stream_fini(&s);
}

/* Total work of the stream of `it`. */
static uint64_t work_of(v10_llm_stream *s, v10_llm_iter it)
{
    v10_err err = {{0}};
    if (v10_llm_stream_build(s, &it, &err))
        fail_msg("%s", err.msg);
    return s->total_work;
}

/* A chunked iteration's stream (v10_llm_mixed): without chunks it is the
 * decode's, without decodes and with no past the batched prefill's,
 * operator for operator; a chunk after 512 cached tokens costs more than
 * the same chunk first (its attention reads more keys), a chunk that ends
 * no prompt runs no LM head, and a chunk past max_context is an error. */
static void test_stream_mixed(void **state)
{
    (void)state;
    v10_npu npu;
    v10_llm_stream s = stream("llama3.2-1b", "v10-isca23", 0, 4, &npu);
    uint32_t req[3] = {0, 1, 2}, tok[3] = {10, 20, 30}, past[3] = {0, 0, 0};
    v10_llm_iter dec = {V10_LLM_ITER_DECODE, 3, req, tok, 60, 3, 3, NULL};
    v10_llm_iter mix = {V10_LLM_ITER_MIXED, 3, req, tok, 0, 3, 3, past};
    assert_int_equal(work_of(&s, mix), work_of(&s, dec));
    v10_llm_iter pf = {V10_LLM_ITER_PREFILL, 3, req, tok, 60, 0, 3, NULL};
    mix = (v10_llm_iter){V10_LLM_ITER_MIXED, 3, req, tok, 60, 0, 3, past};
    uint64_t w = work_of(&s, mix);
    size_t ops = s.n_ops;
    assert_int_equal(w, work_of(&s, pf));
    assert_int_equal(ops, s.n_ops);
    /* one decode beside a chunk of 256 after 0 and after 512 tokens */
    uint32_t t2[2] = {100, 256}, p2[2] = {0, 0};
    mix = (v10_llm_iter){V10_LLM_ITER_MIXED, 2, req, t2, 256, 1, 2, p2};
    uint64_t first = work_of(&s, mix);
    p2[1] = 512;
    uint64_t later = work_of(&s, mix);
    assert_true(later > first);
    mix.n_emit = 1; /* the chunk does not end its prompt: no LM head for it */
    assert_true(work_of(&s, mix) < later);
    const char *head = "head.lm";
    int found = 0;
    for (size_t k = 0; k < s.model.n_ops; k++)
        found |= strstr(s.model.ops[k].name, head) != NULL;
    assert_true(found); /* the decode's */
    v10_err err = {{0}};
    p2[1] = (uint32_t)s.cfg.max_context - 100;
    assert_int_equal(v10_llm_stream_build(&s, &mix, &err), -1);
    assert_non_null(strstr(err.msg, "max_context"));
    v10_llm_stream_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_request),    cmocka_unit_test(test_batch_bound),
        cmocka_unit_test(test_kv_bound_fcfs),   cmocka_unit_test(test_kv_preemption),   cmocka_unit_test(test_prefill_budget),
        cmocka_unit_test(test_stats),           cmocka_unit_test(test_refused),
        cmocka_unit_test(test_random_invariants), cmocka_unit_test(test_stream_matches_spec),
        cmocka_unit_test(test_stream_no_realloc), cmocka_unit_test(test_chunked_long_prompt),
        cmocka_unit_test(test_chunked_decodes_first), cmocka_unit_test(test_v1_order), cmocka_unit_test(test_stream_mixed),
        cmocka_unit_test(test_inflight_fifo), cmocka_unit_test(test_inflight_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
