/* kernel_json.h: one kernel table row as JSON, shared by `stats --json` and
 * summary.json so the two agree byte for byte; the op breakdown as JSON
 * (summary.json, and the XPlane TF ops). */
#ifndef TP_KERNEL_JSON_H
#define TP_KERNEL_JSON_H

#include "report/analysis/classify.h"
#include "report/analysis/kernel_table.h"
#include "report/analysis/op_breakdown.h"

/* {"name":...,"kind":...,"count":...,"total_ns":...,...,"stddev_ns":...}, then
 * with a classification (cls not NULL) "category": the category holding
 * most of the row's time (classify.h), and "categories": {"NAME": ns, ...}
 * only when its activities fall in more than one. */
void tp_kernel_row_json(tp_buf *b, const tp_trace *t, const tp_classes *cls, const tp_kernel_row *r);

/* The ops as the "ops" array of summary.json: [{"name", "<none_key>": bool,
 * "total_ns", "occurrences", "instances", "variants": [...]}, ...]. */
void tp_op_kernels_json(const tp_trace *t, const tp_op_kernels *ob, const char *none_key, tp_buf *b);

#endif
