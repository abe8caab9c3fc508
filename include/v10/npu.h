/*
 * npu.h — the NPU core every other layer reads: functional units, memories,
 * clock, scheduler and context-switch costs (docs/formats.md §1).
 *
 * A v10_npu is plain data, copied by value.  Presets are built in; a JSON
 * file may override any subset of fields over a named base preset.
 */
#ifndef V10_NPU_H
#define V10_NPU_H

#include <stdint.h>

#include "v10/err.h"

#define V10_NAME_MAX 64

typedef enum v10_dataflow {
    V10_DF_WS = 0, /* weight stationary (TPU, the default) */
    V10_DF_OS,     /* output stationary */
    V10_DF_IS,     /* input stationary */
} v10_dataflow;

/* How an operator maps onto the core's engines (docs/formats.md §1). */
typedef enum v10_op_mapping {
    V10_MAP_ONE = 0, /* one SA or VU per operator, as V10 (ISCA 2023) */
    V10_MAP_ALL,     /* every free engine of its type, as XLA splits a matmul over MXUs */
    V10_MAP_ALLOC,   /* up to its tenant's allocation of them, as Neu10's vNPU */
    V10_MAP_HARVEST, /* "alloc", plus the free engines no waiting tenant is owed (Neu10's harvesting) */
    V10_MAP_RECLAIM, /* "harvest", and a waiting owner takes its lent engines back at once:
                        the borrower is preempted (Neu10's reclaiming) */
} v10_op_mapping;

/* How a slice's chips are linked (docs/formats.md §1, "Several chips"). */
typedef enum v10_ici_topology {
    V10_ICI_RING = 0, /* one bidirectional ring through every chip (two links each) */
    V10_ICI_TORUS,    /* a torus: ici_links / 2 edge-disjoint bidirectional rings */
} v10_ici_topology;

typedef struct v10_npu {
    char name[V10_NAME_MAX];
    uint32_t sa_count;          /* systolic arrays */
    uint32_t sa_rows;           /* PEs per column (K side for WS) */
    uint32_t sa_cols;           /* PEs per row (N side for WS) */
    v10_dataflow sa_dataflow;
    int sa_prefetch_weights;    /* 1: load next fold's weights while streaming */
    v10_op_mapping op_mapping;  /* engines per operator */
    uint32_t vu_count;          /* vector units */
    uint32_t vu_lanes;          /* ALU lanes per VU (8 x 128) */
    uint32_t vu_ops_per_lane;   /* FP32 ops per lane per cycle */
    uint32_t vu_sublanes;       /* a vector register is vu_sublanes x
                                   (vu_lanes / vu_sublanes) 32-bit words; a
                                   tensor's two minor dimensions are padded
                                   to that tile */
    uint32_t vu_load_vregs;     /* vector registers loaded from vector memory
                                   per cycle */
    uint32_t vu_store_vregs;    /* vector registers stored per cycle */
    uint32_t vu_xlu_cycles;     /* cycles per vector register of a cross-lane
                                   pass (a reduction over the minor dimension,
                                   a transpose, a permute) */
    uint32_t dma_row_cycles;    /* cycles between two row DMAs of a gather */
    uint32_t vu_tile_cycles;    /* VU preemption chunk, cycles */
    uint64_t vmem_bytes;        /* vector memory, split among tenants */
    double hbm_gbps;            /* HBM bandwidth, GB/s (1e9 bytes/s) */
    uint64_t hbm_capacity_bytes; /* HBM size: LLM weights + KV cache must fit */
    double clock_mhz;           /* core clock */
    uint32_t issue_cycles;      /* fixed cost per SA operator: issue, the first
                                   DMA's latency, pipeline fill and drain */
    uint32_t vu_issue_cycles;   /* the same per VU operator */
    uint32_t vu_dot_rows;       /* a matmul of at most this many rows runs on
                                   the VU as multiply-and-reduce (XLA's dot
                                   strength reduction); 0: never */
    uint64_t slice_cycles;      /* V10 preemption timer period */
    uint32_t sa_switch_cycles;  /* V10 SA operator context switch, cycles in all */
    uint32_t sa_switch_overlap_cycles; /* of those, cycles the preempted SA operator
                                   still computes (its drain); <= sa_switch_cycles */
    uint32_t vu_registers;      /* vector registers of vu_lanes x 32 bit each: what a
                                   VU switch saves and restores (with the PC) */
    double pmt_switch_us;       /* PMT whole-core task switch, µs */
    /* Several chips (docs/llm.md, "Several chips"): everything above is one
     * chip's, the unit simulated; `chips` of them serve a tensor-parallel
     * LLM together, their collectives running on each chip's link engine
     * (V10_FU_ICI) over its inter-chip links. */
    uint32_t chips;             /* chips in the slice, >= 1 */
    uint32_t ici_links;         /* links per chip the slice's collectives use */
    double ici_gbps;            /* per link and direction, GB/s */
    double ici_latency_us;      /* per hop: each step of a ring collective, µs */
    v10_ici_topology ici_topology;
    /* Power (docs/energy.md): static watts drawn whenever powered; dynamic
     * energy per operation done, so that a larger array or a faster clock
     * draws more; one core's share of a chip's. */
    double sa_static_w;         /* per SA */
    double sa_pj_per_mac;       /* SA dynamic energy per multiply-accumulate, pJ */
    double vu_static_w;         /* per VU */
    double vu_pj_per_op;        /* VU dynamic energy per ALU op (one lane, one op), pJ */
    double vmem_static_w;       /* vector memory */
    double vmem_pj_per_byte;    /* vector memory dynamic energy per byte an operator
                                   moves through it (its HBM bytes), pJ */
    double hbm_static_w;        /* HBM controller and PHY */
    double hbm_w_per_gbps;      /* HBM dynamic, W per GB/s moved (= nJ per byte) */
    double other_static_w;      /* the rest of the core (ICI, host interface, ...) */
    double sched_w;             /* V10's operator scheduler (V10 policies only) */
    double idle_w;              /* published idle power (reference, not integrated) */
    double tdp_w;               /* published TDP (reference, not integrated) */
    double max_w;               /* published measured maximum power (reference, not
                                   integrated; 0: none published) */
    /* Power gating of idle SAs and VUs: gated after pg_idle_cycles idle
     * cycles (0: never), drawing pg_gated_frac of their static power; the
     * next operator waits pg_wake_cycles, and each wake-up costs pg_wake_nj. */
    uint64_t pg_idle_cycles;
    uint32_t pg_wake_cycles;
    double pg_wake_nj;
    double pg_gated_frac;
} v10_npu;

/* Names of the built-in presets, NULL-terminated. */
extern const char *const v10_npu_preset_names[];

/* Fills *out with preset `name`.  Returns -1 (message lists the presets) if
 * the name is unknown. */
int v10_npu_preset(const char *name, v10_npu *out, v10_err *err);

/* Resolves `spec`: a preset name, or a path to a JSON file (ends in .json or
 * contains '/') whose keys override a base preset ("base" key, default
 * v10-isca23).  Unknown keys, wrong types and out-of-range values are errors
 * naming the file and key. */
int v10_npu_resolve(const char *spec, v10_npu *out, v10_err *err);

/* Same as v10_npu_resolve for a JSON text already in memory; `origin` names
 * it in messages. */
int v10_npu_from_json(const char *text, const char *origin, v10_npu *out,
                      v10_err *err);

/* Checks ranges; -1 names the first offending key. */
int v10_npu_validate(const v10_npu *npu, v10_err *err);

/* Derived figures. */
double v10_npu_hbm_bytes_per_cycle(const v10_npu *npu);
/* The fixed cost of one operator on FU type fu (0: SA, 1: VU). */
uint32_t v10_npu_issue_cycles(const v10_npu *npu, int fu);
uint64_t v10_npu_pmt_switch_cycles(const v10_npu *npu);
/* An SA's and a VU's dynamic power at full activity, W: every PE (lane)
 * doing its MAC (op) each cycle, at the energies above and the clock. */
double v10_npu_sa_dynamic_w(const v10_npu *npu);
double v10_npu_vu_dynamic_w(const v10_npu *npu);
/* V10 VU operator context switch, cycles: save the registers and the PC to
 * vector memory, then restore the next operator's (docs/formats.md §1). */
uint64_t v10_npu_vu_switch_cycles(const v10_npu *npu);
/* An operator context switch on an FU of type fu (0: SA, 1: VU, 2: link
 * engine; model.h's v10_fu_type), cycles: an SA's sa_switch_cycles (the
 * paper's 384 for a 128x128 array), a VU's v10_npu_vu_switch_cycles; a
 * link engine has none (a collective stops between two ring steps, its
 * data sent). */
uint64_t v10_npu_switch_cycles(const v10_npu *npu, int fu);
double v10_npu_cycles_to_us(const v10_npu *npu, double cycles);
uint64_t v10_npu_us_to_cycles(const v10_npu *npu, double us);

/* The resolved configuration as a JSON object (every field); caller owns it. */
struct cJSON *v10_npu_to_json(const v10_npu *npu);

const char *v10_dataflow_name(v10_dataflow df);
const char *v10_op_mapping_name(v10_op_mapping m);
const char *v10_ici_topology_name(v10_ici_topology t);

/* The bidirectional rings a collective runs over: 1 for a ring, ici_links
 * / 2 edge-disjoint ones for a torus of at least four links (else 1). */
uint32_t v10_npu_ici_rings(const v10_npu *npu);
/*
 * A ring collective's standalone cycles on one chip's link engine, over N =
 * chips (0: the NPU's chips; a tensor-parallel group may be fewer) and R
 * rings, each bidirectional (a step sends bytes / (2 R N) on
 * every link and direction): an all-reduce of `bytes` (a reduce-scatter then
 * an all-gather) takes 2(N - 1) steps, an all-gather N - 1, each the hop
 * latency plus its transfer at ici_gbps; i.e. for the all-reduce
 * 2(N - 1)/N x bytes / (2 R x ici_gbps) + 2(N - 1) x latency (Patarasuk and
 * Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 69(2), 2009; Thakur et al., IJHPCA 19(1), 2005).  0 on
 * one chip.  Rounded up to whole cycles.
 */
uint64_t v10_npu_collective_cycles(const v10_npu *npu, uint32_t chips, int allreduce,
                                   uint64_t bytes);
/* A send of `bytes` to a neighbouring chip over one link and direction:
 * one hop's latency plus bytes / ici_gbps (the alpha-beta cost of a
 * point-to-point message, Hockney, Parallel Computing 20(3), 1994), rounded
 * up to whole cycles; 0 on one chip. */
uint64_t v10_npu_send_cycles(const v10_npu *npu, uint64_t bytes);
int v10_dataflow_parse(const char *s, v10_dataflow *out);

#endif
