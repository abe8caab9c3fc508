/*
 * registry.c — every scheduling policy, in the order `v10sim policies`
 * lists them.  Adding a policy: write src/policy/NAME.c defining a const
 * v10_policy_ops, then add one line to each list below.
 */
#include <string.h>

#include "engine/policy_api.h"
#include "util/names.h"

extern const v10_policy_ops v10_policy_solo, v10_policy_fcfs, v10_policy_pmt,
    v10_policy_prema, v10_policy_spatial, v10_policy_v10_base, v10_policy_v10_fair,
    v10_policy_v10_full;

static const v10_policy_ops *const registry[] = {
    &v10_policy_solo,     &v10_policy_fcfs,     &v10_policy_pmt,      &v10_policy_prema,
    &v10_policy_spatial,  &v10_policy_v10_base, &v10_policy_v10_fair, &v10_policy_v10_full,
};

size_t v10_policy_count(void) { return sizeof registry / sizeof registry[0]; }

const v10_policy_ops *v10_policy_at(size_t i)
{
    return i < v10_policy_count() ? registry[i] : NULL;
}

#define N_POLICIES (sizeof registry / sizeof registry[0])

/* The registry's names into n[N_POLICIES + 1], NULL-terminated. */
static const char *const *names(const char **n)
{
    for (size_t i = 0; i < N_POLICIES; i++)
        n[i] = registry[i]->name;
    n[N_POLICIES] = NULL;
    return n;
}

/* As people type it (util/names.h): "V10-Full" and " pmt" are found. */
const v10_policy_ops *v10_policy_find(const char *name)
{
    const char *n[N_POLICIES + 1];
    long i = v10_name_lookup(name, names(n), N_POLICIES);
    return i < 0 ? NULL : registry[i];
}

char *v10_policy_hint(char *hint, size_t cap, const char *name)
{
    const char *n[N_POLICIES + 1];
    return v10_name_hint(hint, cap, name, names(n), N_POLICIES, NULL);
}

const char *v10_policy_name(const v10_policy_ops *p) { return p->name; }
const char *v10_policy_summary(const v10_policy_ops *p) { return p->summary; }
