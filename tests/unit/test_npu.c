/*
 * test_npu.c — NPU presets (the paper's figures, the scaled variants) and
 * JSON overrides, including every kind of bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/model_report.h"
#include "v10/npu.h"

/* Field-by-field equality (struct padding may differ). */
static int same(const v10_npu *a, const v10_npu *b)
{
    cJSON *ja = v10_npu_to_json(a), *jb = v10_npu_to_json(b);
    int eq = ja && jb && cJSON_Compare(ja, jb, 1);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    return eq;
}

static void every_preset_validates(void **state)
{
    (void)state;
    size_t n = 0;
    for (const char *const *p = v10_npu_preset_names; *p; p++, n++) {
        v10_npu npu;
        v10_err err = {{0}};
        assert_int_equal(v10_npu_preset(*p, &npu, &err), 0);
        assert_string_equal(npu.name, *p);
        assert_int_equal(v10_npu_validate(&npu, &err), 0);
        /* resolve by name gives the same struct */
        v10_npu again;
        assert_int_equal(v10_npu_resolve(*p, &again, &err), 0);
        assert_true(same(&npu, &again));
    }
    assert_true(n >= 6);
}

/* V10 (ISCA 2023) §6, Table 2. */
static void isca23_matches_paper(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    assert_int_equal(n.sa_count, 1);
    assert_int_equal(n.sa_rows, 128);
    assert_int_equal(n.sa_cols, 128);
    assert_int_equal(n.vu_count, 1);
    assert_int_equal(n.vu_lanes, 8 * 128);
    assert_int_equal(n.vu_ops_per_lane, 2);
    assert_int_equal(n.vmem_bytes, 32ull * 1024 * 1024);
    assert_true(n.hbm_gbps == 330.0);
    assert_true(n.clock_mhz == 700.0);
    assert_int_equal(n.slice_cycles, 32768);
    assert_int_equal(n.sa_switch_cycles, 384);
    /* the paper's reading: the 128-cycle drain overlaps the 384 */
    assert_int_equal(n.sa_switch_overlap_cycles, 128);
    /* 32 registers of 8x128 x 4 bytes and a 4-byte PC, one register a
     * cycle: 33 to save, 33 to restore */
    assert_int_equal(n.vu_registers, 32);
    assert_int_equal(v10_npu_vu_switch_cycles(&n), 66);
    assert_int_equal(n.sa_dataflow, V10_DF_WS);
    assert_true(n.pmt_switch_us >= 20.0 && n.pmt_switch_us <= 40.0);
    /* derived: 330e9 / 700e6 bytes per cycle; 30 µs at 700 MHz */
    assert_true(v10_npu_hbm_bytes_per_cycle(&n) > 471.428 &&
                v10_npu_hbm_bytes_per_cycle(&n) < 471.429);
    assert_int_equal(v10_npu_pmt_switch_cycles(&n), (uint64_t)(n.pmt_switch_us * 700));
    assert_int_equal(v10_npu_us_to_cycles(&n, 1.0), 700);
    assert_true(v10_npu_cycles_to_us(&n, 32768.0) > 46.81 &&
                v10_npu_cycles_to_us(&n, 32768.0) < 46.82);
    /* it is the default base of a JSON override */
    v10_npu d;
    assert_int_equal(v10_npu_from_json("{}", "empty", &d, &err), 0);
    assert_int_equal(d.sa_rows, n.sa_rows);
    assert_true(d.hbm_gbps == n.hbm_gbps);
    assert_int_equal(d.slice_cycles, n.slice_cycles);
}

static void scaled_presets(void **state)
{
    (void)state;
    static const struct { const char *name; uint32_t k; } cases[] = {
        {"v10-isca23-2x", 2}, {"v10-isca23-4x", 4}, {"v10-isca23-8x", 8},
    };
    v10_npu base;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &base, &err), 0);
    for (size_t i = 0; i < 3; i++) {
        v10_npu n;
        assert_int_equal(v10_npu_preset(cases[i].name, &n, &err), 0);
        assert_int_equal(n.sa_count, cases[i].k);
        assert_int_equal(n.vu_count, cases[i].k);
        assert_true(n.hbm_gbps == 330.0 * cases[i].k);
        /* everything else is the paper's core */
        assert_int_equal(n.sa_rows, base.sa_rows);
        assert_int_equal(n.sa_cols, base.sa_cols);
        assert_int_equal(n.vmem_bytes, base.vmem_bytes);
        assert_true(n.clock_mhz == base.clock_mhz);
        assert_int_equal(n.slice_cycles, base.slice_cycles);
    }
}

static void json_subset_override(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_resolve("tests/data/npu/subset.json", &n, &err), 0);
    assert_int_equal(n.sa_count, 2);
    assert_true(n.clock_mhz == 1000.0);
    assert_int_equal(n.sa_rows, 128);     /* from the base */
    assert_true(n.hbm_gbps == 330.0);
    /* other base, in memory; every type of field */
    const char *txt = "{\"base\": \"tpuv4-core\", \"name\": \"mine\", \"vmem_bytes\": 8388608,"
                      " \"sa_dataflow\": \"os\", \"sa_prefetch_weights\": false,"
                      " \"pmt_switch_us\": 20.5}";
    assert_int_equal(v10_npu_from_json(txt, "mem", &n, &err), 0);
    assert_string_equal(n.name, "mine");
    assert_int_equal(n.sa_count, 4); /* tpuv4 */
    assert_true(n.clock_mhz == 1050.0);
    assert_int_equal(n.vmem_bytes, 8u << 20);
    assert_int_equal(n.sa_dataflow, V10_DF_OS);
    assert_int_equal(n.sa_prefetch_weights, 0);
    assert_true(n.pmt_switch_us == 20.5);
    /* the other reading of the SA switch, and a VU without registers to save
     * (its PC still takes a cycle each way) */
    assert_int_equal(v10_npu_from_json("{\"sa_switch_overlap_cycles\": 0, \"vu_registers\": 0}",
                                       "mem", &n, &err), 0);
    assert_int_equal(n.sa_switch_overlap_cycles, 0);
    assert_int_equal(v10_npu_vu_switch_cycles(&n), 2);
    /* an overlap longer than the switch is an error naming both keys */
    assert_int_equal(v10_npu_from_json("{\"sa_switch_cycles\": 100}", "mem", &n, &err), -1);
    assert_non_null(strstr(err.msg, "sa_switch_overlap_cycles"));
    assert_non_null(strstr(err.msg, "sa_switch_cycles = 100"));
    /* the shipped example configs resolve */
    assert_int_equal(v10_npu_resolve("configs/isca23-64mib.json", &n, &err), 0);
    assert_int_equal(n.vmem_bytes, 64u << 20);
    assert_int_equal(v10_npu_resolve("configs/big-array.json", &n, &err), 0);
    assert_int_equal(n.sa_rows, 256);
    assert_int_equal(n.sa_cols, 256);
}

/* to_json then from_json is the identity. */
static void json_round_trip(void **state)
{
    (void)state;
    for (const char *const *p = v10_npu_preset_names; *p; p++) {
        v10_npu a, b;
        v10_err err = {{0}};
        assert_int_equal(v10_npu_preset(*p, &a, &err), 0);
        cJSON *j = v10_npu_to_json(&a);
        assert_non_null(j);
        char *s = cJSON_PrintUnformatted(j);
        assert_non_null(s);
        if (v10_npu_from_json(s, "rt", &b, &err))
            fail_msg("%s: %s", *p, err.msg);
        assert_true(same(&a, &b));
        cJSON_free(s);
        cJSON_Delete(j);
    }
}

/* Each bad file: -1, and the message names the file (and line) and key. */
static void bad_inputs(void **state)
{
    (void)state;
    static const struct { const char *file, *needle1, *needle2; } cases[] = {
        {"unknown_key.json", "unknown_key.json", "sa_rowz"},
        {"wrong_type_string.json", "wrong_type_string.json", "sa_rows"},
        {"wrong_type_float.json", "wrong_type_float.json", "sa_rows"},
        {"zero_sa.json", "zero_sa.json", "sa_count"},
        {"negative_bw.json", "negative_bw.json", "hbm_gbps"},
        {"malformed.json", "malformed.json:", "malformed"},
        {"unknown_base.json", "unknown_base.json", "tpuv9-core"},
        {"no_such_file.json", "no_such_file.json", "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/npu/%s", cases[i].file);
        v10_npu n;
        v10_err err = {{0}};
        assert_int_equal(v10_npu_resolve(path, &n, &err), -1);
        if (!strstr(err.msg, cases[i].needle1) || !strstr(err.msg, cases[i].needle2))
            fail_msg("%s: message '%s' lacks '%s' or '%s'", cases[i].file, err.msg,
                     cases[i].needle1, cases[i].needle2);
    }
    /* the malformed file's error is on line 4 (the missing comma) */
    v10_npu n;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_resolve("tests/data/npu/malformed.json", &n, &err), -1);
    assert_non_null(strstr(err.msg, "malformed.json:4"));
    /* unknown preset names list the valid ones */
    assert_int_equal(v10_npu_resolve("v10-isca99", &n, &err), -1);
    assert_non_null(strstr(err.msg, "v10-isca99"));
    assert_non_null(strstr(err.msg, "v10-isca23"));
    /* in-memory cases */
    static const char *const bad[] = {
        "[1, 2]",                     /* not an object */
        "{\"base\": 3}",              /* base not a string */
        "{\"sa_dataflow\": \"xy\"}",  /* bad enum */
        "{\"sa_prefetch_weights\": 1}", /* number for bool */
        "{\"name\": \"\"}",           /* empty name */
        "{\"vmem_bytes\": 1e300}",    /* out of range */
        "{\"vu_count\": 65}",         /* above the range */
        "{\"clock_mhz\": null}",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        if (v10_npu_from_json(bad[i], "mem.json", &n, &err) != -1)
            fail_msg("accepted %s", bad[i]);
        assert_non_null(strstr(err.msg, "mem.json"));
    }
}

/* validate names the key of a field broken after resolution. */
static void validate_names_key(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    n.sa_cols = 0;
    assert_int_equal(v10_npu_validate(&n, &err), -1);
    assert_non_null(strstr(err.msg, "sa_cols"));
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    n.hbm_gbps = -1;
    assert_int_equal(v10_npu_validate(&n, &err), -1);
    assert_non_null(strstr(err.msg, "hbm_gbps"));
}

/* op_mapping: "one" on V10's presets (v10-isca23 and its scaled ones, as
 * the paper's scalability study assumes) and left out of the JSON then
 * (reports of V10 runs read as before the key); "all" on the TPU core
 * presets, whose compiler splits a matmul over every MXU of the core;
 * "all" and "alloc" read, printed and read back; any other value is an
 * error naming the key and the file. */
static void op_mapping_key(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err = {{0}};
    for (int i = 0; v10_npu_preset_names[i]; i++) {
        const char *name = v10_npu_preset_names[i];
        assert_int_equal(v10_npu_preset(name, &n, &err), 0);
        int tpu = !strncmp(name, "tpu", 3);
        assert_int_equal(n.op_mapping, tpu ? V10_MAP_ALL : V10_MAP_ONE);
        cJSON *j = v10_npu_to_json(&n);
        assert_true(!cJSON_GetObjectItemCaseSensitive(j, "op_mapping") == !tpu);
        cJSON_Delete(j);
    }
    assert_int_equal(v10_npu_from_json("{\"base\": \"tpuv4-core\", \"op_mapping\": \"one\"}",
                                       "mem.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_ONE);
    cJSON *j = v10_npu_to_json(&n);
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "op_mapping"));
    cJSON_Delete(j);
    assert_int_equal(v10_npu_from_json("{\"base\": \"tpuv4-core\", \"op_mapping\": \"all\"}",
                                       "mem.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_ALL);
    assert_int_equal(n.sa_count, 4);
    j = v10_npu_to_json(&n);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    assert_non_null(strstr(text, "\"op_mapping\":\"all\""));
    v10_npu back;
    assert_int_equal(v10_npu_from_json(text, "back.json", &back, &err), 0);
    free(text);
    assert_int_equal(back.op_mapping, V10_MAP_ALL);
    assert_int_equal(v10_npu_from_json("{\"op_mapping\": \"one\"}", "mem.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_ONE);
    assert_int_equal(v10_npu_from_json("{\"op_mapping\": \"alloc\"}", "mem.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_ALLOC);
    assert_string_equal(v10_op_mapping_name(n.op_mapping), "alloc");
    assert_int_equal(v10_npu_from_json("{\"op_mapping\": \"reclaim\"}", "mem.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_RECLAIM);
    assert_string_equal(v10_op_mapping_name(n.op_mapping), "reclaim");
    /* the shipped example resolves, and prints and reads back as itself */
    assert_int_equal(v10_npu_resolve("configs/tpuv4-core-reclaim.json", &n, &err), 0);
    assert_int_equal(n.op_mapping, V10_MAP_RECLAIM);
    assert_int_equal(n.sa_count, 4);
    j = v10_npu_to_json(&n);
    text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    assert_non_null(strstr(text, "\"op_mapping\":\"reclaim\""));
    assert_int_equal(v10_npu_from_json(text, "back.json", &back, &err), 0);
    free(text);
    assert_int_equal(back.op_mapping, V10_MAP_RECLAIM);
    /* a reclaim's context switch, by FU type: the SA's, the VU's, none on a link engine */
    assert_int_equal(v10_npu_switch_cycles(&n, V10_FU_SA), n.sa_switch_cycles);
    assert_int_equal(v10_npu_switch_cycles(&n, V10_FU_VU), v10_npu_vu_switch_cycles(&n));
    assert_int_equal(v10_npu_switch_cycles(&n, V10_FU_ICI), 0);
    assert_int_equal(v10_npu_switch_cycles(&n, V10_FU_SA), 384); /* the paper's 128x128 SA */
    static const char *const bad[] = {"{\"op_mapping\": \"vnpu\"}", "{\"op_mapping\": \"ALL\"}",
                                      "{\"op_mapping\": 1}", "{\"op_mapping\": null}",
                                      "{\"op_mapping\": \"\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        assert_int_equal(v10_npu_from_json(bad[i], "mem.json", &n, &err), -1);
        assert_non_null(strstr(err.msg, "mem.json"));
        assert_non_null(strstr(err.msg, "'op_mapping'"));
        assert_non_null(strstr(err.msg, "\"one\", \"all\", \"alloc\", \"harvest\" or \"reclaim\""));
    }
}

static void dataflow_names(void **state)
{
    (void)state;
    v10_dataflow df;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(v10_dataflow_parse(v10_dataflow_name((v10_dataflow)i), &df), 0);
        assert_int_equal(df, i);
    }
    assert_int_equal(v10_dataflow_parse("WS ", &df), -1);
}

/* The npu report (report/npu_report.c): its JSON reads back with the
 * derived figures; the table lists every key then the derived ones; a
 * document whose building failed is not written at all. */
static void report_whole_or_nothing(void **state)
{
    (void)state;
    v10_npu n;
    v10_err err = {{0}};
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    char buf[16384];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(v10_npu_report(&n, V10_FMT_JSON, f, &err), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "name")->valuestring, "v10-isca23");
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "derived"), "peak_sa_tflops"));
    cJSON_Delete(j);
    f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(v10_npu_report(&n, V10_FMT_TABLE, f, &err), 0);
    fclose(f);
    assert_non_null(strstr(buf, "sa_rows"));
    assert_true(strstr(buf, "sa_rows") < strstr(buf, "peak_sa_tflops"));
    /* a failure while building (here: a NULL item added) writes nothing */
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "a", "b");
    v10_json_add(o, "broken", NULL);
    memset(buf, 'x', sizeof buf);
    f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(v10_doc_json(o, mark, f), -1);
    assert_int_equal(ftell(f), 0);
    fclose(f);
    /* a stream that cannot take the document is an error, not a success */
    char tiny[8];
    f = fmemopen(tiny, sizeof tiny, "w");
    setvbuf(f, NULL, _IONBF, 0);
    assert_int_equal(v10_npu_report(&n, V10_FMT_JSON, f, &err), -1);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_whole_or_nothing),
        cmocka_unit_test(every_preset_validates), cmocka_unit_test(isca23_matches_paper),
        cmocka_unit_test(scaled_presets),         cmocka_unit_test(json_subset_override),
        cmocka_unit_test(json_round_trip),        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(validate_names_key),     cmocka_unit_test(dataflow_names),
        cmocka_unit_test(op_mapping_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
