/* canvas.c: the backend-independent front end: checks call order, cleans
 * text, resolves alignment, then forwards to the backend. */
#include "render/canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_canvas {
    const tp_canvas_ops *ops;
    void *impl;
    int pages;
    int in_page;
    int depth; /* save/restore nesting inside the page */
};

tp_canvas *tp_canvas_new(const tp_canvas_ops *ops, void *impl)
{
    tp_canvas *cv = tp_xcalloc(1, sizeof *cv);
    cv->ops = ops;
    cv->impl = impl;
    return cv;
}

/* The null backend: every call accepted, nothing drawn (a first pass over
 * the report's pages that only wants to know what they would say), the
 * top-level pages' titles kept when asked for. */
typedef struct nul_impl {
    char ***titles;
    size_t *n;
} nul_impl;
static void nul_page(void *i, double w, double h, const char *t, int l)
{
    (void)w, (void)h;
    nul_impl *z = i;
    if (z->titles && t && l == 0) {
        *z->titles = tp_xrealloc(*z->titles, (*z->n + 1) * sizeof **z->titles);
        (*z->titles)[(*z->n)++] = tp_xstrdup(t);
    }
}
static void nul_v(void *i) { (void)i; }
static void nul_xy(void *i, double x, double y) { (void)i, (void)x, (void)y; }
static void nul_rect(void *i, double x, double y, double w, double h) { (void)i, (void)x, (void)y, (void)w, (void)h; }
static void nul_fill(void *i, tp_color c) { (void)i, (void)c; }
static void nul_stroke(void *i, tp_color c, double w) { (void)i, (void)c, (void)w; }
static void nul_text(void *i, double x, double y, tp_font f, double z, double a, tp_color c, const char *s)
{
    (void)i, (void)x, (void)y, (void)f, (void)z, (void)a, (void)c, (void)s;
}
static int nul_close(void *i, tp_err *e)
{
    (void)e;
    free(i);
    return 0;
}
static void nul_abort(void *i) { free(i); }
static void nul_link(void *i, double x, double y, double w, double h, const char *u)
{
    (void)i, (void)x, (void)y, (void)w, (void)h, (void)u;
}
static const tp_canvas_ops null_ops = {nul_page, nul_v,    nul_xy, nul_xy, nul_v,     nul_rect,  nul_fill,
                                       nul_stroke, nul_text, nul_rect, nul_v, nul_v,   nul_xy,    nul_xy,
                                       nul_close, nul_abort, nul_link, nul_link};

tp_canvas *tp_canvas_null(char ***titles, size_t *ntitles)
{
    nul_impl *z = tp_xcalloc(1, sizeof *z);
    z->titles = titles;
    z->n = ntitles;
    return tp_canvas_new(&null_ops, z);
}

void tp_canvas_page_path(const char *path, int page, char *buf, size_t buflen)
{
    if (page <= 1) {
        snprintf(buf, buflen, "%s", path);
        return;
    }
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        snprintf(buf, buflen, "%s-%d", path, page);
    else
        snprintf(buf, buflen, "%.*s-%d%s", (int)(dot - path), path, page, dot);
}

int tp_canvas_close(tp_canvas *cv, tp_err *err)
{
    if (cv->in_page)
        tp_cv_end_page(cv);
    int rc = cv->ops->close(cv->impl, err);
    free(cv);
    return rc;
}

static void begin_page(tp_canvas *cv, double w, double h, const char *title, int level)
{
    if (cv->in_page)
        tp_cv_end_page(cv);
    if (!(w >= 1) || !(h >= 1)) /* also catches NaN */
        w = 1, h = 1;
    cv->in_page = 1;
    cv->depth = 0;
    cv->pages++;
    cv->ops->begin_page(cv->impl, w, h, title, level);
}

void tp_cv_begin_page(tp_canvas *cv, double w, double h, const char *title) { begin_page(cv, w, h, title, 0); }
void tp_cv_begin_subpage(tp_canvas *cv, double w, double h, const char *title) { begin_page(cv, w, h, title, 1); }

void tp_cv_page_label(char *buf, size_t len, const char *section, size_t page, size_t pages)
{
    if (pages == 1)
        snprintf(buf, len, "%s", section ? section : "");
    else if (pages)
        snprintf(buf, len, "%s (%zu/%zu)", section ? section : "", page + 1, pages);
    else
        snprintf(buf, len, "%s (page %zu)", section ? section : "", page + 1);
}

void tp_cv_begin_section_page(tp_canvas *cv, double w, double h, const char *section, size_t page, size_t pages)
{
    if (page == 0) {
        begin_page(cv, w, h, section, 0);
        return;
    }
    char t[400];
    tp_cv_page_label(t, sizeof t, section, page, pages);
    begin_page(cv, w, h, t, 1);
}

void tp_cv_end_page(tp_canvas *cv)
{
    if (!cv->in_page)
        return;
    while (cv->depth > 0) /* unbalanced saves would leak into the next page */
        tp_cv_restore(cv);
    cv->ops->end_page(cv->impl);
    cv->in_page = 0;
}

/* Drawing outside a page is a programming error; ignore it rather than
 * crash a nightly job. */
#define NEED_PAGE(cv)                                                                                                  \
    do {                                                                                                               \
        if (!(cv)->in_page)                                                                                            \
            return;                                                                                                    \
    } while (0)

/* Non-finite coordinates would poison a PDF; clamp them to 0. */
static double fin(double v) { return isfinite(v) ? v : 0; }

void tp_cv_move_to(tp_canvas *cv, double x, double y)
{
    NEED_PAGE(cv);
    cv->ops->move_to(cv->impl, fin(x), fin(y));
}
void tp_cv_line_to(tp_canvas *cv, double x, double y)
{
    NEED_PAGE(cv);
    cv->ops->line_to(cv->impl, fin(x), fin(y));
}
void tp_cv_close_path(tp_canvas *cv)
{
    NEED_PAGE(cv);
    cv->ops->close_path(cv->impl);
}
void tp_cv_rect(tp_canvas *cv, double x, double y, double w, double h)
{
    NEED_PAGE(cv);
    cv->ops->rect(cv->impl, fin(x), fin(y), fin(w), fin(h));
}
void tp_cv_fill(tp_canvas *cv, tp_color c)
{
    NEED_PAGE(cv);
    cv->ops->fill(cv->impl, c & 0xFFFFFF);
}
void tp_cv_stroke(tp_canvas *cv, tp_color c, double width)
{
    NEED_PAGE(cv);
    cv->ops->stroke(cv->impl, c & 0xFFFFFF, width > 0 && isfinite(width) ? width : 1);
}

void tp_cv_fill_rect(tp_canvas *cv, double x, double y, double w, double h, tp_color c)
{
    tp_cv_rect(cv, x, y, w, h);
    tp_cv_fill(cv, c);
}
void tp_cv_stroke_rect(tp_canvas *cv, double x, double y, double w, double h, tp_color c, double width)
{
    tp_cv_rect(cv, x, y, w, h);
    tp_cv_stroke(cv, c, width);
}
void tp_cv_line(tp_canvas *cv, double x0, double y0, double x1, double y1, tp_color c, double width)
{
    tp_cv_move_to(cv, x0, y0);
    tp_cv_line_to(cv, x1, y1);
    tp_cv_stroke(cv, c, width);
}

/* Valid UTF-8 with control characters as spaces: cairo refuses invalid
 * UTF-8 (and then stops drawing altogether), libharu would emit garbage. */
static char *clean_text(const char *s, size_t n)
{
    tp_buf b = {0};
    size_t i = 0;
    while (i < n) {
        uint32_t c = tp_utf8_next(s, n, &i);
        if (c < 0x20 || c == 0x7F)
            c = ' ';
        else if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
            c = 0xFFFD;
        /* re-encode: also turns overlong forms into the shortest one */
        char e[4];
        size_t k;
        if (c < 0x80)
            e[0] = (char)c, k = 1;
        else if (c < 0x800)
            e[0] = (char)(0xC0 | c >> 6), e[1] = (char)(0x80 | (c & 0x3F)), k = 2;
        else if (c < 0x10000)
            e[0] = (char)(0xE0 | c >> 12), e[1] = (char)(0x80 | (c >> 6 & 0x3F)), e[2] = (char)(0x80 | (c & 0x3F)),
            k = 3;
        else
            e[0] = (char)(0xF0 | c >> 18), e[1] = (char)(0x80 | (c >> 12 & 0x3F)),
            e[2] = (char)(0x80 | (c >> 6 & 0x3F)), e[3] = (char)(0x80 | (c & 0x3F)), k = 4;
        tp_buf_put(&b, e, k);
    }
    tp_buf_putc(&b, 0);
    return b.data;
}

void tp_cv_text(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, tp_align align, double angle,
                const char *s)
{
    NEED_PAGE(cv);
    if (!s || !*s || !(size > 0) || !isfinite(angle))
        return;
    char *t = clean_text(s, strlen(s));
    if (align != TP_ALIGN_LEFT) {
        double w = tp_text_width(f, size, t) * (align == TP_ALIGN_CENTER ? 0.5 : 1.0);
        double r = angle * M_PI / 180.0;
        x -= w * cos(r);
        y -= w * sin(r);
    }
    cv->ops->text(cv->impl, fin(x), fin(y), f, size, angle, c & 0xFFFFFF, t);
    free(t);
}

double tp_text_baseline_mid(tp_font f, double size, double mid_y)
{
    return mid_y + (tp_font_ascent(f, size) - tp_font_descent(f, size)) / 2;
}

static int hexdig(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

void tp_cv_link(tp_canvas *cv, double x, double y, double w, double h, const char *uri)
{
    NEED_PAGE(cv);
    if (!uri || !*uri || !(w > 0) || !(h > 0) || !isfinite(w) || !isfinite(h) || !cv->ops->link)
        return;
    tp_buf b = {0};
    for (const unsigned char *s = (const unsigned char *)uri; *s; s++) {
        if (*s <= 0x20 || *s >= 0x7F || *s == '"' || *s == '\\' || (*s == '%' && !(hexdig((char)s[1]) && hexdig((char)s[2]))))
            tp_buf_printf(&b, "%%%02X", *s);
        else
            tp_buf_putc(&b, (char)*s);
    }
    tp_buf_putc(&b, 0);
    cv->ops->link(cv->impl, fin(x), fin(y), w, h, b.data);
    tp_buf_free(&b);
}

void tp_cv_link_page(tp_canvas *cv, double x, double y, double w, double h, const char *title)
{
    NEED_PAGE(cv);
    if (!title || !*title || !(w > 0) || !(h > 0) || !isfinite(w) || !isfinite(h) || !cv->ops->link_page)
        return;
    cv->ops->link_page(cv->impl, fin(x), fin(y), w, h, title);
}

void tp_cv_clip_rect(tp_canvas *cv, double x, double y, double w, double h)
{
    NEED_PAGE(cv);
    cv->ops->clip_rect(cv->impl, fin(x), fin(y), fin(w), fin(h));
}
void tp_cv_save(tp_canvas *cv)
{
    NEED_PAGE(cv);
    cv->depth++;
    cv->ops->save(cv->impl);
}
void tp_cv_restore(tp_canvas *cv)
{
    NEED_PAGE(cv);
    if (cv->depth == 0)
        return;
    cv->depth--;
    cv->ops->restore(cv->impl);
}
void tp_cv_translate(tp_canvas *cv, double dx, double dy)
{
    NEED_PAGE(cv);
    cv->ops->translate(cv->impl, fin(dx), fin(dy));
}
void tp_cv_scale(tp_canvas *cv, double sx, double sy)
{
    NEED_PAGE(cv);
    if (!(sx != 0 && isfinite(sx) && sy != 0 && isfinite(sy)))
        return;
    cv->ops->scale(cv->impl, sx, sy);
}
