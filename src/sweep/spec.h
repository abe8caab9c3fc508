/*
 * spec.h (internal) — a parsed sweep spec as the files of src/sweep/ share
 * it: its settings in enumeration order (spec.c builds them), the point
 * enumeration over them (points.c), and the small helpers both use.  The
 * public API is v10/sweep.h.
 */
#ifndef V10_SWEEP_SPEC_H
#define V10_SWEEP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "util/file.h"
#include "v10/sweep.h"

/* The settings a spec may give, in enumeration order: a point's index is
 * row-major over the axes in this order, the last (seed) varying fastest.
 * "npu.FIELD" keys sort after "npu", by field name.  K_PARAM settings are
 * the policy parameters, named as in the policies' tables ("pmt.slice_us"
 * or the flat "pmt_slice_us"), in the order of v10_policy_params' fields;
 * points.c crosses each only with the policies that read it. */
typedef enum sweep_kind {
    K_MIX = 0, K_PRIORITY, K_NPU, K_NPU_FIELD, K_POLICY, K_PARAM, K_CONTENTION,
    K_ATTRIBUTION, K_REQUESTS, K_WARMUP, K_SEED,
} sweep_kind;

#define SWEEP_SETTINGS_MAX 64

/*
 * One setting: an axis (its list of values) or a fixed value (stored as a
 * list of one).  Invariant: n >= 1, values is a JSON array of n items owned
 * by the sweep's canonical tree (or its `lists`), each validated.
 */
typedef struct sweep_setting {
    char key[V10_NAME_MAX + 8]; /* "policy", "npu.vmem_bytes" */
    sweep_kind k;
    const v10_param_def *param; /* K_PARAM: the parameter */
    size_t field;               /* K_PARAM: its field's place in v10_param_fields */
    int is_axis;
    const cJSON *values;
    size_t n;
} sweep_setting;

/*
 * Invariants once v10_sweep_parse returns it: set[0 .. n_set-1] sorted by
 * (kind, key), no key twice, at most one setting of each kind but
 * K_NPU_FIELD; points == the number of points (>= 1, at most
 * V10_SWEEP_POINTS_MAX) and block == the sum over the policy values of the
 * product of the parameter axes each reads; canonical is the pretty JSON
 * of root and hash its FNV-1a.  Immutable afterwards, so threads share it.
 */
struct v10_sweep {
    char name[V10_NAME_MAX];
    char origin[256];
    char hash[17];
    char *canonical;       /* pretty JSON of `root` */
    cJSON *root;           /* {"name", "axes", "fixed"}, keys sorted */
    cJSON *lists;          /* owns the one-element lists of fixed values */
    sweep_setting set[SWEEP_SETTINGS_MAX]; /* in enumeration order */
    size_t n_set;
    size_t points;
    size_t block; /* points per value of the settings before the policy's
                     parameters: sum over policies of their parameter axes' product */
    char default_policy[V10_NAME_MAX]; /* the run's, when the spec gives none */
    /* Every file the mixes read (model files, their profile= files, LLM
     * configurations, traces and lengths), read once when the spec was
     * parsed: the points load from it (v10_inputs_use), spec.json hashes it. */
    v10_inputs inputs;
};

/* FNV-1a 64 of n bytes, and as 16 hex digits into out[17]; _more goes on
 * from hash h (FNV-1a of a concatenation, piece by piece). */
uint64_t sweep_fnv1a(const void *p, size_t n);
uint64_t sweep_fnv1a_more(uint64_t h, const void *p, size_t n);
void sweep_hex16(uint64_t h, char *out);

/* The NPU override object of a point: `npu` (a preset name, an object of
 * fields, or NULL for the default) as {"base": ..., fields...}.  Caller
 * owns the result; NULL when memory ran out. */
cJSON *sweep_npu_object(const cJSON *npu);
/* Resolves such an object (named "<base>+k=v..." unless it has a name). */
int sweep_npu_resolve(cJSON *o, const char *origin, v10_npu *out, v10_err *err);

/* One setting alone, by the spec's rules (a run's settings file,
 * settings.c): fills st's key, kind and parameter for `key` and checks the
 * value v, naming origin and path in messages; -1 for an unknown key or a
 * bad value.  A mix is checked by loading its models. */
int sweep_setting_check(const char *origin, const char *path, const char *key, const cJSON *v,
                        sweep_setting *st, v10_err *err);

/*
 * Settings applied to a run configuration, one at a time, in any order:
 * what a point's values (points.c) and a run's settings file (settings.c)
 * become.  Begin sets c to the defaults; finish applies the priorities
 * over the mix's, resolves the NPU (its object and npu.FIELD keys; origin
 * names it) and defaults the warm-up to a tenth of the requests.
 */
typedef struct sweep_apply {
    v10_run_config *c;           /* c->tenants points into tenants */
    v10_tenant_spec *tenants;    /* room for max_tenants */
    size_t max_tenants;
    const cJSON *priority;       /* borrowed from the settings */
    cJSON *npu;                  /* owned: the NPU object being built; NULL: default */
    int warm_set;
} sweep_apply;

void sweep_apply_begin(sweep_apply *a, v10_run_config *c, v10_tenant_spec *tenants,
                       size_t max_tenants);
/* Applies checked value v of setting st; -1 with err (a tenant spec). */
int sweep_apply_one(sweep_apply *a, const sweep_setting *st, const cJSON *v, v10_err *err);
/* Ends: 0, or -1 with err; frees what begin and one took either way. */
int sweep_apply_finish(sweep_apply *a, const char *origin, v10_err *err);

/* Parses and validates a spec, leaving its points uncounted:
 * v10_sweep_parse (points.c) counts them.  The files its mixes read go
 * into s->inputs: from `given` if not NULL (a file not in it is an
 * error), else read from the file system, each once. */
int sweep_spec_parse(const char *text, const char *origin, const v10_inputs *given,
                     v10_sweep **out, v10_err *err);

#endif
