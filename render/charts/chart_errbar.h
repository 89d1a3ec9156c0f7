/* chart_errbar.h: bar chart of the mean over repetitions with error bars
 * (min..max, or mean +- one standard deviation), drawn by chart_bar. */
#ifndef TP_CHART_ERRBAR_H
#define TP_CHART_ERRBAR_H

#include "render/canvas.h"

typedef enum tp_err_mode { TP_ERR_MINMAX = 0, TP_ERR_STDDEV } tp_err_mode;

typedef struct tp_rep_series {
    const char *label;
    const int64_t *samples; /* one value per repetition, ns */
    size_t n;
} tp_rep_series;

/* mean and the error bar ends of one series (all 0 when n == 0).  The
 * stddev is the sample standard deviation (n-1), low end clamped at 0. */
void tp_errbar_stats(const int64_t *x, size_t n, tp_err_mode mode, int64_t *mean, int64_t *lo, int64_t *hi);

void tp_errbar_draw(tp_canvas *cv, const char *title, const char *value_label, const tp_rep_series *s, size_t n,
                    tp_err_mode mode, tp_rect r);

#endif
