/*
 * onnx.h — bring-your-own model: ONNX import (docs/onnx.md).
 *
 * A ModelProto is parsed with protobuf-c, tensor shapes are inferred node by
 * node, and each node becomes SA/VU operators through the builders of
 * v10/model.h (so costs match the zoo's).  Errors name the file, the node,
 * its op type and what is missing.
 *
 * Ownership: the caller owns *out (v10_model_fini) and *res
 * (v10_onnx_result_fini); both are valid only after a 0 return.
 */
#ifndef V10_ONNX_H
#define V10_ONNX_H

#include <stddef.h>
#include <stdint.h>

#include "v10/err.h"
#include "v10/model.h"

#define V10_ONNX_MAX_RANK 8
#define V10_ONNX_NAME_MAX 128

typedef struct v10_onnx_opts {
    uint32_t batch;  /* >0: the size of a symbolic or unit dim 0 of every
                        graph input; 0: as declared (symbolic -> 1) */
    int unknown_vu;  /* 1: approximate unsupported nodes and unknown shapes
                        by a VU operator (reported) instead of failing */
} v10_onnx_opts;

/* A tensor's inferred shape. */
typedef struct v10_onnx_shape {
    char name[V10_ONNX_NAME_MAX];
    int known;                       /* 0: not inferred (only with unknown_vu) */
    uint32_t rank;
    int64_t dims[V10_ONNX_MAX_RANK];
} v10_onnx_shape;

typedef struct v10_onnx_result {
    v10_onnx_shape *outputs;  /* the graph outputs, in order */
    size_t n_outputs;
    size_t n_approx;          /* nodes approximated under unknown_vu */
    char approx[V10_ERR_MAX]; /* which ones (the first few), for reporting */
} v10_onnx_result;

/* Imports a serialized ModelProto; `path` names it in messages and the model
 * is named `name`.  res may be NULL.  Returns 0, or -1 with err set. */
int v10_onnx_parse(const uint8_t *data, size_t size, const char *path, const char *name,
                   const v10_onnx_opts *opts, v10_model *out, v10_onnx_result *res,
                   v10_err *err);

/* The same from a file (the model is named after the path). */
int v10_onnx_read(const char *path, const v10_onnx_opts *opts, v10_model *out,
                  v10_onnx_result *res, v10_err *err);

void v10_onnx_result_fini(v10_onnx_result *res);

/* Reads the shape of a serialized TensorProto (e.g. an ONNX test_data_set
 * output_0.pb) into *shape. */
int v10_onnx_tensor_file_shape(const char *path, v10_onnx_shape *shape, v10_err *err);

#endif
