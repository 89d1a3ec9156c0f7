/* chart_heatmap.h: a grid of cells coloured by a signed relative deviation
 * (the job report's rank x step heatmap: each cell's time against the
 * median of its column).
 *
 * Colours: a diverging scale, white at 0, blue below and vermillion above
 * (the Okabe-Ito pair the diverging bar chart uses: apart for the common
 * colour-vision deficiencies), full at +-limit and clamped beyond; a cell
 * with no value is light grey.  A marked cell is outlined in black and, when
 * the cell is big enough, carries the letters of its marks ("CS"), so the
 * colour is never the only cue.  A legend (the scale, "no value", the
 * outline) sits under the title.
 *
 * Rows and columns that would be thinner than TP_HEATMAP_MIN_CELL are
 * aggregated: groups of k consecutive rows (columns) become one cell row
 * (column) showing the value of the largest |deviation| among its members,
 * marked when any member is, labelled "first-last"; a note under the grid
 * says so.  Row and column labels are thinned (every k-th) so that they never
 * touch.  1 x 1 to thousands x thousands draw. */
#ifndef TP_CHART_HEATMAP_H
#define TP_CHART_HEATMAP_H

#include "render/canvas.h"

#define TP_HEATMAP_MIN_CELL 4.0 /* points: thinner rows or columns are aggregated */
#define TP_HEATMAP_NEG 0x0072B2 /* Okabe-Ito blue: below the median */
#define TP_HEATMAP_POS 0xD55E00 /* Okabe-Ito vermillion: above */
#define TP_HEATMAP_MISSING 0xDDDDDD

typedef struct tp_heatmap {
    const char *title;                 /* bold line at the top; NULL for none */
    const char *value_label;           /* the legend's caption ("step time vs the step's median") */
    const char *row_title, *col_title; /* axis titles ("rank", "step"); NULL for none */
    const char *row_noun, *col_noun;   /* plurals for the aggregation note ("ranks", "steps") */
    size_t nrows, ncols;
    const char *const *row_labels;     /* nrows short labels ("12") */
    const char *const *col_labels;     /* ncols */
    const double *values;              /* nrows x ncols, row-major: fractions (0.1 = +10%); NAN = no value */
    const uint32_t *marks;             /* optional nrows x ncols bit sets; 0 = not marked */
    const char *mark_letters;          /* optional: the letter of bit i ("CSA"), printed in big cells */
    const char *mark_label;            /* the legend's text for an outlined cell (NULL: "marked") */
    double limit;                      /* |value| at full colour; 0: the smallest of 2, 5, 10, 20, 50,
                                        * 100% that holds the data */
    double font_size;                  /* 0: 7.5 pt (title 10).  Else every text at this size (title
                                        * 1.25x), for images shown scaled down. */
    /* Optional, for grids too big to hold as values (a job's ranks x steps
     * with most cells empty): in place of values and marks, the value of
     * largest |v| over rows [r0, r1) x columns [c0, c1) (NAN when none), the
     * OR of their marks in *marks, and in *missing whether a cell there has
     * no value. */
    double (*range)(const void *ctx, size_t r0, size_t r1, size_t c0, size_t c1, uint32_t *marks, bool *missing);
    const void *range_ctx;
} tp_heatmap;

/* The colour of value v on a scale of +-limit (NAN: the missing grey). */
tp_color tp_heatmap_color(double v, double limit);
/* The limit the chart uses (h->limit, or the one chosen from the data). */
double tp_heatmap_limit(const tp_heatmap *h);
/* What drawing in r would give: the group sizes (1 = not aggregated) and
 * the cells' size, so a caller can choose between layouts. */
typedef struct tp_heatmap_fit {
    size_t row_group, col_group;
    double cell_w, cell_h;
} tp_heatmap_fit;
tp_heatmap_fit tp_heatmap_measure(const tp_heatmap *h, tp_rect r);
void tp_heatmap_draw(tp_canvas *cv, const tp_heatmap *h, tp_rect r);

#endif
