/*
 * api.c — whole calls for bindings (v10/api.h): settings in, the report
 * `run --format json` prints out; a model in, `profile --format json`'s
 * document out.  The room sits on top of the studies and reports, below
 * the CLI; it only strings their calls together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "v10/api.h"
#include "v10/cost.h"
#include "v10/llm_tenant.h"
#include "v10/model_report.h"
#include "v10/report.h"
#include "v10/settings.h"

const char *v10_version(void) { return V10_VERSION; }

void v10_free(void *p) { free(p); }

/* The document as `run --format json` prints it: pretty, a newline last. */
static char *print_doc(cJSON *doc, v10_err *err)
{
    char *s = doc ? v10_json_print(doc, 1) : NULL;
    cJSON_Delete(doc);
    size_t n = s ? strlen(s) : 0;
    char *t = s ? realloc(s, n + 2) : NULL;
    if (!t) {
        free(s);
        v10_err_set(err, "out of memory");
        return NULL;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    return t;
}

char *v10_run_json(const char *settings, const char *origin, v10_err *err)
{
    v10_settings *set = malloc(sizeof *set);
    v10_model *models = NULL;
    size_t n_models = 0;
    cJSON *doc = NULL;
    int rc = -1;
    if (!set) {
        v10_err_set(err, "out of memory");
        return NULL;
    }
    if (v10_settings_parse(settings, origin ? origin : "settings", set, err))
        goto done;
    v10_run_config *cfg = &set->cfg;
    /* Each model read once, for every policy (as `run` does). */
    models = calloc(cfg->n_tenants, sizeof *models);
    if (!models) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    for (; n_models < cfg->n_tenants; n_models++)
        if (v10_tenant_model_load(&set->tenants[n_models], &cfg->npu, &models[n_models], err)) {
            v10_err_prefix(err, "tenant %zu", n_models);
            goto done;
        }
    cfg->models = models;
    unsigned mark = v10_json_mark();
    doc = set->n_policies > 1 ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; i < set->n_policies; i++) {
        snprintf(cfg->policy, sizeof cfg->policy, "%s", set->policies[i]);
        v10_run_result res;
        if (v10_run(cfg, &res, err)) {
            if (set->n_policies > 1 && strncmp(err->msg, "policy ", 7))
                v10_err_prefix(err, "policy %s", cfg->policy);
            goto done;
        }
        cJSON *one = v10_report_run_json(cfg, &res);
        v10_run_result_fini(&res);
        if (set->n_policies == 1)
            doc = one;
        else
            v10_json_push(doc, one);
    }
    if (!doc || v10_json_failed_since(mark)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    rc = 0;
done:
    for (size_t i = 0; i < n_models; i++)
        v10_model_fini(&models[i]);
    free(models);
    free(set);
    if (rc) {
        cJSON_Delete(doc);
        return NULL;
    }
    return print_doc(doc, err);
}

char *v10_profile_json(const char *model, const char *npu_spec, v10_err *err)
{
    v10_npu npu;
    if (v10_npu_resolve(npu_spec ? npu_spec : "v10-isca23", &npu, err))
        return NULL;
    v10_model m;
    v10_model_summary s;
    /* as the CLI's profile: the model as it runs alone under op_mapping */
    if (v10_model_load(model, &npu, &m, err) || v10_cost_map_alone(&npu, &m, err))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = !f ? v10_err_set(err, "out of memory") : v10_model_summarize(&m, &s, err);
    if (rc == 0)
        rc = v10_profile_write(&m, &s, &npu, V10_FMT_JSON, f, err);
    if (f && fclose(f) && rc == 0)
        rc = v10_err_set(err, "out of memory");
    v10_model_fini(&m);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}
