/* chart_timeline.h: a Gantt view of one step: one row per track (thread,
 * stream), bars coloured by category with a legend, names inside bars
 * where they fit (ellipsized), a time axis (relative to the earliest
 * start) with nice ticks and units.  Tracks that do not fit at the
 * minimum row height are left out and counted in a note (from the end, or
 * from before the last `keep_last` tracks). */
#ifndef TP_CHART_TIMELINE_H
#define TP_CHART_TIMELINE_H

#include "render/canvas.h"

typedef struct tp_tl_item {
    uint32_t track; /* index into track_labels */
    int64_t start_ns;
    int64_t dur_ns;
    const char *name;     /* drawn inside the bar when it fits; may be NULL */
    const char *category; /* colour and legend key (tp_palette_key) */
} tp_tl_item;

typedef struct tp_timeline {
    const char *title;
    size_t ntracks;
    const char *const *track_labels;
    size_t nitems;
    const tp_tl_item *items;
    /* The last keep_last tracks (device streams after host threads) are
     * shown even when not every track fits: the ones before them are
     * left out first. */
    size_t keep_last;
} tp_timeline;

void tp_timeline_draw(tp_canvas *cv, const tp_timeline *tl, tp_rect r);

#endif
