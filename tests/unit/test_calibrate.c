/*
 * test_calibrate.c — profile calibration (v10/calibrate.h): every isca23
 * model meets its TPU profile within the documented tolerances; a
 * calibrated model keeps its architecture's structure; a trace CSV is
 * calibrated like a built-in; profiles that cannot be met are errors that
 * name the field.  The profiles come from data/tpu-profiles (the paper's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/npu.h"

#define UTIL "data/tpu-profiles/utilization.csv"
#define LENS "data/tpu-profiles/op_lengths.csv"

static v10_npu isca23(void)
{
    v10_npu n;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &n, &err), 0);
    return n;
}

/* The figures a model shows alone, straight from its costed operators. */
typedef struct alone {
    double sa, vu, hbm, sa_us, vu_us;
    size_t n_sa, n_vu;
} alone;

static alone measure(const v10_model *m, const v10_npu *npu)
{
    double t[2] = {0, 0}, bytes = 0;
    size_t n[2] = {0, 0};
    for (size_t i = 0; i < m->n_ops; i++) {
        t[m->ops[i].fu] += (double)m->ops[i].cycles;
        n[m->ops[i].fu]++;
        bytes += (double)m->ops[i].hbm_bytes;
        /* calibration never makes an operator memory-bound */
        assert_true(m->ops[i].mem_cycles <= m->ops[i].compute_cycles);
    }
    double total = t[0] + t[1];
    alone a = {t[0] / total, t[1] / total, bytes / (v10_npu_hbm_bytes_per_cycle(npu) * total),
               n[0] ? t[0] / (double)n[0] / npu->clock_mhz : NAN,
               n[1] ? t[1] / (double)n[1] / npu->clock_mhz : NAN, n[0], n[1]};
    return a;
}

/* The issue's targets: SA and VU busy within 3 points (normalized to sum
 * 100), HBM within 5 points, both mean operator lengths within 10%. */
static void assert_meets(const alone *a, const v10_profile *p, const char *who)
{
    double s = p->sa_busy / (p->sa_busy + p->vu_busy);
    if (fabs(a->sa - s) > 0.03 || fabs(a->vu - (1 - s)) > 0.03 ||
        fabs(a->hbm - p->hbm_util) > 0.05 || fabs(a->sa_us / p->sa_op_us - 1) > 0.10 ||
        fabs(a->vu_us / p->vu_op_us - 1) > 0.10)
        fail_msg("%s: sa %.3f/%.3f vu %.3f hbm %.3f/%.3f sa_us %.1f/%.1f vu_us %.2f/%.2f", who,
                 a->sa, s, a->vu, a->hbm, p->hbm_util, a->sa_us, p->sa_op_us, a->vu_us,
                 p->vu_op_us);
}

static void test_isca23_meets_profiles(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    for (size_t i = 0; v10_isca23_names[i]; i++) {
        const char *name = v10_isca23_names[i];
        v10_profile p;
        uint32_t batch;
        assert_int_equal(v10_isca23_profile(name, &p, &batch, &err), 0);
        /* the embedded copy is the repository's data file, row for row */
        v10_profile f;
        v10_profile_init(&f);
        uint32_t row_batch = strcmp(name, "maskrcnn") ? batch : 8;
        assert_int_equal(v10_profile_merge_file(UTIL, name, row_batch, &f, &err), 1);
        assert_int_equal(v10_profile_merge_file(LENS, name, 0, &f, &err), 1);
        assert_true(f.sa_busy == p.sa_busy && f.vu_busy == p.vu_busy &&
                    f.hbm_util == p.hbm_util && f.sa_op_us == p.sa_op_us &&
                    f.vu_op_us == p.vu_op_us);
        char spec[64];
        snprintf(spec, sizeof spec, "isca23/%s", name);
        v10_model m;
        if (v10_model_load(spec, &npu, &m, &err))
            fail_msg("%s: %s", spec, err.msg);
        assert_int_equal(m.batch, batch);
        alone a = measure(&m, &npu);
        assert_meets(&a, &p, spec);
        v10_model_fini(&m);
    }
}

/* The spread of SA operator lengths, as v10_model_len_stats gives it. */
static double sa_cv(const v10_model *m)
{
    v10_len_stats st[V10_FU_TYPES];
    v10_err err;
    assert_int_equal(v10_model_len_stats(m, st, &err), 0);
    return st[V10_FU_SA].cv;
}

/* Calibration keeps the architecture's spread: every isca23 model's SA
 * operator-length CV is at least 0.8x its zoo model's (which has more
 * than one SA operator in every case), but where its layers had to be
 * merged (at most one model). */
static void test_isca23_keeps_spread(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    int fallbacks = 0;
    for (size_t i = 0; v10_isca23_names[i]; i++) {
        const char *name = v10_isca23_names[i];
        char spec[64];
        snprintf(spec, sizeof spec, "isca23/%s", name);
        v10_model arch, cal;
        v10_profile p;
        uint32_t batch;
        assert_int_equal(v10_isca23_profile(name, &p, &batch, &err), 0);
        char zoo[64];
        snprintf(zoo, sizeof zoo, "%s:batch=%u", name, batch);
        assert_int_equal(v10_model_load(zoo, &npu, &arch, &err), 0);
        v10_calib_report rep;
        assert_int_equal(v10_calibrate(&arch, &p, &npu, &cal, &rep, &err), 0);
        double a = sa_cv(&arch), c = sa_cv(&cal);
        if (rep.sa_choice == V10_CALIB_SA_WORK) {
            /* Its layers at the profile's mean would need more operators
             * than a request may have (the Transformer's 128 decode steps):
             * merged, as --sa-ops work, and the spread narrows. */
            print_message("%s: layers merged (SA CV %.3f, architecture %.3f)\n", spec, c, a);
            fallbacks++;
        } else if (!(c >= 0.8 * a)) {
            fail_msg("%s: SA CV %.3f, architecture %.3f", spec, c, a);
        }
        v10_model_fini(&arch);
        v10_model_fini(&cal);
    }
    assert_true(fallbacks <= 1);
}

/* Added vector operators take their lengths from the tensors they touch:
 * ResNet-RS's relayouts before SA layers of different operand sizes come
 * in several lengths, and within a kind longer anchors give longer ops. */
static void test_added_lengths_from_tensors(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model m;
    assert_int_equal(v10_model_load("isca23/resnet-rs", &npu, &m, &err), 0);
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t n = 0;
    for (size_t i = 0; i < m.n_ops; i++)
        if (!strncmp(m.ops[i].name, "relayout.", 9)) {
            n++;
            lo = m.ops[i].cycles < lo ? m.ops[i].cycles : lo;
            hi = m.ops[i].cycles > hi ? m.ops[i].cycles : hi;
        }
    assert_true(n > 100);
    if (!(hi > 10 * lo))
        fail_msg("relayout lengths %llu..%llu: not spread by the operands",
                 (unsigned long long)lo, (unsigned long long)hi);
    v10_model_fini(&m);
}

/* The other SA-count choice ("work": the architecture's SA time, merging
 * layers) meets the profile too, with fewer, merged SA operators where
 * the profile's are longer than the layers (ResNet-RS). */
static void test_sa_ops_work(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model arch, lay, wrk;
    assert_int_equal(v10_model_load("resnet-rs", &npu, &arch, &err), 0);
    v10_profile p;
    uint32_t b;
    assert_int_equal(v10_isca23_profile("resnet-rs", &p, &b, &err), 0);
    v10_calib_opts o = {.sa_ops = V10_CALIB_SA_WORK};
    assert_int_equal(v10_calibrate_with(&arch, &p, &npu, &o, &wrk, NULL, &err), 0);
    assert_int_equal(v10_calibrate_with(&arch, &p, &npu, NULL, &lay, NULL, &err), 0);
    alone w = measure(&wrk, &npu), l = measure(&lay, &npu);
    assert_meets(&w, &p, "resnet-rs, sa_ops work");
    assert_meets(&l, &p, "resnet-rs, sa_ops layers");
    assert_true(w.n_sa < 10);      /* 89 layers merged into a few */
    assert_int_equal(l.n_sa, 89);  /* every layer one operator */
    v10_calib_sa s;
    assert_int_equal(v10_calib_sa_parse("work", &s, &err), 0);
    assert_int_equal(s, V10_CALIB_SA_WORK);
    assert_string_equal(v10_calib_sa_name(s), "work");
    assert_int_equal(v10_calib_sa_parse("tiles", &s, &err), -1);
    assert_non_null(strstr(err.msg, "'tiles': expected 'layers' or 'work'"));
    v10_model_fini(&arch);
    v10_model_fini(&lay);
    v10_model_fini(&wrk);
}

/* v10_model_len_stats against a model computed by hand: SA 100, 200,
 * 300, 400 cycles and one VU operator of 50. */
static void test_len_stats_by_hand(void **state)
{
    (void)state;
    v10_model m;
    v10_model_init(&m, "hand", 1);
    static const struct {
        v10_fu_type fu;
        uint64_t cycles;
    } ops[] = {{V10_FU_SA, 300}, {V10_FU_VU, 50}, {V10_FU_SA, 100},
               {V10_FU_SA, 400}, {V10_FU_SA, 200}};
    v10_err err;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        v10_op op;
        memset(&op, 0, sizeof op);
        op.fu = ops[i].fu;
        op.cycles = ops[i].cycles;
        assert_int_equal(v10_model_push(&m, &op, &err), 0);
    }
    v10_len_stats s[V10_FU_TYPES];
    assert_int_equal(v10_model_len_stats(&m, s, &err), 0);
    const v10_len_stats *sa = &s[V10_FU_SA], *vu = &s[V10_FU_VU];
    assert_int_equal(sa->n, 4);
    assert_int_equal(sa->min, 100);
    assert_int_equal(sa->max, 400);
    assert_true(sa->mean == 250);
    assert_true(sa->p50 == 200); /* nearest rank: ceil(0.5 x 4) = 2nd */
    assert_true(sa->p95 == 400);
    /* sqrt((150^2 + 50^2 + 50^2 + 150^2) / 4) / 250 = sqrt(12500) / 250 */
    assert_true(fabs(sa->cv - sqrt(12500.0) / 250) < 1e-12);
    assert_int_equal(vu->n, 1);
    assert_true(vu->min == 50 && vu->max == 50 && vu->p50 == 50 && vu->p95 == 50);
    assert_true(vu->mean == 50 && vu->cv == 0);
    v10_model_fini(&m);
    /* no operators: all zero */
    v10_model_init(&m, "empty", 1);
    assert_int_equal(v10_model_len_stats(&m, s, &err), 0);
    assert_true(s[0].n == 0 && s[0].mean == 0 && s[0].p95 == 0 && s[1].cv == 0);
}

/* Mask-RCNN runs at batch 16 with its batch-8 row; others at the paper's. */
static void test_isca23_batches(void **state)
{
    (void)state;
    v10_profile p;
    uint32_t b;
    v10_err err;
    assert_int_equal(v10_isca23_profile("maskrcnn", &p, &b, &err), 0);
    assert_int_equal(b, 16);
    assert_int_equal(v10_isca23_profile("shapemask", &p, &b, &err), 0);
    assert_int_equal(b, 8);
    assert_int_equal(v10_isca23_profile("bert", &p, &b, &err), 0);
    assert_int_equal(b, 32);
    v10_npu npu = isca23();
    v10_model m;
    assert_int_equal(v10_model_load("isca23/bert:batch=8", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "paper's batch"));
    assert_int_equal(v10_model_load("isca23/vit", &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "isca23/bert"));
}

/* Splitting keeps the architecture: the names in program order (pieces
 * "name#j" collapsed) are the architecture's, and every SA operator's
 * pieces together keep its share of the SA time. */
static void test_structure_kept(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model arch, cal;
    assert_int_equal(v10_model_load("bert", &npu, &arch, &err), 0);
    v10_profile p;
    uint32_t b;
    assert_int_equal(v10_isca23_profile("bert", &p, &b, &err), 0);
    v10_calib_report rep;
    assert_int_equal(v10_calibrate(&arch, &p, &npu, &cal, &rep, &err), 0);
    assert_true(cal.n_ops > arch.n_ops); /* BERT's operators are split, none added */
    assert_int_equal(rep.added_vu_ops, 0);
    size_t j = 0;
    double sa_scale = NAN;
    for (size_t i = 0; i < arch.n_ops; i++) {
        const v10_op *a = &arch.ops[i];
        double sum = 0;
        size_t pieces = 0;
        while (j < cal.n_ops) {
            const v10_op *c = &cal.ops[j];
            size_t stem = strcspn(c->name, "#");
            if (strlen(a->name) != stem || strncmp(a->name, c->name, stem))
                break;
            assert_int_equal(c->fu, a->fu);
            sum += (double)c->cycles;
            pieces++;
            j++;
        }
        if (!pieces)
            fail_msg("operator %zu (%s) lost; next is %s", i, a->name,
                     j < cal.n_ops ? cal.ops[j].name : "the end");
        if (a->fu == V10_FU_SA) {
            double scale = sum / (double)a->cycles;
            if (isnan(sa_scale))
                sa_scale = scale;
            assert_true(fabs(scale / sa_scale - 1) < 1e-3); /* relative lengths kept */
        }
    }
    assert_int_equal(j, cal.n_ops);
    /* MACs are conserved */
    uint64_t ma = 0, mc = 0;
    for (size_t i = 0; i < arch.n_ops; i++)
        ma += arch.ops[i].macs;
    for (size_t i = 0; i < cal.n_ops; i++)
        mc += cal.ops[i].macs;
    assert_true(ma == mc);
    v10_model_fini(&arch);
    v10_model_fini(&cal);
}

/* Vector work the architecture lacks is added as named operators where a
 * TPU runs it: DLRM's and NCF's embedding work after their lookups. */
static void test_added_work_is_named(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model m;
    assert_int_equal(v10_model_load("isca23/dlrm", &npu, &m, &err), 0);
    size_t gather = SIZE_MAX, added = 0;
    for (size_t i = 0; i < m.n_ops; i++) {
        if (!strcmp(m.ops[i].name, "emb.lookup") && gather == SIZE_MAX)
            gather = i + 1; /* the architecture's one lookup, then the added */
        if (!strncmp(m.ops[i].name, "emb.gather", 10) || !strcmp(m.ops[i].name, "emb.segment_sum"))
            added++;
    }
    assert_true(gather != SIZE_MAX);
    assert_true(added > 50);
    /* all of them sit right after the architecture's gather */
    for (size_t i = gather; i < gather + added; i++)
        assert_true(!strncmp(m.ops[i].name, "emb.", 4));
    v10_model_fini(&m);
    /* NCF's follow its first embedding lookup */
    assert_int_equal(v10_model_load("isca23/ncf", &npu, &m, &err), 0);
    assert_string_equal(m.ops[0].name, "embed.user");
    assert_true(!strncmp(m.ops[1].name, "emb.gather", 10));
    v10_model_fini(&m);
}

/* A trace CSV calibrates through the model-spec form like a built-in. */
static void test_trace_csv_spec(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model arch;
    assert_int_equal(v10_model_load("resnet50", &npu, &arch, &err), 0);
    char dir[] = "/tmp/v10_cal_XXXXXX", path[128], spec[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r50.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(v10_trace_csv_write(&arch, &npu, f), 0);
    assert_int_equal(fclose(f), 0);
    snprintf(spec, sizeof spec, "%s:profile=" UTIL "," LENS ":row=resnet50@32", path);
    v10_model m;
    if (v10_model_load(spec, &npu, &m, &err))
        fail_msg("%s", err.msg);
    v10_profile p;
    uint32_t b;
    assert_int_equal(v10_isca23_profile("resnet50", &p, &b, &err), 0);
    alone a = measure(&m, &npu);
    assert_meets(&a, &p, spec);
    /* deterministic: the same spec twice gives the same operators */
    v10_model m2;
    assert_int_equal(v10_model_load(spec, &npu, &m2, &err), 0);
    assert_int_equal(m.n_ops, m2.n_ops);
    assert_memory_equal(m.ops, m2.ops, m.n_ops * sizeof *m.ops);
    v10_model_fini(&m);
    v10_model_fini(&m2);
    /* row= without profile=, and a row that is not there */
    snprintf(spec, sizeof spec, "%s:row=resnet50", path);
    assert_int_equal(v10_model_load(spec, &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "row= goes with profile="));
    snprintf(spec, sizeof spec, "%s:profile=" UTIL ":row=nosuch", path);
    assert_int_equal(v10_model_load(spec, &npu, &m, &err), -1);
    assert_non_null(strstr(err.msg, "no row 'nosuch'"));
    unlink(path);
    rmdir(dir);
    v10_model_fini(&arch);
}

/* Profiles that cannot be met name the field. */
static void test_bad_profiles(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_model arch, out;
    assert_int_equal(v10_model_load("resnet50", &npu, &arch, &err), 0);
    static const struct {
        double sa, vu, len;
        const char *msg;
    } cases[] = {
        {0.9, 0.6, 100, "sa_busy + vu_busy is 150.0%"},
        {0.5, 0.5, -3, "sa_op_us is -3"},
        {0.5, 0.5, 0, "sa_op_us is 0"},
        {1.2, NAN, 100, "sa_busy is 120"},
        {0, 1, 100, "sa_busy is 0 but the model has"},
        {0.5, 0.5, 0.001, "sa_op_us 0.001 µs is shorter than one operator"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        v10_profile p;
        v10_profile_init(&p);
        snprintf(p.row, sizeof p.row, "bad");
        p.sa_busy = cases[i].sa;
        p.vu_busy = cases[i].vu;
        p.sa_op_us = cases[i].len;
        assert_int_equal(v10_calibrate(&arch, &p, &npu, &out, NULL, &err), -1);
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
    }
    v10_model_fini(&arch);
}

/* A malformed profile file is an error naming file and line. */
static void test_bad_profile_file(void **state)
{
    (void)state;
    char path[] = "/tmp/v10_prof_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("model,mxu_busy_pct,vpu_busy_pct\nx,12,88\ny,abc,1\nw,50,-1\n", f);
    fclose(f);
    v10_profile p;
    v10_profile_init(&p);
    v10_err err;
    assert_int_equal(v10_profile_merge_file(path, "x", 0, &p, &err), 1);
    assert_true(fabs(p.sa_busy - 0.12) < 1e-12);
    assert_int_equal(v10_profile_merge_file(path, "y", 0, &p, &err), -1);
    /* the column by the header's name, and its range where the line is */
    assert_non_null(strstr(err.msg, ":3: mxu_busy_pct: expected a number or an empty cell, "
                                    "got 'abc'"));
    assert_int_equal(v10_profile_merge_file(path, "w", 0, &p, &err), -1);
    assert_non_null(strstr(err.msg, ":4: vpu_busy_pct: expected a percentage in [0, 100], "
                                    "got '-1'"));
    assert_int_equal(v10_profile_merge_file(path, "z", 0, &p, &err), 0);
    unlink(path);
}

/* ---- the operators themselves, pinned ---- */

/* An FNV-1a hash of every operator's name, FU type, kind, given and
 * costed work, bytes and tiles: two models with one fingerprint have the
 * same operators, in the same order. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

static uint64_t fingerprint(const v10_model *m)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < m->n_ops; i++) {
        const v10_op *o = &m->ops[i];
        uint64_t f[] = {o->fu,         o->kind,           o->given_cycles, o->given_tiles,
                        o->macs,       o->flops,          o->vmem_bytes,   o->restream_bytes,
                        o->hbm_bytes,  o->cycles,         o->tiles};
        h = fnv(h, o->name, strlen(o->name) + 1);
        h = fnv(h, f, sizeof f);
    }
    return h;
}

/*
 * Every isca23 model but RetinaNet (the largest: 788,577 operators, too
 * slow for a sanitized unit test; tests/cli compares its profile), under
 * both SA counts: operator count, one request's cycles and the
 * fingerprint, as a construction that wrote the calibrated operators to an
 * array of their own (beside the architecture's) gave them.  Writing them
 * over the architecture's must not change one operator: the cases cover
 * split layers ("#j"), merged ones ("+N", sa 1), added operators before SA
 * layers, after named VU operators (DLRM, NCF, Mask R-CNN, ShapeMask,
 * Transformer) and at the end.
 */
static void test_same_operators_as_two_arrays(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int sa;
        size_t n_ops;
        uint64_t cycles, fp;
    } want[] = {
        {"bert", 0, 1072, 282519230u, 0x8c3e3eebea72bc1eu},
        {"dlrm", 0, 245, 833980u, 0x8259a21f146dde59u},
        {"efficientnet", 0, 337, 17940300u, 0x0e09bb306d315cd6u},
        {"maskrcnn", 0, 37317, 636891780u, 0x93d6e3b71c9eb038u},
        {"mnist", 0, 23, 3005800u, 0xf14784dd6ed9cd40u},
        {"ncf", 0, 1322, 16980460u, 0xff547c2e24bf0361u},
        {"resnet50", 0, 191, 12386080u, 0x50dff80b5d061a75u},
        {"resnet-rs", 0, 1242, 249319490u, 0xe1619baa0374eee2u},
        {"shapemask", 0, 88960, 1493363480u, 0x93825e388cb97c33u},
        {"transformer", 0, 9353, 418103980u, 0xa129c3133b7ca456u},
        {"bert", 1, 1023, 269536820u, 0x4c8ef162f323241eu},
        {"dlrm", 1, 54, 183960u, 0xa7c0b68f480ebf83u},
        {"efficientnet", 1, 194, 10327800u, 0x0f9db440db22ee3cu},
        {"maskrcnn", 1, 37645, 642489820u, 0xd3b2f01b968bcdd3u},
        {"mnist", 1, 10, 1306200u, 0xdda4e498694f9495u},
        {"ncf", 1, 330, 4239130u, 0x59264c771ad0726cu},
        {"resnet50", 1, 169, 11002880u, 0x087f5f10226c52f7u},
        {"resnet-rs", 1, 42, 8409870u, 0x437deec0cbb41747u},
        {"shapemask", 1, 99455, 1669542840u, 0x416e65effca3e54cu},
        {"transformer", 1, 9353, 418103980u, 0xa129c3133b7ca456u},
    };
    v10_npu npu = isca23();
    v10_err err;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        v10_model m;
        assert_int_equal(v10_isca23_load_as(want[i].name,
                                            want[i].sa ? V10_CALIB_SA_WORK : V10_CALIB_SA_LAYERS,
                                            &npu, &m, &err), 0);
        uint64_t cycles = 0;
        for (size_t k = 0; k < m.n_ops; k++)
            cycles += m.ops[k].cycles;
        if (m.n_ops != want[i].n_ops || cycles != want[i].cycles ||
            fingerprint(&m) != want[i].fp)
            fail_msg("%s (sa %d): %zu operators, %llu cycles, fingerprint %016llx; expected "
                     "%zu, %llu, %016llx", want[i].name, want[i].sa, m.n_ops,
                     (unsigned long long)cycles, (unsigned long long)fingerprint(&m),
                     want[i].n_ops, (unsigned long long)want[i].cycles,
                     (unsigned long long)want[i].fp);
        assert_int_equal(m.cap_ops, m.n_ops); /* the cache's copy: no spare room */
        v10_model_fini(&m);
    }
}

/* v10_calibrate_take consumes its input (left empty) and gives what
 * v10_calibrate_with gives, which leaves its input as it was; a failing
 * profile leaves the taken model empty and nothing to free. */
static void test_take_consumes(void **state)
{
    (void)state;
    v10_npu npu = isca23();
    v10_err err;
    v10_profile p;
    uint32_t b;
    assert_int_equal(v10_isca23_profile("mnist", &p, &b, &err), 0);
    v10_model arch, copy, with, take;
    assert_int_equal(v10_model_load("mnist", &npu, &arch, &err), 0);
    assert_int_equal(v10_model_copy(&copy, &arch, &err), 0);
    uint64_t before = fingerprint(&arch);
    size_t n_arch = arch.n_ops;
    v10_calib_opts work = {.sa_ops = V10_CALIB_SA_WORK};
    assert_int_equal(v10_calibrate_with(&arch, &p, &npu, &work, &with, NULL, &err), 0);
    assert_int_equal(fingerprint(&arch), before);
    assert_int_equal(arch.n_ops, n_arch);
    assert_int_equal(v10_calibrate_take(&copy, &p, &npu, &work, &take, NULL, &err), 0);
    assert_null(copy.ops);
    assert_int_equal(copy.n_ops, 0);
    assert_int_equal(take.n_ops, with.n_ops);
    assert_int_equal(fingerprint(&take), fingerprint(&with));
    assert_int_equal(take.total_cycles, with.total_cycles);
    assert_string_equal(take.name, with.name);
    v10_model_fini(&with);
    v10_model_fini(&take);

    p.sa_op_us = 0.001; /* shorter than an operator: refused */
    assert_int_equal(v10_model_copy(&copy, &arch, &err), 0);
    assert_int_equal(v10_calibrate_take(&copy, &p, &npu, NULL, &take, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "shorter than one operator"));
    assert_null(copy.ops);
    assert_null(take.ops);
    assert_int_equal(take.n_ops, 0);
    v10_model_fini(&copy);
    v10_model_fini(&take);
    v10_model_fini(&arch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isca23_meets_profiles),
        cmocka_unit_test(test_isca23_batches),
        cmocka_unit_test(test_isca23_keeps_spread),
        cmocka_unit_test(test_added_lengths_from_tensors),
        cmocka_unit_test(test_sa_ops_work),
        cmocka_unit_test(test_len_stats_by_hand),
        cmocka_unit_test(test_structure_kept),
        cmocka_unit_test(test_added_work_is_named),
        cmocka_unit_test(test_trace_csv_spec),
        cmocka_unit_test(test_bad_profiles),
        cmocka_unit_test(test_bad_profile_file),
        cmocka_unit_test(test_same_operators_as_two_arrays),
        cmocka_unit_test(test_take_consumes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
