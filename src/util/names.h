/*
 * names.h — names as people type them.  A word the user typed (a policy, a
 * format, a built-in model, a preset, a command, an option's value) is
 * looked up among the names a lookup knows: exactly first; else ignoring
 * ASCII case and blanks at either end, when that leaves exactly one name
 * (`V10-Full`, ` pmt`, `JSON`).  A word that matches nothing gets the
 * nearest names for a "did you mean" (`jsno` -> `json`).  Paths are not
 * names: their case matters to the file system, and callers pass only
 * names here.
 */
#ifndef V10_UTIL_NAMES_H
#define V10_UTIL_NAMES_H

#include <stddef.h>

/* The index of `typed` among names[0..n) (n may be (size_t)-1 for a NULL-
 * terminated list), as above, or -1: no name matches, or several do when
 * case is ignored. */
long v10_name_lookup(const char *typed, const char *const *names, size_t n);

/*
 * Writes into hint[cap] (cap >= 1) and returns hint: "" when no name is
 * near `typed`, else "; did you mean 'a'?" or "; did you mean 'a' or
 * 'b'?" -- the names nearest by edit distance (ignoring case; a swap of
 * two neighbours counts one), at most three, within a third of the word's
 * length (at least 2; a name that `typed` begins or ends counts as near).
 * `prefix` goes before each name ("isca23/", "--"); NULL for none.
 */
char *v10_name_hint(char *hint, size_t cap, const char *typed, const char *const *names,
                    size_t n, const char *prefix);

#endif
