/* common.c — helpers shared by policies (see common.h). */
#include "policy/common.h"

int policy_lowest_score(const v10_engine *e, const int *cand, int n)
{
    int best = cand[0];
    double best_s = v10_engine_score(e, best);
    for (int i = 1; i < n; i++) {
        double s = v10_engine_score(e, cand[i]);
        if (s < best_s) {
            best_s = s;
            best = cand[i];
        }
    }
    return best;
}

int policy_round_robin(const int *cand, int n, int last)
{
    for (int i = 0; i < n; i++)
        if (cand[i] > last)
            return cand[i];
    return cand[0];
}

void policy_core_switch(v10_engine *e, uint64_t cycles)
{
    for (int f = 0; f < e->n_fus; f++) {
        if (e->fus[f].tenant >= 0)
            v10_engine_preempt(e, f, cycles);
        else if (e->fus[f].state == FU_FREE)
            v10_engine_hold(e, f, cycles);
    }
    v10_engine_count_switch(e);
}

uint64_t policy_slice_cycles(const v10_engine *e)
{
    uint64_t s = e->cfg->params.slice_cycles;
    return s ? s : e->npu->slice_cycles;
}

uint64_t policy_pmt_slice_cycles(const v10_engine *e)
{
    uint64_t s = v10_npu_us_to_cycles(e->npu, e->cfg->params.pmt_slice_us);
    return s ? s : 1;
}
