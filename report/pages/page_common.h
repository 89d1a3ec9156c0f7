/* page_common.h: what every page of a report is drawn with: the page
 * context, sizes, and small drawing helpers (the common pages, the format
 * pages and the report's page table all use them). */
#ifndef TP_PAGE_COMMON_H
#define TP_PAGE_COMMON_H

#include "render/canvas.h"
#include "report/analysis/summary.h"
#include "render/charts/chart_table.h"
#include "render/text/report_text.h"

#define TP_PAGE_MARGIN 36.0
#define TP_TABLE_MAX_ROWS 200 /* longer tables stop here, with a note (summary.json has them all) */
#define TP_CHART_TOP 80       /* bars in the top-kernel charts */
#define TP_KERNEL_CHART_MIN 3 /* kernels a trace needs for the top-kernel charts */
#define TP_GRID_MAX_OPS 12    /* ops in the breakdown grid */
#define TP_GRID_MAX_MIXES 8   /* mixes per op in the grid */

typedef struct tp_page_opts {
    double page_w, page_h; /* portrait size in points (A4 595x842, Letter 612x792) */
    double png_scale;      /* pixels per point for PNG charts (2 by default, --scale) */
} tp_page_opts;

#define TP_PAGE_MAX_NOTES 24
/* What the report leaves out, one line each, said on the overview instead of
 * a page that would hold only "no data" or "not applicable" (page economy).
 * Filled by a first pass over the pages on a null canvas (tp_pages_plan),
 * before the overview is drawn, and frozen after it: the PDF and PNG passes
 * that follow only read it. */
typedef struct tp_page_notes {
    tp_strs text;
    const char *lines[TP_PAGE_MAX_NOTES];
    size_t n, dropped;
    bool frozen;
    char **pages; /* the top-level page titles after the overview, in order (the overview's links) */
    size_t npages;
    struct tp_tl_cache *timeline; /* the timeline chart's rows and bars, built once (page_timeline.c); NULL: each
                                   * drawing builds its own */
} tp_page_notes;
typedef struct tp_tl_cache tp_tl_cache;
tp_tl_cache *tp_timeline_cache_new(void);
void tp_timeline_cache_free(tp_tl_cache *c);
typedef struct tp_pagectx {
    const tp_summary *s;
    double pw, ph; /* portrait page */
    double lw, lh; /* landscape page */
    char **knames; /* short names of all kernel table rows (s->kt.n; kname.h) */
    size_t nknames; /* rows the kernel table pages show */
    tp_page_notes *notes; /* owned */
    tp_color *cat_colors; /* each category's colour, by index into s->rules->names (tp_category_colors) */
} tp_pagectx;

/* The context for s's pages (its kernel names shortened once); free with tp_pagectx_free. */
void tp_pagectx_init(tp_pagectx *pc, const tp_summary *s, const tp_page_opts *o);
void tp_pagectx_free(tp_pagectx *pc);

/* Draw a table whose rows all fit on one page region (extra rows are cut). */
double tp_draw_small_table(tp_canvas *cv, const char *title, const void *cols, size_t ncols, const char **cells,
                           size_t nrows, tp_rect r);
/* The parts of a window's time in the GPU time model's split, in bar order
 * (the overview, "Where the GPU time goes", the job report): host only is
 * the window's time outside its GPU span. */
enum { TP_SPLIT_COMP, TP_SPLIT_XCOMM, TP_SPLIT_XMEMCPY, TP_SPLIT_IDLE, TP_SPLIT_HOST, TP_SPLIT_PARTS };
tp_color tp_split_color(int part);
/* Each category's colour, by index into r->names: a built-in category its
 * fixed slot (palette.h), a user's own categories the free slots in the
 * order of their rule file, then a hash; malloc'ed.  The one mapping every
 * chart, legend and table of a report colours categories with. */
tp_color *tp_category_colors(const tp_cat_rules *r);
/* An activity name's category (classify.h tp_class_of_name) and its colour. */
const char *tp_name_category(const tp_pagectx *pc, tp_str name);
tp_color tp_name_color(const tp_pagectx *pc, tp_str name);
/* Where a chart page's chart goes: the landscape page less its margins.  A
 * chart's PNG is drawn on the same page in the same place as its PDF page
 * (then cropped), so the two show the same content. */
static inline tp_rect tp_chart_rect(const tp_pagectx *pc)
{
    return (tp_rect){TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc->lw - 2 * TP_PAGE_MARGIN, pc->lh - 2 * TP_PAGE_MARGIN};
}
/* Whether the first pass drew a top-level page of this title. */
bool tp_page_drawn(const tp_pagectx *pc, const char *title);
/* A page left out: "<what>: <why>" joins the overview's list (one line per
 * `what`; nothing once the notes are frozen). */
void tp_page_note(const tp_pagectx *pc, const char *what, const char *why);
/* Table t in r, one page at most: when its rows need more, the first page's
 * rows and, under them, a line saying how many there are and that `where`
 * (a file and its key: "diff.json \"kernels\"") has them all.  Returns the
 * y below. */
double tp_page_table_top(tp_canvas *cv, const tp_table *t, tp_rect r, const char *where);
/* s wrapped to w over at most max_lines lines (the last one cut with "…");
 * returns the y below.  With cv NULL, only measured. */
double tp_page_para(tp_canvas *cv, double x, double y, double w, tp_font f, double size, tp_color c, const char *s,
                    size_t max_lines);
/* A line of text; returns the y below it. */
double tp_page_line(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, const char *s);

#endif
