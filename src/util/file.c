/* file.c — whole-file input and safe output (see file.h). */
#define _DEFAULT_SOURCE /* flock */
#define _XOPEN_SOURCE 700 /* realpath */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

char *v10_file_read(const char *path, size_t max_bytes, size_t *len, v10_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
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
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
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
    if (!bad && rename(w->tmp, w->path) == 0) {
        w->tmp[0] = 0;
        if (w->sync && fsync_dir_of(w->path))
            return v10_err_set(err, "%s: %s", w->name, strerror(errno));
        return 0;
    }
    if (!bad)
        e = errno;
    unlink(w->tmp);
    w->tmp[0] = 0;
    return v10_err_set(err, "%s: write failed: %s", w->name, e ? strerror(e) : "I/O error");
}

void v10_wfile_abort(v10_wfile *w)
{
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    if (w->tmp[0])
        unlink(w->tmp);
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

int v10_lock_take(const char *path, const char *what, int *fd, v10_err *err)
{
    *fd = -1;
    int l = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (l < 0)
        return v10_err_set(err, "%s: cannot create the lock: %s", path, strerror(errno));
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
            return v10_err_set(err, "%s: cannot lock: %s", path, strerror(e));
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
        return v10_err_set(err, "%s: %s", path, strerror(e));
    }
    *fd = l;
    return 0;
}

void v10_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
