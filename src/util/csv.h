/*
 * csv.h — the pieces of reading a simple CSV line (no quoting: fields may
 * not contain commas) shared by the readers of profile and trace files.
 * Every function works in place on caller storage and allocates nothing.
 */
#ifndef V10_UTIL_CSV_H
#define V10_UTIL_CSV_H

#include <stdio.h>

#include "v10/err.h"

#define V10_CSV_LINE_MAX 4096
#define V10_CSV_FIELDS_MAX 32

/* Strips leading blanks and trailing blanks and line ends, in place. */
char *v10_csv_strip(char *s);
/* Splits `line` on commas into at most `max` stripped fields; returns the
 * count, or -1 if there are more. */
int v10_csv_split(char *line, char **fields, int max);
/* Numbers in fields: util/num.h (one rule for every input). */

/*
 * Reads the next line of `f` that is not blank (nor, if `comments`, a '#'
 * comment) into line[V10_CSV_LINE_MAX] and splits it into
 * fields[V10_CSV_FIELDS_MAX]; a byte-order mark on line 1 is skipped.
 * *lineno counts every line read.  Returns the field count, 0 at the end of
 * the file, or -1 with err naming path:line (a line too long, too many
 * fields) or a read error.
 */
int v10_csv_next(FILE *f, const char *path, int comments, char *line, char **fields,
                 int *lineno, v10_err *err);

#endif
