/* rng.c — splitmix64 and xoshiro256** (see rng.h). */
#include "util/rng.h"

uint64_t v10_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double v10_rng_unit(uint64_t *s) { return (double)(v10_rng_next(s) >> 11) * 0x1.0p-53; }

void v10_xoshiro_seed(uint64_t s[4], uint64_t seed)
{
    for (int k = 0; k < 4; k++)
        s[k] = v10_rng_next(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t v10_xoshiro_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

double v10_xoshiro_unit(uint64_t s[4]) { return (double)(v10_xoshiro_next(s) >> 11) * 0x1.0p-53; }
