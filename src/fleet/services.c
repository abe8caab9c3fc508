/*
 * services.c — the fleet's input: a services CSV (name, model, batch, rate,
 * priority per line), read by the one CSV reader (util/csv.h), into tenant
 * specs, and each distinct model loaded once so that a bad one is reported
 * at the first line naming it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/fleet.h"

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
    char line[V10_CSV_LINE_MAX], *fld[V10_CSV_FIELDS_MAX];
    size_t cap = 0;
    int header = 0, rc = -1, lineno = 0, nf;
    v10_service *v = NULL;
    while ((nf = v10_csv_next(f, path, V10_CSV_COMMENTS, line, fld, &lineno, err)) > 0) {
        if (!header) {
            static const char *const cols[] = {"name", "model", "batch", "rate_rps", "priority"};
            int ok = nf >= 4 && nf <= 5;
            for (int i = 0; ok && i < nf; i++)
                ok = !strcmp(fld[i], cols[i]);
            if (!ok) {
                char got[96];
                v10_name_escape(got, sizeof got, fld[0]);
                v10_err_set(err, "%s:%d: expected the header 'name,model,batch,rate_rps"
                                 "[,priority]', got %d fields starting '%s'",
                            path, lineno, nf, got);
                goto done;
            }
            header = nf;
            continue;
        }
        if (v10_csv_check_fields(path, lineno, nf, header, err))
            goto done;
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
        /* A name is printed in tables on a terminal and in JSON: escaped
         * here, where it enters, as model names are (util/text.h). */
        size_t name_len;
        if (v10_name_take(sv->name, sizeof sv->name, fld[0], &name_len) <= 0) {
            v10_err_set(err, "%s:%d: name: expected 1 to %d characters, got %zu", path,
                        lineno, V10_NAME_MAX - 1, name_len);
            goto done;
        }
        for (size_t i = 0; i < *n; i++)
            if (!strcmp(v[i].name, sv->name)) {
                v10_err_set(err, "%s:%d: duplicate service name '%s' (line %zu)", path, lineno,
                            sv->name, v[i].line);
                goto done;
            }
        double rate, prio = 1;
        uint64_t batch;
        char got[64];
        /* an integer as every count is written: plain decimal (not 1e1, 8.0 or -0) */
        if (v10_parse_u64(fld[2], &batch) || batch > 65536) {
            v10_name_escape(got, sizeof got, fld[2]);
            v10_err_set(err, "%s:%d: batch: expected an integer in [0, 65536], got '%s'",
                        path, lineno, got);
            goto done;
        }
        if (parse_num(fld[3], 0, 1e9, &rate) || (rate > 0 && rate < 1e-6)) {
            v10_name_escape(got, sizeof got, fld[3]);
            v10_err_set(err, "%s:%d: rate_rps: expected 0 (closed loop) or a number in "
                             "[1e-06, 1e9], got '%s'", path, lineno, got);
            goto done;
        }
        if (header == 5 && parse_num(fld[4], 1e-3, 1000, &prio)) {
            v10_name_escape(got, sizeof got, fld[4]);
            v10_err_set(err, "%s:%d: priority: expected a number in [0.001, 1000], got '%s'",
                        path, lineno, got);
            goto done;
        }
        if (!*fld[1] || strchr(fld[1], ':')) {
            v10_name_escape(got, sizeof got, fld[1]);
            v10_err_set(err, "%s:%d: model: expected a model name or trace CSV path "
                             "(options go in their own columns), got '%s'", path, lineno, got);
            goto done;
        }
        char spec[V10_SPEC_MAX + 128], num[2][V10_NUM_MAX];
        int len = snprintf(spec, sizeof spec, "%s", fld[1]);
        if (batch > 0)
            len += snprintf(spec + len, sizeof spec - (size_t)len, ":batch=%llu",
                            (unsigned long long)batch);
        v10_num_fmt(rate, num[0], sizeof num[0]);
        v10_num_fmt(prio, num[1], sizeof num[1]);
        if (rate > 0)
            len += snprintf(spec + len, sizeof spec - (size_t)len, ":rate=%s", num[0]);
        snprintf(spec + len, sizeof spec - (size_t)len, ":priority=%s", num[1]);
        if (v10_tenant_spec_parse(spec, &sv->spec, err)) {
            v10_err_prefix(err, "%s:%d", path, lineno);
            goto done;
        }
        sv->line = (size_t)lineno;
        (*n)++;
    }
    if (nf < 0)
        goto done; /* v10_csv_next named the line, or the read error */
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

