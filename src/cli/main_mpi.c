/*
 * main_mpi.c — build/v10sim-mpi: `mpirun -np K v10sim-mpi sweep SPEC.json
 * --out DIR [--resume]` spreads a sweep's points over K ranks.  Built only
 * when CMake finds MPI (V10_HAVE_MPI); not part of libv10.
 *
 * Rank 0 is the coordinator: it validates the spec, owns the result store
 * (the same durability rule as the threaded sweep) and hands out point
 * indices one at a time on request (dynamic load balancing).  It also runs
 * points on a worker thread of the sweep's queue (the one thread pool), so
 * K ranks compute on K cores.  Workers parse
 * the canonical spec rank 0 broadcasts, run the points they are given and
 * send back each row.  Only rank 0's main thread calls MPI
 * (MPI_THREAD_FUNNELED); waits poll with short sleeps so idle ranks leave
 * their cores to the ranks that compute.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd_sweep.h"

enum { TAG_HELLO = 1, TAG_ROW, TAG_FAIL, TAG_BROKEN, TAG_WORK, TAG_DONE };

static void nap(long ns)
{
    struct timespec t = {0, ns};
    nanosleep(&t, NULL);
}

/* Waits for a request without spinning a core. */
static void wait_req(MPI_Request *r)
{
    int flag = 0;
    for (long ns = 20000;; ns = ns < 1000000 ? ns * 2 : ns) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return;
        nap(ns);
    }
}

static int64_t recv_index(void)
{
    int64_t next = -1;
    MPI_Request r;
    MPI_Irecv(&next, 1, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, &r);
    wait_req(&r);
    return next;
}

static void send_text(const char *s, int tag)
{
    size_t n = strlen(s);
    MPI_Send(s, (int)n, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
}

/* A worker rank: parse the broadcast spec over rank 0's inputs (the
 * files as rank 0 read them when the sweep started: no rank reads them
 * again), then run points until told to stop. */
static void worker(int rank, const char *text, const char *origin, const char *inputs,
                   size_t n_inputs)
{
    v10_sweep *s = NULL;
    v10_err err;
    if (v10_sweep_parse_inputs(text, origin, inputs, n_inputs, &s, &err)) {
        char m[V10_ERR_MAX + 32];
        snprintf(m, sizeof m, "rank %d: %s", rank, err.msg);
        send_text(m, TAG_BROKEN);
        recv_index();
        return;
    }
    MPI_Send(NULL, 0, MPI_CHAR, 0, TAG_HELLO, MPI_COMM_WORLD);
    int64_t i;
    while ((i = recv_index()) >= 0) {
        char *row = NULL;
        int rc = v10_sweep_run_point(s, (size_t)i, &row, &err);
        size_t n = rc ? strlen(err.msg) : strlen(row);
        char *msg = malloc(n + 32);
        if (!msg) {
            fprintf(stderr, "v10sim-mpi: rank %d: out of memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, V10_EXIT_FAIL);
            break; /* not reached; MPI_Abort is not declared noreturn */
        }
        snprintf(msg, n + 32, "%lld %s", (long long)i, rc ? err.msg : row);
        send_text(msg, rc ? TAG_FAIL : TAG_ROW);
        free(msg);
        free(row);
    }
    v10_sweep_destroy(s);
}

/* Rank 0: serve indices to every worker and record what comes back. */
static int coordinate(const sweep_args *a, v10_sweep *s, v10_sweep_store *st, int size)
{
    v10_sweep_queue *q = v10_sweep_queue_create(s, st, a->quiet ? NULL : v10_sweep_name(s));
    if (!q) {
        fprintf(stderr, "v10sim-mpi: out of memory\n");
        return V10_EXIT_FAIL;
    }
    v10_sweep_queue_start(q, 1); /* rank 0's own core runs points too */
    int active = size - 1;
    long idle_ns = 20000;
    while (active > 0) {
        int flag = 0;
        MPI_Status stt;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &stt);
        if (!flag) {
            nap(idle_ns);
            idle_ns = idle_ns < 500000 ? idle_ns * 2 : idle_ns;
            continue;
        }
        idle_ns = 20000;
        int len;
        MPI_Get_count(&stt, MPI_CHAR, &len);
        char *buf = malloc((size_t)len + 1);
        if (!buf) {
            fprintf(stderr, "v10sim-mpi: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, V10_EXIT_FAIL);
        }
        MPI_Recv(buf, len, MPI_CHAR, stt.MPI_SOURCE, stt.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        buf[len] = 0;
        int broken = 0;
        if (stt.MPI_TAG == TAG_ROW || stt.MPI_TAG == TAG_FAIL) {
            char *end;
            unsigned long long i = strtoull(buf, &end, 10);
            V10_ASSERT(*end == ' ' && i < v10_sweep_points(s));
            v10_sweep_queue_record(q, (size_t)i, stt.MPI_TAG == TAG_ROW ? end + 1 : NULL,
                                   end + 1);
        } else if (stt.MPI_TAG == TAG_BROKEN) {
            fprintf(stderr, "v10sim-mpi: %s; continuing without that rank\n", buf);
            broken = 1;
        }
        free(buf);
        int64_t next = broken ? -1 : v10_sweep_queue_take(q);
        MPI_Send(&next, 1, MPI_INT64_T, stt.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (next < 0)
            active--;
    }
    v10_err err; /* without its thread, rank 0 runs the points left itself */
    if (v10_sweep_queue_destroy(q, &err))
        return cli_fail(&err);
    return V10_EXIT_OK;
}

/* Rank 0's part before any point runs: options, spec, store.  Returns an
 * exit code, or -1 when there is work to do. */
static int rank0_setup(int argc, char **argv, sweep_args *a, v10_sweep **s,
                       v10_sweep_store **st)
{
    if (argc < 2 || strcmp(argv[1], "sweep")) {
        fprintf(stderr, "usage: mpirun -np K v10sim-mpi sweep SPEC.json --out DIR [--resume]\n"
                        "(v10sim-mpi runs only the sweep command; see v10sim sweep --help)\n");
        return argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
                   ? V10_EXIT_OK : V10_EXIT_USAGE;
    }
    int rc = sweep_cli_args(argc - 1, argv + 1, 1, a);
    if (rc >= 0)
        return rc;
    if ((rc = sweep_cli_load(a, s)))
        return rc;
    if (a->list)
        return sweep_cli_list(*s) == V10_EXIT_OK ? V10_EXIT_OK : V10_EXIT_FAIL;
    if ((rc = sweep_cli_open(a, *s, st)))
        return rc;
    return -1;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    cli_signals();
    cli_std_fds();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Rank 0 decides whether there is work; -1 means "go". */
    sweep_args a;
    memset(&a, 0, sizeof a);
    v10_sweep *s = NULL;
    v10_sweep_store *st = NULL;
    int status = rank == 0 ? rank0_setup(argc, argv, &a, &s, &st) : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status >= 0) {
        v10_sweep_store_close(st);
        v10_sweep_destroy(s);
        MPI_Finalize();
        return status;
    }

    /* Broadcast the canonical spec and its origin for the workers. */
    char origin[4096] = "";
    long long len = 0;
    if (rank == 0) {
        snprintf(origin, sizeof origin, "%s", a.spec);
        len = (long long)strlen(v10_sweep_canonical(s));
    }
    MPI_Bcast(origin, (int)sizeof origin, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    char *text = rank == 0 ? (char *)v10_sweep_canonical(s) : malloc((size_t)len + 1);
    if (!text)
        MPI_Abort(MPI_COMM_WORLD, V10_EXIT_FAIL);
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = 0;
    /* ... and the sweep's input files, as rank 0 read them */
    size_t n_in = 0;
    char *in = rank == 0 ? v10_sweep_inputs_pack(s, &n_in) : NULL;
    if (rank == 0 && (!in || n_in > INT32_MAX)) {
        fprintf(stderr, "v10sim-mpi: the sweep's inputs: %s\n",
                in ? "more than 2 GiB in all" : "out of memory");
        MPI_Abort(MPI_COMM_WORLD, V10_EXIT_FAIL);
    }
    long long in_len = (long long)n_in;
    MPI_Bcast(&in_len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0 && !(in = malloc((size_t)in_len + 1)))
        MPI_Abort(MPI_COMM_WORLD, V10_EXIT_FAIL);
    MPI_Bcast(in, (int)in_len, MPI_CHAR, 0, MPI_COMM_WORLD);

    int rc = V10_EXIT_OK;
    if (rank == 0) {
        size_t before = v10_sweep_store_count(st);
        double t0 = sweep_cli_now();
        rc = coordinate(&a, s, st, size);
        double dt = sweep_cli_now() - t0;
        char how[64];
        snprintf(how, sizeof how, "%d MPI rank%s", size, size == 1 ? "" : "s");
        if (rc == V10_EXIT_OK)
            rc = sweep_cli_finish(&a, s, st, v10_sweep_store_count(st) - before, dt, how);
        for (int r = 1; r < size; r++)
            MPI_Send(&rc, 1, MPI_INT, r, TAG_DONE, MPI_COMM_WORLD);
        v10_sweep_store_close(st);
        v10_sweep_destroy(s);
    } else {
        worker(rank, text, origin, in, (size_t)in_len);
        free(text);
        MPI_Request r;
        MPI_Irecv(&rc, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, &r);
        wait_req(&r);
    }
    free(in);
    MPI_Finalize();
    return rc;
}
