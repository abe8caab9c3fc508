/*
 * llm_trace.h — LLM request arrivals from a trace file in the Azure LLM
 * inference format (docs/formats.md "LLM request traces"): one row per
 * request, `TIMESTAMP,ContextTokens,GeneratedTokens`.
 *
 * The reader fills a caller-owned v10_llm_trace; v10_llm_trace_fini frees
 * it (safe after a failed read too).
 */
#ifndef V10_LLM_TRACE_H
#define V10_LLM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "v10/err.h"

typedef struct v10_llm_request {
    double arrival_s;        /* (timestamp - first row's) x time_scale + start_s */
    uint32_t prompt_tokens;  /* ContextTokens, >= 1 */
    uint32_t output_tokens;  /* GeneratedTokens, >= 1 */
} v10_llm_request;

/* Invariant: reqs[0..n) in file order, arrival_s non-decreasing. */
typedef struct v10_llm_trace {
    v10_llm_request *reqs;
    size_t n, cap;
} v10_llm_trace;

/*
 * Reads `path`.  time_scale (in (0, 1e6]) stretches (> 1) or compresses (< 1) the
 * gaps between arrivals; start_s (in [0, 1e12]) is the first arrival's time.
 * Errors name path:line: a bad timestamp, a token count that is negative,
 * zero or not an integer, rows out of time order, missing or unknown
 * columns, a wrong field count; and a file with no requests.
 */
int v10_llm_trace_read(const char *path, double time_scale, double start_s,
                       v10_llm_trace *out, v10_err *err);
/* The same from an open stream; `path` names it in messages. */
int v10_llm_trace_parse(FILE *f, const char *path, double time_scale, double start_s,
                        v10_llm_trace *out, v10_err *err);
void v10_llm_trace_fini(v10_llm_trace *t);

#endif
