/*
 * replay.c — runs a fuzz harness over corpus files without libFuzzer, so the
 * test run (and its sanitizer build) replays every corpus entry and every
 * crash ever found.  Usage: fuzz_replay_X DIR_OR_FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dirlist.h"

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
        size_t n;
        char **names = dirlist(argv[i], &n);
        for (size_t k = 0; k < n; k++) {
            count += replay_file(names[k]) == 0;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %zu inputs\n", count);
    return count ? 0 : 1;
}
