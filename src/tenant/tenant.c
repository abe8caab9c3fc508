/*
 * tenant.c — tenant specs: "MODEL[:batch=N][:priority=P][:rate=RPS]
 * [:outstanding=N][:slo_us=X]".  The model part keeps its batch, unknown,
 * prefill and decode options so that v10_model_load sees them.
 */
#include <errno.h>
#include <math.h>
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
    if (bad || d < lo || d > hi)
        return v10_err_set(err, "tenant '%s': %s: expected %s in [%g, %g], got '%s'", spec, key,
                           integer ? "an integer" : "a number", lo, hi, v);
    *out = d;
    return 0;
}

/* Options of the model part, passed on to v10_model_load: ONNX's unknown=vu
 * (docs/onnx.md), an llm/ model's phase, a calibration profile and its row
 * (docs/models.md). */
static int model_option(const char *key)
{
    static const char *const keys[] = {"unknown", "prefill", "decode", "profile", "row"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(key, keys[i]))
            return 1;
    return 0;
}

int v10_tenant_spec_parse(const char *s, v10_tenant_spec *out, v10_err *err)
{
    memset(out, 0, sizeof *out);
    out->priority = 1.0;
    out->outstanding = 1;
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
        } else {
            return v10_err_set(err, "tenant '%s': unknown option '%s' (expected batch, "
                                    "priority, rate, outstanding, slo_us, profile%s)", s, kv,
                               onnx  ? ", row or unknown"
                               : llm ? ", row, prefill or decode"
                                     : " or row");
        }
        kv = next;
    }
    if (outstanding && out->rate_rps > 0)
        return v10_err_set(err, "tenant '%s': outstanding=%s: only a closed-loop tenant (no "
                                "rate) keeps N requests outstanding; an open-loop one's arrive "
                                "at rate=RPS", s, outstanding);
    return 0;
}
