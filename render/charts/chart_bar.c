/* chart_bar.c: the vertical bar chart (see chart_bar.h). */
#include "render/charts/chart_bar.h"

#include "render/charts/axis.h"
#include "render/labels/kname.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define TICK_FS 7.5
#define AXIS_FS 8.0
#define VALUE_FS 6.5

char **tp_barchart_labels(const tp_barchart *c)
{
    if (c->shorten_names)
        return tp_kname_shorten(c->labels, c->n);
    char **out = tp_xmalloc((c->n ? c->n : 1) * sizeof *out);
    for (size_t i = 0; i < c->n; i++)
        out[i] = tp_xstrdup(c->labels[i] ? c->labels[i] : "");
    return out;
}

static double title_block(tp_canvas *cv, const char *title, tp_rect r, double fs)
{
    if (!title || !*title)
        return 0;
    char *t = tp_fit_end(TP_FONT_BOLD, fs, title, r.w);
    tp_cv_text(cv, r.x, r.y + tp_font_ascent(TP_FONT_BOLD, fs), TP_FONT_BOLD, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, t);
    free(t);
    return fs * 1.8;
}

static void no_data(tp_canvas *cv, tp_rect r)
{
    tp_cv_stroke_rect(cv, r.x, r.y, r.w, r.h, TP_COLOR_GRID, 1);
    tp_cv_text(cv, r.x + r.w / 2, tp_text_baseline_mid(TP_FONT_REGULAR, 11, r.y + r.h / 2), TP_FONT_REGULAR, 11,
               TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, "no data");
}

static double val(const int64_t *v, size_t i) { return v && v[i] > 0 ? (double)v[i] : 0; }

void tp_barchart_draw(tp_canvas *cv, const tp_barchart *c, tp_rect r)
{
    const double fs = c->font_size > 0 ? c->font_size : 0; /* 0: the default sizes */
    const double title_fs = fs ? fs * 1.25 : TITLE_FS, tick_fs = fs ? fs : TICK_FS, axis_fs = fs ? fs : AXIS_FS,
                 value_fs = fs ? fs : VALUE_FS;
    r.y += title_block(cv, c->title, r, title_fs);
    r.h -= c->title && *c->title ? title_fs * 1.8 : 0;
    if (c->legend && c->nlegend) {
        double lh = tp_legend_draw(cv, c->legend, c->nlegend, r, axis_fs) + 4;
        r.y += lh;
        r.h -= lh;
    }
    if (c->n == 0 || !c->values) {
        no_data(cv, r);
        return;
    }
    size_t n = c->n;
    /* value range, error bars included */
    double vmax = 0, vmin = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = val(c->values, i), hi = c->err_hi ? val(c->err_hi, i) : v, lo = c->err_lo ? val(c->err_lo, i) : v;
        vmax = fmax(vmax, fmax(v, hi));
        if (v >= 1)
            vmin = fmin(vmin, v);
        if (lo >= 1)
            vmin = fmin(vmin, lo);
    }
    tp_ticks t;
    if (c->log_scale)
        tp_ticks_log(isfinite(vmin) ? vmin : 1, vmax, &t);
    else
        tp_ticks_linear(vmax, 5, &t);
    if (c->counts) /* the same nice steps, as plain numbers */
        for (int i = 0; i < t.n; i++)
            snprintf(t.label[i], sizeof t.label[i], "%g", t.v[i]);

    /* horizontal layout: [axis title][tick labels][plot] */
    double tickw = 0;
    for (int i = 0; i < t.n; i++)
        tickw = fmax(tickw, tp_text_width(TP_FONT_REGULAR, tick_fs, t.label[i]));
    double axis_title_w = c->value_label ? axis_fs * 1.6 : 0;
    double px = r.x + axis_title_w + tickw + 6, pw = r.x + r.w - px - 4;
    double slot = pw / (double)n;

    /* category labels: size, orientation and room below the plot */
    char **labels = tp_barchart_labels(c);
    double lfs = fs ? fs : fmin(9, fmax(6, slot * 0.75)); /* never under 6 pt: fewer labels, not smaller text */
    double maxlw = 0;
    for (size_t i = 0; i < n; i++)
        maxlw = fmax(maxlw, tp_text_width(TP_FONT_REGULAR, lfs, labels[i]));
    double angle = maxlw <= slot * 0.95 ? 0 : n <= 24 ? -45 : -90;
    double room = fmin(r.h * 0.4, angle == 0 ? lfs * 1.6 : angle == -45 ? maxlw * 0.7071 + lfs : maxlw + 4);
    double label_h = angle == 0 ? lfs * 1.6 : room;
    double py = r.y + value_fs * 1.5, ph = r.y + r.h - label_h - 6 - py;
    if (ph < 20) { /* tiny rectangle: give the plot at least a little */
        ph = 20;
        label_h = fmax(0, r.y + r.h - 6 - py - ph);
    }
    double base_y = py + ph;

    /* grid and ticks */
    for (int i = 0; i < t.n; i++) {
        double y = base_y - tp_ticks_pos(&t, t.v[i]) * ph;
        if (i > 0)
            tp_cv_line(cv, px, y, px + pw, y, TP_COLOR_GRID, 0.5);
        tp_cv_text(cv, px - 4, tp_text_baseline_mid(TP_FONT_REGULAR, tick_fs, y), TP_FONT_REGULAR, tick_fs,
                   TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, t.label[i]);
    }
    if (c->value_label)
        tp_cv_text(cv, r.x + axis_fs, py + ph / 2, TP_FONT_REGULAR, axis_fs, TP_COLOR_TEXT, TP_ALIGN_CENTER, -90,
                   c->value_label);

    /* bars, error bars, value labels */
    double bw = fmax(0.5, slot * 0.72);
    for (size_t i = 0; i < n; i++) {
        double cx = px + slot * ((double)i + 0.5), v = val(c->values, i);
        double top = base_y - tp_ticks_pos(&t, v) * ph;
        if (v > 0 && base_y - top < 1.5) /* a non-zero value stays visible */
            top = base_y - 1.5;
        if (v > 0)
            tp_cv_fill_rect(cv, cx - bw / 2, top, bw, base_y - top, c->colors ? c->colors[i] : tp_palette(0));
        double label_top = top;
        if (c->err_lo && c->err_hi) {
            double ylo = base_y - tp_ticks_pos(&t, val(c->err_lo, i)) * ph;
            double yhi = base_y - tp_ticks_pos(&t, val(c->err_hi, i)) * ph;
            double cap = fmin(bw * 0.4, 5);
            tp_cv_line(cv, cx, ylo, cx, yhi, TP_COLOR_TEXT, 0.8);
            tp_cv_line(cv, cx - cap, ylo, cx + cap, ylo, TP_COLOR_TEXT, 0.8);
            tp_cv_line(cv, cx - cap, yhi, cx + cap, yhi, TP_COLOR_TEXT, 0.8);
            label_top = fmin(top, yhi);
        }
        if (c->value_labels) {
            char vb[32];
            if (c->counts)
                snprintf(vb, sizeof vb, "%.0f", v);
            else
                tp_format_duration(vb, sizeof vb, v);
            double vw = tp_text_width(TP_FONT_REGULAR, value_fs, vb);
            double rx =
                cx + (tp_font_ascent(TP_FONT_REGULAR, value_fs) - tp_font_descent(TP_FONT_REGULAR, value_fs)) / 2;
            double cap = c->err_lo && c->err_hi ? fmin(bw * 0.4, 5) : 0;
            if (cap > 0 && vw + cap + 3 <= slot / 2 && top - value_fs * 1.2 >= r.y)
                /* the mean's value beside the whisker at the bar's top, not on the max's cap */
                tp_cv_text(cv, cx + cap + 2, top - 2, TP_FONT_REGULAR, value_fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, vb);
            else if (vw <= slot - 1 && label_top - value_fs * 1.2 - (cap > 0 ? 2 : 0) >= r.y)
                tp_cv_text(cv, cx, label_top - 2 - (cap > 0 ? 2 : 0), TP_FONT_REGULAR, value_fs, TP_COLOR_TEXT,
                           TP_ALIGN_CENTER, 0, vb);
            else if (slot >= value_fs * 1.1 && label_top - vw - 3 >= r.y)
                tp_cv_text(cv, rx, label_top - 2, TP_FONT_REGULAR, value_fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, -90, vb);
            else if (slot >= value_fs * 1.1 && v > 0 && !(c->err_lo && c->err_hi) &&
                     base_y - top >= vw + 6)
                /* no room above (the tallest bars): inside the top of the bar,
                 * so the largest value is never the one left out */
                tp_cv_text(cv, rx, top + 3 + vw, TP_FONT_REGULAR, value_fs,
                           tp_text_color_on(c->colors ? c->colors[i] : tp_palette(0)), TP_ALIGN_LEFT, -90, vb);
        }
    }
    /* axes on top of bars */
    tp_cv_line(cv, px, py, px, base_y, TP_COLOR_AXIS, 0.8);
    tp_cv_line(cv, px, base_y, px + pw, base_y, TP_COLOR_AXIS, 0.8);

    /* category labels */
    double mid = (tp_font_ascent(TP_FONT_REGULAR, lfs) - tp_font_descent(TP_FONT_REGULAR, lfs)) / 2;
    /* rotated labels closer than their line height would overlap: label every k-th bar only */
    size_t every = 1;
    if (angle != 0) {
        double need = angle == -45 ? lfs * 1.2 / 0.7071 : lfs * 1.2;
        every = slot >= need ? 1 : (size_t)ceil(need / slot);
    }
    double *maxws = tp_xcalloc(n + 1, sizeof *maxws);
    for (size_t i = 0; i < n; i++) {
        double cx = px + slot * ((double)i + 0.5);
        maxws[i] = angle == 0 ? slot * 0.95 : angle == -45 ? fmin(label_h, cx - r.x) / 0.7071 - lfs : label_h - 4;
    }
    /* distinct names stay distinct once fitted (five "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1…" were one label) */
    char **fits = tp_fit_apart(TP_FONT_REGULAR, lfs, (const char *const *)labels, n, maxws, tp_fit_name);
    for (size_t i = 0; i < n; i += every) {
        double cx = px + slot * ((double)i + 0.5);
        char *lab = fits[i];
        if (angle == 0)
            tp_cv_text(cv, cx, base_y + 4 + tp_font_ascent(TP_FONT_REGULAR, lfs), TP_FONT_REGULAR, lfs, TP_COLOR_TEXT,
                       TP_ALIGN_CENTER, 0, lab);
        else if (angle == -45)
            tp_cv_text(cv, cx + mid * 0.7071, base_y + 4 + mid * 0.7071, TP_FONT_REGULAR, lfs, TP_COLOR_TEXT,
                       TP_ALIGN_RIGHT, -45, lab);
        else
            tp_cv_text(cv, cx + mid, base_y + 4, TP_FONT_REGULAR, lfs, TP_COLOR_TEXT, TP_ALIGN_RIGHT, -90, lab);
    }
    tp_fit_apart_free(fits, n);
    free(maxws);
    tp_kname_free(labels, n);
}
