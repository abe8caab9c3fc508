/*
 * cmd_calibrate.c — `v10sim calibrate MODEL --profile FILE.csv --row NAME`:
 * reshapes a model to a measured solo profile (v10/calibrate.h) and writes
 * the result as an operator-trace CSV with its provenance, reporting target
 * vs achieved for every figure.
 */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "cli/cli.h"
#include "util/file.h"
#include "v10/calibrate.h"
#include "v10/cost.h"

#define CMD "calibrate"
#define MAX_PROFILES 8

static void usage(void)
{
    printf("usage: v10sim calibrate MODEL --profile FILE.csv [--profile FILE.csv ...]\n"
           "                        [--row NAME[:BATCH]] [--out TRACE.csv]\n"
           "                        [--npu NAME|FILE.json] [--format table|json|csv]\n\n"
           "Reshapes MODEL (a built-in name, an operator-trace CSV or an ONNX file) so\n"
           "that, run alone, it shows a measured profile: SA busy, VU busy, HBM\n"
           "utilization and mean SA / VU operator length (any subset; what is absent\n"
           "keeps the model's own value).  The model's structure stays: operator order,\n"
           "FU types, relative lengths; SA operators are split or merged the way XLA\n"
           "tiles matmuls, extra vector work is added as named operators where a TPU\n"
           "runs it (docs/models.md, \"Calibrated models\").\n\n"
           "A profile CSV has a header naming its columns, in any order: model,\n"
           "batch (optional), sa_busy_pct|mxu_busy_pct, vu_busy_pct|vpu_busy_pct,\n"
           "hbm_util_pct, sa_op_us_mean, vu_op_us_mean, flops_util_pct; an empty cell\n"
           "is \"not measured\".  Several --profile files merge into one profile (the\n"
           "paper's data/tpu-profiles/utilization.csv and op_lengths.csv).\n\n"
           "  --profile FILE  a profile CSV (repeatable)\n"
           "  --row NAME[:B]  the profile row (default: MODEL's name at its batch)\n"
           "  --out FILE      write the calibrated operator-trace CSV there; use it\n"
           "                  anywhere a model is accepted\n"
           "  --npu SPEC      preset or JSON file to calibrate for (default v10-isca23)\n"
           "  --format FMT    the report: table (default), json or csv\n"
           "  --help          this text\n\n"
           "The same calibration is a model spec: MODEL:profile=F.csv[,G.csv][:row=NAME@B].\n");
}

/* One report row: a figure's profile value, target, achieved and the
 * uncalibrated model's value (NaN where not applicable). */
static void row(v10_tab *t, const char *figure, double profile, double target,
                double achieved, double before, double tol)
{
    v10_tab_row(t);
    v10_tab_str(t, figure);
    v10_tab_real(t, profile);
    v10_tab_real(t, target);
    v10_tab_real(t, achieved);
    v10_tab_real(t, before);
    v10_tab_str(t, isnan(target) || isnan(tol) ? "-"
                   : fabs(achieved - target) <= tol ? "yes" : "NO");
}

/* The provenance header of the written trace, then the trace itself. */
static int write_trace(const char *path, const v10_model *m, const v10_npu *npu,
                       const char *spec, const v10_profile *p, const char *const *files,
                       int n_files, v10_err *err)
{
    v10_wfile o;
    if (v10_wfile_open(&o, path, 0, err))
        return -1;
    fprintf(o.f, "# calibrated by v10sim %s calibrate from model %s\n", V10_VERSION, spec);
    fprintf(o.f, "# profile row %s", p->row);
    if (p->batch)
        fprintf(o.f, " batch %u", p->batch);
    fprintf(o.f, " from");
    for (int i = 0; i < n_files; i++)
        fprintf(o.f, " %s", files[i]);
    fprintf(o.f, "\n# targets: sa_busy %.4g vu_busy %.4g hbm_util %.4g sa_op_us %.6g "
                 "vu_op_us %.6g (nan: kept from the model)\n",
            p->sa_busy, p->vu_busy, p->hbm_util, p->sa_op_us, p->vu_op_us);
    if (v10_trace_csv_write(m, npu, o.f)) {
        v10_wfile_abort(&o);
        return v10_err_set(err, "%s: write failed", path);
    }
    return v10_wfile_commit(&o, err);
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"profile", required_argument, NULL, 'p'},
        {"row", required_argument, NULL, 'r'},
        {"out", required_argument, NULL, 'o'},
        {"npu", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *files[MAX_PROFILES], *row_arg = NULL, *out = NULL, *npu_spec = "v10-isca23";
    int n_files = 0, c;
    v10_format fmt = V10_FMT_TABLE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (n_files == MAX_PROFILES)
                return cli_usage_error(CMD, "at most %d --profile files", MAX_PROFILES);
            files[n_files++] = optarg;
            break;
        case 'r': row_arg = optarg; break;
        case 'o': out = optarg; break;
        case 'n': npu_spec = optarg; break;
        case 'f':
            if (cli_format(CMD, optarg, &fmt))
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
    v10_err err;
    v10_npu npu;
    if (v10_npu_resolve(npu_spec, &npu, &err))
        return cli_fail(&err);
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
    v10_model cal;
    v10_calib_report rep;
    if (v10_calibrate(&arch, &prof, &npu, &cal, &rep, &err)) {
        v10_model_fini(&arch);
        return cli_fail(&err);
    }
    double arch_us = v10_npu_cycles_to_us(&npu, (double)v10_model_cycles(&arch));
    v10_model_fini(&arch);
    if (out && write_trace(out, &cal, &npu, spec, &prof, files, n_files, &err)) {
        v10_model_fini(&cal);
        return cli_fail(&err);
    }

    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "figure", V10_COL_STR, 0);
    v10_tab_col(t, "profile", V10_COL_REAL, 4);
    v10_tab_col(t, "target", V10_COL_REAL, 4);
    v10_tab_col(t, "achieved", V10_COL_REAL, 4);
    v10_tab_col(t, "model", V10_COL_REAL, 4);
    v10_tab_col(t, "met", V10_COL_STR, 0);
    const v10_profile *tg = &rep.target, *a = &rep.achieved, *b = &rep.arch;
    /* Tolerances as docs/models.md states them for the isca23 set. */
    row(t, "sa_busy", prof.sa_busy, tg->sa_busy, a->sa_busy, b->sa_busy, 0.03);
    row(t, "vu_busy", prof.vu_busy, tg->vu_busy, a->vu_busy, b->vu_busy, 0.03);
    row(t, "hbm_util", prof.hbm_util, prof.hbm_util, a->hbm_util, b->hbm_util, 0.05);
    row(t, "sa_op_us", prof.sa_op_us, tg->sa_op_us, a->sa_op_us, b->sa_op_us,
        0.10 * tg->sa_op_us);
    row(t, "vu_op_us", prof.vu_op_us, tg->vu_op_us, a->vu_op_us, b->vu_op_us,
        0.10 * tg->vu_op_us);
    row(t, "flops_util", prof.flops_util, NAN, a->flops_util, b->flops_util, NAN);
    row(t, "sa_ops", NAN, NAN, (double)rep.sa_ops, (double)rep.arch_sa_ops, NAN);
    row(t, "vu_ops", NAN, NAN, (double)rep.vu_ops, (double)rep.arch_vu_ops, NAN);
    row(t, "added_vu_ops", NAN, NAN, (double)rep.added_vu_ops, 0, NAN);
    row(t, "latency_us", NAN, NAN, v10_npu_cycles_to_us(&npu, (double)v10_model_cycles(&cal)),
        arch_us, NAN);
    if (fmt == V10_FMT_TABLE)
        printf("calibrate %s to profile %s on NPU %s%s%s\n\n", spec, prof.row, npu.name, out ? ": wrote " : " (no --out: report only)",
               out ? out : "");
    int rc = v10_tab_write(t, fmt, stdout);
    v10_tab_destroy(t);
    v10_model_fini(&cal);
    return rc ? V10_EXIT_FAIL : V10_EXIT_OK;
}
