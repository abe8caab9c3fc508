/*
 * csv.c — the one CSV reader (see csv.h): lines read here, fields parsed by
 * libcsv behind this interface.
 */
#include "util/csv.h"

#include <errno.h>
#include <string.h>

#include <csv.h>

#include "util/file.h"

char *v10_csv_strip(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

/*
 * Fields are copied back into the line they were parsed from.  That is
 * safe: libcsv hands over a field when it reads the delimiter after it (or
 * at csv_fini), a field never decodes longer than it is written, so the
 * copy ends at or before the delimiter, behind everything libcsv still has
 * to read.
 */
typedef struct split {
    char *out;     /* where the next field goes */
    char **fields;
    int max, n;
    int last_empty; /* the last field seen was empty */
} split;

static void on_field(void *s, size_t len, void *data)
{
    split *sp = data;
    if (sp->n < sp->max) {
        memmove(sp->out, s, len);
        sp->out[len] = 0;
        sp->fields[sp->n] = sp->out;
        sp->out += len + 1;
    }
    sp->last_empty = len == 0;
    sp->n++;
}

static int no_terminator(unsigned char c)
{
    (void)c;
    return 0; /* one line is one record: a CR inside it is data */
}

/* v10_csv_split, also telling whether the last field is empty. */
static int parse(char *line, char **fields, int max, int *last_empty)
{
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI))
        return -1;
    csv_set_term_func(&p, no_terminator);
    split sp = {line, fields, max, 0, 0};
    size_t len = strlen(line);
    int ok = csv_parse(&p, line, len, on_field, NULL, &sp) == len &&
             csv_fini(&p, on_field, NULL, &sp) == 0;
    csv_free(&p);
    *last_empty = sp.last_empty;
    return ok ? sp.n : -1;
}

int v10_csv_split(char *line, char **fields, int max)
{
    int last_empty;
    return parse(line, fields, max, &last_empty);
}

/* Reads one line (its '\n' included) into line[V10_CSV_LINE_MAX]: its length,
 * 0 at the end of the file, -1 if it is too long; *nul if it holds a NUL. */
static long read_line(FILE *f, char *line, int *nul)
{
    size_t n = 0;
    int c;
    *nul = 0;
    while ((c = getc(f)) != EOF) {
        if (n + 1 >= V10_CSV_LINE_MAX)
            return -1;
        line[n++] = (char)c;
        *nul |= c == 0;
        if (c == '\n')
            break;
    }
    line[n] = 0;
    return (long)n;
}

int v10_csv_next(FILE *f, const char *path, int flags, char *line, char **fields,
                 int *lineno, v10_err *err)
{
    long len;
    int nul;
    while ((len = read_line(f, line, &nul)) != 0) {
        ++*lineno;
        if (len < 0)
            return v10_err_set(err, "%s:%d: line longer than %d bytes", path, *lineno,
                               V10_CSV_LINE_MAX - 2);
        if (nul)
            return v10_err_set(err, "%s:%d: NUL byte in line (not a text CSV)", path, *lineno);
        char *s = v10_csv_strip(*lineno == 1 ? (char *)v10_skip_bom(line) : line);
        if (!*s || ((flags & V10_CSV_COMMENTS) && *s == '#'))
            continue;
        int last_empty, n = parse(s, fields, V10_CSV_FIELDS_MAX, &last_empty);
        if (n < 0)
            return v10_err_set(err, "%s:%d: malformed quoting (RFC 4180: a quoted field "
                                    "ends with '\"' before the next ',', and a '\"' inside "
                                    "it is doubled)", path, *lineno);
        if ((flags & V10_CSV_TRAILING) && n > 1 && last_empty)
            n--;
        if (n > V10_CSV_FIELDS_MAX)
            return v10_err_set(err, "%s:%d: more than %d fields", path, *lineno,
                               V10_CSV_FIELDS_MAX);
        return n;
    }
    return ferror(f) ? v10_err_set(err, "%s:%d: read error: %s", path, *lineno + 1,
                                   strerror(errno))
                     : 0;
}

int v10_csv_check_fields(const char *path, int lineno, int n, int n_header, v10_err *err)
{
    if (n != n_header)
        return v10_err_set(err, "%s:%d: expected %d fields as in the header, got %d", path,
                           lineno, n_header, n);
    return 0;
}

int v10_csv_needs_quotes(const char *field)
{
    size_t len = strlen(field);
    return strpbrk(field, ",\"\n\r") || (len && strchr(" \t", field[0])) ||
           (len && strchr(" \t", field[len - 1]));
}

void v10_csv_put(FILE *f, const char *field)
{
    if (!v10_csv_needs_quotes(field)) {
        fputs(field, f);
        return;
    }
    putc('"', f);
    for (const char *c = field; *c; c++) {
        if (*c == '"')
            putc('"', f);
        putc(*c, f);
    }
    putc('"', f);
}
