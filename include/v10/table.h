/*
 * table.h — one result table, three renderings: an aligned text table for
 * people, CSV for scripts and pandas, JSON (an array of objects) for tools.
 *
 * Column names containing one '.' ("lat_us.p95") nest one level in JSON
 * ({"lat_us": {"p95": ...}}) and stay flat in CSV and text.  Cells are
 * appended row by row, left to right.  The table owns copies of all strings.
 *
 * Allocation failure is sticky, like a stream's error flag: the building
 * calls never fail loudly; once one could not allocate, the rest do nothing
 * and v10_tab_status, v10_tab_to_json and v10_tab_write report the failure.
 * A NULL table (v10_tab_create out of memory) behaves as a failed one.
 */
#ifndef V10_TABLE_H
#define V10_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "v10/err.h"

typedef enum v10_format {
    V10_FMT_TABLE = 0,
    V10_FMT_JSON,
    V10_FMT_CSV,
} v10_format;

typedef enum v10_col_kind {
    V10_COL_STR = 0,
    V10_COL_INT,   /* signed 64-bit */
    V10_COL_REAL,  /* double, printed with the column's precision */
} v10_col_kind;

typedef struct v10_tab v10_tab;

v10_tab *v10_tab_create(void);
void v10_tab_destroy(v10_tab *t);

/* Declares a column; `digits` is the number of decimals for REAL columns. */
void v10_tab_col(v10_tab *t, const char *name, v10_col_kind kind, int digits);
/* A column as data, so that a table's columns can be one const array. */
typedef struct v10_col_spec {
    const char *name;
    v10_col_kind kind;
    int digits;
} v10_col_spec;
/* Declares n columns, in order. */
void v10_tab_cols(v10_tab *t, const v10_col_spec *cols, size_t n);
/* Starts a new row; then one v10_tab_* cell call per column, in order. */
void v10_tab_row(v10_tab *t);
void v10_tab_str(v10_tab *t, const char *s);
void v10_tab_int(v10_tab *t, int64_t v);
void v10_tab_real(v10_tab *t, double v);
/* Marks the current row as a footer (totals): set off by a rule in text. */
void v10_tab_footer(v10_tab *t);

size_t v10_tab_rows(const v10_tab *t);

/* 0, or -1 with err set if building the table ran out of memory. */
int v10_tab_status(const v10_tab *t, v10_err *err);

/* The rows (footers included) as a JSON array of objects; caller owns it.
 * NULL on allocation failure. */
cJSON *v10_tab_to_json(const v10_tab *t);

/* Writes the table; JSON is the array from v10_tab_to_json.  Returns -1 on
 * allocation or write failure. */
int v10_tab_write(const v10_tab *t, v10_format fmt, FILE *f);

int v10_format_parse(const char *s, v10_format *out);

#endif
