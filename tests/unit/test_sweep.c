/*
 * test_sweep.c — sweep specs (enumeration order, ids, canonical hash, every
 * kind of malformed spec rejected with the key named) and the result store
 * (thread-count independence, a writer killed before its commit, rows and
 * databases not of this spec, refusals).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "v10/sweep.h"

/* Small and fast: trace CSVs and tiny zoo models. */
static const char *spec_a =
    "{\"name\": \"unit\", \"description\": \"d\",\n"
    " \"axes\": {\"mix\": [[\"tests/data/engine/sa_vu.csv\", \"ncf:batch=8\"],\n"
    "                     [\"tests/data/engine/vu_heavy.csv\", \"tests/data/engine/sa_heavy.csv\"]],\n"
    "          \"policy\": [\"pmt\", \"v10-full\", \"fcfs\"],\n"
    "          \"seed\": [1, 2]},\n"
    " \"fixed\": {\"requests\": 5}}";

/* The same spec: other whitespace, key order and description. */
static const char *spec_a2 =
    "{\"fixed\":{\"requests\":5},\"axes\":{\"seed\":[1,2],\"policy\":[\"pmt\",\"v10-full\","
    "\"fcfs\"],\"mix\":[[\"tests/data/engine/sa_vu.csv\",\"ncf:batch=8\"],"
    "[\"tests/data/engine/vu_heavy.csv\",\"tests/data/engine/sa_heavy.csv\"]]},"
    "\"name\":\"unit\",\"description\":\"another\"}";

static v10_sweep *parse_ok(const char *text)
{
    v10_sweep *s = NULL;
    v10_err err = {{0}};
    int rc = v10_sweep_parse(text, "spec.json", &s, &err);
    if (rc)
        fprintf(stderr, "unexpected error: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(s);
    return s;
}

static void test_points_and_order(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(spec_a);
    assert_int_equal(v10_sweep_points(s), 2 * 3 * 2);
    assert_string_equal(v10_sweep_name(s), "unit");
    /* Row-major over mix, policy, ..., seed: the seed varies fastest. */
    v10_sweep_point p;
    v10_err err;
    assert_int_equal(v10_sweep_point_get(s, 0, &p, &err), 0);
    assert_string_equal(p.cfg.policy, "pmt");
    assert_int_equal(p.cfg.seed, 1);
    assert_int_equal(p.cfg.requests, 5);
    assert_int_equal(p.cfg.n_tenants, 2);
    assert_string_equal(p.tenants[1].model, "ncf:batch=8");
    assert_ptr_equal(p.cfg.tenants, p.tenants);
    assert_int_equal(v10_sweep_point_get(s, 1, &p, &err), 0);
    assert_string_equal(p.cfg.policy, "pmt");
    assert_int_equal(p.cfg.seed, 2);
    assert_int_equal(v10_sweep_point_get(s, 2, &p, &err), 0);
    assert_string_equal(p.cfg.policy, "v10-full");
    assert_int_equal(p.cfg.seed, 1);
    assert_int_equal(v10_sweep_point_get(s, 11, &p, &err), 0);
    assert_string_equal(p.cfg.policy, "fcfs");
    assert_int_equal(p.cfg.seed, 2);
    assert_string_equal(p.tenants[0].model, "tests/data/engine/vu_heavy.csv");
    /* Ids are distinct and stable. */
    char ids[12][17];
    for (size_t i = 0; i < 12; i++) {
        v10_sweep_point_id(s, i, ids[i]);
        assert_int_equal(strlen(ids[i]), 16);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(ids[i], ids[j]);
    }
    assert_int_equal(v10_sweep_point_get(s, 11, &p, &err), 0);
    assert_string_equal(p.id, ids[11]);
    char *t = v10_sweep_point_text(s, 11);
    assert_non_null(strstr(t, "\"policy\":\"fcfs\""));
    free(t);
    v10_sweep_destroy(s);
}

static void test_canonical_hash(void **state)
{
    (void)state;
    v10_sweep *a = parse_ok(spec_a), *b = parse_ok(spec_a2);
    assert_string_equal(v10_sweep_hash(a), v10_sweep_hash(b));
    char ia[17], ib[17];
    v10_sweep_point_id(a, 5, ia);
    v10_sweep_point_id(b, 5, ib);
    assert_string_equal(ia, ib);
    /* The canonical text parses back to the same spec. */
    v10_sweep *c = parse_ok(v10_sweep_canonical(a));
    assert_string_equal(v10_sweep_hash(a), v10_sweep_hash(c));
    v10_sweep_destroy(c);
    /* A changed value changes the hash. */
    char *changed = strdup(spec_a);
    char *at = strstr(changed, "\"requests\": 5");
    at[12] = '6';
    c = parse_ok(changed);
    assert_string_not_equal(v10_sweep_hash(a), v10_sweep_hash(c));
    free(changed);
    v10_sweep_destroy(a);
    v10_sweep_destroy(b);
    v10_sweep_destroy(c);
}

static void test_overrides(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(
        "{\"axes\": {\"npu\": [\"v10-isca23\", {\"base\": \"v10-isca23\", \"vmem_bytes\": 16777216}],"
        " \"npu.hbm_gbps\": [100, 330], \"priority\": [[2, 1]], \"pmt_share\": [\"equal\"],"
        " \"slice_cycles\": [4096], \"pmt_slice_us\": [250], \"prema_drain_frac\": [0.5],"
        " \"contention\": [false], \"warmup\": [1]},"
        " \"fixed\": {\"mix\": [\"tests/data/engine/sa_vu.csv\", \"ncf\"], \"requests\": 4}}");
    assert_int_equal(v10_sweep_points(s), 4);
    v10_sweep_point p;
    v10_err err;
    assert_int_equal(v10_sweep_point_get(s, 0, &p, &err), 0);
    assert_true(p.cfg.npu.hbm_gbps == 100);
    assert_int_equal(p.cfg.npu.vmem_bytes, 33554432);
    assert_true(p.tenants[0].priority == 2 && p.tenants[1].priority == 1);
    assert_int_equal(p.cfg.params.pmt_share_priority, 0);
    assert_int_equal(p.cfg.params.slice_cycles, 4096);
    assert_true(p.cfg.params.pmt_slice_us == 250 && p.cfg.params.prema_drain_frac == 0.5);
    assert_int_equal(p.cfg.contention, 0);
    assert_int_equal(p.cfg.warmup, 1);
    assert_int_equal(v10_sweep_point_get(s, 3, &p, &err), 0);
    assert_int_equal(p.cfg.npu.vmem_bytes, 16777216);
    assert_true(p.cfg.npu.hbm_gbps == 330);
    assert_non_null(strstr(p.cfg.npu.name, "vmem_bytes"));
    v10_sweep_destroy(s);
}

/* "attribution": false runs the point without counting where the time
 * went (docs/attribution.md): its row carries no states, and every other
 * figure is the default's, to the byte. */
static void test_attribution_setting(void **state)
{
    (void)state;
    const char *fmt = "{\"axes\": {\"policy\": [\"v10-full\"]%s},"
                      " \"fixed\": {\"mix\": [\"tests/data/engine/sa_vu.csv\", \"ncf\"],"
                      " \"requests\": 4}}";
    char text[2][512];
    snprintf(text[0], sizeof text[0], fmt, "");
    snprintf(text[1], sizeof text[1], fmt, ", \"attribution\": [true, false]");
    v10_sweep *a = parse_ok(text[0]), *b = parse_ok(text[1]);
    assert_int_equal(v10_sweep_points(b), 2);
    v10_sweep_point p;
    v10_err err;
    assert_int_equal(v10_sweep_point_get(a, 0, &p, &err), 0);
    assert_int_equal(p.cfg.no_attribution, 0);
    assert_int_equal(v10_sweep_point_get(b, 1, &p, &err), 0);
    assert_int_equal(p.cfg.no_attribution, 1);
    char *rows[3];
    assert_int_equal(v10_sweep_run_point(a, 0, &rows[0], &err), 0);
    assert_int_equal(v10_sweep_run_point(b, 0, &rows[1], &err), 0);
    assert_int_equal(v10_sweep_run_point(b, 1, &rows[2], &err), 0);
    cJSON *r[3];
    for (int k = 0; k < 3; k++) {
        r[k] = cJSON_Parse(rows[k]);
        assert_non_null(r[k]);
        cJSON_DeleteItemFromObjectCaseSensitive(r[k], "perf"); /* wall time */
        cJSON_DeleteItemFromObjectCaseSensitive(r[k], "point");
        cJSON_DeleteItemFromObjectCaseSensitive(r[k], "id");
        cJSON_DeleteItemFromObjectCaseSensitive(r[k], "index");
    }
    assert_true(cJSON_Compare(r[0], r[1], 1)); /* true is the default */
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r[2], "result"), "tenants");
    assert_int_equal(cJSON_GetArraySize(ts), 2);
    for (const cJSON *t = ts->child; t; t = t->next) {
        assert_null(cJSON_GetObjectItemCaseSensitive(t, "states_cycles"));
        assert_null(cJSON_GetObjectItemCaseSensitive(t, "lost_to"));
    }
    ts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r[0], "result"),
                                          "tenants");
    for (cJSON *t = ts->child; t; t = t->next) {
        assert_non_null(cJSON_GetObjectItemCaseSensitive(t, "states_cycles"));
        cJSON_DeleteItemFromObjectCaseSensitive(t, "states_cycles");
        cJSON_DeleteItemFromObjectCaseSensitive(t, "lost_to");
    }
    /* the settings record it (v10/settings.h); the rest, the same */
    for (int k = 0; k < 3; k += 2) {
        cJSON *set = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(r[k], "result"), "settings");
        assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(set, "attribution")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(set, "attribution")),
                         k == 0);
        cJSON_DeleteItemFromObjectCaseSensitive(set, "attribution");
    }
    assert_true(cJSON_Compare(r[0], r[2], 1));
    for (int k = 0; k < 3; k++) {
        cJSON_Delete(r[k]);
        free(rows[k]);
    }
    v10_sweep_destroy(a);
    v10_sweep_destroy(b);
}

/* A parameter axis is crossed only with the policies that read it (issue
 * 12: pmt was run once per V10 slice, giving duplicate points). */
static void test_param_axes_follow_policy(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(
        "{\"axes\": {\"policy\": [\"fcfs\", \"pmt\", \"prema\", \"v10-full\"],"
        " \"slice_cycles\": [8192, 32768, 65536], \"pmt_slice_us\": [500, 1000],"
        " \"prema_drain_frac\": [0.1, 0.5], \"seed\": [1, 2]},"
        " \"fixed\": {\"mix\": [\"mnist\", \"ncf\"]}}");
    /* fcfs 1 + pmt 2 + prema 2x2 + v10-full 3, each at two seeds. */
    assert_int_equal(v10_sweep_points(s), (1 + 2 + 4 + 3) * 2);
    const char *want[] = {
        "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"fcfs\",\"seed\":1}",
        "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"fcfs\",\"seed\":2}",
        "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"pmt\",\"pmt_slice_us\":500,\"seed\":1}",
        "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"pmt\",\"pmt_slice_us\":500,\"seed\":2}",
        "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"pmt\",\"pmt_slice_us\":1000,\"seed\":1}",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *t = v10_sweep_point_text(s, i);
        assert_string_equal(t, want[i]);
        free(t);
    }
    char *t = v10_sweep_point_text(s, 9);
    assert_string_equal(t, "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"prema\",\"pmt_slice_us\":500,"
                           "\"prema_drain_frac\":0.5,\"seed\":2}");
    free(t);
    t = v10_sweep_point_text(s, 19);
    assert_string_equal(t, "{\"mix\":[\"mnist\",\"ncf\"],\"policy\":\"v10-full\","
                           "\"slice_cycles\":65536,\"seed\":2}");
    free(t);
    /* No two points run the same configuration. */
    v10_sweep_point p[20];
    v10_err err;
    for (size_t i = 0; i < 20; i++) {
        assert_int_equal(v10_sweep_point_get(s, i, &p[i], &err), 0);
        for (size_t j = 0; j < i; j++)
            assert_false(!strcmp(p[i].cfg.policy, p[j].cfg.policy) &&
                         p[i].cfg.seed == p[j].cfg.seed &&
                         !memcmp(&p[i].cfg.params, &p[j].cfg.params, sizeof p[i].cfg.params));
    }
    /* Ignored axes leave the policy's defaults. */
    v10_run_config d;
    v10_run_config_default(&d);
    assert_true(p[0].cfg.params.slice_cycles == d.params.slice_cycles &&
                p[0].cfg.params.pmt_slice_us == d.params.pmt_slice_us);
    v10_sweep_destroy(s);
}

/* Policy parameters are sweep keys by their table names ("prema.drain_frac")
 * as well as their flat keys, crossed only with the policies that read
 * them (the policies' tables say which), and enumerated in field order
 * whatever the names: the same points as the flat spelling. */
static void test_param_table_keys(void **state)
{
    (void)state;
    v10_sweep *a = parse_ok(
        "{\"axes\": {\"policy\": [\"pmt\", \"prema\", \"v10-full\"],"
        " \"prema.drain_frac\": [0.1, 0.5], \"pmt.slice_us\": [500, 1000],"
        " \"v10-full.slice_cycles\": [8192, 65536]}, \"fixed\": {\"mix\": [\"mnist\", \"ncf\"]}}");
    v10_sweep *b = parse_ok(
        "{\"axes\": {\"policy\": [\"pmt\", \"prema\", \"v10-full\"],"
        " \"prema_drain_frac\": [0.1, 0.5], \"pmt_slice_us\": [500, 1000],"
        " \"slice_cycles\": [8192, 65536]}, \"fixed\": {\"mix\": [\"mnist\", \"ncf\"]}}");
    /* pmt 2 + prema 2x2 + v10-full 2 */
    assert_int_equal(v10_sweep_points(a), 2 + 4 + 2);
    assert_int_equal(v10_sweep_points(b), v10_sweep_points(a));
    for (size_t i = 0; i < v10_sweep_points(a); i++) {
        v10_sweep_point pa, pb;
        v10_err err;
        assert_int_equal(v10_sweep_point_get(a, i, &pa, &err), 0);
        assert_int_equal(v10_sweep_point_get(b, i, &pb, &err), 0);
        assert_string_equal(pa.cfg.policy, pb.cfg.policy);
        assert_memory_equal(&pa.cfg.params, &pb.cfg.params, sizeof pa.cfg.params);
    }
    v10_sweep_point p;
    v10_err err;
    assert_int_equal(v10_sweep_point_get(a, 3, &p, &err), 0); /* prema 500 us, 0.5 */
    assert_string_equal(p.cfg.policy, "prema");
    assert_true(p.cfg.params.pmt_slice_us == 500 && p.cfg.params.prema_drain_frac == 0.5);
    v10_sweep_destroy(a);
    v10_sweep_destroy(b);
}

/* Each malformed spec is rejected and the message names the key. */
static void test_malformed(void **state)
{
    (void)state;
    static const struct { const char *spec, *want; } cases[] = {
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"polcy\": [\"pmt\"]}}", "axes.polcy"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": []}}", "empty product"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": []}}", "axes.seed"},
        {"{\"axes\": {\"mix\": []}}", "axes.mix: empty"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"policy\": [3]}}", "axes.policy[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"policy\": [\"pmt\", \"nope\"]}}",
         "axes.policy[1]: unknown policy 'nope'"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": [1, \"2\"]}}", "axes.seed[1]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": [1.5]}}", "axes.seed[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": 3}}", "axes.seed: expected a list"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"fixed\": {\"requests\": \"ten\"}}",
         "fixed.requests"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"fixed\": {\"requests\": 0}}", "fixed.requests"},
        {"{\"axes\": {\"mix\": [[\"ncf\", 7]]}}", "axes.mix[0][1]"},
        {"{\"axes\": {\"mix\": [[\"no-such-model\"]]}}", "axes.mix[0][0]"},
        {"{\"axes\": {\"mix\": [\"ncf\"]}}", "axes.mix[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf:batch=x\"]]}}", "axes.mix[0][0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\", \"dlrm\"]], \"priority\": [[1, 1], [1, 2, 3]]}}",
         "axes.priority[1]: 3 priorities"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"priority\": [[0]]}}", "axes.priority[0][0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"npu\": [\"tpu-nope\"]}}", "axes.npu[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"npu\": [{\"vmem_bytez\": 1}]}}", "vmem_bytez"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"npu\": [{\"vmem_bytes\": \"x\"}]}}", "axes.npu[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"npu.sa_rowz\": [1]}}", "sa_rowz"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"npu.sa_rows\": [-4]}}", "axes.npu.sa_rows[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"pmt_share\": [\"fair\"]}}", "axes.pmt_share[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"pmt.share\": [\"fair\"]}}",
         "axes.pmt.share[0]: expected \"equal\" or \"priority\""},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"pmt.slice_us\": [0]}}", "axes.pmt.slice_us[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"pmt.slice_us\": [500], \"pmt_slice_us\": [9]}}",
         "axes.pmt_slice_us: given twice (under another of its names)"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"pmt.slize_us\": [500]}}",
         "axes.pmt.slize_us: unknown key"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"contention\": [1]}}", "axes.contention[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"fixed\": {\"attribution\": \"no\"}}",
         "fixed.attribution"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"prema_drain_frac\": [-1]}}",
         "axes.prema_drain_frac[0]"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"seed\": [1]}, \"fixed\": {\"seed\": 2}}",
         "fixed.seed: given twice"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]], \"warmup\": [5]}, \"fixed\": {\"requests\": 5}}",
         "axes.warmup[0]"},
        {"{\"axes\": {\"policy\": [\"pmt\"]}}", "no tenant mix"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"runs\": 3}", "runs: unknown key"},
        {"{\"mix\": [[\"ncf\"]]}", "mix: unknown key"},
        {"{\"name\": \"x\"}", "axes: missing"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"name\": 3}", "name:"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]]}, \"fixed\": []}", "fixed: expected an object"},
        {"[1, 2]", "expected a JSON object"},
        {"{\"axes\": {\"mix\": [[\"ncf\"]],\n \"seed\": [1,}}", "spec.json:2: malformed JSON"},
        {"", "malformed JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v10_sweep *s = NULL;
        v10_err err = {{0}};
        int rc = v10_sweep_parse(cases[i].spec, "spec.json", &s, &err);
        if (rc == 0 || !strstr(err.msg, cases[i].want) || strncmp(err.msg, "spec.json", 9))
            fprintf(stderr, "case %zu: rc %d, message '%s', wanted '%s'\n", i, rc, err.msg,
                    cases[i].want);
        assert_int_equal(rc, -1);
        assert_null(s);
        assert_non_null(strstr(err.msg, cases[i].want));
        assert_int_equal(strncmp(err.msg, "spec.json", 9), 0);
    }
}

/* ---- the store ---- */

static char *tmpdir(void)
{
    char tmpl[] = "/tmp/v10_sweep_XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void rm_rf(const char *d)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* Removes and frees two temporary directories. */
static void drop_dirs(char *a, char *b)
{
    rm_rf(a);
    rm_rf(b);
    free(a);
    free(b);
}

static char *file_text(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    return b;
}

static void append_text(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "ab");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The rows of results.jsonl without "perf", sorted by index, one per line. */
static char *canonical_rows(const char *dir, size_t n)
{
    char *t = file_text(dir, "results.jsonl");
    assert_non_null(t);
    char **by = calloc(n, sizeof *by);
    size_t count = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o);
        cJSON_DeleteItemFromObject(o, "perf");
        size_t i = (size_t)cJSON_GetObjectItem(o, "index")->valuedouble;
        assert_true(i < n);
        assert_null(by[i]); /* no duplicates */
        by[i] = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        count++;
    }
    assert_int_equal(count, n);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(by[i]) + 1;
    char *out = calloc(len + 1, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, by[i]);
        strcat(out, "\n");
        free(by[i]);
    }
    free(by);
    free(t);
    return out;
}

static void run_into(const char *dir, const v10_sweep *s, int resume, int threads)
{
    v10_sweep_store *st;
    v10_err err;
    int rc = v10_sweep_store_open(dir, s, resume, &st, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(v10_sweep_run_local(s, st, threads, NULL, &err), 0);
    assert_int_equal(v10_sweep_store_count(st), v10_sweep_points(s));
    assert_int_equal(v10_sweep_store_finish(st, &err), 0);
    v10_sweep_store_close(st);
}

/* Field k (from 0) of a CSV line without quoted cells, as a number. */
static double csv_field(const char *line, int k)
{
    for (; k > 0 && line; k--) {
        line = strchr(line, ',');
        line = line ? line + 1 : NULL;
    }
    assert_non_null(line);
    return strtod(line, NULL);
}

/* The place of column `name` in the header line h (the first line of a CSV). */
static int csv_col(const char *h, const char *name)
{
    int k = 0;
    size_t n = strlen(name);
    for (const char *p = h; *p && *p != '\n'; k++) {
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n'))
            return k;
        p += strcspn(p, ",\n");
        p += *p == ',';
    }
    fail_msg("no column %s", name);
    return -1;
}

/* Every row of results.csv carries where each tenant's time went: its
 * states add up to the window (docs/attribution.md), and what it lost to
 * its partner is in tK_lost_to_tJ_cycles (run's names after tK_). */
static void check_csv_states(const char *csv, size_t rows)
{
    int win = csv_col(csv, "window_cycles"), lost = csv_col(csv, "t0_lost_to_t1_cycles");
    int st[2];
    st[0] = csv_col(csv, "t0_exec_cycles");
    st[1] = csv_col(csv, "t1_exec_cycles");
    assert_int_equal(csv_col(csv, "t0_idle_cycles"), st[0] + V10_ATTR_STATES - 1);
    const char *line = strchr(csv, '\n') + 1;
    for (size_t r = 0; r < rows; r++, line = strchr(line, '\n') + 1) {
        double w = csv_field(line, win);
        assert_true(w > 0);
        for (int t = 0; t < 2; t++) {
            double sum = 0;
            for (int k = 0; k < V10_ATTR_STATES; k++)
                sum += csv_field(line, st[t] + k);
            assert_true(fabs(sum - w) <= 1);
        }
        assert_true(csv_field(line, lost) >= 0);
    }
}

static void test_threads_equal(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(spec_a);
    char *d1 = tmpdir(), *d3 = tmpdir();
    run_into(d1, s, 0, 1);
    run_into(d3, s, 0, 3);
    char *a = canonical_rows(d1, 12), *b = canonical_rows(d3, 12);
    assert_string_equal(a, b);
    char *c1 = file_text(d1, "results.csv"), *c3 = file_text(d3, "results.csv");
    assert_string_equal(c1, c3);
    assert_non_null(strstr(c1, "index,id,mix,priority,npu,policy"));
    check_csv_states(c1, 12);
    /* Header plus one line per point. */
    size_t lines = 0;
    for (char *p = c1; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 13);
    free(a);
    free(b);
    free(c1);
    free(c3);
    rm_rf(d1);
    rm_rf(d3);
    free(d1);
    free(d3);
    v10_sweep_destroy(s);
}

/* spec_a with other seeds: another spec. */
static v10_sweep *parse_other(void)
{
    char *changed = strdup(spec_a);
    strstr(changed, "\"seed\": [1, 2]")[12] = '3';
    v10_sweep *b = parse_ok(changed);
    free(changed);
    return b;
}

/* Runs SQL on DIR/results.db as another program would (checks it ran). */
static void db_exec(const char *dir, const char *sql)
{
    char p[512];
    snprintf(p, sizeof p, "%s/results.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", sql, msg);
    sqlite3_free(msg);
    assert_int_equal(rc, SQLITE_OK);
    sqlite3_close(db);
}

/* The number of rows in DIR/results.db. */
static int db_rows(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/results.db", dir);
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM points", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

/* Records points [0, n) of s into a new store in d, as a sweep killed after
 * them would have. */
static void record_points(const char *d, const v10_sweep *s, size_t n)
{
    v10_sweep_store *st;
    v10_err err;
    assert_int_equal(v10_sweep_store_open(d, s, 0, &st, &err), 0);
    for (size_t i = 0; i < n; i++) {
        char *row;
        assert_int_equal(v10_sweep_run_point(s, i, &row, &err), 0);
        assert_int_equal(v10_sweep_store_append(st, i, row, &err), 0);
        assert_int_equal(v10_sweep_store_append(st, i, row, &err), 0); /* ignored */
        free(row);
    }
    assert_int_equal(v10_sweep_store_count(st), n);
    v10_sweep_store_close(st);
}

/* A partial store resumes to the rows of an uninterrupted run; rows that
 * are not this spec's points (an index out of range, another point's id)
 * are dropped and run again. */
static void test_store_repair(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(spec_a);
    char *full = tmpdir(), *d = tmpdir();
    run_into(full, s, 0, 2);
    char *want = canonical_rows(full, 12);

    record_points(d, s, 5);
    db_exec(d, "INSERT INTO points VALUES(7, '0000000000000000', '{}', 'x');"
               "INSERT INTO points VALUES(99, 'ffffffffffffffff', '{}', 'x');");
    /* Without --resume the directory is refused. */
    v10_sweep_store *st;
    v10_err err;
    assert_int_equal(v10_sweep_store_open(d, s, 0, &st, &err), -1);
    assert_non_null(strstr(err.msg, "--resume"));
    /* With it, 5 rows count and 2 are dropped (deleted from the store). */
    assert_int_equal(v10_sweep_store_open(d, s, 1, &st, &err), 0);
    assert_int_equal(v10_sweep_store_count(st), 5);
    assert_int_equal(v10_sweep_store_dropped(st), 2);
    const unsigned char *done = v10_sweep_store_done(st);
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(done[i] != 0, i < 5);
    /* finish() writes nothing while points are missing. */
    assert_int_equal(v10_sweep_store_finish(st, &err), 0);
    assert_null(file_text(d, "results.csv"));
    assert_null(file_text(d, "results.jsonl"));
    v10_sweep_store_close(st);
    assert_int_equal(db_rows(d), 5);

    run_into(d, s, 1, 2);
    char *got = canonical_rows(d, 12);
    assert_string_equal(got, want);
    /* A complete directory resumes to nothing new. */
    run_into(d, s, 1, 2);
    free(got);
    got = canonical_rows(d, 12);
    assert_string_equal(got, want);

    free(got);
    free(want);
    rm_rf(full);
    rm_rf(d);
    free(full);
    free(d);
    v10_sweep_destroy(s);
}

/* A process killed inside a transaction (a row inserted, spilled into the
 * WAL, never committed) leaves no row: the resume sees the committed ones. */
static void test_store_killed_before_commit(void **state)
{
    (void)state;
    v10_sweep *s = parse_ok(spec_a);
    char *d = tmpdir();
    record_points(d, s, 3);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the writer that dies: a 4 MB row overflows a 2-page cache */
        char p[512];
        snprintf(p, sizeof p, "%s/results.db", d);
        sqlite3 *db;
        if (sqlite3_open(p, &db) ||
            sqlite3_exec(db, "PRAGMA cache_size=2; BEGIN; INSERT INTO points VALUES(5, 'x', "
                             "printf('%.4000000c', 'x'), 'x');", NULL, NULL, NULL))
            _exit(1);
        kill(getpid(), SIGKILL);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    char *wal = malloc(600);
    snprintf(wal, 600, "%s/results.db-wal", d);
    struct stat sb;
    assert_int_equal(stat(wal, &sb), 0);
    assert_true(sb.st_size > 4000000); /* the uncommitted row reached the disk */
    free(wal);

    v10_sweep_store *st;
    v10_err err;
    assert_int_equal(v10_sweep_store_open(d, s, 1, &st, &err), 0);
    assert_int_equal(v10_sweep_store_count(st), 3);
    assert_int_equal(v10_sweep_store_dropped(st), 0);
    assert_false(v10_sweep_store_done(st)[5]);
    v10_sweep_store_close(st);
    run_into(d, s, 1, 1);
    assert_int_equal(db_rows(d), 12);
    char *full = tmpdir();
    run_into(full, s, 0, 1);
    char *want = canonical_rows(full, 12), *got = canonical_rows(d, 12);
    assert_string_equal(got, want);
    free(want);
    free(got);
    rm_rf(full);
    rm_rf(d);
    free(full);
    free(d);
    v10_sweep_destroy(s);
}

/* A results.db that is not this sweep's store is refused, naming the file:
 * garbage, another program's database, the store of another spec. */
static void test_store_foreign_db(void **state)
{
    (void)state;
    v10_sweep *a = parse_ok(spec_a);
    v10_sweep *b = parse_other();
    char *d = tmpdir(), *other = tmpdir(), db[600], odb[600];
    snprintf(db, sizeof db, "%s/results.db", d);
    snprintf(odb, sizeof odb, "%s/results.db", other);
    v10_sweep_store *st;
    v10_err err;
    static const char *const cases[][2] = {
        {"garbage", "not a sweep result store as v10sim writes it (not an SQLite database)"},
        {"CREATE TABLE notes(x);", "not a sweep result store as v10sim writes it (it holds "
                                   "table notes)"},
        {"other spec", "holds the results of another spec"},
    };
    for (size_t c = 0; c < 3; c++) {
        record_points(d, a, 0);
        unlink(db);
        if (c == 0) {
            append_text(d, "results.db", "SQLite format 2, honestly\n");
            for (int k = 0; k < 100; k++)
                append_text(d, "results.db", "0123456789abcdef0123456789abcdef\n");
        } else if (c == 1) {
            db_exec(d, cases[c][0]);
        } else {
            record_points(other, b, 1);
            assert_int_equal(rename(odb, db), 0);
        }
        assert_int_equal(v10_sweep_store_open(d, a, 1, &st, &err), -1);
        if (!strstr(err.msg, cases[c][1]) || !strstr(err.msg, db))
            fprintf(stderr, "case %zu: %s\n", c, err.msg);
        assert_non_null(strstr(err.msg, cases[c][1]));
        assert_non_null(strstr(err.msg, db));
        rm_rf(d);
        rm_rf(other);
        assert_int_equal(mkdir(d, 0755), 0);
        assert_int_equal(mkdir(other, 0755), 0);
    }
    drop_dirs(d, other);
    v10_sweep_destroy(a);
    v10_sweep_destroy(b);
}

static void test_store_refusals(void **state)
{
    (void)state;
    v10_sweep *a = parse_ok(spec_a);
    v10_sweep *b = parse_other();
    char *d = tmpdir();
    v10_sweep_store *st;
    v10_err err;
    assert_int_equal(v10_sweep_store_open(d, a, 0, &st, &err), 0);
    v10_sweep_store_close(st);
    assert_int_equal(v10_sweep_store_open(d, b, 1, &st, &err), -1);
    assert_non_null(strstr(err.msg, "different spec"));
    assert_int_equal(v10_sweep_store_open(d, b, 0, &st, &err), -1);
    assert_non_null(strstr(err.msg, "already holds a sweep"));
    /* A directory holding something else is refused, with or without resume. */
    char *other = tmpdir();
    append_text(other, "notes.txt", "mine\n");
    assert_int_equal(v10_sweep_store_open(other, a, 0, &st, &err), -1);
    assert_non_null(strstr(err.msg, "not empty"));
    assert_int_equal(v10_sweep_store_open(other, a, 1, &st, &err), -1);
    /* --resume on an empty or new directory starts the sweep. */
    char sub[512];
    snprintf(sub, sizeof sub, "%s/new/deeper", other);
    assert_int_equal(v10_sweep_store_open(sub, a, 1, &st, &err), 0);
    v10_sweep_store_close(st);
    drop_dirs(d, other);
    v10_sweep_destroy(a);
    v10_sweep_destroy(b);
}

/* Issue 14: one process per result folder; a folder holding only a user's
 * *.tmp file is not ours (it was taken for empty and the file deleted). */
static void test_store_lock_and_foreign_tmp(void **state)
{
    (void)state;
    v10_sweep *a = parse_ok(spec_a);
    char *d = tmpdir();
    v10_sweep_store *st, *st2;
    v10_err err;
    assert_int_equal(v10_sweep_store_open(d, a, 0, &st, &err), 0);
    /* A second open (here in the same process: flock conflicts across open
     * file descriptions) is refused while the first holds the folder. */
    assert_int_equal(v10_sweep_store_open(d, a, 1, &st2, &err), -1);
    char want[64];
    snprintf(want, sizeof want, "in use by pid %ld", (long)getpid());
    assert_non_null(strstr(err.msg, want));
    v10_sweep_store_close(st);
    assert_int_equal(v10_sweep_store_open(d, a, 1, &st2, &err), 0); /* released */
    v10_sweep_store_close(st2);

    char *other = tmpdir();
    append_text(other, "results.csv.tmp", "my notes\n");
    assert_int_equal(v10_sweep_store_open(other, a, 0, &st, &err), -1);
    assert_non_null(strstr(err.msg, "not empty"));
    char *kept = file_text(other, "results.csv.tmp");
    assert_non_null(kept);
    assert_string_equal(kept, "my notes\n");
    free(kept);
    drop_dirs(d, other);
    v10_sweep_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_and_order),
        cmocka_unit_test(test_param_axes_follow_policy),
        cmocka_unit_test(test_param_table_keys),
        cmocka_unit_test(test_canonical_hash),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_attribution_setting),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_threads_equal),
        cmocka_unit_test(test_store_repair),
        cmocka_unit_test(test_store_killed_before_commit),
        cmocka_unit_test(test_store_foreign_db),
        cmocka_unit_test(test_store_refusals),
        cmocka_unit_test(test_store_lock_and_foreign_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
