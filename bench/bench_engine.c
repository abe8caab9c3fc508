/*
 * bench_engine.c — engine speed: events per second and peak memory for 2
 * tenants on v10-isca23 and 8 tenants on v10-isca23-8x, over thousands of
 * requests, under v10-full (the busiest policy: timer + preemptions), and
 * for a mixed SA/VU pair (ResNet-50 + EfficientNet: SA and VU operators
 * interleave, V10-Full preempts, PMT switches the core) under both, and
 * for calibrated isca23 workloads (pairs and the 16-tenant scalability point).
 * Not part of the test run.  Usage: bench_engine [requests]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "v10/sim.h"

static void bench(const char *label, const char *npu, const char *const *models, size_t n,
                  uint64_t requests, const char *policy, int contention)
{
    v10_tenant_spec specs[16];
    v10_run_config cfg;
    v10_err err;
    v10_run_config_default(&cfg);
    if (v10_npu_preset(npu, &cfg.npu, &err))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (v10_tenant_spec_parse(models[i], &specs[i], &err))
            goto fail;
    snprintf(cfg.policy, sizeof cfg.policy, "%s", policy);
    cfg.tenants = specs;
    cfg.n_tenants = n;
    cfg.requests = requests;
    cfg.warmup = requests / 10;
    cfg.contention = contention;
    v10_run_result r;
    if (v10_run(&cfg, &r, &err))
        goto fail;
    printf("%-28s %-9s contention=%d  %8llu events (estimated x%.2f)  %7.3f s  %6.2f M "
           "events/s  STP %.3f\n",
           label, policy, contention, (unsigned long long)r.events,
           r.events_estimated / (double)r.events, r.wall_seconds,
           (double)r.events / r.wall_seconds / 1e6, r.stp);
    v10_run_result_fini(&r);
    return;
fail:
    fprintf(stderr, "bench_engine: %s\n", err.msg);
    exit(1);
}

int main(int argc, char **argv)
{
    /* BERT beside NCF: every BERT request is ~10^5 NCF requests (the
     * continuing load), so a few hundred BERT requests are 10^7+ events. */
    uint64_t requests = argc > 1 ? strtoull(argv[1], NULL, 10) : 200;
    const char *two[] = {"bert", "ncf"};
    const char *eight[] = {"resnet50", "bert", "ncf", "dlrm",
                           "efficientnet", "transformer", "mnist", "retinanet"};
    for (int c = 1; c >= 0; c--) {
        bench("2 tenants, v10-isca23", "v10-isca23", two, 2, requests, "v10-full", c);
        bench("8 tenants, v10-isca23-8x", "v10-isca23-8x", eight, 8, requests / 4, "v10-full", c);
    }
    bench("2 tenants, v10-isca23", "v10-isca23", two, 2, requests, "pmt", 1);
    /* ~1200 events per ResNet-50 request beside EfficientNet: 50x the
     * requests gives about as many events as the BERT + NCF pair. */
    const char *mixed[] = {"resnet50", "efficientnet"};
    bench("mixed pair, v10-isca23", "v10-isca23", mixed, 2, 50 * requests, "v10-full", 1);
    bench("mixed pair, v10-isca23", "v10-isca23", mixed, 2, 50 * requests, "pmt", 1);
    /* The calibrated isca23 set (docs/models.md): RetinaNet has ~7.6 x 10^5
     * operators a request, mostly 4 µs vector operators; beside BERT they
     * run under BERT's matmuls.  The model is built once (about a second)
     * before the timed run.  16 isca23 tenants on the 4x core is the
     * repro scalability study's heaviest point. */
    const char *isca_pair[] = {"isca23/bert", "isca23/retinanet"};
    uint64_t rq = requests / 20 > 2 ? requests / 20 : 2;
    bench("isca23 bert+retinanet", "v10-isca23", isca_pair, 2, rq, "v10-full", 1);
    bench("isca23 bert+retinanet", "v10-isca23", isca_pair, 2, rq, "pmt", 1);
    const char *isca_dlrm[] = {"isca23/dlrm", "isca23/resnet50"};
    bench("isca23 dlrm+resnet50", "v10-isca23", isca_dlrm, 2, 10 * requests, "v10-full", 1);
    const char *sixteen[] = {"isca23/bert", "isca23/ncf", "isca23/bert", "isca23/retinanet",
                             "isca23/resnet50", "isca23/retinanet", "isca23/ncf",
                             "isca23/resnet50", "isca23/bert", "isca23/transformer",
                             "isca23/bert", "isca23/dlrm", "isca23/resnet-rs",
                             "isca23/shapemask", "isca23/efficientnet", "isca23/resnet50"};
    bench("16 isca23, v10-isca23-4x", "v10-isca23-4x", sixteen, 16, 3, "v10-full", 1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
