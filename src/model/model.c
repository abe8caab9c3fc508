/*
 * model.c — the operator IR's storage and builders (see v10/model.h), and
 * model specs ("NAME[:batch=N]", "PATH.csv", "PATH.onnx[:unknown=vu]").
 *
 * Byte accounting: tensors are bf16 (2 bytes) and live in HBM between
 * operators, except inside a fused chain of element-wise VU ops, whose
 * intermediates stay in vector memory.
 */
#include "v10/model.h"

#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/llm.h"
#include "v10/onnx.h"

#define BYTES_PER_ELEM 2 /* bf16 */

int v10_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > UINT64_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

int v10_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return -1;
    *out = a + b;
    return 0;
}

/* Multiplies n factors with overflow checking; -1 on overflow. */
static int mul_n(uint64_t *out, int n, const uint64_t *f)
{
    uint64_t p = 1;
    for (int i = 0; i < n; i++)
        if (v10_mul_u64(p, f[i], &p))
            return -1;
    *out = p;
    return 0;
}
#define MUL(out, ...) \
    mul_n((out), (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), (uint64_t[]){__VA_ARGS__})

const char *v10_fu_name(v10_fu_type fu) { return fu == V10_FU_SA ? "SA" : "VU"; }

void v10_model_init(v10_model *m, const char *name, uint32_t batch)
{
    memset(m, 0, sizeof *m);
    v10_name_escape(m->name, sizeof m->name, name); /* safe for every writer */
    m->batch = batch;
}

void v10_model_fini(v10_model *m)
{
    if (!m->shared)
        free(m->ops);
    m->shared = 0;
    m->ops = NULL;
    m->n_ops = m->cap_ops = 0;
}

int v10_model_reserve(v10_model *m, size_t n, v10_err *err)
{
    V10_ASSERT(!m->shared);
    if (n <= m->cap_ops)
        return 0;
    v10_op *ops = n <= SIZE_MAX / sizeof *ops ? realloc(m->ops, n * sizeof *ops) : NULL;
    if (!ops)
        return v10_err_set(err, "%s: out of memory", m->name);
    m->ops = ops;
    m->cap_ops = n;
    return 0;
}

int v10_model_push(v10_model *m, const v10_op *op, v10_err *err)
{
    if (m->n_ops == m->cap_ops &&
        v10_model_reserve(m, m->cap_ops ? 2 * m->cap_ops : 64, err))
        return -1;
    m->ops[m->n_ops] = *op;
    v10_op *o = &m->ops[m->n_ops++];
    v10_name_escape(o->name, sizeof o->name, o->name); /* names from files: util/text.h */
    return 0;
}

int v10_model_copy(v10_model *dst, const v10_model *src, v10_err *err)
{
    v10_model_init(dst, src->name, src->batch);
    if (!src->n_ops)
        return 0;
    dst->ops = malloc(src->n_ops * sizeof *dst->ops);
    if (!dst->ops)
        return v10_err_set(err, "%s: out of memory", src->name);
    memcpy(dst->ops, src->ops, src->n_ops * sizeof *dst->ops);
    dst->n_ops = dst->cap_ops = src->n_ops;
    return 0;
}

static void op_init(v10_op *op, const char *name, v10_fu_type fu, v10_op_kind kind)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "%s", name);
    op->fu = fu;
    op->kind = kind;
    op->count = 1;
}

static int overflow(v10_model *m, const char *name, v10_err *err)
{
    return v10_err_set(err, "%s: operator %s: size overflows 64 bits", m->name, name);
}

int v10_model_gemm(v10_model *m, const char *name, uint64_t count, uint64_t M,
                   uint64_t N, uint64_t K, int weights_in_hbm, v10_err *err)
{
    if (!count || !M || !N || !K)
        return v10_err_set(err, "%s: operator %s: GEMM dimensions must be positive "
                                "(count=%llu M=%llu N=%llu K=%llu)", m->name, name,
                           (unsigned long long)count, (unsigned long long)M,
                           (unsigned long long)N, (unsigned long long)K);
    v10_op op;
    op_init(&op, name, V10_FU_SA, V10_OP_GEMM);
    op.count = count;
    op.m = M;
    op.n = N;
    op.k = K;
    uint64_t a, b, c, sum;
    if (MUL(&a, count, M, K, BYTES_PER_ELEM) ||
        MUL(&b, weights_in_hbm ? 1 : count, K, N, BYTES_PER_ELEM) ||
        MUL(&c, count, M, N, BYTES_PER_ELEM) || v10_add_u64(a, b, &sum) ||
        v10_add_u64(sum, c, &op.hbm_bytes) || MUL(&sum, count, M, N, K))
        return overflow(m, name, err);
    /* The smaller operand (per product) stays resident; the other streams. */
    op.vmem_bytes = a < b ? a / count : (weights_in_hbm ? b : b / count);
    op.restream_bytes = a < b ? b : a;
    return v10_model_push(m, &op, err);
}

int v10_model_conv(v10_model *m, const char *name, uint64_t batch, uint64_t h,
                   uint64_t w, uint64_t c, uint64_t filters, uint64_t kh,
                   uint64_t kw, uint64_t stride, uint64_t pad, v10_err *err)
{
    if (!batch || !h || !w || !c || !filters || !kh || !kw || !stride)
        return v10_err_set(err, "%s: operator %s: convolution dimensions must be positive",
                           m->name, name);
    if (h > UINT32_MAX || w > UINT32_MAX || pad > UINT32_MAX)
        return overflow(m, name, err);
    if (h + 2 * pad < kh || w + 2 * pad < kw)
        return v10_err_set(err, "%s: operator %s: %llux%llu filter larger than the padded "
                                "%llux%llu input", m->name, name, (unsigned long long)kh,
                           (unsigned long long)kw, (unsigned long long)(h + 2 * pad),
                           (unsigned long long)(w + 2 * pad));
    uint64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
    uint64_t M, K, in;
    if (MUL(&M, batch, oh, ow) || MUL(&K, kh, kw, c) || MUL(&in, batch, h, w, c, BYTES_PER_ELEM))
        return overflow(m, name, err);
    if (v10_model_gemm(m, name, 1, M, filters, K, 1, err))
        return -1;
    /* The lowered GEMM reads the input once per pixel, not im2col's K-fold copy. */
    v10_op *op = &m->ops[m->n_ops - 1];
    uint64_t wts, out, sum;
    if (MUL(&wts, K, filters, BYTES_PER_ELEM) || MUL(&out, M, filters, BYTES_PER_ELEM) ||
        v10_add_u64(in, wts, &sum) || v10_add_u64(sum, out, &op->hbm_bytes)) {
        m->n_ops--; /* take the half-built operator back */
        return overflow(m, name, err);
    }
    op->vmem_bytes = in < wts ? in : wts;
    op->restream_bytes = in < wts ? wts : in;
    return 0;
}

int v10_model_vector(v10_model *m, const char *name, uint64_t elems,
                     uint64_t ops_per_elem, uint64_t in_tensors, int fusible,
                     v10_err *err)
{
    if (!elems || !ops_per_elem)
        return v10_err_set(err, "%s: operator %s: vector op needs elements and ops",
                           m->name, name);
    uint64_t bytes, ops;
    if (MUL(&bytes, elems, in_tensors + 1, BYTES_PER_ELEM) || MUL(&ops, elems, ops_per_elem))
        return overflow(m, name, err);
    v10_op *prev = m->n_ops ? &m->ops[m->n_ops - 1] : NULL;
    if (fusible && prev && prev->fusible && prev->kind == V10_OP_VECTOR && prev->elems == elems) {
        /* Fuse: the chained input stays in vector memory; extra inputs and
         * the per-element work add up; the output replaces the previous one. */
        uint64_t extra = 0;
        if (in_tensors && MUL(&extra, in_tensors - 1, elems, BYTES_PER_ELEM))
            return overflow(m, name, err);
        if (v10_add_u64(prev->ops_per_elem, ops_per_elem, &prev->ops_per_elem) ||
            v10_add_u64(prev->hbm_bytes, extra, &prev->hbm_bytes))
            return overflow(m, name, err);
        size_t l = strlen(prev->name);
        if (l + 2 < sizeof prev->name)
            snprintf(prev->name + l, sizeof prev->name - l, "+%s", name);
        v10_name_escape(prev->name, sizeof prev->name, prev->name);
        return 0;
    }
    v10_op op;
    op_init(&op, name, V10_FU_VU, V10_OP_VECTOR);
    op.elems = elems;
    op.ops_per_elem = ops_per_elem;
    op.hbm_bytes = bytes; /* streaming: nothing stays resident */
    op.fusible = fusible;
    return v10_model_push(m, &op, err);
}

int v10_model_gather(v10_model *m, const char *name, uint64_t rows, uint64_t dim,
                     v10_err *err)
{
    if (!rows || !dim)
        return v10_err_set(err, "%s: operator %s: gather needs rows and a dimension",
                           m->name, name);
    v10_op op;
    op_init(&op, name, V10_FU_VU, V10_OP_GATHER);
    if (MUL(&op.elems, rows, dim) || MUL(&op.hbm_bytes, rows, dim, 2 * BYTES_PER_ELEM))
        return overflow(m, name, err);
    op.ops_per_elem = 1;
    return v10_model_push(m, &op, err);
}

/* A parsed model spec (docs/formats.md "Model specs"). */
typedef struct spec {
    char name[1024];
    uint32_t batch;          /* 0 if absent */
    int unknown_vu;          /* ONNX: approximate unknown operators on the VU */
    char profile[1024];      /* calibrate to: comma-separated profile CSVs, or "" */
    char row[V10_NAME_MAX];  /* ... their row (default: the model's name) */
    uint32_t row_batch;      /* ... at this batch (default: the model's) */
    char phase[1024];        /* llm/: "prefill=P" or "decode=NxC,...", or "" */
} spec;

/* Copies the value of option `key=` (kv, kl) into buf; -1 if it does not fit. */
static int opt_value(const char *kv, size_t kl, size_t keylen, char *buf, size_t sz)
{
    size_t vl = kl - keylen;
    if (vl >= sz)
        return -1;
    memcpy(buf, kv + keylen, vl);
    buf[vl] = 0;
    return 0;
}

/* Splits "NAME[:batch=N][:unknown=vu][:profile=F.csv[,G.csv]][:row=R[@B]]". */
static int parse_spec(const char *text, spec *sp, v10_err *err)
{
    memset(sp, 0, sizeof *sp);
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0)
        return v10_err_set(err, "model '%s': empty name", text);
    if (len >= sizeof sp->name)
        return v10_err_set(err, "model '%s': name too long", text);
    memcpy(sp->name, text, len);
    sp->name[len] = 0;
    while (colon) {
        const char *kv = colon + 1;
        colon = strchr(kv, ':');
        size_t kl = colon ? (size_t)(colon - kv) : strlen(kv);
        if (kl > 6 && !strncmp(kv, "batch=", 6)) {
            char num[32];
            if (opt_value(kv, kl, 6, num, sizeof num))
                return v10_err_set(err, "model '%s': batch: expected an integer in [1, 65536]", text);
            uint64_t v;
            if (v10_parse_u64(num, &v) || v < 1 || v > 65536)
                return v10_err_set(err, "model '%s': batch: expected an integer in [1, 65536], "
                                        "got '%s'", text, num);
            sp->batch = (uint32_t)v;
        } else if ((kl > 8 && !strncmp(kv, "prefill=", 8)) ||
                   (kl > 7 && !strncmp(kv, "decode=", 7))) {
            if (opt_value(kv, kl, 0, sp->phase, sizeof sp->phase))
                return v10_err_set(err, "model '%s': phase option too long", text);
        } else if (kl == 10 && !strncmp(kv, "unknown=vu", 10)) {
            sp->unknown_vu = 1;
        } else if (kl > 8 && !strncmp(kv, "profile=", 8)) {
            if (opt_value(kv, kl, 8, sp->profile, sizeof sp->profile))
                return v10_err_set(err, "model '%s': profile: path too long", text);
        } else if (kl > 4 && !strncmp(kv, "row=", 4)) {
            char row[V10_NAME_MAX + 16];
            if (opt_value(kv, kl, 4, row, sizeof row) ||
                v10_profile_parse_row(row, sp->row, sizeof sp->row, &sp->row_batch, err))
                return v10_err_set(err, "model '%s': row: expected NAME or NAME@BATCH", text);
        } else {
            return v10_err_set(err, "model '%s': unknown option '%.*s' (expected batch=N, "
                                    "profile=FILE.csv, row=NAME[@B], for .onnx unknown=vu, "
                                    "for llm/ prefill=P or decode=NxC)",
                               text, (int)kl, kv);
        }
    }
    if (sp->row[0] && !sp->profile[0])
        return v10_err_set(err, "model '%s': row= goes with profile=", text);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t l = strlen(s), k = strlen(suffix);
    return l > k && !strcmp(s + l - k, suffix);
}

static int is_path(const char *name)
{
    return strchr(name, '/') || ends_with(name, ".csv");
}

/* Calibrates the costed model *m to the profile named in the spec. */
static int calibrate_spec(const spec *sp, const char *text, const v10_npu *npu, v10_model *m,
                          v10_err *err)
{
    v10_profile prof;
    v10_profile_init(&prof);
    const char *row = sp->row[0] ? sp->row : sp->name;
    uint32_t row_batch = sp->row[0] ? sp->row_batch : m->batch;
    char files[sizeof sp->profile];
    snprintf(files, sizeof files, "%s", sp->profile);
    int found = 0;
    for (char *save = NULL, *f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        int rc = v10_profile_merge_file(f, row, row_batch, &prof, err);
        if (rc < 0)
            return -1;
        found |= rc;
    }
    if (!found)
        return v10_err_set(err, "model '%s': no row '%s'%s in %s", text, row,
                           row_batch ? " at that batch" : "", sp->profile);
    v10_model cal;
    if (v10_calibrate(m, &prof, npu, &cal, NULL, err))
        return v10_err_prefix(err, "model '%s'", text);
    snprintf(cal.name, sizeof cal.name, "%s", m->name);
    v10_model_fini(m);
    *m = cal;
    return 0;
}

#define ISCA23_PREFIX "isca23/"
#define LLM_PREFIX "llm/"

int v10_model_spec_files(const char *text, int (*fn)(const char *path, void *ctx), void *ctx,
                         v10_err *err)
{
    spec sp;
    if (parse_spec(text, &sp, err))
        return -1;
    const char *name = sp.name;
    int rc = 0;
    if (!strncmp(name, LLM_PREFIX, strlen(LLM_PREFIX))) {
        if (v10_json_spec_is_file(name + strlen(LLM_PREFIX)))
            rc = fn(name + strlen(LLM_PREFIX), ctx);
    } else if (strncmp(name, ISCA23_PREFIX, strlen(ISCA23_PREFIX)) &&
               (ends_with(name, ".onnx") || is_path(name))) {
        rc = fn(name, ctx);
    }
    char files[sizeof sp.profile];
    snprintf(files, sizeof files, "%s", sp.profile);
    for (char *save = NULL, *f = strtok_r(files, ",", &save); f && !rc;
         f = strtok_r(NULL, ",", &save))
        rc = fn(f, ctx);
    return rc;
}

int v10_model_load(const char *text, const v10_npu *npu, v10_model *out, v10_err *err)
{
    spec sp;
    memset(out, 0, sizeof *out);
    if (parse_spec(text, &sp, err))
        return -1;
    const char *name = sp.name;
    if (sp.unknown_vu && !ends_with(name, ".onnx"))
        return v10_err_set(err, "model '%s': unknown=vu applies to .onnx models only", text);
    int llm = !strncmp(name, LLM_PREFIX, strlen(LLM_PREFIX));
    if (sp.phase[0] && !llm)
        return v10_err_set(err, "model '%s': prefill= and decode= apply to llm/ models only",
                           text);
    if (llm) {
        if (sp.batch)
            return v10_err_set(err, "model '%s': batch= does not apply to llm/ models (the "
                                    "batch is decode=NxC's N)", text);
        if (v10_llm_build_spec(text, name + strlen(LLM_PREFIX), sp.phase, npu, out, err))
            return -1;
    } else if (!strncmp(name, ISCA23_PREFIX, strlen(ISCA23_PREFIX))) {
        if (sp.profile[0])
            return v10_err_set(err, "model '%s': isca23 models are calibrated already", text);
        v10_profile unused;
        uint32_t batch;
        if (v10_isca23_profile(name + strlen(ISCA23_PREFIX), &unused, &batch, err))
            return -1;
        if (sp.batch && sp.batch != batch)
            return v10_err_set(err, "model '%s': isca23 models exist at the paper's batch "
                                    "only (%u here): its operator lengths were measured there",
                               text, batch);
        /* Costed for this NPU by the cache, shared read-only. */
        return v10_isca23_load(name + strlen(ISCA23_PREFIX), npu, out, err);
    } else if (ends_with(name, ".onnx")) {
        v10_onnx_opts o = {sp.batch, sp.unknown_vu};
        if (v10_onnx_read(name, &o, out, NULL, err))
            return -1;
    } else if (is_path(name)) {
        if (v10_trace_csv_read(name, npu, out, err))
            return -1;
        if (sp.batch)
            out->batch = sp.batch;
    } else {
        uint32_t def, batch = sp.batch;
        if (!batch && v10_zoo_default_batch(name, &def) == 0)
            batch = def;
        if (v10_zoo_build(name, batch ? batch : 1, out, err))
            return -1;
    }
    if (out->n_ops == 0) {
        v10_model_fini(out);
        return v10_err_set(err, "model '%s': no operators", text);
    }
    if (v10_cost_model(npu, out, err) ||
        (sp.profile[0] && calibrate_spec(&sp, text, npu, out, err))) {
        v10_model_fini(out);
        return -1;
    }
    return 0;
}
