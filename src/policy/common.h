/*
 * common.h — small pieces several policies share.
 */
#ifndef V10_POLICY_COMMON_H
#define V10_POLICY_COMMON_H

#include "engine/engine.h"

/* V10 Algorithm 1: the candidate with the lowest active_rate / priority
 * (ties: the lower tenant index). */
int policy_lowest_score(const v10_engine *e, const int *cand, int n);

/* The next candidate after `last` in round-robin order. */
int policy_round_robin(const int *cand, int n, int last);

/* 1 if tenant t has a request to work on. */
static inline int policy_has_work(const v10_engine *e, int t)
{
    return e->tenants[t].state != T_IDLE;
}

/* Whole-core context switch (PMT, PREMA): preempt the operator on every FU
 * that holds one (v10_engine_preempt: under the drain model the switch ends
 * `cycles` after now) and hold every free FU for `cycles`; counts one
 * context switch.  The switch saves the outgoing task's context and
 * restores the incoming one's, so a resumed operator pays no restore. */
void policy_core_switch(v10_engine *e, uint64_t cycles);

/* 1 if no FU holds an operator of a tenant other than t (whole-core
 * sharing: nobody starts while another tenant's operator drains).  Inline:
 * may_run calls it for every candidate at every dispatch. */
static inline int policy_core_clear_for(const v10_engine *e, int t)
{
    for (int f = 0; f < e->n_fus; f++)
        if (e->fus[f].tenant >= 0 && e->fus[f].tenant != t)
            return 0;
    return 1;
}

/* The V10 preemption slice in effect. */
uint64_t policy_slice_cycles(const v10_engine *e);
uint64_t policy_pmt_slice_cycles(const v10_engine *e);

#endif
