/*
 * test_faults.c — fault injection.  This binary is linked with
 * -Wl,--wrap=malloc,calloc,realloc,free,strdup (CMakeLists.txt), so every
 * allocation the library makes goes through the wrappers below, which can
 * fail the n-th one and track live blocks.  Each loader and writer runs
 * once to count its allocations N, then again with allocation n failing,
 * for n = 1..N (every n up to EXHAUSTIVE, then an even sample): each run
 * must either fail cleanly (-1 / non-zero exit, a message, nothing leaked,
 * no output file or temporary left behind) or succeed with exactly the
 * output of the fault-free run.  I/O failures: an unwritable directory and
 * a full disk (/dev/full) give a clean error and no partial file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "import/topology.h"
#include "v10/fleet.h"
#include "v10/model.h"
#include "v10/report.h"
#include "v10/sim.h"
#include "v10/svg.h"
#include "v10/sweep.h"

/* ---- the failing allocator ------------------------------------------------------ */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long n_calls;   /* allocations since fault_arm */
static long fail_at;   /* fail this allocation (1-based); 0: never */
static int failed;     /* the injected failure happened */

/* Live blocks allocated through the wrappers: an open-addressing set. */
#define LIVE_CAP (1 << 18)
static void *live[LIVE_CAP];
static long live_seq[LIVE_CAP]; /* allocation number within the armed run */
static long n_live;
#define TOMB ((void *)1)

static size_t slot_of(const void *p) { return ((uintptr_t)p >> 4) * 2654435761u % LIVE_CAP; }

static void live_add(void *p)
{
    size_t i = slot_of(p);
    while (live[i] && live[i] != TOMB)
        i = (i + 1) % LIVE_CAP;
    live[i] = p;
    live_seq[i] = n_calls;
    n_live++;
}

static void live_del(void *p)
{
    for (size_t i = slot_of(p), k = 0; live[i] && k < LIVE_CAP; i = (i + 1) % LIVE_CAP, k++)
        if (live[i] == p) {
            live[i] = TOMB;
            n_live--;
            return;
        }
    /* not ours: allocated inside libc (fopen, open_memstream) */
}

/* 1 if this allocation is the one to fail. */
static int fail_now(void)
{
    long c = ++n_calls;
    if (fail_at && c == fail_at) {
        failed = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = fail_now() ? NULL : __real_malloc(n);
    if (p)
        live_add(p);
    pthread_mutex_unlock(&mu);
    return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
    pthread_mutex_lock(&mu);
    void *p = fail_now() ? NULL : __real_calloc(n, m);
    if (p)
        live_add(p);
    pthread_mutex_unlock(&mu);
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    pthread_mutex_lock(&mu);
    void *q = NULL;
    if (!fail_now()) {
        q = __real_realloc(p, n);
        if (q) {
            if (p)
                live_del(p);
            live_add(q);
        }
    }
    pthread_mutex_unlock(&mu);
    return q;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&mu);
    live_del(p);
    pthread_mutex_unlock(&mu);
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = __wrap_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void fault_arm(long at)
{
    pthread_mutex_lock(&mu);
    n_calls = 0;
    fail_at = at;
    failed = 0;
    pthread_mutex_unlock(&mu);
}

static long fault_live(void)
{
    pthread_mutex_lock(&mu);
    long n = n_live;
    pthread_mutex_unlock(&mu);
    return n;
}

/* ---- the driver ---------------------------------------------------------------------- */

/* Every n up to EXHAUSTIVE, then about SAMPLE more spread evenly up to N. */
#define EXHAUSTIVE 400
#define SAMPLE 200

static char tmp_dir[64];

/*
 * An operation under test: runs once and returns 0 or -1 (with err set);
 * writes what it produced (or a fingerprint of it) to *out (malloc'd via
 * the real allocator, or NULL); frees everything else it allocated.
 */
typedef int (*op_fn)(v10_err *err, char **out, size_t *out_len);

static char *real_dup(const char *s, size_t n)
{
    char *d = __real_malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Files in tmp_dir (names, newline-separated) — for "nothing left behind". */
static void dir_listing(const char *dir, char *buf, size_t cap)
{
    buf[0] = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s\n", e->d_name);
    closedir(d);
}

static void run_faults(const char *what, op_fn op)
{
    v10_err err;
    char *ref = NULL, *out = NULL;
    size_t ref_len = 0, out_len = 0;
    long base_live = fault_live();
    fault_arm(0);
    err.msg[0] = 0;
    if (op(&err, &ref, &ref_len))
        fail_msg("%s: fault-free run failed: %s", what, err.msg);
    long total = n_calls;
    if (fault_live() != base_live)
        fail_msg("%s: fault-free run leaks %ld blocks", what, fault_live() - base_live);
    long step = total > EXHAUSTIVE ? (total - EXHAUSTIVE) / SAMPLE + 1 : 1;
    long tried = 0, clean_errors = 0;
    for (long n = 1; n <= total; n += n < EXHAUSTIVE ? 1 : step) {
        fault_arm(n);
        err.msg[0] = 0;
        int rc = op(&err, &out, &out_len);
        int hit = failed;
        fault_arm(0);
        tried++;
        if (fault_live() != base_live) {
            long seq = -1;
            for (size_t i = 0; i < LIVE_CAP; i++)
                if (live[i] && live[i] != TOMB && live_seq[i] > seq)
                    seq = live_seq[i];
            fail_msg("%s: allocation %ld failing leaks %ld blocks (rc %d, %s); the newest "
                     "was allocation %ld", what, n, fault_live() - base_live, rc, err.msg, seq);
        }
        if (rc) {
            if (!err.msg[0])
                fail_msg("%s: allocation %ld failing: error without a message", what, n);
            clean_errors++;
        } else if (out_len != ref_len || (ref_len && memcmp(out, ref, ref_len))) {
            fail_msg("%s: allocation %ld failing (%s): succeeded with different output "
                     "(%zu bytes, expected %zu):\n%.300s", what, n, hit ? "hit" : "not reached",
                     out_len, ref_len, out ? out : "");
        }
        __real_free(out);
        out = NULL;
    }
    print_message("%s: %ld allocations, %ld failure points tried, %ld clean errors\n", what,
                  total, tried, clean_errors);
    __real_free(ref);
}

/* ---- loaders -------------------------------------------------------------------------- */

static v10_npu npu0(void)
{
    v10_npu n;
    v10_npu_preset("v10-isca23", &n, NULL);
    return n;
}

static char *fingerprint_model(const v10_model *m, size_t *len)
{
    char buf[256];
    uint64_t cyc = 0, bytes = 0;
    for (size_t i = 0; i < m->n_ops; i++) {
        cyc += m->ops[i].cycles;
        bytes += m->ops[i].hbm_bytes;
    }
    *len = (size_t)snprintf(buf, sizeof buf, "%s %zu ops %llu cycles %llu bytes", m->name,
                            m->n_ops, (unsigned long long)cyc, (unsigned long long)bytes);
    return real_dup(buf, *len);
}

static int op_npu_json(v10_err *err, char **out, size_t *len)
{
    v10_npu n;
    if (v10_npu_resolve("configs/isca23-64mib.json", &n, err))
        return -1;
    char buf[128];
    *len = (size_t)snprintf(buf, sizeof buf, "%s %llu", n.name, (unsigned long long)n.vmem_bytes);
    *out = real_dup(buf, *len);
    return 0;
}

static int op_model(const char *spec, v10_err *err, char **out, size_t *len)
{
    v10_npu n = npu0();
    v10_model m;
    if (v10_model_load(spec, &n, &m, err))
        return -1;
    *out = fingerprint_model(&m, len);
    v10_model_fini(&m);
    return 0;
}

static int op_trace_csv(v10_err *err, char **out, size_t *len)
{
    return op_model("tests/data/engine/sa_vu.csv", err, out, len);
}

static int op_zoo(v10_err *err, char **out, size_t *len) { return op_model("bert", err, out, len); }

/* A calibration (calibrate.c: the operators written over a copy of the
 * architecture's): ResNet-50 at its TPU profile, layers split and
 * relayout operators added; and with sa_ops=work, layers merged. */
#define RESNET50_PROFILED                                                                  \
    "resnet50:profile=data/tpu-profiles/utilization.csv,data/tpu-profiles/op_lengths.csv:" \
    "row=resnet50@32"

static int op_calibrate(v10_err *err, char **out, size_t *len)
{
    return op_model(RESNET50_PROFILED, err, out, len);
}

static int op_calibrate_merged(v10_err *err, char **out, size_t *len)
{
    return op_model(RESNET50_PROFILED ":sa_ops=work", err, out, len);
}

static int op_topology(v10_err *err, char **out, size_t *len)
{
    v10_topo *t;
    if (v10_topology_read("tests/data/topology/ok_mixed.csv", V10_TOPO_AUTO, &t, err))
        return -1;
    char buf[128];
    *len = (size_t)snprintf(buf, sizeof buf, "%zu layers", t->n_layers);
    *out = real_dup(buf, *len);
    v10_topology_free(t);
    return 0;
}

static char *slurp_real(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = __real_malloc(1 << 20);
    *len = fread(b, 1, (1 << 20) - 1, f);
    b[*len] = 0;
    fclose(f);
    return b;
}

static int op_sweep_spec(v10_err *err, char **out, size_t *len)
{
    size_t n;
    char *text = slurp_real("tests/data/sweep/tiny.json", &n);
    v10_sweep *s;
    int rc = v10_sweep_parse(text, "tiny.json", &s, err);
    __real_free(text);
    if (rc)
        return -1;
    v10_sweep_point *p = malloc(sizeof *p);
    if (!p) {
        v10_sweep_destroy(s);
        return v10_err_set(err, "out of memory");
    }
    rc = v10_sweep_point_get(s, v10_sweep_points(s) - 1, p, err);
    char *t = rc ? NULL : v10_sweep_point_text(s, 1);
    if (!rc && !t)
        rc = v10_err_set(err, "out of memory");
    if (!rc) {
        char buf[1024];
        *len = (size_t)snprintf(buf, sizeof buf, "%zu %s %s %s", v10_sweep_points(s),
                                v10_sweep_hash(s), p->id, t);
        *out = real_dup(buf, *len);
    }
    free(t);
    free(p);
    v10_sweep_destroy(s);
    return rc;
}

static int op_services(v10_err *err, char **out, size_t *len)
{
    v10_service *svc;
    size_t n;
    if (v10_services_read("examples/services.csv", &svc, &n, err))
        return -1;
    char buf[256];
    *len = (size_t)snprintf(buf, sizeof buf, "%zu %s %s", n, svc[0].name, svc[n - 1].spec.model);
    *out = real_dup(buf, *len);
    free(svc);
    return 0;
}

/* ---- writers ----------------------------------------------------------------------------- */

static const v10_tenant_spec *two_tenants(void)
{
    static v10_tenant_spec ts[2];
    v10_tenant_spec_parse("tests/data/engine/sa_vu.csv", &ts[0], NULL);
    v10_tenant_spec_parse("mnist:batch=4", &ts[1], NULL);
    return ts;
}

static void small_cfg(v10_run_config *c, v10_trace *tr)
{
    v10_run_config_default(c);
    c->tenants = two_tenants();
    c->n_tenants = 2;
    c->requests = 3;
    c->warmup = 0;
    c->trace = tr;
    c->check = 1;
}

/* Writes with `fn` into a memory stream; the output is what was written. */
static int capture(int (*fn)(FILE *f, v10_err *err), v10_err *err, char **out, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    int rc = fn(f, err);
    fclose(f);
    if (rc == 0)
        *out = real_dup(buf, n), *len = n;
    free(buf); /* libc's allocation: the wrapper ignores it */
    return rc;
}

static v10_format the_fmt;

static int write_report(FILE *f, v10_err *err)
{
    v10_run_config c;
    small_cfg(&c, NULL);
    v10_run_result r;
    if (v10_run(&c, &r, err))
        return -1;
    r.wall_seconds = 0; /* perf fields vary run to run */
    int rc = v10_report_run(&c, &r, the_fmt, f) ? v10_err_set(err, "report: failed") : 0;
    v10_run_result_fini(&r);
    return rc;
}

static int op_report_json(v10_err *err, char **out, size_t *len)
{
    the_fmt = V10_FMT_JSON;
    return capture(write_report, err, out, len);
}

static int op_report_csv(v10_err *err, char **out, size_t *len)
{
    the_fmt = V10_FMT_CSV;
    return capture(write_report, err, out, len);
}

static int op_report_table(v10_err *err, char **out, size_t *len)
{
    the_fmt = V10_FMT_TABLE;
    return capture(write_report, err, out, len);
}

static int write_trace(FILE *f, v10_err *err)
{
    v10_trace tr = {0};
    v10_run_config c;
    small_cfg(&c, &tr);
    v10_model m[2];
    size_t loaded = 0;
    int rc = 0;
    for (; loaded < 2 && rc == 0; loaded++)
        rc = v10_model_load(c.tenants[loaded].model, &c.npu, &m[loaded], err);
    if (rc)
        loaded--;
    c.models = m;
    v10_run_result r;
    if (rc == 0 && (rc = v10_run(&c, &r, err)) == 0) {
        rc = v10_trace_write(&tr, &c, &r, f, err);
        v10_run_result_fini(&r);
    }
    for (size_t i = 0; i < loaded; i++)
        v10_model_fini(&m[i]);
    v10_trace_fini(&tr);
    return rc;
}

static int op_trace_json(v10_err *err, char **out, size_t *len)
{
    return capture(write_trace, err, out, len);
}

static int write_html(FILE *f, v10_err *err)
{
    static const double y1[] = {1, 2, 3}, y2[] = {2, 1, 0.5};
    static const char *const cats[] = {"a", "b<", "c&"};
    v10_svg_series ser[] = {{"one", y1}, {"two", y2}};
    v10_svg_chart ch = {.kind = V10_SVG_BARS, .title = "t", .xlabel = "x", .ylabel = "y",
                        .n_x = 3, .cats = cats, .series = ser, .n_series = 2, .ref_y = 1};
    char *svg = v10_svg_render(&ch);
    if (!svg)
        return v10_err_set(err, "svg: out of memory");
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "lat_us.p95", V10_COL_REAL, 2);
    for (int i = 0; i < 20; i++) {
        v10_tab_row(t);
        v10_tab_str(t, cats[i % 3]);
        v10_tab_real(t, i * 1.5);
    }
    v10_html_begin(f, "report");
    v10_html_h2(f, "chart");
    v10_html_figure(f, svg, "a chart");
    int rc = v10_html_table(f, t) ? v10_err_set(err, "html table: out of memory") : 0;
    v10_html_end(f);
    v10_tab_destroy(t);
    free(svg);
    return rc;
}

static int op_svg_html(v10_err *err, char **out, size_t *len)
{
    return capture(write_html, err, out, len);
}

/* The sweep's result directory: spec.json, the store results.db, and once
 * every point is done results.jsonl and results.csv; the output is
 * results.csv, which must be complete or absent. */
/* Four points: two policies x two seeds, a trace-CSV tenant and a zoo one. */
static const char small_spec[] =
    "{\"name\": \"small\", \"axes\": {\"policy\": [\"fcfs\", \"v10-full\"], \"seed\": [1, 2]},\n"
    " \"fixed\": {\"mix\": [\"tests/data/engine/sa_vu.csv\", \"mnist:batch=4\"],"
    " \"requests\": 3, \"npu\": {\"base\": \"v10-isca23\", \"vmem_bytes\": 16777216}}}\n";

static int op_sweep_store(v10_err *err, char **out, size_t *len)
{
    v10_sweep *s;
    if (v10_sweep_parse(small_spec, "small.json", &s, err))
        return -1;
    int rc;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/sweep", tmp_dir);
    v10_sweep_store *st;
    rc = v10_sweep_store_open(dir, s, 0, &st, err);
    if (rc == 0) {
        rc = v10_sweep_run_local(s, st, 1, NULL, err);
        if (rc == 0)
            rc = v10_sweep_store_finish(st, err);
        v10_sweep_store_close(st);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    struct stat sb;
    if (rc)
        assert_int_not_equal(stat(path, &sb), 0); /* no results.csv after a failure */
    if (rc == 0) {
        /* results.csv without the perf columns is the same every run */
        *out = slurp_real(path, len);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    v10_sweep_destroy(s);
    return rc;
}

/* ---- the CLI: files written whole or not at all ----------------------------------------- */

/* Runs a sub-command with stdout on `out_path` and stderr discarded. */
static int cli_to(int (*cmd)(int, char **), int argc, const char **argv, const char *out_path)
{
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2), nul = open("/dev/null", O_WRONLY);
    int o = open(out_path, O_WRONLY);
    assert_true(o >= 0);
    dup2(o, 1);
    close(o);
    if (!getenv("FAULTS_VERBOSE"))
        dup2(nul, 2);
    clearerr(stdout);
    optind = 0; /* glibc: full getopt reset */
    errno = 0;
    int rc = cli_stdout_done(cmd(argc, (char **)(uintptr_t)argv)); /* as main() does */
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(nul);
    clearerr(stdout);
    return rc;
}

static int cli(int (*cmd)(int, char **), int argc, const char **argv)
{
    return cli_to(cmd, argc, argv, "/dev/null");
}

/* v10sim run --trace FILE: on failure no FILE and no temporary. */
static int op_cli_run_trace(v10_err *err, char **out, size_t *len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/t.json", tmp_dir);
    const char *argv[] = {"run", "--tenant", "tests/data/engine/sa_vu.csv", "--tenant",
                          "mnist:batch=4", "--requests", "3", "--policy", "v10-full",
                          "--format", "json", "--trace", path, NULL};
    static char *whole; /* the trace of the fault-free run */
    static size_t whole_len;
    int rc = cli(cmd_run, 13, argv);
    char files[1024];
    dir_listing(tmp_dir, files, sizeof files);
    if (files[0] && strcmp(files, "t.json\n"))
        fail_msg("run --trace (exit %d) left: %s", rc, files);
    if (files[0]) {
        *out = slurp_real(path, len);
        unlink(path);
    }
    if (!whole) {
        assert_int_equal(rc, 0);
        whole = real_dup(*out, *len); /* kept to the end of the test */
        whole_len = *len;
    }
    if (rc) {
        /* The trace is written before the report: a failure after it may
         * leave it, but only whole. */
        if (files[0] && (*len != whole_len || memcmp(*out, whole, whole_len)))
            fail_msg("run --trace failed (exit %d) and left a partial t.json", rc);
        __real_free(*out);
        *out = NULL;
        return v10_err_set(err, "exit %d", rc);
    }
    return 0;
}

/* ---- I/O failures ------------------------------------------------------------------------- */

/* Sets the soft file size limit (RLIM_INFINITY: back to the hard limit). */
static void set_fsize(rlim_t bytes)
{
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
    rl.rlim_cur = bytes == RLIM_INFINITY ? rl.rlim_max : bytes;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* An output path that cannot be created, a disk that fills up (the file
 * size limit: writes fail with EFBIG, as with ENOSPC), and stdout on
 * /dev/full: each is exit 1 and leaves no file or temporary behind. */
static void io_failures(void **state)
{
    (void)state;
    char path[256], files[1024];
    snprintf(path, sizeof path, "%s/plain", tmp_dir);
    write_file(path, "x");
    snprintf(path, sizeof path, "%s/plain/t.json", tmp_dir); /* ENOTDIR */
    const char *argv[] = {"run", "--tenant", "tests/data/engine/sa_vu.csv", "--tenant",
                          "mnist:batch=4", "--requests", "3", "--trace", path, NULL};
    assert_int_equal(cli(cmd_run, 9, argv), V10_EXIT_FAIL);
    snprintf(path, sizeof path, "%s/plain", tmp_dir);
    unlink(path);
    dir_listing(tmp_dir, files, sizeof files);
    assert_string_equal(files, "");

    /* The disk fills up after 2 KB: the trace is larger. */
    snprintf(path, sizeof path, "%s/t.json", tmp_dir);
    signal(SIGXFSZ, SIG_IGN);
    set_fsize(2048);
    int rc = cli(cmd_run, 9, argv);
    set_fsize(RLIM_INFINITY);
    assert_int_equal(rc, V10_EXIT_FAIL);
    dir_listing(tmp_dir, files, sizeof files);
    assert_string_equal(files, ""); /* neither t.json nor t.json.tmp.* */

    /* stdout on a full device: the report cannot be written. */
    const char *argv_json[] = {"run", "--tenant", "mnist:batch=4", "--requests", "3",
                               "--format", "json", NULL};
    assert_int_equal(cli_to(cmd_run, 7, argv_json, "/dev/full"), V10_EXIT_FAIL);
    const char *argv_all[] = {"run", "--tenant", "mnist:batch=4", "--requests", "3",
                              "--policy", "fcfs,v10-full", "--format", "csv", NULL};
    assert_int_equal(cli_to(cmd_run, 9, argv_all, "/dev/full"), V10_EXIT_FAIL);
    const char *argv_models[] = {"models", "--format", "csv", NULL};
    assert_int_equal(cli_to(cmd_models, 3, argv_models, "/dev/full"), V10_EXIT_FAIL);
}

/* A sweep whose disk fills up mid-way fails cleanly; resumed with space,
 * it finishes with exactly the results of an undisturbed sweep. */
static void sweep_disk_full(void **state)
{
    (void)state;
    char spec[128], ref[128], dir[128];
    snprintf(spec, sizeof spec, "%s/small.json", tmp_dir);
    snprintf(ref, sizeof ref, "%s/ref", tmp_dir);
    snprintf(dir, sizeof dir, "%s/full", tmp_dir);
    write_file(spec, small_spec);
    const char *a_ref[] = {"sweep", spec, "--out", ref, "--quiet", "-j", "1", NULL};
    assert_int_equal(cli(cmd_sweep, 7, a_ref), 0);
    /* spec.json fits; the store (results.db and its write-ahead log) runs
     * into the limit. */
    const char *a_full[] = {"sweep", spec, "--out", dir, "--quiet", "-j", "1", NULL};
    signal(SIGXFSZ, SIG_IGN);
    set_fsize(6000);
    int rc = cli(cmd_sweep, 7, a_full);
    set_fsize(RLIM_INFINITY);
    assert_int_equal(rc, V10_EXIT_FAIL);
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    assert_int_not_equal(stat(path, &sb), 0);
    const char *a_resume[] = {"sweep", spec, "--out", dir, "--quiet", "-j", "1", "--resume",
                              NULL};
    assert_int_equal(cli(cmd_sweep, 8, a_resume), 0);
    size_t n1, n2;
    char *want = slurp_real(path, &n2);
    snprintf(path, sizeof path, "%s/results.csv", ref);
    char *got = slurp_real(path, &n1);
    assert_int_equal(n1, n2);
    assert_memory_equal(got, want, n1);
    __real_free(got);
    __real_free(want);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", ref, dir, spec);
    assert_int_equal(system(cmd), 0);
}

static void loaders(void **state)
{
    (void)state;
    run_faults("npu json", op_npu_json);
    run_faults("trace csv", op_trace_csv);
    run_faults("zoo model", op_zoo);
    run_faults("calibration", op_calibrate);
    run_faults("calibration, merged layers", op_calibrate_merged);
    run_faults("topology csv", op_topology);
    run_faults("sweep spec", op_sweep_spec);
    run_faults("services csv", op_services);
}

static void writers(void **state)
{
    (void)state;
    run_faults("run report json", op_report_json);
    run_faults("run report csv", op_report_csv);
    run_faults("run report table", op_report_table);
    run_faults("trace json", op_trace_json);
    run_faults("svg + html", op_svg_html);
}

static void sweep_store(void **state)
{
    (void)state;
    run_faults("sweep results", op_sweep_store);
}

static void cli_files(void **state)
{
    (void)state;
    run_faults("cli run --trace", op_cli_run_trace);
}

static int setup(void **state)
{
    (void)state;
    cJSON_Hooks h = {__wrap_malloc, __wrap_free};
    cJSON_InitHooks(&h); /* cJSON is a shared library: route it through the wrappers */
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/v10_faults_XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loaders),
        cmocka_unit_test(writers),
        cmocka_unit_test(sweep_store),
        cmocka_unit_test(cli_files),
        cmocka_unit_test(io_failures),
        cmocka_unit_test(sweep_disk_full),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
