/*
 * trace.c — a traced run as Chrome trace-event JSON, which the Perfetto UI
 * (ui.perfetto.dev) and chrome://tracing open.  Process 1 is the NPU with
 * one track per FU (SA0, SA1, ..., VU0, ...); process 2 holds one track per
 * tenant with its requests; process 3 one per tenant with its attribution
 * state (docs/attribution.md); the NPU process also has the core's power
 * as a counter track (docs/energy.md).  Timestamps are microseconds.
 */
#include <errno.h>
#include <math.h>
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

/*
 * A cycle count as microseconds with four decimals (0.1 ns), exactly: the
 * cycle is rounded once to a whole number of 0.1 ns ticks, and a slice's
 * ts and dur both come from its rounded endpoints, so a slice that starts
 * where the previous one ended on a track starts exactly there (rounding
 * ts and dur separately made them overlap by 0.1 ns, and Perfetto then
 * nests them).  Double arithmetic is monotone, so the order is kept.
 */
static uint64_t ticks(uint64_t cycles, double mhz)
{
    return (uint64_t)llround((double)cycles * 1e4 / mhz);
}

static void fmt_us(uint64_t t, char *buf, size_t n)
{
    snprintf(buf, n, "%llu.%04u", (unsigned long long)(t / 10000), (unsigned)(t % 10000));
}

/* Whether a record falls in the written window (instants: from <= t < to). */
static int in_window(const v10_trace *tr, const v10_trace_rec *e)
{
    uint64_t to = tr->to_cycle ? tr->to_cycle : UINT64_MAX;
    return e->start < to && (e->end > tr->from_cycle || e->start >= tr->from_cycle);
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
        int req = e->kind >= V10_TR_REQUEST; /* requests, LLM iterations, power: no FU */
        /* An LLM server's operators change with each iteration: named by index. */
        int llm = e->tenant >= 0 && (size_t)e->tenant < nt && r->tenants[e->tenant].llm;
        /* A switch may belong to no tenant: a whole-core switch holding a free
         * FU; the core's power belongs to none. */
        int anon = (e->kind == V10_TR_SWITCH || e->kind == V10_TR_POWER) && e->tenant == -1;
        /* A state record: a state and 1 + a partner of this run, or 0; a
         * power record: a unit, or -1 for the core. */
        int bad_rec = (e->kind == V10_TR_STATE &&
                       ((e->op & 0xff) >= V10_ATTR_STATES || (e->op >> 8) > nt)) ||
                      (e->kind == V10_TR_POWER && (e->unit < -1 || e->unit >= V10_EN_UNITS));
        if ((!anon && (e->tenant < 0 || (size_t)e->tenant >= nt)) || e->kind > V10_TR_POWER ||
            bad_rec ||
            (!req && (e->fu < 0 || (size_t)e->fu >= r->n_fus)) ||
            (e->kind == V10_TR_OP && !llm && e->op >= models[e->tenant].n_ops))
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
    int idx[V10_FU_TYPES] = {0};
    for (size_t i = 0; i < r->n_fus; i++) {
        const v10_fu_result *u = &r->fus[i];
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%zu,"
                   "\"args\":{\"name\":\"%s%d\"}},\n",
                i, v10_fu_name((v10_fu_type)u->type), idx[u->type]++);
        fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%zu,"
                   "\"args\":{\"sort_index\":%zu}},\n", i, i);
    }
    for (size_t i = 0; i < nt; i++) {
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":%zu,\"args\":{\"name\":", i);
        json_str(f, r->tenants[i].name);
        fprintf(f, "}},\n");
    }
    for (size_t i = 0; i < nt; i++) {
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":3,\"tid\":%zu,\"args\":{\"name\":", i);
        json_str(f, r->tenants[i].name);
        fprintf(f, "}},\n");
    }
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"args\":{\"name\":"
               "\"where the time went\"}},\n");
    /* The last metadata line has no comma: each record below brings its own. */
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"tenants\"}}");
    for (size_t k = 0; k < tr->n; k++) {
        const v10_trace_rec *e = &tr->recs[k];
        if (!in_window(tr, e))
            continue;
        uint64_t t0 = ticks(e->start, mhz);
        char ts[32], dur[32], label[160];
        fmt_us(t0, ts, sizeof ts);
        fmt_us(ticks(e->end, mhz) - t0, dur, sizeof dur);
        fputs(",\n", f);
        switch ((v10_trace_kind)e->kind) {
        case V10_TR_OP:
            if (r->tenants[e->tenant].llm) /* by name: "t0:L3.attn.qk" */
                snprintf(label, sizeof label, "t%d:%s", e->tenant,
                         e->name && e->name <= tr->n_names ? tr->names[e->name - 1] : "?");
            else
                snprintf(label, sizeof label, "t%d:%s", e->tenant,
                         models[e->tenant].ops[e->op].name);
            fprintf(f, "{\"name\":");
            json_str(f, label);
            fprintf(f, ",\"cat\":\"op\",\"ph\":\"X\",\"ts\":%s,\"dur\":%s,\"pid\":1,"
                       "\"tid\":%d,\"args\":{\"tenant\":%d,\"op\":%u,\"start_cycle\":%llu,"
                       "\"end_cycle\":%llu}}",
                    ts, dur, e->fu, e->tenant, e->op, (unsigned long long)e->start,
                    (unsigned long long)e->end);
            break;
        case V10_TR_SWITCH:
            fprintf(f, "{\"name\":\"context switch\",\"cat\":\"switch\",\"ph\":\"X\","
                       "\"ts\":%s,\"dur\":%s,\"pid\":1,\"tid\":%d,\"args\":{\"tenant\":%d}}",
                    ts, dur, e->fu, e->tenant);
            break;
        case V10_TR_PREEMPT:
            fprintf(f, "{\"name\":\"preempt t%d\",\"cat\":\"preempt\",\"ph\":\"i\",\"s\":\"t\","
                       "\"ts\":%s,\"pid\":1,\"tid\":%d,\"args\":{\"tenant\":%d,\"op\":%u}}",
                    e->tenant, ts, e->fu, e->tenant, e->op);
            break;
        case V10_TR_REQUEST:
            fprintf(f, "{\"name\":\"request %u\",\"cat\":\"request\",\"ph\":\"X\",\"ts\":%s,"
                       "\"dur\":%s,\"pid\":2,\"tid\":%d}",
                    e->op, ts, dur, e->tenant);
            break;
        case V10_TR_PREFILL:
        case V10_TR_DECODE:
            fprintf(f, "{\"name\":\"%s %u %s\",\"cat\":\"iteration\",\"ph\":\"X\","
                       "\"ts\":%s,\"dur\":%s,\"pid\":2,\"tid\":%d}",
                    e->kind == V10_TR_PREFILL ? "prefill" : "decode", e->op,
                    e->kind == V10_TR_PREFILL ? "tok" : "seqs", ts, dur, e->tenant);
            break;
        case V10_TR_POWER: /* counter tracks; a value holds until the next */
            snprintf(label, sizeof label, "power%s%s_w", e->unit < 0 ? "" : "_",
                     e->unit < 0 ? "" : v10_energy_unit_name((v10_energy_unit)e->unit));
            fprintf(f, "{\"name\":\"%s\",\"ph\":\"C\",\"ts\":%s,\"pid\":1,"
                       "\"args\":{\"W\":%u.%03u}}",
                    label, ts, e->op / 1000, e->op % 1000);
            break;
        case V10_TR_STATE: {
            const char *name = v10_attr_name((v10_attr_state)(e->op & 0xff));
            unsigned by = e->op >> 8;
            if (by)
                snprintf(label, sizeof label, "%s by t%u", name, by - 1);
            else
                snprintf(label, sizeof label, "%s", name);
            fprintf(f, "{\"name\":\"%s\",\"cat\":\"state\",\"ph\":\"X\",\"ts\":%s,"
                       "\"dur\":%s,\"pid\":3,\"tid\":%d,\"args\":{\"state\":\"%s\"}}",
                    label, ts, dur, e->tenant, name);
            break;
        }
        }
    }
    fprintf(f, "\n]}\n");
    return ferror(f) ? v10_err_set(err, "trace: write error: %s", strerror(errno)) : 0;
}
