/*
 * rates.c — contention for HBM bandwidth (docs/architecture.md).  A running
 * operator demands HBM bandwidth at bytes/work per standalone cycle; when
 * demands exceed the HBM, bandwidth is shared max-min fairly and each
 * operator's rate (standalone cycles of progress per cycle) falls in
 * proportion to the bandwidth it is granted.
 */
#include "engine/engine.h"

#include <math.h>

/*
 * Recomputes every running operator's rate: max-min fair shares of the HBM
 * bandwidth over the operators' demands (water-filling), or full rate with
 * contention off; then moves each busy FU's event to its new stop time.
 */
void eng_update_rates(v10_engine *e)
{
    const int *idx = e->busy, n = e->n_busy;
    double rate[V10_MAX_FUS];
    double total = 0;
    for (int i = 0; i < n; i++)
        total += e->fus[idx[i]].demand;
    if (!e->cfg->contention || total <= e->hbm_bytes_per_cycle) {
        for (int i = 0; i < n; i++) {
            rate[i] = e->fus[idx[i]].full_rate;
            e->fus[idx[i]].alloc = e->fus[idx[i]].demand;
        }
    } else {
        /* Max-min fair shares of the bandwidth (water-filling). */
        double left = e->hbm_bytes_per_cycle;
        int unsat = n;
        for (int i = 0; i < n; i++)
            e->fus[idx[i]].alloc = -1;
        while (unsat > 0) {
            double share = left / unsat;
            int progressed = 0;
            for (int i = 0; i < n; i++) {
                fu *u = &e->fus[idx[i]];
                if (u->alloc < 0 && u->demand <= share) {
                    u->alloc = u->demand;
                    left -= u->demand;
                    unsat--;
                    progressed = 1;
                }
            }
            if (!progressed) {
                for (int i = 0; i < n; i++)
                    if (e->fus[idx[i]].alloc < 0)
                        e->fus[idx[i]].alloc = share;
                break;
            }
        }
        for (int i = 0; i < n; i++) {
            const fu *u = &e->fus[idx[i]];
            double r = u->demand > 0 ? u->full_rate * (u->alloc / u->demand) : u->full_rate;
            rate[i] = r > u->full_rate ? u->full_rate : r;
        }
    }
    /* Only operators whose rate changed (or that just started) move. */
    for (int i = 0; i < n; i++) {
        fu *u = &e->fus[idx[i]];
        if (v10_heap_scheduled(&e->heap, idx[i]) && rate[i] == u->rate)
            continue;
        eng_sync_fu(e, u);
        u->rate = rate[i];
        v10_heap_set(&e->heap, idx[i], e->now + eng_time_to_stop(e, u));
    }
    e->rates_dirty = 0;
}

