/*
 * energy.h — the engine's energy accounts (energy.c, docs/energy.md): what
 * each FU, the vector memory, the HBM and the rest of the core draw, and
 * which tenant it goes to.  Included by engine.h; the types here need
 * nothing of the engine's own.
 */
#ifndef V10_ENGINE_ENERGY_H
#define V10_ENGINE_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "engine/policy_api.h"

/* Cumulative joules from cycle 0 at one instant (a window edge); the
 * window's energy is the difference of two.  unit_j sums to the total,
 * and so do tenant_j with unattributed_j (eng_energy_check). */
typedef struct eng_energy_acc {
    double unit_j[V10_EN_UNITS][V10_EN_STATES];
    double static_j, dynamic_j;
    double tenant_j[V10_MAX_TENANTS];
    double unattributed_j;
} eng_energy_acc;

/*
 * The run's accounts, added to as FUs change state (eng_energy_leave),
 * never per event: the FUs' own cycle and work counters carry the rest.
 * Cycles of partitions (spatial) are weighed by their speed, the share of
 * a physical FU whose static power they draw.
 */
typedef struct eng_energy {
    double hz;                              /* clock */
    double static_w[V10_FU_TYPES];          /* per physical FU */
    double dynamic_w[V10_FU_TYPES];         /* per physical FU at full activity (every
                                               PE or lane busy each cycle) */
    double hbm_j_per_byte;
    double vmem_j_per_byte;                 /* the same bytes through the vector memory */
    double core_static_w;                   /* vmem, HBM, the rest, the scheduler */
    double wake_j;                          /* per wake-up */
    uint64_t pg_idle;                       /* gate after this many idle cycles; 0: never */
    uint32_t pg_wake;                       /* cycles to wake */
    int sched;                              /* V10's scheduler draws its power */
    double gated[V10_MAX_FUS];              /* cycles gated, of idle intervals left */
    double wakes[V10_MAX_FUS];
    double hold[V10_FU_TYPES];              /* switching cycles of no tenant (holds) */
    double switch_bytes;                    /* HBM bytes of whole-core task switches */
    double busy[V10_MAX_TENANTS][V10_FU_TYPES]; /* executing cycles of each tenant */
    double sw[V10_MAX_TENANTS][V10_FU_TYPES];   /* cycles switching its context */
    /* Traced runs: the power tracks, each unit's and last the core's (the
     * units' sum), each extending a record tr_start[k]..tr_end at tr_mw[k]
     * milliwatts; each unit's energy at tr_end. */
    uint64_t tr_start[V10_EN_UNITS + 1], tr_end;
    uint32_t tr_mw[V10_EN_UNITS + 1];
    double tr_j[V10_EN_UNITS];
} eng_energy;

/* The total of a reading: its units' states. */
static inline double eng_energy_total(const eng_energy_acc *a)
{
    double j = 0;
    for (int u = 0; u < V10_EN_UNITS; u++)
        for (int s = 0; s < V10_EN_STATES; s++)
            j += a->unit_j[u][s];
    return j;
}

/* Sets up the accounts from the NPU; `sched`: the policy has V10's
 * hardware scheduler. */
void eng_energy_init(v10_engine *e, int sched);
/* FU f leaves its state (fu.c, before its clocks move): adds the interval
 * to its tenant's account, or to the FU's gated cycles. */
void eng_energy_leave(v10_engine *e, int f);
/* Cycles an operator starting on FU f waits for it to wake up: 0 unless it
 * has been idle past the gating threshold. */
uint64_t eng_energy_wake_cycles(const v10_engine *e, int f);
/* Traced runs (record.c), at the end of each event: each unit's and the
 * core's mean power since the last event, into the trace as V10_TR_POWER
 * records (one per run of equal values of a track); flush: the last ones,
 * at the run's end. */
void eng_energy_trace(v10_engine *e);
void eng_energy_trace_flush(v10_engine *e);
/* The HBM bytes the operators have moved up to now (record.c's snapshots,
 * and the HBM's energy). */
double eng_hbm_bytes(const v10_engine *e);
/* The accounts at now (record.c, at the window's edges). */
void eng_energy_read(const v10_engine *e, eng_energy_acc *a);
/* --check: at the window's end (before the run settles), the units' states sum to the total, the
 * static and dynamic parts (reckoned from the core's power, not by state)
 * too, and the tenants' energy with the unattributed part too (check.c).
 * -1 with msg (cap bytes) saying what broke. */
int eng_energy_check(const v10_engine *e, char *msg, size_t cap);

#endif
