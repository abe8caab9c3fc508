/* fuzz_profile.c — a profile CSV, then calibrating a small model to its row
 * "x": either a clear error or a calibrated model that meets the profile's
 * mean operator lengths. */
#include <math.h>

#include "harness.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_str(data, size);
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    v10_profile p;
    v10_profile_init(&p);
    v10_err err;
    err.msg[0] = 0;
    int found = v10_profile_merge_text(text, "fuzz.csv", "x", 0, &p, &err);
    if (found < 0 && !err.msg[0])
        abort();
    v10_model arch, cal;
    if (found == 1 && v10_model_load("mnist", &npu, &arch, &err) == 0) {
        err.msg[0] = 0;
        if (v10_calibrate(&arch, &p, &npu, &cal, NULL, &err) == 0) {
            double t[2] = {0, 0}, n[2] = {0, 0};
            for (size_t i = 0; i < cal.n_ops; i++) {
                t[cal.ops[i].fu] += (double)cal.ops[i].cycles;
                n[cal.ops[i].fu]++;
            }
            if (!isnan(p.sa_op_us) &&
                fabs(t[0] / n[0] / npu.clock_mhz / p.sa_op_us - 1) > 0.10)
                abort();
            v10_model_fini(&cal);
        } else if (!err.msg[0]) {
            abort();
        }
        v10_model_fini(&arch);
    }
    free(text);
    return 0;
}
