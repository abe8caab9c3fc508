/*
 * csv.h — the one CSV reader of every CSV input (operator traces, profiles,
 * LLM request traces, SCALE-Sim topologies): lines, comments, a byte-order
 * mark, line numbers for messages; the fields of a line are parsed by
 * libcsv (RFC 4180: a field in double quotes may hold commas and doubled
 * quotes; blanks around unquoted fields are dropped).  A quoted field may
 * not span lines.  Every function works on caller storage.
 */
#ifndef V10_UTIL_CSV_H
#define V10_UTIL_CSV_H

#include <stdio.h>

#include "v10/err.h"

#define V10_CSV_LINE_MAX 4096
#define V10_CSV_FIELDS_MAX 32

/* v10_csv_next flags */
#define V10_CSV_COMMENTS 1 /* skip lines whose first non-blank byte is '#' */
#define V10_CSV_TRAILING 2 /* drop an empty last field (SCALE-Sim ends every line with ',') */

/* Strips leading blanks and trailing blanks and line ends, in place. */
char *v10_csv_strip(char *s);

/*
 * Parses the fields of one line (no line end) in place: fields[i] point
 * into `line`.  Returns the exact field count (only the first `max` are
 * stored), or -1 on malformed quoting or out of memory.
 */
int v10_csv_split(char *line, char **fields, int max);
/* Numbers in fields: util/num.h (one rule for every input). */

/*
 * Reads the next line of `f` that is not blank (nor, with V10_CSV_COMMENTS,
 * a '#' comment) into line[V10_CSV_LINE_MAX] and splits it into
 * fields[V10_CSV_FIELDS_MAX]; a byte-order mark on line 1 is skipped.
 * *lineno counts every line read.  Returns the field count (>= 1), 0 at the
 * end of the file, or -1 with err naming path:line (a line too long, a NUL
 * byte, malformed quoting, too many fields) or a read error.
 */
int v10_csv_next(FILE *f, const char *path, int flags, char *line, char **fields,
                 int *lineno, v10_err *err);

/* Whether a field must be written in double quotes to read back as
 * written: it holds a comma, a quote or a line end, or begins or ends with
 * a blank (which the reader strips). */
int v10_csv_needs_quotes(const char *field);

/* Writes one field to f, in double quotes (inner quotes doubled) when
 * v10_csv_needs_quotes says so: the one CSV writer's quoting rule. */
void v10_csv_put(FILE *f, const char *field);

/* A data line of a file whose header gave the columns: -1 with err
 * ("path:line: expected H fields as in the header, got N") unless n == n_header. */
int v10_csv_check_fields(const char *path, int lineno, int n, int n_header, v10_err *err);

#endif
