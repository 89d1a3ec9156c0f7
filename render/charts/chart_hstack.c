/* chart_hstack.c: horizontal stacked bars (chart_hstack.h). */
#include "render/charts/chart_hstack.h"
#include "render/charts/axis.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdlib.h>

typedef struct layout {
    double fs, tfs, title_h, legend_h, axis_h;
    double label_w, note_w, bar_x, bar_w, rows_y, row_h;
} layout;

static int64_t part(const tp_hstack *c, size_t i, size_t p)
{
    int64_t v = c->values[i * c->nparts + p];
    return v > 0 ? v : 0;
}

static tp_legend_item *legend_items(const tp_hstack *c)
{
    tp_legend_item *it = tp_xcalloc(c->nparts + 1, sizeof *it);
    for (size_t p = 0; p < c->nparts; p++)
        it[p] = (tp_legend_item){c->part_names[p], c->colors[p]};
    return it;
}

/* Everything but the rows' height, which follows from the room left. */
static void lay_out(const tp_hstack *c, tp_rect r, layout *L)
{
    L->fs = c->font_size > 0 ? c->font_size : 7.5;
    L->tfs = c->font_size > 0 ? c->font_size * 1.25 : 10;
    L->title_h = c->title ? L->tfs * 1.7 : 0;
    tp_legend_item *it = legend_items(c);
    L->legend_h = tp_legend_height(it, c->nparts, r.w, L->fs) + L->fs * 0.3;
    free(it);
    L->axis_h = L->fs * 1.8 + (c->value_label ? L->fs * 1.6 : 0);
    L->label_w = 0;
    L->note_w = 0;
    for (size_t i = 0; i < c->n; i++) {
        L->label_w = fmax(L->label_w, tp_text_width(TP_FONT_REGULAR, L->fs, c->labels[i]));
        if (c->notes && c->notes[i])
            L->note_w = fmax(L->note_w, tp_text_width(TP_FONT_REGULAR, L->fs, c->notes[i]));
    }
    L->label_w = fmin(L->label_w, r.w * 0.3) + L->fs * 0.6;
    L->note_w = L->note_w > 0 ? fmin(L->note_w, r.w * 0.35) + L->fs * 0.6 : L->fs; /* room for the last tick label */
    L->bar_x = r.x + L->label_w;
    L->bar_w = fmax(0, r.w - L->label_w - L->note_w);
    L->rows_y = r.y + L->title_h + L->legend_h;
    double room = r.y + r.h - L->axis_h - L->rows_y;
    L->row_h = c->n ? fmin(L->fs * 2.4, fmax(0, room) / (double)c->n) : 0;
}

double tp_hstack_height(const tp_hstack *c, double w)
{
    layout L;
    lay_out(c, (tp_rect){0, 0, w, 0}, &L);
    return L.title_h + L.legend_h + L.fs * 2.4 * (double)c->n + L.axis_h;
}

void tp_hstack_draw(tp_canvas *cv, const tp_hstack *c, tp_rect r)
{
    layout L;
    lay_out(c, r, &L);
    double fs = L.fs;
    if (c->title) {
        char *fit = tp_fit_end(TP_FONT_BOLD, L.tfs, c->title, r.w);
        tp_cv_text(cv, r.x, tp_text_baseline_mid(TP_FONT_BOLD, L.tfs, r.y + L.title_h / 2), TP_FONT_BOLD, L.tfs,
                   TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, fit);
        free(fit);
    }
    tp_legend_item *it = legend_items(c);
    tp_legend_draw(cv, it, c->nparts, (tp_rect){r.x, r.y + L.title_h, r.w, L.legend_h}, fs);
    free(it);
    if (!c->n || L.bar_w <= 0)
        return;
    int64_t max = 0;
    for (size_t i = 0; i < c->n; i++) {
        int64_t sum = 0;
        for (size_t p = 0; p < c->nparts; p++)
            sum += part(c, i, p);
        max = sum > max ? sum : max;
    }
    tp_ticks t;
    tp_ticks_linear((double)max, (int)fmax(1, L.bar_w / (fs * 10)), &t);
    double base = L.rows_y + L.row_h * (double)c->n;
    for (int k = 0; k < t.n; k++) {
        double x = L.bar_x + tp_ticks_pos(&t, t.v[k]) * L.bar_w;
        if (k > 0)
            tp_cv_line(cv, x, L.rows_y, x, base, TP_COLOR_GRID, 0.5);
        tp_cv_text(cv, x, tp_text_baseline_mid(TP_FONT_REGULAR, fs, base + fs * 0.9), TP_FONT_REGULAR, fs,
                   TP_COLOR_TEXT, TP_ALIGN_CENTER, 0, t.label[k]);
    }
    if (c->value_label)
        tp_cv_text(cv, L.bar_x + L.bar_w / 2, tp_text_baseline_mid(TP_FONT_BOLD, fs, base + fs * 2.6), TP_FONT_BOLD, fs,
                   TP_COLOR_TEXT, TP_ALIGN_CENTER, 0, c->value_label);
    /* rows: thin rows get a smaller label font, never under 6 pt: below that, every k-th label */
    double lf = fmax(6, fmin(fs, L.row_h * 0.85)), bh = fmax(0.5, L.row_h * 0.7);
    size_t every = (size_t)fmax(1, ceil(lf * 1.1 / fmax(L.row_h, 0.01)));
    double scale = L.bar_w / (t.hi > 0 ? t.hi : 1);
    double *maxws = tp_xcalloc(c->n + 1, sizeof *maxws);
    for (size_t i = 0; i < c->n; i++)
        maxws[i] = L.label_w - fs * 0.6;
    char **fits = tp_fit_apart(TP_FONT_REGULAR, lf, c->labels, c->n, maxws, tp_fit_end); /* distinct stay distinct */
    for (size_t i = 0; i < c->n; i++) {
        double y = L.rows_y + L.row_h * (double)i, mid = y + L.row_h / 2, x = L.bar_x;
        if (i % every == 0)
            tp_cv_text(cv, L.bar_x - fs * 0.4, tp_text_baseline_mid(TP_FONT_REGULAR, lf, mid), TP_FONT_REGULAR, lf,
                       TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, fits[i]);
        for (size_t p = 0; p < c->nparts; p++) {
            double w = (double)part(c, i, p) * scale;
            if (w > 0)
                tp_cv_fill_rect(cv, x, mid - bh / 2, w, bh, c->colors[p]);
            x += w;
        }
        if (x > L.bar_x)
            tp_cv_stroke_rect(cv, L.bar_x, mid - bh / 2, x - L.bar_x, bh, TP_COLOR_AXIS, 0.4);
        if (c->notes && c->notes[i] && i % every == 0) {
            double nx = L.bar_x + L.bar_w + fs * 0.6; /* a column of their own, clear of the grid */
            char *fit = tp_fit_end(TP_FONT_REGULAR, lf, c->notes[i], r.x + r.w - nx);
            tp_cv_text(cv, nx, tp_text_baseline_mid(TP_FONT_REGULAR, lf, mid), TP_FONT_REGULAR, lf, TP_COLOR_MUTED,
                       TP_ALIGN_LEFT, 0, fit);
            free(fit);
        }
    }
    tp_fit_apart_free(fits, c->n);
    free(maxws);
    tp_cv_line(cv, L.bar_x, L.rows_y, L.bar_x, base, TP_COLOR_AXIS, 0.8);
    tp_cv_line(cv, L.bar_x, base, L.bar_x + L.bar_w, base, TP_COLOR_AXIS, 0.8);
}
