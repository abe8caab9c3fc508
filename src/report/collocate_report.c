/*
 * collocate_report.c — `v10sim collocate`'s result: the profiles, clusters,
 * every pair's gain and predictions, and the predictors' accuracies, as a
 * readable table or one JSON document, emitted whole or not at all.
 */
#include <math.h>
#include <stdlib.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/colloc.h"

typedef struct colloc_doc {
    const v10_colloc_result *r;
    const v10_profile *prof;
    const char *const *names;
    const v10_colloc_opts *co;
    const v10_run_config *base;
    int fmt_json;  /* else the table */
} colloc_doc;

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

static int write_json(const colloc_doc *d, FILE *f)
{
    const v10_colloc_result *r = d->r;
    const v10_profile *prof = d->prof;
    const char *const *names = d->names;
    const v10_colloc_opts *co = d->co;
    const v10_run_config *base = d->base;
    unsigned mark = v10_json_mark();
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", V10_VERSION);
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(cfg, "npu", base->npu.name);
    cJSON_AddNumberToObject(cfg, "k", (double)co->k);
    cJSON_AddNumberToObject(cfg, "threshold", co->threshold);
    v10_json_add(cfg, "seed", v10_json_u64(co->seed));
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
        double feat[V10_PROFILE_FEATS];
        v10_profile_features(&prof[i], feat);
        cJSON_AddStringToObject(m, "model", names[i]);
        for (int j = 0; j < V10_PROFILE_FEATS; j++)
            cJSON_AddNumberToObject(m, v10_profile_feature_names[j], feat[j]);
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
    return v10_doc_json(root, mark, f); /* never a document with holes */
}

static int write_table(const colloc_doc *d, FILE *f)
{
    const v10_colloc_result *r = d->r;
    const v10_profile *prof = d->prof;
    const char *const *names = d->names;
    const v10_colloc_opts *co = d->co;
    const v10_run_config *base = d->base;
    int rc = 0;
    fprintf(f, "v10sim %s  npu %s  k %zu  threshold %.2f  seed %llu  %llu requests/tenant\n"
           "PCA: %zu components explain %.1f%% of the variance\n\n",
           V10_VERSION, base->npu.name, co->k, co->threshold, (unsigned long long)co->seed,
           (unsigned long long)base->requests, r->pca.k, 100 * r->pca.explained);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec model_cols[] = {
        {"model", V10_COL_STR, 0}, {"sa", V10_COL_REAL, 3}, {"vu", V10_COL_REAL, 3},
        {"hbm", V10_COL_REAL, 3}, {"op_us.mean", V10_COL_REAL, 2},
        {"op_us.min", V10_COL_REAL, 2}, {"op_us.max", V10_COL_REAL, 2},
        {"cluster", V10_COL_INT, 0},
    };
    v10_tab_cols(t, model_cols, sizeof model_cols / sizeof model_cols[0]);
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
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "\n");
    t = v10_tab_create();
    static const v10_col_spec pair_cols[] = {
        {"pair", V10_COL_STR, 0}, {"gain", V10_COL_REAL, 3}, {"beneficial", V10_COL_STR, 0},
        {"score", V10_COL_REAL, 3}, {"clustering", V10_COL_STR, 0},
        {"heuristic", V10_COL_STR, 0}, {"random", V10_COL_STR, 0},
    };
    v10_tab_cols(t, pair_cols, sizeof pair_cols / sizeof pair_cols[0]);
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
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "\n%u of %zu pairs beneficial (gain >= %.2f).  Leave-two-workloads-out accuracy "
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
        fprintf(f, "note: %s.\n", note);
    return rc;
}


static int write_doc(const void *ctx, FILE *f)
{
    const colloc_doc *d = ctx;
    return d->fmt_json ? write_json(d, f) : write_table(d, f);
}

int v10_colloc_report(const v10_colloc_result *r, const v10_profile *prof,
                      const char *const *names, const v10_colloc_opts *co,
                      const v10_run_config *base, v10_format fmt, FILE *f)
{
    colloc_doc d = {r, prof, names, co, base, fmt == V10_FMT_JSON};
    return v10_doc_emit(write_doc, &d, f);
}
