/* gpu_json.h: summary.json members of the GPU time model ("gpu_time"), the
 * op categories ("categories"), the leaf ops ("leaf_ops") and the module
 * paths ("modules"); docs/REPORT.md defines every key. */
#ifndef TP_GPU_JSON_H
#define TP_GPU_JSON_H

#include "report/analysis/summary.h"

/* "gpu_time":{...} (no separator before or after) */
void tp_gpu_time_json(const tp_summary *s, tp_buf *b);
/* "categories":[...],"leaf_ops":[...],"modules":[...] */
void tp_categories_json(const tp_summary *s, tp_buf *b);
/* One FIGS set's members: "span_ns":...,"comm_overlap_share":... (no braces). */
void tp_gpu_figs_json(tp_buf *b, const tp_gpu_figs *f);
/* part / whole as a decimal fraction with six places, rounded half up;
 * null when whole <= 0. */
void tp_fraction_json(tp_buf *b, int64_t part, int64_t whole);

#endif
