/* chart_table.c: paginated tables (see chart_table.h). */
#include "render/charts/chart_table.h"

#include "render/charts/palette.h"
#include "render/text/textfit.h"
#include "render/text/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define PAD 4.0

struct tp_table_layout {
    double *colw;
    size_t *hsplit;     /* per column: byte offset of the space a two-line header breaks at; 0 = one line */
    size_t *lines;      /* per row: line count */
    size_t *page_start; /* first row of each page; [pages] = nrows */
    size_t pages;
    double fs, line_h, head_h, top;
    size_t nuc;
    char **uc; /* nrows * ncols: a duration cell rewritten in its column's unit (NULL: the table's own cell) */
};

static double fsz(const tp_table *t) { return t->font_size > 0 ? t->font_size : 8; }
static size_t maxl(const tp_table *t) { return t->max_lines ? t->max_lines : 4; }
static tp_font col_font(const tp_table_col *c) { return c->mono ? TP_FONT_MONO : TP_FONT_REGULAR; }
static const char *cell(const tp_table *t, const tp_table_layout *L, size_t r, size_t c)
{
    if (L && L->uc && L->uc[r * t->ncols + c])
        return L->uc[r * t->ncols + c];
    const char *s = t->cells ? t->cells[r * t->ncols + c] : NULL;
    return s ? s : "";
}

/* "1,234.567 ms (12.0%)", "+3.856 ms, +0.6%": the sign, the duration in ns, its unit (units.h) and where the rest starts; false when s
 * is no duration. */
static bool parse_dur(const char *s, int *sign, double *ns, const char **rest, int *unit)
{
    const char *p = s;
    *sign = 0;
    if (*p == '+' || *p == '-')
        *sign = *p++ == '+' ? 1 : -1;
    double v = 0, f = 0.1;
    bool digits = false, frac = false;
    for (; (*p >= '0' && *p <= '9') || *p == ',' || *p == '.'; p++) {
        if (*p == ',')
            continue;
        if (*p == '.') {
            if (frac)
                return false;
            frac = true;
            continue;
        }
        digits = true;
        if (frac)
            v += (*p - '0') * f, f /= 10;
        else
            v = v * 10 + (*p - '0');
    }
    if (!digits || *p++ != ' ')
        return false;
    static const char *const un[] = {"ns", "us", "ms", "s"};
    static const double scale[] = {1, 1e3, 1e6, 1e9};
    for (int u = 3; u >= 0; u--) {
        size_t k = strlen(un[u]);
        if (!strncmp(p, un[u], k) && (p[k] == 0 || p[k] == ' ' || p[k] == ',')) { /* "+3.856 ms, +0.6%" */
            *ns = v * scale[u] * (*sign < 0 ? -1 : 1);
            *rest = p + k;
            *unit = u;
            return true;
        }
    }
    return false;
}

/* One unit per numeric column (issue 36 item 8): when every cell of a right-aligned column is a duration ("-" and
 * empty cells aside) in more than one unit, each is rewritten in the unit of the column's largest, as summary.md's
 * columns are ("642.678 ms" under "1.292 s" becomes "0.643 s"). */
static void unify_units(const tp_table *t, tp_table_layout *L)
{
    size_t nc = t->ncols;
    for (size_t c = 0; c < nc; c++) {
        if (!t->cols[c].numeric || !t->nrows)
            continue;
        bool all = true, any = false;
        double most = 0;
        int first_unit = -1;
        bool mixed = false;
        for (size_t r = 0; r < t->nrows && all; r++) {
            const char *s = cell(t, NULL, r, c), *rest;
            int sign;
            double ns;
            if (!s[0] || !strcmp(s, "-"))
                continue;
            int u;
            if (!parse_dur(s, &sign, &ns, &rest, &u)) {
                all = false;
                break;
            }
            any = true;
            mixed |= first_unit >= 0 && u != first_unit;
            first_unit = first_unit < 0 ? u : first_unit;
            most = fmax(most, fabs(ns));
        }
        if (!all || !any || !mixed)
            continue;
        int unit = tp_dur_unit((int64_t)llround(most));
        if (!L->uc)
            L->uc = tp_xcalloc((L->nuc = t->nrows * nc) + 1, sizeof *L->uc);
        for (size_t r = 0; r < t->nrows; r++) {
            const char *s = cell(t, NULL, r, c), *rest;
            int sign;
            double ns;
            int u;
            if (!s[0] || !strcmp(s, "-") || !parse_dur(s, &sign, &ns, &rest, &u))
                continue;
            char num[64], out[256];
            tp_fmt_dur_in(num, sizeof num, (int64_t)llround(ns), unit);
            snprintf(out, sizeof out, "%s%s %s%s", sign > 0 ? "+" : "", num, tp_dur_unit_name(unit), rest);
            L->uc[r * nc + c] = tp_xstrdup(out);
        }
    }
}

#define FLOOR_FS 6.0   /* type is not shrunk below this (or the table's own size when smaller) */
#define TEXT_MIN 40.0  /* a wide text column keeps this much before the type shrinks */
#define TEXT_FLOOR 16.0 /* ... and this much when even the smallest type needs room */

/* Widths at the table's own size (they scale with the type): widest cell,
 * header on one line, header on two lines broken at its best space. */
typedef struct colm {
    double cell, h1, h2;
    size_t split;
} colm;

static void measure(const tp_table *t, const tp_table_layout *L, double fs, colm *m)
{
    for (size_t c = 0; c < t->ncols; c++) {
        const char *h = t->cols[c].header ? t->cols[c].header : "";
        m[c].cell = 0;
        for (size_t r = 0; r < t->nrows; r++)
            m[c].cell = fmax(m[c].cell, tp_text_width(col_font(&t->cols[c]), fs, cell(t, L, r, c)));
        m[c].h1 = m[c].h2 = tp_text_width(TP_FONT_BOLD, fs, h);
        m[c].split = 0;
        for (size_t i = 1; h[0] && h[i]; i++) { /* "" has no h[1] */
            if (h[i] != ' ' || !h[i + 1])
                continue;
            char *a = tp_xstrndup(h, i);
            double wd = fmax(tp_text_width(TP_FONT_BOLD, fs, a), tp_text_width(TP_FONT_BOLD, fs, h + i + 1));
            free(a);
            if (wd < m[c].h2) {
                m[c].h2 = wd;
                m[c].split = i;
            }
        }
    }
}

/* A numeric column's width: its widest cell and its header (on two lines
 * when `wrap` and that is narrower), at k times the table's type. */
static double num_w(const colm *m, bool wrap, double k)
{
    double h = wrap && m->split && m->h2 < m->h1 ? fmax(m->h2, m->cell) : m->h1;
    return fmax(m->cell, h) * k + 2 * PAD;
}

/* What the columns need at k times the type: numeric widths in full, text
 * columns their natural width up to `text_min`. */
static double need(const tp_table *t, const colm *m, bool wrap, double k, double text_min)
{
    double sum = 0;
    for (size_t c = 0; c < t->ncols; c++)
        sum += t->cols[c].numeric ? num_w(&m[c], wrap, k)
                                  : fmin(fmax(m[c].cell, m[c].h1) * k + 2 * PAD, text_min);
    return sum;
}

/* Numbers are never cut: when the numeric columns do not fit beside the
 * text columns' minimum, their headers break over two lines, then the type
 * shrinks (to FLOOR_FS), then the text columns give up width (to
 * TEXT_FLOOR); only a table whose numbers alone overflow the width at the
 * smallest type is squeezed as a whole. */
static void widths(const tp_table *t, tp_table_layout *L, double w)
{
    size_t nc = t->ncols;
    double base = fsz(t), floor_fs = fmin(FLOOR_FS, base), k = 1;
    colm *m = tp_xcalloc(nc ? nc : 1, sizeof *m);
    measure(t, L, base, m);
    bool wrap = false;
    if (need(t, m, false, 1, TEXT_MIN) > w) {
        wrap = true;
        if (need(t, m, true, 1, TEXT_MIN) > w) { /* shrink the type in 0.25 pt steps until it fits */
            double fs = base;
            while (fs - 0.25 >= floor_fs - 1e-9 && need(t, m, true, fs / base, TEXT_MIN) > w)
                fs -= 0.25;
            k = fs / base;
        }
    }
    L->fs = base * k;
    for (size_t c = 0; c < nc; c++) {
        L->colw[c] = t->cols[c].numeric ? num_w(&m[c], wrap, k) : fmax(m[c].cell, m[c].h1) * k + 2 * PAD;
        if (t->cols[c].numeric && wrap && m[c].split && m[c].h2 < m[c].h1 && m[c].h1 * k + 2 * PAD > L->colw[c])
            L->hsplit[c] = m[c].split;
    }
    free(m);
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
            L->colw[c] = fmax(TEXT_MIN, ell_w * L->colw[c] / ell_nat);
        else if (kind[c] == 'w')
            L->colw[c] = fmax(TEXT_MIN, wrap_w * L->colw[c] / wrap_nat);
    }
    free(kind);
    double sum = 0, num = 0, text = 0;
    for (size_t c = 0; c < nc; c++) {
        sum += L->colw[c];
        if (t->cols[c].numeric)
            num += L->colw[c];
        else
            text += L->colw[c];
    }
    if (sum < w && nc > 0) { /* spare room goes to the last text column (or the last column) */
        size_t last = nc - 1;
        for (size_t c = 0; c < nc; c++)
            if (!t->cols[c].numeric)
                last = c;
        L->colw[last] += w - sum;
    } else if (sum > w && text > 0) { /* the text columns give up width, numbers keep theirs */
        for (int pass = 0; pass < 4 && text > 0 && num + text > w + 1e-9; pass++) {
            double f = fmax(0, w - num) / text, t2 = 0;
            for (size_t c = 0; c < nc; c++)
                if (!t->cols[c].numeric) {
                    L->colw[c] = fmax(TEXT_FLOOR, L->colw[c] * f);
                    t2 += L->colw[c];
                }
            if (t2 >= text - 1e-9)
                break;
            text = t2;
        }
    }
    double total = 0; /* the numbers alone overflow at the smallest type: squeeze all alike */
    for (size_t c = 0; c < nc; c++)
        total += L->colw[c];
    if (total > w + 1e-6 && total > 0)
        for (size_t c = 0; c < nc; c++)
            L->colw[c] *= w / total;
}

tp_table_layout *tp_table_layout_new(const tp_table *t, double w, double h)
{
    tp_table_layout *L = tp_xcalloc(1, sizeof *L);
    size_t nc = t->ncols;
    L->colw = tp_xcalloc(nc ? nc : 1, sizeof *L->colw);
    L->hsplit = tp_xcalloc(nc ? nc : 1, sizeof *L->hsplit);
    unify_units(t, L);
    widths(t, L, w);
    L->line_h = L->fs * 1.35;
    bool two = false;
    for (size_t c = 0; c < nc; c++)
        two |= L->hsplit[c] != 0;
    L->head_h = (two ? 2 : 1) * L->line_h + 2 * PAD;
    L->top = t->title ? TITLE_FS * 1.8 : 0;
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
                size_t k = tp_wrap(col_font(&t->cols[c]), L->fs, cell(t, L, r, c), L->colw[c] - 2 * PAD, maxl(t), &lines);
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
    free(L->hsplit);
    free(L->lines);
    free(L->page_start);
    if (L->uc)
        for (size_t i = 0; i < L->nuc; i++)
            free(L->uc[i]);
    free(L->uc);
    free(L);
}

/* `link`: the cell's target or NULL.  A linked cell is one line of text
 * in the link colour; the clickable area is that text, the row's height. */
static void draw_cell(tp_canvas *cv, const tp_table *t, const tp_table_layout *L, size_t c, const char *s, double x,
                      double y, size_t nl, const char *link, const char *fitted)
{
    const tp_table_col *col = &t->cols[c];
    tp_font f = col_font(col);
    tp_color fg = link && *s ? TP_COLOR_LINK : TP_COLOR_TEXT;
    double w = L->colw[c] - 2 * PAD, base = y + PAD / 2 + tp_font_ascent(f, L->fs) + (L->line_h - L->fs) / 2;
    if (col->numeric || col->fit != TP_FIT_WRAP || fg == TP_COLOR_LINK) {
        char *v = col->numeric ? tp_xstrdup(s) /* a number is never cut (the layout made room) */
                  : fitted                    ? tp_xstrdup(fitted)
                  : col->fit == TP_FIT_MIDDLE ? tp_fit_middle(f, L->fs, s, w)
                                              : tp_fit_end(f, L->fs, s, w);
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
        const char *h = t->cols[c].header ? t->cols[c].header : "";
        size_t sp = L->hsplit[c];
        char *part[2] = {sp ? tp_xstrndup(h, sp) : tp_xstrdup(h), sp ? tp_xstrdup(h + sp + 1) : NULL};
        for (int i = 0; i < 2 && part[i]; i++) {
            /* a numeric column's header was given room; a text column's may be cut */
            char *hd = t->cols[c].numeric ? tp_xstrdup(part[i]) : tp_fit_end(TP_FONT_BOLD, L->fs, part[i], L->colw[c] - 2 * PAD);
            double mid = sp ? y + PAD + L->line_h * (i + 0.5) : y + L->head_h / 2;
            double base = tp_text_baseline_mid(TP_FONT_BOLD, L->fs, mid);
            if (t->cols[c].numeric)
                tp_cv_text(cv, x + L->colw[c] - PAD, base, TP_FONT_BOLD, L->fs, TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, hd);
            else
                tp_cv_text(cv, x + PAD, base, TP_FONT_BOLD, L->fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, hd);
            free(hd);
            free(part[i]);
        }
        x += L->colw[c];
    }
    y += L->head_h;
    if (t->nrows == 0) {
        tp_cv_text(cv, r.x + PAD, y + L->line_h, TP_FONT_REGULAR, L->fs, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, "no data");
        return;
    }
    /* a page's cut text cells: different texts stay different once cut (names that differ late) */
    size_t r0 = L->page_start[page], nr = L->page_start[page + 1] - r0;
    char ***fits = tp_xcalloc(t->ncols + 1, sizeof *fits);
    const char **texts = tp_xcalloc(nr + 1, sizeof *texts);
    double *ws = tp_xcalloc(nr + 1, sizeof *ws);
    for (size_t c = 0; c < t->ncols; c++) {
        const tp_table_col *col = &t->cols[c];
        if (col->numeric || col->fit == TP_FIT_WRAP)
            continue;
        for (size_t k = 0; k < nr; k++) {
            texts[k] = cell(t, L, r0 + k, c);
            ws[k] = L->colw[c] - 2 * PAD;
        }
        fits[c] = tp_fit_apart(col_font(col), L->fs, texts, nr, ws, col->fit == TP_FIT_MIDDLE ? tp_fit_middle : tp_fit_end);
    }
    for (size_t row = r0; row < r0 + nr; row++) {
        double rh = (double)L->lines[row] * L->line_h + PAD;
        if ((row - L->page_start[page]) % 2)
            tp_cv_fill_rect(cv, r.x, y, tw, rh, TP_COLOR_ZEBRA);
        x = r.x;
        for (size_t c = 0; c < t->ncols; c++) {
            draw_cell(cv, t, L, c, cell(t, L, row, c), x, y, L->lines[row], t->links ? t->links[row * t->ncols + c] : NULL,
                      fits[c] ? fits[c][row - r0] : NULL);
            x += L->colw[c];
        }
        y += rh;
    }
    for (size_t c = 0; c < t->ncols; c++)
        tp_fit_apart_free(fits[c], nr);
    free(fits);
    free(texts);
    free(ws);
    tp_cv_line(cv, r.x, y, r.x + tw, y, TP_COLOR_AXIS, 0.5);
}
