/*
 * repro.c — the steps of `v10sim repro`'s computation that src/repro/
 * registry.c strings together: set up a workload set (specs, NPU, the
 * pairs), load both sets' models as one pool run, run both sets' batches
 * and standalone profiles as one pool run, evaluate collocation on the
 * all-pairs ground truth, and free it all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro/study.h"
#include "util/pool.h"
#include "v10/cost.h"
#include "v10/pool.h"

/* Item i of repro_load's pool: model m = i % NM of set i / NM, and its
 * figures for the summary. */
static int load_model(void *ctx, size_t i, v10_err *err)
{
    repro *R = ((repro *const *)ctx)[i / NM];
    int m = (int)(i % NM);
    v10_model mod;
    if (v10_model_load(R->spec[m], &R->npu, &mod, err))
        return -1;
    double busy = 0, longer = 0, resident = 0;
    for (size_t j = 0; j < mod.n_ops; j++) {
        const v10_op *op = &mod.ops[j];
        resident = fmax(resident, (double)op->vmem_bytes / (1024.0 * 1024.0));
        R->op_max_cycles[m] = fmax(R->op_max_cycles[m], (double)op->cycles);
        busy += (double)op->cycles;
        longer += op->cycles > R->npu.slice_cycles ? (double)op->cycles : 0;
    }
    R->long_frac[m] = busy > 0 ? longer / busy : 0;
    R->resident_mib[m] = resident;
    v10_profile_of_model(R->spec[m], &R->npu, &mod, &R->prof[m]); /* its solo run's, later */
    v10_model_fini(&mod);
    return 0;
}

/*
 * Loads both sets' models on one pool run: the first load of an isca23
 * model calibrates it (RetinaNet: about a second) into the process-wide
 * cache, which planning then reads on this thread.  One run for the 22,
 * not one per set, so that the other thread loads the rest of both sets
 * while one calibrates RetinaNet, instead of idling until it is done.
 */
int repro_load(repro *R, repro *A, v10_err *err)
{
    repro *X[2] = {R, A};
    char what[64];
    snprintf(what, sizeof what, "repro: loading the %s and %s sets", R->set, A->set);
    v10_pool_spec spec = {.n = 2 * NM, .run = load_model, .ctx = X,
                          .progress = R->o->progress ? what : NULL};
    if (v10_pool_for(&spec, R->o->threads, err))
        return -1;
    /* The span cache takes the standalone lengths the loads measured
     * (v10_profile_of_model), so that planning loads nothing again. */
    for (int s = 0; s < 2; s++)
        for (int m = 0; m < NM; m++) {
            X[s]->max_resident_mib = fmax(X[s]->max_resident_mib, X[s]->resident_mib[m]);
            if (v10_span_add(&X[s]->span, X[s]->spec[m], X[s]->prof[m].alone_cycles, err) < 0)
                return -1;
        }
    return 0;
}

int repro_prepare(repro *R, const v10_repro_opts *o, const char *set, int pairs_only,
                   v10_err *err)
{
    R->o = o;
    R->set = set;
    R->pairs_only = pairs_only;
    for (int m = 0; m < NM; m++)
        snprintf(R->spec[m], sizeof R->spec[m], "%s%s", strcmp(set, "zoo") ? "isca23/" : "",
                 repro_models[m]);
    if (v10_npu_preset("v10-isca23", &R->npu, err))
        return -1;
    v10_span_init(&R->span, &R->npu);
    repro_pairs(R);
    return 0;
}

/* The study of run i of X (the grid whose runs hold it), or -1. */
static int study_of(const repro *X, size_t i)
{
    for (int s = 0; s < N_STUDIES; s++) {
        size_t n = X->dim[s][0] * X->dim[s][1] * X->dim[s][2];
        if (n && i >= X->base[s] && i < X->base[s] + n)
            return s;
    }
    return -1;
}

/*
 * With V10_REPRO_PROFILE=FILE in the environment (bench/repro_profile.sh,
 * docs/benchmarks.md), one line per simulation to FILE: its set, study
 * (or "profile"), policy, tenants, requests, events and engine seconds,
 * tab-separated: where repro's time goes.  Not an output of repro: its
 * seconds are wall-clock time.
 */
static void repro_profile(const repro *const X[2], const v10_run_config *cfgs,
                          const v10_run_result *res, const int *skip, const size_t first[2][2])
{
    const char *path = getenv("V10_REPRO_PROFILE");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    fprintf(f, "set\tstudy\tpolicy\ttenants\trequests\tevents\tseconds\n");
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < X[s]->n + NM; i++) {
            size_t k = i < X[s]->n ? first[s][0] + i : first[s][1] + i - X[s]->n;
            int st = i < X[s]->n ? study_of(X[s], i) : -1;
            if (skip[k])
                continue;
            fprintf(f, "%s\t%s\t%s\t%zu\t%llu\t%llu\t%.6f\n", X[s]->set,
                    st >= 0 ? X[s]->study[st] : "profile", cfgs[k].policy, cfgs[k].n_tenants,
                    (unsigned long long)cfgs[k].requests, (unsigned long long)res[k].events,
                    res[k].wall_seconds);
        }
    fclose(f);
}

/* Where set X's runs go in the one batch of repro_run_batches. */
typedef struct batch_part {
    repro *X;
    size_t runs, profiles; /* first index of its batch's runs, of its NM solo runs */
} batch_part;

/*
 * Runs both sets' batches and the solo runs of their profiles as one pool
 * run: R's runs, then A's, then the 2 x NM short solo runs, handed out by
 * their estimated work, the longest first (v10_pool_job.longest_first), so
 * that the threads end together.  One pool run leaves one core idle once,
 * at its end, where separate runs did at the end of each.  Each result is
 * moved to its set; results depend on their configuration only, so the
 * order changes nothing.
 */
int repro_run_batches(repro *R, repro *A, v10_err *err)
{
    batch_part part[2] = {{R, 0, 0}, {A, R->n, 0}};
    size_t n = R->n + A->n + 2 * NM;
    part[0].profiles = R->n + A->n;
    part[1].profiles = part[0].profiles + NM;
    v10_run_config *cfgs = calloc(n, sizeof *cfgs);
    v10_run_result *res = calloc(n, sizeof *res);
    int *skip = calloc(n, sizeof *skip);
    v10_tenant_spec *solo = calloc(2 * NM, sizeof *solo);
    int rc = -1;
    if (!cfgs || !res || !skip || !solo || !(R->res = calloc(R->n ? R->n : 1, sizeof *R->res)) ||
        !(A->res = calloc(A->n ? A->n : 1, sizeof *A->res))) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (int s = 0; s < 2; s++) {
        repro *X = part[s].X;
        for (size_t i = 0; i < X->n; i++) {
            X->cfgs[i].tenants = &X->specs[i * MAXT]; /* the spec array moved as it grew */
            cfgs[part[s].runs + i] = X->cfgs[i];
            /* A run that takes another's result (X->same) is not run. */
            skip[part[s].runs + i] = X->same[i] != i;
        }
        for (size_t m = 0; m < NM; m++)
            if (v10_profile_config(X->spec[m], &X->npu, &solo[s * NM + m],
                                   &cfgs[part[s].profiles + m], err))
                goto done;
    }
    char what[64];
    snprintf(what, sizeof what, "repro (%s, and %s pairs)", R->set, A->set);
    v10_pool_job job = {.cfgs = cfgs, .results = res, .n = n, .skip = skip,
                        .threads = R->o->threads, .progress = R->o->progress ? what : NULL,
                        .weigh = 1, .longest_first = 1};
    if (v10_pool_run(&job, err))
        goto done;
    const repro *X2[2] = {R, A};
    const size_t first[2][2] = {{part[0].runs, part[0].profiles}, {part[1].runs, part[1].profiles}};
    repro_profile(X2, cfgs, res, skip, first);
    for (int s = 0; s < 2; s++) {
        repro *X = part[s].X;
        /* The results' arrays move with them: res[] keeps no owner. */
        memcpy(X->res, &res[part[s].runs], X->n * sizeof *X->res);
        memset(&res[part[s].runs], 0, X->n * sizeof *res);
    }
    /* The profiles' model halves were taken as repro_load loaded them. */
    for (int s = 0; s < 2; s++)
        for (size_t m = 0; m < NM; m++)
            v10_profile_of_run(&res[part[s].profiles + m], &part[s].X->prof[m]);
    rc = 0;
done:
    for (size_t i = 0; res && i < n; i++)
        v10_run_result_fini(&res[i]);
    free(res);
    free(solo);
    free(skip);
    free(cfgs);
    return rc;
}

/* Collocation from the all-pairs ground truth, at the paper's threshold
 * and at the median gain (a balanced problem). */
int repro_collocation(repro *R, v10_err *err)
{
    double gain[NM * NM] = {0};
    for (size_t p = 0; p < NPAIR; p++) {
        int a = R->pairs[p].a, b = R->pairs[p].b;
        gain[a * NM + b] = gain[b * NM + a] = repro_pair_gain(R, p);
    }
    v10_colloc_opts co;
    v10_colloc_opts_default(&co);
    co.seed = R->o->seed;
    if (v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col, err))
        return -1;
    co.threshold = R->col.gain_median;
    return v10_colloc_evaluate(R->prof, NM, gain, &co, &R->col_med, err);
}

static void repro_free(repro *R)
{
    if (!R)
        return;
    if (R->res)
        for (size_t i = 0; i < R->n; i++)
            v10_run_result_fini(&R->res[i]);
    v10_span_fini(&R->span);
    v10_colloc_result_fini(&R->col);
    v10_colloc_result_fini(&R->col_med);
    free(R->res);
    free(R->cfgs);
    free(R->specs);
    free(R->same);
    free(R);
}

void v10_repro_destroy(v10_repro *R)
{
    if (!R)
        return;
    repro_free(R->alt);
    repro_free(R);
}
