/*
 * file.h — the one way v10sim reads a whole input file and writes an output
 * file (docs/robustness.md, "Hostile conditions").
 *
 * Reading: an input is read once, whole, into memory; everything after
 * works on what was read, so a file replaced or a FIFO that serves other
 * bytes on a second open cannot change a run half-way.
 *
 * Writing: a new or regular file is written whole or not at all, through a
 * temporary (PATH.tmp.XXXXXX, mkstemp's unique name) renamed over it; a
 * symlink to a regular file is written the same way at its target, so the
 * link stays a link.  Anything else (a device, a FIFO, a terminal, the
 * file behind standard output) is never replaced: it is written directly
 * and its write errors are reported.  A directory is refused.
 */
#ifndef V10_UTIL_FILE_H
#define V10_UTIL_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "v10/err.h"

/* The size limit of a JSON input (NPU file, sweep spec), docs/limits.md. */
#define V10_JSON_MAX_BYTES ((size_t)16 << 20)

/*
 * Reads all of PATH into a NUL-terminated buffer (caller frees); *len (if
 * non-NULL) gets the size without the NUL.  A file of more than max_bytes
 * bytes is refused ("larger than N bytes"): max_bytes itself is allowed.
 * NULL with err set (naming PATH) on failure.
 */
char *v10_file_read(const char *path, size_t max_bytes, size_t *len, v10_err *err);

/* Text inputs: as v10_file_read, and refuses a NUL byte (naming its line);
 * returns the text after a UTF-8 byte order mark, if any, in *start. */
char *v10_text_read(const char *path, size_t max_bytes, const char **start, v10_err *err);

/* The bytes after a UTF-8 byte order mark at the start of s, or s. */
const char *v10_skip_bom(const char *s);

typedef struct v10_wfile {
    FILE *f;
    const char *name;    /* the path as given, for messages (borrowed) */
    char path[4096];     /* where the bytes go (a symlink's target) */
    char tmp[4096 + 16]; /* the temporary renamed over path; "" if direct */
    int sync;            /* fsync the file and its directory on commit */
} v10_wfile;

/* Opens an output (see above); sync: make the rename durable (fsync).
 * `path` must outlive the v10_wfile. */
int v10_wfile_open(v10_wfile *w, const char *path, int sync, v10_err *err);
/* Flushes, checks every write and renames the temporary into place;
 * -1 with err set on failure (the temporary is removed). */
int v10_wfile_commit(v10_wfile *w, v10_err *err);
/* Discards what was written (removes the temporary). */
void v10_wfile_abort(v10_wfile *w);
/* fsync()s directory DIR (a rename or creation in it becomes durable). */
int v10_fsync_dir(const char *dir);
/*
 * Takes the advisory lock PATH (created if needed) for as long as this
 * process keeps *fd open, and records our pid in it.  If another process
 * (or another open in this one) holds it: -1 with err "WHAT is in use by
 * pid N".  v10_lock_release closes the descriptor, releasing the lock.
 */
int v10_lock_take(const char *path, const char *what, int *fd, v10_err *err);
void v10_lock_release(int fd);
/* The whole of data[0..n) to PATH, by the rules above. */
int v10_file_write(const char *path, const void *data, size_t n, int sync, v10_err *err);

#endif
