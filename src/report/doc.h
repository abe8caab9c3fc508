/*
 * doc.h — the last step of every report document (src/report/): write a
 * JSON document only if it was built whole.
 */
#ifndef V10_REPORT_DOC_H
#define V10_REPORT_DOC_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "v10/err.h"

/* Writes o (pretty, one trailing newline) to f and deletes it, unless an
 * allocation failed since `mark` (util/json.h) or o is NULL: then nothing
 * is written.  0, or -1 with err set. */
int v10_doc_json(cJSON *o, unsigned mark, FILE *f, v10_err *err);

/* -1 with err "cannot write the output" if f's error flag is set, else 0. */
int v10_doc_done(FILE *f, v10_err *err);

#endif
