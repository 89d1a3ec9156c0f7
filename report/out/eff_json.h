/* eff_json.h: the summary.json member "efficiency" (docs/REPORT.md
 * "Efficiency" defines every key). */
#ifndef TP_EFF_JSON_H
#define TP_EFF_JSON_H

#include "report/analysis/summary.h"

/* "efficiency":{...} (no separator before or after) */
void tp_efficiency_json(const tp_summary *s, tp_buf *b);
/* A rate or ratio as JSON: six significant digits, null when negative. */
void tp_eff_number_json(tp_buf *b, double v);

#define TP_EFF_TOP_OPPORTUNITIES 10

#endif
