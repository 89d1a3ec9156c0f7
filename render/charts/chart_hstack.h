/* chart_hstack.h: horizontal stacked bars of durations, one row per
 * category (the job report's GPU time split per rank): each bar is its parts
 * end to end on one linear time axis (ticks and grid lines, the axis at the
 * bottom), the whole bar outlined (so a white part, idle, still shows), a
 * legend of the parts under the title and an optional text for each bar in
 * a column on the right.
 * Rows are at most 2.4 x the font high; when there are many, they get
 * thinner (the label font follows, down to 5 pt). */
#ifndef TP_CHART_HSTACK_H
#define TP_CHART_HSTACK_H

#include "render/canvas.h"

typedef struct tp_hstack {
    const char *title;               /* bold line at the top; NULL for none */
    const char *value_label;         /* the axis title ("GPU time"); NULL for none */
    size_t n, nparts;
    const char *const *labels;       /* n category names (left of the bars) */
    const int64_t *values;           /* n x nparts, ns, row-major (negative drawn as 0) */
    const tp_color *colors;          /* nparts */
    const char *const *part_names;   /* nparts: the legend */
    const char *const *notes;        /* optional n texts after the bars */
    double font_size;                /* 0: 7.5 pt (title 10).  Else every text this size (title 1.25x). */
} tp_hstack;

/* The height the chart needs in a box `w` wide with rows at full height. */
double tp_hstack_height(const tp_hstack *c, double w);
void tp_hstack_draw(tp_canvas *cv, const tp_hstack *c, tp_rect r);

#endif
