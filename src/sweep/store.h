/*
 * store.h (internal) — what export.c reads from the result store
 * (store.c) to write results.jsonl and results.csv.  The rest of the
 * store's interface is public, in v10/sweep.h.
 */
#ifndef V10_SWEEP_STORE_H
#define V10_SWEEP_STORE_H

#include <stddef.h>

#include "util/file.h"
#include "v10/sweep.h"

const v10_sweep *sweep_store_spec(const v10_sweep_store *st);
const char *sweep_store_dir(const v10_sweep_store *st);
/* The open result folder (util/file.h): the exports are written through it. */
const v10_outdir *sweep_store_outdir(const v10_sweep_store *st);

/* Counts the rows that record an error (then v10_sweep_store_refused) and
 * finds the most tenants in a result row. */
int sweep_store_stats(v10_sweep_store *st, size_t *max_tenants, v10_err *err);

/* Called with each recorded row (compact JSON of len bytes, no newline) in
 * index order; returns 0 to go on, or -1 with err set to stop. */
typedef int (*sweep_row_fn)(void *ctx, size_t index, const char *row, size_t len,
                            v10_err *err);
int sweep_store_rows(v10_sweep_store *st, sweep_row_fn fn, void *ctx, v10_err *err);

#endif
