/*
 * spec.c — model specs ("NAME[:batch=N]", "PATH.csv" (an operator trace or a
 * SCALE-Sim topology), "PATH.onnx[:unknown=vu]",
 * "isca23/NAME", "llm/MODEL:prefill=P", any of them ":profile=F.csv:row=R"):
 * parses the options, dispatches to the zoo or an importer, costs the model
 * for one NPU and calibrates it to a profile (docs/formats.md "Model specs").
 * The layer above the IR, the importers and the cost model; none of them
 * calls back here.
 */
#include "v10/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/topology.h"
#include "util/file.h"
#include "util/json.h"
#include "util/names.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/calibrate.h"
#include "v10/cost.h"
#include "v10/llm.h"
#include "v10/onnx.h"

#define ISCA23_PREFIX "isca23/"
#define LLM_PREFIX "llm/"

/* A parsed model spec (docs/formats.md "Model specs"). */
typedef struct spec {
    char name[1024];
    uint32_t batch;          /* 0 if absent */
    int unknown_vu;          /* ONNX: approximate unknown operators on the VU */
    char profile[1024];      /* calibrate to: comma-separated profile CSVs, or "" */
    char row[V10_NAME_MAX];  /* ... their row (default: the model's name) */
    uint32_t row_batch;      /* ... at this batch (default: the model's) */
    char phase[1024];        /* llm/: "prefill=P" or "decode=NxC,...", or "" */
    int has_sa_ops;          /* sa_ops= given (with profile= or isca23/) */
    v10_calib_opts calib;    /* ... its choice */
} spec;

/* Copies the value of option `key=` (kv, kl) into buf; -1 if it does not fit. */
static int opt_value(const char *kv, size_t kl, size_t keylen, char *buf, size_t sz)
{
    size_t vl = kl - keylen;
    if (vl >= sz)
        return -1;
    memcpy(buf, kv + keylen, vl);
    buf[vl] = 0;
    return 0;
}

/* Splits "NAME[:batch=N][:unknown=vu][:profile=F.csv[,G.csv]][:row=R[@B]]
 * [:sa_ops=layers|work]". */
static int parse_spec(const char *text, spec *sp, v10_err *err)
{
    memset(sp, 0, sizeof *sp);
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0)
        return v10_err_set(err, "model '%s': empty name", text);
    if (len >= sizeof sp->name)
        return v10_err_set(err, "model '%s': name too long", text);
    memcpy(sp->name, text, len);
    sp->name[len] = 0;
    static const char *const keys[] = {"batch=",   "prefill=", "decode=", "unknown=",
                                       "profile=", "row=",     "sa_ops="};
    unsigned seen = 0; /* bit k: keys[k] given (each may appear once) */
    while (colon) {
        const char *kv = colon + 1;
        colon = strchr(kv, ':');
        size_t kl = colon ? (size_t)(colon - kv) : strlen(kv);
        for (unsigned k = 0; k < sizeof keys / sizeof *keys; k++) {
            size_t l = strlen(keys[k]);
            if (kl < l || strncmp(kv, keys[k], l))
                continue;
            /* prefill= and decode= are one choice, the phase */
            unsigned bit = k == 2 ? 1u << 1 : 1u << k;
            if ((seen & bit) && (k == 1 || k == 2))
                return v10_err_set(err, "model '%s': prefill= and decode= are two phases: "
                                        "give one", text);
            if (seen & bit)
                return v10_err_set(err, "model '%s': %s given twice (give each option once)",
                                   text, keys[k]);
            seen |= bit;
            if (kl == l) /* a known key without its value is not an unknown option */
                return v10_err_set(err, "model '%s': %.*s: expected a value, got ''", text,
                                   (int)l - 1, keys[k]);
            if (k == 3 && (kl != 10 || strncmp(kv, "unknown=vu", 10)))
                return v10_err_set(err, "model '%s': unknown: expected vu, got '%.*s'", text,
                                   (int)(kl - l), kv + l);
        }
        if (kl > 6 && !strncmp(kv, "batch=", 6)) {
            char num[32];
            if (opt_value(kv, kl, 6, num, sizeof num))
                return v10_err_set(err, "model '%s': batch: expected an integer in [1, 65536]", text);
            uint64_t v;
            if (v10_parse_u64(num, &v) || v < 1 || v > 65536)
                return v10_err_set(err, "model '%s': batch: expected an integer in [1, 65536], "
                                        "got '%s'", text, num);
            sp->batch = (uint32_t)v;
        } else if ((kl > 8 && !strncmp(kv, "prefill=", 8)) ||
                   (kl > 7 && !strncmp(kv, "decode=", 7))) {
            if (opt_value(kv, kl, 0, sp->phase, sizeof sp->phase))
                return v10_err_set(err, "model '%s': phase option too long", text);
        } else if (kl == 10 && !strncmp(kv, "unknown=vu", 10)) {
            sp->unknown_vu = 1;
        } else if (kl > 8 && !strncmp(kv, "profile=", 8)) {
            if (opt_value(kv, kl, 8, sp->profile, sizeof sp->profile))
                return v10_err_set(err, "model '%s': profile: path too long", text);
        } else if (kl > 7 && !strncmp(kv, "sa_ops=", 7)) {
            char how[16];
            if (opt_value(kv, kl, 7, how, sizeof how) ||
                v10_calib_sa_parse(how, &sp->calib.sa_ops, err))
                return v10_err_set(err, "model '%s': sa_ops: expected layers or work", text);
            sp->has_sa_ops = 1;
        } else if (kl > 4 && !strncmp(kv, "row=", 4)) {
            char row[V10_NAME_MAX + 16];
            if (opt_value(kv, kl, 4, row, sizeof row) ||
                v10_profile_parse_row(row, sp->row, sizeof sp->row, &sp->row_batch, err))
                return v10_err_set(err, "model '%s': row: expected NAME or NAME@BATCH", text);
        } else {
            return v10_err_set(err, "model '%s': unknown option '%.*s' (expected batch=N, "
                                    "profile=FILE.csv, row=NAME[@B], sa_ops=layers|work, "
                                    "for .onnx unknown=vu, "
                                    "for llm/ prefill=P or decode=NxC)",
                               text, (int)kl, kv);
        }
    }
    if (sp->row[0] && !sp->profile[0])
        return v10_err_set(err, "model '%s': row= goes with profile=", text);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t l = strlen(s), k = strlen(suffix);
    return l > k && !strcmp(s + l - k, suffix);
}

static int is_path(const char *name)
{
    return strchr(name, '/') || ends_with(name, ".csv");
}

/* Calibrates the costed model *m to the profile named in the spec (*m
 * becomes the calibrated model, or is left empty on failure). */
static int calibrate_spec(const spec *sp, const char *text, const v10_npu *npu, v10_model *m,
                          v10_err *err)
{
    v10_profile prof;
    v10_profile_init(&prof);
    const char *row = sp->row[0] ? sp->row : sp->name;
    uint32_t row_batch = sp->row[0] ? sp->row_batch : m->batch;
    char files[sizeof sp->profile];
    snprintf(files, sizeof files, "%s", sp->profile);
    int found = 0;
    for (char *save = NULL, *f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        int rc = v10_profile_merge_file(f, row, row_batch, &prof, err);
        if (rc < 0)
            return -1;
        found |= rc;
    }
    if (!found)
        return v10_err_set(err, "model '%s': no row '%s'%s in %s", text, row,
                           row_batch ? " at that batch" : "", sp->profile);
    /* Written over m's operators (m is left empty, success or not). */
    v10_model cal;
    if (v10_calibrate_take(m, &prof, npu, &sp->calib, &cal, NULL, err))
        return v10_err_prefix(err, "model '%s'", text);
    snprintf(cal.name, sizeof cal.name, "%s", m->name);
    v10_model_fini(m);
    *m = cal;
    return 0;
}

int v10_model_spec_files(const char *text, int (*fn)(const char *path, void *ctx), void *ctx,
                         v10_err *err)
{
    spec sp;
    if (parse_spec(text, &sp, err))
        return -1;
    const char *name = sp.name;
    int rc = 0;
    if (!strncmp(name, LLM_PREFIX, strlen(LLM_PREFIX))) {
        if (v10_json_spec_is_file(name + strlen(LLM_PREFIX)))
            rc = fn(name + strlen(LLM_PREFIX), ctx);
    } else if (strncmp(name, ISCA23_PREFIX, strlen(ISCA23_PREFIX)) &&
               (ends_with(name, ".onnx") || is_path(name))) {
        rc = fn(name, ctx);
    }
    char files[sizeof sp.profile];
    snprintf(files, sizeof files, "%s", sp.profile);
    for (char *save = NULL, *f = strtok_r(files, ",", &save); f && !rc;
         f = strtok_r(NULL, ",", &save))
        rc = fn(f, ctx);
    return rc;
}

/* err = "unknown model NAME", the nearest built-in names, and every name a
 * model spec accepts. */
static void unknown_model(const char *name, v10_err *err)
{
    char zoo[256], isca[256], llm[128], hint[160];
    v10_name_hint(hint, sizeof hint, name, v10_zoo_names, (size_t)-1, NULL);
    v10_err_set(err, "unknown model '%s'%s (built-in models: %s; the paper's, calibrated: "
                     "isca23/ + %s; LLMs: llm/ + %s or a .json configuration; or an "
                     "operator-trace .csv or an .onnx file)", name, hint,
                v10_names_join(zoo, sizeof zoo, v10_zoo_names, ""),
                v10_names_join(isca, sizeof isca, v10_isca23_names, ""),
                v10_names_join(llm, sizeof llm, v10_llm_preset_names, ""));
}

/* Whether name begins with prefix, ignoring ASCII case. */
static int has_prefix(const char *name, const char *prefix)
{
    for (; *prefix; name++, prefix++)
        if (!*name || (*name | 0x20) != (*prefix | 0x20))
            return 0;
    return 1;
}

/*
 * A built-in model's name as people type it (util/names.h): "Resnet50",
 * " bert", "ISCA23/BERT" and "LLM/gpt2-xl" become the names they mean,
 * where no other name differs from them only in case; paths (with a '/'
 * other than these prefixes', or ending in .csv or .onnx) are left as
 * they are.  Rewrites name[cap] in place.
 */
static void builtin_name(char *name, size_t cap)
{
    static const struct {
        const char *prefix;
        const char *const *names;
    } sets[] = {{ISCA23_PREFIX, v10_isca23_names}, {LLM_PREFIX, NULL}, {"", v10_zoo_names}};
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        size_t pl = strlen(sets[k].prefix);
        if (!has_prefix(name, sets[k].prefix))
            continue;
        memcpy(name, sets[k].prefix, pl); /* the prefix as written here */
        if (!sets[k].names) /* llm/: the preset is looked up as a preset (util/config.c) */
            return;
        long i = v10_name_lookup(name + pl, sets[k].names, (size_t)-1);
        if (i >= 0)
            snprintf(name + pl, cap - pl, "%s", sets[k].names[i]);
        return;
    }
}

/* A model file that is not ONNX, read once and whole: a SCALE-Sim topology
 * (v10_topology_sniff knows its header) with `batch` images, else an
 * operator trace.  On failure out holds nothing to free. */
static int load_file(const char *path, uint32_t batch, const v10_npu *npu, v10_model *out,
                     v10_err *err)
{
    size_t len = 0;
    char *text = v10_file_read_text(path, V10_INPUT_MAX_BYTES, &len, err);
    if (!text)
        return -1;
    FILE *f = fmemopen(text, len ? len : 1, "r");
    if (!f) {
        free(text);
        return v10_err_set(err, "%s: out of memory", path);
    }
    if (!len)
        fgetc(f); /* fmemopen needs a byte of buffer: an empty file reads as empty */
    int rc;
    if (v10_topology_sniff(text, len)) {
        v10_topo *topo = NULL;
        const char *base = strrchr(path, '/');
        rc = v10_topology_parse(f, path, V10_TOPO_AUTO, &topo, err);
        if (!rc && (rc = v10_topology_model(topo, path, base ? base + 1 : path, batch, out,
                                            err)))
            v10_model_fini(out);
        v10_topology_free(topo);
    } else {
        rc = v10_trace_csv_parse(f, path, npu, out, err);
        if (!rc && batch)
            out->batch = batch;
    }
    fclose(f);
    free(text);
    return rc;
}

/* v10_model_load, or with for_run v10_model_load_run. */
static int load(const char *text, const v10_npu *npu, int for_run, v10_model *out, v10_err *err)
{
    spec sp;
    memset(out, 0, sizeof *out);
    if (parse_spec(text, &sp, err))
        return -1;
    builtin_name(sp.name, sizeof sp.name);
    const char *name = sp.name;
    if (sp.unknown_vu && !ends_with(name, ".onnx"))
        return v10_err_set(err, "model '%s': unknown=vu applies to .onnx models only", text);
    int llm = !strncmp(name, LLM_PREFIX, strlen(LLM_PREFIX));
    if (sp.has_sa_ops && !sp.profile[0] && strncmp(name, ISCA23_PREFIX, strlen(ISCA23_PREFIX)))
        return v10_err_set(err, "model '%s': sa_ops= goes with profile= or an isca23/ model",
                           text);
    if (sp.phase[0] && !llm)
        return v10_err_set(err, "model '%s': prefill= and decode= apply to llm/ models only",
                           text);
    if (llm) {
        if (sp.batch)
            return v10_err_set(err, "model '%s': batch= does not apply to llm/ models (the "
                                    "batch is decode=NxC's N)", text);
        if (v10_llm_build_spec(text, name + strlen(LLM_PREFIX), sp.phase, npu, out, err))
            return -1;
    } else if (!strncmp(name, ISCA23_PREFIX, strlen(ISCA23_PREFIX))) {
        if (sp.profile[0])
            return v10_err_set(err, "model '%s': isca23 models are calibrated already", text);
        v10_profile unused;
        uint32_t batch;
        if (v10_isca23_profile(name + strlen(ISCA23_PREFIX), &unused, &batch, err))
            return -1;
        if (sp.batch && sp.batch != batch)
            return v10_err_set(err, "model '%s': isca23 models exist at the paper's batch "
                                    "only (%u here): its operator lengths were measured there",
                               text, batch);
        /* Costed for this NPU by the cache, shared read-only. */
        return (for_run ? v10_isca23_load_run : v10_isca23_load_as)(
            name + strlen(ISCA23_PREFIX), sp.calib.sa_ops, npu, out, err);
    } else if (ends_with(name, ".onnx")) {
        v10_onnx_opts o = {sp.batch, sp.unknown_vu};
        if (v10_onnx_read(name, &o, out, NULL, err))
            return -1;
    } else if (is_path(name)) {
        if (load_file(name, sp.batch, npu, out, err))
            return -1;
    } else {
        uint32_t def, batch = sp.batch;
        if (!batch && v10_zoo_default_batch(name, &def) == 0)
            batch = def;
        if (v10_zoo_build(name, batch ? batch : 1, out, err)) {
            if (v10_zoo_default_batch(name, &def)) /* not a built-in name */
                unknown_model(name, err);
            return -1;
        }
    }
    if (out->n_ops == 0) {
        v10_model_fini(out);
        return v10_err_set(err, "model '%s': no operators", text);
    }
    if (v10_cost_model(npu, out, err) ||
        (sp.profile[0] && calibrate_spec(&sp, text, npu, out, err))) {
        v10_model_fini(out);
        return -1;
    }
    return 0;
}

int v10_model_load(const char *text, const v10_npu *npu, v10_model *out, v10_err *err)
{
    return load(text, npu, 0, out, err);
}

int v10_model_load_run(const char *text, const v10_npu *npu, v10_model *out, v10_err *err)
{
    return load(text, npu, 1, out, err);
}
