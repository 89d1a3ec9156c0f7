/* canvas_cairo.c: PNG and SVG backends on cairo.  One file per page,
 * written through tp_out (temporary name, renamed when complete); PNG
 * pages are encoded by png_encode.c, not cairo's slower libpng path.
 *
 * Fonts are the same DejaVu TTF files that font.c measures, loaded through
 * FreeType (not fontconfig, which could pick another file), with hinting
 * and hinted metrics off so glyph advances equal the hmtx widths. */
#include "render/canvas.h"
#include "convert/io/output.h"
#include "render/backends/png_encode.h"

#include <cairo-ft.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process-wide font faces: loaded once, kept for the life of the process
 * (cairo caches scaled fonts beyond any one surface). */
static FT_Library ft_lib;
static cairo_font_face_t *faces[TP_FONT_COUNT];
static cairo_user_data_key_t face_key;

static void done_face(void *face) { FT_Done_Face((FT_Face)face); }

static void load_face(tp_font f)
{
    FT_Face face;
    if ((!ft_lib && FT_Init_FreeType(&ft_lib) != 0) || FT_New_Face(ft_lib, tp_font_path(f), 0, &face) != 0)
        return; /* cairo's default font is used; measurement still holds */
    faces[f] = cairo_ft_font_face_create_for_ft_face(face, 0);
    if (cairo_font_face_set_user_data(faces[f], &face_key, face, done_face) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(faces[f]);
        FT_Done_Face(face);
        faces[f] = NULL;
    }
}

static void load_faces(void)
{
    for (int f = 0; f < TP_FONT_COUNT; f++)
        load_face((tp_font)f);
}

/* Loaded once for all threads: a report's PNGs are drawn on two at once
 * (cairo locks a shared face while it uses it). */
static cairo_font_face_t *font_face(tp_font f)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_faces);
    return faces[f < TP_FONT_COUNT ? f : TP_FONT_REGULAR];
}

typedef struct {
    int svg;
    double scale;
    char *path;
    cairo_surface_t *surf;
    cairo_t *cr;
    tp_buf svgbuf; /* SVG bytes of the current page */
    int page;
    tp_err err; /* first failure, reported by close */
} cr_impl;

static cairo_status_t to_buf(void *closure, const unsigned char *data, unsigned int len)
{
    tp_buf_put(closure, data, len);
    return CAIRO_STATUS_SUCCESS;
}

static void c_begin_page(void *p, double w, double h, const char *title, int level)
{
    (void)title, (void)level;
    cr_impl *c = p;
    c->page++;
    if (c->svg) {
        c->svgbuf.len = 0;
        c->surf = cairo_svg_surface_create_for_stream(to_buf, &c->svgbuf, w, h);
    } else {
        int pw = (int)ceil(w * c->scale), ph = (int)ceil(h * c->scale);
        c->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
    }
    c->cr = cairo_create(c->surf);
    if (!c->svg)
        cairo_scale(c->cr, c->scale, c->scale);
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_set_font_options(c->cr, fo);
    cairo_font_options_destroy(fo);
}

static void write_page(cr_impl *c, const void *data, size_t len)
{
    char path[4096];
    tp_canvas_page_path(c->path, c->page, path, sizeof path);
    tp_err e = {0};
    tp_out *o = tp_out_open(path, NULL, &e);
    if (o) {
        tp_out_write(o, data, len);
        tp_out_commit(o, &e);
    }
    if (e.set && !c->err.set)
        c->err = e;
}

/* cairo numbers SVG surfaces ("surface16") with a process-wide counter,
 * so the same drawing would differ with what was drawn before it.
 * Renumber them 1, 2, ... in order of first appearance. */
static void renumber_surfaces(tp_buf *b)
{
    static const char key[] = "surface";
    tp_buf out = {0};
    unsigned long seen[64];
    size_t nseen = 0, i = 0;
    while (i < b->len) {
        if (b->len - i > sizeof key && memcmp(b->data + i, key, sizeof key - 1) == 0 &&
            b->data[i + sizeof key - 1] >= '0' && b->data[i + sizeof key - 1] <= '9') {
            size_t j = i + sizeof key - 1;
            unsigned long v = 0;
            while (j < b->len && b->data[j] >= '0' && b->data[j] <= '9' && v < 100000000)
                v = v * 10 + (unsigned long)(b->data[j++] - '0');
            size_t k = 0;
            while (k < nseen && seen[k] != v)
                k++;
            if (k == nseen && nseen < 64)
                seen[nseen++] = v;
            tp_buf_printf(&out, "%s%zu", key, k + 1);
            i = j;
            continue;
        }
        tp_buf_putc(&out, b->data[i++]);
    }
    tp_buf_free(b);
    *b = out;
}

static void c_end_page(void *p)
{
    cr_impl *c = p;
    cairo_status_t st = cairo_status(c->cr);
    cairo_destroy(c->cr);
    c->cr = NULL;
    if (c->svg) {
        cairo_surface_finish(c->surf);
    } else {
        c->svgbuf.len = 0;
        cairo_surface_flush(c->surf);
        /* cropped to what was drawn and a margin of 8 pt: no chart is an image mostly empty */
        const unsigned char *px = cairo_image_surface_get_data(c->surf);
        int stride = cairo_image_surface_get_stride(c->surf), x, y, w, h;
        if (st == CAIRO_STATUS_SUCCESS) {
            tp_png_content_box(px, cairo_image_surface_get_width(c->surf), cairo_image_surface_get_height(c->surf),
                               stride, 0xFFFFFF, (int)lround(8 * c->scale), &x, &y, &w, &h);
            if (tp_png_encode_rgb24(px + (size_t)y * (size_t)stride + (size_t)x * 4, w, h, stride, &c->svgbuf) != 0)
                st = CAIRO_STATUS_NO_MEMORY;
        }
    }
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(c->surf);
    cairo_surface_destroy(c->surf);
    c->surf = NULL;
    if (st != CAIRO_STATUS_SUCCESS) {
        if (!c->err.set)
            tp_fail_at(&c->err, "", "page %d: cairo: %s", c->page, cairo_status_to_string(st));
        return;
    }
    if (c->svg)
        renumber_surfaces(&c->svgbuf);
    write_page(c, c->svgbuf.data, c->svgbuf.len);
}

static void c_move_to(void *p, double x, double y) { cairo_move_to(((cr_impl *)p)->cr, x, y); }
static void c_line_to(void *p, double x, double y) { cairo_line_to(((cr_impl *)p)->cr, x, y); }
static void c_close_path(void *p) { cairo_close_path(((cr_impl *)p)->cr); }
static void c_rect(void *p, double x, double y, double w, double h) { cairo_rectangle(((cr_impl *)p)->cr, x, y, w, h); }

static void set_color(cairo_t *cr, tp_color c)
{
    cairo_set_source_rgb(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0, (c & 255) / 255.0);
}
static void c_fill(void *p, tp_color col)
{
    cairo_t *cr = ((cr_impl *)p)->cr;
    set_color(cr, col);
    cairo_fill(cr);
}
static void c_stroke(void *p, tp_color col, double w)
{
    cairo_t *cr = ((cr_impl *)p)->cr;
    set_color(cr, col);
    cairo_set_line_width(cr, w);
    cairo_stroke(cr);
}
static void c_text(void *p, double x, double y, tp_font f, double size, double angle, tp_color col, const char *s)
{
    cairo_t *cr = ((cr_impl *)p)->cr;
    cairo_save(cr);
    cairo_font_face_t *ff = font_face(f);
    if (ff)
        cairo_set_font_face(cr, ff);
    cairo_set_font_size(cr, size);
    set_color(cr, col);
    cairo_translate(cr, x, y);
    if (angle != 0)
        cairo_rotate(cr, angle * M_PI / 180.0);
    cairo_move_to(cr, 0, 0);
    cairo_show_text(cr, s);
    cairo_new_path(cr);
    cairo_restore(cr);
}
static void c_clip(void *p, double x, double y, double w, double h)
{
    cairo_t *cr = ((cr_impl *)p)->cr;
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
}
static void c_save(void *p) { cairo_save(((cr_impl *)p)->cr); }
static void c_restore(void *p) { cairo_restore(((cr_impl *)p)->cr); }
static void c_translate(void *p, double dx, double dy) { cairo_translate(((cr_impl *)p)->cr, dx, dy); }
static void c_scale(void *p, double sx, double sy) { cairo_scale(((cr_impl *)p)->cr, sx, sy); }

static void c_free(cr_impl *c)
{
    if (c->cr)
        cairo_destroy(c->cr);
    if (c->surf)
        cairo_surface_destroy(c->surf);
    tp_buf_free(&c->svgbuf);
    free(c->path);
    free(c);
}
static int c_close(void *p, tp_err *err)
{
    cr_impl *c = p;
    int rc = 0;
    if (c->err.set) {
        if (err)
            *err = c->err;
        rc = -1;
    } else if (c->page == 0) {
        rc = tp_fail_at(err, "", "%s: nothing was drawn (no pages)", c->path);
    }
    c_free(c);
    return rc;
}
static void c_abort(void *p) { c_free(p); }
/* Images have no clickable areas: the visible link text is all there is. */
static void c_link(void *p, double x, double y, double w, double h, const char *uri) {}

static const tp_canvas_ops cairo_ops = {c_begin_page, c_end_page, c_move_to, c_line_to, c_close_path, c_rect,
                                        c_fill,       c_stroke,   c_text,    c_clip,    c_save,       c_restore,
                                        c_translate,  c_scale,    c_close,   c_abort,      c_link,
                                        NULL /* no pages to link to: one file per page */};

static tp_canvas *open_cairo(const char *path, int svg, double scale, tp_err *err)
{
    if (!path || !*path) {
        tp_fail_at(err, "", "no output file name");
        return NULL;
    }
    cr_impl *c = tp_xcalloc(1, sizeof *c);
    c->svg = svg;
    c->scale = scale > 0 && scale <= 16 ? scale : 2;
    c->path = tp_xstrdup(path);
    return tp_canvas_new(&cairo_ops, c);
}

tp_canvas *tp_canvas_png(const char *path, double scale, tp_err *err) { return open_cairo(path, 0, scale, err); }
tp_canvas *tp_canvas_svg(const char *path, tp_err *err) { return open_cairo(path, 1, 1, err); }
