/* format_pages.c: the table of format-specific report content and the
 * calls the report makes into it (format_pages.h). */
#include "report/formats/format_pages.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <string.h>

/* One row per format with its own report content. */
static const tp_format_pages *const rows[] = {
    &tp_fpages_etdump,
    &tp_fpages_plaidml,
    &tp_fpages_dvdt,
    &tp_fpages_xplane,
};

const tp_format_pages *tp_format_pages_find(const char *format)
{
    for (size_t i = 0; format && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i]->format, format) == 0)
            return rows[i];
    return NULL;
}

int tp_format_pages_build(tp_summary *s, const tp_fp_opts *o, tp_err *err)
{
    const tp_format_pages *fp = tp_format_pages_find(s->t->format);
    if (!fp)
        return 0;
    void *state = NULL;
    if (fp->build(s, o, &state, err) < 0)
        return -1;
    s->fp = fp;
    s->fp_state = state;
    return 0;
}

void tp_format_pages_free(tp_summary *s)
{
    if (s->fp && s->fp->free)
        s->fp->free(s->fp_state);
    s->fp = NULL;
    s->fp_state = NULL;
}

void tp_format_pages_json(const tp_summary *s, tp_buf *b)
{
    if (!s->fp || !s->fp->json)
        return;
    tp_buf_printf(b, ",\n\"%s\":", s->fp->key);
    s->fp->json(s, b);
}

void tp_format_pages_md(const tp_summary *s, tp_buf *b)
{
    if (s->fp && s->fp->md)
        s->fp->md(s, b);
}

void tp_format_pages_draw(tp_canvas *cv, const tp_pagectx *pc)
{
    if (pc->s->fp && pc->s->fp->draw)
        pc->s->fp->draw(cv, pc);
}

int tp_format_pages_png(const char *dir, const tp_pagectx *pc, double scale, const char ***names, size_t *nn,
                        size_t cap, tp_err *err)
{
    const tp_format_pages *fp = pc->s->fp;
    for (size_t i = 0; fp && i < fp->npngs; i++) {
        const tp_fp_png *p = &fp->pngs[i];
        if (p->has && !p->has(pc->s))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, p->file);
        tp_canvas *cv = tp_canvas_png(path, scale, err);
        if (!cv)
            return -1;
        tp_cv_begin_page(cv, TP_PNG_W, TP_PNG_H, p->file);
        p->draw(cv, pc, (tp_rect){16, 16, TP_PNG_W - 32, TP_PNG_H - 32});
        tp_cv_end_page(cv);
        if (tp_canvas_close(cv, err) != 0)
            return -1;
        if (*nn < cap)
            (*names)[(*nn)++] = p->file;
    }
    return 0;
}

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

void tp_fp_note_page(tp_canvas *cv, const tp_pagectx *pc, const char *title, const char *note)
{
    double m = TP_PAGE_MARGIN;
    tp_cv_begin_page(cv, pc->lw, pc->lh, title);
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT, title) + 4;
    char **lines = NULL; /* a long note wraps (one that fits stays one line) */
    size_t n = tp_wrap(TP_FONT_REGULAR, 10, note, pc->lw - 2 * m, 8, &lines);
    for (size_t i = 0; i < n; i++)
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 10, TP_COLOR_MUTED, lines[i]);
    tp_wrap_free(lines, n);
    tp_cv_end_page(cv);
}
