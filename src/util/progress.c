/* progress.c — a progress bar with ETA on stderr (see v10/pool.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "v10/pool.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void v10_progress_start(v10_progress *p, const char *label, size_t total)
{
    memset(p, 0, sizeof *p);
    p->label = label;
    p->total = total;
    p->t0 = now_s();
    const char *env = getenv("V10_PROGRESS");
    p->enabled = label && (env ? !strcmp(env, "1") : isatty(STDERR_FILENO));
}

static void draw(v10_progress *p)
{
    double el = now_s() - p->t0;
    double frac = p->total ? (double)p->done / (double)p->total : 1.0;
    int width = 30, fill = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[width] = 0;
    double eta = p->done ? el / (double)p->done * (double)(p->total - p->done) : 0;
    fprintf(stderr, "\r[%s] %zu/%zu %3.0f%%  ETA %d:%02d  %s", bar, p->done, p->total,
            100 * frac, (int)eta / 60, (int)eta % 60, p->label);
    fflush(stderr);
    p->drawn = 1;
}

void v10_progress_step(v10_progress *p, size_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    double t = now_s();
    if ((t - p->last_draw < 0.1 && done < p->total) || t - p->t0 < p->quiet_s)
        return;
    p->last_draw = t;
    draw(p);
}

void v10_progress_end(v10_progress *p)
{
    if (!p->enabled || (p->quiet_s > 0 && !p->drawn))
        return;
    draw(p);
    fputc('\n', stderr);
}
