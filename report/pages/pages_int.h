/* pages_int.h: what the report's page files share (not used outside report/). */
#ifndef TP_PAGES_INT_H
#define TP_PAGES_INT_H

#include "render/canvas.h"
#include "report/pages/pages.h"

#define TP_PAGE_MARGIN 36.0
#define TP_TABLE_MAX_ROWS 200 /* longer tables stop here, with a note (summary.json has them all) */
#define TP_CHART_TOP 80       /* bars in the top-kernel charts */
#define TP_GRID_MAX_OPS 12    /* ops in the breakdown grid */
#define TP_GRID_MAX_MIXES 8   /* mixes per op in the grid */
#define TP_PNG_W 800.0        /* PNG chart pages in points (x2 px at the default scale) */
#define TP_PNG_H 480.0

typedef struct tp_pagectx {
    const tp_summary *s;
    double pw, ph; /* portrait page */
    double lw, lh; /* landscape page */
    char **knames; /* short names of the first nknames kernel table rows */
    size_t nknames;
} tp_pagectx;

/* A list of strings owned together (table cells). */
typedef struct tp_strs {
    char **v;
    size_t n, cap;
} tp_strs;
const char *tp_strs_add(tp_strs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tp_strs_us(tp_strs *s, int64_t ns); /* "1234.567" (us, exact) */
void tp_strs_free(tp_strs *s);

/* Draw a table whose rows all fit on one page region (extra rows are cut). */
double tp_draw_small_table(tp_canvas *cv, const char *title, const void *cols, size_t ncols, const char **cells,
                           size_t nrows, tp_rect r);
/* A line of text; returns the y below it. */
double tp_page_line(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, const char *s);

void tp_page_summary(tp_canvas *cv, const tp_pagectx *pc);
void tp_chart_kernels(tp_canvas *cv, const tp_pagectx *pc, int by_mean, tp_rect r);
void tp_pages_kernel_table(tp_canvas *cv, const tp_pagectx *pc);
size_t tp_pages_breakdown(tp_canvas *cv, const tp_pagectx *pc, double w, double h); /* returns pages */
/* The same grid for another breakdown (format pages): `what` names its keys
 * ("TF ops"): title "Dominating <what>: ...", bookmark "Dominating <what>". */
size_t tp_pages_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what,
                             double w, double h);
/* The same in r as one picture (a PNG chart): the top ops that fit on one page. */
void tp_chart_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what, tp_rect r);
void tp_chart_timeline(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_chart_steps(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_pages_steps(tp_canvas *cv, const tp_pagectx *pc);
void tp_pages_overheads(tp_canvas *cv, const tp_pagectx *pc);

#endif
