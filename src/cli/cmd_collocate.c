/*
 * cmd_collocate.c — `v10sim collocate`: profiles the models, simulates every
 * pair under PMT and V10-Full for the ground truth, and evaluates
 * clustering-based collocation against a heuristic and random prediction.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "v10/colloc.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim collocate [--format table|json|csv] [--k K] [--threshold X] [options]\n\n"
        "Clustering-based collocation (V10 paper, section 5): profiles every model alone\n"
        "(SA and VU utilization, HBM bandwidth, operator length mean/min/max of each\n"
        "unit), standardizes, reduces with PCA and clusters with k-means; scores cluster\n"
        "pairs from training pairs; predicts 'beneficial' (STP under v10-full >= X times\n"
        "under pmt) for unseen pairs.  Evaluated leave-two-workloads-out over all pairs\n"
        "against the simulated ground truth, beside a utilization heuristic (SA-heavy +\n"
        "VU-heavy) and a seeded coin per pair: accuracy, share of the bad pairs caught and\n"
        "the worst collocation each method picks.\n\n"
        "options:\n"
        "  --format F       table (default), json, or csv (the per-method figures)\n"
        "  --k K            clusters (default 5, as in the paper)\n"
        "  --threshold X    beneficial gain (default 1.3)\n"
        "  --seed S         k-means++ seeding and the random baseline (default 1)\n"
        "  --models LIST    comma-separated model specs (default: the paper's eleven,\n"
        "                   the isca23 set; e.g. bert,dlrm,... for the zoo's)\n"
        "  --npu NAME|FILE  NPU preset or JSON (default v10-isca23)\n"
        "  --requests N     requests per tenant in the pair runs (default 12)\n"
        "  -j N             threads (default: online CPUs)\n"
        "  --help           this text\n");
}

/* The paper's eleven workloads as calibrated to its TPU profiles (docs/models.md). */
static const char *const paper_models[] = {
    "isca23/bert",     "isca23/dlrm",      "isca23/efficientnet", "isca23/maskrcnn",
    "isca23/mnist",    "isca23/ncf",       "isca23/resnet50",     "isca23/resnet-rs",
    "isca23/retinanet", "isca23/shapemask", "isca23/transformer"};

enum { O_FMT = 1000, O_K, O_THR, O_SEED, O_MODELS, O_NPU, O_REQ, O_HELP };
static const struct option opts[] = {
    {"format", required_argument, 0, O_FMT},    {"k", required_argument, 0, O_K},
    {"threshold", required_argument, 0, O_THR}, {"seed", required_argument, 0, O_SEED},
    {"models", required_argument, 0, O_MODELS}, {"npu", required_argument, 0, O_NPU},
    {"requests", required_argument, 0, O_REQ},  {"help", no_argument, 0, O_HELP},
    {"jobs", required_argument, 0, 'j'},        {0, 0, 0, 0},
};

int cmd_collocate(int argc, char **argv)
{
    v10_format fmt = V10_FMT_TABLE;
    v10_colloc_opts co;
    v10_colloc_opts_default(&co);
    v10_run_config base;
    v10_run_config_default(&base);
    base.requests = 12;
    base.warmup = 2;
    int threads = cli_default_threads();
    const char *model_arg = NULL;
    v10_err err;
    int npu_rc;
    unsigned long long u;
    cli_getopt_begin();
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_FMT:
            if (cli_format("collocate", optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        case O_K:
            if (cli_u64("collocate", "--k", optarg, 1, V10_K_MAX, &u))
                return V10_EXIT_USAGE;
            co.k = u;
            break;
        case O_THR:
            if (cli_double("collocate", "--threshold", optarg, 0.01, 100, &co.threshold))
                return V10_EXIT_USAGE;
            break;
        case O_SEED:
            if (cli_seed("collocate", optarg, &base.seed))
                return V10_EXIT_USAGE;
            co.seed = base.seed;
            break;
        case O_MODELS: model_arg = optarg; break;
        case O_NPU:
            if ((npu_rc = cli_npu("collocate", optarg, &base.npu)))
                return npu_rc;
            break;
        case O_REQ:
            if (cli_u64("collocate", "--requests", optarg, 2, 100000, &u))
                return V10_EXIT_USAGE;
            base.requests = u;
            base.warmup = u / 6;
            break;
        case 'j':
            if (cli_threads("collocate", optarg, &threads))
                return V10_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return V10_EXIT_OK;
        default: return cli_bad_option("collocate", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("collocate", "unexpected argument '%s'", argv[optind]);

    const char *names[64];
    char *copy = NULL;
    size_t n = 0;
    if (!model_arg) {
        for (; n < sizeof paper_models / sizeof paper_models[0]; n++)
            names[n] = paper_models[n];
    } else {
        copy = strdup(model_arg);
        if (!copy)
            return V10_EXIT_FAIL;
        /* Every name once and none empty: two rows of one model, or a model
         * lost to ",,", would be profiled and paired as if they were data. */
        for (char *tok = copy, *end; tok; tok = end) {
            end = strchr(tok, ',');
            if (end)
                *end++ = 0;
            const char *bad = NULL;
            if (!*tok)
                bad = "an empty name";
            for (size_t i = 0; !bad && i < n; i++)
                if (!strcmp(names[i], tok))
                    bad = "a model given twice";
            if (bad || n == 64) {
                int rc = bad ? cli_usage_error("collocate", "--models: %s in '%s'%s%s%s", bad,
                                               model_arg, *tok ? " ('" : "", tok,
                                               *tok ? "')" : "")
                             : cli_usage_error("collocate", "--models: at most 64 models");
                free(copy);
                return rc;
            }
            names[n++] = tok;
        }
    }
    if (n < 4) {
        free(copy);
        return cli_usage_error("collocate", "--models: need at least 4 models (got %zu)", n);
    }
    v10_profile *prof = calloc(n, sizeof *prof);
    double *gain = calloc(n * n, sizeof *gain);
    int rc = V10_EXIT_FAIL;
    v10_colloc_result r;
    memset(&r, 0, sizeof r);
    if (!prof || !gain)
        goto out;
    if (v10_profile_models(names, n, &base.npu, threads, "collocate: profiling", prof, &err) ||
        v10_colloc_ground_truth(names, n, &base, threads, "collocate: pairs", gain, NULL,
                                NULL, &err) ||
        v10_colloc_evaluate(prof, n, gain, &co, &r, &err)) {
        rc = cli_fail(&err);
        goto out;
    }
    rc = v10_colloc_report(&r, prof, names, &co, &base, fmt, stdout) || fflush(stdout)
             ? V10_EXIT_FAIL : V10_EXIT_OK;
out:
    v10_colloc_result_fini(&r);
    free(prof);
    free(gain);
    free(copy);
    return rc;
}
