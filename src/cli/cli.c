/* cli.c — shared helpers of the sub-commands: errors, option values, files. */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_fail(const v10_err *err)
{
    fprintf(stderr, "v10sim: %s\n", err->msg);
    return V10_EXIT_FAIL;
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

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "v10sim %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
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

int cli_format(const char *cmd, const char *arg, v10_format *out)
{
    if (v10_format_parse(arg, out) == 0)
        return 0;
    cli_usage_error(cmd, "--format: expected table, json or csv, got '%s'", arg);
    return -1;
}

int cli_u64(const char *cmd, const char *opt, const char *arg, unsigned long long min,
            unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!arg || !*arg || *arg == '-' || *arg == '+')
        goto bad;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || v < min || v > max)
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
    char *end;
    errno = 0;
    if (!arg || !*arg)
        goto bad;
    double v = strtod(arg, &end);
    if (errno || *end || !isfinite(v) || v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    cli_usage_error(cmd, "%s: expected a number in [%g, %g], got '%s'", opt, min, max,
                    arg ? arg : "");
    return -1;
}

int cli_out_open(cli_out *o, const char *path, v10_err *err)
{
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path)
        return v10_err_set(err, "%s: path too long", path);
    strcpy(o->path, path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0)
        return v10_err_set(err, "%s: cannot create: %s", path, strerror(errno));
    /* mkstemp makes the file 0600; give it the mode a plain fopen would. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        return v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    }
    return 0;
}

int cli_out_commit(cli_out *o, v10_err *err)
{
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) == 0)
        return 0;
    if (!bad)
        e = errno;
    unlink(o->tmp);
    return v10_err_set(err, "%s: write failed: %s", o->path, strerror(e));
}

void cli_out_abort(cli_out *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
}

int cli_stdout_done(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    int e = errno;
    fprintf(stderr, "v10sim: standard output: write failed%s%s\n", e ? ": " : "",
            e ? strerror(e) : "");
    return rc == V10_EXIT_OK ? V10_EXIT_FAIL : rc;
}
