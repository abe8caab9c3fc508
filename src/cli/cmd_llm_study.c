/*
 * cmd_llm_study.c — `v10sim llm-study`: an LLM service beside each isca23
 * service and beside the other LLM service under PMT, V10-Fair and
 * V10-Full; writes llm_study.csv, SVG plots and summary.md into a
 * directory (docs/llm.md, "The LLM study").
 */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "v10/llm_study.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim llm-study [--out DIR] [--quick] [--scale] [--trace-dir DIR]\n"
        "                        [--model M] [--requests N] [--busy F] [--slo-ttft-ms T]\n"
        "                        [--slo-tpot-ms T] [-j N] [--seed S]\n\n"
        "An LLM serving tenant (the Azure conversation and code traces) beside each of\n"
        "the eleven isca23 services and beside the other LLM service, under pmt,\n"
        "v10-fair and v10-full.  Each trace's rate is scaled from solo runs so that the\n"
        "server alone is --busy loaded; beside each other the two servers serve the\n"
        "requests arriving in the shorter of their spans.  Writes llm_study.csv (one\n"
        "row per service x partner x policy x NPU, and each service alone), per\n"
        "service and NPU the TTFT p95 / TPOT p95 / partner-progress plots, TTFT and\n"
        "TPOT CDFs (alone, and each policy pooled over the isca23 partners; points in\n"
        "llm_cdf.csv) and tokens/s vs the partner's progress, and summary.md.\n\n"
        "options:\n"
        "  --out DIR         output directory, created if missing (default llm-study-out)\n"
        "  --quick           10 requests per run (a smoke test: a few seconds)\n"
        "  --scale           also the v10-isca23-2x/-4x/-8x presets\n"
        "  --trace-dir DIR   the full traces, DIR/AzureLLMInferenceTrace_{conv,code}.csv\n"
        "                    (default: 200-request excerpts the binary carries,\n"
        "                    tests/data/llm/; as tenant traces: trace=@azure_conv_200)\n"
        "  --model M         LLM preset or JSON (default llama3.2-1b)\n"
        "  --requests N      requests of each trace per run (default 200; --quick 10)\n"
        "  --busy F          target solo offered load of each server, [0.01, 0.99]\n"
        "                    (default 0.5)\n"
        "  --slo-ttft-ms T, --slo-tpot-ms T  SLOs for the attainment columns\n"
        "  -j N              threads (default: online CPUs)\n"
        "  --seed S          seed (default 1)\n"
        "  --help            this text\n"
        "See docs/llm.md, \"The LLM study\".\n");
}

enum { O_OUT = 1000, O_QUICK, O_SEED, O_HELP, O_SCALE, O_TRACES, O_MODEL, O_REQ, O_BUSY,
       O_TTFT, O_TPOT };
static const struct option opts[] = {
    {"out", required_argument, 0, O_OUT},       {"quick", no_argument, 0, O_QUICK},
    {"seed", required_argument, 0, O_SEED},     {"help", no_argument, 0, O_HELP},
    {"jobs", required_argument, 0, 'j'},        {"scale", no_argument, 0, O_SCALE},
    {"trace-dir", required_argument, 0, O_TRACES}, {"model", required_argument, 0, O_MODEL},
    {"requests", required_argument, 0, O_REQ},  {"busy", required_argument, 0, O_BUSY},
    {"slo-ttft-ms", required_argument, 0, O_TTFT}, {"slo-tpot-ms", required_argument, 0, O_TPOT},
    {0, 0, 0, 0},
};

int cmd_llm_study(int argc, char **argv)
{
    const char *dir = "llm-study-out", *cmd = "llm-study";
    v10_llm_study_opts o = {.seed = 1, .progress = 1, .target_busy = 0.5};
    o.threads = cli_default_threads();
    unsigned long long u;
    cli_getopt_begin();
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_OUT:
            if (cli_path(cmd, "--out", optarg, &dir))
                return V10_EXIT_USAGE;
            break;
        case O_QUICK: o.quick = 1; break;
        case O_SCALE: o.scale = 1; break;
        case O_TRACES:
            if (cli_path(cmd, "--trace-dir", optarg, &o.trace_dir))
                return V10_EXIT_USAGE;
            break;
        case O_MODEL: o.model = optarg; break;
        case 'j':
            if (cli_threads(cmd, optarg, &o.threads))
                return V10_EXIT_USAGE;
            break;
        case O_REQ:
            if (cli_u64(cmd, "--requests", optarg, 1, 100000000, &u))
                return V10_EXIT_USAGE;
            o.requests = u;
            break;
        case O_SEED:
            if (cli_seed(cmd, optarg, &o.seed))
                return V10_EXIT_USAGE;
            break;
        case O_BUSY:
            if (cli_double(cmd, "--busy", optarg, 0.01, 0.99, &o.target_busy))
                return V10_EXIT_USAGE;
            break;
        case O_TTFT:
            if (cli_double(cmd, "--slo-ttft-ms", optarg, 1e-6, 1e9, &o.slo_ttft_ms))
                return V10_EXIT_USAGE;
            break;
        case O_TPOT:
            if (cli_double(cmd, "--slo-tpot-ms", optarg, 1e-6, 1e9, &o.slo_tpot_ms))
                return V10_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return V10_EXIT_OK;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    v10_outdir od;
    if (cli_out_dir(&od, dir, "llm-study"))
        return V10_EXIT_FAIL;
    v10_err err;
    v10_llm_study *s;
    if (v10_llm_study_run(&o, &s, &err)) {
        v10_outdir_abandon(&od);
        return cli_fail(&err);
    }
    v10_llm_study_out out;
    int bad = v10_llm_study_render(s, &out, &err);
    size_t runs = s->runs;
    v10_llm_study_destroy(s);
    if (bad) {
        v10_outdir_abandon(&od);
        return cli_fail(&err);
    }
    int rc = cli_write_files(&od, "llm-study", out.files, out.n_files);
    if (rc == V10_EXIT_OK)
        printf("v10sim llm-study: %zu simulations on %d thread%s%s; %zu files in %s/ "
               "(see %s/summary.md)\n",
               runs, o.threads, o.threads == 1 ? "" : "s",
               o.quick ? " (--quick: noisier figures that do not support comparing policies' "
                         "tails; summary.md)" : "",
               out.n_files, dir, dir);
    v10_llm_study_out_fini(&out);
    return rc;
}
