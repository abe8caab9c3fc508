/* config.c — reading JSON configuration files (see config.h). */
#include "util/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *v10_config_read_text(const char *path, size_t max_bytes, v10_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int oom = 0;
    for (;;) {
        if (len + 1 >= cap) {
            /* Grow; the last size holds one byte past the limit (to notice
             * it) and the NUL.  cap < max_bytes + 2 here, or len > max. */
            size_t ncap = cap ? 2 * cap : 4096;
            if (ncap > max_bytes + 2)
                ncap = max_bytes + 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                oom = 1;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + len, 1, cap - len - 1, f);
        len += r;
        if (len > max_bytes || r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (oom || len > max_bytes || bad) {
        free(buf);
        if (oom)
            v10_err_set(err, "%s: out of memory", path);
        else if (len > max_bytes)
            v10_err_set(err, "%s: larger than %zu bytes", path, max_bytes);
        else
            v10_err_set(err, "%s: read error", path);
        return NULL;
    }
    buf[len] = 0;
    if (strlen(buf) != len) {
        free(buf);
        v10_err_set(err, "%s: contains a NUL byte (not a text file)", path);
        return NULL;
    }
    return buf;
}

cJSON *v10_config_parse(const char *text, const char *origin, const char *what, v10_err *err)
{
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *c = text; at && c < at && *c; c++)
            line += *c == '\n';
        v10_err_set(err, "%s:%d: malformed JSON", origin, line);
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        v10_err_set(err, "%s: expected a JSON object of %s", origin, what);
        return NULL;
    }
    return root;
}

int v10_config_name(const cJSON *v, const char *origin, char *name, size_t size, v10_err *err)
{
    if (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) >= size)
        return v10_err_set(err, "%s: key 'name': expected a string of 1 to %zu characters",
                           origin, size - 1);
    snprintf(name, size, "%s", v->valuestring);
    return 0;
}
