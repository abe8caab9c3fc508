/* err.c — error messages for bad input, and the assertion for our own bugs. */
#include "v10/err.h"

#include <stdarg.h>
#include <string.h>

int v10_err_set(v10_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
    size_t n = strlen(head);
    if (n > sizeof err->msg - 3)
        n = sizeof err->msg - 3;
    memcpy(err->msg, head, n);
    memcpy(err->msg + n, ": ", 2);
    size_t rest = sizeof err->msg - n - 2;
    size_t ol = strnlen(old, sizeof old);
    if (ol >= rest)
        ol = rest - 1;
    memcpy(err->msg + n + 2, old, ol);
    err->msg[n + 2 + ol] = 0;
    return -1;
}

void v10_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "v10sim: internal error: assertion `%s' failed at %s:%d\n",
            expr, file, line);
    abort();
}
