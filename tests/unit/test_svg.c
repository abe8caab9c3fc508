/*
 * test_svg.c — the SVG chart and HTML report writers: documents are
 * complete and balanced, labels are escaped, missing values are skipped,
 * degenerate charts are refused, and the HTML embeds charts inline.
 * (tests/cli/repro.sh parses every generated SVG with an XML parser.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "v10/svg.h"

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Every '<' opens a tag that closes with '>' before the next '<', and the
 * document has as many <text> as </text> elements. */
static void assert_balanced(const char *s)
{
    int open = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '<') {
            assert_int_equal(open, 0);
            open = 1;
        } else if (*p == '>') {
            assert_int_equal(open, 1);
            open = 0;
        }
    }
    assert_int_equal(open, 0);
    assert_int_equal(count(s, "<text"), count(s, "</text>"));
    assert_int_equal(count(s, "<svg"), 1);
    assert_int_equal(count(s, "</svg>"), 1);
    assert_int_equal(count(s, "<title>"), count(s, "</title>"));
}

static void test_bars(void **state)
{
    (void)state;
    const char *cats[3] = {"bert+ncf", "a<b & \"c\"", "mnist+ncf"};
    double y1[3] = {1.0, 1.5, NAN}, y2[3] = {0.9, 2.25, 1.1};
    v10_svg_series s[2] = {{"pmt", y1}, {"v10-full", y2}};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = "STP & more", .xlabel = "pair",
                       .ylabel = "ratio", .n_x = 3, .cats = cats, .series = s, .n_series = 2,
                       .ref_y = 1};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_true(!strncmp(svg, "<?xml", 5));
    assert_balanced(svg);
    /* Five finite values, five bars (plus the white background rect and two legend keys). */
    assert_int_equal(count(svg, "<rect"), 1 + 5 + 2);
    assert_non_null(strstr(svg, "a&lt;b &amp; &quot;c&quot;"));
    assert_null(strstr(svg, "a<b"));
    assert_non_null(strstr(svg, "STP &amp; more"));
    assert_non_null(strstr(svg, "stroke-dasharray")); /* the reference line */
    assert_null(strstr(svg, "nan"));
    free(svg);
}

static void test_lines(void **state)
{
    (void)state;
    double x[4] = {512, 4096, 32768, 1048576}, y[4] = {1.1, 1.2, NAN, 1.0};
    const char *lab[4] = {"512", "4K", "32K", "1M"};
    v10_svg_series s[1] = {{"STP / PMT", y}};
    v10_svg_chart c = {.kind = V10_SVG_LINES, .title = "slice", .n_x = 4, .x = x, .log2_x = 1,
                       .x_labels = lab, .series = s, .n_series = 1, .ref_y = NAN};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    assert_int_equal(count(svg, "<circle"), 3 + 1); /* and the legend's sample */
    assert_int_equal(count(svg, "<polyline"), 1);
    assert_null(strstr(svg, "stroke-dasharray"));
    assert_non_null(strstr(svg, ">1M<"));
    free(svg);
    /* log2 axis with a non-positive x, no series, no points: refused. */
    x[0] = 0;
    assert_null(v10_svg_render(&c));
    x[0] = 512;
    c.n_series = 0;
    assert_null(v10_svg_render(&c));
    c.n_series = 1;
    c.n_x = 0;
    assert_null(v10_svg_render(&c));
    /* All values missing still renders axes. */
    double none[2] = {NAN, NAN};
    v10_svg_series s2[1] = {{"none", none}};
    v10_svg_chart c2 = {.kind = V10_SVG_LINES, .n_x = 2, .x = x, .series = s2, .n_series = 1,
                        .ref_y = NAN};
    svg = v10_svg_render(&c2);
    assert_non_null(svg);
    assert_balanced(svg);
    free(svg);
}

/* The x of the text element whose content is `label`. */
static double tick_x(const char *svg, const char *label)
{
    char key[40];
    snprintf(key, sizeof key, ">%s</text>", label);
    const char *p = strstr(svg, key);
    assert_non_null(p);
    while (p > svg && strncmp(p, "<text", 5))
        p--;
    const char *x = strstr(p, " x=\"");
    assert_non_null(x);
    return strtod(x + 4, NULL);
}

/* The points of the first polyline of svg: n of them into px, py. */
static size_t polyline_points(const char *svg, double *px, double *py, size_t cap)
{
    const char *q = strstr(svg, "<polyline ");
    assert_non_null(q);
    q = strstr(q, "points=\"");
    assert_non_null(q);
    q += strlen("points=\"");
    size_t n = 0;
    int used = 0;
    while (n < cap && sscanf(q, "%lf,%lf %n", &px[n], &py[n], &used) == 2) {
        q += used;
        n++;
    }
    assert_true(*q == '"');
    return n;
}

/* An empirical CDF drawn with `steps`: a staircase from y = 0 at the first
 * x, up at each point's x, level to the next; the y axis starts at 0 even
 * when every value is far above it.  Without steps, the points as given. */
static void test_xy_steps(void **state)
{
    (void)state;
    double x[3] = {1, 2, 4}, y[3] = {0.6, 0.8, 1.0};
    v10_svg_series s = {"alone", y};
    v10_svg_points pt = {x, 3, NULL};
    v10_svg_chart c = {.kind = V10_SVG_XY, .title = "cdf", .series = &s, .points = &pt,
                       .n_series = 1, .steps = 1, .ref_y = NAN};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    double px[16], py[16];
    size_t n = polyline_points(svg, px, py, 16);
    assert_int_equal(n, 6);
    double zero = py[0]; /* y = 0: the lowest point drawn, below the first value */
    for (size_t i = 1; i < n; i++)
        assert_true(py[i] < zero);
    for (size_t k = 0; k < 3; k++) {
        assert_true(fabs(px[2 * k] - px[2 * k + 1]) < 1e-9); /* up at the point's x */
        assert_true(py[2 * k + 1] < py[2 * k]);
        if (k < 2) { /* level to the next x */
            assert_true(fabs(py[2 * k + 1] - py[2 * k + 2]) < 1e-9);
            assert_true(px[2 * k + 2] > px[2 * k + 1]);
        }
    }
    assert_non_null(strstr(svg, ">0</text>")); /* the axis holds 0 */
    free(svg);
    c.steps = 0;
    svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_int_equal(polyline_points(svg, px, py, 16), 3);
    free(svg);
}

/* x-y charts: each series its own points.  A log10 axis over 0.5..300
 * has whole decades 0.1..1000 with 1-2-5 ticks, and maps x = 10 to the
 * middle of the plot; scatter draws one titled marker per drawable point
 * (labels escaped), curves one polyline per series; no drawable point,
 * a missing x array: refused. */
static void test_xy(void **state)
{
    (void)state;
    double x1[4] = {0.5, 10, 300, -1}, y1[4] = {0.25, 0.5, 1.0, 0.7};
    double x2[2] = {2, 20}, y2[2] = {0.4, NAN};
    const char *lab[4] = {"a<b", "c", "d", "e"};
    v10_svg_series s[2] = {{"alone", y1}, {"PMT", y2}};
    v10_svg_points pt[2] = {{x1, 4, lab}, {x2, 2, NULL}};
    v10_svg_chart c = {.kind = V10_SVG_XY, .title = "cdf", .xlabel = "ms", .series = s,
                       .points = pt, .n_series = 2, .log10_x = 1, .scatter = 1, .ref_y = NAN};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    /* 3 + 1 drawable points (x <= 0 and NAN skipped), each with a title */
    assert_int_equal(count(svg, "<title>"), 4);
    assert_non_null(strstr(svg, "alone / a&lt;b: 0.5, 0.25</title>"));
    assert_int_equal(count(svg, "<polyline"), 0);
    /* four decades, 0.1 to 1000: ticks at the powers of ten only */
    assert_non_null(strstr(svg, ">0.1</text>"));
    assert_non_null(strstr(svg, ">1000</text>"));
    assert_null(strstr(svg, ">200</text>"));
    free(svg);
    /* Markers at one point (three policies alike) are set side by side, a
     * marker's width (8 px) apart, not drawn over each other. */
    {
        double xs[1] = {10}, ys[3][1] = {{0.5}, {0.5}, {0.5}};
        v10_svg_series ss[3] = {{"a", ys[0]}, {"b", ys[1]}, {"c", ys[2]}};
        v10_svg_points ps[3] = {{xs, 1, NULL}, {xs, 1, NULL}, {xs, 1, NULL}};
        v10_svg_chart cs = {.kind = V10_SVG_XY, .title = "same", .series = ss, .points = ps,
                            .n_series = 3, .scatter = 1, .ref_y = NAN};
        char *sv = v10_svg_render(&cs);
        assert_non_null(sv);
        double cx, rx, px;
        const char *q = strstr(sv, "<circle cx=\"");
        assert_non_null(q);
        assert_int_equal(sscanf(q, "<circle cx=\"%lf\"", &cx), 1);
        q = strstr(sv, "<rect x=\"");
        assert_non_null(q);
        assert_int_equal(sscanf(q, "<rect x=\"%lf\"", &rx), 1);
        q = strstr(sv, "<polygon points=\"");
        assert_non_null(q);
        assert_int_equal(sscanf(q, "<polygon points=\"%lf,", &px), 1);
        assert_true(fabs(rx + 3.5 - cx) >= 7.5 && fabs(px - cx) >= 7.5 &&
                    fabs(px - (rx + 3.5)) >= 7.5);
        free(sv);
    }
    /* series 2 alone (x = 2; 20 has no y): one decade, ticks at 1, 2, 5, 10 */
    v10_svg_chart c1 = c;
    c1.series = &s[1];
    c1.points = &pt[1];
    c1.n_series = 1;
    svg = v10_svg_render(&c1);
    assert_non_null(svg);
    assert_true(strstr(svg, ">2</text>") && strstr(svg, ">5</text>") &&
                strstr(svg, ">10</text>"));
    assert_null(strstr(svg, ">20</text>"));
    free(svg);
    /* Curves: one polyline per series, x = 10 half-way along the axis. */
    c.scatter = 0;
    svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    assert_int_equal(count(svg, "<polyline"), 2); /* the legend's samples are <line>s */
    assert_int_equal(count(svg, "<title>"), 0);
    const char *p = strstr(svg, "<polyline fill=\"none\" stroke=\"#0072B2\" stroke-width=\"2\" points");
    assert_non_null(p);
    double pts[3][2];
    p = strstr(p, "points=\"") + 8;
    for (int i = 0; i < 3; i++) {
        char *end;
        pts[i][0] = strtod(p, &end);
        pts[i][1] = strtod(end + 1, &end);
        p = end + 1;
    }
    assert_true(pts[0][0] < pts[1][0] && pts[1][0] < pts[2][0]);
    assert_true(pts[0][1] > pts[1][1] && pts[1][1] > pts[2][1]); /* higher y is higher up */
    /* x = 10 (log10 1 of the axis' [-1, 3]) lies at its tick, half-way
     * between the ticks of 0.1 and 1000 */
    double t01 = tick_x(svg, "0.1"), t10 = tick_x(svg, "10"), t1000 = tick_x(svg, "1000");
    assert_true(fabs(pts[1][0] - t10) < 0.11);
    assert_true(fabs(t10 - (t01 + t1000) / 2) < 0.11);
    free(svg);
    /* 14..1500 ms, three decades: the axis ends at the 1-2-5 ticks around
     * the data, 10 and 2000 */
    double x4[2] = {14, 1500}, y4[2] = {0.5, 1};
    v10_svg_series s4[1] = {{"ttft", y4}};
    v10_svg_points p4[1] = {{x4, 2, NULL}};
    v10_svg_chart c4 = {.kind = V10_SVG_XY, .series = s4, .points = p4, .n_series = 1,
                        .log10_x = 1, .ref_y = NAN};
    svg = v10_svg_render(&c4);
    assert_non_null(svg);
    assert_true(strstr(svg, ">10</text>") && strstr(svg, ">2000</text>"));
    assert_true(!strstr(svg, ">5</text>") && !strstr(svg, ">5000</text>"));
    free(svg);
    /* Nothing drawable, or no x array: refused. */
    double none[1] = {NAN};
    v10_svg_series s3[1] = {{"none", none}};
    v10_svg_points p3[1] = {{none, 1, NULL}};
    v10_svg_chart c3 = {.kind = V10_SVG_XY, .series = s3, .points = p3, .n_series = 1,
                        .ref_y = NAN};
    assert_null(v10_svg_render(&c3));
    p3[0].x = NULL;
    assert_null(v10_svg_render(&c3));
    c3.points = NULL;
    assert_null(v10_svg_render(&c3));
}

/* The value of attribute `name` in the element starting at `el`. */
static double attr(const char *el, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(el, key), *end = strchr(el, '>');
    assert_true(p && p < end);
    return strtod(p + strlen(key), NULL);
}

/* Long legend labels and 55 crowded categories (issue 12: all_pairs.svg's
 * legend ran off the right edge and its labels overlapped). */
static void test_crowded_bars(void **state)
{
    (void)state;
    static char names[55][40];
    const char *cats[55];
    double y1[55], y2[55];
    for (int i = 0; i < 55; i++) {
        snprintf(names[i], sizeof names[i], "efficientnet+transformer%d", i);
        cats[i] = names[i];
        y1[i] = 1 + i / 100.0;
        y2[i] = 1.2;
    }
    const char *long_name = "bound: 2 / max(1, sum SA, sum VU, sum HBM) / STP(PMT)";
    v10_svg_series s[2] = {{"V10-Full / PMT (simulated)", y1}, {long_name, y2}};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .title = "all pairs", .n_x = 55, .cats = cats,
                       .series = s, .n_series = 2, .ref_y = 1.3, .width = 1100, .height = 480};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    /* Every legend label ends inside the picture (6.5 px per character). */
    for (size_t k = 0; k < 2; k++) {
        char needle[80];
        snprintf(needle, sizeof needle, ">%s</text>", s[k].name);
        const char *t = strstr(svg, needle);
        assert_non_null(t);
        const char *el = t;
        while (el > svg && strncmp(el, "<text", 5))
            el--;
        assert_true(attr(el, "x") + 6.5 * (double)strlen(s[k].name) <= 1100);
    }
    /* Neighbouring category labels clear each other: the tick spacing across
     * the text direction (spacing x sin(angle)) is at least the font size. */
    const char *a = strstr(svg, ">efficientnet+transformer0<"), *b;
    while (a > svg && strncmp(a, "<text", 5))
        a--;
    b = strstr(a + 1, "<text");
    const char *rot = strstr(a, "rotate(-");
    assert_true(rot && rot < strchr(a, '>'));
    double angle = strtod(rot + 8, NULL), px = attr(a, "font-size");
    double gap = attr(b, "x") - attr(a, "x");
    assert_true(gap * sin(angle * 3.14159265358979 / 180) >= px);
    free(svg);
}

/* Lines that coincide stay distinguishable: each series has its own dash
 * pattern and marker shape (issue 12: in slice.svg one line hid another). */
static void test_lines_distinct(void **state)
{
    (void)state;
    double x[3] = {1, 2, 3}, y[3] = {1, 1, 1};
    v10_svg_series s[4] = {{"a", y}, {"b", y}, {"c", y}, {"d", y}};
    v10_svg_chart c = {.kind = V10_SVG_LINES, .n_x = 3, .x = x, .series = s, .n_series = 4,
                       .ref_y = NAN};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    assert_balanced(svg);
    char seen[4][32];
    const char *p = svg;
    for (int k = 0; k < 4; k++) {
        p = strstr(p, "<polyline");
        assert_non_null(p);
        const char *d = strstr(p, "stroke-dasharray=\""), *end = strchr(p, '>');
        snprintf(seen[k], sizeof seen[k], "%.*s", d && d < end ? (int)strcspn(d + 18, "\"") : 5,
                 d && d < end ? d + 18 : "solid");
        for (int j = 0; j < k; j++)
            assert_string_not_equal(seen[j], seen[k]);
        p++;
    }
    /* Hollow markers of four shapes: circles, squares, and two polygons. */
    assert_int_equal(count(svg, "<circle"), 3 + 1);
    assert_int_equal(count(svg, "<polygon"), 2 * (3 + 1));
    assert_null(strstr(svg, "r=\"3.5\" fill=\"#"));
    free(svg);
}

static void test_html(void **state)
{
    (void)state;
    const char *cats[1] = {"x"};
    double y[1] = {2};
    v10_svg_series s[1] = {{"s", y}};
    v10_svg_chart c = {.kind = V10_SVG_BARS, .n_x = 1, .cats = cats, .series = s, .n_series = 1,
                       .ref_y = NAN};
    char *svg = v10_svg_render(&c);
    assert_non_null(svg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    v10_html_begin(f, "Report <1>");
    v10_html_p(f, "a & b");
    v10_html_figure(f, svg, "caption & more");
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "v", V10_COL_REAL, 2);
    v10_tab_row(t);
    v10_tab_str(t, "<x>");
    v10_tab_real(t, 1.5);
    assert_int_equal(v10_html_table(f, t), 0);
    v10_tab_destroy(t);
    v10_html_end(f);
    fclose(f);
    assert_non_null(strstr(buf, "<title>Report &lt;1&gt;</title>"));
    assert_non_null(strstr(buf, "<p>a &amp; b</p>"));
    assert_non_null(strstr(buf, "<figcaption>caption &amp; more</figcaption>"));
    assert_non_null(strstr(buf, "<td>&lt;x&gt;</td><td>1.5</td>"));
    assert_int_equal(count(buf, "<svg"), 1);
    assert_null(strstr(buf, "<?xml")); /* the prologue is dropped when embedding */
    assert_null(strstr(buf, "<script"));
    assert_null(strstr(buf, "href="));
    assert_non_null(strstr(buf, "</html>"));
    free(buf);
    free(svg);
}

/* summary.md's Markdown: headings one level down, tables with a header
 * row and no separator row, lists, bold and code, everything escaped. */
static void test_markdown(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    v10_html_markdown(f, "# Title <x>\n\npara **bold** and `a<b`\ncontinued *em* 2 * 3\n\n"
                         "| m | ours |\n|---|---|\n| stp | x1.1 & more |\n\n"
                         "* one\n* two\n");
    fclose(f);
    const char *want = "<h2>Title &lt;x&gt;</h2>\n"
                       "<p>para <strong>bold</strong> and <code>a&lt;b</code> continued <em>em</em> 2 * 3</p>\n"
                       "<table>\n<tr><th>m</th><th>ours</th></tr>\n"
                       "<tr><td>stp</td><td>x1.1 &amp; more</td></tr>\n</table>\n"
                       "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n";
    assert_string_equal(buf, want);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_xy),
        cmocka_unit_test(test_crowded_bars),
        cmocka_unit_test(test_lines_distinct),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_xy_steps),
        cmocka_unit_test(test_markdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
