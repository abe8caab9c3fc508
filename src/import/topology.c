/*
 * topology.c — SCALE-Sim topology CSV reader (see topology.h for the file
 * rules); every error names the file and the 1-based line.
 */
#include "import/topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/text.h"
#include "v10/model.h"

static const char *const conv_cols[] = {"name", "ifmap_h", "ifmap_w", "filter_h",
                                        "filter_w", "channels", "num_filter", "stride"};
static const char *const gemm_cols[] = {"name", "M", "N", "K"};

/* Parses a positive decimal integer; -1 with err set otherwise. */
static int parse_dim(const char *path, unsigned line, const char *col, const char *s,
                     uint64_t *out, v10_err *err)
{
    if (*s == '-' && isdigit((unsigned char)s[1])) {
        if (strspn(s + 1, "0") == strlen(s + 1)) /* -0, -00: zero, not a negative number */
            return v10_err_set(err, "%s:%u: %s must be >= 1, got '%s' (zero, with a minus sign)",
                               path, line, col, s);
        return v10_err_set(err, "%s:%u: %s must be a positive integer, got '%s' (negative)",
                           path, line, col, s);
    }
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return v10_err_set(err, "%s:%u: %s must be a positive integer, got '%s'", path,
                               line, col, s);
    if (!*s)
        return v10_err_set(err, "%s:%u: %s is empty, expected a positive integer", path,
                           line, col);
    uint64_t v;
    if (v10_parse_u64(s, &v))
        return v10_err_set(err, s[0] == '0' ? "%s:%u: %s = %s: expected a decimal integer "
                                              "without a leading zero"
                                            : "%s:%u: %s = %s does not fit in 64 bits",
                           path, line, col, s);
    if (v == 0)
        return v10_err_set(err, "%s:%u: %s must be >= 1, got 0", path, line, col);
    *out = (uint64_t)v;
    return 0;
}

/* Fills *L from the fields of one data line; -1 with err set if invalid. */
static int parse_layer(const char *path, unsigned line, int gemm, char **f, int n,
                       v10_topo_layer *L, v10_err *err)
{
    int want = gemm ? 4 : 8;
    if (n != want)
        return v10_err_set(err,
                           "%s:%u: expected %d fields (%s), got %d", path, line, want,
                           gemm ? "gemm: name, M, N, K"
                                : "conv: name, ifmap_h, ifmap_w, filter_h, filter_w, "
                                  "channels, num_filter, stride",
                           n);
    memset(L, 0, sizeof *L);
    L->line = line;
    if (!f[0][0])
        return v10_err_set(err, "%s:%u: empty layer name", path, line);
    size_t len; /* escaped where it enters (util/text.h) */
    if (v10_name_take(L->name, sizeof L->name, f[0], &len) < 0)
        return v10_err_set(err, "%s:%u: layer name: expected at most %d characters, got %zu",
                           path, line, V10_TOPO_NAME_MAX - 1, len);

    uint64_t v[7];
    for (int i = 1; i < want; i++)
        if (parse_dim(path, line, gemm ? gemm_cols[i] : conv_cols[i], f[i], &v[i - 1], err))
            return -1;
    /* docs/limits.md: convolution heights, widths and strides <= 2^32 - 1,
     * as the model builder's (src/model/model.c). */
    for (size_t i = 0; !gemm && i < 7; i++)
        if (i != 4 && i != 5 && v[i] > UINT32_MAX)
            return v10_err_set(err, "%s:%u: %s must be at most 2^32 - 1, got %s", path, line,
                               conv_cols[i + 1], f[i + 1]);
    if (gemm) {
        /* SCALE-Sim's -i gemm: ifmap M x K, filter 1 x K, 1 channel, N filters */
        L->ifmap_h = v[0], L->ifmap_w = v[2];
        L->filter_h = 1, L->filter_w = v[2];
        L->channels = 1, L->num_filter = v[1], L->stride = 1;
    } else {
        L->ifmap_h = v[0], L->ifmap_w = v[1];
        L->filter_h = v[2], L->filter_w = v[3];
        L->channels = v[4], L->num_filter = v[5], L->stride = v[6];
    }
    if (L->filter_h > L->ifmap_h || L->filter_w > L->ifmap_w)
        return v10_err_set(err, "%s:%u: layer %s: filter %llux%llu is larger than ifmap %llux%llu",
                           path, line, L->name, (unsigned long long)L->filter_h,
                           (unsigned long long)L->filter_w, (unsigned long long)L->ifmap_h,
                           (unsigned long long)L->ifmap_w);
    /* ceil((ifmap - filter + stride) / stride) = 1 + ceil((ifmap - filter) / stride),
     * written so that it cannot overflow */
    uint64_t dh = L->ifmap_h - L->filter_h, dw = L->ifmap_w - L->filter_w;
    L->ofmap_h = 1 + dh / L->stride + (dh % L->stride != 0);
    L->ofmap_w = 1 + dw / L->stride + (dw % L->stride != 0);
    L->N = L->num_filter;
    if (v10_mul_u64(L->ofmap_h, L->ofmap_w, &L->M) ||
        v10_mul_u64(L->filter_h, L->filter_w, &L->K) ||
        v10_mul_u64(L->K, L->channels, &L->K) || v10_mul_u64(L->M, L->N, &L->macs) ||
        v10_mul_u64(L->macs, L->K, &L->macs))
        return v10_err_set(err, "%s:%u: layer %s: MAC count overflows 64 bits", path, line,
                           L->name);
    return 0;
}

static int push(v10_topo *t, size_t *cap, const v10_topo_layer *L)
{
    if (t->n_layers == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        if (nc > SIZE_MAX / sizeof *t->layers)
            return -1;
        v10_topo_layer *nl = realloc(t->layers, nc * sizeof *nl);
        if (!nl)
            return -1;
        t->layers = nl;
        *cap = nc;
    }
    t->layers[t->n_layers++] = *L;
    return 0;
}

int v10_topology_read(const char *path, int force_gemm, v10_topo **out, v10_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return v10_err_set(err, "%s: cannot open topology: %s", path, strerror(errno));
    int rc = v10_topology_parse(fp, path, force_gemm, out, err);
    fclose(fp);
    return rc;
}

/*
 * Line 1 is the header even when blank (SCALE-Sim skips it unread); with
 * V10_TOPO_AUTO its field count gives the format.  The one CSV reader skips
 * blank lines, so a blank line 1 shows as a first record past line 1.
 */
int v10_topology_parse(FILE *fp, const char *path, int force_gemm, v10_topo **out,
                       v10_err *err)
{
    *out = NULL;
    v10_topo *t = calloc(1, sizeof *t);
    char buf[V10_CSV_LINE_MAX];
    char *f[V10_CSV_FIELDS_MAX];
    size_t cap = 0;
    int line = 0, n, header = 1, gemm = force_gemm, rc = -1;
    if (!t) {
        v10_err_set(err, "%s: out of memory", path);
        goto done;
    }
    while ((n = v10_csv_next(fp, path, V10_CSV_TRAILING, buf, f, &line, err)) > 0) {
        if (header) {
            header = 0;
            int header_fields = line == 1 ? n : 0;
            if (gemm == V10_TOPO_AUTO) {
                if (header_fields == 4)
                    gemm = V10_TOPO_GEMM;
                else if (header_fields == 8)
                    gemm = V10_TOPO_CONV;
                else {
                    v10_err_set(err,
                                "%s:1: header has %d fields; expected 8 (conv) or 4 (gemm) "
                                "to detect the format",
                                path, header_fields);
                    goto done;
                }
            }
            if (line == 1)
                continue;
        }
        v10_topo_layer L;
        if (parse_layer(path, (unsigned)line, gemm == V10_TOPO_GEMM, f, n, &L, err))
            goto done;
        if (push(t, &cap, &L)) {
            v10_err_set(err, "%s:%d: out of memory", path, line);
            goto done;
        }
    }
    if (n < 0)
        goto done; /* v10_csv_next named the line, or the read error */
    if (line == 0) {
        v10_err_set(err, "%s:1: empty file: expected a header line and layers", path);
        goto done;
    }
    if (header && gemm == V10_TOPO_AUTO) { /* only blank lines */
        v10_err_set(err, "%s:1: header has 0 fields; expected 8 (conv) or 4 (gemm) to "
                         "detect the format", path);
        goto done;
    }
    if (t->n_layers == 0) {
        v10_err_set(err, "%s:%d: no layers after the header", path, line);
        goto done;
    }
    t->is_gemm = gemm == V10_TOPO_GEMM;
    *out = t;
    t = NULL;
    rc = 0;
done:
    v10_topology_free(t);
    return rc;
}

void v10_topology_free(v10_topo *t)
{
    if (!t)
        return;
    free(t->layers);
    free(t);
}

/* Whether the n bytes at f are word, in any case. */
static int is_word(const char *f, size_t n, const char *word)
{
    if (strlen(word) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)f[i]) != word[i])
            return 0;
    return 1;
}

int v10_topology_sniff(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3; /* a UTF-8 byte order mark */
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *f = p;
    while (p < end && *p != ',' && *p != '\n' && *p != '\r')
        p++;
    while (p > f && (p[-1] == ' ' || p[-1] == '\t'))
        p--;
    size_t n = (size_t)(p - f);
    return is_word(f, n, "layer name") || is_word(f, n, "layer");
}

int v10_topology_model(const v10_topo *t, const char *path, const char *name, uint32_t batch,
                       v10_model *out, v10_err *err)
{
    v10_model_init(out, name, batch ? batch : 1);
    for (size_t i = 0; i < t->n_layers; i++) {
        const v10_topo_layer *L = &t->layers[i];
        /* SCALE-Sim's GEMM for the layer (topology.h: its output size, no
         * padding; a gemm layer's M x K input), batch images at once. */
        uint64_t M, in;
        if (V10_MUL(&M, (uint64_t)out->batch, L->M) ||
            V10_MUL(&in, (uint64_t)out->batch, L->ifmap_h, L->ifmap_w, L->channels)) {
            v10_err_set(err, "%s:%u: layer '%s': its GEMM at batch %u overflows 64 bits", path,
                        L->line, L->name, out->batch);
            return -1;
        }
        if (v10_model_lowered_conv(out, L->name, M, L->N, L->K, in, err)) {
            v10_err_prefix(err, "%s:%u: layer '%s': ", path, L->line, L->name);
            return -1;
        }
    }
    return 0;
}
