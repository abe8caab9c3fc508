/*
 * doc.c — writing a report document whole or not at all (see doc.h).
 */
#include "report/doc.h"

#include "util/json.h"

int v10_doc_json(cJSON *o, unsigned mark, FILE *f, v10_err *err)
{
    char *s = o && !v10_json_failed_since(mark) ? v10_json_print(o, 1) : NULL;
    cJSON_Delete(o);
    if (!s)
        return v10_err_set(err, "out of memory building the output");
    int rc = fputs(s, f) < 0 || fputc('\n', f) == EOF ? -1 : 0;
    cJSON_free(s);
    return rc ? v10_err_set(err, "cannot write the output") : 0;
}

int v10_doc_done(FILE *f, v10_err *err)
{
    return ferror(f) ? v10_err_set(err, "cannot write the output") : 0;
}
