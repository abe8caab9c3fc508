/*
 * csv.c — simple CSV line handling (see csv.h).
 */
#include "util/csv.h"

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
