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

int v10_op_view_fill(const v10_model *m, const v10_npu *npu, uint64_t share,
                     const v10_op_view_bufs *bufs, v10_op_view *out, v10_err *err)
{
    uint64_t total = 0;
    for (size_t k = 0; k < m->n_ops; k++) {
        bufs->fu[k] = (uint8_t)m->ops[k].fu;
        bufs->macs[k] = (double)m->ops[k].macs;
        bufs->work[k] = v10_cost_shared_cycles(npu, &m->ops[k], share, &bufs->bytes[k]);
        if (v10_add_u64(total, bufs->work[k], &total))
            return v10_err_set(err, "%s: one request's work overflows 64 bits", m->name);
    }
    *out = (v10_op_view){bufs->work, bufs->bytes, bufs->fu, bufs->macs, total};
    return 0;
}

/*
 * The memo.  An entry is keyed by what v10_cost_shared_cycles reads besides
 * the operators: the HBM bandwidth, the issue cycles and the share; the
 * operators are the cache's (one array per model and NPU cost), so their
 * address names them.  Entries are only added, and live until exit; the
 * lock guards the table while an entry is looked up or built.
 * Invariant: entries 0..n-1 are complete; bytes is the sum of their arrays
 * (an entry sharing another's counts none).
 */
typedef struct view_entry {
    const v10_op *ops;
    size_t n_ops;
    double hbm_bytes_per_cycle;
    uint32_t issue_cycles;
    uint64_t share;
    v10_op_view view;
    void *block;               /* the entry's four arrays, one allocation; NULL:
                                  view is an earlier entry's (same_spill) */
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

/* x holds m's operators costed on npu's HBM and issue (at x's share). */
static int same_ops(const view_entry *x, const v10_model *m, const v10_npu *npu)
{
    return x->ops == m->ops && x->n_ops == m->n_ops &&
           x->hbm_bytes_per_cycle == v10_npu_hbm_bytes_per_cycle(npu) &&
           x->issue_cycles == npu->issue_cycles;
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
    /* The scalability study runs each model at many shares, most of which
     * spill alike (all those past its largest operand spill nothing): an
     * entry at such a share points at the first one's arrays (block NULL)
     * instead of filling, and faulting in, arrays of its own. */
    for (size_t i = 0; i < memo.n; i++) {
        const view_entry *y = &memo.e[i];
        if (y->block && same_ops(y, m, npu) && same_spill(m, y->share, share)) {
            *x = *y;
            x->share = share;
            x->block = NULL;
            memo.n++;
            return 1;
        }
    }
    size_t n = m->n_ops;
    uint64_t size = (uint64_t)n * (2 * sizeof(uint64_t) + sizeof(double) + 1);
    if (size > V10_VIEW_BYTES - memo.bytes)
        return 0;
    char *block = v10_malloc_big(size ? (size_t)size : 1);
    if (!block)
        return v10_err_set(err, "%s: out of memory", m->name);
    /* Widest first, so every array is aligned. */
    v10_op_view_bufs b = {(uint64_t *)block, (uint64_t *)(block + n * sizeof(uint64_t)),
                          (uint8_t *)(block + n * (2 * sizeof(uint64_t) + sizeof(double))),
                          (double *)(block + 2 * n * sizeof(uint64_t))};
    if (v10_op_view_fill(m, npu, share, &b, &x->view, err)) {
        free(block);
        return -1;
    }
    x->ops = m->ops;
    x->n_ops = n;
    x->hbm_bytes_per_cycle = v10_npu_hbm_bytes_per_cycle(npu);
    x->issue_cycles = npu->issue_cycles;
    x->share = share;
    x->block = block;
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
    if (!m->shared)
        return 0;
    pthread_mutex_lock(&memo.lock);
    size_t i = 0;
    while (i < memo.n && !(same_ops(&memo.e[i], m, npu) && memo.e[i].share == share))
        i++;
    int rc = i < memo.n ? 1 : memo_add(m, npu, share, err);
    if (rc == 1)
        *out = memo.e[i].view;
    pthread_mutex_unlock(&memo.lock);
    return rc;
}
