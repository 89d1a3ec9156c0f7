/* legend.c: flowing legend; the same loop measures and draws so the
 * height promised is the height drawn. */
#include "render/charts/legend.h"

#include "render/charts/palette.h"
#include "convert/base/sort.h"
#include "render/text/textfit.h"

#include <stdlib.h>
#include <string.h>

static double flow(tp_canvas *cv, const tp_legend_item *it, size_t n, tp_rect r, double fs)
{
    if (n == 0)
        return 0;
    double sw = fs, gap = fs * 0.4, sep = fs * 1.2, line_h = fs * 1.6;
    double x = r.x, y = r.y;
    for (size_t i = 0; i < n; i++) {
        char *lab = tp_fit_end(TP_FONT_REGULAR, fs, it[i].label, r.w - sw - gap);
        double iw = sw + gap + tp_text_width(TP_FONT_REGULAR, fs, lab);
        if (x > r.x && x + iw > r.x + r.w) {
            x = r.x;
            y += line_h;
        }
        if (cv) {
            double top = y + (line_h - sw) / 2;
            tp_cv_fill_rect(cv, x, top, sw, sw, it[i].color);
            tp_cv_stroke_rect(cv, x, top, sw, sw, TP_COLOR_AXIS, 0.4);
            tp_cv_text(cv, x + sw + gap, tp_text_baseline_mid(TP_FONT_REGULAR, fs, y + line_h / 2), TP_FONT_REGULAR, fs,
                       TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, lab);
        }
        x += iw + sep;
        free(lab);
    }
    return y + line_h - r.y;
}

double tp_legend_height(const tp_legend_item *it, size_t n, double w, double font_size)
{
    return flow(NULL, it, n, (tp_rect){0, 0, w, 0}, font_size);
}

double tp_legend_draw(tp_canvas *cv, const tp_legend_item *it, size_t n, tp_rect r, double font_size)
{
    return flow(cv, it, n, r, font_size);
}

/* a key with its display rank, computed once rather than per comparison */
typedef struct ranked_key {
    int rank;
    const char *key;
    tp_color color;
} ranked_key;
#define KEY_LESS(x, y, c) ((x)->rank != (y)->rank ? (x)->rank < (y)->rank : strcmp((x)->key, (y)->key) < 0)
TP_SORT_DEFINE(sort_keys, ranked_key, int, KEY_LESS)

tp_legend_item *tp_legend_for_keys(const char *const *keys, const tp_color *colors, size_t n, size_t *nout)
{
    ranked_key *k = tp_xmalloc((n ? n : 1) * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        k[i].key = keys[i] ? keys[i] : "other";
        k[i].rank = tp_palette_rank(k[i].key);
        k[i].color = colors && colors[i] ? colors[i] : tp_palette_key(k[i].key);
    }
    sort_keys(k, n, 0);
    tp_legend_item *it = tp_xmalloc((n ? n : 1) * sizeof *it);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || strcmp(it[m - 1].label, k[i].key) != 0)
            it[m++] = (tp_legend_item){k[i].key, k[i].color};
    free(k);
    *nout = m;
    return it;
}
