/*
 * api.h — whole calls, text in and text out, for bindings (the Python
 * package, docs/python.md) and programs that would rather not fill
 * structures: a run from its settings, a model's profile.  Each returns
 * what the matching command prints with --format json, so a binding needs
 * no second implementation of anything.
 *
 * Ownership: every returned string is malloc'd; free it with v10_free.
 * Errors: NULL with err set to the message the command would print.
 * Thread-safe: calls on different arguments may run at once.
 */
#ifndef V10_API_H
#define V10_API_H

#include "v10/err.h"

/* The library's version, e.g. "0.1.0". */
const char *v10_version(void);

/* Runs the settings (v10/settings.h: a JSON object, or a run's JSON
 * report) and returns what `v10sim run --config FILE --format json` prints:
 * one run's report, or a list of them for several policies.  origin names
 * the settings in messages. */
char *v10_run_json(const char *settings, const char *origin, v10_err *err);

/* `v10sim profile MODEL --npu NPU --format json`: one request of a model
 * (a built-in name with :batch=N, a trace CSV, an ONNX file), operator by
 * operator, on an NPU (a preset or a JSON file; NULL: v10-isca23). */
char *v10_profile_json(const char *model, const char *npu, v10_err *err);

void v10_free(void *p);

#endif
