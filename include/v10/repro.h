/*
 * repro.h — `v10sim repro`: every experiment of the V10 paper (ISCA 2023)
 * that the simulator can reproduce, computed as one batch on the thread
 * pool (src/repro/), then rendered (src/repro/render.c) into named
 * in-memory files (CSVs, SVG plots, summary.md, report.html) that
 * src/cli/cmd_repro.c writes atomically.
 *
 * Ownership: v10_repro_destroy frees what v10_repro_run allocated,
 * v10_repro_out_fini what v10_repro_render did; inputs are borrowed.
 */
#ifndef V10_REPRO_H
#define V10_REPRO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "v10/err.h"
#include "v10/report.h" /* v10_artifact */

typedef struct v10_repro_opts {
    int quick;          /* fewer requests and points: under a minute on two cores */
    int threads;
    uint64_t seed;
    int progress;
    char workloads[16];  /* "isca23" (default, also "") or "zoo" */
    int fairness_both;  /* the fairness study over the other set's 55 pairs too */
} v10_repro_opts;

/* Headline figures of one workload set: V10-Full over PMT, mean of the
 * paper's 11 pairs (latencies as PMT / V10-Full). */
typedef struct v10_repro_headline {
    char set[16];             /* "isca23" or "zoo" */
    double stp, util, lat, p95, overlap;
} v10_repro_headline;

/* The computed reproduction (both workload sets' runs and collocation). */
typedef struct v10_repro v10_repro;

/* Runs every experiment (docs/repro.md): profiles, the studies' batch and
 * collocation, for the studied set and the other set's paper pairs.
 * *out is the caller's to v10_repro_destroy. */
int v10_repro_run(const v10_repro_opts *o, v10_repro **out, v10_err *err);
void v10_repro_destroy(v10_repro *r);

/* The headline figures: the studied set, then the other. */
void v10_repro_headlines(const v10_repro *r, v10_repro_headline head[2]);

/* ---- rendering (src/repro/render.c) ---------------------------------------- */

/* Invariant: files[0..n_files) have distinct names, each written whole. */
typedef struct v10_repro_out {
    v10_artifact *files;
    size_t n_files;
    size_t runs;              /* simulations executed */
    double wall_seconds;      /* of v10_repro_run */
    v10_repro_headline head[2]; /* the studied set, then the other */
} v10_repro_out;

/* Renders pairs.csv, one CSV per study, the SVG plots, summary.md and
 * report.html in memory; all or nothing (on failure *out is empty). */
int v10_repro_render(const v10_repro *r, v10_repro_out *out, v10_err *err);
void v10_repro_out_fini(v10_repro_out *out);
/* Writes out->head beside the paper's figures (a few lines); -1 on failure. */
int v10_repro_headlines_write(const v10_repro_out *out, FILE *f);

#endif
