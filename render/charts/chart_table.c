/* chart_table.c: paginated tables (see chart_table.h). */
#include "render/charts/chart_table.h"

#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define PAD 4.0

struct tp_table_layout {
    double *colw;
    size_t *lines;      /* per row: line count */
    size_t *page_start; /* first row of each page; [pages] = nrows */
    size_t pages;
    double fs, line_h, head_h, top;
};

static double fsz(const tp_table *t) { return t->font_size > 0 ? t->font_size : 8; }
static size_t maxl(const tp_table *t) { return t->max_lines ? t->max_lines : 4; }
static tp_font col_font(const tp_table_col *c) { return c->mono ? TP_FONT_MONO : TP_FONT_REGULAR; }
static const char *cell(const tp_table *t, size_t r, size_t c)
{
    const char *s = t->cells ? t->cells[r * t->ncols + c] : NULL;
    return s ? s : "";
}

tp_table_layout *tp_table_layout_new(const tp_table *t, double w, double h)
{
    tp_table_layout *L = tp_xcalloc(1, sizeof *L);
    size_t nc = t->ncols;
    L->fs = fsz(t);
    L->line_h = L->fs * 1.35;
    L->head_h = L->line_h + 2 * PAD;
    L->top = t->title ? TITLE_FS * 1.8 : 0;
    L->colw = tp_xcalloc(nc ? nc : 1, sizeof *L->colw);
    /* natural widths: one pass over all cells */
    for (size_t c = 0; c < nc; c++) {
        double m = tp_text_width(TP_FONT_BOLD, L->fs, t->cols[c].header);
        for (size_t r = 0; r < t->nrows; r++)
            m = fmax(m, tp_text_width(col_font(&t->cols[c]), L->fs, cell(t, r, c)));
        L->colw[c] = m + 2 * PAD;
    }
    /* numeric and narrow text columns keep their width.  Wide text columns
     * ("flex"): ellipsized ones get their natural width up to half of what
     * is left, then wrapped ones share the rest; without wrapped columns
     * the flex columns share in proportion to their natural widths. */
    double fixed = 0, ell_nat = 0, wrap_nat = 0, narrow = fmin(w * 0.2, 150);
    char *kind = tp_xcalloc(nc ? nc : 1, 1); /* 0 fixed, 'e' ellipsized flex, 'w' wrapped flex */
    for (size_t c = 0; c < nc; c++) {
        if (t->cols[c].numeric || L->colw[c] <= narrow) {
            fixed += L->colw[c];
        } else if (t->cols[c].fit == TP_FIT_WRAP) {
            kind[c] = 'w';
            wrap_nat += L->colw[c];
        } else {
            kind[c] = 'e';
            ell_nat += L->colw[c];
        }
    }
    double left = w - fixed;
    double ell_w = wrap_nat > 0 ? fmin(ell_nat, left * 0.5) : fmin(ell_nat, left);
    if (wrap_nat == 0 && ell_nat < left)
        ell_w = ell_nat;
    double wrap_w = left - ell_w;
    for (size_t c = 0; c < nc; c++) {
        if (kind[c] == 'e')
            L->colw[c] = fmax(40, ell_w * L->colw[c] / ell_nat);
        else if (kind[c] == 'w')
            L->colw[c] = fmax(40, wrap_w * L->colw[c] / wrap_nat);
    }
    free(kind);
    double sum = 0;
    for (size_t c = 0; c < nc; c++)
        sum += L->colw[c];
    if (sum < w && nc > 0) { /* spare room goes to the last text column (or the last column) */
        size_t last = nc - 1;
        for (size_t c = 0; c < nc; c++)
            if (!t->cols[c].numeric)
                last = c;
        L->colw[last] += w - sum;
    }
    double total = 0; /* too many columns for the width: shrink all alike */
    for (size_t c = 0; c < nc; c++)
        total += L->colw[c];
    if (total > w && total > 0)
        for (size_t c = 0; c < nc; c++)
            L->colw[c] *= w / total;
    /* row heights and pages */
    L->lines = tp_xcalloc(t->nrows ? t->nrows : 1, sizeof *L->lines);
    size_t cap = 0;
    TP_GROW(L->page_start, cap, 1);
    L->page_start[0] = 0;
    L->pages = 1;
    double y = L->top + L->head_h, bottom = h;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t nl = 1;
        for (size_t c = 0; c < nc; c++)
            if (!t->cols[c].numeric && t->cols[c].fit == TP_FIT_WRAP) {
                char **lines;
                size_t k = tp_wrap(col_font(&t->cols[c]), L->fs, cell(t, r, c), L->colw[c] - 2 * PAD, maxl(t), &lines);
                tp_wrap_free(lines, k);
                if (k > nl)
                    nl = k;
            }
        L->lines[r] = nl;
        double rh = (double)nl * L->line_h + PAD;
        if (y + rh > bottom && r > L->page_start[L->pages - 1]) {
            TP_GROW(L->page_start, cap, L->pages + 1);
            L->page_start[L->pages++] = r;
            y = L->top + L->head_h;
        }
        y += rh;
    }
    TP_GROW(L->page_start, cap, L->pages + 1);
    L->page_start[L->pages] = t->nrows;
    return L;
}

size_t tp_table_pages(const tp_table_layout *L) { return L->pages; }

size_t tp_table_page_rows(const tp_table_layout *L, size_t page)
{
    return page < L->pages ? L->page_start[page + 1] - L->page_start[page] : 0;
}

double tp_table_page_height(const tp_table *t, const tp_table_layout *L, size_t page)
{
    if (page >= L->pages)
        return 0;
    double h = (t->title ? L->top : 0) + L->head_h;
    if (t->nrows == 0)
        return h + L->line_h;
    for (size_t row = L->page_start[page]; row < L->page_start[page + 1]; row++)
        h += (double)L->lines[row] * L->line_h + PAD;
    return h;
}

void tp_table_layout_free(tp_table_layout *L)
{
    if (!L)
        return;
    free(L->colw);
    free(L->lines);
    free(L->page_start);
    free(L);
}

/* `link`: the cell's target or NULL.  A linked cell is one line of text
 * in the link colour; the clickable area is that text, the row's height. */
static void draw_cell(tp_canvas *cv, const tp_table *t, const tp_table_layout *L, size_t c, const char *s, double x,
                      double y, size_t nl, const char *link)
{
    const tp_table_col *col = &t->cols[c];
    tp_font f = col_font(col);
    tp_color fg = link && *s ? TP_COLOR_LINK : TP_COLOR_TEXT;
    double w = L->colw[c] - 2 * PAD, base = y + PAD / 2 + tp_font_ascent(f, L->fs) + (L->line_h - L->fs) / 2;
    if (col->numeric || col->fit != TP_FIT_WRAP || fg == TP_COLOR_LINK) {
        char *v = col->fit == TP_FIT_MIDDLE && !col->numeric ? tp_fit_middle(f, L->fs, s, w) : tp_fit_end(f, L->fs, s, w);
        double tw = tp_text_width(f, L->fs, v), tx = col->numeric ? x + L->colw[c] - PAD - tw : x + PAD;
        tp_cv_text(cv, tx, base, f, L->fs, fg, TP_ALIGN_LEFT, 0, v);
        if (fg == TP_COLOR_LINK)
            tp_cv_link(cv, tx, y, tw, (double)nl * L->line_h + PAD, link);
        free(v);
    } else {
        char **lines;
        size_t k = tp_wrap(f, L->fs, s, w, nl, &lines);
        for (size_t i = 0; i < k; i++)
            tp_cv_text(cv, x + PAD, base + (double)i * L->line_h, f, L->fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, lines[i]);
        tp_wrap_free(lines, k);
    }
}

void tp_table_draw_page(tp_canvas *cv, const tp_table *t, const tp_table_layout *L, size_t page, tp_rect r)
{
    if (page >= L->pages)
        return;
    double y = r.y;
    if (t->title) {
        char tt[400];
        snprintf(tt, sizeof tt, "%s%s", t->title, page ? " (continued)" : "");
        char *f = tp_fit_end(TP_FONT_BOLD, TITLE_FS, tt, r.w);
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_BOLD, TITLE_FS), TP_FONT_BOLD, TITLE_FS, TP_COLOR_TEXT,
                   TP_ALIGN_LEFT, 0, f);
        free(f);
        y += L->top;
    }
    double tw = 0;
    for (size_t c = 0; c < t->ncols; c++)
        tw += L->colw[c];
    /* header */
    tp_cv_fill_rect(cv, r.x, y, tw, L->head_h, TP_COLOR_HEADER);
    double x = r.x;
    for (size_t c = 0; c < t->ncols; c++) {
        char *hd = tp_fit_end(TP_FONT_BOLD, L->fs, t->cols[c].header, L->colw[c] - 2 * PAD);
        double base = tp_text_baseline_mid(TP_FONT_BOLD, L->fs, y + L->head_h / 2);
        if (t->cols[c].numeric)
            tp_cv_text(cv, x + L->colw[c] - PAD, base, TP_FONT_BOLD, L->fs, TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, hd);
        else
            tp_cv_text(cv, x + PAD, base, TP_FONT_BOLD, L->fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, hd);
        free(hd);
        x += L->colw[c];
    }
    y += L->head_h;
    if (t->nrows == 0) {
        tp_cv_text(cv, r.x + PAD, y + L->line_h, TP_FONT_REGULAR, L->fs, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, "no data");
        return;
    }
    for (size_t row = L->page_start[page]; row < L->page_start[page + 1]; row++) {
        double rh = (double)L->lines[row] * L->line_h + PAD;
        if ((row - L->page_start[page]) % 2)
            tp_cv_fill_rect(cv, r.x, y, tw, rh, TP_COLOR_ZEBRA);
        x = r.x;
        for (size_t c = 0; c < t->ncols; c++) {
            draw_cell(cv, t, L, c, cell(t, row, c), x, y, L->lines[row], t->links ? t->links[row * t->ncols + c] : NULL);
            x += L->colw[c];
        }
        y += rh;
    }
    tp_cv_line(cv, r.x, y, r.x + tw, y, TP_COLOR_AXIS, 0.5);
}
