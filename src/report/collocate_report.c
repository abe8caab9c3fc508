/*
 * collocate_report.c — `v10sim collocate`'s result: the profiles, clusters,
 * every pair's gain and predictions, and each predictor's accuracy, share of
 * bad pairs caught and worst pick, as a readable table, one JSON document or
 * (the figures alone) CSV, emitted whole or not at all.
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
    v10_format fmt;
} colloc_doc;

/* The paper's accuracies (abstract and §6), in v10_colloc_method_names order. */
static const double paper_accuracy[V10_COLLOC_METHODS] = {0.8473, 0.6491, 0.4483};

static void pair_name(const v10_colloc_result *r, const char *const *names, size_t i, char *buf,
                      size_t n)
{
    snprintf(buf, n, "%s+%s", names[r->pairs[i].a], names[r->pairs[i].b]);
}

static const v10_confusion *confusion_of(const v10_colloc_result *r, int method)
{
    return method == V10_COLLOC_CLUSTER     ? &r->cm_cluster
           : method == V10_COLLOC_HEURISTIC ? &r->cm_heuristic
                                            : &r->cm_random;
}

/* The three figures per method as one table (rendered as text or CSV). */
static v10_tab *figures_tab(const v10_colloc_result *r, const char *const *names)
{
    v10_tab *t = v10_tab_create();
    static const v10_col_spec cols[] = {
        {"method", V10_COL_STR, 0},     {"accuracy", V10_COL_REAL, 4},
        {"bad_caught", V10_COL_REAL, 4}, {"worst_gain", V10_COL_REAL, 3},
        {"worst_pair", V10_COL_STR, 0}, {"picked", V10_COL_INT, 0},
        {"tp", V10_COL_INT, 0},         {"fp", V10_COL_INT, 0},
        {"tn", V10_COL_INT, 0},         {"fn", V10_COL_INT, 0},
        {"paper_accuracy", V10_COL_REAL, 4},
    };
    v10_tab_cols(t, cols, sizeof cols / sizeof cols[0]);
    for (int m = 0; m < V10_COLLOC_METHODS; m++) {
        const v10_colloc_figures *g = &r->fig[m];
        const v10_confusion *cm = confusion_of(r, m);
        char nm[2 * V10_SPEC_MAX + 2] = "-";
        if (g->worst_pair < r->n_pairs)
            pair_name(r, names, g->worst_pair, nm, sizeof nm);
        v10_tab_row(t);
        v10_tab_str(t, v10_colloc_method_names[m]);
        v10_tab_real(t, g->accuracy);
        v10_tab_real(t, g->bad_caught);
        v10_tab_real(t, g->worst_gain);
        v10_tab_str(t, nm);
        v10_tab_int(t, g->picked);
        v10_tab_int(t, cm->tp);
        v10_tab_int(t, cm->fp);
        v10_tab_int(t, cm->tn);
        v10_tab_int(t, cm->fn);
        v10_tab_real(t, paper_accuracy[m]);
    }
    return t;
}

/* A finite number, or null (a figure that is undefined, e.g. no pick). */
static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

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
    cJSON *fig = cJSON_AddObjectToObject(root, "figures");
    for (int m = 0; m < V10_COLLOC_METHODS; m++) {
        const v10_colloc_figures *g = &r->fig[m];
        cJSON *o = cJSON_AddObjectToObject(fig, v10_colloc_method_names[m]);
        cJSON_AddNumberToObject(o, "accuracy", g->accuracy);
        add_num_or_null(o, "bad_caught", g->bad_caught);
        add_num_or_null(o, "worst_gain", g->worst_gain);
        if (g->worst_pair < r->n_pairs) {
            char nm[2 * V10_SPEC_MAX + 2];
            pair_name(r, names, g->worst_pair, nm, sizeof nm);
            cJSON_AddStringToObject(o, "worst_pair", nm);
        } else {
            cJSON_AddNullToObject(o, "worst_pair");
        }
        cJSON_AddNumberToObject(o, "picked", g->picked);
    }
    cJSON_AddNumberToObject(root, "beneficial", r->n_beneficial);
    cJSON_AddNumberToObject(root, "bad_pairs", r->n_bad);
    cJSON_AddNumberToObject(root, "cluster_fallback", r->cluster_fallback);
    cJSON_AddNumberToObject(root, "cluster_fallback_wrong", r->cluster_fallback_wrong);
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
        cJSON_AddNumberToObject(m, "sa_ops", (double)prof[i].n_unit_ops[V10_FU_SA]);
        cJSON_AddNumberToObject(m, "vu_ops", (double)prof[i].n_unit_ops[V10_FU_VU]);
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
        pair_name(r, names, i, nm, sizeof nm);
        cJSON_AddStringToObject(p, "pair", nm);
        cJSON_AddNumberToObject(p, "gain", q->gain);
        cJSON_AddBoolToObject(p, "beneficial", q->truth);
        cJSON_AddNumberToObject(p, "cluster_score", q->score);
        cJSON_AddNumberToObject(p, "score_pairs", q->score_pairs);
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
    /* k-means makes at most one cluster a model (kmeans.c): say so when
     * that is fewer than asked */
    char k[64];
    if (r->km.k == co->k)
        snprintf(k, sizeof k, "%zu", co->k);
    else
        snprintf(k, sizeof k, "%zu (%zu asked, %zu models)", r->km.k, co->k, r->n);
    fprintf(f, "v10sim %s  npu %s  k %s  threshold %.2f  seed %llu  %llu requests/tenant\n"
           "PCA: %zu components explain %.1f%% of the variance\n\n",
           V10_VERSION, base->npu.name, k, co->threshold, (unsigned long long)co->seed,
           (unsigned long long)base->requests, r->pca.k, 100 * r->pca.explained);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec model_cols[] = {
        {"model", V10_COL_STR, 0}, {"sa", V10_COL_REAL, 3}, {"vu", V10_COL_REAL, 3},
        {"hbm", V10_COL_REAL, 3}, {"sa_op_us.mean", V10_COL_REAL, 2},
        {"sa_op_us.min", V10_COL_REAL, 2}, {"sa_op_us.max", V10_COL_REAL, 2},
        {"vu_op_us.mean", V10_COL_REAL, 2}, {"vu_op_us.min", V10_COL_REAL, 2},
        {"vu_op_us.max", V10_COL_REAL, 2}, {"cluster", V10_COL_INT, 0},
    };
    v10_tab_cols(t, model_cols, sizeof model_cols / sizeof model_cols[0]);
    for (size_t i = 0; i < r->n; i++) {
        v10_tab_row(t);
        v10_tab_str(t, names[i]);
        v10_tab_real(t, prof[i].util_sa);
        v10_tab_real(t, prof[i].util_vu);
        v10_tab_real(t, prof[i].util_hbm);
        for (int u = 0; u < V10_FU_COMPUTE; u++) {
            v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_mean_cycles[u]));
            v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_min_cycles[u]));
            v10_tab_real(t, v10_npu_cycles_to_us(&base->npu, prof[i].op_max_cycles[u]));
        }
        v10_tab_int(t, r->cluster[i]);
    }
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "\n");
    t = v10_tab_create();
    static const v10_col_spec pair_cols[] = {
        {"pair", V10_COL_STR, 0}, {"gain", V10_COL_REAL, 3}, {"beneficial", V10_COL_STR, 0},
        {"score", V10_COL_REAL, 3}, {"score_pairs", V10_COL_INT, 0},
        {"clustering", V10_COL_STR, 0},
        {"heuristic", V10_COL_STR, 0}, {"random", V10_COL_STR, 0},
    };
    v10_tab_cols(t, pair_cols, sizeof pair_cols / sizeof pair_cols[0]);
    for (size_t i = 0; i < r->n_pairs; i++) {
        const v10_colloc_pair *q = &r->pairs[i];
        char nm[2 * V10_SPEC_MAX + 2];
        pair_name(r, names, i, nm, sizeof nm);
        v10_tab_row(t);
        v10_tab_str(t, nm);
        v10_tab_real(t, q->gain);
        v10_tab_str(t, q->truth ? "yes" : "no");
        v10_tab_real(t, q->score);
        v10_tab_int(t, q->score_pairs);
        v10_tab_str(t, q->pred_cluster ? "yes" : "no");
        v10_tab_str(t, q->pred_heuristic ? "yes" : "no");
        v10_tab_str(t, q->pred_random ? "yes" : "no");
    }
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "\n%u of %zu pairs beneficial (gain >= %.2f), %u bad.  Leave-two-workloads-out "
               "accuracy, share of the bad pairs caught (predicted not beneficial) and the "
               "worst collocation each method picks (docs/repro.md):\n",
            r->n_beneficial, r->n_pairs, co->threshold, r->n_bad);
    t = figures_tab(r, names);
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "random: one seeded draw; mean accuracy of 1000 draws %.1f%%.\n"
               "clustering: %u of %zu pairs fell in a cluster pair without training pairs "
               "(score_pairs 0; scored by the mean training gain), %u of them wrong.\n",
            100 * r->acc_random_mean, r->cluster_fallback, r->n_pairs,
            r->cluster_fallback_wrong);
    char note[512];
    if (degenerate_note(r, co, note, sizeof note))
        fprintf(f, "note: %s.\n", note);
    return rc;
}


/* Which methods lead on figure v[] (higher is better; NaN never leads):
 * their names joined by " and ", or "none". */
static void leaders(const double *v, char *buf, size_t n)
{
    double best = NAN;
    for (int m = 0; m < V10_COLLOC_METHODS; m++)
        if (!isnan(v[m]) && (isnan(best) || v[m] > best))
            best = v[m];
    snprintf(buf, n, "none");
    size_t len = 0;
    for (int m = 0; m < V10_COLLOC_METHODS; m++)
        if (!isnan(v[m]) && v[m] == best && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " and " : "",
                                    v10_colloc_method_names[m]);
}

int v10_colloc_figures_md(const v10_colloc_result *r, const char *const *names, FILE *f)
{
    fprintf(f, "### Collocation: the paper's three figures (threshold %.2f)\n\n"
               "One leave-two-workloads-out prediction per pair, %zu pairs, %u of them bad "
               "(gain below %.2f×).  Accuracy: predictions that match the simulated truth; "
               "bad pairs caught: the share of the bad pairs predicted not beneficial; worst "
               "collocation: the lowest simulated gain among the pairs a method predicts "
               "beneficial (docs/repro.md).  The paper's values of the last two are not in "
               "this repository's references.\n\n"
               "| method | accuracy | bad pairs caught | worst collocation picked | pairs "
               "picked | paper's accuracy |\n|---|---|---|---|---|---|\n",
            r->threshold, r->n_pairs, r->n_bad, r->threshold);
    double acc[V10_COLLOC_METHODS], caught[V10_COLLOC_METHODS], worst[V10_COLLOC_METHODS];
    for (int m = 0; m < V10_COLLOC_METHODS; m++) {
        const v10_colloc_figures *g = &r->fig[m];
        acc[m] = g->accuracy;
        caught[m] = g->bad_caught;
        worst[m] = g->worst_gain;
        fprintf(f, "| %s | %.1f%% | ", v10_colloc_method_names[m], 100 * g->accuracy);
        if (isnan(g->bad_caught))
            fprintf(f, "— (no bad pair) | ");
        else
            fprintf(f, "%.1f%% (%u of %u) | ", 100 * g->bad_caught, confusion_of(r, m)->tn,
                    r->n_bad);
        if (g->worst_pair < r->n_pairs)
            fprintf(f, "×%.3f (%s+%s) | ", g->worst_gain, names[r->pairs[g->worst_pair].a],
                    names[r->pairs[g->worst_pair].b]);
        else
            fprintf(f, "— (picks none) | ");
        fprintf(f, "%u | %.2f%% |\n", g->picked, 100 * paper_accuracy[m]);
    }
    char la[96], lc[96], lw[96];
    leaders(acc, la, sizeof la);
    leaders(caught, lc, sizeof lc);
    leaders(worst, lw, sizeof lw);
    int paper_order = acc[V10_COLLOC_CLUSTER] > acc[V10_COLLOC_HEURISTIC] &&
                      acc[V10_COLLOC_HEURISTIC] > acc[V10_COLLOC_RANDOM];
    fprintf(f, "\nMost accurate: %s.  Most bad pairs caught: %s.  Least bad worst "
               "collocation: %s.  The paper ranks clustering first in accuracy, then the "
               "heuristic, then random; here the accuracy order %s.  ",
            la, lc, lw, paper_order ? "is the same" : "is not the same");
    unsigned wrong = r->cm_cluster.fp + r->cm_cluster.fn;
    fprintf(f, "Clustering's %u wrong predictions: %u come from a held-out pair whose two "
               "clusters had no training pair between them, scored by the mean training gain "
               "(%u pairs were scored so); %u from a cluster pair whose training pairs' mean "
               "gain fell on the other side of %.2f× than this pair's.\n\n",
            wrong, r->cluster_fallback_wrong, r->cluster_fallback,
            wrong - r->cluster_fallback_wrong, r->threshold);
    return ferror(f) ? -1 : 0;
}

/* CSV: the figures table alone (the per-pair detail is in the JSON). */
static int write_csv(const colloc_doc *d, FILE *f)
{
    v10_tab *t = figures_tab(d->r, d->names);
    int rc = v10_tab_write(t, V10_FMT_CSV, f);
    v10_tab_destroy(t);
    return rc;
}

static int write_doc(const void *ctx, FILE *f)
{
    const colloc_doc *d = ctx;
    return d->fmt == V10_FMT_JSON ? write_json(d, f)
           : d->fmt == V10_FMT_CSV ? write_csv(d, f)
                                   : write_table(d, f);
}

int v10_colloc_report(const v10_colloc_result *r, const v10_profile *prof,
                      const char *const *names, const v10_colloc_opts *co,
                      const v10_run_config *base, v10_format fmt, FILE *f)
{
    colloc_doc d = {r, prof, names, co, base, fmt};
    return v10_doc_emit(write_doc, &d, f);
}
