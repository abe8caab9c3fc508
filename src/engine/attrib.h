/*
 * attrib.h — attribution's calls between the engine's files (attrib.c,
 * docs/attribution.md): where each tenant's time goes, charged as FUs
 * change state (fu.c), as HBM rates change (rates.c) and at the end of
 * each event (engine.c), and read by --check (check.c) and the metrics.
 * Its state lives in the engine (engine.h: attr*, tally*, wait*).
 */
#ifndef V10_ENGINE_ATTRIB_H
#define V10_ENGINE_ATTRIB_H

#include "engine/engine.h"

/* Attribution (attrib.c, docs/attribution.md).  refresh: every tenant in
 * attr_dirty adds its time since a_since to its state and takes its state
 * now (call it at the end of an event, when FUs and tenants agree);
 * settle: every tenant adds its time up to now, keeping its state. */
void eng_attr_refresh(v10_engine *e);
void eng_attr_settle(v10_engine *e);
/* Before the first event: the rule that charges the tenants (tallies,
 * lazy waits or interval by interval: attr_tally, attr_lazy), and every
 * tenant's first state. */
void eng_attr_start(v10_engine *e);
/* With cfg->op_states: every tenant but an LLM server gets its per
 * operator counters (op_attr). */
int eng_attr_ops_alloc(v10_engine *e, const v10_model *models, v10_err *err);
/* The window opened this event: settle and take the *_base counters. */
void eng_attr_open_window(v10_engine *e);
/* Charges the partners' shares of the HBM losses since hbm_since: call
 * eng_attr_hbm before any rate or busy FU changes, which settles only when
 * the HBM is shared, time has passed and the shares are split interval by
 * interval (attr_hbm_split). */
void eng_attr_hbm_settle(v10_engine *e);
/* Charges busy FU u's HBM losses since slow_since at its slowdown, and a
 * partition's (speed < 1) at its full rate: call eng_attr_fu_hbm before its
 * slowdown changes or it leaves FU_BUSY. */
void eng_attr_fu_hbm_charge(v10_engine *e, fu *u);
/* Turns a row of state counters (or their growth over a window) from the
 * engine's convention (exec counting the hbm part too) into the states'. */
static inline void eng_attr_exec_net(double *row)
{
    row[V10_ATTR_EXEC] -= row[V10_ATTR_HBM] + row[V10_ATTR_PARTITION];
}
/* Whether state s is a part of the exec counter (hbm, partition). */
static inline int eng_attr_in_exec(size_t s)
{
    return s == V10_ATTR_HBM || s == V10_ATTR_PARTITION;
}
static inline void eng_attr_hbm(v10_engine *e)
{
    if (e->contended && e->now != e->hbm_since && e->attr_hbm_split)
        eng_attr_hbm_settle(e);
}
static inline void eng_attr_fu_hbm(v10_engine *e, fu *u)
{
    if (!e->attr_off && (u->slowdown > 0 || u->speed < 1.0))
        eng_attr_fu_hbm_charge(e, u);
}
/* The tallies' field of FU state s and type ty (tally_fus, attrib.c's
 * key): tenant i's bit is this times ENG_TALLY_TENANTS, plus i. */
static inline int eng_tally_fu_field(int s, int ty) { return s * V10_FU_TYPES + ty; }
/* tally_fus for the masks m by FU state and type (attr_fus's layout). */
static inline uint64_t eng_tally_fus_of(uint64_t m[][V10_FU_TYPES])
{
    uint64_t w = 0;
    for (int s = V10P_FU_BUSY; s <= V10P_FU_RESTORE; s++)
        for (int ty = 0; ty < V10_FU_TYPES; ty++)
            w |= m[s][ty] << eng_tally_fu_field(s, ty) * ENG_TALLY_TENANTS;
    return w;
}
/* Tenant `who` (none: -1) leaves (in = 0) or enters (in = 1) FU state s
 * on an FU of type ty (fu.c): attribution's masks of the FUs, attr_fus or
 * with tallies tally_fus.  A switching FU's switch_tenant is set before. */
static inline void eng_attr_fu_bit(v10_engine *e, v10p_fstate s, int ty, int who, int in)
{
    uint64_t bit, *m;
    if (e->attr_tally) {
        bit = (uint64_t)(who >= 0) << (eng_tally_fu_field((int)s, ty) * ENG_TALLY_TENANTS + who);
        m = &e->tally_fus;
    } else if (!e->attr_off) {
        bit = who >= 0 ? 1ull << who : 0;
        m = &e->attr_fus[s][ty];
    } else {
        return;
    }
    *m = in ? *m | bit : *m & ~bit;
}
/* The tenant whose context FU u switches in state s, SWITCH or RESTORE:
 * switch_tenant for a save (none: a hold), its tenant for a restore. */
static inline int eng_switch_tenant(const fu *u, v10p_fstate s)
{
    return s == V10P_FU_SWITCH ? u->switch_tenant : u->tenant;
}

#endif
