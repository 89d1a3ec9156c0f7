/* page_common.c: the page context and small drawing helpers (page_common.h). */
#include "report/pages/page_common.h"
#include "render/charts/chart_table.h"
#include "render/labels/kname.h"
#include "render/text/font.h"
#include "render/text/textfit.h"

#include "render/charts/palette.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_pagectx_init(tp_pagectx *pc, const tp_summary *s, const tp_page_opts *o)
{
    *pc = (tp_pagectx){s, o->page_w, o->page_h, o->page_h, o->page_w, NULL, 0, tp_xcalloc(1, sizeof *pc->notes), NULL};
    pc->nknames = s->kt.n < TP_TABLE_MAX_ROWS ? s->kt.n : TP_TABLE_MAX_ROWS;
    /* short names over the whole table, as summary.md makes them: every output shows the same text */
    const char **full = tp_xmalloc((s->kt.n + 1) * sizeof *full);
    for (size_t i = 0; i < s->kt.n; i++)
        full[i] = tp_str_get(s->t, s->kt.rows[i].name);
    pc->knames = tp_kname_shorten(full, s->kt.n);
    free(full);
    pc->cat_colors = tp_category_colors(s->rules);
    pc->notes->timeline = tp_timeline_cache_new();
}

tp_color *tp_category_colors(const tp_cat_rules *r)
{
    tp_color *col = tp_xmalloc((r->nnames + 1) * sizeof *col);
    size_t user = 0;
    for (size_t i = 0; i < r->nnames; i++) {
        const char *name = r->names[i];
        tp_color c = tp_palette_has_key(name) ? 0 : tp_palette_user(user++);
        col[i] = c ? c : tp_palette_key(name); /* built in, or more user categories than free slots: a hash */
    }
    return col;
}

const char *tp_name_category(const tp_pagectx *pc, tp_str name)
{
    return pc->s->rules->names[tp_class_of_name(&pc->s->cls, name)];
}

tp_color tp_name_color(const tp_pagectx *pc, tp_str name)
{
    return pc->cat_colors[tp_class_of_name(&pc->s->cls, name)];
}

void tp_pagectx_free(tp_pagectx *pc)
{
    tp_kname_free(pc->knames, pc->s->kt.n);
    free(pc->cat_colors);
    tp_strs_free(&pc->notes->text);
    for (size_t i = 0; i < pc->notes->npages; i++)
        free(pc->notes->pages[i]);
    free(pc->notes->pages);
    tp_timeline_cache_free(pc->notes->timeline);
    free(pc->notes);
}

bool tp_page_drawn(const tp_pagectx *pc, const char *title)
{
    for (size_t i = 0; i < pc->notes->npages; i++)
        if (strcmp(pc->notes->pages[i], title) == 0)
            return true;
    return false;
}

void tp_page_note(const tp_pagectx *pc, const char *what, const char *why)
{
    tp_page_notes *N = pc->notes;
    if (N->frozen)
        return;
    size_t wl = strlen(what);
    for (size_t i = 0; i < N->n; i++) /* a section's pages say it once */
        if (strncmp(N->lines[i], what, wl) == 0 && N->lines[i][wl] == ':')
            return;
    if (N->n == TP_PAGE_MAX_NOTES) {
        N->dropped++;
        return;
    }
    N->lines[N->n++] = tp_strs_add(&N->text, "%s: %s", what, why);
}

double tp_page_table_top(tp_canvas *cv, const tp_table *t, tp_rect r, const char *where)
{
    tp_rect tr = {r.x, r.y, r.w, r.h - 14};
    tp_table_layout *L = tp_table_layout_new(t, tr.w, tr.h);
    size_t shown = tp_table_page_rows(L, 0);
    tp_table_draw_page(cv, t, L, 0, tr);
    double y = tr.y + tp_table_page_height(t, L, 0);
    if (shown < t->nrows) {
        char line[300];
        snprintf(line, sizeof line, "The first %zu of %zu rows; %s has them all.", shown, t->nrows, where);
        y = tp_page_line(cv, r.x, y + 3, TP_FONT_REGULAR, 8, TP_COLOR_MUTED, line);
    }
    tp_table_layout_free(L);
    return y;
}

double tp_draw_small_table(tp_canvas *cv, const char *title, const void *cols, size_t ncols, const char **cells,
                           size_t nrows, tp_rect r)
{
    tp_table t = {title, ncols, cols, nrows, cells, 8, 2, NULL};
    tp_table_layout *L = tp_table_layout_new(&t, r.w, r.h);
    tp_table_draw_page(cv, &t, L, 0, r);
    tp_table_layout_free(L);
    return r.y + r.h;
}

double tp_page_para(tp_canvas *cv, double x, double y, double w, tp_font f, double size, tp_color c, const char *s,
                    size_t max_lines)
{
    char **lines = NULL;
    size_t n = tp_wrap(f, size, s, w, max_lines, &lines);
    for (size_t i = 0; i < n; i++)
        if (cv)
            y = tp_page_line(cv, x, y, f, size, c, lines[i]);
        else /* what tp_page_line adds */
            y += tp_font_ascent(f, size) + tp_font_descent(f, size) + size * 0.35;
    tp_wrap_free(lines, n);
    return y;
}

double tp_page_line(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, const char *s)
{
    double base = y + tp_font_ascent(f, size);
    tp_cv_text(cv, x, base, f, size, c, TP_ALIGN_LEFT, 0, s);
    return base + tp_font_descent(f, size) + size * 0.35;
}
