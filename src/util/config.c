/*
 * config.c — preset-or-file configuration specs (see config.h).
 */
#include "util/config.h"

#include <string.h>

#include "util/text.h"

int v10_config_preset(const v10_config_kind *k, const char *name, void *out, v10_err *err)
{
    for (size_t i = 0; k->names[i]; i++)
        if (!strcmp(name, k->names[i])) {
            k->get(i, out);
            return 0;
        }
    char list[256];
    return v10_err_set(err, "unknown %s '%s' (expected one of: %s, or a .json file)", k->what,
                       name, v10_names_join(list, sizeof list, k->names, ""));
}

int v10_config_resolve(const v10_config_kind *k, const char *spec, void *out, v10_err *err)
{
    if (!v10_json_spec_is_file(spec))
        return v10_config_preset(k, spec, out, err);
    return v10_json_config_read(spec, k->parse, out, err);
}
