/*
 * run_report.c — one run's result as JSON (the schema documented in the
 * README), a readable summary table, or CSV (one row per tenant).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/num.h"
#include "v10/cost.h"
#include "v10/llm_server.h"
#include "v10/report.h"

static cJSON *num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void add_num(cJSON *o, const char *k, double v) { v10_json_add(o, k, num_or_null(v)); }

/* {avg, p50, p95, p99} of an LLM metric, µs. */
static void add_dist(cJSON *o, const char *k, const v10_llm_dist *d)
{
    cJSON *j = cJSON_AddObjectToObject(o, k);
    add_num(j, "avg", d->avg);
    add_num(j, "p50", d->p50);
    add_num(j, "p95", d->p95);
    add_num(j, "p99", d->p99);
}

/* An LLM server's fields (docs/llm.md "Metrics"); slo_* null without an SLO. */
static void add_llm(cJSON *j, const v10_tenant_result *t)
{
    add_dist(j, "ttft_us", &t->ttft_us);
    add_dist(j, "tpot_us", &t->tpot_us);
    add_dist(j, "e2e_us", &t->e2e_us);
    add_dist(j, "queue_us", &t->queue_us);
    add_num(j, "llm_requests", (double)t->llm_requests);
    add_num(j, "tokens", (double)t->llm_tokens);
    add_num(j, "tokens_per_s", t->tokens_per_s);
    add_num(j, "tokens_per_s_active", t->tokens_per_s_active);
    add_num(j, "slo_ttft", t->slo_ttft >= 0 ? t->slo_ttft : NAN);
    add_num(j, "slo_tpot", t->slo_tpot >= 0 ? t->slo_tpot : NAN);
    add_num(j, "kv_peak_tokens", (double)t->kv_peak_tokens);
    add_num(j, "kv_capacity_tokens", (double)t->kv_capacity_tokens);
    add_num(j, "kv_preemptions", (double)t->kv_preemptions);
    add_num(j, "prefills", (double)t->prefills);
    add_num(j, "decodes", (double)t->decodes);
}

/* 1 if any tenant is an LLM server (their columns appear only then, so
 * other runs' outputs are unchanged): known from the configuration, before
 * any run, so that a comparison of several policies has them too. */
static int any_llm(const v10_run_config *cfg)
{
    for (size_t i = 0; i < cfg->n_tenants; i++)
        if (cfg->tenants[i].llm)
            return 1;
    return 0;
}

/* Tenant i's states (cycles over the window) and, for every other tenant,
 * what it lost to it: in total and by state (docs/formats.md). */
static void add_attribution(cJSON *j, const v10_run_result *r, size_t i)
{
    const v10_tenant_result *t = &r->tenants[i];
    cJSON *s = cJSON_AddObjectToObject(j, "states_cycles");
    for (int k = 0; k < V10_ATTR_STATES; k++)
        add_num(s, v10_attr_name((v10_attr_state)k), t->state_cycles[k]);
    cJSON *l = cJSON_AddObjectToObject(j, "lost_to");
    for (size_t p = 0; p < r->n_tenants; p++) {
        if (p == i)
            continue;
        const double *row = t->lost_to + p * V10_ATTR_STATES;
        cJSON *o = cJSON_AddObjectToObject(l, r->tenants[p].name);
        double sum = 0;
        for (int k = 0; k < V10_ATTR_STATES; k++)
            sum += row[k];
        add_num(o, "total", sum);
        for (int k = 0; k < V10_ATTR_STATES; k++)
            if (row[k] > 0)
                add_num(o, v10_attr_name((v10_attr_state)k), row[k]);
    }
}

/* The window's energy by unit and state, and its static/dynamic split
 * (docs/energy.md). */
static void add_energy(cJSON *o, const v10_energy_result *en)
{
    cJSON *j = cJSON_AddObjectToObject(o, "energy");
    add_num(j, "static_j", en->static_j);
    add_num(j, "dynamic_j", en->dynamic_j);
    for (int u = 0; u < V10_EN_UNITS; u++) {
        cJSON *x = cJSON_AddObjectToObject(j, v10_energy_unit_name((v10_energy_unit)u));
        for (int s = 0; s < V10_EN_STATES; s++)
            add_num(x, v10_energy_state_name((v10_energy_state)s), en->unit_j[u][s]);
    }
}

static cJSON *config_json(const v10_run_config *cfg)
{
    cJSON *c = cJSON_CreateObject();
    v10_json_add(c, "npu", v10_npu_to_json(&cfg->npu));
    cJSON_AddStringToObject(c, "policy", cfg->policy);
    /* Every policy parameter (not only the run policy's), by its flat key,
     * with the value in effect: a choice as its word. */
    cJSON *p = cJSON_AddObjectToObject(c, "params");
    const v10_param_def *defs[V10_PARAM_FIELDS_MAX];
    size_t nd = v10_param_fields(defs, V10_PARAM_FIELDS_MAX);
    for (size_t k = 0; k < nd; k++) {
        const v10_param_def *d = defs[k];
        double v = v10_param_get(&cfg->params, d);
        if (d->type == V10_PARAM_CHOICE) {
            char word[64];
            v10_param_format(d, &cfg->params, &cfg->npu, word, sizeof word);
            cJSON_AddStringToObject(p, d->key, word);
        } else {
            add_num(p, d->key, d->effective ? d->effective(v, &cfg->npu) : v);
        }
    }
    cJSON *ts = cJSON_AddArrayToObject(c, "tenants");
    for (size_t i = 0; i < cfg->n_tenants; i++) {
        const v10_tenant_spec *s = &cfg->tenants[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "model", s->model);
        add_num(t, "priority", s->priority);
        add_num(t, "rate_rps", s->rate_rps);
        add_num(t, "outstanding", s->outstanding);
        add_num(t, "slo_us", s->slo_us);
        if (s->llm) {
            cJSON_AddStringToObject(t, s->llm == 1 ? "trace" : "lengths", s->llm_file);
            add_num(t, "rate_scale", s->rate_scale);
            add_num(t, "start_s", s->start_s);
            v10_llm_server_opts def; /* 0: the server's default, shown as such */
            v10_llm_server_opts_default(&def);
            add_num(t, "max_batch", s->max_batch ? s->max_batch : def.max_batch);
            add_num(t, "max_prefill_tokens", (double)(s->max_prefill_tokens
                                                          ? s->max_prefill_tokens
                                                          : def.max_prefill_tokens));
            add_num(t, "chunked_prefill", !s->whole_prefill);
            if (s->llm_requests) /* only when given: other runs' outputs unchanged */
                add_num(t, "requests", (double)s->llm_requests);
            add_num(t, "slo_ttft_ms", s->slo_ttft_ms);
            add_num(t, "slo_tpot_ms", s->slo_tpot_ms);
        }
        v10_json_push(ts, t);
    }
    add_num(c, "requests", (double)cfg->requests);
    add_num(c, "warmup", (double)cfg->warmup);
    v10_json_add(c, "seed", v10_json_u64(cfg->seed));
    cJSON_AddBoolToObject(c, "contention", cfg->contention);
    cJSON_AddStringToObject(c, "preempt", v10_preempt_name(cfg->preempt));
    return c;
}

cJSON *v10_report_run_json(const v10_run_config *cfg, const v10_run_result *r)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "version", V10_VERSION);
    v10_json_add(o, "config", config_json(cfg));
    v10_json_add(o, "settings", v10_report_settings_json(cfg)); /* what reproduces it */
    v10_json_add(o, "seed", v10_json_u64(cfg->seed));
    cJSON_AddStringToObject(o, "policy", cfg->policy);
    add_num(o, "window_cycles", (double)(r->window_end - r->window_start));
    cJSON *w = cJSON_AddObjectToObject(o, "window");
    add_num(w, "start_cycle", (double)r->window_start);
    add_num(w, "end_cycle", (double)r->window_end);
    add_num(w, "run_end_cycle", (double)r->end_cycle);
    cJSON *u = cJSON_AddObjectToObject(o, "utilization");
    add_num(u, "sa", r->util_sa);
    add_num(u, "vu", r->util_vu);
    add_num(u, "hbm", r->util_hbm);
    add_num(u, "overall", r->util_overall);
    add_num(u, "overlap", r->overlap);
    add_num(u, "sa_flops", r->util_sa_flops);
    cJSON *s = cJSON_AddObjectToObject(o, "system");
    add_num(s, "stp", r->stp);
    add_num(s, "antt", r->antt);
    add_num(s, "fairness", r->fairness);
    add_num(s, "jain", r->jain);
    const v10_energy_result *en = &r->energy;
    add_num(s, "energy_j", en->total_j);
    add_num(s, "power_w", en->power_w);
    add_num(s, "inferences_per_j", en->inferences_per_j);
    add_num(s, "energy_unattributed_j", en->unattributed_j);
    add_energy(o, en);
    cJSON *ov = cJSON_AddObjectToObject(o, "overheads");
    add_num(ov, "preemptions", (double)r->preemptions);
    add_num(ov, "context_switches", (double)r->context_switches);
    add_num(ov, "switch_cycles", (double)r->switch_cycles);
    cJSON *ts = cJSON_AddArrayToObject(o, "tenants");
    for (size_t i = 0; i < r->n_tenants; i++) {
        const v10_tenant_result *t = &r->tenants[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", t->name);
        cJSON_AddStringToObject(j, "model", t->model);
        add_num(j, "batch", t->batch);
        add_num(j, "priority", t->priority);
        add_num(j, "completed", (double)t->completed);
        add_num(j, "throughput_rps", t->throughput_rps);
        add_num(j, "np", t->np);
        double alone = v10_npu_cycles_to_us(&cfg->npu, (double)t->alone_cycles);
        add_num(j, "alone_latency_us", t->llm ? NAN : alone); /* a server: null */
        cJSON *l = cJSON_AddObjectToObject(j, "latency_us");
        add_num(l, "avg", t->lat_avg_us);
        add_num(l, "p50", t->lat_p50_us);
        add_num(l, "p95", t->lat_p95_us);
        add_num(l, "p99", t->lat_p99_us);
        if (t->slo_attainment >= 0)
            add_num(j, "slo_attainment", t->slo_attainment);
        else
            cJSON_AddNullToObject(j, "slo_attainment");
        add_num(j, "preemptions", (double)t->preemptions);
        add_num(j, "active_cycles", (double)t->active_cycles);
        add_num(j, "energy_j", t->energy_j);
        add_num(j, "energy_per_request_j", t->energy_per_request_j);
        if (!cfg->no_attribution) /* else nothing was counted */
            add_attribution(j, r, i);
        if (t->llm)
            add_llm(j, t);
        v10_json_push(ts, j);
    }
    cJSON *fs = cJSON_AddArrayToObject(o, "fus");
    int idx[V10_FU_TYPES] = {0};
    for (size_t i = 0; i < r->n_fus; i++) {
        const v10_fu_result *f = &r->fus[i];
        cJSON *j = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "%s%d", v10_fu_name((v10_fu_type)f->type), idx[f->type]++);
        cJSON_AddStringToObject(j, "name", name);
        add_num(j, "owner", f->owner);
        add_num(j, "speed", f->speed);
        add_num(j, "exec_cycles", (double)f->exec_cycles);
        add_num(j, "switch_cycles", (double)f->switch_cycles);
        v10_json_push(fs, j);
    }
    cJSON *p = cJSON_AddObjectToObject(o, "perf");
    add_num(p, "events", (double)r->events);
    add_num(p, "events_estimated", r->events_estimated); /* the run-length check's */
    add_num(p, "wall_seconds", r->wall_seconds);
    if (v10_json_failed_since(mark)) { /* never a document with holes */
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static void tenant_cols(v10_tab *t)
{
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    v10_tab_col(t, "batch", V10_COL_INT, 0);
    v10_tab_col(t, "prio", V10_COL_REAL, 2);
    v10_tab_col(t, "done", V10_COL_INT, 0);
    v10_tab_col(t, "thru_rps", V10_COL_REAL, 2);
    v10_tab_col(t, "np", V10_COL_REAL, 3);
    v10_tab_col(t, "lat_avg_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p50_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p95_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p99_us", V10_COL_REAL, 1);
    v10_tab_col(t, "slo", V10_COL_REAL, 3);
    v10_tab_col(t, "preempt", V10_COL_INT, 0);
    v10_tab_col(t, "j_per_req", V10_COL_REAL, 4);
}

static void tenant_row(v10_tab *t, const v10_tenant_result *x)
{
    v10_tab_row(t);
    v10_tab_str(t, x->name);
    v10_tab_int(t, x->batch);
    v10_tab_real(t, x->priority);
    v10_tab_int(t, (int64_t)x->completed);
    v10_tab_real(t, x->throughput_rps);
    v10_tab_real(t, x->np);
    v10_tab_real(t, x->lat_avg_us);
    v10_tab_real(t, x->lat_p50_us);
    v10_tab_real(t, x->lat_p95_us);
    v10_tab_real(t, x->lat_p99_us);
    v10_tab_real(t, x->slo_attainment >= 0 ? x->slo_attainment : NAN);
    v10_tab_int(t, (int64_t)x->preemptions);
    v10_tab_real(t, x->energy_per_request_j);
}

/* An LLM server's columns: the table's in ms (a time is scaled); CSV's in
 * µs, as text so that a tenant that is not a server gets empty cells. */
static const struct {
    const char *tab, *csv;
    int decimals, time;
} LLM_COL[] = {
    {"reqs", "llm_requests", 0, 0},
    {"tok_s", "tokens_per_s", 1, 0},
    {"tok_s_act", "tokens_per_s_active", 1, 0},
    {"ttft_avg", "ttft_avg_us", 2, 1},
    {"ttft_p50", "ttft_p50_us", 2, 1},
    {"ttft_p95", "ttft_p95_us", 2, 1},
    {"ttft_p99", "ttft_p99_us", 2, 1},
    {"tpot_avg", "tpot_avg_us", 2, 1},
    {"tpot_p50", "tpot_p50_us", 2, 1},
    {"tpot_p95", "tpot_p95_us", 2, 1},
    {"tpot_p99", "tpot_p99_us", 2, 1},
    {"e2e_p50", "e2e_p50_us", 2, 1},
    {"e2e_p99", "e2e_p99_us", 2, 1},
    {"queue_avg", "queue_avg_us", 2, 1},
    {"slo_ttft", "slo_ttft", 3, 0},
    {"slo_tpot", "slo_tpot", 3, 0},
    {"kv_preempt", "kv_preemptions", 0, 0},
};
#define LLM_COLS (sizeof LLM_COL / sizeof *LLM_COL)

static void llm_cols(v10_tab *t, int csv)
{
    for (size_t k = 0; k < LLM_COLS; k++)
        v10_tab_col(t, csv ? LLM_COL[k].csv : LLM_COL[k].tab, csv ? V10_COL_STR : V10_COL_REAL,
                    LLM_COL[k].decimals);
}

/* The values in LLM_COL's order, times (µs) x scale; NAN for an undefined SLO. */
static void llm_values(const v10_tenant_result *x, double scale, double v[LLM_COLS])
{
    double in[LLM_COLS] = {(double)x->llm_requests, x->tokens_per_s, x->tokens_per_s_active,
                           x->ttft_us.avg, x->ttft_us.p50, x->ttft_us.p95, x->ttft_us.p99,
                           x->tpot_us.avg, x->tpot_us.p50, x->tpot_us.p95, x->tpot_us.p99,
                           x->e2e_us.p50, x->e2e_us.p99,
                           x->queue_us.avg, x->slo_ttft >= 0 ? x->slo_ttft : NAN,
                           x->slo_tpot >= 0 ? x->slo_tpot : NAN, (double)x->kv_preemptions};
    for (size_t k = 0; k < LLM_COLS; k++)
        v[k] = LLM_COL[k].time ? in[k] * scale : in[k];
}

static void llm_row(v10_tab *t, const v10_tenant_result *x, double scale)
{
    double v[LLM_COLS];
    llm_values(x, scale, v);
    for (size_t k = 0; k < LLM_COLS; k++)
        v10_tab_real(t, v[k]);
}

static void llm_csv_cells(v10_tab *t, const v10_tenant_result *x)
{
    double v[LLM_COLS];
    llm_values(x, 1, v);
    for (size_t k = 0; k < LLM_COLS; k++) {
        char buf[V10_NUM_MAX] = ""; /* CSV's rule: the shortest exact form */
        if (x->llm && !isnan(v[k]))
            v10_num_fmt(v[k], buf, sizeof buf);
        v10_tab_str(t, buf);
    }
}

static int write_table(const v10_run_config *cfg, const v10_run_result *r, FILE *f)
{
    double us = v10_npu_cycles_to_us(&cfg->npu, (double)(r->window_end - r->window_start));
    fprintf(f, "v10sim %s  policy %s  npu %s  seed %llu  contention %s\n", V10_VERSION,
            cfg->policy, cfg->npu.name, (unsigned long long)cfg->seed,
            cfg->contention ? "on" : "off");
    fprintf(f, "window: cycles %llu..%llu (%.1f us), %llu requests/tenant, %llu warm-up\n\n",
            (unsigned long long)r->window_start, (unsigned long long)r->window_end, us,
            (unsigned long long)cfg->requests, (unsigned long long)cfg->warmup);
    fprintf(f, "utilization  SA %5.1f%%  VU %5.1f%%  overall %5.1f%%  HBM %5.1f%%  "
               "SA+VU overlap %5.1f%%  SA FLOPs %5.1f%%\n",
            100 * r->util_sa, 100 * r->util_vu, 100 * r->util_overall, 100 * r->util_hbm,
            100 * r->overlap, 100 * r->util_sa_flops);
    fprintf(f, "system       STP %.3f  ANTT %.3f  fairness %.3f  Jain %.3f\n", r->stp, r->antt,
            r->fairness, r->jain);
    fprintf(f, "overheads    %llu preemptions, %llu context switches, %llu FU-cycles switching\n\n",
            (unsigned long long)r->preemptions, (unsigned long long)r->context_switches,
            (unsigned long long)r->switch_cycles);
    const v10_energy_result *en = &r->energy;
    fprintf(f, "energy       %.4g J  power %.1f W  %.4g inferences/J  static %.1f%%  "
               "unattributed %.4g J (docs/energy.md)\n\n",
            en->total_j, en->power_w, en->inferences_per_j,
            en->total_j > 0 ? 100 * en->static_j / en->total_j : 0.0, en->unattributed_j);
    v10_tab *t = v10_tab_create();
    tenant_cols(t);
    for (size_t i = 0; i < r->n_tenants; i++)
        tenant_row(t, &r->tenants[i]);
    int rc = v10_tab_write(t, V10_FMT_TABLE, f);
    v10_tab_destroy(t);
    if (!rc && !cfg->no_attribution) {
        fprintf(f, "\nwhere the time went (%% of the window; lost: to the other tenants, "
                   "most_to: the one it lost most to; docs/attribution.md)\n");
        t = v10_tab_create();
        v10_report_time_cols(t, cfg);
        v10_report_time_rows(t, cfg, r);
        rc = v10_tab_write(t, V10_FMT_TABLE, f);
        v10_tab_destroy(t);
    }
    if (!rc && any_llm(cfg)) {
        fprintf(f, "\nLLM serving (ms; over the window's requests; np and STP leave servers out)\n");
        t = v10_tab_create();
        v10_tab_col(t, "tenant", V10_COL_STR, 0);
        llm_cols(t, 0);
        for (size_t i = 0; i < r->n_tenants; i++)
            if (r->tenants[i].llm) {
                v10_tab_row(t);
                v10_tab_str(t, r->tenants[i].name);
                llm_row(t, &r->tenants[i], 1e-3);
            }
        rc = v10_tab_write(t, V10_FMT_TABLE, f);
        v10_tab_destroy(t);
    }
    fprintf(f, "\n%llu events in %.3f s\n", (unsigned long long)r->events, r->wall_seconds);
    return rc;
}

void v10_report_compare_cols(v10_tab *t)
{
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "sa", V10_COL_REAL, 3);
    v10_tab_col(t, "vu", V10_COL_REAL, 3);
    v10_tab_col(t, "hbm", V10_COL_REAL, 3);
    v10_tab_col(t, "overall", V10_COL_REAL, 3);
    v10_tab_col(t, "overlap", V10_COL_REAL, 3);
    v10_tab_col(t, "stp", V10_COL_REAL, 3);
    v10_tab_col(t, "antt", V10_COL_REAL, 3);
    v10_tab_col(t, "fairness", V10_COL_REAL, 3);
    v10_tab_col(t, "preemptions", V10_COL_INT, 0);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    v10_tab_col(t, "np", V10_COL_REAL, 3);
    v10_tab_col(t, "thru_rps", V10_COL_REAL, 2);
    v10_tab_col(t, "lat_avg_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p50_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p95_us", V10_COL_REAL, 1);
    v10_tab_col(t, "lat_p99_us", V10_COL_REAL, 1);
    v10_tab_col(t, "slo", V10_COL_REAL, 3);
}

void v10_report_system_cells(v10_tab *t, const v10_run_result *r)
{
    const double v[] = {r->util_sa, r->util_vu, r->util_hbm, r->util_overall,
                        r->overlap, r->stp,     r->antt,     r->fairness};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        v10_tab_real(t, v[i]);
}

/* Tenant i's row of v10_report_compare_row. */
static void compare_row(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r,
                        size_t i)
{
    const v10_tenant_result *x = &r->tenants[i];
    v10_tab_row(t);
    v10_tab_str(t, cfg->policy);
    v10_report_system_cells(t, r);
    v10_tab_int(t, (int64_t)r->preemptions);
    v10_tab_str(t, x->name);
    v10_tab_real(t, x->np);
    v10_tab_real(t, x->throughput_rps);
    v10_tab_real(t, x->lat_avg_us);
    v10_tab_real(t, x->lat_p50_us);
    v10_tab_real(t, x->lat_p95_us);
    v10_tab_real(t, x->lat_p99_us);
    v10_tab_real(t, x->slo_attainment >= 0 ? x->slo_attainment : NAN);
}

void v10_report_compare_row(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    for (size_t i = 0; i < r->n_tenants; i++)
        compare_row(t, cfg, r, i);
}

static void attr_cells(v10_tab *t, const v10_run_result *r, size_t i);

int v10_report_run(const v10_run_config *cfg, const v10_run_result *r, v10_format fmt, FILE *f)
{
    if (fmt == V10_FMT_TABLE)
        return write_table(cfg, r, f);
    if (fmt == V10_FMT_CSV) {
        v10_tab *t = v10_tab_create();
        v10_report_compare_attr_cols(t, cfg);
        v10_report_compare_attr_row(t, cfg, r);
        int rc = v10_tab_write(t, V10_FMT_CSV, f);
        v10_tab_destroy(t);
        return rc;
    }
    cJSON *j = v10_report_run_json(cfg, r);
    char *s = v10_json_print(j, 1);
    cJSON_Delete(j);
    if (!s)
        return -1;
    fputs(s, f);
    fputc('\n', f);
    free(s);
    return ferror(f) ? -1 : 0;
}

/* ---- where the time went (docs/attribution.md) ------------------------------- */

/* Cycles tenant i lost to partner p, over every state. */
static double lost_to(const v10_tenant_result *x, size_t p)
{
    double sum = 0;
    for (int k = 0; k < V10_ATTR_STATES; k++)
        sum += x->lost_to[p * V10_ATTR_STATES + k];
    return sum;
}

/* Whether the table shows state k: every one but the link engine's wait
 * on one chip, which has no link engine. */
static int time_col_shown(const v10_run_config *cfg, int k)
{
    return k != V10_ATTR_WAIT_ICI || cfg->npu.chips > 1;
}

void v10_report_time_cols(v10_tab *t, const v10_run_config *cfg)
{
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    for (int k = 0; k < V10_ATTR_STATES; k++)
        if (time_col_shown(cfg, k))
            v10_tab_col(t, v10_attr_name((v10_attr_state)k), V10_COL_REAL, 1);
    v10_tab_col(t, "lost", V10_COL_REAL, 1);
    v10_tab_col(t, "most_to", V10_COL_STR, 0);
}

void v10_report_time_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    double w = (double)(r->window_end - r->window_start);
    double pct = w > 0 ? 100 / w : 0;
    for (size_t i = 0; i < r->n_tenants; i++) {
        const v10_tenant_result *x = &r->tenants[i];
        v10_tab_row(t);
        v10_tab_str(t, cfg->policy);
        v10_tab_str(t, x->name);
        for (int k = 0; k < V10_ATTR_STATES; k++)
            if (time_col_shown(cfg, k))
                v10_tab_real(t, pct * x->state_cycles[k]);
        double all = 0, most = 0;
        size_t to = 0;
        for (size_t p = 0; p < r->n_tenants; p++) {
            double c = p == i ? 0 : lost_to(x, p);
            all += c;
            if (c > most)
                most = c, to = p;
        }
        char who[16] = "-";
        if (most > 0)
            snprintf(who, sizeof who, "t%zu", to);
        v10_tab_real(t, pct * all);
        v10_tab_str(t, who);
    }
}

void v10_report_compare_attr_cols(v10_tab *t, const v10_run_config *cfg)
{
    size_t n_tenants = cfg->n_tenants;
    v10_report_compare_cols(t);
    char name[64];
    for (int k = 0; k < V10_ATTR_STATES; k++) {
        snprintf(name, sizeof name, "%s_cycles", v10_attr_name((v10_attr_state)k));
        v10_tab_col(t, name, V10_COL_REAL, 0);
    }
    for (size_t p = 0; p < n_tenants; p++) {
        snprintf(name, sizeof name, "lost_to_t%zu_cycles", p);
        v10_tab_col(t, name, V10_COL_REAL, 0);
    }
    static const char *const energy[] = {"energy_j", "power_w", "inferences_per_j",
                                         "energy_unattributed_j", "tenant_energy_j",
                                         "energy_per_request_j"};
    for (size_t k = 0; k < sizeof energy / sizeof *energy; k++)
        v10_tab_col(t, energy[k], V10_COL_REAL, 6);
    if (any_llm(cfg))
        llm_cols(t, 1);
}

/* Tenant i's attribution cells (v10_report_compare_attr_cols). */
static void attr_cells(v10_tab *t, const v10_run_result *r, size_t i)
{
    const v10_tenant_result *x = &r->tenants[i];
    for (int k = 0; k < V10_ATTR_STATES; k++)
        v10_tab_real(t, x->state_cycles[k]);
    for (size_t p = 0; p < r->n_tenants; p++)
        v10_tab_real(t, lost_to(x, p));
    const v10_energy_result *en = &r->energy;
    const double v[] = {en->total_j, en->power_w, en->inferences_per_j, en->unattributed_j,
                        x->energy_j, x->energy_per_request_j};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        v10_tab_real(t, v[k]);
}

/* ---- energy (docs/energy.md) ----------------------------------------------------- */

void v10_report_energy_cols(v10_tab *t)
{
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "energy_j", V10_COL_REAL, 4);
    v10_tab_col(t, "power_w", V10_COL_REAL, 1);
    v10_tab_col(t, "inf_per_j", V10_COL_REAL, 3);
    v10_tab_col(t, "static_pct", V10_COL_REAL, 1);
    v10_tab_col(t, "unattr_j", V10_COL_REAL, 4);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    v10_tab_col(t, "tenant_j", V10_COL_REAL, 4);
    v10_tab_col(t, "j_per_req", V10_COL_REAL, 4);
}

void v10_report_energy_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    const v10_energy_result *en = &r->energy;
    for (size_t i = 0; i < r->n_tenants; i++) {
        const v10_tenant_result *x = &r->tenants[i];
        v10_tab_row(t);
        v10_tab_str(t, cfg->policy);
        v10_tab_real(t, en->total_j);
        v10_tab_real(t, en->power_w);
        v10_tab_real(t, en->inferences_per_j);
        v10_tab_real(t, en->total_j > 0 ? 100 * en->static_j / en->total_j : NAN);
        v10_tab_real(t, en->unattributed_j);
        v10_tab_str(t, x->name);
        v10_tab_real(t, x->energy_j);
        v10_tab_real(t, x->energy_per_request_j);
    }
}

void v10_report_compare_attr_row(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    int llm = any_llm(cfg);
    for (size_t i = 0; i < r->n_tenants; i++) {
        compare_row(t, cfg, r, i);
        attr_cells(t, r, i);
        if (llm)
            llm_csv_cells(t, &r->tenants[i]);
    }
}

void v10_report_op_cols(v10_tab *t)
{
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    v10_tab_col(t, "op", V10_COL_INT, 0);
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "fu", V10_COL_STR, 0);
    v10_tab_col(t, "cycles", V10_COL_INT, 0);
    v10_tab_col(t, "hbm_bytes", V10_COL_INT, 0);
    v10_tab_col(t, "stall_alone_cycles", V10_COL_INT, 0);
    v10_tab_col(t, "stallfree_gbps", V10_COL_REAL, 3);
    char name[40];
    for (int s = 0; s < V10_ATTR_IDLE; s++) { /* idle belongs to no operator */
        snprintf(name, sizeof name, "%s_cycles", v10_attr_name((v10_attr_state)s));
        v10_tab_col(t, name, V10_COL_REAL, 1);
    }
    v10_tab_col(t, "stalled_cycles", V10_COL_REAL, 1);
}

void v10_report_op_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    for (size_t i = 0; i < r->n_tenants; i++) {
        const v10_tenant_result *tr = &r->tenants[i];
        const v10_model *m = cfg->models ? &cfg->models[i] : NULL;
        if (!tr->op_states || !m || m->n_ops != tr->n_ops)
            continue;
        for (size_t k = 0; k < tr->n_ops; k++) {
            const v10_op *op = &m->ops[k];
            const double *st = tr->op_states + k * V10_ATTR_STATES;
            v10_tab_row(t);
            v10_tab_str(t, cfg->policy);
            v10_tab_str(t, tr->name);
            v10_tab_int(t, (int64_t)k);
            v10_tab_str(t, op->name);
            v10_tab_str(t, v10_fu_name(op->fu));
            v10_tab_int(t, (int64_t)op->cycles);
            v10_tab_int(t, (int64_t)op->hbm_bytes);
            v10_tab_int(t, (int64_t)v10_cost_stall_cycles(op));
            v10_tab_real(t, v10_cost_stallfree_gbps(&cfg->npu, op));
            double stalled = 0;
            for (int s = 0; s < V10_ATTR_IDLE; s++) {
                v10_tab_real(t, st[s]);
                stalled += s == V10_ATTR_EXEC ? 0 : st[s];
            }
            v10_tab_real(t, stalled);
        }
    }
}

void v10_report_llm_cols(v10_tab *t)
{
    v10_tab_col(t, "policy", V10_COL_STR, 0);
    v10_tab_col(t, "tenant", V10_COL_STR, 0);
    llm_cols(t, 0);
}

int v10_report_llm_rows(v10_tab *t, const v10_run_config *cfg, const v10_run_result *r)
{
    int n = 0;
    for (size_t i = 0; i < r->n_tenants; i++)
        if (r->tenants[i].llm) {
            v10_tab_row(t);
            v10_tab_str(t, cfg->policy);
            v10_tab_str(t, r->tenants[i].name);
            llm_row(t, &r->tenants[i], 1e-3);
            n++;
        }
    return n;
}
