/* progress.c — the one progress bar: with ETA on stderr, or on a stderr that
 * is not a terminal a line every 10 s (see v10/pool.h). */
#include <math.h>
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

/* Seconds between progress lines when stderr is not a terminal
 * (V10_PROGRESS_EVERY=S changes it; tests set 0). */
#define LINE_EVERY_S 10.0

void v10_progress_start(v10_progress *p, const char *label, size_t total)
{
    memset(p, 0, sizeof *p);
    p->label = label;
    p->total = total;
    p->t0 = now_s();
    p->enabled = v10_progress_wanted(label);
    const char *every = getenv("V10_PROGRESS_EVERY");
    p->every_s = every ? atof(every) : LINE_EVERY_S;
}

int v10_progress_wanted(const char *label)
{
    /* V10_PROGRESS=1: the bar; =0: nothing; unset: the bar on a terminal,
     * else a line every LINE_EVERY_S (a log, CI, nohup). */
    const char *env = getenv("V10_PROGRESS");
    return !label ? 0 : env ? (!strcmp(env, "1") ? 1 : 0) : isatty(STDERR_FILENO) ? 1 : 2;
}

/* The fraction done: of the work (what is running counted half done) when
 * it is known, else of the items. */
static double fraction(const v10_progress *p)
{
    double f = p->work_total > 0 ? (p->work_done + p->work_running / 2) / p->work_total
               : p->total ? (double)p->done / (double)p->total : 1.0;
    return p->done >= p->total ? 1.0 : f < 0 ? 0 : f > 1 ? 1 : f;
}

double v10_progress_eta_s(const v10_progress *p, double elapsed_s)
{
    /* An ETA from the first few percent is a guess: none before 5% of the
     * work (or of the items) is done. */
    double frac = fraction(p);
    return frac >= 0.05 ? elapsed_s / frac * (1 - frac) : -1;
}

/* "M:SS" of s seconds into buf. */
static void mmss(double s, char *buf, size_t n)
{
    snprintf(buf, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

static void draw(v10_progress *p)
{
    double el = now_s() - p->t0;
    double frac = fraction(p), left = v10_progress_eta_s(p, el);
    /* percent: 100 only when all is done, never rounded up to it */
    double pct = p->done >= p->total ? 100 : fmin(99, floor(100 * frac));
    char eta[16] = "--:--", spent[16];
    mmss(el, spent, sizeof spent);
    if (left >= 0)
        mmss(left, eta, sizeof eta);
    if (p->enabled == 2) {
        fprintf(stderr, "v10sim: %s: %zu/%zu (%.0f%%), %s elapsed, ETA %s\n", p->label, p->done,
                p->total, pct, spent, eta);
    } else {
        int width = 30, fill = (int)(frac * width);
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : ' ';
        bar[width] = 0;
        fprintf(stderr, "\r[%s] %zu/%zu %3.0f%%  ETA %s  %s", bar, p->done, p->total, pct, eta,
                p->label);
    }
    fflush(stderr);
    p->drawn = 1;
}

void v10_progress_step(v10_progress *p, size_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    double t = now_s(), every = p->enabled == 2 ? p->every_s : 0.1;
    if (p->enabled == 2 && p->last_draw == 0)
        p->last_draw = p->t0; /* lines: the first after every_s */
    if ((t - p->last_draw < every && done < p->total) || t - p->t0 < p->quiet_s)
        return;
    if (p->enabled == 2 && done >= p->total)
        return; /* the end line says it */
    p->last_draw = t;
    draw(p);
}

void v10_progress_end(v10_progress *p)
{
    /* a bar drawn is finished; lines end with one only if any was printed */
    if (!p->enabled || ((p->quiet_s > 0 || p->enabled == 2) && !p->drawn))
        return;
    draw(p);
    if (p->enabled == 1)
        fputc('\n', stderr);
}
