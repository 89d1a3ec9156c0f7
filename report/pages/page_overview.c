/* page_overview.c: page 1, what a reader needs first (as xprof's overview
 * leads): the few lines that say where the time goes, each step's time split
 * (computation, exposed communication, exposed memcpy, idle, host only), what
 * the report leaves out and the pages it has.  docs/REPORT.md "The overview". */
#include "render/charts/axis.h"
#include "render/charts/chart_hstack.h"
#include "render/charts/palette.h"
#include "render/labels/kname.h"
#include "render/text/textfit.h"
#include "report/findings/findings.h"
#include "report/pages/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS 9.0
#define MAX_STEP_ROWS 40 /* steps in the split chart; the rest are counted in its title */

static const char *const part_names[TP_SPLIT_PARTS] = {"computation", "exposed communication", "exposed memcpy",
                                                       "idle", "host only"};

tp_color tp_split_color(int part)
{
    static const int slot[3] = {16, 17, 18};
    return part == TP_SPLIT_IDLE   ? (tp_color)0xFFFFFF /* the empty part of an outlined bar */
           : part == TP_SPLIT_HOST ? (tp_color)0xC8C8C8
                                   : tp_palette((size_t)slot[part]);
}

/* One window's split, each part the mean over the devices with work in it:
 * the parts add up to the window (the step's time). */
static void window_split(const tp_gpu_figs *per_dev, size_t ndev, size_t stride, int64_t window_ns, int64_t *out)
{
    int64_t sum[TP_SPLIT_HOST] = {0}, span = 0;
    int64_t k = 0;
    for (size_t d = 0; d < ndev; d++) {
        const tp_gpu_figs *f = &per_dev[d * stride];
        if (f->span_ns <= 0)
            continue;
        k++;
        sum[TP_SPLIT_COMP] += f->computation_ns;
        sum[TP_SPLIT_XCOMM] += f->exposed_communication_ns;
        sum[TP_SPLIT_XMEMCPY] += f->exposed_memcpy_ns;
        sum[TP_SPLIT_IDLE] += f->idle_ns;
        span += f->span_ns;
    }
    for (int p = 0; p < TP_SPLIT_HOST; p++)
        out[p] = k ? sum[p] / k : 0;
    int64_t host = window_ns - (k ? span / k : 0);
    out[TP_SPLIT_HOST] = host > 0 ? host : 0;
}

typedef struct split_chart {
    tp_hstack c;
    const char **labels, **notes;
    int64_t *vals;
    tp_color colors[TP_SPLIT_PARTS];
    tp_strs st;
} split_chart;

static void split_build(const tp_summary *s, split_chart *b, double fs)
{
    memset(b, 0, sizeof *b);
    const tp_step_figures *sf = &s->sf;
    const tp_gpu_time *g = &s->gt;
    size_t n = sf->nsteps ? (sf->nsteps < MAX_STEP_ROWS ? sf->nsteps : MAX_STEP_ROWS) : 1;
    b->labels = tp_xcalloc(n, sizeof *b->labels);
    b->notes = tp_xcalloc(n, sizeof *b->notes);
    b->vals = tp_xcalloc(n * TP_SPLIT_PARTS, sizeof *b->vals);
    for (int p = 0; p < TP_SPLIT_PARTS; p++)
        b->colors[p] = tp_split_color(p);
    for (size_t i = 0; i < n; i++) {
        int64_t window;
        if (sf->nsteps) {
            char lab[160];
            tp_step_label(s->t, sf, &sf->steps[i], lab, sizeof lab);
            b->labels[i] = tp_strs_add(&b->st, "%s%s", lab, i == sf->median ? " (median)" : "");
            window = sf->steps[i].host_ns;
            window_split(g->ndevices ? &g->dev_steps[i] : NULL, g->ndevices, g->nsteps, window,
                         b->vals + i * TP_SPLIT_PARTS);
        } else {
            b->labels[i] = "whole trace";
            window = sf->whole.host_ns;
            for (size_t k = 0; k < TP_SPLIT_PARTS; k++)
                b->vals[k] = 0;
            tp_gpu_figs *w = tp_xcalloc(g->ndevices + 1, sizeof *w);
            for (size_t k = 0; k < g->ndevices; k++)
                w[k] = g->devices[k].whole;
            window_split(w, g->ndevices, 1, window, b->vals);
            free(w);
        }
        b->notes[i] = tp_strs_dur(&b->st, window);
    }
    const char *title;
    if (!sf->nsteps)
        title = "The whole trace's time, split (no steps in this trace)";
    else if (n < sf->nsteps)
        title = tp_strs_add(&b->st, "Each step's time, split: the first %zu of %zu steps (all in summary.json)", n,
                            sf->nsteps);
    else
        title = "Each step's time, split";
    b->c = (tp_hstack){title, g->ndevices <= 1 ? "time"
                              : sf->nsteps  ? "time (each part the mean over the devices working in the step)"
                                            : "time (each part the mean over the devices working)",
                       n, TP_SPLIT_PARTS, b->labels, b->vals, b->colors, part_names, b->notes, fs};
}

static void split_free(split_chart *b)
{
    free(b->labels);
    free(b->notes);
    free(b->vals);
    tp_strs_free(&b->st);
}

void tp_chart_overview(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    split_chart b;
    split_build(pc->s, &b, r.w > 700 ? 12 : 0);
    tp_hstack_draw(cv, &b.c, r);
    split_free(&b);
}

/* A wrapped paragraph; returns the y below it. */
static double para(tp_canvas *cv, double x, double y, double w, tp_font f, tp_color c, const char *s)
{
    return tp_page_para(cv, x, y, w, f, FS, c, s, 6) + 2;
}

static const char *pct(tp_strs *st, int64_t part, int64_t whole)
{
    char p[32];
    tp_fmt_pct(p, sizeof p, part, whole);
    return tp_strs_add(st, "%s", p);
}

static const char *dur(tp_strs *st, int64_t ns) { return tp_strs_dur(st, ns); }

/* The lines a reader needs: the step, where the GPU time goes, what
 * dominates, how efficient; each figure on the base its words name. */
static double headlines(tp_canvas *cv, const tp_pagectx *pc, double x, double y, double w, tp_strs *st)
{
    const tp_summary *s = pc->s;
    const tp_step_figures *sf = &s->sf;
    const tp_gpu_figs *g = &s->gt.whole;
    if (sf->nsteps) {
        int64_t lo = sf->steps[0].host_ns, hi = lo;
        for (size_t i = 1; i < sf->nsteps; i++) {
            lo = sf->steps[i].host_ns < lo ? sf->steps[i].host_ns : lo;
            hi = sf->steps[i].host_ns > hi ? sf->steps[i].host_ns : hi;
        }
        char lab[160];
        tp_step_label(s->t, sf, &sf->steps[sf->median], lab, sizeof lab);
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT,
                 sf->nsteps > 1
                     ? tp_strs_add(st, "Median step: %s (step %s, the median of %s; they last %s to %s).",
                                   dur(st, sf->steps[sf->median].host_ns), lab,
                                   sf->median_of < sf->nsteps
                                       ? tp_strs_add(st, "the %zu of %zu steps with device work", sf->median_of,
                                                     sf->nsteps)
                                       : tp_strs_add(st, "%zu steps", sf->nsteps),
                                   dur(st, lo), dur(st, hi))
                                : tp_strs_add(st, "One step: %s lasts %s.", lab, dur(st, lo)));
    } else if (s->slices)
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT,
                 tp_strs_add(st, "No steps: the trace spans %s; every figure is over the whole trace.",
                             dur(st, sf->span_end - sf->span_start)));
    else
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT,
                 tp_strs_add(st, "The trace has no timed events (%llu events read): nothing to measure.",
                             (unsigned long long)s->t->events_in));
    if (g->span_ns > 0) {
        tp_buf b = {0};
        tp_buf_printf(&b, "GPU busy %s of the GPU span (%s%s): computation %s", pct(st, g->busy_ns, g->span_ns),
                      dur(st, g->span_ns), s->gt.ndevices > 1 ? tp_strs_add(st, ", summed over %zu devices",
                                                                            s->gt.ndevices) : "",
                      pct(st, g->computation_ns, g->span_ns));
        if (g->communication_ns)
            tp_buf_printf(&b, ", exposed communication %s", pct(st, g->exposed_communication_ns, g->span_ns));
        if (g->memcpy_ns)
            tp_buf_printf(&b, ", exposed memcpy %s", pct(st, g->exposed_memcpy_ns, g->span_ns));
        tp_buf_printf(&b, ", idle %s.", pct(st, g->idle_ns, g->span_ns));
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT, b.data);
        tp_buf_free(&b);
    } else
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT,
                 "No device activity: the trace holds host events only, so there is no GPU time to split.");
    if (s->cat.n) {
        tp_buf b = {0};
        tp_buf_printf(&b, "Biggest category: %s, %s of device time",
                      s->cat.rules->names[s->cat.rows[0].category],
                      pct(st, s->cat.rows[0].device_ns, s->cat.total_ns));
        size_t k = 0; /* the top kernel (memcpy and memset rows are no kernels): a share of kernel time only */
        while (k < pc->nknames && s->kt.rows[k].kind != TP_KIND_KERNEL)
            k++;
        if (k < pc->nknames && s->kt.kernel_ns > 0)
            tp_buf_printf(&b, "; top kernel: %s, %s of kernel time", pc->knames[k],
                          pct(st, s->kt.rows[k].total_ns, s->kt.kernel_ns));
        tp_buf_puts(&b, ".");
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT, b.data);
        tp_buf_free(&b);
    }
    size_t top = 0; /* the first op that is one: device work without a host op says nothing here */
    while (top < s->ob.nops && s->ob.ops[top].no_op)
        top++;
    if (top < s->ob.nops) {
        char *name = tp_kname_cut(tp_opk_op_name(s->t, &s->ob.ops[top]), 120); /* a Python frame can run on */
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT,
                 tp_strs_add(st, "Top op: %s, %s of the device time under top-level ops.", name,
                             pct(st, s->ob.ops[top].total_ns, s->ob.total_ns)));
        free(name);
    }
    const tp_efficiency *e = &s->eff;
    if (e->n && e->device_ns > 0) {
        tp_buf b = {0};
        tp_buf_printf(&b, "Efficiency: %zu op shapes have FLOPs and bytes (%s of device time)", e->n,
                      pct(st, e->modelled_ns, e->device_ns));
        if (e->nopportunities) {
            const tp_eff_row *o = &e->rows[e->by_opportunity[0]];
            tp_buf_printf(&b, "; the biggest opportunity: %s, %s of device time at %.0f%% of its roof", o->op,
                          dur(st, o->device_ns), o->peak_fraction * 100);
        }
        tp_buf_puts(&b, ".");
        y = para(cv, x, y, w, TP_FONT_REGULAR, TP_COLOR_TEXT, b.data);
        tp_buf_free(&b);
    }
    return y;
}

/* "See: TITLE · TITLE", each title a link to the report's page that shows
 * the finding (those the report drew); nothing when it drew none.  Returns
 * the y below. */
static double finding_pages(tp_canvas *cv, const tp_pagectx *pc, const tp_measure *m, double x, double y)
{
    const double fs = FS - 1, lh = fs * 1.45;
    double cx = x, base = y + tp_font_ascent(TP_FONT_REGULAR, fs);
    bool any = false;
    for (size_t k = 0; k < 2; k++) {
        const char *title = m->pages[k];
        if (!title || !tp_page_drawn(pc, title))
            continue;
        const char *lead = any ? "  ·  " : "See: ";
        tp_cv_text(cv, cx, base, TP_FONT_REGULAR, fs, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, lead);
        cx += tp_text_width(TP_FONT_REGULAR, fs, lead);
        double tw = tp_text_width(TP_FONT_REGULAR, fs, title);
        tp_cv_text(cv, cx, base, TP_FONT_REGULAR, fs, TP_COLOR_LINK, TP_ALIGN_LEFT, 0, title);
        tp_cv_link_page(cv, cx, base - tp_font_ascent(TP_FONT_REGULAR, fs), tw, lh, title);
        cx += tw;
        any = true;
    }
    return any ? y + lh + 3 : y;
}

#define PAGE_FINDINGS 3   /* findings on the page: summary.json has them all */
#define PAGE_EVIDENCE 2   /* evidence lines per finding on the page */

/* The findings first (docs/REPORT.md "Findings"): each one's verdict and
 * impact, its first evidence lines and the next step; or "No finding" in
 * words.  Returns the y below. */
double tp_page_findings(tp_canvas *cv, const tp_pagectx *pc, const struct tp_findings *f, double x, double y, double w,
                        tp_strs *st)
{
    if (!f->n) {
        y = para(cv, x, y, w, TP_FONT_BOLD, TP_COLOR_TEXT,
                 tp_strs_add(st, "No finding: none of the %zu rules reached its threshold on this %s.", f->nrules,
                             f->subject ? f->subject : "trace"));
    }
    for (size_t i = 0; i < f->n && i < PAGE_FINDINGS; i++) {
        const tp_finding *x_ = &f->items[i];
        char p[32];
        tp_find_pct(p, sizeof p, x_->m->impact_milli);
        /* its scope (steps, a rank of a job), as summary.md's verdict names it */
        char scope[128];
        tp_find_scope_phrase(x_, scope, sizeof scope);
        char per[160] = "";
        if (x_->nsteps && !x_->m->risk) {
            char sp[32];
            tp_find_pct(sp, sizeof sp, x_->step_impact_milli);
            snprintf(per, sizeof per, x_->nsteps == 1 ? "; in that step %s, %s of the step's time"
                                                      : "; per step (median) %s, %s of the step's time",
                     dur(st, x_->step_impact_ns), sp);
        }
        if (x_->m->risk) { /* a memory risk: its value, no time */
            tp_find_pct(p, sizeof p, x_->m->value_milli);
            y = para(cv, x, y, w, TP_FONT_BOLD, TP_COLOR_TEXT,
                     tp_strs_add(st, "%zu. %s%s: a memory risk, %s of %s.", i + 1, x_->rule->title, scope, p,
                                 x_->m->base));
        } else
            y = para(cv, x, y, w, TP_FONT_BOLD, TP_COLOR_TEXT,
                     tp_strs_add(st, "%zu. %s%s: up to %s to gain, %s of %s%s.", i + 1, x_->rule->title, scope,
                                 dur(st, x_->m->impact_ns), p, x_->m->impact_base, per));
        for (size_t k = 0; k < x_->m->nevidence && k < PAGE_EVIDENCE; k++)
            y = tp_page_para(cv, x + 10, y, w - 10, TP_FONT_REGULAR, FS - 1, TP_COLOR_MUTED, x_->m->evidence[k], 6) + 1;
        if (x_->m->confidence)
            y = tp_page_para(cv, x + 10, y, w - 10, TP_FONT_REGULAR, FS - 1, TP_COLOR_MUTED,
                             tp_strs_add(st, "Confidence: %s.", x_->m->confidence), 6) + 1;
        y = tp_page_para(cv, x + 10, y, w - 10, TP_FONT_REGULAR, FS - 1, TP_COLOR_TEXT,
                         tp_strs_add(st, "Next: %s", x_->rule->next), 6) + 1;
        y = (pc ? finding_pages(cv, pc, x_->m, x + 10, y) : y) + 2; /* the pages of a report that has them */
    }
    if (f->n > PAGE_FINDINGS)
        y = tp_page_para(cv, x, y, w, TP_FONT_REGULAR, FS - 1, TP_COLOR_MUTED,
                         tp_strs_add(st, "%zu more findings in summary.json.", f->n - PAGE_FINDINGS), 6) + 2;
    for (size_t i = 0; i < f->nunsure; i++) { /* each reason a measure could not tell, once */
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= !tp_find_unsure_same(f, i, j);
        if (!first)
            continue;
        tp_buf ids = {0};
        for (size_t j = i; j < f->nunsure; j++)
            if (tp_find_unsure_same(f, i, j))
                tp_buf_printf(&ids, "%s%s", ids.len ? ", " : "", f->unsure[j]->id);
        y = tp_page_para(cv, x, y, w, TP_FONT_REGULAR, FS - 1, TP_COLOR_MUTED,
                         tp_strs_add(st, "Cannot tell (%s): %s.", ids.data, f->unsure_m[i]->why), 6) + 1;
        tp_buf_free(&ids);
    }
    return y + 4;
}

static double findings_block(tp_canvas *cv, const tp_pagectx *pc, double x, double y, double w, tp_strs *st)
{
    tp_findings local = {0}; /* as the summary writers: built here when the caller set none */
    const tp_findings *f = pc->s->findings;
    if (!f) {
        tp_findings_build(pc->s, NULL, &local);
        f = &local;
    }
    y = tp_page_findings(cv, pc, f, x, y, w, st);
    tp_findings_free(&local);
    return y;
}

/* "In this report:" and the pages after this one, each a link to its page,
 * flowing over lines; with cv NULL, only measured.  Returns the y below. */
static double page_list(tp_canvas *cv, const tp_page_notes *N, double x, double y, double w)
{
    const double fs = FS - 1, lh = fs * 1.45;
    const char *head = "In this report: ";
    double hw = tp_text_width(TP_FONT_BOLD, fs, head), sep = tp_text_width(TP_FONT_REGULAR, fs, "  ·  ");
    double cx = x + hw, base = y + tp_font_ascent(TP_FONT_REGULAR, fs);
    if (cv)
        tp_cv_text(cv, x, base, TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, head);
    for (size_t i = 0; i < N->npages; i++) {
        double tw = tp_text_width(TP_FONT_REGULAR, fs, N->pages[i]);
        if (cx + tw > x + w && cx > x + hw) { /* the next line, under the first title */
            cx = x + hw;
            base += lh;
        }
        if (cv) {
            tp_cv_text(cv, cx, base, TP_FONT_REGULAR, fs, TP_COLOR_LINK, TP_ALIGN_LEFT, 0, N->pages[i]);
            tp_cv_link_page(cv, cx, base - tp_font_ascent(TP_FONT_REGULAR, fs), tw, lh, N->pages[i]);
            if (i + 1 < N->npages)
                tp_cv_text(cv, cx + tw, base, TP_FONT_REGULAR, fs, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, "  ·  ");
        }
        cx += tw + sep;
    }
    return base + tp_font_descent(TP_FONT_REGULAR, fs) + fs * 0.6;
}

void tp_page_overview(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    double m = TP_PAGE_MARGIN, w = pc->pw - 2 * m, bottom = pc->ph - m;
    tp_strs st = {0};
    tp_cv_begin_page(cv, pc->pw, pc->ph, "Overview");
    double y = m;
    y = tp_page_line(cv, m, y, TP_FONT_BOLD, 16, TP_COLOR_TEXT, "tracepress report");
    char *name = tp_fit_middle(TP_FONT_REGULAR, 11, s->name, w);
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 11, TP_COLOR_MUTED, name);
    free(name);
    y += 6;
    y = findings_block(cv, pc, m, y, w, &st);
    y = headlines(cv, pc, m, y, w, &st);
    y += 8;

    /* the notes and the page list go under the chart: measure them first */
    const tp_page_notes *N = pc->notes;
    double notes_h = N->n ? FS * 1.6 : 0;
    notes_h += page_list(NULL, N, m, 0, w) + 6;
    for (size_t i = 0; i < N->n; i++)
        notes_h = tp_page_para(NULL, 0, notes_h, w - 10, TP_FONT_REGULAR, FS - 1, 0, N->lines[i], 8) + 2;
    split_chart b;
    split_build(s, &b, 0);
    double need = tp_hstack_height(&b.c, w), room = bottom - y - notes_h - 8;
    double ch = need < room ? need : room;
    if (ch > 60 && s->slices) {
        tp_hstack_draw(cv, &b.c, (tp_rect){m, y, w, ch});
        y += ch + 10;
    }
    split_free(&b);
    y = page_list(cv, N, m, y, w) + 6;
    if (N->n) {
        y = tp_page_line(cv, m, y, TP_FONT_BOLD, FS, TP_COLOR_TEXT, "Not in this report (nothing to show):");
        for (size_t i = 0; i < N->n; i++)
            y = tp_page_para(cv, m + 10, y, w - 10, TP_FONT_REGULAR, FS - 1, TP_COLOR_MUTED, N->lines[i], 8) + 2;
    }
    tp_cv_end_page(cv);
    tp_strs_free(&st);
}
