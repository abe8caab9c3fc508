/*
 * cmd_collocate.c — `v10sim collocate`: profiles the models, simulates every
 * pair under PMT and V10-Full for the ground truth, and evaluates
 * clustering-based collocation against a heuristic and random prediction.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/json.h"
#include "v10/colloc.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim collocate [--format table|json] [--k K] [--threshold X] [options]\n\n"
        "Clustering-based collocation (V10 paper, section 5): profiles every model alone\n"
        "(SA and VU utilization, HBM bandwidth, operator length mean/min/max), standardizes,\n"
        "reduces with PCA and clusters with k-means; scores cluster pairs from training\n"
        "pairs; predicts 'beneficial' (STP under v10-full >= X times under pmt) for unseen\n"
        "pairs.  Evaluated leave-two-workloads-out over all pairs against the simulated\n"
        "ground truth, beside a utilization heuristic (SA-heavy + VU-heavy) and a seeded\n"
        "coin per pair.\n\n"
        "options:\n"
        "  --format F       table (default) or json\n"
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

static cJSON *confusion_json(const v10_confusion *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tp", c->tp);
    cJSON_AddNumberToObject(o, "fp", c->fp);
    cJSON_AddNumberToObject(o, "tn", c->tn);
    cJSON_AddNumberToObject(o, "fn", c->fn);
    return o;
}

/*
 * With no pair (or every pair) beneficial at the threshold, "never" (or
 * "always") is right every time and the accuracies measure nothing: writes
 * a note saying so, with the median gain as a threshold that splits the
 * pairs in half (rounded down, so that the median pair stays beneficial).
 * Returns 0 and writes nothing when the threshold splits the pairs.
 */
static int degenerate_note(const v10_colloc_result *r, const v10_colloc_opts *co, char *buf,
                           size_t n)
{
    if (r->n_beneficial != 0 && r->n_beneficial != r->n_pairs)
        return 0;
    snprintf(buf, n, "%s pair reaches the threshold %.2f (gains %.3f to %.3f), so predicting "
                     "'%s' for every pair scores 100%%: the accuracies say nothing.  Try "
                     "--threshold %.3f, the median gain, which makes about half the pairs "
                     "beneficial",
             r->n_beneficial ? "every" : "no", co->threshold, r->gain_min, r->gain_max,
             r->n_beneficial ? "yes" : "no", floor(r->gain_median * 1000) / 1000);
    return 1;
}

static int print_json(const v10_colloc_result *r, const v10_profile *prof, const char **names,
                      const v10_colloc_opts *co, const v10_run_config *base)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", V10_VERSION);
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(cfg, "npu", base->npu.name);
    cJSON_AddNumberToObject(cfg, "k", (double)co->k);
    cJSON_AddNumberToObject(cfg, "threshold", co->threshold);
    cJSON_AddNumberToObject(cfg, "seed", (double)co->seed);
    cJSON_AddNumberToObject(cfg, "requests", (double)base->requests);
    cJSON_AddNumberToObject(cfg, "pca_components", (double)r->pca.k);
    cJSON_AddNumberToObject(cfg, "pca_explained", r->pca.explained);
    cJSON *acc = cJSON_AddObjectToObject(root, "accuracy");
    cJSON_AddNumberToObject(acc, "clustering", r->acc_cluster);
    cJSON_AddNumberToObject(acc, "heuristic", r->acc_heuristic);
    cJSON_AddNumberToObject(acc, "random", r->acc_random);
    cJSON_AddNumberToObject(acc, "random_mean", r->acc_random_mean);
    cJSON *cm = cJSON_AddObjectToObject(root, "confusion");
    cJSON_AddItemToObject(cm, "clustering", confusion_json(&r->cm_cluster));
    cJSON_AddItemToObject(cm, "heuristic", confusion_json(&r->cm_heuristic));
    cJSON_AddItemToObject(cm, "random", confusion_json(&r->cm_random));
    cJSON_AddNumberToObject(root, "beneficial", r->n_beneficial);
    cJSON_AddNumberToObject(root, "pairs_total", (double)r->n_pairs);
    cJSON_AddNumberToObject(root, "gain_median", r->gain_median);
    char note[512];
    if (degenerate_note(r, co, note, sizeof note))
        cJSON_AddStringToObject(root, "note", note);
    else
        cJSON_AddNullToObject(root, "note");
    cJSON *ms = cJSON_AddArrayToObject(root, "models");
    for (size_t i = 0; i < r->n; i++) {
        cJSON *m = cJSON_CreateObject();
        double f[V10_PROFILE_FEATS];
        v10_profile_features(&prof[i], f);
        cJSON_AddStringToObject(m, "model", names[i]);
        for (int j = 0; j < V10_PROFILE_FEATS; j++)
            cJSON_AddNumberToObject(m, v10_profile_feature_names[j], f[j]);
        cJSON_AddNumberToObject(m, "cluster", r->cluster[i]);
        cJSON_AddBoolToObject(m, "sa_heavy", r->sa_heavy[i]);
        cJSON *pc = cJSON_AddArrayToObject(m, "pca");
        for (size_t j = 0; j < r->pca.k; j++)
            cJSON_AddItemToArray(pc, cJSON_CreateNumber(r->coord[i][j]));
        cJSON_AddItemToArray(ms, m);
    }
    cJSON *ps = cJSON_AddArrayToObject(root, "pairs");
    for (size_t i = 0; i < r->n_pairs; i++) {
        const v10_colloc_pair *q = &r->pairs[i];
        cJSON *p = cJSON_CreateObject();
        char nm[2 * V10_SPEC_MAX + 2];
        snprintf(nm, sizeof nm, "%s+%s", names[q->a], names[q->b]);
        cJSON_AddStringToObject(p, "pair", nm);
        cJSON_AddNumberToObject(p, "gain", q->gain);
        cJSON_AddBoolToObject(p, "beneficial", q->truth);
        cJSON_AddNumberToObject(p, "cluster_score", q->score);
        cJSON_AddBoolToObject(p, "clustering", q->pred_cluster);
        cJSON_AddBoolToObject(p, "heuristic", q->pred_heuristic);
        cJSON_AddBoolToObject(p, "random", q->pred_random);
        cJSON_AddItemToArray(ps, p);
    }
    char *s = v10_json_print(root, 1);
    cJSON_Delete(root);
    if (!s)
        return V10_EXIT_FAIL;
    puts(s);
    free(s);
    return V10_EXIT_OK;
}

static void print_table(const v10_colloc_result *r, const v10_profile *prof, const char **names,
                        const v10_colloc_opts *co, const v10_run_config *base)
{
    printf("v10sim %s  npu %s  k %zu  threshold %.2f  seed %llu  %llu requests/tenant\n"
           "PCA: %zu components explain %.1f%% of the variance\n\n",
           V10_VERSION, base->npu.name, co->k, co->threshold, (unsigned long long)co->seed,
           (unsigned long long)base->requests, r->pca.k, 100 * r->pca.explained);
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "model", V10_COL_STR, 0);
    v10_tab_col(t, "sa", V10_COL_REAL, 3);
    v10_tab_col(t, "vu", V10_COL_REAL, 3);
    v10_tab_col(t, "hbm", V10_COL_REAL, 3);
    v10_tab_col(t, "op_us.mean", V10_COL_REAL, 2);
    v10_tab_col(t, "op_us.min", V10_COL_REAL, 2);
    v10_tab_col(t, "op_us.max", V10_COL_REAL, 2);
    v10_tab_col(t, "cluster", V10_COL_INT, 0);
    for (size_t i = 0; i < r->n; i++) {
        v10_tab_row(t);
        v10_tab_str(t, names[i]);
        v10_tab_real(t, prof[i].util_sa);
        v10_tab_real(t, prof[i].util_vu);
        v10_tab_real(t, prof[i].util_hbm);
        v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_mean_cycles));
        v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_min_cycles));
        v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_max_cycles));
        v10_tab_int(t, r->cluster[i]);
    }
    v10_tab_write(t, V10_FMT_TABLE, stdout);
    v10_tab_destroy(t);
    printf("\n");
    t = v10_tab_create();
    v10_tab_col(t, "pair", V10_COL_STR, 0);
    v10_tab_col(t, "gain", V10_COL_REAL, 3);
    v10_tab_col(t, "beneficial", V10_COL_STR, 0);
    v10_tab_col(t, "score", V10_COL_REAL, 3);
    v10_tab_col(t, "clustering", V10_COL_STR, 0);
    v10_tab_col(t, "heuristic", V10_COL_STR, 0);
    v10_tab_col(t, "random", V10_COL_STR, 0);
    for (size_t i = 0; i < r->n_pairs; i++) {
        const v10_colloc_pair *q = &r->pairs[i];
        char nm[2 * V10_SPEC_MAX + 2];
        snprintf(nm, sizeof nm, "%s+%s", names[q->a], names[q->b]);
        v10_tab_row(t);
        v10_tab_str(t, nm);
        v10_tab_real(t, q->gain);
        v10_tab_str(t, q->truth ? "yes" : "no");
        v10_tab_real(t, q->score);
        v10_tab_str(t, q->pred_cluster ? "yes" : "no");
        v10_tab_str(t, q->pred_heuristic ? "yes" : "no");
        v10_tab_str(t, q->pred_random ? "yes" : "no");
    }
    v10_tab_write(t, V10_FMT_TABLE, stdout);
    v10_tab_destroy(t);
    printf("\n%u of %zu pairs beneficial (gain >= %.2f).  Leave-two-workloads-out accuracy "
           "(tp/fp/tn/fn):\n"
           "  clustering  %5.1f%%  (%u/%u/%u/%u)   paper 84.73%%\n"
           "  heuristic   %5.1f%%  (%u/%u/%u/%u)   paper 64.91%%\n"
           "  random      %5.1f%%  (%u/%u/%u/%u)   paper 44.83%%; mean of 1000 draws %.1f%%\n",
           r->n_beneficial, r->n_pairs, co->threshold, 100 * r->acc_cluster, r->cm_cluster.tp,
           r->cm_cluster.fp, r->cm_cluster.tn, r->cm_cluster.fn, 100 * r->acc_heuristic,
           r->cm_heuristic.tp, r->cm_heuristic.fp, r->cm_heuristic.tn, r->cm_heuristic.fn,
           100 * r->acc_random, r->cm_random.tp, r->cm_random.fp, r->cm_random.tn,
           r->cm_random.fn, 100 * r->acc_random_mean);
    char note[512];
    if (degenerate_note(r, co, note, sizeof note))
        printf("note: %s.\n", note);
}

int cmd_collocate(int argc, char **argv)
{
    v10_format fmt = V10_FMT_TABLE;
    v10_colloc_opts co;
    v10_colloc_opts_default(&co);
    v10_run_config base;
    v10_run_config_default(&base);
    base.requests = 12;
    base.warmup = 2;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)ncpu : 1;
    const char *model_arg = NULL;
    v10_err err;
    unsigned long long u;
    optind = 1;
    opterr = 0; /* cli_bad_option says what was wrong, once */
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_FMT:
            if (cli_format("collocate", optarg, &fmt))
                return V10_EXIT_USAGE;
            if (fmt == V10_FMT_CSV)
                return cli_usage_error("collocate", "--format: expected table or json");
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
            if (cli_u64("collocate", "--seed", optarg, 0, UINT64_MAX, &u))
                return V10_EXIT_USAGE;
            co.seed = base.seed = u;
            break;
        case O_MODELS: model_arg = optarg; break;
        case O_NPU:
            if (v10_npu_resolve(optarg, &base.npu, &err))
                return cli_fail(&err);
            break;
        case O_REQ:
            if (cli_u64("collocate", "--requests", optarg, 2, 100000, &u))
                return V10_EXIT_USAGE;
            base.requests = u;
            base.warmup = u / 6;
            break;
        case 'j':
            if (cli_u64("collocate", "-j", optarg, 1, 256, &u))
                return V10_EXIT_USAGE;
            threads = (int)u;
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
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            if (n == 64) {
                free(copy);
                return cli_usage_error("collocate", "--models: at most 64 models");
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
    if (fmt == V10_FMT_JSON)
        rc = print_json(&r, prof, names, &co, &base);
    else {
        print_table(&r, prof, names, &co, &base);
        rc = V10_EXIT_OK;
    }
    if (fflush(stdout) != 0)
        rc = V10_EXIT_FAIL;
out:
    v10_colloc_result_fini(&r);
    free(prof);
    free(gain);
    free(copy);
    return rc;
}
