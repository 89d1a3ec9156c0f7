/* canvas.h: the drawing surface every chart and report page draws on.
 *
 * Coordinates are in points (1/72 inch), origin at the top-left corner of
 * the page, y growing downwards.  Angles are in degrees, positive turns
 * clockwise on the page (so -90 reads bottom-to-top).  Colours are
 * 0xRRGGBB, opaque.
 *
 * Backends: PNG and SVG (cairo, one file per page), PDF (libharu, one
 * multi-page vector file with bookmarks), and a recording backend that
 * writes each call as a line of text (golden tests compare those lines).
 * Layout never asks the backend anything: text is measured with font.h,
 * which gives the same numbers for every backend.
 *
 *     tp_canvas *cv = tp_canvas_pdf("report.pdf", &(tp_pdf_meta){.title = "Kernels"}, &err);
 *     tp_cv_begin_page(cv, 842, 595, "Top kernels");
 *     tp_barchart_draw(cv, &chart, (tp_rect){36, 36, 770, 523});
 *     tp_cv_end_page(cv);
 *     if (tp_canvas_close(cv, &err) != 0) ...   // commits the file(s)
 */
#ifndef TP_CANVAS_H
#define TP_CANVAS_H

#include "convert/base/common.h"
#include "render/text/font.h"

typedef uint32_t tp_color; /* 0xRRGGBB */
typedef struct tp_rect {
    double x, y, w, h;
} tp_rect;
typedef enum tp_align { TP_ALIGN_LEFT = 0, TP_ALIGN_CENTER, TP_ALIGN_RIGHT } tp_align;

/* What a backend implements.  The front end (canvas.c) validates, cleans
 * text to valid UTF-8 and resolves alignment before calling these. */
typedef struct tp_canvas_ops {
    /* `title` (NULL = none) is the page's bookmark: level 0 at the top of
     * the outline, level 1 under the last level-0 one. */
    void (*begin_page)(void *impl, double w, double h, const char *title, int level);
    void (*end_page)(void *impl);
    void (*move_to)(void *impl, double x, double y);
    void (*line_to)(void *impl, double x, double y);
    void (*close_path)(void *impl);
    void (*rect)(void *impl, double x, double y, double w, double h);
    void (*fill)(void *impl, tp_color c);
    void (*stroke)(void *impl, tp_color c, double width);
    /* `s` starts at (x,y) on the baseline and runs at `angle` degrees. */
    void (*text)(void *impl, double x, double y, tp_font f, double size, double angle, tp_color c, const char *s);
    void (*clip_rect)(void *impl, double x, double y, double w, double h);
    void (*save)(void *impl);
    void (*restore)(void *impl);
    void (*translate)(void *impl, double dx, double dy);
    void (*scale)(void *impl, double sx, double sy);
    int (*close)(void *impl, tp_err *err); /* commit outputs, free impl */
    void (*abort)(void *impl);             /* remove temporaries, free impl */
    /* A clickable area (canvas coordinates, current transform applied by
     * the backend) that opens `uri` (7-bit ASCII, already escaped). */
    void (*link)(void *impl, double x, double y, double w, double h, const char *uri);
    /* A clickable area that goes to the first page whose bookmark title is
     * `title`, wherever it is in the document (NULL: not supported). */
    void (*link_page)(void *impl, double x, double y, double w, double h, const char *title);
} tp_canvas_ops;

typedef struct tp_canvas tp_canvas;
tp_canvas *tp_canvas_new(const tp_canvas_ops *ops, void *impl); /* for backends */

/* --- backends ------------------------------------------------------------ */
/* PNG: page 1 is written to `path`, page k>1 to "<stem>-k.png" (see
 * tp_canvas_page_path).  `scale` = pixels per point (2 = ~1600 px for an
 * 800 pt wide chart). */
tp_canvas *tp_canvas_png(const char *path, double scale, tp_err *err);
/* SVG: same file naming as PNG, one document per page. */
tp_canvas *tp_canvas_svg(const char *path, tp_err *err);
/* PDF: all pages in one file; each titled page gets a bookmark (two levels). */
typedef struct tp_pdf_meta {
    const char *title;   /* document title (Info dictionary) */
    const char *creator; /* default "tracepress <version>" */
    const char *subject; /* NULL: none */
} tp_pdf_meta;
/* Every PDF's Producer is "tracepress <version> (libharu <version>)"; its
 * CreationDate comes from SOURCE_DATE_EPOCH, and there is none without it. */
tp_canvas *tp_canvas_pdf(const char *path, const tp_pdf_meta *meta, tp_err *err);
/* Recording: appends one line per call to `out` (owned by the caller). */
tp_canvas *tp_canvas_rec(tp_buf *out);

/* Null: accepts every call and draws nothing (a first pass over pages);
 * with `titles`, appends a copy of each top-level page title to *titles
 * (*ntitles of them; the caller frees them and the array). */
tp_canvas *tp_canvas_null(char ***titles, size_t *ntitles);
/* File name of page `page` (1-based) for the per-page backends. */
void tp_canvas_page_path(const char *path, int page, char *buf, size_t buflen);

/* Finish: commits every output file.  0, or -1 with err filled.  Frees cv. */
int tp_canvas_close(tp_canvas *cv, tp_err *err);

/* --- drawing ------------------------------------------------------------- */
void tp_cv_begin_page(tp_canvas *cv, double w, double h, const char *title);
/* A page whose bookmark sits under the last top-level one (at the top when
 * there is none yet). */
void tp_cv_begin_subpage(tp_canvas *cv, double w, double h, const char *title);
/* Page `page` (0-based) of a section of `pages` pages: the first page gets
 * the bookmark `section`, each later one a child bookmark "<section> (k/N)"
 * under it (pages = 0, not known ahead: "<section> (page k)"), so every page
 * of the PDF has a bookmark. */
void tp_cv_begin_section_page(tp_canvas *cv, double w, double h, const char *section, size_t page, size_t pages);
/* The label above: "<section>" for a one-page section, else "<section> (k/N)"
 * or "<section> (page k)". */
void tp_cv_page_label(char *buf, size_t len, const char *section, size_t page, size_t pages);
void tp_cv_end_page(tp_canvas *cv);

void tp_cv_move_to(tp_canvas *cv, double x, double y);
void tp_cv_line_to(tp_canvas *cv, double x, double y);
void tp_cv_close_path(tp_canvas *cv);
void tp_cv_rect(tp_canvas *cv, double x, double y, double w, double h);
void tp_cv_fill(tp_canvas *cv, tp_color c);                 /* fills and clears the path */
void tp_cv_stroke(tp_canvas *cv, tp_color c, double width); /* strokes and clears the path */

/* Conveniences built from the calls above. */
void tp_cv_fill_rect(tp_canvas *cv, double x, double y, double w, double h, tp_color c);
void tp_cv_stroke_rect(tp_canvas *cv, double x, double y, double w, double h, tp_color c, double width);
void tp_cv_line(tp_canvas *cv, double x0, double y0, double x1, double y1, tp_color c, double width);

/* Text with its baseline through (x,y); `align` places (x,y) at the start,
 * middle or end of the string along its direction. */
void tp_cv_text(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, tp_align align, double angle,
                const char *s);
/* Baseline that centres a line of text of this font/size on `mid_y`. */
double tp_text_baseline_mid(tp_font f, double size, double mid_y);

/* A link: clicking the rectangle opens `uri`.  PDF: a /Link annotation
 * with a /URI action (a relative path such as "name/report/report.pdf" is
 * resolved against the PDF's own location, so a folder of outputs can be
 * moved or published as a whole); recording: a "link" line; PNG and SVG:
 * nothing (draw the visible text yourself).  Spaces, control characters,
 * quotes, backslashes, '%' not followed by two hex digits and non-ASCII
 * bytes are %-escaped. */
void tp_cv_link(tp_canvas *cv, double x, double y, double w, double h, const char *uri);
/* A link inside the document: clicking the rectangle goes to the first page
 * whose bookmark title (tp_cv_begin_page's, _subpage's or _section_page's,
 * e.g. "Timeline" or "Kernel names (2/3)") is exactly `title`; that page may
 * come later, the link is resolved when the canvas closes.  PDF: a /Link
 * annotation with a /Dest to that page (/Fit), no border; a title no page
 * has gives no link and one warning line on stderr with the count.
 * Recording: a "linkpage x y w h "title"" line.  PNG and SVG: nothing. */
void tp_cv_link_page(tp_canvas *cv, double x, double y, double w, double h, const char *title);

void tp_cv_clip_rect(tp_canvas *cv, double x, double y, double w, double h); /* until restore */
void tp_cv_save(tp_canvas *cv);
void tp_cv_restore(tp_canvas *cv);
void tp_cv_translate(tp_canvas *cv, double dx, double dy);
void tp_cv_scale(tp_canvas *cv, double sx, double sy);

#endif
