/*
 * runcfg.h — what the tests' run wrappers share: the configuration they
 * start from (the defaults, a policy over tenants ts[0..n), `requests`
 * each of which `warmup` come before the window, invariant checks on, as
 * --check), to which each adds what its test varies (NPU, trace,
 * contention, ...), and a run that says why it failed.
 */
#ifndef V10_TESTS_RUNCFG_H
#define V10_TESTS_RUNCFG_H

#include <stdio.h>

#include "v10/sim.h"

static inline void runcfg(v10_run_config *c, const char *policy, const v10_tenant_spec *ts, size_t n,
                          uint64_t requests, uint64_t warmup)
{
    v10_run_config_default(c);
    snprintf(c->policy, sizeof c->policy, "%s", policy);
    c->tenants = ts;
    c->n_tenants = n;
    c->requests = requests;
    c->warmup = warmup;
    c->check = 1;
}

/* v10_run(c, r), its error on stderr (with the policy) when it fails. */
static inline int runcfg_run(const v10_run_config *c, v10_run_result *r)
{
    v10_err err;
    int rc = v10_run(c, r, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", c->policy, err.msg);
    return rc;
}

#endif
