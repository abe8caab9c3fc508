/*
 * cmd_npu.c — `v10sim npu`: prints the resolved NPU configuration (a preset
 * or a JSON override file) with derived figures, or lists the presets.
 */
#include <getopt.h>

#include "cli/cli.h"
#include "v10/model_report.h"
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
           "options:\n"
           "  --npu SPEC     preset name or JSON file (default v10-isca23)\n"
           "  --list         list the presets with their main figures\n"
           "  --format FMT   table (default) or json; --list also takes csv\n"
           "  --help         this text\n");
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
    int do_list = 0, npu_given = 0, c;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            spec = optarg;
            npu_given = 1;
            break;
        case 'f':
            if (cli_format(CMD, optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        case 'l': do_list = 1; break;
        case 'h': usage(); return V10_EXIT_OK;
        default: return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (do_list && npu_given) /* --list prints the presets: an --npu would be dropped */
        return cli_usage_error(CMD, "--list and --npu do not go together (--list prints "
                                    "every preset)");
    v10_err err;
    int npu_rc;
    if (do_list)
        return cli_written(v10_npu_list_report(fmt, stdout, &err), &err);
    if (fmt == V10_FMT_CSV)
        return cli_usage_error(CMD, "--format: expected table or json, got 'csv' (csv "
                                    "goes with --list)");
    v10_npu n;
    if ((npu_rc = cli_npu(CMD, spec, &n)))
        return npu_rc;
    return cli_written(v10_npu_report(&n, fmt, stdout, &err), &err);
}
