/*
 * test_cluster.c — the numerical core of collocation: the eigen-solver
 * against known spectra, PCA on data with a known principal axis, k-means
 * on separated blobs, determinism for a seed, and the leave-two-out
 * evaluation on synthetic profiles whose ground truth clustering can learn.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "colloc/span.h"
#include "util/rng.h"
#include "v10/colloc.h"
#include "v10/cost.h"

static void test_eig_known(void **state)
{
    (void)state;
    /* [[2,1],[1,2]]: eigenvalues 3 and 1, vectors (1,1)/sqrt2 and (1,-1)/sqrt2. */
    double A[4] = {2, 1, 1, 2}, w[2], V[4];
    v10_eig_sym(A, 2, w, V);
    assert_true(fabs(w[0] - 3) < 1e-12 && fabs(w[1] - 1) < 1e-12);
    assert_true(fabs(V[0] - sqrt(0.5)) < 1e-12 && fabs(V[2] - sqrt(0.5)) < 1e-12);
    /* A random symmetric 6x6: A V = V diag(w), V orthonormal, trace preserved. */
    uint64_t rng = 7;
    double B[36], W[6], U[36];
    for (int i = 0; i < 6; i++)
        for (int j = i; j < 6; j++)
            B[i * 6 + j] = B[j * 6 + i] = v10_rng_unit(&rng) * 2 - 1;
    v10_eig_sym(B, 6, W, U);
    double tr = 0, tw = 0;
    for (int i = 0; i < 6; i++) {
        tr += B[i * 6 + i];
        tw += W[i];
        if (i)
            assert_true(W[i] <= W[i - 1] + 1e-12);
    }
    assert_true(fabs(tr - tw) < 1e-10);
    for (int c = 0; c < 6; c++)
        for (int r = 0; r < 6; r++) {
            double av = 0;
            for (int k = 0; k < 6; k++)
                av += B[r * 6 + k] * U[k * 6 + c];
            assert_true(fabs(av - W[c] * U[r * 6 + c]) < 1e-9);
        }
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            double d = 0;
            for (int k = 0; k < 6; k++)
                d += U[k * 6 + a] * U[k * 6 + b];
            assert_true(fabs(d - (a == b)) < 1e-9);
        }
}

static void test_pca_axis(void **state)
{
    (void)state;
    /* Points along (1, 1, 0) with independent noise in z. */
    double X[40 * 3];
    uint64_t rng = 3;
    for (int i = 0; i < 40; i++) {
        double t = i - 20;
        X[i * 3 + 0] = t;
        X[i * 3 + 1] = 5 + t;
        X[i * 3 + 2] = 0.01 * (v10_rng_unit(&rng) - 0.5);
    }
    v10_pca p;
    v10_pca_fit(&p, X, 40, 3, 0.6);
    assert_true(p.k >= 2); /* at least two components are always kept */
    /* x and y standardize to the same column: the first axis weighs them
     * equally and carries at least their shared variance of 2 (of 3). */
    assert_true(fabs(p.axis[0][0] - p.axis[0][1]) < 1e-9);
    assert_true(p.axis[0][0] > 0.5);
    assert_true(p.var[0] >= 2 - 1e-9);
    assert_true(fabs(p.var[0] + p.var[1] + p.var[2] - 3) < 1e-9);
    double y[V10_FEAT_MAX];
    v10_pca_project(&p, &X[0], y);
    assert_true(y[0] < 0);
    /* A constant column contributes nothing and does not produce NaN. */
    for (int i = 0; i < 40; i++)
        X[i * 3 + 2] = 4;
    v10_pca_fit(&p, X, 40, 3, 0.9);
    v10_pca_project(&p, &X[3], y);
    assert_true(isfinite(y[0]) && isfinite(y[1]));
    assert_true(p.sd[2] == 0);
}

static void test_kmeans_blobs(void **state)
{
    (void)state;
    /* Three well-separated blobs of 7 points. */
    double X[21 * 2];
    uint64_t rng = 11;
    const double cx[3] = {0, 10, 0}, cy[3] = {0, 0, 10};
    for (int i = 0; i < 21; i++) {
        X[i * 2] = cx[i % 3] + v10_rng_unit(&rng) - 0.5;
        X[i * 2 + 1] = cy[i % 3] + v10_rng_unit(&rng) - 0.5;
    }
    int a[21], b[21];
    v10_kmeans km, km2;
    v10_kmeans_fit(&km, X, 21, 2, 3, 42, 5, a);
    assert_int_equal(km.k, 3);
    for (int i = 3; i < 21; i++)
        assert_int_equal(a[i], a[i % 3]);
    assert_true(a[0] != a[1] && a[1] != a[2] && a[0] != a[2]);
    assert_true(km.inertia < 21 * 0.5);
    /* Same seed, same answer; k is clamped to n. */
    v10_kmeans_fit(&km2, X, 21, 2, 3, 42, 5, b);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_equal(&km, &km2, sizeof km);
    v10_kmeans_fit(&km2, X, 2, 2, 5, 1, 1, b);
    assert_int_equal(km2.k, 2);
    assert_true(b[0] != b[1]);
    assert_int_equal(v10_kmeans_nearest(&km, &X[2 * 4]), (size_t)a[4]);
}

/* Synthetic profiles: half SA-heavy, half VU-heavy; a pair gains 1.6 when
 * it mixes the two kinds and 1.05 otherwise. */
static void synth(v10_profile *p, double *gain, size_t n)
{
    memset(p, 0, n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        int sa = i % 2 == 0;
        double j = 0.01 * (double)i;
        p[i].util_sa = sa ? 0.8 + j : 0.2 + j;
        p[i].util_vu = sa ? 0.15 + j : 0.7 - j;
        p[i].util_hbm = 0.3 + j;
        p[i].op_mean_cycles[V10_FU_SA] = sa ? 5000 : 800;
        p[i].op_min_cycles[V10_FU_SA] = 100 + 10 * (double)i;
        p[i].op_max_cycles[V10_FU_SA] = sa ? 60000 : 9000;
        p[i].op_mean_cycles[V10_FU_VU] = sa ? 300 : 900;
        p[i].op_min_cycles[V10_FU_VU] = 50 + 5 * (double)i;
        p[i].op_max_cycles[V10_FU_VU] = sa ? 2000 : 8000;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            gain[a * n + b] = a == b ? 0 : (a % 2 != b % 2) ? 1.6 : 1.05;
}

static void test_colloc_learns(void **state)
{
    (void)state;
    v10_profile p[10];
    double gain[100];
    synth(p, gain, 10);
    v10_colloc_opts o;
    v10_colloc_opts_default(&o);
    o.k = 3;
    v10_colloc_result r, r2;
    v10_err err;
    assert_int_equal(v10_colloc_evaluate(p, 10, gain, &o, &r, &err), 0);
    assert_int_equal(r.n_pairs, 45);
    assert_int_equal(r.n_beneficial, 25);
    assert_true(r.acc_cluster >= 0.95);
    assert_true(r.acc_heuristic >= 0.95); /* the heuristic's own assumption holds here */
    const v10_confusion *c = &r.cm_cluster;
    assert_int_equal(c->tp + c->fp + c->tn + c->fn, 45);
    assert_true(r.acc_random_mean > 0.4 && r.acc_random_mean < 0.6);
    /* Deterministic for a seed. */
    assert_int_equal(v10_colloc_evaluate(p, 10, gain, &o, &r2, &err), 0);
    assert_memory_equal(r.pairs, r2.pairs, r.n_pairs * sizeof *r.pairs);
    assert_memory_equal(r.cluster, r2.cluster, sizeof r.cluster);
    assert_true(r.acc_random == r2.acc_random);
    v10_colloc_result_fini(&r2);
    /* Too few models is an error, not a crash. */
    assert_int_equal(v10_colloc_evaluate(p, 3, gain, &o, &r2, &err), -1);
    assert_non_null(strstr(err.msg, "4 to 64"));
    v10_colloc_result_fini(&r);
}

/* Per-unit length statistics of a hand-built operator list, and where
 * they land in the feature vector. */
static void test_op_lengths(void **state)
{
    (void)state;
    v10_op ops[5];
    memset(ops, 0, sizeof ops);
    const v10_fu_type fu[5] = {V10_FU_SA, V10_FU_VU, V10_FU_SA, V10_FU_VU, V10_FU_SA};
    const uint64_t cyc[5] = {1000, 10, 100000, 30, 2000};
    for (int i = 0; i < 5; i++) {
        ops[i].fu = fu[i];
        ops[i].cycles = cyc[i];
    }
    v10_profile p;
    memset(&p, 0, sizeof p);
    p.util_sa = 0.7;
    v10_profile_op_lengths(ops, 5, &p);
    assert_int_equal(p.n_unit_ops[V10_FU_SA], 3);
    assert_int_equal(p.n_unit_ops[V10_FU_VU], 2);
    assert_true(p.op_mean_cycles[V10_FU_SA] == 103000.0 / 3);
    assert_true(p.op_min_cycles[V10_FU_SA] == 1000 && p.op_max_cycles[V10_FU_SA] == 100000);
    assert_true(p.op_mean_cycles[V10_FU_VU] == 20);
    assert_true(p.op_min_cycles[V10_FU_VU] == 10 && p.op_max_cycles[V10_FU_VU] == 30);
    double f[V10_PROFILE_FEATS];
    v10_profile_features(&p, f);
    assert_true(f[0] == 0.7);
    assert_true(fabs(f[4] - 3) < 1e-12 && fabs(f[5] - 5) < 1e-12);  /* SA min, max */
    assert_true(fabs(f[7] - 1) < 1e-12 && fabs(f[6] - log10(20)) < 1e-12); /* VU min, mean */
    assert_string_equal(v10_profile_feature_names[8], "log10_vu_op_max");
    /* A unit without operators: zero lengths, feature log10 1 = 0. */
    v10_profile_op_lengths(ops, 1, &p);
    assert_int_equal(p.n_unit_ops[V10_FU_VU], 0);
    assert_true(p.op_min_cycles[V10_FU_VU] == 0 && p.op_max_cycles[V10_FU_VU] == 0);
    v10_profile_features(&p, f);
    assert_true(f[6] == 0 && f[7] == 0 && f[8] == 0);
}

/*
 * The three figures on a hand-built set whose predictions are known.
 * Models 0-2 (X) are SA-bound with long SA operators, 3-5 (Y) mixed; both
 * kinds are SA-heavy, so the heuristic never predicts a gain.  X+Y gains
 * 1.5, Y+Y 1.2, X+X 1.0 / 0.9 / 1.1 (pairs 0+1 / 0+2 / 1+2).  With k = 2
 * the training models always split into X and Y, so leaving out:
 *  - an X and a Y: cluster pair (X, Y) scores 1.5 -> beneficial, right (9);
 *  - two Ys: (Y, Y) has no training pair and takes the mean training gain
 *    (3 x 1.0 avg + 3 x 1.5) / 6 = 1.25 -> not beneficial, right (3);
 *  - two Xs: likewise (3 x 1.5 + 3 x 1.2) / 6 = 1.35 -> beneficial, wrong (3).
 * Clustering: 12 of 15 right, 3 of the 6 bad pairs caught, worst pick 0+2
 * (0.9).  Heuristic: 6 right, all 6 bad pairs caught, no pick.
 */
static void test_colloc_figures(void **state)
{
    (void)state;
    v10_profile p[6];
    double gain[36] = {0};
    memset(p, 0, sizeof p);
    for (int i = 0; i < 6; i++) {
        int x = i < 3;
        double j = 0.001 * i;
        p[i].util_sa = (x ? 0.9 : 0.55) + j;
        p[i].util_vu = (x ? 0.1 : 0.45) - j;
        p[i].util_hbm = (x ? 0.2 : 0.4) + j;
        p[i].op_mean_cycles[V10_FU_SA] = x ? 10000 : 2000;
        p[i].op_min_cycles[V10_FU_SA] = x ? 1000 : 200;
        p[i].op_max_cycles[V10_FU_SA] = x ? 100000 : 8000;
        p[i].op_mean_cycles[V10_FU_VU] = x ? 100 : 1000;
        p[i].op_min_cycles[V10_FU_VU] = x ? 10 : 100;
        p[i].op_max_cycles[V10_FU_VU] = x ? 1000 : 9000;
        for (int k = 0; k < 6; k++)
            if (k != i)
                gain[i * 6 + k] = (i < 3) != (k < 3) ? 1.5 : i >= 3 ? 1.2 : 0;
    }
    gain[0 * 6 + 1] = gain[1 * 6 + 0] = 1.0;
    gain[0 * 6 + 2] = gain[2 * 6 + 0] = 0.9;
    gain[1 * 6 + 2] = gain[2 * 6 + 1] = 1.1;
    v10_colloc_opts o;
    v10_colloc_opts_default(&o);
    o.k = 2;
    v10_colloc_result r;
    v10_err err;
    assert_int_equal(v10_colloc_evaluate(p, 6, gain, &o, &r, &err), 0);
    assert_int_equal(r.n_pairs, 15);
    assert_int_equal(r.n_beneficial, 9);
    assert_int_equal(r.n_bad, 6);
    const v10_colloc_figures *c = &r.fig[V10_COLLOC_CLUSTER];
    assert_int_equal(r.cm_cluster.tp, 9);
    assert_int_equal(r.cm_cluster.fp, 3);
    assert_int_equal(r.cm_cluster.tn, 3);
    assert_int_equal(r.cm_cluster.fn, 0);
    assert_true(fabs(c->accuracy - 0.8) < 1e-12);
    assert_true(fabs(c->bad_caught - 0.5) < 1e-12);
    assert_true(c->worst_gain == 0.9);
    assert_int_equal(c->worst_pair, 1); /* pairs in (a, b) order: 0+1, 0+2, ... */
    assert_int_equal(r.pairs[1].a, 0);
    assert_int_equal(r.pairs[1].b, 2);
    assert_int_equal(c->picked, 12);
    assert_true(fabs(r.pairs[0].score - 1.35) < 1e-12);
    assert_int_equal(r.pairs[0].score_pairs, 0);  /* X+X: no training X+X pair */
    assert_int_equal(r.pairs[3].score_pairs, 4);  /* 0+4, X+Y: 2 x 2 training pairs */
    assert_int_equal(r.cluster_fallback, 6);      /* the X+X and Y+Y pairs */
    assert_int_equal(r.cluster_fallback_wrong, 3);/* the X+X ones */
    const v10_colloc_figures *h = &r.fig[V10_COLLOC_HEURISTIC];
    assert_true(fabs(h->accuracy - 0.4) < 1e-12);
    assert_true(h->bad_caught == 1);
    assert_true(isnan(h->worst_gain));
    assert_int_equal(h->worst_pair, 15);
    assert_int_equal(h->picked, 0);
    /* Random: the figures agree with its own predictions. */
    const v10_colloc_figures *q = &r.fig[V10_COLLOC_RANDOM];
    unsigned right = 0, caught = 0, picked = 0;
    double worst = INFINITY;
    for (size_t i = 0; i < r.n_pairs; i++) {
        const v10_colloc_pair *pp = &r.pairs[i];
        right += pp->pred_random == pp->truth;
        caught += !pp->pred_random && !pp->truth;
        picked += (unsigned)pp->pred_random;
        if (pp->pred_random)
            worst = fmin(worst, pp->gain);
    }
    assert_true(fabs(q->accuracy - right / 15.0) < 1e-12);
    assert_true(fabs(q->bad_caught - caught / 6.0) < 1e-12);
    assert_int_equal(q->picked, picked);
    assert_true(picked ? q->worst_gain == worst : isnan(q->worst_gain));
    v10_colloc_result_fini(&r);
}

static void test_pair_bound(void **state)
{
    (void)state;
    v10_profile a = {.util_sa = 0.9, .util_vu = 0.1}, b = {.util_sa = 0.1, .util_vu = 0.9};
    assert_true(fabs(v10_profile_pair_bound(&a, &b) - 2) < 1e-12);
    assert_true(fabs(v10_profile_pair_bound(&a, &a) - 2 / 1.8) < 1e-12);
}

static void test_rng(void **state)
{
    (void)state;
    uint64_t s1 = 5, s2 = 5;
    for (int i = 0; i < 100; i++) {
        double u = v10_rng_unit(&s1);
        assert_true(u >= 0 && u < 1);
        assert_true(u == v10_rng_unit(&s2));
    }
}

/* Both generators against their reference implementations' outputs
 * (splitmix64 from state 0; xoshiro256** from state {1, 2, 3, 4}), and the
 * xoshiro seeding as four splitmix64 draws: the engine's arrival streams
 * and every clustering draw depend on these exact bits. */
static void test_rng_reference(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_true(v10_rng_next(&s) == 0xe220a8397b1dcdafull);
    uint64_t x[4] = {1, 2, 3, 4};
    assert_true(v10_xoshiro_next(x) == 0x2d00ull);
    assert_true(v10_xoshiro_next(x) == 0x0ull);
    assert_true(v10_xoshiro_next(x) == 0x5a007080ull);
    uint64_t y[4], seed = 42, z = 42;
    v10_xoshiro_seed(y, seed);
    for (int k = 0; k < 4; k++)
        assert_true(y[k] == v10_rng_next(&z));
    double u = v10_xoshiro_unit(y);
    assert_true(u >= 0 && u < 1);
}

/* Run spans: a run of short models gets enough requests to span
 * min_cycles; a run with a long model keeps the base count. */
static void test_span(void **state)
{
    (void)state;
    v10_npu npu;
    v10_err err;
    assert_int_equal(v10_npu_preset("v10-isca23", &npu, &err), 0);
    v10_span g;
    v10_span_init(&g, &npu);
    assert_true(g.min_cycles > 0);
    v10_tenant_spec ts[2];
    assert_int_equal(v10_tenant_spec_parse("tests/data/engine/long_sa.csv", &ts[0], &err), 0);
    assert_int_equal(v10_tenant_spec_parse("tests/data/engine/sa_vu.csv", &ts[1], &err), 0);
    v10_model m;
    assert_int_equal(v10_model_load(ts[1].model, &npu, &m, &err), 0);
    double len = (double)v10_model_cycles(&m);
    v10_model_fini(&m);
    assert_int_equal(v10_model_load(ts[0].model, &npu, &m, &err), 0);
    double len0 = (double)v10_model_cycles(&m);
    v10_model_fini(&m);
    /* Short model alone: raised to ceil(min_cycles / len). */
    uint64_t r = v10_span_requests(&g, &ts[1], 1, 3, &err);
    assert_int_equal(r, (uint64_t)ceil(g.min_cycles / len));
    assert_true((double)r * len >= g.min_cycles);
    /* With the longer model, the longer one sets the span. */
    uint64_t r2 = v10_span_requests(&g, ts, 2, 3, &err);
    assert_int_equal(r2, 3.0 * len0 >= g.min_cycles ? 3 : (uint64_t)ceil(g.min_cycles / len0));
    assert_true(r2 <= r);
    /* A large base is kept. */
    assert_int_equal(v10_span_requests(&g, &ts[1], 1, 1000000000, &err), 1000000000);
    /* An unloadable model is an error (0). */
    v10_tenant_spec bad;
    assert_int_equal(v10_tenant_spec_parse("tests/data/engine/nope.csv", &bad, &err), 0);
    assert_int_equal(v10_span_requests(&g, &bad, 1, 3, &err), 0);
    v10_span_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eig_known),     cmocka_unit_test(test_pca_axis),
        cmocka_unit_test(test_kmeans_blobs),  cmocka_unit_test(test_colloc_learns),
        cmocka_unit_test(test_op_lengths),    cmocka_unit_test(test_colloc_figures),
        cmocka_unit_test(test_pair_bound),    cmocka_unit_test(test_rng),
        cmocka_unit_test(test_rng_reference), cmocka_unit_test(test_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
