/*
 * config.h — a configuration named by a spec that is either a built-in
 * preset or a JSON file (ends in .json or contains '/'): the one shape of
 * --npu SPEC (hw/npu.c) and llm/SPEC (workloads/llm.c).
 */
#ifndef V10_UTIL_CONFIG_H
#define V10_UTIL_CONFIG_H

#include <stddef.h>

#include "util/json.h"
#include "v10/err.h"

/* A family of presets.  Invariant: names[0 .. n) are the presets, NULL
 * after them, in the order `get` numbers them. */
typedef struct v10_config_kind {
    const char *what;              /* "NPU preset", "LLM": names it in messages */
    const char *object_of;         /* "NPU fields": "expected a JSON object of NPU fields" */
    const char *const *names;      /* NULL-terminated */
    void (*get)(size_t i, void *out); /* fills *out with preset i */
    /* The JSON form: fills *out from the keys of the object `root` (over a
     * preset named by its "base" key), naming `origin` in messages; borrows
     * root, which the caller deletes. */
    int (*read)(const cJSON *root, const char *origin, void *out, v10_err *err);
} v10_config_kind;

/* Fills *out with preset `name`; -1 listing the presets if there is none. */
int v10_config_preset(const v10_config_kind *k, const char *name, void *out, v10_err *err);

/* Parses `text` (util/json.h, v10_json_parse_input), checks that it is an
 * object and fills *out with k->read; 0, or -1 with err naming origin. */
int v10_config_from_json(const v10_config_kind *k, const char *text, const char *origin,
                         void *out, v10_err *err);

/* A preset name, or a JSON file (util/file.h: whole, once, within
 * V10_JSON_MAX_BYTES, after a BOM) read by v10_config_from_json. */
int v10_config_resolve(const v10_config_kind *k, const char *spec, void *out, v10_err *err);

#endif
