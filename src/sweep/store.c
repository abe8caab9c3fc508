/*
 * store.c — a sweep's result directory (docs/sweep.md): DIR/.lock (one
 * process per folder), DIR/spec.json (the canonical spec, its hash and the
 * content hashes of its input files) and DIR/results.db, the durable
 * result store: an SQLite database in WAL mode, one transaction per
 * finished point, resumed by asking which indices it holds.  This file is
 * the project's only user of SQLite; export.c reads rows through
 * sweep_store_rows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "sweep/spec.h"
#include "sweep/store.h"
#include "util/file.h"
#include "util/json.h"

/* json_type / json_array_length are built into SQLite from 3.38 on. */
#if SQLITE_VERSION_NUMBER < 3038000
#error "SQLite 3.38 or newer is needed (Debian 12: libsqlite3-dev 3.40)"
#endif

#define LOCK_NAME ".lock" /* held by the process that owns a result folder */
#define DB_NAME "results.db"
#define STORE_FORMAT "2" /* meta.format: the schema below */

/*
 * The schema (format 2).  meta holds spec_hash (the v10_sweep_hash of the
 * spec the rows belong to), points and format; points holds one row per
 * finished point: its index, its id (v10_sweep_point_id), the result row
 * as compact JSON without the newline (v10_sweep_run_point) and sum, the
 * FNV-1a of the three (row_sum), which tells a row as we wrote it from
 * one edited since.  A store is ours only if it holds exactly these two
 * tables, created by exactly these statements (as SQLite keeps them in
 * sqlite_master), and meta.format is STORE_FORMAT.  (Format 1, before the
 * row sums, is refused by its version.)
 */
static const char *const tables[][2] = {
    {"meta", "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"},
    {"points", "CREATE TABLE points(idx INTEGER PRIMARY KEY, id TEXT NOT NULL, "
               "row TEXT NOT NULL, sum TEXT NOT NULL)"},
};
#define N_TABLES (sizeof tables / sizeof tables[0])
/* meta's PRIMARY KEY index, which SQLite makes itself (sql NULL). */
#define META_INDEX "sqlite_autoindex_meta_1"

/*
 * Invariants while open: this process holds DIR/.lock and the database's
 * exclusive lock; meta.spec_hash is s's hash; done[i] != 0 exactly for the
 * indices i with a row in `points` whose id is point i's, and count is
 * their number (rows of any other index or id were deleted on open and
 * counted in `dropped`).  The caller serializes every call.
 */
struct v10_sweep_store {
    const v10_sweep *s;
    char dir[4096];
    char db_path[4200];
    v10_outdir out;         /* DIR, through which every file but the database is reached */
    int lock;               /* DIR/.lock, held while the store is open */
    sqlite3 *db;
    sqlite3_stmt *insert;   /* INSERT INTO points */
    int fresh_db;           /* results.db held no table when opened */
    unsigned char *done;    /* one flag per point */
    size_t count, dropped;
    char drop_why[160];     /* the first dropped row and why, or "" */
    size_t refused;         /* rows with an "error", counted by sweep_store_stats */
};

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

/* err = "DIR/results.db: WHAT: SQLite's message - the system's" (the
 * latter for an I/O error: SQLite's "disk I/O error" alone does not say
 * "File too large"; errno still holds it when this is called at once). */
static int db_fail(v10_sweep_store *st, const char *what, v10_err *err)
{
    int e = errno;
    int code = st->db ? sqlite3_errcode(st->db) & 0xff : SQLITE_NOMEM; /* primary code */
    int sys = st->db ? sqlite3_system_errno(st->db) : 0;
    if (!sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
        sys = e;
    const char *m = st->db ? sqlite3_errmsg(st->db) : "out of memory";
    return v10_err_set(err, "%s: %s%s%s%s%s", st->db_path, what, *what ? ": " : "", m,
                       sys ? " - " : "", sys ? strerror(sys) : "");
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


/*
 * The files the points read, by content: {"PATH": "HASH"} for every input
 * of the sweep (every file a mix reads: trace CSV, ONNX, llm/ configuration,
 * its trace or lengths, calibration profile; v10/sweep.h), HASH the FNV-1a
 * of the bytes the sweep read when it started, the very bytes every point
 * runs on.  The spec's hash covers only the paths; a resume compares
 * these, so a file edited between a kill and --resume is refused instead
 * of mixing old and new rows.  (NPU settings in a spec are presets and
 * fields, not files.)  NULL with err set on failure.
 */
static cJSON *input_hashes(const v10_sweep *s, v10_err *err)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    for (size_t k = 0; o && k < s->inputs.n; k++) {
        char hex[17];
        sweep_hex16(sweep_fnv1a(s->inputs.v[k].data, s->inputs.v[k].len), hex);
        cJSON_AddStringToObject(o, s->inputs.v[k].path, hex);
    }
    if (!o || v10_json_failed_since(mark)) {
        cJSON_Delete(o);
        v10_err_set(err, "out of memory");
        return NULL;
    }
    return o;
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

/* Runs SQL without results; -1 with err naming `what` on failure. */
static int db_exec(v10_sweep_store *st, const char *sql, const char *what, v10_err *err)
{
    return sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
                                                                     : db_fail(st, what, err);
}

/* meta.KEY into out[cap] ("" if absent); -1 if it cannot be read. */
static int db_meta(v10_sweep_store *st, const char *key, char *out, size_t cap)
{
    sqlite3_stmt *q;
    out[0] = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = ?", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(q);
    if (step == SQLITE_ROW && sqlite3_column_text(q, 0))
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
}

/* err = "DIR/results.db: not a sweep result store (WHY); ..." */
static int not_ours(v10_sweep_store *st, const char *why, v10_err *err)
{
    return v10_err_set(err, "%s: not a sweep result store as v10sim writes it (%s); refusing "
                            "to use or change it: move it away, or run into a new --out",
                       st->db_path, why);
}

/*
 * Whether results.db is a store of ours, read without writing anything:
 * its header is SQLite's (or the file is empty), no rollback journal lies
 * beside it (a store keeps a WAL; opening the database would roll a
 * journal back into it), and it holds exactly the tables of `tables`
 * (st->fresh_db: none yet), of format STORE_FORMAT, spec_hash this spec's
 * and points this spec's count, and passes SQLite's quick_check.  The
 * connection is opened with the checkpoint on close turned off, so that
 * closing it after a refusal leaves a foreign WAL as it was.  0, or -1
 * with err saying what it is instead.
 */
static int db_inspect(v10_sweep_store *st, v10_err *err)
{
    int exists;
    if (v10_outdir_check(&st->out, DB_NAME "-journal", &exists, err))
        return -1;
    if (exists)
        return not_ours(st, DB_NAME "-journal beside it: a rollback journal, which a store "
                            "never keeps", err);
    unsigned char head[16];
    long got = 0;
    if (v10_outdir_check(&st->out, DB_NAME, &exists, err) ||
        (exists && (got = v10_outdir_head(&st->out, DB_NAME, head, sizeof head, err)) < 0))
        return -1;
    if (got > 0 && (got < (long)sizeof head || memcmp(head, "SQLite format 3", 16)))
        return not_ours(st, "not an SQLite database", err);
    if (sqlite3_open_v2(st->db_path, &st->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                        NULL) != SQLITE_OK)
        return db_fail(st, "cannot open", err);
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    if (db_exec(st, "PRAGMA locking_mode=EXCLUSIVE", "", err))
        return -1;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT type, name, sql FROM sqlite_master", -1, &q, NULL) !=
        SQLITE_OK) {
        if ((sqlite3_errcode(st->db) & 0xff) == SQLITE_NOTADB)
            return not_ours(st, sqlite3_errmsg(st->db), err);
        return db_fail(st, "cannot open", err); /* an I/O error, a full disk */
    }
    int step, n = 0, seen[N_TABLES] = {0};
    char other[160] = "";
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        const char *sql = (const char *)sqlite3_column_text(q, 2);
        n++;
        int known = type && name && !strcmp(type, "index") && !strcmp(name, META_INDEX) && !sql;
        for (size_t k = 0; !known && k < N_TABLES; k++)
            if (type && name && !strcmp(type, "table") && !strcmp(name, tables[k][0])) {
                known = sql && !strcmp(sql, tables[k][1]);
                seen[k] = 1;
                if (!known && !other[0])
                    snprintf(other, sizeof other, "table %s is not as a store's", name);
            }
        if (!known && !other[0])
            snprintf(other, sizeof other, "it holds %s %.60s", type ? type : "?",
                     name ? name : "?");
    }
    int bad_step = step != SQLITE_DONE;
    sqlite3_finalize(q);
    if (bad_step)
        return (sqlite3_errcode(st->db) & 0xff) == SQLITE_NOTADB
                   ? not_ours(st, sqlite3_errmsg(st->db), err)
                   : db_fail(st, "cannot open", err);
    st->fresh_db = n == 0;
    if (st->fresh_db)
        return 0;
    /* The version first: an earlier format's tables differ, and are
     * refused for what they are. */
    char format[32] = "", hash[32] = "", points[32] = "";
    if (seen[0] && db_meta(st, "format", format, sizeof format) == 0 && format[0] &&
        strcmp(format, STORE_FORMAT))
        return v10_err_set(err, "%s: a sweep result store of format %s; this v10sim reads "
                                "format " STORE_FORMAT " only (written by another version): "
                                "run into a new --out, or resume with the version that "
                                "started it", st->db_path, format);
    if (other[0] || !seen[0] || !seen[1])
        return not_ours(st, other[0] ? other : "a table of a store is missing", err);
    if (db_meta(st, "format", format, sizeof format) || db_meta(st, "spec_hash", hash, sizeof hash) ||
        db_meta(st, "points", points, sizeof points))
        return db_fail(st, "reading", err);
    if (!format[0])
        return not_ours(st, "no format in its meta table", err);
    char want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)st->s->points);
    if (strcmp(hash, st->s->hash) || strcmp(points, want))
        return v10_err_set(err, "%s holds the results of another spec (hash %s, %s points; "
                                "this spec %s, %s points): refusing to resume; run into a new "
                                "--out", st->db_path, hash, points, st->s->hash, want);
    if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check", -1, &q, NULL) != SQLITE_OK)
        return db_fail(st, "checking", err);
    char verdict[200] = "";
    if ((step = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_text(q, 0))
        snprintf(verdict, sizeof verdict, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    if (step != SQLITE_ROW)
        return db_fail(st, "checking", err);
    if (strcmp(verdict, "ok"))
        return v10_err_set(err, "%s: the store is damaged (SQLite's quick_check: %s); move it "
                                "away, or run into a new --out", st->db_path, verdict);
    return 0;
}

/*
 * Opens DIR/results.db once db_inspect found it ours (or new): WAL
 * journal, each commit synced (synchronous=FULL), and locking_mode=
 * EXCLUSIVE, set before WAL is, so the WAL index lives in this process's
 * memory, not in a -shm file beside it (one process per folder holds the
 * lock anyway; this also keeps WAL working on a network file system).  A
 * new database gets the schema and meta in one transaction.  Nothing is
 * written to a database before db_inspect accepted it.
 */
static int db_open(v10_sweep_store *st, v10_err *err)
{
    int had_wal = 1;
    if (v10_outdir_check(&st->out, DB_NAME "-wal", &had_wal, err))
        return -1;
    if (db_inspect(st, err)) {
        /* Reading a database in WAL mode creates its (empty) log, which
         * a refused file did not have: closed, then removed. */
        sqlite3_close(st->db);
        st->db = NULL;
        struct stat sb;
        if (!had_wal && !fstatat(st->out.fd, DB_NAME "-wal", &sb, AT_SYMLINK_NOFOLLOW) &&
            S_ISREG(sb.st_mode) && sb.st_size == 0)
            unlinkat(st->out.fd, DB_NAME "-wal", 0);
        return -1;
    }
    sqlite3_stmt *q = NULL;
    const unsigned char *mode = NULL;
    if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode=WAL", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        mode = sqlite3_column_text(q, 0);
    int wal = mode && !strcmp((const char *)mode, "wal");
    sqlite3_finalize(q);
    if (!wal)
        return (sqlite3_errcode(st->db) & 0xff) == SQLITE_OK
                   ? v10_err_set(err, "%s: cannot use a WAL journal here", st->db_path)
                   : db_fail(st, "cannot open", err);
    if (db_exec(st, "PRAGMA synchronous=FULL", "", err))
        return -1;
    if (st->fresh_db) { /* new, or created by a sweep killed before its first commit */
        char *sql = sqlite3_mprintf("BEGIN;%s;%s;INSERT INTO meta VALUES('spec_hash', %Q), "
                                    "('points', '%llu'), ('format', '" STORE_FORMAT "');COMMIT;",
                                    tables[0][1], tables[1][1], st->s->hash,
                                    (unsigned long long)st->s->points);
        int rc = sql ? db_exec(st, sql, "creating the store", err)
                     : v10_err_set(err, "out of memory");
        sqlite3_free(sql);
        if (rc) {
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    /* ours: closing checkpoints the WAL into results.db and removes it */
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
    if (sqlite3_prepare_v2(st->db, "INSERT INTO points(idx, id, row, sum) VALUES(?, ?, ?, ?)",
                           -1, &st->insert, NULL) != SQLITE_OK)
        return db_fail(st, "cannot open", err);
    return 0;
}

/* The row sum of point i's record: FNV-1a 64 of "i id row" (row without
 * its newline, n bytes), 16 hex digits into hex[17]. */
static void row_sum(size_t i, const char *id, const char *row, size_t n, char *hex)
{
    char head[64];
    int k = snprintf(head, sizeof head, "%zu %s ", i, id);
    sweep_hex16(sweep_fnv1a_more(sweep_fnv1a(head, (size_t)k), row, n), hex);
}

/* Deletes the rows of the n indices bad[] in one transaction. */
static int db_delete(v10_sweep_store *st, const sqlite3_int64 *bad, size_t n, v10_err *err)
{
    sqlite3_stmt *del = NULL;
    if (db_exec(st, "BEGIN", "dropping invalid rows", err))
        return -1;
    int ok = sqlite3_prepare_v2(st->db, "DELETE FROM points WHERE idx = ?", -1, &del, NULL) ==
             SQLITE_OK;
    for (size_t k = 0; ok && k < n; k++) {
        sqlite3_bind_int64(del, 1, bad[k]);
        ok = sqlite3_step(del) == SQLITE_DONE;
        sqlite3_reset(del);
    }
    sqlite3_finalize(del);
    if (ok && db_exec(st, "COMMIT", "dropping invalid rows", err) == 0)
        return 0;
    if (!ok) /* else the COMMIT failed and said so */
        db_fail(st, "dropping invalid rows", err);
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* 0 if `row` (compact JSON) is the record of point i with id `id`, as
 * v10_sweep_run_point writes it: JSON by the strict rule of every input
 * (v10_json_parse_input: nothing after the value, no key twice), an object
 * whose "index" is i, whose "id" is id and which holds a "result" object or
 * an "error" string; else 1 with why[] saying what is wrong, or -1 if
 * memory ran out. */
static int row_invalid(const char *row, size_t i, const char *id, char *why, size_t cap)
{
    unsigned mark = v10_json_mark();
    v10_err e = {{0}};
    cJSON *o = row ? v10_json_parse_input(row, "row", &e) : NULL;
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(o, "index");
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(o, "id");
    int bad = 1;
    if (v10_json_failed_since(mark) || strstr(e.msg, "out of memory"))
        bad = -1;
    else if (!o)
        snprintf(why, cap, "%.100s", e.msg[0] ? e.msg : "no text");
    else if (!cJSON_IsObject(o))
        snprintf(why, cap, "not a JSON object");
    else if (!cJSON_IsNumber(ix) || ix->valuedouble != (double)i)
        snprintf(why, cap, "its \"index\" is not %zu", i);
    else if (!cJSON_IsString(rid) || strcmp(rid->valuestring, id))
        snprintf(why, cap, "its \"id\" is not %s", id);
    else if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "result")) &&
             !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "error")))
        snprintf(why, cap, "it holds neither a \"result\" object nor an \"error\"");
    else
        bad = 0;
    cJSON_Delete(o);
    return bad;
}

/* Marks the rows of the store done; deletes (and counts in `dropped`) any
 * that is not as this store wrote it: whose index is out of range, whose
 * id is not that point's, whose sum is not its row's (edited), whose row
 * is not text that both SQLite's JSON functions and ours accept, or whose
 * record is not that point's result (row_invalid; the first is described
 * in drop_why).  Such a point runs again: the store is ours, the row not. */
static int db_load(v10_sweep_store *st, v10_err *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT idx, id, row, sum, typeof(row) = 'text' AND "
                                   "json_valid(row) FROM points", -1, &q, NULL) != SQLITE_OK)
        return db_fail(st, "reading", err);
    sqlite3_int64 *bad = NULL;
    size_t cap = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_int64 i = sqlite3_column_int64(q, 0);
        const char *id = (const char *)sqlite3_column_text(q, 1);
        char want[17], why[128] = "";
        int in_range = i >= 0 && (uint64_t)i < st->s->points, invalid = 1;
        if (in_range && v10_sweep_point_id(st->s, (size_t)i, want)) {
            invalid = -1;
        } else if (!in_range) {
            snprintf(why, sizeof why, "not a point of this spec (%llu points)",
                     (unsigned long long)st->s->points);
        } else if (!id || strcmp(id, want)) {
            snprintf(why, sizeof why, "its id is not point %lld's %s", (long long)i, want);
        } else {
            const char *row = (const char *)sqlite3_column_text(q, 2);
            size_t n = (size_t)sqlite3_column_bytes(q, 2);
            const char *sum = (const char *)sqlite3_column_text(q, 3);
            char hex[17];
            if (row)
                row_sum((size_t)i, want, row, n, hex);
            if (!row || !sum || strcmp(sum, hex))
                snprintf(why, sizeof why, "edited since it was written (its sum is not its "
                                          "row's)");
            else if (!sqlite3_column_int(q, 4) || memchr(row, 0, n))
                snprintf(why, sizeof why, "not JSON text by SQLite's json_valid");
            else
                invalid = row_invalid(row, (size_t)i, want, why, sizeof why);
        }
        if (invalid < 0) { /* never drop a row for want of memory */
            rc = v10_err_set(err, "%s: out of memory", st->db_path);
        } else if (!invalid) {
            st->done[i] = 1;
            st->count++;
        } else {
            if (!st->drop_why[0])
                snprintf(st->drop_why, sizeof st->drop_why, "row %lld: %s", (long long)i, why);
            if (st->dropped == cap) {
                size_t nc = cap ? 2 * cap : 16;
                sqlite3_int64 *nb = realloc(bad, nc * sizeof *nb);
                if (nb) {
                    bad = nb;
                    cap = nc;
                } else {
                    rc = v10_err_set(err, "out of memory");
                }
            }
            if (st->dropped < cap)
                bad[st->dropped++] = i;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(st, "reading", err);
    sqlite3_finalize(q);
    if (rc == 0 && st->dropped)
        rc = db_delete(st, bad, st->dropped, err);
    free(bad);
    return rc;
}

/* The spec.json of a new sweep: the canonical spec, its hash, the point
 * count and the content hashes of the input files (written atomically). */
static int write_spec(const v10_sweep *s, const v10_outdir *d, v10_err *err)
{
    unsigned mark = v10_json_mark();
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "spec_hash", s->hash);
    cJSON_AddNumberToObject(rec, "points", (double)s->points);
    cJSON_AddStringToObject(rec, "version", V10_VERSION);
    v10_json_add(rec, "spec", cJSON_Parse(s->canonical));
    cJSON *inputs = input_hashes(s, err);
    if (!inputs) {
        cJSON_Delete(rec);
        return -1;
    }
    if (cJSON_GetArraySize(inputs) > 0) /* a spec of zoo models only: none */
        v10_json_add(rec, "inputs", inputs);
    else
        cJSON_Delete(inputs);
    char *t = v10_json_failed_since(mark) ? NULL : v10_json_print(rec, 1);
    cJSON_Delete(rec);
    if (!t)
        return v10_err_set(err, "out of memory");
    size_t n = strlen(t);
    t[n] = '\n';
    int rc = v10_outdir_write(d, "spec.json", t, n + 1, 1, err);
    free(t);
    return rc;
}

/* An existing spec.json (text `old`) allows a resume of s in dir: 0, or -1
 * with err saying why not. */
static int check_spec(const char *dir, const char *path, const char *old, const v10_sweep *s,
                      int resume, v10_err *err)
{
    cJSON *o = cJSON_Parse(old);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "spec_hash");
    int rc = -1;
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
    return rc;
}

/*
 * What DIR holds, read only: every name the store locks, reads or writes
 * must be absent or a plain file (v10_outdir_check); then *fresh = 1 for a
 * folder without a sweep (empty but for what a sweep of ours leaves before
 * its spec.json), 0 for a sweep that may be resumed; else -1 with err.
 */
static int check_folder(v10_sweep_store *st, int resume, int *fresh, v10_err *err)
{
    static const char *const names[] = {LOCK_NAME, "spec.json", DB_NAME, DB_NAME "-wal",
                                        DB_NAME "-journal", DB_NAME "-shm", "results.jsonl",
                                        "results.csv"};
    int exists[sizeof names / sizeof names[0]];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (v10_outdir_check(&st->out, names[k], &exists[k], err) ||
            (k >= 6 && v10_outdir_replaceable(&st->out, names[k], err))) /* the exports */
            return -1;
    char *old = v10_outdir_read(&st->out, "spec.json", V10_JSON_MAX_BYTES, &exists[1], err);
    *fresh = 0;
    if (!old && exists[1])
        return -1; /* spec.json is there but unreadable */
    if (old) {
        int rc = check_spec(st->dir, "spec.json", old, st->s, resume, err);
        free(old);
        if (rc == 0 && !exists[2] && exists[6])
            rc = v10_err_set(err, "%s holds results.jsonl but no %s: a sweep of a v10sim "
                             "before the SQLite store, which this one cannot resume; run "
                             "into a new --out", st->dir, DB_NAME);
        return rc;
    }
    if (dir_has_files(st->dir))
        return v10_err_set(err, "%s: directory is not empty and holds no sweep (no spec.json); "
                           "choose an empty or new --out", st->dir);
    *fresh = 1;
    return 0;
}

int v10_sweep_store_open(const char *dir, const v10_sweep *s, int resume,
                         v10_sweep_store **out, v10_err *err)
{
    *out = NULL;
    if (strlen(dir) >= 3900)
        return v10_err_set(err, "%s: path too long", dir);
    v10_sweep_store *st = calloc(1, sizeof *st);
    unsigned char *done = calloc(s->points, 1);
    if (!st || !done) {
        free(st);
        free(done);
        return v10_err_set(err, "out of memory");
    }
    st->s = s;
    st->lock = -1;
    st->out.fd = -1;
    st->done = done;
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    join(st->db_path, sizeof st->db_path, dir, DB_NAME);
    /* The folder is judged before the lock is taken (a refused folder is
     * left as it was) and again once it is held (another sweep may have
     * started it meanwhile). */
    int fresh;
    int rc = v10_outdir_open(&st->out, st->dir, err);
    if (rc == 0)
        rc = check_folder(st, resume, &fresh, err);
    if (rc == 0) /* the folder takes new files (its exports, at the end) */
        rc = v10_outdir_probe(&st->out, err);
    if (rc == 0)
        rc = v10_outdir_lock(&st->out, LOCK_NAME, dir, &st->lock, err);
    if (rc == 0)
        rc = check_folder(st, resume, &fresh, err);
    if (rc == 0 && fresh)
        rc = write_spec(s, &st->out, err);
    if (rc == 0)
        rc = db_open(st, err);
    if (rc == 0 && fsync(st->out.fd))
        rc = v10_err_set(err, "%s: %s", dir, strerror(errno));
    if (rc == 0)
        rc = db_load(st, err);
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
const char *v10_sweep_store_drop_why(const v10_sweep_store *st) { return st->drop_why; }
size_t v10_sweep_store_refused(const v10_sweep_store *st) { return st->refused; }

/* One transaction per point: the INSERT commits on its own (autocommit),
 * and with synchronous=FULL the commit is on disk before it returns. */
int v10_sweep_store_append(v10_sweep_store *st, size_t i, const char *row, v10_err *err)
{
    V10_ASSERT(i < st->s->points);
    size_t n = strlen(row);
    V10_ASSERT(n > 0 && row[n - 1] == '\n' && memchr(row, '\n', n) == row + n - 1);
    if (st->done[i])
        return 0;
    char id[17];
    if (v10_sweep_point_id(st->s, i, id))
        return v10_err_set(err, "point %zu: out of memory", i);
    char sum[17];
    row_sum(i, id, row, n - 1, sum);
    sqlite3_bind_int64(st->insert, 1, (sqlite3_int64)i);
    sqlite3_bind_text(st->insert, 2, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st->insert, 3, row, (int)(n - 1), SQLITE_STATIC);
    sqlite3_bind_text(st->insert, 4, sum, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st->insert) == SQLITE_DONE ? 0 : db_fail(st, "recording a point", err);
    sqlite3_reset(st->insert);
    sqlite3_clear_bindings(st->insert);
    if (rc == 0) {
        st->done[i] = 1;
        st->count++;
    }
    return rc;
}

void v10_sweep_store_close(v10_sweep_store *st)
{
    if (!st)
        return;
    sqlite3_finalize(st->insert);
    sqlite3_close(st->db); /* checkpoints the WAL into results.db and removes it */
    v10_lock_release(st->lock);
    v10_outdir_close(&st->out);
    free(st->done);
    free(st);
}

const v10_sweep *sweep_store_spec(const v10_sweep_store *st) { return st->s; }
const char *sweep_store_dir(const v10_sweep_store *st) { return st->dir; }
const v10_outdir *sweep_store_outdir(const v10_sweep_store *st) { return &st->out; }

int sweep_store_stats(v10_sweep_store *st, size_t *max_tenants, v10_err *err)
{
    sqlite3_stmt *q;
    int rc = -1;
    if (sqlite3_prepare_v2(st->db, "SELECT count(json_type(row, '$.error')), "
                                   "max(json_array_length(row, '$.result.tenants')) "
                                   "FROM points", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        st->refused = (size_t)sqlite3_column_int64(q, 0);
        *max_tenants = (size_t)sqlite3_column_int64(q, 1); /* NULL (no results): 0 */
        rc = 0;
    }
    if (rc)
        db_fail(st, "reading", err);
    sqlite3_finalize(q);
    return rc;
}

int sweep_store_rows(v10_sweep_store *st, sweep_row_fn fn, void *ctx, v10_err *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT idx, row FROM points ORDER BY idx", -1, &q, NULL) !=
        SQLITE_OK)
        return db_fail(st, "reading", err);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(q, 1);
        rc = fn(ctx, (size_t)sqlite3_column_int64(q, 0), row ? row : "",
                (size_t)sqlite3_column_bytes(q, 1), err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(st, "reading", err);
    sqlite3_finalize(q);
    return rc;
}
