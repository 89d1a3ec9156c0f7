/* chart_grid.h: the dominating-op breakdown grid (KINETO.md 2.4).
 *
 * Each op has one or more kernel mixes (the kernels one call of the op
 * ran, by category); each distinct mix is a stacked bar of family shares
 * as high as its time is of the chart's longest mix (issue 36 item 2: a
 * 4 us mix beside a 9.66 ms replay is a sliver), its segments named
 * "family NN%" when the bar is wide enough (ops with at most 4 mixes get
 * wide bars), else "NN%", the op's bars sit together in a bordered box titled with the op
 * name, and a legend names the families.  Boxes flow left to right and
 * wrap, so the grid's shape follows the data (an op with many mixes gets
 * a wide box); what does not fit on a page goes to the next page.  An op
 * with more mixes than fit in one row is split into boxes "op (1/2)"; an
 * op whose mixes were cut by the caller says so: "op (8 of 19 mixes)".
 * A mix with a label (its top kernel's short name) has it written up the
 * bar's column, above the bar: the tallest bar leaves a band for it, so
 * every bar is named, in its own column (never over another label), at
 * 6.5 pt, labels fitted apart (different labels stay different), " +N"
 * when the mix ran N more kernels and it fits.
 *
 * Usage: layout once for the page's drawing rectangle size, then draw
 * each page:
 *     tp_grid_layout *L = tp_grid_layout_new(&g, r.w, r.h);
 *     for (size_t p = 0; p < tp_grid_pages(L); p++) {
 *         tp_cv_begin_section_page(cv, W, H, "Dominating ops", p, tp_grid_pages(L));
 *         tp_grid_draw_page(cv, &g, L, p, r);
 *         tp_cv_end_page(cv);
 *     }
 *     tp_grid_layout_free(L); */
#ifndef TP_CHART_GRID_H
#define TP_CHART_GRID_H

#include "render/canvas.h"

typedef struct tp_mix_part {
    const char *family; /* the kernels' category (report/analysis/classify.h) or any short name */
    int64_t ns;         /* time of that family in this mix */
    tp_color color;     /* its colour; 0: tp_palette_key(family) */
} tp_mix_part;

typedef struct tp_kernel_mix {
    const tp_mix_part *parts;
    size_t nparts;
    const char *label; /* the bar's name (its top kernel, shortened); NULL: none */
    size_t more;       /* kernels of the mix besides the named one: " +N" */
} tp_kernel_mix;

typedef struct tp_op_breakdown {
    const char *op;
    const tp_kernel_mix *mixes;
    size_t nmixes;
    /* the op's mixes when only the first nmixes are drawn: its box title
     * then says "op (8 of 19 mixes)"; 0 (or <= nmixes): all drawn */
    size_t total_mixes;
} tp_op_breakdown;

typedef struct tp_grid_chart {
    const char *title; /* on every page; NULL for none */
    const tp_op_breakdown *ops;
    size_t nops;
} tp_grid_chart;

typedef struct tp_grid_layout tp_grid_layout;
tp_grid_layout *tp_grid_layout_new(const tp_grid_chart *g, double w, double h);
size_t tp_grid_pages(const tp_grid_layout *L); /* >= 1 ("no data" page) */
void tp_grid_draw_page(tp_canvas *cv, const tp_grid_chart *g, const tp_grid_layout *L, size_t page, tp_rect r);
void tp_grid_layout_free(tp_grid_layout *L);

#endif
