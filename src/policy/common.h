/*
 * common.h — small pieces several policies share, written against the
 * policy API (engine/policy_api.h) only.
 */
#ifndef V10_POLICY_COMMON_H
#define V10_POLICY_COMMON_H

#include <stddef.h>

#include "engine/policy_api.h"

/* A policy's parameter table in its ops: .V10P_PARAMS(table). */
#define V10P_PARAMS(table) param_defs = (table), .n_params = sizeof(table) / sizeof((table)[0])

/* The next candidate (tenant bits, not empty) after `last` in
 * round-robin order. */
int policy_round_robin(uint64_t cand, int last);

/* 1 if tenant t has a request to work on. */
static inline int policy_has_work(const v10_engine *e, int t)
{
    return v10p_state(e, t) != V10P_IDLE;
}

/* Whole-core context switch (PMT, PREMA): preempt the operator on every FU
 * that holds one (v10p_preempt: under the drain model the switch ends
 * `cycles` after now) and hold every free FU for `cycles`; counts one
 * context switch.  The switch saves the outgoing task's context and
 * restores the incoming one's, so a resumed operator pays no restore. */
void policy_core_switch(v10_engine *e, uint64_t cycles);

/* Whole-core ownership (FCFS, PMT, PREMA): the core belongs to one tenant
 * at a time.  pick_owner returns `owner` if it is among the candidates,
 * else -1 (the FU stays idle). */
int policy_pick_owner(int owner, uint64_t cand);

/* A may_run hook for a policy whose state begins with `int owner` (the
 * core's owner, -1 none): only the owner (or anyone, before there is one)
 * starts, and only once no other tenant's operator still holds an FU
 * (drains). */
uint64_t policy_owner_may_run(const v10_engine *e, const void *st, int f);

/* PMT's time slice, which PREMA reads as its quantum: one field, one
 * type, default and range, a name and a line of help per policy. */
#define POLICY_PMT_SLICE_PARAM(param_name, help_line)                                     \
    {.name = param_name, .key = "pmt_slice_us", .type = V10_PARAM_DOUBLE,                 \
     .offset = offsetof(v10_policy_params, pmt_slice_us), .def = 1000, .min = 0.01,       \
     .max = 1e9, .help = help_line}

/* The V10 preemption slice in effect (v10-full.slice_cycles, 0: the NPU's),
 * and PMT's and PREMA's quantum (pmt.slice_us) in cycles, at least 1. */
uint64_t policy_slice_cycles(const v10_engine *e);
uint64_t policy_pmt_slice_cycles(const v10_engine *e);

#endif
