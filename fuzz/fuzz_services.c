/* fuzz_services.c — the fleet services CSV (v10sim fleet --services). */
#include "harness.h"
#include "v10/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    v10_service *svc;
    size_t n;
    v10_err err;
    if (v10_services_parse(f, "fuzz.csv", &svc, &n, &err) == 0) {
        for (size_t i = 0; i < n; i++) {
            const v10_service *s = &svc[i];
            if (!s->name[0] || !(s->spec.priority > 0) || s->spec.rate_rps < 0)
                abort(); /* an accepted service must be valid */
            for (size_t j = 0; j < i; j++)
                if (!strcmp(svc[j].name, s->name))
                    abort(); /* names are unique */
        }
        free(svc);
    } else if (!err.msg[0] || svc || n) {
        abort(); /* an error must say something and return nothing */
    }
    fclose(f);
    return 0;
}
