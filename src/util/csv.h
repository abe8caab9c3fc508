/*
 * csv.h — the pieces of reading a simple CSV line (no quoting: fields may
 * not contain commas) shared by the readers of profile and trace files.
 * Every function works in place on caller storage and allocates nothing.
 */
#ifndef V10_UTIL_CSV_H
#define V10_UTIL_CSV_H

#define V10_CSV_LINE_MAX 4096
#define V10_CSV_FIELDS_MAX 32

/* Strips leading blanks and trailing blanks and line ends, in place. */
char *v10_csv_strip(char *s);
/* Skips a UTF-8 byte-order mark at the start of a file's first line. */
char *v10_csv_skip_bom(char *s);
/* Splits `line` on commas into at most `max` stripped fields; returns the
 * count, or -1 if there are more. */
int v10_csv_split(char *line, char **fields, int max);
/* Strict numbers: the whole field, decimal, no sign for the integer form
 * (u64); a finite decimal or exponent form for double.  0 or -1. */
int v10_csv_u64(const char *s, unsigned long long *out);
int v10_csv_double(const char *s, double *out);

#endif
