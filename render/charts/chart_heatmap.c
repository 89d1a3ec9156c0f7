/* chart_heatmap.c: the deviation heatmap (chart_heatmap.h).  One layout
 * function measures for both the group sizes and the drawing, so what is
 * promised is what is drawn. */
#include "render/charts/chart_heatmap.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIP_STEPS 9 /* swatches of the legend's colour scale */

static tp_color mix(tp_color a, tp_color b, double t)
{
    tp_color out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double x = a >> sh & 255, y = b >> sh & 255;
        out |= (tp_color)(x + (y - x) * t + 0.5) << sh;
    }
    return out;
}

tp_color tp_heatmap_color(double v, double limit)
{
    if (isnan(v))
        return TP_HEATMAP_MISSING;
    double t = limit > 0 ? fabs(v) / limit : 0;
    if (t > 1)
        t = 1;
    return mix(0xFFFFFF, v < 0 ? TP_HEATMAP_NEG : TP_HEATMAP_POS, t);
}

double tp_heatmap_limit(const tp_heatmap *h)
{
    if (h->limit > 0)
        return h->limit;
    double m = 0;
    if (h->range) {
        uint32_t marks;
        bool missing;
        double v = h->range(h->range_ctx, 0, h->nrows, 0, h->ncols, &marks, &missing);
        m = isnan(v) ? 0 : fabs(v);
    } else
        for (size_t i = 0; i < h->nrows * h->ncols; i++)
            if (!isnan(h->values[i]) && fabs(h->values[i]) > m)
                m = fabs(h->values[i]);
    static const double nice[] = {0.02, 0.05, 0.1, 0.2, 0.5};
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if (m <= nice[i] + 1e-12)
            return nice[i];
    return 1.0;
}

/* ---- legend: items that flow into lines ---- */

enum { IT_CAPTION, IT_SCALE, IT_MISSING, IT_MARK };

typedef struct legend {
    double fs, line_h, h;
    char lo[24], hi[24];
} legend;

static double item_w(const tp_heatmap *h, const legend *L, int it)
{
    double fs = L->fs, sw = fs, gap = fs * 0.4;
    switch (it) {
    case IT_CAPTION:
        return h->value_label ? tp_text_width(TP_FONT_BOLD, fs, h->value_label) : 0;
    case IT_SCALE:
        return tp_text_width(TP_FONT_REGULAR, fs, L->lo) + tp_text_width(TP_FONT_REGULAR, fs, L->hi) + 2 * gap +
               STRIP_STEPS * sw;
    case IT_MISSING:
        return sw + gap + tp_text_width(TP_FONT_REGULAR, fs, "no value");
    default:
        return sw + gap + tp_text_width(TP_FONT_REGULAR, fs, h->mark_label ? h->mark_label : "marked");
    }
}

static void item_draw(tp_canvas *cv, const tp_heatmap *h, const legend *L, int it, double x, double y, double w,
                      double limit)
{
    double fs = L->fs, sw = fs, gap = fs * 0.4, mid = y + L->line_h / 2, top = mid - sw / 2;
    double base = tp_text_baseline_mid(TP_FONT_REGULAR, fs, mid);
    if (it == IT_CAPTION) {
        char *fit = tp_fit_end(TP_FONT_BOLD, fs, h->value_label, w);
        tp_cv_text(cv, x, tp_text_baseline_mid(TP_FONT_BOLD, fs, mid), TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0,
                   fit);
        free(fit);
    } else if (it == IT_SCALE) {
        tp_cv_text(cv, x, base, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, L->lo);
        double sx = x + tp_text_width(TP_FONT_REGULAR, fs, L->lo) + gap;
        for (int k = 0; k < STRIP_STEPS; k++) {
            double v = -limit + 2 * limit * k / (STRIP_STEPS - 1);
            tp_cv_fill_rect(cv, sx + k * sw, top, sw, sw, tp_heatmap_color(v, limit));
        }
        tp_cv_stroke_rect(cv, sx, top, STRIP_STEPS * sw, sw, TP_COLOR_AXIS, 0.4);
        tp_cv_text(cv, sx + STRIP_STEPS * sw + gap, base, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, L->hi);
    } else {
        bool mk = it == IT_MARK;
        tp_cv_fill_rect(cv, x, top, sw, sw, mk ? 0xFFFFFF : TP_HEATMAP_MISSING);
        tp_cv_stroke_rect(cv, x, top, sw, sw, mk ? TP_COLOR_TEXT : TP_COLOR_AXIS, mk ? 1.2 : 0.4);
        const char *s = mk ? (h->mark_label ? h->mark_label : "marked") : "no value";
        char *fit = tp_fit_end(TP_FONT_REGULAR, fs, s, fmax(0, w - sw - gap));
        tp_cv_text(cv, x + sw + gap, base, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, fit);
        free(fit);
    }
}

/* Measures (cv NULL) or draws the legend at the top of r; returns its height. */
static double legend_flow(tp_canvas *cv, const tp_heatmap *h, legend *L, tp_rect r, double limit)
{
    bool any_mark = false, any_missing = false;
    if (h->range) {
        uint32_t marks = 0;
        h->range(h->range_ctx, 0, h->nrows, 0, h->ncols, &marks, &any_missing);
        any_mark = marks != 0;
    } else
        for (size_t i = 0; i < h->nrows * h->ncols; i++) {
            any_mark = any_mark || (h->marks && h->marks[i]);
            any_missing = any_missing || isnan(h->values[i]);
        }
    int items[4], n = 0;
    if (h->value_label)
        items[n++] = IT_CAPTION;
    items[n++] = IT_SCALE;
    if (any_missing)
        items[n++] = IT_MISSING;
    if (any_mark)
        items[n++] = IT_MARK;
    double x = r.x, y = r.y, sep = L->fs * 1.5;
    for (int i = 0; i < n; i++) {
        double w = fmin(item_w(h, L, items[i]), r.w);
        if (x > r.x && x + w > r.x + r.w) {
            x = r.x;
            y += L->line_h;
        }
        if (cv)
            item_draw(cv, h, L, items[i], x, y, w, limit);
        x += w + sep;
    }
    return y + L->line_h - r.y;
}

/* ---- layout ---- */

typedef struct layout {
    double fs, tfs, limit;
    legend leg;
    double title_h, note_h;
    double gx, gy, cw, ch;   /* the grid's top-left corner and cell size */
    double rowlab_w, row_every, col_every;
    size_t rg, cg, nr, nc;   /* group sizes, rows and columns drawn */
    char note[512]; /* the longest text of the aggregation note fits (480 bytes) */
} layout;

static size_t group_for(size_t n, double room)
{
    if (n == 0 || (double)n * TP_HEATMAP_MIN_CELL <= room)
        return 1;
    size_t fit = room >= TP_HEATMAP_MIN_CELL ? (size_t)floor(room / TP_HEATMAP_MIN_CELL) : 1;
    return (n + fit - 1) / fit;
}

/* The label of group g of size k over labels[0..n). */
static void group_label(char *buf, size_t len, const char *const *labels, size_t n, size_t g, size_t k)
{
    size_t a = g * k, b = a + k - 1 < n ? a + k - 1 : n - 1;
    if (a == b)
        snprintf(buf, len, "%s", labels[a]);
    else
        snprintf(buf, len, "%s-%s", labels[a], labels[b]);
}

static void lay_out(const tp_heatmap *h, tp_rect r, layout *L)
{
    memset(L, 0, sizeof *L);
    L->fs = h->font_size > 0 ? h->font_size : 7.5;
    L->tfs = h->font_size > 0 ? h->font_size * 1.25 : 10;
    L->limit = tp_heatmap_limit(h);
    L->leg.fs = L->fs;
    L->leg.line_h = L->fs * 1.8;
    snprintf(L->leg.lo, sizeof L->leg.lo, "-%g%%", L->limit * 100);
    snprintf(L->leg.hi, sizeof L->leg.hi, "+%g%%", L->limit * 100);
    L->title_h = h->title ? L->tfs * 1.7 : 0;
    L->leg.h = legend_flow(NULL, h, &L->leg, r, L->limit) + L->fs * 0.4;
    double fs = L->fs, lab_h = fs * 1.6, coltitle_h = h->col_title ? fs * 1.6 : 0;
    double rowtitle_w = h->row_title ? fs * 1.8 : 0;
    double top = r.y + L->title_h + L->leg.h;
    for (int pass = 0; pass < 2; pass++) {
        double gh = r.y + r.h - top - lab_h - coltitle_h - L->note_h;
        L->rg = group_for(h->nrows, gh);
        L->nr = h->nrows ? (h->nrows + L->rg - 1) / L->rg : 0;
        L->rowlab_w = 0;
        char b[160];
        for (size_t g = 0; g < L->nr; g++) {
            group_label(b, sizeof b, h->row_labels, h->nrows, g, L->rg);
            L->rowlab_w = fmax(L->rowlab_w, tp_text_width(TP_FONT_REGULAR, fs, b));
        }
        L->rowlab_w = fmin(L->rowlab_w, r.w * 0.25) + fs * 0.5;
        L->gx = r.x + rowtitle_w + L->rowlab_w;
        double gw = r.x + r.w - L->gx;
        L->cg = group_for(h->ncols, gw);
        L->nc = h->ncols ? (h->ncols + L->cg - 1) / L->cg : 0;
        L->ch = L->nr ? fmin(gh / (double)L->nr, fs * 3.5) : 0;
        L->cw = L->nc ? fmin(gw / (double)L->nc, fs * 7) : 0;
        L->gy = top;
        if (L->rg == 1 && L->cg == 1)
            break;
        /* the note says what was aggregated (the second pass makes room for it) */
        char rows[160] = "", cols[160] = "";
        if (L->rg > 1)
            snprintf(rows, sizeof rows, "%zu %s per row", L->rg, h->row_noun ? h->row_noun : "rows");
        if (L->cg > 1)
            snprintf(cols, sizeof cols, "%zu %s per column", L->cg, h->col_noun ? h->col_noun : "columns");
        snprintf(L->note, sizeof L->note,
                 "Aggregated to stay legible: %s%s%s (%zu x %zu). A cell shows the largest deviation of its group "
                 "and is outlined when any member is.",
                 rows, *rows && *cols ? ", " : "", cols, h->nrows, h->ncols);
        char **lines;
        size_t nl = tp_wrap(TP_FONT_REGULAR, fs, L->note, r.w, 3, &lines);
        tp_wrap_free(lines, nl);
        L->note_h = (double)nl * fs * 1.35 + fs * 0.4;
    }
    /* labels every k-th, so that they never touch */
    L->row_every = L->ch > 0 ? ceil(fs * 1.15 / L->ch) : 1;
    double colw = 0;
    char b[160];
    for (size_t g = 0; g < L->nc; g++) {
        group_label(b, sizeof b, h->col_labels, h->ncols, g, L->cg);
        colw = fmax(colw, tp_text_width(TP_FONT_REGULAR, fs, b));
    }
    L->col_every = L->cw > 0 ? ceil((colw + fs * 0.8) / L->cw) : 1;
}

tp_heatmap_fit tp_heatmap_measure(const tp_heatmap *h, tp_rect r)
{
    layout L;
    lay_out(h, r, &L);
    return (tp_heatmap_fit){L.rg, L.cg, L.cw, L.ch};
}

/* The value of largest |v| over the group's members (NAN when none), and the members' marks. */
static double group_value(const tp_heatmap *h, const layout *L, size_t gi, size_t gj, uint32_t *marks)
{
    double best = NAN;
    *marks = 0;
    if (h->range) {
        bool missing;
        size_t r1 = (gi + 1) * L->rg, c1 = (gj + 1) * L->cg;
        return h->range(h->range_ctx, gi * L->rg, r1 < h->nrows ? r1 : h->nrows, gj * L->cg,
                        c1 < h->ncols ? c1 : h->ncols, marks, &missing);
    }
    for (size_t i = gi * L->rg; i < (gi + 1) * L->rg && i < h->nrows; i++)
        for (size_t j = gj * L->cg; j < (gj + 1) * L->cg && j < h->ncols; j++) {
            double v = h->values[i * h->ncols + j];
            if (!isnan(v) && (isnan(best) || fabs(v) > fabs(best)))
                best = v;
            if (h->marks)
                *marks |= h->marks[i * h->ncols + j];
        }
    return best;
}

static void cell_marks(tp_canvas *cv, const tp_heatmap *h, const layout *L, double x, double y, uint32_t m, tp_color bg)
{
    double lw = fmin(1.6, fmax(0.8, fmin(L->cw, L->ch) * 0.18));
    tp_cv_stroke_rect(cv, x + lw / 2, y + lw / 2, L->cw - lw, L->ch - lw, TP_COLOR_TEXT, lw);
    if (!h->mark_letters)
        return;
    char s[33];
    size_t n = 0;
    for (size_t b = 0; b < 32 && h->mark_letters[b]; b++)
        if (m >> b & 1)
            s[n++] = h->mark_letters[b];
    s[n] = 0;
    double fs = fmin(L->fs, L->ch * 0.7);
    if (!n || L->ch < L->fs * 1.15 || tp_text_width(TP_FONT_BOLD, fs, s) + 2 * lw + 2 > L->cw)
        return;
    tp_cv_text(cv, x + L->cw / 2, tp_text_baseline_mid(TP_FONT_BOLD, fs, y + L->ch / 2), TP_FONT_BOLD, fs,
               tp_text_color_on(bg), TP_ALIGN_CENTER, 0, s);
}

void tp_heatmap_draw(tp_canvas *cv, const tp_heatmap *h, tp_rect r)
{
    layout L;
    lay_out(h, r, &L);
    double fs = L.fs;
    if (h->title) {
        char *fit = tp_fit_end(TP_FONT_BOLD, L.tfs, h->title, r.w);
        tp_cv_text(cv, r.x, tp_text_baseline_mid(TP_FONT_BOLD, L.tfs, r.y + L.title_h / 2), TP_FONT_BOLD, L.tfs,
                   TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, fit);
        free(fit);
    }
    legend_flow(cv, h, &L.leg, (tp_rect){r.x, r.y + L.title_h, r.w, 0}, L.limit);
    if (!L.nr || !L.nc)
        return;
    double gw = L.cw * (double)L.nc, gh = L.ch * (double)L.nr;
    for (size_t gi = 0; gi < L.nr; gi++)
        for (size_t gj = 0; gj < L.nc; gj++) {
            uint32_t m;
            double v = group_value(h, &L, gi, gj, &m);
            tp_color c = tp_heatmap_color(v, L.limit);
            double x = L.gx + L.cw * (double)gj, y = L.gy + L.ch * (double)gi;
            tp_cv_fill_rect(cv, x, y, L.cw, L.ch, c);
        }
    /* cell borders where cells are big enough to tell apart, then the marks on top */
    if (L.ch >= 10 && L.nr > 1)
        for (size_t gi = 1; gi < L.nr; gi++)
            tp_cv_line(cv, L.gx, L.gy + L.ch * (double)gi, L.gx + gw, L.gy + L.ch * (double)gi, TP_COLOR_GRID, 0.3);
    if (L.cw >= 10 && L.nc > 1)
        for (size_t gj = 1; gj < L.nc; gj++)
            tp_cv_line(cv, L.gx + L.cw * (double)gj, L.gy, L.gx + L.cw * (double)gj, L.gy + gh, TP_COLOR_GRID, 0.3);
    tp_cv_stroke_rect(cv, L.gx, L.gy, gw, gh, TP_COLOR_AXIS, 0.5);
    for (size_t gi = 0; gi < L.nr; gi++)
        for (size_t gj = 0; gj < L.nc; gj++) {
            uint32_t m;
            double v = group_value(h, &L, gi, gj, &m);
            if (m)
                cell_marks(cv, h, &L, L.gx + L.cw * (double)gj, L.gy + L.ch * (double)gi, m,
                           tp_heatmap_color(v, L.limit));
        }
    /* labels */
    char b[160];
    size_t re = (size_t)L.row_every, ce = (size_t)L.col_every;
    for (size_t gi = 0; gi < L.nr; gi += re) {
        group_label(b, sizeof b, h->row_labels, h->nrows, gi, L.rg);
        char *fit = tp_fit_end(TP_FONT_REGULAR, fs, b, L.rowlab_w - fs * 0.4);
        tp_cv_text(cv, L.gx - fs * 0.4, tp_text_baseline_mid(TP_FONT_REGULAR, fs, L.gy + L.ch * ((double)gi + 0.5)),
                   TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, fit);
        free(fit);
    }
    double ly = L.gy + gh + fs * 0.8;
    for (size_t gj = 0; gj < L.nc; gj += ce) {
        group_label(b, sizeof b, h->col_labels, h->ncols, gj, L.cg);
        double cx = L.gx + L.cw * ((double)gj + 0.5), tw = tp_text_width(TP_FONT_REGULAR, fs, b);
        /* the first and last labels stay inside the rectangle */
        cx = fmin(fmax(cx, r.x + tw / 2), r.x + r.w - tw / 2);
        tp_cv_text(cv, cx, tp_text_baseline_mid(TP_FONT_REGULAR, fs, ly), TP_FONT_REGULAR, fs, TP_COLOR_TEXT,
                   TP_ALIGN_CENTER, 0, b);
    }
    double below = L.gy + gh + fs * 1.6;
    if (h->col_title) {
        tp_cv_text(cv, L.gx + fmin(gw, r.x + r.w - L.gx) / 2, tp_text_baseline_mid(TP_FONT_BOLD, fs, below + fs * 0.8),
                   TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_CENTER, 0, h->col_title);
        below += fs * 1.6;
    }
    if (h->row_title) /* reads bottom to top, centred on the rows */
        tp_cv_text(cv, r.x + fs * 1.1, L.gy + gh / 2, TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_CENTER, -90,
                   h->row_title);
    if (L.note[0]) {
        char **lines;
        size_t nl = tp_wrap(TP_FONT_REGULAR, fs, L.note, r.w, 3, &lines);
        double y = below + fs * 0.4;
        for (size_t i = 0; i < nl; i++, y += fs * 1.35)
            tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_REGULAR, fs), TP_FONT_REGULAR, fs, TP_COLOR_MUTED,
                       TP_ALIGN_LEFT, 0, lines[i]);
        tp_wrap_free(lines, nl);
    }
}
