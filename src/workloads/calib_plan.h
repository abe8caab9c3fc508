/*
 * calib_plan.h — calibrate.c's plan of the calibrated operators and its two
 * steps in calib_emit.c: writing them over the architecture's, and giving
 * them their HBM bytes (docs/models.md, "Calibrated models").  Private to
 * src/workloads/.
 */
#ifndef V10_WORKLOADS_CALIB_PLAN_H
#define V10_WORKLOADS_CALIB_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/model.h"

/* Where a TPU runs the vector work a profile adds (calibrate.c's tables). */
typedef enum {
    AT_BEFORE_SA, /* before each SA operator, by its length (relayout, padding) */
    AT_AFTER,     /* after each VU operator whose name contains `match` */
    AT_END,       /* after the last operator (post-processing) */
} anchor;

typedef struct kind {
    const char *name;    /* operator name stem */
    anchor at;
    const char *match;   /* AT_AFTER: name substring */
    double weight;       /* share of the added vector work */
    double hbm_frac;     /* HBM bytes per cycle, fraction of the bandwidth */
} kind;

#define MAX_KINDS 4

/* A calibrated model larger than this is refused (memory: 240 B an op,
 * 500 MB; the largest isca23 model, RetinaNet, has 7.9 x 10^5). */
#define MAX_CAL_OPS (2u << 20)

/* Added operators of one kind at one anchor: `count` operators of `len`
 * cycles each, at arch position `at` (before or after that operator, as
 * the kind says; n: after the last).  A kind's sites are in ascending
 * `at`, one per anchor. */
typedef struct site {
    size_t at;
    uint32_t count;
    double len;          /* cycles */
} site;

typedef struct plan {
    const v10_op *arch; /* the architecture's operators, n of them (they move
                           once, when emission starts: calib_emit_all) */
    const v10_npu *npu;
    size_t n;
    uint8_t *fu;        /* per arch op: its FU type (the passes over the plan read
                           these, not the 240-byte operators) */
    double *len;        /* per arch op: target cycles of all its pieces together */
    uint32_t *pieces;   /* per arch op: output pieces (0: merged into a leader) */
    size_t *last;       /* per arch op: leader -> last op of its merged group
                           (NULL until a merge: each op its own group) */
    site *sites[MAX_KINDS]; /* per kind: where its added operators go, by `at` */
    size_t n_sites[MAX_KINDS];
    const kind *kinds;
} plan;

/* Emits the plan's operators over the arch operators m->ops (calib_emit.c,
 * which says how): m->n_ops becomes the output's count, (*rho)[0, n_ops)
 * their natural HBM intensities and (*rho)[n_ops, 2 n_ops) their given
 * cycles (one block, the caller's to free).  p->arch is invalid after.
 * -1 with err set: too many operators or out of memory (m unchanged). */
int calib_emit_all(plan *p, v10_model *m, double hbm_bw, double **rho, v10_err *err);

/* Gives m's operators their HBM bytes: intensities rho (floored in place
 * at 1e-3 of the bandwidth when scaling) times their lengths len, scaled
 * by one factor so that the total is `target` bytes (target < 0:
 * unscaled), each capped at the bandwidth. */
void calib_assign_bytes(v10_model *m, double *rho, const double *len, double target, double bw);

#endif
