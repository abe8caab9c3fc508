/*
 * energy.c — energy from the run itself (docs/energy.md): every FU draws
 * its static power while powered and, per operation it does, its dynamic
 * energy (an executing FU for its operator's full-activity cycles, a
 * switching one for every cycle), the vector memory, the HBM and the rest
 * of the core their static power throughout, the HBM and the vector memory
 * their energy per byte moved.  Added up at FU state changes and read at
 * the window's edges, never per event; the FUs' own cycle, work and
 * activity counters carry most of it.
 */
#include "engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *v10_energy_unit_name(v10_energy_unit u)
{
    static const char *const names[V10_EN_UNITS] = {"sa", "vu", "vmem", "hbm", "other"};
    return (unsigned)u < V10_EN_UNITS ? names[u] : "?";
}

const char *v10_energy_state_name(v10_energy_state s)
{
    static const char *const names[V10_EN_STATES] = {"exec", "switch", "idle", "gated"};
    return (unsigned)s < V10_EN_STATES ? names[s] : "?";
}

void eng_energy_init(v10_engine *e, int sched)
{
    const v10_npu *n = e->npu;
    eng_energy *en = &e->en;
    memset(en, 0, sizeof *en);
    en->hz = n->clock_mhz * 1e6;
    en->static_w[V10_FU_SA] = n->sa_static_w;
    en->static_w[V10_FU_VU] = n->vu_static_w;
    en->dynamic_w[V10_FU_SA] = v10_npu_sa_dynamic_w(n);
    en->dynamic_w[V10_FU_VU] = v10_npu_vu_dynamic_w(n);
    en->hbm_j_per_byte = n->hbm_w_per_gbps * 1e-9; /* W per GB/s = nJ per byte */
    /* Each byte an operator moves from HBM passes through the vector
     * memory on its way to or from the FU (ours, docs/energy.md). */
    en->vmem_j_per_byte = n->vmem_pj_per_byte * 1e-12;
    en->sched = sched;
    en->core_static_w =
        n->vmem_static_w + n->hbm_static_w + n->other_static_w + (sched ? n->sched_w : 0);
    en->wake_j = n->pg_wake_nj * 1e-9;
    en->pg_idle = n->pg_idle_cycles;
    en->pg_wake = n->pg_wake_cycles;
}

/* Cycles FU u has been gated in its current idle interval of `in` cycles
 * (SAs and VUs only: a link engine is never gated). */
static uint64_t gated_now(const eng_energy *en, const fu *u, uint64_t in)
{
    return u->state == V10P_FU_FREE && en->pg_idle && in > en->pg_idle && u->type != V10_FU_ICI
               ? in - en->pg_idle
               : 0;
}

void eng_energy_leave(v10_engine *e, int f)
{
    eng_energy *en = &e->en;
    const fu *u = &e->fus[f];
    uint64_t in = e->now - u->since;
    double dt = (double)in * u->speed;
    int ty = (int)u->type;
    switch (u->state) {
    case V10P_FU_BUSY: eng_energy_leave_busy(e, u); break;
    case V10P_FU_RESTORE: en->sw[u->tenant][ty] += dt; break;
    case V10P_FU_SWITCH:
        if (u->switch_tenant >= 0)
            en->sw[u->switch_tenant][ty] += dt;
        else
            en->hold[ty] += dt;
        break;
    case V10P_FU_FREE: {
        uint64_t g = gated_now(en, u, in);
        if (g) {
            en->gated[f] += (double)g;
            en->wakes[f] += 1;
        }
        break;
    }
    }
}

uint64_t eng_energy_wake_cycles(const v10_engine *e, int f)
{
    const fu *u = &e->fus[f];
    return gated_now(&e->en, u, e->now - u->since) ? e->en.pg_wake : 0;
}

/* FU f's counters up to now: executing, switching and gated cycles,
 * full-activity cycles executed, and of the current interval its cycles
 * and (executing) its work and activity. */
typedef struct fu_now {
    double exec, sw, gated, act, in, in_work, in_act;
} fu_now;

static void read_fu(const v10_engine *e, int f, fu_now *r)
{
    const fu *u = &e->fus[f];
    uint64_t in = e->now - u->since;
    *r = (fu_now){(double)u->exec_cycles, (double)u->switch_cycles, e->en.gated[f], u->act,
                  (double)in, 0, 0};
    if (u->state == V10P_FU_BUSY) {
        r->exec += r->in;
        r->in_work = eng_follower(u) ? 0 : eng_seg_work(e, u);
        r->in_act = r->in_work * u->act_per_work;
        r->act += r->in_act;
    } else if (u->state != V10P_FU_FREE) {
        r->sw += r->in;
    } else {
        r->gated += (double)gated_now(&e->en, u, in);
    }
}

/* The bytes moved are those of the work executed (an operator draws HBM
 * at bytes_per_work times its rate): what each tenant's credited work moved
 * (eng_credit) and what each operator executing has moved since its
 * segment began. */
double eng_hbm_bytes(const v10_engine *e)
{
    double b = 0;
    for (int i = 0; i < e->n_tenants; i++)
        b += e->tenants[i].en_bytes;
    for (int k = 0; k < e->n_busy; k++) {
        const fu *u = &e->fus[e->busy[k]];
        if (!eng_follower(u))
            b += u->bytes_per_work * eng_seg_work(e, u);
    }
    return b;
}

void eng_energy_read(const v10_engine *e, eng_energy_acc *a)
{
    const eng_energy *en = &e->en;
    memset(a, 0, sizeof *a);
    double hz = en->hz, now = (double)e->now, frac = e->npu->pg_gated_frac;
    double jb = en->hbm_j_per_byte, jv = en->vmem_j_per_byte;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        int ty = (int)u->type;
        /* The link engine draws nothing of its own: the ICI's static power
         * is in other_static_w, its links' dynamic energy not modelled
         * (docs/llm.md, "Several chips"). */
        if (ty == V10_FU_ICI)
            continue;
        double s = u->speed, ps = en->static_w[ty] * s / hz, pd = en->dynamic_w[ty] / hz;
        fu_now c;
        read_fu(e, f, &c);
        double idle = now - c.exec - c.sw - c.gated, wake = en->wakes[f] * en->wake_j;
        double *row = a->unit_j[ty];
        row[V10_EN_EXEC] += ps * c.exec + pd * c.act;
        row[V10_EN_SWITCH] += (ps + pd * s) * c.sw;
        row[V10_EN_IDLE] += ps * idle;
        row[V10_EN_GATED] += ps * frac * c.gated + wake;
        a->static_j += ps * (c.exec + c.sw + idle + frac * c.gated);
        a->dynamic_j += pd * (c.act + s * c.sw) + wake;
        a->unattributed_j += ps * (idle + frac * c.gated) + wake;
        /* The current interval, which the tenants' accounts get as it ends. */
        if (u->state == V10P_FU_BUSY) {
            a->tenant_j[u->tenant] +=
                ps * c.in + pd * c.in_act + (jb + jv) * u->bytes_per_work * c.in_work;
        } else if (u->state != V10P_FU_FREE) {
            int who = u->state == V10P_FU_RESTORE ? u->tenant : u->switch_tenant;
            double x = (ps + pd * s) * c.in;
            if (who >= 0)
                a->tenant_j[who] += x;
            else
                a->unattributed_j += x;
        }
    }
    for (int i = 0; i < e->n_tenants; i++) {
        const tenant *t = &e->tenants[i];
        for (int ty = 0; ty < V10_FU_TYPES; ty++) {
            double ps = en->static_w[ty] / hz, pd = en->dynamic_w[ty] / hz;
            a->tenant_j[i] += ps * en->busy[i][ty] + pd * t->en_act[ty] +
                              (ps + pd) * en->sw[i][ty];
        }
        a->tenant_j[i] += (jb + jv) * t->en_bytes;
    }
    for (int ty = 0; ty < V10_FU_TYPES; ty++)
        a->unattributed_j += (en->static_w[ty] + en->dynamic_w[ty]) / hz * en->hold[ty];
    double bytes = eng_hbm_bytes(e);
    double hbm_ops = jb * bytes, hbm_sw = jb * en->switch_bytes;
    double vmem_ops = jv * bytes, vmem_sw = jv * en->switch_bytes;
    const v10_npu *n = e->npu;
    double chips = e->n_chips; /* every chip simulated: each draws its own */
    double vmem = n->vmem_static_w * now / hz * chips, hbm = n->hbm_static_w * now / hz * chips;
    double other = (n->other_static_w + (en->sched ? n->sched_w : 0)) * now / hz * chips;
    a->unit_j[V10_EN_HBM][V10_EN_EXEC] += hbm_ops;
    a->unit_j[V10_EN_HBM][V10_EN_SWITCH] += hbm_sw;
    a->unit_j[V10_EN_VMEM][V10_EN_EXEC] += vmem_ops;
    a->unit_j[V10_EN_VMEM][V10_EN_SWITCH] += vmem_sw;
    a->unit_j[V10_EN_VMEM][V10_EN_IDLE] += vmem;
    a->unit_j[V10_EN_HBM][V10_EN_IDLE] += hbm;
    a->unit_j[V10_EN_OTHER][V10_EN_IDLE] += other;
    a->static_j += vmem + hbm + other;
    a->dynamic_j += hbm_ops + hbm_sw + vmem_ops + vmem_sw;
    a->unattributed_j += vmem + hbm + other + hbm_sw + vmem_sw;
}

int eng_energy_check(const v10_engine *e, char *msg, size_t cap)
{
    const eng_energy_acc *a = &e->win[1].energy;
    const eng_energy *en = &e->en;
    double units = eng_energy_total(a), tenants = a->unattributed_j;
    for (int i = 0; i < e->n_tenants; i++)
        tenants += a->tenant_j[i];
    /* Static energy from the core's static power over the whole run, less
     * what gating saved; no state split involved. */
    double now = (double)e->now, st = en->core_static_w * now * e->n_chips;
    for (int f = 0; f < e->n_fus; f++) {
        const fu *u = &e->fus[f];
        fu_now c;
        read_fu(e, f, &c);
        double ps = en->static_w[u->type] * u->speed;
        st += ps * (now - (1 - e->npu->pg_gated_frac) * c.gated);
        if (c.exec + c.sw + c.gated > now + 1e-6) {
            snprintf(msg, cap, "energy: FU %d executed, switched and was gated %.0f + %.0f + "
                               "%.0f cycles of a %.0f-cycle run", f, c.exec, c.sw, c.gated, now);
            return -1;
        }
    }
    st /= en->hz;
    double tol = 1e-9 * units + 1e-15;
    if (fabs(units - a->static_j - a->dynamic_j) > tol || fabs(st - a->static_j) > tol) {
        snprintf(msg, cap, "energy: units and states sum to %.9g J, static + dynamic to %.9g + "
                           "%.9g J, the core's static power to %.9g J",
                 units, a->static_j, a->dynamic_j, st);
        return -1;
    }
    /* The HBM's bytes and the tenants' are the same work's (eng_hbm_bytes),
     * added up in another order. */
    if (fabs(tenants - units) > tol) {
        snprintf(msg, cap, "energy: tenants and the unattributed part sum to %.9g J, the "
                           "units to %.9g J", tenants, units);
        return -1;
    }
    return 0;
}
