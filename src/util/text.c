/* text.c — escaping names from data (see text.h). */
#include "util/text.h"

#include <stdio.h>
#include <string.h>

#include "v10/err.h"

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if it is not one
 * (overlong forms, surrogates and code points past U+10FFFF are not). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    if (n == 2 && cp < 0xa0) /* C1 controls U+0080..U+009F */
        return 0;
    return n;
}

void v10_name_escape(char *dst, size_t cap, const char *src)
{
    /* Every source byte consumed writes at least one: the first cap - 1
     * bytes of src are all that can be used, so a copy of those makes
     * dst == src safe. */
    char copy[1024];
    V10_ASSERT(cap >= 1 && cap <= sizeof copy);
    size_t sl = strnlen(src, cap - 1);
    size_t plain = 0; /* printable ASCII, the common case, stays as it is */
    while (plain < sl && src[plain] >= 0x20 && src[plain] < 0x7f)
        plain++;
    if (plain == sl) {
        memmove(dst, src, sl);
        dst[sl] = 0;
        return;
    }
    memcpy(copy, src, sl);
    copy[sl] = 0;
    const unsigned char *s = (const unsigned char *)copy;
    size_t o = 0;
    while (*s) {
        size_t n = utf8_len(s);
        if (n == 1 && (*s < 0x20 || *s == 0x7f))
            n = 0; /* C0 control or DEL */
        if (n) {
            if (o + n >= cap)
                break;
            memcpy(dst + o, s, n);
            o += n;
            s += n;
        } else {
            if (o + 4 >= cap)
                break;
            snprintf(dst + o, 5, "\\x%02x", *s);
            o += 4;
            s++;
        }
    }
    dst[o] = 0;
}

int v10_name_take(char *dst, size_t cap, const char *src, size_t *len_out)
{
    char esc[1024]; /* a byte escaped takes four: 255 bytes fit */
    V10_ASSERT(cap >= 1 && cap <= 256);
    size_t len = strlen(src);
    if (len < cap) {
        v10_name_escape(esc, sizeof esc, src);
        len = strlen(esc);
    }
    *len_out = len;
    if (len >= cap)
        return -1;
    memcpy(dst, esc, len + 1);
    return (int)len;
}

uint64_t v10_hash_str(const char *s)
{
    return v10_hash_bytes(1469598103934665603u, s, strlen(s));
}

uint64_t v10_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

void v10_name_tail(char *dst, size_t cap, const char *src)
{
    size_t len = strlen(src);
    if (len < cap || cap < 8) {
        v10_name_escape(dst, cap, src);
        return;
    }
    const char *tail = src + len - (cap - 4);
    while ((*tail & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
        tail++;
    memcpy(dst, "...", 3);
    v10_name_escape(dst + 3, cap - 3, tail);
}

char *v10_names_join(char *dst, size_t cap, const char *const *names, const char *prefix)
{
    size_t len = 0;
    dst[0] = 0;
    for (size_t i = 0; names[i] && len < cap; i++)
        len += (size_t)snprintf(dst + len, cap - len, "%s%s%s", i ? ", " : "", prefix, names[i]);
    return dst;
}
