/*
 * validate.c — the zoo's models against the V10 paper's measured TPUv2
 * profiles (v10/validate.h): every model x batch row the profiles hold,
 * built, costed alone and compared; and the fit of the cost model's
 * global constants on the rows of batches 1, 32 and 512.
 */
#include "v10/validate.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"

extern const char v10_isca23_utilization_csv[];

#define PROFILES "data/tpu-profiles/utilization.csv"

/* The batches the paper profiled (Figures 3-5 and 7). */
static const uint32_t BATCHES[] = {1, 8, 32, 64, 128, 256, 512, 1024, 2048};
#define N_BATCHES (sizeof BATCHES / sizeof *BATCHES)

static int fit_batch(uint32_t b)
{
    static const uint32_t fit[] = V10_VAL_FIT_BATCHES;
    for (size_t i = 0; i < sizeof fit / sizeof *fit; i++)
        if (fit[i] == b)
            return 1;
    return 0;
}

/* The measured rows, in model then batch order: their model, batch and
 * figures; the sim fields are left for fill_sim.  -1 with err set. */
static int measured_rows(v10_val_row **rows, size_t *n, v10_err *err)
{
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    for (size_t i = 0; v10_isca23_names[i]; i++)
        for (size_t j = 0; j < N_BATCHES; j++) {
            v10_profile p;
            v10_profile_init(&p);
            int found = v10_profile_merge_text(v10_isca23_utilization_csv, PROFILES,
                                               v10_isca23_names[i], BATCHES[j], &p, err);
            if (found < 0)
                goto fail;
            if (!found)
                continue;
            if (*n == cap) {
                cap = cap ? 2 * cap : 64;
                v10_val_row *r = realloc(*rows, cap * sizeof *r);
                if (!r) {
                    v10_err_set(err, "validate: out of memory");
                    goto fail;
                }
                *rows = r;
            }
            v10_val_row *r = &(*rows)[(*n)++];
            memset(r, 0, sizeof *r);
            snprintf(r->model, sizeof r->model, "%s", v10_isca23_names[i]);
            r->batch = BATCHES[j];
            r->fitted = fit_batch(r->batch);
            r->tpu[V10_VAL_SA] = p.sa_busy;
            r->tpu[V10_VAL_VU] = p.vu_busy;
            r->tpu[V10_VAL_HBM] = p.hbm_util;
            r->tpu[V10_VAL_FLOPS] = p.flops_util;
        }
    return 0;
fail:
    free(*rows);
    *rows = NULL;
    *n = 0;
    return -1;
}

/* The simulated figures of r from m, costed on npu. */
static void fill_sim(v10_val_row *r, const v10_model *m, const v10_npu *npu)
{
    double fu[V10_FU_TYPES] = {0, 0}, bytes = 0, macs = 0;
    uint64_t ops[V10_FU_TYPES] = {0, 0};
    for (size_t k = 0; k < m->n_ops; k++) {
        const v10_op *op = &m->ops[k];
        fu[op->fu] += (double)op->cycles;
        ops[op->fu]++;
        bytes += (double)op->hbm_bytes + (double)op->spill_bytes;
        if (op->fu == V10_FU_SA)
            macs += (double)op->macs;
    }
    double total = fu[V10_FU_SA] + fu[V10_FU_VU];
    double peak = (double)npu->sa_count * npu->sa_rows * npu->sa_cols;
    r->sim[V10_VAL_SA] = total > 0 ? fu[V10_FU_SA] / total : 0;
    r->sim[V10_VAL_VU] = total > 0 ? fu[V10_FU_VU] / total : 0;
    r->sim[V10_VAL_HBM] = total > 0 ? bytes / (total * v10_npu_hbm_bytes_per_cycle(npu)) : 0;
    r->sim[V10_VAL_FLOPS] = total > 0 ? macs / (total * peak) : 0;
    r->sa_ops = ops[V10_FU_SA];
    r->vu_ops = ops[V10_FU_VU];
    r->latency_us = v10_npu_cycles_to_us(npu, total);
}

static int build(const v10_val_row *r, v10_model *m, v10_err *err)
{
    if (v10_zoo_build(r->model, r->batch, m, err))
        return v10_err_prefix(err, "validate %s at batch %u", r->model, r->batch);
    return 0;
}

int v10_validate(const v10_npu *npu, v10_val_row **rows, size_t *n_rows,
                 void (*progress)(size_t, size_t, void *), void *ctx, v10_err *err)
{
    if (measured_rows(rows, n_rows, err))
        return -1;
    for (size_t i = 0; i < *n_rows; i++) {
        v10_val_row *r = &(*rows)[i];
        v10_model m;
        if (build(r, &m, err) || v10_cost_model(npu, &m, err)) {
            if (m.ops)
                v10_model_fini(&m);
            free(*rows);
            *rows = NULL;
            *n_rows = 0;
            return -1;
        }
        fill_sim(r, &m, npu);
        v10_model_fini(&m);
        if (progress)
            progress(i + 1, *n_rows, ctx);
    }
    return 0;
}

void v10_validate_summarize(const v10_val_row *rows, size_t n, v10_val_summary *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < V10_VAL_N; k++) {
            if (isnan(rows[i].tpu[k]))
                continue;
            double e = 100 * fabs(rows[i].sim[k] - rows[i].tpu[k]);
            int set = rows[i].fitted ? V10_VAL_FITTED : V10_VAL_HELD_OUT;
            s->mean[V10_VAL_ALL][k] += e;
            s->mean[set][k] += e;
            s->n[V10_VAL_ALL][k]++;
            s->n[set][k]++;
            if (e > s->max[k]) {
                s->max[k] = e;
                s->max_row[k] = i;
            }
        }
    for (int set = 0; set < V10_VAL_SETS; set++)
        for (int k = 0; k < V10_VAL_N; k++)
            s->mean[set][k] = s->n[set][k] ? s->mean[set][k] / (double)s->n[set][k] : NAN;
}

/* ---- the fit ---- */

#define P(k, lo, hi) {#k, offsetof(v10_npu, k), lo, hi}
const v10_val_param v10_val_params[] = {
    P(issue_cycles, 1, 1u << 16),
    P(vu_issue_cycles, 1, 1u << 16),
    P(vu_xlu_cycles, 1, 1u << 8),
    P(dma_row_cycles, 1, 1u << 10),
};
#undef P
const size_t v10_val_n_params = sizeof v10_val_params / sizeof *v10_val_params;

static uint32_t *param(v10_npu *npu, size_t i)
{
    return (uint32_t *)(void *)((char *)npu + v10_val_params[i].offset);
}

/* The fit's objective at npu over the fitted rows and their built models. */
static int objective(const v10_npu *npu, v10_val_row *rows, v10_model *models, size_t n,
                     double *out, v10_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (v10_cost_model(npu, &models[i], err))
            return -1;
        fill_sim(&rows[i], &models[i], npu);
    }
    v10_val_summary s;
    v10_validate_summarize(rows, n, &s);
    *out = s.mean[V10_VAL_ALL][V10_VAL_SA] + s.mean[V10_VAL_ALL][V10_VAL_VU] +
           s.mean[V10_VAL_ALL][V10_VAL_HBM];
    return 0;
}

/* The multiplicative steps coordinate descent tries, coarse to fine. */
static const double STEPS[] = {4, 2, 1.41421356, 1.18920712, 1.09050773};
#define N_STEPS (sizeof STEPS / sizeof *STEPS)

int v10_validate_fit(v10_npu *npu, void (*progress)(size_t, double, void *), void *ctx,
                     v10_err *err)
{
    v10_val_row *all, *rows = NULL;
    v10_model *models = NULL;
    size_t n_all, n = 0, evals = 0;
    int rc = -1;
    if (measured_rows(&all, &n_all, err))
        return -1;
    rows = calloc(n_all ? n_all : 1, sizeof *rows);
    models = calloc(n_all ? n_all : 1, sizeof *models);
    if (!rows || !models) {
        v10_err_set(err, "validate: out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_all; i++)
        if (all[i].fitted) {
            rows[n] = all[i];
            if (build(&rows[n], &models[n], err))
                goto out;
            n++;
        }
    double best;
    if (objective(npu, rows, models, n, &best, err))
        goto out;
    evals++;
    if (progress)
        progress(evals, best, ctx);
    for (size_t s = 0; s < N_STEPS; s++) {
        int moved = 1;
        while (moved) {
            moved = 0;
            for (size_t p = 0; p < v10_val_n_params; p++) {
                for (int dir = 0; dir < 2; dir++) {
                    uint32_t was = *param(npu, p);
                    double v = dir ? was * STEPS[s] : was / STEPS[s];
                    v = fmax(v10_val_params[p].min, fmin(v10_val_params[p].max, round(v)));
                    if ((uint32_t)v == was)
                        continue;
                    *param(npu, p) = (uint32_t)v;
                    double obj;
                    if (objective(npu, rows, models, n, &obj, err))
                        goto out;
                    evals++;
                    if (obj < best - 1e-9) {
                        best = obj;
                        moved = 1;
                    } else {
                        *param(npu, p) = was;
                    }
                    if (progress)
                        progress(evals, best, ctx);
                }
            }
        }
    }
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        v10_model_fini(&models[i]);
    free(models);
    free(rows);
    free(all);
    return rc;
}
