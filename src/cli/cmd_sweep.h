/*
 * cmd_sweep.h — the parts of `v10sim sweep` shared by the threaded command
 * (cmd_sweep.c) and the Open MPI binary (main_mpi.c): options, opening the
 * spec and result directory, and the closing summary.
 */
#ifndef V10_CMD_SWEEP_H
#define V10_CMD_SWEEP_H

#include "v10/sweep.h"

typedef struct sweep_args {
    const char *spec;  /* SPEC.json */
    char out[4096];    /* result directory */
    int threads;       /* -j N */
    int resume;        /* --resume */
    int list;          /* --list: print the points and exit */
    int quiet;         /* --quiet: no progress bar */
    int plot;          /* --plot: a figure per swept parameter, and report.html */
} sweep_args;

/* Parses the command line.  Returns -1 to continue, or an exit code (after
 * --help or a usage error). */
int sweep_cli_args(int argc, char **argv, int mpi, sweep_args *a);

/* Loads and validates the spec (rc != 0: exit code, message printed); sets
 * the default --out (sweep-NAME). */
int sweep_cli_load(sweep_args *a, v10_sweep **s);

/* Opens the result directory and says what is left to do on stderr. */
int sweep_cli_open(const sweep_args *a, const v10_sweep *s, v10_sweep_store **st);

/* --list: one line per point. */
int sweep_cli_list(const v10_sweep *s);

/* Writes results.csv when complete and prints the summary; `ran` points
 * were run in `seconds`. */
int sweep_cli_finish(const sweep_args *a, const v10_sweep *s, v10_sweep_store *st, size_t ran,
                     double seconds, const char *how);

double sweep_cli_now(void);

#endif
