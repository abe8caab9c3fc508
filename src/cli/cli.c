/* cli.c — shared helpers of the sub-commands: errors, option values, files. */
#include "cli/cli.h"
#include "util/file.h"
#include "util/json.h"
#include "util/names.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_signals(void)
{
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
}

/* Which of fds 0-2 the process started without (bit fd). */
static unsigned std_closed;

void cli_std_fds(void)
{
    /* In order 0, 1, 2: open() takes the lowest free descriptor, so each
     * placeholder lands on the one that is missing.  It is open the other
     * way round (standard input for writing, outputs for reading), so any
     * use of it fails (EBADF) instead of reading nothing or writing into
     * nowhere; "/" (a directory: reads fail, writes too) if /dev/null is
     * missing. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        std_closed |= 1u << fd;
        int got = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
        if (got < 0)
            got = open("/", O_RDONLY | O_DIRECTORY);
        if (got != fd) /* nothing to stand in for it: never write a file there */
            _exit(V10_EXIT_FAIL);
    }
}

/* Messages quote what the user gave (a name, a file's bytes): a control
 * byte in them is escaped (util/text.h) before it reaches the terminal. */
static void put_message(const char *msg)
{
    char esc[1024];
    v10_name_escape(esc, sizeof esc, msg);
    fputs(esc, stderr);
}

int cli_fail(const v10_err *err)
{
    fputs("v10sim: ", stderr);
    put_message(err->msg);
    fputc('\n', stderr);
    return V10_EXIT_FAIL;
}

int cli_out_dir(v10_outdir *d, const char *dir, const char *owner)
{
    v10_err err;
    if (v10_outdir_open(d, dir, &err) == 0 && v10_outdir_claim(d, owner, &err) == 0)
        return V10_EXIT_OK;
    v10_outdir_abandon(d);
    return cli_fail(&err);
}

int cli_write_files(v10_outdir *d, const char *owner, const v10_artifact *files, size_t n)
{
    v10_err err;
    const char **names = calloc(n ? n : 1, sizeof *names);
    const void **data = calloc(n ? n : 1, sizeof *data);
    size_t *len = calloc(n ? n : 1, sizeof *len);
    int rc = names && data && len ? 0 : v10_err_set(&err, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        names[i] = files[i].name;
        data[i] = files[i].data;
        len[i] = files[i].len;
    }
    if (rc == 0)
        rc = v10_outdir_write_set(d, owner, names, data, len, n, &err);
    free(names);
    free(data);
    free(len);
    v10_outdir_close(d);
    return rc ? cli_fail(&err) : V10_EXIT_OK;
}

void cli_note_approx(const v10_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_ops; i++)
        n += m->ops[i].name[0] == '~';
    if (!n)
        return;
    fprintf(stderr, "v10sim: note: %s: approximated %zu ONNX node%s as VU operators "
                    "(unknown=vu):", m->name, n, n > 1 ? "s" : "");
    for (size_t i = 0, k = 0; i < m->n_ops && k < 8; i++)
        if (m->ops[i].name[0] == '~')
            fprintf(stderr, "%s %s", k++ ? "," : "", m->ops[i].name + 1);
    fprintf(stderr, "%s\n", n > 8 ? ", ..." : "");
}

void cli_fixed_add(cli_fixed *f, const char *spec, const v10_model *m)
{
    if (strncmp(spec, "isca23/", 7))
        return;
    if (f->n++ == 0)
        snprintf(f->first, sizeof f->first, "%s", m->name);
}

void cli_fixed_note(const cli_fixed *f, const v10_npu *npu)
{
    v10_npu core;
    v10_err err;
    if (!f->n || v10_npu_preset(V10_ISCA23_CORE, &core, &err))
        return;
    /* The compute resources a calibrated operator's cycles were fixed on. */
    const char *moved[4];
    size_t n = 0;
#define MOVED(f) if (npu->f != core.f) moved[n++] = #f
    MOVED(sa_rows); MOVED(sa_cols); MOVED(vu_lanes); MOVED(vu_ops_per_lane);
#undef MOVED
    if (!n)
        return;
    int one = f->n == 1;
    if (one)
        fprintf(stderr, "v10sim: note: %s is calibrated to its measured profile: its operators "
                        "keep their cycles on NPU %s, whose", f->first, npu->name);
    else
        fprintf(stderr, "v10sim: note: %s and %zu more isca23 model%s are calibrated to their "
                        "measured profiles: their operators keep their cycles on NPU %s, whose",
                f->first, f->n - 1, f->n > 2 ? "s" : "", npu->name);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? (i + 1 == n ? " and" : ",") : "", moved[i]);
    fprintf(stderr, " do%s not reach %s (only HBM bandwidth, clock and vector memory do); "
                    "the zoo's architecture-derived model%s the NPU\n",
            n > 1 ? "" : "es", one ? "it" : "them", one ? " follows" : "s follow");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    v10_err e;
    va_list ap;
    va_start(ap, fmt);
    v10_err_vset(&e, fmt, ap);
    va_end(ap);
    fprintf(stderr, "v10sim %s: ", cmd);
    put_message(e.msg);
    fprintf(stderr, "\nTry 'v10sim %s --help'.\n", cmd);
    return V10_EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int c, char *const *argv)
{
    const char *arg = argv[optind - 1];
    if (c == ':')
        return cli_usage_error(cmd, "%s: missing value", arg);
    if (optopt && strncmp(arg, "--", 2)) /* an unknown short option, e.g. -x */
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_npu(const char *cmd, const char *spec, v10_npu *out)
{
    v10_err err;
    if (v10_npu_resolve(spec, out, &err) == 0)
        return V10_EXIT_OK;
    if (!v10_json_spec_is_file(spec)) /* a preset name: a word of the command line */
        return cli_usage_error(cmd, "--npu: %s", err.msg);
    return cli_fail(&err); /* a file: its content is input */
}

int cli_choice(const char *cmd, const char *opt, const char *arg, const char *const *choices)
{
    long i = v10_name_lookup(arg, choices, (size_t)-1);
    if (i >= 0)
        return (int)i;
    size_t n = 0;
    while (choices[n])
        n++;
    char list[256], hint[160];
    size_t o = 0;
    for (size_t k = 0; k < n && o < sizeof list; k++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s",
                              k == 0 ? "" : k + 1 < n ? ", " : " or ", choices[k]);
    cli_usage_error(cmd, "%s: expected %s, got '%s'%s", opt, list, arg,
                    v10_name_hint(hint, sizeof hint, arg, choices, n, NULL));
    return -1;
}

const char *const CLI_FORMATS[] = {"table", "json", "csv", NULL};
const char *const CLI_FORMATS_NO_CSV[] = {"table", "json", NULL};

int cli_format(const char *cmd, const char *arg, const char *const *formats, v10_format *out)
{
    int i = cli_choice(cmd, "--format", arg, formats);
    if (i < 0)
        return -1;
    int rc = v10_format_parse(formats[i], out);
    V10_ASSERT(rc == 0);
    return 0;
}

int cli_u64(const char *cmd, const char *opt, const char *arg, unsigned long long min,
            unsigned long long max, unsigned long long *out)
{
    uint64_t v;
    if (!arg || v10_parse_u64(arg, &v) || v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    cli_usage_error(cmd, "%s: expected an integer in [%llu, %llu], got '%s'", opt, min, max,
                    arg ? arg : "");
    return -1;
}

int cli_double(const char *cmd, const char *opt, const char *arg, double min, double max,
               double *out)
{
    double v;
    if (!arg || v10_parse_f64(arg, &v) || v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    cli_usage_error(cmd, "%s: expected a number in [%g, %g], got '%s'", opt, min, max,
                    arg ? arg : "");
    return -1;
}

int cli_path(const char *cmd, const char *opt, const char *arg, const char **out)
{
    if (!arg || !*arg) {
        cli_usage_error(cmd, "%s: expected a path, got ''", opt);
        return -1;
    }
    *out = arg;
    return 0;
}

int cli_output_clear(const char *opt, const char *out, const v10_inputs *in,
                     const char *const *others, size_t n)
{
    const char *hit = v10_inputs_overlap(in, out);
    for (size_t i = 0; !hit && i < n; i++)
        if (others[i] && v10_same_file(out, others[i]))
            hit = others[i];
    if (!hit)
        return V10_EXIT_OK;
    v10_err err;
    v10_err_set(&err, "%s: %s would overwrite '%s', an input of this command; choose another "
                      "file", out, opt, hit);
    return cli_fail(&err);
}

int cli_threads(const char *cmd, const char *arg, int *out)
{
    unsigned long long u;
    if (cli_u64(cmd, "-j", arg, 1, 256, &u))
        return -1;
    *out = (int)u;
    return 0;
}

int cli_seed(const char *cmd, const char *arg, uint64_t *out)
{
    unsigned long long u;
    if (cli_u64(cmd, "--seed", arg, 0, UINT64_MAX, &u))
        return -1;
    *out = u;
    return 0;
}

void cli_getopt_begin(void)
{
    optind = 1;
    opterr = 0;
}

/* 1 if standard output is a pipe or socket whose reader has gone (`| head`
 * read what it wanted): poll reports POLLERR on its write end. */
static int stdout_reader_gone(void)
{
    struct pollfd p = {.fd = 1, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int cli_stdout_done(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    int e = errno;
    if (e == EPIPE || stdout_reader_gone())
        return rc; /* the reader stopped reading: not an error of ours */
    if (std_closed & 2u)
        fprintf(stderr, "v10sim: standard output is closed: the report cannot be written "
                        "(run with standard output open, e.g. >/dev/null to discard it)\n");
    else
        fprintf(stderr, "v10sim: standard output: write failed%s%s\n", e ? ": " : "",
                e ? strerror(e) : "");
    return rc == V10_EXIT_OK ? V10_EXIT_FAIL : rc;
}

int cli_written(int rc, const v10_err *err)
{
    if (!rc)
        return V10_EXIT_OK;
    if (ferror(stdout)) /* cli_stdout_done reports it, once */
        return stdout_reader_gone() ? V10_EXIT_OK : V10_EXIT_FAIL;
    return cli_fail(err);
}

int cli_default_threads(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 ? (int)ncpu : 1;
}

/* Adds the policy typed as name[0..l) (its registry name when it names
 * one, as people type it: util/names.h) to names[0..*n) unless it is there
 * already. */
static void policy_add(char names[][V10_NAME_MAX], int *n, int max, const char *name, size_t l)
{
    char typed[V10_NAME_MAX];
    snprintf(typed, sizeof typed, "%.*s", (int)l, name);
    const v10_policy_ops *p = v10_policy_find(typed);
    const char *add = p ? v10_policy_name(p) : typed;
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], add))
            return;
    if (*n < max)
        snprintf(names[(*n)++], V10_NAME_MAX, "%s", add);
}

/* Splits "a,b,c" into policy names, where "all" stands for every policy but
 * solo (so "all,solo" is every one); a name given twice runs once; blanks
 * around a name are dropped ("pmt, v10-full").  Returns the count or -1. */
int cli_policy_list(const char *arg, char names[][V10_NAME_MAX], int max)
{
    int n = 0;
    const char *p = arg;
    while (*p) {
        size_t l = strcspn(p, ",");
        const char *w = p + strspn(p, " \t");
        size_t wl = l - (size_t)(w - p);
        while (wl && (w[wl - 1] == ' ' || w[wl - 1] == '\t'))
            wl--;
        if (wl == 0 || wl >= V10_NAME_MAX)
            return -1;
        char word[V10_NAME_MAX];
        snprintf(word, sizeof word, "%.*s", (int)wl, w);
        static const char *const all[] = {"all", NULL};
        if (v10_name_lookup(word, all, 1) == 0) {
            for (size_t i = 0; i < v10_policy_count(); i++) {
                const char *name = v10_policy_name(v10_policy_at(i));
                if (strcmp(name, "solo"))
                    policy_add(names, &n, max, name, strlen(name));
            }
        } else {
            policy_add(names, &n, max, w, wl);
        }
        p += l;
        if (*p == ',' && !*++p)
            return -1; /* a trailing comma */
    }
    return n;
}
