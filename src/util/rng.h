/*
 * rng.h — the project's two deterministic random-number generators, one
 * home for both: splitmix64 (a 64-bit state: seeding and the few draws of
 * clustering, placement and property tests) and xoshiro256** (a 256-bit
 * state: a tenant's arrival stream in the engine, seeded from splitmix64).
 *
 * Same state in, same numbers out, on every platform: outputs that depend
 * on draws are byte-identical for a given seed.  No global state; the
 * caller owns each state word.
 */
#ifndef V10_UTIL_RNG_H
#define V10_UTIL_RNG_H

#include <stdint.h>

/* splitmix64 (Steele, Lea, Flood, OOPSLA 2014): advances *state, returns
 * the next 64 random bits. */
uint64_t v10_rng_next(uint64_t *state);
/* Uniform in [0, 1): the top 53 bits of v10_rng_next. */
double v10_rng_unit(uint64_t *state);

/* xoshiro256** (Blackman, Vigna 2018) on a state of four words.
 * Invariant: s[0..3] not all zero, which v10_xoshiro_seed guarantees
 * (four consecutive splitmix64 outputs are never all zero). */

/* Fills s[4] with four splitmix64 draws starting from `seed`. */
void v10_xoshiro_seed(uint64_t s[4], uint64_t seed);
/* Advances s[4], returns the next 64 random bits. */
uint64_t v10_xoshiro_next(uint64_t s[4]);
/* Uniform in [0, 1): the top 53 bits of v10_xoshiro_next. */
double v10_xoshiro_unit(uint64_t s[4]);

#endif
