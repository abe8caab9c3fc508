/*
 * record.c — what a run records as it goes: the trace (when
 * v10_run_config.trace is set) and the snapshots of cumulative counters
 * that bound the measurement window.  The loop (engine.c) and the FUs
 * (fu.c) both record; this file calls neither.
 */
#include "engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* ---- trace ------------------------------------------------------------------- */

v10_trace_rec *eng_trace_record(v10_trace *tr, v10_trace_kind k, uint64_t start, uint64_t end,
                                int f, int t, uint32_t op)
{
    if (tr->oom)
        return NULL;
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 4096;
        v10_trace_rec *r = realloc(tr->recs, cap * sizeof *r);
        if (!r) {
            tr->oom = 1;
            return NULL;
        }
        tr->recs = r;
        tr->cap = cap;
    }
    v10_trace_rec *x = &tr->recs[tr->n++];
    *x = (v10_trace_rec){.start = start, .end = end, .fu = f, .tenant = t, .op = op,
                         .kind = (uint8_t)k, .unit = -1};
    return x;
}

/* The id of `name` in tr->names, added if new; UINT32_MAX when out of
 * memory (tr->oom is set). */
static uint32_t intern(v10_trace *tr, const char *name)
{
    if (2 * (tr->n_names + 1) > tr->n_slots) { /* grow both, re-index */
        size_t ns = tr->n_slots ? 2 * tr->n_slots : 256;
        uint32_t *slot = calloc(ns, sizeof *slot);
        char(*names)[V10_OPNAME_MAX] = realloc(tr->names, ns / 2 * sizeof *names);
        if (names)
            tr->names = names;
        if (!slot || !names) {
            free(slot);
            tr->oom = 1;
            return UINT32_MAX;
        }
        for (size_t id = 0; id < tr->n_names; id++) {
            size_t i = v10_hash_str(tr->names[id]) & (ns - 1);
            while (slot[i])
                i = (i + 1) & (ns - 1);
            slot[i] = (uint32_t)id + 1;
        }
        free(tr->slot);
        tr->slot = slot;
        tr->n_slots = ns;
    }
    size_t i = v10_hash_str(name) & (tr->n_slots - 1);
    for (; tr->slot[i]; i = (i + 1) & (tr->n_slots - 1))
        if (!strcmp(tr->names[tr->slot[i] - 1], name))
            return tr->slot[i] - 1;
    snprintf(tr->names[tr->n_names], sizeof *tr->names, "%s", name);
    tr->slot[i] = (uint32_t)++tr->n_names;
    return tr->slot[i] - 1;
}

void eng_trace_op_record(v10_engine *e, uint64_t start, uint64_t end, int f, int ti)
{
    const tenant *t = &e->tenants[ti];
    uint32_t name = 0;
    if (t->llm && (name = intern(e->trace, t->llm->stream.model.ops[t->op].name)) == UINT32_MAX)
        return;
    v10_trace_rec *x = eng_trace_record(e->trace, V10_TR_OP, start, end, f, ti, (uint32_t)t->op);
    if (t->llm && x)
        x->name = name + 1;
}

/* The core's power (energy.c) as V10_TR_POWER records, one track per
 * unit (unit = its v10_energy_unit) and the core's (unit = -1), whose
 * milliwatts are the units' sum, so that the tracks add up exactly: the
 * mean since the last event, a record for each run of equal values. */
static void power_flush(v10_engine *e, int k)
{
    eng_energy *en = &e->en;
    v10_trace_rec *x = en->tr_end > en->tr_start[k]
                           ? eng_trace_record(e->trace, V10_TR_POWER, en->tr_start[k],
                                              en->tr_end, -1, -1, en->tr_mw[k])
                           : NULL;
    if (x)
        x->unit = (int8_t)(k < V10_EN_UNITS ? k : -1);
    en->tr_start[k] = en->tr_end;
}

void eng_energy_trace_flush(v10_engine *e)
{
    for (int k = 0; k <= V10_EN_UNITS; k++)
        power_flush(e, k);
}

void eng_energy_trace(v10_engine *e)
{
    eng_energy *en = &e->en;
    if (e->now == en->tr_end)
        return;
    eng_energy_acc a;
    eng_energy_read(e, &a);
    double s = (double)(e->now - en->tr_end) / en->hz;
    uint32_t mw[V10_EN_UNITS + 1] = {0};
    for (int u = 0; u < V10_EN_UNITS; u++) {
        double j = 0;
        for (int st = 0; st < V10_EN_STATES; st++)
            j += a.unit_j[u][st];
        /* Clamped so that the sum fits the record (4.3 MW: never reached). */
        mw[u] = (uint32_t)fmin(fmax(round((j - en->tr_j[u]) / s * 1e3), 0),
                               (double)(UINT32_MAX / V10_EN_UNITS));
        mw[V10_EN_UNITS] += mw[u];
        en->tr_j[u] = j;
    }
    for (int k = 0; k <= V10_EN_UNITS; k++)
        if (mw[k] != en->tr_mw[k]) {
            power_flush(e, k);
            en->tr_mw[k] = mw[k];
        }
    en->tr_end = e->now;
}

/* ---- measurement window ------------------------------------------------------ */

void eng_snapshot(const v10_engine *e, v10_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->time = e->now;
    s->overlap = (double)e->overlap_cycles;
    s->hbm_bytes = eng_hbm_bytes(e);
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        double exec = (double)eng_fu_exec_cycles(e, u) * u->speed;
        double macs = u->macs;
        if (u->state == V10P_FU_BUSY && !eng_follower(u)) {
            const tenant *t = &e->tenants[u->tenant];
            macs += t->macs[t->op] * eng_seg_work(e, u) / (double)t->work[t->op];
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
            part += eng_seg_work(e, &e->fus[t->fu]);
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
    e->window_started = e->alert = 1;
}

void v10_trace_fini(v10_trace *t)
{
    free(t->recs);
    free(t->names);
    free(t->slot);
    memset(t, 0, sizeof *t);
}
