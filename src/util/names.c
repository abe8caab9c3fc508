/* names.c — names as people type them (see names.h). */
#include "util/names.h"

#include <stdio.h>
#include <string.h>

#define WORD_MAX 64 /* longer words are not names: no match, no hint */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

/* typed without blanks at either end into w[WORD_MAX]: its length, or -1
 * if it does not fit. */
static long trimmed(const char *typed, char *w)
{
    while (*typed == ' ' || *typed == '\t')
        typed++;
    size_t l = strlen(typed);
    while (l && (typed[l - 1] == ' ' || typed[l - 1] == '\t'))
        l--;
    if (l >= WORD_MAX)
        return -1;
    memcpy(w, typed, l);
    w[l] = 0;
    return (long)l;
}

static int same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b))
            return 0;
    return !*a && !*b;
}

long v10_name_lookup(const char *typed, const char *const *names, size_t n)
{
    char w[WORD_MAX];
    if (trimmed(typed, w) < 0)
        return -1;
    for (size_t i = 0; i < n && names[i]; i++)
        if (!strcmp(names[i], typed))
            return (long)i;
    long found = -1;
    for (size_t i = 0; i < n && names[i]; i++)
        if (same_ignoring_case(names[i], w)) {
            if (found >= 0)
                return -1; /* two names differ only in case: say which */
            found = (long)i;
        }
    return found;
}

/* Optimal-string-alignment distance of a and b, ignoring case (both
 * shorter than WORD_MAX). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[WORD_MAX + 1][WORD_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ca = lower((unsigned char)a[i - 1]), cb = lower((unsigned char)b[j - 1]);
            size_t v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == lower((unsigned char)b[j - 2]) &&
                lower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1; /* two neighbours swapped */
            d[i][j] = v;
        }
    return d[la][lb];
}

/* Whether w (length lw >= 3) begins or ends `name`, ignoring case. */
static int part_of(const char *w, size_t lw, const char *name)
{
    size_t ln = strlen(name);
    if (lw < 3 || lw > ln)
        return 0;
    int head = 1, tail = 1;
    for (size_t i = 0; i < lw; i++) {
        head &= lower((unsigned char)w[i]) == lower((unsigned char)name[i]);
        tail &= lower((unsigned char)w[i]) == lower((unsigned char)name[ln - lw + i]);
    }
    return head || tail;
}

char *v10_name_hint(char *hint, size_t cap, const char *typed, const char *const *names,
                    size_t n, const char *prefix)
{
    hint[0] = 0;
    char w[WORD_MAX];
    long lw = trimmed(typed, w);
    if (lw <= 0)
        return hint;
    size_t near = (size_t)lw / 3 > 2 ? (size_t)lw / 3 : 2, best = (size_t)-1;
    size_t pick[3], np = 0;
    for (size_t i = 0; i < n && names[i]; i++) {
        if (strlen(names[i]) >= WORD_MAX)
            continue;
        size_t dd = part_of(w, (size_t)lw, names[i]) ? 1 : distance(w, names[i]);
        if (dd > near || dd > best)
            continue;
        if (dd < best)
            best = dd, np = 0;
        if (np < 3)
            pick[np++] = i;
    }
    if (!np)
        return hint;
    size_t o = (size_t)snprintf(hint, cap, "; did you mean ");
    for (size_t k = 0; k < np && o < cap; k++)
        o += (size_t)snprintf(hint + o, cap - o, "%s'%s%s'", k == 0 ? "" : k + 1 < np ? ", " : " or ",
                              prefix ? prefix : "", names[pick[k]]);
    if (o < cap)
        snprintf(hint + o, cap - o, "?");
    return hint;
}
