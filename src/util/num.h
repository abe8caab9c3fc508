/*
 * num.h — numbers as text, both ways, with one rule for every input and
 * every output (docs/limits.md).
 *
 * Parsing (tenant specs, command-line options, CSV fields, model spec
 * options): a number is written in plain decimal, whole:
 *   integer  0 | [1-9][0-9]*                      (no sign, no leading zero)
 *   real     -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * No blanks before or after, no '+', no hex (0x10), no octal-looking 010,
 * no inf or nan.  Range checks are the caller's.
 *
 * Formatting (CSV cells, JSON, generated specs): the shortest %g form that
 * reads back as the same double.
 */
#ifndef V10_UTIL_NUM_H
#define V10_UTIL_NUM_H

#include <stddef.h>
#include <stdint.h>

/* 0 and *out on success; -1 if s is not an integer as above or exceeds 2^64 - 1. */
int v10_parse_u64(const char *s, uint64_t *out);
/* 0 and *out on success; -1 if s is not a real as above or is not finite. */
int v10_parse_f64(const char *s, double *out);

/* Enough for any double in %.17g, sign, exponent and NUL. */
#define V10_NUM_MAX 32

/* Writes v into out (cap >= V10_NUM_MAX) with the fewest of 15, 16 and 17
 * significant digits that strtod reads back exactly (0.39, not
 * 0.39000000000000001); non-finite values as nan, inf, -inf. */
void v10_num_fmt(double v, char *out, size_t cap);

/* "V is out of range [LO, HI]" into out[cap] (cap >= V10_RANGE_MAX) and
 * returned, each number as v10_num_fmt writes it: %g would call 64.0000001
 * "64" and the bound 2^40 1.09951e+12. */
#define V10_RANGE_MAX (3 * V10_NUM_MAX + 24)
const char *v10_num_range(double v, double lo, double hi, char *out, size_t cap);

/* Sorts v[0..n) ascending (finite values; the order of equal ones is moot). */
void v10_sort_doubles(double *v, size_t n);

/* order[0..n): the indices of key[0..n) by decreasing key, equal keys in
 * index order (what a stable sort gives), in O(n log n).  0, or -1 out of
 * memory (order is then unspecified). */
int v10_order_desc(const double *key, size_t n, size_t *order);

/* The k-th largest of v[0..n) (1 <= k <= n; finite values), reordering v,
 * in O(n) expected time: what a descending sort would put at index k - 1,
 * without the sort. */
double v10_kth_largest(double *v, size_t n, size_t k);

#endif
