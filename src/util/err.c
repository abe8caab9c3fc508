/* err.c — error messages for bad input, and the assertion for our own bugs. */
#include "v10/err.h"

#include <stdarg.h>
#include <string.h>

/* Of a message longer than V10_ERR_MAX - 1 bytes, the bytes kept from its
 * start; the rest of the room is its end, where the reason stands ("PATH:
 * cannot create: File name too long"), after " ... ". */
#define HEAD_KEPT 200

/* Formats into msg (V10_ERR_MAX bytes).  A message that does not fit loses
 * its middle, not its end (an over-long path or name quoted in it would
 * push out what went wrong); the cuts fall between UTF-8 characters.
 * Without memory for the whole message it is cut at the end instead. */
static void format_msg(char *msg, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(msg, V10_ERR_MAX, fmt, ap);
    if (n >= V10_ERR_MAX) {
        size_t len = (size_t)n, head = HEAD_KEPT, from = len - (V10_ERR_MAX - 1 - HEAD_KEPT - 5);
        char *full = malloc(len + 1);
        if (full && vsnprintf(full, len + 1, fmt, again) == n) {
            while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80)
                head--;
            while (from < len && ((unsigned char)full[from] & 0xC0) == 0x80)
                from++;
            memcpy(msg, full, head);
            memcpy(msg + head, " ... ", 5);
            memcpy(msg + head + 5, full + from, len - from + 1);
        }
        free(full);
    }
    va_end(again);
}

int v10_err_vset(v10_err *err, const char *fmt, va_list ap)
{
    if (err)
        format_msg(err->msg, fmt, ap);
    return -1;
}

int v10_err_set(v10_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v10_err_vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int v10_err_prefix(v10_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char head[V10_ERR_MAX], old[V10_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = 0;
    return v10_err_set(err, "%s: %s", head, old);
}

void v10_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "v10sim: internal error: assertion `%s' failed at %s:%d\n",
            expr, file, line);
    abort();
}
