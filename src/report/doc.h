/*
 * doc.h (internal) — a rendered document is emitted whole or not at all.
 * A renderer writes into a memory stream; only when it and the stream
 * report success do the bytes go out (to a stream, or to the caller as a
 * buffer), so an allocation or write failure half-way never leaves a
 * truncated table, JSON document or file behind.
 */
#ifndef V10_REPORT_DOC_H
#define V10_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "v10/err.h"

/* Writes one document to f; returns 0, or -1 on failure. */
typedef int (*v10_doc_fn)(const void *ctx, FILE *f);

/* Renders into memory: a malloc'd NUL-terminated buffer (its length in
 * *len if non-NULL), or NULL if rendering or the stream failed. */
char *v10_doc_render(v10_doc_fn fn, const void *ctx, size_t *len);

/* Renders into memory, then writes the whole to out.  -1 on any failure,
 * in which case nothing was written. */
int v10_doc_emit(v10_doc_fn fn, const void *ctx, FILE *out);

/* Writes root, built since v10_json_mark() returned mark, as pretty JSON
 * and a newline; consumes root.  -1 without writing if any cJSON
 * allocation failed since mark (a document with holes) or printing did. */
int v10_doc_json(cJSON *root, unsigned mark, FILE *f);

/* For writers that report through v10_err: 0 if f took everything so far,
 * else -1 with err "cannot write the output". */
int v10_doc_status(FILE *f, v10_err *err);

#endif
