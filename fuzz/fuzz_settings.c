/* fuzz_settings.c — a run's settings (JSON, v10/settings.h): parse; what
 * parses must record (v10_report_settings_json) settings that parse back
 * and record the same text again, the round trip `run --config` relies on. */
#include <cjson/cJSON.h>

#include "harness.h"
#include "util/json.h"
#include "v10/report.h"
#include "v10/settings.h"

static char *record(const v10_settings *s)
{
    cJSON *j = v10_report_settings_json(&s->cfg);
    char *t = j ? v10_json_print(j, 0) : NULL;
    cJSON_Delete(j);
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    v10_settings *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    v10_err err;
    if (!a || !b)
        abort();
    if (v10_settings_parse(text, "fuzz.json", a, &err) == 0) {
        if (a->cfg.n_tenants < 1 || a->cfg.n_tenants > V10_SETTINGS_TENANTS_MAX ||
            a->n_policies < 1 || a->cfg.warmup >= a->cfg.requests)
            abort();
        char *t1 = record(a);
        if (!t1 || v10_settings_parse(t1, "recorded", b, &err))
            abort(); /* what a report records must read back */
        char *t2 = record(b);
        if (!t2 || strcmp(t1, t2))
            abort();
        free(t1);
        free(t2);
    } else if (!err.msg[0]) {
        abort();
    }
    free(a);
    free(b);
    free(text);
    return 0;
}
