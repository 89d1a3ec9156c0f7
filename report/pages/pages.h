/* pages.h: the report's PDF pages and PNG charts (report/page_*.c). */
#ifndef TP_PAGES_H
#define TP_PAGES_H

#include "render/canvas.h"
#include "report/analysis/summary.h"

typedef struct tp_page_opts {
    double page_w, page_h; /* portrait size in points (A4 595x842, Letter 612x792) */
    double png_scale;      /* pixels per point for PNG charts (2 by default, --scale) */
} tp_page_opts;

/* Write DIR/report.pdf and DIR/png/<chart>.png.  *png_names receives the
 * chart file names relative to DIR ("png/kernels_total.png"), a
 * NULL-terminated malloc'ed array of static strings.  0 or -1 with err. */
int tp_report_pages(const tp_summary *s, const char *dir, const tp_page_opts *o, const char ***png_names,
                    tp_err *err);

/* Draw every PDF page on any canvas (the recording backend in golden tests). */
void tp_report_draw(tp_canvas *cv, const tp_summary *s, const tp_page_opts *o);

#endif
