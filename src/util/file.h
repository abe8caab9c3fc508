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
 * symlink to a regular file, or a dangling one (through any chain of
 * links), is written the same way at its target, so the link stays a link
 * and its target is never seen half-written.  Anything else (a device, a FIFO, a terminal, the
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

/* A file that must be text (a CSV named as a model, a profile, a request
 * trace): as v10_file_read, but a NUL byte in the first 16 KiB read fails
 * at once, naming its line ("PATH:LINE: contains a NUL byte (expected
 * text)"), so that a binary file given by mistake is not read whole (up to
 * 2 GiB) before its parser refuses it.  A NUL byte further on is the
 * parser's to refuse. */
char *v10_file_read_text(const char *path, size_t max_bytes, size_t *len, v10_err *err);

/* Text inputs: as v10_file_read, and refuses a NUL byte (naming its line);
 * returns the text after a UTF-8 byte order mark, if any, in *start. */
char *v10_text_read(const char *path, size_t max_bytes, const char **start, v10_err *err);

/* Reads all of f (closing it) as v10_file_read does; path for messages. */
char *v10_file_read_stream(FILE *f, const char *path, size_t max_bytes, size_t *len,
                           v10_err *err);

/* The bytes after a UTF-8 byte order mark at the start of s, or s. */
const char *v10_skip_bom(const char *s);

/*
 * Input sets: files read once, whole, that the readers above (and
 * v10_input_open) serve from while the set is in use on the calling thread.
 * A command that runs many simulations on the same inputs (a sweep, `run`
 * with several policies) reads them into a set when it starts and uses it
 * on every thread that loads them: however the files change meanwhile,
 * every point sees the same bytes, the bytes the sweep hashed, and no
 * point opens a file (an I/O failure, `ulimit -n`, can only stop the
 * start).  With a set in use, a read of a file not in it fails (its
 * inputs were all known when the work started) and is noted for
 * v10_inputs_missed.  Invariant: paths unique; data[len] == 0.
 */
#define V10_INPUT_MAX_BYTES ((size_t)1 << 31) /* an input file, whole in memory */
typedef struct v10_input {
    char *path; /* as the model spec names it */
    char *data; /* its bytes, NUL-terminated */
    size_t len;
} v10_input;
typedef struct v10_inputs {
    v10_input *v;
    size_t n, cap;
} v10_inputs;

/* Reads PATH into the set (once: a path already there is kept as read);
 * a file not ending in .onnx must be text (v10_file_read_text). */
int v10_inputs_add(v10_inputs *in, const char *path, v10_err *err);
/* Puts len bytes of data into the set as PATH's (unless PATH is there). */
int v10_inputs_put(v10_inputs *in, const char *path, const char *data, size_t len,
                   v10_err *err);
const v10_input *v10_inputs_find(const v10_inputs *in, const char *path);
void v10_inputs_fini(v10_inputs *in);
/* Makes `in` the calling thread's set (NULL: none, read the files);
 * returns the one it replaces.  The set must outlive its use. */
const v10_inputs *v10_inputs_use(const v10_inputs *in);
/* 1 if a read on this thread missed its set since the last call. */
int v10_inputs_missed(void);
/* The set as one buffer (each path, NUL, its length in decimal, NUL, its
 * bytes), for another process; malloc'd, *len bytes, NULL if memory ran
 * out.  _unpack puts a packed set's files into `in`. */
char *v10_inputs_pack(const v10_inputs *in, size_t *len);
int v10_inputs_unpack(v10_inputs *in, const char *buf, size_t len, v10_err *err);
/* An input file as a stream, for readers that parse a FILE: from the set
 * in use, else the file.  NULL with err set on failure. */
FILE *v10_input_open(const char *path, v10_err *err);

typedef struct v10_wfile {
    FILE *f;
    const char *name;    /* the path as given, for messages (borrowed) */
    char path[4096];     /* where the bytes go (a symlink's target) */
    char tmp[4096 + 16]; /* the temporary renamed over path; "" if direct */
    int sync;            /* fsync the file and its directory on commit */
    int dirfd;           /* path and tmp are relative to it (AT_FDCWD, or a result folder) */
    char shown[4200];    /* DIR/NAME in a result folder (then name points here) */
} v10_wfile;

/* Opens an output (see above); sync: make the rename durable (fsync).
 * `path` must outlive the v10_wfile. */
int v10_wfile_open(v10_wfile *w, const char *path, int sync, v10_err *err);
/* Flushes, checks every write and renames the temporary into place;
 * -1 with err set on failure (the temporary is removed). */
int v10_wfile_commit(v10_wfile *w, v10_err *err);
/* Discards what was written (removes the temporary). */
void v10_wfile_abort(v10_wfile *w);
/* The first half of v10_wfile_commit: flushes and closes w's stream,
 * checking every write (and syncing a temporary if asked); on failure
 * removes the temporary and sets err.  The temporary, if any, stays in
 * w->tmp, not renamed yet (a set of files is put in place together). */
int v10_wfile_finish(v10_wfile *w, v10_err *err);
/* -1 with err naming `shown` if the existing regular file dirfd/name is
 * immutable or append-only (chattr +i / +a): it cannot be replaced. */
int v10_file_check_frozen(int dirfd, const char *name, const char *shown, v10_err *err);
/* Checks, before the work that produces it, that PATH can be written as
 * v10_wfile_open would: its temporary can be created (then removed) and
 * the file it replaces is not immutable; a device or FIFO is not opened.
 * 0, or -1 with err as v10_wfile_open's. */
int v10_wfile_probe(const char *path, v10_err *err);

/* 1 if writing `out` would replace the regular file `in` (the same file,
 * under any name or link), else 0 (either missing, or not one file). */
int v10_same_file(const char *out, const char *in);
/* The path of the input in `in` that writing `out` would replace, or NULL. */
const char *v10_inputs_overlap(const v10_inputs *in, const char *out);
/* fsync()s directory DIR (a rename or creation in it becomes durable). */
int v10_fsync_dir(const char *dir);
/* The whole of data[0..n) to PATH, by the rules above. */
int v10_file_write(const char *path, const void *data, size_t n, int sync, v10_err *err);

/*
 * Result folders (sweep, repro, llm-study; docs/formats.md, "Result
 * folders").  A folder named by the user (it may itself be a link to a
 * directory) is opened once; every file in it is then reached through the
 * folder's descriptor and never through a link: an entry we read, lock or
 * replace must be absent or a regular file with one link (a symlink, a
 * hard link to a file elsewhere, a FIFO or a directory is refused), a file
 * is written into a temporary NAME.tmp.XXXXXX created with O_EXCL (which
 * never follows a link) and renamed over NAME, and the lock is opened
 * without following links and without truncating.  Callers check what the
 * folder holds before they write anything, so a refused folder is left as
 * it was.
 */
typedef struct v10_outdir {
    int fd;           /* the folder (O_DIRECTORY); -1 when closed */
    const char *path; /* as given, for messages (borrowed) */
    size_t made;      /* path[0..made) is the first folder this open created
                       * (it and those below it up to path are new); 0: none */
} v10_outdir;

/* Opens folder PATH, creating it and missing parents (mode 0755); -1 with
 * err naming PATH on failure.  v10_outdir_close releases it. */
int v10_outdir_open(v10_outdir *d, const char *path, v10_err *err);
void v10_outdir_close(v10_outdir *d);
/* Closes a folder whose command failed before writing into it: the folders
 * its open created are removed again while empty (deepest first), so that a
 * refused or failed run leaves no empty result folder behind. */
void v10_outdir_abandon(v10_outdir *d);
/* 0 if NAME in the folder is absent (*exists = 0) or a regular file with
 * one link (*exists = 1; exists may be NULL); else -1 with err naming
 * PATH/NAME and what it is. */
int v10_outdir_check(const v10_outdir *d, const char *name, int *exists, v10_err *err);
/* Opens NAME of the folder for writing whole (v10_wfile_commit renames the
 * temporary over NAME; v10_wfile_abort removes it).  `name` must outlive w. */
int v10_outdir_wopen(const v10_outdir *d, const char *name, v10_wfile *w, int sync,
                     v10_err *err);
/* The whole of data[0..n) to NAME of the folder. */
int v10_outdir_write(const v10_outdir *d, const char *name, const void *data, size_t n,
                     int sync, v10_err *err);
/* Reads NAME of the folder (checked as above) into a NUL-terminated buffer
 * (caller frees); NULL with err set on failure or if NAME is absent
 * (*exists = 0 then, err unset). */
char *v10_outdir_read(const v10_outdir *d, const char *name, size_t max_bytes, int *exists,
                      v10_err *err);
/* Reads the first n bytes (fewer if it is shorter) of NAME of the folder,
 * checked as above, into buf: the count read, or -1 with err set. */
long v10_outdir_head(const v10_outdir *d, const char *name, void *buf, size_t n, v10_err *err);
/*
 * Takes the advisory lock NAME of the folder (created if needed) for as
 * long as this process keeps *fd open, and records our pid in it.  If
 * another process (or another open in this one) holds it: -1 with err
 * "WHAT is in use by pid N".  v10_lock_release closes the descriptor,
 * releasing the lock.
 */
int v10_outdir_lock(const v10_outdir *d, const char *name, const char *what, int *fd,
                    v10_err *err);
void v10_lock_release(int fd);

/* NAME of the folder can be replaced: v10_outdir_check, and if it exists
 * it is not immutable or append-only (chattr +i / +a); else -1 with err. */
int v10_outdir_replaceable(const v10_outdir *d, const char *name, v10_err *err);
/* The folder takes new files: a temporary is created in it and removed;
 * else -1 with err naming the folder and why. */
int v10_outdir_probe(const v10_outdir *d, v10_err *err);

/*
 * The folder of a command that writes a set of files (repro, llm-study):
 * it is the command's own earlier output if it holds the manifest
 * V10_MANIFEST whose first line is "v10sim OWNER" and whose other lines
 * name the files that run wrote.  v10_outdir_claim (before the work): 0 if
 * the folder is empty or OWNER's (its other files are the user's and stay
 * untouched) and every file its manifest lists can be replaced and the
 * folder takes new files (v10_outdir_replaceable, v10_outdir_probe), else
 * -1 naming what is in the way.
 *
 * v10_outdir_write_set: checks that each of names[0..n) is absent or
 * listed in the manifest (a user's file of the same name is refused), then
 * makes the folder hold this run's files and no other run's, or say that
 * it may not (docs/formats.md, "Result folders"):
 *   1. data[i] (len[i] bytes) into a temporary per name, none in place
 *      (a full disk or a write error stops here: the folder is unchanged);
 *   2. the manifest listing the earlier names, the new and V10_INCOMPLETE,
 *      then the marker file V10_INCOMPLETE;
 *   3. each temporary renamed over its name;
 *   4. the earlier run's listed files that this one did not write are
 *      removed, then the marker, and the manifest lists this run's names.
 * A run killed in 2-4 leaves the marker: the folder may mix two runs.
 */
#define V10_MANIFEST ".v10sim-output"
#define V10_INCOMPLETE "INCOMPLETE"
int v10_outdir_claim(const v10_outdir *d, const char *owner, v10_err *err);
int v10_outdir_write_set(const v10_outdir *d, const char *owner, const char *const *names,
                         const void *const *data, const size_t *len, size_t n, v10_err *err);

#endif
