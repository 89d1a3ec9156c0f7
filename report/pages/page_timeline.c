/* page_timeline.c: a Gantt chart of the median step (or of the whole
 * trace when it has no steps), zoomed to where its devices work: host
 * threads (one row per nesting level: TL_DEPTH levels that carry information,
 * wrappers of the next level folded and said so in the subtitle; the chart
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

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_DEPTH 4
#define TL_ROWS (TL_DEPTH + 1) /* and one for the ops that launch when those rows miss them */
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

/* The device activities of step m (all of them when NULL), in event order: the window's extent and the device
 * bars both come from them, so the trace is walked and each activity tested against the step once (the test reads
 * the launch call's start). */
static uint32_t *step_activities(const tp_trace *t, const tp_step_row *m, size_t *n)
{
    uint32_t *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!device_activity(e) || (m && !tp_step_holds(t, m, e)))
            continue;
        TP_GROW(v, cap, *n + 1);
        v[(*n)++] = (uint32_t)i;
    }
    return v;
}

/* The window [t0, t1) of step m's device activities acts[0..n): their extent with a margin, or the step's (the
 * whole trace's) span when they are none; true when zoomed to the activities. */
static bool window_of(const tp_summary *s, const tp_step_row *m, const uint32_t *acts, size_t n, int64_t *t0,
                      int64_t *t1)
{
    const tp_step_figures *sf = &s->sf;
    int64_t d0 = INT64_MAX, d1 = INT64_MIN;
    for (size_t k = 0; k < n; k++) {
        const tp_event *e = &s->t->events[acts[k]];
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (e->ts < d0)
            d0 = e->ts;
        if (end > d1)
            d1 = end;
    }
    if (d0 <= d1) {
        int64_t margin = (d1 - d0) / 50 > 0 ? (d1 - d0) / 50 : 1; /* 2% each side */
        *t0 = d0 > INT64_MIN + margin ? d0 - margin : d0;
        *t1 = d1 < INT64_MAX - margin ? d1 + margin : d1;
        return true;
    }
    *t0 = m ? m->ts : sf->span_start;
    *t1 = m ? m->ts + m->host_ns : sf->span_end + 1;
    return false;
}

bool tp_timeline_window(const tp_summary *s, int64_t *t0, int64_t *t1)
{
    const tp_step_row *m = shown_step(&s->sf);
    size_t n;
    uint32_t *acts = step_activities(s->t, m, &n);
    bool zoomed = window_of(s, m, acts, n, t0, t1);
    free(acts);
    return zoomed;
}

/* An informative level is drawn for its own time when it has at least this share (%) of the busiest level's. */
#define TL_OWN_SHARE_PCT 1

/* Levels looked at per host thread (deeper ones are never shown). */
#define TL_SCAN TP_TL_SCAN

/* An event that only wraps the next level: a child covering at least 95%
 * of it (Python stacks' execute_context, decorate_context, forward), or the
 * profiler's own span. */
static bool wraps(const tp_event *e, uint32_t nchild, int64_t child_dur, tp_str trace_cat)
{
    if (e->cat == trace_cat && e->kind == TP_KIND_OTHER)
        return true;
    return nchild >= 1 && e->dur > 0 && (__int128)child_dur * 100 >= (__int128)e->dur * 95;
}

/* A Python frame in torch's own files ("torch/utils/_device.py(99): __torch_function__", ".../site-packages/torch/...") */
static bool torch_plumbing(const char *name)
{
    return name && (!strncmp(name, "torch/", 6) || strstr(name, "/site-packages/torch/") != NULL) &&
           strstr(name, ".py(") != NULL;
}

/* The host slices that meet [ws, we) less than TL_SCAN levels down, in tree order: one walk of the host tree that
 * skips the subtree (sub_end) of a slice that starts at or after we, ends by ws or lies TL_SCAN levels down, as
 * none of its descendants can be in the window (a child starts inside its parent and ends by its end, hosttree.c),
 * and looks at every child of a slice it keeps.  The chart read each host slice of the trace five times (1 GB, a
 * step's window: a third of its drawing's CPU, most of it cache misses). */
tp_tl_host *tp_timeline_hosts(const tp_trace *t, const tp_host_tree *ht, int64_t ws, int64_t we, size_t *nout,
                              size_t *looked)
{
    tp_tl_host *v = NULL;
    size_t n = 0, cap = 0, depth = 0, seen = 0;
    uint32_t path_end[TL_SCAN]; /* the kept ancestors of the slice looked at: where each one's subtree ends */
    size_t path_at[TL_SCAN];    /* and its place in v */
    for (size_t p = 0; p < ht->n;) {
        while (depth && path_end[depth - 1] <= p)
            depth--;
        const tp_event *e = &t->events[ht->order[p]];
        seen++;
        if (depth) {
            tp_tl_host *par = &v[path_at[depth - 1]];
            par->nchild++;
            par->child_dur = e->dur > par->child_dur ? e->dur : par->child_dur;
        }
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (depth >= TL_SCAN || e->ts >= we || end <= ws) {
            p = ht->sub_end[p] > p ? ht->sub_end[p] : p + 1;
            continue;
        }
        TP_GROW(v, cap, n + 1);
        v[n] = (tp_tl_host){(uint32_t)p, 0, 0, (uint8_t)depth};
        path_end[depth] = ht->sub_end[p];
        path_at[depth++] = n++;
        p++;
    }
    *nout = n;
    if (looked)
        *looked = seen;
    return v;
}

/* The depth of host slice ev (0 for a root), TL_SCAN when it lies that deep or deeper. */
static size_t host_depth(const tp_host_tree *ht, uint32_t ev)
{
    size_t d = 0;
    for (uint32_t q = ht->parent[ev]; q != TP_NONE && d < TL_SCAN; q = ht->parent[q])
        d++;
    return d;
}

/* Per (logical host track, depth < TL_SCAN) the row slot 0..TL_DEPTH-1 the
 * level is drawn in, or -1: levels whose every event in [ws, we) only wraps
 * the next one are folded when deeper levels exist, then the first TL_DEPTH
 * of those left are shown (the ops that launch and the frames around the GPU
 * gaps, where the wrappers took the four rows before). */
static int8_t *choose_levels(const tp_trace *t, const tp_host_tree *ht, const tp_tl_host *win, size_t nwin,
                             tp_str trace_cat, int64_t ws, int64_t we)
{
    size_t nt = t->ntracks;
    int8_t *slot = tp_xmalloc(nt * TL_SCAN + 1);
    memset(slot, -1, nt * TL_SCAN + 1);
    uint8_t *state = tp_xcalloc(nt * TL_SCAN + 1, 1); /* 0 no event, 1 wrappers, 2 informative */
    int64_t *all_ns = tp_xcalloc(nt * TL_SCAN + 1, sizeof *all_ns), *wrap_ns = tp_xcalloc(nt * TL_SCAN + 1, sizeof *wrap_ns);
    int64_t *rep_ns = tp_xcalloc(nt * TL_SCAN + 1, sizeof *rep_ns);
    tp_str *top_name = tp_xcalloc(nt * TL_SCAN + 1, sizeof *top_name); /* a level's longest event's name */
    int64_t *top_dur = tp_xcalloc(nt * TL_SCAN + 1, sizeof *top_dur);
    for (size_t k = 0; k < nwin; k++) {
        const tp_event *e = &t->events[ht->order[win[k].p]];
        size_t at = (size_t)ht->logical[e->track] * TL_SCAN + win[k].depth;
        int64_t d = e->dur > 0 ? e->dur : 0;
        all_ns[at] = tp_sat_add(all_ns[at], d);
        if (wraps(e, win[k].nchild, win[k].child_dur, trace_cat)) {
            wrap_ns[at] = tp_sat_add(wrap_ns[at], d);
            /* torch's own Python dispatch frames (torch/utils/_device.py(99): __torch_function__) say nothing of
             * where the work came from */
            if (torch_plumbing(tp_str_get(t, e->name)))
                rep_ns[at] = tp_sat_add(rep_ns[at], d);
        }
        if (d >= top_dur[at])
            top_dur[at] = d, top_name[at] = e->name;
        state[at] = 1;
    }
    /* the ops that launch the window's device work: per level, the device events whose launching op sits there */
    uint32_t *launches = tp_xcalloc(nt * TL_SCAN + 1, sizeof *launches);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *g = &t->events[i];
        if (g->link == TP_NONE || g->op == TP_NONE || g->op >= t->nevents || g->ts >= we || g->ts < ws)
            continue;
        uint32_t par = g->op; /* the host op the launch ran under (aten::mm), not a Python frame around the call */
        if (t->events[par].kind != TP_KIND_HOST_OP || ht->pos[par] == TP_NONE)
            continue; /* an annotation around a graph replay (SGLang's step[DECODE bs=32]) is no launching op */
        size_t depth = host_depth(ht, par);
        if (depth < TL_SCAN)
            launches[(size_t)ht->logical[t->events[par].track] * TL_SCAN + depth]++;
    }
    /* a level is a wrapper when 95% of its time is in events that only wrap the next (a stray short call beside
     * them does not make it informative) */
    for (size_t i = 0; i < nt * TL_SCAN; i++)
        if (state[i] && (__int128)wrap_ns[i] * 100 < (__int128)all_ns[i] * 95)
            state[i] = 2;
    for (size_t k = 0; k < nt; k++) {
        const uint8_t *sk = state + k * TL_SCAN;
        int deepest = -1;
        for (int d = 0; d < TL_SCAN; d++)
            deepest = sk[d] ? d : deepest;
        int n = 0, shallowest = deepest;
        /* the informative levels with the most time of their own (not wrapping the next), all but one row; a
         * level under TL_OWN_SHARE of the first one's own time is not drawn before the frames around that one
         * (SGLang: a 465 ms blocking copy, and below it Python helpers of 0.1 ms took two of the four rows, the
         * frames that made the copy none) */
        int64_t first_ns = -1;
        /* the level of the ops that launch most of the window's device work (B200 vLLM, host-bound: the aten and
         * vllm ops under 22 levels of Python frames), drawn below when the rows chosen miss it */
        int launch_level = -1;
        for (int d = 0; d <= deepest; d++)
            if (sk[d] && launches[k * TL_SCAN + d] > 0 &&
                (launch_level < 0 || launches[k * TL_SCAN + d] > launches[k * TL_SCAN + launch_level]))
                launch_level = d;
        while (n < TL_DEPTH - 1) {
            int best = -1;
            int64_t best_ns = 0;
            for (int d = 0; d <= deepest; d++) {
                int64_t own = all_ns[k * TL_SCAN + d] - wrap_ns[k * TL_SCAN + d];
                if (sk[d] == 2 && slot[k * TL_SCAN + d] < 0 && (best < 0 || own > best_ns)) {
                    best = d;
                    best_ns = own;
                }
            }
            if (best < 0 || (first_ns >= 0 && (__int128)best_ns * 100 < (__int128)first_ns * TL_OWN_SHARE_PCT))
                break;
            if (first_ns < 0)
                first_ns = best_ns;
            slot[k * TL_SCAN + best] = (int8_t)n++;
            shallowest = best < shallowest ? best : shallowest;
        }
        /* then the frames right around them (the wrappers just above: what the informative ops ran in; a level
         * whose longest event repeats a drawn level's, or that is torch's own Python plumbing, is skipped), then the other levels in depth order */
        for (int d = shallowest - 1; d >= 0 && n < TL_DEPTH; d--) {
            size_t at = k * TL_SCAN + (size_t)d;
            bool skip = all_ns[at] > 0 && (__int128)rep_ns[at] * 100 >= (__int128)all_ns[at] * 95;
            for (int c = d + 1; c <= deepest && !skip; c++) /* its longest event a drawn level's again (aten::copy_
                                                             * under copy_ under aten::copy_) */
                skip = slot[k * TL_SCAN + c] >= 0 && top_dur[at] > 0 && top_name[k * TL_SCAN + c] == top_name[at];
            if (sk[d] && slot[at] < 0 && !skip)
                slot[at] = (int8_t)n++;
        }
        for (int d = 0; d <= deepest && n < TL_DEPTH; d++)
            if (sk[d] && slot[k * TL_SCAN + d] < 0)
                slot[k * TL_SCAN + d] = (int8_t)n++;
        /* the ops that launch, when none of those rows holds them: one more row (a Python-stack trace's aten and
         * vllm ops sit under tens of frames; the frames around a GPU gap keep theirs) */
        if (launch_level >= 0 && slot[k * TL_SCAN + launch_level] < 0)
            slot[k * TL_SCAN + launch_level] = (int8_t)n++;
        /* slots in depth order, so the rows read top-down */
        n = 0;
        for (int d = 0; d <= deepest; d++)
            if (slot[k * TL_SCAN + d] >= 0)
                slot[k * TL_SCAN + d] = (int8_t)n++;
    }
    free(state);
    free(all_ns);
    free(wrap_ns);
    free(rep_ns);
    free(launches);
    free(top_name);
    free(top_dur);
    return slot;
}

/* "host levels folded (one op wrapping the next): 1-3 (execute_context, forward)": the levels with events in the
 * window that are not drawn, and the first names at them; "" when none is. */
static void folded_note(const tp_trace *t, const tp_host_tree *ht, const tp_tl_host *win, size_t nwin, const int8_t *slot,
                        char *buf, size_t n)
{
    bool seen[TL_SCAN] = {false}, drawn[TL_SCAN] = {false};
    for (size_t k = 0; k < nwin; k++) {
        const tp_event *e = &t->events[ht->order[win[k].p]];
        if (slot[(size_t)ht->logical[e->track] * TL_SCAN + win[k].depth] >= 0)
            drawn[win[k].depth] = true;
        else
            seen[win[k].depth] = true;
    }
    /* threads fold their own levels: a level folded on one thread may be drawn on another (the TPU XPlane's notes
     * said "levels 1-11 folded" above rows labelled "level 2" and "level 3") */
    bool some = false;
    for (int d = 0; d < TL_SCAN; d++)
        some |= seen[d] && drawn[d];
    tp_buf b = {0};
    size_t nn = 0;
    for (int d = 0; d < TL_SCAN; d++) {
        if (!seen[d])
            continue;
        int e = d;
        while (e + 1 < TL_SCAN && seen[e + 1]) /* runs as ranges: "5-40" */
            e++;
        if (e > d)
            tp_buf_printf(&b, "%s%d-%d", b.len ? ", " : "", d + 1, e + 1);
        else
            tp_buf_printf(&b, "%s%d", b.len ? ", " : "", d + 1);
        nn++;
        d = e;
    }
    if (b.len)
        snprintf(buf, n, "host level%s %s folded%s (wrappers of the next level, or past %d rows)",
                 nn == 1 && !strchr(b.data, '-') ? "" : "s", b.data, some ? " on some threads" : "", TL_DEPTH);
    tp_buf_free(&b);
}

/* The chart's rows and bars: built once per report (by tp_timeline_prepare beside the findings, else by the first
 * of the PDF and PNG passes that draws it; a build walks the events twice, the track order aside, and the host
 * slices of the window once), then only read. */
struct tp_tl_cache {
    pthread_mutex_t mu;
    bool built;
    tp_strs st;
    const char **labels;
    tp_tl_item *items;
    tp_timeline tl;
    tp_tl_view v;
};

static void timeline_build(const tp_pagectx *pc, tp_tl_cache *c)
{
    const tp_summary *s = pc->s;
    const tp_trace *t = s->t;
    const tp_host_tree *ht = &s->ht;
    const tp_step_figures *sf = &s->sf;
    const tp_step_row *m = shown_step(sf);
    tp_strs st = {0};
    int64_t ws, we;
    size_t nacts;
    uint32_t *acts = step_activities(t, m, &nacts);
    bool zoomed = window_of(s, m, acts, nacts, &ws, &we);
    int64_t origin = m ? m->ts : sf->span_start;
    if (ws < origin && origin < we)
        ws = origin; /* the margin never reaches before the step's start: no axis starting at "-81.057 us" */
    const char *title, *subtitle = NULL;
    if (m) {
        char d[48], lab[200];
        tp_fmt_dur(d, sizeof d, m->host_ns);
        tp_step_label(t, sf, m, lab, sizeof lab);
        if (sf->nsteps == 1) /* not "the median of 1 steps" */
            title = tp_strs_add(&st, "Timeline of step %s (the trace's one step; step time %s)", lab, d);
        else if (sf->median_of == 1)
            title = tp_strs_add(&st, "Timeline of step %s (the 1 of %zu steps with device work; step time %s)", lab,
                                sf->nsteps, d);
        else if (sf->median_of < sf->nsteps)
            title = tp_strs_add(&st, "Timeline of step %s (the median of the %zu of %zu steps with device work; step time %s)",
                                lab, sf->median_of, sf->nsteps, d);
        else
            title = tp_strs_add(&st, "Timeline of step %s (the median of %zu steps; step time %s)", lab, sf->nsteps, d);
    } else {
        title = "Timeline of the whole trace (no steps)";
    }
    char shown[160] = "";
    if (zoomed) {
        char a[32], b[32];
        tp_fmt_dur(a, sizeof a, ws - origin);
        tp_fmt_dur(b, sizeof b, we - origin);
        snprintf(shown, sizeof shown, "shown: %s to %s after the %s, where the devices work (2%% margin); ", a, b,
                 m ? "step's start" : "first event");
    }
    /* rows: host (logical track, depth), then device streams */
    uint32_t *order = tp_track_order(t);
    size_t nt = t->ntracks;
    int32_t *row_of = tp_xmalloc((nt * TL_ROWS + 1) * sizeof *row_of); /* host track*depth -> row */
    for (size_t i = 0; i < nt * TL_ROWS; i++)
        row_of[i] = -1;
    size_t nitems = 0, icap = 0;
    tp_tl_item *items = NULL;
    tp_str trace_cat = TP_NONE;
    for (tp_str id = 1; id < t->nstr; id++)
        if (strcmp(tp_str_get(t, id), "Trace") == 0) {
            trace_cat = id;
            break;
        }
    /* host work in the window (the chart clips what sticks out) */
    size_t nwin;
    tp_tl_host *win = tp_timeline_hosts(t, ht, ws, we, &nwin, NULL);
    /* the levels shown per host thread: those that carry information, not the wrappers of Python stacks */
    int8_t *slot = choose_levels(t, ht, win, nwin, trace_cat, ws, we);
    char folded[200] = "";
    folded_note(t, ht, win, nwin, slot, folded, sizeof folded);
    for (size_t k = 0; k < nwin; k++) {
        const tp_event *e = &t->events[ht->order[win[k].p]];
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        int s_ = slot[(size_t)ht->logical[e->track] * TL_SCAN + win[k].depth];
        if (s_ < 0)
            continue;
        if (e->cat == trace_cat && e->kind == TP_KIND_OTHER)
            continue; /* the profiler's own span ("PyTorch Profiler (0)", cat Trace) covers everything */
        row_of[ht->logical[e->track] * TL_ROWS + (size_t)s_] = win[k].depth + 1; /* the level's number, for its label */
        TP_GROW(items, icap, nitems + 1);
        items[nitems++] = (tp_tl_item){(uint32_t)(ht->logical[e->track] * TL_ROWS + (size_t)s_), e->ts, end - e->ts,
                                       tp_str_get(t, e->name), category(e), 0};
    }
    free(slot);
    free(win);
    /* a window of device work with no host work in it (vLLM's full-graph decode: the host's 1,005 slices end at
     * 2.409 ms, the replay runs from 8.156 ms): say where the host work is, not a chart of one stream and no word */
    char no_host[160] = "";
    if (zoomed && nitems == 0 && ht->n > 0) {
        int64_t h0 = INT64_MAX, h1 = INT64_MIN;
        for (size_t p = 0; p < ht->n; p++) {
            const tp_event *e = &t->events[ht->order[p]];
            int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
            h0 = e->ts < h0 ? e->ts : h0;
            h1 = end > h1 ? end : h1;
        }
        char a[32], b[32];
        tp_fmt_dur(a, sizeof a, h0 - origin);
        tp_fmt_dur(b, sizeof b, h1 - origin);
        snprintf(no_host, sizeof no_host, "no host work in this window (the host's ops lie at %s to %s); ", a, b);
    }
    /* the levels not drawn before the note on pale bars: the line is cut at its end when long, never a number */
    if (zoomed || folded[0])
        subtitle = tp_strs_add(&st, "%s%s%s%sa bar lighter than its colour is a stretch busy only that fraction of its width",
                               shown, no_host, folded, folded[0] ? "; " : "");
    size_t nrows = 0;
    const char **labels = tp_xmalloc((nt * TL_ROWS + sf->nstreams + 1) * sizeof *labels);
    for (size_t k = 0; k < nt; k++) {
        uint32_t tk = order[k];
        for (int d = 0; d < TL_ROWS; d++) {
            if (row_of[tk * TL_ROWS + d] < 0)
                continue;
            int level = row_of[tk * TL_ROWS + d];
            row_of[tk * TL_ROWS + d] = (int32_t)nrows;
            char lab[256];
            tp_stream_label(t, tk, lab, sizeof lab);
            labels[nrows++] = d == 0 ? (level == 1 ? tp_strs_add(&st, "%s", lab) : tp_strs_add(&st, "%s level %d", lab, level))
                                     : tp_strs_add(&st, "level %d", level);
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
    for (size_t k = 0; k < nacts; k++) {
        uint32_t i = acts[k];
        const tp_event *e = &t->events[i];
        if (e->ts >= we || (__int128)e->ts + e->dur <= ws) /* 128 bits: corrupt durations */
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
    c->tl = (tp_timeline){title, nrows, labels, nitems, items, sf->nstreams}; /* device streams kept */
    c->v = (tp_tl_view){ws, we, origin, subtitle, m ? "time since the step's start" : "time since the first event",
                        "other host rows", 0, TL_HOST_ROWS};
    c->st = st;
    c->labels = labels;
    c->items = items;
    c->built = true;
    free(srow);
    free(row_of);
    free(order);
    free(acts);
}

tp_tl_cache *tp_timeline_cache_new(void)
{
    tp_tl_cache *c = tp_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void tp_timeline_cache_free(tp_tl_cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c->labels);
    free(c->items);
    tp_strs_free(&c->st);
    free(c);
}

/* the cache built when it is not yet (the caller holds its lock) */
static void cache_ready(const tp_pagectx *pc, tp_tl_cache *c)
{
    if (!c->built)
        timeline_build(pc, c);
}

void tp_timeline_prepare(const tp_pagectx *pc)
{
    tp_tl_cache *c = pc->notes ? pc->notes->timeline : NULL;
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    cache_ready(pc, c);
    pthread_mutex_unlock(&c->mu);
}

void tp_chart_timeline(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    tp_tl_cache *c = pc->notes ? pc->notes->timeline : NULL, own;
    if (!c) { /* a context made by hand (tests): built for this drawing alone */
        memset(&own, 0, sizeof own);
        timeline_build(pc, &own);
        tp_timeline_draw_view(cv, &own.tl, &own.v, r);
        free(own.labels);
        free(own.items);
        tp_strs_free(&own.st);
        return;
    }
    pthread_mutex_lock(&c->mu); /* the other pass waits for the build rather than doing it again */
    cache_ready(pc, c);
    pthread_mutex_unlock(&c->mu);
    tp_timeline_draw_view(cv, &c->tl, &c->v, r);
}
