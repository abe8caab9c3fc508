/*
 * cmd_calibrate.c — `v10sim calibrate MODEL --profile FILE.csv --row NAME`:
 * reshapes a model to a measured solo profile (v10/calibrate.h) and writes
 * the result as an operator-trace CSV with its provenance, reporting target
 * vs achieved for every figure.
 */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "util/file.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model_report.h"

#define CMD "calibrate"
#define MAX_PROFILES 8

static void usage(void)
{
    printf("usage: v10sim calibrate MODEL --profile FILE.csv [--profile FILE.csv ...]\n"
           "                        [--row NAME[:BATCH]] [--out TRACE.csv]\n"
           "                        [--sa-ops layers|work]\n"
           "                        [--npu NAME|FILE.json] [--format table|json|csv]\n\n"
           "Reshapes MODEL (a built-in name, an operator-trace CSV or an ONNX file) so\n"
           "that, run alone, it shows a measured profile: SA busy, VU busy, HBM\n"
           "utilization and mean SA / VU operator length (any subset; what is absent\n"
           "keeps the model's own value).  The model's structure stays: operator order,\n"
           "FU types, relative lengths; SA operators are split the way XLA tiles\n"
           "matmuls, extra vector work is added as named operators where a TPU runs\n"
           "it, each as long as the tensor it touches (docs/models.md, \"Calibrated\n"
           "models\").\n\n"
           "A profile CSV has a header naming its columns, in any order: model,\n"
           "batch (optional), sa_busy_pct|mxu_busy_pct, vu_busy_pct|vpu_busy_pct,\n"
           "hbm_util_pct, sa_op_us_mean, vu_op_us_mean, flops_util_pct; an empty cell\n"
           "is \"not measured\".  Several --profile files merge into one profile (the\n"
           "paper's data/tpu-profiles/utilization.csv and op_lengths.csv).\n\n"
           "options:\n"
           "  --profile FILE  a profile CSV (repeatable)\n"
           "  --row NAME[:B]  the profile row (default: MODEL's name at its batch)\n"
           "  --out FILE      write the calibrated operator-trace CSV there; use it\n"
           "                  anywhere a model is accepted\n"
           "  --sa-ops HOW    the SA operator count, which a profile leaves open:\n"
           "                  layers (default): every SA layer in the same number of\n"
           "                  equal pieces, keeping the layers' spread; work: the\n"
           "                  architecture's SA time over the mean, merging layers\n"
           "                  when the profile's operators are longer\n"
           "  --npu SPEC      preset or JSON file to calibrate for (default v10-isca23)\n"
           "  --format FMT    the report: table (default), json or csv\n"
           "  --help          this text\n\n"
           "The same calibration is a model spec: MODEL:profile=F.csv[,G.csv][:row=NAME@B].\n");
}

/* The report on stdout and, with --out, the calibrated trace, written
 * atomically (util/file.h): the trace is kept only once the report is
 * out, so a failed stdout leaves no --out behind.  cli_written's rc. */
static int write_outputs(const v10_calib_run *run, const v10_model *cal, v10_format fmt,
                         v10_err *err)
{
    v10_wfile o;
    memset(&o, 0, sizeof o);
    if (run->out && (v10_wfile_open(&o, run->out, 0, err) ||
                     v10_calibrate_trace_write(run, cal, o.f, err))) {
        if (o.f)
            v10_wfile_abort(&o);
        return -1;
    }
    int rc = v10_calibrate_report_write(run, fmt, stdout, err);
    if (!rc && fflush(stdout))
        rc = v10_err_set(err, "stdout: write failed");
    if (run->out && rc)
        v10_wfile_abort(&o);
    else if (run->out)
        rc = v10_wfile_commit(&o, err);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"profile", required_argument, NULL, 'p'},
        {"row", required_argument, NULL, 'r'},
        {"out", required_argument, NULL, 'o'},
        {"npu", required_argument, NULL, 'n'},
        {"sa-ops", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *files[MAX_PROFILES], *row_arg = NULL, *out = NULL, *npu_spec = "v10-isca23";
    int n_files = 0, c;
    v10_format fmt = V10_FMT_TABLE;
    v10_calib_opts copts = {.sa_ops = V10_CALIB_SA_LAYERS};
    v10_err err;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (n_files == MAX_PROFILES)
                return cli_usage_error(CMD, "at most %d --profile files", MAX_PROFILES);
            if (cli_path(CMD, "--profile", optarg, &files[n_files++]))
                return V10_EXIT_USAGE;
            break;
        case 'r': row_arg = optarg; break;
        case 'o':
            if (cli_path(CMD, "--out", optarg, &out))
                return V10_EXIT_USAGE;
            break;
        case 'n': npu_spec = optarg; break;
        case 's':
            if (v10_calib_sa_parse(optarg, &copts.sa_ops, &err))
                return cli_usage_error(CMD, "--sa-ops: %s", err.msg);
            break;
        case 'f':
            if (cli_format(CMD, optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "missing MODEL");
    if (optind + 1 < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    if (!n_files)
        return cli_usage_error(CMD, "missing --profile FILE.csv");
    const char *spec = argv[optind];
    int npu_rc;
    v10_npu npu;
    if ((npu_rc = cli_npu("calibrate", npu_spec, &npu)))
        return npu_rc;
    v10_model arch;
    if (v10_model_load(spec, &npu, &arch, &err))
        return cli_fail(&err);
    cli_note_approx(&arch);

    char row_name[V10_NAME_MAX];
    uint32_t row_batch = arch.batch;
    if (row_arg) {
        if (v10_profile_parse_row(row_arg, row_name, sizeof row_name, &row_batch, &err)) {
            v10_model_fini(&arch);
            return cli_usage_error(CMD, "--row: %s", err.msg);
        }
    } else {
        /* The model's own name: a built-in's, or a file's stem. */
        const char *base = strrchr(spec, '/');
        base = base ? base + 1 : spec;
        size_t l = strcspn(base, ":.");
        snprintf(row_name, sizeof row_name, "%.*s", (int)l, base);
    }
    v10_profile prof;
    v10_profile_init(&prof);
    int found = 0;
    for (int i = 0; i < n_files; i++) {
        int rc = v10_profile_merge_file(files[i], row_name, row_batch, &prof, &err);
        if (rc < 0) {
            v10_model_fini(&arch);
            return cli_fail(&err);
        }
        found |= rc;
    }
    if (!found) {
        v10_model_fini(&arch);
        v10_err_set(&err, "no profile row '%s'%s in the --profile files", row_name,
                    row_batch ? " at that batch" : "");
        return cli_fail(&err);
    }
    /* --out replaces no input: the model's file (the spec up to its options)
     * nor a profile; both were read, and the error comes before the work. */
    char model_path[V10_SPEC_MAX];
    snprintf(model_path, sizeof model_path, "%.*s", (int)strcspn(spec, ":"), spec);
    const char *inputs[MAX_PROFILES + 2] = {model_path, npu_spec};
    for (int i = 0; i < n_files; i++)
        inputs[2 + i] = files[i];
    if (out && cli_output_clear("--out", out, NULL, inputs, 2 + (size_t)n_files)) {
        v10_model_fini(&arch);
        return V10_EXIT_FAIL;
    }
    v10_model cal;
    v10_calib_report rep;
    /* The architecture's standalone time, then its operators calibrated in
     * place (a model of 10^6 operators is never held twice). */
    double arch_us = v10_npu_cycles_to_us(&npu, (double)v10_model_cycles(&arch));
    if ((out && v10_wfile_probe(out, &err)) || /* before the work */
        v10_calibrate_take(&arch, &prof, &npu, &copts, &cal, &rep, &err)) {
        v10_model_fini(&arch);
        return cli_fail(&err);
    }
    v10_calib_run run = {spec, &prof, &rep, &npu, arch_us,
                         v10_npu_cycles_to_us(&npu, (double)v10_model_cycles(&cal)), out,
                         files, n_files};
    v10_model_fini(&arch); /* empty: taken */
    int rc = write_outputs(&run, &cal, fmt, &err);
    v10_model_fini(&cal);
    return cli_written(rc, &err);
}
