/*
 * cmd_fleet.c — `v10sim fleet`: places services on NPUs by clustering, by
 * greedy complementarity and at random, simulates every NPU and compares.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "v10/fleet.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim fleet --services FILE --npus M [options]\n\n"
        "Places N services on M NPUs (two or more per NPU) three ways -- by clustering\n"
        "(cluster-pair gains measured on representative pairs), by greedy complementarity\n"
        "of standalone SA/VU/HBM utilizations, and at random -- then simulates every NPU\n"
        "and reports fleet utilization, total STP, per-service p95 latency and placement.\n\n"
        "  FILE is a CSV with a header line:  name,model,batch,rate_rps[,priority]\n"
        "  batch 0 = the model's default; rate_rps 0 = closed loop (one request\n"
        "  outstanding); '#' comments.  Example: examples/services.csv.\n\n"
        "options:\n"
        "  --services FILE  the services (required)\n"
        "  --npus M         NPUs (required)\n"
        "  --policy NAME    policy on every NPU (default v10-full)\n"
        "  --npu NAME|FILE  NPU preset or JSON (default v10-isca23)\n"
        "  --requests N     requests per service (default 12)\n"
        "  --k K            clusters (default 5)\n"
        "  --seed S         seed for clustering, random placement, arrivals (default 1)\n"
        "  --format F       table (default) or json\n"
        "  -j N             threads (default: online CPUs)\n"
        "  --help           this text\n");
}

enum { O_SVC = 1000, O_NPUS, O_POL, O_NPU, O_REQ, O_K, O_SEED, O_FMT, O_HELP };
static const struct option opts[] = {
    {"services", required_argument, 0, O_SVC}, {"npus", required_argument, 0, O_NPUS},
    {"policy", required_argument, 0, O_POL},   {"npu", required_argument, 0, O_NPU},
    {"requests", required_argument, 0, O_REQ}, {"k", required_argument, 0, O_K},
    {"seed", required_argument, 0, O_SEED},    {"format", required_argument, 0, O_FMT},
    {"help", no_argument, 0, O_HELP},          {"jobs", required_argument, 0, 'j'},
    {0, 0, 0, 0},
};

int cmd_fleet(int argc, char **argv)
{
    v10_fleet_opts o;
    memset(&o, 0, sizeof o);
    v10_run_config_default(&o.base);
    o.base.requests = 12;
    o.base.warmup = 2;
    v10_colloc_opts_default(&o.colloc);
    o.threads = cli_default_threads();
    o.progress = 1;
    const char *path = NULL;
    v10_format fmt = V10_FMT_TABLE;
    v10_err err;
    int npu_rc;
    unsigned long long u;
    cli_getopt_begin();
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_SVC:
            if (cli_path("fleet", "--services", optarg, &path))
                return V10_EXIT_USAGE;
            break;
        case O_NPUS:
            if (cli_u64("fleet", "--npus", optarg, 1, 2048, &u))
                return V10_EXIT_USAGE;
            o.npus = u;
            break;
        case O_POL: {
            const v10_policy_ops *p = v10_policy_find(optarg);
            char hint[160];
            if (!p)
                return cli_usage_error("fleet", "--policy: unknown policy '%s'%s (see 'v10sim "
                                       "policies')", optarg,
                                       v10_policy_hint(hint, sizeof hint, optarg));
            if (!strcmp(v10_policy_name(p), "solo"))
                return cli_usage_error("fleet", "--policy: expected a policy that shares an "
                                                "NPU, got 'solo' (one tenant alone)");
            snprintf(o.base.policy, sizeof o.base.policy, "%s", v10_policy_name(p));
            break;
        }
        case O_NPU:
            if ((npu_rc = cli_npu("fleet", optarg, &o.base.npu)))
                return npu_rc;
            break;
        case O_REQ:
            if (cli_u64("fleet", "--requests", optarg, 2, 100000, &u))
                return V10_EXIT_USAGE;
            o.base.requests = u;
            o.base.warmup = u / 6;
            break;
        case O_K:
            if (cli_u64("fleet", "--k", optarg, 1, V10_K_MAX, &u))
                return V10_EXIT_USAGE;
            o.colloc.k = u;
            break;
        case O_SEED:
            if (cli_seed("fleet", optarg, &o.base.seed))
                return V10_EXIT_USAGE;
            o.colloc.seed = o.base.seed;
            break;
        case O_FMT:
            if (cli_format("fleet", optarg, CLI_FORMATS_NO_CSV, &fmt))
                return V10_EXIT_USAGE;
            break;
        case 'j':
            if (cli_threads("fleet", optarg, &o.threads))
                return V10_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return V10_EXIT_OK;
        default: return cli_bad_option("fleet", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("fleet", "unexpected argument '%s'", argv[optind]);
    if (!path)
        return cli_usage_error("fleet", "give --services FILE");
    if (!o.npus)
        return cli_usage_error("fleet", "give --npus M");
    v10_service *svc;
    size_t n;
    if (v10_services_read(path, &svc, &n, &err))
        return cli_fail(&err);
    if (v10_services_check(svc, n, path, &o.base.npu, &err)) {
        free(svc);
        return cli_fail(&err);
    }
    v10_fleet_result r;
    if (v10_fleet_run(svc, n, &o, &r, &err)) {
        free(svc);
        return cli_fail(&err);
    }
    int rc = v10_fleet_report(&r, svc, &o, fmt, stdout) || fflush(stdout) ? V10_EXIT_FAIL
                                                                          : V10_EXIT_OK;
    v10_fleet_result_fini(&r);
    free(svc);
    return rc;
}
