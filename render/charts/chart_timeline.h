/* chart_timeline.h: a Gantt view of one step: one row per track (thread,
 * stream), bars coloured by category with a legend, names inside bars
 * where they fit (ellipsized), a time axis with nice ticks and units.
 *
 * Faithful at the output resolution (`res_pt`, 0.5 pt by default: one pixel
 * of the report's PNG): each row draws the union of its intervals (nested
 * or overlapping events count once), as exact solid runs where a run of
 * busy time is at least one resolution unit wide; shorter bursts are
 * gathered per column of that width and drawn as one mark lightened
 * towards the row's background by the column's busy fraction, so the ink
 * of a row equals its busy time and no gap is painted over.
 *
 * Rows: the last `keep_last` tracks (device streams after host threads)
 * are kept and get at least 14 pt each when they fit; the others
 * (optional) fill what is left at >= 7.5 pt (6 pt type); when they do not
 * all fit (or exceed the view's max_rows), the busiest are shown (busy time
 * in the window, in their order) and the rest merged into one row "N other
 * rows".  Kept tracks that do not fit at 7.5 pt are left out (the least
 * busy in the window first; the rest keep their order) and counted in a
 * note. */
#ifndef TP_CHART_TIMELINE_H
#define TP_CHART_TIMELINE_H

#include "render/canvas.h"

typedef struct tp_tl_item {
    uint32_t track; /* index into track_labels */
    int64_t start_ns;
    int64_t dur_ns;
    const char *name;     /* drawn inside the bar when it fits; may be NULL */
    const char *category; /* legend key, and colour by tp_palette_key unless `color` is set */
    tp_color color;       /* 0: tp_palette_key(category) */
} tp_tl_item;

typedef struct tp_timeline {
    const char *title;
    size_t ntracks;
    const char *const *track_labels;
    size_t nitems;
    const tp_tl_item *items;
    /* The last keep_last tracks (device streams after host threads) are
     * shown first: the ones before them are merged or left out first. */
    size_t keep_last;
} tp_timeline;

/* What the window shows and how it is labelled; zero fields = defaults. */
typedef struct tp_tl_view {
    int64_t t0, t1;        /* the time window; t1 <= t0: the items' extent, axis from 0 to a nice top */
    int64_t origin_ns;     /* with a window: the time the axis counts from */
    const char *subtitle;  /* a muted line under the title (NULL = none) */
    const char *axis_note; /* under the axis (NULL = "time since the first event") */
    const char *rest_noun; /* the merged row: "<N> <rest_noun>" (NULL = "other rows") */
    double res_pt;         /* output resolution in pt (0 = 0.5) */
    size_t max_rows;       /* optional tracks shown at most before the rest are merged (0 = all that fit) */
} tp_tl_view;

void tp_timeline_draw(tp_canvas *cv, const tp_timeline *tl, tp_rect r);
void tp_timeline_draw_view(tp_canvas *cv, const tp_timeline *tl, const tp_tl_view *v, tp_rect r);

#endif
