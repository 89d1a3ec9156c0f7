/* gpu_md.h: summary.md's "GPU time" line and "Categories" table
 * (docs/REPORT.md "summary.md"). */
#ifndef TP_GPU_MD_H
#define TP_GPU_MD_H

#include "report/analysis/summary.h"

#define TP_MD_CATEGORIES 8 /* category rows in summary.md */

/* The line and the table, each after a blank line. */
void tp_gpu_time_md(const tp_summary *s, tp_buf *b);

#endif
