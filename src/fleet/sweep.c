/*
 * sweep.c — parameter sweeps: the spec (validation, canonical form, point
 * enumeration), one point's run as a JSONL row, and the durable result
 * store that makes a killed sweep resumable.  Format: docs/sweep.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/file.h"
#include "util/json.h"
#include "util/num.h"
#include "v10/pool.h"
#include "v10/report.h"
#include "v10/sweep.h"

/* ------------------------------------------------------------------ keys */

/* The settings a spec may give, in enumeration order: a point's index is
 * row-major over the axes in this order, the last (seed) varying fastest.
 * "npu.FIELD" keys sort after "npu", by field name. */
typedef enum kind {
    K_MIX = 0, K_PRIORITY, K_NPU, K_NPU_FIELD, K_POLICY, K_SLICE, K_PMT_SLICE,
    K_PMT_SHARE, K_DRAIN, K_CONTENTION, K_REQUESTS, K_WARMUP, K_SEED,
} kind;

static const char *const key_names[] = {
    "mix", "priority", "npu", "npu.*", "policy", "slice_cycles", "pmt_slice_us",
    "pmt_share", "prema_drain_frac", "contention", "requests", "warmup", "seed",
};
#define N_KINDS (sizeof key_names / sizeof key_names[0])

#define MAX_SETTINGS 64
/* The alphabet of a sweep's name, which names its default folder. */
#define SAFE_NAME "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
#define LOCK_NAME ".lock" /* held by the process that owns a result folder */

/*
 * One setting: an axis (its list of values) or a fixed value (stored as a
 * list of one).  Invariant: n >= 1, values is a JSON array of n items owned
 * by the sweep's canonical tree.
 */
typedef struct setting {
    char key[V10_NAME_MAX + 8]; /* "policy", "npu.vmem_bytes" */
    kind k;
    int is_axis;
    const cJSON *values;
    size_t n;
} setting;

struct v10_sweep {
    char name[V10_NAME_MAX];
    char origin[256];
    char hash[17];
    char *canonical;       /* pretty JSON of `root` */
    cJSON *root;           /* {"name", "axes", "fixed"}, keys sorted */
    cJSON *lists;          /* owns the one-element lists of fixed values */
    setting set[MAX_SETTINGS]; /* in enumeration order */
    size_t n_set;
    size_t points;
    size_t block; /* points per value of the settings before the policy's
                     parameters: sum over policies of their parameter axes' product */
    char default_policy[V10_NAME_MAX]; /* the run's, when the spec gives none */
};

static int count_points(v10_sweep *s);

static uint64_t fnv1a_n(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fnv1a(const char *s) { return fnv1a_n(s, strlen(s)); }

static void hex16(uint64_t h, char *out)
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

static int key_kind(const char *key, kind *out)
{
    if (!strncmp(key, "npu.", 4)) {
        *out = K_NPU_FIELD;
        return key[4] ? 0 : -1;
    }
    for (size_t i = 0; i < N_KINDS; i++)
        if (i != K_NPU_FIELD && !strcmp(key, key_names[i])) {
            *out = (kind)i;
            return 0;
        }
    return -1;
}

/* ------------------------------------------------------------ validation */

typedef struct vctx {
    const char *origin;
    v10_err *err;
} vctx;

static int bad(vctx *v, const char *path, const char *fmt, const char *what)
{
    char m[V10_ERR_MAX];
    snprintf(m, sizeof m, fmt, what);
    return v10_err_set(v->err, "%s: %s: %s", v->origin, path, m);
}

static int want_int(vctx *v, const char *path, const cJSON *j, double lo, double hi)
{
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) ||
        j->valuedouble < lo || j->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "an integer in [%.0f, %.0f]", lo, hi);
        return bad(v, path, "expected %s", what);
    }
    return 0;
}

static int want_num(vctx *v, const char *path, const cJSON *j, double lo, double hi)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "a number in [%g, %g]", lo, hi);
        return bad(v, path, "expected %s", what);
    }
    return 0;
}

/* Builds the NPU override object of a point: base value (preset name or
 * object) plus "npu.FIELD" settings.  Caller owns the result. */
static cJSON *npu_object(const cJSON *npu)
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
static int npu_resolve(cJSON *o, const char *origin, v10_npu *out, v10_err *err)
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
    char *text = cJSON_PrintUnformatted(o);
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
        return bad(v, path, "expected a list of 1 to %s tenant specs (strings)", "16");
    v10_npu npu;
    v10_npu_preset("v10-isca23", &npu, NULL);
    int t = 0;
    for (const cJSON *c = j->child; c; c = c->next, t++) {
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", path, t);
        if (!cJSON_IsString(c))
            return bad(v, p, "expected a tenant spec string, e.g. %s", "\"bert:batch=8\"");
        v10_tenant_spec ts;
        v10_err e;
        if (v10_tenant_spec_parse(c->valuestring, &ts, &e))
            return v10_err_set(v->err, "%s: %s: %s", v->origin, p, e.msg);
        v10_model m;
        if (v10_model_load(ts.model, &npu, &m, &e))
            return v10_err_set(v->err, "%s: %s: %s", v->origin, p, e.msg);
        v10_model_fini(&m);
    }
    return 0;
}

static int check_value(vctx *v, const setting *s, const char *path, const cJSON *j)
{
    v10_err e;
    switch (s->k) {
    case K_MIX: return check_mix(v, path, j);
    case K_PRIORITY: {
        int n = cJSON_GetArraySize(j);
        if (!cJSON_IsArray(j) || n < 1)
            return bad(v, path, "expected a list of per-tenant priorities, e.g. %s", "[2, 1]");
        int t = 0;
        for (const cJSON *c = j->child; c; c = c->next, t++) {
            char p[160];
            snprintf(p, sizeof p, "%s[%d]", path, t);
            if (!cJSON_IsNumber(c) || !(c->valuedouble >= 1e-3 && c->valuedouble <= 1000))
                return bad(v, p, "expected a priority in %s", "[0.001, 1000]");
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
            return bad(v, path, "expected a preset name or an object of NPU fields%s", "");
        char org[256];
        snprintf(org, sizeof org, "%s: %s", v->origin, path);
        v10_npu n;
        cJSON *o = npu_object(j);
        int rc = o ? npu_resolve(o, org, &n, v->err) : v10_err_set(v->err, "out of memory");
        cJSON_Delete(o);
        return rc;
    }
    case K_NPU_FIELD: {
        const char *f = s->key + 4;
        if (!strcmp(f, "base") || !strcmp(f, "name"))
            return bad(v, path, "give the preset in the 'npu' key, not %s", s->key);
        if (!cJSON_IsNumber(j) && !cJSON_IsString(j) && !cJSON_IsBool(j))
            return bad(v, path, "expected a number, string or boolean for NPU field '%s'", f);
        unsigned mark = v10_json_mark();
        cJSON *o = npu_object(NULL);
        v10_json_add(o, f, cJSON_Duplicate(j, 1));
        if (v10_json_failed_since(mark)) {
            cJSON_Delete(o);
            return v10_err_set(v->err, "%s: out of memory", v->origin);
        }
        char org[256];
        snprintf(org, sizeof org, "%s: %s", v->origin, path);
        v10_npu n;
        int rc = npu_resolve(o, org, &n, v->err);
        cJSON_Delete(o);
        return rc;
    }
    case K_POLICY:
        if (!cJSON_IsString(j))
            return bad(v, path, "expected a policy name (see %s)", "'v10sim policies'");
        if (!v10_policy_find(j->valuestring)) {
            char m[V10_NAME_MAX + 64];
            snprintf(m, sizeof m, "unknown policy '%.*s'", V10_NAME_MAX, j->valuestring);
            return bad(v, path, "%s (see 'v10sim policies')", m);
        }
        return 0;
    case K_SLICE: return want_int(v, path, j, 0, 1099511627776.0);
    case K_PMT_SLICE: return want_num(v, path, j, 0.01, 1e9);
    case K_PMT_SHARE:
        if (!cJSON_IsString(j) ||
            (strcmp(j->valuestring, "priority") && strcmp(j->valuestring, "equal")))
            return bad(v, path, "expected %s", "\"priority\" or \"equal\"");
        return 0;
    case K_DRAIN: return want_num(v, path, j, 0, 1000);
    case K_CONTENTION:
        if (!cJSON_IsBool(j))
            return bad(v, path, "expected %s", "true or false");
        return 0;
    case K_REQUESTS: return want_int(v, path, j, 1, 1e7);
    case K_WARMUP: return want_int(v, path, j, 0, 1e7);
    case K_SEED: return want_int(v, path, j, 0, 9007199254740992.0);
    }
    V10_ASSERT(0);
    return -1;
}

static void setting_path(const setting *s, size_t j, char *out, size_t cap)
{
    if (s->is_axis)
        snprintf(out, cap, "axes.%s[%zu]", s->key, j);
    else
        snprintf(out, cap, "fixed.%s", s->key);
}

static const setting *find_kind(const v10_sweep *s, kind k)
{
    for (size_t i = 0; i < s->n_set; i++)
        if (s->set[i].k == k)
            return &s->set[i];
    return NULL;
}

/* Cross-key checks: priority vectors match every mix, warm-up < requests. */
static int check_cross(vctx *v, const v10_sweep *s)
{
    const setting *mix = find_kind(s, K_MIX), *pri = find_kind(s, K_PRIORITY);
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
    const setting *req = find_kind(s, K_REQUESTS), *warm = find_kind(s, K_WARMUP);
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
    const setting *x = a, *y = b;
    if (x->k != y->k)
        return (int)x->k - (int)y->k;
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
        kind k;
        if (key_kind(c->string, &k) || strlen(c->string) >= sizeof s->set[0].key)
            return v10_err_set(v->err,
                               "%s: %s.%s: unknown key (expected mix, priority, npu, npu.FIELD, "
                               "policy, slice_cycles, pmt_slice_us, pmt_share, prema_drain_frac, "
                               "contention, requests, warmup or seed)",
                               v->origin, sec, c->string);
        for (size_t i = 0; i < s->n_set; i++)
            if (!strcmp(s->set[i].key, c->string))
                return v10_err_set(v->err, "%s: %s.%s: given twice%s", v->origin, sec,
                                   c->string, s->set[i].is_axis != is_axis
                                                  ? " (in both axes and fixed)" : "");
        if (s->n_set == MAX_SETTINGS)
            return v10_err_set(v->err, "%s: %s.%s: more than %d settings", v->origin, sec,
                               c->string, MAX_SETTINGS);
        setting *st = &s->set[s->n_set];
        memset(st, 0, sizeof *st);
        snprintf(st->key, sizeof st->key, "%s", c->string);
        st->k = k;
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

int v10_sweep_parse(const char *text, const char *origin, v10_sweep **out, v10_err *err)
{
    *out = NULL;
    vctx v = {origin, err};
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
    if (count_points(s)) {
        v10_err_set(err, "%s: the product of the axes exceeds %u points", origin,
                    V10_SWEEP_POINTS_MAX);
        goto done;
    }
    s->canonical = cJSON_Print(s->root);
    if (!s->canonical || v10_json_failed_since(mark)) {
        v10_err_set(err, "out of memory");
        goto done;
    }
    hex16(fnv1a(s->canonical), s->hash);
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
    free(s);
}

size_t v10_sweep_points(const v10_sweep *s) { return s->points; }
const char *v10_sweep_name(const v10_sweep *s) { return s->name; }
const char *v10_sweep_hash(const v10_sweep *s) { return s->hash; }
const char *v10_sweep_canonical(const v10_sweep *s) { return s->canonical; }

/* ---------------------------------------------------------------- points */

/*
 * A policy parameter axis (slice_cycles, pmt_slice_us, pmt_share,
 * prema_drain_frac with two or more values) is expanded only under the
 * policies that read it, so pmt is not run once per V10 slice: the policy
 * declares what it reads in its params help, which names the option.
 */
static const char *const param_option[] = {"--slice-cycles", "--pmt-slice-us", "--pmt-share",
                                           "--prema-drain-frac"};

_Static_assert(sizeof param_option / sizeof param_option[0] == K_DRAIN - K_SLICE + 1,
               "one option per policy parameter key");

static int is_param(kind k) { return k >= K_SLICE && k <= K_DRAIN; }

/* 1 if setting st varies under `policy`; fixed and one-value settings and
 * every non-parameter axis always do. */
static int varies_under(const setting *st, const char *policy)
{
    if (!is_param(st->k) || st->n < 2)
        return 1;
    const v10_policy_ops *p = v10_policy_find(policy);
    const char *help = p ? v10_policy_params_help(p) : NULL;
    return help && strstr(help, param_option[st->k - K_SLICE]) != NULL;
}

/* Points per policy value: the product of the parameter axes it reads
 * (saturating above V10_SWEEP_POINTS_MAX). */
static size_t policy_points(const v10_sweep *s, const char *policy)
{
    size_t m = 1;
    for (size_t k = 0; k < s->n_set; k++)
        if (is_param(s->set[k].k) && varies_under(&s->set[k], policy))
            m = m > V10_SWEEP_POINTS_MAX / s->set[k].n ? V10_SWEEP_POINTS_MAX + 1ul
                                                       : m * s->set[k].n;
    return m;
}

/* The policy setting's index, or n_set if the spec leaves the default. */
static size_t policy_setting(const v10_sweep *s)
{
    size_t k = 0;
    while (k < s->n_set && s->set[k].k != K_POLICY)
        k++;
    return k;
}

/* Sets s->block and s->points; -1 if the count exceeds the limit. */
static int count_points(v10_sweep *s)
{
    size_t pk = policy_setting(s);
    v10_run_config c;
    v10_run_config_default(&c);
    snprintf(s->default_policy, sizeof s->default_policy, "%s", c.policy);
    s->block = 0;
    if (pk == s->n_set) {
        s->block = policy_points(s, s->default_policy);
    } else {
        for (const cJSON *v = s->set[pk].values->child; v; v = v->next)
            if ((s->block += policy_points(s, v->valuestring)) > V10_SWEEP_POINTS_MAX)
                return -1;
    }
    s->points = s->block;
    for (size_t k = 0; k < s->n_set; k++) {
        if (is_param(s->set[k].k) || k == pk)
            continue;
        if (s->points > V10_SWEEP_POINTS_MAX / s->set[k].n)
            return -1;
        s->points *= s->set[k].n;
    }
    return s->points > V10_SWEEP_POINTS_MAX ? -1 : 0;
}

/* Takes the next digit (the fastest remaining) of i for setting k. */
static void digit(const v10_sweep *s, size_t k, size_t *i, const cJSON **vals)
{
    size_t d = *i % s->set[k].n;
    *i /= s->set[k].n;
    vals[k] = cJSON_GetArrayItem(s->set[k].values, (int)d);
}

/*
 * The value of each setting at point i: row-major, the last setting
 * fastest, except that the policy and its parameters count as one setting
 * whose values are each policy with each combination of the parameter axes
 * it reads.  A parameter axis the point's policy ignores gets NULL.  When
 * every policy reads every parameter axis this is plain row-major order.
 */
static void point_values(const v10_sweep *s, size_t i, const cJSON **vals)
{
    V10_ASSERT(i < s->points);
    size_t k = s->n_set, pk = policy_setting(s);
    while (k > 0 && s->set[k - 1].k > K_DRAIN)
        digit(s, --k, &i, vals);
    size_t params_end = k;
    while (k > 0 && is_param(s->set[k - 1].k))
        k--;
    size_t b = i % s->block; /* which (policy, parameters) of the block */
    i /= s->block;
    const char *policy = s->default_policy;
    if (pk < s->n_set) {
        int j = 0;
        for (const cJSON *v = s->set[pk].values->child; v; v = v->next, j++) {
            size_t m = policy_points(s, v->valuestring);
            if (b < m) {
                policy = v->valuestring;
                vals[pk] = v;
                break;
            }
            b -= m;
        }
    }
    for (size_t q = params_end; q-- > k;) {
        if (varies_under(&s->set[q], policy))
            digit(s, q, &b, vals);
        else
            vals[q] = NULL;
    }
    while (k-- > 0)
        if (k != pk)
            digit(s, k, &i, vals);
}

/* The point's settings as a JSON object in enumeration order; caller owns. */
static cJSON *point_json(const v10_sweep *s, const cJSON **vals)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    for (size_t k = 0; o && k < s->n_set; k++)
        if (vals[k]) /* not a parameter axis this point's policy ignores */
            v10_json_add(o, s->set[k].key, cJSON_Duplicate(vals[k], 1));
    if (v10_json_failed_since(mark)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int v10_sweep_point_id(const v10_sweep *s, size_t i, char *id)
{
    const cJSON *vals[MAX_SETTINGS];
    point_values(s, i, vals);
    cJSON *o = point_json(s, vals);
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!t) {
        id[0] = 0;
        return -1;
    }
    hex16(fnv1a(t), id);
    free(t);
    return 0;
}

char *v10_sweep_point_text(const v10_sweep *s, size_t i)
{
    const cJSON *vals[MAX_SETTINGS];
    point_values(s, i, vals);
    cJSON *o = point_json(s, vals);
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return t;
}

int v10_sweep_point_get(const v10_sweep *s, size_t i, v10_sweep_point *p, v10_err *err)
{
    const cJSON *vals[MAX_SETTINGS];
    point_values(s, i, vals);
    memset(p, 0, sizeof *p);
    p->index = i;
    unsigned mark = v10_json_mark();
    if (v10_sweep_point_id(s, i, p->id))
        return v10_err_set(err, "point %zu: out of memory", i);
    v10_run_config *c = &p->cfg;
    v10_run_config_default(c);
    const cJSON *pri = NULL;
    cJSON *npu = NULL;
    int warm_set = 0, rc = 0;
    for (size_t k = 0; k < s->n_set && rc == 0; k++) {
        const cJSON *v = vals[k];
        if (!v)
            continue; /* a parameter the policy ignores: the default */
        switch (s->set[k].k) {
        case K_MIX:
            for (const cJSON *t = v->child; t && rc == 0; t = t->next)
                rc = v10_tenant_spec_parse(t->valuestring, &p->tenants[c->n_tenants++], err);
            break;
        case K_PRIORITY: pri = v; break;
        case K_NPU: npu = npu_object(v); break;
        case K_NPU_FIELD:
            if (!npu)
                npu = npu_object(NULL);
            cJSON_DeleteItemFromObjectCaseSensitive(npu, s->set[k].key + 4);
            v10_json_add(npu, s->set[k].key + 4, cJSON_Duplicate(v, 1));
            break;
        case K_POLICY: snprintf(c->policy, sizeof c->policy, "%s", v->valuestring); break;
        case K_SLICE: c->params.slice_cycles = (uint64_t)v->valuedouble; break;
        case K_PMT_SLICE: c->params.pmt_slice_us = v->valuedouble; break;
        case K_PMT_SHARE: c->params.pmt_share_priority = !strcmp(v->valuestring, "priority"); break;
        case K_DRAIN: c->params.prema_drain_frac = v->valuedouble; break;
        case K_CONTENTION: c->contention = cJSON_IsTrue(v); break;
        case K_REQUESTS: c->requests = (uint64_t)v->valuedouble; break;
        case K_WARMUP: c->warmup = (uint64_t)v->valuedouble; warm_set = 1; break;
        case K_SEED: c->seed = (uint64_t)v->valuedouble; break;
        }
    }
    if (rc == 0 && pri) {
        size_t t = 0;
        for (const cJSON *x = pri->child; x && t < c->n_tenants; x = x->next)
            p->tenants[t++].priority = x->valuedouble;
    }
    if (rc == 0 && v10_json_failed_since(mark))
        rc = v10_err_set(err, "point %zu: out of memory", i);
    if (rc == 0 && npu) {
        char org[64];
        snprintf(org, sizeof org, "point %zu npu", i);
        rc = npu_resolve(npu, org, &c->npu, err);
    }
    cJSON_Delete(npu);
    if (!warm_set)
        c->warmup = c->requests / 10;
    c->tenants = p->tenants;
    return rc;
}

int v10_sweep_run_point(const v10_sweep *s, size_t i, char **row, v10_err *err)
{
    *row = NULL;
    v10_sweep_point *p = malloc(sizeof *p);
    if (!p)
        return v10_err_set(err, "out of memory");
    if (v10_sweep_point_get(s, i, p, err)) {
        free(p);
        return -1;
    }
    /* A point the simulator refuses (starved, too long, ...) is a result
     * too: its row records the error and the sweep goes on.  Running out of
     * memory is no property of the point: that stops the sweep, and
     * --resume runs the point again. */
    v10_run_result r;
    v10_err run_err;
    int refused = v10_run(&p->cfg, &r, &run_err) != 0;
    if (refused && strstr(run_err.msg, "out of memory")) {
        *err = run_err;
        v10_err_prefix(err, "point %zu (id %s)", i, p->id);
        free(p);
        return -1;
    }
    const cJSON *vals[MAX_SETTINGS];
    point_values(s, i, vals);
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_CreateObject();
    cJSON *rep = refused ? NULL : v10_report_run_json(&p->cfg, &r);
    int rc = -1;
    if (o && (rep || refused)) {
        cJSON_AddNumberToObject(o, "index", (double)i);
        cJSON_AddStringToObject(o, "id", p->id);
        v10_json_add(o, "point", point_json(s, vals));
        if (refused) {
            v10_json_add(o, "error", cJSON_CreateString(run_err.msg));
        } else {
            cJSON *perf = cJSON_DetachItemFromObjectCaseSensitive(rep, "perf");
            v10_json_add(o, "result", rep);
            rep = NULL;
            v10_json_add(o, "perf", perf);
        }
        /* A row that lost a value to a failed allocation is not written. */
        char *t = v10_json_failed_since(mark) ? NULL : v10_json_print(o, 0);
        size_t n = t ? strlen(t) : 0;
        char *line = t ? realloc(t, n + 2) : NULL;
        if (line) {
            line[n] = '\n';
            line[n + 1] = 0;
            *row = line;
            rc = 0;
        } else {
            free(t);
        }
    }
    if (rc)
        v10_err_set(err, "point %zu: out of memory", i);
    cJSON_Delete(rep);
    cJSON_Delete(o);
    if (!refused)
        v10_run_result_fini(&r);
    free(p);
    return rc;
}

/* ----------------------------------------------------------------- store */

struct v10_sweep_store {
    const v10_sweep *s;
    char dir[4096];
    int fd;                 /* results.jsonl, O_APPEND */
    int lock;               /* DIR/.lock, held while the store is open */
    unsigned char *done;    /* one flag per point */
    size_t count, dropped;
    size_t refused;         /* rows with an "error", counted by finish */
};

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int mkdir_p(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(p, 0755) && errno != EEXIST)
                return -1;
            *c = '/';
        }
    if (mkdir(p, 0755) && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* 1 if DIR holds anything but what a sweep of ours leaves before its
 * spec.json exists (the temporary of spec.json, the lock), else 0.  A
 * user's file, whatever its name, makes the folder not ours. */
static int dir_has_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int any = 0;
    struct dirent *e;
    while (!any && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, LOCK_NAME))
            continue;
        if (!strncmp(n, "spec.json.tmp.", 14) && strlen(n) == 14 + 6) /* mkstemp's XXXXXX */
            continue;
        any = 1;
    }
    closedir(d);
    return any;
}

/* Checks one complete row; returns its index, -1 if it is not a valid row
 * of this sweep, or -2 if memory ran out (the row may be fine: keep it). */
static int64_t row_index(const v10_sweep *s, const char *line)
{
    unsigned mark = v10_json_mark();
    cJSON *o = cJSON_Parse(line);
    if (!o && v10_json_failed_since(mark))
        return -2;
    int64_t idx = -1;
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, "index");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (cJSON_IsNumber(i) && cJSON_IsString(id) &&
        (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "result")) ||
         cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "error"))) &&
        i->valuedouble >= 0 &&
        i->valuedouble < (double)s->points && i->valuedouble == floor(i->valuedouble)) {
        char want[17];
        if (v10_sweep_point_id(s, (size_t)i->valuedouble, want))
            idx = -2;
        else if (!strcmp(want, id->valuestring))
            idx = (int64_t)i->valuedouble;
    }
    cJSON_Delete(o);
    return idx;
}

/* Loads results.jsonl: keeps valid first occurrences; cuts a torn tail, or
 * rewrites the file if rows inside it had to be dropped. */
static int load_rows(v10_sweep_store *st, v10_err *err)
{
    char path[4200];
    join(path, sizeof path, st->dir, "results.jsonl");
    size_t len;
    char *b = v10_file_read(path, SIZE_MAX / 2, &len, err);
    if (!b)
        return -1;
    char *keep = malloc(len + 1);
    if (!keep) {
        free(b);
        return v10_err_set(err, "out of memory");
    }
    size_t klen = 0, good_prefix = 0;
    int prefix_ok = 1;
    char *p = b;
    while (p < b + len) {
        char *nl = memchr(p, '\n', (size_t)(b + len - p));
        if (!nl) { /* torn last line: the process died while writing it */
            st->dropped++;
            break;
        }
        *nl = 0;
        int64_t i = row_index(st->s, p);
        if (i == -2) { /* never drop a row for want of memory */
            free(keep);
            free(b);
            return v10_err_set(err, "%s: out of memory", path);
        }
        if (i >= 0 && !st->done[i]) {
            st->done[i] = 1;
            st->count++;
            memcpy(keep + klen, p, (size_t)(nl - p));
            klen += (size_t)(nl - p);
            keep[klen++] = '\n';
            if (prefix_ok)
                good_prefix = (size_t)(nl + 1 - b);
        } else {
            st->dropped++;
            prefix_ok = 0;
        }
        p = nl + 1;
    }
    int rc = 0;
    if (prefix_ok && good_prefix < len) {
        if (ftruncate(st->fd, (off_t)good_prefix) || fsync(st->fd))
            rc = v10_err_set(err, "%s: %s", path, strerror(errno));
    } else if (!prefix_ok) {
        rc = v10_file_write(path, keep, klen, 1, err);
        if (rc == 0) {
            close(st->fd);
            st->fd = open(path, O_WRONLY | O_APPEND);
            if (st->fd < 0)
                rc = v10_err_set(err, "%s: %s", path, strerror(errno));
        }
    }
    free(keep);
    free(b);
    return rc;
}

/* Adds {path: hash} to the object in ctx for one input file (once). */
typedef struct hash_ctx {
    cJSON *o;
    v10_err *err;
} hash_ctx;

static int hash_input(const char *path, void *ctx)
{
    hash_ctx *h = ctx;
    if (cJSON_GetObjectItemCaseSensitive(h->o, path))
        return 0;
    size_t n;
    char *b = v10_file_read(path, (size_t)1 << 31, &n, h->err), hex[17];
    if (!b)
        return -1;
    hex16(fnv1a_n(b, n), hex);
    free(b);
    cJSON_AddStringToObject(h->o, path, hex);
    return 0;
}

/*
 * The files the points read, by content: {"PATH": "HASH"} for every file a
 * mix's models read (trace CSV, ONNX, llm/ configuration, calibration
 * profile; v10_model_spec_files), HASH the FNV-1a of its bytes.  The
 * spec's hash covers only the paths; a resume compares these, so a file
 * edited between a kill and --resume is refused instead of mixing old and
 * new rows.  (NPU settings in a spec are presets and fields, not files.)
 * NULL with err set on failure.
 */
static cJSON *input_hashes(const v10_sweep *s, v10_err *err)
{
    unsigned mark = v10_json_mark();
    hash_ctx h = {cJSON_CreateObject(), err};
    for (size_t k = 0; h.o && k < s->n_set; k++) {
        if (s->set[k].k != K_MIX)
            continue;
        const cJSON *mix;
        cJSON_ArrayForEach(mix, s->set[k].values) {
            const cJSON *t;
            cJSON_ArrayForEach(t, mix) {
                /* The model part of a tenant spec, as the points load it. */
                v10_tenant_spec ts;
                if (v10_tenant_spec_parse(t->valuestring, &ts, err) ||
                    v10_model_spec_files(ts.model, hash_input, &h, err)) {
                    cJSON_Delete(h.o);
                    return NULL;
                }
            }
        }
    }
    if (!h.o || v10_json_failed_since(mark)) {
        cJSON_Delete(h.o);
        v10_err_set(err, "out of memory");
        return NULL;
    }
    return h.o;
}

/* 0 if every input recorded in spec.json (`was`) still has its hash in
 * `now`; -1 with err naming the first file that changed. */
static int inputs_unchanged(const char *dir, const cJSON *was, const cJSON *now, v10_err *err)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, was) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(now, w->string);
        if (!cJSON_IsString(w) || !cJSON_IsString(n) || strcmp(w->valuestring, n->valuestring))
            return v10_err_set(err, "%s: input %s changed since the sweep started (content "
                                    "hash %s, now %s): refusing to resume, which would mix "
                                    "results of both; restore the file or run into a new --out",
                               dir, w->string, cJSON_IsString(w) ? w->valuestring : "?",
                               cJSON_IsString(n) ? n->valuestring : "missing");
    }
    return 0;
}

int v10_sweep_store_open(const char *dir, const v10_sweep *s, int resume,
                         v10_sweep_store **out, v10_err *err)
{
    *out = NULL;
    if (strlen(dir) >= 3900)
        return v10_err_set(err, "%s: path too long", dir);
    if (mkdir_p(dir))
        return v10_err_set(err, "%s: %s", dir, strerror(errno));
    v10_sweep_store *st = calloc(1, sizeof *st);
    unsigned char *done = calloc(s->points, 1);
    if (!st || !done) {
        free(st);
        free(done);
        return v10_err_set(err, "out of memory");
    }
    st->s = s;
    st->fd = st->lock = -1;
    st->done = done;
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    char path[4200];
    join(path, sizeof path, dir, LOCK_NAME);
    if (v10_lock_take(path, dir, &st->lock, err)) {
        v10_sweep_store_close(st);
        return -1;
    }
    join(path, sizeof path, dir, "spec.json");
    struct stat sst;
    char *old = NULL;
    int rc = -1;
    if (lstat(path, &sst) == 0 && !(old = v10_file_read(path, V10_JSON_MAX_BYTES, NULL, err))) {
        /* spec.json is there but unreadable: rc stays -1 */
    } else if (old) {
        cJSON *o = cJSON_Parse(old);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "spec_hash");
        if (!resume)
            v10_err_set(err, "%s already holds a sweep (%s): pass --resume to finish it, or "
                        "choose another --out", dir, path);
        else if (!cJSON_IsString(h))
            v10_err_set(err, "%s: not a sweep record (no spec_hash)", path);
        else if (strcmp(h->valuestring, s->hash))
            v10_err_set(err, "%s was started with a different spec (hash %s, this spec %s): "
                        "refusing to resume; run the changed spec into a new --out directory",
                        dir, h->valuestring, s->hash);
        else {
            const cJSON *was = cJSON_GetObjectItemCaseSensitive(o, "inputs");
            cJSON *now = was ? input_hashes(s, err) : NULL;
            rc = was && (!now || inputs_unchanged(dir, was, now, err)) ? -1 : 0;
            cJSON_Delete(now);
        }
        cJSON_Delete(o);
        free(old);
    } else if (dir_has_files(dir)) {
        v10_err_set(err, "%s: directory is not empty and holds no sweep (no spec.json); "
                    "choose an empty or new --out", dir);
    } else {
        unsigned mark = v10_json_mark();
        cJSON *rec = cJSON_CreateObject();
        cJSON_AddStringToObject(rec, "spec_hash", s->hash);
        cJSON_AddNumberToObject(rec, "points", (double)s->points);
        cJSON_AddStringToObject(rec, "version", V10_VERSION);
        v10_json_add(rec, "spec", cJSON_Parse(s->canonical));
        cJSON *inputs = input_hashes(s, err);
        if (!inputs) {
            cJSON_Delete(rec);
            v10_sweep_store_close(st);
            return -1;
        }
        if (cJSON_GetArraySize(inputs) > 0) /* a spec of zoo models only: none */
            v10_json_add(rec, "inputs", inputs);
        else
            cJSON_Delete(inputs);
        char *t = v10_json_failed_since(mark) ? NULL : cJSON_Print(rec);
        cJSON_Delete(rec);
        if (!t) {
            v10_err_set(err, "out of memory");
        } else {
            size_t n = strlen(t);
            t[n] = '\n';
            rc = v10_file_write(path, t, n + 1, 1, err);
            free(t);
        }
    }
    if (rc == 0) {
        join(path, sizeof path, dir, "results.jsonl");
        st->fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644);
        if (st->fd < 0)
            rc = v10_err_set(err, "%s: %s", path, strerror(errno));
        else if (v10_fsync_dir(dir))
            rc = v10_err_set(err, "%s: %s", dir, strerror(errno));
        else
            rc = load_rows(st, err);
    }
    if (rc) {
        v10_sweep_store_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

const unsigned char *v10_sweep_store_done(const v10_sweep_store *st) { return st->done; }
size_t v10_sweep_store_count(const v10_sweep_store *st) { return st->count; }
size_t v10_sweep_store_dropped(const v10_sweep_store *st) { return st->dropped; }
size_t v10_sweep_store_refused(const v10_sweep_store *st) { return st->refused; }

int v10_sweep_store_append(v10_sweep_store *st, size_t i, const char *row, v10_err *err)
{
    V10_ASSERT(i < st->s->points);
    size_t n = strlen(row);
    V10_ASSERT(n > 0 && row[n - 1] == '\n' && memchr(row, '\n', n) == row + n - 1);
    if (st->done[i])
        return 0;
    if (write_all(st->fd, row, n) || fdatasync(st->fd))
        return v10_err_set(err, "%s/results.jsonl: %s", st->dir, strerror(errno));
    st->done[i] = 1;
    st->count++;
    return 0;
}

void v10_sweep_store_close(v10_sweep_store *st)
{
    if (!st)
        return;
    if (st->fd >= 0)
        close(st->fd);
    v10_lock_release(st->lock);
    free(st->done);
    free(st);
}

/* ------------------------------------------------------------ results.csv */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > cap)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* A CSV cell: quoted when it holds a comma, quote, newline or edge space. */
static void sb_cell(sbuf *b, const char *s)
{
    size_t l = strlen(s);
    if (!strpbrk(s, ",\"\n\r") && !(l && (s[0] == ' ' || s[l - 1] == ' '))) {
        sb_put(b, s, l);
        return;
    }
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            sb_put(b, "\"\"", 2);
        else
            sb_put(b, s, 1);
    }
    sb_put(b, "\"", 1);
}

/* A JSON value as one CSV cell: lists of strings join with '+', lists of
 * numbers with ';', objects as compact JSON, null as empty. */
static void sb_json_cell(sbuf *b, const cJSON *j)
{
    char num[V10_NUM_MAX];
    if (!j || cJSON_IsNull(j)) {
        return;
    } else if (cJSON_IsString(j)) {
        sb_cell(b, j->valuestring);
    } else if (cJSON_IsNumber(j)) {
        v10_num_fmt(j->valuedouble, num, sizeof num); /* parsed JSON: finite */
        sb_str(b, num);
    } else if (cJSON_IsBool(j)) {
        sb_str(b, cJSON_IsTrue(j) ? "true" : "false");
    } else if (cJSON_IsArray(j)) {
        sbuf t = {0};
        for (const cJSON *c = j->child; c; c = c->next) {
            if (c != j->child)
                sb_str(&t, cJSON_IsString(c) ? "+" : ";");
            if (cJSON_IsString(c))
                sb_str(&t, c->valuestring);
            else {
                v10_num_fmt(c->valuedouble, num, sizeof num);
                sb_str(&t, num);
            }
        }
        sb_cell(b, t.p ? t.p : "");
        b->oom |= t.oom;
        free(t.p);
    } else {
        char *t = cJSON_PrintUnformatted(j);
        sb_cell(b, t ? t : "");
        b->oom |= !t;
        free(t);
    }
}

static const cJSON *path_get(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* Configuration columns: the point's own setting if the spec gives it, else
 * the value the run used. */
static const char *const cfg_cols[] = {"mix", "priority", "npu", "policy", "slice_cycles",
                                       "pmt_slice_us", "pmt_share", "prema_drain_frac",
                                       "contention", "requests", "warmup", "seed"};
static const char *const metric_cols[][2] = {
    {"window_cycles", NULL}, {"utilization", "sa"}, {"utilization", "vu"},
    {"utilization", "hbm"}, {"utilization", "overall"}, {"utilization", "overlap"},
    {"utilization", "sa_flops"}, {"system", "stp"}, {"system", "antt"},
    {"system", "fairness"}, {"system", "jain"}, {"overheads", "preemptions"},
    {"overheads", "context_switches"}, {"overheads", "switch_cycles"},
};
static const char *const tenant_cols[][2] = {
    {"model", NULL}, {"batch", NULL}, {"priority", NULL}, {"completed", NULL},
    {"throughput_rps", NULL}, {"np", NULL}, {"alone_latency_us", NULL},
    {"latency_us", "avg"}, {"latency_us", "p50"}, {"latency_us", "p95"},
    {"latency_us", "p99"}, {"slo_attainment", NULL}, {"preemptions", NULL},
};
#define N_OF(a) (sizeof a / sizeof a[0])

static void cfg_cell(sbuf *b, const cJSON *point, const cJSON *cfg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(point, key);
    if (v) {
        sb_json_cell(b, v);
        return;
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(cfg, "tenants");
    if (!strcmp(key, "mix") || !strcmp(key, "priority")) {
        cJSON *arr = cJSON_CreateArray();
        for (const cJSON *t = ts ? ts->child : NULL; arr && t; t = t->next)
            v10_json_push(arr, cJSON_Duplicate(
                cJSON_GetObjectItemCaseSensitive(t, key[0] == 'm' ? "model" : "priority"), 1));
        sb_json_cell(b, arr);
        cJSON_Delete(arr);
    } else if (!strcmp(key, "npu")) {
        sb_json_cell(b, path_get(cfg, "npu", "name"));
    } else if (strstr(key, "slice") || strstr(key, "pmt") || strstr(key, "prema")) {
        sb_json_cell(b, path_get(cfg, "params", key));
    } else {
        sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(cfg, key));
    }
}

/* The header line of results.csv for rows of up to max_t tenants. */
static void csv_header(sbuf *b, const v10_sweep *s, size_t max_t)
{
    char col[128];
    sb_str(b, "index,id");
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        sb_str(b, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_cell(b, s->set[j].key);
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        snprintf(col, sizeof col, ",%s%s%s", metric_cols[k][1] ? metric_cols[k][0] : "",
                 metric_cols[k][1] ? "_" : "",
                 metric_cols[k][1] ? metric_cols[k][1] : metric_cols[k][0]);
        sb_str(b, col);
    }
    for (size_t t = 0; t < max_t; t++)
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            snprintf(col, sizeof col, ",t%zu_%s%s%s", t, tenant_cols[k][0],
                     tenant_cols[k][1] ? "_" : "", tenant_cols[k][1] ? tenant_cols[k][1] : "");
            sb_str(b, col);
        }
    sb_str(b, ",error\n");
}

/* One row of results.csv from one parsed results.jsonl row. */
static void csv_row(sbuf *b, const v10_sweep *s, const cJSON *r, size_t max_t)
{
    const cJSON *point = path_get(r, "point", NULL);
    const cJSON *res = path_get(r, "result", NULL), *cfg = path_get(res, "config", NULL);
    sb_json_cell(b, path_get(r, "index", NULL));
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "id", NULL));
    for (size_t k = 0; k < N_OF(cfg_cols); k++) {
        sb_str(b, ",");
        cfg_cell(b, point, cfg, cfg_cols[k]);
        if (!strcmp(cfg_cols[k], "npu"))
            for (size_t j = 0; j < s->n_set; j++)
                if (s->set[j].k == K_NPU_FIELD) {
                    sb_str(b, ",");
                    sb_json_cell(b, cJSON_GetObjectItemCaseSensitive(point, s->set[j].key));
                }
    }
    for (size_t k = 0; k < N_OF(metric_cols); k++) {
        sb_str(b, ",");
        sb_json_cell(b, path_get(res, metric_cols[k][0], metric_cols[k][1]));
    }
    const cJSON *ts = path_get(res, "tenants", NULL);
    for (size_t t = 0; t < max_t; t++) {
        const cJSON *tj = cJSON_GetArrayItem(ts, (int)t);
        for (size_t k = 0; k < N_OF(tenant_cols); k++) {
            sb_str(b, ",");
            if (tj)
                sb_json_cell(b, path_get(tj, tenant_cols[k][0], tenant_cols[k][1]));
        }
    }
    sb_str(b, ",");
    sb_json_cell(b, path_get(r, "error", NULL));
    sb_str(b, "\n");
}

/* Reads the results.jsonl line at `at` (or the next one if at < 0) and
 * parses it; *o is NULL at the end of the file.  -1 with err set on a read
 * error, an invalid row or out of memory. */
static int read_row(FILE *in, const char *path, off_t at, char **line, size_t *cap,
                    const v10_sweep *s, cJSON **o, size_t *index, v10_err *err)
{
    *o = NULL;
    if (at >= 0 && fseeko(in, at, SEEK_SET))
        return v10_err_set(err, "%s: %s", path, strerror(errno));
    errno = 0;
    ssize_t n = getline(line, cap, in);
    if (n < 0)
        return ferror(in) || errno == ENOMEM ? v10_err_set(err, "%s: %s", path,
                                                           errno ? strerror(errno) : "read error")
                                             : 0;
    unsigned mark = v10_json_mark();
    *o = cJSON_Parse(*line);
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(*o, "index");
    if (!*o && v10_json_failed_since(mark))
        return v10_err_set(err, "%s: out of memory", path);
    if (!cJSON_IsNumber(i) || i->valuedouble < 0 || i->valuedouble >= (double)s->points) {
        cJSON_Delete(*o);
        *o = NULL;
        return v10_err_set(err, "%s: invalid row", path);
    }
    *index = (size_t)i->valuedouble;
    return 0;
}

/*
 * Writes results.csv, one row per point in index order, streaming: a first
 * pass over results.jsonl notes where each point's first row starts (and
 * the most tenants in a row), a second reads the rows back in index order,
 * one at a time, into a temporary that is fsync'ed and renamed (v10_wfile).
 * Memory: one offset per point and one row.
 */
int v10_sweep_store_finish(v10_sweep_store *st, v10_err *err)
{
    const v10_sweep *s = st->s;
    if (st->count < s->points)
        return 0;
    char path[4200], dst[4200];
    join(path, sizeof path, st->dir, "results.jsonl");
    join(dst, sizeof dst, st->dir, "results.csv");
    FILE *in = fopen(path, "r"), *out = NULL;
    if (!in)
        return v10_err_set(err, "%s: %s", path, strerror(errno));
    off_t *at = malloc(s->points * sizeof *at);
    char *line = NULL;
    size_t cap = 0, max_t = 0, idx;
    sbuf b = {0};
    cJSON *o;
    int rc = at ? 0 : v10_err_set(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < s->points; i++)
        at[i] = -1;
    while (rc == 0) {
        off_t pos = ftello(in);
        if ((rc = read_row(in, path, -1, &line, &cap, s, &o, &idx, err)) || !o)
            break;
        size_t t = (size_t)cJSON_GetArraySize(path_get(path_get(o, "result", NULL), "tenants",
                                                       NULL));
        max_t = t > max_t ? t : max_t;
        if (at[idx] < 0) { /* a duplicate: keep the first */
            at[idx] = pos;
            st->refused += cJSON_GetObjectItemCaseSensitive(o, "error") != NULL;
        }
        cJSON_Delete(o);
    }
    for (size_t i = 0; rc == 0 && i < s->points; i++)
        if (at[i] < 0)
            rc = v10_err_set(err, "%s: point %zu is missing", path, i);
    v10_wfile w = {0};
    if (rc == 0 && v10_wfile_open(&w, dst, 1, err) == 0)
        out = w.f;
    else
        rc = -1;
    if (rc == 0)
        csv_header(&b, s, max_t);
    for (size_t i = 0; rc == 0 && i < s->points; i++) {
        if ((rc = read_row(in, path, at[i], &line, &cap, s, &o, &idx, err)))
            break;
        unsigned mark = v10_json_mark();
        csv_row(&b, s, o, max_t);
        cJSON_Delete(o);
        if (b.oom || v10_json_failed_since(mark))
            rc = v10_err_set(err, "%s: out of memory", dst);
        else if (fwrite(b.p, 1, b.n, out) != b.n)
            rc = v10_err_set(err, "%s: %s", dst, strerror(errno));
        b.n = 0;
    }
    if (out) {
        if (rc == 0)
            rc = v10_wfile_commit(&w, err);
        else
            v10_wfile_abort(&w);
    }
    free(b.p);
    free(line);
    free(at);
    fclose(in);
    return rc;
}

/* ----------------------------------------------------------------- queue */

/*
 * The dispatcher: `next` only moves forward over points not yet done; a
 * failure stops handing out points (those in flight still get recorded).
 * Every field is guarded by `lock`, including the store.
 */
struct v10_sweep_queue {
    const v10_sweep *s;
    v10_sweep_store *st;
    pthread_mutex_t lock;
    size_t next, finished;
    int failed;
    size_t fail_index;
    v10_err err;
    v10_progress bar;
};

v10_sweep_queue *v10_sweep_queue_create(const v10_sweep *s, v10_sweep_store *st,
                                        const char *progress)
{
    v10_sweep_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->s = s;
    q->st = st;
    pthread_mutex_init(&q->lock, NULL);
    v10_progress_start(&q->bar, progress, s->points - v10_sweep_store_count(st));
    return q;
}

int64_t v10_sweep_queue_take(v10_sweep_queue *q)
{
    pthread_mutex_lock(&q->lock);
    const unsigned char *done = v10_sweep_store_done(q->st);
    while (q->next < q->s->points && done[q->next])
        q->next++;
    int64_t i = q->failed || q->next == q->s->points ? -1 : (int64_t)q->next++;
    pthread_mutex_unlock(&q->lock);
    return i;
}

void v10_sweep_queue_record(v10_sweep_queue *q, size_t i, const char *row, const char *msg)
{
    pthread_mutex_lock(&q->lock);
    v10_err e;
    int rc = row ? v10_sweep_store_append(q->st, i, row, &e)
                 : v10_err_set(&e, "%s", msg ? msg : "failed");
    if (rc && (!q->failed || i < q->fail_index)) {
        q->failed = 1;
        q->fail_index = i;
        q->err = e;
    }
    q->finished++;
    v10_progress_step(&q->bar, q->finished);
    pthread_mutex_unlock(&q->lock);
}

void v10_sweep_work(v10_sweep_queue *q)
{
    int64_t i;
    while ((i = v10_sweep_queue_take(q)) >= 0) {
        char *row;
        v10_err e;
        int rc = v10_sweep_run_point(q->s, (size_t)i, &row, &e);
        v10_sweep_queue_record(q, (size_t)i, rc ? NULL : row, e.msg);
        free(row);
    }
}

int v10_sweep_queue_destroy(v10_sweep_queue *q, v10_err *err)
{
    v10_progress_end(&q->bar);
    int rc = 0;
    if (q->failed) {
        if (err)
            *err = q->err;
        rc = -1;
    }
    pthread_mutex_destroy(&q->lock);
    free(q);
    return rc;
}

static void *work_thread(void *q)
{
    v10_sweep_work(q);
    return NULL;
}

int v10_sweep_run_local(const v10_sweep *s, v10_sweep_store *st, int threads,
                        const char *progress, v10_err *err)
{
    v10_sweep_queue *q = v10_sweep_queue_create(s, st, progress);
    if (!q)
        return v10_err_set(err, "out of memory");
    size_t todo = s->points - v10_sweep_store_count(st);
    size_t nth = threads < 1 ? 1 : (size_t)threads;
    if (nth > todo)
        nth = todo ? todo : 1;
    if (nth > 256)
        nth = 256;
    pthread_t th[256];
    size_t started = 0;
    for (; started + 1 < nth; started++)
        if (pthread_create(&th[started], NULL, work_thread, q))
            break;
    v10_sweep_work(q); /* the calling thread works too */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return v10_sweep_queue_destroy(q, err);
}
