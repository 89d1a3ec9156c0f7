/* page_critical.c: "Critical path": the path of the median step (the
 * window of --critical-path-window, the whole trace without steps) drawn
 * over that step's timeline (docs/REPORT.md "Critical path"): the first row
 * is the path itself, each stretch coloured by what it was bound by and
 * named by its event; below it, each thread and stream the path runs
 * through, with the path's events on it. */
#include "render/charts/chart_timeline.h"
#include "render/charts/palette.h"
#include "render/labels/kname.h"
#include "render/text/units.h"
#include "report/out/cp_out.h"
#include "report/pages/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the page's resolution: a window drawn in this many parts at most per row */
#define PAGE_BUCKETS 4096

static const char *kind_category(const tp_event *e)
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

static const char *short_name(tp_strs *st, const tp_trace *t, uint32_t ev)
{
    char *base = tp_kname_base(tp_str_get(t, t->events[ev].name));
    const char *s = tp_strs_add(st, "%s", base);
    free(base);
    return s;
}

static const char *name_text(tp_strs *st, const tp_trace *t, tp_str name)
{
    char *base = tp_kname_base(tp_str_get(t, name));
    const char *s = tp_strs_add(st, "%.90s", base);
    free(base);
    return s;
}

void tp_page_critical(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    const tp_trace *t = s->t;
    size_t idx = 0;
    const tp_cp_path *p = tp_critical_shown(s, &idx);
    if (!p || p->path_events < 2) { /* one event is its own path: nothing to draw */
        tp_page_note(pc, "Critical path", p && p->cycle ? "the step's dependency graph has a cycle (bad input)."
                                          : p && p->path_events ? "the step's path is one event."
                                                                : "no step has a path (no host ops or device work in it).");
        return;
    }
    tp_strs st = {0};
    char d[48];
    tp_fmt_dur(d, sizeof d, p->length_ns);
    const char *title;
    if (s->cp.annotation && p->window_ev != TP_NONE)
        title = tp_strs_add(&st, "Critical path of %s (%s)", tp_str_get(t, t->events[p->window_ev].name), d);
    else if (p->step >= 0 && s->sf.nsteps == 1) /* "the median step" of one */
        title = tp_strs_add(&st, "Critical path of step #%lld (the trace's one step; %s)", (long long)p->step, d);
    else if (p->step >= 0)
        title = tp_strs_add(&st, "Critical path of step #%lld (the median step; %s)", (long long)p->step, d);
    else
        title = tp_strs_add(&st, "Critical path of the whole trace (%s)", d);
    tp_buf shares = {0};
    for (int k = 0; k < TP_CPB_COUNT; k++) {
        if (p->bound_ns[k] <= 0)
            continue;
        char pct[32];
        tp_fmt_pct(pct, sizeof pct, p->bound_ns[k], p->length_ns);
        tp_buf_printf(&shares, "%s%s %s", shares.len ? ", " : "", tp_cp_bound_name(k), pct);
    }
    const char *subtitle = tp_strs_add(&st, "top row: the path, by what bound it (%s); below: the path's events on their "
                                            "threads and streams",
                                       shares.data ? shares.data : "");
    tp_buf_free(&shares);

    /* rows: the path, then each track holding a path event, in track order */
    uint32_t *row_of = tp_xmalloc((t->ntracks + 1) * sizeof *row_of);
    for (size_t k = 0; k < t->ntracks; k++)
        row_of[k] = TP_NONE;
    const char **labels = tp_xmalloc((t->ntracks + 2) * sizeof *labels);
    size_t nrows = 0;
    labels[nrows++] = "critical path";
    /* A path of millions of pieces (a whole trace without steps) is drawn
     * at the page's resolution: pieces under 1/4096 of the window are
     * merged on the path row (a run of them drawn as one part per bound,
     * as wide as its time in the run),
     * and a short event is drawn only when no other short one of its row
     * was drawn in its 1/4096 of the window: at most a few items per
     * 1/4096 of each row, not 3 per piece (3.7 M pieces took 1.5 GB). */
    int64_t span = p->we > p->ws ? p->we - p->ws : 1, minw = span / PAGE_BUCKETS;
    tp_tl_item *items = tp_xmalloc((3 * p->nlinks + 2) * sizeof *items);
    size_t n = 0;
    int64_t run_from = 0, run_ns = 0, run_by[TP_CPB_COUNT] = {0};
    for (size_t i = 0; i <= p->nlinks; i++) {
        const tp_cp_link *l = i < p->nlinks ? &p->links[i] : NULL;
        if (l && l->time_ns <= 0)
            continue;
        bool small = l && l->time_ns < minw;
        if (run_ns && (!small || run_ns >= minw)) {
            /* the merged run so far: one part per bound, as wide as its time in the run */
            for (int k = 0; k < TP_CPB_COUNT; k++)
                if (run_by[k] > 0) {
                    items[n++] = (tp_tl_item){0, run_from, run_by[k], tp_cp_bound_name(k), tp_cp_bound_name(k), 0};
                    run_from += run_by[k];
                }
            run_ns = 0;
            memset(run_by, 0, sizeof run_by);
        }
        if (!l)
            break;
        if (small) {
            if (!run_ns)
                run_from = l->from_ns;
            run_ns += l->time_ns;
            run_by[l->bound] += l->time_ns;
            continue;
        }
        items[n++] = (tp_tl_item){0, l->from_ns, l->time_ns,
                                  l->attr_ev != TP_NONE ? short_name(&st, t, l->attr_ev) : tp_cp_bound_name(l->bound),
                                  tp_cp_bound_name(l->bound), 0};
    }
    uint8_t *drawn = tp_xcalloc(t->nevents + 1, 1);
    uint32_t *last_bucket = tp_xmalloc((t->ntracks + 2) * sizeof *last_bucket); /* by row */
    for (size_t i = 0; i < p->nlinks; i++) {
        uint32_t evs[2] = {p->links[i].from_ev, p->links[i].to_ev};
        for (int j = 0; j < 2; j++) {
            uint32_t ev = evs[j];
            if (drawn[ev])
                continue;
            drawn[ev] = 1;
            const tp_event *e = &t->events[ev];
            uint32_t tk = s->ht.logical ? s->ht.logical[e->track] : e->track;
            if (row_of[tk] == TP_NONE) {
                char lab[256];
                tp_stream_label(t, tk, lab, sizeof lab);
                row_of[tk] = (uint32_t)nrows;
                last_bucket[nrows] = UINT32_MAX;
                labels[nrows++] = tp_strs_add(&st, "%s", lab);
            }
            if (e->dur < minw) {
                double at = (double)(e->ts - p->ws) / (double)span * PAGE_BUCKETS;
                uint32_t bucket = at <= 0 ? 0 : at >= PAGE_BUCKETS ? PAGE_BUCKETS - 1 : (uint32_t)at;
                if (last_bucket[row_of[tk]] == bucket)
                    continue;
                last_bucket[row_of[tk]] = bucket;
            }
            items[n++] = (tp_tl_item){row_of[tk], e->ts, e->dur, short_name(&st, t, ev), kind_category(e), 0};
        }
    }
    free(last_bucket);
    free(drawn);
    tp_timeline tl = {title, nrows, labels, n, items, nrows};
    tp_tl_view v = {p->ws, p->we > p->ws ? p->we : p->ws + 1, p->ws, subtitle, "time since the window's start",
                    "other rows", 0, 0};
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Critical path");
    double h = pc->lh - 2 * TP_PAGE_MARGIN;
    tp_rect r = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc->lw - 2 * TP_PAGE_MARGIN, h * 0.62};
    tp_timeline_draw_view(cv, &tl, &v, r);
    /* below: what the path was bound by, and the names with the most path time */
    double x = TP_PAGE_MARGIN, y = TP_PAGE_MARGIN + h * 0.62 + 18;
    tp_cv_text(cv, x, y, TP_FONT_BOLD, 9, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, "Bound by (share of the window)");
    tp_cv_text(cv, x + 260, y, TP_FONT_BOLD, 9, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, "Most time on the path");
    double y0 = y;
    for (int k = 0; k < TP_CPB_COUNT; k++) {
        if (p->bound_ns[k] <= 0)
            continue;
        char pct[32], dd[48];
        tp_fmt_pct(pct, sizeof pct, p->bound_ns[k], p->length_ns);
        tp_fmt_dur(dd, sizeof dd, p->bound_ns[k]);
        y += 11;
        tp_cv_text(cv, x, y, TP_FONT_REGULAR, 8, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0,
                   tp_strs_add(&st, "%-14s %8s  %s", tp_cp_bound_name(k), pct, dd));
    }
    y = y0;
    for (size_t i = 0; i < p->ntop; i++) {
        char pct[32], dd[48];
        tp_fmt_pct(pct, sizeof pct, p->top[i].ns, p->length_ns);
        tp_fmt_dur(dd, sizeof dd, p->top[i].ns);
        y += 11;
        tp_cv_text(cv, x + 260, y, TP_FONT_REGULAR, 8, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0,
                   tp_strs_add(&st, "%s  %s  %s (%s)", pct, dd, name_text(&st, t, p->top[i].name),
                               tp_cp_bound_name(p->top[i].bound)));
    }
    tp_cv_end_page(cv);
    free(items);
    free(labels);
    free(row_of);
    tp_strs_free(&st);
}
