/*
 * text.h — names from data made safe for every writer.  A model or
 * operator name comes from a file (an ONNX node, a trace CSV, a path) and
 * is written into tables on a terminal, CSV, JSON and Perfetto traces: a
 * newline would split a CSV row, byte 0xff would make JSON invalid UTF-8,
 * an escape sequence would reach the terminal.  Names are escaped once,
 * where they enter a model, so every output reads back.
 */
#ifndef V10_UTIL_TEXT_H
#define V10_UTIL_TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Copies src into dst[cap] (cap >= 1), always NUL-terminated: a control
 * character (C0, DEL, C1) or a byte that is not part of valid UTF-8
 * becomes the four characters \xHH; the copy is cut at a character
 * boundary, never inside an escape or a UTF-8 sequence.  The result is
 * printable, valid UTF-8, and escaping it again changes nothing.
 * dst and src may be the same buffer.
 */
void v10_name_escape(char *dst, size_t cap, const char *src);

/*
 * A name read from data into dst[cap] (cap <= 256), escaped as
 * v10_name_escape does: its length after escaping, or -1 if that is cap or
 * more (nothing is cut: the caller refuses the name, quoting the length
 * returned in *len_out, the escaped length or more).
 */
int v10_name_take(char *dst, size_t cap, const char *src, size_t *len_out);

/*
 * As v10_name_escape, but a src too long for dst keeps its end: "..." and
 * the last characters, so that a path keeps its file name and the folders
 * nearest it (two files of one name in different folders stay apart;
 * issue 24).  A src that fits is copied as v10_name_escape copies it.
 * dst and src must not overlap.
 */
void v10_name_tail(char *dst, size_t cap, const char *src);

/* FNV-1a of the string (http://www.isthe.com/chongo/tech/comp/fnv/), for
 * tables keyed by name. */
uint64_t v10_hash_str(const char *s);
/* FNV-1a continued over n bytes from hash h (v10_hash_str's result, say). */
uint64_t v10_hash_bytes(uint64_t h, const void *p, size_t n);

/* Writes "PREFIXa, PREFIXb, ..." for the NULL-terminated `names` into
 * dst[cap] (cap >= 1; cut if it does not fit) and returns dst: the list an
 * "unknown name" message offers. */
char *v10_names_join(char *dst, size_t cap, const char *const *names, const char *prefix);

#endif
