/* fuzz_sweep_spec.c — sweep specs (JSON): parse, then materialize the first
 * and last points (tenant specs, NPU overrides) without running them. */
#include "harness.h"
#include "v10/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    v10_sweep *s;
    v10_err err;
    if (v10_sweep_parse(text, "fuzz.json", &s, &err) == 0) {
        size_t n = v10_sweep_points(s);
        if (n < 1 || n > V10_SWEEP_POINTS_MAX || !v10_sweep_canonical(s) ||
            strlen(v10_sweep_hash(s)) != 16)
            abort();
        v10_sweep_point *p = malloc(sizeof *p);
        if (!p)
            abort();
        size_t idx[2] = {0, n - 1};
        for (int k = 0; k < 2; k++) {
            if (v10_sweep_point_get(s, idx[k], p, &err) == 0) {
                if (p->cfg.n_tenants > V10_SWEEP_TENANTS_MAX || p->cfg.requests < 1)
                    abort();
            } else if (!err.msg[0]) {
                abort();
            }
            free(v10_sweep_point_text(s, idx[k]));
        }
        free(p);
        v10_sweep_destroy(s);
    } else if (!err.msg[0] || s) {
        abort();
    }
    free(text);
    return 0;
}
