/* doc.c — render into memory, then emit whole (see doc.h). */
#include "report/doc.h"

#include <stdlib.h>

#include "util/json.h"

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
