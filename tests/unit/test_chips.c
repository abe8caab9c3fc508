/*
 * test_chips.c — several chips (docs/llm.md, "Several chips"): the slice
 * presets from their published figures, the ring collective's closed form,
 * a tensor-parallel GEMM layer's all-reduce, the link engine beside the
 * SAs (one tenant's communication under another's compute), the
 * tensor-parallel shard of an LLM, its pipeline stages, and what stands
 * for the simulation of every chip under a symmetric placement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../runcfg.h"
#include "v10/cost.h"
#include "v10/llm.h"
#include "v10/llm_server.h"
#include "v10/model.h"
#include "v10/npu.h"

static v10_npu preset(const char *name)
{
    v10_npu n;
    v10_err err;
    if (v10_npu_preset(name, &n, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(v10_npu_validate(&n, &err), 0);
    return n;
}

/* Four chips on one ring of 100 GB/s links, 1 µs a hop, 1 GHz: 100 bytes
 * a cycle a link and direction, 1000 cycles a hop. */
static v10_npu ring4(void)
{
    v10_npu n = preset("v10-isca23");
    snprintf(n.name, sizeof n.name, "ring4");
    n.chips = 4;
    n.ici_links = 2;
    n.ici_gbps = 100;
    n.ici_latency_us = 1;
    n.clock_mhz = 1000;
    return n;
}

/* The presets: Google's figures (Google Cloud's TPU v4, v5e and v6e pages). */
static void slice_presets(void **state)
{
    (void)state;
    v10_npu v4 = preset("tpuv4-8"), v5e = preset("tpuv5e-8"), v6e = preset("tpuv6e");
    assert_int_equal(v4.chips, 4);
    assert_int_equal(v4.sa_count, 8); /* both TensorCores' MXUs */
    assert_true(fabs(v4.ici_gbps - 1.1e6 / 4096 / 6) < 1e-9);
    assert_true(fabs(2.0 * v4.sa_count * v4.sa_rows * v4.sa_cols * v4.clock_mhz * 1e6 - 275e12) <
                1e12);                      /* 275 TFLOPS bf16 */
    assert_int_equal(v5e.chips, 8);
    assert_true(v5e.ici_gbps == 50.0);      /* 400 GB/s bidirectional over 4 ports */
    assert_true(v5e.hbm_gbps == 819.0);
    assert_true(fabs(2.0 * v5e.sa_count * 128 * 128 * v5e.clock_mhz * 1e6 - 197e12) < 1e12);
    assert_int_equal(v6e.chips, 1);
    assert_true(v6e.ici_gbps == 100.0);     /* 800 GB/s bidirectional over 4 ports */
    assert_true(fabs(2.0 * v6e.sa_count * 256 * 256 * v6e.clock_mhz * 1e6 - 918e12) < 1e12);
    /* One chip keeps no link keys in its JSON (reports read as before);
     * a slice's round-trip through JSON. */
    v10_npu core = preset("tpuv4-core"), back;
    cJSON *j = v10_npu_to_json(&core);
    assert_null(cJSON_GetObjectItem(j, "chips"));
    cJSON_Delete(j);
    j = v10_npu_to_json(&v5e);
    assert_string_equal(cJSON_GetObjectItem(j, "ici_topology")->valuestring, "ring");
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    v10_err err;
    assert_int_equal(v10_npu_from_json(text, "v5e.json", &back, &err), 0);
    cJSON_free(text);
    assert_int_equal(back.chips, 8);
    assert_true(back.ici_latency_us == v5e.ici_latency_us);
    /* A topology that is not one names the key and what it expects. */
    assert_int_not_equal(v10_npu_from_json("{\"ici_topology\": \"mesh\"}", "t.json", &back, &err),
                         0);
    assert_non_null(strstr(err.msg, "t.json: key 'ici_topology': expected \"ring\" or \"torus\""));
    assert_int_not_equal(v10_npu_from_json("{\"chips\": 0}", "t.json", &back, &err), 0);
    assert_non_null(strstr(err.msg, "'chips'"));
}

/*
 * The ring all-reduce of B bytes over N chips (Patarasuk and Yuan, JPDC
 * 2009): 2(N - 1) steps, each a hop's latency and B / N bytes split over
 * the two directions of the ring, i.e. 2(N - 1)/N x B / (2 x bw) + 2(N - 1)
 * x latency; an all-gather is half the steps.  8 MB over ring4: 1.5 x 8e6 /
 * 200 + 6 x 1000 = 66,000 cycles; a torus of 4 links is two rings.
 */
static void collective_closed_form(void **state)
{
    (void)state;
    v10_npu n = ring4();
    const uint64_t B = 8000000;
    assert_int_equal(v10_npu_collective_cycles(&n, 0, 1, B), 66000);
    assert_int_equal(v10_npu_collective_cycles(&n, 0, 0, B), 33000);
    n.ici_topology = V10_ICI_TORUS;
    n.ici_links = 4;
    assert_int_equal(v10_npu_ici_rings(&n), 2);
    assert_int_equal(v10_npu_collective_cycles(&n, 0, 1, B), 6 * (1000 + 5000));
    n.chips = 1;
    assert_int_equal(v10_npu_collective_cycles(&n, 0, 1, B), 0);
    /* On tpuv5e-8: 2 x 7 steps of 3.33 µs plus 786,432 bytes / 16 at 50 GB/s. */
    v10_npu v5e = preset("tpuv5e-8");
    double want = 14 * (3.33 + 786432.0 / 16 / 50e3) * 1500;
    assert_true(fabs((double)v10_npu_collective_cycles(&v5e, 0, 1, 786432) - want) <= 1);
}

/* The model: a row-parallel GEMM (this chip's K / N rows) then the
 * all-reduce of its M x N bf16 output, costed for npu. */
static void tp_layer(const v10_npu *npu, uint64_t M, uint64_t Nout, uint64_t K, v10_model *m)
{
    v10_err err;
    v10_model_init(m, "tp-layer", 1);
    if (v10_model_gemm(m, "gemm", 1, M, Nout, K / npu->chips, 1, &err) ||
        v10_model_collective(m, "allreduce", V10_OP_ALLREDUCE, M * Nout * 2, 0, &err) ||
        v10_cost_model(npu, m, &err))
        fail_msg("%s", err.msg);
}

static void run_models(const v10_npu *npu, const char *policy, const v10_model *models,
                       size_t n, v10_run_result *r)
{
    v10_tenant_spec ts[2];
    v10_err err;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v10_tenant_spec_parse("mnist", &ts[i], &err), 0);
    v10_run_config c;
    runcfg(&c, policy, ts, n, 3, 0);
    c.npu = *npu;
    c.models = models;
    assert_int_equal(runcfg_run(&c, r), 0);
}

/*
 * One tensor-parallel GEMM layer over four chips, run alone: each request
 * takes the GEMM's cycles and then the all-reduce's closed form, on the
 * link engine (M = 1024, N = 4096 outputs, K = 4096 inputs: 8 MiB all-reduced).
 */
static void tp_gemm_layer(void **state)
{
    (void)state;
    v10_npu n = ring4();
    v10_model m;
    tp_layer(&n, 1024, 4096, 4096, &m);
    assert_int_equal(m.ops[1].fu, V10_FU_ICI);
    uint64_t bytes = 1024 * 4096 * 2;
    uint64_t ar = (uint64_t)ceil(6 * (1000 + (double)bytes / 8 / 100));
    assert_int_equal(m.ops[1].cycles, ar);
    assert_int_equal(m.ops[1].hbm_bytes, 0);
    v10_run_result r;
    run_models(&n, "solo", &m, 1, &r);
    double want_us = (double)(m.ops[0].cycles + ar) / n.clock_mhz;
    assert_true(fabs(r.tenants[0].lat_avg_us - want_us) < 1e-6 * want_us);
    v10_run_result_fini(&r);
    /* One chip has no link engine: a collective there is refused. */
    v10_npu one = n;
    one.chips = 1;
    v10_tenant_spec ts;
    v10_err err;
    assert_int_equal(v10_tenant_spec_parse("mnist", &ts, &err), 0);
    v10_run_config c;
    runcfg(&c, "solo", &ts, 1, 3, 0);
    c.npu = one;
    c.models = &m;
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "no link engine"));
    v10_model_fini(&m);
}

/* A model of one all-reduce of `bytes`, costed on n. */
static void all_reduce_model(const v10_npu *n, v10_model *m, const char *name, uint64_t bytes)
{
    v10_err err;
    v10_model_init(m, name, 1);
    if (v10_model_collective(m, "ar", V10_OP_ALLREDUCE, bytes, 0, &err) ||
        v10_cost_model(n, m, &err))
        fail_msg("%s", err.msg);
}

/*
 * The link engine is an FU of its own: under every V10 policy, a tenant
 * that only all-reduces beside one that only multiplies finishes each
 * request in its solo time, and so does the other (the collective moves no
 * HBM bytes, so nothing contends): communication under computation.
 */
static void link_engine_overlaps(void **state)
{
    (void)state;
    v10_npu n = ring4();
    v10_err err;
    v10_model m[2];
    all_reduce_model(&n, &m[0], "comm", 8000000);
    v10_model_init(&m[1], "comp", 1);
    if (v10_model_gemm(&m[1], "g", 1, 512, 512, 512, 1, &err) || v10_cost_model(&n, &m[1], &err))
        fail_msg("%s", err.msg);
    const char *policies[] = {"v10-base", "v10-fair", "v10-full"};
    for (int p = 0; p < 3; p++) {
        v10_run_result r;
        run_models(&n, policies[p], m, 2, &r);
        for (int i = 0; i < 2; i++) {
            double solo = (double)m[i].ops[0].cycles / n.clock_mhz;
            assert_true(fabs(r.tenants[i].lat_avg_us - solo) < 1e-6 * solo);
        }
        v10_run_result_fini(&r);
    }
    v10_model_fini(&m[0]);
    v10_model_fini(&m[1]);
}

/*
 * Two tenants that only all-reduce, under FCFS: the link engine never
 * idles, and each waits for it exactly while the other's collective runs
 * (its own state, wait_ici, not a VU's), lost to the other.
 */
static void link_engine_wait(void **state)
{
    (void)state;
    v10_npu n = ring4();
    v10_model m[2];
    all_reduce_model(&n, &m[0], "big", 8000000);
    all_reduce_model(&n, &m[1], "small", 2000000);
    v10_run_result r;
    run_models(&n, "fcfs", m, 2, &r);
    double win = (double)(r.window_end - r.window_start);
    enum { S = V10_ATTR_STATES };
    for (size_t i = 0; i < 2; i++) {
        const double *mine = r.tenants[i].state_cycles, *other = r.tenants[1 - i].state_cycles;
        assert_true(fabs(mine[V10_ATTR_EXEC] + other[V10_ATTR_EXEC] - win) <= 1);
        assert_true(mine[V10_ATTR_WAIT_ICI] > 0);
        assert_true(fabs(mine[V10_ATTR_WAIT_ICI] - other[V10_ATTR_EXEC]) <= 1);
        double to = r.tenants[i].lost_to[(1 - i) * S + V10_ATTR_WAIT_ICI];
        assert_true(fabs(to - mine[V10_ATTR_WAIT_ICI]) <= 1e-6);
        assert_true(mine[V10_ATTR_WAIT_VU] == 0 && mine[V10_ATTR_WAIT_SA] == 0);
    }
    v10_run_result_fini(&r);
    v10_model_fini(&m[0]);
    v10_model_fini(&m[1]);
}

/* Operators of FU type ty in m. */
static size_t count_fu(const v10_model *m, v10_fu_type ty)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n_ops; i++)
        k += m->ops[i].fu == ty;
    return k;
}

/*
 * Megatron's split of llama2-7b over four chips: a quarter of the heads,
 * KV heads, FFN and vocabulary; a quarter of the KV cache per token; the
 * weights a quarter but for the norms every chip holds; two all-reduces a
 * layer of the tokens' activations, the embedding's and the logits'
 * all-gather.  Splits that do not divide are refused; fewer KV heads than
 * chips are replicated.
 */
static void llm_shard(void **state)
{
    (void)state;
    v10_llm_config c, s;
    v10_err err;
    assert_int_equal(v10_llm_preset("llama2-7b", &c, &err), 0);
    assert_int_equal(v10_llm_shard(&c, 4, &s, &err), 0);
    assert_int_equal(s.heads, 8);
    assert_int_equal(s.kv_heads, 8);
    assert_int_equal(s.ffn, 2752);
    assert_int_equal(s.vocab, 8000);
    assert_int_equal(s.hidden, c.hidden);
    assert_int_equal(v10_llm_kv_bytes_per_token(&s) * 4, v10_llm_kv_bytes_per_token(&c));
    uint64_t norms = (2ull * c.layers + 1) * c.hidden; /* RMSNorm gammas, every chip's */
    assert_int_equal((v10_llm_params(&s) - norms) * 4, v10_llm_params(&c) - norms);
    v10_npu v4 = preset("tpuv4-8");
    v10_model m;
    assert_int_equal(v10_llm_build_spec("llm/llama2-7b:prefill=256", "llama2-7b", "prefill=256",
                                        &v4, &m, &err), 0);
    assert_int_equal(count_fu(&m, V10_FU_ICI), 2 * c.layers + 2);
    for (size_t i = 0; i < m.n_ops; i++)
        if (m.ops[i].kind == V10_OP_ALLREDUCE)
            assert_int_equal(m.ops[i].elems, 256ull * c.hidden * 2);
        else if (m.ops[i].kind == V10_OP_ALLGATHER)
            assert_int_equal(m.ops[i].elems, 1ull * 4 * s.vocab * 2);
    v10_model_fini(&m);
    /* The whole model on one chip: no collective. */
    v10_npu core = preset("tpuv4-core");
    assert_int_equal(v10_llm_build_spec("llm/llama3.2-1b:prefill=64", "llama3.2-1b", "prefill=64",
                                        &core, &m, &err), 0);
    assert_int_equal(count_fu(&m, V10_FU_ICI), 0);
    v10_model_fini(&m);
    /* llama3-8b's 8 KV heads over 16 chips: one each, replicated twice. */
    assert_int_equal(v10_llm_preset("llama3-8b", &c, &err), 0);
    assert_int_equal(v10_llm_shard(&c, 16, &s, &err), 0);
    assert_int_equal(s.kv_heads, 1);
    assert_int_equal(s.heads, 2);
    /* gpt2-xl's 25 heads do not split over 4 chips. */
    assert_int_equal(v10_llm_preset("gpt2-xl", &c, &err), 0);
    assert_int_not_equal(v10_llm_shard(&c, 4, &s, &err), 0);
    assert_non_null(strstr(err.msg, "heads (25)"));
    assert_int_not_equal(v10_llm_shard(&s, 4, &s, &err), 0);
}

/*
 * The symmetric shortcut (docs/llm.md): with every chip running the same
 * tenants, one chip's simulation stands for all.  What this checks, in
 * place of a simulation of every chip (not built): a lone tensor-parallel
 * decode on tpuv4-8 takes, per iteration, exactly the sum of its costed
 * operators, of which the collectives are their closed forms, the same
 * on every chip since every chip runs the same shard; i.e. a chip never
 * waits at a collective for another, which is what the shortcut assumes.
 */
static void symmetric_shortcut(void **state)
{
    (void)state;
    v10_npu v4 = preset("tpuv4-8");
    v10_model m;
    v10_err err;
    assert_int_equal(v10_llm_build_spec("llm/llama2-7b:decode=8x128", "llama2-7b",
                                        "decode=8x128", &v4, &m, &err), 0);
    assert_int_equal(v10_cost_model(&v4, &m, &err), 0);
    v10_run_result r;
    run_models(&v4, "solo", &m, 1, &r); /* the run maps each operator over its engines */
    assert_int_equal(v10_cost_map_model(&v4, &m, &err), 0);
    uint64_t ici = 0;
    for (size_t i = 0; i < m.n_ops; i++)
        if (m.ops[i].fu == V10_FU_ICI) {
            int all = m.ops[i].kind == V10_OP_ALLREDUCE;
            assert_int_equal(m.ops[i].cycles,
                             v10_npu_collective_cycles(&v4, 0, all, m.ops[i].elems));
            ici += m.ops[i].cycles;
        }
    assert_true(ici > 0);
    double want_us = (double)v10_model_cycles(&m) / v4.clock_mhz;
    assert_true(fabs(r.tenants[0].lat_avg_us - want_us) < 1e-6 * want_us);
    v10_run_result_fini(&r);
    v10_model_fini(&m);
}

/* ---- every chip simulated ------------------------------------------------------- */

/* Writes `text` to the file at `path` (a test's input). */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A server of llama3.2-1b cut to two layers (a few, to keep it quick; on
 * several chips, tensor-parallel) on the conversation trace's first six
 * requests. */
static const char *tiny_server(void)
{
    write_file("/tmp/v10-chips-tiny.json",
               "{\"base\": \"llama3.2-1b\", \"name\": \"tiny\", \"layers\": 2}\n");
    return "llm//tmp/v10-chips-tiny.json:trace=tests/data/llm/azure_conv_200.csv:requests=6";
}

/* One run of tenants specs[0..n) on npu under policy, every chip simulated or not. */
static void run_specs(const v10_npu *npu, const char *policy, const char *const *specs, size_t n,
                      int every, v10_run_result *r)
{
    v10_tenant_spec ts[4];
    v10_err err;
    for (size_t i = 0; i < n; i++)
        if (v10_tenant_spec_parse(specs[i], &ts[i], &err))
            fail_msg("%s", err.msg);
    v10_run_config c;
    runcfg(&c, policy, ts, n, 6, 0);
    c.npu = *npu;
    c.every_chip = every;
    assert_int_equal(runcfg_run(&c, r), 0);
}

/* Tenant a's figures equal tenant b's, to the bit: its requests' and, if
 * `chip`, what it did on its chip (its FUs' cycles, its preemptions). */
static void same_tenant(const v10_tenant_result *a, const v10_tenant_result *b, int chip)
{
    assert_int_equal(a->completed, b->completed);
    assert_true(a->lat_avg_us == b->lat_avg_us);
    assert_true(a->lat_p99_us == b->lat_p99_us);
    if (chip) {
        assert_true(a->work_done == b->work_done);
        assert_int_equal(a->active_cycles, b->active_cycles);
        assert_int_equal(a->preemptions, b->preemptions);
    }
    assert_int_equal(a->llm, b->llm);
    if (a->llm) {
        assert_int_equal(a->llm_tokens, b->llm_tokens);
        assert_true(a->ttft_us.avg == b->ttft_us.avg && a->ttft_us.p99 == b->ttft_us.p99);
        assert_true(a->tpot_us.avg == b->tpot_us.avg);
        assert_true(a->tokens_per_s == b->tokens_per_s);
    }
}

/*
 * The symmetric shortcut against the simulation of every chip
 * (docs/llm.md, "Every chip"): on tpuv4-8 (four chips), a tensor-parallel
 * LLM server of two layers on six trace requests beside a closed-loop
 * mnist replica on each chip, under V10-Base, -Fair and -Full, and the
 * server alone under solo.  Every chip's shard of every tenant reports
 * exactly (to the bit) what the one simulated chip reports: each chip
 * makes the same decisions at the same cycles, so its shards reach each
 * collective together and no barrier waits.  The run's end, the
 * preemptions and the context switches are the same; its energy is four
 * chips' (the same terms summed in another order: within 1e-12).
 */
static void every_chip_equals_shortcut(void **state)
{
    (void)state;
    v10_npu v4 = preset("tpuv4-8");
    const char *pair[] = {tiny_server(), "mnist"};
    const char *policies[] = {"solo", "v10-base", "v10-fair", "v10-full"};
    for (int p = 0; p < 4; p++) {
        size_t n = p ? 2 : 1;
        v10_run_result one, all;
        run_specs(&v4, policies[p], pair, n, 0, &one);
        run_specs(&v4, policies[p], pair, n, 1, &all);
        assert_int_equal(all.n_tenants, 4 * n);
        for (size_t c = 0; c < 4; c++)
            for (size_t i = 0; i < n; i++)
                same_tenant(&all.tenants[c * n + i], &one.tenants[i], 1);
        assert_int_equal(all.end_cycle, one.end_cycle);
        assert_int_equal(all.preemptions, 4 * one.preemptions);
        assert_int_equal(all.context_switches, 4 * one.context_switches);
        assert_int_equal(all.n_fus, 4 * one.n_fus);
        assert_true(fabs(all.energy.total_j - 4 * one.energy.total_j) <= 1e-12 * all.energy.total_j);
        assert_true(fabs(all.util_sa - one.util_sa) <= 1e-12);
        v10_run_result_fini(&one);
        v10_run_result_fini(&all);
    }
}

/*
 * Where the shortcut is not exact: a Poisson mnist replica on each chip is
 * each chip's own service with its own arrivals (chip 0's are the one
 * simulated chip's), so the chips differ.  The server's shards still meet
 * at every collective: each iteration ends with the logits' all-gather,
 * which every chip's link engine starts when the last shard reaches it,
 * so every chip's shard reports the same figures; mnist's differ by chip.
 */
static void every_chip_barrier(void **state)
{
    (void)state;
    v10_npu v4 = preset("tpuv4-8");
    const char *pair[] = {tiny_server(), "mnist:rate=2000"};
    v10_run_result one, all;
    run_specs(&v4, "v10-full", pair, 2, 0, &one);
    run_specs(&v4, "v10-full", pair, 2, 1, &all);
    for (size_t c = 1; c < 4; c++)
        same_tenant(&all.tenants[2 * c], &all.tenants[0], 0);
    int differ = 0;
    for (size_t c = 1; c < 4; c++)
        differ |= all.tenants[2 * c + 1].lat_avg_us != all.tenants[1].lat_avg_us;
    assert_true(differ);
    assert_true(all.tenants[0].tpot_us.avg != one.tenants[0].tpot_us.avg); /* not symmetric */
    print_message("every chip: server TTFT avg %.3f us (one chip %.3f), TPOT avg %.3f (%.3f)\n",
                  all.tenants[0].ttft_us.avg, one.tenants[0].ttft_us.avg,
                  all.tenants[0].tpot_us.avg, one.tenants[0].tpot_us.avg);
    v10_run_result_fini(&one);
    v10_run_result_fini(&all);
}

/* What every_chip refuses, naming why. */
static void every_chip_errors(void **state)
{
    (void)state;
    v10_tenant_spec ts;
    v10_err err;
    v10_run_result r;
    assert_int_equal(v10_tenant_spec_parse("mnist", &ts, &err), 0);
    v10_run_config c;
    runcfg(&c, "pmt", &ts, 1, 3, 0);
    c.npu = preset("tpuv4-8");
    c.every_chip = 1;
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "every_chip: policy pmt grants the NPU"));
    snprintf(c.policy, sizeof c.policy, "spatial");
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "spatial partitions with every chip simulated"));
    snprintf(c.policy, sizeof c.policy, "v10-full");
    c.npu = preset("tpuv4-core");
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "every_chip: NPU 'tpuv4-core' has one chip"));
}

/* ---- pipeline parallelism ------------------------------------------------------- */

/* Stage k of `pp` of llm/NAME on npu (its chips / pp tensor-parallel). */
static v10_llm_config stage_of(const char *name, const v10_npu *npu, uint32_t pp, uint32_t k)
{
    v10_llm_config c;
    v10_err err;
    if (v10_llm_resolve_stage(name, npu, pp, k, &c, &err))
        fail_msg("%s", err.msg);
    return c;
}

/*
 * The stages of a pipeline (docs/llm.md, "Pipeline parallelism"): their
 * parameters are the model's (a tied table twice: the last stage's copy),
 * their MACs a prefill's, each ends with a send of its activations but the
 * last, whose send takes one hop's latency plus the bytes over one link.
 */
static void pipeline_stages(void **state)
{
    (void)state;
    v10_npu r4 = ring4();
    v10_err err;
    for (int tied = 0; tied < 2; tied++) {
        const char *name = tied ? "gpt2-xl" : "llama2-7b";
        v10_llm_config whole;
        assert_int_equal(v10_llm_resolve(name, &whole, &err), 0);
        assert_int_equal(whole.tied_embeddings, tied);
        v10_model wm;
        v10_model_init(&wm, "whole", 1);
        assert_int_equal(v10_llm_prefill(&whole, 100, &wm, &err), 0);
        assert_int_equal(v10_cost_model(&r4, &wm, &err), 0);
        uint64_t params = 0, macs = 0, wmacs = 0;
        for (size_t i = 0; i < wm.n_ops; i++)
            wmacs += wm.ops[i].macs;
        for (uint32_t k = 0; k < 4; k++) { /* four stages of one chip each */
            v10_llm_config c = stage_of(name, &r4, 4, k);
            assert_int_equal(c.layers * 4, whole.layers);
            assert_int_equal(c.tp, 0); /* one chip a stage: the whole width */
            params += v10_llm_params(&c);
            v10_model m;
            v10_model_init(&m, "stage", 1);
            assert_int_equal(v10_llm_prefill(&c, 100, &m, &err), 0);
            assert_int_equal(v10_cost_model(&r4, &m, &err), 0);
            const v10_op *last = &m.ops[m.n_ops - 1];
            if (k < 3) {
                assert_int_equal(last->kind, V10_OP_SEND);
                assert_int_equal(last->fu, V10_FU_ICI);
                assert_int_equal(last->elems, 100ull * whole.hidden * 2);
                /* 1 µs a hop at 1 GHz, 100 bytes a cycle a link */
                assert_int_equal(last->cycles, 1000 + (100ull * whole.hidden * 2 + 99) / 100);
            } else {
                assert_string_equal(last->name, "head.sample");
            }
            assert_int_equal(!strcmp(m.ops[0].name, "embed.gather"), k == 0);
            for (size_t i = 0; i < m.n_ops; i++)
                macs += m.ops[i].macs;
            v10_model_fini(&m);
        }
        uint64_t table = (uint64_t)whole.vocab * whole.hidden;
        assert_int_equal(params, v10_llm_params(&whole) + (tied ? table : 0));
        assert_int_equal(macs, wmacs);
        v10_model_fini(&wm);
    }
    /* Two stages of two chips: each tensor-parallel over its two, its
     * all-reduces over a ring of two. */
    v10_llm_config c = stage_of("llama2-7b", &r4, 2, 0);
    assert_int_equal(c.tp, 2);
    assert_int_equal(c.layers, 16);
    v10_model m;
    v10_model_init(&m, "stage", 1);
    assert_int_equal(v10_llm_decode(&c, 1, (uint32_t[]){64}, &m, &err), 0);
    assert_int_equal(v10_cost_model(&r4, &m, &err), 0);
    for (size_t i = 0; i < m.n_ops; i++)
        if (m.ops[i].kind == V10_OP_ALLREDUCE)
            assert_int_equal(m.ops[i].cycles, v10_npu_collective_cycles(&r4, 2, 1, m.ops[i].elems));
    v10_model_fini(&m);
    /* Refused: layers or chips that do not divide. */
    v10_llm_config out;
    assert_int_not_equal(v10_llm_resolve_stage("llama2-7b", &r4, 3, 0, &out, &err), 0);
    assert_non_null(strstr(err.msg, "chips (4"));
    v10_npu r6 = r4;
    r6.chips = 6;
    assert_int_not_equal(v10_llm_resolve_stage("llama2-7b", &r6, 3, 0, &out, &err), 0);
    assert_non_null(strstr(err.msg, "layers (32)"));
}

/* Standalone cycles of `it` on every stage of a pipeline of pp, summed,
 * the tenant holding the whole vector memory; *first gets stage 0's. */
static double pipeline_cycles(const v10_npu *npu, const char *name, uint32_t pp,
                              const v10_llm_iter *it, double *first)
{
    double sum = 0;
    for (uint32_t k = 0; k < pp; k++) {
        v10_llm_config c = stage_of(name, npu, pp, k);
        v10_llm_stream s;
        v10_err err;
        assert_int_equal(v10_llm_stream_init(&s, &c, npu, npu->vmem_bytes, 1, &err), 0);
        assert_int_equal(v10_llm_stream_build(&s, it, &err), 0);
        sum += (double)s.total_work; /* this stage's own operators */
        if (k == 0)
            *first = (double)s.total_work;
        v10_llm_stream_fini(&s);
    }
    return sum;
}

/*
 * A lone server as a pipeline of two stages on ring4 (each tensor-parallel
 * over two chips) and of four (one chip each), one request of 200 prompt
 * tokens and 3 output tokens: its time to first token is the prefill
 * through every stage (the first simulated, then the others' standalone
 * time), its time per output token a decode through every stage, each
 * stage's time built on its own; the simulated chip holds an FU for the
 * first stage's operators only.
 */
static void pipeline_server(void **state)
{
    (void)state;
    v10_npu r4 = ring4();
    const char *csv = "/tmp/v10-chips-pp.csv";
    write_file(csv, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,200,3\n");
    char spec[160];
    for (uint32_t pp = 2; pp <= 4; pp += 2) {
        snprintf(spec, sizeof spec, "llm/llama3.2-1b:trace=%s:requests=1:pp=%u", csv, pp);
        const char *one[] = {spec};
        v10_run_result r;
        run_specs(&r4, "solo", one, 1, 0, &r);
        uint32_t prompt = 200, ctx[2] = {201, 202}, req = 0;
        v10_llm_iter pre = {.kind = V10_LLM_ITER_PREFILL, .n = 1, .req = &req,
                            .tokens = &prompt, .n_emit = 1, .token_sum = 200};
        double first, busy;
        double want_ttft = pipeline_cycles(&r4, "llama3.2-1b", pp, &pre, &busy) / r4.clock_mhz;
        double want_tpot = 0;
        for (int d = 0; d < 2; d++) {
            v10_llm_iter dec = {.kind = V10_LLM_ITER_DECODE, .n = 1, .req = &req,
                                .tokens = &ctx[d], .n_emit = 1, .n_decode = 1,
                                .token_sum = ctx[d]};
            want_tpot += pipeline_cycles(&r4, "llama3.2-1b", pp, &dec, &first) / r4.clock_mhz / 2;
            busy += first;
        }
        const v10_tenant_result *t = &r.tenants[0];
        assert_int_equal(t->llm_tokens, 3);
        assert_true(fabs(t->ttft_us.avg - want_ttft) <= 1e-9 * want_ttft);
        assert_true(fabs(t->tpot_us.avg - want_tpot) <= 1e-9 * want_tpot);
        assert_true((double)t->active_cycles == busy);
        assert_true(t->work_done == busy);
        v10_run_result_fini(&r);
    }
    /* Beside a co-tenant the simulated stage runs slower than alone, and
     * pp_stretch (the default) stretches the other stages as much. */
    double tpot[2];
    for (int st = 0; st < 2; st++) {
        snprintf(spec, sizeof spec, "llm/llama3.2-1b:trace=%s:requests=1:pp=2%s", csv,
                 st ? "" : ":pp_stretch=0");
        const char *pair[] = {spec, "resnet50"};
        v10_run_result r;
        run_specs(&r4, "v10-full", pair, 2, 0, &r);
        tpot[st] = r.tenants[0].tpot_us.avg;
        v10_run_result_fini(&r);
    }
    assert_true(tpot[1] > tpot[0]);
    /* every_chip does not simulate stages */
    v10_tenant_spec ts;
    v10_err err;
    assert_int_equal(v10_tenant_spec_parse(spec, &ts, &err), 0);
    v10_run_config c;
    runcfg(&c, "v10-full", &ts, 1, 1, 0);
    c.npu = r4;
    c.every_chip = 1;
    v10_run_result r;
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(strstr(err.msg, "pipeline of 2 stages"));
    /* The key: written back, its range, servers only, chips it divides. */
    char back[2 * V10_SPEC_MAX];
    assert_int_equal(v10_tenant_spec_format(&ts, back, sizeof back), 0);
    assert_non_null(strstr(back, ":pp=2"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pp=0", &ts, &err), 0);
    assert_non_null(strstr(err.msg, "pp: expected an integer in [1, 64]"));
    assert_int_not_equal(v10_tenant_spec_parse("mnist:pp=2", &ts, &err), 0);
    assert_non_null(strstr(err.msg, "pp= applies to an LLM server"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pp_stretch=0", &ts, &err),
                         0);
    assert_non_null(strstr(err.msg, "pp_stretch= applies to a pipeline"));
    snprintf(spec, sizeof spec, "llm/llama3.2-1b:trace=%s:requests=1:pp=3", csv);
    assert_int_equal(v10_tenant_spec_parse(spec, &ts, &err), 0);
    runcfg(&c, "v10-full", &ts, 1, 1, 0);
    c.npu = r4;
    assert_int_not_equal(v10_run(&c, &r, &err), 0);
    assert_non_null(
        strstr(err.msg, "needs the NPU's chips (4, NPU 'ring4') to be a multiple of 3"));
    remove(csv);
}

/* Stage 0's and the other stage's standalone cycles of a one-sequence
 * iteration of a two-stage pipeline: the prefill of 200 tokens (k = 0),
 * then decodes over 201 and 202. */
static void two_stage_times(const v10_npu *npu, int k, double *s0, double *s1)
{
    uint32_t prompt = 200, ctx = 200 + (uint32_t)k, req = 0;
    v10_llm_iter pre = {.kind = V10_LLM_ITER_PREFILL, .n = 1, .req = &req, .tokens = &prompt,
                        .n_emit = 1, .token_sum = 200};
    v10_llm_iter dec = {.kind = V10_LLM_ITER_DECODE, .n = 1, .req = &req, .tokens = &ctx,
                        .n_emit = 1, .n_decode = 1, .token_sum = ctx};
    double sum = pipeline_cycles(npu, "llama3.2-1b", 2, k ? &dec : &pre, s0);
    *s1 = sum - *s0;
}

/*
 * Two batches in flight through a two-stage pipeline on ring4: request A
 * (200 prompt tokens, 3 output) at 0 and B (the same) 1 µs later, alone.
 * B arrives while A's prefill runs on stage 0, so it is the second batch,
 * and the two alternate: each iteration starts on stage 0 once stage 0 is
 * free and its previous iteration is back, and on stage 1 once stage 1 is
 * free (each stage a queue in turn).  The run's TTFT and TPOT are this
 * recurrence's, to 1e-9; with one batch at a time (pp_batches=1) B waits
 * and the run ends later.
 */
static void pipeline_batches(void **state)
{
    (void)state;
    v10_npu r4 = ring4();
    const char *csv = "/tmp/v10-chips-pp2.csv";
    write_file(csv, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.000000,200,3\n"
                    "2023-11-16 18:15:46.000001,200,3\n");
    double s0[3], s1[3], chip = 0, stage1 = 0, back[2] = {0, r4.clock_mhz}, first[2] = {0};
    for (int k = 0; k < 3; k++) {
        two_stage_times(&r4, k, &s0[k], &s1[k]);
        for (int x = 0; x < 2; x++) {
            double start = chip > back[x] ? chip : back[x];
            chip = start + s0[k];
            stage1 = (chip > stage1 ? chip : stage1) + s1[k];
            back[x] = stage1;
            if (k == 0)
                first[x] = stage1;
        }
    }
    double ttft[2] = {first[0] / r4.clock_mhz, (first[1] - r4.clock_mhz) / r4.clock_mhz};
    double tpot[2] = {(back[0] - first[0]) / 2 / r4.clock_mhz,
                      (back[1] - first[1]) / 2 / r4.clock_mhz};
    char spec[200];
    double end[2];
    for (int b = 1; b <= 2; b++) {
        snprintf(spec, sizeof spec, "llm/llama3.2-1b:trace=%s:requests=2:pp=2%s", csv,
                 b == 1 ? ":pp_batches=1" : "");
        const char *one[] = {spec};
        v10_run_result r;
        run_specs(&r4, "solo", one, 1, 0, &r);
        const v10_tenant_result *t = &r.tenants[0];
        assert_int_equal(t->llm_tokens, 6);
        end[b - 1] = (double)r.end_cycle;
        if (b == 2) { /* nearest rank of two: p50 the lesser, p99 the greater */
            double lo = ttft[0] < ttft[1] ? ttft[0] : ttft[1], hi = ttft[0] + ttft[1] - lo;
            assert_true(fabs(t->ttft_us.p50 - lo) <= 1e-9 * lo);
            assert_true(fabs(t->ttft_us.p99 - hi) <= 1e-9 * hi);
            assert_true(fabs(t->tpot_us.avg - (tpot[0] + tpot[1]) / 2) <= 1e-9 * tpot[0]);
            assert_true(fabs((double)r.end_cycle - back[1]) <= 1);
        }
        v10_run_result_fini(&r);
    }
    assert_true(end[1] < end[0]);
    /* The key: written back, at most pp, a pipeline's only, chunked only. */
    v10_tenant_spec ts;
    v10_err err;
    char back_spec[2 * V10_SPEC_MAX];
    snprintf(spec, sizeof spec, "llm/llama3.2-1b:trace=%s:pp=4:pp_batches=3", csv);
    assert_int_equal(v10_tenant_spec_parse(spec, &ts, &err), 0);
    assert_int_equal(v10_tenant_spec_format(&ts, back_spec, sizeof back_spec), 0);
    assert_non_null(strstr(back_spec, ":pp=4:pp_batches=3"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pp=2:pp_batches=3", &ts,
                                               &err), 0);
    assert_non_null(strstr(err.msg, "expected 1 to pp=2"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pp_batches=1", &ts, &err),
                         0);
    assert_non_null(strstr(err.msg, "pp_batches= applies to a pipeline"));
    assert_int_not_equal(v10_tenant_spec_parse("llm/gpt2-xl:trace=x.csv:pp=2:pp_batches=2:"
                                               "chunked_prefill=0", &ts, &err), 0);
    assert_non_null(strstr(err.msg, "needs the chunked scheduler"));
    remove(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slice_presets),        cmocka_unit_test(collective_closed_form),
        cmocka_unit_test(tp_gemm_layer),        cmocka_unit_test(link_engine_overlaps),
        cmocka_unit_test(link_engine_wait),
        cmocka_unit_test(llm_shard),            cmocka_unit_test(symmetric_shortcut),
        cmocka_unit_test(every_chip_equals_shortcut), cmocka_unit_test(every_chip_barrier),
        cmocka_unit_test(every_chip_errors),    cmocka_unit_test(pipeline_stages),
        cmocka_unit_test(pipeline_server),      cmocka_unit_test(pipeline_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
