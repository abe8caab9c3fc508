/*
 * svg.c — grouped-bar, line and x-y (curve, scatter) charts as standalone
 * SVG (see v10/svg.h).
 * Layout: a plot area with a left margin for y tick labels, a bottom margin
 * for x labels (rotated 35 or 90 degrees, smaller, when crowded) and a
 * legend column on the right, or rows above the plot when its labels are
 * too long for a column.  Line series differ in colour, dash pattern and
 * hollow marker shape, so coinciding lines stay visible.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "v10/svg.h"

/* A qualitative palette (Okabe-Ito, colour-blind safe). */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                      "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

/* Line series: dash patterns and marker shapes, cycled independently of the
 * colours (a series index s uses palette[s % 8], dashes[s % 5], shape s % 4). */
static const char *const dashes[] = {NULL, "7,4", "2,3", "9,3,2,3", "4,4"};
#define N_DASHES (sizeof dashes / sizeof dashes[0])

/* Text metrics for the layout: an 11 px Helvetica character is about 6.5 px
 * wide on average (wider than most, so estimates err on the roomy side). */
#define CHAR_W 6.5
#define LEGEND_ROW 18.0

void v10_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about `n` ticks over span. */
static double nice_step(double span, int n)
{
    if (!(span > 0))
        return 1;
    double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static int finite_val(double v) { return isfinite(v); }

/* Prints a number compactly: integers without decimals, else up to 3 significant. */
static void num(FILE *f, double v)
{
    if (fabs(v - round(v)) < 1e-9 * (fabs(v) + 1))
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.3g", v);
}

typedef struct frame {
    double x0, y0, w, h;  /* plot area, pixels (y0 is the top) */
    double lo, hi, step;  /* y range and tick step */
    double xlo, xhi, xstep; /* XY: x range (log10 of it on a log axis) and linear tick step */
    int legend_top;       /* legend in rows above the plot, not a column on the right */
    int angle;            /* x tick labels: 0, 35 or 90 degrees */
    double label_px;      /* x tick label font size */
} frame;

static double ymap(const frame *fr, double v)
{
    return fr->y0 + fr->h * (1 - (v - fr->lo) / (fr->hi - fr->lo));
}

/* XY: point i of series s is drawn if finite (and x > 0 on a log axis). */
static int xy_ok(const v10_svg_chart *c, size_t s, size_t i)
{
    double x = c->points[s].x[i];
    return isfinite(x) && finite_val(c->series[s].y[i]) && (!c->log10_x || x > 0);
}

/* Points of series s: n_x, or its own n on an XY chart. */
static size_t points(const v10_svg_chart *c, size_t s)
{
    return c->kind == V10_SVG_XY ? c->points[s].n : c->n_x;
}

static void y_range(const v10_svg_chart *c, frame *fr)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < points(c, s); i++)
            if (c->kind == V10_SVG_XY ? xy_ok(c, s, i) : finite_val(c->series[s].y[i])) {
                lo = fmin(lo, c->series[s].y[i]);
                hi = fmax(hi, c->series[s].y[i]);
            }
    for (size_t i = 0; c->stacked && i < c->n_x; i++) { /* a stack's top */
        double top = 0;
        for (size_t s = 0; s < c->n_series; s++)
            top += finite_val(c->series[s].y[i]) ? c->series[s].y[i] : 0;
        hi = fmax(hi, top);
    }
    if (isfinite(c->ref_y)) {
        lo = fmin(lo, c->ref_y);
        hi = fmax(hi, c->ref_y);
    }
    if (!isfinite(lo)) {
        lo = 0;
        hi = 1;
    }
    if (c->kind == V10_SVG_BARS || c->steps || (lo >= 0 && lo < 0.5 * hi))
        lo = fmin(lo, 0);
    if (hi - lo < 1e-12)
        hi = lo + (fabs(lo) > 0 ? fabs(lo) * 0.5 : 1);
    double step = nice_step(hi - lo, 5);
    fr->lo = floor(lo / step) * step;
    fr->hi = ceil(hi / step - 1e-9) * step;
    if (fr->hi <= fr->lo)
        fr->hi = fr->lo + step;
    fr->step = step;
}

static void axes(FILE *f, const v10_svg_chart *c, const frame *fr)
{
    /* Horizontal grid and y tick labels. */
    for (double v = fr->lo; v <= fr->hi + fr->step * 1e-6; v += fr->step) {
        double y = ymap(fr, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                fr->x0, y, fr->x0 + fr->w, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">",
                fr->x0 - 6, y + 4);
        num(f, fabs(v) < fr->step * 1e-9 ? 0 : v);
        fputs("</text>\n", f);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
            fr->x0, fr->y0, fr->x0, fr->y0 + fr->h);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
            fr->x0, fr->y0 + fr->h, fr->x0 + fr->w, fr->y0 + fr->h);
    if (isfinite(c->ref_y) && c->ref_y >= fr->lo && c->ref_y <= fr->hi) {
        double y = ymap(fr, c->ref_y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#900\" "
                   "stroke-dasharray=\"6,4\"/>\n",
                fr->x0, y, fr->x0 + fr->w, y);
    }
    if (c->ylabel) {
        double cy = fr->y0 + fr->h / 2;
        fprintf(f, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                   "transform=\"rotate(-90 16 %.1f)\">",
                cy, cy);
        v10_xml_escape(f, c->ylabel);
        fputs("</text>\n", f);
    }
}

/* Opens series s's hollow marker centred on (x, y): a circle, square,
 * triangle or diamond; the caller adds a <title> and closes it with the
 * element name returned. */
static const char *marker_open(FILE *f, size_t s, double x, double y)
{
    const char *col = palette[s % N_PALETTE];
    const char *style = "fill=\"none\" stroke-width=\"1.5\"";
    switch (s % 4) {
    case 0:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" stroke=\"%s\" %s>", x, y, col, style);
        return "circle";
    case 1:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" stroke=\"%s\" %s>",
                x - 3.5, y - 3.5, col, style);
        return "rect";
    case 2:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" stroke=\"%s\" %s>", x,
                y - 4.5, x + 4, y + 3, x - 4, y + 3, col, style);
        return "polygon";
    default:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" stroke=\"%s\" %s>",
                x, y - 4.5, x + 4.5, y, x, y + 4.5, x - 4.5, y, col, style);
        return "polygon";
    }
}

/* A line series' stroke: colour, width and dash pattern. */
static void line_style(FILE *f, size_t s)
{
    fprintf(f, "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", palette[s % N_PALETTE]);
    if (dashes[s % N_DASHES])
        fprintf(f, " stroke-dasharray=\"%s\"", dashes[s % N_DASHES]);
}

static void legend(FILE *f, const v10_svg_chart *c, const frame *fr)
{
    double x = fr->legend_top ? fr->x0 : fr->x0 + fr->w + 14;
    double y = fr->legend_top ? fr->y0 - LEGEND_ROW * (double)c->n_series - 4 : fr->y0 + 6;
    for (size_t s = 0; s < c->n_series; s++, y += LEGEND_ROW) {
        double tx = x + 17;
        if (c->kind != V10_SVG_BARS) { /* a sample of the line and/or its marker */
            if (!(c->kind == V10_SVG_XY && c->scatter)) {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ", x,
                        y + 6, x + 24, y + 6);
                line_style(f, s);
                fputs("/>\n", f);
            }
            if (c->kind != V10_SVG_XY || c->scatter)
                fprintf(f, "</%s>\n", marker_open(f, s, x + 12, y + 6));
            tx = x + 30;
        } else {
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                    x, y, palette[s % N_PALETTE]);
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", tx, y + 10);
        v10_xml_escape(f, c->series[s].name);
        fputs("</text>\n", f);
    }
}

static void x_label(FILE *f, const v10_svg_chart *c, const frame *fr, int H)
{
    if (!c->xlabel)
        return;
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">",
            fr->x0 + fr->w / 2, H - 8);
    v10_xml_escape(f, c->xlabel);
    fputs("</text>\n", f);
}

/* A category / tick label under the axis, rotated when labels are crowded
 * (a 90-degree label is centred on its tick by a third of the font size). */
static void tick_label(FILE *f, const frame *fr, double x, double y, const char *s)
{
    if (fr->angle == 90)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%.1f\" "
                   "transform=\"rotate(-90 %.1f %.1f)\">",
                x + fr->label_px / 3, y, fr->label_px, x + fr->label_px / 3, y);
    else if (fr->angle)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%.1f\" "
                   "transform=\"rotate(-%d %.1f %.1f)\">",
                x, y, fr->label_px, fr->angle, x, y);
    else
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"%.1f\">", x,
                y + 4, fr->label_px);
    v10_xml_escape(f, s);
    fputs("</text>\n", f);
}

static void bars(FILE *f, const v10_svg_chart *c, const frame *fr)
{
    double gw = fr->w / (double)c->n_x;
    double bw = c->stacked ? gw * 0.8 : gw * 0.8 / (double)c->n_series;
    double base = ymap(fr, fr->lo > 0 ? fr->lo : fr->hi < 0 ? fr->hi : 0);
    for (size_t i = 0; i < c->n_x; i++) {
        double gx = fr->x0 + gw * (double)i + gw * 0.1, below = 0; /* stacked: the sum so far */
        for (size_t s = 0; s < c->n_series; s++) {
            double v = c->series[s].y[i];
            if (!finite_val(v))
                continue;
            double y = ymap(fr, below + v), b = c->stacked ? ymap(fr, below) : base;
            double top = fmin(y, b), h = fabs(b - y);
            if (c->stacked)
                below += v;
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                       "<title>",
                    gx + (c->stacked ? 0 : bw * (double)s), top, bw, h, palette[s % N_PALETTE]);
            v10_xml_escape(f, c->cats[i]);
            fputs(" / ", f);
            v10_xml_escape(f, c->series[s].name);
            fputs(": ", f);
            num(f, v);
            fputs("</title></rect>\n", f);
        }
        tick_label(f, fr, fr->x0 + gw * ((double)i + 0.5), fr->y0 + fr->h + 12, c->cats[i]);
    }
}

static double xval(const v10_svg_chart *c, double x) { return c->log2_x ? log2(x) : x; }

/* log10 of the 1-2-5 x 10^k value nearest v from below (dir < 0) or
 * above (dir > 0), v > 0. */
static double log_tick(double v, int dir)
{
    static const double m[3] = {1, 2, 5};
    double d = floor(log10(v)), best = dir < 0 ? -INFINITY : INFINITY;
    for (double e = d - 1; e <= d + 1; e++)
        for (int i = 0; i < 3; i++) {
            double t = m[i] * pow(10, e);
            if (dir < 0 && t <= v * (1 + 1e-12) && t > best)
                best = t;
            if (dir > 0 && t >= v * (1 - 1e-12) && t < best)
                best = t;
        }
    return log10(best);
}

/* XY: the x range over every drawable point: on a log axis whole decades,
 * or over at most three decades the 1-2-5 ticks around the data; on a
 * linear one whole steps of a nice step.  0 if no point is drawable. */
static int x_range(const v10_svg_chart *c, frame *fr)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < c->points[s].n; i++)
            if (xy_ok(c, s, i)) {
                lo = fmin(lo, c->points[s].x[i]);
                hi = fmax(hi, c->points[s].x[i]);
            }
    if (!isfinite(lo))
        return 0;
    if (c->log10_x) {
        fr->xlo = floor(log10(lo));
        fr->xhi = fmax(ceil(log10(hi)), fr->xlo + 1);
        if (fr->xhi - fr->xlo <= 3) { /* 1-2-5 ticks: end the axis at the ticks around the data */
            double a = log_tick(lo, -1), b = log_tick(hi, 1);
            if (b > a) {
                fr->xlo = a;
                fr->xhi = b;
            }
        }
        return 1;
    }
    if (hi - lo < 1e-12)
        hi = lo + (fabs(lo) > 0 ? fabs(lo) * 0.5 : 1);
    fr->xstep = nice_step(hi - lo, 6);
    fr->xlo = floor(lo / fr->xstep) * fr->xstep;
    fr->xhi = ceil(hi / fr->xstep - 1e-9) * fr->xstep;
    if (fr->xhi <= fr->xlo)
        fr->xhi = fr->xlo + fr->xstep;
    return 1;
}

static double xy_map(const v10_svg_chart *c, const frame *fr, double x)
{
    double t = c->log10_x ? log10(x) : x;
    return fr->x0 + fr->w * (t - fr->xlo) / (fr->xhi - fr->xlo);
}

/* XY: a tick, grid line and label at x. */
static void x_tick(FILE *f, const v10_svg_chart *c, const frame *fr, double x)
{
    double px = xy_map(c, fr, x);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", px,
            fr->y0, px, fr->y0 + fr->h);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", px,
            fr->y0 + fr->h, px, fr->y0 + fr->h + 4);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">", px,
            fr->y0 + fr->h + 16);
    num(f, x);
    fputs("</text>\n", f);
}

/* Markers drawn so far (scatter), for dodging. */
typedef struct placed {
    double (*at)[2];
    size_t n, cap;
} placed;

#define MARKER_PX 8.0 /* a marker's width, with its stroke */

/* The x at which a marker for (x, y) covers none drawn before: x itself,
 * else x moved by one marker width at a time, right then left, the
 * nearest first (a few tries; then x).  Records it.  Deterministic, so a
 * plot is byte for byte the same; the tooltip keeps the exact values. */
static double dodge(placed *pl, double x, double y)
{
    double best = x;
    for (int k = 0; k <= 8; k++) {
        double cand = x + MARKER_PX * (k % 2 ? (k + 1) / 2 : -(k / 2));
        size_t i = 0;
        while (i < pl->n && !(fabs(pl->at[i][0] - cand) < MARKER_PX - 0.5 &&
                              fabs(pl->at[i][1] - y) < MARKER_PX - 0.5))
            i++;
        if (i == pl->n) {
            best = cand;
            break;
        }
    }
    if (pl->at && pl->n < pl->cap) {
        pl->at[pl->n][0] = best;
        pl->at[pl->n++][1] = y;
    }
    return best;
}

/* XY: ticks at 1, 2 and 5 x 10^k over at most three decades, else at
 * powers of ten; linear: every step.  Then the series; a scatter's
 * markers that would cover each other are set side by side (dodge). */
static void xy(FILE *f, const v10_svg_chart *c, const frame *fr)
{
    if (c->log10_x) {
        int dense = fr->xhi - fr->xlo <= 3;
        for (double d = floor(fr->xlo + 1e-9); d <= fr->xhi + 1e-9; d++)
            for (int m = 1; m <= (dense ? 5 : 1); m += m == 1 ? 1 : 3) {
                double v = m * pow(10, d), t = log10(v);
                if (t >= fr->xlo - 1e-9 && t <= fr->xhi + 1e-9)
                    x_tick(f, c, fr, v);
            }
    } else {
        for (double v = fr->xlo; v <= fr->xhi + fr->xstep * 1e-6; v += fr->xstep)
            x_tick(f, c, fr, fabs(v) < fr->xstep * 1e-9 ? 0 : v);
    }
    placed pl = {0};
    for (size_t s = 0; c->scatter && s < c->n_series; s++)
        pl.cap += c->points[s].n;
    if (pl.cap)
        pl.at = malloc(pl.cap * sizeof *pl.at); /* NULL: no dodging */
    for (size_t s = 0; s < c->n_series; s++) {
        const v10_svg_series *se = &c->series[s];
        const v10_svg_points *pt = &c->points[s];
        if (!c->scatter) {
            fputs("<polyline ", f);
            line_style(f, s);
            fputs(" points=\"", f);
            double below = ymap(fr, 0); /* steps: the level before the point */
            for (size_t i = 0; i < pt->n; i++)
                if (xy_ok(c, s, i)) {
                    double px = xy_map(c, fr, pt->x[i]), py = ymap(fr, se->y[i]);
                    if (c->steps)
                        fprintf(f, "%.1f,%.1f ", px, below);
                    fprintf(f, "%.1f,%.1f ", px, py);
                    below = py;
                }
            fputs("\"/>\n", f);
            continue;
        }
        for (size_t i = 0; i < pt->n; i++) {
            if (!xy_ok(c, s, i))
                continue;
            double py = ymap(fr, se->y[i]);
            const char *el = marker_open(f, s, dodge(&pl, xy_map(c, fr, pt->x[i]), py), py);
            fputs("<title>", f);
            v10_xml_escape(f, se->name);
            if (pt->labels && pt->labels[i]) {
                fputs(" / ", f);
                v10_xml_escape(f, pt->labels[i]);
            }
            fprintf(f, ": %.6g, %.6g</title></%s>\n", pt->x[i], se->y[i], el);
        }
    }
    free(pl.at);
}

static void lines(FILE *f, const v10_svg_chart *c, const frame *fr)
{
    double xl = xval(c, c->x[0]), xh = xval(c, c->x[c->n_x - 1]);
    if (!(xh > xl)) {
        xl -= 1;
        xh += 1;
    }
    double pad = fr->w * 0.03, span = fr->w - 2 * pad;
#define XMAP(v) (fr->x0 + pad + span * ((xval(c, (v)) - xl) / (xh - xl)))
    for (size_t i = 0; i < c->n_x; i++) {
        char buf[32];
        const char *lab = c->x_labels ? c->x_labels[i] : NULL;
        if (!lab) {
            snprintf(buf, sizeof buf, "%.4g", c->x[i]);
            lab = buf;
        }
        double x = XMAP(c->x[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x,
                fr->y0 + fr->h, x, fr->y0 + fr->h + 4);
        tick_label(f, fr, x, fr->y0 + fr->h + 14, lab);
    }
    for (size_t s = 0; s < c->n_series; s++) {
        fputs("<polyline ", f);
        line_style(f, s);
        fputs(" points=\"", f);
        for (size_t i = 0; i < c->n_x; i++)
            if (finite_val(c->series[s].y[i]))
                fprintf(f, "%.1f,%.1f ", XMAP(c->x[i]), ymap(fr, c->series[s].y[i]));
        fputs("\"/>\n", f);
        for (size_t i = 0; i < c->n_x; i++) {
            double v = c->series[s].y[i];
            if (!finite_val(v))
                continue;
            const char *el = marker_open(f, s, XMAP(c->x[i]), ymap(fr, v));
            fputs("<title>", f);
            v10_xml_escape(f, c->series[s].name);
            fprintf(f, " @ %.6g: ", c->x[i]);
            num(f, v);
            fprintf(f, "</title></%s>\n", el);
        }
    }
#undef XMAP
}

char *v10_svg_render(const v10_svg_chart *c)
{
    if (!c->n_series || !c->series)
        return NULL;
    if (c->kind == V10_SVG_XY && !c->points)
        return NULL;
    for (size_t s = 0; c->kind == V10_SVG_XY && s < c->n_series; s++)
        if (c->points[s].n && (!c->points[s].x || !c->series[s].y))
            return NULL;
    if (c->kind != V10_SVG_XY && !c->n_x)
        return NULL;
    if (c->kind == V10_SVG_BARS && !c->cats)
        return NULL;
    if (c->kind == V10_SVG_LINES && !c->x)
        return NULL;
    for (size_t i = 0; c->kind == V10_SVG_LINES && c->log2_x && i < c->n_x; i++)
        if (!(c->x[i] > 0))
            return NULL;
    int W = c->width > 0 ? c->width : 800, H = c->height > 0 ? c->height : 400;
    size_t maxlab = 0;
    for (size_t i = 0; c->kind != V10_SVG_XY && i < c->n_x; i++) {
        const char *l = c->kind == V10_SVG_BARS ? c->cats[i] : c->x_labels ? c->x_labels[i] : "";
        size_t n = l ? strlen(l) : 0;
        maxlab = n > maxlab ? n : maxlab;
    }
    size_t maxleg = 0;
    for (size_t s = 0; s < c->n_series; s++) {
        size_t n = c->series[s].name ? strlen(c->series[s].name) : 0;
        maxleg = n > maxleg ? n : maxleg;
    }
    frame fr;
    fr.x0 = 64;
    fr.y0 = 36;
    /* The legend column (key, gap, text, margin) if it takes at most 30% of
     * the width; else one row per series above the plot. */
    double key = c->kind != V10_SVG_BARS ? 30 : 17;
    double legend_w = 14 + key + CHAR_W * (double)maxleg + 12;
    fr.legend_top = legend_w > 0.3 * W;
    fr.w = W - fr.x0 - (fr.legend_top ? 24 : legend_w);
    if (fr.legend_top)
        fr.y0 += LEGEND_ROW * (double)c->n_series + 4;
    /* x labels: level if they fit their slot, else at 35 degrees if
     * neighbours clear each other (slot x sin 35 >= the font size), else
     * vertical with a font no larger than the slot. */
    double slot = fr.w / (double)(c->n_x ? c->n_x : 1), lab_w = (double)maxlab * 6.0; /* 10 px font */
    fr.label_px = 10;
    fr.angle = lab_w <= slot * 0.95 ? 0 : slot * 0.5736 >= 11 ? 35 : 90;
    if (fr.angle == 90 && slot < 11)
        fr.label_px = fmax(6, slot * 0.9);
    double lab_len = lab_w * fr.label_px / 10;
    double bottom = fr.angle == 0 ? 44 : fr.angle == 35 ? 30 + lab_len * 0.5736 : 30 + lab_len;
    fr.h = H - fr.y0 - bottom;
    if (fr.w < 100 || fr.h < 80)
        return NULL;
    if (c->kind == V10_SVG_XY && !x_range(c, &fr))
        return NULL;
    y_range(c, &fr);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    if (c->title) {
        fprintf(f, "<text x=\"%.1f\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
                   "font-weight=\"bold\">",
                fr.x0 + fr.w / 2);
        v10_xml_escape(f, c->title);
        fputs("</text>\n", f);
    }
    axes(f, c, &fr);
    if (c->kind == V10_SVG_BARS)
        bars(f, c, &fr);
    else if (c->kind == V10_SVG_XY)
        xy(f, c, &fr);
    else
        lines(f, c, &fr);
    legend(f, c, &fr);
    x_label(f, c, &fr, H);
    fputs("</svg>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}
