/*
 * cmd_models.c — `v10sim models` (one standalone profile row per model) and
 * `v10sim profile` (one row per operator of one model; its CSV form is the
 * operator-trace CSV, so a profile can be edited and fed back in).
 */
#include <getopt.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "util/checked.h"
#include "util/json.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/npu.h"

/*
 * Standalone profile of one request of a costed model: op counts, work and
 * time per FU type.  Invariants: fu_ops[SA] + fu_ops[VU] = ops;
 * fu_cycles[SA] + fu_cycles[VU] = cycles; len_min/len_max are 0 for an FU
 * type with no operators; every total fits in int64_t (the table's type).
 */
typedef struct summary {
    uint64_t ops;
    uint64_t fu_ops[V10_FU_TYPES];
    uint64_t macs;                    /* per request (one batch) */
    uint64_t hbm_bytes;               /* per request */
    uint64_t cycles;                  /* standalone latency = v10_model_cycles */
    uint64_t compute_cycles, mem_cycles;
    uint64_t tiles;
    uint64_t fu_cycles[V10_FU_TYPES]; /* time spent in each FU type's ops */
    uint64_t len_min[V10_FU_TYPES];   /* shortest op, cycles */
    uint64_t len_max[V10_FU_TYPES];   /* longest op, cycles */
} summary;

static int add63(uint64_t *acc, uint64_t v)
{
    return v10_add_u64(*acc, v, acc) || *acc > INT64_MAX ? -1 : 0;
}

/* Fills *s from a costed model; -1 with err set if a total exceeds 63 bits. */
static int summarize(const v10_model *m, summary *s, v10_err *err)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        int fu = op->fu;
        if (add63(&s->macs, op->macs) || add63(&s->hbm_bytes, op->hbm_bytes) ||
            add63(&s->cycles, op->cycles) || add63(&s->compute_cycles, op->compute_cycles) ||
            add63(&s->mem_cycles, op->mem_cycles) || add63(&s->tiles, op->tiles) ||
            add63(&s->fu_cycles[fu], op->cycles))
            return v10_err_set(err, "model %s: totals exceed 63 bits", m->name);
        if (!s->fu_ops[fu] || op->cycles < s->len_min[fu])
            s->len_min[fu] = op->cycles;
        if (op->cycles > s->len_max[fu])
            s->len_max[fu] = op->cycles;
        s->fu_ops[fu]++;
        s->ops++;
    }
    V10_ASSERT(s->cycles == v10_model_cycles(m));
    return 0;
}

/* Shared option parsing: --npu, --format, --help and positional arguments
 * (left in argv[*first .. argc-1]).  Returns -1 to continue, else an exit
 * code. */
static int parse_args(const char *cmd, void (*usage)(void), int argc, char **argv,
                      const char **npu_spec, v10_format *fmt, int *first)
{
    static const struct option opts[] = {
        {"npu", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': *npu_spec = optarg; break;
        case 'f':
            if (cli_format(cmd, optarg, fmt))
                return V10_EXIT_USAGE;
            break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    *first = optind;
    return -1;
}

/* Resolves the NPU and loads + costs `spec` into *m (and summarizes it if
 * s is non-NULL).  Returns 0, or an exit code after printing the error. */
static int load(const char *spec, const v10_npu *npu, v10_model *m, summary *s)
{
    v10_err err;
    if (v10_model_load(spec, npu, m, &err))
        return cli_fail(&err);
    cli_note_approx(m);
    if (s && summarize(m, s, &err)) {
        v10_model_fini(m);
        return cli_fail(&err);
    }
    return 0;
}

static double us(const v10_npu *npu, uint64_t cycles)
{
    return v10_npu_cycles_to_us(npu, (double)cycles);
}

static double frac(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

static int print_json(cJSON *o)
{
    char *s = v10_json_print(o, 1);
    int rc = s && fputs(s, stdout) >= 0 && fputc('\n', stdout) != EOF ? 0 : -1;
    cJSON_free(s);
    return rc;
}

/* ---- models ------------------------------------------------------------ */

static void models_usage(void)
{
    printf("usage: v10sim models [SPEC...] [--npu NAME|FILE.json]\n"
           "                     [--format table|json|csv]\n\n"
           "Lists every built-in model -- the zoo, built from each architecture, then\n"
           "the isca23 set calibrated to the V10 paper's TPU profiles (docs/models.md)\n"
           "-- (or the given model specs: NAME[:batch=N] or\n"
           "PATH.csv[:batch=N] or PATH.onnx[:batch=N][:unknown=vu], docs/onnx.md)\n"
           "with its standalone profile for one request (one\n"
           "inference of a batch) on the NPU:\n"
           "  ops, sa_ops, vu_ops          operator counts\n"
           "  macs, hbm_bytes              work and HBM traffic per request\n"
           "  latency_cycles, latency_us   sum of operator cycles, run alone\n"
           "  sa_busy, vu_busy             fraction of that latency in SA / VU ops\n"
           "  hbm_util                     HBM bytes over (bandwidth x latency)\n"
           "  sa_op_len_us, vu_op_len_us   operator length mean, min and max\n\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --format FMT   table (default), json or csv\n"
           "  --help         this text\n");
}

static void models_cols(v10_tab *t)
{
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "batch", V10_COL_INT, 0);
    v10_tab_col(t, "ops", V10_COL_INT, 0);
    v10_tab_col(t, "sa_ops", V10_COL_INT, 0);
    v10_tab_col(t, "vu_ops", V10_COL_INT, 0);
    v10_tab_col(t, "macs", V10_COL_INT, 0);
    v10_tab_col(t, "hbm_bytes", V10_COL_INT, 0);
    v10_tab_col(t, "latency_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "latency_us", V10_COL_REAL, 1);
    v10_tab_col(t, "sa_busy", V10_COL_REAL, 3);
    v10_tab_col(t, "vu_busy", V10_COL_REAL, 3);
    v10_tab_col(t, "hbm_util", V10_COL_REAL, 3);
    static const char *const len[V10_FU_TYPES] = {"sa_op_len_us", "vu_op_len_us"};
    static const char *const stat[] = {"mean", "min", "max"};
    char name[64];
    for (int fu = 0; fu < V10_FU_TYPES; fu++)
        for (int k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "%s.%s", len[fu], stat[k]);
            v10_tab_col(t, name, V10_COL_REAL, 2);
        }
}

static void models_row(v10_tab *t, const v10_model *m, const summary *s, const v10_npu *npu)
{
    v10_tab_row(t);
    v10_tab_str(t, m->name);
    v10_tab_int(t, m->batch);
    v10_tab_int(t, (int64_t)s->ops);
    v10_tab_int(t, (int64_t)s->fu_ops[V10_FU_SA]);
    v10_tab_int(t, (int64_t)s->fu_ops[V10_FU_VU]);
    v10_tab_int(t, (int64_t)s->macs);
    v10_tab_int(t, (int64_t)s->hbm_bytes);
    v10_tab_int(t, (int64_t)s->cycles);
    v10_tab_real(t, us(npu, s->cycles));
    v10_tab_real(t, frac(s->fu_cycles[V10_FU_SA], s->cycles));
    v10_tab_real(t, frac(s->fu_cycles[V10_FU_VU], s->cycles));
    v10_tab_real(t, s->cycles ? (double)s->hbm_bytes /
                                    (v10_npu_hbm_bytes_per_cycle(npu) * (double)s->cycles)
                              : 0.0);
    for (int fu = 0; fu < V10_FU_TYPES; fu++) {
        double n = (double)s->fu_ops[fu];
        v10_tab_real(t, n > 0 ? us(npu, s->fu_cycles[fu]) / n : 0.0);
        v10_tab_real(t, us(npu, s->len_min[fu]));
        v10_tab_real(t, us(npu, s->len_max[fu]));
    }
}

/* {"version", "npu": {...}, key: [rows]} on stdout. */
static int write_wrapped(const v10_npu *npu, const char *key, cJSON *rows, cJSON *extra,
                         const char *extra_key)
{
    cJSON *o = cJSON_CreateObject(), *nj = v10_npu_to_json(npu);
    int rc = -1;
    if (!o || !nj || !rows) {
        cJSON_Delete(nj);
        cJSON_Delete(rows);
        cJSON_Delete(extra);
        cJSON_Delete(o);
        return -1;
    }
    cJSON_AddStringToObject(o, "version", V10_VERSION);
    cJSON_AddItemToObject(o, "npu", nj);
    cJSON_AddItemToObject(o, key, rows);
    if (extra)
        cJSON_AddItemToObject(o, extra_key, extra);
    rc = print_json(o);
    cJSON_Delete(o);
    return rc;
}

int cmd_models(int argc, char **argv)
{
    const char *npu_spec = "v10-isca23";
    v10_format fmt = V10_FMT_TABLE;
    int first = 0, rc = parse_args("models", models_usage, argc, argv, &npu_spec, &fmt, &first);
    if (rc >= 0)
        return rc;
    v10_npu npu;
    v10_err err;
    if (v10_npu_resolve(npu_spec, &npu, &err))
        return cli_fail(&err);
    v10_tab *t = v10_tab_create();
    models_cols(t);
    size_t n = first < argc ? (size_t)(argc - first) : 0, n_zoo = 0, n_isca = 0;
    while (v10_zoo_names[n_zoo])
        n_zoo++;
    while (v10_isca23_names[n_isca])
        n_isca++;
    if (!n)
        n = n_zoo + n_isca;
    for (size_t i = 0; i < n; i++) {
        char builtin[V10_NAME_MAX];
        if (i >= n_zoo)
            snprintf(builtin, sizeof builtin, "isca23/%s", v10_isca23_names[i - n_zoo]);
        const char *spec = first < argc ? argv[first + (int)i]
                           : i < n_zoo  ? v10_zoo_names[i]
                                        : builtin;
        v10_model m;
        summary s;
        if ((rc = load(spec, &npu, &m, &s)) != 0) {
            v10_tab_destroy(t);
            return rc;
        }
        models_row(t, &m, &s, &npu);
        v10_model_fini(&m);
    }
    if (fmt == V10_FMT_JSON) {
        rc = write_wrapped(&npu, "models", v10_tab_to_json(t), NULL, NULL);
    } else {
        if (fmt == V10_FMT_TABLE)
            printf("NPU %s: %u SA %ux%u, %u VU, %.0f GB/s HBM, %.0f MHz; one request each\n\n",
                   npu.name, npu.sa_count, npu.sa_rows, npu.sa_cols, npu.vu_count,
                   npu.hbm_gbps, npu.clock_mhz);
        rc = v10_tab_write(t, fmt, stdout);
    }
    v10_tab_destroy(t);
    return rc ? V10_EXIT_FAIL : V10_EXIT_OK;
}

/* ---- profile ----------------------------------------------------------- */

static void profile_usage(void)
{
    printf("usage: v10sim profile MODEL[:batch=N] [--npu NAME|FILE.json]\n"
           "                      [--format table|json|csv]\n\n"
           "Per-operator breakdown of one request of MODEL (a built-in model name,\n"
           "an operator-trace CSV, an ONNX file, PATH.onnx[:unknown=vu] as in\n"
           "docs/onnx.md, or an LLM phase, llm/NAME:prefill=P or\n"
           "llm/NAME:decode=NxC as in docs/models.md) run alone: FU, standalone\n"
           "cycles and us, compute and HBM cycles, HBM bytes, whether compute or\n"
           "memory bound, tiles (preemption points) and MACs; the table ends with\n"
           "the totals.\n\n"
           "--format csv writes the operator-trace CSV (docs/formats.md), so\n"
           "  v10sim profile bert --format csv > bert.csv; v10sim profile bert.csv\n"
           "reproduces the same per-operator cycles (edit the CSV to experiment).\n\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --format FMT   table (default), json or csv\n"
           "  --help         this text\n");
}

static void profile_cols(v10_tab *t)
{
    v10_tab_col(t, "index", V10_COL_INT, 0);
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "fu", V10_COL_STR, 0);
    v10_tab_col(t, "cycles", V10_COL_INT, 0);
    v10_tab_col(t, "us", V10_COL_REAL, 2);
    v10_tab_col(t, "compute_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "mem_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "hbm_bytes", V10_COL_INT, 0);
    v10_tab_col(t, "bound", V10_COL_STR, 0);
    v10_tab_col(t, "tiles", V10_COL_INT, 0);
    v10_tab_col(t, "macs", V10_COL_INT, 0);
}

/* The totals as one JSON object (the `models` row of this model). */
static cJSON *totals_json(const v10_model *m, const summary *s, const v10_npu *npu)
{
    v10_tab *t = v10_tab_create();
    models_cols(t);
    models_row(t, m, s, npu);
    cJSON *rows = v10_tab_to_json(t);
    v10_tab_destroy(t);
    if (!rows)
        return NULL;
    cJSON *one = cJSON_DetachItemFromArray(rows, 0);
    cJSON_Delete(rows);
    if (one) {
        cJSON_AddNumberToObject(one, "compute_cycles", (double)s->compute_cycles);
        cJSON_AddNumberToObject(one, "mem_cycles", (double)s->mem_cycles);
        cJSON_AddNumberToObject(one, "tiles", (double)s->tiles);
    }
    return one;
}

int cmd_profile(int argc, char **argv)
{
    const char *npu_spec = "v10-isca23";
    v10_format fmt = V10_FMT_TABLE;
    int first = 0, rc = parse_args("profile", profile_usage, argc, argv, &npu_spec, &fmt, &first);
    if (rc >= 0)
        return rc;
    if (first >= argc)
        return cli_usage_error("profile", "missing MODEL (a model name or a trace CSV)");
    if (first + 1 < argc)
        return cli_usage_error("profile", "unexpected argument '%s'", argv[first + 1]);
    v10_npu npu;
    v10_err err;
    if (v10_npu_resolve(npu_spec, &npu, &err))
        return cli_fail(&err);
    v10_model m;
    summary s;
    if ((rc = load(argv[first], &npu, &m, &s)) != 0)
        return rc;
    if (fmt == V10_FMT_CSV) {
        rc = v10_trace_csv_write(&m, &npu, stdout) || fflush(stdout) ? V10_EXIT_FAIL
                                                                      : V10_EXIT_OK;
        v10_model_fini(&m);
        return rc;
    }
    v10_tab *t = v10_tab_create();
    profile_cols(t);
    for (size_t i = 0; i < m.n_ops; i++) {
        const v10_op *op = &m.ops[i];
        v10_tab_row(t);
        v10_tab_int(t, (int64_t)i);
        v10_tab_str(t, op->name);
        v10_tab_str(t, v10_fu_name(op->fu));
        /* summarize() checked that every sum, hence every term, fits int64. */
        v10_tab_int(t, (int64_t)op->cycles);
        v10_tab_real(t, us(&npu, op->cycles));
        v10_tab_int(t, (int64_t)op->compute_cycles);
        v10_tab_int(t, (int64_t)op->mem_cycles);
        v10_tab_int(t, (int64_t)op->hbm_bytes);
        v10_tab_str(t, op->compute_cycles >= op->mem_cycles ? "compute" : "memory");
        v10_tab_int(t, op->tiles);
        v10_tab_int(t, (int64_t)op->macs);
    }
    if (fmt == V10_FMT_JSON) {
        rc = write_wrapped(&npu, "ops", v10_tab_to_json(t), totals_json(&m, &s, &npu),
                           "totals");
    } else {
        v10_tab_row(t);
        v10_tab_footer(t);
        v10_tab_int(t, (int64_t)s.ops);
        v10_tab_str(t, "total");
        v10_tab_str(t, "-");
        v10_tab_int(t, (int64_t)s.cycles);
        v10_tab_real(t, us(&npu, s.cycles));
        v10_tab_int(t, (int64_t)s.compute_cycles);
        v10_tab_int(t, (int64_t)s.mem_cycles);
        v10_tab_int(t, (int64_t)s.hbm_bytes);
        v10_tab_str(t, "-");
        v10_tab_int(t, (int64_t)s.tiles);
        v10_tab_int(t, (int64_t)s.macs);
        printf("model %s, batch %u, on NPU %s: %zu operators (%llu SA, %llu VU), "
               "%.1f us alone; SA busy %.1f%%, VU busy %.1f%%\n\n",
               m.name, m.batch, npu.name, m.n_ops,
               (unsigned long long)s.fu_ops[V10_FU_SA], (unsigned long long)s.fu_ops[V10_FU_VU],
               us(&npu, s.cycles), 100.0 * frac(s.fu_cycles[V10_FU_SA], s.cycles),
               100.0 * frac(s.fu_cycles[V10_FU_VU], s.cycles));
        rc = v10_tab_write(t, fmt, stdout);
    }
    v10_tab_destroy(t);
    v10_model_fini(&m);
    return rc ? V10_EXIT_FAIL : V10_EXIT_OK;
}
