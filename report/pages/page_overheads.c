/* page_overheads.c: the CPU overhead types T1-T5 (overheads.h). */
#include "render/charts/chart_table.h"
#include "report/pages/pages.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <stdlib.h>

/* What each type means, in the words of the timeline drawn beside it. */
static const char *const defs[] = {
    "T1  between two top-level ops: framework time (Python, dispatch) when no op runs; large T1 starves the GPU.",
    "T2  an op's start to its first launch: its set-up (argument checks, shape inference, allocation).",
    "T3  an op's last launch end to its end: its clean-up after the device work is queued.",
    "T4  each launch call: a constant, not measured (the model's 10 us per launch less 2 + 4 us profiler cost).",
    "T5  between two launches of one op: host work between its kernels; for an op with no launch, its duration.",
    "Each is measured on the host and minus 2 us per host event in it (the profiler's own cost in the DLRM model;"
    " T1 only for gaps of 2 to 200 us). A value below 0 counts as 0 and is counted (clamped): the op was shorter"
    " than the 2 us a modern profiler does not cost. Mean and std drop values outside Q1 - 1.5 IQR .. Q3 + 1.5 IQR"
    " (count = all values, kept = after that). docs/REPORT.md \"CPU overheads\".",
    NULL};

#define DIAG_W 300.0
#define DIAG_H 84.0

/* A bracket under [x0, x1] at y with its label below. */
static void bracket(tp_canvas *cv, double x0, double x1, double y, const char *label, tp_color c)
{
    tp_cv_line(cv, x0, y - 3, x0, y, c, 0.7);
    tp_cv_line(cv, x0, y, x1, y, c, 0.7);
    tp_cv_line(cv, x1, y - 3, x1, y, c, 0.7);
    tp_cv_text(cv, (x0 + x1) / 2, y + 8, TP_FONT_BOLD, 7, c, TP_ALIGN_CENTER, 0, label);
}

/* The five types on a made-up timeline: two top-level ops on the host, the
 * second launching three kernels that run on the GPU. */
static void diagram(tp_canvas *cv, double x, double y)
{
    const tp_color op = 0x9DB9D3, launch = 0x3B6E9E, kernel = 0xE0A050, ink = TP_COLOR_TEXT;
    double u = DIAG_W / 30, hy = y + 8, gy = y + 52;
    tp_cv_text(cv, x, hy + 8, TP_FONT_REGULAR, 7, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, "host");
    tp_cv_text(cv, x, gy + 8, TP_FONT_REGULAR, 7, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, "GPU");
    x += 22;
    tp_cv_fill_rect(cv, x, hy, 5 * u, 11, op); /* op A */
    tp_cv_text(cv, x + 2.5 * u, hy + 8, TP_FONT_REGULAR, 7, ink, TP_ALIGN_CENTER, 0, "op A");
    double b0 = x + 8 * u, b1 = x + 26 * u; /* op B */
    tp_cv_fill_rect(cv, b0, hy, b1 - b0, 11, op);
    tp_cv_text(cv, b0 + 2, hy + 8, TP_FONT_REGULAR, 7, ink, TP_ALIGN_LEFT, 0, "op B");
    static const double ls[3] = {12, 16, 20}; /* launch starts, 1.6 u long */
    for (int k = 0; k < 3; k++) {
        double lx = x + ls[k] * u;
        tp_cv_fill_rect(cv, lx, hy + 13, 1.6 * u, 7, launch);
        double kx = lx + 2.5 * u + k * 1.2 * u; /* the kernel runs later, queued */
        tp_cv_fill_rect(cv, kx, gy, 2.6 * u, 11, kernel);
        tp_cv_line(cv, lx + 0.8 * u, hy + 20, kx + 0.4 * u, gy, TP_COLOR_GRID, 0.6);
    }
    double by = hy + 27;
    bracket(cv, x + 5 * u, b0, by - 14, "T1", ink);
    bracket(cv, b0, x + ls[0] * u, by, "T2", ink);
    bracket(cv, x + ls[0] * u, x + (ls[0] + 1.6) * u, by, "T4", ink);
    bracket(cv, x + (ls[0] + 1.6) * u, x + ls[1] * u, by, "T5", ink);
    bracket(cv, x + (ls[2] + 1.6) * u, b1, by, "T3", ink);
}

/* At most `per` rows of each type (the rows are by type, then count), so
 * that every type keeps its most frequent ops on one page. */
/* A T4 row is the model's constant (every value equal, nothing measured): a footnote says it once instead of a
 * table row per launch call (issue 36 item 9). */
static bool constant_row(const tp_overhead_row *r) { return r->type == 4 && r->min_ns == r->max_ns; }

static size_t pick_rows(const tp_overheads *ov, size_t per, size_t *pick)
{
    size_t n = 0, run = 0;
    for (size_t i = 0; i < ov->n; i++) {
        run = i && ov->rows[i].type == ov->rows[i - 1].type ? run + 1 : 0;
        if (run < per && !constant_row(&ov->rows[i]))
            pick[n++] = i;
    }
    return n;
}

/* "T4 (not in the table): a constant 4.000 us for each of the 862 launch calls (cudaLaunchKernel 860, ...)" */
static const char *constant_note(const tp_summary *s, const tp_overheads *ov, tp_strs *st)
{
    tp_buf b = {0};
    uint64_t calls = 0;
    size_t k = 0;
    int64_t v = 0;
    for (size_t i = 0; i < ov->n; i++)
        if (constant_row(&ov->rows[i])) {
            calls += ov->rows[i].count;
            v = ov->rows[i].min_ns;
            k++;
        }
    if (!k)
        return NULL;
    size_t shown = 0;
    for (size_t i = 0; i < ov->n && shown < 4; i++)
        if (constant_row(&ov->rows[i])) {
            const tp_overhead_row *r = &ov->rows[i];
            tp_buf_printf(&b, "%s%s %s", shown++ ? ", " : "", r->name ? tp_str_get(s->t, r->name) : "?",
                          tp_strs_count(st, r->count));
        }
    if (k > shown)
        tp_buf_printf(&b, ", %zu more", k - shown);
    const char *out = tp_strs_add(st, "T4 (not in the table): the model's constant %s for each of the %s launch calls "
                                      "(%s); summary.json \"overheads.rows\" has these rows.",
                                  tp_strs_dur(st, v), tp_strs_count(st, calls), b.data ? b.data : "");
    tp_buf_free(&b);
    return out;
}

void tp_pages_overheads(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    const tp_overheads *ov = &s->ov;
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m, h = pc->lh - 2 * m;
    tp_strs st = {0};
    if (!ov->applicable) {
        /* say which half is missing: XPlane files have host ops, but their
         * launches are named after the kernel, not cudaLaunchKernel */
        tp_page_note(pc, "CPU overheads T1-T5",
                     ov->ops == 0 ? "not applicable: the trace has no host ops with launch calls."
                                  : tp_strs_add(&st,
                                                "not applicable: none of the %s top-level host ops makes a launch "
                                                "call the model knows (cudaLaunchKernel, cudaMemcpyAsync, "
                                                "hipLaunchKernel, ...: overheads.h).",
                                                tp_strs_count(&st, ov->ops)));
        tp_strs_free(&st);
        return;
    }
    enum { NC = 9 };
    tp_table_col cols[NC] = {{"type", 0, TP_FIT_END, 0},     {"op / launch call", 0, TP_FIT_MIDDLE, 0},
                             {"count", 1, TP_FIT_END, 0},    {"kept", 1, TP_FIT_END, 0},
                             {"mean", 1, TP_FIT_END, 0},      {"std", 1, TP_FIT_END, 0},
                             {"min", 1, TP_FIT_END, 0},       {"max", 1, TP_FIT_END, 0},
                             {"clamped", 1, TP_FIT_END, 0}};
    tp_cv_begin_page(cv, pc->lw, pc->lh, "CPU overheads");
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT, "CPU overheads T1-T5 (DLRM performance model)");
    y += 4;
    diagram(cv, m, y);
    double dy = y, tx = m + DIAG_W + 40, tw = w - DIAG_W - 40;
    for (int i = 0; defs[i]; i++)
        dy = tp_page_para(cv, tx, dy, tw, TP_FONT_REGULAR, 7.5, defs[i + 1] ? TP_COLOR_TEXT : TP_COLOR_MUTED, defs[i], 4);
    y = (dy > y + DIAG_H ? dy : y + DIAG_H) + 8;
    /* one page: each type's most frequent ops, the same number of each */
    size_t *pick = tp_xcalloc(ov->n + 1, sizeof *pick);
    tp_rect r1 = {m, y, w, m + h - y};
    size_t n = ov->n;
    for (size_t per = ov->n;; per = per * 3 / 4) {
        n = pick_rows(ov, per, pick);
        tp_table probe = {"t", NC, cols, n, NULL, 7.5, 1, NULL};
        tp_table_layout *L = tp_table_layout_new(&probe, r1.w, r1.h - 14);
        bool fits = tp_table_pages(L) == 1;
        tp_table_layout_free(L);
        if (fits || per <= 1)
            break;
    }
    const char **cells = tp_xcalloc(n * NC + 1, sizeof *cells);
    static const char *const tn[] = {"", "T1", "T2", "T3", "T4", "T5"};
    for (size_t i = 0; i < n; i++) {
        const tp_overhead_row *r = &ov->rows[pick[i]];
        const char **c = cells + i * NC;
        c[0] = tn[r->type];
        c[1] = r->name ? tp_str_get(s->t, r->name) : "(all ops)";
        c[2] = tp_strs_count(&st, r->count);
        c[3] = tp_strs_count(&st, r->kept);
        c[4] = tp_strs_dur(&st, r->mean_ns);
        c[5] = tp_strs_dur(&st, r->stddev_ns);
        c[6] = tp_strs_dur(&st, r->min_ns);
        c[7] = tp_strs_dur(&st, r->max_ns);
        c[8] = tp_strs_count(&st, r->clamped);
    }
    size_t nconst = 0; /* the T4 rows the footnote stands for */
    for (size_t i = 0; i < ov->n; i++)
        nconst += constant_row(&ov->rows[i]);
    char title[200];
    snprintf(title, sizeof title, "%s top-level ops, %s launches%s", tp_strs_count(&st, ov->ops),
             tp_strs_count(&st, ov->launches),
             n + nconst < ov->n ? tp_strs_add(&st, ": each type's most frequent ops, %zu of %zu rows", n, ov->n - nconst)
                                : "");
    tp_table t = {title, NC, cols, n, cells, 7.5, 1, NULL};
    const char *t4 = constant_note(s, ov, &st);
    if (t4)
        r1.h -= 12; /* the footnote's line */
    double ty = tp_page_table_top(cv, &t, r1, "summary.json \"overheads.rows\"");
    if (t4)
        tp_page_line(cv, m, ty + 3, TP_FONT_REGULAR, 7.5, TP_COLOR_MUTED, t4);
    if (n + nconst < ov->n)
        tp_page_line(cv, m, pc->lh - m - 2, TP_FONT_REGULAR, 7.5, TP_COLOR_MUTED,
                     tp_strs_add(&st, "%zu more rows: summary.json \"overheads.rows\" has every row.",
                                 ov->n - n - nconst));
    tp_cv_end_page(cv);
    free(pick);
    free(cells);
    tp_strs_free(&st);
}
