/* chart_diverging.h: horizontal diverging bar chart of signed changes
 * ("largest kernel changes between two runs").  One row per category:
 * its label on the left (kernel names shortened with kname.h when asked,
 * then ellipsized in the middle), a bar from the zero line to the right
 * (positive, "slower", vermillion) or to the left (negative, "faster",
 * blue), and a value text at the bar's end.  The zero line sits where the
 * largest negative and positive values leave it; all-zero data draws
 * "no change". */
#ifndef TP_CHART_DIVERGING_H
#define TP_CHART_DIVERGING_H

#include "render/canvas.h"

#define TP_DIVERGE_POS 0xD55E00 /* Okabe-Ito vermillion: worse */
#define TP_DIVERGE_NEG 0x0072B2 /* Okabe-Ito blue: better */

typedef struct tp_diverging {
    const char *title;                /* bold line at the top; NULL for none */
    const char *pos_label, *neg_label; /* legend ("slower", "faster"); NULL for none */
    size_t n;
    const char *const *labels;        /* n category names */
    const int64_t *values;            /* n signed values, ns */
    const char *const *notes;         /* optional: n texts printed at the bar ends (default: the value) */
    int shorten_names;                /* labels are kernel names: shorten (kname.h) */
    double font_size;                 /* 0: 8 pt (less when rows are tight), rows at most 18 pt, title
                                       * 11 pt.  Else labels, notes and legend at this size, rows
                                       * 2x, title 1.25x: for images shown scaled down. */
} tp_diverging;

void tp_diverging_draw(tp_canvas *cv, const tp_diverging *c, tp_rect r);
/* The height the chart needs at full row height in a box `w` wide (title,
 * legend, one row per category, or the "no change" line): size an image
 * from its rows instead of leaving most of it empty. */
double tp_diverging_height(const tp_diverging *c, double w);

#endif
