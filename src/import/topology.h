/*
 * topology.h — reader for SCALE-Sim v2 topology CSVs (layer shapes of a
 * network), each layer lowered to the one GEMM SCALE-Sim runs for it.
 *
 * File rules (shared/data/topologies/README.md, as SCALE-Sim reads them):
 * the first line is a header and is skipped; lines blank after stripping
 * are skipped; fields are split on ',' and stripped of blanks by the one
 * CSV reader (util/csv.h, RFC 4180 quoting); the trailing empty field
 * (every line ends with ',') is dropped.
 *   conv: name, ifmap_h, ifmap_w, filter_h, filter_w, channels, num_filter,
 *         stride        -> ofmap = ceil((ifmap - filter + stride) / stride)
 *                          (no padding), M = ofmap_h * ofmap_w,
 *                          N = num_filter, K = filter_h * filter_w * channels
 *   gemm: name, M, N, K -> read as a conv with ifmap M x K, filter 1 x K,
 *                          1 channel, N filters, stride 1 (SCALE-Sim's -i gemm)
 * Differences from SCALE-Sim: a last field that is not empty is kept (a line
 * without the trailing comma still parses), and names containing "DP" are
 * not expanded into per-channel depthwise layers.
 *
 * Ownership: v10_topology_read allocates *out; v10_topology_free frees it.
 */
#ifndef V10_TOPOLOGY_H
#define V10_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "v10/err.h"

#define V10_TOPO_NAME_MAX 64

/* One layer.  Invariants: every dimension >= 1, filter <= ifmap in both
 * directions, macs = M * N * K fits in 64 bits. */
typedef struct v10_topo_layer {
    char name[V10_TOPO_NAME_MAX];
    unsigned line;              /* 1-based line of the file it came from */
    uint64_t ifmap_h, ifmap_w;  /* input feature map, as given (unpadded) */
    uint64_t filter_h, filter_w;
    uint64_t channels, num_filter, stride;
    uint64_t ofmap_h, ofmap_w;
    uint64_t M, N, K;           /* the GEMM: (M x K)(K x N) */
    uint64_t macs;              /* M * N * K */
} v10_topo_layer;

typedef struct v10_topo {
    int is_gemm;                /* 1: the file was read in gemm format */
    size_t n_layers;            /* >= 1 */
    v10_topo_layer *layers;     /* in file order */
} v10_topo;

/* Format of the file: detect from the header's field count (8 conv, 4 gemm). */
#define V10_TOPO_AUTO (-1)
#define V10_TOPO_CONV 0
#define V10_TOPO_GEMM 1

/*
 * Reads the topology CSV at `path`; force_gemm is V10_TOPO_AUTO,
 * V10_TOPO_CONV or V10_TOPO_GEMM.  Returns 0 and sets *out, or -1 with err
 * naming the file and line (missing file, wrong field count, non-numeric,
 * zero or negative value, filter larger than ifmap, MACs overflowing
 * 64 bits, no layers).
 */
int v10_topology_read(const char *path, int force_gemm, struct v10_topo **out,
                      v10_err *err);

/* The same from an open stream; `path` names it in messages. */
int v10_topology_parse(FILE *fp, const char *path, int force_gemm, struct v10_topo **out,
                       v10_err *err);

/*
 * Whether text (a file's bytes) is a SCALE-Sim topology rather than an
 * operator trace (formats.md): its first line's first field, stripped and
 * in any case, is "Layer name" (conv) or "Layer" (gemm), the headers
 * SCALE-Sim's files carry; an operator trace's columns have other names.
 */
int v10_topology_sniff(const char *text, size_t len);

/*
 * Builds model `out` (initialised here; v10_model_fini frees it) from the
 * topology, as SCALE-Sim runs it: one SA operator per layer, the layer's
 * GEMM with `batch` images (M = batch x ofmap_h x ofmap_w, K = filter_h x
 * filter_w x channels, N = num_filter, the output size by SCALE-Sim's rule
 * above; a gemm-format layer's M, N, K as given), its HBM traffic the
 * input once, the weights and the output (v10_model_lowered_conv).  name
 * names the model.  0, or -1 with err naming the layer's line.
 */
struct v10_model;
int v10_topology_model(const v10_topo *t, const char *path, const char *name, uint32_t batch,
                       struct v10_model *out, v10_err *err);

/* Frees a topology from v10_topology_read (NULL is fine). */
void v10_topology_free(v10_topo *t);

#endif
