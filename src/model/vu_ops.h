/*
 * vu_ops.h — per-element VU costs shared by the model zoo and the importers
 * (ONNX), so a layer costs the same however it reached the simulator.
 */
#ifndef V10_MODEL_VU_OPS_H
#define V10_MODEL_VU_OPS_H

/*
 * VU per-element ALU op costs (one op = one vector-lane ALU instruction; an
 * FMA counts as one).  Transcendentals are a range reduction plus a short
 * polynomial, so they cost several ops; a reciprocal/rsqrt is a seed plus
 * Newton steps.  Reductions count one op per input element.
 */
#define OPS_ADD       1  /* add, sub, mul, max, compare: one ALU op */
#define OPS_FMA       1  /* multiply-add: one op (a dot product's step) */
#define OPS_ADD_RELU  2  /* residual add, then max(x, 0) */
#define OPS_EXP       4  /* exp: range reduction + degree-3 polynomial */
#define OPS_RECIP     3  /* reciprocal: seed + 2 Newton steps */
#define OPS_SIGMOID   (1 + OPS_EXP + 1 + OPS_RECIP) /* 1/(1+exp(-x)) = 9 */
#define OPS_SWISH     (OPS_SIGMOID + 1)             /* x*sigmoid(x) = 10 */
#define OPS_SOFTMAX   (1 + 1 + OPS_EXP + 1 + 1)     /* max-reduce, sub, exp,
                                                       sum-reduce, scale = 8 */
#define OPS_MASK_SOFTMAX (1 + OPS_SOFTMAX)          /* + causal/pad mask = 9 */
#define OPS_LAYERNORM 6  /* mean, sub, square-accumulate, scale by rsqrt
                            (per row, amortised), gamma FMA, beta add */
#define OPS_RMSNORM   3  /* square-accumulate, scale by rsqrt (per row,
                            amortised), gamma multiply (Zhang & Sennrich 2019) */
#define OPS_ROPE      3  /* rotary embedding per element: x*cos, the rotated
                            partner's sign, FMA with sin (Su et al. 2021) */
#define OPS_BILINEAR  8  /* RoIAlign sample: 4 tap weights + 4 FMAs */
#define OPS_BOX_DECODE 10 /* anchor + delta -> box, per coordinate (exp for w/h) */
#define OPS_IOU       (4 + 4 + 1 + 2 + OPS_RECIP + 1) /* intersection of two boxes:
                                                  2 max and 2 min, the sides
                                                  clamped at 0 (2 sub, 2 max),
                                                  their product; the union
                                                  (a + b - inter); the ratio
                                                  (reciprocal, multiply) = 15 */

#endif
