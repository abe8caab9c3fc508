/*
 * csv.c — simple CSV line handling (see csv.h).
 */
#include "util/csv.h"

#include <string.h>

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

int v10_csv_split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max)
            return -1;
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        f[n++] = v10_csv_strip(p);
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

int v10_csv_next(FILE *f, const char *path, int comments, char *line, char **fields,
                 int *lineno, v10_err *err)
{
    while (fgets(line, V10_CSV_LINE_MAX, f)) {
        ++*lineno;
        if (!strchr(line, '\n') && !feof(f))
            return v10_err_set(err, "%s:%d: line longer than %d bytes", path, *lineno,
                               V10_CSV_LINE_MAX - 2);
        char *s = v10_csv_strip(*lineno == 1 ? (char *)v10_skip_bom(line) : line);
        if (!*s || (comments && *s == '#'))
            continue;
        int n = v10_csv_split(s, fields, V10_CSV_FIELDS_MAX);
        if (n < 0)
            return v10_err_set(err, "%s:%d: more than %d fields", path, *lineno,
                               V10_CSV_FIELDS_MAX);
        return n;
    }
    return ferror(f) ? v10_err_set(err, "%s: read error", path) : 0;
}
