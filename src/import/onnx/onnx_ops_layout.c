/*
 * onnx_ops_layout.c — ONNX operators that move or describe data
 * (onnx_impl.h): Shape, Size, constants, views (Reshape, Flatten,
 * Transpose, Squeeze, Unsqueeze) and copies (Concat, Split, Slice, Gather,
 * Expand, Tile, Pad, Range), evaluating small integer tensors at import
 * time so shape arithmetic folds away.
 */
#include "import/onnx/onnx_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/checked.h"

/* ------------------------------------------------------- shape and layout */

/* A data-movement node's end: one VU copy over y, then output 0 (values
 * optional, freed here). */
static int copy_out(ctx *c, const shape *y, int64_t *vals)
{
    int rc = onnx_vu_copy(c, y, 0);
    if (!rc)
        rc = onnx_def_out(c, 0, y, vals);
    free(vals);
    return rc;
}

int onnx_h_shape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    int64_t r = in[0]->s.rank, lo = onnx_attr_int(c, "start", 0), hi = onnx_attr_int(c, "end", r);
    lo = lo < 0 ? lo + r : lo;
    hi = hi < 0 ? hi + r : hi;
    lo = lo < 0 ? 0 : lo > r ? r : lo;
    hi = hi < 0 ? 0 : hi > r ? r : hi;
    shape y = {1, {hi > lo ? hi - lo : 0}};
    c->all_const = 1; /* a shape is known at import time */
    return onnx_def_out(c, 0, &y, in[0]->s.d + lo);
}

int onnx_h_size(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    int64_t v = (int64_t)onnx_numel(&in[0]->s);
    shape y = {0, {0}};
    c->all_const = 1;
    return onnx_def_out(c, 0, &y, &v);
}

int onnx_h_constant(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)in, (void)n_in, (void)d;
    shape s = {0, {0}};
    int64_t *vals = NULL;
    const Onnx__AttributeProto *a;
    c->all_const = 1;
    if ((a = onnx_attr(c, "value")) && a->t) {
        if (onnx_tensor_proto(c, a->t, "attribute value", &s, &vals))
            return -1;
    } else if ((a = onnx_attr(c, "value_int")) && a->has_i) {
        int rc = onnx_def_out(c, 0, &s, &a->i);
        return rc;
    } else if ((a = onnx_attr(c, "value_ints"))) {
        s = (shape){1, {(int64_t)a->n_ints}};
        return onnx_def_out(c, 0, &s, a->ints);
    } else if ((a = onnx_attr(c, "value_float")) || (a = onnx_attr(c, "value_string"))) {
        /* a scalar */
    } else if ((a = onnx_attr(c, "value_floats"))) {
        s = (shape){1, {(int64_t)a->n_floats}};
    } else if ((a = onnx_attr(c, "value_strings"))) {
        s = (shape){1, {(int64_t)a->n_strings}};
    } else {
        return onnx_nerr(c, "no supported value attribute (value, value_int(s), value_float(s), "
                            "value_string(s))");
    }
    int rc = onnx_def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

int onnx_h_constant_of_shape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    shape s = {(uint32_t)onnx_numel(&in[0]->s), {0}};
    if (s.rank > MAX_RANK)
        return onnx_nerr(c, "rank %u over %d", s.rank, MAX_RANK);
    memcpy(s.d, in[0]->vals, s.rank * sizeof *s.d);
    if (onnx_check_shape(&s))
        return onnx_def_out(c, 0, &s, NULL);
    int64_t fill = 0, *vals = NULL;
    const Onnx__AttributeProto *a = onnx_attr(c, "value");
    if (a && a->t) {
        shape vs;
        int64_t *vv;
        if (onnx_tensor_proto(c, a->t, "attribute value", &vs, &vv))
            return -1;
        if (!vv || onnx_numel(&vs) != 1) {
            free(vv);
            c->all_const = 1;
            return onnx_def_out(c, 0, &s, NULL);
        }
        fill = vv[0];
        free(vv);
    }
    uint64_t n = onnx_numel(&s);
    if (n <= MAX_VALS && (vals = malloc((n ? n : 1) * sizeof *vals)))
        for (uint64_t i = 0; i < n; i++)
            vals[i] = fill;
    c->all_const = 1;
    int rc = onnx_def_out(c, 0, &s, vals);
    free(vals);
    return rc;
}

int onnx_h_reshape(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    uint64_t n = onnx_numel(&in[1]->s);
    if (n > MAX_RANK)
        return onnx_nerr(c, "target rank %llu over %d", (unsigned long long)n, MAX_RANK);
    int allowzero = onnx_attr_int(c, "allowzero", 0) != 0;
    shape y = {(uint32_t)n, {0}};
    int infer = -1;
    uint64_t known = 1;
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t v = in[1]->vals[i];
        if (v == 0 && !allowzero) {
            if (i >= x->s.rank)
                return onnx_nerr(c, "target dim %u is 0 (copy) but the input has rank %u", i,
                                 x->s.rank);
            v = x->s.d[i];
        } else if (v == -1) {
            if (infer >= 0)
                return onnx_nerr(c, "more than one -1 in the target shape");
            infer = (int)i;
            continue;
        } else if (v < 0) {
            return onnx_nerr(c, "target dim %u is %lld", i, (long long)v);
        }
        y.d[i] = v;
        if (v && (v10_mul_u64(known, (uint64_t)v, &known) || known > (uint64_t)MAX_ELEMS))
            return onnx_nerr(c, "target shape overflows");
        if (!v)
            known = 0;
    }
    uint64_t total = onnx_numel(&x->s);
    if (infer >= 0) {
        if (!known || total % known)
            return onnx_nerr(c, "cannot infer the -1 dim: %llu elements into a multiple of %llu",
                             (unsigned long long)total, (unsigned long long)known);
        y.d[infer] = (int64_t)(total / known);
    } else if (onnx_numel(&y) != total || onnx_check_shape(&y)) {
        char a[128], b[128];
        onnx_fmt_shape(&x->s, a, sizeof a);
        onnx_fmt_shape(&y, b, sizeof b);
        return onnx_nerr(c, "cannot reshape %s into %s: element counts differ", a, b);
    }
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return onnx_def_out(c, 0, &y, x->vals);
}

int onnx_h_flatten(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    int64_t a = onnx_attr_int(c, "axis", 1);
    if (a < -(int64_t)x->s.rank || a > (int64_t)x->s.rank)
        return onnx_nerr(c, "axis %lld out of range for rank %u", (long long)a, x->s.rank);
    uint32_t ax = (uint32_t)(a < 0 ? a + x->s.rank : a);
    shape y = {2, {(int64_t)onnx_prod(x->s.d, 0, ax), (int64_t)onnx_prod(x->s.d, ax, x->s.rank)}};
    c->node_epi = x->epi;
    return onnx_def_out(c, 0, &y, x->vals);
}

/* Transpose: a layout change the consumer absorbs (XLA assigns layouts). */
int onnx_h_transpose(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    size_t np;
    const int64_t *perm = onnx_attr_ints(c, "perm", &np);
    if (perm && np != x->s.rank)
        return onnx_nerr(c, "perm has %zu entries, input rank is %u", np, x->s.rank);
    shape y = {x->s.rank, {0}};
    int seen[MAX_RANK] = {0};
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t p = perm ? perm[i] : (int64_t)(y.rank - 1 - i);
        if (p < 0 || p >= (int64_t)y.rank || seen[p]++)
            return onnx_nerr(c, "perm is not a permutation of 0..%u", y.rank - 1);
        y.d[i] = x->s.d[p];
    }
    c->node_epi = x->epi;
    return onnx_def_out(c, 0, &y, x->s.rank <= 1 ? x->vals : NULL);
}

int onnx_h_squeeze(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *x = in[0];
    const int64_t *axes;
    long na;
    if (onnx_axes_of(c, in, n_in, 1, "axes", &axes, &na))
        return -1;
    int drop[MAX_RANK] = {0};
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (onnx_axis_of(c, axes[i], x->s.rank, "axis", &a))
            return -1;
        if (x->s.d[a] != 1)
            return onnx_nerr(c, "cannot squeeze axis %u of size %lld", a, (long long)x->s.d[a]);
        drop[a] = 1;
    }
    shape y = {0, {0}};
    for (uint32_t i = 0; i < x->s.rank; i++)
        if (!(na < 0 ? x->s.d[i] == 1 : drop[i]))
            y.d[y.rank++] = x->s.d[i];
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return onnx_def_out(c, 0, &y, x->vals);
}

int onnx_h_unsqueeze(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *x = in[0];
    const int64_t *axes;
    long na;
    if (onnx_axes_of(c, in, n_in, 1, "axes", &axes, &na))
        return -1;
    if (na < 0)
        return onnx_nerr(c, "axes are required");
    if (x->s.rank + (uint64_t)na > MAX_RANK)
        return onnx_nerr(c, "output rank over %d", MAX_RANK);
    uint32_t r = x->s.rank + (uint32_t)na;
    int ins[MAX_RANK] = {0};
    for (long i = 0; i < na; i++) {
        uint32_t a;
        if (onnx_axis_of(c, axes[i], r, "axis", &a))
            return -1;
        if (ins[a]++)
            return onnx_nerr(c, "axis %u repeated", a);
    }
    shape y = {r, {0}};
    for (uint32_t i = 0, j = 0; i < r; i++)
        y.d[i] = ins[i] ? 1 : x->s.d[j++];
    c->node_epi = x->epi;
    c->all_const = x->is_const;
    return onnx_def_out(c, 0, &y, x->vals);
}

int onnx_h_concat(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    shape y = in[0]->s;
    uint32_t ax;
    if (onnx_axis_of(c, onnx_attr_int(c, "axis", 0), y.rank, "axis", &ax))
        return -1;
    int have_vals = y.rank == 1;
    y.d[ax] = 0;
    for (size_t i = 0; i < n_in; i++) {
        if (!in[i])
            continue;
        if (in[i]->s.rank != y.rank)
            return onnx_nerr(c, "input '%s' has rank %u, expected %u", in[i]->name,
                             in[i]->s.rank, y.rank);
        for (uint32_t k = 0; k < y.rank; k++)
            if (k != ax && in[i]->s.d[k] != y.d[k])
                return onnx_nerr(c, "input '%s' differs in dim %u (%lld, expected %lld)",
                                 in[i]->name, k, (long long)in[i]->s.d[k], (long long)y.d[k]);
        y.d[ax] += in[i]->s.d[ax];
        if (y.d[ax] > MAX_ELEMS)
            return onnx_nerr(c, "output too large");
        have_vals = have_vals && in[i]->vals;
    }
    int64_t *vals = NULL;
    if (have_vals && y.d[0] <= MAX_VALS && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals))) {
        size_t k = 0;
        for (size_t i = 0; i < n_in; i++)
            if (in[i]) {
                memcpy(vals + k, in[i]->vals, (size_t)in[i]->s.d[0] * sizeof *vals);
                k += (size_t)in[i]->s.d[0];
            }
    }
    int rc = onnx_check_shape(&y) ? 0 : onnx_vu_copy(c, &y, 0);
    if (!rc)
        rc = onnx_def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

int onnx_h_split(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *x = in[0];
    uint32_t ax;
    if (onnx_axis_of(c, onnx_attr_int(c, "axis", 0), x->s.rank, "axis", &ax))
        return -1;
    const int64_t *split;
    long ns;
    if (onnx_axes_of(c, in, n_in, 1, "split", &split, &ns))
        return -1;
    size_t nout = c->node->n_output;
    if (!nout)
        return onnx_nerr(c, "no outputs");
    int64_t dim = x->s.d[ax], sum = 0;
    if (ns >= 0) {
        if ((size_t)ns != nout)
            return onnx_nerr(c, "split has %ld entries for %zu outputs", ns, nout);
        for (long i = 0; i < ns; i++) {
            if (split[i] < 0 || split[i] > MAX_ELEMS)
                return onnx_nerr(c, "split entry %ld is %lld", i, (long long)split[i]);
            sum += split[i];
            if (sum > MAX_ELEMS)
                return onnx_nerr(c, "split sums over 2^50");
        }
        if (sum != dim)
            return onnx_nerr(c, "split sums to %lld, axis %u has %lld", (long long)sum, ax,
                             (long long)dim);
    } else if (dim % (int64_t)nout) {
        return onnx_nerr(c, "axis %u of %lld does not split evenly into %zu outputs", ax,
                         (long long)dim, nout);
    }
    if (onnx_vu_copy(c, &x->s, 0))
        return -1;
    for (size_t k = 0; k < nout; k++) {
        shape y = x->s;
        y.d[ax] = ns >= 0 ? split[k] : dim / (int64_t)nout;
        if (onnx_def_out(c, k, &y, NULL))
            return -1;
    }
    return 0;
}

/* Clamped slice length along one dim (ONNX Slice semantics). */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *first)
{
    if (start < 0)
        start = start < -dim ? 0 : start + dim;
    if (end < 0)
        end = end < -dim ? -1 : end + dim;
    if (step > 0) {
        start = start > dim ? dim : start;
        end = end < 0 ? 0 : end > dim ? dim : end;
        *first = start;
        return end > start ? (end - start + step - 1) / step : 0;
    }
    start = start > dim - 1 ? dim - 1 : start;
    end = end > dim - 1 ? dim - 1 : end;
    *first = start;
    return start > end ? (start - end + (-step) - 1) / (-step) : 0;
}

int onnx_h_slice(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *x = in[0];
    const int64_t *st, *en, *ax = NULL, *sp = NULL;
    size_t n, n2, na = 0, nsp = 0;
    if ((st = onnx_attr_ints(c, "starts", &n))) {
        en = onnx_attr_ints(c, "ends", &n2);
        ax = onnx_attr_ints(c, "axes", &na);
        if (!en)
            return onnx_nerr(c, "attribute ends is required");
    } else {
        if (onnx_need(c, in, n_in, 1, "starts") || onnx_need(c, in, n_in, 2, "ends") ||
            onnx_need_vals(c, in[1], "starts") || onnx_need_vals(c, in[2], "ends"))
            return -1;
        st = in[1]->vals, n = onnx_numel(&in[1]->s);
        en = in[2]->vals, n2 = onnx_numel(&in[2]->s);
        tensor *ta = onnx_input(in, n_in, 3), *ts = onnx_input(in, n_in, 4);
        if (ta && onnx_need_vals(c, ta, "axes"))
            return -1;
        if (ts && onnx_need_vals(c, ts, "steps"))
            return -1;
        if (ta)
            ax = ta->vals, na = onnx_numel(&ta->s);
        if (ts)
            sp = ts->vals, nsp = onnx_numel(&ts->s);
    }
    if (n2 != n || (ax && na != n) || (sp && nsp != n))
        return onnx_nerr(c, "starts, ends, axes and steps differ in length");
    shape y = x->s;
    int64_t first[MAX_RANK] = {0}, step[MAX_RANK];
    int done[MAX_RANK] = {0};
    for (uint32_t i = 0; i < MAX_RANK; i++)
        step[i] = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t a;
        if (!ax && i >= x->s.rank)
            return onnx_nerr(c, "more starts than input dims");
        if (onnx_axis_of(c, ax ? ax[i] : (int64_t)i, x->s.rank, "axis", &a))
            return -1;
        if (done[a]++)
            return onnx_nerr(c, "axis %u repeated", a);
        int64_t s = sp ? sp[i] : 1;
        if (s == 0)
            return onnx_nerr(c, "step %zu is 0", i);
        s = s < -MAX_ELEMS ? -MAX_ELEMS : s > MAX_ELEMS ? MAX_ELEMS : s; /* same length */
        step[a] = s;
        int64_t b = st[i] < -MAX_ELEMS ? -MAX_ELEMS : st[i] > MAX_ELEMS ? MAX_ELEMS : st[i];
        int64_t e = en[i] < -MAX_ELEMS - 1 ? -MAX_ELEMS - 1 : en[i] > MAX_ELEMS ? MAX_ELEMS : en[i];
        y.d[a] = slice_len(x->s.d[a], b, e, s, &first[a]);
    }
    int64_t *vals = NULL;
    if (x->vals && x->s.rank == 1 && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals)))
        for (int64_t i = 0; i < y.d[0]; i++)
            vals[i] = x->vals[first[0] + i * step[0]];
    return copy_out(c, &y, vals);
}

int onnx_h_gather(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0], *idx = in[1];
    uint32_t ax;
    if (onnx_axis_of(c, onnx_attr_int(c, "axis", 0), x->s.rank, "axis", &ax))
        return -1;
    if (x->s.rank - 1 + idx->s.rank > MAX_RANK)
        return onnx_nerr(c, "output rank over %d", MAX_RANK);
    shape y = {0, {0}};
    for (uint32_t i = 0; i < ax; i++)
        y.d[y.rank++] = x->s.d[i];
    for (uint32_t i = 0; i < idx->s.rank; i++)
        y.d[y.rank++] = idx->s.d[i];
    for (uint32_t i = ax + 1; i < x->s.rank; i++)
        y.d[y.rank++] = x->s.d[i];
    if (onnx_check_shape(&y))
        return onnx_def_out(c, 0, &y, NULL);
    int64_t *vals = NULL;
    uint64_t ni = onnx_numel(&idx->s);
    if (x->vals && idx->vals && x->s.rank == 1) {
        vals = malloc((ni ? ni : 1) * sizeof *vals);
        if (!vals)
            return onnx_nerr(c, "out of memory");
        for (uint64_t i = 0; i < ni; i++) {
            int64_t k = idx->vals[i];
            if (k < -x->s.d[0] || k >= x->s.d[0]) {
                free(vals);
                return onnx_nerr(c, "index %lld out of range for %lld entries", (long long)k,
                                 (long long)x->s.d[0]);
            }
            vals[i] = x->vals[k < 0 ? k + x->s.d[0] : k];
        }
    }
    int rc = 0;
    if (!c->all_const) {
        if (x->is_const && ax == 0) { /* an embedding lookup: rows of a table */
            uint64_t dim = onnx_prod(x->s.d, 1, x->s.rank);
            if (onnx_numel(&y))
                rc = onnx_emitted(c, v10_model_gather(c->m, c->opname, ni, dim, c->err));
        } else
            rc = onnx_vu_copy(c, &y, 0);
    }
    if (!rc)
        rc = onnx_def_out(c, 0, &y, vals);
    free(vals);
    return rc;
}

int onnx_h_expand(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    shape t = {(uint32_t)onnx_numel(&in[1]->s), {0}}, y;
    if (t.rank > MAX_RANK)
        return onnx_nerr(c, "rank %u over %d", t.rank, MAX_RANK);
    memcpy(t.d, in[1]->vals, t.rank * sizeof *t.d);
    if (onnx_check_shape(&t))
        return onnx_nerr(c, "invalid target shape");
    if (onnx_broadcast(c, &in[0]->s, &t, &y))
        return -1;
    if (!onnx_check_shape(&y) && onnx_vu_copy(c, &y, 0))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_tile(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    const tensor *x = in[0];
    if (onnx_numel(&in[1]->s) != x->s.rank)
        return onnx_nerr(c, "repeats has %llu entries, input rank is %u",
                         (unsigned long long)onnx_numel(&in[1]->s), x->s.rank);
    shape y = x->s;
    for (uint32_t i = 0; i < y.rank; i++) {
        int64_t r = in[1]->vals[i];
        if (r < 0 || r > MAX_ELEMS || (r && y.d[i] > MAX_ELEMS / r))
            return onnx_nerr(c, "repeats entry %u is %lld", i, (long long)r);
        y.d[i] *= r;
    }
    if (!onnx_check_shape(&y) && onnx_vu_copy(c, &y, 0))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_pad(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)d;
    const tensor *x = in[0];
    size_t np;
    const int64_t *pads = onnx_attr_ints(c, "pads", &np);
    if (!pads) {
        if (onnx_need(c, in, n_in, 1, "pads") || onnx_need_vals(c, in[1], "pads"))
            return -1;
        pads = in[1]->vals, np = onnx_numel(&in[1]->s);
    }
    if (onnx_input(in, n_in, 3))
        return onnx_nerr(c, "the axes input is not supported");
    if (np != 2 * (size_t)x->s.rank)
        return onnx_nerr(c, "pads has %zu entries, expected %u", np, 2 * x->s.rank);
    shape y = x->s;
    for (uint32_t i = 0; i < y.rank; i++) {
        if (pads[i] < -MAX_ELEMS || pads[i] > MAX_ELEMS || pads[i + y.rank] < -MAX_ELEMS ||
            pads[i + y.rank] > MAX_ELEMS)
            return onnx_nerr(c, "pad out of range");
        y.d[i] += pads[i] + pads[i + y.rank];
        if (y.d[i] < 0)
            return onnx_nerr(c, "pads make dim %u negative", i);
    }
    if (!onnx_check_shape(&y) && onnx_vu_copy(c, &y, 0))
        return -1;
    return onnx_def_out(c, 0, &y, NULL);
}

int onnx_h_range(ctx *c, tensor **in, size_t n_in, const op_def *d)
{
    (void)n_in, (void)d;
    int64_t s = in[0]->vals[0], l = in[1]->vals[0], dl = in[2]->vals[0];
    if (dl == 0)
        return onnx_nerr(c, "delta is 0");
    if (s < -MAX_ELEMS || s > MAX_ELEMS || l < -MAX_ELEMS || l > MAX_ELEMS ||
        dl < -MAX_ELEMS || dl > MAX_ELEMS)
        return onnx_nerr(c, "start/limit/delta out of range");
    int64_t n = dl > 0 ? (l - s + dl - 1) / dl : (s - l + (-dl) - 1) / (-dl);
    shape y = {1, {n > 0 ? n : 0}};
    int64_t *vals = NULL;
    if (y.d[0] <= MAX_VALS && (vals = malloc(((size_t)y.d[0] + 1) * sizeof *vals)))
        for (int64_t i = 0; i < y.d[0]; i++)
            vals[i] = s + i * dl;
    return copy_out(c, &y, vals);
}

