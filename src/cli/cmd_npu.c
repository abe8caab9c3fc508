/*
 * cmd_npu.c — `v10sim npu`: prints the resolved NPU configuration (a preset
 * or a JSON override file) with derived figures, or lists the presets.
 */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "util/json.h"
#include "v10/npu.h"

#define CMD "npu"

static void usage(void)
{
    printf("usage: v10sim npu [--npu NAME|FILE.json] [--format table|json]\n"
           "       v10sim npu --list [--format table|json|csv]\n\n"
           "Prints the resolved NPU configuration: every field (see docs/formats.md)\n"
           "and derived figures (peak SA TFLOPS, VU GFLOPS, HBM bytes per cycle, PMT\n"
           "task-switch cycles, ...).  A JSON file overrides any subset of the fields\n"
           "of its \"base\" preset (default v10-isca23).\n\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --list         list the presets with their main figures\n"
           "  --format FMT   table (default) or json; --list also takes csv\n"
           "  --help         this text\n");
}

/* Peak figures: a MAC is 2 FLOPs; every PE does one MAC per cycle. */
static double peak_sa_tflops(const v10_npu *n)
{
    return 2.0 * n->sa_count * n->sa_rows * n->sa_cols * n->clock_mhz * 1e6 / 1e12;
}

static double peak_vu_gflops(const v10_npu *n)
{
    return (double)n->vu_count * n->vu_lanes * n->vu_ops_per_lane * n->clock_mhz * 1e6 / 1e9;
}

/* The derived figures, as a JSON object (caller owns it); NULL on OOM. */
static cJSON *derived_json(const v10_npu *n)
{
    cJSON *d = cJSON_CreateObject();
    if (!d)
        return NULL;
    double bpc = v10_npu_hbm_bytes_per_cycle(n);
    cJSON_AddNumberToObject(d, "peak_sa_tflops", peak_sa_tflops(n));
    cJSON_AddNumberToObject(d, "peak_vu_gflops", peak_vu_gflops(n));
    cJSON_AddNumberToObject(d, "hbm_bytes_per_cycle", bpc);
    /* Machine balance: FLOPs the SAs can do per HBM byte (roofline ridge). */
    cJSON_AddNumberToObject(d, "sa_flops_per_hbm_byte",
                            peak_sa_tflops(n) * 1e12 / (n->hbm_gbps * 1e9));
    cJSON_AddNumberToObject(d, "vmem_mib", (double)n->vmem_bytes / (1024.0 * 1024.0));
    cJSON_AddNumberToObject(d, "slice_us", v10_npu_cycles_to_us(n, (double)n->slice_cycles));
    cJSON_AddNumberToObject(d, "sa_switch_us",
                            v10_npu_cycles_to_us(n, (double)n->sa_switch_cycles));
    cJSON_AddNumberToObject(d, "vu_switch_us",
                            v10_npu_cycles_to_us(n, (double)n->vu_switch_cycles));
    cJSON_AddNumberToObject(d, "pmt_switch_cycles", (double)v10_npu_pmt_switch_cycles(n));
    return d;
}

/* A JSON scalar as text: integers without a fraction, others to 6 digits. */
static void scalar_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
        snprintf(buf, n, "%.0f", v->valuedouble);
    else
        snprintf(buf, n, "%.6g", v->valuedouble);
}

static int print_json(cJSON *o)
{
    char *s = v10_json_print(o, 1);
    int rc = s && fputs(s, stdout) >= 0 && fputc('\n', stdout) != EOF ? 0 : -1;
    cJSON_free(s);
    return rc;
}

/* One NPU: key/value rows (table) or {...fields, "derived": {...}} (json). */
static int show(const v10_npu *n, v10_format fmt)
{
    cJSON *o = v10_npu_to_json(n), *d = derived_json(n);
    int rc = -1;
    if (!o || !d) {
        cJSON_Delete(o);
        cJSON_Delete(d);
        return -1;
    }
    if (fmt == V10_FMT_JSON) {
        cJSON_AddItemToObject(o, "derived", d);
        rc = print_json(o);
        cJSON_Delete(o);
        return rc;
    }
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "key", V10_COL_STR, 0);
    v10_tab_col(t, "value", V10_COL_STR, 0);
    char buf[128];
    const cJSON *v;
    cJSON_ArrayForEach(v, o) {
        scalar_text(v, buf, sizeof buf);
        v10_tab_row(t);
        v10_tab_str(t, v->string);
        v10_tab_str(t, buf);
    }
    int first = 1;
    cJSON_ArrayForEach(v, d) {
        scalar_text(v, buf, sizeof buf);
        v10_tab_row(t);
        if (first)
            v10_tab_footer(t); /* a rule sets the derived figures off */
        first = 0;
        v10_tab_str(t, v->string);
        v10_tab_str(t, buf);
    }
    rc = v10_tab_write(t, V10_FMT_TABLE, stdout);
    v10_tab_destroy(t);
    cJSON_Delete(o);
    cJSON_Delete(d);
    return rc;
}

static int list(v10_format fmt)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "sa_count", V10_COL_INT, 0);
    v10_tab_col(t, "sa_rows", V10_COL_INT, 0);
    v10_tab_col(t, "sa_cols", V10_COL_INT, 0);
    v10_tab_col(t, "vu_count", V10_COL_INT, 0);
    v10_tab_col(t, "vmem_mib", V10_COL_REAL, 0);
    v10_tab_col(t, "hbm_gbps", V10_COL_REAL, 1);
    v10_tab_col(t, "clock_mhz", V10_COL_REAL, 0);
    v10_tab_col(t, "peak_sa_tflops", V10_COL_REAL, 2);
    v10_tab_col(t, "peak_vu_gflops", V10_COL_REAL, 1);
    for (size_t i = 0; v10_npu_preset_names[i]; i++) {
        v10_npu n;
        v10_err err;
        V10_ASSERT(v10_npu_preset(v10_npu_preset_names[i], &n, &err) == 0);
        v10_tab_row(t);
        v10_tab_str(t, n.name);
        v10_tab_int(t, n.sa_count);
        v10_tab_int(t, n.sa_rows);
        v10_tab_int(t, n.sa_cols);
        v10_tab_int(t, n.vu_count);
        v10_tab_real(t, (double)n.vmem_bytes / (1024.0 * 1024.0));
        v10_tab_real(t, n.hbm_gbps);
        v10_tab_real(t, n.clock_mhz);
        v10_tab_real(t, peak_sa_tflops(&n));
        v10_tab_real(t, peak_vu_gflops(&n));
    }
    int rc = v10_tab_write(t, fmt, stdout);
    v10_tab_destroy(t);
    return rc;
}

int cmd_npu(int argc, char **argv)
{
    static const struct option opts[] = {
        {"npu", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *spec = "v10-isca23";
    v10_format fmt = V10_FMT_TABLE;
    int do_list = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': spec = optarg; break;
        case 'f':
            if (cli_format(CMD, optarg, &fmt))
                return V10_EXIT_USAGE;
            break;
        case 'l': do_list = 1; break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (do_list)
        return list(fmt) ? V10_EXIT_FAIL : V10_EXIT_OK;
    if (fmt == V10_FMT_CSV)
        return cli_usage_error(CMD, "--format: expected table or json, got 'csv'");
    v10_npu n;
    v10_err err;
    if (v10_npu_resolve(spec, &n, &err))
        return cli_fail(&err);
    return show(&n, fmt) ? V10_EXIT_FAIL : V10_EXIT_OK;
}
