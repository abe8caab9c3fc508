/* fuzz_trace_csv.c — operator-trace CSV, then costing the model. */
#include "harness.h"
#include "v10/cost.h"
#include "v10/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_model m;
    v10_err err;
    if (v10_trace_csv_parse(f, "fuzz.csv", &npu, &m, &err) == 0) {
        if (m.n_ops == 0)
            abort();
        if (v10_cost_model(&npu, &m, &err) == 0)
            for (size_t i = 0; i < m.n_ops; i++)
                if (m.ops[i].cycles < m.ops[i].compute_cycles || m.ops[i].tiles < 1)
                    abort();
        v10_model_fini(&m);
    } else if (!err.msg[0]) {
        abort();
    }
    fclose(f);
    return 0;
}
