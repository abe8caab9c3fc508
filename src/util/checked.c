/*
 * checked.c — overflow-checked arithmetic (see checked.h).
 */
#include "util/checked.h"

int v10_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > UINT64_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

int v10_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return -1;
    *out = a + b;
    return 0;
}

int v10_mul_n(uint64_t *out, int n, const uint64_t *f)
{
    uint64_t p = 1;
    for (int i = 0; i < n; i++)
        if (v10_mul_u64(p, f[i], &p))
            return -1;
    *out = p;
    return 0;
}

int v10_add_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return -1;
    *out = a + b;
    return 0;
}

int v10_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
        return -1;
    *out = a - b;
    return 0;
}

int v10_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    /* each bound divides an extreme by the operand whose sign is known, so
     * no division overflows (INT64_MIN / -1 is never formed) */
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))
        return -1;
    *out = a * b;
    return 0;
}
