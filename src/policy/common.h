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

/* Whole-core context switch (PMT, PREMA): stop every busy FU at its next
 * tile boundary and hold every FU for `cycles`; counts one context switch. */
void policy_core_switch(v10_engine *e, uint64_t cycles);

/* The V10 preemption slice in effect. */
uint64_t policy_slice_cycles(const v10_engine *e);
uint64_t policy_pmt_slice_cycles(const v10_engine *e);

#endif
