/* doc.c — render into memory, then emit whole (see doc.h). */
#include "report/doc.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/json.h"
#include "v10/report.h"

char *v10_doc_render(v10_doc_fn fn, const void *ctx, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    int bad = fn(ctx, f) != 0;
    bad |= ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        free(buf);
        return NULL;
    }
    if (len)
        *len = n;
    return buf;
}

int v10_doc_emit(v10_doc_fn fn, const void *ctx, FILE *out)
{
    size_t n;
    char *buf = v10_doc_render(fn, ctx, &n);
    if (!buf)
        return -1;
    int rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    free(buf);
    return rc;
}

int v10_doc_json(cJSON *root, unsigned mark, FILE *f)
{
    char *s = v10_json_failed_since(mark) ? NULL : v10_json_print(root, 1);
    cJSON_Delete(root);
    if (!s)
        return -1;
    fputs(s, f);
    fputc('\n', f);
    free(s);
    return 0;
}

int v10_doc_status(FILE *f, v10_err *err)
{
    return ferror(f) ? v10_err_set(err, "cannot write the output") : 0;
}

int v10_artifact_add(v10_artifact **files, size_t *n, const char *name, char *data, size_t len,
                     v10_err *err)
{
    if (!data)
        return v10_err_set(err, "%s: rendering failed", name);
    v10_artifact *f = realloc(*files, (*n + 1) * sizeof *f);
    if (!f) {
        free(data);
        return v10_err_set(err, "out of memory");
    }
    *files = f;
    v10_artifact *a = &f[(*n)++];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->data = data;
    a->len = len;
    return 0;
}
