/*
 * settings.c — one run's settings as JSON (v10/settings.h, docs/formats.md
 * "Run settings"): the keys of a sweep point, checked and applied by the
 * sweep's own rules (spec.c, points.c), plus those only a single run has
 * (its tenants as --tenant takes them, a list of policies, preempt, check,
 * max_events).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "util/file.h"
#include "util/json.h"
#include "util/num.h"
#include "v10/settings.h"

#define KEYS "tenants, policy, npu, npu.FIELD, priority, a policy parameter such as " \
             "pmt.slice_us (see 'v10sim policies --params'), requests, warmup, seed, " \
             "contention, attribution, preempt, check or max_events"

int v10_settings_policies(v10_settings *out, const char *text, const char *what, v10_err *err)
{
    out->n_policies = 0;
    for (const char *p = text;;) {
        size_t l = strcspn(p, ",");
        if (l == 0 || l >= V10_NAME_MAX)
            return v10_err_set(err, "%s: expected a policy name, a comma-separated list or "
                                    "'all', got '%s'", what, text);
        for (size_t i = 0; i < v10_policy_count(); i++) {
            const char *name = v10_policy_name(v10_policy_at(i));
            int all = l == 3 && !strncmp(p, "all", 3) && strcmp(name, "solo");
            if (!all && !(strlen(name) == l && !strncmp(p, name, l)))
                continue;
            size_t k = 0;
            while (k < out->n_policies && strcmp(out->policies[k], name))
                k++;
            if (k == out->n_policies && k < V10_SETTINGS_POLICIES_MAX)
                snprintf(out->policies[out->n_policies++], V10_NAME_MAX, "%s", name);
            if (!all)
                break;
        }
        if (!(l == 3 && !strncmp(p, "all", 3))) {
            size_t k = 0;
            while (k < out->n_policies && (strlen(out->policies[k]) != l ||
                                           strncmp(out->policies[k], p, l)))
                k++;
            if (k == out->n_policies)
                return v10_err_set(err, "%s: unknown policy '%.*s' (see 'v10sim policies')",
                                   what, (int)l, p);
        }
        p += l;
        if (!*p)
            break;
        if (!*++p)
            return v10_err_set(err, "%s: a trailing comma in '%s'", what, text);
    }
    snprintf(out->cfg.policy, sizeof out->cfg.policy, "%s", out->policies[0]);
    return 0;
}

/* "policy": a string as --policy takes it, or a list of names. */
static int policy_key(v10_settings *out, const cJSON *v, const char *origin, v10_err *err)
{
    char what[300], text[V10_SETTINGS_POLICIES_MAX * V10_NAME_MAX] = "";
    snprintf(what, sizeof what, "%s: policy", origin);
    if (cJSON_IsString(v))
        return v10_settings_policies(out, v->valuestring, what, err);
    if (!cJSON_IsArray(v) || !v->child)
        return v10_err_set(err, "%s: expected a policy name or a list of them", what);
    for (const cJSON *c = v->child; c; c = c->next) {
        if (!cJSON_IsString(c) || strchr(c->valuestring, ','))
            return v10_err_set(err, "%s: expected a list of policy names", what);
        size_t l = strlen(text);
        snprintf(text + l, sizeof text - l, "%s%s", l ? "," : "", c->valuestring);
    }
    return v10_settings_policies(out, text, what, err);
}

/* The keys only a single run has; 1 if `key` is one of them (handled), 0
 * if not, -1 on a bad value. */
static int run_key(v10_settings *out, const char *key, const cJSON *v, const char *origin,
                   v10_err *err)
{
    v10_run_config *c = &out->cfg;
    if (!strcmp(key, "tenants") || !strcmp(key, "mix")) {
        if (!cJSON_IsArray(v) || !v->child ||
            cJSON_GetArraySize(v) > V10_SETTINGS_TENANTS_MAX)
            return v10_err_set(err, "%s: %s: expected a list of 1 to %d tenant specs", origin,
                               key, V10_SETTINGS_TENANTS_MAX);
        if (out->given & V10_SET_TENANTS)
            return v10_err_set(err, "%s: %s: tenants given twice (tenants and mix are one "
                                    "setting)", origin, key);
        int t = 0;
        for (const cJSON *s = v->child; s; s = s->next, t++) {
            if (!cJSON_IsString(s))
                return v10_err_set(err, "%s: %s[%d]: expected a tenant spec string, e.g. "
                                        "\"isca23/bert:priority=2\"", origin, key, t);
            if (v10_tenant_spec_parse(s->valuestring, &out->tenants[t], err))
                return v10_err_prefix(err, "%s: %s[%d]", origin, key, t);
        }
        c->n_tenants = (size_t)t;
        out->given |= V10_SET_TENANTS;
        return 1;
    }
    if (!strcmp(key, "policy")) {
        out->given |= V10_SET_POLICY;
        return policy_key(out, v, origin, err) ? -1 : 1;
    }
    if (!strcmp(key, "preempt")) {
        if (!cJSON_IsString(v) || v10_preempt_parse(v->valuestring, &c->preempt))
            return v10_err_set(err, "%s: preempt: expected \"drain\" or \"tile\"", origin);
        out->given |= V10_SET_OTHER;
        return 1;
    }
    if (!strcmp(key, "check")) {
        if (!cJSON_IsBool(v))
            return v10_err_set(err, "%s: check: expected true or false", origin);
        c->check = cJSON_IsTrue(v);
        out->given |= V10_SET_OTHER;
        return 1;
    }
    if (!strcmp(key, "max_events")) {
        if (!cJSON_IsNumber(v) || v->valuedouble != (double)(uint64_t)v->valuedouble ||
            v->valuedouble < 1 || v->valuedouble > 0x1p62)
            return v10_err_set(err, "%s: max_events: expected a whole number in [1, 2^62]",
                               origin);
        c->max_events = (uint64_t)v->valuedouble;
        out->given |= V10_SET_OTHER;
        return 1;
    }
    if (!strcmp(key, "seed") && cJSON_IsString(v)) { /* any 64-bit seed, exactly */
        if (v10_parse_u64(v->valuestring, &c->seed))
            return v10_err_set(err, "%s: seed: expected an integer in [0, 2^64 - 1] (a "
                                    "number, or a string of digits)", origin);
        out->given |= V10_SET_SEED;
        return 1;
    }
    return 0;
}

static unsigned given_bit(const sweep_setting *st)
{
    switch (st->k) {
    case K_NPU:
    case K_NPU_FIELD: return V10_SET_NPU;
    case K_REQUESTS: return V10_SET_REQUESTS;
    case K_WARMUP: return V10_SET_WARMUP;
    case K_SEED: return V10_SET_SEED;
    case K_PARAM: return V10_SET_PARAMS;
    default: return V10_SET_OTHER;
    }
}

/* An "npu" naming a JSON file: its object, as if written in place. */
static cJSON *npu_file(const cJSON *v, const char *origin, v10_err *err)
{
    const char *body;
    char *text = v10_text_read(v->valuestring, V10_JSON_MAX_BYTES, &body, err);
    if (!text)
        return v10_err_prefix(err, "%s: npu", origin), NULL;
    cJSON *o = v10_json_parse_input(body, v->valuestring, err);
    free(text);
    if (o && !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        v10_err_set(err, "%s: expected a JSON object of NPU fields", v->valuestring);
        return NULL;
    }
    return o;
}

/* Checks and applies the object's keys: a single run's own, then the
 * sweep's, in the sweep's order (so npu.FIELD comes after npu). */
static int apply(v10_settings *out, const cJSON *o, const char *origin, v10_err *err)
{
    sweep_setting set[SWEEP_SETTINGS_MAX];
    const cJSON *val[SWEEP_SETTINGS_MAX];
    cJSON *owned[SWEEP_SETTINGS_MAX]; /* npu objects read from files */
    size_t n = 0, n_owned = 0;
    int rc = 0;
    for (const cJSON *c = o->child; c && rc == 0; c = c->next) {
        int r = run_key(out, c->string, c, origin, err);
        if (r)
            rc = r < 0 ? -1 : 0;
        else if (n == SWEEP_SETTINGS_MAX)
            rc = v10_err_set(err, "%s: more than %d settings", origin, SWEEP_SETTINGS_MAX);
        else {
            const cJSON *v = c;
            if (!strcmp(c->string, "npu") && cJSON_IsString(c) &&
                v10_json_spec_is_file(c->valuestring)) {
                if (!(owned[n_owned] = npu_file(c, origin, err))) {
                    rc = -1;
                    break;
                }
                v = owned[n_owned++];
            }
            if (sweep_setting_check(origin, c->string, c->string, v, &set[n], err)) {
                if (strstr(err->msg, ": unknown key"))
                    v10_err_set(err, "%s: %s: unknown key (expected " KEYS ")", origin,
                                c->string);
                rc = -1;
            } else {
                V10_ASSERT(set[n].k != K_MIX && set[n].k != K_POLICY); /* run_key's */
                for (size_t k = 0; k < n && rc == 0; k++)
                    if (set[n].param && set[k].param == set[n].param)
                        rc = v10_err_set(err, "%s: %s: given twice (as %s too)", origin,
                                         c->string, set[k].key);
                if (rc)
                    break;
                out->given |= given_bit(&set[n]);
                val[n++] = v;
            }
        }
    }
    if (rc == 0 && !(out->given & V10_SET_TENANTS))
        rc = v10_err_set(err, "%s: tenants: missing (a list of tenant specs, e.g. "
                              "[\"isca23/bert\", \"isca23/ncf\"])", origin);
    sweep_apply a;
    v10_run_config keep = out->cfg; /* run_key's fields, over the defaults below */
    sweep_apply_begin(&a, &out->cfg, out->tenants, V10_SETTINGS_TENANTS_MAX);
    out->cfg.n_tenants = keep.n_tenants;
    snprintf(out->cfg.policy, sizeof out->cfg.policy, "%s", keep.policy);
    out->cfg.preempt = keep.preempt;
    out->cfg.check = keep.check;
    out->cfg.max_events = keep.max_events;
    if (out->given & V10_SET_SEED)
        out->cfg.seed = keep.seed;
    for (int kind = K_MIX; kind <= K_SEED && rc == 0; kind++) /* the sweep's order */
        for (size_t k = 0; k < n && rc == 0; k++)
            if ((int)set[k].k == kind) {
                if (set[k].k == K_PRIORITY &&
                    (size_t)cJSON_GetArraySize(val[k]) != out->cfg.n_tenants)
                    rc = v10_err_set(err, "%s: priority: %d priorities for %zu tenants",
                                     origin, cJSON_GetArraySize(val[k]), out->cfg.n_tenants);
                else
                    rc = sweep_apply_one(&a, &set[k], val[k], err);
            }
    char org[300];
    snprintf(org, sizeof org, "%s: npu", origin);
    if (rc == 0)
        rc = sweep_apply_finish(&a, org, err);
    else
        sweep_apply_finish(&a, org, NULL);
    if (rc == 0 && out->cfg.warmup >= out->cfg.requests)
        rc = v10_err_set(err, "%s: warmup: %llu must be below requests %llu", origin,
                         (unsigned long long)out->cfg.warmup,
                         (unsigned long long)out->cfg.requests);
    for (size_t k = 0; k < n_owned; k++)
        cJSON_Delete(owned[k]);
    return rc;
}

int v10_settings_parse(const char *text, const char *origin, v10_settings *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    v10_run_config_default(&out->cfg);
    out->cfg.tenants = out->tenants;
    snprintf(out->policies[0], V10_NAME_MAX, "%s", out->cfg.policy);
    out->n_policies = 1;
    cJSON *root = v10_json_parse_input(text, origin, err);
    if (!root)
        return -1;
    const cJSON *o = root;
    if (cJSON_IsArray(root) && cJSON_GetArraySize(root) == 1)
        o = root->child; /* a report of one run in a list */
    const cJSON *inner = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "settings")
                                           : NULL;
    if (inner && cJSON_GetObjectItemCaseSensitive(o, "version"))
        o = inner; /* a run's JSON report: the settings it ran */
    int rc;
    if (cJSON_IsArray(root) && o == root)
        rc = v10_err_set(err, "%s: a list of %d runs' reports: give the settings of one "
                              "(its \"settings\" object)", origin, cJSON_GetArraySize(root));
    else if (!cJSON_IsObject(o))
        rc = v10_err_set(err, "%s: expected a JSON object of settings ({\"tenants\": [...], "
                              "\"policy\": ...}) or a run's JSON report", origin);
    else
        rc = apply(out, o, origin, err);
    cJSON_Delete(root);
    return rc;
}

int v10_settings_read(const char *path, v10_settings *out, v10_err *err)
{
    const char *body;
    char *text = v10_text_read(path, V10_JSON_MAX_BYTES, &body, err);
    if (!text)
        return -1;
    int rc = v10_settings_parse(body, path, out, err);
    free(text);
    return rc;
}
