/* chart_diverging.c: horizontal diverging bars (chart_diverging.h). */
#include "render/charts/chart_diverging.h"

#include "render/charts/axis.h"
#include "render/labels/kname.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DV_FONT 8.0
#define DV_TITLE 11.0
#define DV_ROW_MAX 18.0

/* Sizes: the defaults, or everything from font_size. */
typedef struct dv_sizes {
    double font, title, row_max;
} dv_sizes;
static dv_sizes sizes(const tp_diverging *c)
{
    if (c->font_size > 0)
        return (dv_sizes){c->font_size, c->font_size * 1.25, c->font_size * 2};
    return (dv_sizes){DV_FONT, DV_TITLE, DV_ROW_MAX};
}

static bool all_zero(const tp_diverging *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->values[i] != 0)
            return false;
    return true;
}

double tp_diverging_height(const tp_diverging *c, double w)
{
    dv_sizes z = sizes(c);
    double h = c->title ? z.title * 1.6 : 0;
    if (c->pos_label && c->neg_label) {
        tp_legend_item it[2] = {{c->pos_label, TP_DIVERGE_POS}, {c->neg_label, TP_DIVERGE_NEG}};
        h += tp_legend_height(it, 2, w, z.font) + 4;
    }
    if (c->n == 0 || all_zero(c))
        return h + z.font * 3;
    return h + z.row_max * (double)c->n;
}

void tp_diverging_draw(tp_canvas *cv, const tp_diverging *c, tp_rect r)
{
    dv_sizes z = sizes(c);
    double y = r.y;
    if (c->title) {
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_BOLD, z.title), TP_FONT_BOLD, z.title, TP_COLOR_TEXT,
                   TP_ALIGN_LEFT, 0, c->title);
        y += z.title * 1.6;
    }
    if (c->pos_label && c->neg_label) {
        tp_legend_item it[2] = {{c->pos_label, TP_DIVERGE_POS}, {c->neg_label, TP_DIVERGE_NEG}};
        y += tp_legend_draw(cv, it, 2, (tp_rect){r.x, y, r.w, r.h - (y - r.y)}, z.font) + 4;
    }
    double maxpos = 0, maxneg = 0;
    for (size_t i = 0; i < c->n; i++) {
        double v = (double)c->values[i];
        maxpos = v > maxpos ? v : maxpos;
        maxneg = -v > maxneg ? -v : maxneg;
    }
    double h = r.y + r.h - y;
    if (c->n == 0 || (maxpos == 0 && maxneg == 0) || h < 10) {
        double nfs = c->font_size > 0 ? z.font : 10;
        tp_cv_text(cv, r.x + r.w / 2, tp_text_baseline_mid(TP_FONT_REGULAR, nfs, y + h / 2), TP_FONT_REGULAR, nfs,
                   TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, "no change");
        return;
    }
    char **labels = NULL;
    if (c->shorten_names)
        labels = tp_kname_shorten(c->labels, c->n);
    double rh = h / (double)c->n;
    rh = rh > z.row_max ? z.row_max : rh;
    double fs = rh * 0.62 < z.font ? rh * 0.62 : z.font;
    double lw = r.w * 0.34;                   /* label column */
    double notew = tp_text_width(TP_FONT_REGULAR, fs, "+888 ms (+888.8%)") + 4;
    double px = r.x + lw + 6 + (maxneg > 0 ? notew : 0), pw = r.x + r.w - (maxpos > 0 ? notew : 0) - px;
    if (pw < 20)
        pw = 20;
    double span = maxpos + maxneg;
    double x0 = px + pw * maxneg / span;
    const char **labs = tp_xcalloc(c->n + 1, sizeof *labs);
    double *maxws = tp_xcalloc(c->n + 1, sizeof *maxws);
    for (size_t i = 0; i < c->n; i++) {
        labs[i] = labels ? labels[i] : c->labels[i];
        maxws[i] = lw;
    }
    char **fits = tp_fit_apart(TP_FONT_MONO, fs, labs, c->n, maxws, tp_fit_name); /* distinct stay distinct */
    for (size_t i = 0; i < c->n; i++) {
        double ry = y + rh * (double)i;
        if (i % 2 == 1)
            tp_cv_fill_rect(cv, r.x, ry, r.w, rh, TP_COLOR_ZEBRA);
        tp_cv_text(cv, r.x + lw, tp_text_baseline_mid(TP_FONT_MONO, fs, ry + rh / 2), TP_FONT_MONO, fs,
                   TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, fits[i]);
        double v = (double)c->values[i];
        double bw = pw * (v < 0 ? -v : v) / span;
        double bh = rh * 0.7;
        double bx = v < 0 ? x0 - bw : x0;
        if (bw > 0)
            tp_cv_fill_rect(cv, bx, ry + (rh - bh) / 2, bw < 0.5 ? 0.5 : bw, bh,
                            v < 0 ? TP_DIVERGE_NEG : TP_DIVERGE_POS);
        char buf[64];
        const char *note = c->notes ? c->notes[i] : NULL;
        if (!note) {
            char d[40];
            tp_format_duration(d, sizeof d, v < 0 ? -v : v);
            snprintf(buf, sizeof buf, "%s%s", v < 0 ? "-" : v > 0 ? "+" : "", d);
            note = buf;
        }
        double tb = tp_text_baseline_mid(TP_FONT_REGULAR, fs, ry + rh / 2);
        if (v < 0)
            tp_cv_text(cv, bx - 3, tb, TP_FONT_REGULAR, fs, TP_COLOR_MUTED, TP_ALIGN_RIGHT, 0, note);
        else
            tp_cv_text(cv, bx + bw + 3, tb, TP_FONT_REGULAR, fs, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, note);
    }
    tp_fit_apart_free(fits, c->n);
    free(labs);
    free(maxws);
    tp_cv_line(cv, x0, y, x0, y + rh * (double)c->n, TP_COLOR_AXIS, 0.8);
    if (labels)
        tp_kname_free(labels, c->n);
}
