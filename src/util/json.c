/* json.c — cJSON allocation failures, counted per thread (see json.h). */
#include "util/json.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/num.h"
#include "util/text.h"

static _Thread_local unsigned failures;

static void *hook_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        failures++;
    return p;
}

static void hook_free(void *p) { free(p); }

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void install(void)
{
    cJSON_Hooks h = {hook_malloc, hook_free};
    cJSON_InitHooks(&h);
}

unsigned v10_json_mark(void)
{
    pthread_once(&once, install);
    return failures;
}

int v10_json_failed_since(unsigned mark) { return failures != mark; }

cJSON_bool v10_json_add(cJSON *obj, const char *key, cJSON *item)
{
    if (item && obj && cJSON_AddItemToObject(obj, key, item))
        return 1;
    cJSON_Delete(item);
    failures++;
    return 0;
}

/* Rewrites every finite number below j as a raw item holding its shortest
 * exact text.  -1 if memory ran out (the tree is still whole and valid). */
static int shortest_numbers(cJSON *j)
{
    for (cJSON *c = j ? j->child : NULL; c; c = c->next) {
        if (cJSON_IsNumber(c) && isfinite(c->valuedouble)) {
            char b[V10_NUM_MAX];
            v10_num_fmt(c->valuedouble, b, sizeof b);
            char *raw = cJSON_malloc(strlen(b) + 1);
            if (!raw)
                return -1;
            memcpy(raw, b, strlen(b) + 1);
            c->type = cJSON_Raw; /* cJSON_Delete frees valuestring */
            c->valuestring = raw;
        } else if ((cJSON_IsArray(c) || cJSON_IsObject(c)) && shortest_numbers(c)) {
            return -1;
        }
    }
    return 0;
}

char *v10_json_print(cJSON *j, int pretty)
{
    pthread_once(&once, install);
    if (!j || shortest_numbers(j))
        return NULL;
    return pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
}

cJSON *v10_json_u64(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(b);
}

cJSON_bool v10_json_push(cJSON *arr, cJSON *item)
{
    if (item && arr && cJSON_AddItemToArray(arr, item))
        return 1;
    cJSON_Delete(item);
    failures++;
    return 0;
}

/* The first key given twice in an object anywhere under j, or NULL. */
static const char *dup_key(const cJSON *j)
{
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
        if (cJSON_IsObject(j))
            for (const cJSON *d = c->next; d; d = d->next)
                if (!strcmp(c->string, d->string))
                    return c->string;
        const char *k = dup_key(c);
        if (k)
            return k;
    }
    return NULL;
}

cJSON *v10_json_parse_input(const char *text, const char *origin, v10_err *err)
{
    const char *body = v10_skip_bom(text), *end = NULL;
    unsigned mark = v10_json_mark();
    cJSON *j = cJSON_ParseWithOpts(body, &end, 1);
    if (!j) {
        if (v10_json_failed_since(mark)) {
            v10_err_set(err, "%s: out of memory", origin);
            return NULL;
        }
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *c = body; at && c < at && *c; c++)
            line += *c == '\n';
        cJSON *lax = cJSON_Parse(body); /* whole but for what follows it? */
        v10_err_set(err, "%s:%d: malformed JSON%s", origin, line,
                    lax ? ": data after the value" : "");
        cJSON_Delete(lax);
        return NULL;
    }
    const char *k = dup_key(j);
    if (k) {
        v10_err_set(err, "%s: duplicate key '%s' (each key may be given once)", origin, k);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

int v10_json_name(const cJSON *v, const char *origin, char *name, size_t size, v10_err *err)
{
    /* Escaped where it enters (util/text.h): a name is printed on a
     * terminal, in CSV and in reports; the limit counts the escapes. */
    size_t len = 0;
    if (!cJSON_IsString(v) || v10_name_take(name, size, v->valuestring, &len) <= 0) {
        char got[64];
        if (!cJSON_IsString(v))
            v10_json_got(v, got, sizeof got);
        else
            snprintf(got, sizeof got, "%zu characters", len);
        return v10_err_set(err, "%s: key 'name': expected a string of 1 to %zu characters, got %s",
                           origin, size - 1, got);
    }
    return 0;
}

const char *v10_json_got(const cJSON *v, char *buf, size_t n)
{
    if (!v)
        snprintf(buf, n, "nothing");
    else if (cJSON_IsNumber(v))
        v10_num_fmt(v->valuedouble, buf, n);
    else if (cJSON_IsString(v)) {
        char s[48];
        size_t len = strlen(v->valuestring);
        v10_name_escape(s, sizeof s, v->valuestring);
        snprintf(buf, n, "'%s'%s", s, strlen(s) < len ? "..." : "");
    } else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v))
        snprintf(buf, n, "null");
    else if (cJSON_IsObject(v))
        snprintf(buf, n, "an object");
    else
        snprintf(buf, n, "a list of %d", cJSON_GetArraySize(v));
    return buf;
}

int v10_json_spec_is_file(const char *spec)
{
    size_t l = strlen(spec);
    return strchr(spec, '/') || (l > 5 && !strcmp(spec + l - 5, ".json"));
}

