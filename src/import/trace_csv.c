/*
 * trace_csv.c — operator-trace CSV: a model given as what a profiler
 * reports per operator (FU, cycles or µs, HBM bytes, ...).
 *
 * Format: '#' lines are comments; the first other line is a header naming
 * the columns, in any order:
 *   fu          required: SA or VU
 *   cycles | us required (one of): the operator's standalone length alone on
 *               the NPU at full speed (what a profiler reports; its fixed cost
 *               included)
 *   hbm_bytes   HBM traffic (default 0)
 *   name, tiles, macs, flops        optional
 *   vmem_bytes, restream_bytes       optional: vector-memory residency (cost.h)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/file.h"
#include "util/num.h"
#include "v10/model.h"

enum { C_NAME, C_FU, C_CYCLES, C_US, C_BYTES, C_TILES, C_MACS, C_FLOPS, C_VMEM, C_RESTREAM, C_N };
static const char *const col_names[C_N] = {"name", "fu", "cycles", "us", "hbm_bytes",
                                           "tiles", "macs", "flops", "vmem_bytes",
                                           "restream_bytes"};

static int parse_u64(const char *s, uint64_t *out) { return v10_parse_u64(s, out); }

/* An empty model named after the file's base name. */
static void init_named(v10_model *m, const char *path)
{
    const char *base = strrchr(path, '/');
    v10_model_init(m, base ? base + 1 : path, 1);
}

int v10_trace_csv_read(const char *path, const v10_npu *npu, v10_model *out, v10_err *err)
{
    init_named(out, path); /* the caller's v10_model_fini is safe on every path */
    FILE *f = v10_input_open(path, err);
    if (!f)
        return -1;
    int rc = v10_trace_csv_parse(f, path, npu, out, err);
    fclose(f);
    return rc;
}

int v10_trace_csv_parse(FILE *f, const char *path, const v10_npu *npu, v10_model *out,
                        v10_err *err)
{
    init_named(out, path);
    int col[C_N];
    for (int i = 0; i < C_N; i++)
        col[i] = -1;
    char line[V10_CSV_LINE_MAX];
    char *fld[V10_CSV_FIELDS_MAX];
    int lineno = 0, have_header = 0, n_header = 0, n;
    while ((n = v10_csv_next(f, path, V10_CSV_COMMENTS, line, fld, &lineno, err)) > 0) {
        if (!have_header) {
            for (int j = 0; j < n; j++) {
                int c = 0;
                while (c < C_N && strcmp(fld[j], col_names[c]))
                    c++;
                if (c == C_N) {
                    v10_err_set(err, "%s:%d: unknown column '%s' (expected name, fu, cycles "
                                     "or us, hbm_bytes, tiles, macs, flops, vmem_bytes, restream_bytes)",
                                path, lineno, fld[j]);
                    goto fail;
                }
                if (col[c] >= 0) {
                    v10_err_set(err, "%s:%d: column '%s' given twice", path, lineno, fld[j]);
                    goto fail;
                }
                col[c] = j;
            }
            if (col[C_FU] < 0 || (col[C_CYCLES] < 0) == (col[C_US] < 0)) {
                v10_err_set(err, "%s:%d: header needs a 'fu' column and exactly one of "
                                 "'cycles' or 'us'", path, lineno);
                goto fail;
            }
            have_header = 1;
            n_header = n;
            continue;
        }
        if (v10_csv_check_fields(path, lineno, n, n_header, err))
            goto fail;
        v10_op op;
        memset(&op, 0, sizeof op);
        op.kind = V10_OP_RAW;
        op.count = 1;
        const char *fu = fld[col[C_FU]];
        if (!strcmp(fu, "SA") || !strcmp(fu, "sa"))
            op.fu = V10_FU_SA;
        else if (!strcmp(fu, "VU") || !strcmp(fu, "vu"))
            op.fu = V10_FU_VU;
        else {
            v10_err_set(err, "%s:%d: fu: expected SA or VU, got '%s'", path, lineno, fu);
            goto fail;
        }
        if (col[C_NAME] >= 0)
            snprintf(op.name, sizeof op.name, "%s", fld[col[C_NAME]]);
        if (!op.name[0])
            snprintf(op.name, sizeof op.name, "op%zu", out->n_ops);
        if (col[C_CYCLES] >= 0) {
            if (parse_u64(fld[col[C_CYCLES]], &op.given_cycles) || op.given_cycles == 0 ||
                op.given_cycles > (1ull << 50)) {
                v10_err_set(err, "%s:%d: cycles: expected an integer in [1, 2^50], got '%s'",
                            path, lineno, fld[col[C_CYCLES]]);
                goto fail;
            }
        } else {
            double us;
            if (v10_parse_f64(fld[col[C_US]], &us) || !(us > 0) || us > 1e9) {
                v10_err_set(err, "%s:%d: us: expected a number in (0, 1e9], got '%s'", path,
                            lineno, fld[col[C_US]]);
                goto fail;
            }
            op.given_cycles = v10_npu_us_to_cycles(npu, us);
            if (!op.given_cycles)
                op.given_cycles = 1;
        }
        struct { int c; uint64_t *dst; uint64_t max; } opt[] = {
            {C_BYTES, &op.hbm_bytes, 1ull << 50}, {C_MACS, &op.macs, 1ull << 60},
            {C_FLOPS, &op.flops, 1ull << 61},     {C_VMEM, &op.vmem_bytes, 1ull << 50},
            {C_RESTREAM, &op.restream_bytes, 1ull << 50},
        };
        for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++) {
            if (col[opt[k].c] < 0)
                continue;
            const char *v = fld[col[opt[k].c]];
            if (parse_u64(v, opt[k].dst) || *opt[k].dst > opt[k].max) {
                v10_err_set(err, "%s:%d: %s: expected a non-negative integer up to %llu, "
                                 "got '%s'", path, lineno, col_names[opt[k].c],
                            (unsigned long long)opt[k].max, v);
                goto fail;
            }
        }
        if (col[C_TILES] >= 0) {
            uint64_t t;
            if (parse_u64(fld[col[C_TILES]], &t) || t == 0 || t > UINT32_MAX) {
                v10_err_set(err, "%s:%d: tiles: expected an integer in [1, 2^32-1], got '%s'",
                            path, lineno, fld[col[C_TILES]]);
                goto fail;
            }
            op.given_tiles = (uint32_t)t;
        }
        if (v10_model_push(out, &op, err)) {
            v10_err_prefix(err, "%s:%d", path, lineno);
            goto fail;
        }
    }
    if (n < 0)
        goto fail; /* v10_csv_next named the line, or the read error */
    if (!have_header) {
        v10_err_set(err, "%s: empty file: expected a header line (fu, cycles or us, ...)",
                    path);
        goto fail;
    }
    if (out->n_ops == 0) {
        v10_err_set(err, "%s: no operators after the header", path);
        goto fail;
    }
    return 0;
fail:
    v10_model_fini(out);
    return -1;
}

int v10_trace_csv_write(const v10_model *m, const v10_npu *npu, FILE *f)
{
    fprintf(f, "# v10sim operator trace: model=%s batch=%u npu=%s\n", m->name, m->batch,
            npu->name);
    fprintf(f, "name,fu,cycles,hbm_bytes,tiles,macs,flops,vmem_bytes,restream_bytes\n");
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *op = &m->ops[i];
        char name[V10_OPNAME_MAX];
        snprintf(name, sizeof name, "%s", op->name);
        for (char *c = name; *c; c++)
            if (*c == ',')
                *c = ';';
        /* A leading '#' would make the row a comment: escape it as names are
         * (util/text.h), so the file reads back with every operator. */
        char field[V10_OPNAME_MAX + 4];
        snprintf(field, sizeof field, "%s%s", name[0] == '#' ? "\\x23" : "",
                 name + (name[0] == '#'));
        v10_csv_put(f, field); /* quoted if it must be (RFC 4180) */
        fprintf(f, ",%s,%llu,%llu,%u,%llu,%llu,%llu,%llu\n", v10_fu_name(op->fu),
                (unsigned long long)(op->cycles ? op->cycles : 1),
                (unsigned long long)op->hbm_bytes, op->tiles, (unsigned long long)op->macs,
                (unsigned long long)op->flops, (unsigned long long)op->vmem_bytes,
                (unsigned long long)op->restream_bytes);
    }
    return ferror(f) ? -1 : 0;
}
