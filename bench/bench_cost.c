/*
 * bench_cost.c — speed of the GEMM cycle model: v10_cost_gemm_cycles calls
 * per second over varied shapes, and end-to-end read + cost of the shared
 * ResNet-50 topology (SCALE-Sim v2 itself: ~240 s for it, WS 128x128, per
 * the copy of the reference data in tests/data/shared/data/scalesim/README.md).
 * Not part of the test run.
 * Usage: bench_cost [millions_of_calls] [resnet_repeats]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "import/topology.h"
#include "v10/cost.h"

#define SHAPES 4096
#define SCALESIM_RESNET50_S 240.0 /* tests/data/shared/data/scalesim/README.md */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

int main(int argc, char **argv)
{
    unsigned long long millions = argc > 1 ? strtoull(argv[1], NULL, 10) : 50;
    unsigned long long repeats = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000;
    if (!millions || !repeats) {
        fprintf(stderr, "usage: bench_cost [millions_of_calls >= 1] [resnet_repeats >= 1]\n");
        return 2;
    }

    /* 1. raw costing over varied shapes, arrays, dataflows and modes */
    static uint64_t M[SHAPES], N[SHAPES], K[SHAPES];
    static uint32_t R[SHAPES], C[SHAPES];
    static const uint32_t sides[] = {8, 32, 128, 256};
    uint64_t seed = 42;
    for (int i = 0; i < SHAPES; i++) {
        M[i] = 1 + lcg(&seed) % 50000;
        N[i] = 1 + lcg(&seed) % 4096;
        K[i] = 1 + lcg(&seed) % 8192;
        R[i] = sides[lcg(&seed) % 4];
        C[i] = sides[lcg(&seed) % 4];
    }
    uint64_t calls = millions * 1000000ull, sink = 0;
    double t0 = now_s();
    for (uint64_t i = 0; i < calls; i++) {
        size_t j = i % SHAPES;
        uint64_t folds;
        sink += v10_cost_gemm_cycles(M[j], N[j], K[j], R[j], C[j], (v10_dataflow)(i % 3),
                                     (v10_sa_mode)((i >> 2) & 1), &folds);
        sink += folds;
    }
    double dt = now_s() - t0;
    printf("gemm costing: %llu calls in %.3f s = %.1f M calls/s (%.2f ns/call) [sink %llu]\n",
           (unsigned long long)calls, dt, (double)calls / dt / 1e6, dt * 1e9 / (double)calls,
           (unsigned long long)(sink & 0xff));

    /* 2. read + cost ResNet-50 (54 layers, WS, 128x128, SCALE-Sim mode) */
    const char *shared = getenv("V10_SHARED");
    char path[4096];
    snprintf(path, sizeof path, "%s/data/topologies/Resnet50.csv",
             shared && *shared ? shared : V10_SOURCE_DIR "/tests/data/shared");
    uint64_t total = 0;
    t0 = now_s();
    for (unsigned long long r = 0; r < repeats; r++) {
        v10_err err;
        v10_topo *t;
        if (v10_topology_read(path, V10_TOPO_AUTO, &t, &err)) {
            fprintf(stderr, "bench_cost: %s\n", err.msg);
            return 1;
        }
        total = 0;
        for (size_t i = 0; i < t->n_layers; i++)
            total += v10_cost_gemm_cycles(t->layers[i].M, t->layers[i].N, t->layers[i].K, 128,
                                          128, V10_DF_WS, V10_SA_SCALESIM, NULL);
        v10_topology_free(t);
    }
    dt = now_s() - t0;
    double per = dt / (double)repeats;
    printf("resnet50 read+cost (WS 128x128): %llu runs in %.3f s = %.1f us/run; "
           "%llu cycles; SCALE-Sim v2 ~%.0f s/run -> %.2g x faster\n",
           repeats, dt, per * 1e6, (unsigned long long)total, SCALESIM_RESNET50_S,
           SCALESIM_RESNET50_S / per);
    return 0;
}
