/*
 * fleet.h — fleet placement: N services read from a CSV, placed on M NPUs
 * by clustering (src/colloc), by greedy complementarity and at random, and
 * every NPU simulated (docs/repro.md, "Fleet").
 *
 * Everything here is computed, never printed: results come back in structs
 * that src/report/fleet_report.c renders.  Batches of simulations go
 * through v10_pool_run, so results do not depend on the thread count.
 *
 * Ownership: *_fini frees what the matching call allocated; inputs are borrowed.
 */
#ifndef V10_FLEET_H
#define V10_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "v10/colloc.h"
#include "v10/sim.h"
#include "v10/table.h"

/* ---- services (src/fleet/services.c) ----------------------------------------------- */

/* One service of a fleet: a name and a tenant spec (model, batch, rate, priority). */
typedef struct v10_service {
    char name[V10_NAME_MAX];
    v10_tenant_spec spec;
    size_t line; /* in the services file, for messages */
} v10_service;

/*
 * Reads a services CSV (docs/repro.md, "Fleet"):
 *   name,model,batch,rate_rps[,priority]
 * with a header line, '#' comments and blank lines allowed; batch 0 = the
 * model's default, rate_rps 0 = closed loop.  Errors name the file and line.
 * *out is malloc'd.
 */
int v10_services_read(const char *path, v10_service **out, size_t *n, v10_err *err);
/* The same from an open stream; `path` names it in messages. */
int v10_services_parse(FILE *f, const char *path, v10_service **out, size_t *n, v10_err *err);
/* Loads each distinct model of the services on `npu` once, so that an
 * unknown model or a bad model file is reported as PATH:LINE of the first
 * service naming it. */
int v10_services_check(const v10_service *svc, size_t n, const char *path, const v10_npu *npu,
                       v10_err *err);

/* ---- placement (src/fleet/fleet.c) ------------------------------------------------- */

typedef enum v10_placement {
    V10_PLACE_CLUSTER = 0,  /* cluster-pair gains, greedy + pairwise swaps */
    V10_PLACE_GREEDY,       /* greedy complementarity of standalone utilizations */
    V10_PLACE_RANDOM,       /* seeded shuffle dealt round robin */
} v10_placement;
#define V10_PLACEMENTS 3
const char *v10_placement_name(v10_placement p);

typedef struct v10_fleet_opts {
    size_t npus;               /* M >= 1; every NPU gets >= 2 services */
    v10_run_config base;       /* NPU, policy, requests, seed, contention */
    v10_colloc_opts colloc;    /* clustering parameters */
    int threads;
    int progress;              /* draw progress bars */
} v10_fleet_opts;

typedef struct v10_fleet_service_result {
    size_t npu;                /* where it was placed */
    double np, throughput_rps, lat_avg_us, lat_p95_us;
} v10_fleet_service_result;

/* One placement's outcome.  Invariants: npu_of[i] < M for each of the n
 * services; every NPU holds at least two; svc[i].npu == npu_of[i]. */
typedef struct v10_fleet_plan {
    v10_placement how;
    size_t *npu_of;                    /* n services: NPU index */
    v10_fleet_service_result *svc;     /* n services */
    double *npu_util, *npu_stp;        /* M NPUs: overall utilization, STP */
    double util_overall, util_sa, util_vu; /* mean over NPUs */
    double stp_total;                  /* sum over NPUs */
    double lat_p95_mean_us;            /* mean over services */
} v10_fleet_plan;

/* Invariant: plan[p].how == p for each placement p. */
typedef struct v10_fleet_result {
    size_t n, npus;
    v10_profile *prof;                 /* per service */
    int *cluster;                      /* per service */
    v10_fleet_plan plan[V10_PLACEMENTS];
} v10_fleet_result;

/* Profiles, clusters, places the services three ways and simulates every
 * NPU of every placement.  Needs n >= 2 * npus. */
int v10_fleet_run(const v10_service *svc, size_t n, const v10_fleet_opts *o,
                  v10_fleet_result *r, v10_err *err);
void v10_fleet_result_fini(v10_fleet_result *r);

/* ---- rendering (src/report/fleet_report.c) ---------------------------------------- */

/* Writes a fleet result (services svc[r->n], options o) as a table or JSON
 * (fmt), whole or not at all.  Returns -1 on allocation or write failure. */
int v10_fleet_report(const v10_fleet_result *r, const v10_service *svc, const v10_fleet_opts *o,
                     v10_format fmt, FILE *f);

#endif
