/*
 * err.h — how v10sim reports bad input.
 *
 * Functions that can fail on user input return 0 on success and -1 on error,
 * filling a caller-owned v10_err with one message that names the file, line
 * or key and what was expected.  Only src/cli/ prints it.  Broken internal
 * invariants are bugs, not errors: V10_ASSERT aborts with file:line.
 */
#ifndef V10_ERR_H
#define V10_ERR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define V10_ERR_MAX 512

typedef struct v10_err {
    char msg[V10_ERR_MAX];
} v10_err;

/* Formats into err (if err is non-NULL) and returns -1, so callers can write
 * `return v10_err_set(err, "...")`.  A message longer than V10_ERR_MAX - 1
 * bytes keeps its start and its end (the reason), " ... " in between. */
int v10_err_set(v10_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* v10_err_set with the arguments as a va_list. */
int v10_err_vset(v10_err *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Prepends "prefix: " to an existing message (e.g. a file name). */
int v10_err_prefix(v10_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void v10_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));

#define V10_ASSERT(e) ((e) ? (void)0 : v10_assert_fail(#e, __FILE__, __LINE__))

#endif
