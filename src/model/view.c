/*
 * view.c — models as the engine runs them, and the memo of those built
 * from the cache's shared models (view.h).
 */
#include "model/view.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/mem.h"
#include "v10/cost.h"

/* Fills the arrays of m's view at this NPU and share that are not NULL
 * (work and bytes are computed together, either may be skipped) and sets
 * *req_work to one request's work when work is filled. */
static int fill(const v10_model *m, const v10_npu *npu, uint64_t share, uint64_t *work,
                uint64_t *bytes, uint8_t *fu, double *macs, uint64_t *req_work, v10_err *err)
{
    uint64_t total = 0;
    for (size_t k = 0; k < m->n_ops; k++) {
        if (fu) {
            fu[k] = (uint8_t)m->ops[k].fu;
            /* The SA's MACs: a matmul run on the VU (cost.h) is not SA work. */
            macs[k] = m->ops[k].fu == V10_FU_SA ? (double)m->ops[k].macs : 0;
        }
        if (!work && !bytes)
            continue;
        uint64_t b, w = v10_cost_shared_cycles(npu, &m->ops[k], share, &b);
        if (bytes)
            bytes[k] = b;
        if (work) {
            work[k] = w;
            if (v10_add_u64(total, w, &total))
                return v10_err_set(err, "%s: one request's work overflows 64 bits", m->name);
        }
    }
    *req_work = total;
    return 0;
}

int v10_op_view_fill(const v10_model *m, const v10_npu *npu, uint64_t share,
                     const v10_op_view_bufs *bufs, v10_op_view *out, v10_err *err)
{
    uint64_t total;
    if (fill(m, npu, share, bufs->work, bufs->bytes, bufs->fu, bufs->macs, &total, err))
        return -1;
    *out = (v10_op_view){bufs->work, bufs->bytes, bufs->fu, bufs->macs, total};
    return 0;
}

/*
 * The memo.  An entry is keyed by what v10_cost_shared_cycles reads besides
 * the operators: the HBM bandwidth, the issue cycles and the share; the
 * operators are the cache's, named by their origin (v10_model.origin: the
 * costings of one calibrated model for several NPU cost keys have the same
 * descriptions and compute cycles, so the same views).  Entries are only
 * added, and live until exit; the lock guards the table while an entry is
 * looked up or built.
 *
 * An entry's four arrays need not be its own.  The FU types and MACs are
 * the origin's, the same at every NPU and share; the bytes depend on the
 * share only through what each operator spills (v10_cost_spill_bytes); the
 * work on that and the HBM bandwidth and issue cycles.  So an entry points
 * at an earlier entry's arrays wherever those hold the same values, and
 * fills, and faults in, only the others (`own` says which it filled).
 * Invariant: entries 0..n-1 are complete; bytes is the sum of the arrays
 * they own.
 */
enum { OWN_WORK = 1, OWN_BYTES = 2, OWN_DESC = 4 }; /* DESC: fu and macs */

typedef struct view_entry {
    const v10_op *origin;
    size_t n_ops;
    double hbm_bytes_per_cycle;
    uint32_t issue_cycles, vu_issue_cycles;
    uint64_t share;
    v10_op_view view;
    unsigned own;              /* OWN_* bits: the arrays this entry filled */
    void *block;               /* those arrays, one allocation (NULL: none) */
} view_entry;

static struct {
    pthread_mutex_t lock;
    view_entry e[V10_VIEWS];
    size_t n;
    uint64_t bytes;
    int registered;
} memo = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void memo_release(void)
{
    for (size_t i = 0; i < memo.n; i++)
        free(memo.e[i].block);
    memo.n = 0;
}

/* x holds views of m's operators (at x's share). */
static int same_origin(const view_entry *x, const v10_model *m)
{
    return x->origin == m->origin && x->n_ops == m->n_ops;
}

/* x's work was costed with npu's HBM bandwidth and issue cycles. */
static int same_npu(const view_entry *x, const v10_npu *npu)
{
    return x->hbm_bytes_per_cycle == v10_npu_hbm_bytes_per_cycle(npu) &&
           x->issue_cycles == npu->issue_cycles && x->vu_issue_cycles == npu->vu_issue_cycles;
}

/* 1 if every operator of m spills the same bytes at shares a and b: then
 * v10_cost_shared_cycles gives each the same cycles and bytes, and a view
 * at one share is the view at the other.  Stops at the first difference;
 * an operand that fits both (nonzero) shares spills nothing at either
 * (v10_cost_spill_bytes) and needs no call. */
static int same_spill(const v10_model *m, uint64_t a, uint64_t b)
{
    uint64_t fits = a && b ? (a < b ? a : b) : 0;
    for (size_t k = 0; k < m->n_ops; k++) {
        const v10_op *op = &m->ops[k];
        if (op->vmem_bytes > fits && v10_cost_spill_bytes(op, a) != v10_cost_spill_bytes(op, b))
            return 0;
    }
    return 1;
}

/* Builds entry memo.n for m; called with the lock held.  1 on success, 0
 * if over budget, -1 with err set. */
static int memo_add(const v10_model *m, const v10_npu *npu, uint64_t share, v10_err *err)
{
    if (memo.n == V10_VIEWS)
        return 0;
    view_entry *x = &memo.e[memo.n];
    *x = (view_entry){m->origin, m->n_ops, v10_npu_hbm_bytes_per_cycle(npu), npu->issue_cycles,
                      npu->vu_issue_cycles,
                      share, {NULL, NULL, NULL, NULL, 0}, 0, NULL};
    /* The scalability study runs each model at many shares, most of which
     * spill alike (all those past its largest operand spill nothing), on
     * four HBM bandwidths: take what earlier entries filled.  Only an
     * array's filler is asked, as those sharing it hold the same values. */
    for (size_t i = 0; i < memo.n && !x->view.work; i++) {
        const view_entry *y = &memo.e[i];
        if (!same_origin(y, m) || !y->own)
            continue;
        if (y->own & OWN_DESC && !x->view.fu) {
            x->view.fu = y->view.fu;
            x->view.macs = y->view.macs;
        }
        int work = y->own & OWN_WORK && same_npu(y, npu);
        int bytes = y->own & OWN_BYTES && !x->view.bytes;
        if ((work || bytes) && same_spill(m, y->share, share)) {
            x->view.bytes = x->view.bytes ? x->view.bytes : y->view.bytes;
            if (work) {
                x->view.work = y->view.work;
                x->view.req_work = y->view.req_work;
            }
        }
    }
    size_t n = m->n_ops;
    uint64_t size = (uint64_t)n * ((x->view.work ? 0 : sizeof(uint64_t)) +
                                   (x->view.bytes ? 0 : sizeof(uint64_t)) +
                                   (x->view.fu ? 0 : sizeof(double) + 1));
    if (size > V10_VIEW_BYTES - memo.bytes)
        return 0;
    if (!x->view.work || !x->view.bytes || !x->view.fu) {
        char *at = x->block = v10_malloc_big(size ? (size_t)size : 1);
        if (!at)
            return v10_err_set(err, "%s: out of memory", m->name);
        /* Widest first, so every array is aligned. */
        uint64_t *work = NULL, *bytes = NULL;
        double *macs = NULL;
        uint8_t *fu = NULL;
        if (!x->view.work) {
            x->own |= OWN_WORK;
            x->view.work = work = (uint64_t *)at;
            at += n * sizeof *work;
        }
        if (!x->view.bytes) {
            x->own |= OWN_BYTES;
            x->view.bytes = bytes = (uint64_t *)at;
            at += n * sizeof *bytes;
        }
        if (!x->view.fu) {
            x->own |= OWN_DESC;
            x->view.macs = macs = (double *)at;
            x->view.fu = fu = (uint8_t *)(at + n * sizeof *macs);
        }
        uint64_t total;
        if (fill(m, npu, share, work, bytes, fu, macs, &total, err)) {
            free(x->block);
            return -1;
        }
        if (work)
            x->view.req_work = total;
    }
    memo.bytes += size;
    memo.n++;
    if (!memo.registered)
        atexit(memo_release);
    memo.registered = 1;
    return 1;
}

int v10_op_view_shared(const v10_model *m, const v10_npu *npu, uint64_t share,
                       v10_op_view *out, v10_err *err)
{
    if (!m->shared || !m->origin)
        return 0;
    pthread_mutex_lock(&memo.lock);
    size_t i = 0;
    while (i < memo.n && !(same_origin(&memo.e[i], m) && same_npu(&memo.e[i], npu) &&
                           memo.e[i].share == share))
        i++;
    int rc = i < memo.n ? 1 : memo_add(m, npu, share, err);
    if (rc == 1)
        *out = memo.e[i].view;
    pthread_mutex_unlock(&memo.lock);
    return rc;
}
