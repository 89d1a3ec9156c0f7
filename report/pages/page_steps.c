/* page_steps.c: per-step figures: a chart of the mean over steps with
 * min..max error bars, and the table of every step. */
#include "render/charts/chart_errbar.h"
#include "render/charts/chart_table.h"
#include "report/pages/pages.h"
#include "render/charts/palette.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

void tp_chart_steps(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const tp_step_figures *sf = &pc->s->sf;
    /* the steps the median is taken over (those with device work, when
     * some have none): a near-empty step would pull the mean and the
     * whiskers away from what the timeline shows */
    bool only_busy = sf->median_of < sf->nsteps;
    int64_t *v = tp_xmalloc((4 * sf->nsteps + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < sf->nsteps; i++)
        n += !only_busy || sf->steps[i].device_events > 0;
    for (size_t i = 0, k = 0; i < sf->nsteps; i++) {
        if (only_busy && sf->steps[i].device_events == 0)
            continue;
        v[k] = sf->steps[i].host_ns;
        v[n + k] = sf->steps[i].busy_ns;
        v[2 * n + k] = sf->steps[i].idle_ns;
        v[3 * n + k] = sf->steps[i].overlap_ns;
        k++;
    }
    tp_rep_series s[4] = {{"step time (host)", v, n},
                          {"device busy", v + n, n},
                          {"host - busy", v + 2 * n, n},
                          {"stream overlap", v + 3 * n, n}};
    char title[160];
    /* one step: no mean and no spread to speak of ("mean over 1 steps, bars from min to max") */
    if (n == 1 && only_busy)
        snprintf(title, sizeof title, "Step times: the 1 of %zu steps with device work (one step, no spread)",
                 sf->nsteps);
    else if (n == 1)
        snprintf(title, sizeof title, "Step times: the trace's one step (no spread)");
    else if (only_busy)
        snprintf(title, sizeof title, "Per-step times: mean over the %zu of %zu steps with device work, bars from min "
                                      "to max", n, sf->nsteps);
    else
        snprintf(title, sizeof title, "Per-step times: mean over %zu steps, bars from min to max", n);
    tp_errbar_draw(cv, title, "time", s, pc->s->sf.nstreams > 1 ? 4 : 3, TP_ERR_MINMAX, r);
    free(v);
}

tp_rect tp_steps_chart_rect(const tp_pagectx *pc)
{
    double m = TP_PAGE_MARGIN;
    return (tp_rect){m, m, pc->lw - 2 * m, (pc->lh - 2 * m) * 0.42};
}

void tp_chart_steps_png(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    (void)r; /* where the steps page draws it: the PNG is the same picture */
    tp_chart_steps(cv, pc, tp_steps_chart_rect(pc));
}

void tp_pages_steps(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    const tp_step_figures *sf = &s->sf;
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m, h = pc->lh - 2 * m;
    if (sf->nsteps == 0) { /* a one-row table of the whole trace: its figures are on the summary page */
        tp_page_note(pc, "Steps", "none in this trace (no ProfilerStep#N annotation or device Steps line): the "
                                  "figures are over the whole trace.");
        return;
    }
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Steps");
    double y = m;
    if (sf->nsteps) {
        tp_rect r = tp_steps_chart_rect(pc);
        tp_chart_steps(cv, pc, r);
        y += r.h + 10;
    }
    /* table: steps then the whole trace; stream busy columns for the (at
     * most 4) streams busiest over the whole trace, in display order */
    size_t sel[4], ns = 0;
    for (size_t k = 0; k < sf->nstreams; k++) {
        size_t j = ns < 4 ? ns++ : 4; /* insert by busy time, largest first */
        if (j == 4 && sf->whole.stream_busy[k] <= sf->whole.stream_busy[sel[3]])
            continue;
        if (j == 4)
            j = 3;
        while (j > 0 && sf->whole.stream_busy[sel[j - 1]] < sf->whole.stream_busy[k]) {
            sel[j] = sel[j - 1];
            j--;
        }
        sel[j] = k;
    }
    for (size_t a = 1; a < ns; a++) /* back to display order */
        for (size_t j = a; j > 0 && sel[j - 1] > sel[j]; j--) {
            size_t x = sel[j];
            sel[j] = sel[j - 1];
            sel[j - 1] = x;
        }
    size_t nc = 6 + ns, nr = sf->nsteps + 1;
    size_t maxr = (size_t)((m + h - y - 40) / 12);
    if (nr > maxr)
        nr = maxr; /* the rest is in summary.json */
    tp_strs st = {0};
    const char **cells = tp_xcalloc(nr * nc + 1, sizeof *cells);
    tp_table_col *cols = tp_xcalloc(nc, sizeof *cols);
    /* idle here is the host window less device busy, not the GPU time page's GPU span less busy: its head says so
     * (issue 36 item 3: one whole-trace idle per page, each on its named base) */
    const char *heads[] = {"step", "host", "device busy", "host - busy", "overlap", "device events"};
    for (size_t c = 0; c < 6; c++)
        cols[c] = (tp_table_col){heads[c], c > 0, TP_FIT_END, 0};
    for (size_t i = 0; i < nr; i++) {
        const tp_step_row *r = i < nr - 1 && i < sf->nsteps ? &sf->steps[i] : &sf->whole;
        const char **c = cells + i * nc;
        char lab[160];
        tp_step_label(s->t, sf, r, lab, sizeof lab);
        c[0] = r == &sf->whole ? "whole trace (first to last slice)" : tp_strs_add(&st, "%s", lab);
        c[1] = tp_strs_dur(&st, r->host_ns);
        c[2] = tp_strs_dur(&st, r->busy_ns);
        c[3] = tp_strs_dur(&st, r->idle_ns);
        c[4] = tp_strs_dur(&st, r->overlap_ns);
        c[5] = tp_strs_count(&st, r->device_events);
        for (size_t k = 0; k < ns; k++)
            c[6 + k] = tp_strs_dur(&st, r->stream_busy[sel[k]]);
    }
    /* stream columns are headed by their labels when every column fits its
     * text; else by "stream N" with a key under the table */
    const char *full[4], *shortn[4];
    double need = 0;
    for (size_t k = 0; k < ns; k++) {
        char lab[256];
        tp_stream_label(s->t, sf->streams[sel[k]], lab, sizeof lab);
        full[k] = tp_strs_add(&st, "%s busy", lab);
        shortn[k] = tp_strs_add(&st, "stream %zu busy", sel[k] + 1);
    }
    for (size_t c = 0; c < nc; c++) {
        double cw = tp_text_width(TP_FONT_BOLD, 8, c < 6 ? heads[c] : full[c - 6]);
        for (size_t i = 0; i < nr; i++)
            if (cells[i * nc + c])
                cw = fmax(cw, tp_text_width(TP_FONT_REGULAR, 8, cells[i * nc + c]));
        need += cw + 10;
    }
    bool keyed = need > w;
    for (size_t k = 0; k < ns; k++)
        cols[6 + k] = (tp_table_col){keyed ? shortn[k] : full[k], 1, TP_FIT_END, 0};
    bool on_device = sf->nsteps && sf->steps[0].event != TP_NONE &&
                     s->t->processes[s->t->tracks[s->t->events[sf->steps[0].event].track].process].is_device;
    const char *title = !sf->nsteps  ? "Whole trace (no steps in this trace)"
                        : on_device ? "Steps (one per device: a device's work belongs to its own step)"
                                    : "Steps (device work belongs to the step that launched it)";
    for (size_t k = 0; keyed && k < ns; k++) { /* the key of the stream columns */
        char lab[256];
        tp_stream_label(s->t, sf->streams[sel[k]], lab, sizeof lab);
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 8, TP_COLOR_MUTED,
                         tp_strs_add(&st, "stream %zu: %s (of %zu streams)", sel[k] + 1, lab, sf->nstreams));
    }
    y += keyed ? 4 : 0;
    tp_draw_small_table(cv, title, cols, nc, cells, nr, (tp_rect){m, y, w, m + h - y});
    free(cols);
    free(cells);
    tp_strs_free(&st);
    tp_cv_end_page(cv);
}
