/* page_memory.c: "Memory": the allocated and reserved levels of the device
 * with the highest peak over the trace, steps marked, the peak annotated,
 * and the holders at the peak (report/memory/memory.h; docs/REPORT.md
 * "Memory").  png/memory.png is the chart. */
#include "render/charts/axis.h"
#include "render/charts/chart_table.h"
#include "render/charts/palette.h"
#include "report/out/mem_out.h"
#include "report/pages/pages.h"

#include <stdio.h>
#include <stdlib.h>

#define MEM_COLOR_ALLOC 0x0072B2u    /* blue */
#define MEM_COLOR_RESERVED 0xE69F00u /* orange */
#define MEM_COLOR_PEAK 0xD55E00u     /* vermillion */
#define MEM_HOLDER_ROWS 15

static double xpos(tp_rect p, int64_t t0, int64_t t1, int64_t ts)
{
    double f = t1 > t0 ? (double)(ts - t0) / (double)(t1 - t0) : 0;
    return p.x + (f < 0 ? 0 : f > 1 ? 1 : f) * p.w;
}

static double ypos(tp_rect p, double top, int64_t v) { return p.y + p.h - (top > 0 ? (double)v / top : 0) * p.h; }

/* A run of points in one column of 1 pt (2 px in the PNG): where it starts and, per level
 * (0 allocated, 1 reserved), its first, lowest, highest and last y. */
typedef struct mem_col {
    double x;
    double first[2], lo[2], hi[2], last[2];
} mem_col;

/* The columns of both levels in one pass over the points (280k on a 1 GB trace; *ncol out, the
 * caller frees): the points' x and column worked out once for the two curves. */
static mem_col *columns(tp_rect p, int64_t t0, int64_t t1, double top, const tp_mem_device *d, size_t *ncol)
{
    mem_col *c = NULL;
    size_t n = 0, cap = 0;
    int64_t col = INT64_MIN;
    for (size_t k = 0; k < d->npts; k++) {
        double x = xpos(p, t0, t1, d->pts[k].ts);
        double y[2] = {ypos(p, top, d->pts[k].allocated), ypos(p, top, d->pts[k].reserved)};
        int64_t kc = (int64_t)(x - p.x);
        if (kc == col && n) {
            for (int j = 0; j < 2; j++) {
                c[n - 1].lo[j] = y[j] < c[n - 1].lo[j] ? y[j] : c[n - 1].lo[j];
                c[n - 1].hi[j] = y[j] > c[n - 1].hi[j] ? y[j] : c[n - 1].hi[j];
                c[n - 1].last[j] = y[j];
            }
            continue;
        }
        TP_GROW(c, cap, n + 1);
        c[n] = (mem_col){x, {y[0], y[1]}, {y[0], y[1]}, {y[0], y[1]}, {y[0], y[1]}};
        n++;
        col = kc;
    }
    *ncol = n;
    return c;
}

/* One level as a step curve, at most five points a column: the column's
 * lowest, highest and last level (a peak is never lost to the reduction,
 * and a 1 GB trace's 280k events stay a short path). */
static void curve(tp_canvas *cv, tp_rect p, const mem_col *c, size_t n, int j, tp_color color)
{
    if (!n)
        return;
    tp_cv_move_to(cv, c[0].x, c[0].first[j]);
    for (size_t i = 1; i < n; i++) {
        const mem_col *a = &c[i - 1];
        if (a->lo[j] != a->hi[j]) { /* the column's extremes, then where it ends */
            tp_cv_line_to(cv, a->x, a->lo[j]);
            tp_cv_line_to(cv, a->x, a->hi[j]);
            tp_cv_line_to(cv, a->x, a->last[j]);
        }
        tp_cv_line_to(cv, c[i].x, a->last[j]); /* a step: the level holds until the next event */
        if (c[i].first[j] != a->last[j])
            tp_cv_line_to(cv, c[i].x, c[i].first[j]);
    }
    tp_cv_line_to(cv, c[n - 1].x, c[n - 1].lo[j]);
    tp_cv_line_to(cv, c[n - 1].x, c[n - 1].hi[j]);
    tp_cv_line_to(cv, c[n - 1].x, c[n - 1].last[j]);
    tp_cv_line_to(cv, p.x + p.w, c[n - 1].last[j]);
    tp_cv_stroke(cv, color, 0.8);
}

void tp_chart_memory(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const tp_summary *s = pc->s;
    const tp_mem_device *d = tp_memory_top(&s->mem);
    if (!d)
        return;
    char title[200], a[48], b[48];
    tp_mem_bytes(a, sizeof a, d->peak_allocated);
    tp_mem_bytes(b, sizeof b, d->peak_reserved);
    snprintf(title, sizeof title, "Memory of %s: allocated (peak %s) and reserved (peak %s) over the trace", d->label, a,
             b);
    tp_cv_text(cv, r.x, r.y + 12, TP_FONT_BOLD, 11, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, title);
    tp_rect p = {r.x + 56, r.y + 30, r.w - 66, r.h - 58};
    int64_t t0 = s->sf.span_start, t1 = s->sf.span_end;
    int64_t hi = d->peak_reserved > d->peak_allocated ? d->peak_reserved : d->peak_allocated;
    if (d->capacity && d->capacity < hi * 2) /* the capacity line when it is within sight */
        hi = d->capacity > hi ? d->capacity : hi;
    double top = (double)hi * 1.08;
    if (top <= 0)
        top = 1;
    /* y axis: five lines */
    for (int i = 0; i <= 4; i++) {
        int64_t v = (int64_t)(top * i / 4);
        double y = ypos(p, top, v);
        tp_cv_line(cv, p.x, y, p.x + p.w, y, TP_COLOR_GRID, 0.4);
        tp_mem_bytes(a, sizeof a, v);
        tp_cv_text(cv, p.x - 4, y + 3, TP_FONT_REGULAR, 7, TP_COLOR_MUTED, TP_ALIGN_RIGHT, 0, a);
    }
    /* steps */
    for (size_t i = 0; i < s->sf.nsteps; i++) {
        double x = xpos(p, t0, t1, s->sf.steps[i].ts);
        tp_cv_line(cv, x, p.y, x, p.y + p.h, TP_COLOR_AXIS, 0.3);
        if (s->sf.nsteps <= 40) {
            snprintf(a, sizeof a, "#%lld", (long long)s->sf.steps[i].step);
            tp_cv_text(cv, x + 2, p.y + p.h + 10, TP_FONT_REGULAR, 6.5, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, a);
        }
    }
    if (d->capacity && (double)d->capacity <= top) {
        double y = ypos(p, top, d->capacity);
        tp_cv_line(cv, p.x, y, p.x + p.w, y, MEM_COLOR_PEAK, 0.6);
        tp_mem_bytes(a, sizeof a, d->capacity);
        snprintf(title, sizeof title, "capacity %s", a);
        tp_cv_text(cv, p.x + p.w - 2, y - 3, TP_FONT_REGULAR, 7, MEM_COLOR_PEAK, TP_ALIGN_RIGHT, 0, title);
    }
    size_t ncol;
    mem_col *cols = columns(p, t0, t1, top, d, &ncol);
    curve(cv, p, cols, ncol, 1, MEM_COLOR_RESERVED);
    curve(cv, p, cols, ncol, 0, MEM_COLOR_ALLOC);
    free(cols);
    tp_cv_stroke_rect(cv, p.x, p.y, p.w, p.h, TP_COLOR_AXIS, 0.5);
    /* the peak */
    double px = xpos(p, t0, t1, d->peak_allocated_ts), py = ypos(p, top, d->peak_allocated);
    tp_cv_fill_rect(cv, px - 2, py - 2, 4, 4, MEM_COLOR_PEAK);
    tp_mem_bytes(a, sizeof a, d->peak_allocated);
    if (d->peak_allocated_step >= 0)
        snprintf(title, sizeof title, "peak %s, step %lld", a, (long long)d->peak_allocated_step);
    else
        snprintf(title, sizeof title, "peak %s", a);
    bool right = px < p.x + p.w * 0.7;
    tp_cv_text(cv, px + (right ? 5 : -5), py - 4 < p.y + 8 ? p.y + 8 : py - 4, TP_FONT_BOLD, 7.5, MEM_COLOR_PEAK,
               right ? TP_ALIGN_LEFT : TP_ALIGN_RIGHT, 0, title);
    /* axis and legend */
    char ta[48];
    tp_format_duration(ta, sizeof ta, (double)(t1 - t0));
    snprintf(title, sizeof title, "time over the trace (%s); lines: step starts", ta);
    tp_cv_text(cv, p.x + p.w / 2, p.y + p.h + 22, TP_FONT_REGULAR, 7.5, TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, title);
    double lx = r.x + r.w - 190, ly = r.y + 8;
    tp_cv_fill_rect(cv, lx, ly, 10, 3, MEM_COLOR_ALLOC);
    tp_cv_text(cv, lx + 14, ly + 4, TP_FONT_REGULAR, 7.5, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, "allocated");
    tp_cv_fill_rect(cv, lx + 70, ly, 10, 3, MEM_COLOR_RESERVED);
    tp_cv_text(cv, lx + 84, ly + 4, TP_FONT_REGULAR, 7.5, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, "reserved");
}

/* Where the page draws its chart: the top half of a landscape page. */
static tp_rect memory_chart_rect(const tp_pagectx *pc)
{
    double m = TP_PAGE_MARGIN;
    return (tp_rect){m, m, pc->lw - 2 * m, (pc->lh - 2 * m) * 0.5};
}

void tp_chart_memory_png(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    (void)r; /* the page's picture, cropped to it: half the pixels of a full page to encode */
    tp_chart_memory(cv, pc, memory_chart_rect(pc));
}

void tp_pages_memory(tp_canvas *cv, const tp_pagectx *pc, bool planning)
{
    const tp_summary *s = pc->s;
    const tp_mem_device *d = tp_memory_top(&s->mem);
    if (!d) {
        if (s->mem.events) /* events without levels: said where the pages are listed */
            tp_page_note(pc, "Memory", "the memory events have no Total Allocated/Total Reserved (PyTorch 1.9 or "
                                       "older): no levels.");
        return;
    }
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m;
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Memory");
    tp_rect r = memory_chart_rect(pc);
    if (!planning) /* the chart has its fixed place: the plan (page count, names) needs none of it */
        tp_chart_memory(cv, pc, r);
    double y = m + r.h + 8;
    tp_strs st = {0};
    /* every device's peaks, one line each */
    for (size_t j = 0; j < s->mem.ndev; j++) {
        const tp_mem_device *x = &s->mem.dev[j];
        if (!x->events)
            continue;
        char a[48], b[48], c[48], e[48];
        tp_mem_bytes(a, sizeof a, x->peak_allocated);
        tp_mem_bytes(b, sizeof b, x->peak_reserved);
        tp_mem_bytes(c, sizeof c, x->held_before);
        tp_mem_bytes(e, sizeof e, x->last_allocated);
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 8, TP_COLOR_TEXT,
                         tp_strs_add(&st, "%s: peak allocated %s%s, peak reserved %s, %s at the end; at the peak %s "
                                          "was allocated before the trace began",
                                     x->label, a,
                                     x->peak_allocated_step >= 0
                                         ? tp_strs_add(&st, " (step %lld)", (long long)x->peak_allocated_step)
                                         : "",
                                     b, e, c));
    }
    char cav[400];
    tp_memory_caveats(&s->mem, cav, sizeof cav);
    if (cav[0])
        y = tp_page_para(cv, m, y, w, TP_FONT_REGULAR, 8, TP_COLOR_MUTED, cav, 2);
    /* the holders at the peak */
    static const tp_table_col cols[] = {{"op (top-level)", 0, TP_FIT_MIDDLE, 1}, {"module", 0, TP_FIT_MIDDLE, 1},
                                        {"live at the peak", 1, TP_FIT_END, 0}, {"share of the peak", 1, TP_FIT_END, 0},
                                        {"allocations", 1, TP_FIT_END, 0}};
    size_t n = d->nholders < MEM_HOLDER_ROWS ? d->nholders : MEM_HOLDER_ROWS;
    const char **cells = tp_xcalloc(5 * (n + 1), sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const tp_mem_holder *hd = &d->holders[i];
        char a[48], p[32];
        tp_mem_bytes(a, sizeof a, hd->bytes);
        tp_fmt_pct(p, sizeof p, hd->bytes, d->peak_allocated);
        cells[5 * i] = hd->op ? tp_str_get(s->t, hd->op) : "(no op)";
        cells[5 * i + 1] = hd->module ? tp_str_get(s->t, hd->module) : "";
        cells[5 * i + 2] = tp_strs_add(&st, "%s", a);
        cells[5 * i + 3] = tp_strs_add(&st, "%s", p);
        cells[5 * i + 4] = tp_strs_add(&st, "%llu", (unsigned long long)hd->allocations);
    }
    tp_table t = {tp_strs_add(&st, "What holds %s at its peak (allocations seen in the trace and live there)", d->label),
                  5, cols, n, cells, 0, 0, NULL};
    if (n)
        tp_page_table_top(cv, &t, (tp_rect){m, y + 6, w, pc->lh - m - y - 6}, "summary.json \"memory\"");
    free(cells);
    tp_strs_free(&st);
    tp_cv_end_page(cv);
}
