/* chart_roofline.h: a roofline chart: log-log, x = arithmetic intensity,
 * y = achieved rate, the device's roof (a memory slope y = bandwidth x x up
 * to each ridge, then one flat compute peak per roof), one round mark per
 * item with its area proportional to a weight, and labels for a few marks
 * placed where they overlap no other label, roof label or labelled mark.
 *
 * Axes run over whole decades (ticks on every decade, labelled as plain
 * numbers from 0.001 to 10000, else as powers of ten, thinned when they
 * would touch).  Marks are drawn largest first so small ones stay visible;
 * a mark whose x or y is not a positive finite number is not drawn (counted
 * in the stats).  Thousands of marks are fine: only the labelled ones cost
 * more than a polygon.  A mark flagged above_roof gets a black ring around
 * it: the page says why it passes its roof.
 *
 *     tp_roofline c = {.marks = m, .n = n, .bandwidth = 3.35, .roofs = roofs, .nroofs = 2, ...};
 *     tp_roofline_draw(cv, &c, r, &stats); */
#ifndef TP_CHART_ROOFLINE_H
#define TP_CHART_ROOFLINE_H

#include "render/charts/legend.h"

/* The axes are sized by the roof and the marks that carry time: those with at least this share of all the marks'
 * weight, or among the heaviest that make up 99% of it. */
#define TP_ROOF_AXIS_SHARE 0.001

typedef struct tp_roof {
    const char *label; /* "matrix bf16 989.4 TFLOPS/s", drawn above its flat part */
    double peak;       /* y of the flat part (> 0) */
} tp_roof;

typedef struct tp_roofline_mark {
    double x, y;             /* > 0 to be drawn */
    double weight;           /* the mark's area is proportional to it (>= 0) */
    tp_color color;
    const char *label;       /* NULL = no label; tried first */
    const char *short_label; /* tried when `label` finds no room (NULL = none) */
    bool above_roof;         /* its rate passes its roof: drawn ringed, never as if it fitted */
} tp_roofline_mark;

typedef struct tp_roofline {
    const char *x_title, *y_title;
    /* the roof: the memory slope y = bandwidth * x and the flat peaks; no
     * roof when bandwidth <= 0 or nroofs == 0 */
    double bandwidth;
    const char *bandwidth_label; /* along the slope ("memory 3.35 TB/s") */
    const tp_roof *roofs;
    size_t nroofs;
    const tp_roofline_mark *marks;
    size_t n;
    const tp_legend_item *legend; /* above the plot (NULL = none) */
    size_t nlegend;
    double font_size; /* 0: 7.5 pt */
} tp_roofline;

typedef struct tp_roofline_stats {
    size_t drawn;      /* marks drawn */
    size_t not_drawn;  /* x or y not positive, or outside the axes */
    size_t outside;    /* of them, outside the axes (a mark under TP_ROOF_AXIS_SHARE of the weight, or past 16 decades) */
    size_t labelled;   /* labels drawn (long or short) */
    size_t short_labels; /* of them, the short one */
    size_t unlabelled; /* marks with a label that found no room */
    size_t ringed;     /* marks drawn with the above-the-roof ring */
    int x_lo, x_hi, y_lo, y_hi; /* the axes' decades (10^lo .. 10^hi) */
} tp_roofline_stats;

/* Draw in r; stats may be NULL. */
void tp_roofline_draw(tp_canvas *cv, const tp_roofline *c, tp_rect r, tp_roofline_stats *stats);

#endif
