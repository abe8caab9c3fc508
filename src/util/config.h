/*
 * config.h — the shared steps of reading a JSON configuration file (an LLM
 * configuration; the NPU override file has the same shape): the whole file
 * with a size limit, the parse with the line of a syntax error, and the
 * "name" key.
 */
#ifndef V10_UTIL_CONFIG_H
#define V10_UTIL_CONFIG_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "v10/err.h"

/* Returns the file's bytes NUL-terminated (caller frees), or NULL with err
 * naming the path: cannot open, larger than `max_bytes`, a read error, or a
 * NUL byte inside (not text). */
char *v10_config_read_text(const char *path, size_t max_bytes, v10_err *err);

/* Parses `text` as a JSON object; NULL with err "origin:LINE: malformed
 * JSON" or "origin: expected a JSON object of `what`".  Caller deletes. */
cJSON *v10_config_parse(const char *text, const char *origin, const char *what, v10_err *err);

/* The "name" key's value `v` into name[size]: a string of 1 to size - 1
 * characters, else -1 naming origin and the key. */
int v10_config_name(const cJSON *v, const char *origin, char *name, size_t size, v10_err *err);

#endif
