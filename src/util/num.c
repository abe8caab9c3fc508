/* num.c — the shortest exact text form of a double (see num.h). */
#include "util/num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void v10_num_fmt(double v, char *out, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(out, cap, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    /* 17 significant digits always round-trip a binary64 (IEEE 754-2008,
     * 5.12.2); fewer often do. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, cap, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            return;
    }
}
