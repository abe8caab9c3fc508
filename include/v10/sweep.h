/*
 * sweep.h — parameter sweeps (docs/design.md §8, docs/sweep.md): a JSON spec declares axes, the
 * sweep is their Cartesian product, one simulation per point, and results
 * are recorded durably in a directory so an interrupted sweep resumes
 * without losing or repeating a point.  The spec format is in docs/sweep.md.
 *
 * Ownership: _parse/_open/_create create, _destroy/_close free.  Everything
 * here is safe to call from several threads on distinct points, except the
 * store, whose calls the caller serializes (the queue does).  The code is
 * in src/sweep/: spec.c, points.c, store.c, export.c, run.c.
 */
#ifndef V10_SWEEP_H
#define V10_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/sim.h"

#define V10_SWEEP_TENANTS_MAX 16
#define V10_SWEEP_POINTS_MAX 100000000u

typedef struct v10_sweep v10_sweep;

/*
 * Parses and validates a spec (JSON text; `origin` names it in messages).
 * Every key is checked: unknown keys, empty axes ("empty product"), wrong
 * types, unknown policies, presets and models are errors naming the key,
 * e.g. "sweep.json: axes.policy[2]: unknown policy 'pmtt'".
 */
int v10_sweep_parse(const char *text, const char *origin, v10_sweep **out, v10_err *err);
void v10_sweep_destroy(v10_sweep *s);

/*
 * A sweep's inputs are read once, when its spec is parsed: every file its
 * mixes read (trace CSVs, ONNX files, profile= files, LLM configurations,
 * traces and lengths).  Its points load their models from those bytes,
 * never from the files (a file edited or removed mid-sweep changes
 * nothing; no point opens a file), and spec.json records their hashes.
 * _pack gives them as one buffer (malloc'd, *len bytes; NULL if memory ran
 * out) for another process (an MPI rank), which parses the same spec with
 * v10_sweep_parse_inputs from them instead of the files.
 */
char *v10_sweep_inputs_pack(const v10_sweep *s, size_t *len);
int v10_sweep_parse_inputs(const char *text, const char *origin, const char *packed,
                           size_t len, v10_sweep **out, v10_err *err);

size_t v10_sweep_points(const v10_sweep *s);
const char *v10_sweep_name(const v10_sweep *s);
/* FNV-1a 64 of the canonical spec, 16 hex digits: equal for specs that differ
 * only in whitespace, key order or "description". */
const char *v10_sweep_hash(const v10_sweep *s);
/* The canonical spec as pretty JSON (keys sorted). */
const char *v10_sweep_canonical(const v10_sweep *s);

/*
 * One point, materialized.  cfg.tenants points into `tenants`, so a point
 * must not be copied by value.  `id` hashes the point's canonical settings.
 */
typedef struct v10_sweep_point {
    size_t index;
    char id[17];
    v10_run_config cfg;
    v10_tenant_spec tenants[V10_SWEEP_TENANTS_MAX];
} v10_sweep_point;

/* Point i's identity only (cheap: no NPU resolution); id has 17 bytes.
 * Returns -1 (id empty) if memory ran out. */
int v10_sweep_point_id(const v10_sweep *s, size_t i, char *id);
/* Point i's settings as compact JSON (malloc'd), keys in enumeration order. */
char *v10_sweep_point_text(const v10_sweep *s, size_t i);
int v10_sweep_point_get(const v10_sweep *s, size_t i, v10_sweep_point *p, v10_err *err);

/*
 * Runs point i and returns its result row (malloc'd, one line of JSON ending
 * in '\n'): {"index", "id", "point": the spec's settings, "result": the
 * run report (config, seed, metrics), "perf": events and wall time}.  A
 * point the simulator refuses (a run too long, ...) gets {"index", "id",
 * "point", "error": the message} instead: it is recorded like any other
 * and the sweep goes on.  Returns -1 only when the run or its row ran out
 * of memory or needed a file not among the sweep's inputs (no property of
 * the point: the sweep stops, and a resume runs it).  Everything but
 * "perf" is a pure function of the spec and i.
 */
int v10_sweep_run_point(const v10_sweep *s, size_t i, char **row, v10_err *err);

/*
 * The result store, in directory DIR: DIR/spec.json (the canonical spec,
 * its hash and its input files' content hashes) and DIR/results.db, an
 * SQLite database holding one row per finished point, each committed (WAL
 * journal, synced) in its own transaction before the point counts as done.
 * On open with `resume`, the recorded points are read back (a row whose
 * index or id is not this spec's is dropped), and a spec or input file
 * that differs from DIR's, or a results.db that is not a store of this
 * spec, is refused.  Without `resume`, a DIR that is not empty is refused.
 * One process at a time: DIR/.lock is held while the store is open.
 */
typedef struct v10_sweep_store v10_sweep_store;

int v10_sweep_store_open(const char *dir, const v10_sweep *s, int resume,
                         v10_sweep_store **out, v10_err *err);
/* done[i] != 0: point i is recorded. */
const unsigned char *v10_sweep_store_done(const v10_sweep_store *st);
size_t v10_sweep_store_count(const v10_sweep_store *st);
/* Rows dropped when the store was opened (not a row of this spec's points). */
size_t v10_sweep_store_dropped(const v10_sweep_store *st);
/* The first dropped row and what was wrong with it ("row I: WHY"), or "". */
const char *v10_sweep_store_drop_why(const v10_sweep_store *st);
/* Rows that record an error instead of a result (known after finish). */
size_t v10_sweep_store_refused(const v10_sweep_store *st);
/* Records point i's row (one line ending in '\n') durably.  A row for an
 * index already done is ignored. */
int v10_sweep_store_append(v10_sweep_store *st, size_t i, const char *row, v10_err *err);
/* When every point is recorded, exports DIR/results.jsonl and
 * DIR/results.csv (both sorted by index, each written atomically); returns
 * 0 without writing if some points are missing. */
int v10_sweep_store_finish(v10_sweep_store *st, v10_err *err);
void v10_sweep_store_close(v10_sweep_store *st);
/* `sweep --plot`, when every point is recorded (else 0, nothing written):
 * DIR/plot_KEY.svg for each axis of two or more values, the mean STP over
 * the other axes at each value (a series per policy when the policy is
 * another axis), and DIR/report.html with every figure (src/sweep/plot.c). */
int v10_sweep_store_plot(v10_sweep_store *st, v10_err *err);

/*
 * Hands out the missing points of a store one at a time (dynamic load
 * balancing, on the one thread pool of src/util/pool.h) and records
 * finished ones; thread-safe.  Threads run points with v10_sweep_work or
 * v10_sweep_queue_start; the MPI coordinator uses _take and _record for
 * remote ranks.  A point's failure (only running out of memory or a store
 * that cannot record: a point the simulator refuses is a row) stops
 * handing out points.
 */
typedef struct v10_sweep_queue v10_sweep_queue;

v10_sweep_queue *v10_sweep_queue_create(const v10_sweep *s, v10_sweep_store *st,
                                        const char *progress);
/* Next missing index, or -1 when none remain or a point failed. */
int64_t v10_sweep_queue_take(v10_sweep_queue *q);
/* Records a finished point (row != NULL) or a failure (row == NULL, msg). */
void v10_sweep_queue_record(v10_sweep_queue *q, size_t i, const char *row, const char *msg);
/* Runs points from the queue on the calling thread until none remain. */
void v10_sweep_work(v10_sweep_queue *q);
/* Starts up to `threads` background threads running points; returns how
 * many started. */
int v10_sweep_queue_start(v10_sweep_queue *q, int threads);
/* Waits for the threads (if none started, runs the remaining points on
 * the calling thread), ends the progress bar and frees the queue; returns
 * 0, or -1 with the first failure's message. */
int v10_sweep_queue_destroy(v10_sweep_queue *q, v10_err *err);

/* Runs every missing point on `threads` threads (the caller's included). */
int v10_sweep_run_local(const v10_sweep *s, v10_sweep_store *st, int threads,
                        const char *progress, v10_err *err);

#endif
