/* page_names.c: the appendix "Names": every shortened kernel name the
 * report shows, with its full (demangled) name, wrapped, never cut. */
#include "report/pages/pages.h"
#include "render/charts/palette.h"
#include "render/labels/kname.h"
#include "render/text/font.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_FS 6.0
#define SHORT_COL 250.0 /* the short names' column: 64 characters at SHORT_FS */
#define FULL_FS 5.5

/* Bytes of s[0..n) that fit in w: at a break in the second half of the
 * line when there is one, else as many characters as fit (at least one). */
static size_t wrap_len(const char *s, size_t n, double w)
{
    size_t fit = 0, brk = 0, weak = 0; /* after ", <(" or a space; after "::" or ">)" only when there is none */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        tp_utf8_next(s, n, &j);
        if (tp_text_width_n(TP_FONT_MONO, FULL_FS, s, j) > w)
            break;
        fit = j;
        if (strchr(",<( ", s[i]) && j < n && !(s[i] == '(' && s[j] == ')'))
            brk = j;
        else if (strchr(":>)", s[i]) && j < n && s[j] != ':')
            weak = j;
        i = j;
    }
    if (fit == n)
        return n;
    if (brk > fit / 2)
        return brk;
    if (weak > fit / 2)
        return weak;
    if (fit == 0) {
        size_t j = 0;
        tp_utf8_next(s, n, &j);
        return j;
    }
    return fit;
}

static size_t count_lines(const char *s, double w)
{
    size_t n = strlen(s), lines = 0;
    for (size_t i = 0; i < n; lines++)
        i += wrap_len(s + i, n - i, w);
    return lines ? lines : 1;
}

void tp_pages_names(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    size_t n = s->kt.n;
    bool *on = tp_kernels_shown(pc); /* the rows the charts and the statistics page show */
    char **full = tp_xcalloc(n + 1, sizeof *full);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_str_get(s->t, s->kt.rows[i].name);
        if (!on[i] || strcmp(pc->knames[i], name) == 0)
            continue;
        full[i] = tp_kname_full(name);
        shown++;
    }
    if (shown) { /* no page when every name is shown whole */
        /* two columns: the short name, then its full name wrapped beside it */
        double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m, col = SHORT_COL, lh = FULL_FS * 1.3;
        size_t page = 0;
        double y = pc->lh; /* a new page first */
        for (size_t i = 0; i < n; i++) {
            if (!full[i]) /* not shown, or shown whole */
                continue;
            double need = (double)count_lines(full[i], w - col) * lh + 2;
            if (y + need > pc->lh - m) {
                if (page)
                    tp_cv_end_page(cv);
                tp_cv_begin_section_page(cv, pc->lw, pc->lh, "Names", page++, 0);
                y = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT,
                                 page == 1 ? "Names: the short names shown, with the full (demangled) names"
                                           : "Names (continued)");
                y += 4;
            }
            double base = y + tp_font_ascent(TP_FONT_MONO, FULL_FS);
            double sw = tp_text_width(TP_FONT_BOLD, SHORT_FS, pc->knames[i]), fs = SHORT_FS;
            if (sw > col - 8) /* smaller rather than cut: this page is where names are read whole */
                fs *= (col - 8) / sw;
            tp_cv_text(cv, m, base, TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, pc->knames[i]);
            const char *f = full[i];
            size_t len = strlen(f);
            for (size_t at = 0; at < len;) {
                size_t k = wrap_len(f + at, len - at, w - col);
                char *line = tp_xstrndup(f + at, k);
                tp_cv_text(cv, m + col, base, TP_FONT_MONO, FULL_FS, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, line);
                free(line);
                base += lh;
                y += lh;
                at += k;
            }
            y += 2;
        }
        tp_cv_end_page(cv);
    }
    for (size_t i = 0; i < n; i++)
        free(full[i]);
    free(full);
    free(on);
}
