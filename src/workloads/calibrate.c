/*
 * calibrate.c — profile calibration (v10/calibrate.h, docs/models.md
 * "Calibrated models"): a model's operators reshaped to a measured solo
 * profile (the isca23 workload set built with it: isca23.c).
 *
 * The method, in cycles of the NPU calibrated for:
 *  1. SA: the SA operator count N_sa (v10_calib_sa): by default k x the
 *     architecture's SA layers, k >= 1 the whole number nearest to the
 *     architecture's SA time S_arch (the cost model's) over the layers at
 *     the target mean; or ("work") S_arch over the target mean.  The count
 *     of VU operators N_vu >= 1 follows from the busy ratio.  If rounding
 *     the counts misses the busy ratio by more than half a point (few, long
 *     operators, e.g. MNIST), N_sa grows (by whole k) until it does not.
 *  2. Each architectural SA operator keeps its place, FU type and relative
 *     length (all scaled by one factor); to reach N_sa it is split into k
 *     equal pieces (XLA tiles a large matmul), which keeps the layers'
 *     spread; "work" may give the longest one piece more, or merge
 *     consecutive SA operators into one.
 *  3. VU: if the profile asks for more vector time than the architecture's
 *     VU operators take, they keep their cost-model lengths, whole, and the
 *     rest is added as named vector operators at the places a TPU runs them
 *     (the kind table below), each as long as the tensor of its anchor
 *     (place_added); otherwise the architectural VU operators are scaled,
 *     split or merged like the SA's ("work").
 *  4. HBM: every operator keeps the architecture's bytes per cycle (added
 *     kinds have their own), all scaled by one factor, each capped at the
 *     bandwidth over its length, so that bytes / (bandwidth x latency) hits
 *     the target without making any operator memory-bound.
 * This file plans steps 1-3; calib_emit.c writes the operators and does 4.
 */
#include "v10/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "v10/cost.h"
#include "workloads/calib_plan.h"

/* ---- where a TPU runs the vector work a profile adds (calib_plan.h) ---- */

/*
 * Our choices (docs/models.md): what each family of workloads spends TPU
 * vector time on beyond its layers' element-wise work.  Shares are round
 * numbers, not fitted to anything; intensities reflect streaming (gathers,
 * transposes: near the bandwidth) vs compute-heavy (sorting, NMS) work.
 */
static const kind K_DEFAULT[MAX_KINDS] = {
    {"relayout.transpose", AT_BEFORE_SA, NULL, 0.7, 0.9},
    {"relayout.pad", AT_BEFORE_SA, NULL, 0.3, 0.9},
};
static const kind K_RECSYS[MAX_KINDS] = {
    {"emb.gather", AT_AFTER, "embed", 0.7, 1.0},
    {"emb.segment_sum", AT_AFTER, "embed", 0.3, 0.5},
};
static const kind K_DLRM[MAX_KINDS] = {
    {"emb.gather", AT_AFTER, "emb.lookup", 0.7, 1.0},
    {"emb.segment_sum", AT_AFTER, "emb.lookup", 0.3, 0.5},
};
static const kind K_RETINANET[MAX_KINDS] = {
    {"fpn.relayout", AT_BEFORE_SA, NULL, 0.5, 0.9},
    {"post.box_decode", AT_END, NULL, 0.1, 0.3},
    {"post.topk", AT_END, NULL, 0.15, 0.3},
    {"post.nms", AT_END, NULL, 0.25, 0.1},
};
static const kind K_MASKRCNN[MAX_KINDS] = {
    {"relayout", AT_BEFORE_SA, NULL, 0.5, 0.9},
    {"roi_align", AT_AFTER, "roi_interp", 0.2, 0.6},
    {"nms", AT_AFTER, ".nms", 0.2, 0.1},
    {"topk", AT_AFTER, ".nms", 0.1, 0.3},
};
static const kind K_SHAPEMASK[MAX_KINDS] = {
    {"relayout", AT_BEFORE_SA, NULL, 0.5, 0.9},
    {"post.nms", AT_AFTER, "post.nms", 0.2, 0.1},
    {"roi_align", AT_AFTER, "roi_interp", 0.2, 0.6},
    {"post.topk", AT_AFTER, "post.nms", 0.1, 0.3},
};
static const kind K_TRANSFORMER[MAX_KINDS] = {
    {"relayout", AT_BEFORE_SA, NULL, 0.5, 0.9},
    {"beam.topk", AT_AFTER, "dec", 0.3, 0.2},
    {"beam.reorder", AT_AFTER, "dec", 0.2, 0.8},
};

static const struct {
    const char *row;
    const kind *kinds;
} KINDS_BY_ROW[] = {
    {"dlrm", K_DLRM},           {"ncf", K_RECSYS},          {"retinanet", K_RETINANET},
    {"maskrcnn", K_MASKRCNN},   {"shapemask", K_SHAPEMASK}, {"transformer", K_TRANSFORMER},
};

static const kind *kinds_for(const char *row)
{
    for (size_t i = 0; i < sizeof KINDS_BY_ROW / sizeof *KINDS_BY_ROW; i++)
        if (!strcmp(KINDS_BY_ROW[i].row, row))
            return KINDS_BY_ROW[i].kinds;
    return K_DEFAULT;
}


/* ---- the plan: per architectural operator, what it becomes ---- */

static void plan_free(plan *p)
{
    free(p->fu);
    free(p->len);
    free(p->pieces);
    free(p->last);
    for (size_t k = 0; k < MAX_KINDS; k++)
        free(p->sites[k]);
}

/* Whether arch operator i anchors kind kd (AT_END has no anchors). */
static int is_anchor(const kind *kd, const plan *p, size_t i)
{
    if (kd->at == AT_BEFORE_SA)
        return p->fu[i] == V10_FU_SA;
    return kd->at == AT_AFTER && p->fu[i] == V10_FU_VU && strstr(p->arch[i].name, kd->match);
}

/* Counts pieces of FU type `fu`: to `target` total, splitting (the longest
 * get one more) or merging consecutive operators of that type. */
static int distribute(plan *p, v10_fu_type fu, size_t target)
{
    size_t n_t = 0;
    for (size_t i = 0; i < p->n; i++)
        n_t += p->fu[i] == fu;
    if (n_t == 0)
        return 0;
    size_t *idx = malloc(n_t * sizeof *idx);
    if (!idx)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->fu[i] == fu)
            idx[k++] = i;
    if (target >= n_t) {
        size_t base = target / n_t, extra = target % n_t;
        for (size_t j = 0; j < n_t; j++)
            p->pieces[idx[j]] = (uint32_t)base;
        /* The `extra` longest get one more (ties: the earlier).  A detector
         * has 10^5-10^6 vector operators: the extra-th longest length by
         * selection, then one pass, not a sort. */
        if (extra) {
            double *key = malloc(n_t * sizeof *key);
            if (!key) {
                free(idx);
                return -1;
            }
            for (size_t j = 0; j < n_t; j++)
                key[j] = p->len[idx[j]];
            double t = v10_kth_largest(key, n_t, extra);
            free(key);
            size_t ties = extra;
            for (size_t j = 0; j < n_t; j++)
                ties -= (size_t)(p->len[idx[j]] > t);
            for (size_t j = 0; j < n_t; j++) {
                double l = p->len[idx[j]];
                if (l > t || (l == t && ties)) {
                    p->pieces[idx[j]]++;
                    ties -= (size_t)(l == t);
                }
            }
        }
    } else {
        if (!p->last) { /* the first merge: every operator its own group till now */
            p->last = malloc(p->n * sizeof *p->last);
            if (!p->last) {
                free(idx);
                return -1;
            }
            for (size_t i = 0; i < p->n; i++)
                p->last[i] = i;
        }
        for (size_t g = 0; g < target; g++) {
            size_t lo = g * n_t / target, hi = (g + 1) * n_t / target;
            double sum = 0;
            for (size_t j = lo; j < hi; j++) {
                sum += p->len[idx[j]];
                p->pieces[idx[j]] = 0;
            }
            p->pieces[idx[lo]] = 1;
            p->len[idx[lo]] = sum;
            p->last[idx[lo]] = idx[hi - 1];
        }
    }
    free(idx);
    return 0;
}

/* Spreads `count` over m places with weights w[0..m) (NULL: equal) by
 * cumulative rounding (exact total, order kept) into out[0..m). */
static void spread(uint32_t count, const double *w, size_t m, uint32_t *out)
{
    double total = 0, cum = 0;
    for (size_t j = 0; j < m; j++)
        total += w ? w[j] : 1;
    uint64_t given = 0;
    for (size_t j = 0; j < m; j++) {
        cum += w ? w[j] : 1;
        uint64_t upto = j + 1 == m ? count : (uint64_t)llround(cum / total * count);
        out[j] = (uint32_t)(upto - given);
        given = upto;
    }
}

/*
 * Places n_add added operators of `total` cycles among the kinds and their
 * anchors.  Each kind takes its weight's share of the count and as many
 * cycles as its count at the common mean; within a kind every anchor gets
 * the same number of operators (cumulative rounding), each as long as the
 * tensor its anchor reads and writes (its HBM bytes): a vector operator
 * streams its tensor, so the spread comes from the layers' shapes.  No
 * operator is shorter than min_len: those that would be are raised to it
 * and the others of the kind shortened to keep its total.
 */
static int place_added(plan *p, size_t n_add, double total, double min_len)
{
    /* The kinds' counts by their weights, then each kind's over its anchors. */
    size_t nk = 0;
    double kw[MAX_KINDS];
    uint32_t cnt[MAX_KINDS] = {0};
    for (; nk < MAX_KINDS && p->kinds[nk].name; nk++)
        kw[nk] = p->kinds[nk].weight;
    spread((uint32_t)n_add, kw, nk, cnt);
    for (size_t k = 0; k < nk; k++) {
        const kind *kd = &p->kinds[k];
        size_t m = 0;
        for (size_t i = 0; i < p->n && kd->at != AT_END; i++)
            m += is_anchor(kd, p, i);
        size_t room = m ? m : 1;
        site *st = p->sites[k] = malloc(room * sizeof *st);
        uint32_t *c = malloc(room * sizeof *c);
        double *bytes = malloc(room * sizeof *bytes);
        char *fixed = malloc(room);
        if (!st || !c || !bytes || !fixed) {
            free(c);
            free(bytes);
            free(fixed);
            return -1;
        }
        p->n_sites[k] = room;
        m = 0;
        for (size_t i = 0; i < p->n && kd->at != AT_END; i++)
            if (is_anchor(kd, p, i)) {
                st[m].at = i;
                bytes[m++] = (double)p->arch[i].hbm_bytes;
            }
        if (m == 0) { /* nothing to anchor to: post-processing at the end, on
                         what the last operator wrote */
            st[0].at = p->n;
            bytes[0] = p->n ? (double)p->arch[p->n - 1].hbm_bytes : 1;
            m = 1;
        }
        spread(cnt[k], NULL, m, c);
        /* Lengths in proportion to the anchors' bytes, raised to min_len
         * where short (each round fixes at least one anchor, or ends). */
        double rest = total * cnt[k] / (double)n_add, wsum = 0;
        for (size_t j = 0; j < m; j++) {
            st[j].count = c[j];
            st[j].len = 0;
            bytes[j] = fmax(bytes[j], 1);
            fixed[j] = c[j] == 0;
            if (!fixed[j])
                wsum += c[j] * bytes[j];
        }
        for (int again = 1; again && wsum > 0;) {
            again = 0;
            for (size_t j = 0; j < m; j++)
                if (!fixed[j] && rest * bytes[j] / wsum < min_len) {
                    fixed[j] = 1;
                    again = 1;
                    st[j].len = min_len;
                    rest -= c[j] * min_len;
                    wsum -= c[j] * bytes[j];
                }
        }
        for (size_t j = 0; j < m; j++)
            if (!fixed[j])
                st[j].len = rest * bytes[j] / wsum;
        free(c);
        free(bytes);
        free(fixed);
    }
    return 0;
}

/* ---- measuring a model alone ---- */

static void measure(const v10_model *m, const v10_npu *npu, v10_profile *out,
                    size_t *n_sa, size_t *n_vu, double *flops_util)
{
    double t[V10_FU_TYPES] = {0, 0}, bytes = 0, macs = 0;
    size_t cnt[V10_FU_TYPES] = {0, 0};
    for (size_t i = 0; i < m->n_ops; i++) {
        t[m->ops[i].fu] += (double)m->ops[i].cycles;
        cnt[m->ops[i].fu]++;
        bytes += (double)m->ops[i].hbm_bytes;
        macs += (double)m->ops[i].macs;
    }
    double total = t[0] + t[1];
    v10_profile_init(out);
    snprintf(out->row, sizeof out->row, "%s", m->name);
    out->batch = m->batch;
    if (total > 0) {
        out->sa_busy = t[V10_FU_SA] / total;
        out->vu_busy = t[V10_FU_VU] / total;
        out->hbm_util = bytes / (v10_npu_hbm_bytes_per_cycle(npu) * total);
        double peak = 2.0 * npu->sa_rows * npu->sa_cols * npu->sa_count;
        out->flops_util = 2 * macs / (peak * total);
    }
    double per_us = npu->clock_mhz;
    out->sa_op_us = cnt[0] ? t[0] / (double)cnt[0] / per_us : NAN;
    out->vu_op_us = cnt[1] ? t[1] / (double)cnt[1] / per_us : NAN;
    *n_sa = cnt[0];
    *n_vu = cnt[1];
    *flops_util = out->flops_util;
}

/* ---- calibration ---- */

int v10_calib_sa_parse(const char *s, v10_calib_sa *out, v10_err *err)
{
    if (!strcmp(s, "layers"))
        *out = V10_CALIB_SA_LAYERS;
    else if (!strcmp(s, "work"))
        *out = V10_CALIB_SA_WORK;
    else
        return v10_err_set(err, "SA operator count '%s': expected 'layers' or 'work'", s);
    return 0;
}

const char *v10_calib_sa_name(v10_calib_sa s)
{
    return s == V10_CALIB_SA_WORK ? "work" : "layers";
}

int v10_calibrate(const v10_model *in, const v10_profile *prof, const v10_npu *npu,
                  v10_model *out, v10_calib_report *rep, v10_err *err)
{
    return v10_calibrate_with(in, prof, npu, NULL, out, rep, err);
}

/* The VU operator count that goes with n SA operators: their ratio by
 * count, at least one if the profile has vector time. */
static double vu_count(double n, double ratio)
{
    return ratio > 0 ? fmax(1, round(n * ratio)) : 0;
}

/* The SA operator count (step 1 of the method) for choice `how`: the
 * count nearest the target SA busy fraction, starting from the one that
 * keeps the architecture's SA time S_arch at mean length Ls. */
static double sa_count(double S_arch, double Ls, double Lv, double ratio, double sa_busy,
                       double layers, v10_calib_sa how)
{
    double step = how == V10_CALIB_SA_LAYERS ? layers : 1;
    double n0 = step * fmax(1, round(S_arch / (step * Ls)));
    double best_err = INFINITY, best_sa = n0;
    for (double n = n0; n <= n0 * 256 && n <= MAX_CAL_OPS; n += step) {
        double nv = vu_count(n, ratio);
        double e = fabs(n * Ls / (n * Ls + nv * Lv) - sa_busy);
        if (e < best_err) {
            best_err = e;
            best_sa = n;
        }
        if (e <= 0.005)
            break;
    }
    return best_sa;
}

int v10_calibrate_with(const v10_model *in, const v10_profile *prof, const v10_npu *npu,
                       const v10_calib_opts *opts, v10_model *out, v10_calib_report *rep,
                       v10_err *err)
{
    v10_model arch;
    if (v10_model_copy(&arch, in, err)) {
        v10_model_init(out, in->name, in->batch);
        return -1;
    }
    return v10_calibrate_take(&arch, prof, npu, opts, out, rep, err);
}

/* Calibrates the operators of *own, which become the output's on
 * success (own is left empty); on failure they stay in *own. */
static int calibrate(v10_model *own, const v10_profile *prof, const v10_npu *npu,
                     const v10_calib_opts *opts, v10_model *out, v10_calib_report *rep,
                     v10_err *err)
{
    const v10_model *in = own;
    static const v10_calib_opts defaults = {.sa_ops = V10_CALIB_SA_LAYERS};
    if (!opts)
        opts = &defaults;
    v10_calib_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->sa_choice = opts->sa_ops;
    v10_model_init(out, in->name, in->batch);
    if (v10_profile_check(prof, "calibrate", err))
        return -1;
    double fl;
    measure(in, npu, &rep->arch, &rep->arch_sa_ops, &rep->arch_vu_ops, &fl);
    double per_us = npu->clock_mhz;
    double S_arch = 0, V_arch = 0;
    for (size_t i = 0; i < in->n_ops; i++)
        *(in->ops[i].fu == V10_FU_SA ? &S_arch : &V_arch) += (double)in->ops[i].cycles;

    /* The targets, with what the profile leaves open taken from the model. */
    v10_profile t = *prof;
    if (isnan(t.sa_busy) && isnan(t.vu_busy)) {
        t.sa_busy = rep->arch.sa_busy;
        t.vu_busy = rep->arch.vu_busy;
    } else if (isnan(t.sa_busy)) {
        t.sa_busy = 1 - t.vu_busy;
    } else if (isnan(t.vu_busy)) {
        t.vu_busy = 1 - t.sa_busy;
    }
    double sv = t.sa_busy + t.vu_busy;
    t.sa_busy /= sv;
    t.vu_busy /= sv;
    if (isnan(t.sa_op_us))
        t.sa_op_us = rep->arch.sa_op_us;
    if (isnan(t.vu_op_us))
        t.vu_op_us = rep->arch.vu_op_us;
    rep->target = t;
    const char *who = prof->row[0] ? prof->row : in->name;
    if (t.sa_busy > 0 && rep->arch_sa_ops == 0)
        return v10_err_set(err, "calibrate %s: the profile has sa_busy %.1f%% but the model "
                                "has no SA operators", who, 100 * t.sa_busy);
    if (t.sa_busy <= 0 && rep->arch_sa_ops)
        return v10_err_set(err, "calibrate %s: sa_busy is 0 but the model has %zu SA "
                                "operators", who, rep->arch_sa_ops);
    if (t.vu_busy <= 0 && rep->arch_vu_ops)
        return v10_err_set(err, "calibrate %s: vu_busy is 0 but the model has %zu VU "
                                "operators (calibration would drop them all)", who,
                           rep->arch_vu_ops);
    if (t.vu_busy > 0 && isnan(t.vu_op_us))
        return v10_err_set(err, "calibrate %s: vu_op_us is needed: the model has no VU "
                                "operators to take a mean length from", who);
    if (t.sa_busy <= 0 || isnan(t.sa_op_us))
        return v10_err_set(err, "calibrate %s: the model needs SA operators and sa_busy > 0",
                           who);

    /* 1. Operator counts. */
    double Ls = t.sa_op_us * per_us, Lv = t.vu_op_us * per_us;
    /* An operator is at least its issue overhead plus one cycle of work. */
    double min_sa = (double)npu->issue_cycles + 1, min_vu = (double)npu->vu_issue_cycles + 1;
    if (Ls < min_sa || (t.vu_busy > 0 && Lv < min_vu)) {
        int sa = Ls < min_sa;
        double min_len = sa ? min_sa : min_vu;
        return v10_err_set(err, "calibrate %s: %s %.4g µs is shorter than one operator on "
                                "%s (%.0f cycles of issue and work = %.4g µs)", who,
                           sa ? "sa_op_us" : "vu_op_us", sa ? t.sa_op_us : t.vu_op_us,
                           npu->name, min_len, min_len / per_us);
    }
    double ratio = t.vu_busy > 0 ? t.vu_busy / t.sa_busy * Ls / Lv : 0;
    /* "layers": whole multiples of the layers, nearest the architecture's
     * SA time; "work": that time over the mean.  Layers whose count would
     * need more operators than a request may have (a decode loop's every
     * step kept whole at a long mean) fall back to "work", and the report
     * says so. */
    double n_sa = sa_count(S_arch, Ls, Lv, ratio, t.sa_busy, (double)rep->arch_sa_ops,
                           opts->sa_ops);
    double n_vu = vu_count(n_sa, ratio);
    if (n_sa + n_vu > MAX_CAL_OPS && opts->sa_ops == V10_CALIB_SA_LAYERS) {
        rep->sa_choice = V10_CALIB_SA_WORK;
        n_sa = sa_count(S_arch, Ls, Lv, ratio, t.sa_busy, (double)rep->arch_sa_ops,
                        V10_CALIB_SA_WORK);
        n_vu = vu_count(n_sa, ratio);
    }
    if (n_sa + n_vu > MAX_CAL_OPS)
        return v10_err_set(err, "calibrate %s: the profile needs %.0f operators per request "
                                "(more than %u)", who, n_sa + n_vu, MAX_CAL_OPS);
    double S = n_sa * Ls, V = n_vu * Lv;

    plan p = {.arch = in->ops, .npu = npu, .n = in->n_ops, .kinds = kinds_for(who)};
    p.fu = malloc(p.n ? p.n : 1);
    p.len = malloc(p.n * sizeof *p.len);
    p.pieces = calloc(p.n, sizeof *p.pieces);
    double *rho = NULL;
    if (!p.fu || !p.len || !p.pieces)
        goto oom;

    /* 2-3. Lengths and pieces. */
    for (size_t i = 0; i < p.n; i++) {
        double c = (double)in->ops[i].cycles;
        p.fu[i] = (uint8_t)in->ops[i].fu;
        p.len[i] = p.fu[i] == V10_FU_SA ? c * S / S_arch : c;
    }
    size_t n_add = 0, arch_vu = rep->arch_vu_ops;
    if (V > V_arch && (double)arch_vu + 1 <= n_vu &&
        V - V_arch >= (n_vu - (double)arch_vu) * min_vu) {
        /* The architecture's vector operators, whole at their own lengths,
         * plus added work. */
        for (size_t i = 0; i < p.n; i++)
            if (p.fu[i] == V10_FU_VU)
                p.pieces[i] = 1;
        n_add = (size_t)n_vu - arch_vu;
        if (place_added(&p, n_add, V - V_arch, min_vu))
            goto oom;
        rep->added_vu_us = (V - V_arch) / per_us;
    } else if (V_arch > 0) {
        for (size_t i = 0; i < p.n; i++)
            if (p.fu[i] == V10_FU_VU)
                p.len[i] *= V / V_arch;
        if (distribute(&p, V10_FU_VU, (size_t)n_vu))
            goto oom;
    }
    if (distribute(&p, V10_FU_SA, (size_t)n_sa))
        goto oom;
    rep->added_vu_ops = n_add;

    /* Emission over the arch operators (they are gone after it), then 4.
     * HBM bytes, then the cost model's view of it all. */
    double bw = v10_npu_hbm_bytes_per_cycle(npu);
    int emitted = !calib_emit_all(&p, own, bw, &rho, err);
    plan_free(&p);
    if (!emitted)
        return -1;
    out->ops = own->ops;
    out->n_ops = own->n_ops;
    out->cap_ops = own->cap_ops;
    own->ops = NULL;
    own->n_ops = own->cap_ops = 0;
    int rc = -1;
    calib_assign_bytes(out, rho, rho + out->n_ops, isnan(t.hbm_util) ? -1 : t.hbm_util * bw * (S + V),
                 bw);
    if (v10_cost_model(npu, out, err))
        goto done;
    measure(out, npu, &rep->achieved, &rep->sa_ops, &rep->vu_ops, &rep->flops_util);
    rep->achieved.flops_util = rep->flops_util;
    rep->latency_us = (S + V) / per_us;
    rc = 0;
done:
    free(rho);
    if (rc)
        v10_model_fini(out);
    return rc;
oom:
    plan_free(&p);
    return v10_err_set(err, "calibrate %s: out of memory", who);
}

int v10_calibrate_take(v10_model *arch, const v10_profile *prof, const v10_npu *npu,
                       const v10_calib_opts *opts, v10_model *out, v10_calib_report *rep,
                       v10_err *err)
{
    /* The operators become the output's: `own` holds them from here on
     * (a copy of the cache's, which are read-only). */
    v10_model own = *arch;
    v10_model_init(arch, own.name, own.batch);
    if (own.shared) {
        v10_model shared = own;
        if (v10_model_copy(&own, &shared, err)) {
            v10_model_init(out, shared.name, shared.batch);
            return -1;
        }
    }
    int rc = calibrate(&own, prof, npu, opts, out, rep, err);
    v10_model_fini(&own);
    return rc;
}
