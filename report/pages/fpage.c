/* fpage.c: helpers for the format pages' pages (fpage.h). */
#include "report/pages/fpage.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <stdio.h>

void tp_fp_paged_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *heading,
                       const char *const *intro, size_t nintro)
{
    double m = TP_PAGE_MARGIN;
    double ih = heading ? 14 * 1.6 : 0;
    for (size_t i = 0; i < nintro; i++)
        ih += 9 * 1.6;
    if (nintro || heading)
        ih += 8;
    tp_rect first = {m, m + ih, pc->lw - 2 * m, pc->lh - 2 * m - 14 - ih};
    tp_rect rest = {m, m, pc->lw - 2 * m, pc->lh - 2 * m - 14};
    /* lay out for the shorter first page: every page then fits */
    tp_table_layout *L = tp_table_layout_new(t, first.w, first.h);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        if (heading)
            tp_cv_begin_section_page(cv, pc->lw, pc->lh, heading, p, tp_table_pages(L));
        else { /* the table continues a titled page: each of its pages goes under that bookmark */
            char label[400];
            tp_cv_page_label(label, sizeof label, t->title, p, tp_table_pages(L));
            tp_cv_begin_subpage(cv, pc->lw, pc->lh, label);
        }
        if (p == 0) {
            double y = m;
            if (heading)
                y = tp_page_line(cv, m, y, TP_FONT_BOLD, 14, TP_COLOR_TEXT, heading);
            for (size_t i = 0; i < nintro; i++)
                y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED, intro[i]);
        }
        tp_table_draw_page(cv, t, L, p, p == 0 ? first : (tp_rect){rest.x, rest.y, rest.w, first.h});
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
}

void tp_fp_top_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *heading,
                     const char *const *intro, size_t nintro, const char *where)
{
    double m = TP_PAGE_MARGIN;
    tp_cv_begin_page(cv, pc->lw, pc->lh, heading);
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 14, TP_COLOR_TEXT, heading);
    for (size_t i = 0; i < nintro; i++)
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED, intro[i]);
    y += 8;
    tp_page_table_top(cv, t, (tp_rect){m, y, pc->lw - 2 * m, pc->lh - m - y}, where);
    tp_cv_end_page(cv);
}

void tp_fp_chart_and_table(tp_canvas *cv, const tp_pagectx *pc, const char *title, tp_fp_chart_fn chart,
                           const tp_table *t, const char *heading, const char *const *intro, size_t nintro)
{
    double m = TP_PAGE_MARGIN;
    tp_cv_begin_page(cv, pc->lw, pc->lh, title);
    chart(cv, pc, (tp_rect){m, m, pc->lw - 2 * m, pc->lh - 2 * m});
    tp_cv_end_page(cv);
    tp_fp_paged_table(cv, pc, t, heading, intro, nintro);
}
