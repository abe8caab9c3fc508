/*
 * profile.c — a model's standalone profile (paper §5): utilizations from a
 * solo run, operator lengths from the cost model, and the feature vector
 * that collocation clusters on.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v10/colloc.h"
#include "v10/cost.h"
#include "v10/pool.h"

const char *const v10_profile_feature_names[V10_PROFILE_FEATS] = {
    "util_sa",          "util_vu",         "util_hbm",
    "log10_sa_op_mean", "log10_sa_op_min", "log10_sa_op_max",
    "log10_vu_op_mean", "log10_vu_op_min", "log10_vu_op_max",
};

static double log_len(double cycles)
{
    return log10(cycles > 1 ? cycles : 1);
}

void v10_profile_features(const v10_profile *p, double *f)
{
    f[0] = p->util_sa;
    f[1] = p->util_vu;
    f[2] = p->util_hbm;
    for (int u = 0; u < V10_FU_COMPUTE; u++) {
        f[3 + 3 * u] = log_len(p->op_mean_cycles[u]);
        f[4 + 3 * u] = log_len(p->op_min_cycles[u]);
        f[5 + 3 * u] = log_len(p->op_max_cycles[u]);
    }
}

/* A small local helper for now: the model IR is getting a shared per-unit
 * length-statistics function (issue 22, item 2); this one can then call it. */
void v10_profile_op_lengths(const v10_op *ops, size_t n, v10_profile *p)
{
    for (int u = 0; u < V10_FU_COMPUTE; u++) {
        double sum = 0, lo = INFINITY, hi = 0;
        size_t cnt = 0;
        for (size_t j = 0; j < n; j++) {
            if ((int)ops[j].fu != u)
                continue;
            double c = (double)ops[j].cycles;
            sum += c;
            lo = fmin(lo, c);
            hi = fmax(hi, c);
            cnt++;
        }
        p->n_unit_ops[u] = cnt;
        p->op_mean_cycles[u] = cnt ? sum / (double)cnt : 0;
        p->op_min_cycles[u] = cnt ? lo : 0;
        p->op_max_cycles[u] = hi;
    }
}

double v10_profile_pair_bound(const v10_profile *a, const v10_profile *b)
{
    double m = 1;
    m = fmax(m, a->util_sa + b->util_sa);
    m = fmax(m, a->util_vu + b->util_vu);
    m = fmax(m, a->util_hbm + b->util_hbm);
    return 2 / m;
}

int v10_profile_config(const char *spec, const v10_npu *npu, v10_tenant_spec *ts,
                       v10_run_config *cfg, v10_err *err)
{
    if (v10_tenant_spec_parse(spec, ts, err))
        return -1;
    v10_run_config_default(cfg);
    cfg->npu = *npu;
    snprintf(cfg->policy, sizeof cfg->policy, "solo");
    cfg->tenants = ts;
    cfg->n_tenants = 1;
    cfg->requests = 2;
    cfg->warmup = 0;
    cfg->no_attribution = 1; /* a profile reads no state of the tenant's time */
    return 0;
}

void v10_profile_of_model(const char *spec, const v10_npu *npu, const v10_model *m,
                          v10_profile *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->model, sizeof out->model, "%s", spec);
    v10_profile_op_lengths(m->ops, m->n_ops, out);
    out->n_ops = m->n_ops;
    out->alone_cycles = v10_cost_alone_cycles(npu, m);
}

void v10_profile_of_run(const v10_run_result *res, v10_profile *out)
{
    out->util_sa = res->util_sa;
    out->util_vu = res->util_vu;
    out->util_hbm = res->util_hbm;
}

int v10_profile_finish(const char *spec, const v10_npu *npu, const v10_run_result *res,
                       v10_profile *out, v10_err *err)
{
    v10_tenant_spec ts;
    v10_model m;
    if (v10_tenant_spec_parse(spec, &ts, err) || v10_model_load(ts.model, npu, &m, err))
        return -1;
    v10_profile_of_model(spec, npu, &m, out);
    v10_model_fini(&m);
    v10_profile_of_run(res, out);
    return 0;
}

int v10_profile_models(const char *const *specs, size_t n, const v10_npu *npu, int threads,
                       const char *progress, v10_profile *out, v10_err *err)
{
    v10_tenant_spec *ts = calloc(n ? n : 1, sizeof *ts);
    v10_run_config *cfgs = calloc(n ? n : 1, sizeof *cfgs);
    v10_run_result *res = calloc(n ? n : 1, sizeof *res);
    int rc = -1;
    if (!ts || !cfgs || !res) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (v10_profile_config(specs[i], npu, &ts[i], &cfgs[i], err))
            goto done;
    v10_pool_job job = {.cfgs = cfgs, .results = res, .n = n, .threads = threads,
                        .progress = progress};
    if (v10_pool_run(&job, err))
        goto done;
    /* The runs loaded (and calibrated) the models on the pool's threads;
     * loading them again here reads the cache. */
    for (size_t i = 0; i < n; i++)
        if (v10_profile_finish(specs[i], npu, &res[i], &out[i], err))
            goto done;
    rc = 0;
done:
    if (res)
        for (size_t i = 0; i < n; i++)
            v10_run_result_fini(&res[i]);
    free(res);
    free(cfgs);
    free(ts);
    return rc;
}
