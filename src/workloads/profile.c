/*
 * profile.c — measured solo profiles (v10/calibrate.h): reading a row of a
 * profile CSV such as the V10 paper's data/tpu-profiles, and checking
 * that a profile can be met.
 */
#include "v10/calibrate.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/file.h"
#include "util/num.h"

/* Columns of a profile CSV; aliases map to one field.  Percentages and µs. */
enum { P_MODEL, P_BATCH, P_SA, P_VU, P_HBM, P_SA_US, P_VU_US, P_FLOPS, P_N };
static const struct {
    const char *name;
    int col;
} COLS[] = {
    {"model", P_MODEL},           {"batch", P_BATCH},
    {"sa_busy_pct", P_SA},        {"mxu_busy_pct", P_SA},
    {"vu_busy_pct", P_VU},        {"vpu_busy_pct", P_VU},
    {"hbm_util_pct", P_HBM},      {"sa_op_us_mean", P_SA_US},
    {"vu_op_us_mean", P_VU_US},   {"flops_util_pct", P_FLOPS},
};
#define N_COLS (sizeof COLS / sizeof *COLS)

void v10_profile_init(v10_profile *p)
{
    memset(p, 0, sizeof *p);
    p->sa_busy = p->vu_busy = p->hbm_util = NAN;
    p->sa_op_us = p->vu_op_us = p->flops_util = NAN;
}

/* What a profile figure must be when v (a fraction, or a length in µs) is
 * not: the text for an error; NULL when v is in range. */
static const char *out_of_range(double v, int is_length)
{
    if (is_length)
        return v > 0 && v < 1e9 ? NULL : "a length in µs, over 0 and under 1e9";
    return v >= 0 && v <= 1 ? NULL : "a percentage in [0, 100]";
}

int v10_profile_check(const v10_profile *p, const char *origin, v10_err *err)
{
    static const struct {
        const char *field;
        size_t off;
        int is_length;
    } F[] = {
        {"sa_busy", offsetof(v10_profile, sa_busy), 0},
        {"vu_busy", offsetof(v10_profile, vu_busy), 0},
        {"hbm_util", offsetof(v10_profile, hbm_util), 0},
        {"flops_util", offsetof(v10_profile, flops_util), 0},
        {"sa_op_us", offsetof(v10_profile, sa_op_us), 1},
        {"vu_op_us", offsetof(v10_profile, vu_op_us), 1},
    };
    for (size_t i = 0; i < sizeof F / sizeof *F; i++) {
        double v = *(const double *)(const void *)((const char *)p + F[i].off);
        const char *want = isnan(v) ? NULL : out_of_range(v, F[i].is_length);
        if (want)
            return v10_err_set(err, "%s: profile %s: %s is %g; expected %s", origin, p->row,
                               F[i].field, F[i].is_length ? v : v * 100, want);
    }
    if (!isnan(p->sa_busy) && !isnan(p->vu_busy) && fabs(p->sa_busy + p->vu_busy - 1) > 0.10)
        return v10_err_set(err, "%s: profile %s: sa_busy + vu_busy is %.1f%%; a core running "
                                "one workload alone keeps one FU type busy at a time, so "
                                "expected 100%% +- 10", origin, p->row,
                           100 * (p->sa_busy + p->vu_busy));
    return 0;
}

int v10_profile_parse_row(const char *s, char *row, size_t row_sz, uint32_t *batch,
                          v10_err *err)
{
    const char *sep = strpbrk(s, ":@");
    size_t len = sep ? (size_t)(sep - s) : strlen(s);
    *batch = 0;
    if (len == 0 || len >= row_sz)
        return v10_err_set(err, "profile row '%s': expected NAME or NAME:BATCH", s);
    memcpy(row, s, len);
    row[len] = 0;
    if (sep) {
        uint64_t b;
        if (v10_parse_u64(sep + 1, &b) || b < 1 || b > 65536)
            return v10_err_set(err, "profile row '%s': batch: expected an integer in "
                                    "[1, 65536]", s);
        *batch = (uint32_t)b;
    }
    return 0;
}

/* Parses one cell: empty is NaN ("not measured"); else a finite number. */
static int cell(const char *s, double scale, double *out)
{
    if (!*s) {
        *out = NAN;
        return 0;
    }
    double v;
    if (v10_parse_f64(s, &v))
        return -1;
    *out = v * scale;
    return 0;
}

/* Reads the CSV on `f`, merging the matching row into *p. */
static int merge_stream(FILE *f, const char *origin, const char *row, uint32_t batch,
                        v10_profile *p, v10_err *err)
{
    char line[V10_CSV_LINE_MAX];
    char *fld[V10_CSV_FIELDS_MAX];
    int col_of[P_N];
    const char *name_of[P_N] = {NULL}; /* the header's name of each column */
    int have_header = 0, found = 0, lineno = 0, n;
    for (int i = 0; i < P_N; i++)
        col_of[i] = -1;
    while ((n = v10_csv_next(f, origin, V10_CSV_COMMENTS, line, fld, &lineno, err)) > 0) {
        if (!have_header) {
            for (int i = 0; i < n; i++) {
                size_t c = 0;
                while (c < N_COLS && strcmp(COLS[c].name, fld[i]))
                    c++;
                if (c == N_COLS)
                    continue; /* other columns are the user's business */
                if (col_of[COLS[c].col] >= 0)
                    return v10_err_set(err, "%s:%d: column '%s' given twice", origin,
                                       lineno, fld[i]);
                col_of[COLS[c].col] = i;
                name_of[COLS[c].col] = COLS[c].name;
            }
            if (col_of[P_MODEL] < 0)
                return v10_err_set(err, "%s:%d: header has no 'model' column", origin, lineno);
            have_header = 1;
            continue;
        }
        int need = 0;
        for (int i = 0; i < P_N; i++)
            if (col_of[i] >= need)
                need = col_of[i] + 1;
        if (n < need)
            return v10_err_set(err, "%s:%d: %d fields; the header names %d", origin, lineno,
                               n, need);
        if (strcmp(fld[col_of[P_MODEL]], row))
            continue;
        if (col_of[P_BATCH] >= 0 && batch) {
            uint64_t b;
            if (v10_parse_u64(fld[col_of[P_BATCH]], &b))
                return v10_err_set(err, "%s:%d: batch: expected an integer, got '%s'",
                                   origin, lineno, fld[col_of[P_BATCH]]);
            if (b != batch)
                continue;
        }
        if (found)
            return v10_err_set(err, "%s:%d: a second row for %s%s; name its batch",
                               origin, lineno, row, batch ? " at that batch" : "");
        found = 1;
        static const struct {
            int col;
            size_t off;
            double scale;
        } MAP[] = {
            {P_SA, offsetof(v10_profile, sa_busy), 0.01},
            {P_VU, offsetof(v10_profile, vu_busy), 0.01},
            {P_HBM, offsetof(v10_profile, hbm_util), 0.01},
            {P_SA_US, offsetof(v10_profile, sa_op_us), 1},
            {P_VU_US, offsetof(v10_profile, vu_op_us), 1},
            {P_FLOPS, offsetof(v10_profile, flops_util), 0.01},
        };
        for (size_t i = 0; i < sizeof MAP / sizeof *MAP; i++) {
            int c = col_of[MAP[i].col];
            if (c < 0)
                continue;
            double v;
            if (cell(fld[c], MAP[i].scale, &v))
                return v10_err_set(err, "%s:%d: %s: expected a number or an empty cell, "
                                        "got '%s'", origin, lineno, name_of[MAP[i].col], fld[c]);
            const char *want = isnan(v) ? NULL : out_of_range(v, MAP[i].scale == 1);
            if (want)
                return v10_err_set(err, "%s:%d: %s: expected %s, got '%s'", origin, lineno,
                                   name_of[MAP[i].col], want, fld[c]);
            if (!isnan(v))
                *(double *)(void *)((char *)p + MAP[i].off) = v;
        }
        if (col_of[P_BATCH] >= 0 && !batch) {
            uint64_t b;
            if (!v10_parse_u64(fld[col_of[P_BATCH]], &b) && b <= 65536)
                p->batch = (uint32_t)b;
        }
    }
    if (n < 0)
        return -1; /* v10_csv_next named the line, or the read error */
    if (!have_header)
        return v10_err_set(err, "%s: no header line", origin);
    if (found) {
        snprintf(p->row, sizeof p->row, "%s", row);
        if (batch)
            p->batch = batch;
    }
    return found;
}

int v10_profile_merge_file(const char *path, const char *row, uint32_t batch,
                           v10_profile *p, v10_err *err)
{
    FILE *f = v10_input_open(path, err);
    if (!f)
        return -1;
    int rc = merge_stream(f, path, row, batch, p, err);
    fclose(f);
    return rc;
}

int v10_profile_merge_text(const char *text, const char *origin, const char *row,
                           uint32_t batch, v10_profile *p, v10_err *err)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    if (!f)
        return v10_err_set(err, "%s: out of memory", origin);
    int rc = merge_stream(f, origin, row, batch, p, err);
    fclose(f);
    return rc;
}
