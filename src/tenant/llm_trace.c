/*
 * llm_trace.c — LLM request arrivals from an Azure-format trace (see
 * v10/llm_trace.h): Patel et al., "Splitwise: Efficient generative LLM
 * inference using phase splitting", ISCA 2024, released these traces.
 *
 * Format: a header naming the columns TIMESTAMP, ContextTokens and
 * GeneratedTokens (any order), then one request per line; blank lines are
 * skipped.  Timestamps are `YYYY-MM-DD HH:MM:SS[.f]` with up to nine
 * fraction digits, read exactly as integer nanoseconds.
 */
#include "v10/llm_trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/file.h"
#include "util/num.h"

enum { C_TIME, C_PROMPT, C_OUTPUT, C_N };
static const char *const col_names[C_N] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};

void v10_llm_trace_fini(v10_llm_trace *t)
{
    free(t->reqs);
    memset(t, 0, sizeof *t);
}

/* Reads exactly `n` decimal digits at *p into *v; -1 if any is not a digit. */
static int digits(const char **p, int n, long *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* "YYYY-MM-DD HH:MM:SS[.fffffffff]" -> nanoseconds since 1970; -1 if bad. */
static int parse_time(const char *s, int64_t *ns)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    long y, mo, d, h, mi, sec, frac = 0;
    const char *p = s;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d) || *p++ != ' ' || digits(&p, 2, &h) || *p++ != ':' ||
        digits(&p, 2, &mi) || *p++ != ':' || digits(&p, 2, &sec))
        return -1;
    if (*p == '.') {
        p++;
        int n = 0;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        if (n < 1 || n > 9 || digits(&p, n, &frac))
            return -1;
        for (; n < 9; n++)
            frac *= 10;
    }
    if (*p || y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || sec > 59)
        return -1;
    int64_t secs = (int64_t)days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *ns = secs * 1000000000 + frac;
    return 0;
}

/* A token count: an integer in [1, 2^32).  -1 with err naming where. */
static int parse_tokens(const char *s, const char *path, int line, const char *col,
                        uint32_t *out, v10_err *err)
{
    uint64_t v;
    if (*s == '-')
        return v10_err_set(err, "%s:%d: %s: negative token count '%s'", path, line, col, s);
    if (v10_parse_u64(s, &v) || v < 1 || v > UINT32_MAX)
        return v10_err_set(err, "%s:%d: %s: expected an integer of 1 to %u tokens, got '%s'",
                           path, line, col, UINT32_MAX, s);
    *out = (uint32_t)v;
    return 0;
}

/* Maps the header's fields to columns; -1 names a missing or unknown one. */
static int header(char **fld, int n, const char *path, int line, int *col, v10_err *err)
{
    for (int c = 0; c < C_N; c++)
        col[c] = -1;
    for (int j = 0; j < n; j++) {
        int c = 0;
        while (c < C_N && strcmp(fld[j], col_names[c]))
            c++;
        if (c == C_N)
            return v10_err_set(err, "%s:%d: unknown column '%s' (expected TIMESTAMP, "
                                    "ContextTokens, GeneratedTokens)", path, line, fld[j]);
        if (col[c] >= 0)
            return v10_err_set(err, "%s:%d: column '%s' given twice", path, line, fld[j]);
        col[c] = j;
    }
    for (int c = 0; c < C_N; c++)
        if (col[c] < 0)
            return v10_err_set(err, "%s:%d: missing column '%s' (the header must name "
                                    "TIMESTAMP, ContextTokens, GeneratedTokens)", path, line,
                               col_names[c]);
    return 0;
}

static int push(v10_llm_trace *t, const v10_llm_request *r, const char *path, v10_err *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        v10_llm_request *nr = cap <= SIZE_MAX / sizeof *nr ? realloc(t->reqs, cap * sizeof *nr)
                                                           : NULL;
        if (!nr)
            return v10_err_set(err, "%s: out of memory", path);
        t->reqs = nr;
        t->cap = cap;
    }
    t->reqs[t->n++] = *r;
    return 0;
}

/* The traces the binary carries (CMakeLists.txt embeds them from
 * tests/data/llm/, whose README gives their source), read as "@NAME". */
extern const char v10_llm_azure_conv_200_csv[];
extern const char v10_llm_azure_code_200_csv[];
static const struct {
    const char *name, *text;
} builtin[] = {{"@azure_conv_200", v10_llm_azure_conv_200_csv},
               {"@azure_code_200", v10_llm_azure_code_200_csv}};

/* Opens a trace: a built-in one's text for "@NAME", else the file. */
static FILE *trace_open(const char *path, v10_err *err)
{
    if (path[0] != '@')
        return v10_input_open(path, err);
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (!strcmp(path, builtin[i].name)) {
            const char *t = builtin[i].text;
            FILE *f = fmemopen((void *)(uintptr_t)t, strlen(t), "r");
            if (!f)
                v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
            return f;
        }
    v10_err_set(err, "%s: no such built-in trace (expected @azure_conv_200 or "
                     "@azure_code_200, or a file name without '@')", path);
    return NULL;
}

int v10_llm_trace_read(const char *path, double time_scale, double start_s,
                       v10_llm_trace *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = trace_open(path, err);
    if (!f)
        return -1;
    int rc = v10_llm_trace_parse(f, path, time_scale, start_s, out, err);
    fclose(f);
    return rc;
}

int v10_llm_trace_parse(FILE *f, const char *path, double time_scale, double start_s,
                        v10_llm_trace *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(time_scale > 0 && time_scale <= 1e6))
        return v10_err_set(err, "%s: time scale %g: expected a number in (0, 1e6]", path,
                           time_scale);
    if (!(start_s >= 0 && start_s <= 1e12))
        return v10_err_set(err, "%s: start offset %g s: expected a number in [0, 1e12]", path,
                           start_s);
    char line[V10_CSV_LINE_MAX];
    char *fld[V10_CSV_FIELDS_MAX];
    int col[C_N], lineno = 0, n_header = 0, prev_line = 0;
    int64_t first_ns = 0, prev_ns = 0;
    int n;
    while ((n = v10_csv_next(f, path, 0, line, fld, &lineno, err)) > 0) {
        if (!n_header) {
            if (header(fld, n, path, lineno, col, err))
                goto fail;
            n_header = n;
            continue;
        }
        if (v10_csv_check_fields(path, lineno, n, n_header, err))
            goto fail;
        int64_t ns;
        if (parse_time(fld[col[C_TIME]], &ns)) {
            v10_err_set(err, "%s:%d: TIMESTAMP: expected YYYY-MM-DD HH:MM:SS[.fffffff] "
                             "(1970 to 2200), got '%s'", path, lineno, fld[col[C_TIME]]);
            goto fail;
        }
        if (out->n && ns < prev_ns) {
            v10_err_set(err, "%s:%d: TIMESTAMP %s is earlier than line %d's: rows must be in "
                             "time order", path, lineno, fld[col[C_TIME]], prev_line);
            goto fail;
        }
        v10_llm_request r;
        if (parse_tokens(fld[col[C_PROMPT]], path, lineno, "ContextTokens", &r.prompt_tokens,
                         err) ||
            parse_tokens(fld[col[C_OUTPUT]], path, lineno, "GeneratedTokens",
                         &r.output_tokens, err))
            goto fail;
        if (!out->n)
            first_ns = ns;
        r.arrival_s = (double)(ns - first_ns) * 1e-9 * time_scale + start_s;
        if (push(out, &r, path, err))
            goto fail;
        prev_ns = ns;
        prev_line = lineno;
    }
    if (n < 0)
        goto fail;
    if (!n_header) {
        v10_err_set(err, "%s: empty: expected a header TIMESTAMP,ContextTokens,GeneratedTokens",
                    path);
        goto fail;
    }
    if (!out->n) {
        v10_err_set(err, "%s: no requests after the header", path);
        goto fail;
    }
    return 0;
fail:
    v10_llm_trace_fini(out);
    return -1;
}
