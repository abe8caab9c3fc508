/*
 * npu.c — NPU presets and their JSON overrides (docs/formats.md §1).
 *
 * The table of fields below drives both JSON parsing and printing, so a
 * field added to v10_npu is added here once.
 */
#include "v10/npu.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/checked.h"
#include "util/config.h"
#include "util/file.h"
#include "util/json.h"
#include "util/names.h"
#include "util/num.h"
#include "util/text.h"

/* The fitted global constants of the paper's core (see isca23 below). */
#define V10_FIT_ISSUE_CYCLES 1
#define V10_FIT_VU_ISSUE_CYCLES 2121
#define V10_FIT_XLU_CYCLES 1
#define V10_FIT_DMA_ROW_CYCLES 48

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)

/*
 * The paper's core (V10, ISCA 2023, §6 "Experimental setup", Table 2):
 * one 128x128 bf16 systolic array, one vector unit of 8x128 lanes with two
 * FP32 ops per lane per cycle, 32 MiB vector memory, 330 GB/s HBM, 700 MHz,
 * a 32768-cycle preemption time slice and a 384-cycle SA context switch.
 */
static const v10_npu isca23 = {
    .name = "v10-isca23",
    .sa_count = 1,
    .sa_rows = 128,
    .sa_cols = 128,
    .sa_dataflow = V10_DF_WS,
    .sa_prefetch_weights = 1,
    .vu_count = 1,
    .vu_lanes = 8 * 128,
    .vu_ops_per_lane = 2,
    /* The TPUv2 core's vector unit (Norrie et al., "The Design Process for
     * Google's Training Chips: TPUv2 and TPUv3", IEEE Micro 41(2), 2021,
     * and their Hot Chips 32 talk): 128 lanes of 8 sublanes, so a vector
     * register is 8 x 128 32-bit words and tensors are laid out in 8 x 128
     * tiles; its 322-bit VLIW bundle has one vector-load and one
     * vector-store slot beside the two vector-ALU slots. */
    .vu_sublanes = 8,
    .vu_load_vregs = 1,
    .vu_store_vregs = 1,
    /* Global constants fitted to the measured solo profiles (the model x
     * batch rows at batches 1, 32 and 512 of data/tpu-profiles; no
     * constant names a model): `v10sim validate --fit` reruns the fit
     * and docs/models.md reports fitted and held-out errors apart. */
    .vu_xlu_cycles = V10_FIT_XLU_CYCLES,
    .dma_row_cycles = V10_FIT_DMA_ROW_CYCLES,
    /* Our choice: a VU chunk of 1024 cycles is the VU preemption point. */
    .vu_tile_cycles = 1024,
    .vmem_bytes = 32 * MiB,
    .hbm_gbps = 330.0,
    /* 32 GB of HBM (the paper's Table 5); HBM stacks come in binary sizes,
     * so GB there means GiB, as in the TPU papers' tables. */
    .hbm_capacity_bytes = 32 * GiB,
    .clock_mhz = 700.0,
    /* Fitted as above: issue, the first DMA's latency and the pipeline's
     * fill and drain, per operator. */
    .issue_cycles = V10_FIT_ISSUE_CYCLES,
    .vu_issue_cycles = V10_FIT_VU_ISSUE_CYCLES,
    /* A matmul whose left operand fits the sublanes of one vector register
     * (at most 8 rows) runs on the vector unit as multiplies and adds down
     * the sublanes, as XLA's dot strength reduction does for one row (a
     * vector times a matrix); docs/models.md shows the effect of 1. */
    .vu_dot_rows = 8,
    .slice_cycles = 32768,
    /* The paper's reading of its Fig. 13 (V10, ISCA 2023, §4): one SA
     * switch "costs 384 cycles in total", the 128 cycles of preemption (the
     * partial sums draining out of the 128-row array, still computing)
     * overlapping the reinitialization, so 256 of the 384 are lost.  The
     * other reading (overlap 0: the 384 cycles lost after the drain) is a
     * JSON override; docs/repro.md shows both. */
    .sa_switch_cycles = 384,
    .sa_switch_overlap_cycles = 128,
    /* The TPU VU's register file: 32 vector registers of 8x128 x 32 bit
     * (Norrie et al., IEEE Micro 41(2), 2021).  The VU switch cost follows
     * from it (v10_npu_vu_switch_cycles): 66 cycles. */
    .vu_registers = 32,
    /* The paper puts PMT's task switch at 20-40 µs; we take the middle. */
    .pmt_switch_us = 30.0,
    /* One chip: no link engine, no collectives (the ICI's static power is
     * in other_static_w below). */
    .chips = 1,
    .ici_links = 0,
    .ici_gbps = 0,
    .ici_latency_us = 0,
    .ici_topology = V10_ICI_RING,
    /*
     * Power: one core's half of a TPUv2 chip (two TensorCores of one MXU,
     * 700 MHz, as the paper's core) in NeuSim's chip configuration
     * (platformxlab/NeuSim, configs/chips/tpuv2.json: per SA 2.12 W static
     * and 22.555 W dynamic at full activity; per VU 0.741/2.122 W, four per
     * chip, so two per core, which our one VU of 2 ops per lane stands for;
     * vector memory 12.935/22.214 W over 2 ports; HBM controller 1.908 +
     * PHY 2.862 W, ICI 6.36 W and the rest 21.73 W static, halved; HBM 65
     * GB/s per W, i.e. 0.01538 W per GB/s; chip idle 53 W and TDP 280 W,
     * halved).  The static parts sum to the idle figure, as in NeuSim.
     * Dynamic energy per operation as NeuSim's power model charges it
     * (neusim/npusim/backend/power_model.py: a unit's dynamic power times
     * its busy time times its FLOP utilization, i.e. per operation): an SA's
     * watts over its 128 x 128 MACs a cycle, a VU's over its 8 x 128 ALUs
     * (one op each a cycle, NeuSim's compute_peak_vu_flops), the vector
     * memory's over its bandwidth (NeuSim's ChipConfig.vmem_bw_GBps: 8 x 128
     * x 4 bytes a cycle per port).  NeuSim publishes no measured maximum
     * for TPUv2 (its min_power_W is a placeholder), so these are its
     * figures as they are.
     */
    .sa_static_w = 2.12,
    /* 22.55530667 W / (128 x 128 MACs x 0.7 GHz) = 1.966666666957310 pJ,
     * given to 15 digits: cJSON prints a double to 15 digits when they are
     * within an epsilon of it, so a run's settings read back the same NPU. */
    .sa_pj_per_mac = 1.96666666695731,
    .vu_static_w = 2 * 0.74127482825,
    .vu_pj_per_op = 2.121728 / (8 * 128 * 0.7e9) * 1e12,
    .vmem_static_w = 12.93490069 / 2,
    .vmem_pj_per_byte = 22.2144 / (2 * 0.7e9 * 8 * 128 * 4) * 1e12,
    .hbm_static_w = (1.908 + 2.862) / 2,
    .hbm_w_per_gbps = 1.0 / 65,
    .other_static_w = (21.73 + 6.36) / 2,
    /* V10 (ISCA 2023), Table 3: the operator scheduler draws about 0.3% of
     * a TPUv3 core's power; we take 0.3% of this core's TDP. */
    .sched_w = 0.003 * 280.0 / 2,
    .idle_w = 53.0 / 2,
    .tdp_w = 280.0 / 2,
    .max_w = 0,
    /* Power gating off.  When on (pg_idle_cycles > 0): NeuSim's "HW"/"Full"
     * gating (neusim/configs/power_gating/PowerGatingConfig.py) leaves 3%
     * of an SA's or VU's static power and wakes an SA in 10 cycles; the
     * wake-up energy is ours (docs/energy.md). */
    .pg_idle_cycles = 0,
    .pg_wake_cycles = 10,
    .pg_wake_nj = 10.0,
    .pg_gated_frac = 0.03,
};

typedef struct preset {
    const char *name;
    void (*make)(v10_npu *n);
} preset;

static void mk_isca23(v10_npu *n) { *n = isca23; }

/* The scalability study (docs/repro.md): k SAs and k VUs, HBM bandwidth scaled with
 * them; the HBM capacity stays the paper's. */
static void scale(v10_npu *n, uint32_t k, const char *name)
{
    *n = isca23;
    snprintf(n->name, sizeof n->name, "%s", name);
    n->sa_count = k;
    n->vu_count = k;
    n->hbm_gbps = isca23.hbm_gbps * k;
    /* Power: per-unit figures stay; the HBM's static power scales with its
     * bandwidth (more stacks); idle and TDP grow by what the extra SAs, VUs
     * and HBM add (ours, docs/energy.md). */
    double k1 = k - 1;
    n->hbm_static_w = isca23.hbm_static_w * k;
    n->idle_w = isca23.idle_w +
                k1 * (isca23.sa_static_w + isca23.vu_static_w + isca23.hbm_static_w);
    n->tdp_w = isca23.tdp_w + k1 * (isca23.sa_static_w + v10_npu_sa_dynamic_w(&isca23) +
                                    isca23.vu_static_w + v10_npu_vu_dynamic_w(&isca23) +
                                    isca23.hbm_static_w + isca23.hbm_w_per_gbps * isca23.hbm_gbps);
}
static void mk_2x(v10_npu *n) { scale(n, 2, "v10-isca23-2x"); }
static void mk_4x(v10_npu *n) { scale(n, 4, "v10-isca23-4x"); }
static void mk_8x(v10_npu *n) { scale(n, 8, "v10-isca23-8x"); }

/*
 * A chip's power in NeuSim's chip configurations (platformxlab/NeuSim,
 * configs/chips/tpuvN.json), watts: per SA and per VU static and dynamic at
 * full activity, the VUs on the chip, the vector memory's static and
 * dynamic and its ports, the HBM controller's and PHY's static, the ICI's
 * and the rest's static, idle (the sum of the static parts) and TDP; the
 * chip's SA size and clock, HBM and ICI bandwidth and dynamic W per GB/s;
 * and the measured maximum (0 where none is published).
 */
typedef struct neusim_chip {
    double sa_static, sa_dynamic, vu_static, vu_dynamic, vus;
    double vmem_static, vmem_dynamic, vmem_ports, hbm_static, ici_static, other_static, idle, tdp;
    double sas, sa_dim, ghz, hbm_gbps, hbm_w_per_gbps, ici_gbps, ici_w_per_gbps, max;
} neusim_chip;

/*
 * One core of a two-core chip c (share 2, docs/energy.md), or a whole chip
 * (share 1): per-SA figures as they are; NeuSim's VUs do one op per lane
 * per cycle, ours two, so our VUs stand for the chip's (vus / share /
 * vu_count each); the rest divided by the share (the ICI's static power
 * with the rest's); idle NeuSim's figure, or where its file gives none (0)
 * the static parts' sum, which is what NeuSim's ChipConfig.idle_power_W
 * computes; the scheduler
 * 0.3% of the core's TDP (V10, ISCA 2023, Table 3).  Dynamic energy per
 * operation as for v10-isca23: the SA's watts over dim^2 MACs a cycle, a
 * VU's over 8 x 128 ops, the vector memory's over its ports' 8 x 128 x 4
 * bytes a cycle, HBM per byte.  Where a measured maximum is published,
 * every unit at full activity at once (the chip's SAs, VUs, vector memory,
 * HBM and ICI at full bandwidth) draws the maximum less idle, the rule by
 * which NeuSim's TPUv3 figures are made (84 + 180.3 = 264 W against a
 * measured 262 W); NeuSim's TPUv4 figures sum to 90 + 192.2 = 282 W, near
 * its 300 W TDP, so the energies are scaled by (max - idle) / 192.2 there,
 * keeping NeuSim's split between the units.
 */
static void neusim_part(v10_npu *n, const neusim_chip *c, double share)
{
    double vus = c->vus / share / n->vu_count, hz = c->ghz * 1e9;
    double full = c->sas * c->sa_dynamic + c->vus * c->vu_dynamic + c->vmem_dynamic +
                  c->hbm_gbps * c->hbm_w_per_gbps + c->ici_gbps * c->ici_w_per_gbps;
    double idle = c->idle > 0 ? c->idle
                              : c->sas * c->sa_static + c->vus * c->vu_static + c->vmem_static +
                                    c->hbm_static + c->ici_static + c->other_static;
    double scale = c->max > 0 ? (c->max - idle) / full : 1;
    n->sa_static_w = c->sa_static;
    n->sa_pj_per_mac = scale * c->sa_dynamic / (c->sa_dim * c->sa_dim * hz) * 1e12;
    n->vu_static_w = vus * c->vu_static;
    n->vu_pj_per_op = scale * c->vu_dynamic / (8 * 128 * hz) * 1e12;
    n->vmem_static_w = c->vmem_static / share;
    n->vmem_pj_per_byte = scale * c->vmem_dynamic / (c->vmem_ports * hz * 8 * 128 * 4) * 1e12;
    n->hbm_static_w = c->hbm_static / share;
    n->hbm_w_per_gbps = scale * c->hbm_w_per_gbps;
    n->other_static_w = (c->other_static + c->ici_static) / share;
    n->sched_w = 0.003 * c->tdp / share;
    n->idle_w = idle / share;
    n->tdp_w = c->tdp / share;
    n->max_w = c->max / share;
}

static void neusim_core(v10_npu *n, const neusim_chip *c) { neusim_part(n, c, 2); }

/* NeuSim's TPUv4 chip (configs/chips/tpuv4.json); its measured maximum 192
 * W (measured min/mean/max 90/170/192 W: Google Cloud's TPU v4
 * documentation; NeuSim's max_power_W; Jouppi et al., ISCA 2023). */
static const neusim_chip neusim_v4 = {1.222, 16.91648, 0.427282, 1.591296, 4, 21.777552,
                                      30.110208, 4, 10.01602386, 5.499, 41.22229614, 90, 300,
                                      8, 128, 1.05, 1200, 0.01538461538, 112, 0.01767315271, 192};

/*
 * One TensorCore of TPUv3: two 128x128 MXUs, 940 MHz, 900 GB/s of HBM per
 * chip shared by two cores (Norrie et al., "The Design Process for Google's
 * Training Chips: TPUv2 and TPUv3", IEEE Micro 41(2), 2021; Jouppi et al.,
 * "Ten Lessons From Three Generations Shaped Google's TPUv4i", ISCA 2021).
 */
static void mk_tpuv3(v10_npu *n)
{
    *n = isca23;
    snprintf(n->name, sizeof n->name, "tpuv3-core");
    n->sa_count = 2;
    /* A TPU's compiler splits each matmul over both MXUs of the core
     * (Norrie et al., IEEE Micro 2021); V10's one engine per operator stays
     * the v10-isca23 presets' (docs/design.md, "Operators over several
     * engines"). */
    n->op_mapping = V10_MAP_ALL;
    n->clock_mhz = 940.0;
    n->hbm_gbps = 900.0 / 2;
    n->hbm_capacity_bytes = 32 * GiB / 2; /* 32 GiB per chip (Norrie et al., Table 1) */
    n->vmem_bytes = 32 * MiB;
    /* Power: NeuSim's TPUv3 chip (configs/chips/tpuv3.json), per core; its
     * measured maximum 262 W (NeuSim's max_power_W; Jouppi et al., ISCA 2023). */
    static const neusim_chip v3 = {2.9866666675, 30.28855467, 0.74127482825, 2.8491776, 4,
                                   12.93490069, 29.830784, 2, 4.032 + 6.048, 8.96,
                                   37.11333333, 84, 450,
                                   4, 128, 0.94, 900, 1.0 / 65, 164, 0.0247047779, 262};
    neusim_core(n, &v3);
}

/*
 * One TensorCore of TPUv4: four 128x128 MXUs, 1050 MHz, 1200 GB/s of HBM per
 * chip shared by two cores (Jouppi et al., "TPU v4: An Optically
 * Reconfigurable Supercomputer...", ISCA 2023, Table 1).
 */
static void mk_tpuv4(v10_npu *n)
{
    *n = isca23;
    snprintf(n->name, sizeof n->name, "tpuv4-core");
    n->sa_count = 4;
    /* Each matmul split over the core's four MXUs (Jouppi et al., ISCA 2023). */
    n->op_mapping = V10_MAP_ALL;
    n->clock_mhz = 1050.0;
    n->hbm_gbps = 1200.0 / 2;
    n->hbm_capacity_bytes = 32 * GiB / 2; /* 32 GiB per chip (Jouppi et al., Table 1) */
    n->vmem_bytes = 32 * MiB;
    /* Power: NeuSim's TPUv4 chip, per core. */
    neusim_core(n, &neusim_v4);
}

/*
 * A slice's inter-chip links (docs/formats.md §1).  Per link and direction:
 * Google's bidirectional ICI bandwidth per chip over its ICI ports, halved
 * (v5e: 400 GB/s over 4 ports = 50 GB/s a direction; v6e: 800 GB/s over 4
 * = 100; Google Cloud's TPU v5e and v6e documentation, which also give
 * all-reduce bandwidths per 256-chip pod of 51.2 and 102.4 TB/s, the same
 * 50 and 100 GB/s per chip and port); TPU v4: its all-reduce bandwidth per
 * pod, 1.1 PB/s, over 4,096 chips and their 6 ports (a 3D torus) = 44.8
 * GB/s (Google Cloud's TPU v4 documentation; Jouppi et al., "TPU v4: An
 * Optically Reconfigurable Supercomputer...", ISCA 2023).  Latency per
 * hop: NeuSim's ChipConfig.ici_latency_ns, 3.33 µs (taken there from
 * NVLink's figure in DeepSeek's ISCA 2025 paper; Google publishes none).
 * Slices of eight chips or fewer are meshes without wraparound (v4-8: 2 x 2
 * x 1; v5e-8: 2 x 4), over which a collective runs one bidirectional ring,
 * two links a chip.
 */
static void ici_slice(v10_npu *n, uint32_t chips, double gbps)
{
    n->chips = chips;
    n->ici_links = 2;
    n->ici_topology = V10_ICI_RING;
    n->ici_gbps = gbps;
    n->ici_latency_us = 3.33;
}

/*
 * A chip of a TPU v4-8 slice: four v4 chips (Google Cloud's TPU v4
 * documentation: 275 TFLOPS bf16, 32 GiB of HBM2 at 1200 GB/s a chip), each
 * simulated as one device of both TensorCores (the "megacore" a serving
 * stack runs: eight 128 x 128 MXUs at 1050 MHz, two vector units, the
 * chip's HBM and 2 x 32 MiB of vector memory), every matmul over its eight
 * MXUs; power: the whole NeuSim TPUv4 chip (measured maximum 192 W).
 */
static void mk_tpuv4_8(v10_npu *n)
{
    mk_tpuv4(n);
    snprintf(n->name, sizeof n->name, "tpuv4-8");
    n->sa_count = 8;
    n->vu_count = 2;
    n->hbm_gbps = 1200.0;
    n->hbm_capacity_bytes = 32 * GiB;
    n->vmem_bytes = 64 * MiB;
    neusim_part(n, &neusim_v4, 1);
    ici_slice(n, 4, 1.1e6 / 4096 / 6);
}

/* A one-TensorCore chip of four dim x dim MXUs and one vector unit, each
 * matmul over the four, 128 MiB of vector memory (NeuSim's v5e and v6e
 * ChipConfig), its clock and HBM, and NeuSim's chip c's power whole. */
static void one_core_chip(v10_npu *n, const char *name, uint32_t dim, double mhz,
                          double hbm_gbps, uint64_t hbm_bytes, const neusim_chip *c)
{
    *n = isca23;
    snprintf(n->name, sizeof n->name, "%s", name);
    n->sa_count = 4;
    n->sa_rows = n->sa_cols = dim;
    n->op_mapping = V10_MAP_ALL;
    n->clock_mhz = mhz;
    n->hbm_gbps = hbm_gbps;
    n->hbm_capacity_bytes = hbm_bytes;
    n->vmem_bytes = 128 * MiB;
    neusim_part(n, c, 1);
}

/*
 * A chip of a TPU v5e-8 slice: eight v5e chips of one TensorCore each, four
 * 128 x 128 MXUs and a vector unit (Google Cloud's TPU v5e documentation:
 * 197 TFLOPS bf16, i.e. 1500 MHz; 16 GB of HBM2 at 819 GB/s); 128 MiB of
 * vector memory (NeuSim's TPUv5e ChipConfig); power: NeuSim's TPUv5e chip,
 * whose maximum (331 W) is a placeholder beside a minimum and mean of 1 W,
 * so no measured maximum and NeuSim's energies as they are.
 */
static void mk_tpuv5e_8(v10_npu *n)
{
    static const neusim_chip v5e = {1.35868996, 28.19413333, 0.475076728, 2.65216, 3,
                                    24.21353615, 50.18368, 3, 25.66010324, 6.114104803,
                                    44.82811018, 0, 350,
                                    4, 128, 1.5, 819, 0.01261538462, 100, 0.01767315271, 0};
    one_core_chip(n, "tpuv5e-8", 128, 1500.0, 819.0, 16 * GiB, &v5e);
    ici_slice(n, 8, 400.0 / 4 / 2);
}

/*
 * One TPU v6e (Trillium) chip: 918 TFLOPS bf16, 32 GB of HBM at 1638 GB/s
 * (Google Cloud's TPU v6e documentation), as NeuSim models it (its TPUv6e
 * chip): four 256 x 256 MXUs at 1750 MHz, which make the 918 TFLOPS
 * (Google's page names two MXUs per TensorCore), one vector unit, 128 MiB of
 * vector memory.  One chip (v6e-1); its links for slices of more
 * ("chips": N in an NPU file) as v6e's.  Power: NeuSim's TPUv6e chip, no
 * published measured maximum (its 331 W a placeholder).
 */
static void mk_tpuv6e(v10_npu *n)
{
    static const neusim_chip v6e = {1.777942858, 31.57742933, 0.1554179582, 0.7426048, 4,
                                    37.07309859, 28.1028608, 4, 17.7605566, 3.000278571,
                                    41.27610279, 0, 350,
                                    4, 256, 1.75, 1640, 0.008830769231, 224, 0.01262060716, 0};
    one_core_chip(n, "tpuv6e", 256, 1750.0, 1638.0, 32 * GiB, &v6e);
    ici_slice(n, 1, 800.0 / 4 / 2);
}

static const preset presets[] = {
    {"v10-isca23", mk_isca23},  {"tpuv3-core", mk_tpuv3},       {"tpuv4-core", mk_tpuv4},
    {"v10-isca23-2x", mk_2x},   {"v10-isca23-4x", mk_4x},       {"v10-isca23-8x", mk_8x},
    {"tpuv4-8", mk_tpuv4_8},    {"tpuv5e-8", mk_tpuv5e_8},      {"tpuv6e", mk_tpuv6e},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

const char *const v10_npu_preset_names[] = {
    "v10-isca23", "tpuv3-core", "tpuv4-core", "v10-isca23-2x", "v10-isca23-4x",
    "v10-isca23-8x", "tpuv4-8", "tpuv5e-8", "tpuv6e", NULL,
};

_Static_assert(sizeof v10_npu_preset_names / sizeof *v10_npu_preset_names == N_PRESETS + 1,
               "v10_npu_preset_names and presets list the same NPUs");

static void get_preset(size_t i, void *out) { presets[i].make(out); }
static int read_npu(const cJSON *root, const char *origin, void *out, v10_err *err);
static const v10_config_kind KIND = {"NPU preset", "NPU fields", v10_npu_preset_names,
                                     get_preset, read_npu};

int v10_npu_preset(const char *name, v10_npu *out, v10_err *err)
{
    return v10_config_preset(&KIND, name, out, err);
}

/* Field table: JSON key, kind, offset, valid range. */
typedef enum { F_U32, F_U64, F_DBL, F_BOOL, F_DF, F_MAP, F_TOPO } fkind;
typedef struct field {
    const char *key;
    fkind kind;
    size_t off;
    double min, max;
} field;

#define F(k, t, lo, hi) {#k, t, offsetof(v10_npu, k), lo, hi}
static const field fields[] = {
    F(sa_count, F_U32, 1, 64),
    F(sa_rows, F_U32, 1, 4096),
    F(sa_cols, F_U32, 1, 4096),
    F(sa_dataflow, F_DF, 0, 2),
    F(sa_prefetch_weights, F_BOOL, 0, 1),
    F(op_mapping, F_MAP, 0, V10_MAP_RECLAIM),
    F(vu_count, F_U32, 1, 64),
    F(vu_lanes, F_U32, 1, 1 << 20),
    F(vu_ops_per_lane, F_U32, 1, 64),
    F(vu_sublanes, F_U32, 1, 1 << 10),
    F(vu_load_vregs, F_U32, 1, 64),
    F(vu_store_vregs, F_U32, 1, 64),
    F(vu_xlu_cycles, F_U32, 0, 1 << 20),
    F(dma_row_cycles, F_U32, 0, 1 << 20),
    F(vu_tile_cycles, F_U32, 1, 1 << 30),
    F(vmem_bytes, F_U64, 1024, 1ull << 40),
    F(hbm_gbps, F_DBL, 0.001, 1e6),
    F(hbm_capacity_bytes, F_U64, 1 << 20, 1ull << 50),
    F(clock_mhz, F_DBL, 1, 1e5),
    F(issue_cycles, F_U32, 0, 1 << 30),
    F(vu_issue_cycles, F_U32, 0, 1 << 30),
    F(vu_dot_rows, F_U32, 0, 1 << 20),
    F(slice_cycles, F_U64, 1, 1ull << 40),
    F(sa_switch_cycles, F_U32, 0, 1 << 30),
    F(sa_switch_overlap_cycles, F_U32, 0, 1 << 30),
    F(vu_registers, F_U32, 0, 1 << 20),
    F(pmt_switch_us, F_DBL, 0, 1e6),
    F(chips, F_U32, 1, 64),
    F(ici_links, F_U32, 0, 64),
    F(ici_gbps, F_DBL, 0, 1e6),
    F(ici_latency_us, F_DBL, 0, 1e6),
    F(ici_topology, F_TOPO, 0, V10_ICI_TORUS),
    F(sa_static_w, F_DBL, 0, 1e5),
    F(sa_pj_per_mac, F_DBL, 0, 1e5),
    F(vu_static_w, F_DBL, 0, 1e5),
    F(vu_pj_per_op, F_DBL, 0, 1e5),
    F(vmem_static_w, F_DBL, 0, 1e5),
    F(vmem_pj_per_byte, F_DBL, 0, 1e5),
    F(hbm_static_w, F_DBL, 0, 1e5),
    F(hbm_w_per_gbps, F_DBL, 0, 1e3),
    F(other_static_w, F_DBL, 0, 1e5),
    F(sched_w, F_DBL, 0, 1e5),
    F(idle_w, F_DBL, 0, 1e6),
    F(tdp_w, F_DBL, 0, 1e6),
    F(max_w, F_DBL, 0, 1e6),
    F(pg_idle_cycles, F_U64, 0, 1ull << 40),
    F(pg_wake_cycles, F_U32, 0, 1 << 30),
    F(pg_wake_nj, F_DBL, 0, 1e9),
    F(pg_gated_frac, F_DBL, 0, 1),
};
#undef F
#define N_FIELDS (sizeof fields / sizeof fields[0])

static double get_field(const v10_npu *n, const field *f)
{
    const char *p = (const char *)n + f->off;
    switch (f->kind) {
    case F_U32: return *(const uint32_t *)(const void *)p;
    case F_U64: return (double)*(const uint64_t *)(const void *)p;
    case F_DBL: return *(const double *)(const void *)p;
    case F_BOOL: return *(const int *)(const void *)p;
    case F_DF: return *(const v10_dataflow *)(const void *)p;
    case F_MAP: return *(const v10_op_mapping *)(const void *)p;
    case F_TOPO: return *(const v10_ici_topology *)(const void *)p;
    }
    return 0;
}

int v10_npu_validate(const v10_npu *n, v10_err *err)
{
    for (size_t i = 0; i < N_FIELDS; i++) {
        double v = get_field(n, &fields[i]);
        char why[V10_RANGE_MAX];
        if (!(v >= fields[i].min && v <= fields[i].max))
            return v10_err_set(err, "NPU '%s': %s = %s", n->name, fields[i].key,
                               v10_num_range(v, fields[i].min, fields[i].max, why, sizeof why));
    }
    if (n->sa_switch_overlap_cycles > n->sa_switch_cycles)
        return v10_err_set(err,
                           "NPU '%s': sa_switch_overlap_cycles = %u exceeds sa_switch_cycles = "
                           "%u (the drain overlaps part of the switch at most)",
                           n->name, n->sa_switch_overlap_cycles, n->sa_switch_cycles);
    return 0;
}

static int set_field(v10_npu *n, const field *f, const cJSON *v, const char *origin,
                     v10_err *err)
{
    char *p = (char *)n + f->off, got[64];
    if (f->kind == F_DF) {
        if (!cJSON_IsString(v) || v10_dataflow_parse(v->valuestring, (v10_dataflow *)(void *)p))
            return v10_err_set(err, "%s: key '%s': expected \"ws\", \"os\" or \"is\", got %s",
                               origin, f->key, v10_json_got(v, got, sizeof got));
        return 0;
    }
    if (f->kind == F_MAP) {
        int i = 0;
        while (i <= V10_MAP_RECLAIM && !(cJSON_IsString(v) &&
                                        !strcmp(v->valuestring, v10_op_mapping_name((v10_op_mapping)i))))
            i++;
        if (i > V10_MAP_RECLAIM)
            return v10_err_set(err, "%s: key '%s': expected \"one\", \"all\", \"alloc\", "
                                    "\"harvest\" or \"reclaim\", got %s", origin, f->key,
                               v10_json_got(v, got, sizeof got));
        *(v10_op_mapping *)(void *)p = (v10_op_mapping)i;
        return 0;
    }
    if (f->kind == F_TOPO) {
        int i = 0;
        while (i <= V10_ICI_TORUS &&
               !(cJSON_IsString(v) &&
                 !strcmp(v->valuestring, v10_ici_topology_name((v10_ici_topology)i))))
            i++;
        if (i > V10_ICI_TORUS)
            return v10_err_set(err, "%s: key '%s': expected \"ring\" or \"torus\", got %s",
                               origin, f->key, v10_json_got(v, got, sizeof got));
        *(v10_ici_topology *)(void *)p = (v10_ici_topology)i;
        return 0;
    }
    if (f->kind == F_BOOL) {
        if (!cJSON_IsBool(v))
            return v10_err_set(err, "%s: key '%s': expected true or false, got %s", origin,
                               f->key, v10_json_got(v, got, sizeof got));
        *(int *)(void *)p = cJSON_IsTrue(v);
        return 0;
    }
    if (!cJSON_IsNumber(v))
        return v10_err_set(err, "%s: key '%s': expected a number, got %s", origin, f->key,
                           v10_json_got(v, got, sizeof got));
    /* The number as read (cJSON keeps no text): 1e99 is quoted 1e+99. */
    double d = v->valuedouble;
    char why[V10_RANGE_MAX];
    if (!(d >= f->min && d <= f->max))
        return v10_err_set(err, "%s: key '%s': %s", origin, f->key,
                           v10_num_range(d, f->min, f->max, why, sizeof why));
    if (f->kind != F_DBL && d != floor(d))
        return v10_err_set(err, "%s: key '%s': expected an integer, got %s", origin, f->key,
                           v10_json_got(v, got, sizeof got));
    switch (f->kind) {
    case F_U32: *(uint32_t *)(void *)p = (uint32_t)d; break;
    case F_U64: *(uint64_t *)(void *)p = (uint64_t)d; break;
    case F_DBL: *(double *)(void *)p = d; break;
    default: break;
    }
    return 0;
}

/* The JSON form (v10_config_kind.read): the fields over the preset named
 * by "base" (v10-isca23 if none), then validated. */
static int read_npu(const cJSON *root, const char *origin, void *vout, v10_err *err)
{
    v10_npu *out = vout;
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
    char got[64];
    if (base && !cJSON_IsString(base))
        return v10_err_set(err, "%s: key 'base': expected a preset name, got %s", origin,
                           v10_json_got(base, got, sizeof got));
    if (v10_npu_preset(base ? base->valuestring : "v10-isca23", out, err)) {
        v10_err_prefix(err, "%s: key 'base'", origin);
        return -1;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, root) {
        if (!strcmp(v->string, "base"))
            continue;
        /* 'v10sim npu --format json' adds the figures derived from the
         * fields; they are recomputed, so reading its output back ignores
         * them (an edit there changes nothing: edit the fields). */
        if (!strcmp(v->string, "derived")) {
            if (cJSON_IsObject(v))
                continue;
            return v10_err_set(err, "%s: key 'derived': expected the object 'v10sim npu "
                                    "--format json' writes (recomputed from the fields), got %s",
                               origin, v10_json_got(v, got, sizeof got));
        }
        if (!strcmp(v->string, "name")) {
            if (v10_json_name(v, origin, out->name, sizeof out->name, err))
                return -1;
            continue;
        }
        size_t i = 0;
        while (i < N_FIELDS && strcmp(fields[i].key, v->string))
            i++;
        if (i == N_FIELDS) {
            /* the nearest field names, as everywhere a name is typed */
            const char *keys[N_FIELDS + 2];
            for (size_t k = 0; k < N_FIELDS; k++)
                keys[k] = fields[k].key;
            keys[N_FIELDS] = "name";
            keys[N_FIELDS + 1] = NULL;
            char hint[160];
            return v10_err_set(err, "%s: unknown key '%s'%s (see 'v10sim npu --format json')",
                               origin, v->string,
                               v10_name_hint(hint, sizeof hint, v->string, keys, N_FIELDS + 1,
                                             NULL));
        }
        if (set_field(out, &fields[i], v, origin, err))
            return -1;
    }
    if (!base && !cJSON_GetObjectItemCaseSensitive(root, "name"))
        v10_name_tail(out->name, sizeof out->name, origin); /* a path, escaped */
    return v10_npu_validate(out, err);
}

int v10_npu_from_json(const char *text, const char *origin, v10_npu *out, v10_err *err)
{
    return v10_config_from_json(&KIND, text, origin, out, err);
}

int v10_npu_resolve(const char *spec, v10_npu *out, v10_err *err)
{
    return v10_config_resolve(&KIND, spec, out, err);
}

double v10_npu_hbm_bytes_per_cycle(const v10_npu *n)
{
    return n->hbm_gbps * 1e9 / (n->clock_mhz * 1e6);
}

uint32_t v10_npu_issue_cycles(const v10_npu *n, int fu)
{
    return fu ? n->vu_issue_cycles : n->issue_cycles;
}

uint64_t v10_npu_pmt_switch_cycles(const v10_npu *n)
{
    return v10_npu_us_to_cycles(n, n->pmt_switch_us);
}

/*
 * What a VU operator's switch moves (V10, ISCA 2023, §4: the VU saves its
 * PC and registers to vector memory): vu_registers registers of vu_lanes
 * 32-bit elements and a 32-bit PC, over a path one register wide (one
 * element per lane per cycle, the rate at which the cost model's VU moves
 * operands, docs/design.md; ours), saved for the outgoing operator and then
 * restored for the incoming one: 2 x ceil(bytes / (vu_lanes x 4)), 2 x 33 =
 * 66 cycles on the paper's VU.
 */
uint64_t v10_npu_vu_switch_cycles(const v10_npu *n)
{
    const uint64_t word = 4, pc = 4;
    uint64_t port = word * n->vu_lanes;
    uint64_t bytes = (uint64_t)n->vu_registers * port + pc;
    return 2 * ((bytes + port - 1) / port);
}

uint64_t v10_npu_switch_cycles(const v10_npu *n, int fu)
{
    return fu == 0 ? n->sa_switch_cycles : fu == 1 ? v10_npu_vu_switch_cycles(n) : 0;
}

double v10_npu_sa_dynamic_w(const v10_npu *n)
{
    return n->sa_pj_per_mac * 1e-12 * n->sa_rows * n->sa_cols * n->clock_mhz * 1e6;
}

double v10_npu_vu_dynamic_w(const v10_npu *n)
{
    return n->vu_pj_per_op * 1e-12 * n->vu_lanes * n->vu_ops_per_lane * n->clock_mhz * 1e6;
}

double v10_npu_cycles_to_us(const v10_npu *n, double cycles) { return cycles / n->clock_mhz; }

uint64_t v10_npu_us_to_cycles(const v10_npu *n, double us)
{
    return (uint64_t)llround(us * n->clock_mhz);
}

const char *v10_dataflow_name(v10_dataflow df)
{
    static const char *const names[] = {"ws", "os", "is"};
    return names[df];
}

const char *v10_op_mapping_name(v10_op_mapping m)
{
    static const char *const names[] = {"one", "all", "alloc", "harvest", "reclaim"};
    return (unsigned)m <= V10_MAP_RECLAIM ? names[m] : "?";
}

const char *v10_ici_topology_name(v10_ici_topology t)
{
    static const char *const names[] = {"ring", "torus"};
    return (unsigned)t <= V10_ICI_TORUS ? names[t] : "?";
}

uint32_t v10_npu_ici_rings(const v10_npu *n)
{
    return n->ici_topology == V10_ICI_TORUS && n->ici_links >= 4 ? n->ici_links / 2 : 1;
}

/* Cycles, rounded up, of `hops` steps each of a hop's latency and `bytes`
 * over one link and direction. */
static uint64_t link_cycles(const v10_npu *n, double hops, double bytes)
{
    double per_cycle = n->ici_gbps * 1e9 / (n->clock_mhz * 1e6); /* a link and direction */
    double xfer = per_cycle > 0 ? bytes / per_cycle : 0;
    double c = ceil(hops * (n->ici_latency_us * n->clock_mhz + xfer));
    return c < V10_U64_DOUBLE_MAX ? (uint64_t)c : UINT64_MAX;
}

uint64_t v10_npu_collective_cycles(const v10_npu *n, uint32_t chips, int allreduce,
                                   uint64_t bytes)
{
    if (!chips)
        chips = n->chips;
    if (chips <= 1)
        return 0;
    double N = chips, rings = v10_npu_ici_rings(n);
    return link_cycles(n, (allreduce ? 2 : 1) * (N - 1), (double)bytes / (2 * rings * N));
}

uint64_t v10_npu_send_cycles(const v10_npu *n, uint64_t bytes)
{
    return n->chips <= 1 ? 0 : link_cycles(n, 1, (double)bytes);
}

/* The slice's keys (chips to ici_topology), printed only for an NPU with
 * links, so that every report of a one-chip run reads as before them. */
static int slice_key(const field *f)
{
    return f->off >= offsetof(v10_npu, chips) && f->off <= offsetof(v10_npu, ici_topology);
}

int v10_dataflow_parse(const char *s, v10_dataflow *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, v10_dataflow_name((v10_dataflow)i))) {
            *out = (v10_dataflow)i;
            return 0;
        }
    return -1;
}

cJSON *v10_npu_to_json(const v10_npu *n)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", n->name);
    for (size_t i = 0; i < N_FIELDS; i++) {
        const field *f = &fields[i];
        if (slice_key(f) && n->chips <= 1 && !n->ici_links)
            continue;
        if (f->kind == F_TOPO)
            cJSON_AddStringToObject(o, f->key, v10_ici_topology_name(n->ici_topology));
        else if (f->kind == F_DF)
            cJSON_AddStringToObject(o, f->key, v10_dataflow_name(n->sa_dataflow));
        else if (f->kind == F_MAP) {
            /* Printed only when not V10's one engine per operator, so that
             * every report of a V10 run reads as it did before the key. */
            if (n->op_mapping != V10_MAP_ONE)
                cJSON_AddStringToObject(o, f->key, v10_op_mapping_name(n->op_mapping));
        }
        else if (f->kind == F_BOOL)
            cJSON_AddBoolToObject(o, f->key, get_field(n, f) != 0);
        else
            cJSON_AddNumberToObject(o, f->key, get_field(n, f));
    }
    return o;
}
