/*
 * llm_stream.c — the operator stream of one LLM serving iteration, built
 * from the model's configuration (v10_llm_prefill_batch, v10_llm_decode) and
 * costed with the one cost model, into buffers sized once
 * (v10/llm_server.h).
 */
#include "v10/llm_server.h"

#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "v10/cost.h"

/*
 * Operators in one sequence's stream of the given kind, for sizing: the
 * most over a few lengths, since element-wise operators of equal size fuse
 * and the count varies by a few with the length.  (A longer stream found
 * later grows the buffers once.)
 */
static int count_ops(const v10_llm_config *c, int prefill, size_t *n, v10_err *err)
{
    uint32_t lens[3] = {1, 7, 1000};
    *n = 0;
    for (int i = 0; i < 3; i++) {
        uint32_t t = lens[i] < c->max_context ? lens[i] : c->max_context;
        v10_model m;
        v10_model_init(&m, c->name, 1);
        int rc = prefill ? v10_llm_prefill(c, t, &m, err) : v10_llm_decode(c, 1, &t, &m, err);
        if (m.n_ops > *n)
            *n = m.n_ops;
        v10_model_fini(&m);
        if (rc)
            return -1;
    }
    return 0;
}

/* Makes room for `n` operators in the per-op arrays. */
static int grow(v10_llm_stream *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    uint64_t *w = realloc(s->work, n * sizeof *w);
    if (w)
        s->work = w;
    uint64_t *b = realloc(s->bytes, n * sizeof *b);
    if (b)
        s->bytes = b;
    uint8_t *f = realloc(s->fu, n * sizeof *f);
    if (f)
        s->fu = f;
    double *m = realloc(s->macs, n * sizeof *m);
    if (m)
        s->macs = m;
    if (!w || !b || !f || !m)
        return -1;
    s->cap = n;
    return 0;
}

int v10_llm_stream_init(v10_llm_stream *s, const v10_llm_config *cfg, const v10_npu *npu,
                        uint64_t vmem_share, uint32_t max_batch, v10_err *err)
{
    memset(s, 0, sizeof *s);
    if (v10_llm_validate(cfg, err))
        return -1;
    s->cfg = *cfg;
    s->npu = *npu;
    s->vmem_share = vmem_share;
    v10_model_init(&s->model, cfg->name, 1);
    v10_model_init(&s->remote, cfg->name, 1);
    size_t per_prefill, decode;
    if (count_ops(cfg, 1, &per_prefill, err) || count_ops(cfg, 0, &decode, err))
        return -1;
    /* A prefill of k prompts is one stream whose each further prompt adds
     * its attention (QK^T, softmax, P.V) to every layer; a chunked
     * iteration adds the decodes' attention to that. */
    size_t cap = per_prefill + decode + 3 * (size_t)cfg->layers * (max_batch ? max_batch - 1 : 0);
    if (grow(s, cap) || v10_model_reserve(&s->model, cap, err) ||
        (cfg->pp > 1 && v10_model_reserve(&s->remote, cap, err))) {
        v10_llm_stream_fini(s);
        return v10_err_set(err, "%s: out of memory for iterations of %zu operators",
                           cfg->name, cap);
    }
    return 0;
}

/* Builds and costs the operators of `it` under configuration c into m. */
static int build_iter(const v10_llm_stream *s, const v10_llm_config *c, const v10_llm_iter *it,
                      v10_model *m, v10_err *err)
{
    m->n_ops = 0;
    m->total_cycles = 0;
    uint32_t nd = it->n_decode;
    int rc = it->kind == V10_LLM_ITER_PREFILL
                 ? v10_llm_prefill_batch(c, it->n, it->tokens, m, err)
             : it->kind == V10_LLM_ITER_DECODE
                 ? v10_llm_decode(c, it->n, it->tokens, m, err)
                 : v10_llm_mixed(c, nd, it->tokens, it->n - nd, it->tokens + nd, it->past + nd,
                                 it->n_emit, m, err);
    return rc || v10_cost_model(&s->npu, m, err) ? -1 : 0;
}

/* The standalone cycles of m's operators with the tenant's share of
 * vector memory, summed into *total; each operator's into work[] and its
 * HBM bytes into bytes[] too when they are given. */
static int shared_work(const v10_llm_stream *s, const v10_model *m, uint64_t *work,
                       uint64_t *bytes, uint64_t *total, v10_err *err)
{
    *total = 0;
    for (size_t k = 0; k < m->n_ops; k++) {
        uint64_t b, w = v10_cost_shared_cycles(&s->npu, &m->ops[k], s->vmem_share, &b);
        if (work)
            work[k] = w;
        if (bytes)
            bytes[k] = b;
        if (v10_add_u64(*total, w, total))
            return v10_err_set(err, "%s: iteration work overflows 64 bits", s->cfg.name);
    }
    return 0;
}

/* Standalone cycles of `it` on pipeline stage `stage` (built into s->remote). */
static int stage_cycles(v10_llm_stream *s, uint32_t stage, const v10_llm_iter *it,
                        uint64_t *out, v10_err *err)
{
    v10_llm_config c = s->cfg;
    c.stage = stage;
    if (build_iter(s, &c, it, &s->remote, err))
        return -1;
    return shared_work(s, &s->remote, NULL, NULL, out, err);
}

/* remote_cycles: stages 1 to pp - 2 alike (the same layers and sends), then
 * the last. */
static int remote(v10_llm_stream *s, const v10_llm_iter *it, v10_err *err)
{
    uint32_t pp = s->cfg.pp;
    uint64_t mid = 0, last = 0;
    s->remote_cycles = s->remote_mid = 0;
    if (pp <= 1)
        return 0;
    if ((pp > 2 && stage_cycles(s, 1, it, &mid, err)) || stage_cycles(s, pp - 1, it, &last, err))
        return -1;
    s->remote_mid = mid;
    if (V10_MUL(&mid, mid, (uint64_t)(pp - 2)) || v10_add_u64(mid, last, &s->remote_cycles))
        return v10_err_set(err, "%s: iteration work overflows 64 bits", s->cfg.name);
    return 0;
}

int v10_llm_stream_build(v10_llm_stream *s, const v10_llm_iter *it, v10_err *err)
{
    v10_model *m = &s->model;
    if (build_iter(s, &s->cfg, it, m, err) || remote(s, it, err))
        return -1;
    if (grow(s, m->n_ops))
        return v10_err_set(err, "%s: out of memory for an iteration of %zu operators",
                           s->cfg.name, m->n_ops);
    s->n_ops = m->n_ops;
    for (size_t k = 0; k < m->n_ops; k++) {
        s->fu[k] = (uint8_t)m->ops[k].fu;
        s->macs[k] = (double)m->ops[k].macs;
    }
    return shared_work(s, m, s->work, s->bytes, &s->total_work, err);
}

void v10_llm_stream_fini(v10_llm_stream *s)
{
    v10_model_fini(&s->model);
    v10_model_fini(&s->remote);
    free(s->work);
    free(s->bytes);
    free(s->fu);
    free(s->macs);
    memset(s, 0, sizeof *s);
}
