/*
 * store.c — a sweep's result directory (docs/sweep.md): DIR/.lock (one
 * process per folder), DIR/spec.json (the canonical spec, its hash and the
 * content hashes of its input files), DIR/results.jsonl (one row per
 * finished point, appended and fsync'ed) and, once every point is done,
 * DIR/results.csv.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "util/file.h"
#include "util/json.h"
#include "util/num.h"

#define LOCK_NAME ".lock" /* held by the process that owns a result folder */

struct v10_sweep_store {
    const v10_sweep *s;
    char dir[4096];
    int fd;                 /* results.jsonl, O_APPEND */
    int lock;               /* DIR/.lock, held while the store is open */
    unsigned char *done;    /* one flag per point */
    size_t count, dropped;
    size_t refused;         /* rows with an "error", counted by finish */
};

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int mkdir_p(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(p, 0755) && errno != EEXIST)
                return -1;
            *c = '/';
        }
    if (mkdir(p, 0755) && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* 1 if DIR holds anything but what a sweep of ours leaves before its
 * spec.json exists (the temporary of spec.json, the lock), else 0.  A
 * user's file, whatever its name, makes the folder not ours. */
static int dir_has_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int any = 0;
    struct dirent *e;
    while (!any && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, LOCK_NAME))
            continue;
        if (!strncmp(n, "spec.json.tmp.", 14) && strlen(n) == 14 + 6) /* mkstemp's XXXXXX */
            continue;
        any = 1;
    }
    closedir(d);
    return any;
}

/* Checks one complete row; returns its index, -1 if it is not a valid row
 * of this sweep, or -2 if memory ran out (the row may be fine: keep it). */
static int64_t row_index(const v10_sweep *s, const char *line)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_Parse(line);
    if (!o && v10_json_failed_since(mark))
        return -2;
    int64_t idx = -1;
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, "index");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (cJSON_IsNumber(i) && cJSON_IsString(id) &&
        (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "result")) ||
         cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "error"))) &&
        i->valuedouble >= 0 &&
        i->valuedouble < (double)s->points && i->valuedouble == floor(i->valuedouble)) {
        char want[17];
        if (v10_sweep_point_id(s, (size_t)i->valuedouble, want))
            idx = -2;
        else if (!strcmp(want, id->valuestring))
            idx = (int64_t)i->valuedouble;
    }
    cJSON_Delete(o);
    return idx;
}

/* Loads results.jsonl: keeps valid first occurrences; cuts a torn tail, or
 * rewrites the file if rows inside it had to be dropped. */
static int load_rows(v10_sweep_store *st, v10_err *err)
{
    char path[4200];
    join(path, sizeof path, st->dir, "results.jsonl");
    size_t len;
    char *b = v10_file_read(path, SIZE_MAX / 2, &len, err);
    if (!b)
        return -1;
    char *keep = malloc(len + 1);
    if (!keep) {
        free(b);
        return v10_err_set(err, "out of memory");
    }
    size_t klen = 0, good_prefix = 0;
    int prefix_ok = 1;
    char *p = b;
    while (p < b + len) {
        char *nl = memchr(p, '\n', (size_t)(b + len - p));
        if (!nl) { /* torn last line: the process died while writing it */
            st->dropped++;
            break;
        }
        *nl = 0;
        int64_t i = row_index(st->s, p);
        if (i == -2) { /* never drop a row for want of memory */
            free(keep);
            free(b);
            return v10_err_set(err, "%s: out of memory", path);
        }
        if (i >= 0 && !st->done[i]) {
            st->done[i] = 1;
            st->count++;
            memcpy(keep + klen, p, (size_t)(nl - p));
            klen += (size_t)(nl - p);
            keep[klen++] = '\n';
            if (prefix_ok)
                good_prefix = (size_t)(nl + 1 - b);
        } else {
            st->dropped++;
            prefix_ok = 0;
        }
        p = nl + 1;
    }
    int rc = 0;
    if (prefix_ok && good_prefix < len) {
        if (ftruncate(st->fd, (off_t)good_prefix) || fsync(st->fd))
            rc = v10_err_set(err, "%s: %s", path, strerror(errno));
    } else if (!prefix_ok) {
        rc = v10_file_write(path, keep, klen, 1, err);
        if (rc == 0) {
            close(st->fd);
            st->fd = open(path, O_WRONLY | O_APPEND);
            if (st->fd < 0)
                rc = v10_err_set(err, "%s: %s", path, strerror(errno));
        }
    }
    free(keep);
    free(b);
    return rc;
}

/* Adds {path: hash} to the object in ctx for one input file (once). */
typedef struct hash_ctx {
    cJSON *o;
    v10_err *err;
} hash_ctx;

static int hash_input(const char *path, void *ctx)
{
    hash_ctx *h = ctx;
    if (cJSON_GetObjectItemCaseSensitive(h->o, path))
        return 0;
    size_t n;
    char *b = v10_file_read(path, (size_t)1 << 31, &n, h->err), hex[17];
    if (!b)
        return -1;
    sweep_hex16(sweep_fnv1a(b, n), hex);
    free(b);
    cJSON_AddStringToObject(h->o, path, hex);
    return 0;
}

/*
 * The files the points read, by content: {"PATH": "HASH"} for every file a
 * mix's models read (trace CSV, ONNX, llm/ configuration, calibration
 * profile; v10_model_spec_files), HASH the FNV-1a of its bytes.  The
 * spec's hash covers only the paths; a resume compares these, so a file
 * edited between a kill and --resume is refused instead of mixing old and
 * new rows.  (NPU settings in a spec are presets and fields, not files.)
 * NULL with err set on failure.
 */
static cJSON *input_hashes(const v10_sweep *s, v10_err *err)
{
    unsigned mark = v10_json_mark();
    hash_ctx h = {cJSON_CreateObject(), err};
    for (size_t k = 0; h.o && k < s->n_set; k++) {
        if (s->set[k].k != K_MIX)
            continue;
        const cJSON *mix;
        cJSON_ArrayForEach(mix, s->set[k].values) {
            const cJSON *t;
            cJSON_ArrayForEach(t, mix) {
                /* The model part of a tenant spec, as the points load it. */
                v10_tenant_spec ts;
                if (v10_tenant_spec_parse(t->valuestring, &ts, err) ||
                    v10_model_spec_files(ts.model, hash_input, &h, err)) {
                    cJSON_Delete(h.o);
                    return NULL;
                }
            }
        }
    }
    if (!h.o || v10_json_failed_since(mark)) {
        cJSON_Delete(h.o);
        v10_err_set(err, "out of memory");
        return NULL;
    }
    return h.o;
}

/* 0 if every input recorded in spec.json (`was`) still has its hash in
 * `now`; -1 with err naming the first file that changed. */
static int inputs_unchanged(const char *dir, const cJSON *was, const cJSON *now, v10_err *err)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, was) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(now, w->string);
        if (!cJSON_IsString(w) || !cJSON_IsString(n) || strcmp(w->valuestring, n->valuestring))
            return v10_err_set(err, "%s: input %s changed since the sweep started (content "
                                    "hash %s, now %s): refusing to resume, which would mix "
                                    "results of both; restore the file or run into a new --out",
                               dir, w->string, cJSON_IsString(w) ? w->valuestring : "?",
                               cJSON_IsString(n) ? n->valuestring : "missing");
    }
    return 0;
}

int v10_sweep_store_open(const char *dir, const v10_sweep *s, int resume,
                         v10_sweep_store **out, v10_err *err)
{
    *out = NULL;
    if (strlen(dir) >= 3900)
        return v10_err_set(err, "%s: path too long", dir);
    if (mkdir_p(dir))
        return v10_err_set(err, "%s: %s", dir, strerror(errno));
    v10_sweep_store *st = calloc(1, sizeof *st);
    unsigned char *done = calloc(s->points, 1);
    if (!st || !done) {
        free(st);
        free(done);
        return v10_err_set(err, "out of memory");
    }
    st->s = s;
    st->fd = st->lock = -1;
    st->done = done;
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    char path[4200];
    join(path, sizeof path, dir, LOCK_NAME);
    if (v10_lock_take(path, dir, &st->lock, err)) {
        v10_sweep_store_close(st);
        return -1;
    }
    join(path, sizeof path, dir, "spec.json");
    struct stat sst;
    char *old = NULL;
    int rc = -1;
    if (lstat(path, &sst) == 0 && !(old = v10_file_read(path, V10_JSON_MAX_BYTES, NULL, err))) {
        /* spec.json is there but unreadable: rc stays -1 */
    } else if (old) {
        cJSON *o = cJSON_Parse(old);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "spec_hash");
        if (!resume)
            v10_err_set(err, "%s already holds a sweep (%s): pass --resume to finish it, or "
                        "choose another --out", dir, path);
        else if (!cJSON_IsString(h))
            v10_err_set(err, "%s: not a sweep record (no spec_hash)", path);
        else if (strcmp(h->valuestring, s->hash))
            v10_err_set(err, "%s was started with a different spec (hash %s, this spec %s): "
                        "refusing to resume; run the changed spec into a new --out directory",
                        dir, h->valuestring, s->hash);
        else {
            const cJSON *was = cJSON_GetObjectItemCaseSensitive(o, "inputs");
            cJSON *now = was ? input_hashes(s, err) : NULL;
            rc = was && (!now || inputs_unchanged(dir, was, now, err)) ? -1 : 0;
            cJSON_Delete(now);
        }
        cJSON_Delete(o);
        free(old);
    } else if (dir_has_files(dir)) {
        v10_err_set(err, "%s: directory is not empty and holds no sweep (no spec.json); "
                    "choose an empty or new --out", dir);
    } else {
        unsigned mark = v10_json_mark();
        cJSON *rec = cJSON_CreateObject();
        cJSON_AddStringToObject(rec, "spec_hash", s->hash);
        cJSON_AddNumberToObject(rec, "points", (double)s->points);
        cJSON_AddStringToObject(rec, "version", V10_VERSION);
        v10_json_add(rec, "spec", cJSON_Parse(s->canonical));
        cJSON *inputs = input_hashes(s, err);
        if (!inputs) {
            cJSON_Delete(rec);
            v10_sweep_store_close(st);
            return -1;
        }
        if (cJSON_GetArraySize(inputs) > 0) /* a spec of zoo models only: none */
            v10_json_add(rec, "inputs", inputs);
        else
            cJSON_Delete(inputs);
        char *t = v10_json_failed_since(mark) ? NULL : cJSON_Print(rec);
        cJSON_Delete(rec);
        if (!t) {
            v10_err_set(err, "out of memory");
        } else {
            size_t n = strlen(t);
            t[n] = '\n';
            rc = v10_file_write(path, t, n + 1, 1, err);
            free(t);
        }
    }
    if (rc == 0) {
        join(path, sizeof path, dir, "results.jsonl");
        st->fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644);
        if (st->fd < 0)
            rc = v10_err_set(err, "%s: %s", path, strerror(errno));
        else if (v10_fsync_dir(dir))
            rc = v10_err_set(err, "%s: %s", dir, strerror(errno));
        else
            rc = load_rows(st, err);
    }
    if (rc) {
        v10_sweep_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

const unsigned char *v10_sweep_store_done(const v10_sweep_store *st) { return st->done; }
size_t v10_sweep_store_count(const v10_sweep_store *st) { return st->count; }
size_t v10_sweep_store_dropped(const v10_sweep_store *st) { return st->dropped; }
size_t v10_sweep_store_refused(const v10_sweep_store *st) { return st->refused; }

int v10_sweep_store_append(v10_sweep_store *st, size_t i, const char *row, v10_err *err)
{
    V10_ASSERT(i < st->s->points);
    size_t n = strlen(row);
    V10_ASSERT(n > 0 && row[n - 1] == '\n' && memchr(row, '\n', n) == row + n - 1);
    if (st->done[i])
        return 0;
    if (write_all(st->fd, row, n) || fdatasync(st->fd))
        return v10_err_set(err, "%s/results.jsonl: %s", st->dir, strerror(errno));
    st->done[i] = 1;
    st->count++;
    return 0;
}

void v10_sweep_store_close(v10_sweep_store *st)
{
    if (!st)
        return;
    if (st->fd >= 0)
        close(st->fd);
    v10_lock_release(st->lock);
    free(st->done);
    free(st);
}

/* ------------------------------------------------------------ results.csv */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > cap)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* A CSV cell: quoted when it holds a comma, quote, newline or edge space. */
static void sb_cell(sbuf *b, const char *s)
{
    size_t l = strlen(s);
    if (!strpbrk(s, ",\"\n\r") && !(l && (s[0] == ' ' || s[l - 1] == ' '))) {
        sb_put(b, s, l);
        return;
    }
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            sb_put(b, "\"\"", 2);
        else
            sb_put(b, s, 1);
    }
    sb_put(b, "\"", 1);
}

/* A JSON value as one CSV cell: lists of strings join with '+', lists of
 * numbers with ';', objects as compact JSON, null as empty. */
static void sb_json_cell(sbuf *b, const cJSON *j)
{
    char num[V10_NUM_MAX];
    if (!j || cJSON_IsNull(j)) {
        return;
    } else if (cJSON_IsString(j)) {
        sb_cell(b, j->valuestring);
    } else if (cJSON_IsNumber(j)) {
        v10_num_fmt(j->valuedouble, num, sizeof num); /* parsed JSON: finite */
        sb_str(b, num);
    } else if (cJSON_IsBool(j)) {
        sb_str(b, cJSON_IsTrue(j) ? "true" : "false");
    } else if (cJSON_IsArray(j)) {
        sbuf t = {0};
        for (const cJSON *c = j->child; c; c = c->next) {
            if (c != j->child)
                sb_str(&t, cJSON_IsString(c) ? "+" : ";");
            if (cJSON_IsString(c))
                sb_str(&t, c->valuestring);
            else {
                v10_num_fmt(c->valuedouble, num, sizeof num);
                sb_str(&t, num);
            }
        }
        sb_cell(b, t.p ? t.p : "");
        b->oom |= t.oom;
        free(t.p);
    } else {
        char *t = cJSON_PrintUnformatted(j);
        sb_cell(b, t ? t : "");
        b->oom |= !t;
        free(t);
    }
}

static const cJSON *path_get(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* Configuration columns: the point's own setting if the spec gives it, else
 * the value the run used. */
static const char *const cfg_cols[] = {"mix", "priority", "npu", "policy", "slice_cycles",
                                       "pmt_slice_us", "pmt_share", "prema_drain_frac",
                                       "contention", "requests", "warmup", "seed"};
static const char *const metric_cols[][2] = {
    {"window_cycles", NULL}, {"utilization", "sa"}, {"utilization", "vu"},
    {"utilization", "hbm"}, {"utilization", "overall"}, {"utilization", "overlap"},
    {"utilization", "sa_flops"}, {"system", "stp"}, {"system", "antt"},
    {"system", "fairness"}, {"system", "jain"}, {"overheads", "preemptions"},
    {"overheads", "context_switches"}, {"overheads", "switch_cycles"},
};
static const char *const tenant_cols[][2] = {
    {"model", NULL}, {"batch", NULL}, {"priority", NULL}, {"completed", NULL},
    {"throughput_rps", NULL}, {"np", NULL}, {"alone_latency_us", NULL},
    {"latency_us", "avg"}, {"latency_us", "p50"}, {"latency_us", "p95"},
    {"latency_us", "p99"}, {"slo_attainment", NULL}, {"preemptions", NULL},
};
#define N_OF(a) (sizeof a / sizeof a[0])

static void cfg_cell(sbuf *b, const cJSON *point, const cJSON *cfg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(point, key);
    if (v) {
        sb_json_cell(b, v);
        return;
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(cfg, "tenants");
    if (!strcmp(key, "mix") || !strcmp(key, "priority")) {
        cJSON *arr = cJSON_CreateArray();
        for (const cJSON *t = ts ? ts->child : NULL; arr && t; t = t->next)
            v10_json_push(arr, cJSON_Duplicate(
                cJSON_GetObjectItemCaseSensitive(t, key[0] == 'm' ? "model" : "priority"), 1));
        sb_json_cell(b, arr);
        cJSON_Delete(arr);
    } else if (!strcmp(key, "npu")) {
        sb_json_cell(b, path_get(cfg, "npu", "name"));
    } else if (strstr(key, "slice") || strstr(key, "pmt") || strstr(key, "prema")) {
        sb_json_cell(b, path_get(cfg, "params", key));
    } else {
        sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(cfg, key));
    }
}

/* The header line of results.csv for rows of up to max_t tenants. */
static void csv_header(sbuf *b, const v10_sweep *s, size_t max_t)
{
    char col[128];
    sb_str(b, "index,id");
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        sb_str(b, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_cell(b, s->set[j].key);
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        snprintf(col, sizeof col, ",%s%s%s", metric_cols[k][1] ? metric_cols[k][0] : "",
                 metric_cols[k][1] ? "_" : "",
                 metric_cols[k][1] ? metric_cols[k][1] : metric_cols[k][0]);
        sb_str(b, col);
    }
    for (size_t t = 0; t < max_t; t++)
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            snprintf(col, sizeof col, ",t%zu_%s%s%s", t, tenant_cols[k][0],
                     tenant_cols[k][1] ? "_" : "", tenant_cols[k][1] ? tenant_cols[k][1] : "");
            sb_str(b, col);
        }
    sb_str(b, ",error\n");
}

/* One row of results.csv from one parsed results.jsonl row. */
static void csv_row(sbuf *b, const v10_sweep *s, const cJSON *r, size_t max_t)
{
    const cJSON *point = path_get(r, "point", NULL);
    const cJSON *res = path_get(r, "result", NULL), *cfg = path_get(res, "config", NULL);
    sb_json_cell(b, path_get(r, "index", NULL));
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "id", NULL));
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        cfg_cell(b, point, cfg, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(point, s->set[j].key));
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        sb_str(b, ",");
        sb_json_cell(b, path_get(res, metric_cols[k][0], metric_cols[k][1]));
    }
    const cJSON *ts = path_get(res, "tenants", NULL);
    for (size_t t = 0; t < max_t; t++) {
        const cJSON *tj = cJSON_GetArrayItem(ts, (int)t);
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            sb_str(b, ",");
            if (tj)
                sb_json_cell(b, path_get(tj, tenant_cols[k][0], tenant_cols[k][1]));
        }
    }
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "error", NULL));
    sb_str(b, "\n");
}

/* Reads the results.jsonl line at `at` (or the next one if at < 0) and
 * parses it; *o is NULL at the end of the file.  -1 with err set on a read
 * error, an invalid row or out of memory. */
static int read_row(FILE *in, const char *path, off_t at, char **line, size_t *cap,
                    const v10_sweep *s, cJSON **o, size_t *index, v10_err *err)
{
    *o = NULL;
    if (at >= 0 && fseeko(in, at, SEEK_SET))
        return v10_err_set(err, "%s: %s", path, strerror(errno));
    errno = 0;
    ssize_t n = getline(line, cap, in);
    if (n < 0)
        return ferror(in) || errno == ENOMEM ? v10_err_set(err, "%s: %s", path,
                                                           errno ? strerror(errno) : "read error")
                                             : 0;
    unsigned mark = v10_json_mark();
    *o = cJSON_Parse(*line);
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(*o, "index");
    if (!*o && v10_json_failed_since(mark))
        return v10_err_set(err, "%s: out of memory", path);
    if (!cJSON_IsNumber(i) || i->valuedouble < 0 || i->valuedouble >= (double)s->points) {
        cJSON_Delete(*o);
        *o = NULL;
        return v10_err_set(err, "%s: invalid row", path);
    }
    *index = (size_t)i->valuedouble;
    return 0;
}

/*
 * Writes results.csv, one row per point in index order, streaming: a first
 * pass over results.jsonl notes where each point's first row starts (and
 * the most tenants in a row), a second reads the rows back in index order,
 * one at a time, into a temporary that is fsync'ed and renamed (v10_wfile).
 * Memory: one offset per point and one row.
 */
int v10_sweep_store_finish(v10_sweep_store *st, v10_err *err)
{
    const v10_sweep *s = st->s;
    if (st->count < s->points)
        return 0;
    char path[4200], dst[4200];
    join(path, sizeof path, st->dir, "results.jsonl");
    join(dst, sizeof dst, st->dir, "results.csv");
    FILE *in = fopen(path, "r"), *out = NULL;
    if (!in)
        return v10_err_set(err, "%s: %s", path, strerror(errno));
    off_t *at = malloc(s->points * sizeof *at);
    char *line = NULL;
    size_t cap = 0, max_t = 0, idx;
    sbuf b = {0};
    cJSON *o;
    int rc = at ? 0 : v10_err_set(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < s->points; i++)
        at[i] = -1;
    while (rc == 0) {
        off_t pos = ftello(in);
        if ((rc = read_row(in, path, -1, &line, &cap, s, &o, &idx, err)) || !o)
            break;
        size_t t = (size_t)cJSON_GetArraySize(path_get(path_get(o, "result", NULL), "tenants",
                                                       NULL));
        max_t = t > max_t ? t : max_t;
        if (at[idx] < 0) { /* a duplicate: keep the first */
            at[idx] = pos;
            st->refused += cJSON_GetObjectItemCaseSensitive(o, "error") != NULL;
        }
        cJSON_Delete(o);
    }
    for (size_t i = 0; rc == 0 && i < s->points; i++)
        if (at[i] < 0)
            rc = v10_err_set(err, "%s: point %zu is missing", path, i);
    v10_wfile w = {0};
    if (rc == 0 && v10_wfile_open(&w, dst, 1, err) == 0)
        out = w.f;
    else
        rc = -1;
    if (rc == 0)
        csv_header(&b, s, max_t);
    for (size_t i = 0; rc == 0 && i < s->points; i++) {
        if ((rc = read_row(in, path, at[i], &line, &cap, s, &o, &idx, err)))
            break;
        unsigned mark = v10_json_mark();
        csv_row(&b, s, o, max_t);
        cJSON_Delete(o);
        if (b.oom || v10_json_failed_since(mark))
            rc = v10_err_set(err, "%s: out of memory", dst);
        else if (fwrite(b.p, 1, b.n, out) != b.n)
            rc = v10_err_set(err, "%s: %s", dst, strerror(errno));
        b.n = 0;
    }
    if (out) {
        if (rc == 0)
            rc = v10_wfile_commit(&w, err);
        else
            v10_wfile_abort(&w);
    }
    free(b.p);
    free(line);
    free(at);
    fclose(in);
    return rc;
}
