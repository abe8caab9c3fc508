/*
 * view.h — a model as the engine runs it on one NPU: per operator its FU
 * type, MACs, and standalone cycles and HBM bytes with the tenant's share
 * of the vector memory (v10_cost_shared_cycles).  A run sets one up per
 * tenant before its loop.
 *
 * For a model whose operators belong to the process-wide cache (m->shared:
 * read-only and alive until exit) the arrays are computed once per
 * (operators' origin, HBM bandwidth and issue cycles, share) and every
 * later run with the same reads them: a repro or sweep runs the same
 * calibrated models hundreds of times, and RetinaNet alone has 7.6 x 10^5
 * operators.  Entries share every array that holds the same values: the
 * FU types and MACs of one origin, the bytes at shares where every
 * operator spills alike, the work there at one bandwidth.  The memo holds
 * at most V10_VIEWS entries and V10_VIEW_BYTES of arrays; past either, and
 * for every other model, the arrays are computed into the caller's buffers.
 * Either way the values are the same, so no result depends on the memo.
 */
#ifndef V10_MODEL_VIEW_H
#define V10_MODEL_VIEW_H

#include <stdint.h>

#include "v10/model.h"

#define V10_VIEWS 512
#define V10_VIEW_BYTES ((uint64_t)1 << 30)

typedef struct v10_op_view {
    const uint64_t *work;      /* standalone cycles with the share */
    const uint64_t *bytes;     /* HBM bytes with the share */
    const uint8_t *fu;         /* v10_fu_type */
    const double *macs;
    uint64_t req_work;         /* sum of work: one request */
} v10_op_view;

/* Caller-owned room for m->n_ops entries of each array. */
typedef struct v10_op_view_bufs {
    uint64_t *work, *bytes;
    uint8_t *fu;
    double *macs;
} v10_op_view_bufs;

/* Serves m at this NPU and share from the memo, adding it there if m is
 * shared and the memo has room: 1 with *out set; 0 if not (compute the
 * arrays with v10_op_view_fill); -1 with err set if one request's work
 * overflows 64 bits or memory runs out. */
int v10_op_view_shared(const v10_model *m, const v10_npu *npu, uint64_t share,
                       v10_op_view *out, v10_err *err);

/* Computes m's arrays into bufs (room for m->n_ops each) and points *out
 * at them; -1 with err set if one request's work overflows 64 bits. */
int v10_op_view_fill(const v10_model *m, const v10_npu *npu, uint64_t share,
                     const v10_op_view_bufs *bufs, v10_op_view *out, v10_err *err);

#endif
