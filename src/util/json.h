/*
 * json.h — noticing allocation failure inside cJSON.  cJSON's builders fail
 * quietly (cJSON_AddNumberToObject returns NULL, cJSON_Parse returns NULL as
 * for bad syntax), so a half-built document could be written as if whole.
 * v10 routes cJSON's allocations through a hook that counts failures per
 * thread; a writer takes a mark before building and checks it after.
 *
 *   unsigned m = v10_json_mark();
 *   ... build with cJSON ...
 *   if (v10_json_failed_since(m)) -> out of memory, discard the document
 *
 * The hook (installed on the first mark, process-wide, since cJSON's hooks
 * are global) calls malloc and free, so it changes nothing else.
 */
#ifndef V10_UTIL_JSON_H
#define V10_UTIL_JSON_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "v10/err.h"

unsigned v10_json_mark(void);
int v10_json_failed_since(unsigned mark);

/* cJSON_AddItemToObject / cJSON_AddItemToArray that delete `item` (and
 * count a failure) when it cannot be added, instead of leaking it; a NULL
 * item or container counts as a failure.  Return 1 if added, like cJSON. */
cJSON_bool v10_json_add(cJSON *obj, const char *key, cJSON *item);
cJSON_bool v10_json_push(cJSON *arr, cJSON *item);

/*
 * Parses an input document (an NPU file, a sweep spec) by the one rule for
 * every JSON input: a UTF-8 byte order mark is skipped; anything but blanks
 * after the value ("trailing data") and a key given twice in one object are
 * errors.  NULL with err set ("ORIGIN:LINE: malformed JSON", "ORIGIN:
 * duplicate key 'K'", "ORIGIN: out of memory") on failure.
 */
cJSON *v10_json_parse_input(const char *text, const char *origin, v10_err *err);

/* The configuration files' "name" key (NPU, LLM): copies a string of 1 to
 * size - 1 characters, escaped (util/text.h), into name[size], else -1
 * naming origin and the key and what it got. */
int v10_json_name(const cJSON *v, const char *origin, char *name, size_t size, v10_err *err);

/* What an input value is, for "expected X, got Y" messages, into buf[n]
 * and returned: a number as written (12.5), a string quoted and escaped
 * ('abc', cut at 40 characters), true, false, null, "an object", "a list
 * of N", or "nothing" for a missing value (v == NULL). */
const char *v10_json_got(const cJSON *v, char *buf, size_t n);

/* Whether a --npu / llm/ spec names a JSON file (ends in .json or contains
 * '/') rather than a preset. */
int v10_json_spec_is_file(const char *spec);

/* An unsigned 64-bit integer as exact JSON text (a raw node: a seed above
 * 2^53 would be rounded as a number); NULL when memory runs out. */
cJSON *v10_json_u64(uint64_t v);

/* Prints j (pretty or compact) with every number in the shortest form
 * that reads back exactly (util/num.h: 0.39, not cJSON's
 * 0.39000000000000001); non-finite numbers print as null, as cJSON does.
 * Rewrites j's numbers as raw text on the way: call it last, then delete
 * j.  Returns a malloc'd string, or NULL when memory runs out. */
char *v10_json_print(cJSON *j, int pretty);

#endif
