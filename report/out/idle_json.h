/* idle_json.h: the summary.json member "idle_attribution" (report/analysis/idle.h;
 * docs/REPORT.md "Idle attribution and launch statistics" defines every key). */
#ifndef TP_IDLE_JSON_H
#define TP_IDLE_JSON_H

#include "report/analysis/summary.h"

/* "idle_attribution":[...] (no separator before or after) */
void tp_idle_json(const tp_summary *s, tp_buf *b);

#endif
