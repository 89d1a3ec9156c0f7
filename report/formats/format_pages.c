/* format_pages.c: the table of format-specific report content and the
 * calls the report makes into it (format_pages.h). */
#include "report/formats/format_pages.h"

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

size_t tp_format_pages_png_files(const char **v, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t k = 0; k < rows[i]->npngs; k++)
            if (n < cap)
                v[n++] = rows[i]->pngs[k].file;
    return n;
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
    s->fp_free = fp->free;
    return 0;
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
        tp_cv_begin_page(cv, pc->lw, pc->lh, p->file);
        p->draw(cv, pc, tp_chart_rect(pc));
        tp_cv_end_page(cv);
        if (tp_canvas_close(cv, err) != 0)
            return -1;
        if (*nn < cap)
            (*names)[(*nn)++] = p->file;
    }
    return 0;
}
