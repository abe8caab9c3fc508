/*
 * replay.c — runs a fuzz harness over corpus files without libFuzzer, so the
 * test run (and its sanitizer build) replays every corpus entry and every
 * crash ever found.  Usage: fuzz_replay_X DIR_OR_FILE...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue; /* an empty crash directory may not exist */
        if (!S_ISDIR(st.st_mode)) {
            count += replay_file(argv[i]) == 0;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d)
            continue;
        char **names = NULL;
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char **nn = realloc(names, (n + 1) * sizeof *names);
            if (!nn)
                break;
            names = nn;
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(l);
            snprintf(names[n++], l, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        if (n)
            qsort(names, n, sizeof *names, cmp); /* qsort(NULL, 0) is undefined */
        for (size_t k = 0; k < n; k++) {
            count += replay_file(names[k]) == 0;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %zu inputs\n", count);
    return count ? 0 : 1;
}
