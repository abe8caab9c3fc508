/*
 * test_evq.c — the engine's indexed event queue (src/util/evq.h) against a
 * naive reference: random schedules, reschedules and cancels, and every pop
 * returns the slot with the least (time, sequence), ties in time going to
 * the slot scheduled first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/evq.h"
#include "util/rng.h"

#define SLOTS 37

static void pops_in_key_order(void **state)
{
    (void)state;
    v10_evq q;
    assert_int_equal(v10_evq_init(&q, SLOTS), 0);
    uint64_t rng[4];
    v10_xoshiro_seed(rng, 7);
    int on[SLOTS] = {0};
    uint64_t t_of[SLOTS] = {0}, seq_of[SLOTS] = {0}, seq = 0, now = 0;
    for (int step = 0; step < 200000; step++) {
        uint64_t r = v10_xoshiro_next(rng);
        int slot = (int)(r % SLOTS);
        if ((r >> 8) % 4 == 0) {            /* cancel */
            v10_evq_cancel(&q, slot);
            on[slot] = 0;
        } else if ((r >> 8) % 4 != 1) {     /* schedule or move, often a tie */
            uint64_t t = now + (r >> 16) % 8;
            v10_evq_set(&q, slot, t);
            on[slot] = 1;
            t_of[slot] = t;
            seq_of[slot] = seq++;
        } else {                            /* pop: the least key */
            int want = -1;
            for (int s = 0; s < SLOTS; s++)
                if (on[s] && (want < 0 || t_of[s] < t_of[want] ||
                              (t_of[s] == t_of[want] && seq_of[s] < seq_of[want])))
                    want = s;
            int got = v10_evq_pop(&q);
            assert_int_equal(got, want);
            if (got >= 0) {
                on[got] = 0;
                now = t_of[got];
            }
        }
        for (int s = 0; s < SLOTS; s++)
            assert_int_equal(v10_evq_scheduled(&q, s), on[s]);
    }
    v10_evq_fini(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(pops_in_key_order)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
