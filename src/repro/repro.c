/*
 * repro.c — the steps of `v10sim repro`'s computation that src/repro/
 * registry.c strings together: set up a workload set (specs, NPU, standalone
 * profiles, the pairs), run its batch on the thread pool, evaluate
 * collocation on the all-pairs ground truth, and free it all.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro/study.h"
#include "v10/cost.h"
#include "v10/pool.h"

int repro_prepare(repro *R, const v10_repro_opts *o, const char *set, int pairs_only,
                   v10_err *err)
{
    R->o = o;
    R->set = set;
    R->pairs_only = pairs_only;
    /* Requests of the longest tenant of a run (shorter ones keep the load
     * up meanwhile), raised for short runs to span several PMT slices. */
    R->requests = o->quick ? 3 : 12;
    R->warmup = o->quick ? 1 : 2;
    const char *specs[NM];
    for (int m = 0; m < NM; m++) {
        snprintf(R->spec[m], sizeof R->spec[m], "%s%s", strcmp(set, "zoo") ? "isca23/" : "",
                 repro_models[m]);
        specs[m] = R->spec[m];
    }
    if (v10_npu_preset("v10-isca23", &R->npu, err))
        return -1;
    v10_span_init(&R->span, &R->npu);
    char what[64];
    snprintf(what, sizeof what, "repro: profiling the %s set", set);
    if (v10_profile_models(specs, NM, &R->npu, o->threads, o->progress ? what : NULL, R->prof,
                           err))
        return -1;
    for (int m = 0; m < NM; m++) {
        v10_model mod;
        if (v10_model_load(specs[m], &R->npu, &mod, err))
            return -1;
        double busy = 0, longer = 0;
        for (size_t j = 0; j < mod.n_ops; j++) {
            const v10_op *op = &mod.ops[j];
            R->max_resident_mib = fmax(R->max_resident_mib,
                                       (double)op->vmem_bytes / (1024.0 * 1024.0));
            R->op_max_cycles[m] = fmax(R->op_max_cycles[m], (double)op->cycles);
            busy += (double)op->cycles;
            longer += op->cycles > R->npu.slice_cycles ? (double)op->cycles : 0;
        }
        R->long_frac[m] = busy > 0 ? longer / busy : 0;
        v10_model_fini(&mod);
    }
    repro_pairs(R);
    return 0;
}

int repro_run_batch(repro *R, v10_err *err)
{
    for (size_t i = 0; i < R->n; i++) /* the spec array moved as it grew */
        R->cfgs[i].tenants = &R->specs[i * MAXT];
    R->res = calloc(R->n ? R->n : 1, sizeof *R->res);
    if (!R->res)
        return v10_err_set(err, "out of memory");
    char what[64];
    snprintf(what, sizeof what, "repro (%s%s)", R->set, R->pairs_only ? ", pairs" : "");
    /* A run that takes another's result (R->same) is not run. */
    int *skip = calloc(R->n ? R->n : 1, sizeof *skip);
    if (!skip)
        return v10_err_set(err, "out of memory");
    for (size_t i = 0; i < R->n; i++)
        skip[i] = R->same[i] != i;
    v10_pool_job job = {.cfgs = R->cfgs, .results = R->res, .n = R->n, .skip = skip,
                        .threads = R->o->threads, .progress = R->o->progress ? what : NULL,
                        .weigh = 1};
    int rc = v10_pool_run(&job, err);
    free(skip);
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
