/*
 * linalg.c — the linear algebra of clustering-based collocation:
 * the symmetric eigen-decomposition (GSL's gsl_eigen_symmv behind the
 * project's v10_eig_sym) and standardization + PCA.  Small dense problems
 * (a few features, tens of points), so clarity wins over speed.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_eigen.h>

#include "v10/colloc.h"

/*
 * GSL's symmetric QR solver, then a canonical form: eigenpairs sorted by
 * eigenvalue, descending (a stable sort, so equal eigenvalues keep GSL's
 * order), and each eigenvector's sign fixed so that its largest-magnitude
 * component (the first one within 1e-12 of the largest) is positive.
 */
void v10_eig_sym(const double *A, size_t d, double *w, double *V)
{
    double a[V10_FEAT_MAX * V10_FEAT_MAX], val[V10_FEAT_MAX], vec[V10_FEAT_MAX * V10_FEAT_MAX];
    V10_ASSERT(d >= 1 && d <= V10_FEAT_MAX);
    memcpy(a, A, d * d * sizeof a[0]); /* gsl_eigen_symmv destroys its input */
    gsl_matrix_view am = gsl_matrix_view_array(a, d, d);
    gsl_vector_view wv = gsl_vector_view_array(val, d);
    gsl_matrix_view vm = gsl_matrix_view_array(vec, d, d);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(d);
    V10_ASSERT(ws); /* d <= 8: a few hundred bytes */
    int rc = gsl_eigen_symmv(&am.matrix, &wv.vector, &vm.matrix, ws);
    gsl_eigen_symmv_free(ws);
    V10_ASSERT(rc == 0); /* symmetric QR always converges */
    size_t order[V10_FEAT_MAX];
    for (size_t i = 0; i < d; i++)
        order[i] = i;
    for (size_t i = 1; i < d; i++) /* insertion sort, descending, stable */
        for (size_t j = i; j > 0 && val[order[j]] > val[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t j = 0; j < d; j++) {
        size_t c = order[j];
        w[j] = val[c];
        size_t big = 0;
        for (size_t i = 1; i < d; i++)
            if (fabs(vec[i * d + c]) > fabs(vec[big * d + c]) + 1e-12)
                big = i;
        double sign = vec[big * d + c] < 0 ? -1 : 1;
        for (size_t i = 0; i < d; i++)
            V[i * d + j] = sign * vec[i * d + c];
    }
}

void v10_pca_fit(v10_pca *p, const double *X, size_t n, size_t d, double keep_frac)
{
    V10_ASSERT(n >= 1 && d >= 1 && d <= V10_FEAT_MAX);
    memset(p, 0, sizeof *p);
    p->d = d;
    for (size_t j = 0; j < d; j++) {
        double m = 0, s = 0;
        for (size_t i = 0; i < n; i++)
            m += X[i * d + j];
        m /= (double)n;
        for (size_t i = 0; i < n; i++)
            s += (X[i * d + j] - m) * (X[i * d + j] - m);
        s = sqrt(s / (double)n);
        p->mean[j] = m;
        p->sd[j] = s > 1e-12 * (fabs(m) + 1) ? s : 0;
    }
    double cov[V10_FEAT_MAX * V10_FEAT_MAX] = {0}, z[V10_FEAT_MAX];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++)
            z[j] = p->sd[j] > 0 ? (X[i * d + j] - p->mean[j]) / p->sd[j] : 0;
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                cov[a * d + b] += z[a] * z[b] / (double)n;
    }
    double w[V10_FEAT_MAX], V[V10_FEAT_MAX * V10_FEAT_MAX];
    v10_eig_sym(cov, d, w, V);
    double tot = 0;
    for (size_t j = 0; j < d; j++) {
        p->var[j] = w[j] > 0 ? w[j] : 0;
        tot += p->var[j];
        for (size_t i = 0; i < d; i++)
            p->axis[j][i] = V[i * d + j];
    }
    size_t kmin = d < 2 ? d : 2, k = 0;
    double acc = 0;
    while (k < d && (k < kmin || (tot > 0 && acc < keep_frac * tot - 1e-12)))
        acc += p->var[k++];
    p->k = k;
    p->explained = tot > 0 ? acc / tot : 1;
}

void v10_pca_project(const v10_pca *p, const double *x, double *out)
{
    for (size_t j = 0; j < p->k; j++) {
        double s = 0;
        for (size_t i = 0; i < p->d; i++)
            if (p->sd[i] > 0)
                s += p->axis[j][i] * (x[i] - p->mean[i]) / p->sd[i];
        out[j] = s;
    }
}

