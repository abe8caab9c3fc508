/* fuzz_llm_trace.c — Azure-format LLM request traces: requests in time
 * order with positive token counts, or a clear error. */
#include "harness.h"
#include "v10/llm_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    v10_llm_trace t;
    v10_err err;
    if (v10_llm_trace_parse(f, "fuzz.csv", 1.0, 0.0, &t, &err) == 0) {
        if (t.n == 0 || t.reqs[0].arrival_s != 0.0)
            abort();
        for (size_t i = 0; i < t.n; i++)
            if (t.reqs[i].prompt_tokens < 1 || t.reqs[i].output_tokens < 1 ||
                (i && t.reqs[i].arrival_s < t.reqs[i - 1].arrival_s))
                abort();
        v10_llm_trace_fini(&t);
    } else if (!err.msg[0]) {
        abort();
    }
    fclose(f);
    return 0;
}
