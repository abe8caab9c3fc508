/*
 * checked.h — unsigned 64-bit arithmetic that reports overflow instead of
 * wrapping: the one home for the size sums and products of every loader and
 * of the cost model.
 */
#ifndef V10_UTIL_CHECKED_H
#define V10_UTIL_CHECKED_H

#include <stdint.h>

/* *out = a * b; returns -1 (leaving *out alone) on overflow, else 0. */
int v10_mul_u64(uint64_t a, uint64_t b, uint64_t *out);
/* *out = a + b; returns -1 (leaving *out alone) on overflow, else 0. */
int v10_add_u64(uint64_t a, uint64_t b, uint64_t *out);
/* *out = the product of f[0..n); -1 on overflow, else 0. */
int v10_mul_n(uint64_t *out, int n, const uint64_t *f);

/* Signed 64-bit *out = a + b, a - b, a * b (ONNX's integer tensors, shape
 * arithmetic): -1 (leaving *out alone) when the exact result does not fit
 * in int64_t, else 0.  No intermediate overflows. */
int v10_add_i64(int64_t a, int64_t b, int64_t *out);
int v10_sub_i64(int64_t a, int64_t b, int64_t *out);
int v10_mul_i64(int64_t a, int64_t b, int64_t *out);

/* A bound on doubles headed for uint64_t: below 2^64 (1.8447e19), so a
 * non-negative double under it converts exactly; past it, a cost or a time
 * is reported as an overflow or clamped. */
#define V10_U64_DOUBLE_MAX 1.8e19

/* V10_MUL(&out, a, b, ...): v10_mul_n over the listed factors. */
#define V10_MUL(out, ...)                                                     \
    v10_mul_n((out), (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), \
              (uint64_t[]){__VA_ARGS__})

#endif
