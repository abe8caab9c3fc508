/*
 * points.c — a sweep's points: the enumeration of index -> settings
 * (row-major, a policy parameter axis crossed only with the policies that
 * read it), each point's id, its run configuration, and its run as one
 * result row.  Everything here is a pure function of the spec and the
 * index, so threads and MPI ranks compute points independently.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "util/json.h"
#include "v10/report.h"

static int is_param(sweep_kind k) { return k == K_PARAM; }

/* 1 if setting st varies under `policy`: a policy parameter axis (two or
 * more values) only under the policies whose tables read it, so pmt is not
 * run once per V10 slice; fixed and one-value settings and every other
 * axis always do. */
static int varies_under(const sweep_setting *st, const char *policy)
{
    if (!is_param(st->k) || st->n < 2)
        return 1;
    const v10_policy_ops *p = v10_policy_find(policy);
    return p && v10_policy_reads(p, st->param);
}

/* Points per policy value: the product of the parameter axes it reads
 * (saturating above V10_SWEEP_POINTS_MAX). */
static size_t policy_points(const v10_sweep *s, const char *policy)
{
    size_t m = 1;
    for (size_t k = 0; k < s->n_set; k++)
        if (is_param(s->set[k].k) && varies_under(&s->set[k], policy))
            m = m > V10_SWEEP_POINTS_MAX / s->set[k].n ? V10_SWEEP_POINTS_MAX + 1ul
                                                       : m * s->set[k].n;
    return m;
}

/* The policy setting's index, or n_set if the spec leaves the default. */
static size_t policy_setting(const v10_sweep *s)
{
    size_t k = 0;
    while (k < s->n_set && s->set[k].k != K_POLICY)
        k++;
    return k;
}

/* Sets s->block and s->points; -1 if the count exceeds the limit. */
static int count_points(v10_sweep *s)
{
    size_t pk = policy_setting(s);
    v10_run_config c;
    v10_run_config_default(&c);
    snprintf(s->default_policy, sizeof s->default_policy, "%s", c.policy);
    s->block = 0;
    if (pk == s->n_set) {
        s->block = policy_points(s, s->default_policy);
    } else {
        for (const cJSON *v = s->set[pk].values->child; v; v = v->next)
            if ((s->block += policy_points(s, v->valuestring)) > V10_SWEEP_POINTS_MAX)
                return -1;
    }
    s->points = s->block;
    for (size_t k = 0; k < s->n_set; k++) {
        if (is_param(s->set[k].k) || k == pk)
            continue;
        if (s->points > V10_SWEEP_POINTS_MAX / s->set[k].n)
            return -1;
        s->points *= s->set[k].n;
    }
    return s->points > V10_SWEEP_POINTS_MAX ? -1 : 0;
}

/* v10_sweep_parse, with its inputs from `given` if not NULL. */
static int parse(const char *text, const char *origin, const v10_inputs *given,
                 v10_sweep **out, v10_err *err)
{
    if (sweep_spec_parse(text, origin, given, out, err))
        return -1;
    if (count_points(*out)) {
        v10_sweep_destroy(*out);
        *out = NULL;
        return v10_err_set(err, "%s: the product of the axes exceeds %u points", origin,
                           V10_SWEEP_POINTS_MAX);
    }
    return 0;
}

int v10_sweep_parse(const char *text, const char *origin, v10_sweep **out, v10_err *err)
{
    return parse(text, origin, NULL, out, err);
}

int v10_sweep_parse_inputs(const char *text, const char *origin, const char *packed,
                           size_t len, v10_sweep **out, v10_err *err)
{
    v10_inputs given = {0};
    *out = NULL;
    int rc = v10_inputs_unpack(&given, packed, len, err) ? -1
                                                          : parse(text, origin, &given, out, err);
    v10_inputs_fini(&given);
    return rc;
}

char *v10_sweep_inputs_pack(const v10_sweep *s, size_t *len)
{
    return v10_inputs_pack(&s->inputs, len);
}

/* Takes the next digit (the fastest remaining) of i for setting k. */
static void digit(const v10_sweep *s, size_t k, size_t *i, const cJSON **vals)
{
    size_t d = *i % s->set[k].n;
    *i /= s->set[k].n;
    vals[k] = cJSON_GetArrayItem(s->set[k].values, (int)d);
}

/*
 * The value of each setting at point i: row-major, the last setting
 * fastest, except that the policy and its parameters count as one setting
 * whose values are each policy with each combination of the parameter axes
 * it reads.  A parameter axis the point's policy ignores gets NULL.  When
 * every policy reads every parameter axis this is plain row-major order.
 */
static void point_values(const v10_sweep *s, size_t i, const cJSON **vals)
{
    V10_ASSERT(i < s->points);
    size_t k = s->n_set, pk = policy_setting(s);
    while (k > 0 && s->set[k - 1].k > K_PARAM)
        digit(s, --k, &i, vals);
    size_t params_end = k;
    while (k > 0 && is_param(s->set[k - 1].k))
        k--;
    size_t b = i % s->block; /* which (policy, parameters) of the block */
    i /= s->block;
    const char *policy = s->default_policy;
    if (pk < s->n_set) {
        int j = 0;
        for (const cJSON *v = s->set[pk].values->child; v; v = v->next, j++) {
            size_t m = policy_points(s, v->valuestring);
            if (b < m) {
                policy = v->valuestring;
                vals[pk] = v;
                break;
            }
            b -= m;
        }
    }
    for (size_t q = params_end; q-- > k;) {
        if (varies_under(&s->set[q], policy))
            digit(s, q, &b, vals);
        else
            vals[q] = NULL;
    }
    while (k-- > 0)
        if (k != pk)
            digit(s, k, &i, vals);
}

/* The point's settings as a JSON object in enumeration order; caller owns. */
static cJSON *point_json(const v10_sweep *s, const cJSON **vals)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    for (size_t k = 0; o && k < s->n_set; k++)
        if (vals[k]) /* not a parameter axis this point's policy ignores */
            v10_json_add(o, s->set[k].key, cJSON_Duplicate(vals[k], 1));
    if (v10_json_failed_since(mark)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int v10_sweep_point_id(const v10_sweep *s, size_t i, char *id)
{
    const cJSON *vals[SWEEP_SETTINGS_MAX];
    point_values(s, i, vals);
    cJSON *o = point_json(s, vals);
    char *t = o ? v10_json_print(o, 0) : NULL; /* exact numbers: 2^53 - 1 is not 2^53 */
    cJSON_Delete(o);
    if (!t) {
        id[0] = 0;
        return -1;
    }
    sweep_hex16(sweep_fnv1a(t, strlen(t)), id);
    free(t);
    return 0;
}

char *v10_sweep_point_text(const v10_sweep *s, size_t i)
{
    const cJSON *vals[SWEEP_SETTINGS_MAX];
    point_values(s, i, vals);
    cJSON *o = point_json(s, vals);
    char *t = o ? v10_json_print(o, 0) : NULL;
    cJSON_Delete(o);
    return t;
}

void sweep_apply_begin(sweep_apply *a, v10_run_config *c, v10_tenant_spec *tenants,
                       size_t max_tenants)
{
    memset(a, 0, sizeof *a);
    v10_run_config_default(c);
    a->c = c;
    a->tenants = tenants;
    a->max_tenants = max_tenants;
    c->tenants = tenants;
}

int sweep_apply_one(sweep_apply *a, const sweep_setting *st, const cJSON *v, v10_err *err)
{
    v10_run_config *c = a->c;
    switch (st->k) {
    case K_MIX:
        for (const cJSON *t = v->child; t; t = t->next) {
            if (c->n_tenants == a->max_tenants)
                return v10_err_set(err, "%s: at most %zu tenants", st->key, a->max_tenants);
            if (v10_tenant_spec_parse(t->valuestring, &a->tenants[c->n_tenants++], err))
                return -1;
        }
        return 0;
    case K_PRIORITY: a->priority = v; return 0;
    case K_NPU:
        cJSON_Delete(a->npu); /* npu.FIELD settings sort after it */
        a->npu = sweep_npu_object(v);
        return 0;
    case K_NPU_FIELD:
        if (!a->npu)
            a->npu = sweep_npu_object(NULL);
        cJSON_DeleteItemFromObjectCaseSensitive(a->npu, st->key + 4);
        v10_json_add(a->npu, st->key + 4, cJSON_Duplicate(v, 1));
        return 0;
    case K_POLICY: snprintf(c->policy, sizeof c->policy, "%s", v->valuestring); return 0;
    case K_PARAM: /* validated; a choice is a word */
        return cJSON_IsString(v) ? v10_param_set(&c->params, st->param->name, v->valuestring, err)
                                 : v10_param_put(&c->params, st->param, v->valuedouble, err);
    case K_CONTENTION: c->contention = cJSON_IsTrue(v); return 0;
    case K_ATTRIBUTION: c->no_attribution = !cJSON_IsTrue(v); return 0;
    case K_REQUESTS: c->requests = (uint64_t)v->valuedouble; return 0;
    case K_WARMUP:
        c->warmup = (uint64_t)v->valuedouble;
        a->warm_set = 1;
        return 0;
    case K_SEED: c->seed = (uint64_t)v->valuedouble; return 0;
    }
    V10_ASSERT(0);
    return -1;
}

int sweep_apply_finish(sweep_apply *a, const char *origin, v10_err *err)
{
    v10_run_config *c = a->c;
    size_t t = 0;
    for (const cJSON *x = a->priority ? a->priority->child : NULL; x && t < c->n_tenants;
         x = x->next)
        a->tenants[t++].priority = x->valuedouble;
    int rc = a->npu ? sweep_npu_resolve(a->npu, origin, &c->npu, err) : 0;
    cJSON_Delete(a->npu);
    a->npu = NULL;
    if (!a->warm_set)
        c->warmup = c->requests / 10;
    return rc;
}

int v10_sweep_point_get(const v10_sweep *s, size_t i, v10_sweep_point *p, v10_err *err)
{
    const cJSON *vals[SWEEP_SETTINGS_MAX];
    point_values(s, i, vals);
    memset(p, 0, sizeof *p);
    p->index = i;
    unsigned mark = v10_json_mark();
    if (v10_sweep_point_id(s, i, p->id))
        return v10_err_set(err, "point %zu: out of memory", i);
    sweep_apply a;
    sweep_apply_begin(&a, &p->cfg, p->tenants, V10_SWEEP_TENANTS_MAX);
    int rc = 0;
    for (size_t k = 0; k < s->n_set && rc == 0; k++)
        if (vals[k]) /* else a parameter the policy ignores: the default */
            rc = sweep_apply_one(&a, &s->set[k], vals[k], err);
    if (rc == 0 && v10_json_failed_since(mark))
        rc = v10_err_set(err, "point %zu: out of memory", i);
    char org[64];
    snprintf(org, sizeof org, "point %zu npu", i);
    if (rc == 0)
        return sweep_apply_finish(&a, org, err);
    sweep_apply_finish(&a, org, NULL);
    return rc;
}

int v10_sweep_run_point(const v10_sweep *s, size_t i, char **row, v10_err *err)
{
    *row = NULL;
    v10_sweep_point *p = malloc(sizeof *p);
    if (!p)
        return v10_err_set(err, "out of memory");
    if (v10_sweep_point_get(s, i, p, err)) {
        free(p);
        return -1;
    }
    /* A point the simulator refuses (too long, ...) is a result too: its
     * row records the error and the sweep goes on.  What is no property of
     * the point stops the sweep, and --resume runs the point again: running
     * out of memory, and an input not read when the sweep started (the
     * point loads its models from the sweep's inputs only, never a file). */
    v10_run_result r;
    v10_err run_err;
    const v10_inputs *prev = v10_inputs_use(&s->inputs);
    v10_inputs_missed();
    int refused = v10_run(&p->cfg, &r, &run_err) != 0;
    int missed = v10_inputs_missed();
    v10_inputs_use(prev);
    if (refused && (missed || strstr(run_err.msg, "out of memory"))) {
        *err = run_err;
        v10_err_prefix(err, "point %zu (id %s)", i, p->id);
        free(p);
        return -1;
    }
    const cJSON *vals[SWEEP_SETTINGS_MAX];
    point_values(s, i, vals);
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    cJSON *rep = refused ? NULL : v10_report_run_json(&p->cfg, &r);
    int rc = -1;
    if (o && (rep || refused)) {
        cJSON_AddNumberToObject(o, "index", (double)i);
        cJSON_AddStringToObject(o, "id", p->id);
        v10_json_add(o, "point", point_json(s, vals));
        if (refused) {
            v10_json_add(o, "error", cJSON_CreateString(run_err.msg));
        } else {
            cJSON *perf = cJSON_DetachItemFromObjectCaseSensitive(rep, "perf");
            v10_json_add(o, "result", rep);
            rep = NULL;
            v10_json_add(o, "perf", perf);
        }
        /* A row that lost a value to a failed allocation is not written. */
        char *t = v10_json_failed_since(mark) ? NULL : v10_json_print(o, 0);
        size_t n = t ? strlen(t) : 0;
        char *line = t ? realloc(t, n + 2) : NULL;
        if (line) {
            line[n] = '\n';
            line[n + 1] = 0;
            *row = line;
            rc = 0;
        } else {
            free(t);
        }
    }
    if (rc)
        v10_err_set(err, "point %zu: out of memory", i);
    cJSON_Delete(rep);
    cJSON_Delete(o);
    if (!refused)
        v10_run_result_fini(&r);
    free(p);
    return rc;
}
