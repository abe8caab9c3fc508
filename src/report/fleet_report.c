/*
 * fleet_report.c — `v10sim fleet`'s result: each placement's fleet
 * utilization, total STP and p95 latency, and where every service went, as
 * a readable table or one JSON document, emitted whole or not at all.
 */
#include <stdlib.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/fleet.h"

typedef struct fleet_doc {
    const v10_fleet_result *r;
    const v10_service *svc;
    const v10_fleet_opts *o;
    int fmt_json;  /* else the table */
} fleet_doc;

static int write_json(const v10_fleet_result *r, const v10_service *svc,
                      const v10_fleet_opts *o, FILE *f)
{
    unsigned mark = v10_json_mark();
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", V10_VERSION);
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(cfg, "npu", o->base.npu.name);
    cJSON_AddStringToObject(cfg, "policy", o->base.policy);
    cJSON_AddNumberToObject(cfg, "npus", (double)o->npus);
    cJSON_AddNumberToObject(cfg, "services", (double)r->n);
    cJSON_AddNumberToObject(cfg, "requests", (double)o->base.requests);
    cJSON_AddNumberToObject(cfg, "k", (double)o->colloc.k);
    v10_json_add(cfg, "seed", v10_json_u64(o->base.seed));
    cJSON *pls = cJSON_AddArrayToObject(root, "placements");
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        const v10_fleet_plan *pp = &r->plan[p];
        cJSON *pl = cJSON_CreateObject();
        cJSON_AddStringToObject(pl, "placement", v10_placement_name(pp->how));
        cJSON_AddNumberToObject(pl, "util_overall", pp->util_overall);
        cJSON_AddNumberToObject(pl, "util_sa", pp->util_sa);
        cJSON_AddNumberToObject(pl, "util_vu", pp->util_vu);
        cJSON_AddNumberToObject(pl, "stp_total", pp->stp_total);
        cJSON_AddNumberToObject(pl, "lat_p95_mean_us", pp->lat_p95_mean_us);
        cJSON *npus = cJSON_AddArrayToObject(pl, "npus");
        for (size_t j = 0; j < r->npus; j++) {
            cJSON *nj = cJSON_CreateObject();
            cJSON_AddNumberToObject(nj, "npu", (double)j);
            cJSON_AddNumberToObject(nj, "util_overall", pp->npu_util[j]);
            cJSON_AddNumberToObject(nj, "stp", pp->npu_stp[j]);
            cJSON *mem = cJSON_AddArrayToObject(nj, "services");
            for (size_t i = 0; i < r->n; i++)
                if (pp->npu_of[i] == j)
                    cJSON_AddItemToArray(mem, cJSON_CreateString(svc[i].name));
            cJSON_AddItemToArray(npus, nj);
        }
        cJSON *ss = cJSON_AddArrayToObject(pl, "services");
        for (size_t i = 0; i < r->n; i++) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "name", svc[i].name);
            cJSON_AddStringToObject(s, "model", svc[i].spec.model);
            cJSON_AddNumberToObject(s, "cluster", r->cluster[i]);
            cJSON_AddNumberToObject(s, "npu", (double)pp->svc[i].npu);
            cJSON_AddNumberToObject(s, "np", pp->svc[i].np);
            cJSON_AddNumberToObject(s, "throughput_rps", pp->svc[i].throughput_rps);
            cJSON_AddNumberToObject(s, "lat_avg_us", pp->svc[i].lat_avg_us);
            cJSON_AddNumberToObject(s, "lat_p95_us", pp->svc[i].lat_p95_us);
            cJSON_AddItemToArray(ss, s);
        }
        cJSON_AddItemToArray(pls, pl);
    }
    return v10_doc_json(root, mark, f); /* never a document with holes */
}

static int write_table(const v10_fleet_result *r, const v10_service *svc,
                       const v10_fleet_opts *o, FILE *f)
{
    int rc = 0;
    fprintf(f, "v10sim %s  npu %s  policy %s  %zu services on %zu NPUs  %llu requests/service  "
           "seed %llu\n\n",
           V10_VERSION, o->base.npu.name, o->base.policy, r->n, r->npus,
           (unsigned long long)o->base.requests, (unsigned long long)o->base.seed);
    v10_tab *t = v10_tab_create();
    static const v10_col_spec placement_cols[] = {
        {"placement", V10_COL_STR, 0}, {"util.overall", V10_COL_REAL, 3},
        {"util.sa", V10_COL_REAL, 3}, {"util.vu", V10_COL_REAL, 3},
        {"stp_total", V10_COL_REAL, 3}, {"p95_us_mean", V10_COL_REAL, 1},
    };
    v10_tab_cols(t, placement_cols, sizeof placement_cols / sizeof placement_cols[0]);
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        const v10_fleet_plan *pp = &r->plan[p];
        v10_tab_row(t);
        v10_tab_str(t, v10_placement_name(pp->how));
        v10_tab_real(t, pp->util_overall);
        v10_tab_real(t, pp->util_sa);
        v10_tab_real(t, pp->util_vu);
        v10_tab_real(t, pp->stp_total);
        v10_tab_real(t, pp->lat_p95_mean_us);
    }
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    fprintf(f, "\n");
    t = v10_tab_create();
    static const v10_col_spec service_cols[] = {
        {"service", V10_COL_STR, 0}, {"model", V10_COL_STR, 0}, {"cluster", V10_COL_INT, 0},
    };
    v10_tab_cols(t, service_cols, sizeof service_cols / sizeof service_cols[0]);
    for (int p = 0; p < V10_PLACEMENTS; p++) {
        char c1[64], c2[64], c3[64];
        snprintf(c1, sizeof c1, "%s.npu", v10_placement_name((v10_placement)p));
        snprintf(c2, sizeof c2, "%s.np", v10_placement_name((v10_placement)p));
        snprintf(c3, sizeof c3, "%s.p95_us", v10_placement_name((v10_placement)p));
        v10_tab_col(t, c1, V10_COL_INT, 0);
        v10_tab_col(t, c2, V10_COL_REAL, 3);
        v10_tab_col(t, c3, V10_COL_REAL, 1);
    }
    for (size_t i = 0; i < r->n; i++) {
        v10_tab_row(t);
        v10_tab_str(t, svc[i].name);
        v10_tab_str(t, svc[i].spec.model);
        v10_tab_int(t, r->cluster[i]);
        for (int p = 0; p < V10_PLACEMENTS; p++) {
            v10_tab_int(t, (int64_t)r->plan[p].svc[i].npu);
            v10_tab_real(t, r->plan[p].svc[i].np);
            v10_tab_real(t, r->plan[p].svc[i].lat_p95_us);
        }
    }
    rc |= v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    return rc;
}


static int write_doc(const void *ctx, FILE *f)
{
    const fleet_doc *d = ctx;
    return d->fmt_json ? write_json(d->r, d->svc, d->o, f) : write_table(d->r, d->svc, d->o, f);
}

int v10_fleet_report(const v10_fleet_result *r, const v10_service *svc, const v10_fleet_opts *o,
                     v10_format fmt, FILE *f)
{
    fleet_doc d = {r, svc, o, fmt == V10_FMT_JSON};
    return v10_doc_emit(write_doc, &d, f);
}
