/*
 * settings.h — one run's settings as JSON (docs/formats.md, "Run
 * settings"): the keys of `v10sim run`'s flags and of a sweep point.  What
 * `run --config FILE` reads, what every run's JSON report records under
 * "settings" (v10_report_settings_json) so that feeding it back reproduces
 * the run, and what the Python package passes (v10/api.h).
 *
 * Ownership: v10_settings is plain data filled by the parser; its
 * cfg.tenants points into its own tenants[], so it must not be copied by
 * value.  Nothing is allocated.
 */
#ifndef V10_SETTINGS_H
#define V10_SETTINGS_H

#include <stddef.h>

#include "v10/err.h"
#include "v10/sim.h"

#define V10_SETTINGS_TENANTS_MAX 64
#define V10_SETTINGS_POLICIES_MAX 16

/* The keys a settings object gave (v10_settings.given), for a caller that
 * lets its own options override them (`run --config F --seed 2`). */
enum {
    V10_SET_TENANTS = 1 << 0, V10_SET_POLICY = 1 << 1, V10_SET_NPU = 1 << 2,
    V10_SET_REQUESTS = 1 << 3, V10_SET_WARMUP = 1 << 4, V10_SET_SEED = 1 << 5,
    V10_SET_PARAMS = 1 << 6, V10_SET_OTHER = 1 << 7,
};

typedef struct v10_settings {
    v10_run_config cfg;           /* cfg.policy: policies[0] */
    v10_tenant_spec tenants[V10_SETTINGS_TENANTS_MAX];
    char policies[V10_SETTINGS_POLICIES_MAX][V10_NAME_MAX]; /* each once, in order */
    size_t n_policies;            /* >= 1 */
    unsigned given;               /* V10_SET_* */
} v10_settings;

/*
 * Parses a settings object (JSON text; origin names it in messages), or a
 * run's JSON report, whose "settings" it reads.  Keys:
 *   tenants (or mix)  list of tenant specs, as --tenant (1 to 64; required)
 *   policy            a name, "all", a comma-separated list or a JSON list
 *   npu               a preset, an NPU JSON file, or an object of NPU
 *                     fields over "base"; npu.FIELD one field over it
 *   priority          per-tenant priorities over the specs'
 *   a policy parameter by name or flat key (pmt.slice_us, slice_cycles, ...)
 *   requests, warmup, seed (a number, or a string of digits for any
 *   64-bit seed), contention, attribution (booleans), preempt ("drain" or
 *   "tile"), check (boolean), max_events (a whole number)
 * Each value is checked by the sweep's rules (docs/sweep.md); an unknown
 * key or a bad value is an error naming it.  Returns 0 or -1.
 */
int v10_settings_parse(const char *text, const char *origin, v10_settings *out, v10_err *err);

/* Reads FILE and parses it (origin: the path). */
int v10_settings_read(const char *path, v10_settings *out, v10_err *err);

/* Sets out's policy list from text as --policy takes it ("a,b", "all":
 * every policy but solo); -1 naming `what` if a name is unknown. */
int v10_settings_policies(v10_settings *out, const char *text, const char *what, v10_err *err);

#endif
