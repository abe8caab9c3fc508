/*
 * cmd_validate.c — `v10sim validate`: the zoo's architecture-derived models
 * run alone on an NPU against what the V10 paper measured on a TPUv2 core,
 * every model x batch row; `--fit` refits the cost model's global
 * constants on the rows of batches 1, 32 and 512 and prints them
 * (docs/models.md, "Validation against the TPU").
 */
#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "v10/model_report.h"
#include "v10/pool.h"
#include "v10/validate.h"

static void usage(void)
{
    printf("usage: v10sim validate [--npu NAME|FILE.json] [--fit] [--format table|json|csv]\n\n"
           "Builds every zoo model at every batch the V10 paper profiled on a TPUv2\n"
           "core (data/tpu-profiles: Figures 3, 4, 5 and 7), runs it alone on the NPU\n"
           "and prints, per model x batch, the measured and simulated SA busy, VU\n"
           "busy, HBM utilization and SA FLOPS utilization (percent), then the mean\n"
           "|simulated - measured| over the rows the fit uses (batches 1, 32, 512),\n"
           "over the others (held out) and over all, and the largest.\n\n"
           "options:\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23, the core the\n"
           "                 profiles describe)\n"
           "  --fit          first refit the global constants (issue_cycles,\n"
           "                 vu_issue_cycles, vu_xlu_cycles, dma_row_cycles) on the\n"
           "                 fitted rows from the NPU's values, print them on stderr\n"
           "                 and validate with them\n"
           "  --format FMT   table (default), json or csv\n"
           "  --help         this text\n");
}

static void row_progress(size_t done, size_t total, void *ctx)
{
    v10_progress *bar = ctx;
    bar->total = total;
    v10_progress_step(bar, done);
}

/* On a terminal, the evaluations as they go; elsewhere (a log) one line
 * every 25. */
static void fit_progress(size_t evals, double best, void *ctx)
{
    (void)ctx;
    int mode = v10_progress_wanted("fit");
    if (mode == 1)
        fprintf(stderr, "\rvalidate --fit: %zu evaluations, objective %.2f points   ", evals,
                best);
    else if (mode == 2 && evals % 25 == 0)
        fprintf(stderr, "validate --fit: %zu evaluations, objective %.2f points\n", evals, best);
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"npu", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"fit", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *npu_spec = "v10-isca23";
    v10_format fmt = V10_FMT_TABLE;
    int c, fit = 0;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': npu_spec = optarg; break;
        case 'f':
            if (cli_format("validate", optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        case 'F': fit = 1; break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option("validate", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
    v10_npu npu;
    v10_err err;
    int rc;
    if ((rc = cli_npu("validate", npu_spec, &npu)))
        return rc;
    if (fit) {
        if (v10_validate_fit(&npu, fit_progress, NULL, &err))
            return cli_fail(&err);
        if (v10_progress_wanted("fit") == 1)
            fputc('\n', stderr);
        fprintf(stderr, "validate --fit:");
        for (size_t i = 0; i < v10_val_n_params; i++)
            fprintf(stderr, " %s %u", v10_val_params[i].key,
                    *(const uint32_t *)(const void *)((const char *)&npu +
                                                      v10_val_params[i].offset));
        fputc('\n', stderr);
    }
    v10_val_row *rows;
    size_t n;
    v10_progress bar;
    v10_progress_start(&bar, "validate", 0);
    rc = v10_validate(&npu, &rows, &n, row_progress, &bar, &err);
    v10_progress_end(&bar);
    if (rc)
        return cli_fail(&err);
    v10_val_summary s;
    v10_validate_summarize(rows, n, &s);
    rc = v10_validate_report_write(&npu, rows, n, &s, fmt, stdout, &err);
    free(rows);
    return cli_written(rc, &err);
}
