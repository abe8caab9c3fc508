/*
 * settings_report.c — the settings a run ran with, as the JSON object that
 * `run --config` reads back (v10/settings.h, docs/formats.md "Run
 * settings"): every run's JSON report records it under "settings".
 */
#include <string.h>

#include "util/json.h"
#include "v10/report.h"

/* The NPU as its preset's name when it is that preset unchanged, else the
 * object of every field (which reads back as the same NPU). */
static cJSON *npu_json(const v10_npu *npu)
{
    v10_npu preset;
    cJSON *mine = v10_npu_to_json(npu);
    if (mine && !v10_npu_preset(npu->name, &preset, NULL)) {
        cJSON *theirs = v10_npu_to_json(&preset);
        int same = theirs && cJSON_Compare(mine, theirs, 1);
        cJSON_Delete(theirs);
        if (same) {
            cJSON_Delete(mine);
            return cJSON_CreateString(npu->name);
        }
    }
    return mine;
}

cJSON *v10_report_settings_json(const v10_run_config *cfg)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    cJSON *ts = cJSON_AddArrayToObject(o, "tenants");
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        char spec[2 * V10_SPEC_MAX];
        if (v10_tenant_spec_format(&cfg->tenants[i], spec, sizeof spec) == 0)
            v10_json_push(ts, cJSON_CreateString(spec));
        else
            v10_json_push(ts, NULL); /* counts as a failure: no settings with a hole */
    }
    cJSON_AddStringToObject(o, "policy", cfg->policy);
    v10_json_add(o, "npu", npu_json(&cfg->npu));
    /* Every policy parameter by its flat key, as set (0: the NPU's slice),
     * so that the report's "config.params" reads back the same. */
    const v10_param_def *defs[V10_PARAM_FIELDS_MAX];
    size_t nd = v10_param_fields(defs, V10_PARAM_FIELDS_MAX);
    for (size_t k = 0; k < nd; k++) {
        double v = v10_param_get(&cfg->params, defs[k]);
        if (defs[k]->type == V10_PARAM_CHOICE) {
            char word[64];
            v10_param_format(defs[k], &cfg->params, NULL, word, sizeof word);
            cJSON_AddStringToObject(o, defs[k]->key, word);
        } else {
            cJSON_AddNumberToObject(o, defs[k]->key, v);
        }
    }
    v10_json_add(o, "requests", v10_json_u64(cfg->requests));
    v10_json_add(o, "warmup", v10_json_u64(cfg->warmup));
    if (cfg->seed < (1ull << 53)) /* else as a string: a JSON number would round */
        v10_json_add(o, "seed", v10_json_u64(cfg->seed));
    else {
        char s[24];
        snprintf(s, sizeof s, "%llu", (unsigned long long)cfg->seed);
        cJSON_AddStringToObject(o, "seed", s);
    }
    cJSON_AddBoolToObject(o, "contention", cfg->contention);
    cJSON_AddBoolToObject(o, "attribution", !cfg->no_attribution);
    cJSON_AddStringToObject(o, "preempt", v10_preempt_name(cfg->preempt));
    if (cfg->check)
        cJSON_AddBoolToObject(o, "check", 1);
    if (cfg->max_events)
        v10_json_add(o, "max_events", v10_json_u64(cfg->max_events));
    if (v10_json_failed_since(mark)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
