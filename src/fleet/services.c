/*
 * services.c — the fleet's input: a services CSV (name, model, batch, rate,
 * priority per line) read into tenant specs, and each distinct model loaded
 * once so that a bad one is reported at the first line naming it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/num.h"
#include "v10/fleet.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    double v;
    if (v10_parse_f64(s, &v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int v10_services_read(const char *path, v10_service **out, size_t *n, v10_err *err)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return v10_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    int rc = v10_services_parse(f, path, out, n, err);
    fclose(f);
    return rc;
}

int v10_services_parse(FILE *f, const char *path, v10_service **out, size_t *n, v10_err *err)
{
    *out = NULL;
    *n = 0;
    char line[2048];
    size_t cap = 0, lineno = 0;
    int header = 0, rc = -1;
    v10_service *v = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            v10_err_set(err, "%s:%zu: line too long", path, lineno);
            goto done;
        }
        char *s = trim(lineno == 1 ? (char *)v10_skip_bom(line) : line);
        if (!*s || *s == '#')
            continue;
        char *fld[6];
        int nf = 0;
        for (char *p = s; nf < 6;) {
            fld[nf++] = p;
            char *c = strchr(p, ',');
            if (!c)
                break;
            *c = 0;
            p = c + 1;
        }
        for (int i = 0; i < nf; i++)
            fld[i] = trim(fld[i]);
        if (!header) {
            if (nf < 4 || strcmp(fld[0], "name") || strcmp(fld[1], "model") ||
                strcmp(fld[2], "batch") || strcmp(fld[3], "rate_rps") ||
                (nf == 5 && strcmp(fld[4], "priority")) || nf > 5) {
                v10_err_set(err, "%s:%zu: expected the header "
                                 "'name,model,batch,rate_rps[,priority]'", path, lineno);
                goto done;
            }
            header = nf;
            continue;
        }
        if (nf != header) {
            v10_err_set(err, "%s:%zu: expected %d fields, got %d", path, lineno, header, nf);
            goto done;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            v10_service *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                v10_err_set(err, "out of memory");
                goto done;
            }
            v = nv;
        }
        v10_service *sv = &v[*n];
        memset(sv, 0, sizeof *sv);
        if (!*fld[0] || strlen(fld[0]) >= sizeof sv->name) {
            v10_err_set(err, "%s:%zu: name: expected 1 to %d characters", path, lineno,
                        V10_NAME_MAX - 1);
            goto done;
        }
        for (size_t i = 0; i < *n; i++)
            if (!strcmp(v[i].name, fld[0])) {
                v10_err_set(err, "%s:%zu: duplicate service name '%s'", path, lineno, fld[0]);
                goto done;
            }
        snprintf(sv->name, sizeof sv->name, "%s", fld[0]);
        double batch, rate, prio = 1;
        if (parse_num(fld[2], 0, 65536, &batch) || batch != floor(batch)) {
            v10_err_set(err, "%s:%zu: batch: expected an integer in [0, 65536], got '%s'",
                        path, lineno, fld[2]);
            goto done;
        }
        if (parse_num(fld[3], 0, 1e9, &rate) || (rate > 0 && rate < 1e-6)) {
            v10_err_set(err, "%s:%zu: rate_rps: expected 0 (closed loop) or a number in "
                             "[1e-06, 1e9], got '%s'", path, lineno,
                        fld[3]);
            goto done;
        }
        if (header == 5 && parse_num(fld[4], 1e-3, 1000, &prio)) {
            v10_err_set(err, "%s:%zu: priority: expected a number in [0.001, 1000], got '%s'", path,
                        lineno, fld[4]);
            goto done;
        }
        char spec[V10_SPEC_MAX + 128], num[2][V10_NUM_MAX];
        int len = snprintf(spec, sizeof spec, "%s", fld[1]);
        if (batch > 0)
            len += snprintf(spec + len, sizeof spec - (size_t)len, ":batch=%.0f", batch);
        v10_num_fmt(rate, num[0], sizeof num[0]);
        v10_num_fmt(prio, num[1], sizeof num[1]);
        if (rate > 0)
            len += snprintf(spec + len, sizeof spec - (size_t)len, ":rate=%s", num[0]);
        snprintf(spec + len, sizeof spec - (size_t)len, ":priority=%s", num[1]);
        if (!*fld[1] || strchr(fld[1], ':')) {
            v10_err_set(err, "%s:%zu: model: expected a model name or trace CSV path", path,
                        lineno);
            goto done;
        }
        if (v10_tenant_spec_parse(spec, &sv->spec, err)) {
            v10_err_prefix(err, "%s:%zu", path, lineno);
            goto done;
        }
        sv->line = lineno;
        (*n)++;
    }
    if (ferror(f)) {
        v10_err_set(err, "%s: read error", path);
        goto done;
    }
    if (!header) {
        v10_err_set(err, "%s: empty: expected a header and at least two services", path);
        goto done;
    }
    rc = 0;
done:
    if (rc) {
        free(v);
        *n = 0;
    } else {
        *out = v;
    }
    return rc;
}

int v10_services_check(const v10_service *svc, size_t n, const char *path, const v10_npu *npu,
                       v10_err *err)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(svc[j].spec.model, svc[i].spec.model))
            j++;
        if (j < i)
            continue; /* checked at its first service */
        v10_model m;
        if (v10_model_load(svc[i].spec.model, npu, &m, err))
            return v10_err_prefix(err, "%s:%zu: model", path, svc[i].line);
        v10_model_fini(&m);
    }
    return 0;
}

