/*
 * test_llm_serve.c — LLM servers driven by the engine (v10_run, docs/llm.md
 * "Serving tenants"): a lone server with one request matches the closed
 * form (TTFT = the prefill stream's cycles, TPOT = the mean of its decode
 * streams' cycles, built with v10_llm_stream_build); beside a zoo model
 * under pmt, v10-fair and v10-full with --check every request completes
 * once, TTFT <= e2e and the tokens are the trace's; Poisson arrivals with
 * drawn lengths are deterministic; bad spec values and a model that does
 * not fit its HBM segment are errors naming the key or both sizes; with
 * chunked prefill a decoding request's TPOT stays within one budget-sized
 * iteration; the KV capacity is HBM - workspace - weights in closed form,
 * servers of one model sharing their weights.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "v10/llm_server.h"
#include "v10/sim.h"

#define TRACE "tests/data/llm/azure_conv_200.csv"

#define assert_near(a, b, tol)                                                              \
    do {                                                                                    \
        double a_ = (a), b_ = (b);                                                          \
        if (!(fabs(a_ - b_) <= (tol)))                                                      \
            fail_msg("%s = %.9g, expected %.9g", #a, a_, b_);                              \
    } while (0)

/* Writes an Azure-format trace: its header, then `rows` as given. */
static void write_trace(const char *path, const char *rows)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "TIMESTAMP,ContextTokens,GeneratedTokens\n%s", rows);
    assert_int_equal(fclose(f), 0);
}

static void spec(const char *s, v10_tenant_spec *out)
{
    v10_err err = {{0}};
    if (v10_tenant_spec_parse(s, out, &err))
        fail_msg("%s: %s", s, err.msg);
}

static void run(v10_run_config *c, v10_run_result *r)
{
    v10_err err = {{0}};
    if (v10_run(c, r, &err))
        fail_msg("%s", err.msg);
}

/* Tenants t[0..n), `requests` each, no warm-up, invariants checked. */
static void checked_config(v10_run_config *c, const v10_tenant_spec *t, size_t n,
                           uint64_t requests)
{
    v10_run_config_default(c);
    c->tenants = t;
    c->n_tenants = n;
    c->requests = requests;
    c->warmup = 0;
    c->check = 1;
}

/* Cycles of one iteration of kind k over one sequence of `tokens`. */
static double iter_cycles(const v10_llm_config *cfg, const v10_npu *npu, v10_llm_iter_kind k,
                          uint32_t tokens)
{
    v10_llm_stream s;
    v10_err err = {{0}};
    uint32_t req = 0;
    v10_llm_iter it = {.kind = k, .n = 1, .req = &req, .tokens = &tokens, .token_sum = tokens};
    if (v10_llm_stream_init(&s, cfg, npu, npu->vmem_bytes, 32, &err) ||
        v10_llm_stream_build(&s, &it, &err))
        fail_msg("%s", err.msg);
    double c = (double)s.total_work;
    v10_llm_stream_fini(&s);
    return c;
}

/* Runs `server` (an llm/gpt2-xl spec over `path`) alone on one request of
 * prompt 100 and output 5, written to path, into *c and *r; *cfg: gpt2-xl. */
static void lone_run(const char *path, const char *server, v10_tenant_spec *t,
                     v10_run_config *c, v10_run_result *r, v10_llm_config *cfg)
{
    write_trace(path, "2023-11-16 18:15:46.6805900,100,5\n");
    spec(server, t);
    checked_config(c, t, 1, 1);
    run(c, r);
    assert_int_equal(v10_llm_preset("gpt2-xl", cfg, NULL), 0);
}

/* One request (prompt 100, output 5) alone: TTFT is its prefill, TPOT the
 * mean of its four decodes over contexts 101..104, e2e their sum. */
static void test_lone_closed_form(void **state)
{
    (void)state;
    const char *path = "/tmp/v10-llm-one.csv";
    v10_tenant_spec t;
    v10_run_config c;
    v10_run_result r;
    v10_llm_config cfg;
    lone_run(path, "llm/gpt2-xl:trace=/tmp/v10-llm-one.csv", &t, &c, &r, &cfg);
    double pf = iter_cycles(&cfg, &c.npu, V10_LLM_ITER_PREFILL, 100), dec = 0;
    for (uint32_t ctx = 101; ctx <= 104; ctx++)
        dec += iter_cycles(&cfg, &c.npu, V10_LLM_ITER_DECODE, ctx);
    double us = 1.0 / c.npu.clock_mhz;
    const v10_tenant_result *x = &r.tenants[0];
    assert_int_equal(x->llm, 1);
    assert_int_equal(x->completed, 1);
    assert_int_equal(x->llm_tokens, 5);
    assert_int_equal(x->prefills, 1);
    assert_int_equal(x->decodes, 4);
    assert_near(x->ttft_us.avg, pf * us, 1e-6 * pf * us);
    assert_near(x->tpot_us.avg, dec / 4 * us, 1e-6 * dec * us);
    assert_near(x->e2e_us.avg, (pf + dec) * us, 1e-6 * (pf + dec) * us);
    assert_near(x->queue_us.avg, 0, 1e-9);
    assert_true(isnan(x->np) && isnan(r.stp)); /* no tenant in the system metrics */
    v10_run_result_fini(&r);
    remove(path);
}

/*
 * vLLM's TPU runtime (docs/llm.md, "Padding to compiled shapes").  The
 * buckets: tokens 16, 32, ..., up to the first >= the budget, as vLLM's own
 * test of _get_token_paddings (16..512 for a budget of 512); sequences 8,
 * 16, 32, ... capped at max_num_seqs.  Then one request (prompt 100,
 * output 5) alone with every mechanism on: its prefill runs its 100 tokens
 * padded to 128 through the token-wise operators, its decodes one token
 * padded to 16, the LM head over 8 sequences, attention reading whole
 * pages of 64 tokens, and each iteration waits host_us = 250 µs before
 * its operators: TTFT and TPOT are those streams' cycles plus the host
 * time, to the cycle.
 */
static void test_tpu_runtime_closed_form(void **state)
{
    (void)state;
    uint64_t want[] = {16, 32, 64, 128, 256, 512};
    for (uint64_t n = 1, k = 0; n <= 512; n++) {
        if (n > want[k])
            k++;
        assert_int_equal(v10_llm_pad_tokens(n, 512), want[k]);
    }
    assert_int_equal(v10_llm_pad_tokens(600, 512), 600); /* a whole prompt past the budget */
    assert_int_equal(v10_llm_pad_tokens(100, 0), 100);
    assert_int_equal(v10_llm_pad_tokens(300, 384), 512); /* 256 < 300: the next, >= 384 */
    assert_int_equal(v10_llm_pad_reqs(1, 512), 8);
    assert_int_equal(v10_llm_pad_reqs(9, 512), 16);
    assert_int_equal(v10_llm_pad_reqs(36, 512), 64);
    assert_int_equal(v10_llm_pad_reqs(200, 256), 256);
    assert_int_equal(v10_llm_pad_reqs(3, 4), 8); /* max_num_reqs is at least 8 */
    assert_int_equal(v10_llm_pad_reqs(5, 0), 5);

    const char *path = "/tmp/v10-llm-tpu.csv";
    v10_tenant_spec t;
    v10_run_config c;
    v10_run_result r;
    v10_llm_config cfg;
    lone_run(path, "llm/gpt2-xl:trace=/tmp/v10-llm-tpu.csv:max_prefill_tokens=512:max_batch=16:"
                   "pad_tokens=1:pad_reqs=1:kv_block=64:pad_kv=1:host_us=250",
             &t, &c, &r, &cfg);
    char back[2 * V10_SPEC_MAX];
    assert_int_equal(v10_tenant_spec_format(&t, back, sizeof back), 0);
    assert_non_null(strstr(back, ":pad_tokens=1:pad_reqs=1:pad_kv=1:kv_block=64:host_us=250"));
    cfg.pad_tokens = 512;
    cfg.pad_reqs = 16;
    cfg.kv_page = 64;
    double pf = iter_cycles(&cfg, &c.npu, V10_LLM_ITER_PREFILL, 100), dec = 0;
    for (uint32_t ctx = 101; ctx <= 104; ctx++)
        dec += iter_cycles(&cfg, &c.npu, V10_LLM_ITER_DECODE, ctx);
    /* The padded streams: a prefill of 128 rows, an LM head of 8 rows, a
     * decode's K and V over 128 tokens (two pages of 64). */
    v10_model m;
    v10_model_init(&m, "x", 1);
    assert_int_equal(v10_llm_prefill(&cfg, 100, &m, NULL), 0);
    int seen = 0;
    for (size_t k = 0; k < m.n_ops; k++) {
        if (!strcmp(m.ops[k].name, "L0.attn.qkv") && ++seen)
            assert_int_equal(m.ops[k].m, 128);
        if (!strcmp(m.ops[k].name, "head.lm") && ++seen)
            assert_int_equal(m.ops[k].m, 8);
    }
    assert_int_equal(seen, 2);
    v10_model_fini(&m);
    v10_model_init(&m, "x", 1);
    uint32_t ctx = 101;
    assert_int_equal(v10_llm_decode(&cfg, 1, &ctx, &m, NULL), 0);
    seen = 0;
    for (size_t k = 0; k < m.n_ops; k++)
        if (!strcmp(m.ops[k].name, "L0.attn.qk") && ++seen)
            assert_int_equal(m.ops[k].elems, (uint64_t)cfg.heads * cfg.head_dim * 128);
    assert_int_equal(seen, 1);
    v10_model_fini(&m);
    double host = 250 * c.npu.clock_mhz, us = 1.0 / c.npu.clock_mhz;
    const v10_tenant_result *x = &r.tenants[0];
    assert_int_equal(x->llm_tokens, 5);
    assert_near(x->ttft_us.avg, (pf + host) * us, 1e-6 * pf * us);
    assert_near(x->tpot_us.avg, (dec / 4 + host) * us, 1e-6 * dec * us);
    v10_run_result_fini(&r);
    /* Out of range: errors naming the key. */
    v10_err err;
    assert_int_not_equal(
        v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:kv_block=0", &t, &err), 0);
    assert_non_null(strstr(err.msg, "kv_block"));
    assert_int_not_equal(
        v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pad_tokens=2", &t, &err), 0);
    assert_non_null(strstr(err.msg, "pad_tokens"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:host_us=-1", &t, &err),
                         0);
    assert_non_null(strstr(err.msg, "host_us"));
    remove(path);
}

/* Nearest-rank percentile p of the sorted v[0..n). */
static double rank(const double *v, size_t n, double p)
{
    size_t k = (size_t)ceil(p * (double)n);
    return v[(k ? k : 1) - 1];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A server's per-request samples are the ones its TTFT/TPOT figures are
 * over: as many, the same mean and percentiles once sorted. */
static void check_samples(const v10_tenant_result *x)
{
    const v10_llm_dist *d[2] = {&x->ttft_us, &x->tpot_us};
    const double *v[2] = {x->ttft_samples_us, x->tpot_samples_us};
    for (int k = 0; k < 2; k++) {
        size_t n = d[k]->n;
        assert_true(n > 0 && v[k] != NULL);
        double *s = malloc(n * sizeof *s), sum = 0;
        assert_non_null(s);
        memcpy(s, v[k], n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_double);
        for (size_t i = 0; i < n; i++)
            sum += s[i];
        assert_near(sum / (double)n, d[k]->avg, 1e-9 * d[k]->avg);
        assert_true(rank(s, n, 0.50) == d[k]->p50 && rank(s, n, 0.95) == d[k]->p95 &&
                    rank(s, n, 0.99) == d[k]->p99);
        free(s);
    }
}

/* Sum of GeneratedTokens of the trace's first n rows. */
static uint64_t trace_tokens(size_t n)
{
    v10_llm_trace t = {0};
    v10_err err = {{0}};
    if (v10_llm_trace_read(TRACE, 1, 0, &t, &err))
        fail_msg("%s", err.msg);
    uint64_t s = 0;
    for (size_t k = 0; k < n; k++)
        s += t.reqs[k].output_tokens;
    v10_llm_trace_fini(&t);
    return s;
}

/* llama3.2-1b on the conversation trace (first 30 requests, arrivals 5x
 * apart) beside resnet50, under each policy with --check. */
static void test_beside_zoo_model(void **state)
{
    (void)state;
    const char *pols[] = {"pmt", "v10-fair", "v10-full"};
    v10_tenant_spec t[2];
    spec("llm/llama3.2-1b:trace=" TRACE ":rate_scale=0.2:slo_ttft_ms=500:slo_tpot_ms=100", &t[0]);
    spec("resnet50", &t[1]);
    uint64_t want = trace_tokens(30);
    for (size_t p = 0; p < 3; p++) {
        v10_run_config c;
        checked_config(&c, t, 2, 30);
        snprintf(c.policy, sizeof c.policy, "%s", pols[p]);
        v10_run_result r;
        run(&c, &r);
        const v10_tenant_result *x = &r.tenants[0];
        assert_int_equal(x->completed, 30);
        assert_int_equal(x->llm_requests, 30);
        assert_int_equal(x->llm_tokens, want);
        assert_true(r.tenants[1].completed >= 30 && !r.tenants[1].llm);
        assert_true(x->ttft_us.avg <= x->e2e_us.avg && x->ttft_us.p99 <= x->e2e_us.p99);
        assert_true(x->queue_us.avg <= x->ttft_us.avg);
        assert_true(x->tpot_us.avg > 0 && x->tokens_per_s > 0);
        assert_true(x->slo_ttft >= 0 && x->slo_ttft <= 1 && x->slo_tpot >= 0);
        assert_true(x->kv_peak_tokens <= x->kv_capacity_tokens);
        assert_true(isnan(x->np) && r.stp == r.tenants[1].np); /* STP leaves the server out */
        check_samples(x);
        assert_null(r.tenants[1].ttft_samples_us);
        /* tokens/s over the requests' own span is at least over the window */
        assert_true(x->tokens_per_s_active >= x->tokens_per_s * (1 - 1e-12));
        v10_run_result_fini(&r);
    }
}

/* Poisson arrivals with lengths drawn from the trace: same seed, same
 * result; another seed, other draws. */
static void test_poisson_lengths(void **state)
{
    (void)state;
    v10_tenant_spec t[2];
    spec("llm/llama3.2-1b:rate=2:lengths=" TRACE ":max_batch=8", &t[0]);
    spec("bert", &t[1]);
    double e2e[3];
    uint64_t tok[3];
    for (int k = 0; k < 3; k++) {
        v10_run_config c;
        v10_run_config_default(&c);
        c.tenants = t;
        c.n_tenants = 2;
        c.requests = 20;
        c.seed = k < 2 ? 7 : 8;
        c.check = 1;
        v10_run_result r;
        run(&c, &r);
        assert_int_equal(r.tenants[0].completed, 20);
        e2e[k] = r.tenants[0].e2e_us.avg;
        tok[k] = r.tenants[0].llm_tokens;
        v10_run_result_fini(&r);
    }
    assert_true(e2e[0] == e2e[1] && tok[0] == tok[1]);
    assert_true(e2e[0] != e2e[2] || tok[0] != tok[2]);
}

static void expect_spec_error(const char *s, const char *needle)
{
    v10_tenant_spec t;
    v10_err err = {{0}};
    assert_int_equal(v10_tenant_spec_parse(s, &t, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': error '%s' does not name '%s'", s, err.msg, needle);
}

static void test_bad_specs(void **state)
{
    (void)state;
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":rate_scale=0", "rate_scale");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":max_batch=0", "max_batch");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":max_batch=2.5", "max_batch");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":slo_ttft_ms=fast", "slo_ttft_ms");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":start_s=-1", "start_s");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":rate=3", "rate");
    expect_spec_error("llm/gpt2-xl:lengths=" TRACE, "lengths");
    expect_spec_error("llm/gpt2-xl:slo_tpot_ms=10", "slo_tpot_ms");
    expect_spec_error("resnet50:trace=" TRACE, "trace");
    expect_spec_error("llm/gpt2-xl:prefill=10:trace=" TRACE, "prefill");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":outstanding=2", "outstanding");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":requests=0", "requests");
    expect_spec_error("llm/gpt2-xl:trace=" TRACE ":requests=1.5", "requests");
    expect_spec_error("resnet50:requests=3", "requests");
}

static void expect_run_error(v10_run_config *c, const char *a, const char *b)
{
    v10_run_result r;
    v10_err err = {{0}};
    assert_int_equal(v10_run(c, &r, &err), -1);
    if (!strstr(err.msg, a) || !strstr(err.msg, b))
        fail_msg("error '%s' does not name '%s' and '%s'", err.msg, a, b);
}

/* llama3-8b (16,060,522,496 bytes of bf16 weights) does not fit half of a
 * 24 GB HBM; a trace shorter than --requests; a request longer than
 * gpt2-xl's context. */
static void test_run_errors(void **state)
{
    (void)state;
    v10_tenant_spec t[2];
    spec("llm/llama3-8b:trace=" TRACE, &t[0]);
    spec("resnet50", &t[1]);
    v10_run_config c;
    v10_run_config_default(&c);
    c.npu.hbm_capacity_bytes = 24000000000ull;
    c.tenants = t;
    c.n_tenants = 2;
    expect_run_error(&c, "16060522496", "12000000000");
    v10_run_config_default(&c);
    c.tenants = t;
    c.n_tenants = 2;
    c.requests = 201;
    spec("llm/llama3.2-1b:trace=" TRACE, &t[0]); /* llama3-8b no longer fits 90% of 16 GiB */
    expect_run_error(&c, TRACE, "201");
    spec("llm/gpt2-xl:trace=" TRACE, &t[0]);
    c.requests = 200;
    expect_run_error(&c, "max_context", "request");
}

/* requests=K: the server serves its trace's first K requests whatever
 * --requests says; more than the trace holds is an error naming the key. */
static void test_own_requests(void **state)
{
    (void)state;
    v10_tenant_spec t[2];
    spec("llm/llama3.2-1b:trace=" TRACE ":rate_scale=0.5:requests=12", &t[0]);
    spec("resnet50", &t[1]);
    v10_run_config c;
    checked_config(&c, t, 2, 4);
    v10_run_result r;
    run(&c, &r);
    assert_int_equal(r.tenants[0].completed, 12);
    assert_int_equal(r.tenants[0].llm_tokens, trace_tokens(12));
    assert_true(r.tenants[1].completed >= 4);
    v10_run_result_fini(&r);
    spec("llm/llama3.2-1b:trace=" TRACE ":requests=201", &t[0]);
    expect_run_error(&c, "requests=", "201");
}

/* A run of the four requests below alone on v10-isca23, chunked or not,
 * with --check; *tpot_a is request A's TPOT, µs. */
static void chunk_run(int chunked, double *tpot_a, v10_run_result *r)
{
    const char *path = "/tmp/v10-llm-chunk.csv";
    write_trace(path, "2023-11-16 18:15:46.0000000,16,40\n"
                      "2023-11-16 18:15:46.0010000,2000,2\n"
                      "2023-11-16 18:15:46.0010000,2000,2\n"
                      "2023-11-16 18:15:46.0010000,2000,2\n");
    v10_tenant_spec t;
    spec(chunked ? "llm/llama3.2-1b:trace=/tmp/v10-llm-chunk.csv:max_prefill_tokens=512"
                 : "llm/llama3.2-1b:trace=/tmp/v10-llm-chunk.csv:max_prefill_tokens=512:"
                   "chunked_prefill=0", &t);
    v10_run_config c;
    checked_config(&c, &t, 1, 4);
    run(&c, r);
    remove(path);
    assert_int_equal(r->tenants[0].completed, 4);
    assert_int_equal(r->tenants[0].llm_tokens, 40 + 3 * 2);
    assert_int_equal(r->tenants[0].tpot_us.n, 4);
    *tpot_a = r->tenants[0].tpot_samples_us[0]; /* arrival order: A first */
}

/* Chunked prefill keeps decodes going: A (prompt 16, output 40) decodes
 * while three 2000-token prompts arrive; with a budget of 512 each
 * iteration holds A's decode and at most 511 prompt tokens, so A's TPOT is
 * at most one such iteration alone (a decode at A's longest context beside
 * a 511-token chunk at the longest past); without chunking, whole
 * 2000-token prefills stall A, and its TPOT is larger. */
static void test_chunked_tpot_bound(void **state)
{
    (void)state;
    v10_run_result r;
    double chunked, whole;
    chunk_run(1, &chunked, &r);
    v10_llm_config cfg;
    assert_int_equal(v10_llm_preset("llama3.2-1b", &cfg, NULL), 0);
    v10_llm_stream s;
    v10_err err = {{0}};
    uint32_t req[2] = {0, 1}, tok[2] = {16 + 40, 511}, past[2] = {0, 2000 - 511};
    v10_llm_iter it = {V10_LLM_ITER_MIXED, 2, req, tok, 511, 1, 2, past};
    v10_npu npu;
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, NULL), 0);
    if (v10_llm_stream_init(&s, &cfg, &npu, npu.vmem_bytes, 4, &err) ||
        v10_llm_stream_build(&s, &it, &err))
        fail_msg("%s", err.msg);
    double bound = (double)s.total_work / npu.clock_mhz;
    v10_llm_stream_fini(&s);
    assert_true(r.tenants[0].prefills >= 12); /* 6000 prompt tokens, <= 511 each */
    v10_run_result_fini(&r);
    chunk_run(0, &whole, &r);
    v10_run_result_fini(&r);
    print_message("A's TPOT %.0f us chunked (bound %.0f), %.0f us whole\n", chunked, bound, whole);
    assert_true(chunked <= bound);
    assert_true(whole > chunked);
}

/* KV capacity (docs/llm.md, "HBM"): a lone llama2-7b on tpuv4-core holds
 * HBM - 10% workspace - its weights, in tokens of 512 KiB; two servers of
 * llama3.2-1b on v10-isca23 share one weight copy in their pooled halves,
 * so each holds more than one beside resnet50 (its own weights in half). */
static void test_kv_capacity(void **state)
{
    (void)state;
    const char *path = "/tmp/v10-llm-kv.csv";
    write_trace(path, "2023-11-16 18:15:46.0,64,2\n");
    v10_tenant_spec t[2];
    spec("llm/llama2-7b:trace=/tmp/v10-llm-kv.csv", &t[0]);
    v10_run_config c;
    v10_run_config_default(&c);
    assert_int_equal(v10_npu_preset("tpuv4-core", &c.npu, NULL), 0);
    c.tenants = t;
    c.n_tenants = 1;
    c.requests = 1;
    c.warmup = 0;
    v10_run_result r;
    run(&c, &r);
    uint64_t hbm = 16ull << 30, weights = 6738415616ull * 2; /* llama2-7b's params, bf16 */
    uint64_t kvpt = 2ull * 32 * 32 * 128 * 2;                /* K, V x layers x heads x dim */
    assert_int_equal(c.npu.hbm_capacity_bytes, hbm);
    assert_int_equal(r.tenants[0].kv_capacity_tokens, (hbm - hbm / 100 * 10 - weights) / kvpt);
    assert_int_equal(r.tenants[0].kv_capacity_tokens, 3786);
    v10_run_result_fini(&r);

    v10_llm_config cfg;
    assert_int_equal(v10_llm_preset("llama3.2-1b", &cfg, NULL), 0);
    uint64_t w = v10_llm_weight_bytes(&cfg), kv = v10_llm_kv_bytes_per_token(&cfg);
    v10_run_config_default(&c);
    uint64_t seg = c.npu.hbm_capacity_bytes / 2, use = seg - seg / 100 * 10;
    spec("llm/llama3.2-1b:trace=/tmp/v10-llm-kv.csv", &t[0]);
    spec("llm/llama3.2-1b:trace=/tmp/v10-llm-kv.csv", &t[1]);
    c.tenants = t;
    c.n_tenants = 2;
    c.requests = 1;
    c.warmup = 0;
    run(&c, &r);
    assert_int_equal(r.tenants[0].kv_capacity_tokens, (2 * use - w) / 2 / kv);
    assert_int_equal(r.tenants[1].kv_capacity_tokens, (2 * use - w) / 2 / kv);
    v10_run_result_fini(&r);
    spec("resnet50", &t[1]);
    run(&c, &r);
    assert_int_equal(r.tenants[0].kv_capacity_tokens, (use - w) / kv);
    v10_run_result_fini(&r);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_closed_form),
        cmocka_unit_test(test_tpu_runtime_closed_form), cmocka_unit_test(test_beside_zoo_model),
        cmocka_unit_test(test_poisson_lengths),  cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_run_errors),       cmocka_unit_test(test_own_requests),
        cmocka_unit_test(test_chunked_tpot_bound), cmocka_unit_test(test_kv_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
