/*
 * gz.h — gzip compression (zlib, RFC 1952) of a finished output, for the
 * writers whose outputs grow large (Perfetto traces).  The header carries
 * no time stamp or name, so the same input gives the same bytes.
 */
#ifndef V10_UTIL_GZ_H
#define V10_UTIL_GZ_H

#include <stdio.h>

#include "v10/err.h"

/* 1 if path names a gzip file (ends in ".gz"). */
int v10_gz_path(const char *path);

/* Compresses everything `in` holds, from its start, onto `out`.  Returns 0,
 * or -1 with err set on a read, write or zlib failure. */
int v10_gz_copy(FILE *in, FILE *out, v10_err *err);

#endif
