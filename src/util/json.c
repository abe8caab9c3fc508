/* json.c — cJSON allocation failures, counted per thread (see json.h). */
#include "util/json.h"

#include <pthread.h>
#include <stdlib.h>

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

cJSON_bool v10_json_push(cJSON *arr, cJSON *item)
{
    if (item && arr && cJSON_AddItemToArray(arr, item))
        return 1;
    cJSON_Delete(item);
    failures++;
    return 0;
}
