/* fuzz_topology.c — SCALE-Sim topology CSV, then GEMM costing per layer. */
#include "harness.h"
#include "import/topology.h"
#include "v10/cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    v10_topo *t = NULL;
    v10_err err;
    if (v10_topology_parse(f, "fuzz.csv", V10_TOPO_AUTO, &t, &err) == 0) {
        for (size_t i = 0; i < t->n_layers; i++) {
            const v10_topo_layer *l = &t->layers[i];
            if (!l->M || !l->N || !l->K)
                abort();
            uint64_t folds;
            (void)v10_cost_gemm_cycles(l->M, l->N, l->K, 128, 128, V10_DF_WS, V10_SA_SCALESIM,
                                       &folds);
        }
        v10_topology_free(t);
    } else if (!err.msg[0]) {
        abort();
    }
    fclose(f);
    return 0;
}
