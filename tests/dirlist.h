/*
 * dirlist.h — the entries of a directory, sorted, for test drivers that walk
 * data directories (the fuzz replayer, the ONNX testdata walk).
 */
#ifndef V10_TESTS_DIRLIST_H
#define V10_TESTS_DIRLIST_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dirlist_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Paths "dir/name" of dir's entries not starting with '.', sorted by name;
 * *n gets their count.  NULL (with *n = 0) if dir cannot be opened, is
 * empty, or memory runs out.  Free each path and the array. */
static char **dirlist(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char **nn = realloc(names, (*n + 1) * sizeof *names);
        size_t l = strlen(dir) + strlen(e->d_name) + 2;
        char *p = nn ? malloc(l) : NULL;
        if (!p) {
            names = nn ? nn : names;
            break;
        }
        names = nn;
        snprintf(p, l, "%s/%s", dir, e->d_name);
        names[(*n)++] = p;
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, dirlist_cmp); /* qsort(NULL, 0) is undefined */
    else {
        free(names);
        names = NULL;
    }
    return names;
}

#endif
