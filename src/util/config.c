/*
 * config.c — preset-or-file configuration specs (see config.h).
 */
#include "util/config.h"

#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/names.h"
#include "util/text.h"

int v10_config_preset(const v10_config_kind *k, const char *name, void *out, v10_err *err)
{
    long i = v10_name_lookup(name, k->names, (size_t)-1); /* as people type it */
    if (i >= 0) {
        k->get((size_t)i, out);
        return 0;
    }
    char list[256], hint[160];
    return v10_err_set(err, "unknown %s '%s'%s (expected one of: %s, or a .json file)", k->what,
                       name, v10_name_hint(hint, sizeof hint, name, k->names, (size_t)-1, NULL),
                       v10_names_join(list, sizeof list, k->names, ""));
}

int v10_config_from_json(const v10_config_kind *k, const char *text, const char *origin,
                         void *out, v10_err *err)
{
    cJSON *root = v10_json_parse_input(text, origin, err);
    if (!root)
        return -1;
    char got[64];
    int rc = cJSON_IsObject(root)
                 ? k->read(root, origin, out, err)
                 : v10_err_set(err, "%s: expected a JSON object of %s, got %s", origin,
                               k->object_of, v10_json_got(root, got, sizeof got));
    cJSON_Delete(root);
    return rc;
}

int v10_config_resolve(const v10_config_kind *k, const char *spec, void *out, v10_err *err)
{
    if (!v10_json_spec_is_file(spec))
        return v10_config_preset(k, spec, out, err);
    const char *body;
    char *text = v10_text_read(spec, V10_JSON_MAX_BYTES, &body, err);
    if (!text)
        return -1;
    int rc = v10_config_from_json(k, body, spec, out, err);
    free(text);
    return rc;
}
