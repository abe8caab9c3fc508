/* outdir.c — result folders (sweep, repro, llm-study): files reached
 * through the folder's descriptor, never through a link, and the manifest
 * of a command's set of files (see file.h). */
#define _DEFAULT_SOURCE /* flock */
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Creates folder p (a prefix of d->path) unless it exists; the first one
 * created is recorded in d->made (v10_outdir_abandon removes it again). */
static int make_dir(v10_outdir *d, const char *p, v10_err *err)
{
    if (mkdir(p, 0777) == 0) {
        if (!d->made)
            d->made = strlen(p);
        return 0;
    }
    if (errno == EEXIST)
        return 0;
    return v10_err_set(err, "%s: cannot create directory: %s", p, strerror(errno));
}

int v10_outdir_open(v10_outdir *d, const char *path, v10_err *err)
{
    d->fd = -1;
    d->path = path;
    d->made = 0;
    char p[4096];
    if (!*path || strlen(path) >= sizeof p)
        return v10_err_set(err, "'%s': expected a directory path (at most %zu bytes)", path,
                           sizeof p - 1);
    strcpy(p, path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/' && c[-1] != '/') {
            *c = 0;
            if (make_dir(d, p, err))
                return -1;
            *c = '/';
        }
    if (make_dir(d, p, err))
        return -1;
    d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->fd < 0)
        return v10_err_set(err, "%s: %s (expected a directory)", path, strerror(errno));
    return 0;
}

void v10_outdir_close(v10_outdir *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

void v10_outdir_abandon(v10_outdir *d)
{
    v10_outdir_close(d);
    char p[4096];
    size_t n = d->made ? strlen(d->path) : 0;
    if (!n || n >= sizeof p)
        return;
    memcpy(p, d->path, n + 1);
    while (n > d->made && p[n - 1] == '/') /* "a/b/" is a/b */
        p[--n] = 0;
    /* Deepest first, up to the first folder this open made; a folder that
     * holds anything stops it. */
    while (rmdir(p) == 0 && n > d->made) {
        while (n > 0 && p[n - 1] != '/')
            n--;
        while (n > 0 && p[n - 1] == '/')
            n--;
        if (n < d->made)
            break;
        p[n] = 0;
    }
    d->made = 0;
}

/* 0 if st is a regular file with one link, else -1 with err saying what
 * DIR/NAME is instead. */
static int plain_file(const v10_outdir *d, const char *name, const struct stat *st,
                      v10_err *err)
{
    if (S_ISLNK(st->st_mode))
        return v10_err_set(err, "%s/%s: is a symbolic link; refusing to follow or replace it "
                                "(files in a result folder are never reached through a "
                                "link): remove it, or choose another --out", d->path, name);
    if (!S_ISREG(st->st_mode))
        return v10_err_set(err, "%s/%s: not a regular file; refusing to use it: remove it, "
                                "or choose another --out", d->path, name);
    if (st->st_nlink != 1)
        return v10_err_set(err, "%s/%s: has %ju hard links; refusing to write through it "
                                "(the other names would change too): remove it, or choose "
                                "another --out", d->path, name, (uintmax_t)st->st_nlink);
    return 0;
}

int v10_outdir_check(const v10_outdir *d, const char *name, int *exists, v10_err *err)
{
    struct stat st;
    if (exists)
        *exists = 0;
    if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
        if (errno == ENOENT)
            return 0;
        return v10_err_set(err, "%s/%s: %s", d->path, name, strerror(errno));
    }
    if (exists)
        *exists = 1;
    return plain_file(d, name, &st, err);
}

int v10_outdir_replaceable(const v10_outdir *d, const char *name, v10_err *err)
{
    int exists;
    char shown[4200];
    snprintf(shown, sizeof shown, "%s/%s", d->path, name);
    return v10_outdir_check(d, name, &exists, err) ||
                   (exists && v10_file_check_frozen(d->fd, name, shown, err))
               ? -1 : 0;
}

/* Creates a fresh temporary NAME.tmp.XXXXXX in folder dirfd (its name
 * into tmp[cap]): O_EXCL fails on anything already there, a dangling link
 * included, so it is always a new file of ours.  The descriptor, or -1
 * with errno set. */
static int create_tmp(int dirfd, const char *name, char *tmp, size_t cap)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned x = (unsigned)t.tv_nsec ^ ((unsigned)getpid() << 12);
    int fd = -1;
    for (int k = 0; fd < 0 && k < 64; k++) {
        x = x * 1103515245u + 12345u; /* the C standard's example LCG: any spread will do */
        snprintf(tmp, cap, "%s.tmp.%06x", name, (x >> 8) & 0xffffffu);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

int v10_outdir_probe(const v10_outdir *d, v10_err *err)
{
    char tmp[64];
    int fd = create_tmp(d->fd, ".v10sim-probe", tmp, sizeof tmp);
    if (fd < 0)
        return v10_err_set(err, "%s: cannot write in this folder: %s; choose another --out",
                           d->path, strerror(errno));
    close(fd);
    if (unlinkat(d->fd, tmp, 0))
        return v10_err_set(err, "%s/%s: cannot remove: %s", d->path, tmp, strerror(errno));
    return 0;
}

/* Opens NAME of the folder with flags (never through a link); checks that
 * what was opened is a plain file.  -1 with err set on failure. */
static int open_plain(const v10_outdir *d, const char *name, int flags, v10_err *err)
{
    int fd = openat(d->fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
    struct stat st;
    if (fd < 0 && errno == ELOOP && !fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
        return plain_file(d, name, &st, err);
    if (fd < 0)
        return v10_err_set(err, "%s/%s: cannot open: %s", d->path, name, strerror(errno));
    if (fstat(fd, &st) || plain_file(d, name, &st, err)) {
        if (!err->msg[0])
            v10_err_set(err, "%s/%s: %s", d->path, name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int v10_outdir_wopen(const v10_outdir *d, const char *name, v10_wfile *w, int sync,
                     v10_err *err)
{
    memset(w, 0, sizeof *w);
    w->sync = sync;
    w->dirfd = d->fd;
    snprintf(w->shown, sizeof w->shown, "%s/%s", d->path, name);
    w->name = w->shown;
    if (strlen(name) + 16 >= sizeof w->path || strchr(name, '/'))
        return v10_err_set(err, "%s/%s: expected a file name", d->path, name);
    if (v10_outdir_check(d, name, NULL, err))
        return -1;
    strcpy(w->path, name);
    int fd = create_tmp(d->fd, name, w->tmp, sizeof w->tmp);
    if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlinkat(d->fd, w->tmp, 0);
        }
        w->tmp[0] = 0;
        return v10_err_set(err, "%s/%s: cannot create: %s", d->path, name, strerror(e));
    }
    return 0;
}

int v10_outdir_write(const v10_outdir *d, const char *name, const void *data, size_t n,
                     int sync, v10_err *err)
{
    v10_wfile w;
    if (v10_outdir_wopen(d, name, &w, sync, err))
        return -1;
    if (n && fwrite(data, 1, n, w.f) != n) {
        int e = errno;
        v10_wfile_abort(&w);
        return v10_err_set(err, "%s/%s: write failed: %s", d->path, name, strerror(e));
    }
    return v10_wfile_commit(&w, err);
}

char *v10_outdir_read(const v10_outdir *d, const char *name, size_t max_bytes, int *exists,
                      v10_err *err)
{
    int ex;
    err->msg[0] = 0;
    if (exists)
        *exists = 0;
    if (v10_outdir_check(d, name, &ex, err) || !ex)
        return NULL;
    if (exists)
        *exists = 1;
    int fd = open_plain(d, name, O_RDONLY, err);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (fd >= 0 && !f) {
        close(fd);
        v10_err_set(err, "%s/%s: cannot open: %s", d->path, name, strerror(errno));
    }
    char shown[4200];
    snprintf(shown, sizeof shown, "%s/%s", d->path, name);
    return f ? v10_file_read_stream(f, shown, max_bytes, NULL, err) : NULL;
}

long v10_outdir_head(const v10_outdir *d, const char *name, void *buf, size_t n, v10_err *err)
{
    err->msg[0] = 0;
    int fd = open_plain(d, name, O_RDONLY, err);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return v10_err_set(err, "%s/%s: read error: %s", d->path, name, strerror(e));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return (long)got;
}

int v10_outdir_lock(const v10_outdir *d, const char *name, const char *what, int *fd,
                    v10_err *err)
{
    *fd = -1;
    err->msg[0] = 0;
    /* No O_TRUNC: the file is emptied only once it is ours and locked. */
    int l = open_plain(d, name, O_RDWR | O_CREAT, err);
    if (l < 0)
        return -1;
    /* flock: held per open file description, so a second open in this
     * process conflicts too; released by the kernel if we die. */
    while (flock(l, LOCK_EX | LOCK_NB)) {
        if (errno == EINTR)
            continue;
        int e = errno;
        char buf[32] = {0};
        ssize_t n = pread(l, buf, sizeof buf - 1, 0);
        close(l);
        long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
        if (e != EWOULDBLOCK)
            return v10_err_set(err, "%s/%s: cannot lock: %s", d->path, name, strerror(e));
        if (pid > 0)
            return v10_err_set(err, "%s is in use by pid %ld (only one process at a time; "
                                    "wait for it to finish)", what, pid);
        return v10_err_set(err, "%s is in use by another process (only one at a time; wait "
                                "for it to finish)", what);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(l, 0) || pwrite(l, buf, (size_t)n, 0) != n) {
        int e = errno;
        close(l);
        return v10_err_set(err, "%s/%s: %s", d->path, name, strerror(e));
    }
    *fd = l;
    return 0;
}

/* The manifest of the folder: NULL (*state 0) if there is none, else its
 * text (*state 1) after checking that its first line names owner; NULL
 * with *state -1 and err set if it is unreadable or another command's. */
static char *manifest_read(const v10_outdir *d, const char *owner, int *state, v10_err *err)
{
    int exists;
    char *m = v10_outdir_read(d, V10_MANIFEST, (size_t)1 << 20, &exists, err);
    *state = m ? 1 : exists ? -1 : 0;
    if (!m)
        return NULL;
    char want[64];
    snprintf(want, sizeof want, "v10sim %s\n", owner);
    if (strncmp(m, want, strlen(want))) {
        size_t l = strcspn(m, "\n");
        v10_err_set(err, "%s holds the output of another command (%s says '%.*s', expected "
                         "'v10sim %s'); choose another --out", d->path, V10_MANIFEST,
                    (int)(l > 60 ? 60 : l), m, owner);
        free(m);
        *state = -1;
        return NULL;
    }
    return m;
}

/* 1 if NAME is one of the lines after the first of manifest m. */
static int listed(const char *m, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = strchr(m, '\n'); p; p = strchr(p + 1, '\n'))
        if (!strncmp(p + 1, name, l) && p[1 + l] == '\n')
            return 1;
    return 0;
}

/* Calls fn(d, name, ctx) for each name the manifest m lists (its lines
 * after the first that are plain names: no '/', not "." or ".."), until
 * one returns non-zero, which it returns. */
static int each_listed(const v10_outdir *d, const char *m,
                       int (*fn)(const v10_outdir *d, const char *name, void *ctx), void *ctx)
{
    int rc = 0;
    for (const char *p = strchr(m, '\n'); rc == 0 && p && p[1]; p = strchr(p + 1, '\n')) {
        char name[256];
        size_t l = strcspn(p + 1, "\n");
        snprintf(name, sizeof name, "%.*s", (int)(l < 255 ? l : 255), p + 1);
        if (name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."))
            rc = fn(d, name, ctx);
    }
    return rc;
}

static int listed_replaceable(const v10_outdir *d, const char *name, void *err)
{
    return v10_outdir_replaceable(d, name, err);
}

int v10_outdir_claim(const v10_outdir *d, const char *owner, v10_err *err)
{
    int state;
    char *m = manifest_read(d, owner, &state, err);
    if (state < 0)
        return -1;
    if (m) { /* the files it lists will be replaced: each must be a plain file */
        int rc = each_listed(d, m, listed_replaceable, err);
        free(m);
        return rc ? rc : v10_outdir_probe(d, err);
    }
    int fd = dup(d->fd);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return v10_err_set(err, "%s: cannot list: %s", d->path, strerror(errno));
    }
    const struct dirent *e;
    char first[256] = "";
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(first, sizeof first, "%s", e->d_name);
            break;
        }
    closedir(dir);
    if (first[0])
        return v10_err_set(err, "%s: directory is not empty (it holds '%s') and is not an "
                                "earlier output of v10sim %s (no %s): choose an empty or new "
                                "--out", d->path, first, owner, V10_MANIFEST);
    return v10_outdir_probe(d, err);
}

/* The manifest text "v10sim OWNER\n" and one line per name of names[0..n)
 * and of extra (NULL-terminated), each once; NULL if memory ran out. */
static char *manifest_text(const char *owner, const char *const *names, size_t n,
                           const char *const *extra)
{
    size_t cap = strlen(owner) + 16;
    for (size_t i = 0; i < n; i++)
        cap += strlen(names[i]) + 1;
    for (size_t i = 0; extra && extra[i]; i++)
        cap += strlen(extra[i]) + 1;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    size_t k = (size_t)snprintf(t, cap, "v10sim %s\n", owner);
    for (size_t i = 0; i < n; i++)
        if (!listed(t, names[i]))
            k += (size_t)snprintf(t + k, cap - k, "%s\n", names[i]);
    for (size_t i = 0; extra && extra[i]; i++)
        if (!listed(t, extra[i]))
            k += (size_t)snprintf(t + k, cap - k, "%s\n", extra[i]);
    return t;
}

/* The names of manifest m (after its first line) as a NULL-terminated
 * array pointing into m, whose newlines become NULs; NULL if memory ran
 * out (or m is NULL: then an empty array). */
static const char **manifest_names(char *m)
{
    size_t n = 0;
    for (const char *p = m ? strchr(m, '\n') : NULL; p; p = strchr(p + 1, '\n'))
        n++;
    const char **v = calloc(n + 1, sizeof *v);
    if (!v || !m)
        return v;
    size_t k = 0;
    char *p = strchr(m, '\n');
    while (p && p[1]) {
        char *line = p + 1;
        p = strchr(line, '\n');
        if (p)
            *p = 0;
        if (line[0] && !strchr(line, '/') && strcmp(line, ".") && strcmp(line, ".."))
            v[k++] = line;
        if (!p)
            break;
    }
    return v;
}

/* 1 if name is one of names[0..n). */
static int among(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return 1;
    return 0;
}

int v10_outdir_write_set(const v10_outdir *d, const char *owner, const char *const *names,
                         const void *const *data, const size_t *len, size_t n, v10_err *err)
{
    int state;
    char *m = manifest_read(d, owner, &state, err);
    if (state < 0)
        return -1;
    /* Check every name before writing any: a refusal changes nothing. */
    for (size_t i = 0; i < n; i++) {
        int exists;
        if (v10_outdir_check(d, names[i], &exists, err) ||
            v10_outdir_replaceable(d, names[i], err)) {
            free(m);
            return -1;
        }
        if (exists && !(m && listed(m, names[i]))) {
            free(m);
            return v10_err_set(err, "%s/%s: already there and not written by v10sim %s "
                                    "(not in %s); refusing to replace it: move it away, or "
                                    "choose another --out", d->path, names[i], owner,
                               V10_MANIFEST);
        }
    }
    const char **old = manifest_names(m); /* m's lines, cut in place */
    char (*tmp)[300] = calloc(n ? n : 1, sizeof *tmp); /* NAME.tmp.XXXXXX, NAME < 256 */
    char *t = NULL;
    int rc = old && tmp ? 0 : v10_err_set(err, "out of memory");
    /* 1. Every file whole into its temporary, none in place yet: a full
     * disk or a write error leaves the folder as it was. */
    size_t made = 0;
    for (; rc == 0 && made < n; made++) {
        v10_wfile w;
        if (strlen(names[made]) + 12 >= sizeof *tmp) {
            rc = v10_err_set(err, "%s/%s: file name too long", d->path, names[made]);
            break;
        }
        if (v10_outdir_wopen(d, names[made], &w, 0, err))
            rc = -1;
        else if (len[made] && fwrite(data[made], 1, len[made], w.f) != len[made])
            rc = v10_wfile_finish(&w, err) ? -1 : v10_err_set(err, "%s: write failed", w.name);
        else
            rc = v10_wfile_finish(&w, err);
        if (rc == 0)
            memcpy(tmp[made], w.tmp, strlen(w.tmp) + 1); /* fits: checked above */
        else if (w.tmp[0])
            unlinkat(d->fd, w.tmp, 0);
        if (rc)
            break;
    }
    /* 2. The manifest (the old names, the new and the marker), then the
     * marker: from here until the marker is removed, the folder may hold
     * files of two runs, and says so. */
    static const char *const marker[] = {V10_INCOMPLETE, NULL};
    if (rc == 0) {
        size_t n_old = 0;
        while (old[n_old])
            n_old++;
        const char **all = calloc(n_old + n + 1, sizeof *all);
        if (all) {
            memcpy(all, old, n_old * sizeof *all);
            memcpy(all + n_old, names, n * sizeof *all);
        }
        t = all ? manifest_text(owner, all, n_old + n, marker) : NULL;
        rc = t ? v10_outdir_write(d, V10_MANIFEST, t, strlen(t), 0, err)
               : v10_err_set(err, "out of memory");
        free(all);
    }
    char note[320];
    int nl = snprintf(note, sizeof note,
                      "v10sim %s was writing the files of this folder and did not finish: they "
                      "may be of two runs.  Run the command again to complete it; this file is "
                      "removed when a run has written every file.\n", owner);
    if (rc == 0)
        rc = v10_outdir_write(d, V10_INCOMPLETE, note, (size_t)nl, 0, err);
    /* 3. Every file in place (renames: nothing left to run out of). */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (renameat(d->fd, tmp[i], d->fd, names[i]))
            rc = v10_err_set(err, "%s/%s: cannot put in place: %s (the folder is marked %s)",
                             d->path, names[i], strerror(errno), V10_INCOMPLETE);
        else
            tmp[i][0] = 0;
    }
    /* 4. The earlier run's files this one did not write, the marker, and
     * the manifest of this run alone. */
    for (size_t i = 0; rc == 0 && old[i]; i++)
        if (!among(old[i], names, n) && strcmp(old[i], V10_INCOMPLETE) &&
            strcmp(old[i], V10_MANIFEST) && v10_outdir_check(d, old[i], NULL, err) == 0)
            unlinkat(d->fd, old[i], 0);
    if (rc == 0 && unlinkat(d->fd, V10_INCOMPLETE, 0))
        rc = v10_err_set(err, "%s/%s: cannot remove: %s", d->path, V10_INCOMPLETE,
                         strerror(errno));
    if (rc == 0) {
        free(t);
        t = manifest_text(owner, names, n, NULL);
        rc = t ? v10_outdir_write(d, V10_MANIFEST, t, strlen(t), 0, err)
               : v10_err_set(err, "out of memory");
    }
    for (size_t i = 0; tmp && i < made; i++) /* a failure: temporaries not in place */
        if (tmp[i][0])
            unlinkat(d->fd, tmp[i], 0);
    free(t);
    free(tmp);
    free(old);
    free(m);
    return rc;
}
