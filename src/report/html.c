/*
 * html.c — a self-contained HTML report: inline style, SVG charts embedded
 * in the page, tables rendered from v10_tab.  No scripts, no external links,
 * so the file can be mailed or archived alone (see v10/svg.h).
 */
#include <string.h>

#include "report/doc.h"
#include "util/json.h"
#include "v10/report.h"
#include "v10/svg.h"

void v10_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    v10_xml_escape(f, title);
    fputs("</title>\n<style>\n"
          "body{font-family:Helvetica,Arial,sans-serif;max-width:980px;margin:2em auto;"
          "padding:0 1em;color:#222;line-height:1.45}\n"
          "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\n"
          "figure{margin:1.2em 0}figcaption{font-size:.9em;color:#444;margin-top:.3em}\n"
          "table{border-collapse:collapse;font-size:.85em;margin:1em 0}\n"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
          "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}\n"
          "pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em}\n"
          "svg{max-width:100%;height:auto}\n"
          "</style>\n</head>\n<body>\n<h1>",
          f);
    v10_xml_escape(f, title);
    fputs("</h1>\n", f);
}

void v10_html_h2(FILE *f, const char *text)
{
    fputs("<h2>", f);
    v10_xml_escape(f, text);
    fputs("</h2>\n", f);
}

void v10_html_p(FILE *f, const char *text)
{
    fputs("<p>", f);
    v10_xml_escape(f, text);
    fputs("</p>\n", f);
}

/* ---- the Markdown of summary.md, as HTML ----------------------------------------- */

/* Escapes [s, e) and renders **bold**, *emphasis* and `code` spans. */
static void md_inline(FILE *f, const char *s, const char *e)
{
    int bold = 0, em = 0, code = 0;
    for (; s < e; s++) {
        if (!code && s + 1 < e && s[0] == '*' && s[1] == '*') {
            fputs(bold ? "</strong>" : "<strong>", f);
            bold = !bold;
            s++;
        } else if (!code && *s == '*' && (em || (s + 1 < e && s[1] != ' '))) {
            fputs(em ? "</em>" : "<em>", f);
            em = !em;
        } else if (*s == '`') {
            fputs(code ? "</code>" : "<code>", f);
            code = !code;
        } else if (*s == '&') {
            fputs("&amp;", f);
        } else if (*s == '<') {
            fputs("&lt;", f);
        } else if (*s == '>') {
            fputs("&gt;", f);
        } else {
            fputc(*s, f);
        }
    }
    if (code)
        fputs("</code>", f);
    if (em)
        fputs("</em>", f);
    if (bold)
        fputs("</strong>", f);
}

/* One table row "| a | b |": header cells when th. */
static void md_row(FILE *f, const char *s, const char *e, int th)
{
    fputs("<tr>", f);
    const char *c = s + 1; /* past the leading '|' */
    while (c < e) {
        const char *d = memchr(c, '|', (size_t)(e - c));
        if (!d)
            break;
        const char *a = c, *b = d;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        fputs(th ? "<th>" : "<td>", f);
        md_inline(f, a, b);
        fputs(th ? "</th>" : "</td>", f);
        c = d + 1;
    }
    fputs("</tr>\n", f);
}

enum { MD_NONE, MD_P, MD_UL, MD_TABLE };

static int md_close(FILE *f, int block)
{
    static const char *const end[] = {"", "</p>\n", "</li>\n</ul>\n", "</table>\n"};
    fputs(end[block], f);
    return MD_NONE;
}

void v10_html_markdown(FILE *f, const char *md)
{
    int block = MD_NONE, rows = 0;
    for (const char *s = md; *s;) {
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        const char *next = *e ? e + 1 : e;
        size_t n = (size_t)(e - s);
        if (!n) {
            block = md_close(f, block);
        } else if (*s == '#') {
            block = md_close(f, block);
            int level = 0;
            while (s[level] == '#' && level < 4)
                level++;
            const char *t = s + level;
            while (t < e && *t == ' ')
                t++;
            fprintf(f, "<h%d>", level + 1);
            md_inline(f, t, e);
            fprintf(f, "</h%d>\n", level + 1);
        } else if (*s == '|') {
            if (block != MD_TABLE) {
                block = md_close(f, block);
                fputs("<table>\n", f);
                block = MD_TABLE;
                rows = 0;
            }
            if (strspn(s, "|-: ") < n) /* not the |---|---| separator */
                md_row(f, s, e, rows++ == 0);
        } else if (n >= 2 && (*s == '*' || *s == '-') && s[1] == ' ') {
            if (block == MD_UL) {
                fputs("</li>\n", f);
            } else {
                block = md_close(f, block);
                fputs("<ul>\n", f);
                block = MD_UL;
            }
            fputs("<li>", f);
            md_inline(f, s + 2, e);
        } else {
            if (block == MD_P || block == MD_UL) {
                fputc(' ', f); /* a continued paragraph or list item */
            } else {
                block = md_close(f, block);
                fputs("<p>", f);
                block = MD_P;
            }
            md_inline(f, s, e);
        }
        s = next;
    }
    md_close(f, block);
}

void v10_html_figure(FILE *f, const char *svg, const char *caption)
{
    fputs("<figure>\n", f);
    if (svg) {
        const char *s = svg;
        if (!strncmp(s, "<?xml", 5)) {
            const char *e = strstr(s, "?>");
            s = e ? e + 2 : s;
            while (*s == '\n' || *s == '\r')
                s++;
        }
        fputs(s, f);
    }
    fputs("<figcaption>", f);
    v10_xml_escape(f, caption);
    fputs("</figcaption>\n</figure>\n", f);
}

static void cell(FILE *f, const cJSON *v, const char *tag)
{
    fprintf(f, "<%s>", tag);
    if (cJSON_IsString(v))
        v10_xml_escape(f, v->valuestring);
    else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == (double)(long long)d && d > -1e15 && d < 1e15)
            fprintf(f, "%lld", (long long)d);
        else
            fprintf(f, "%.4g", d);
    } else if (cJSON_IsNull(v) || !v)
        fputs("", f);
    else {
        char *s = cJSON_PrintUnformatted(v);
        if (s)
            v10_xml_escape(f, s);
        cJSON_free(s);
    }
    fprintf(f, "</%s>", tag);
}

int v10_html_table(FILE *f, const v10_tab *t)
{
    unsigned mark = v10_json_mark();
    cJSON *rows = v10_tab_to_json(t);
    if (!rows)
        return -1;
    fputs("<table>\n", f);
    const cJSON *first = cJSON_GetArrayItem(rows, 0);
    if (first) {
        fputs("<tr>", f);
        for (const cJSON *c = first->child; c; c = c->next) {
            fputs("<th>", f);
            v10_xml_escape(f, c->string);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
    }
    for (const cJSON *r = rows->child; r; r = r->next) {
        fputs("<tr>", f);
        for (const cJSON *c = r->child; c; c = c->next)
            cell(f, c, "td");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    cJSON_Delete(rows);
    return v10_json_failed_since(mark) ? -1 : 0; /* a cell could not be printed */
}

void v10_html_end(FILE *f)
{
    fputs("<p style=\"font-size:.8em;color:#777\">Generated by v10sim " V10_VERSION
          ". Self-contained: every chart is inline SVG.</p>\n</body>\n</html>\n",
          f);
}

/* ---- a page of figures ------------------------------------------------------------ */

typedef struct figures_page {
    const char *title, *md;
    const v10_artifact *files;
    size_t n;
} figures_page;

static int write_figures(const void *ctx, FILE *f)
{
    const figures_page *p = ctx;
    v10_html_begin(f, p->title);
    if (p->md)
        v10_html_markdown(f, p->md);
    v10_html_h2(f, "Figures");
    for (size_t i = 0; i < p->n; i++) {
        size_t l = strlen(p->files[i].name);
        if (l > 4 && !strcmp(p->files[i].name + l - 4, ".svg"))
            v10_html_figure(f, p->files[i].data, p->files[i].name);
    }
    v10_html_end(f);
    return 0;
}

char *v10_html_figures_page(const char *title, const char *md, const v10_artifact *files,
                            size_t n, size_t *len)
{
    figures_page p = {title, md, files, n};
    return v10_doc_render(write_figures, &p, len);
}
