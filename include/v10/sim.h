/*
 * sim.h — one multi-tenant simulation: tenants share one NPU core under a
 * scheduling policy (docs/architecture.md).  A run is a pure function of its
 * v10_run_config: same config and seed, same result (perf fields aside).
 *
 * Ownership: v10_run fills a caller-owned v10_run_result whose arrays it
 * allocates; v10_run_result_fini frees them.  The config is borrowed.
 */
#ifndef V10_SIM_H
#define V10_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/llm_server.h"
#include "v10/model.h"
#include "v10/npu.h"

#define V10_SPEC_MAX 512

/* One tenant: "MODEL[:batch=N][:priority=P][:rate=RPS][:outstanding=N][:slo_us=X]",
 * or an LLM server (docs/llm.md): "llm/MODEL:trace=FILE.csv[:rate_scale=X]
 * [:start_s=S][:max_batch=N][:max_prefill_tokens=N][:chunked_prefill=0|1]
 * [:requests=N][:slo_ttft_ms=T]
 * [:slo_tpot_ms=T]", or with
 * ":rate=RPS:lengths=FILE.csv" Poisson arrivals whose lengths are drawn
 * from the file's rows. */
typedef struct v10_tenant_spec {
    char model[V10_SPEC_MAX]; /* zoo name or trace CSV path, with :batch=N */
    uint32_t batch;           /* 0: the model's default */
    double priority;          /* weight in (0, 1000], default 1 */
    double rate_rps;          /* Poisson arrivals; 0: closed loop */
    uint32_t outstanding;     /* closed loop: requests in flight, default 1 */
    double slo_us;            /* latency SLO; 0: none */
    /* LLM serving (llm != 0; model is "llm/MODEL", a preset or JSON file) */
    int llm;                  /* 1: trace= arrivals; 2: Poisson (rate=) with lengths= */
    char llm_file[V10_SPEC_MAX]; /* the trace= or lengths= file */
    double rate_scale;        /* trace arrivals x this rate, default 1 */
    double start_s;           /* first arrival, s (trace) */
    uint32_t max_batch;       /* 0: the server's default (llm_server.h) */
    uint32_t max_prefill_tokens; /* an iteration's token budget; 0: the server's
                                    default (llm_server.h) */
    int whole_prefill;        /* 1 (chunked_prefill=0): whole prompts in prefill-only
                                 iterations; 0: chunked prefill, the default */
    uint64_t llm_requests;    /* the server's own request count (> the run's warmup);
                                 0: the run's `requests` */
    double slo_ttft_ms, slo_tpot_ms; /* 0: none */
    /* vLLM's TPU runtime (docs/llm.md, "Padding to compiled shapes"): 1 to
     * pad an iteration's tokens / its sequences / its K and V reads to the
     * compiled shapes (0: none, the default); the KV block (page) size in
     * tokens (0: V10_LLM_KV_BLOCK); host time per iteration, µs, before its
     * operators run (0: none) */
    int pad_tokens, pad_reqs, pad_kv;
    uint32_t kv_block;
    double host_us;
    /* pipeline parallelism (docs/llm.md, "Pipeline parallelism"): the
     * stages the model is split over, each over chips / pp chips
     * tensor-parallel; 0 or 1: none, every chip holds every layer */
    uint32_t pp;
    /* 1 (pp_stretch=0): the other stages take their standalone time; 0
     * (default): as much longer as the simulated stage took (docs/llm.md) */
    int pp_unstretched;
    /* batches in flight through a pipeline (pp_batches=B, 1 <= B <= pp):
     * 0 (default) is pp, as vLLM V1 keeps one batch a stage in flight
     * (docs/llm.md); 1 runs one batch at a time */
    uint32_t pp_batches;
} v10_tenant_spec;

int v10_tenant_spec_parse(const char *s, v10_tenant_spec *out, v10_err *err);
/* The files a tenant reads: its model's (v10_model_spec_files: a trace CSV,
 * an ONNX file, an llm/ configuration, profile= files), then an LLM
 * server's trace= or lengths= file (a built-in "@NAME" trace is none).
 * Calls fn(path, ctx) for each, stopping at the first non-zero result,
 * which it returns; -1 with err set on a malformed model spec. */
int v10_tenant_spec_files(const v10_tenant_spec *t, int (*fn)(const char *path, void *ctx),
                          void *ctx, v10_err *err);

/* The spec as text that v10_tenant_spec_parse reads back into the same
 * fields: the model with its options, then each option that is not its
 * default, numbers in their shortest exact form.  -1 if it needs more than
 * cap bytes (V10_SPEC_MAX * 2 always suffices). */
int v10_tenant_spec_format(const v10_tenant_spec *s, char *out, size_t cap);

/* Policy parameters: the fields the policies' parameter tables map onto
 * (v10_param_def below); v10_policy_params_default sets every field to its
 * table's default.  Code may set the fields directly (repro, tests). */
typedef struct v10_policy_params {
    uint64_t slice_cycles;      /* V10 preemption timer; 0: the NPU's */
    double pmt_slice_us;        /* PMT/PREMA time slice (quantum) */
    int pmt_share_priority;     /* PMT: 1 slices proportional to priority */
    double prema_drain_frac;    /* PREMA: drain if the running task needs < this
                                   fraction of a slice to finish */
    int full_preempt_ready;     /* V10-Full: 1 also preempts when a tenant becomes
                                   ready for a busy FU (0: at timer ticks only) */
    uint64_t full_quantum_cycles; /* V10-Full, preempt=ready: least cycles an operator
                                   keeps its FU; 0: 9 context switches of the FU */
} v10_policy_params;

void v10_policy_params_default(v10_policy_params *p);

/* A trace event recorded when v10_run_config.trace is set. */
typedef enum v10_trace_kind {
    V10_TR_OP = 0,   /* an operator execution segment on an FU */
    V10_TR_SWITCH,   /* a context switch occupying an FU */
    V10_TR_PREEMPT,  /* instant: an operator was preempted on an FU */
    V10_TR_REQUEST,  /* a request from arrival to completion */
    V10_TR_PREFILL,  /* an LLM prefill iteration; op = its prompt tokens */
    V10_TR_DECODE,   /* an LLM decode iteration; op = its sequences */
    V10_TR_STATE,    /* a tenant in one attribution state: op = the v10_attr_state
                        | (1 + the partner it loses most to, or 0) << 8 */
    V10_TR_POWER,    /* mean power over [start, end): op = milliwatts; unit:
                        the v10_energy_unit, or -1 for the core (the units'
                        sum); fu and tenant -1 (docs/energy.md) */
} v10_trace_kind;

typedef struct v10_trace_rec {
    uint64_t start, end; /* cycles */
    int32_t fu;          /* FU index; -1 for requests, LLM iterations and power */
    int32_t tenant;
    uint32_t op;         /* op index in the model, or request index */
    uint8_t kind;        /* v10_trace_kind */
    int8_t unit;         /* V10_TR_POWER's energy unit (above); -1 in the others */
    uint32_t name;       /* an LLM server's op: 1 + its name's index in names[]
                            (its iterations' streams differ); else 0 */
} v10_trace_rec;

typedef struct v10_trace {
    v10_trace_rec *recs;
    size_t n, cap;
    int oom; /* set if a record could not be stored */
    /* LLM servers' operator names ("L3.attn.qk"), each once; slot[] is an
     * open-addressing index into them (0: empty, else id + 1). */
    char (*names)[V10_OPNAME_MAX];
    size_t n_names;
    uint32_t *slot;
    size_t n_slots; /* a power of two, at least twice n_names; 0 before the first */
    /* Written window (v10_trace_write): records overlapping [from, to)
     * cycles; to == 0 means to the end. */
    uint64_t from_cycle, to_cycle;
} v10_trace;

/*
 * Where an operator may be preempted (docs/architecture.md, "Preemption").
 * DRAIN (the default; V10, ISCA 2023): anywhere.  An SA operator keeps
 * executing while the partial sums already in the array drain (sa_rows
 * cycles), a VU operator pauses at once; the FU's context switch runs from
 * the preemption request, the drain overlapping it; a preempted operator
 * that resumes on an FU no switch has prepared for it pays its context
 * restore.  TILE: only at a tile boundary (an SA weight fold, a VU chunk);
 * the switch follows the stop and resuming at a boundary is free.
 */
typedef enum v10_preempt_model {
    V10_PREEMPT_DRAIN = 0,
    V10_PREEMPT_TILE,
} v10_preempt_model;

const char *v10_preempt_name(v10_preempt_model m);
/* "drain" or "tile"; -1 if neither. */
int v10_preempt_parse(const char *s, v10_preempt_model *out);

typedef struct v10_run_config {
    v10_npu npu;
    char policy[V10_NAME_MAX];
    v10_policy_params params;
    const v10_tenant_spec *tenants;
    size_t n_tenants;
    uint64_t requests;       /* per tenant, >= 1 */
    uint64_t warmup;         /* requests per tenant excluded from the window */
    uint64_t seed;
    int contention;          /* 1: running operators share HBM bandwidth */
    v10_preempt_model preempt; /* where operators may be preempted */
    int check;               /* 1: verify engine invariants while running */
    int op_states;           /* 1: attribution per operator too
                                (v10_tenant_result.op_states) */
    int no_attribution;      /* 1: do not count where each tenant's time went
                                (docs/attribution.md), for a caller that reads
                                none of it: state_cycles and lost_to are then
                                zero, and a trace has no state track */
    v10_trace *trace;        /* optional timeline sink */
    uint64_t max_events;     /* the event budget: a run estimated past it, or reaching
                                it unfinished, stops with an error; 0: V10_EVENT_BUDGET */
    int progress;            /* 1: a progress bar on stderr once a run lasts 3 s
                                (unless on_progress is set) */
    int every_chip;          /* 1, on an NPU of several chips: simulate every chip,
                                each running its shard of every tenant, a
                                collective a barrier of the tenant's shards
                                (docs/llm.md, "Every chip"); results then hold
                                chips x n_tenants tenants, chip c's tenant i at
                                c x n_tenants + i.  0: one chip stands for all */
    /* Optional: the tenants' models, already loaded and costed for `npu`
     * (models[i] serves tenants[i]; borrowed).  NULL: v10_run loads them.
     * A caller that reports on the run afterwards (a trace's operator
     * names) passes what it loaded, so every input is read once. */
    const v10_model *models;
    /* Optional: called on the running thread every 65,536 events and once
     * at the end of a finished run with the run's progress in [0, 1]: the
     * least progress of its tenants toward their counts, the one that
     * decides when the run ends (sim/run.c).  A caller running several
     * simulations draws one bar over all of them with it. */
    void (*on_progress)(void *ctx, double done);
    void *progress_ctx;
} v10_run_config;

void v10_run_config_default(v10_run_config *c);

/*
 * Where a tenant's time goes (docs/attribution.md).  Every cycle of the
 * measurement window is in exactly one state per tenant, so the states sum
 * to the window; the waiting states, the switches caused by others and the
 * part of execution lost to HBM sharing also name the partner they were
 * lost to (v10_tenant_result.lost_to).
 */
typedef enum v10_attr_state {
    V10_ATTR_EXEC = 0,   /* executing at its full rate (issue and DMA included) */
    V10_ATTR_HBM,        /* executing: the part lost to HBM sharing (to the operators
                            sharing it, by their bandwidth) */
    V10_ATTR_PARTITION,  /* executing on a spatial partition slower than a whole FU:
                            the part lost to its smaller share (to the tenants holding
                            the rest of the FU, by their share) */
    V10_ATTR_WAIT_SA,    /* ready for an SA, every SA it may use held by another */
    V10_ATTR_WAIT_VU,    /* ready for a VU, every VU it may use held by another */
    V10_ATTR_WAIT_ICI,   /* ready for the link engine (a collective, several chips),
                            another tenant's collective on it */
    V10_ATTR_HELD,       /* ready, an FU of its type free, kept off by the policy
                            (to the tenants running: whole-core owners) */
    V10_ATTR_SWITCH,     /* its own context switch: restoring or saving its operator */
    V10_ATTR_SWITCH_BY,  /* ready, the FUs of its type switching another's context */
    V10_ATTR_PREEMPTED,  /* ready after its operator was preempted, until it runs */
    V10_ATTR_IDLE,       /* no request: between requests, before the first */
    V10_ATTR_STATES
} v10_attr_state;

/* "exec", "hbm", "wait_sa", ... (the JSON and CSV names). */
const char *v10_attr_name(v10_attr_state s);

/*
 * Energy over the measurement window (docs/energy.md), by unit and by what
 * the unit was doing.  SA and VU: executing (static + dynamic), switching a
 * context or waking up (static + dynamic), idle (static), power-gated (the
 * residual static power and the wake-ups' energy).  Vector memory:
 * dynamic with the FUs executing / switching, static under idle.  HBM:
 * the operators' bytes under exec, whole-core task switches' bytes under
 * switch, static under idle.  Other: the rest of the core's static power
 * and V10's scheduler, under idle.  The cells sum to total_j.
 */
typedef enum v10_energy_unit {
    V10_EN_SA = 0, V10_EN_VU, V10_EN_VMEM, V10_EN_HBM, V10_EN_OTHER, V10_EN_UNITS
} v10_energy_unit;
typedef enum v10_energy_state {
    V10_EN_EXEC = 0, V10_EN_SWITCH, V10_EN_IDLE, V10_EN_GATED, V10_EN_STATES
} v10_energy_state;

/* "sa", "vu", "vmem", "hbm", "other"; "exec", "switch", "idle", "gated". */
const char *v10_energy_unit_name(v10_energy_unit u);
const char *v10_energy_state_name(v10_energy_state s);

typedef struct v10_energy_result {
    double total_j;                /* the window's energy */
    double power_w;                /* total_j / the window's length */
    double inferences_per_j;       /* requests completed (fractional) / total_j */
    double static_j, dynamic_j;    /* split of total_j */
    double unattributed_j;         /* total_j less the tenants' energy_j */
    double unit_j[V10_EN_UNITS][V10_EN_STATES];
} v10_energy_result;

typedef struct v10_tenant_result {
    char name[V10_NAME_MAX];       /* "t0:resnet50" style label */
    char model[V10_NAME_MAX];
    uint32_t batch;
    double priority;
    uint64_t completed;            /* requests completed (whole run) */
    uint64_t alone_cycles;         /* standalone latency of one request */
    double throughput_rps;         /* in the window (fractional progress) */
    double np;                     /* normalized progress: throughput x alone latency */
    double lat_avg_us, lat_p50_us, lat_p95_us, lat_p99_us;
    double slo_attainment;         /* fraction of measured requests within SLO; -1: none */
    uint64_t preemptions;          /* of this tenant's operators */
    uint64_t active_cycles;        /* cycles holding an FU (V10 context table) */
    double work_done;              /* standalone-equivalent cycles executed */
    /* Energy over the window (docs/energy.md): the units it held, by the
     * time it held them, and its HBM bytes; per request of its progress. */
    double energy_j;
    double energy_per_request_j;
    /* Attribution over the window, cycles: state_cycles sum to the window;
     * lost_to[j * V10_ATTR_STATES + s] is the part of state s lost to
     * tenant j (owned, n_tenants x V10_ATTR_STATES; 0 on the diagonal). */
    double state_cycles[V10_ATTR_STATES];
    double *lost_to;
    /* With v10_run_config.op_states, and not an LLM server: the states by
     * the operator they were spent on (the one executing, or the next to
     * run while waiting), op_states[op * V10_ATTR_STATES + s] over the
     * window for each of the model's n_ops operators (owned); else NULL.
     * Idle time belongs to no operator: its column is 0. */
    double *op_states;
    size_t n_ops;
    /* LLM serving tenants only (llm != 0; docs/llm.md "Metrics"): over the
     * requests finished in the window.  np is NAN for them: an open-loop
     * server is left out of STP, ANTT, fairness and Jain. */
    int llm;
    v10_llm_dist ttft_us, tpot_us, e2e_us, queue_us;
    double tokens_per_s;           /* output tokens of the window's requests / window
                                      (NAN without one, as throughput_rps) */
    double tokens_per_s_active;    /* the same tokens / their own span: the first's
                                      arrival to the last finish (docs/llm.md "Metrics") */
    uint64_t llm_tokens;           /* those tokens */
    uint64_t llm_requests;         /* requests finished in the window */
    double slo_ttft, slo_tpot;     /* fraction within the SLO; -1: none */
    uint64_t kv_peak_tokens, kv_capacity_tokens;
    uint64_t prefills, decodes;    /* iterations, whole run */
    uint64_t kv_preemptions;       /* requests preempted for KV blocks, whole run */
    /* Per-request samples of those requests, µs, in arrival order (owned
     * by the result; v10_run_result_fini frees them): ttft_us.n TTFTs and
     * tpot_us.n TPOTs (requests with more than one output token). */
    double *ttft_samples_us, *tpot_samples_us;
} v10_tenant_result;

typedef struct v10_fu_result {
    int type;                      /* v10_fu_type */
    int owner;                     /* spatial partition owner, -1 shared */
    double speed;                  /* fraction of a physical FU */
    uint64_t exec_cycles;          /* executing operators (whole run) */
    uint64_t switch_cycles;        /* context switching (whole run) */
    double work;                   /* standalone work executed on it */
} v10_fu_result;

typedef struct v10_run_result {
    uint64_t window_start, window_end, end_cycle; /* cycles */
    double util_sa, util_vu, util_hbm, util_overall, overlap, util_sa_flops;
    double stp, antt, fairness, jain;
    uint64_t preemptions, context_switches, switch_cycles;
    uint64_t events;
    double events_estimated;       /* the event budget's first estimate (sim/run.c); a run
                                      ended before that check: its events */
    double wall_seconds;
    size_t n_tenants;
    v10_tenant_result *tenants;
    size_t n_fus;
    v10_fu_result *fus;
    v10_energy_result energy;
} v10_run_result;

/* Loads the tenants' models (unless cfg->models), runs the simulation,
 * computes the metrics.
 * Returns -1 with err set on bad input (unknown model or policy, a policy
 * that does not accept the tenant mix, ...). */
int v10_run(const v10_run_config *cfg, v10_run_result *out, v10_err *err);
void v10_run_result_fini(v10_run_result *r);

void v10_trace_fini(v10_trace *t);

/* Registry of policies (src/policy/registry.c). */
typedef struct v10_policy_ops v10_policy_ops;
size_t v10_policy_count(void);
const v10_policy_ops *v10_policy_at(size_t i);
const v10_policy_ops *v10_policy_find(const char *name);
/* "; did you mean 'v10-full'?" for a name v10_policy_find did not find,
 * or "", into hint[cap]; returns hint. */
char *v10_policy_hint(char *hint, size_t cap, const char *name);
const char *v10_policy_name(const v10_policy_ops *p);
const char *v10_policy_summary(const v10_policy_ops *p);

/*
 * Policy parameters as plug-ins.  Each policy declares a table of the
 * parameters it reads (in src/policy/NAME.c); an entry names one as
 * "<policy>.<param>" and maps it onto a field of v10_policy_params.
 * Invariants (checked over every policy by tests/policy/test_conformance.c):
 * min <= def <= max; the name is the policy's name, a dot and the
 * parameter; entries of two policies on one field (pmt.slice_us and
 * prema.slice_us share PMT's quantum) agree on type, key, default and range.
 * Everything here is const data; nothing is allocated.
 */
typedef enum {
    V10_PARAM_U64 = 0, /* a uint64_t field; whole numbers */
    V10_PARAM_DOUBLE,  /* a double field */
    V10_PARAM_CHOICE,  /* an int field: the index of a word in `choices` */
} v10_param_type;

typedef struct v10_param_def {
    const char *name;      /* "pmt.slice_us" */
    const char *key;       /* the field's flat key: run reports' "params", sweep specs */
    v10_param_type type;
    size_t offset;         /* of the field in v10_policy_params */
    double def, min, max;  /* CHOICE: indices */
    const char *choices;   /* CHOICE: "equal|priority"; NULL otherwise */
    const char *help;      /* one line, with the unit */
    /* Optional: the value in effect on `npu` (0 meaning the NPU's slice). */
    double (*effective)(double v, const v10_npu *npu);
} v10_param_def;

/* The parameters policy p reads (its table). */
size_t v10_policy_param_count(const v10_policy_ops *p);
const v10_param_def *v10_policy_param_at(const v10_policy_ops *p, size_t i);
/* The parameter named "<policy>.<param>", or with that flat key
 * ("pmt_slice_us"); NULL if none.  Several policies may read one field:
 * any of their entries describes it. */
const v10_param_def *v10_param_find(const char *key);
/* Every field some policy reads, once, in the order of v10_policy_params
 * (the order run reports print them): fills out[0..cap), returns the count. */
#define V10_PARAM_FIELDS_MAX 32
size_t v10_param_fields(const v10_param_def **out, size_t cap);
/* 1 if policy p reads the field of parameter d. */
int v10_policy_reads(const v10_policy_ops *p, const v10_param_def *d);
/* Sets parameter `key` ("pmt.slice_us" or a flat key) from text: a number
 * (util/num.h's rule; whole for U64) in [min, max], or one of the
 * choices.  -1 with err naming the key and what was expected. */
int v10_param_set(v10_policy_params *p, const char *key, const char *value, v10_err *err);
/* Sets parameter d to v (CHOICE: the index); -1 with err naming d and its
 * range if v is out of it (or not whole, for U64 and CHOICE). */
int v10_param_put(v10_policy_params *p, const v10_param_def *d, double v, v10_err *err);
/* The field's value as a double (CHOICE: the index). */
double v10_param_get(const v10_policy_params *p, const v10_param_def *d);
/* The value in effect on npu, as text: the shortest number that reads
 * back exactly, or the choice's word (cap >= 32). */
void v10_param_format(const v10_param_def *d, const v10_policy_params *p, const v10_npu *npu,
                      char *out, size_t cap);

#endif
