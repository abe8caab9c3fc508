/*
 * gemm.c — compute cycles of one GEMM on a systolic array with ideal memory
 * (docs/architecture.md, src/hw/): SCALE-Sim v2's per-fold timing, and a TPU-style variant
 * whose weight loads overlap the previous fold's stream.
 */
#include "v10/cost.h"

#include "util/checked.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/*
 * The (M x K)(K x N) GEMM mapped onto an R x C array (R = rows, C = cols).
 * Each dataflow pins one operand in the PEs; a "fold" is one mapping of a
 * tile of it.  `stream` is the length of the dimension streamed past the
 * pinned tile, `preload` the cycles to load the pinned tile (0 for OS,
 * whose stationary operand is the output accumulator), and `fill_drain`
 * the pipeline skew paid once per fold.  Derived from SCALE-Sim v2's
 * systolic_compute_{ws,os,is}.py: the per-fold demand matrix there has
 *
 *   WS: Sr=K, Sc=N, T=M; ifmap fold = R (weight-load prefix) + M + (C-1)
 *       (drain suffix), skewed over R columns (+R-1)   -> M + 2R + C - 2
 *   OS: Sr=M, Sc=N, T=K; ifmap fold = K + (C-1) (drain suffix), skewed over
 *       R columns (+R-1)                               -> K + R + C - 2
 *   IS: Sr=K, Sc=M, T=N; filter fold = R (ifmap-load prefix) + N + (C-1),
 *       skewed over R columns (+R-1)                   -> N + 2R + C - 2
 *
 * with folds = ceil(Sr/R) * ceil(Sc/C), no fold overlap and the array's
 * full R and C paid even when a fold uses fewer PEs (as SCALE-Sim does).
 */
typedef struct gemm_map {
    uint64_t folds;
    uint64_t stream;     /* cycles a fold streams operands, = T */
    uint64_t preload;    /* cycles to load the stationary tile */
    uint64_t fill_drain; /* R + C - 2: skew in and out of the array */
} gemm_map;

static int map_gemm(uint64_t M, uint64_t N, uint64_t K, uint64_t R, uint64_t C,
                    v10_dataflow df, gemm_map *g)
{
    uint64_t sr, sc;
    switch (df) {
    case V10_DF_OS:
        sr = M, sc = N, g->stream = K, g->preload = 0;
        break;
    case V10_DF_IS:
        sr = K, sc = M, g->stream = N, g->preload = R;
        break;
    case V10_DF_WS:
    default:
        sr = K, sc = N, g->stream = M, g->preload = R;
        break;
    }
    g->fill_drain = R + C - 2; /* R, C <= UINT32_MAX: cannot overflow */
    return v10_mul_u64(ceil_div(sr, R), ceil_div(sc, C), &g->folds);
}

/*
 * v10_cost_gemm_cycles — compute cycles of an (M x K)(K x N) GEMM on a
 * rows x cols array with ideal memory; the number of folds goes to *folds
 * (if non-NULL).
 *
 * V10_SA_SCALESIM: folds x (stream + preload + fill_drain), see map_gemm.
 *   This is a cycle COUNT.  SCALE-Sim v2 reports as total_cycles the 0-based
 *   index of the last cycle, i.e. this value minus 1 (checked on every layer
 *   of its ResNet-50 and NCF runs, WS 128x128, and its alexnet_part
 *   regression, WS 32x32: 112284 - 1 = 112283).
 *
 * V10_SA_TPU (double-buffered stationary operand, as a TPU MXU loads the
 *   next weights while the current ones stream):
 *     preload                      first tile's load, exposed
 *   + (folds-1) x max(stream, preload)  the next load hides under a stream
 *                                  no shorter than it
 *   + stream                       last fold: nothing left to load
 *   + fill_drain                   the pipeline drains once
 *   For WS that is R + (f-1) max(M, R) + M + R + C - 2, for IS the same
 *   with N for M; OS has no preload, so only the per-fold drain is
 *   overlapped: folds x K + R + C - 2.  Never more than the SCALE-Sim
 *   figure, equal for a single fold of WS/IS.
 *
 * Contract: callers validate their dimensions.  M, N, K, rows and cols must
 * all be >= 1; UINT64_MAX is not a cycle count but a sentinel meaning "zero
 * dimension or the result does not fit in 64 bits", which the caller must
 * turn into an error (never use it as a saturated value).
 */
uint64_t v10_cost_gemm_cycles(uint64_t M, uint64_t N, uint64_t K, uint32_t rows,
                              uint32_t cols, v10_dataflow df, v10_sa_mode mode,
                              uint64_t *folds)
{
    gemm_map g;
    uint64_t cycles, t;
    if (folds)
        *folds = 0;
    if (!M || !N || !K || !rows || !cols)
        return UINT64_MAX;
    if (map_gemm(M, N, K, rows, cols, df, &g))
        return UINT64_MAX;
    if (mode == V10_SA_SCALESIM) {
        uint64_t per;
        if (v10_add_u64(g.stream, g.preload, &per) || v10_add_u64(per, g.fill_drain, &per) ||
            v10_mul_u64(g.folds, per, &cycles))
            return UINT64_MAX;
    } else {
        uint64_t step = g.stream > g.preload ? g.stream : g.preload;
        if (v10_mul_u64(g.folds - 1, step, &t) || v10_add_u64(t, g.preload, &cycles) ||
            v10_add_u64(cycles, g.stream, &cycles) || v10_add_u64(cycles, g.fill_drain, &cycles))
            return UINT64_MAX;
    }
    if (cycles == UINT64_MAX) /* reserved for the sentinel */
        return UINT64_MAX;
    if (folds)
        *folds = g.folds;
    return cycles;
}

uint64_t v10_cost_gemm_batch_cycles(uint64_t count, uint64_t M, uint64_t N, uint64_t K,
                                    uint32_t rows, uint32_t cols, v10_dataflow df,
                                    v10_sa_mode mode, uint64_t *folds)
{
    uint64_t one = v10_cost_gemm_cycles(M, N, K, rows, cols, df, mode, folds), all, t;
    if (one == UINT64_MAX || !count)
        return UINT64_MAX;
    if (mode == V10_SA_SCALESIM || count == 1)
        return v10_mul_u64(one, count, &all) || all == UINT64_MAX ? UINT64_MAX : all;
    /* The products' folds in one sequence: one more product adds
     * folds x max(stream, preload), the step between two folds. */
    gemm_map g;
    if (map_gemm(M, N, K, rows, cols, df, &g))
        return UINT64_MAX;
    uint64_t step = g.stream > g.preload ? g.stream : g.preload;
    if (v10_mul_u64(count - 1, g.folds, &t) || v10_mul_u64(t, step, &t) ||
        v10_add_u64(one, t, &all) || all == UINT64_MAX)
        return UINT64_MAX;
    return all;
}
