/* file.c — whole-file input and safe output (see file.h). */
#define _DEFAULT_SOURCE /* flock */
#define _XOPEN_SOURCE 700 /* realpath */
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads all of f (closing it) as v10_file_read does; path for messages. */
static char *read_all(FILE *f, const char *path, size_t max_bytes, size_t *len, v10_err *err)
{
    /* Read until EOF, one byte past the limit at most: a FIFO or a file
     * that grows has no trustworthy size up front. */
    size_t cap = 1 << 14, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t want = cap - n - 1;
        if (want > max_bytes + 1 - n)
            want = max_bytes + 1 - n;
        size_t r = fread(b + n, 1, want, f);
        n += r;
        if (r < want || n > max_bytes)
            break;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb)
                free(b);
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f), e = errno;
    fclose(f);
    if (!b) {
        v10_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    if (bad || n > max_bytes) {
        free(b);
        if (bad)
            v10_err_set(err, "%s: read error: %s", path, strerror(e));
        else
            v10_err_set(err, "%s: larger than %zu bytes (the limit, docs/limits.md)", path,
                        max_bytes);
        return NULL;
    }
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

char *v10_file_read(const char *path, size_t max_bytes, size_t *len, v10_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    return read_all(f, path, max_bytes, len, err);
}

const char *v10_skip_bom(const char *s)
{
    return !strncmp(s, "\xef\xbb\xbf", 3) ? s + 3 : s;
}

char *v10_text_read(const char *path, size_t max_bytes, const char **start, v10_err *err)
{
    size_t n;
    char *b = v10_file_read(path, max_bytes, &n, err);
    if (!b)
        return NULL;
    size_t l = strlen(b);
    if (l != n) {
        size_t line = 1;
        for (size_t i = 0; i < l; i++)
            line += b[i] == '\n';
        free(b);
        v10_err_set(err, "%s:%zu: contains a NUL byte (expected text)", path, line);
        return NULL;
    }
    *start = v10_skip_bom(b);
    return b;
}

/* 1 or 2 if st is the file behind standard output or standard error, else
 * 0: replacing it would send the rest of the run's output into an unlinked
 * file, and a second descriptor on it would overwrite that output. */
static int std_stream(const struct stat *st)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat s;
        int fl = fcntl(fd, F_GETFL); /* a read-only one stands in for a closed stream */
        if (fl != -1 && (fl & O_ACCMODE) != O_RDONLY && fstat(fd, &s) == 0 &&
            s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return fd;
    }
    return 0;
}

/* Writes through our own standard output or error (sharing its offset). */
static int open_std(v10_wfile *w, int std, v10_err *err)
{
    fflush(std == 1 ? stdout : stderr);
    int fd = dup(std);
    if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return v10_err_set(err, "%s: cannot open: %s", w->name, strerror(e));
    }
    w->tmp[0] = 0;
    return 0;
}

/* Writes straight into an existing non-regular file (device, FIFO, ...). */
static int open_direct(v10_wfile *w, int flags, v10_err *err)
{
    int fd = open(w->path, O_WRONLY | O_NOCTTY | flags, 0666);
    if (fd < 0)
        return v10_err_set(err, "%s: cannot open: %s", w->name, strerror(errno));
    w->f = fdopen(fd, "w");
    if (!w->f) {
        close(fd);
        return v10_err_set(err, "%s: cannot open: %s", w->name, strerror(errno));
    }
    w->tmp[0] = 0;
    return 0;
}

int v10_wfile_open(v10_wfile *w, const char *path, int sync, v10_err *err)
{
    memset(w, 0, sizeof *w);
    w->name = path;
    w->sync = sync;
    w->dirfd = AT_FDCWD;
    if (strlen(path) >= sizeof w->path)
        return v10_err_set(err, "%s: path too long", path);
    strcpy(w->path, path);
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return v10_err_set(err, "%s: cannot create: %s", path, strerror(errno));
        st.st_mode = S_IFREG; /* a new file */
        st.st_nlink = 0;
    } else if (S_ISLNK(st.st_mode)) {
        /* Follow the link: its target is what gets written (or replaced). */
        if (stat(path, &st) != 0) /* dangling: create the target through it */
            return open_direct(w, O_CREAT | O_TRUNC, err);
        char real[PATH_MAX];
        if (S_ISREG(st.st_mode)) {
            if (!realpath(path, real) || strlen(real) >= sizeof w->path)
                return v10_err_set(err, "%s: cannot resolve the link: %s", path,
                                   strerror(errno ? errno : ENAMETOOLONG));
            strcpy(w->path, real);
        }
    }
    if (S_ISDIR(st.st_mode))
        return v10_err_set(err, "%s: is a directory (expected a file)", path);
    int std = st.st_nlink ? std_stream(&st) : 0;
    if (std)
        return open_std(w, std, err);
    if (!S_ISREG(st.st_mode))
        return open_direct(w, 0, err); /* a device, FIFO, socket: never replaced */
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.XXXXXX", w->path);
    int fd = mkstemp(w->tmp);
    if (fd < 0) {
        w->tmp[0] = 0;
        return v10_err_set(err, "%s: cannot create: %s", path, strerror(errno));
    }
    /* mkstemp makes the file 0600; give it the mode a plain fopen would. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    w->f = fdopen(fd, "w");
    if (!w->f) {
        int e = errno;
        close(fd);
        unlink(w->tmp);
        w->tmp[0] = 0;
        return v10_err_set(err, "%s: cannot open: %s", path, strerror(e));
    }
    return 0;
}

int v10_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int fsync_dir_of(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = 0;
    else if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    return v10_fsync_dir(dir);
}

int v10_wfile_commit(v10_wfile *w, v10_err *err)
{
    errno = 0;
    int bad = fflush(w->f) != 0 || ferror(w->f);
    if (!bad && w->sync && w->tmp[0] && fsync(fileno(w->f)))
        bad = 1;
    int e = errno;
    if (fclose(w->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    w->f = NULL;
    if (!w->tmp[0])
        return bad ? v10_err_set(err, "%s: write failed: %s", w->name,
                                 e ? strerror(e) : "I/O error")
                   : 0;
    if (!bad && renameat(w->dirfd, w->tmp, w->dirfd, w->path) == 0) {
        w->tmp[0] = 0;
        if (w->sync && (w->dirfd == AT_FDCWD ? fsync_dir_of(w->path) : fsync(w->dirfd)))
            return v10_err_set(err, "%s: %s", w->name, strerror(errno));
        return 0;
    }
    if (!bad)
        e = errno;
    unlinkat(w->dirfd, w->tmp, 0);
    w->tmp[0] = 0;
    return v10_err_set(err, "%s: write failed: %s", w->name, e ? strerror(e) : "I/O error");
}

void v10_wfile_abort(v10_wfile *w)
{
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    if (w->tmp[0])
        unlinkat(w->dirfd, w->tmp, 0);
    w->tmp[0] = 0;
}

int v10_file_write(const char *path, const void *data, size_t n, int sync, v10_err *err)
{
    v10_wfile w;
    if (v10_wfile_open(&w, path, sync, err))
        return -1;
    if (n && fwrite(data, 1, n, w.f) != n) {
        int e = errno;
        v10_wfile_abort(&w);
        return v10_err_set(err, "%s: write failed: %s", path, strerror(e));
    }
    return v10_wfile_commit(&w, err);
}

void v10_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* ---- result folders ---------------------------------------------------- */

int v10_outdir_open(v10_outdir *d, const char *path, v10_err *err)
{
    d->fd = -1;
    d->path = path;
    char p[4096];
    if (!*path || strlen(path) >= sizeof p)
        return v10_err_set(err, "'%s': expected a directory path (at most %zu bytes)", path,
                           sizeof p - 1);
    strcpy(p, path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/' && c[-1] != '/') {
            *c = 0;
            if (mkdir(p, 0777) && errno != EEXIST)
                return v10_err_set(err, "%s: cannot create directory: %s", p, strerror(errno));
            *c = '/';
        }
    if (mkdir(p, 0777) && errno != EEXIST)
        return v10_err_set(err, "%s: cannot create directory: %s", path, strerror(errno));
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
    /* A fresh name: O_EXCL fails on anything already there, a dangling
     * link included, so the temporary is always a new file of ours. */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned x = (unsigned)t.tv_nsec ^ ((unsigned)getpid() << 12);
    int fd = -1;
    for (int k = 0; fd < 0 && k < 64; k++) {
        x = x * 1103515245u + 12345u; /* the C standard's example LCG: any spread will do */
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%06x", name, (x >> 8) & 0xffffffu);
        fd = openat(d->fd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
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
    return f ? read_all(f, shown, max_bytes, NULL, err) : NULL;
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

int v10_outdir_claim(const v10_outdir *d, const char *owner, v10_err *err)
{
    int state;
    char *m = manifest_read(d, owner, &state, err);
    if (state < 0)
        return -1;
    if (m) { /* the files it lists will be replaced: each must be a plain file */
        int rc = 0;
        for (char *p = strchr(m, '\n'); rc == 0 && p && p[1]; p = strchr(p + 1, '\n')) {
            char name[256];
            size_t l = strcspn(p + 1, "\n");
            snprintf(name, sizeof name, "%.*s", (int)(l < 255 ? l : 255), p + 1);
            rc = strchr(name, '/') || !strcmp(name, "..") ? 0
                                                          : v10_outdir_check(d, name, NULL, err);
        }
        free(m);
        return rc;
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
    size_t cap = strlen(owner) + 16 + (m ? strlen(m) : 0);
    for (size_t i = 0; i < n; i++) {
        int exists;
        if (v10_outdir_check(d, names[i], &exists, err)) {
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
        cap += strlen(names[i]) + 1;
    }
    /* The manifest first: a run killed after it left files we know. */
    char *t = malloc(cap);
    if (!t) {
        free(m);
        return v10_err_set(err, "out of memory");
    }
    size_t k = (size_t)snprintf(t, cap, "v10sim %s\n", owner);
    for (const char *p = m ? strchr(m, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
        size_t l = strcspn(p + 1, "\n");
        memcpy(t + k, p + 1, l);
        t[k + l] = '\n';
        k += l + 1;
    }
    t[k] = 0;
    for (size_t i = 0; i < n; i++)
        if (!listed(t, names[i]))
            k += (size_t)snprintf(t + k, cap - k, "%s\n", names[i]);
    free(m);
    int rc = v10_outdir_write(d, V10_MANIFEST, t, k, 0, err);
    free(t);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = v10_outdir_write(d, names[i], data[i], len[i], 0, err);
    return rc;
}
