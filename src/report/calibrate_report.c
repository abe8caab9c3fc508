/*
 * calibrate_report.c — `calibrate`: target vs achieved for every figure of
 * a calibration (table, JSON or CSV), and the calibrated model as an
 * operator-trace CSV under its provenance (v10/model_report.h).
 */
#include <math.h>

#include "report/doc.h"
#include "v10/model_report.h"

/* One report row: a figure's profile value, target, achieved and the
 * uncalibrated model's value (NaN where not applicable). */
static void row(v10_tab *t, const char *figure, double profile, double target,
                double achieved, double before, double tol)
{
    v10_tab_row(t);
    v10_tab_str(t, figure);
    v10_tab_real(t, profile);
    v10_tab_real(t, target);
    v10_tab_real(t, achieved);
    v10_tab_real(t, before);
    v10_tab_str(t, isnan(target) || isnan(tol) ? "-"
                   : fabs(achieved - target) <= tol ? "yes" : "NO");
}

int v10_calibrate_trace_write(const v10_calib_run *r, const v10_model *cal, FILE *f,
                              v10_err *err)
{
    const v10_profile *p = r->profile;
    fprintf(f, "# calibrated by v10sim %s calibrate from model %s\n", V10_VERSION, r->spec);
    fprintf(f, "# profile row %s", p->row);
    if (p->batch)
        fprintf(f, " batch %u", p->batch);
    fprintf(f, " from");
    for (int i = 0; i < r->n_files; i++)
        fprintf(f, " %s", r->files[i]);
    fprintf(f, " with --sa-ops %s", v10_calib_sa_name(r->rep->sa_choice));
    fprintf(f, "\n# targets: sa_busy %.4g vu_busy %.4g hbm_util %.4g sa_op_us %.6g "
               "vu_op_us %.6g (nan: kept from the model)\n",
            p->sa_busy, p->vu_busy, p->hbm_util, p->sa_op_us, p->vu_op_us);
    if (v10_trace_csv_write(cal, r->npu, f))
        return v10_err_set(err, "%s: write failed", r->out ? r->out : "trace");
    return 0;
}

int v10_calibrate_report_write(const v10_calib_run *r, v10_format fmt, FILE *f, v10_err *err)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "figure", V10_COL_STR, 0);
    v10_tab_col(t, "profile", V10_COL_REAL, 4);
    v10_tab_col(t, "target", V10_COL_REAL, 4);
    v10_tab_col(t, "achieved", V10_COL_REAL, 4);
    v10_tab_col(t, "model", V10_COL_REAL, 4);
    v10_tab_col(t, "met", V10_COL_STR, 0);
    const v10_profile *prof = r->profile;
    const v10_calib_report *rep = r->rep;
    const v10_profile *tg = &rep->target, *a = &rep->achieved, *b = &rep->arch;
    /* Tolerances as docs/models.md states them for the isca23 set. */
    row(t, "sa_busy", prof->sa_busy, tg->sa_busy, a->sa_busy, b->sa_busy, 0.03);
    row(t, "vu_busy", prof->vu_busy, tg->vu_busy, a->vu_busy, b->vu_busy, 0.03);
    row(t, "hbm_util", prof->hbm_util, prof->hbm_util, a->hbm_util, b->hbm_util, 0.05);
    row(t, "sa_op_us", prof->sa_op_us, tg->sa_op_us, a->sa_op_us, b->sa_op_us,
        0.10 * tg->sa_op_us);
    row(t, "vu_op_us", prof->vu_op_us, tg->vu_op_us, a->vu_op_us, b->vu_op_us,
        0.10 * tg->vu_op_us);
    row(t, "flops_util", prof->flops_util, NAN, a->flops_util, b->flops_util, NAN);
    row(t, "sa_ops", NAN, NAN, (double)rep->sa_ops, (double)rep->arch_sa_ops, NAN);
    row(t, "vu_ops", NAN, NAN, (double)rep->vu_ops, (double)rep->arch_vu_ops, NAN);
    row(t, "added_vu_ops", NAN, NAN, (double)rep->added_vu_ops, 0, NAN);
    row(t, "added_vu_us", NAN, NAN, rep->added_vu_us, 0, NAN);
    row(t, "latency_us", NAN, NAN, r->cal_us, r->arch_us, NAN);
    int rc = v10_tab_status(t, err);
    if (!rc) {
        if (fmt == V10_FMT_TABLE)
            fprintf(f, "calibrate %s to profile %s on NPU %s, SA operators by %s%s%s\n\n",
                    r->spec, prof->row, r->npu->name, v10_calib_sa_name(r->rep->sa_choice),
                    r->out ? ": wrote " : " (no --out: report only)", r->out ? r->out : "");
        if (v10_tab_write(t, fmt, f))
            rc = v10_err_set(err, "cannot write the output");
    }
    v10_tab_destroy(t);
    return rc ? -1 : v10_doc_status(f, err);
}
