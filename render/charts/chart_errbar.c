/* chart_errbar.c: repetitions -> mean + error bars -> chart_bar. */
#include "render/charts/chart_errbar.h"

#include "render/charts/chart_bar.h"
#include "render/charts/palette.h"

#include <math.h>
#include <stdlib.h>

void tp_errbar_stats(const int64_t *x, size_t n, tp_err_mode mode, int64_t *mean, int64_t *lo, int64_t *hi)
{
    *mean = *lo = *hi = 0;
    if (n == 0 || !x)
        return;
    /* mean in long double: sums of ns over many runs overflow nothing */
    long double sum = 0;
    int64_t mn = x[0], mx = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
    }
    long double m = sum / n;
    *mean = (int64_t)llroundl(m);
    if (mode == TP_ERR_MINMAX) {
        *lo = mn;
        *hi = mx;
        return;
    }
    long double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    double sd = n > 1 ? sqrt((double)(ss / (n - 1))) : 0;
    double l = (double)m - sd;
    *lo = l > 0 ? (int64_t)llround(l) : 0;
    *hi = (int64_t)llround((double)m + sd);
}

void tp_errbar_draw(tp_canvas *cv, const char *title, const char *value_label, const tp_rep_series *s, size_t n,
                    tp_err_mode mode, tp_rect r)
{
    const char **labels = tp_xcalloc(n ? n : 1, sizeof *labels);
    int64_t *v = tp_xcalloc(n ? n : 1, sizeof *v), *lo = tp_xcalloc(n ? n : 1, sizeof *lo),
            *hi = tp_xcalloc(n ? n : 1, sizeof *hi);
    for (size_t i = 0; i < n; i++) {
        labels[i] = s[i].label;
        tp_errbar_stats(s[i].samples, s[i].n, mode, &v[i], &lo[i], &hi[i]);
    }
    /* light bars so the black error bars read inside them too */
    tp_color *col = tp_xcalloc(n ? n : 1, sizeof *col);
    for (size_t i = 0; i < n; i++)
        col[i] = tp_palette(14);
    tp_barchart c = {.title = title,
                     .value_label = value_label,
                     .n = n,
                     .labels = labels,
                     .values = v,
                     .err_lo = lo,
                     .err_hi = hi,
                     .colors = col,
                     .value_labels = 1};
    tp_barchart_draw(cv, &c, r);
    free(labels), free(v), free(lo), free(hi), free(col);
}
