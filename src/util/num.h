/*
 * num.h — a double as text for machine-read outputs (CSV cells, generated
 * specs): the shortest %g form that reads back as the same double.
 */
#ifndef V10_UTIL_NUM_H
#define V10_UTIL_NUM_H

#include <stddef.h>

/* Enough for any double in %.17g, sign, exponent and NUL. */
#define V10_NUM_MAX 32

/* Writes v into out (cap >= V10_NUM_MAX) with the fewest of 15, 16 and 17
 * significant digits that strtod reads back exactly (0.39, not
 * 0.39000000000000001); non-finite values as nan, inf, -inf. */
void v10_num_fmt(double v, char *out, size_t cap);

#endif
