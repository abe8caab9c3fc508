/*
 * params.c — policy parameters by name: lookup over every registered
 * policy's table, setting a field from text with range checks, reading and
 * formatting it (include/v10/sim.h, "Policy parameters as plug-ins").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/policy_api.h"
#include "util/names.h"
#include "util/num.h"

size_t v10_policy_param_count(const v10_policy_ops *p) { return p->n_params; }

const v10_param_def *v10_policy_param_at(const v10_policy_ops *p, size_t i)
{
    return i < p->n_params ? &p->param_defs[i] : NULL;
}

/* Every parameter's names ("pmt.slice_us", then its key "pmt_slice_us"),
 * each once (a key shared by policies, as pmt_slice_us is, with its first
 * definition), up to cap - 1, into n[] (NULL-terminated) and the
 * definitions into d[]. */
#define PARAM_NAMES_MAX 128
static size_t param_names(const char **n, const v10_param_def **d, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < v10_policy_count(); i++) {
        const v10_policy_ops *p = v10_policy_at(i);
        for (size_t k = 0; k < p->n_params; k++)
            for (int which = 0; which < 2; which++) {
                const char *name = which ? p->param_defs[k].key : p->param_defs[k].name;
                size_t j = 0;
                while (j < m && strcmp(n[j], name))
                    j++;
                V10_ASSERT(m + 1 < cap);
                if (j == m)
                    d[m] = &p->param_defs[k], n[m++] = name;
            }
    }
    n[m] = NULL;
    return m;
}

const v10_param_def *v10_param_find(const char *key)
{
    const char *n[PARAM_NAMES_MAX];
    const v10_param_def *d[PARAM_NAMES_MAX];
    size_t m = param_names(n, d, PARAM_NAMES_MAX);
    long i = v10_name_lookup(key, n, m); /* as people type it: "PMT.slice_us" */
    return i < 0 ? NULL : d[i];
}

size_t v10_param_fields(const v10_param_def **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < v10_policy_count(); i++) {
        const v10_policy_ops *p = v10_policy_at(i);
        for (size_t k = 0; k < p->n_params; k++) {
            const v10_param_def *d = &p->param_defs[k];
            size_t j = 0;
            while (j < n && out[j]->offset < d->offset)
                j++;
            if ((j < n && out[j]->offset == d->offset) || n == cap)
                continue; /* a field another policy declared first */
            memmove(out + j + 1, out + j, (n - j) * sizeof *out);
            out[j] = d;
            n++;
        }
    }
    return n;
}

int v10_policy_reads(const v10_policy_ops *p, const v10_param_def *d)
{
    for (size_t k = 0; k < p->n_params; k++)
        if (p->param_defs[k].offset == d->offset)
            return 1;
    return 0;
}

double v10_param_get(const v10_policy_params *p, const v10_param_def *d)
{
    const char *f = (const char *)p + d->offset;
    switch (d->type) {
    case V10_PARAM_U64: return (double)*(const uint64_t *)(const void *)f;
    case V10_PARAM_DOUBLE: return *(const double *)(const void *)f;
    case V10_PARAM_CHOICE: return (double)*(const int *)(const void *)f;
    }
    return NAN;
}

/* The index of `word` in the '|'-separated list, or -1. */
static int choice_index(const char *choices, const char *word)
{
    char buf[256], *w[16];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", choices);
    for (char *c = buf; *c && n + 1 < sizeof w / sizeof *w;) {
        w[n++] = c;
        c += strcspn(c, "|");
        if (*c)
            *c++ = 0;
    }
    w[n] = NULL;
    return (int)v10_name_lookup(word, (const char *const *)w, n); /* "Equal" too */
}

/* Copies the i-th word of the '|'-separated list into out. */
static void choice_word(const char *choices, int i, char *out, size_t cap)
{
    const char *c = choices;
    for (; i > 0 && *c; i--)
        c += strcspn(c, "|") + (c[strcspn(c, "|")] == '|');
    snprintf(out, cap, "%.*s", (int)strcspn(c, "|"), c);
}

int v10_param_put(v10_policy_params *p, const v10_param_def *d, double v, v10_err *err)
{
    char lo[V10_NUM_MAX], hi[V10_NUM_MAX];
    v10_num_fmt(d->min, lo, sizeof lo);
    v10_num_fmt(d->max, hi, sizeof hi);
    if (!(v >= d->min && v <= d->max) || (d->type != V10_PARAM_DOUBLE && v != floor(v)))
        return v10_err_set(err, "%s: expected %s in [%s, %s]", d->name,
                           d->type == V10_PARAM_DOUBLE ? "a number" : "a whole number", lo, hi);
    char *f = (char *)p + d->offset;
    switch (d->type) {
    case V10_PARAM_U64: *(uint64_t *)(void *)f = (uint64_t)v; break;
    case V10_PARAM_DOUBLE: *(double *)(void *)f = v; break;
    case V10_PARAM_CHOICE: *(int *)(void *)f = (int)v; break;
    }
    return 0;
}

int v10_param_set(v10_policy_params *p, const char *key, const char *value, v10_err *err)
{
    const v10_param_def *d = v10_param_find(key);
    if (!d) {
        const char *n[PARAM_NAMES_MAX];
        const v10_param_def *defs[PARAM_NAMES_MAX];
        size_t m = param_names(n, defs, PARAM_NAMES_MAX);
        char hint[160];
        return v10_err_set(err, "unknown policy parameter '%s'%s (expected POLICY.NAME as "
                                "'v10sim policies' lists them)", key,
                           v10_name_hint(hint, sizeof hint, key, n, m, NULL));
    }
    double v;
    if (d->type == V10_PARAM_CHOICE) {
        int i = choice_index(d->choices, value);
        if (i < 0)
            return v10_err_set(err, "%s: expected one of %s, got '%s'", d->name, d->choices,
                               value);
        v = i;
    } else if (d->type == V10_PARAM_U64) {
        uint64_t u;
        v = v10_parse_u64(value, &u) || u > (1ull << 53) ? -INFINITY : (double)u;
    } else if (v10_parse_f64(value, &v)) {
        v = -INFINITY;
    }
    v10_err why;
    if (v10_param_put(p, d, v, &why))
        return v10_err_set(err, "%s, got '%s'", why.msg, value);
    return 0;
}

void v10_param_format(const v10_param_def *d, const v10_policy_params *p, const v10_npu *npu,
                      char *out, size_t cap)
{
    double v = v10_param_get(p, d);
    if (d->type == V10_PARAM_CHOICE)
        choice_word(d->choices, (int)v, out, cap);
    else
        v10_num_fmt(d->effective && npu ? d->effective(v, npu) : v, out, cap);
}
