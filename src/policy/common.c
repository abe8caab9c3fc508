/* common.c — helpers shared by policies (see common.h). */
#include "policy/common.h"

int policy_round_robin(uint64_t cand, int last)
{
    uint64_t after = last < 0 ? cand : last >= 63 ? 0 : cand & ~0ull << (last + 1);
    return __builtin_ctzll(after ? after : cand);
}

void policy_core_switch(v10_engine *e, uint64_t cycles)
{
    for (int f = 0; f < v10p_n_fus(e); f++) {
        if (v10p_fu_tenant(e, f) >= 0)
            v10p_preempt(e, f, cycles);
        else if (v10p_fu_state(e, f) == V10P_FU_FREE)
            v10p_hold(e, f, cycles);
    }
    v10p_count_switch(e);
    /* The task switch saves the outgoing task's state to HBM and restores
     * the incoming one's: it moves bytes at the HBM's bandwidth for its
     * whole length (our reading of the paper's 20-40 µs, docs/energy.md). */
    v10p_move_context(e, (double)cycles * v10_npu_hbm_bytes_per_cycle(v10p_npu(e)));
}

int policy_pick_owner(int owner, uint64_t cand)
{
    return owner >= 0 && cand >> owner & 1 ? owner : -1;
}

uint64_t policy_owner_may_run(const v10_engine *e, const void *st, int f)
{
    (void)f;
    int owner = *(const int *)st;
    uint64_t clear = v10p_core_clear_mask(e);
    return owner < 0 ? clear : clear & 1ull << owner;
}

uint64_t policy_slice_cycles(const v10_engine *e)
{
    uint64_t s = v10p_params(e)->slice_cycles;
    return s ? s : v10p_npu(e)->slice_cycles;
}

uint64_t policy_pmt_slice_cycles(const v10_engine *e)
{
    uint64_t s = v10_npu_us_to_cycles(v10p_npu(e), v10p_params(e)->pmt_slice_us);
    return s ? s : 1;
}
