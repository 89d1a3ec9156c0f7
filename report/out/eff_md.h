/* eff_md.h: summary.md's efficiency lead: the three biggest opportunities
 * (docs/REPORT.md "Efficiency"). */
#ifndef TP_EFF_MD_H
#define TP_EFF_MD_H

#include "report/analysis/summary.h"

#define TP_EFF_MD_TOP 3

/* The section (ends with a blank line); nothing when the trace has no device time. */
void tp_efficiency_md(const tp_summary *s, tp_buf *b);

#endif
