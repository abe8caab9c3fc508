/*
 * cli.h — sub-commands of the v10sim binary.  src/cli/ is the only code that
 * prints usage or errors and chooses exit codes (docs/formats.md, "Exit
 * codes"): 0 success (also when a reader of standard output stopped
 * reading); 2 the command line itself is wrong: an unknown command or
 * option, a missing value, a value that is not of the option's type or
 * range, a name outside one of v10sim's fixed lists (--policy, --format,
 * an --npu preset, --workloads), options that do not go together; 1
 * anything else: an input that v10sim reads or builds (a tenant spec and
 * its model, a JSON, CSV or ONNX file) is bad, a run is refused, an output
 * cannot be written.
 */
#ifndef V10_CLI_H
#define V10_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "util/file.h"
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
int cmd_validate(int argc, char **argv);

/* Called with a command's exit code: if standard output could not be
 * written (a full disk), says so and returns V10_EXIT_FAIL (or rc if that
 * already is a failure); a pipe whose reader has gone (`| head`) is not a
 * failure: rc, quietly.  Otherwise returns rc. */
int cli_stdout_done(int rc);

/* Called first by every main: a write past `ulimit -f` or to a closed pipe
 * fails with EFBIG / EPIPE and takes the normal error path (message,
 * temporaries removed, exit 1) instead of killing the process silently. */
void cli_signals(void);

/* Called next by every main: a standard stream the process was started
 * without (`>&-`, `2>&-`, `<&-`) gets a placeholder descriptor that fails
 * every use, so that no file the command opens takes fd 0, 1 or 2 and
 * receives the report, a message or stray input.  A report that cannot be
 * written is then a failure (cli_stdout_done: exit 1, saying that standard
 * output is closed); messages to a closed stderr are lost, the exit code
 * still says how the command went. */
void cli_std_fds(void);

/* Prints "v10sim: <msg>" to stderr and returns V10_EXIT_FAIL. */
int cli_fail(const v10_err *err);
/* Opens (creating it if missing) the result folder dir of command `owner`
 * (repro, llm-study) and checks that it is empty or that command's earlier
 * output (util/file.h, v10_outdir_claim); else prints why, leaves the
 * folder as it was and returns V10_EXIT_FAIL. */
int cli_out_dir(v10_outdir *d, const char *dir, const char *owner);
/* Writes files[0..n) into the folder (v10_outdir_write_set: the manifest,
 * then each file whole) and closes it; V10_EXIT_OK, or prints the failure
 * and returns V10_EXIT_FAIL. */
int cli_write_files(v10_outdir *d, const char *owner, const v10_artifact *files, size_t n);

/* The exit code after a report writer (v10/model_report.h) returned rc: 0
 * is V10_EXIT_OK; a failure is printed with cli_fail unless standard output
 * failed, which cli_stdout_done reports once (V10_EXIT_OK if its reader
 * has gone). */
int cli_written(int rc, const v10_err *err);

/* Reports on stderr the operators of `m` that ONNX unknown=vu approximated
 * (named "~NODE", docs/onnx.md); nothing if there are none. */
void cli_note_approx(const v10_model *m);
/* The isca23 models among a command's models, whose operator cycles were
 * fixed on V10_ISCA23_CORE: when the NPU's compute resources (SA array, VU
 * lanes) differ from that core's they do not reach them, and one note on
 * stderr says so for all of them (cli_fixed_add per model loaded, then
 * cli_fixed_note once). */
typedef struct cli_fixed {
    char first[V10_NAME_MAX]; /* the first such model's name */
    size_t n;                 /* how many */
} cli_fixed;
void cli_fixed_add(cli_fixed *f, const char *spec, const v10_model *m);
void cli_fixed_note(const cli_fixed *f, const v10_npu *npu);
/* Splits "a,b,c" into policy names (registry names where they name one),
 * where "all" stands for every policy but solo; a name given twice runs
 * once; blanks around a name are dropped.  Returns the count or -1. */
int cli_policy_list(const char *arg, char names[][V10_NAME_MAX], int max);
/* Prints "v10sim CMD: <msg>" and a hint to use --help; returns V10_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The getopt_long error case (':' for a missing value, '?' for an unknown
 * option; commands set opterr = 0 and start optstring with ':'): prints one
 * "v10sim CMD: ..." naming the option and returns V10_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char *const *argv);
/* Resolves --npu SPEC (a preset or a JSON file) into *out: V10_EXIT_OK; an
 * unknown preset name is a command-line error (V10_EXIT_USAGE), a file that
 * cannot be read or is malformed is bad input (V10_EXIT_FAIL); printed. */
int cli_npu(const char *cmd, const char *spec, v10_npu *out);
/* One of `choices` (NULL-terminated) as people type it (util/names.h:
 * case and blanks around it ignored where no other choice matches): its
 * index, or -1 after a usage error "OPT: expected a, b or c, got 'X'", with
 * "; did you mean 'b'?" when one is near. */
int cli_choice(const char *cmd, const char *opt, const char *arg, const char *const *choices);
/* The formats of a command's --format, NULL-terminated; its --help lists
 * the same. */
extern const char *const CLI_FORMATS[];       /* table, json, csv */
extern const char *const CLI_FORMATS_NO_CSV[]; /* table, json */
/* Parses --format's argument among `formats` (cli_choice); on error prints
 * and returns -1. */
int cli_format(const char *cmd, const char *arg, const char *const *formats, v10_format *out);
/* The default for -j: the number of online CPUs (1 if unknown). */
int cli_default_threads(void);

/* Starts a command's option loop: getopt_long reads argv from argv[1]
 * again (another command may have run it in this process) and prints
 * nothing itself (cli_bad_option says what was wrong, once). */
void cli_getopt_begin(void);

/* Parses an unsigned integer / positive double option argument strictly;
 * 0, or -1 after printing a usage error. */
int cli_u64(const char *cmd, const char *opt, const char *arg, unsigned long long min,
            unsigned long long max, unsigned long long *out);
int cli_double(const char *cmd, const char *opt, const char *arg, double min, double max,
               double *out);
/* A file or directory name given to option opt (or as the argument named
 * opt): *out = arg, 0; an empty name is a command-line error (no file is
 * called ""), printed, -1. */
int cli_path(const char *cmd, const char *opt, const char *arg, const char **out);
/* Before writing the output OUT of option opt: V10_EXIT_OK if OUT is none
 * of the command's input files (those of `in`, then others[0..n), NULL
 * entries and names that are no file skipped); else prints that it would
 * overwrite that input and returns V10_EXIT_FAIL: an input is never
 * replaced by a result under the same name or through a link. */
int cli_output_clear(const char *opt, const char *out, const v10_inputs *in,
                     const char *const *others, size_t n);
/* -j N (1 to 256 threads) and --seed S (any 64-bit value), the same in
 * every command that takes them; as cli_u64. */
int cli_threads(const char *cmd, const char *arg, int *out);
int cli_seed(const char *cmd, const char *arg, uint64_t *out);

#endif
