/*
 * workloads.c — the paper's workloads: the eleven models, the four policies
 * compared, the scaled NPUs, and the 55 pairs with the paper's 11 first
 * (Xue et al., ISCA 2023, §6).  Data only: every part of the reproduction
 * reads it.
 */
#include <string.h>

#include "repro/study.h"

const char *const repro_models[NM] = {
    "bert", "dlrm", "efficientnet", "maskrcnn", "mnist", "ncf",
    "resnet50", "resnet-rs", "retinanet", "shapemask", "transformer",
};

const char *const repro_policies[NPOL] = {"pmt", "v10-base", "v10-fair", "v10-full"};

const char *const repro_scale_npus[NSCALE] = {"v10-isca23", "v10-isca23-2x", "v10-isca23-4x",
                                              "v10-isca23-8x"};

const unsigned repro_scale_tenants[NTEN] = {2, 4, 6, 8, 12, 16};

/*
 * The scalability study's mixes: mix t is the next repro_scale_tenants[t]
 * workloads of the eleven taken round robin, continuing where mix t - 1
 * ended.  So within a mix no workload appears twice before every one has
 * appeared once (2 to 8 workloads: all different; 12 and 16: all eleven,
 * then 1 and 5 again), and over the six mixes' 48 places each workload
 * appears 4 or 5 times — not the first N/2 paper pairs (the first eight
 * hold BERT 4 times, MNIST and Mask R-CNN never).
 */
void repro_scale_mix(size_t t, int *ms)
{
    unsigned at = 0;
    for (size_t i = 0; i < t; i++)
        at += repro_scale_tenants[i];
    for (unsigned i = 0; i < repro_scale_tenants[t]; i++)
        ms[i] = (int)((at + i) % NM);
}

/* The paper's 11 pairs (Xue et al., ISCA 2023, §6), in its order and naming order. */
static const char *const paper_pairs[NPP][2] = {
    {"bert", "ncf"},          {"bert", "retinanet"},    {"resnet50", "retinanet"},
    {"ncf", "resnet50"},      {"bert", "transformer"},  {"bert", "dlrm"},
    {"resnet-rs", "shapemask"}, {"efficientnet", "resnet50"}, {"mnist", "ncf"},
    {"dlrm", "resnet50"},     {"resnet-rs", "maskrcnn"},
};

static int model_index(const char *name)
{
    for (int i = 0; i < NM; i++)
        if (!strcmp(repro_models[i], name))
            return i;
    return -1;
}

void repro_pairs(repro *R)
{
    size_t np = 0;
    for (int i = 0; i < NPP; i++) {
        repro_pair *p = &R->pairs[np++];
        p->a = model_index(paper_pairs[i][0]);
        p->b = model_index(paper_pairs[i][1]);
        V10_ASSERT(p->a >= 0 && p->b >= 0);
        p->paper = 1;
    }
    for (int a = 0; a < NM; a++)
        for (int b = a + 1; b < NM; b++) {
            int seen = 0;
            for (size_t i = 0; i < NPP; i++)
                seen |= (R->pairs[i].a == a && R->pairs[i].b == b) ||
                        (R->pairs[i].a == b && R->pairs[i].b == a);
            if (!seen) {
                R->pairs[np].a = a;
                R->pairs[np].b = b;
                R->pairs[np++].paper = 0;
            }
        }
    V10_ASSERT(np == NPAIR);
    for (size_t i = 0; i < NPAIR; i++)
        snprintf(R->pairs[i].name, sizeof R->pairs[i].name, "%s+%s",
                 repro_models[R->pairs[i].a], repro_models[R->pairs[i].b]);
}
