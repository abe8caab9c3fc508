/* fuzz_tenant_spec.c — tenant spec strings and model specs. */
#include "harness.h"
#include "v10/cost.h"
#include "v10/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 600)
        return 0;
    char *s = fuzz_str(data, size);
    v10_tenant_spec t;
    v10_err err;
    if (v10_tenant_spec_parse(s, &t, &err) == 0) {
        if (!(t.priority > 0) || t.outstanding < 1)
            abort();
        /* Only built-in names: paths would read arbitrary files. */
        if (!strchr(t.model, '/') && !strstr(t.model, ".csv")) {
            v10_npu npu;
            v10_npu_preset("v10-isca23", &npu, NULL);
            v10_model m;
            if (v10_model_load(t.model, &npu, &m, &err) == 0)
                v10_model_fini(&m);
        }
    } else if (!err.msg[0]) {
        abort();
    }
    free(s);
    return 0;
}
