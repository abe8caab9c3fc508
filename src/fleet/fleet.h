/*
 * fleet.h (internal) — grouped tenants, shared by repro, collocation and the
 * fleet.
 *
 * Every tenant of a run completes the same number of requests and the
 * measurement window closes when the first one finishes, so a tenant whose
 * requests are far shorter than its partners' would close the window
 * almost at once.  A closed-loop tenant with one request outstanding is
 * therefore served in groups: its request becomes K back-to-back
 * inferences (K a power of two bringing its request length near the
 * longest tenant's, and at least min_cycles, bounded by an operator budget), given to the engine as
 * a trace CSV written to a private temporary directory.  The FUs see the
 * same operator stream; per-inference latency is the group's / K.
 */
#ifndef V10_FLEET_INTERNAL_H
#define V10_FLEET_INTERNAL_H

#include "v10/fleet.h"

typedef struct v10_group_model {
    char spec[V10_SPEC_MAX];  /* model spec as given (name or CSV, :batch=N) */
    uint64_t alone_cycles;    /* one inference, on the base NPU */
    size_t n_ops;
} v10_group_model;

typedef struct v10_group_file {
    size_t model;             /* index into models */
    uint32_t k;
    char path[V10_SPEC_MAX];
} v10_group_file;

typedef struct v10_groups {
    v10_npu npu;              /* the costing NPU of the written traces */
    double min_cycles;        /* grouped requests last at least this long
                                 (several PMT slices, so temporal sharing
                                 is sampled); 0: no minimum */
    char dir[256];            /* temporary directory ("" until first use) */
    v10_group_model *models;
    size_t n_models, cap_models;
    v10_group_file *files;
    size_t n_files, cap_files;
} v10_groups;

/* min_cycles defaults to four PMT slices of the default policy parameters. */
void v10_groups_init(v10_groups *g, const v10_npu *npu);
/* Removes the written traces and the directory. */
void v10_groups_fini(v10_groups *g);

/* Looks up (loading once) a model spec; returns its index or -1. */
int v10_groups_model(v10_groups *g, const char *spec, v10_err *err);

/*
 * Rewrites the closed-loop, single-outstanding tenants of one run so that
 * their requests last about as long as the longest tenant's; k[i] gets
 * each tenant's group size (1: unchanged).  ops_cap bounds K x operators
 * of any one grouped request.  Not thread-safe: call before the pool.
 */
int v10_groups_apply(v10_groups *g, v10_tenant_spec *ts, size_t n, uint64_t ops_cap,
                     uint32_t *k, v10_err *err);

#endif
