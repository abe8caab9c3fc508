/*
 * trace.c — a traced run as Chrome trace-event JSON, which the Perfetto UI
 * (ui.perfetto.dev) and chrome://tracing open.  Process 1 is the NPU with
 * one track per FU (SA0, SA1, ..., VU0, ...); process 2 holds one track per
 * tenant with its requests.  Timestamps are microseconds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "v10/report.h"

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int v10_trace_write(const v10_trace *tr, const v10_run_config *cfg, const v10_run_result *r,
                    FILE *f, v10_err *err)
{
    size_t nt = cfg->n_tenants;
    const v10_model *models = cfg->models;
    if (!models)
        return v10_err_set(err, "trace: the run's models are needed (v10_run_config.models)");
    /* Every record must name a tenant, FU and operator of this run: check
     * them all before writing anything. */
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *e = &tr->recs[k];
        int req = e->kind == V10_TR_REQUEST;
        if (e->tenant < 0 || (size_t)e->tenant >= nt || e->kind > V10_TR_REQUEST ||
            (!req && (e->fu < 0 || (size_t)e->fu >= r->n_fus)) ||
            (e->kind == V10_TR_OP && e->op >= models[e->tenant].n_ops))
            return v10_err_set(err, "trace: record %zu does not match the run's models", k);
    }
    double mhz = cfg->npu.clock_mhz;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"version\":\"%s\",\"policy\":",
            V10_VERSION);
    json_str(f, cfg->policy);
    fprintf(f, ",\"npu\":");
    json_str(f, cfg->npu.name);
    fprintf(f, ",\"seed\":%llu,\"clock_mhz\":%g},\n\"traceEvents\":[\n",
            (unsigned long long)cfg->seed, mhz);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"NPU\"}},\n");
    int idx[V10_FU_TYPES] = {0, 0};
    for (size_t i = 0; i < r->n_fus; i++) {
        const v10_fu_result *u = &r->fus[i];
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%zu,"
                   "\"args\":{\"name\":\"%s%d\"}},\n",
                i, u->type == V10_FU_SA ? "SA" : "VU", idx[u->type]++);
        fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%zu,"
                   "\"args\":{\"sort_index\":%zu}},\n", i, i);
    }
    for (size_t i = 0; i < nt; i++) {
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":%zu,\"args\":{\"name\":", i);
        json_str(f, r->tenants[i].name);
        fprintf(f, "}},\n");
    }
    /* The last metadata line has no comma: each record below brings its own. */
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"tenants\"}}");
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *e = &tr->recs[k];
        double ts = (double)e->start / mhz, dur = (double)(e->end - e->start) / mhz;
        char label[160];
        fputs(",\n", f);
        switch ((v10_trace_kind)e->kind) {
        case V10_TR_OP:
            snprintf(label, sizeof label, "t%d:%s", e->tenant,
                     models[e->tenant].ops[e->op].name);
            fprintf(f, "{\"name\":");
            json_str(f, label);
            fprintf(f, ",\"cat\":\"op\",\"ph\":\"X\",\"ts\":%.4f,\"dur\":%.4f,\"pid\":1,"
                       "\"tid\":%d,\"args\":{\"tenant\":%d,\"op\":%u,\"start_cycle\":%llu,"
                       "\"end_cycle\":%llu}}",
                    ts, dur, e->fu, e->tenant, e->op, (unsigned long long)e->start,
                    (unsigned long long)e->end);
            break;
        case V10_TR_SWITCH:
            fprintf(f, "{\"name\":\"context switch\",\"cat\":\"switch\",\"ph\":\"X\","
                       "\"ts\":%.4f,\"dur\":%.4f,\"pid\":1,\"tid\":%d,\"args\":{\"tenant\":%d}}",
                    ts, dur, e->fu, e->tenant);
            break;
        case V10_TR_PREEMPT:
            fprintf(f, "{\"name\":\"preempt t%d\",\"cat\":\"preempt\",\"ph\":\"i\",\"s\":\"t\","
                       "\"ts\":%.4f,\"pid\":1,\"tid\":%d,\"args\":{\"tenant\":%d,\"op\":%u}}",
                    e->tenant, ts, e->fu, e->tenant, e->op);
            break;
        case V10_TR_REQUEST:
            fprintf(f, "{\"name\":\"request %u\",\"cat\":\"request\",\"ph\":\"X\",\"ts\":%.4f,"
                       "\"dur\":%.4f,\"pid\":2,\"tid\":%d}",
                    e->op, ts, dur, e->tenant);
            break;
        }
    }
    fprintf(f, "\n]}\n");
    return ferror(f) ? v10_err_set(err, "trace: write error: %s", strerror(errno)) : 0;
}
