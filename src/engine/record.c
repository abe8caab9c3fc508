/*
 * record.c — what a run records as it goes: the trace (when
 * v10_run_config.trace is set) and the snapshots of cumulative counters
 * that bound the measurement window.  The loop (engine.c) and the FUs
 * (fu.c) both record; this file calls neither.
 */
#include "engine/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- trace ------------------------------------------------------------------- */

void eng_trace_record(v10_trace *tr, v10_trace_kind k, uint64_t start, uint64_t end, int f,
                      int t, uint32_t op)
{
    if (tr->oom)
        return;
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 4096;
        v10_trace_rec *r = realloc(tr->recs, cap * sizeof *r);
        if (!r) {
            tr->oom = 1;
            return;
        }
        tr->recs = r;
        tr->cap = cap;
    }
    tr->recs[tr->n++] = (v10_trace_rec){start, end, f, t, op, (uint8_t)k};
}

/* The core's power (energy.c) as V10_TR_POWER records: the mean since the
 * last event, one record for each run of equal values. */
void eng_energy_trace_flush(v10_engine *e)
{
    eng_energy *en = &e->en;
    if (en->tr_end > en->tr_start)
        eng_trace_record(e->trace, V10_TR_POWER, en->tr_start, en->tr_end, -1, -1, en->tr_mw);
    en->tr_start = en->tr_end;
}

void eng_energy_trace(v10_engine *e)
{
    eng_energy *en = &e->en;
    if (e->now == en->tr_end)
        return;
    eng_energy_acc a;
    eng_energy_read(e, &a);
    double j = eng_energy_total(&a);
    double w = (j - en->tr_j) / ((double)(e->now - en->tr_end) / en->hz);
    uint32_t mw = (uint32_t)fmin(fmax(round(w * 1e3), 0), (double)UINT32_MAX);
    if (mw != en->tr_mw)
        eng_energy_trace_flush(e);
    en->tr_mw = mw;
    en->tr_end = e->now;
    en->tr_j = j;
}

/* ---- measurement window ------------------------------------------------------ */

void eng_snapshot(const v10_engine *e, v10_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->time = e->now;
    s->overlap = (double)e->overlap_cycles;
    s->hbm_bytes = e->hbm_bytes_moved;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        double exec = (double)eng_fu_exec_cycles(e, u) * u->speed;
        double macs = u->macs;
        if (u->state == V10P_FU_BUSY) {
            const tenant *t = &e->tenants[u->tenant];
            macs += t->macs[t->op] * (u->seg_rem0 - eng_rem_now(e, u)) / (double)t->work[t->op];
        }
        s->busy[u->type] += exec;
        s->macs += macs;
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        if (t->llm) { /* whole requests (metrics.c reports servers from their own stats) */
            s->progress[i] = (double)eng_done_count(t);
            continue;
        }
        double part = t->req_done_work; /* includes earlier segments of this op */
        if (t->state == V10P_RUNNING && e->fus[t->fu].state == V10P_FU_BUSY)
            part += e->fus[t->fu].seg_rem0 - eng_rem_now(e, &e->fus[t->fu]);
        s->progress[i] = (double)t->completed + part / (double)t->req_work;
    }
    eng_energy_read(e, &s->energy);
}

/* The window opens once every tenant has completed its warm-up requests;
 * it closes when the run ends (every tenant has reached its count). */
void eng_check_window(v10_engine *e)
{
    if (e->window_started)
        return;
    for (int i = 0; i < e->n_tenants; i++)
        if (eng_done_count(&e->tenants[i]) < e->cfg->warmup)
            return;
    eng_snapshot(e, &e->win[0]);
    e->window_started = 1;
}

void v10_trace_fini(v10_trace *t)
{
    free(t->recs);
    memset(t, 0, sizeof *t);
}
