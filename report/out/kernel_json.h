/* kernel_json.h: one kernel table row as JSON, shared by `stats --json` and
 * summary.json so the two agree byte for byte. */
#ifndef TP_KERNEL_JSON_H
#define TP_KERNEL_JSON_H

#include "report/analysis/kernel_table.h"

/* {"name":...,"kind":...,"count":...,"total_ns":...,...,"stddev_ns":...} */
void tp_kernel_row_json(tp_buf *b, const tp_trace *t, const tp_kernel_row *r);

#endif
