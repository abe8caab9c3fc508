/*
 * cmd_fleet.c — `v10sim fleet`: places services on NPUs by clustering, by
 * greedy complementarity and at random, simulates every NPU and compares.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/json.h"
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

static int print_json(const v10_fleet_result *r, const v10_service *svc, const v10_fleet_opts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", V10_VERSION);
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(cfg, "npu", o->base.npu.name);
    cJSON_AddStringToObject(cfg, "policy", o->base.policy);
    cJSON_AddNumberToObject(cfg, "npus", (double)o->npus);
    cJSON_AddNumberToObject(cfg, "services", (double)r->n);
    cJSON_AddNumberToObject(cfg, "requests", (double)o->base.requests);
    cJSON_AddNumberToObject(cfg, "k", (double)o->colloc.k);
    cJSON_AddNumberToObject(cfg, "seed", (double)o->base.seed);
    cJSON *pls = cJSON_AddArrayToObject(root, "placements");
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        const v10_fleet_plan *pp = &r->plan[p];
        cJSON *pl = cJSON_CreateObject();
        cJSON_AddStringToObject(pl, "placement", v10_placement_name(pp->how));
        cJSON_AddNumberToObject(pl, "util_overall", pp->util_overall);
        cJSON_AddNumberToObject(pl, "util_sa", pp->util_sa);
        cJSON_AddNumberToObject(pl, "util_vu", pp->util_vu);
        cJSON_AddNumberToObject(pl, "stp_total", pp->stp_total);
        cJSON_AddNumberToObject(pl, "lat_p95_mean_us", pp->lat_p95_mean_us);
        cJSON *npus = cJSON_AddArrayToObject(pl, "npus");
        for (size_t j = 0; j < r->npus; j++) {
            cJSON *nj = cJSON_CreateObject();
            cJSON_AddNumberToObject(nj, "npu", (double)j);
            cJSON_AddNumberToObject(nj, "util_overall", pp->npu_util[j]);
            cJSON_AddNumberToObject(nj, "stp", pp->npu_stp[j]);
            cJSON *mem = cJSON_AddArrayToObject(nj, "services");
            for (size_t i = 0; i < r->n; i++)
                if (pp->npu_of[i] == j)
                    cJSON_AddItemToArray(mem, cJSON_CreateString(svc[i].name));
            cJSON_AddItemToArray(npus, nj);
        }
        cJSON *ss = cJSON_AddArrayToObject(pl, "services");
        for (size_t i = 0; i < r->n; i++) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "name", svc[i].name);
            cJSON_AddStringToObject(s, "model", svc[i].spec.model);
            cJSON_AddNumberToObject(s, "cluster", r->cluster[i]);
            cJSON_AddNumberToObject(s, "npu", (double)pp->svc[i].npu);
            cJSON_AddNumberToObject(s, "np", pp->svc[i].np);
            cJSON_AddNumberToObject(s, "throughput_rps", pp->svc[i].throughput_rps);
            cJSON_AddNumberToObject(s, "lat_avg_us", pp->svc[i].lat_avg_us);
            cJSON_AddNumberToObject(s, "lat_p95_us", pp->svc[i].lat_p95_us);
            cJSON_AddItemToArray(ss, s);
        }
        cJSON_AddItemToArray(pls, pl);
    }
    char *s = v10_json_print(root, 1);
    cJSON_Delete(root);
    if (!s)
        return V10_EXIT_FAIL;
    puts(s);
    free(s);
    return V10_EXIT_OK;
}

static void print_table(const v10_fleet_result *r, const v10_service *svc, const v10_fleet_opts *o)
{
    printf("v10sim %s  npu %s  policy %s  %zu services on %zu NPUs  %llu requests/service  "
           "seed %llu\n\n",
           V10_VERSION, o->base.npu.name, o->base.policy, r->n, r->npus,
           (unsigned long long)o->base.requests, (unsigned long long)o->base.seed);
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "placement", V10_COL_STR, 0);
    v10_tab_col(t, "util.overall", V10_COL_REAL, 3);
    v10_tab_col(t, "util.sa", V10_COL_REAL, 3);
    v10_tab_col(t, "util.vu", V10_COL_REAL, 3);
    v10_tab_col(t, "stp_total", V10_COL_REAL, 3);
    v10_tab_col(t, "p95_us_mean", V10_COL_REAL, 1);
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        const v10_fleet_plan *pp = &r->plan[p];
        v10_tab_row(t);
        v10_tab_str(t, v10_placement_name(pp->how));
        v10_tab_real(t, pp->util_overall);
        v10_tab_real(t, pp->util_sa);
        v10_tab_real(t, pp->util_vu);
        v10_tab_real(t, pp->stp_total);
        v10_tab_real(t, pp->lat_p95_mean_us);
    }
    v10_tab_write(t, V10_FMT_TABLE, stdout);
    v10_tab_destroy(t);
    printf("\n");
    t = v10_tab_create();
    v10_tab_col(t, "service", V10_COL_STR, 0);
    v10_tab_col(t, "model", V10_COL_STR, 0);
    v10_tab_col(t, "cluster", V10_COL_INT, 0);
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        char c1[64], c2[64], c3[64];
        snprintf(c1, sizeof c1, "%s.npu", v10_placement_name((v10_placement)p));
        snprintf(c2, sizeof c2, "%s.np", v10_placement_name((v10_placement)p));
        snprintf(c3, sizeof c3, "%s.p95_us", v10_placement_name((v10_placement)p));
        v10_tab_col(t, c1, V10_COL_INT, 0);
        v10_tab_col(t, c2, V10_COL_REAL, 3);
        v10_tab_col(t, c3, V10_COL_REAL, 1);
    }
    for (size_t i = 0; i < r->n; i++) {
        v10_tab_row(t);
        v10_tab_str(t, svc[i].name);
        v10_tab_str(t, svc[i].spec.model);
        v10_tab_int(t, r->cluster[i]);
        for (int p = 0; p < V10_PLACEMENTS; p++) {
            v10_tab_int(t, (int64_t)r->plan[p].svc[i].npu);
            v10_tab_real(t, r->plan[p].svc[i].np);
            v10_tab_real(t, r->plan[p].svc[i].lat_p95_us);
        }
    }
    v10_tab_write(t, V10_FMT_TABLE, stdout);
    v10_tab_destroy(t);
}

int cmd_fleet(int argc, char **argv)
{
    v10_fleet_opts o;
    memset(&o, 0, sizeof o);
    v10_run_config_default(&o.base);
    o.base.requests = 12;
    o.base.warmup = 2;
    v10_colloc_opts_default(&o.colloc);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = ncpu > 0 ? (int)ncpu : 1;
    o.progress = 1;
    const char *path = NULL;
    v10_format fmt = V10_FMT_TABLE;
    v10_err err;
    unsigned long long u;
    optind = 1;
    opterr = 0; /* cli_bad_option says what was wrong, once */
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_SVC: path = optarg; break;
        case O_NPUS:
            if (cli_u64("fleet", "--npus", optarg, 1, 2048, &u))
                return V10_EXIT_USAGE;
            o.npus = u;
            break;
        case O_POL:
            if (!v10_policy_find(optarg) || !strcmp(optarg, "solo"))
                return cli_usage_error("fleet", "--policy: unknown or single-tenant policy '%s'",
                                       optarg);
            snprintf(o.base.policy, sizeof o.base.policy, "%s", optarg);
            break;
        case O_NPU:
            if (v10_npu_resolve(optarg, &o.base.npu, &err))
                return cli_fail(&err);
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
            if (cli_u64("fleet", "--seed", optarg, 0, UINT64_MAX, &u))
                return V10_EXIT_USAGE;
            o.colloc.seed = o.base.seed = u;
            break;
        case O_FMT:
            if (cli_format("fleet", optarg, &fmt))
                return V10_EXIT_USAGE;
            if (fmt == V10_FMT_CSV)
                return cli_usage_error("fleet", "--format: expected table or json");
            break;
        case 'j':
            if (cli_u64("fleet", "-j", optarg, 1, 256, &u))
                return V10_EXIT_USAGE;
            o.threads = (int)u;
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
    int rc = V10_EXIT_OK;
    if (fmt == V10_FMT_JSON)
        rc = print_json(&r, svc, &o);
    else
        print_table(&r, svc, &o);
    if (fflush(stdout) != 0)
        rc = V10_EXIT_FAIL;
    v10_fleet_result_fini(&r);
    free(svc);
    return rc;
}
