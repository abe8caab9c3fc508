/*
 * llm_chip.c — an LLM as one chip of an NPU runs it (docs/llm.md,
 * "Several chips" and "Pipeline parallelism"): its tensor-parallel shard
 * (v10_llm_shard), its pipeline stage (v10_llm_pipeline), the model
 * resolved for a given NPU (v10_llm_resolve_on, v10_llm_resolve_stage),
 * and the phase model spec "llm/NAME:prefill=P" or ":decode=NxC" built on
 * it (v10_llm_build_spec).  The stream builder (llm.c) reads the
 * configuration: the shard's widths and collectives, the stage's layers
 * and ends.
 */
#include "v10/llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int v10_llm_shard(const v10_llm_config *c, uint32_t tp, v10_llm_config *out, v10_err *err)
{
    *out = *c;
    if (tp <= 1)
        return 0;
    if (c->tp > 1)
        return v10_err_set(err, "LLM '%s' is already one chip's shard of %u", c->name, c->tp);
    if (c->heads % tp || c->ffn % tp)
        return v10_err_set(err, "LLM '%s': tensor parallelism over %u chips needs heads (%u) "
                                "and ffn (%u) to be multiples of %u",
                           c->name, tp, c->heads, c->ffn, tp);
    if (c->kv_heads % tp && tp % c->kv_heads)
        return v10_err_set(err, "LLM '%s': tensor parallelism over %u chips needs kv_heads "
                                "(%u) and %u to divide one another",
                           c->name, tp, c->kv_heads, tp);
    out->heads = c->heads / tp;
    out->kv_heads = c->kv_heads >= tp ? c->kv_heads / tp : 1;
    out->ffn = c->ffn / tp;
    out->vocab = (c->vocab + tp - 1) / tp;
    out->tp = tp;
    return 0;
}

int v10_llm_pipeline(const v10_llm_config *c, uint32_t pp, uint32_t stage, v10_llm_config *out,
                     v10_err *err)
{
    *out = *c;
    if (pp <= 1)
        return 0;
    if (c->pp > 1)
        return v10_err_set(err, "LLM '%s' is already a stage of %u", c->name, c->pp);
    if (c->layers % pp)
        return v10_err_set(err, "LLM '%s': pipeline parallelism over %u stages needs layers "
                                "(%u) to be a multiple of %u", c->name, pp, c->layers, pp);
    if (stage >= pp)
        return v10_err_set(err, "LLM '%s': stage %u of a pipeline of %u", c->name, stage, pp);
    out->layers = c->layers / pp;
    out->pp = pp;
    out->stage = stage;
    return 0;
}

int v10_llm_resolve_stage(const char *spec, const v10_npu *npu, uint32_t pp, uint32_t stage,
                          v10_llm_config *out, v10_err *err)
{
    v10_llm_config whole, shard;
    if (pp > 1 && npu->chips % pp)
        return v10_err_set(err, "pipeline parallelism over %u stages needs the NPU's chips "
                                "(%u, NPU '%s') to be a multiple of %u", pp, npu->chips,
                           npu->name, pp);
    uint32_t tp = pp > 1 ? npu->chips / pp : npu->chips;
    if (v10_llm_resolve(spec, &whole, err) || v10_llm_shard(&whole, tp, &shard, err) ||
        v10_llm_pipeline(&shard, pp, stage, out, err))
        return -1;
    return 0;
}

int v10_llm_resolve_on(const char *spec, const v10_npu *npu, v10_llm_config *out,
                       v10_err *err)
{
    return v10_llm_resolve_stage(spec, npu, 1, 0, out, err);
}

/* ---- the model-spec form ---- */

/* Parses a positive integer of at most `max`, leaving *end after it; -1 if not. */
static int parse_count(const char *s, char **end, unsigned long max, unsigned long *out)
{
    if (*s < '1' || *s > '9') /* no sign, no leading zero (util/num.h's rule) */
        return -1;
    *out = strtoul(s, end, 10);
    return *out >= 1 && *out <= max ? 0 : -1;
}

/* "NxC[,NxC...]" (C alone: one sequence) into a fresh array of contexts. */
static int parse_decode(const char *text, const char *v, uint32_t **ctx, uint32_t *n,
                        v10_err *err)
{
    *ctx = NULL;
    *n = 0;
    size_t cap = 0;
    for (const char *p = v;;) {
        unsigned long a, cnt = 1, len;
        char *end;
        if (parse_count(p, &end, 1ul << 24, &a))
            goto bad;
        if (*end == 'x') {
            if (a > V10_LLM_MAX_SEQS)
                goto bad;
            cnt = a;
            if (parse_count(end + 1, &end, 1ul << 24, &len))
                goto bad;
        } else {
            len = a;
        }
        if (*end != ',' && *end)
            goto bad;
        if (*n + cnt > V10_LLM_MAX_SEQS) {
            free(*ctx);
            return v10_err_set(err, "model '%s': decode: more than %d sequences", text,
                               V10_LLM_MAX_SEQS);
        }
        if (*n + cnt > cap) {
            cap = *n + cnt > 2 * cap ? *n + cnt : 2 * cap;
            uint32_t *nc = realloc(*ctx, cap * sizeof *nc);
            if (!nc) {
                free(*ctx);
                return v10_err_set(err, "model '%s': out of memory", text);
            }
            *ctx = nc;
        }
        for (unsigned long i = 0; i < cnt; i++)
            (*ctx)[(*n)++] = (uint32_t)len;
        if (!*end)
            return 0;
        p = end + 1;
    }
bad:
    free(*ctx);
    *ctx = NULL;
    return v10_err_set(err, "model '%s': decode: expected NxC[,NxC...] (N sequences of 1 to "
                            "%d at context C of 1 to 2^24 tokens, or C alone)", text,
                       V10_LLM_MAX_SEQS);
}

int v10_llm_build_spec(const char *text, const char *model, const char *phase,
                       const v10_npu *npu, v10_model *out, v10_err *err)
{
    v10_llm_config c;
    v10_model_init(out, text, 1);
    if (v10_llm_resolve_on(model, npu, &c, err))
        return v10_err_prefix(err, "model '%s'", text);
    if (!strncmp(phase, "prefill=", 8)) {
        unsigned long p;
        char *end;
        if (parse_count(phase + 8, &end, 1ul << 24, &p) || *end)
            return v10_err_set(err, "model '%s': prefill: expected a token count of 1 to 2^24",
                               text);
        if (v10_llm_check_fit(&c, npu, p, err) || v10_llm_prefill(&c, p, out, err))
            goto fail;
        return 0;
    }
    if (!strncmp(phase, "decode=", 7)) {
        uint32_t *ctx, n;
        if (parse_decode(text, phase + 7, &ctx, &n, err))
            return -1;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n; i++)
            sum += ctx[i];
        out->batch = n;
        int rc = v10_llm_check_fit(&c, npu, sum, err) || v10_llm_decode(&c, n, ctx, out, err);
        free(ctx);
        if (rc)
            goto fail;
        return 0;
    }
    return v10_err_set(err, "model '%s': an llm/ model needs a phase: :prefill=P (prompt "
                            "tokens) or :decode=NxC (N sequences at context C); or, as a "
                            "run tenant, a server: :trace=FILE.csv or "
                            ":rate=RPS:lengths=FILE.csv (docs/llm.md)", text);
fail:
    v10_model_fini(out);
    return v10_err_prefix(err, "model '%s'", text);
}
