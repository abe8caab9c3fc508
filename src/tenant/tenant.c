/*
 * tenant.c — tenant specs: "MODEL[:batch=N][:priority=P][:rate=RPS]
 * [:outstanding=N][:slo_us=X]", and LLM servers "llm/MODEL:trace=FILE
 * [:rate_scale=X][:start_s=S][:max_batch=N][:max_prefill_tokens=N]
 * [:chunked_prefill=0|1][:requests=N][:slo_ttft_ms=T][:slo_tpot_ms=T]
 * [:pad_tokens=0|1][:pad_reqs=0|1][:pad_kv=0|1][:kv_block=N][:host_us=X][:pp=S]
 * [:pp_stretch=0|1][:pp_batches=B]" (or
 * ":rate=RPS:lengths=FILE").  The model
 * part keeps its batch, unknown, prefill and decode options so that
 * v10_model_load sees them.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "v10/sim.h"

static int num(const char *spec, const char *key, const char *v, double lo, double hi,
               int integer, double *out, v10_err *err)
{
    double d = 0;
    uint64_t u = 0;
    int bad = integer ? v10_parse_u64(v, &u) : v10_parse_f64(v, &d);
    if (integer)
        d = u > (uint64_t)hi ? hi + 1 : (double)u;
    if (bad || d < lo || d > hi) /* an integer range exactly: 1048576, not 1.04858e+06 */
        return v10_err_set(err, integer ? "tenant '%s': %s: expected an integer in [%.0f, %.0f], "
                                          "got '%s'"
                                        : "tenant '%s': %s: expected a number in [%g, %g], "
                                          "got '%s'",
                           spec, key, lo, hi, v);
    *out = d;
    return 0;
}

/* Options of the model part, passed on to v10_model_load: ONNX's unknown=vu
 * (docs/onnx.md), an llm/ model's phase, a calibration profile and its row
 * (docs/models.md). */
static int model_option(const char *key)
{
    static const char *const keys[] = {"unknown", "prefill", "decode", "profile", "row",
                                       "sa_ops"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(key, keys[i]))
            return 1;
    return 0;
}

/* Where an LLM server's numeric option goes in v10_tenant_spec. */
typedef enum {
    TO_DOUBLE,  /* the value */
    TO_U32,     /* the value */
    TO_U64,     /* the value */
    TO_FLAG,    /* an int: 1 for a non-zero value */
    TO_NOT,     /* an int: 1 for 0 (the option's default 1 is the field's 0) */
    TO_STAGES,  /* a uint32_t count of which 1 is none, stored as 0 */
} llm_dest;

/* An LLM server's numeric options (docs/llm.md, "Serving tenants"): key,
 * range, whether an integer, and the field it sets. */
static const struct llm_opt {
    const char *key;
    double lo, hi;
    int integer;
    llm_dest to;
    size_t off;
} LLM_OPTS[] = {
    {"rate_scale", 1e-6, 1e6, 0, TO_DOUBLE, offsetof(v10_tenant_spec, rate_scale)},
    {"start_s", 0, 1e9, 0, TO_DOUBLE, offsetof(v10_tenant_spec, start_s)},
    {"max_batch", 1, 4096, 1, TO_U32, offsetof(v10_tenant_spec, max_batch)},
    {"slo_ttft_ms", 1e-6, 1e9, 0, TO_DOUBLE, offsetof(v10_tenant_spec, slo_ttft_ms)},
    {"slo_tpot_ms", 1e-6, 1e9, 0, TO_DOUBLE, offsetof(v10_tenant_spec, slo_tpot_ms)},
    {"requests", 1, 1e7, 1, TO_U64, offsetof(v10_tenant_spec, llm_requests)},
    {"max_prefill_tokens", 1, 1 << 24, 1, TO_U32,
     offsetof(v10_tenant_spec, max_prefill_tokens)},
    {"chunked_prefill", 0, 1, 1, TO_NOT, offsetof(v10_tenant_spec, whole_prefill)},
    {"pad_tokens", 0, 1, 1, TO_FLAG, offsetof(v10_tenant_spec, pad_tokens)},
    {"pad_reqs", 0, 1, 1, TO_FLAG, offsetof(v10_tenant_spec, pad_reqs)},
    {"pad_kv", 0, 1, 1, TO_FLAG, offsetof(v10_tenant_spec, pad_kv)},
    {"kv_block", 1, 4096, 1, TO_U32, offsetof(v10_tenant_spec, kv_block)},
    {"host_us", 0, 1e6, 0, TO_DOUBLE, offsetof(v10_tenant_spec, host_us)},
    {"pp", 1, 64, 1, TO_STAGES, offsetof(v10_tenant_spec, pp)},
    {"pp_stretch", 0, 1, 1, TO_NOT, offsetof(v10_tenant_spec, pp_unstretched)},
    {"pp_batches", 1, 64, 1, TO_U32, offsetof(v10_tenant_spec, pp_batches)},
};

/* The LLM server option `key`, or NULL. */
static const struct llm_opt *llm_opt(const char *key)
{
    for (size_t i = 0; i < sizeof LLM_OPTS / sizeof *LLM_OPTS; i++)
        if (!strcmp(key, LLM_OPTS[i].key))
            return &LLM_OPTS[i];
    return NULL;
}

/* Sets o's field of out to d (in o's range). */
static void llm_set(v10_tenant_spec *out, const struct llm_opt *o, double d)
{
    void *f = (char *)out + o->off;
    switch (o->to) {
    case TO_DOUBLE:
        *(double *)f = d;
        break;
    case TO_U32:
        *(uint32_t *)f = (uint32_t)d;
        break;
    case TO_U64:
        *(uint64_t *)f = (uint64_t)d;
        break;
    case TO_FLAG:
        *(int *)f = d != 0;
        break;
    case TO_NOT:
        *(int *)f = d == 0;
        break;
    case TO_STAGES:
        *(uint32_t *)f = d > 1 ? (uint32_t)d : 0;
        break;
    }
}

/* An LLM server's options must go together: serving keys need trace= or
 * lengths=; lengths= needs rate=, trace= refuses it; a server is not a
 * phase model and has no batch, outstanding or slo_us. */
static int llm_consistent(const char *s, const v10_tenant_spec *out, const char *serving,
                          const char *outstanding, v10_err *err)
{
    if (!out->llm) {
        if (serving)
            return v10_err_set(err, "tenant '%s': %s= applies to an LLM server "
                                    "(llm/MODEL:trace=FILE or :rate=RPS:lengths=FILE)", s,
                               serving);
        return 0;
    }
    if ((out->pp_unstretched || out->pp_batches) && out->pp <= 1)
        return v10_err_set(err, "tenant '%s': %s= applies to a pipeline (pp=S, S >= 2)", s,
                           out->pp_batches ? "pp_batches" : "pp_stretch");
    if (out->pp_batches > out->pp)
        return v10_err_set(err, "tenant '%s': pp_batches=%u: at most one batch a stage is in "
                                "flight, expected 1 to pp=%u", s, out->pp_batches, out->pp);
    if (out->pp_batches > 1 && out->whole_prefill)
        return v10_err_set(err, "tenant '%s': pp_batches=%u needs the chunked scheduler "
                                "(vLLM V1's; drop chunked_prefill=0 or set pp_batches=1)", s,
                           out->pp_batches);
    const char *what = out->llm == 1 ? "trace" : "lengths";
    if (out->llm == 1 && out->rate_rps > 0)
        return v10_err_set(err, "tenant '%s': rate=: a trace= server's arrivals come from the "
                                "trace (scale them with rate_scale=X); for Poisson arrivals "
                                "give rate=RPS:lengths=FILE", s);
    if (out->llm == 2 && out->rate_rps <= 0)
        return v10_err_set(err, "tenant '%s': lengths=: needs rate=RPS (Poisson arrivals)", s);
    if (out->llm == 2 && (out->rate_scale != 1.0 || out->start_s != 0))
        return v10_err_set(err, "tenant '%s': rate_scale= and start_s= apply to trace= "
                                "arrivals, not lengths=", s);
    if (strchr(out->model, ':'))
        return v10_err_set(err, "tenant '%s': %s=: an LLM server runs its own prefill and "
                                "decode iterations; batch=, prefill=, decode=, profile= and "
                                "row= do not apply", s, what);
    if (outstanding || out->slo_us > 0)
        return v10_err_set(err, "tenant '%s': %s=: an LLM server takes slo_ttft_ms= and "
                                "slo_tpot_ms=, not outstanding= or slo_us=", s, what);
    return 0;
}

int v10_tenant_spec_parse(const char *s, v10_tenant_spec *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    out->priority = 1.0;
    out->outstanding = 1;
    out->rate_scale = 1.0;
    if (strlen(s) >= sizeof out->model)
        return v10_err_set(err, "tenant '%.40s...': spec too long", s);
    char buf[V10_SPEC_MAX];
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    size_t name_len = colon ? (size_t)(colon - buf) : strlen(buf);
    if (name_len == 0)
        return v10_err_set(err, "tenant '%s': expected MODEL[:key=value...]", s);
    memcpy(out->model, buf, name_len);
    out->model[name_len] = 0;
    int onnx = name_len >= 5 && !strcmp(out->model + name_len - 5, ".onnx");
    int llm = !strncmp(out->model, "llm/", 4);
    const char *outstanding = NULL; /* the value given, if any */
    const char *serving = NULL;     /* the first LLM serving key given */
    const char *seen[V10_SPEC_MAX / 2]; /* the keys so far: each may appear once */
    size_t n_seen = 0;
    for (char *kv = colon ? colon + 1 : NULL; kv;) {
        char *next = strchr(kv, ':');
        if (next)
            *next++ = 0;
        char *eq = strchr(kv, '=');
        if (!eq)
            return v10_err_set(err, "tenant '%s': option '%s': expected key=value", s, kv);
        *eq = 0;
        const char *v = eq + 1;
        double d = 0;
        const struct llm_opt *o;
        for (size_t k = 0; k < n_seen; k++)
            if (!strcmp(seen[k], kv))
                return v10_err_set(err, "tenant '%s': %s= given twice (give each option "
                                        "once)", s, kv);
        seen[n_seen++] = kv;
        if ((!strcmp(kv, "prefill") || !strcmp(kv, "decode")) &&
            strstr(out->model, kv[0] == 'p' ? ":decode=" : ":prefill="))
            return v10_err_set(err, "tenant '%s': prefill= and decode= are two phases: give "
                                    "one", s);
        if (!strcmp(kv, "batch")) {
            if (num(s, kv, v, 1, 65536, 1, &d, err))
                return -1;
            out->batch = (uint32_t)d;
            size_t l = strlen(out->model);
            snprintf(out->model + l, sizeof out->model - l, ":batch=%u", out->batch);
        } else if (model_option(kv)) {
            /* Model options (docs/formats.md, "Model specs"): the model
             * loader checks them. */
            size_t l = strlen(out->model);
            snprintf(out->model + l, sizeof out->model - l, ":%s=%s", kv, v);
        } else if (!strcmp(kv, "priority")) {
            if (num(s, kv, v, 1e-3, 1000, 0, &out->priority, err))
                return -1;
        } else if (!strcmp(kv, "rate")) {
            if (num(s, kv, v, 1e-6, 1e9, 0, &out->rate_rps, err))
                return -1;
        } else if (!strcmp(kv, "outstanding")) {
            if (num(s, kv, v, 1, 1 << 20, 1, &d, err))
                return -1;
            out->outstanding = (uint32_t)d;
            outstanding = v;
        } else if (!strcmp(kv, "slo_us")) {
            if (num(s, kv, v, 1e-3, 1e12, 0, &out->slo_us, err))
                return -1;
        } else if (!strcmp(kv, "trace") || !strcmp(kv, "lengths")) {
            if (!llm)
                return v10_err_set(err, "tenant '%s': %s= applies to llm/MODEL tenants only",
                                   s, kv);
            if (out->llm)
                return v10_err_set(err, "tenant '%s': %s=: give one of trace= and lengths=, "
                                        "once", s, kv);
            if (!*v || strlen(v) >= sizeof out->llm_file)
                return v10_err_set(err, "tenant '%s': %s: expected a file name", s, kv);
            out->llm = kv[0] == 't' ? 1 : 2;
            snprintf(out->llm_file, sizeof out->llm_file, "%s", v);
        } else if ((o = llm_opt(kv)) != NULL) {
            if (num(s, kv, v, o->lo, o->hi, o->integer, &d, err))
                return -1;
            llm_set(out, o, d);
            if (!serving)
                serving = o->key;
        } else {
            return v10_err_set(err, "tenant '%s': unknown option '%s' (expected batch, "
                                    "priority, rate, outstanding, slo_us, profile%s)", s, kv,
                               onnx  ? ", row or unknown"
                               : llm ? ", row, prefill, decode, trace, lengths, rate_scale, "
                                       "start_s, max_batch, max_prefill_tokens, chunked_prefill, "
                                       "requests, pad_tokens, pad_reqs, pad_kv, kv_block, "
                                       "host_us, pp, pp_stretch, pp_batches, slo_ttft_ms or "
                                       "slo_tpot_ms"
                                     : " or row");
        }
        kv = next;
    }
    if (outstanding && out->rate_rps > 0)
        return v10_err_set(err, "tenant '%s': outstanding=%s: only a closed-loop tenant (no "
                                "rate) keeps N requests outstanding; an open-loop one's arrive "
                                "at rate=RPS", s, outstanding);
    return llm_consistent(s, out, serving, outstanding, err);
}

int v10_tenant_spec_files(const v10_tenant_spec *t, int (*fn)(const char *path, void *ctx),
                          void *ctx, v10_err *err)
{
    int rc = v10_model_spec_files(t->model, fn, ctx, err);
    if (rc == 0 && t->llm && t->llm_file[0] && t->llm_file[0] != '@')
        rc = fn(t->llm_file, ctx);
    return rc;
}

/* Appends ":key=v" (the shortest number that reads back as v) to out. */
static void put_num(char *out, size_t cap, size_t *len, const char *key, double v)
{
    char n[V10_NUM_MAX];
    v10_num_fmt(v, n, sizeof n);
    if (*len < cap)
        *len += (size_t)snprintf(out + *len, cap - *len, ":%s=%s", key, n);
}

int v10_tenant_spec_format(const v10_tenant_spec *s, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", s->model); /* with its model options */
    if (s->priority != 1.0)
        put_num(out, cap, &len, "priority", s->priority);
    if (s->rate_rps > 0)
        put_num(out, cap, &len, "rate", s->rate_rps);
    if (s->outstanding != 1)
        put_num(out, cap, &len, "outstanding", s->outstanding);
    if (s->slo_us > 0)
        put_num(out, cap, &len, "slo_us", s->slo_us);
    if (s->llm && len < cap)
        len += (size_t)snprintf(out + len, cap - len, ":%s=%s", s->llm == 1 ? "trace" : "lengths",
                                s->llm_file);
    if (s->rate_scale != 1.0)
        put_num(out, cap, &len, "rate_scale", s->rate_scale);
    if (s->start_s != 0)
        put_num(out, cap, &len, "start_s", s->start_s);
    if (s->max_batch)
        put_num(out, cap, &len, "max_batch", s->max_batch);
    if (s->max_prefill_tokens)
        put_num(out, cap, &len, "max_prefill_tokens", s->max_prefill_tokens);
    if (s->whole_prefill)
        put_num(out, cap, &len, "chunked_prefill", 0);
    if (s->llm_requests)
        put_num(out, cap, &len, "requests", (double)s->llm_requests);
    if (s->pad_tokens)
        put_num(out, cap, &len, "pad_tokens", 1);
    if (s->pad_reqs)
        put_num(out, cap, &len, "pad_reqs", 1);
    if (s->pad_kv)
        put_num(out, cap, &len, "pad_kv", 1);
    if (s->kv_block)
        put_num(out, cap, &len, "kv_block", s->kv_block);
    if (s->host_us > 0)
        put_num(out, cap, &len, "host_us", s->host_us);
    if (s->pp > 1)
        put_num(out, cap, &len, "pp", s->pp);
    if (s->pp_unstretched)
        put_num(out, cap, &len, "pp_stretch", 0);
    if (s->pp_batches)
        put_num(out, cap, &len, "pp_batches", s->pp_batches);
    if (s->slo_ttft_ms > 0)
        put_num(out, cap, &len, "slo_ttft_ms", s->slo_ttft_ms);
    if (s->slo_tpot_ms > 0)
        put_num(out, cap, &len, "slo_tpot_ms", s->slo_tpot_ms);
    return len < cap ? 0 : -1;
}
