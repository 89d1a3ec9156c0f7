/* chart_bar.h: vertical bar chart of durations, for up to ~80 categories
 * ("top 80 kernels by total time"), with optional error bars.
 *
 * Everything is laid out inside the rectangle given: title, value axis
 * with nice ticks and automatic units, rotated category labels (long
 * kernel names shortened with kname.h, then ellipsized in the middle if
 * still too long), value labels where they fit.  No data draws "no data". */
#ifndef TP_CHART_BAR_H
#define TP_CHART_BAR_H

#include "render/canvas.h"

typedef struct tp_barchart {
    const char *title;       /* bold line at the top; NULL for none */
    const char *value_label; /* value axis title, e.g. "total time"; NULL for none */
    size_t n;
    const char *const *labels;           /* n category names */
    const int64_t *values;               /* n values, ns (negative drawn as 0) */
    const int64_t *err_lo;               /* optional: n error bar low ends, ns */
    const int64_t *err_hi;               /* optional: n error bar high ends, ns */
    const tp_color *colors;              /* optional: n bar colours (default palette slot 0) */
    int shorten_names;                   /* labels are kernel names: shorten (kname.h) */
    int log_scale;                       /* decade axis; for data spanning ns to s */
    int value_labels;                    /* print each value where it fits */
    const struct tp_legend_item *legend; /* optional legend under the title */
    size_t nlegend;                      /* (e.g. tp_legend_for_keys of the families) */
    int counts;                          /* values are counts, not ns: plain numbers on the axis and bars */
    double font_size;                    /* 0: the default sizes (title 12, ticks 7.5, axis 8, values 6.5,
                                          * categories 5.5-9 by room).  Else every text is this size (title
                                          * 1.25x), for images shown scaled down; category labels that
                                          * would overlap are thinned out (every k-th) and value labels
                                          * that do not fit are left out. */
} tp_barchart;

void tp_barchart_draw(tp_canvas *cv, const tp_barchart *c, tp_rect r);

/* The category labels exactly as the chart prints them before fitting
 * (shortened when shorten_names), for a "short name -> full name" table.
 * Free with tp_kname_free(labels, c->n). */
char **tp_barchart_labels(const tp_barchart *c);

#endif
