/*
 * checked.c — overflow-checked unsigned arithmetic (see checked.h).
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
