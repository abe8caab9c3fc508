/*
 * calib_emit.c — the last steps of a calibration (calib_plan.h): the
 * planned operators written over the architecture's, in one array, and
 * their HBM bytes (step 4 of calibrate.c's method).
 */
#include "workloads/calib_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* ---- emission ----
 *
 * The calibrated operators are written over the architecture's, in one
 * array: a detector has ~10^6 operators of 240 bytes, and two arrays of
 * them side by side were most of a calibration's memory and time (the
 * kernel zeroing fresh pages).  Arch operator i's block (the added
 * operators before it, its pieces, the added ones after it) is written
 * at output positions [B_i, B_i+1), B_i the blocks before it; the arch
 * operators are first moved up by `shift`, the least with B_i+1 <= i + 1 +
 * shift for every i, so a block never overwrites an arch operator not yet
 * read (a block reads its own operator, copied first, and the members of
 * its merged group, which come after it).  Invariants of the emitter:
 * out->ops[0, at) are final; the arch operators still to be read are at
 * p->arch[i] with p->arch[i] at out->ops index >= at; rho[0, at) and
 * len[0, at) are the output operators' natural intensities and lengths.
 */

typedef struct emitter {
    v10_op *ops;         /* the output operators (the arch array, grown) */
    size_t at;           /* operators written */
    double acc;          /* cycles emitted so far, exact */
    uint64_t acc_int;    /* the same, rounded */
    double *rho;         /* per output op: natural HBM bytes per cycle */
    double *len;         /* per output op: its given cycles */
    double hbm_bw;       /* the NPU's HBM bytes per cycle */
    size_t cur[MAX_KINDS]; /* per kind: its next site (plan.sites) */
} emitter;

/* Writes "stem" and then "suffix" (printable ASCII) into a name buffer of
 * V10_OPNAME_MAX bytes, the stem cut so that the suffix fits, escaped as
 * the importers escape a name (util/text.h).  A stem of printable ASCII,
 * the common case, is copied as it is read: escaping leaves it alone. */
static void set_name(char *dst, const char *stem, const char *suffix, size_t suffix_len)
{
    size_t room = V10_OPNAME_MAX - 1 - suffix_len, l = 0;
    while (l < room && stem[l] >= 0x20 && stem[l] < 0x7f) {
        dst[l] = stem[l];
        l++;
    }
    memcpy(dst + l, suffix, suffix_len + 1);
    if (l < room && stem[l]) { /* a byte to escape (a cut may split UTF-8) */
        l = strnlen(stem, room);
        memcpy(dst, stem, l);
        memcpy(dst + l, suffix, suffix_len + 1);
        v10_name_escape(dst, V10_OPNAME_MAX, dst);
    }
}

/* Writes the next RAW operator of `cycles` (cumulatively rounded so a
 * model's total stays exact) with natural HBM intensity rho; its name is
 * stem + suffix.  Returns the operator for piece work to be filled in. */
static v10_op *emit(emitter *em, const char *stem, const char *suffix, size_t suffix_len,
                    v10_fu_type fu, double cycles, double rho)
{
    em->acc += cycles;
    uint64_t upto = (uint64_t)llround(em->acc);
    uint64_t c = upto - em->acc_int;
    em->acc_int = upto;
    em->rho[em->at] = rho;
    em->len[em->at] = (double)(c ? c : 1);
    v10_op *op = &em->ops[em->at++];
    memset(op, 0, sizeof *op);
    set_name(op->name, stem, suffix, suffix_len);
    op->fu = fu;
    op->kind = V10_OP_RAW;
    op->count = 1;
    op->given_cycles = c ? c : 1; /* a trace operator's cycles are its whole length */
    return op;
}

/* The added operators placed at arch position `at` (p->n: the end) of
 * the kinds that go before an operator (before = 1) or after it: their
 * count, and if em is not NULL, emitted.  cur[k] is kind k's next site;
 * positions are visited in ascending order. */
static size_t emit_added(emitter *em, size_t *cur, const plan *p, size_t at, int before)
{
    size_t n = 0;
    for (size_t k = 0; k < MAX_KINDS && p->kinds[k].name; k++) {
        if ((p->kinds[k].at == AT_BEFORE_SA) != before && at < p->n)
            continue;
        if (cur[k] == p->n_sites[k] || p->sites[k][cur[k]].at != at)
            continue;
        const site *st = &p->sites[k][cur[k]++];
        n += st->count;
        for (uint32_t j = 0; em && j < st->count; j++)
            emit(em, p->kinds[k].name, "", 0, V10_FU_VU, st->len,
                 p->kinds[k].hbm_frac * em->hbm_bw);
    }
    return n;
}

/* Arch operator i as its pieces share it out: itself, or for the leader
 * of a merged group the work of every member of its FU type; *rho its
 * natural intensity, *merged the members after the leader (0: none). */
static v10_op group_of(const plan *p, size_t i, double *rho, size_t *merged)
{
    const v10_op *op = &p->arch[i];
    v10_op group = *op;
    *merged = 0;
    *rho = op->cycles ? (double)op->hbm_bytes / (double)op->cycles : 0;
    if (p->last && p->last[i] != i) {
        double bytes = 0, cyc = 0;
        group.macs = group.flops = 0;
        group.tiles = 0;
        group.restream_bytes = 0;
        for (size_t j = i; j <= p->last[i]; j++) {
            const v10_op *o = &p->arch[j];
            if (o->fu != op->fu)
                continue;
            (*merged)++;
            group.macs += o->macs;
            group.flops += o->flops;
            group.tiles += o->tiles;
            group.restream_bytes += o->restream_bytes;
            if (o->vmem_bytes > group.vmem_bytes)
                group.vmem_bytes = o->vmem_bytes;
            bytes += (double)o->hbm_bytes;
            cyc += (double)o->cycles;
        }
        *rho = cyc > 0 ? bytes / cyc : 0;
        (*merged)--; /* "+N": N more operators merged in */
    }
    return group;
}

/* Emits arch operator i's block: the added operators before it, its
 * pieces (none for a merged member), the added ones after it.  The
 * operator is read before the block's first write, which may cover it. */
static void emit_block(emitter *em, const plan *p, size_t i)
{
    uint32_t k = p->pieces[i];
    if (!k) {
        emit_added(em, em->cur, p, i, 1);
        emit_added(em, em->cur, p, i, 0);
        return;
    }
    size_t merged = 0;
    double rho = 0;
    v10_op group = group_of(p, i, &rho, &merged);
    emit_added(em, em->cur, p, i, 1);
    /* Piece j of k is named "name" alone, "name#j", or "name+N" for a
     * merged group (the stem cut to fit). */
    char suffix[24] = "";
    int sl = 0;
    if (merged)
        sl = snprintf(suffix, sizeof suffix, "+%zu", merged);
    for (uint32_t j = 0; j < k; j++) {
        if (!merged && k > 1)
            sl = snprintf(suffix, sizeof suffix, "#%u", j);
        size_t len = sl > 0 && (size_t)sl < sizeof suffix ? (size_t)sl : strlen(suffix);
        v10_op *o = emit(em, group.name, suffix, len, group.fu, p->len[i] / k, rho);
        /* Piece j of k: an exact share of the group's work. */
        o->macs = group.macs / k + (j < group.macs % k);
        o->flops = group.flops / k + (j < group.flops % k);
        o->given_tiles = group.tiles / k > 1 ? group.tiles / k : 1;
        o->vmem_bytes = group.vmem_bytes;
        o->restream_bytes = group.restream_bytes / k;
    }
    emit_added(em, em->cur, p, i, 0);
}

/* Operators emitted for arch operator i: the added ones around it and
 * its pieces (cur as in emit_added). */
static size_t block_size(size_t *cur, const plan *p, size_t i)
{
    size_t n = emit_added(NULL, cur, p, i, 1) + p->pieces[i];
    return n + emit_added(NULL, cur, p, i, 0);
}

/* Emits the calibrated operators over the arch operators `m->ops`: sizes
 * the array, moves the arch operators up (see above) and writes every
 * block in order; m->n_ops becomes the output's count, (*rho)[0, n_ops)
 * their intensities and (*rho)[n_ops, 2 n_ops) their given cycles (one
 * block, which the caller frees).  -1 with err set: too many
 * operators or out of memory (m unchanged then). */
int calib_emit_all(plan *p, v10_model *m, double hbm_bw, double **rho, v10_err *err)
{
    size_t total = 0, shift = 0, cur[MAX_KINDS] = {0};
    for (size_t i = 0; i < p->n; i++) {
        total += block_size(cur, p, i);
        if (total > i + 1 + shift)
            shift = total - (i + 1);
    }
    total += emit_added(NULL, cur, p, p->n, 0);
    *rho = NULL;
    if (total > MAX_CAL_OPS)
        return v10_err_set(err, "%s: calibration needs more than %u operators per request",
                           m->name, MAX_CAL_OPS);
    size_t room = p->n + shift > total ? p->n + shift : total;
    double *r = malloc((total ? 2 * total : 1) * sizeof *r); /* rho, then len */
    if (!r || v10_model_reserve(m, room, err)) {
        free(r);
        return v10_err_set(err, "%s: out of memory", m->name);
    }
    memmove(m->ops + shift, m->ops, p->n * sizeof *m->ops);
    p->arch = m->ops + shift;
    emitter em = {.ops = m->ops, .rho = r, .len = r + total, .hbm_bw = hbm_bw};
    for (size_t i = 0; i < p->n; i++)
        emit_block(&em, p, i);
    emit_added(&em, em.cur, p, p->n, 0);
    V10_ASSERT(em.at == total);
    p->arch = NULL; /* overwritten */
    m->n_ops = total;
    m->total_cycles = 0;
    if (m->cap_ops > total) { /* give back the tail (a shrink that fails keeps it) */
        v10_op *ops = realloc(m->ops, (total ? total : 1) * sizeof *ops);
        if (ops) {
            m->ops = ops;
            m->cap_ops = total;
        }
    }
    *rho = r;
    return 0;
}

/* ---- HBM bytes ---- */

/* Bytes of an operator `len` cycles long at intensity rho and scale g,
 * capped at the bandwidth. */
static double bytes_at(double len, double rho, double g, double bw)
{
    double cap = bw * len;
    double b = g * rho * len;
    return b < cap ? b : cap;
}

/* Gives every operator of `m` its HBM bytes: intensities rho (floored in
 * place at 1e-3 of the bandwidth when scaling) scaled by one factor so the
 * total is `target` bytes (target < 0: unscaled).  The search sweeps the
 * operators ~50 times, so it reads their lengths from len (the output
 * operators' given cycles, a compact copy: a detector's operators are
 * 10^6 x 240 bytes). */
void calib_assign_bytes(v10_model *m, double *rho, const double *len, double target,
                        double bw)
{
    size_t n = m->n_ops;
    double g = 1;
    if (target >= 0) {
        for (size_t i = 0; i < n; i++)
            rho[i] = fmax(rho[i], 1e-3 * bw);
        /* Every operator may carry bytes, so the target is reachable up to
         * the bandwidth x the operators' length. */
        double lo = 0, hi = 1;
        for (;;) {
            double sum = 0;
            for (size_t i = 0; i < n; i++)
                sum += bytes_at(len[i], rho[i], hi, bw);
            if (sum >= target || hi > 1e30)
                break;
            hi *= 2;
        }
        /* Bisection to 2^-48 of the bracket, two steps a sweep: the
         * middle's sum and the sums at both middles the next step may
         * take, three independent running sums (one sum's additions
         * wait on each other). */
        for (int it = 0; it < 48; it += 2) {
            double mid = 0.5 * (lo + hi), lo_mid = 0.5 * (lo + mid), hi_mid = 0.5 * (mid + hi);
            double sum = 0, sum_lo = 0, sum_hi = 0;
            for (size_t i = 0; i < n; i++) {
                sum += bytes_at(len[i], rho[i], mid, bw);
                sum_lo += bytes_at(len[i], rho[i], lo_mid, bw);
                sum_hi += bytes_at(len[i], rho[i], hi_mid, bw);
            }
            if (sum < target) { /* lo = mid; the next middle is hi_mid */
                lo = mid;
                if (sum_hi < target)
                    lo = hi_mid;
                else
                    hi = hi_mid;
            } else { /* hi = mid; the next middle is lo_mid */
                hi = mid;
                if (sum_lo < target)
                    lo = lo_mid;
                else
                    hi = lo_mid;
            }
        }
        g = hi;
    }
    for (size_t i = 0; i < n; i++)
        m->ops[i].hbm_bytes = (uint64_t)floor(bytes_at(len[i], rho[i], g, bw));
}
