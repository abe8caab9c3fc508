/*
 * cmd_run.c — `v10sim run`: tenants sharing one NPU under a policy, or under
 * several policies side by side (--policy all, or a comma-separated list).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/file.h"
#include "util/gz.h"
#include "util/json.h"
#include "util/num.h"
#include "util/pool.h"
#include "v10/llm_tenant.h"
#include "v10/pool.h"
#include "v10/report.h"
#include "v10/settings.h"
#include "v10/sim.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim run --tenant SPEC [--tenant SPEC ...] [options]\n\n"
        "Simulates tenants sharing one NPU core and prints utilization, throughput,\n"
        "latency and fairness.\n\n"
        "  SPEC = MODEL[:batch=N][:priority=P][:rate=RPS][:outstanding=N][:slo_us=X]\n"
        "         MODEL is a built-in model (v10sim models), an operator-trace CSV,\n"
        "         a SCALE-Sim topology CSV (docs/formats.md),\n"
        "         an ONNX file (PATH.onnx[:unknown=vu], docs/onnx.md) or one\n"
        "         LLM phase repeated (llm/NAME:prefill=P or :decode=NxC,\n"
        "         docs/models.md; not serving);\n"
        "         no rate = closed loop with N outstanding requests (default 1).\n"
        "  SPEC = llm/NAME:trace=FILE.csv[:rate_scale=X][:start_s=S][:max_batch=N]\n"
        "         [:max_prefill_tokens=N][:chunked_prefill=0|1][:requests=N]\n"
        "         [:slo_ttft_ms=T][:slo_tpot_ms=T][:pad_tokens=0|1][:pad_reqs=0|1]\n"
        "         [:pad_kv=0|1][:kv_block=N][:host_us=X][:pp=S][:pp_stretch=0|1]\n"
        "         [:pp_batches=B], or\n"
        "         llm/NAME:rate=RPS:lengths=FILE.csv: an LLM server with continuous\n"
        "         batching on an Azure-format request trace (--requests N, or its own\n"
        "         requests=N: its first N requests) or Poisson arrivals with lengths\n"
        "         drawn from one; reports TTFT, TPOT, tokens/s (docs/llm.md).\n\n"
        "options:\n"
        "  --config FILE.json   the run's settings: the keys of these flags and of a\n"
        "                       sweep point, or a run's JSON report (its \"settings\"),\n"
        "                       which reproduces that run; flags given too override\n"
        "                       the file's (docs/formats.md, \"Run settings\")\n"
        "  --policy NAME        scheduling policy (default v10-full); a comma-separated\n"
        "                       list compares several ('all': every one but solo)\n"
        "  -j, --jobs N         policies run at once (default 1: one at a time, one\n"
        "                       run's memory at a time; --plot: always); the same\n"
        "                       output for any N\n"
        "  --npu NAME|FILE      NPU preset or JSON override (default v10-isca23)\n"
        "  --requests N         requests per tenant (default 20)\n"
        "  --warmup N           requests per tenant before the window (default N/10)\n"
        "  --seed S             seed for arrivals (default 1)\n"
        "  --format FMT         table (default), json or csv\n"
        "  --trace FILE         write a Perfetto / Chrome trace-event timeline of one\n"
        "                       policy's run (with one --policy only; gzip'd when\n"
        "                       FILE ends in .gz, e.g. run.json.gz)\n"
        "  --plot DIR           also draw, per policy, where each tenant's time went\n"
        "                       (time_POLICY.svg) and each FU's utilization over the run\n"
        "                       (util_POLICY.svg), and report.html, into DIR\n"
        "  --trace-window A:B   trace only what overlaps A..B us of simulated time\n"
        "                       (A: or :B leave one end open)\n"
        "  --no-contention      operators do not share HBM bandwidth\n"
        "  --check              verify engine invariants while running\n"
        "  --per-op FILE.csv    also write where each operator's time went: per tenant\n"
        "                       and operator, its cycles in each state over the window,\n"
        "                       its memory stall alone and stall-free HBM bandwidth\n"
        "                       (docs/attribution.md; not for LLM servers)\n"
        "  --max-events N       stop a run estimated past N events (default 1e9, about\n"
        "                       a minute; 3e9 or 3000000000; docs/limits.md)\n"
        "  --param P.NAME=V     a policy parameter, e.g. pmt.slice_us=500 (repeatable;\n"
        "                       'v10sim policies' lists them with defaults and ranges)\n"
        "  --slice-cycles N     same as --param v10-full.slice_cycles=N\n"
        "  --pmt-slice-us X     same as --param pmt.slice_us=X (PREMA's quantum too)\n"
        "  --pmt-share S        same as --param pmt.share=S (priority or equal)\n"
        "  --prema-drain-frac F same as --param prema.drain_frac=F\n"
        "  --preempt M          where operators are preempted: drain (default: anywhere,\n"
        "                       the SA drains its partial sums, as in V10) or tile (at\n"
        "                       an SA fold / VU chunk boundary)\n"
        "  --help               this text\n");
}

enum { O_TENANT = 1000, O_POLICY, O_NPU, O_REQ, O_WARM, O_SEED, O_FMT, O_TRACE, O_NOCONT,
       O_CHECK, O_SLICE, O_PMTSLICE, O_PMTSHARE, O_DRAIN, O_PREEMPT, O_MAXEV, O_HELP, O_TWIN,
       O_PARAM, O_PEROP, O_CONFIG, O_PLOT };

static const struct option opts[] = {
    {"tenant", required_argument, 0, O_TENANT},     {"policy", required_argument, 0, O_POLICY},
    {"npu", required_argument, 0, O_NPU},           {"requests", required_argument, 0, O_REQ},
    {"warmup", required_argument, 0, O_WARM},       {"seed", required_argument, 0, O_SEED},
    {"format", required_argument, 0, O_FMT},        {"trace", required_argument, 0, O_TRACE},
    {"no-contention", no_argument, 0, O_NOCONT},    {"check", no_argument, 0, O_CHECK},
    {"slice-cycles", required_argument, 0, O_SLICE},
    {"pmt-slice-us", required_argument, 0, O_PMTSLICE},
    {"pmt-share", required_argument, 0, O_PMTSHARE},
    {"prema-drain-frac", required_argument, 0, O_DRAIN},
    {"preempt", required_argument, 0, O_PREEMPT},
    {"max-events", required_argument, 0, O_MAXEV},
    {"trace-window", required_argument, 0, O_TWIN},
    {"param", required_argument, 0, O_PARAM},
    {"per-op", required_argument, 0, O_PEROP},
    {"config", required_argument, 0, O_CONFIG},
    {"plot", required_argument, 0, O_PLOT},
    {"jobs", required_argument, 0, 'j'},
    {"help", no_argument, 0, O_HELP},               {0, 0, 0, 0},
};

/* The parameters set on the command line, to warn of those that no chosen
 * policy reads, and to refuse a field set twice. */
typedef struct param_set {
    const v10_param_def *d[32];
    const char *flag[32], *arg[32]; /* how each was given: "--param", "pmt.slice_us=500" */
    size_t n;
} param_set;

/* Records that `key` was set (given as flag + arg); a usage error if its
 * field was set before, under this name or another (pmt.slice_us and
 * prema.slice_us are one field): a repeat would silently keep the last. */
static int param_note(param_set *ps, const char *key, const char *flag, const char *arg)
{
    const v10_param_def *d = v10_param_find(key);
    for (size_t k = 0; d && k < ps->n; k++)
        if (ps->d[k]->offset == d->offset)
            return cli_usage_error("run", "%s %s: %s was set already by %s %s (one field; "
                                          "give it once)", flag, arg, d->name, ps->flag[k],
                                   ps->arg[k]);
    if (d && ps->n < sizeof ps->d / sizeof ps->d[0]) {
        ps->flag[ps->n] = flag;
        ps->arg[ps->n] = arg;
        ps->d[ps->n++] = d;
    }
    return 0;
}

/* Warns (stderr; the run goes on) of each parameter set that none of the
 * policies names[0..n) reads: it changes nothing. */
static void param_warn_unread(const param_set *ps, char names[][V10_NAME_MAX], int n)
{
    for (size_t k = 0; k < ps->n; k++) {
        int read = 0;
        for (int i = 0; i < n && !read; i++)
            read = v10_policy_reads(v10_policy_find(names[i]), ps->d[k]);
        if (read)
            continue;
        fprintf(stderr, "v10sim run: warning: %s is read by none of the chosen policies (",
                ps->d[k]->name);
        for (int i = 0; i < n; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
        fprintf(stderr, "); it has no effect\n");
    }
}

/* --param POLICY.NAME=VALUE: sets one policy parameter from its table. */
static int param_option(v10_policy_params *p, param_set *ps, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char key[V10_NAME_MAX + 32];
    v10_err err;
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof key)
        return cli_usage_error("run", "--param: expected POLICY.NAME=VALUE, got '%s'", arg);
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = 0;
    if (v10_param_set(p, key, eq + 1, &err))
        return cli_usage_error("run", "--param: %s", err.msg);
    return param_note(ps, key, "--param", arg);
}

/* The options older than --param, each one parameter's alias. */
static int param_alias(v10_policy_params *p, param_set *ps, int opt, const char *arg)
{
    static const struct { int opt; const char *flag, *name; } alias[] = {
        {O_SLICE, "--slice-cycles", "v10-full.slice_cycles"},
        {O_PMTSLICE, "--pmt-slice-us", "pmt.slice_us"},
        {O_PMTSHARE, "--pmt-share", "pmt.share"},
        {O_DRAIN, "--prema-drain-frac", "prema.drain_frac"},
    };
    size_t i = 0;
    while (alias[i].opt != opt)
        i++;
    v10_err err;
    if (v10_param_set(p, alias[i].name, arg, &err))
        return cli_usage_error("run", "%s: %s", alias[i].flag, err.msg);
    return param_note(ps, alias[i].name, alias[i].flag, arg);
}

/* Parses --trace-window "A:B" (us; either side may be empty) into
 * [*from, *to) with to = INFINITY for an open end.  -1 if malformed. */
static int trace_window(const char *arg, double *from, double *to)
{
    const char *colon = strchr(arg, ':');
    char a[64];
    if (!colon || (size_t)(colon - arg) >= sizeof a)
        return -1;
    memcpy(a, arg, (size_t)(colon - arg));
    a[colon - arg] = 0;
    *from = 0;
    *to = INFINITY;
    if (*a && cli_double("run", "--trace-window", a, 0, 1e9, from))
        return -1;
    if (colon[1] && cli_double("run", "--trace-window", colon + 1, 0, 1e9, to))
        return -1;
    return *to > *from ? 0 : -1;
}

/* Writes the per-operator table to `path` as CSV, whole or not at all. */
static int write_per_op(const v10_tab *t, const char *path)
{
    v10_err err;
    v10_wfile out;
    if (v10_tab_status(t, &err) || v10_wfile_open(&out, path, 0, &err))
        return cli_fail(&err);
    if (v10_tab_write(t, V10_FMT_CSV, out.f)) {
        v10_wfile_abort(&out);
        return cli_fail(&(v10_err){"--per-op: cannot write the table"});
    }
    return v10_wfile_commit(&out, &err) ? cli_fail(&err) : V10_EXIT_OK;
}

/* Writes the trace to `out`, through a temporary file and gzip when gz. */
static int write_trace(const v10_trace *tr, const v10_run_config *cfg,
                       const v10_run_result *res, FILE *out, int gz, v10_err *err)
{
    if (!gz)
        return v10_trace_write(tr, cfg, res, out, err);
    FILE *tmp = tmpfile();
    if (!tmp)
        return v10_err_set(err, "temporary file: %s", strerror(errno));
    int rc = v10_trace_write(tr, cfg, res, tmp, err);
    if (rc == 0 && fflush(tmp))
        rc = v10_err_set(err, "temporary file: %s", strerror(errno));
    if (rc == 0)
        rc = v10_gz_copy(tmp, out, err);
    fclose(tmp);
    return rc;
}

/* One table of the comparison on stdout, after its title line (if any). */
static int write_section(v10_tab *t, v10_format fmt, const char *title)
{
    v10_err err;
    if (title)
        printf("\n%s\n", title);
    if (v10_tab_write(t, fmt, stdout))
        return v10_tab_status(t, &err) ? cli_fail(&err) : cli_fail(&(v10_err){"write failed"});
    return V10_EXIT_OK;
}

/* Releases the models loaded and the input files read for them. */
static void free_models(v10_model *m, size_t n, v10_inputs *in)
{
    for (size_t i = 0; i < n; i++)
        v10_model_fini(&m[i]);
    v10_inputs_use(NULL);
    v10_inputs_fini(in);
}

typedef struct pin_ctx {
    v10_inputs *in;
    v10_err *err;
} pin_ctx;

static int pin(const char *path, void *ctx)
{
    pin_ctx *p = ctx;
    return v10_inputs_add(p->in, path, p->err);
}

/* Reads every file the tenants read into `in`, once (v10_tenant_spec_files). */
static int read_inputs(const v10_tenant_spec *specs, size_t n, v10_inputs *in, v10_err *err)
{
    pin_ctx p = {in, err};
    for (size_t i = 0; i < n; i++)
        if (v10_tenant_spec_files(&specs[i], pin, &p, err))
            return v10_err_prefix(err, "tenant %zu", i);
    return 0;
}

/* Several policies: one bar over all of them (v10_run's own bar would
 * start afresh with each, and stay quiet for each shorter than 3 s).  The
 * work done is the sum of each policy's run progress, whichever threads
 * run them (lock: the runs report from their threads). */
typedef struct policies_bar {
    v10_progress bar;
    pthread_mutex_t lock;
    double frac[16];  /* each policy's run progress, 0..1 */
    size_t finished;  /* policies done (or refused) */
} policies_bar;

/* Policy i's run of the comparison: its configuration, its outcome, and its
 * own trace when one is drawn. */
typedef struct policy_run {
    v10_run_config cfg;
    v10_run_result res;
    v10_trace trace;
    v10_err err;
    int rc;
    policies_bar *bar; /* NULL: one policy */
    size_t i;
    const v10_inputs *inputs;
} policy_run;

/* The bar at the policies' progress (b->lock held). */
static void bar_show(policies_bar *b)
{
    double done = 0;
    for (size_t k = 0; k < sizeof b->frac / sizeof b->frac[0]; k++)
        done += b->frac[k];
    b->bar.work_done = done;
    v10_progress_step(&b->bar, b->finished);
}

static void policies_progress(void *ctx, double f)
{
    policy_run *p = ctx;
    pthread_mutex_lock(&p->bar->lock);
    p->bar->frac[p->i] = f;
    bar_show(p->bar);
    pthread_mutex_unlock(&p->bar->lock);
}

/* Runs policy i (a pool item: every file read from the command's inputs on
 * this thread too); a policy that refuses the mix is its own outcome, not
 * the pool's failure. */
static int run_policy(void *ctx, size_t i, v10_err *err)
{
    (void)err;
    policy_run *p = (policy_run *)ctx + i;
    const v10_inputs *prev = v10_inputs_use(p->inputs);
    p->rc = v10_run(&p->cfg, &p->res, &p->err);
    v10_inputs_use(prev);
    if (p->bar) {
        pthread_mutex_lock(&p->bar->lock);
        p->bar->frac[i] = 1;
        p->bar->finished++;
        bar_show(p->bar);
        pthread_mutex_unlock(&p->bar->lock);
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    double win_from = 0, win_to = INFINITY;
    int win_set = 0;
    static v10_tenant_spec specs[64];
    size_t n_specs = 0;
    v10_run_config cfg;
    v10_run_config_default(&cfg);
    const char *policy_arg = "v10-full", *trace_path = NULL, *per_op_path = NULL;
    const char *plot_dir = NULL;
    v10_format fmt = V10_FMT_TABLE;
    int warmup_set = 0, policy_set = 0, tenants_set = 0, threads = 1; /* -j */
    param_set params_set = {.n = 0};
    v10_err err;
    int npu_rc;
    unsigned long long u;
    /* --config first, wherever it stands: the other flags override it. */
    static v10_settings file;
    const char *config_path = NULL, *npu_file = NULL; /* inputs that are files */
    int c;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1)
        if (c == O_CONFIG && cli_path("run", "--config", optarg, &config_path))
            return V10_EXIT_USAGE;
    if (config_path) {
        if (v10_settings_read(config_path, &file, &err))
            return cli_fail(&err);
        cfg = file.cfg;
        n_specs = file.cfg.n_tenants;
        memcpy(specs, file.tenants, n_specs * sizeof specs[0]);
        warmup_set = (file.given & V10_SET_WARMUP) != 0;
    }
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_CONFIG: break;
        case O_TENANT:
            if (!tenants_set++)
                n_specs = 0; /* the flags' tenants replace the file's */
            if (n_specs == sizeof specs / sizeof specs[0])
                return cli_usage_error("run", "at most 64 tenants");
            if (v10_tenant_spec_parse(optarg, &specs[n_specs], &err))
                return cli_fail(&err);
            n_specs++;
            break;
        case O_POLICY:
            policy_arg = optarg;
            policy_set = 1;
            break;
        case O_NPU:
            if ((npu_rc = cli_npu("run", optarg, &cfg.npu)))
                return npu_rc;
            npu_file = v10_json_spec_is_file(optarg) ? optarg : NULL;
            break;
        case O_REQ:
            if (cli_u64("run", "--requests", optarg, 1, 10000000, &u))
                return V10_EXIT_USAGE;
            cfg.requests = u;
            break;
        case O_WARM:
            if (cli_u64("run", "--warmup", optarg, 0, 10000000, &u))
                return V10_EXIT_USAGE;
            cfg.warmup = u;
            warmup_set = 1;
            break;
        case O_SEED:
            if (cli_seed("run", optarg, &cfg.seed))
                return V10_EXIT_USAGE;
            break;
        case O_FMT:
            if (cli_format("run", optarg, CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
            break;
        case O_TRACE:
            if (cli_path("run", "--trace", optarg, &trace_path))
                return V10_EXIT_USAGE;
            break;
        case O_PEROP:
            if (cli_path("run", "--per-op", optarg, &per_op_path))
                return V10_EXIT_USAGE;
            break;
        case O_PLOT:
            if (cli_path("run", "--plot", optarg, &plot_dir))
                return V10_EXIT_USAGE;
            break;
        case O_TWIN:
            if (trace_window(optarg, &win_from, &win_to))
                return cli_usage_error("run", "--trace-window: expected A:B microseconds with "
                                              "0 <= A < B (either may be empty), got '%s'",
                                       optarg);
            win_set = 1;
            break;
        case O_NOCONT: cfg.contention = 0; break;
        case O_CHECK: cfg.check = 1; break;
        case O_MAXEV: { /* an integer, or a whole number as the help writes it: 3e9 */
            uint64_t n;
            double d;
            if (v10_parse_u64(optarg, &n))
                n = !v10_parse_f64(optarg, &d) && d == floor(d) && d >= 1 && d <= 0x1p62
                        ? (uint64_t)d : 0;
            if (n < 1 || n > 1ull << 62)
                return cli_usage_error("run", "--max-events: expected a whole number in [1, "
                                              "2^62] (e.g. 1000000 or 3e9), got '%s'", optarg);
            cfg.max_events = n;
            break;
        }
        case O_PARAM:
            if (param_option(&cfg.params, &params_set, optarg))
                return V10_EXIT_USAGE;
            break;
        case O_SLICE:
        case O_PMTSLICE:
        case O_PMTSHARE:
        case O_DRAIN:
            if (param_alias(&cfg.params, &params_set, c, optarg))
                return V10_EXIT_USAGE;
            break;
        case O_PREEMPT:
        {
            static const char *const models[] = {"drain", "tile", NULL};
            int i = cli_choice("run", "--preempt", optarg, models);
            if (i < 0 || v10_preempt_parse(models[i], &cfg.preempt))
                return V10_EXIT_USAGE;
        }
            break;
        case 'j':
            if (cli_threads("run", optarg, &threads))
                return V10_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return V10_EXIT_OK;
        default: return cli_bad_option("run", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    if (n_specs == 0)
        return cli_usage_error("run", "give at least one --tenant MODEL");
    if (!warmup_set)
        cfg.warmup = cfg.requests / 10;
    cfg.tenants = specs;
    cfg.n_tenants = n_specs;
    cfg.progress = 1; /* on a terminal, for runs of more than 3 s */
    char names[16][V10_NAME_MAX];
    int n_pol = cli_policy_list(policy_arg, names, 16);
    if (config_path && !policy_set) { /* the file's */
        for (n_pol = 0; n_pol < (int)file.n_policies; n_pol++)
            memcpy(names[n_pol], file.policies[n_pol], V10_NAME_MAX);
    }
    if (n_pol <= 0)
        return cli_usage_error("run", "--policy: expected a name, a comma-separated list or "
                                      "'all', got '%s'", policy_arg);
    for (int i = 0; i < n_pol; i++)
        if (!v10_policy_find(names[i])) {
            char hint[160];
            return cli_usage_error("run", "--policy: unknown policy '%s'%s (see 'v10sim "
                                   "policies')", names[i],
                                   v10_policy_hint(hint, sizeof hint, names[i]));
        }
    param_warn_unread(&params_set, names, n_pol);
    /* Options that do not go together are a command-line error (exit 2),
     * found before any model is read; v10_run checks the same for callers
     * that build a configuration themselves. */
    if (cfg.warmup >= cfg.requests)
        return cli_usage_error("run", "--warmup: expected fewer than --requests (%llu), got %llu",
                               (unsigned long long)cfg.requests, (unsigned long long)cfg.warmup);
    for (int i = 0; i < n_pol; i++)
        if (!strcmp(names[i], "solo") && n_specs != 1)
            return cli_usage_error("run", "--policy solo: expected one --tenant (it runs one "
                                   "alone), got %zu", n_specs);
    if (n_pol > 1 && trace_path)
        return cli_usage_error("run", "--trace: expected a single --policy, got %d", n_pol);
    if (win_set && !trace_path)
        return cli_usage_error("run", "--trace-window needs --trace FILE");
    if (trace_path && per_op_path &&
        (!strcmp(trace_path, per_op_path) || v10_same_file(trace_path, per_op_path)))
        return cli_usage_error("run", "--trace and --per-op: expected two files, got '%s' for "
                                      "both", per_op_path);

    /* Each model is read once: every policy runs, and the trace names
     * operators, from what was read here, even if a file changes meanwhile. */
    static v10_model models[64];
    size_t n_models = 0;
    v10_inputs inputs = {0}; /* and every file, for what reads one later (LLM traces) */
    if (read_inputs(specs, n_specs, &inputs, &err)) {
        v10_inputs_fini(&inputs);
        return cli_fail(&err);
    }
    v10_inputs_use(&inputs);
    cli_fixed fixed = {.n = 0};
    for (; n_models < n_specs; n_models++) {
        if (v10_tenant_model_load(&specs[n_models], &cfg.npu, &models[n_models], &err)) {
            v10_err_prefix(&err, "tenant %zu", n_models);
            free_models(models, n_models, &inputs);
            return cli_fail(&err);
        }
        if (strstr(specs[n_models].model, ":unknown=vu")) /* ONNX approximations, once */
            cli_note_approx(&models[n_models]);
        cli_fixed_add(&fixed, specs[n_models].model, &models[n_models]);
    }
    cli_fixed_note(&fixed, &cfg.npu);
    cfg.models = models;
    /* The outputs can be written, and replace no input nor each other:
     * found before the runs, not after. */
    const char *others[] = {config_path, npu_file};
    if ((trace_path && cli_output_clear("--trace", trace_path, &inputs, others, 2)) ||
        (per_op_path && cli_output_clear("--per-op", per_op_path, &inputs, others, 2))) {
        free_models(models, n_models, &inputs);
        return V10_EXIT_FAIL;
    }

    if ((trace_path && v10_wfile_probe(trace_path, &err)) ||
        (per_op_path && v10_wfile_probe(per_op_path, &err))) {
        free_models(models, n_models, &inputs);
        return cli_fail(&err);
    }

    /* --plot: the folder judged before anything runs; the figures gathered
     * from every policy's run, written at the end with report.html. */
    v10_outdir plot_od = {.fd = -1, .path = NULL, .made = 0};
    v10_artifact *plots = NULL;
    size_t n_plots = 0;
    if (plot_dir && cli_out_dir(&plot_od, plot_dir, "run")) {
        free_models(models, n_models, &inputs);
        return V10_EXIT_FAIL;
    }
    v10_trace trace = {0};
    trace.from_cycle = v10_npu_us_to_cycles(&cfg.npu, win_from);
    if (!isinf(win_to)) { /* to_cycle 0 would mean "to the end" */
        uint64_t to = v10_npu_us_to_cycles(&cfg.npu, win_to);
        trace.to_cycle = to > trace.from_cycle ? to : trace.from_cycle + 1;
    }
    v10_tab *cmp = n_pol > 1 ? v10_tab_create() : NULL;
    cJSON *arr = n_pol > 1 && fmt == V10_FMT_JSON ? cJSON_CreateArray() : NULL;
    if (n_pol > 1 && (!cmp || (fmt == V10_FMT_JSON && !arr))) {
        v10_tab_destroy(cmp);
        cJSON_Delete(arr);
        free_models(models, n_models, &inputs);
        if (plot_dir)
            v10_outdir_abandon(&plot_od);
        return cli_fail(&(v10_err){"out of memory"});
    }
    v10_tab *per_op = per_op_path ? v10_tab_create() : NULL;
    if (per_op) {
        v10_report_op_cols(per_op);
        cfg.op_states = 1;
    }
    v10_tab *where = n_pol > 1 && fmt == V10_FMT_TABLE ? v10_tab_create() : NULL;
    if (where) /* "where the time went", after the comparison */
        v10_report_time_cols(where, &cfg);
    v10_tab *energy = where ? v10_tab_create() : NULL; /* and energy, last */
    if (energy)
        v10_report_energy_cols(energy);
    v10_tab *llm = n_pol > 1 && fmt == V10_FMT_TABLE ? v10_tab_create() : NULL;
    int llm_rows = 0; /* the servers' section, after that (none without a server) */
    if (llm)
        v10_report_llm_cols(llm);
    if (cmp && fmt == V10_FMT_CSV)
        v10_report_compare_attr_cols(cmp, &cfg);
    else if (cmp)
        v10_report_compare_cols(cmp);
    /* The policies' runs, each with its own configuration, result and
     * trace: several at once on -j threads (with --plot one at a time, so
     * that one run's trace is held at a time), reported in policy order
     * whatever order they end in. */
    policies_bar pb = {0};
    policy_run *runs = calloc((size_t)n_pol, sizeof *runs);
    int *ran = calloc((size_t)n_pol, sizeof *ran);
    int rc = V10_EXIT_OK, refused = 0;
    if (!runs || !ran)
        rc = cli_fail(&(v10_err){"out of memory"});
    if (n_pol > 1) { /* drawn once the command has lasted 3 s */
        v10_progress_start(&pb.bar, "policies simulated", (size_t)n_pol);
        const char *after = getenv("V10_PROGRESS_AFTER"); /* seconds; tests set 0 */
        pb.bar.quiet_s = after ? atof(after) : 3;
        pb.bar.work_total = n_pol;
        pthread_mutex_init(&pb.lock, NULL);
    }
    for (int i = 0; i < n_pol && rc == V10_EXIT_OK; i++) {
        policy_run *p = &runs[i];
        p->cfg = cfg;
        memcpy(p->cfg.policy, names[i], sizeof p->cfg.policy);
        p->trace = (v10_trace){.from_cycle = trace.from_cycle, .to_cycle = trace.to_cycle};
        p->cfg.trace = trace_path || plot_dir ? &p->trace : NULL;
        p->i = (size_t)i;
        p->inputs = &inputs;
        if (n_pol > 1) {
            p->bar = &pb;
            p->cfg.on_progress = policies_progress;
            p->cfg.progress_ctx = p;
        }
    }
    if (rc == V10_EXIT_OK && n_pol > 1 && threads > 1 && !plot_dir) {
        v10_pool_spec all = {.n = (size_t)n_pol, .run = run_policy, .ctx = runs};
        if (v10_pool_for(&all, threads, &err)) /* the runs' own failures are theirs */
            rc = cli_fail(&err);
        for (int i = 0; i < n_pol; i++)
            ran[i] = 1;
    }
    for (int i = 0; i < n_pol && rc == V10_EXIT_OK; i++) {
        policy_run *p = &runs[i];
        if (!ran[i]) {
            run_policy(runs, (size_t)i, &err);
            ran[i] = 1;
        }
        v10_run_config *pc = &p->cfg;
        v10_run_result *res = &p->res;
        if (p->rc) {
            if (n_pol == 1) {
                rc = cli_fail(&p->err);
                break;
            }
            /* One policy refusing the mix does not cost the others' results:
             * say so, compare the rest, and exit 1 at the end. */
            if (strncmp(p->err.msg, "policy ", 7))
                v10_err_prefix(&p->err, "policy %s", names[i]);
            cli_fail(&p->err);
            refused++;
            continue;
        }
        if (trace_path) {
            v10_wfile out;
            if (v10_wfile_open(&out, trace_path, 0, &err))
                rc = cli_fail(&err);
            else if (write_trace(&p->trace, pc, res, out.f, v10_gz_path(trace_path), &err)) {
                v10_wfile_abort(&out);
                v10_err_prefix(&err, "%s", trace_path);
                rc = cli_fail(&err);
            } else if (v10_wfile_commit(&out, &err)) {
                rc = cli_fail(&err);
            }
        }
        if (rc == V10_EXIT_OK && plot_dir &&
            v10_report_run_plots(pc, res, &p->trace, &plots, &n_plots, &err))
            rc = cli_fail(&err);
        v10_trace_fini(&p->trace); /* drawn: the next policy's is its own */
        if (rc == V10_EXIT_OK && per_op)
            v10_report_op_rows(per_op, pc, res);
        if (rc == V10_EXIT_OK) {
            if (!cmp)
                rc = v10_report_run(pc, res, fmt, stdout)
                         ? cli_fail(&(v10_err){"report: out of memory or write failed"})
                         : V10_EXIT_OK;
            else if (arr) {
                cJSON *one = v10_report_run_json(pc, res);
                if (!one || !cJSON_AddItemToArray(arr, one)) {
                    cJSON_Delete(one);
                    rc = cli_fail(&(v10_err){"out of memory"});
                }
            }
            else if (fmt == V10_FMT_CSV)
                v10_report_compare_attr_row(cmp, pc, res);
            else {
                v10_report_compare_row(cmp, pc, res);
                v10_report_time_rows(where, pc, res);
                v10_report_energy_rows(energy, pc, res);
                llm_rows += v10_report_llm_rows(llm, pc, res);
            }
        }
    }
    for (int i = 0; runs && ran && i < n_pol; i++)
        if (ran[i]) { /* every run's result, reported or not */
            v10_run_result_fini(&runs[i].res);
            v10_trace_fini(&runs[i].trace);
        }
    free(runs);
    free(ran);
    if (n_pol > 1) {
        v10_progress_end(&pb.bar);
        pthread_mutex_destroy(&pb.lock);
    }
    if (cmp && rc == V10_EXIT_OK) {
        if (arr) {
            char *s = v10_json_print(arr, 1);
            if (s)
                puts(s);
            else
                rc = cli_fail(&(v10_err){"out of memory"});
            free(s);
        } else {
            if (fmt == V10_FMT_TABLE)
                printf("v10sim %s  npu %s  seed %llu  %llu requests/tenant  contention %s\n\n",
                       V10_VERSION, cfg.npu.name, (unsigned long long)cfg.seed,
                       (unsigned long long)cfg.requests, cfg.contention ? "on" : "off");
            rc = write_section(cmp, fmt, NULL);
            if (where && rc == V10_EXIT_OK)
                rc = write_section(where, fmt,
                                   "where the time went (% of the window; lost: to the other "
                                   "tenants, most_to: the one it lost most to; "
                                   "docs/attribution.md)");
            if (energy && rc == V10_EXIT_OK)
                rc = write_section(energy, fmt,
                                   "energy over the window (J; tenant_j: the units it held and "
                                   "its HBM bytes, unattr_j the rest; docs/energy.md)");
            if (llm_rows && rc == V10_EXIT_OK)
                rc = write_section(llm, fmt,
                                   "LLM serving (ms; over the window's requests; np and STP "
                                   "leave servers out)");
        }
    }
    if (per_op && rc == V10_EXIT_OK)
        rc = write_per_op(per_op, per_op_path);
    if (plot_dir) {
        size_t len;
        char *html = rc == V10_EXIT_OK
                         ? v10_html_figures_page("v10sim run: where the time went", NULL, plots,
                                                 n_plots, &len)
                         : NULL;
        if (rc == V10_EXIT_OK && v10_artifact_add(&plots, &n_plots, "report.html", html, len,
                                                  &err))
            rc = cli_fail(&err);
        if (rc == V10_EXIT_OK)
            rc = cli_write_files(&plot_od, "run", plots, n_plots);
        else
            v10_outdir_abandon(&plot_od); /* failed before writing: no empty folder left */
        for (size_t k = 0; k < n_plots; k++)
            free(plots[k].data);
        free(plots);
    }
    v10_tab_destroy(per_op);
    cJSON_Delete(arr);
    v10_tab_destroy(cmp);
    v10_tab_destroy(where);
    v10_tab_destroy(energy);
    v10_tab_destroy(llm);
    v10_trace_fini(&trace);
    free_models(models, n_models, &inputs);
    if (rc == V10_EXIT_OK && refused)
        rc = V10_EXIT_FAIL;
    return rc; /* main checks that stdout was written (cli_stdout_done) */
}
