/*
 * cmd_models.c — `v10sim models` (one standalone profile row per model) and
 * `v10sim profile` (one row per operator of one model; its CSV form is the
 * operator-trace CSV, so a profile can be edited and fed back in).
 */
#include <getopt.h>

#include "cli/cli.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/model_report.h"
#include "v10/npu.h"

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
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': *npu_spec = optarg; break;
        case 'f':
            if (cli_format(cmd, optarg, CLI_FORMATS, fmt))
                return V10_EXIT_USAGE;
            break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    *first = optind;
    return -1;
}

/* Resolves the NPU and loads + costs `spec` into *m, as it runs alone
 * on the NPU if `alone` (each operator over the engines its op_mapping
 * gives it, v10_cost_map_model; an operator-trace CSV is written from the
 * one-engine costs instead), and summarizes it.  Returns 0, or an exit
 * code after printing the error. */
static int load(const char *spec, const v10_npu *npu, int alone, v10_model *m,
                v10_model_summary *s, cli_fixed *fixed)
{
    v10_err err;
    if (v10_model_load(spec, npu, m, &err))
        return cli_fail(&err);
    cli_note_approx(m);
    cli_fixed_add(fixed, spec, m);
    if (alone && v10_cost_map_alone(npu, m, &err))
        return cli_fail(&err);
    if (v10_model_summarize(m, s, &err)) {
        v10_model_fini(m);
        return cli_fail(&err);
    }
    return 0;
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
           "  sa_op_len_us, vu_op_len_us   operator length min, p50, mean, p95, max\n"
           "  sa_op_len_cv, vu_op_len_cv   their coefficient of variation (sd / mean)\n"
           "An operator runs as the NPU's op_mapping says: on one engine (\"one\"), or\n"
           "alone over every engine of its type (\"all\", the TPU presets' default;\n"
           "docs/design.md, \"Operators over several engines\").\n\n"
           "options:\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --format FMT   table (default), json or csv\n"
           "  --help         this text\n");
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
    int npu_rc;
    if ((npu_rc = cli_npu("models", npu_spec, &npu)))
        return npu_rc;
    v10_tab *t = v10_models_table();
    cli_fixed fixed = {.n = 0};
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
        v10_model_summary s;
        if ((rc = load(spec, &npu, 1, &m, &s, &fixed)) != 0) {
            v10_tab_destroy(t);
            return rc;
        }
        v10_models_row(t, &m, &s, &npu);
        v10_model_fini(&m);
    }
    cli_fixed_note(&fixed, &npu);
    rc = v10_models_write(t, &npu, fmt, stdout, &err);
    v10_tab_destroy(t);
    return cli_written(rc, &err);
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
           "the totals.  Each operator runs over the engines the NPU's op_mapping\n"
           "gives it alone (every engine of its type unless \"one\").\n\n"
           "--format csv writes the operator-trace CSV (docs/formats.md: one engine's\n"
           "compute cycles and the tiles, which re-reading maps again), so\n"
           "  v10sim profile bert --format csv > bert.csv; v10sim profile bert.csv\n"
           "reproduces the same per-operator cycles (edit the CSV to experiment).\n\n"
           "options:\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --format FMT   table (default), json or csv\n"
           "  --help         this text\n");
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
    int npu_rc;
    if ((npu_rc = cli_npu("profile", npu_spec, &npu)))
        return npu_rc;
    v10_model m;
    v10_model_summary s;
    cli_fixed fixed = {.n = 0};
    if ((rc = load(argv[first], &npu, fmt != V10_FMT_CSV, &m, &s, &fixed)) != 0)
        return rc;
    cli_fixed_note(&fixed, &npu);
    rc = v10_profile_write(&m, &s, &npu, fmt, stdout, &err) ||
         (fmt == V10_FMT_CSV && fflush(stdout));
    v10_model_fini(&m);
    return cli_written(rc, &err);
}
