/* page_kernels.c: top kernels by total and by mean (bar charts coloured by
 * kernel family, with a legend), and the kernel statistics tables in the
 * column layout of `nsys stats`. */
#include "render/charts/chart_bar.h"
#include "render/charts/chart_table.h"
#include "render/labels/kernel_family.h"
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
        const char *full = tp_str_get(s->t, row->name);
        labels[i] = pc->knames[pick[i]]; /* the table's short names: chart and table agree */
        vals[i] = by_mean ? row->mean_ns : row->total_ns;
        const char *fam = tp_kernel_family(full);
        cols[i] = tp_palette_key(fam);
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

static void paged_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *bookmark)
{
    tp_rect r = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc->lw - 2 * TP_PAGE_MARGIN, pc->lh - 2 * TP_PAGE_MARGIN - 14};
    tp_table_layout *L = tp_table_layout_new(t, r.w, r.h);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        tp_cv_begin_section_page(cv, pc->lw, pc->lh, bookmark, p, tp_table_pages(L));
        tp_table_draw_page(cv, t, L, p, r);
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
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
        c[2] = tp_strs_us(&st, r->total_ns);
        c[3] = tp_strs_add(&st, "%llu", (unsigned long long)r->count);
        c[4] = tp_strs_us(&st, r->mean_ns);
        c[5] = tp_strs_us(&st, r->p50_ns);
        c[6] = tp_strs_us(&st, r->min_ns);
        c[7] = tp_strs_us(&st, r->max_ns);
        c[8] = tp_strs_us(&st, r->stddev_ns);
        c[9] = r->kind == TP_KIND_MEMCPY   ? tp_strs_add(&st, "[memcpy] %s", pc->knames[i])
               : r->kind == TP_KIND_MEMSET ? tp_strs_add(&st, "[memset] %s", pc->knames[i])
                                           : pc->knames[i];
    }
    tp_table_col cols[NC] = {{"#", 1, TP_FIT_END, 0},          {"Time (%)", 1, TP_FIT_END, 0},
                             {"Total (us)", 1, TP_FIT_END, 0}, {"Instances", 1, TP_FIT_END, 0},
                             {"Avg (us)", 1, TP_FIT_END, 0},   {"Med (us)", 1, TP_FIT_END, 0},
                             {"Min (us)", 1, TP_FIT_END, 0},   {"Max (us)", 1, TP_FIT_END, 0},
                             {"StdDev (us)", 1, TP_FIT_END, 0}, {"Name", 0, TP_FIT_MIDDLE, 1}};
    const char *title = n < s->kt.n ? tp_strs_add(&st, "Kernel statistics (first %zu of %zu)", n, s->kt.n)
                                    : "Kernel statistics";
    tp_table t = {title, NC, cols, n, cells, 7.5, 1, NULL};
    if (n)
        paged_table(cv, pc, &t, "Kernel statistics");
    else {
        tp_cv_begin_page(cv, pc->lw, pc->lh, "Kernel statistics");
        double y = tp_page_line(cv, TP_PAGE_MARGIN, TP_PAGE_MARGIN, TP_FONT_BOLD, 12, TP_COLOR_TEXT, "Kernel statistics");
        tp_page_line(cv, TP_PAGE_MARGIN, y + 4, TP_FONT_REGULAR, 10, TP_COLOR_MUTED,
                     "The trace has no device kernels, copies or fills.");
        tp_cv_end_page(cv);
    }
    free(cells);
    tp_strs_free(&st);
}
