/* span.c — run spans: request counts long enough to sample PMT (see span.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc/span.h"
#include "v10/cost.h"

void v10_span_init(v10_span *g, const v10_npu *npu)
{
    memset(g, 0, sizeof *g);
    g->npu = *npu;
    v10_policy_params pp;
    v10_policy_params_default(&pp);
    g->min_cycles = 4 * (double)v10_npu_us_to_cycles(npu, pp.pmt_slice_us);
}

void v10_span_fini(v10_span *g)
{
    free(g->models);
    memset(g, 0, sizeof *g);
}

/* The index of spec in the cache, or -1. */
static int find(const v10_span *g, const char *spec)
{
    for (size_t i = 0; i < g->n_models; i++)
        if (!strcmp(g->models[i].spec, spec))
            return (int)i;
    return -1;
}

int v10_span_add(v10_span *g, const char *spec, uint64_t alone_cycles, v10_err *err)
{
    int i = find(g, spec);
    if (i >= 0)
        return i;
    if (g->n_models == g->cap_models) {
        size_t nc = g->cap_models ? 2 * g->cap_models : 16;
        v10_span_model *m = realloc(g->models, nc * sizeof *m);
        if (!m)
            return v10_err_set(err, "out of memory");
        g->models = m;
        g->cap_models = nc;
    }
    v10_span_model *m = &g->models[g->n_models];
    snprintf(m->spec, sizeof m->spec, "%s", spec);
    m->alone_cycles = alone_cycles;
    return (int)g->n_models++;
}

int v10_span_model_index(v10_span *g, const char *spec, v10_err *err)
{
    int i = find(g, spec);
    if (i >= 0)
        return i;
    v10_model mod;
    if (v10_model_load(spec, &g->npu, &mod, err))
        return -1;
    uint64_t alone = v10_cost_alone_cycles(&g->npu, &mod);
    v10_model_fini(&mod);
    return v10_span_add(g, spec, alone, err);
}

uint64_t v10_span_requests(v10_span *g, const v10_tenant_spec *ts, size_t n, uint64_t base,
                           v10_err *err)
{
    double lmax = 0;
    for (size_t i = 0; i < n; i++) {
        int mi = v10_span_model_index(g, ts[i].model, err);
        if (mi < 0)
            return 0;
        lmax = fmax(lmax, (double)g->models[mi].alone_cycles);
    }
    if (lmax > 0 && (double)base * lmax < g->min_cycles)
        return (uint64_t)ceil(g->min_cycles / lmax);
    return base;
}
