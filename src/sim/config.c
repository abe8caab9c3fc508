/*
 * config.c — a run's configuration defaults (include/v10/sim.h): the
 * policies' parameters from their tables, the paper's NPU and preemption
 * model, and the names of the preemption models.
 */
#include <stdio.h>
#include <string.h>

#include "v10/sim.h"

/* Every field a policy's table names gets that table's default (the
 * tables agree where they share a field; tests/policy/test_conformance.c). */
void v10_policy_params_default(v10_policy_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < v10_policy_count(); i++) {
        const v10_policy_ops *pol = v10_policy_at(i);
        for (size_t k = 0; k < v10_policy_param_count(pol); k++) {
            const v10_param_def *d = v10_policy_param_at(pol, k);
            int rc = v10_param_put(p, d, d->def, NULL);
            V10_ASSERT(rc == 0);
        }
    }
}

const char *v10_preempt_name(v10_preempt_model m)
{
    return m == V10_PREEMPT_TILE ? "tile" : "drain";
}

int v10_preempt_parse(const char *s, v10_preempt_model *out)
{
    if (!strcmp(s, "drain"))
        *out = V10_PREEMPT_DRAIN;
    else if (!strcmp(s, "tile"))
        *out = V10_PREEMPT_TILE;
    else
        return -1;
    return 0;
}

void v10_run_config_default(v10_run_config *c)
{
    memset(c, 0, sizeof *c);
    v10_npu_preset("v10-isca23", &c->npu, NULL);
    snprintf(c->policy, sizeof c->policy, "v10-full");
    v10_policy_params_default(&c->params);
    c->requests = 20;
    c->warmup = 2;
    c->seed = 1;
    c->contention = 1;
    c->preempt = V10_PREEMPT_DRAIN; /* the paper's operator preemption */
}
