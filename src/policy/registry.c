/*
 * registry.c — every scheduling policy, in the order `v10sim policies`
 * lists them.  Adding a policy: write src/policy/NAME.c defining a const
 * v10_policy_ops, then add one line to each list below.
 */
#include <string.h>

#include "engine/policy_api.h"

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

const v10_policy_ops *v10_policy_find(const char *name)
{
    for (size_t i = 0; i < v10_policy_count(); i++)
        if (!strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}

const char *v10_policy_name(const v10_policy_ops *p) { return p->name; }
const char *v10_policy_summary(const v10_policy_ops *p) { return p->summary; }
