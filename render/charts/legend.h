/* legend.h: a row (wrapping to more rows) of colour swatches + labels. */
#ifndef TP_LEGEND_H
#define TP_LEGEND_H

#include "render/canvas.h"

typedef struct tp_legend_item {
    const char *label;
    tp_color color;
} tp_legend_item;

/* Height the legend needs in a box `w` wide (0 for no items). */
double tp_legend_height(const tp_legend_item *it, size_t n, double w, double font_size);
/* Draw at the top of r; returns the height used. */
double tp_legend_draw(tp_canvas *cv, const tp_legend_item *it, size_t n, tp_rect r, double font_size);

/* Legend items for the distinct keys among keys[0..n) (NULL = "other"),
 * in category display order (tp_palette_rank, then bytes), coloured
 * colors[i] (NULL, or 0 in it: tp_palette_key).  Labels point into `keys`.
 * malloc'ed; *nout items. */
tp_legend_item *tp_legend_for_keys(const char *const *keys, const tp_color *colors, size_t n, size_t *nout);

#endif
