/*
 * num.h — the one number parser for every input (tenant specs, command-line
 * options, CSV fields, model spec options): one rule everywhere
 * (docs/limits.md).  A number is written in plain decimal, whole:
 *   integer  0 | [1-9][0-9]*                      (no sign, no leading zero)
 *   real     -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * No blanks before or after, no '+', no hex (0x10), no octal-looking 010,
 * no inf or nan.  Range checks are the caller's.
 */
#ifndef V10_UTIL_NUM_H
#define V10_UTIL_NUM_H

#include <stdint.h>

/* 0 and *out on success; -1 if s is not an integer as above or exceeds 2^64 - 1. */
int v10_parse_u64(const char *s, uint64_t *out);
/* 0 and *out on success; -1 if s is not a real as above or is not finite. */
int v10_parse_f64(const char *s, double *out);

#endif
