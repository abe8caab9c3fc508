/*
 * cli.h — sub-commands of the v10sim binary.  src/cli/ is the only code that
 * prints usage or errors and chooses exit codes:
 *   0 success, 1 bad input or failed run, 2 bad command line.
 */
#ifndef V10_CLI_H
#define V10_CLI_H

#include <stdio.h>

#include "v10/err.h"
#include "v10/model.h"
#include "v10/report.h" /* v10_artifact */
#include "v10/table.h"

#define V10_EXIT_OK 0
#define V10_EXIT_FAIL 1
#define V10_EXIT_USAGE 2

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

int cmd_npu(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_collocate(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_llm_study(int argc, char **argv);

/* Called with a command's exit code: if standard output could not be
 * written (a full disk, a closed pipe), says so and returns V10_EXIT_FAIL
 * (or rc if that already is a failure); otherwise returns rc. */
int cli_stdout_done(int rc);

/* Called first by every main: a write past `ulimit -f` or to a closed pipe
 * fails with EFBIG / EPIPE and takes the normal error path (message,
 * temporaries removed, exit 1) instead of killing the process silently. */
void cli_signals(void);

/* Prints "v10sim: <msg>" to stderr and returns V10_EXIT_FAIL. */
int cli_fail(const v10_err *err);
/* Creates the output directory dir (an existing one is fine); else prints
 * the error and returns V10_EXIT_FAIL. */
int cli_out_dir(const char *dir);
/* Writes files[0..n) into dir, each atomically; V10_EXIT_OK, or prints the
 * first failure and returns V10_EXIT_FAIL. */
int cli_write_files(const char *dir, const v10_artifact *files, size_t n);

/* The exit code after a report writer (v10/model_report.h) returned rc: 0
 * is V10_EXIT_OK; a failure is printed with cli_fail unless standard output
 * failed, which cli_stdout_done reports once. */
int cli_written(int rc, const v10_err *err);

/* Reports on stderr the operators of `m` that ONNX unknown=vu approximated
 * (named "~NODE", docs/onnx.md); nothing if there are none. */
void cli_note_approx(const v10_model *m);
/* Prints "v10sim CMD: <msg>" and a hint to use --help; returns V10_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The getopt_long error case (':' for a missing value, '?' for an unknown
 * option; commands set opterr = 0 and start optstring with ':'): prints one
 * "v10sim CMD: ..." naming the option and returns V10_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char *const *argv);
/* Parses --format's argument; on error prints and returns -1. */
int cli_format(const char *cmd, const char *arg, v10_format *out);
/* Parses an unsigned integer / positive double option argument strictly. */
/* The default for -j: the number of online CPUs (1 if unknown). */
int cli_default_threads(void);

int cli_u64(const char *cmd, const char *opt, const char *arg, unsigned long long min,
            unsigned long long max, unsigned long long *out);
int cli_double(const char *cmd, const char *opt, const char *arg, double min, double max,
               double *out);

#endif
