/*
 * zoo.c — the built-in models (docs/models.md): the V10 paper's eleven workloads
 * plus a decoder-LLM step and ViT, built from their published architectures
 * and from the inference graphs their reference implementations run on a TPU
 * (TensorFlow Model Garden, MLPerf references, XLA), with the operator
 * builders of v10/model.h.
 *
 * Fusion follows XLA on a TPU: a matmul or convolution carries its bias,
 * folded batchnorm, activation and residual add (its output fusion, one SA
 * op); consecutive element-wise VU ops of one size fuse (the builder does
 * it); pooling, depthwise convolutions, softmax, layer norm, data
 * formatting, sorting, detection post-processing, beam search and gathers
 * run on the VU.  docs/models.md cites each model's graph, says what is
 * approximated, and checks its MACs against the published figure.
 */
#include <string.h>

#include "util/text.h"
#include "workloads/zoo_build.h"

/* ---- registry ---- */

typedef struct zoo_entry {
    const char *name;
    uint32_t batch;  /* default batch (V10 paper, §evaluation) */
    void (*build)(zb *b);
} zoo_entry;

static const zoo_entry ZOO[] = {
    {"bert", 32, zoo_bert},
    {"dlrm", 32, zoo_dlrm},
    {"efficientnet", 32, zoo_efficientnet},
    {"gpt-decode", 32, zoo_gpt_decode},
    {"maskrcnn", 16, zoo_maskrcnn},
    {"mnist", 32, zoo_mnist},
    {"ncf", 32, zoo_ncf},
    {"resnet50", 32, zoo_resnet50},
    {"resnet-rs", 32, zoo_resnet_rs},
    {"retinanet", 32, zoo_retinanet},
    {"shapemask", 8, zoo_shapemask},
    {"transformer", 32, zoo_transformer},
    {"vit", 32, zoo_vit},
};
#define ZOO_N (sizeof ZOO / sizeof *ZOO)

const char *const v10_zoo_names[] = {
    "bert", "dlrm", "efficientnet", "gpt-decode", "maskrcnn", "mnist", "ncf",
    "resnet50", "resnet-rs", "retinanet", "shapemask", "transformer", "vit", NULL,
};
_Static_assert(sizeof v10_zoo_names / sizeof *v10_zoo_names == ZOO_N + 1,
               "v10_zoo_names and ZOO list the same models");

static const zoo_entry *find(const char *name)
{
    for (size_t i = 0; i < ZOO_N; i++)
        if (!strcmp(ZOO[i].name, name))
            return &ZOO[i];
    return NULL;
}

int v10_zoo_default_batch(const char *name, uint32_t *batch)
{
    const zoo_entry *e = find(name);
    if (!e)
        return -1;
    *batch = e->batch;
    return 0;
}

int v10_zoo_build(const char *name, uint32_t batch, v10_model *out, v10_err *err)
{
    v10_model_init(out, name, batch);
    const zoo_entry *e = find(name);
    if (!e) {
        char known[256];
        return v10_err_set(err, "unknown model '%s' (built-in models: %s)", name,
                           v10_names_join(known, sizeof known, v10_zoo_names, ""));
    }
    if (batch == 0)
        return v10_err_set(err, "%s: batch must be at least 1", name);
    /* The TensorFlow references keep their variables in f32 (Keras's
     * mixed_bfloat16 policy casts them to bf16 inside each layer). */
    out->weight_bytes = 4;
    zb b = {.m = out, .err = err, .n = batch, .rc = 0};
    e->build(&b);
    if (b.rc) {
        v10_model_fini(out);
        return -1;
    }
    return 0;
}
