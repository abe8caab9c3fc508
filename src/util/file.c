/* file.c — whole-file input, input sets read once, and safe output (see
 * file.h; result folders are in outdir.c). */
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h> /* FS_IOC_GETFLAGS: chattr's flags */
#endif

/* "PATH:LINE: contains a NUL byte (expected text)" if b[0..n) holds one
 * (-1), else 0. */
static int nul_byte(const char *path, const char *b, size_t n, v10_err *err)
{
    const char *z = memchr(b, 0, n);
    if (!z)
        return 0;
    size_t line = 1;
    for (const char *c = b; c < z; c++)
        line += *c == '\n';
    return v10_err_set(err, "%s:%zu: contains a NUL byte (expected text)", path, line);
}

/* v10_file_read_stream; with text, a NUL byte in the first block read
 * (16 KiB, or the whole of a shorter file) fails at once. */
static char *read_stream(FILE *f, const char *path, size_t max_bytes, size_t *len, int text,
                         v10_err *err)
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
        if (text && n == 0 && nul_byte(path, b, r, err)) {
            fclose(f);
            free(b);
            return NULL;
        }
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

char *v10_file_read_stream(FILE *f, const char *path, size_t max_bytes, size_t *len,
                           v10_err *err)
{
    return read_stream(f, path, max_bytes, len, 0, err);
}

/* ---- input sets -------------------------------------------------------- */

/* The set the calling thread's readers serve from (v10_inputs_use), and
 * whether a read missed it since v10_inputs_missed last looked. */
static _Thread_local const v10_inputs *in_use;
static _Thread_local int in_missed;

const v10_input *v10_inputs_find(const v10_inputs *in, const char *path)
{
    for (size_t i = 0; in && i < in->n; i++)
        if (!strcmp(in->v[i].path, path))
            return &in->v[i];
    return NULL;
}

int v10_inputs_put(v10_inputs *in, const char *path, const char *data, size_t len,
                   v10_err *err)
{
    if (v10_inputs_find(in, path))
        return 0;
    if (in->n == in->cap) {
        size_t nc = in->cap ? 2 * in->cap : 8;
        v10_input *nv = realloc(in->v, nc * sizeof *nv);
        if (!nv)
            return v10_err_set(err, "%s: out of memory", path);
        in->v = nv;
        in->cap = nc;
    }
    v10_input *x = &in->v[in->n];
    x->path = strdup(path);
    x->data = malloc(len + 1);
    if (!x->path || !x->data) {
        free(x->path);
        free(x->data);
        return v10_err_set(err, "%s: out of memory", path);
    }
    memcpy(x->data, data, len);
    x->data[len] = 0;
    x->len = len;
    in->n++;
    return 0;
}

int v10_inputs_add(v10_inputs *in, const char *path, v10_err *err)
{
    if (v10_inputs_find(in, path))
        return 0;
    const v10_inputs *prev = v10_inputs_use(NULL); /* from the file itself */
    size_t n, l = strlen(path);
    int onnx = l >= 5 && !strcmp(path + l - 5, ".onnx"); /* else text: a CSV */
    char *b = onnx ? v10_file_read(path, V10_INPUT_MAX_BYTES, &n, err)
                   : v10_file_read_text(path, V10_INPUT_MAX_BYTES, &n, err);
    v10_inputs_use(prev);
    if (!b)
        return -1;
    int rc = v10_inputs_put(in, path, b, n, err);
    free(b);
    return rc;
}

void v10_inputs_fini(v10_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->v[i].path);
        free(in->v[i].data);
    }
    free(in->v);
    memset(in, 0, sizeof *in);
}

const v10_inputs *v10_inputs_use(const v10_inputs *in)
{
    const v10_inputs *prev = in_use;
    in_use = in;
    return prev;
}

int v10_inputs_missed(void)
{
    int m = in_missed;
    in_missed = 0;
    return m;
}

/* The entry of the set in use for path: NULL if none is in use; if one
 * is and path is not in it, NULL with err set and the miss noted. */
static const v10_input *in_set(const char *path, int *refused, v10_err *err)
{
    *refused = 0;
    if (!in_use)
        return NULL;
    const v10_input *x = v10_inputs_find(in_use, path);
    if (!x) {
        in_missed = 1;
        *refused = 1;
        v10_err_set(err, "%s: not among the input files read when the work started (every "
                         "input is read once, then)", path);
    }
    return x;
}

char *v10_inputs_pack(const v10_inputs *in, size_t *len)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += strlen(in->v[i].path) + 1 + 24 + in->v[i].len;
    char *b = malloc(n + 1), *p = b;
    for (size_t i = 0; b && i < in->n; i++) {
        p += sprintf(p, "%s", in->v[i].path) + 1;
        p += sprintf(p, "%zu", in->v[i].len) + 1;
        memcpy(p, in->v[i].data, in->v[i].len);
        p += in->v[i].len;
    }
    if (b)
        *len = (size_t)(p - b);
    return b;
}

int v10_inputs_unpack(v10_inputs *in, const char *b, size_t len, v10_err *err)
{
    const char *p = b, *end = b + len;
    while (p < end) {
        const char *path = p, *nul = memchr(p, 0, (size_t)(end - p));
        const char *num = nul ? nul + 1 : end;
        const char *nul2 = num < end ? memchr(num, 0, (size_t)(end - num)) : NULL;
        char *stop;
        unsigned long long n = nul2 ? strtoull(num, &stop, 10) : 0;
        if (!nul || !nul2 || stop != nul2 || n > (size_t)(end - nul2 - 1))
            return v10_err_set(err, "packed inputs: malformed at byte %zu", (size_t)(p - b));
        if (v10_inputs_put(in, path, nul2 + 1, (size_t)n, err))
            return -1;
        p = nul2 + 1 + n;
    }
    return 0;
}

FILE *v10_input_open(const char *path, v10_err *err)
{
    int refused;
    const v10_input *x = in_set(path, &refused, err);
    if (refused)
        return NULL;
    FILE *f = x ? fmemopen(x->data, x->len ? x->len : 1, "r") : fopen(path, "r");
    if (!f)
        v10_err_set(err, "%s: cannot open: %s", path, x ? "out of memory" : strerror(errno));
    else if (x && !x->len)
        fgetc(f); /* fmemopen needs a byte of buffer: an empty input reads as empty */
    return f;
}

/* v10_file_read, or with text v10_file_read_text. */
static char *file_read(const char *path, size_t max_bytes, size_t *len, int text, v10_err *err)
{
    int refused;
    const v10_input *x = in_set(path, &refused, err);
    if (refused)
        return NULL;
    if (x) {
        if (x->len > max_bytes) {
            v10_err_set(err, "%s: larger than %zu bytes (the limit, docs/limits.md)", path,
                        max_bytes);
            return NULL;
        }
        char *b = malloc(x->len + 1);
        if (!b) {
            v10_err_set(err, "%s: out of memory", path);
            return NULL;
        }
        memcpy(b, x->data, x->len + 1);
        if (len)
            *len = x->len;
        return b;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    return read_stream(f, path, max_bytes, len, text, err);
}

char *v10_file_read(const char *path, size_t max_bytes, size_t *len, v10_err *err)
{
    return file_read(path, max_bytes, len, 0, err);
}

char *v10_file_read_text(const char *path, size_t max_bytes, size_t *len, v10_err *err)
{
    return file_read(path, max_bytes, len, 1, err);
}

const char *v10_skip_bom(const char *s)
{
    return !strncmp(s, "\xef\xbb\xbf", 3) ? s + 3 : s;
}

char *v10_text_read(const char *path, size_t max_bytes, const char **start, v10_err *err)
{
    size_t n;
    char *b = v10_file_read_text(path, max_bytes, &n, err);
    if (!b)
        return NULL;
    if (nul_byte(path, b, n, err)) { /* past the first block */
        free(b);
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

/* 1 if the file open as fd cannot be replaced or rewritten whatever the
 * permissions (chattr +i immutable, +a append-only): a rename over it
 * fails, so it is found before the work, not after. */
static int frozen(int fd)
{
#if defined(FS_IOC_GETFLAGS) && defined(FS_IMMUTABLE_FL) && defined(FS_APPEND_FL)
    int fl = 0;
    return ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && (fl & (FS_IMMUTABLE_FL | FS_APPEND_FL));
#else
    (void)fd;
    return 0;
#endif
}

int v10_file_check_frozen(int dirfd, const char *name, const char *shown, v10_err *err)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    int bad = fd >= 0 && frozen(fd);
    if (fd >= 0)
        close(fd);
    return bad ? v10_err_set(err, "%s: immutable or append-only (chattr +i / +a): it cannot "
                                  "be replaced; clear the flag, or choose another output",
                             shown)
               : 0;
}

/*
 * The file a dangling symlink at `path` names, through any chain of links,
 * into out[cap]: its directory resolved (realpath) and its last name, so
 * that it is created whole, through a temporary beside it, as a new file
 * would be.  -1 with err if the chain loops or its directory is missing.
 */
static int link_target(const char *path, char *out, size_t cap, v10_err *err)
{
    char cur[PATH_MAX], next[PATH_MAX], dir[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        ssize_t n = readlink(cur, next, sizeof next - 1);
        if (n < 0)
            return v10_err_set(err, "%s: cannot resolve the link: %s", path, strerror(errno));
        next[n] = 0;
        if (next[0] != '/') { /* relative to the link's own directory */
            char *slash = strrchr(cur, '/');
            int dl = slash ? (int)(slash - cur) : 1;
            if ((size_t)snprintf(dir, sizeof dir, "%.*s/%s", dl, slash ? cur : ".", next) >=
                sizeof dir)
                return v10_err_set(err, "%s: path too long", path);
            strcpy(next, dir);
        }
        strcpy(cur, next);
        struct stat st;
        if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode))
            continue;
        /* the end of the chain: a name that does not exist yet */
        char *slash = strrchr(cur, '/');
        const char *base = slash ? slash + 1 : cur;
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - cur) + (slash == cur) : 1,
                 slash ? cur : ".");
        char real[PATH_MAX];
        if (!*base || !realpath(dir, real))
            return v10_err_set(err, "%s: the link's target %s cannot be created: %s", path, cur,
                               *base ? strerror(errno) : "no file name");
        if ((size_t)snprintf(out, cap, "%s/%s", strcmp(real, "/") ? real : "", base) >= cap)
            return v10_err_set(err, "%s: path too long", path);
        return 0;
    }
    return v10_err_set(err, "%s: cannot resolve the link: %s", path, strerror(ELOOP));
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
        if (stat(path, &st) != 0) { /* dangling: its target is a new file */
            if (errno != ENOENT)
                return v10_err_set(err, "%s: cannot resolve the link: %s", path,
                                   strerror(errno));
            if (link_target(path, w->path, sizeof w->path, err))
                return -1;
            st.st_mode = S_IFREG;
            st.st_nlink = 0;
        }
        char real[PATH_MAX];
        if (S_ISREG(st.st_mode) && st.st_nlink) {
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
    if (st.st_nlink && v10_file_check_frozen(AT_FDCWD, w->path, path, err))
        return -1;
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

int v10_wfile_probe(const char *path, v10_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return 0; /* a device or FIFO: written directly, and opening a FIFO would block */
    v10_wfile w;
    if (v10_wfile_open(&w, path, 0, err))
        return -1;
    v10_wfile_abort(&w);
    return 0;
}

int v10_same_file(const char *out, const char *in)
{
    struct stat a, b;
    return stat(out, &a) == 0 && stat(in, &b) == 0 && S_ISREG(a.st_mode) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

const char *v10_inputs_overlap(const v10_inputs *in, const char *out)
{
    for (size_t i = 0; in && i < in->n; i++)
        if (v10_same_file(out, in->v[i].path))
            return in->v[i].path;
    return NULL;
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

int v10_wfile_finish(v10_wfile *w, v10_err *err)
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
    if (!bad)
        return 0;
    if (w->tmp[0])
        unlinkat(w->dirfd, w->tmp, 0);
    w->tmp[0] = 0;
    return v10_err_set(err, "%s: write failed: %s", w->name, e ? strerror(e) : "I/O error");
}

int v10_wfile_commit(v10_wfile *w, v10_err *err)
{
    if (v10_wfile_finish(w, err))
        return -1;
    if (!w->tmp[0])
        return 0;
    if (renameat(w->dirfd, w->tmp, w->dirfd, w->path) == 0) {
        w->tmp[0] = 0;
        if (w->sync && (w->dirfd == AT_FDCWD ? fsync_dir_of(w->path) : fsync(w->dirfd)))
            return v10_err_set(err, "%s: %s", w->name, strerror(errno));
        return 0;
    }
    int e = errno;
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

