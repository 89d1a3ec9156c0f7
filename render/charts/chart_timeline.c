/* chart_timeline.c: Gantt chart of one step (see chart_timeline.h). */
#include "render/charts/chart_timeline.h"

#include "render/charts/axis.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"
#include "convert/base/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define LABEL_FS 8.0
#define NAME_FS 6.5
#define TICK_FS 7.5
#define MIN_ROW 7.0
#define MAX_ROW 24.0

/* items in track order, then by start; ties keep their input order (stable) */
#define ITEM_LESS(x, y, items)                                                                                   \
    ((items)[*(x)].track < (items)[*(y)].track ||                                                            \
     ((items)[*(x)].track == (items)[*(y)].track && (items)[*(x)].start_ns < (items)[*(y)].start_ns))
TP_SORT_DEFINE(sort_items, size_t, const tp_tl_item *, ITEM_LESS)

void tp_timeline_draw(tp_canvas *cv, const tp_timeline *tl, tp_rect r)
{
    double y = r.y;
    if (tl->title) {
        char *t = tp_fit_end(TP_FONT_BOLD, TITLE_FS, tl->title, r.w);
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_BOLD, TITLE_FS), TP_FONT_BOLD, TITLE_FS, TP_COLOR_TEXT,
                   TP_ALIGN_LEFT, 0, t);
        free(t);
        y += TITLE_FS * 1.8;
    }
    /* time range; items on unknown tracks are ignored */
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < tl->nitems; i++) {
        const tp_tl_item *e = &tl->items[i];
        if (e->track >= tl->ntracks)
            continue;
        int64_t d = e->dur_ns > 0 ? e->dur_ns : 0;
        if (e->start_ns < t0)
            t0 = e->start_ns;
        if (e->start_ns + d > t1)
            t1 = e->start_ns + d;
    }
    if (tl->ntracks == 0 || t0 == INT64_MAX) {
        tp_cv_stroke_rect(cv, r.x, y, r.w, r.y + r.h - y, TP_COLOR_GRID, 1);
        tp_cv_text(cv, r.x + r.w / 2, tp_text_baseline_mid(TP_FONT_REGULAR, 11, (y + r.y + r.h) / 2), TP_FONT_REGULAR,
                   11, TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, "no data");
        return;
    }
    /* legend: distinct categories, kernel families in their usual order */
    const char **cats = tp_xmalloc(tl->nitems * sizeof *cats);
    for (size_t i = 0; i < tl->nitems; i++)
        cats[i] = tl->items[i].category;
    size_t k;
    tp_legend_item *it = tp_legend_for_keys(cats, tl->nitems, &k);
    y += tp_legend_draw(cv, it, k, (tp_rect){r.x, y, r.w, 0}, LABEL_FS) + 4;
    free(it);
    free(cats);

    /* rows */
    double axis_h = TICK_FS * 3;
    double avail = r.y + r.h - y - axis_h;
    size_t shown = tl->ntracks;
    double row = fmin(MAX_ROW, avail / (double)shown);
    if (row < MIN_ROW) {
        row = MIN_ROW;
        shown = (size_t)fmax(1, floor((avail - LABEL_FS * 1.5) / MIN_ROW));
    }
    /* which track goes on which row: the first `front` tracks, then the
     * last shown - front (the kept ones) */
    size_t keep = tl->keep_last < shown ? tl->keep_last : shown;
    size_t front = shown < tl->ntracks ? shown - keep : shown;
    size_t *track_of = tp_xmalloc((shown + 1) * sizeof *track_of);
    for (size_t i = 0; i < shown; i++)
        track_of[i] = i < front ? i : tl->ntracks - (shown - i);
    double lfs = fmin(LABEL_FS, row * 0.8);
    double lw = 0;
    for (size_t i = 0; i < shown; i++) {
        const char *l = tl->track_labels[track_of[i]];
        lw = fmax(lw, tp_text_width(TP_FONT_REGULAR, lfs, l ? l : ""));
    }
    lw = fmin(lw, r.w * 0.25);
    double px = r.x + lw + 8, pw = r.x + r.w - px - 4;
    double span = (double)(t1 - t0);
    tp_ticks t;
    tp_ticks_linear(span, (int)fmax(2, fmin(10, pw / 80)), &t);
    double scale = pw / t.hi;

    for (size_t i = 0; i < shown; i++) {
        double ry = y + (double)i * row;
        if (i % 2)
            tp_cv_fill_rect(cv, px, ry, pw, row, TP_COLOR_ZEBRA);
        const char *l = tl->track_labels[track_of[i]];
        char *lab = tp_fit_middle(TP_FONT_REGULAR, lfs, l ? l : "", lw);
        tp_cv_text(cv, px - 6, tp_text_baseline_mid(TP_FONT_REGULAR, lfs, ry + row / 2), TP_FONT_REGULAR, lfs,
                   TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, lab);
        free(lab);
    }
    double bottom = y + (double)shown * row;
    for (int i = 0; i < t.n; i++) {
        double x = px + t.v[i] * scale;
        tp_cv_line(cv, x, y, x, bottom, TP_COLOR_GRID, 0.5);
        tp_cv_line(cv, x, bottom, x, bottom + 3, TP_COLOR_AXIS, 0.8);
        tp_cv_text(cv, x, bottom + 3 + TICK_FS * 1.1, TP_FONT_REGULAR, TICK_FS, TP_COLOR_TEXT, TP_ALIGN_CENTER, 0,
                   t.label[i]);
    }
    /* draw in (track, start) order so a name stops where the next bar on
     * its track starts (overlapping events must not smear text) */
    size_t *ord = tp_xmalloc(tl->nitems * sizeof *ord);
    for (size_t i = 0; i < tl->nitems; i++)
        ord[i] = i;
    sort_items(ord, tl->nitems, tl->items); /* no global context: pages are drawn on two threads */
    tp_cv_save(cv);
    tp_cv_clip_rect(cv, px, y, pw, bottom - y);
    for (size_t oi = 0; oi < tl->nitems; oi++) {
        const tp_tl_item *e = &tl->items[ord[oi]];
        size_t rowi = e->track < front                           ? e->track
                      : e->track + shown >= tl->ntracks + front ? e->track + shown - tl->ntracks
                                                                : SIZE_MAX; /* left out */
        if (rowi >= shown)
            continue;
        double x = px + (double)(e->start_ns - t0) * scale;
        double w = fmax(0.5, (double)(e->dur_ns > 0 ? e->dur_ns : 0) * scale);
        double room = w;
        if (oi + 1 < tl->nitems && tl->items[ord[oi + 1]].track == e->track)
            room = fmin(w, px + (double)(tl->items[ord[oi + 1]].start_ns - t0) * scale - x);
        double by = y + (double)rowi * row + row * 0.12, bh = row * 0.76;
        tp_color col = tp_palette_key(e->category ? e->category : "other");
        tp_cv_fill_rect(cv, x, by, w, bh, col);
        double nfs = fmin(NAME_FS, bh * 0.8);
        if (e->name && room > 14 && nfs >= 4) {
            char *nm = tp_fit_end(TP_FONT_REGULAR, nfs, e->name, room - 4);
            if (*nm && strcmp(nm, "\xE2\x80\xA6") != 0)
                tp_cv_text(cv, x + 2, tp_text_baseline_mid(TP_FONT_REGULAR, nfs, by + bh / 2), TP_FONT_REGULAR, nfs,
                           tp_text_color_on(col), TP_ALIGN_LEFT, 0, nm);
            free(nm);
        }
    }
    tp_cv_restore(cv);
    free(ord);
    free(track_of);
    tp_cv_line(cv, px, bottom, px + pw, bottom, TP_COLOR_AXIS, 0.8);
    tp_cv_text(cv, px + pw, bottom + 3 + TICK_FS * 2.4, TP_FONT_REGULAR, TICK_FS, TP_COLOR_MUTED, TP_ALIGN_RIGHT, 0,
               "time since the first event");
    if (shown < tl->ntracks) {
        char note[80];
        snprintf(note, sizeof note, "%zu more tracks not shown", tl->ntracks - shown);
        tp_cv_text(cv, r.x, bottom + 3 + TICK_FS * 2.4, TP_FONT_REGULAR, TICK_FS, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0,
                   note);
    }
}
