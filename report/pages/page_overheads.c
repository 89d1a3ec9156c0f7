/* page_overheads.c: the CPU overhead types T1-T5 (overheads.h). */
#include "render/charts/chart_table.h"
#include "report/pages/pages.h"
#include "render/charts/palette.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const defs[] = {
    "T1: gap between consecutive top-level ops under the same parent (2 us < gap < 200 us), minus 2 us.",
    "T2: op start to its first launch, minus 2 us per host event before it.   T3: last launch end to op end, "
    "minus 2 us per trailing event.",
    "T4: per launch call, the constant 10 - 2 - 4 = 4 us.   T5: gaps between launches minus 2 us per event "
    "between; 0 for one launch; ops without launches: duration minus 2 us per event.",
    "Mean and population std after dropping values outside Q1 - 1.5 IQR .. Q3 + 1.5 IQR (count = all values, kept "
    "= after that).  See docs/REPORT.md.",
    "A value below 0 counts as 0 (clamped): the op took less than the 2 us per event the model charges for the "
    "profiler, which a modern profiler does not cost.",
    NULL};

void tp_pages_overheads(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    const tp_overheads *ov = &s->ov;
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m, h = pc->lh - 2 * m;
    tp_cv_begin_page(cv, pc->lw, pc->lh, "CPU overheads");
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT, "CPU overheads T1-T5 (DLRM performance model)");
    for (int i = 0; defs[i]; i++)
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 7.5, TP_COLOR_MUTED, defs[i]);
    y += 6;
    tp_strs st = {0};
    if (!ov->applicable) {
        /* say which half is missing: XPlane files have host ops, but their
         * launches are named after the kernel, not cudaLaunchKernel */
        tp_page_line(cv, m, y, TP_FONT_REGULAR, 10, TP_COLOR_TEXT,
                     ov->ops == 0 ? "Not applicable: the trace has no host ops with launch calls."
                                  : tp_strs_add(&st,
                                                "Not applicable: none of the %llu top-level host ops makes a launch "
                                                "call the model knows (cudaLaunchKernel, cudaMemcpyAsync, "
                                                "hipLaunchKernel, ...: overheads.h).",
                                                (unsigned long long)ov->ops));
        tp_cv_end_page(cv);
        tp_strs_free(&st);
        return;
    }
    size_t n = ov->n < TP_TABLE_MAX_ROWS ? ov->n : TP_TABLE_MAX_ROWS;
    enum { NC = 9 };
    const char **cells = tp_xcalloc(n * NC + 1, sizeof *cells);
    static const char *const tn[] = {"", "T1", "T2", "T3", "T4", "T5"};
    for (size_t i = 0; i < n; i++) {
        const tp_overhead_row *r = &ov->rows[i];
        const char **c = cells + i * NC;
        c[0] = tn[r->type];
        c[1] = r->name ? tp_str_get(s->t, r->name) : "(all ops)";
        c[2] = tp_strs_add(&st, "%llu", (unsigned long long)r->count);
        c[3] = tp_strs_add(&st, "%llu", (unsigned long long)r->kept);
        c[4] = tp_strs_dur(&st, r->mean_ns);
        c[5] = tp_strs_dur(&st, r->stddev_ns);
        c[6] = tp_strs_dur(&st, r->min_ns);
        c[7] = tp_strs_dur(&st, r->max_ns);
        c[8] = tp_strs_add(&st, "%llu", (unsigned long long)r->clamped);
    }
    tp_table_col cols[NC] = {{"type", 0, TP_FIT_END, 0},     {"op / launch call", 0, TP_FIT_MIDDLE, 0},
                             {"count", 1, TP_FIT_END, 0},    {"kept", 1, TP_FIT_END, 0},
                             {"mean", 1, TP_FIT_END, 0}, {"std", 1, TP_FIT_END, 0},
                             {"min", 1, TP_FIT_END, 0},  {"max", 1, TP_FIT_END, 0},
                             {"clamped", 1, TP_FIT_END, 0}};
    char title[160];
    snprintf(title, sizeof title, "%llu top-level ops, %llu launches%s", (unsigned long long)ov->ops,
             (unsigned long long)ov->launches, n < ov->n ? " (first rows; all in summary.json)" : "");
    tp_table t = {title, NC, cols, n, cells, 7.5, 1, NULL};
    /* every page repeats the heading and definitions, the table continues below them */
    tp_rect r1 = {m, y, w, m + h - y};
    tp_table_layout *L = tp_table_layout_new(&t, r1.w, r1.h);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        if (p) {
            tp_cv_begin_section_page(cv, pc->lw, pc->lh, "CPU overheads", p, tp_table_pages(L));
            double yy = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT, "CPU overheads T1-T5 (continued)");
            for (int i = 0; defs[i]; i++)
                yy = tp_page_line(cv, m, yy, TP_FONT_REGULAR, 7.5, TP_COLOR_MUTED, defs[i]);
        }
        tp_table_draw_page(cv, &t, L, p, r1);
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
    free(cells);
    tp_strs_free(&st);
}
