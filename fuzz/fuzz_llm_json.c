/* fuzz_llm_json.c — LLM JSON configurations: a valid config or a clear
 * error; an accepted one builds and costs a short prefill and decode. */
#include "harness.h"
#include "v10/cost.h"
#include "v10/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size);
    v10_llm_config c;
    v10_err err;
    if (v10_llm_from_json(s, "fuzz.json", &c, &err) == 0) {
        if (v10_llm_validate(&c, &err))
            abort(); /* an accepted configuration must be valid */
        v10_npu npu;
        v10_npu_preset("v10-isca23", &npu, NULL);
        uint32_t ctx = c.max_context < 16 ? c.max_context : 16;
        v10_model m;
        v10_model_init(&m, c.name, 1);
        if (v10_llm_prefill(&c, ctx, &m, &err) == 0 && m.n_ops == 0)
            abort();
        v10_cost_model(&npu, &m, &err);
        v10_model_fini(&m);
        v10_model_init(&m, c.name, 1);
        if (v10_llm_decode(&c, 1, &ctx, &m, &err) == 0)
            v10_cost_model(&npu, &m, &err);
        v10_model_fini(&m);
    } else if (!err.msg[0]) {
        abort(); /* an error must say something */
    }
    free(s);
    return 0;
}
