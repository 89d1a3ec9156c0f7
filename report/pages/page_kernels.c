/* page_kernels.c: top kernels by total and by mean (bar charts coloured by
 * kernel family, with a legend), and the kernel statistics tables in the
 * column layout of `nsys stats`. */
#include "render/charts/chart_bar.h"
#include "render/charts/chart_table.h"
#include "render/charts/legend.h"
#include "report/pages/pages.h"
#include "render/charts/palette.h"

#include <stdlib.h>
#include <string.h>

typedef struct by_mean_ctx {
    const tp_kernel_row *rows;
    const tp_trace *t;
} by_mean_ctx;

static int cmp_mean(const void *a, const void *b, void *vc)
{
    const by_mean_ctx *c = vc;
    const tp_kernel_row *x = &c->rows[*(const size_t *)a], *y = &c->rows[*(const size_t *)b];
    if (x->mean_ns != y->mean_ns)
        return x->mean_ns > y->mean_ns ? -1 : 1;
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    return ia < ib ? -1 : ia > ib; /* table order (total time, then name) */
}

bool *tp_kernels_shown(const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    bool *on = tp_xcalloc(s->kt.n + 1, sizeof *on);
    size_t top = s->kt.n < TP_CHART_TOP ? s->kt.n : TP_CHART_TOP; /* more than the statistics page holds */
    size_t *pick = tp_xmalloc((s->kt.n + 1) * sizeof *pick);
    for (size_t i = 0; i < s->kt.n; i++)
        pick[i] = i;
    by_mean_ctx c = {s->kt.rows, s->t};
    qsort_r(pick, s->kt.n, sizeof *pick, cmp_mean, &c);
    for (size_t i = 0; i < top; i++)
        on[i] = on[pick[i]] = true;
    free(pick);
    return on;
}

void tp_chart_kernels(tp_canvas *cv, const tp_pagectx *pc, int by_mean, tp_rect r)
{
    const tp_summary *s = pc->s;
    size_t n = s->kt.n < TP_CHART_TOP ? s->kt.n : TP_CHART_TOP;
    /* rows to show: by total = table order; by mean = all rows sorted by mean */
    size_t *pick = tp_xmalloc((s->kt.n + 1) * sizeof *pick);
    for (size_t i = 0; i < s->kt.n; i++)
        pick[i] = i;
    if (by_mean) {
        by_mean_ctx c = {s->kt.rows, s->t};
        qsort_r(pick, s->kt.n, sizeof *pick, cmp_mean, &c);
    }
    const char **labels = tp_xmalloc((n + 1) * sizeof *labels);
    int64_t *vals = tp_xmalloc((n + 1) * sizeof *vals);
    tp_color *cols = tp_xmalloc((n + 1) * sizeof *cols);
    tp_legend_item *leg = tp_xmalloc((n + 1) * sizeof *leg);
    size_t nleg = 0;
    tp_strs st = {0};
    for (size_t i = 0; i < n; i++) {
        const tp_kernel_row *row = &s->kt.rows[pick[i]];
        labels[i] = pc->knames[pick[i]]; /* the table's short names: chart and table agree */
        vals[i] = by_mean ? row->mean_ns : row->total_ns;
        const char *fam = tp_name_category(pc, row->name); /* the one classification */
        cols[i] = tp_name_color(pc, row->name);
        bool seen = false;
        for (size_t k = 0; k < nleg && !seen; k++)
            seen = strcmp(leg[k].label, fam) == 0;
        if (!seen)
            leg[nleg++] = (tp_legend_item){fam, cols[i]};
    }
    const char *title =
        by_mean ? tp_strs_add(&st, "Top %zu kernels by mean time (of %zu)", n, s->kt.n)
                : tp_strs_add(&st, "Top %zu kernels by total time (of %zu)", n, s->kt.n);
    tp_barchart c = {.title = title,
                     .value_label = by_mean ? "mean time per call" : "total time",
                     .n = n,
                     .labels = labels,
                     .values = vals,
                     .colors = cols,
                     .value_labels = 1,
                     .legend = leg,
                     .nlegend = nleg};
    tp_barchart_draw(cv, &c, r);
    tp_strs_free(&st);
    free(leg);
    free(cols);
    free(vals);
    free(labels);
    free(pick);
}

void tp_pages_kernel_charts(tp_canvas *cv, const tp_pagectx *pc)
{
    if (pc->s->kt.n < TP_KERNEL_CHART_MIN) { /* a chart of one or two bars says no more than the table */
        tp_page_note(pc, "Top kernels",
                     pc->s->kt.n == 0 ? "the trace has no device kernels, copies or fills."
                                      : pc->s->kt.n == 1 ? "one kernel: the kernel statistics page has it."
                                                         : "two kernels: the kernel statistics page has them.");
        return;
    }
    tp_rect r = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc->lw - 2 * TP_PAGE_MARGIN, pc->lh - 2 * TP_PAGE_MARGIN};
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Top kernels by total time");
    tp_chart_kernels(cv, pc, 0, r);
    tp_cv_end_page(cv);
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Top kernels by mean time");
    tp_chart_kernels(cv, pc, 1, r);
    tp_cv_end_page(cv);
}

void tp_pages_kernel_table(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    size_t n = pc->nknames;
    tp_strs st = {0};
    enum { NC = 10 };
    const char **cells = tp_xcalloc(n * NC + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const tp_kernel_row *r = &s->kt.rows[i];
        char p[32];
        tp_fmt_pct(p, sizeof p, r->total_ns, s->kt.total_ns);
        const char **c = cells + i * NC;
        c[0] = tp_strs_add(&st, "%zu", i + 1);
        c[1] = tp_strs_add(&st, "%.*s", (int)strlen(p) - 1, p); /* no % sign: the header says it */
        c[2] = tp_strs_dur(&st, r->total_ns);
        c[3] = tp_strs_count(&st, r->count);
        c[4] = tp_strs_dur(&st, r->mean_ns);
        c[5] = tp_strs_dur(&st, r->p50_ns);
        c[6] = tp_strs_dur(&st, r->min_ns);
        c[7] = tp_strs_dur(&st, r->max_ns);
        c[8] = tp_strs_dur(&st, r->stddev_ns);
        c[9] = r->kind == TP_KIND_MEMCPY   ? tp_strs_add(&st, "[memcpy] %s", pc->knames[i])
               : r->kind == TP_KIND_MEMSET ? tp_strs_add(&st, "[memset] %s", pc->knames[i])
                                           : pc->knames[i];
    }
    tp_table_col cols[NC] = {{"#", 1, TP_FIT_END, 0},          {"Time (%)", 1, TP_FIT_END, 0},
                             {"Total", 1, TP_FIT_END, 0}, {"Instances", 1, TP_FIT_END, 0},
                             {"Avg", 1, TP_FIT_END, 0},   {"Med", 1, TP_FIT_END, 0},
                             {"Min", 1, TP_FIT_END, 0},   {"Max", 1, TP_FIT_END, 0},
                             {"StdDev", 1, TP_FIT_END, 0}, {"Name", 0, TP_FIT_MIDDLE, 1}};
    if (n == 0) {
        tp_page_note(pc, "Kernel statistics", "the trace has no device kernels, copies or fills.");
        free(cells);
        return;
    }
    /* one page: the kernels with the most time (all are in summary.json) */
    tp_table t = {"Kernel statistics", NC, cols, s->kt.n, cells, 7.5, 1, NULL};
    t.nrows = n;
    tp_rect r = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc->lw - 2 * TP_PAGE_MARGIN, pc->lh - 2 * TP_PAGE_MARGIN};
    tp_table_layout *L = tp_table_layout_new(&t, r.w, r.h - 14);
    size_t shown = tp_table_page_rows(L, 0);
    tp_table_layout_free(L);
    t.title = shown < s->kt.n ? tp_strs_add(&st, "Kernel statistics: the %zu kernels with the most time, of %zu",
                                            shown, s->kt.n)
                              : "Kernel statistics";
    t.nrows = shown;
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Kernel statistics");
    double y = tp_page_table_top(cv, &t, r, "summary.json \"kernels\"");
    if (shown < s->kt.n)
        tp_page_line(cv, TP_PAGE_MARGIN, y + 2, TP_FONT_REGULAR, 8, TP_COLOR_MUTED,
                     tp_strs_add(&st, "%zu more kernels: summary.json \"kernels\" has every row.", s->kt.n - shown));
    tp_cv_end_page(cv);
    free(cells);
    tp_strs_free(&st);
}
