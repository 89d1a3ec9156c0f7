/* canvas_rec.c: the recording backend.  One text line per drawing call,
 * numbers rounded to 0.01 pt, so golden files show what a chart draws
 * without depending on rasterisers or font hinting. */
#include "render/canvas.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    tp_buf *out;
} rec;

/* Round to 0.01 and never print "-0.00". */
static double r2(double v)
{
    double r = round(v * 100) / 100;
    return r == 0 ? 0 : r;
}

static void quoted(tp_buf *b, const char *s)
{
    tp_buf_putc(b, '"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            tp_buf_putc(b, '\\');
        tp_buf_putc(b, *s);
    }
    tp_buf_putc(b, '"');
}

static void r_begin_page(void *p, double w, double h, const char *title, int level)
{
    rec *r = p;
    tp_buf_printf(r->out, "page %.2f %.2f ", r2(w), r2(h));
    quoted(r->out, title);
    tp_buf_puts(r->out, level && title && *title ? " sub\n" : "\n");
}
static void r_end_page(void *p) { tp_buf_puts(((rec *)p)->out, "endpage\n"); }
static void r_move_to(void *p, double x, double y) { tp_buf_printf(((rec *)p)->out, "move %.2f %.2f\n", r2(x), r2(y)); }
static void r_line_to(void *p, double x, double y) { tp_buf_printf(((rec *)p)->out, "line %.2f %.2f\n", r2(x), r2(y)); }
static void r_close_path(void *p) { tp_buf_puts(((rec *)p)->out, "close\n"); }
static void r_rect(void *p, double x, double y, double w, double h)
{
    tp_buf_printf(((rec *)p)->out, "rect %.2f %.2f %.2f %.2f\n", r2(x), r2(y), r2(w), r2(h));
}
static void r_fill(void *p, tp_color c) { tp_buf_printf(((rec *)p)->out, "fill #%06x\n", (unsigned)c); }
static void r_stroke(void *p, tp_color c, double w)
{
    tp_buf_printf(((rec *)p)->out, "stroke #%06x %.2f\n", (unsigned)c, r2(w));
}
static void r_text(void *p, double x, double y, tp_font f, double size, double angle, tp_color c, const char *s)
{
    rec *r = p;
    tp_buf_printf(r->out, "text %s %.2f %.2f %.2f %.2f #%06x ", tp_font_name(f), r2(size), r2(x), r2(y), r2(angle),
                  (unsigned)c);
    quoted(r->out, s);
    tp_buf_putc(r->out, '\n');
}
static void r_clip(void *p, double x, double y, double w, double h)
{
    tp_buf_printf(((rec *)p)->out, "clip %.2f %.2f %.2f %.2f\n", r2(x), r2(y), r2(w), r2(h));
}
static void r_save(void *p) { tp_buf_puts(((rec *)p)->out, "save\n"); }
static void r_restore(void *p) { tp_buf_puts(((rec *)p)->out, "restore\n"); }
static void r_translate(void *p, double dx, double dy)
{
    tp_buf_printf(((rec *)p)->out, "translate %.2f %.2f\n", r2(dx), r2(dy));
}
static void r_scale(void *p, double sx, double sy) { tp_buf_printf(((rec *)p)->out, "scale %.4f %.4f\n", sx, sy); }
static void r_link(void *p, double x, double y, double w, double h, const char *uri)
{
    rec *r = p;
    tp_buf_printf(r->out, "link %.2f %.2f %.2f %.2f ", r2(x), r2(y), r2(w), r2(h));
    quoted(r->out, uri);
    tp_buf_putc(r->out, '\n');
}
static void r_link_page(void *p, double x, double y, double w, double h, const char *title)
{
    rec *r = p;
    tp_buf_printf(r->out, "linkpage %.2f %.2f %.2f %.2f ", r2(x), r2(y), r2(w), r2(h));
    quoted(r->out, title);
    tp_buf_putc(r->out, '\n');
}
static int r_close(void *p, tp_err *err)
{
    (void)err;
    free(p);
    return 0;
}
static void r_abort(void *p) { free(p); }

static const tp_canvas_ops rec_ops = {r_begin_page, r_end_page, r_move_to, r_line_to, r_close_path, r_rect,
                                      r_fill,       r_stroke,   r_text,    r_clip,    r_save,       r_restore,
                                      r_translate,  r_scale,    r_close,   r_abort,      r_link,
                                      r_link_page};

tp_canvas *tp_canvas_rec(tp_buf *out)
{
    rec *r = tp_xcalloc(1, sizeof *r);
    r->out = out;
    return tp_canvas_new(&rec_ops, r);
}
