/*
 * file.h — reading a whole small text file (a JSON configuration) into
 * memory, with a size limit, for the loaders that parse from a buffer.
 */
#ifndef V10_UTIL_FILE_H
#define V10_UTIL_FILE_H

#include <stddef.h>

#include "v10/err.h"

/* Returns the file's bytes NUL-terminated (caller frees), or NULL with err
 * naming the path: cannot open, larger than `max_bytes`, a read error, or a
 * NUL byte inside (not text). */
char *v10_file_read_text(const char *path, size_t max_bytes, v10_err *err);

#endif
