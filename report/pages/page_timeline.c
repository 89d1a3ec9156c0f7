/* page_timeline.c: a Gantt chart of the median step (or of the whole
 * trace when it has no steps), zoomed to where its devices work: host
 * threads (one row per nesting level, the first TL_DEPTH levels; the chart
 * keeps the busiest and merges the rest) and device streams.  Bars are
 * coloured by kind (cpu op, runtime call, annotation, kernel, memcpy,
 * memset). */
#include "render/charts/axis.h"
#include "render/charts/chart_timeline.h"
#include "render/labels/kname.h"
#include "render/text/units.h"
#include "convert/codec/json_write.h"
#include "report/pages/pages.h"
#include "convert/model/tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_DEPTH 4
#define TL_HOST_ROWS 20 /* the busiest host rows; the others share one row, so device rows stay legible */

/* Host bars are coloured by kind (the palette gives these names fixed
 * colours); device bars by their category. */
static const char *category(const tp_event *e)
{
    switch (e->kind) {
    case TP_KIND_HOST_OP: return "cpu_op";
    case TP_KIND_RUNTIME: return "runtime";
    case TP_KIND_ANNOTATION: return "annotation";
    case TP_KIND_KERNEL: return "kernel";
    case TP_KIND_MEMCPY: return "memcpy";
    case TP_KIND_MEMSET: return "memset";
    default: return "other";
    }
}

static bool device_activity(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}

/* The median step, or NULL (whole trace). */
static const tp_step_row *shown_step(const tp_step_figures *sf)
{
    return sf->median != SIZE_MAX ? &sf->steps[sf->median] : NULL;
}

/* The extent [d0, d1) of the device work of step m (all of it when NULL). */
static bool device_span(const tp_trace *t, const tp_step_row *m, int64_t *d0, int64_t *d1)
{
    *d0 = INT64_MAX;
    *d1 = INT64_MIN;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!device_activity(e) || (m && !tp_step_holds(t, m, e)))
            continue;
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (e->ts < *d0)
            *d0 = e->ts;
        if (end > *d1)
            *d1 = end;
    }
    return *d0 <= *d1;
}

bool tp_timeline_window(const tp_summary *s, int64_t *t0, int64_t *t1)
{
    const tp_step_figures *sf = &s->sf;
    const tp_step_row *m = shown_step(sf);
    int64_t d0, d1;
    if (device_span(s->t, m, &d0, &d1)) {
        int64_t margin = (d1 - d0) / 50 > 0 ? (d1 - d0) / 50 : 1; /* 2% each side */
        *t0 = d0 > INT64_MIN + margin ? d0 - margin : d0;
        *t1 = d1 < INT64_MAX - margin ? d1 + margin : d1;
        return true;
    }
    *t0 = m ? m->ts : sf->span_start;
    *t1 = m ? m->ts + m->host_ns : sf->span_end + 1;
    return false;
}

void tp_chart_timeline(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const tp_summary *s = pc->s;
    const tp_trace *t = s->t;
    const tp_host_tree *ht = &s->ht;
    const tp_step_figures *sf = &s->sf;
    const tp_step_row *m = shown_step(sf);
    tp_strs st = {0};
    int64_t ws, we;
    bool zoomed = tp_timeline_window(s, &ws, &we);
    int64_t origin = m ? m->ts : sf->span_start;
    const char *title, *subtitle = NULL;
    if (m) {
        char d[48], lab[200];
        tp_fmt_dur(d, sizeof d, m->host_ns);
        tp_step_label(t, sf, m, lab, sizeof lab);
        if (sf->median_of < sf->nsteps)
            title = tp_strs_add(&st, "Timeline of step %s (the median of the %zu of %zu steps with device work; step time %s)",
                                lab, sf->median_of, sf->nsteps, d);
        else
            title = tp_strs_add(&st, "Timeline of step %s (the median of %zu steps; step time %s)", lab, sf->nsteps, d);
    } else {
        title = "Timeline of the whole trace (no steps)";
    }
    if (zoomed) {
        char a[32], b[32];
        tp_fmt_dur(a, sizeof a, ws - origin);
        tp_fmt_dur(b, sizeof b, we - origin);
        subtitle = tp_strs_add(&st, "shown: %s to %s after the %s, where the devices work (2%% margin); a bar lighter than "
                                    "its colour is a stretch busy only that fraction of its width",
                               a, b, m ? "step's start" : "first event");
    }
    /* rows: host (logical track, depth), then device streams */
    uint32_t *order = tp_track_order(t);
    size_t nt = t->ntracks;
    int32_t *row_of = tp_xmalloc((nt * TL_DEPTH + 1) * sizeof *row_of); /* host track*depth -> row */
    for (size_t i = 0; i < nt * TL_DEPTH; i++)
        row_of[i] = -1;
    size_t nitems = 0, icap = 0;
    tp_tl_item *items = NULL;
    uint8_t *depth_of = tp_xmalloc(ht->n + 1);
    tp_str trace_cat = TP_NONE;
    for (tp_str id = 1; id < t->nstr; id++)
        if (strcmp(tp_str_get(t, id), "Trace") == 0) {
            trace_cat = id;
            break;
        }
    for (size_t p = 0; p < ht->n; p++) {
        uint32_t ei = ht->order[p];
        const tp_event *e = &t->events[ei];
        uint32_t par = ht->parent[ei];
        depth_of[p] = par == TP_NONE ? 0 : (uint8_t)(depth_of[ht->pos[par]] < 255 ? depth_of[ht->pos[par]] + 1 : 255);
        /* host work in the window (the chart clips what sticks out) */
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (depth_of[p] >= TL_DEPTH || e->ts >= we || end <= ws)
            continue;
        if (e->cat == trace_cat && e->kind == TP_KIND_OTHER)
            continue; /* the profiler's own span ("PyTorch Profiler (0)", cat Trace) covers everything */
        row_of[ht->logical[e->track] * TL_DEPTH + depth_of[p]] = 0;
        TP_GROW(items, icap, nitems + 1);
        items[nitems++] = (tp_tl_item){(uint32_t)(ht->logical[e->track] * TL_DEPTH + depth_of[p]), e->ts, end - e->ts,
                                       tp_str_get(t, e->name), category(e), 0};
    }
    free(depth_of);
    size_t nrows = 0;
    const char **labels = tp_xmalloc((nt * TL_DEPTH + sf->nstreams + 1) * sizeof *labels);
    for (size_t k = 0; k < nt; k++) {
        uint32_t tk = order[k];
        for (int d = 0; d < TL_DEPTH; d++) {
            if (row_of[tk * TL_DEPTH + d] < 0)
                continue;
            row_of[tk * TL_DEPTH + d] = (int32_t)nrows;
            char lab[256];
            tp_stream_label(t, tk, lab, sizeof lab);
            labels[nrows++] = d == 0 ? tp_strs_add(&st, "%s", lab) : tp_strs_add(&st, "level %d", d + 1);
        }
    }
    for (size_t i = 0; i < nitems; i++)
        items[i].track = (uint32_t)row_of[items[i].track];
    /* device streams */
    uint32_t *srow = tp_xmalloc((nt + 1) * sizeof *srow);
    for (size_t k = 0; k < nt; k++)
        srow[k] = TP_NONE;
    for (size_t k = 0; k < sf->nstreams; k++) {
        char lab[256];
        tp_stream_label(t, sf->streams[k], lab, sizeof lab);
        srow[sf->streams[k]] = (uint32_t)nrows;
        labels[nrows++] = tp_strs_add(&st, "%s", lab);
    }
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!device_activity(e))
            continue;
        bool in = !m || tp_step_holds(t, m, e);
        if (!in || e->ts >= we || (__int128)e->ts + e->dur <= ws) /* 128 bits: corrupt durations */
            continue;
        /* a name only for bars that can be wide enough to show one (>= 1/40 of the window) */
        const char *name = NULL;
        if ((__int128)e->dur * 40 >= (__int128)we - ws) {
            char *base = tp_kname_base(tp_str_get(t, e->name));
            name = tp_strs_add(&st, "%s", base);
            free(base);
        }
        TP_GROW(items, icap, nitems + 1);
        /* device bars by their category (the one classification), as on every other page */
        uint32_t cat = pc->s->cls.of ? pc->s->cls.of[i] : UINT32_MAX;
        items[nitems++] = cat != UINT32_MAX ? (tp_tl_item){srow[ht->logical[e->track]], e->ts, e->dur, name,
                                                           pc->s->rules->names[cat], pc->cat_colors[cat]}
                                            : (tp_tl_item){srow[ht->logical[e->track]], e->ts, e->dur, name, category(e), 0};
    }
    tp_timeline tl = {title, nrows, labels, nitems, items, sf->nstreams}; /* device streams kept */
    tp_tl_view v = {ws, we, origin, subtitle, m ? "time since the step's start" : "time since the first event",
                    "other host rows", 0, TL_HOST_ROWS};
    tp_timeline_draw_view(cv, &tl, &v, r);
    free(srow);
    free(labels);
    free(items);
    free(row_of);
    free(order);
    tp_strs_free(&st);
}
