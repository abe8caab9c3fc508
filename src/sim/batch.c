/*
 * batch.c — v10_pool_run (v10/pool.h): a batch of independent simulations
 * (run --policy all, repro, fleet, collocate) on the one thread pool
 * (util/pool.h); result i lands in results[i].  The runs share their
 * models: each distinct one is loaded once (shared_key below).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/policy_api.h"
#include "sim/horizon.h"
#include "util/num.h"
#include "util/pool.h"
#include "util/text.h"
#include "v10/cost.h"
#include "v10/model.h"
#include "v10/pool.h"

/*
 * The models of a batch, each distinct (model text, NPU as the cost model
 * reads it) loaded once: repro runs each zoo model in tens of runs, and
 * building RetinaNet's 700,000 operators (162 MB) for every run, and again
 * for its estimate, was half of `repro --quick`'s CPU time.  A run borrows
 * its models read-only; each is loaded at its first run and freed after
 * its last, so the resident set holds the models of runs in flight or
 * still to come, not a copy per run.  The estimate pass loads each once
 * more, keeps its size and length and frees it at once.  A run that
 * brings its models (cfg->models), names an LLM tenant, or whose model
 * does not load here loads its inputs itself (v10_run), so a failure is
 * reported in the run's own words.
 *
 * Invariants: every shared run's key_of[] entries index keys[]; users of a
 * key counts its shared runs not yet finished; its model is loaded
 * (state 1) only while users > 0 after a first run began.
 */
typedef struct shared_key {
    const char *text;     /* the tenant spec's model text (the caller's) */
    uint64_t hash;        /* of text and cost_npu */
    v10_npu cost_npu;     /* the NPU as costing reads it (cost_view) */
    const v10_npu *npu;   /* a run's NPU to load with */
    pthread_mutex_t lock; /* state, m, users */
    int state;            /* 0 not loaded, 1 loaded, -1 failed to load */
    v10_model m;
    size_t users;
    uint64_t cycles;      /* the estimate pass's figures: total cycles, */
    size_t n_ops;         /* operators */
    int sized;            /* 1 once the two above are set */
} shared_key;

#define NOT_SHARED SIZE_MAX

typedef struct batch {
    const v10_pool_job *job;
    pthread_mutex_t lock; /* serializes job->done, as v10/pool.h promises */
    double *work;         /* the runs' estimated events, or NULL */
    size_t *order;        /* item k of the pool runs point order[k]; NULL: k itself */
    shared_key *keys;     /* the distinct models of the shared runs */
    size_t n_keys;
    size_t *first;        /* run i's tenants' keys are key_of[first[i] + t], or
                             first[i] is NOT_SHARED; NULL: nothing is shared */
    size_t *key_of;
} batch;

/* The NPU as a model's costs read it: the name and the fields only
 * scheduling reads (the timer, the context switches, PMT's switch)
 * cleared, so that a study varying those shares its models.  A field
 * forgotten here costs a share, never a wrong model. */
static void cost_view(const v10_npu *npu, v10_npu *out)
{
    memcpy(out, npu, sizeof *out);
    memset(out->name, 0, sizeof out->name);
    out->slice_cycles = 0;
    out->sa_switch_cycles = out->sa_switch_overlap_cycles = out->vu_registers = 0;
    out->pmt_switch_us = 0;
}

/* Whether run c loads its models the shared way: it brings none and
 * serves no LLM (an LLM tenant's model depends on more than its text). */
static int shareable(const v10_run_config *c)
{
    if (c->models || c->n_tenants == 0 || c->n_tenants > V10_MAX_TENANTS)
        return 0;
    for (size_t t = 0; t < c->n_tenants; t++)
        if (c->tenants[t].llm)
            return 0;
    return 1;
}

/* b->first, b->key_of, b->keys: each shared run's tenants' keys, and each
 * key's users.  Single-threaded, before the passes.  -1: out of memory. */
static int shared_setup(batch *b)
{
    const v10_pool_job *j = b->job;
    size_t slots = 0;
    if (!(b->first = malloc((j->n ? j->n : 1) * sizeof *b->first)))
        return -1;
    for (size_t i = 0; i < j->n; i++) {
        int run = !(j->skip && j->skip[i]) && shareable(&j->cfgs[i]);
        b->first[i] = run ? slots : NOT_SHARED;
        slots += run ? j->cfgs[i].n_tenants : 0;
    }
    size_t cap = 2;
    while (cap < 2 * slots)
        cap *= 2;
    size_t mask = cap - 1, *table; /* open addressing over keys[] by hash: index + 1, 0 empty */
    if (!(b->key_of = malloc((slots ? slots : 1) * sizeof *b->key_of)) ||
        !(b->keys = calloc(slots ? slots : 1, sizeof *b->keys)) ||
        !(table = calloc(cap, sizeof *table)))
        return -1;
    v10_npu view;
    for (size_t i = 0; i < j->n; i++)
        for (size_t t = 0; b->first[i] != NOT_SHARED && t < j->cfgs[i].n_tenants; t++) {
            const char *text = j->cfgs[i].tenants[t].model;
            cost_view(&j->cfgs[i].npu, &view);
            uint64_t h = v10_hash_bytes(v10_hash_str(text), &view, sizeof view);
            size_t at = (size_t)h & mask, k;
            while ((k = table[at]) &&
                   (b->keys[k - 1].hash != h || strcmp(b->keys[k - 1].text, text) ||
                    memcmp(&b->keys[k - 1].cost_npu, &view, sizeof view)))
                at = (at + 1) & mask;
            if (!k) {
                shared_key *key = &b->keys[b->n_keys++];
                key->text = text;
                key->hash = h;
                key->cost_npu = view;
                key->npu = &j->cfgs[i].npu;
                pthread_mutex_init(&key->lock, NULL);
                table[at] = k = b->n_keys;
            }
            b->keys[k - 1].users++;
            b->key_of[b->first[i] + t] = k - 1;
        }
    free(table);
    return 0;
}

static void shared_free(batch *b)
{
    for (size_t k = 0; k < b->n_keys; k++) {
        if (b->keys[k].state == 1)
            v10_model_fini(&b->keys[k].m);
        pthread_mutex_destroy(&b->keys[k].lock);
    }
    free(b->keys);
    free(b->key_of);
    free(b->first);
}

/* Key k of the estimate pass: its model's length and operators, the model
 * freed at once.  A model that does not load stays unsized (its runs are
 * estimated at 0 and load it themselves). */
static int size_one(void *ctx, size_t k, v10_err *err)
{
    (void)err;
    batch *b = ctx;
    shared_key *key = &b->keys[k];
    v10_model m;
    v10_err ignored;
    if (v10_model_load_run(key->text, key->npu, &m, &ignored) == 0) {
        key->cycles = v10_model_cycles(&m);
        key->n_ops = m.n_ops;
        key->sized = 1;
        v10_model_fini(&m);
    }
    return 0;
}

/* Item i of the estimate pass (work[i], written by this item only).  A
 * shared run is estimated from its keys' sizes: models of no operators,
 * only their count and total length (at least a cycle, so that the
 * estimate never sums the operators). */
static int estimate_one(void *ctx, size_t i, v10_err *err)
{
    (void)err;
    batch *b = ctx;
    const v10_pool_job *j = b->job;
    if (j->skip && j->skip[i]) {
        b->work[i] = 0;
        return 0;
    }
    if (!b->first || b->first[i] == NOT_SHARED) {
        b->work[i] = v10_run_estimate_work(&j->cfgs[i]);
        return 0;
    }
    v10_run_config c = j->cfgs[i];
    v10_model sized[V10_MAX_TENANTS];
    memset(sized, 0, sizeof sized);
    for (size_t t = 0; t < c.n_tenants; t++) {
        const shared_key *key = &b->keys[b->key_of[b->first[i] + t]];
        if (!key->sized) {
            b->work[i] = 0;
            return 0;
        }
        sized[t].n_ops = key->n_ops;
        sized[t].total_cycles = key->cycles ? key->cycles : 1;
    }
    c.models = sized;
    b->work[i] = v10_run_estimate_work(&c);
    return 0;
}

/* Ends run i's use of its keys' models: each is freed after its last run. */
static void shared_release(batch *b, size_t i, size_t n_tenants)
{
    for (size_t t = 0; t < n_tenants; t++) {
        shared_key *key = &b->keys[b->key_of[b->first[i] + t]];
        pthread_mutex_lock(&key->lock);
        if (--key->users == 0 && key->state == 1) {
            v10_model_fini(&key->m);
            key->state = 0;
        }
        pthread_mutex_unlock(&key->lock);
    }
}

/* Run i's models into ms[] (borrowed: struct copies of the keys' models),
 * each loaded by the first run that needs it; 0, or -1 if one does not
 * load here (the run then loads its own and reports why). */
static int shared_acquire(batch *b, size_t i, size_t n_tenants, v10_model *ms)
{
    int ok = 1;
    for (size_t t = 0; t < n_tenants; t++) {
        shared_key *key = &b->keys[b->key_of[b->first[i] + t]];
        pthread_mutex_lock(&key->lock);
        if (key->state == 0) {
            v10_err ignored;
            key->state = v10_model_load_run(key->text, key->npu, &key->m, &ignored) ? -1 : 1;
        }
        if (key->state == 1)
            ms[t] = key->m;
        else
            ok = 0;
        pthread_mutex_unlock(&key->lock);
    }
    return ok ? 0 : -1;
}

/* b->order: the points by decreasing b->work; work[] and skip[] (n each,
 * skip optional) are permuted to follow it.  -1: out of memory. */
static int longest_first(batch *b, size_t n, unsigned char *skip)
{
    double *work = malloc((n ? n : 1) * sizeof *work);
    unsigned char *sk = skip ? malloc(n ? n : 1) : NULL;
    if (!work || (skip && !sk) || !(b->order = malloc((n ? n : 1) * sizeof *b->order)) ||
        v10_order_desc(b->work, n, b->order)) {
        free(work);
        free(sk);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        work[k] = b->work[b->order[k]];
        if (skip)
            sk[k] = skip[b->order[k]];
    }
    memcpy(b->work, work, n * sizeof *work);
    if (skip)
        memcpy(skip, sk, n);
    free(sk);
    free(work);
    return 0;
}

/* What a failed run was, for its message in any command's words: "resnet50
 * + ncf under pmt" (each tenant's model spec, cut to fit). */
static void describe(const v10_run_config *c, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t t = 0; t < c->n_tenants && o < cap; t++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%.60s", t ? " + " : "", c->tenants[t].model);
    if (o < cap)
        snprintf(buf + o, cap - o, "%s under %s", c->n_tenants == 1 ? " alone" : "", c->policy);
}

static int run_one(void *ctx, size_t k, v10_err *err)
{
    batch *b = ctx;
    const v10_pool_job *j = b->job;
    size_t i = b->order ? b->order[k] : k;
    v10_run_result local, *r = j->results ? &j->results[i] : &local;
    v10_run_config c = j->cfgs[i];
    v10_model ms[V10_MAX_TENANTS];
    int shared = b->first && b->first[i] != NOT_SHARED;
    if (shared && shared_acquire(b, i, c.n_tenants, ms) == 0)
        c.models = ms;
    int rc = v10_run(&c, r, err);
    if (shared)
        shared_release(b, i, c.n_tenants);
    if (rc == 0 && j->done) {
        pthread_mutex_lock(&b->lock);
        rc = j->done(j->ctx, i, r, err);
        pthread_mutex_unlock(&b->lock);
    }
    if (!j->results)
        v10_run_result_fini(&local); /* safe after a failed run too */
    if (rc) {
        char what[256];
        describe(&j->cfgs[i], what, sizeof what);
        v10_err_prefix(err, "%s", what);
    }
    return rc;
}

int v10_pool_run(const v10_pool_job *job, v10_err *err)
{
    batch b = {.job = job};
    pthread_mutex_init(&b.lock, NULL);
    v10_pool_spec spec = {.n = job->n, .run = run_one, .ctx = &b, .progress = job->progress};
    /* Each run's estimated work: the order of a batch handed out longest
     * first (a long run started last keeps one thread busy while the
     * others idle), and the weights of the bar's ETA (issue 24: repro's
     * longest runs come first, and its ETA by count said 20 min for a 2
     * min job).  Skipped runs need none.  Sized and estimated on the
     * pool's threads: loading a model for an NPU not seen yet costs there
     * (the isca23 cache's copies, 149 MB for RetinaNet), which on one
     * thread kept the other core idle for seconds before the first run.
     * An estimate reads only its own configuration, its keys' sizes and
     * the caches, so the weights are the same whatever the threads. */
    int bar = job->weigh && v10_progress_wanted(job->progress);
    if (shared_setup(&b)) { /* out of memory for the keys: every run loads its own */
        shared_free(&b);
        b.keys = NULL, b.key_of = b.first = NULL, b.n_keys = 0;
    }
    if ((bar || job->longest_first) && (b.work = calloc(job->n ? job->n : 1, sizeof *b.work))) {
        v10_pool_spec size = {.n = b.n_keys, .run = size_one, .ctx = &b};
        v10_pool_spec est = {.n = job->n, .run = estimate_one, .ctx = &b};
        v10_err ignored; /* out of memory for the pass: index order, the bar counts runs */
        if (v10_pool_for(&size, job->threads, &ignored) ||
            v10_pool_for(&est, job->threads, &ignored)) {
            free(b.work);
            b.work = NULL;
        }
    }
    _Static_assert(sizeof *job->skip == sizeof(int), "skip is an int array");
    unsigned char *skip = NULL;
    int rc = 0;
    if (job->skip) { /* the pool's skip flags are bytes */
        skip = malloc(job->n ? job->n : 1);
        if (!skip)
            rc = v10_err_set(err, "out of memory");
        for (size_t i = 0; skip && i < job->n; i++)
            skip[i] = job->skip[i] != 0;
        spec.skip = skip;
    }
    if (rc == 0 && b.work && job->longest_first && longest_first(&b, job->n, skip))
        rc = v10_err_set(err, "out of memory");
    spec.work = bar ? b.work : NULL;
    if (rc == 0)
        rc = v10_pool_for(&spec, job->threads, err);
    free(skip);
    free(b.work);
    free(b.order);
    shared_free(&b);
    pthread_mutex_destroy(&b.lock);
    return rc;
}
