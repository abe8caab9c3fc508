/*
 * svg.h — a small, dependency-free SVG chart writer (grouped bars, line
 * charts over shared x points, and x-y charts where each series has its own
 * points: curves such as CDFs, or scatter plots; with axes, tick labels, a
 * legend and an optional reference line)
 * and a self-contained HTML report writer that embeds such charts inline.
 *
 * Ownership: charts borrow every string and array; v10_svg_render returns a
 * malloc'd string the caller frees.  HTML writers only write to the stream.
 */
#ifndef V10_SVG_H
#define V10_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "v10/table.h"

typedef enum v10_svg_kind {
    V10_SVG_BARS = 0, /* one group of bars per category, one bar per series */
    V10_SVG_LINES,    /* one polyline with markers per series over x */
    V10_SVG_XY,       /* each series its own points on a numeric x axis: a
                         polyline without markers (curves), or with
                         `scatter` hollow markers only */
} v10_svg_kind;

typedef struct v10_svg_series {
    const char *name;  /* legend label */
    const double *y;   /* n_x values (XY: its points' n); NAN (or inf) marks a missing point */
} v10_svg_series;

/* XY: a series' own x values (its y values are in its v10_svg_series). */
typedef struct v10_svg_points {
    const double *x;   /* n values; on a log10 axis points with x <= 0 are skipped */
    size_t n;
    const char *const *labels; /* optional, n: each point's tooltip (scatter) */
} v10_svg_points;

typedef struct v10_svg_chart {
    v10_svg_kind kind;
    const char *title, *xlabel, *ylabel;
    size_t n_x;                  /* categories (bars) or x points (lines) */
    const char *const *cats;     /* bars: category labels (n_x) */
    const double *x;             /* lines: x values (n_x), increasing */
    int log2_x;                  /* lines: log2 x axis (x > 0) */
    const v10_svg_points *points; /* XY: n_series of them, series s's x values */
    int log10_x;                 /* XY: log10 x axis, ticks at 1, 2, 5 x 10^k */
    int scatter;                 /* XY: markers only, no lines; a marker that would
                                    cover another is set beside it (dodged) */
    int steps;                   /* XY curves: each series a staircase from y = 0
                                    (an empirical CDF): up at each point's x to its y,
                                    level to the next point's x; the y axis holds 0 */
    const char *const *x_labels; /* lines: optional tick labels at each x */
    int stacked;                 /* bars: one bar per category, the series (>= 0)
                                    stacked in order from the axis up */
    const v10_svg_series *series;
    size_t n_series;
    double ref_y;                /* dashed horizontal line at this y; NAN: none */
    int width, height;           /* pixels; 0: 800 x 400 */
} v10_svg_chart;

/* Renders the chart as a standalone SVG document (UTF-8, no external
 * references).  Returns a malloc'd string, or NULL on allocation failure or
 * an empty chart (no x points or no series; XY: no finite point). */
char *v10_svg_render(const v10_svg_chart *c);

/* Writes s with the five XML special characters escaped. */
void v10_xml_escape(FILE *f, const char *s);

/*
 * Self-contained HTML report: inline CSS, SVGs embedded in the page, no
 * scripts or external links.  Call begin, then any sequence of the others,
 * then end.  Text arguments are escaped; `svg` is embedded as is (its XML
 * prologue, if any, is dropped).
 */
void v10_html_begin(FILE *f, const char *title);
void v10_html_h2(FILE *f, const char *text);
void v10_html_p(FILE *f, const char *text);
/* The Markdown subset summary.md uses: # headings (one level down),
 * paragraphs, "* " lists, | tables |, **bold**, *emphasis*, `code`; all
 * text escaped. */
void v10_html_markdown(FILE *f, const char *md);
void v10_html_figure(FILE *f, const char *svg, const char *caption);
/* The table's rows as an HTML table (via v10_tab_to_json). Returns -1 on
 * allocation failure. */
int v10_html_table(FILE *f, const v10_tab *t);
void v10_html_end(FILE *f);

#endif
