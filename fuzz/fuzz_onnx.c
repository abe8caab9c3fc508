/* fuzz_onnx.c — ONNX import (protobuf-c parse, shape inference, operator
 * mapping) in strict and unknown=vu modes, then costing the model.  Seeds:
 * fuzz/corpus/onnx/, written by tests/onnx/make_models.py. */
#include "harness.h"
#include "v10/cost.h"
#include "v10/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    for (int vu = 0; vu < 2; vu++) {
        v10_onnx_opts opts = {vu ? 3 : 0, vu};
        v10_model m;
        v10_onnx_result res;
        v10_err err;
        err.msg[0] = 0;
        if (v10_onnx_parse(data, size, "fuzz.onnx", "fuzz", &opts, &m, &res, &err) == 0) {
            for (size_t i = 0; i < res.n_outputs; i++)
                if (res.outputs[i].known && res.outputs[i].rank > V10_ONNX_MAX_RANK)
                    abort();
            if (res.n_approx && !vu)
                abort(); /* approximations only when asked for */
            if (v10_cost_model(&npu, &m, &err) == 0)
                for (size_t i = 0; i < m.n_ops; i++)
                    if (m.ops[i].cycles < m.ops[i].compute_cycles || m.ops[i].tiles < 1)
                        abort();
            v10_model_fini(&m);
            v10_onnx_result_fini(&res);
        } else if (!err.msg[0] || strncmp(err.msg, "fuzz.onnx", 9)) {
            abort(); /* every rejection names the file */
        }
    }
    return 0;
}
