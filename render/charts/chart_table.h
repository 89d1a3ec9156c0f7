/* chart_table.h: tables that paginate.  The header row repeats on every
 * page, numeric columns are right-aligned, long text is ellipsized (end or
 * middle) or wrapped, rows alternate white and light grey.
 *
 * Column widths: every column's natural width (widest cell or header) is
 * measured once; numeric columns keep theirs, text columns share what is
 * left in proportion to their natural widths (at least 40 pt each).
 * A number is never cut: when the numeric columns do not fit, their
 * headers break over two lines, then the type shrinks (to 6 pt), then the
 * text columns give up width (names are cut, numbers are not).
 *
 *     tp_table_layout *L = tp_table_layout_new(&t, r.w, r.h);
 *     for (size_t p = 0; p < tp_table_pages(L); p++) { begin page; tp_table_draw_page(cv, &t, L, p, r); end page; } */
#ifndef TP_CHART_TABLE_H
#define TP_CHART_TABLE_H

#include "render/canvas.h"

typedef enum tp_cell_fit { TP_FIT_END = 0, TP_FIT_MIDDLE, TP_FIT_WRAP } tp_cell_fit;

typedef struct tp_table_col {
    const char *header;
    int numeric;     /* right-aligned, never cut (nor its header) */
    tp_cell_fit fit; /* for text columns */
    int mono;        /* monospaced font (kernel names, ids) */
} tp_table_col;

typedef struct tp_table {
    const char *title; /* on every page, "(continued)" after the first */
    size_t ncols;
    const tp_table_col *cols;
    size_t nrows;
    const char *const *cells; /* nrows * ncols, row-major; NULL cell = empty */
    double font_size;         /* 0: 8 pt */
    size_t max_lines;         /* wrapped cells: at most this many lines (0: 4) */
    /* Optional: nrows * ncols link targets (NULL = none; see tp_cv_link).
     * A linked cell is drawn in TP_COLOR_LINK and its text is clickable in
     * PDF output. */
    const char *const *links;
} tp_table;

typedef struct tp_table_layout tp_table_layout;
tp_table_layout *tp_table_layout_new(const tp_table *t, double w, double h);
size_t tp_table_pages(const tp_table_layout *L); /* >= 1 */
size_t tp_table_page_rows(const tp_table_layout *L, size_t page); /* rows on that page */
/* The height page `page` takes when drawn (title, header, rows, rule). */
double tp_table_page_height(const tp_table *t, const tp_table_layout *L, size_t page);
void tp_table_draw_page(tp_canvas *cv, const tp_table *t, const tp_table_layout *L, size_t page, tp_rect r);
void tp_table_layout_free(tp_table_layout *L);

#endif
