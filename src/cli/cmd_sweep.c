/*
 * cmd_sweep.c — `v10sim sweep SPEC.json [-j N] [--out DIR] [--resume]`: the
 * product of a spec's axes, one simulation per point on N threads, results
 * recorded durably in DIR (docs/sweep.md).  main_mpi.c reuses the helpers.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_sweep.h"
#include "util/file.h"

static void usage(FILE *f, int mpi)
{
    fprintf(f,
        "usage: %s sweep SPEC.json [options]\n\n"
        "Runs one simulation per point of the product of the spec's axes and\n"
        "records one row per point in DIR/results.db (SQLite, committed as each\n"
        "point finishes); once all are done, writes DIR/results.jsonl and\n"
        "DIR/results.csv, sorted by index.  A killed sweep continues with\n"
        "--resume.  Format: docs/sweep.md.\n\n"
        "options:\n", mpi ? "mpirun -np K v10sim-mpi" : "v10sim");
    if (!mpi)
        fprintf(f, "  -j, --jobs N     threads (default: the number of CPUs)\n");
    fprintf(f,
        "  --out DIR        result directory (default sweep-NAME, NAME from the spec)\n"
        "  --resume         continue the sweep in DIR: run only the missing points\n"
        "  --list           print the points (index, id, settings) and exit\n"
        "  --quiet          no progress bar (it shows when stderr is a terminal or\n"
        "                   V10_PROGRESS=1)\n"
        "  --plot           when done, also DIR/plot_KEY.svg for each swept setting\n"
        "                   (mean STP by its values) and DIR/report.html\n"
        "  --help           this text\n");
}

enum { O_OUT = 1000, O_RESUME, O_LIST, O_QUIET, O_HELP, O_PLOT };

static const struct option opts[] = {
    {"jobs", required_argument, 0, 'j'},  {"out", required_argument, 0, O_OUT},
    {"resume", no_argument, 0, O_RESUME}, {"list", no_argument, 0, O_LIST},
    {"quiet", no_argument, 0, O_QUIET},   {"help", no_argument, 0, O_HELP},
    {"plot", no_argument, 0, O_PLOT},
    {0, 0, 0, 0},
};

double sweep_cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int sweep_cli_args(int argc, char **argv, int mpi, sweep_args *a)
{
    memset(a, 0, sizeof *a);
    a->threads = cli_default_threads();
    const char *out = NULL;
    cli_getopt_begin();
    int c;
    while ((c = getopt_long(argc, argv, mpi ? ":" : ":j:", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (mpi)
                return cli_usage_error("sweep", "-j: under MPI each rank runs one point at "
                                       "a time; use more ranks");
            if (cli_threads("sweep", optarg, &a->threads))
                return V10_EXIT_USAGE;
            break;
        case O_OUT: out = optarg; break;
        case O_RESUME: a->resume = 1; break;
        case O_LIST: a->list = 1; break;
        case O_QUIET: a->quiet = 1; break;
        case O_PLOT: a->plot = 1; break;
        case O_HELP: usage(stdout, mpi); return V10_EXIT_OK;
        default: return cli_bad_option("sweep", c, argv);
        }
    }
    if (optind == argc)
        return cli_usage_error("sweep", "give the spec file: sweep SPEC.json");
    if (optind + 1 < argc)
        return cli_usage_error("sweep", "unexpected argument '%s'", argv[optind + 1]);
    if (cli_path("sweep", "SPEC.json", argv[optind], &a->spec))
        return V10_EXIT_USAGE;
    /* --list runs nothing and writes no folder: what would go with a run is
     * an error, not dropped. */
    const char *with = out ? "--out" : a->resume ? "--resume" : a->plot ? "--plot" : NULL;
    if (a->list && with)
        return cli_usage_error("sweep", "--list and %s do not go together (--list prints the "
                                        "points and runs nothing)", with);
    if (out) {
        if (!*out || strlen(out) >= sizeof a->out)
            return cli_usage_error("sweep", "--out: expected a directory path (1 to %zu "
                                            "bytes), got %zu bytes", sizeof a->out - 1,
                                   strlen(out));
        snprintf(a->out, sizeof a->out, "%s", out);
    }
    return -1;
}

int sweep_cli_load(sweep_args *a, v10_sweep **s)
{
    v10_err err;
    const char *body;
    char *text = v10_text_read(a->spec, V10_JSON_MAX_BYTES, &body, &err);
    if (!text)
        return cli_fail(&err);
    int rc = v10_sweep_parse(body, a->spec, s, &err);
    free(text);
    if (rc)
        return cli_fail(&err);
    if (!a->out[0])
        snprintf(a->out, sizeof a->out, "sweep-%s", v10_sweep_name(*s));
    return V10_EXIT_OK;
}

int sweep_cli_list(const v10_sweep *s)
{
    for (size_t i = 0; i < v10_sweep_points(s); i++) {
        char id[17];
        v10_sweep_point_id(s, i, id);
        char *t = v10_sweep_point_text(s, i);
        printf("{\"index\":%zu,\"id\":\"%s\",\"point\":%s}\n", i, id, t ? t : "null");
        free(t);
    }
    return fflush(stdout) ? V10_EXIT_FAIL : V10_EXIT_OK;
}

int sweep_cli_open(const sweep_args *a, const v10_sweep *s, v10_sweep_store **st)
{
    v10_err err;
    if (v10_sweep_store_open(a->out, s, a->resume, st, &err))
        return cli_fail(&err);
    size_t n = v10_sweep_points(s), done = v10_sweep_store_count(*st);
    if (a->resume || done)
        fprintf(stderr, "v10sim sweep: %s: %zu of %zu points already done, %zu to run%s\n",
                a->out, done, n, n - done, "");
    if (v10_sweep_store_dropped(*st))
        fprintf(stderr, "v10sim sweep: %s: dropped %zu row(s) of results.db that are not as "
                "the store wrote them, or not this spec's points' results (those points run "
                "again; first: %s)\n", a->out,
                v10_sweep_store_dropped(*st), v10_sweep_store_drop_why(*st));
    return V10_EXIT_OK;
}

int sweep_cli_finish(const sweep_args *a, const v10_sweep *s, v10_sweep_store *st, size_t ran,
                     double seconds, const char *how)
{
    v10_err err;
    if (v10_sweep_store_finish(st, &err) || (a->plot && v10_sweep_store_plot(st, &err)))
        return cli_fail(&err);
    printf("sweep %s: %zu points (%zu run now, %s) in %.2f s; spec %s\n"
           "results: %s/results.jsonl, %s/results.csv\n",
           v10_sweep_name(s), v10_sweep_points(s), ran, how, seconds, v10_sweep_hash(s),
           a->out, a->out);
    if (a->plot)
        printf("plots: %s/plot_*.svg, %s/report.html\n", a->out, a->out);
    if (v10_sweep_store_refused(st))
        fprintf(stderr, "v10sim sweep: %zu point(s) were refused by the simulator; their "
                        "rows hold the message (column 'error' of results.csv)\n",
                v10_sweep_store_refused(st));
    return fflush(stdout) ? V10_EXIT_FAIL : V10_EXIT_OK;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    int rc = sweep_cli_args(argc, argv, 0, &a);
    if (rc >= 0)
        return rc;
    v10_sweep *s = NULL;
    if ((rc = sweep_cli_load(&a, &s)))
        return rc;
    if (a.list) {
        rc = sweep_cli_list(s);
        v10_sweep_destroy(s);
        return rc;
    }
    v10_sweep_store *st = NULL;
    if ((rc = sweep_cli_open(&a, s, &st))) {
        v10_sweep_destroy(s);
        return rc;
    }
    size_t before = v10_sweep_store_count(st);
    double t0 = sweep_cli_now();
    v10_err err;
    if (v10_sweep_run_local(s, st, a.threads, a.quiet ? NULL : v10_sweep_name(s), &err))
        rc = cli_fail(&err);
    double dt = sweep_cli_now() - t0;
    char how[64];
    snprintf(how, sizeof how, "%d thread%s", a.threads, a.threads == 1 ? "" : "s");
    if (rc == V10_EXIT_OK)
        rc = sweep_cli_finish(&a, s, st, v10_sweep_store_count(st) - before, dt, how);
    v10_sweep_store_close(st);
    v10_sweep_destroy(s);
    return rc;
}
