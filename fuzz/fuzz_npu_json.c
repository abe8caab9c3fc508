/* fuzz_npu_json.c — NPU JSON overrides: a result or a clear error. */
#include "harness.h"
#include "v10/npu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size);
    v10_npu npu;
    v10_err err;
    if (v10_npu_from_json(s, "fuzz.json", &npu, &err) == 0) {
        if (v10_npu_validate(&npu, &err))
            abort(); /* an accepted configuration must be valid */
    } else if (!err.msg[0]) {
        abort(); /* an error must say something */
    }
    free(s);
    return 0;
}
