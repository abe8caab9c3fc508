/*
 * spec.c — a sweep spec: every key validated (naming the key in each
 * message), the canonical form and its hash.  Point enumeration is in
 * points.c, the result store in store.c.  Format: docs/sweep.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sweep/spec.h"
#include "util/json.h"

/* The fixed keys by kind; "npu.FIELD" and the policy parameters are
 * matched by their own rules (key_kind). */
static const char *const key_names[] = {
    "mix", "priority", "npu", NULL, "policy", NULL, "contention", "attribution", "requests",
    "warmup", "seed",
};
#define N_KINDS (sizeof key_names / sizeof key_names[0])
_Static_assert(N_KINDS == K_SEED + 1, "one name per kind");

/* The alphabet of a sweep's name, which names its default folder. */
#define SAFE_NAME "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* FNV-1a 64: offset basis and prime from the FNV specification (Fowler,
 * Noll, Vo; IETF draft-eastlake-fnv). */
uint64_t sweep_fnv1a(const void *p, size_t n)
{
    return sweep_fnv1a_more(1469598103934665603ull, p, n); /* FNV's 64-bit offset basis */
}

uint64_t sweep_fnv1a_more(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

void sweep_hex16(uint64_t h, char *out)
{
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static int cmp_items(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

/* Sorts every object's keys, recursively, so printing is canonical. */
static int sort_keys(cJSON *j)
{
    if (cJSON_IsArray(j)) {
        for (cJSON *c = j->child; c; c = c->next)
            if (sort_keys(c))
                return -1;
        return 0;
    }
    if (!cJSON_IsObject(j))
        return 0;
    size_t n = (size_t)cJSON_GetArraySize(j);
    if (n == 0)
        return 0;
    cJSON **items = malloc(n * sizeof *items);
    if (!items)
        return -1;
    size_t i = 0;
    while (j->child)
        items[i++] = cJSON_DetachItemViaPointer(j, j->child);
    qsort(items, n, sizeof *items, cmp_items);
    int rc = 0;
    for (i = 0; i < n; i++) {
        cJSON_AddItemToArray(j, items[i]);
        rc |= sort_keys(items[i]);
    }
    free(items);
    return rc;
}

/* The kind of `key`, and for a policy parameter its table entry and the
 * place of its field among v10_param_fields (the enumeration order). */
static int key_kind(const char *key, sweep_kind *out, const v10_param_def **param,
                    size_t *field)
{
    if (!strncmp(key, "npu.", 4)) {
        *out = K_NPU_FIELD;
        return key[4] ? 0 : -1;
    }
    for (size_t i = 0; i < N_KINDS; i++)
        if (key_names[i] && !strcmp(key, key_names[i])) {
            *out = (sweep_kind)i;
            return 0;
        }
    const v10_param_def *d = v10_param_find(key), *fields[V10_PARAM_FIELDS_MAX];
    if (!d)
        return -1;
    size_t n = v10_param_fields(fields, V10_PARAM_FIELDS_MAX), f = 0;
    while (f < n && fields[f]->offset != d->offset)
        f++;
    V10_ASSERT(f < n);
    *out = K_PARAM;
    *param = fields[f]; /* one entry per field, whatever name the spec used */
    *field = f;
    return 0;
}

/* ------------------------------------------------------------ validation */

typedef struct vctx {
    const char *origin;
    v10_err *err;
    v10_sweep *s;             /* its inputs fill as the mixes are checked */
    const v10_inputs *given;  /* the inputs to take them from, or NULL: the files */
} vctx;

/* Puts input file `path` into the sweep's set, once (v10_model_spec_files'
 * callback): from the given set, or read from the file. */
static int pin_input(const char *path, void *ctx)
{
    vctx *v = ctx;
    if (!v->given)
        return v10_inputs_add(&v->s->inputs, path, v->err);
    const v10_input *x = v10_inputs_find(v->given, path);
    if (!x)
        return v10_err_set(v->err, "%s: not among the inputs given", path);
    return v10_inputs_put(&v->s->inputs, path, x->data, x->len, v->err);
}

/* "ORIGIN: PATH: expected ..., got 5" (util/json.h: what `got` is; NULL
 * where the message says it already). */
static int bad(vctx *v, const char *path, const cJSON *got, const char *fmt, const char *what)
{
    char m[V10_ERR_MAX], g[64];
    snprintf(m, sizeof m, fmt, what);
    if (!got)
        return v10_err_set(v->err, "%s: %s: %s", v->origin, path, m);
    return v10_err_set(v->err, "%s: %s: %s, got %s", v->origin, path, m,
                       v10_json_got(got, g, sizeof g));
}

static int want_int(vctx *v, const char *path, const cJSON *j, double lo, double hi)
{
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) ||
        j->valuedouble < lo || j->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "an integer in [%.0f, %.0f]", lo, hi);
        return bad(v, path, j, "expected %s", what);
    }
    return 0;
}

static int want_num(vctx *v, const char *path, const cJSON *j, double lo, double hi)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "a number in [%g, %g]", lo, hi);
        return bad(v, path, j, "expected %s", what);
    }
    return 0;
}

/* Builds the NPU override object of a point: base value (preset name or
 * object) plus "npu.FIELD" settings.  Caller owns the result. */
cJSON *sweep_npu_object(const cJSON *npu)
{
    if (!npu) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "base", "v10-isca23");
        return o;
    }
    if (cJSON_IsString(npu)) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "base", npu->valuestring);
        return o;
    }
    return cJSON_Duplicate(npu, 1);
}

/* Resolves an NPU object; names it "<base>+k=v..." unless it has a name. */
int sweep_npu_resolve(cJSON *o, const char *origin, v10_npu *out, v10_err *err)
{
    if (!cJSON_GetObjectItemCaseSensitive(o, "name")) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "base");
        char name[256];
        size_t len = (size_t)snprintf(name, sizeof name, "%s",
                                      cJSON_IsString(b) ? b->valuestring : "v10-isca23");
        int plain = 1;
        for (const cJSON *c = o->child; c && len < sizeof name; c = c->next) {
            if (!strcmp(c->string, "base"))
                continue;
            char *val = cJSON_PrintUnformatted(c);
            len += (size_t)snprintf(name + len, sizeof name - len, "+%s=%s", c->string,
                                    val ? val : "?");
            free(val);
            plain = 0;
        }
        if (!plain) {
            name[V10_NAME_MAX - 1] = 0;
            cJSON_AddStringToObject(o, "name", name);
        }
    }
    /* Every number in its shortest exact form (cJSON's own printing keeps
     * 15 digits whenever they read back within a rounding: a written
     * hbm_w_per_gbps of 0.008162526703534238 came back 0.00816252670353424);
     * printed from a copy, since v10_json_print rewrites the numbers. */
    cJSON *copy = cJSON_Duplicate(o, 1);
    char *text = copy ? v10_json_print(copy, 0) : NULL;
    cJSON_Delete(copy);
    if (!text)
        return v10_err_set(err, "%s: out of memory", origin);
    int rc = v10_npu_from_json(text, origin, out, err);
    free(text);
    return rc;
}

static int check_mix(vctx *v, const char *path, const cJSON *j)
{
    int n = cJSON_GetArraySize(j);
    if (!cJSON_IsArray(j) || n < 1 || n > V10_SWEEP_TENANTS_MAX)
        return bad(v, path, j, "expected a list of 1 to %s tenant specs (strings)", "16");
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    int t = 0;
    for (const cJSON *c = j->child; c; c = c->next, t++) {
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", path, t);
        if (!cJSON_IsString(c))
            return bad(v, p, c, "expected a tenant spec string, e.g. %s", "\"bert:batch=8\"");
        v10_tenant_spec ts;
        v10_err e;
        if (v10_tenant_spec_parse(c->valuestring, &ts, &e))
            return v10_err_set(v->err, "%s: %s: %s", v->origin, p, e.msg);
        /* Its files, read once for the whole sweep, then the model from them. */
        vctx pv = {v->origin, &e, v->s, v->given};
        if (v10_tenant_spec_files(&ts, pin_input, &pv, &e))
            return v10_err_set(v->err, "%s: %s: %s", v->origin, p, e.msg);
        const v10_inputs *prev = v10_inputs_use(&v->s->inputs);
        v10_model m;
        int bad = v10_model_load(ts.model, &npu, &m, &e);
        v10_inputs_use(prev);
        if (bad)
            return v10_err_set(v->err, "%s: %s: %s", v->origin, p, e.msg);
        v10_model_fini(&m);
    }
    return 0;
}

/* A policy parameter's value: a number in the table's range (whole for
 * counts), or one of its choices. */
static int check_param(vctx *v, const v10_param_def *d, const char *path, const cJSON *j)
{
    if (d->type == V10_PARAM_CHOICE) {
        char want[160] = "";
        for (const char *w = d->choices; *w;) {
            size_t n = strcspn(w, "|");
            if (cJSON_IsString(j) && strlen(j->valuestring) == n && !strncmp(j->valuestring, w, n))
                return 0;
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s\"%.*s\"",
                     want[0] ? " or " : "", (int)n, w);
            w += n + (w[n] == '|');
        }
        return bad(v, path, j, "expected %s", want);
    }
    return d->type == V10_PARAM_U64 ? want_int(v, path, j, d->min, d->max)
                                    : want_num(v, path, j, d->min, d->max);
}

static int check_value(vctx *v, const sweep_setting *s, const char *path, const cJSON *j)
{
    v10_err e;
    switch (s->k) {
    case K_MIX: return check_mix(v, path, j);
    case K_PRIORITY: {
        int n = cJSON_GetArraySize(j);
        if (!cJSON_IsArray(j) || n < 1)
            return bad(v, path, j, "expected a list of per-tenant priorities, e.g. %s", "[2, 1]");
        int t = 0;
        for (const cJSON *c = j->child; c; c = c->next, t++) {
            char p[160];
            snprintf(p, sizeof p, "%s[%d]", path, t);
            if (!cJSON_IsNumber(c) || !(c->valuedouble >= 1e-3 && c->valuedouble <= 1000))
                return bad(v, p, c, "expected a priority in %s", "[0.001, 1000]");
        }
        return 0;
    }
    case K_NPU: {
        if (cJSON_IsString(j)) {
            v10_npu n;
            if (v10_npu_preset(j->valuestring, &n, &e))
                return v10_err_set(v->err, "%s: %s: %s", v->origin, path, e.msg);
            return 0;
        }
        if (!cJSON_IsObject(j))
            return bad(v, path, j, "expected a preset name or an object of NPU fields%s", "");
        char org[256];
        snprintf(org, sizeof org, "%s: %s", v->origin, path);
        v10_npu n;
        cJSON *o = sweep_npu_object(j);
        int rc = o ? sweep_npu_resolve(o, org, &n, v->err) : v10_err_set(v->err, "out of memory");
        cJSON_Delete(o);
        return rc;
    }
    case K_NPU_FIELD: {
        const char *f = s->key + 4;
        if (!strcmp(f, "base") || !strcmp(f, "name"))
            return bad(v, path, NULL, "give the preset in the 'npu' key, not %s", s->key);
        if (!cJSON_IsNumber(j) && !cJSON_IsString(j) && !cJSON_IsBool(j))
            return bad(v, path, j, "expected a number, string or boolean for NPU field '%s'", f);
        unsigned mark = v10_json_mark();
        cJSON *o = sweep_npu_object(NULL);
        v10_json_add(o, f, cJSON_Duplicate(j, 1));
        if (v10_json_failed_since(mark)) {
            cJSON_Delete(o);
            return v10_err_set(v->err, "%s: out of memory", v->origin);
        }
        char org[256];
        snprintf(org, sizeof org, "%s: %s", v->origin, path);
        v10_npu n;
        int rc = sweep_npu_resolve(o, org, &n, v->err);
        cJSON_Delete(o);
        return rc;
    }
    case K_POLICY:
        if (!cJSON_IsString(j))
            return bad(v, path, j, "expected a policy name (see %s)", "'v10sim policies'");
    {
        const v10_policy_ops *p = v10_policy_find(j->valuestring);
        if (!p) {
            char m[V10_NAME_MAX + 224], hint[160];
            snprintf(m, sizeof m, "unknown policy '%.*s'%s", V10_NAME_MAX, j->valuestring,
                     v10_policy_hint(hint, sizeof hint, j->valuestring));
            return bad(v, path, NULL, "%s (see 'v10sim policies')", m);
        }
        /* "V10-Full" as people type it (util/names.h): its registry name
         * from here on, in the spec's canonical tree that the values are */
        if (strcmp(j->valuestring, v10_policy_name(p)) &&
            !cJSON_SetValuestring((cJSON *)(uintptr_t)j, v10_policy_name(p)))
            return v10_err_set(v->err, "out of memory");
        return 0;
    }
    case K_PARAM: return check_param(v, s->param, path, j);
    case K_CONTENTION:
    case K_ATTRIBUTION:
        if (!cJSON_IsBool(j))
            return bad(v, path, j, "expected %s", "true or false");
        return 0;
    case K_REQUESTS: return want_int(v, path, j, 1, 1e7);
    case K_WARMUP: return want_int(v, path, j, 0, 1e7);
    case K_SEED: /* 2^53 - 1: the largest integer every larger JSON number cannot round to */
        return want_int(v, path, j, 0, 9007199254740991.0);
    }
    V10_ASSERT(0);
    return -1;
}

int sweep_setting_check(const char *origin, const char *path, const char *key, const cJSON *v,
                        sweep_setting *st, v10_err *err)
{
    memset(st, 0, sizeof *st);
    if (key_kind(key, &st->k, &st->param, &st->field) || strlen(key) >= sizeof st->key)
        return v10_err_set(err, "%s: %s: unknown key", origin, path);
    snprintf(st->key, sizeof st->key, "%s", key);
    vctx vc = {.origin = origin, .err = err};
    return check_value(&vc, st, path, v);
}

static void setting_path(const sweep_setting *s, size_t j, char *out, size_t cap)
{
    if (s->is_axis)
        snprintf(out, cap, "axes.%s[%zu]", s->key, j);
    else
        snprintf(out, cap, "fixed.%s", s->key);
}

static const sweep_setting *find_kind(const v10_sweep *s, sweep_kind k)
{
    for (size_t i = 0; i < s->n_set; i++)
        if (s->set[i].k == k)
            return &s->set[i];
    return NULL;
}

/* Cross-key checks: priority vectors match every mix, warm-up < requests. */
static int check_cross(vctx *v, const v10_sweep *s)
{
    const sweep_setting *mix = find_kind(s, K_MIX), *pri = find_kind(s, K_PRIORITY);
    char pa[160], pb[160];
    if (!mix)
        return v10_err_set(v->err, "%s: no tenant mix: give axes.mix (a list of tenant lists) "
                           "or fixed.mix (one list)", v->origin);
    for (size_t a = 0; pri && a < pri->n; a++)
        for (size_t b = 0; b < mix->n; b++) {
            int np = cJSON_GetArraySize(cJSON_GetArrayItem(pri->values, (int)a));
            int nm = cJSON_GetArraySize(cJSON_GetArrayItem(mix->values, (int)b));
            if (np != nm) {
                setting_path(pri, a, pa, sizeof pa);
                setting_path(mix, b, pb, sizeof pb);
                return v10_err_set(v->err, "%s: %s: %d priorities, but %s has %d tenants",
                                   v->origin, pa, np, pb, nm);
            }
        }
    const sweep_setting *req = find_kind(s, K_REQUESTS), *warm = find_kind(s, K_WARMUP);
    for (size_t a = 0; warm && a < warm->n; a++) {
        double w = cJSON_GetArrayItem(warm->values, (int)a)->valuedouble;
        for (size_t b = 0; b < (req ? req->n : 1); b++) {
            double r = req ? cJSON_GetArrayItem(req->values, (int)b)->valuedouble : 20;
            if (w >= r) {
                setting_path(warm, a, pa, sizeof pa);
                return v10_err_set(v->err, "%s: %s: warm-up %.0f must be below requests %.0f",
                                   v->origin, pa, w, r);
            }
        }
    }
    return 0;
}

static int cmp_settings(const void *a, const void *b)
{
    const sweep_setting *x = a, *y = b;
    if (x->k != y->k)
        return (int)x->k - (int)y->k;
    if (x->k == K_PARAM)
        return (x->field > y->field) - (x->field < y->field);
    return strcmp(x->key, y->key);
}

/* Collects the settings of "axes" (is_axis) or "fixed" into s->set. */
static int collect(vctx *v, v10_sweep *s, const cJSON *obj, int is_axis)
{
    const char *sec = is_axis ? "axes" : "fixed";
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return v10_err_set(v->err, "%s: %s: expected an object of settings", v->origin, sec);
    for (const cJSON *c = obj->child; c; c = c->next) {
        sweep_kind k;
        const v10_param_def *param = NULL;
        size_t field = 0;
        if (key_kind(c->string, &k, &param, &field) || strlen(c->string) >= sizeof s->set[0].key)
            return v10_err_set(v->err,
                               "%s: %s.%s: unknown key (expected mix, priority, npu, npu.FIELD, "
                               "policy, a policy parameter such as pmt.slice_us (see 'v10sim "
                               "policies --params'), contention, attribution, requests, warmup or "
                               "seed)",
                               v->origin, sec, c->string);
        for (size_t i = 0; i < s->n_set; i++)
            if (!strcmp(s->set[i].key, c->string) || (param && s->set[i].param == param))
                return v10_err_set(v->err, "%s: %s.%s: given twice%s", v->origin, sec,
                                   c->string, s->set[i].is_axis != is_axis
                                                  ? " (in both axes and fixed)"
                                                  : strcmp(s->set[i].key, c->string)
                                                        ? " (under another of its names)" : "");
        if (s->n_set == SWEEP_SETTINGS_MAX)
            return v10_err_set(v->err, "%s: %s.%s: more than %d settings", v->origin, sec,
                               c->string, SWEEP_SETTINGS_MAX);
        sweep_setting *st = &s->set[s->n_set];
        memset(st, 0, sizeof *st);
        snprintf(st->key, sizeof st->key, "%s", c->string);
        st->k = k;
        st->param = param;
        st->field = field;
        st->is_axis = is_axis;
        if (is_axis) {
            if (!cJSON_IsArray(c))
                return v10_err_set(v->err, "%s: axes.%s: expected a list of values (a single "
                                   "value goes in \"fixed\")", v->origin, c->string);
            if (!c->child)
                return v10_err_set(v->err, "%s: axes.%s: empty list, so the product is empty "
                                   "(empty product: the sweep would have no points)",
                                   v->origin, c->string);
            st->values = c;
        } else {
            /* Wrap the fixed value in a list of one, owned by the tree. */
            cJSON *arr = cJSON_CreateArray();
            if (!v10_json_push(s->lists, arr) || !v10_json_push(arr, cJSON_Duplicate(c, 1)))
                return v10_err_set(v->err, "out of memory");
            st->values = arr;
        }
        st->n = (size_t)cJSON_GetArraySize(st->values);
        size_t j = 0;
        for (const cJSON *x = st->values->child; x; x = x->next, j++) {
            char path[160];
            setting_path(st, j, path, sizeof path);
            if (check_value(v, st, path, x))
                return -1;
        }
        s->n_set++;
    }
    return 0;
}

int sweep_spec_parse(const char *text, const char *origin, const v10_inputs *given,
                     v10_sweep **out, v10_err *err)
{
    *out = NULL;
    vctx v = {origin, err, NULL, given};
    unsigned mark = v10_json_mark();
    cJSON *in = v10_json_parse_input(text, origin, err);
    if (!in)
        return -1;
    v10_sweep *s = calloc(1, sizeof *s);
    if (!s) {
        cJSON_Delete(in);
        return v10_err_set(err, "out of memory");
    }
    snprintf(s->origin, sizeof s->origin, "%s", origin);
    v.s = s;
    int rc = -1;
    if (!cJSON_IsObject(in)) {
        v10_err_set(err, "%s: expected a JSON object with \"axes\"", origin);
        goto done;
    }
    for (const cJSON *c = in->child; c; c = c->next)
        if (strcmp(c->string, "name") && strcmp(c->string, "description") &&
            strcmp(c->string, "axes") && strcmp(c->string, "fixed")) {
            v10_err_set(err, "%s: %s: unknown key (expected name, description, axes, fixed)",
                        origin, c->string);
            goto done;
        }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(in, "name");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(in, "description");
    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(in, "axes");
    const cJSON *fixed = cJSON_GetObjectItemCaseSensitive(in, "fixed");
    if (name && (!cJSON_IsString(name) || !name->valuestring[0] ||
                 strlen(name->valuestring) >= V10_NAME_MAX)) {
        v10_err_set(err, "%s: name: expected a non-empty string of at most %d characters",
                    origin, V10_NAME_MAX - 1);
        goto done;
    }
    /* The name chooses the default output folder (sweep-NAME): a path from
     * data must not reach outside it ("../x", "/", newlines). */
    if (name && (name->valuestring[strspn(name->valuestring, SAFE_NAME)] ||
                 name->valuestring[0] == '.' || name->valuestring[0] == '-')) {
        v10_err_set(err, "%s: name: expected letters, digits, '.', '_' and '-' only, not "
                         "starting with '.' or '-' (it names the folder sweep-NAME)", origin);
        goto done;
    }
    if (desc && !cJSON_IsString(desc)) {
        v10_err_set(err, "%s: description: expected a string", origin);
        goto done;
    }
    if (!axes) {
        v10_err_set(err, "%s: axes: missing (an object of lists, e.g. "
                    "{\"policy\": [\"pmt\", \"v10-full\"]})", origin);
        goto done;
    }
    /* The canonical tree: name, axes and fixed with sorted keys. */
    s->root = cJSON_CreateObject();
    s->lists = cJSON_CreateArray();
    if (!s->root || !s->lists) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    if (name)
        cJSON_AddStringToObject(s->root, "name", name->valuestring);
    cJSON *cax = cJSON_Duplicate(axes, 1), *cfx = fixed ? cJSON_Duplicate(fixed, 1) : NULL;
    v10_json_add(s->root, "axes", cax);
    if (fixed)
        v10_json_add(s->root, "fixed", cfx);
    if (v10_json_failed_since(mark) || sort_keys(s->root)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    if (collect(&v, s, cax, 1) || collect(&v, s, cfx, 0))
        goto done;
    qsort(s->set, s->n_set, sizeof s->set[0], cmp_settings);
    if (check_cross(&v, s))
        goto done;
    cJSON *copy = cJSON_Duplicate(s->root, 1); /* v10_json_print rewrites its numbers */
    s->canonical = v10_json_print(copy, 1);     /* exact: 2^53 - 1 is not 2^53 */
    cJSON_Delete(copy);
    if (!s->canonical || v10_json_failed_since(mark)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    sweep_hex16(sweep_fnv1a(s->canonical, strlen(s->canonical)), s->hash);
    if (name)
        snprintf(s->name, sizeof s->name, "%s", name->valuestring);
    else {
        const char *b = strrchr(origin, '/');
        snprintf(s->name, sizeof s->name, "%s", b ? b + 1 : origin);
        char *dot = strrchr(s->name, '.');
        if (dot && dot != s->name)
            *dot = 0;
        for (char *c = s->name; *c; c++) /* the file's name, kept to the same alphabet */
            if (!strchr(SAFE_NAME, *c))
                *c = '_';
    }
    rc = 0;
done:
    cJSON_Delete(in);
    if (rc)
        v10_sweep_destroy(s);
    else
        *out = s;
    return rc;
}

void v10_sweep_destroy(v10_sweep *s)
{
    if (!s)
        return;
    cJSON_Delete(s->root);
    cJSON_Delete(s->lists);
    free(s->canonical);
    v10_inputs_fini(&s->inputs);
    free(s);
}

size_t v10_sweep_points(const v10_sweep *s) { return s->points; }
const char *v10_sweep_name(const v10_sweep *s) { return s->name; }
const char *v10_sweep_hash(const v10_sweep *s) { return s->hash; }
const char *v10_sweep_canonical(const v10_sweep *s) { return s->canonical; }
