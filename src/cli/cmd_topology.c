/*
 * cmd_topology.c — `v10sim topology FILE.csv`: costs a SCALE-Sim topology
 * layer by layer on one systolic array (compute cycles, ideal memory), so
 * the cost model can be checked against SCALE-Sim's own figures.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "import/topology.h"
#include "util/num.h"
#include "v10/cost.h"
#include "v10/model_report.h"

#define CMD "topology"
#define ARRAY_DIM_MAX 65536u /* PEs per side: generous, keeps rows*cols exact */

static void usage(void)
{
    printf("usage: v10sim topology FILE.csv [--array RxC] [--dataflow ws|os|is]\n"
           "                        [--gemm|--conv] [--mode scalesim|tpu]\n"
           "                        [--format table|csv|json]\n\n"
           "Reads a SCALE-Sim v2 topology CSV (conv: name, ifmap_h, ifmap_w, filter_h,\n"
           "filter_w, channels, num_filter, stride; gemm: name, M, N, K) and prints, per\n"
           "layer in file order, the GEMM it lowers to, its MACs, the array folds, the\n"
           "compute cycles with ideal memory and the utilisation\n"
           "macs / (cycles x rows x cols), then a total row (M, N, K are 0 there).\n"
           "The same file is a model anywhere one is named (run --tenant FILE.csv:batch=N,\n"
           "profile FILE.csv; docs/formats.md, \"SCALE-Sim topologies as models\").\n\n"
           "options:\n"
           "  --array RxC      array rows x cols (default 128x128)\n"
           "  --dataflow DF    ws, os or is (default ws)\n"
           "  --gemm, --conv   force the file format (default: from the header)\n"
           "  --mode MODE      scalesim (default): SCALE-Sim v2's cycle count, i.e. its\n"
           "                   reported total_cycles + 1 (it reports the last cycle's\n"
           "                   0-based index); tpu: next fold's weights load while the\n"
           "                   current fold streams\n"
           "  --format FMT     table (default), csv or json\n"
           "  --help           this text\n");
}

/* Parses "RxC" strictly; -1 (usage error printed) otherwise. */
static int parse_array(const char *s, uint32_t *rows, uint32_t *cols)
{
    /* Each side a plain decimal integer as every number (util/num.h: not
     * 010 or +1), split at the one 'x'. */
    uint64_t r, c;
    char side[24];
    size_t n = strcspn(s, "xX");
    if (!s[n] || n >= sizeof side)
        goto bad;
    snprintf(side, sizeof side, "%.*s", (int)n, s);
    if (v10_parse_u64(side, &r) || v10_parse_u64(s + n + 1, &c) || r < 1 || c < 1 ||
        r > ARRAY_DIM_MAX || c > ARRAY_DIM_MAX)
        goto bad;
    *rows = (uint32_t)r;
    *cols = (uint32_t)c;
    return 0;
bad:
    cli_usage_error(CMD, "--array: expected ROWSxCOLS with each in [1, %u], got '%s'",
                    ARRAY_DIM_MAX, s);
    return -1;
}

int cmd_topology(int argc, char **argv)
{
    enum { OPT_ARRAY = 256, OPT_DATAFLOW, OPT_GEMM, OPT_CONV, OPT_MODE, OPT_FORMAT };
    static const struct option opts[] = {
        {"array", required_argument, NULL, OPT_ARRAY},
        {"dataflow", required_argument, NULL, OPT_DATAFLOW},
        {"gemm", no_argument, NULL, OPT_GEMM},
        {"conv", no_argument, NULL, OPT_CONV},
        {"mode", required_argument, NULL, OPT_MODE},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint32_t rows = 128, cols = 128;
    v10_dataflow df = V10_DF_WS;
    v10_sa_mode mode = V10_SA_SCALESIM;
    v10_format fmt = V10_FMT_TABLE;
    int force = V10_TOPO_AUTO, c;

    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage();
            return V10_EXIT_OK;
        case OPT_ARRAY:
            if (parse_array(optarg, &rows, &cols))
                return V10_EXIT_USAGE;
            break;
        case OPT_DATAFLOW: {
            static const char *const flows[] = {"ws", "os", "is", NULL};
            int i = cli_choice(CMD, "--dataflow", optarg, flows);
            if (i < 0 || v10_dataflow_parse(flows[i], &df))
                return V10_EXIT_USAGE;
            break;
        }
        case OPT_GEMM:
        case OPT_CONV: {
            int want = c == OPT_GEMM ? V10_TOPO_GEMM : V10_TOPO_CONV;
            if (force != V10_TOPO_AUTO && force != want)
                return cli_usage_error(CMD, "--gemm and --conv are exclusive");
            force = want;
            break;
        }
        case OPT_MODE: {
            static const char *const modes[] = {"scalesim", "tpu", NULL};
            int i = cli_choice(CMD, "--mode", optarg, modes);
            if (i < 0)
                return V10_EXIT_USAGE;
            mode = i == 0 ? V10_SA_SCALESIM : V10_SA_TPU;
            break;
        }
        case OPT_FORMAT:
            if (cli_format(CMD, optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        default: return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "missing the topology FILE.csv");
    if (optind + 1 < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    const char *path;
    if (cli_path(CMD, "FILE.csv", argv[optind], &path))
        return V10_EXIT_USAGE;

    v10_err err = {{0}};
    v10_topo *topo = NULL;
    if (v10_topology_read(path, force, &topo, &err))
        return cli_fail(&err);
    v10_topo_costing cost = {rows, cols, df, mode};
    int rc = cli_written(v10_topology_report(path, topo, &cost, fmt, stdout, &err), &err);
    if (rc == V10_EXIT_OK && fflush(stdout))
        rc = cli_fail(&(v10_err){"topology: cannot write the output"});
    v10_topology_free(topo);
    return rc;
}
