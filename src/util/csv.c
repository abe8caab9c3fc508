/*
 * csv.c — simple CSV line handling (see csv.h).
 */
#include "util/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *v10_csv_strip(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

char *v10_csv_skip_bom(char *s)
{
    return strncmp(s, "\xEF\xBB\xBF", 3) ? s : s + 3;
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

int v10_csv_u64(const char *s, unsigned long long *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

int v10_csv_double(const char *s, double *out)
{
    if (!*s || strpbrk(s, "xXnN")) /* no hex floats, inf or nan */
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
