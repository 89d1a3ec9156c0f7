/* cp_out.h: the critical path (convert/critical/critical.h, built in the
 * summary) in summary.json ("critical_path"), summary.md (one line) and
 * `stats` (one line per window); docs/REPORT.md "Critical path". */
#ifndef TP_CP_OUT_H
#define TP_CP_OUT_H

#include "report/analysis/summary.h"

/* "critical_path":[...] (no separator before or after) */
void tp_critical_json(const tp_summary *s, tp_buf *b);
/* the path the one-line outputs show: the median step's (or the only one); NULL: none */
const tp_cp_path *tp_critical_shown(const tp_summary *s, size_t *index);
/* "\n**Critical path** (median step #12, 81.2 ms): 62.0% cpu_op, ...\n"; nothing without a path */
void tp_critical_md(const tp_summary *s, tp_buf *b);
/* `stats` text, on stdout */
void tp_critical_text(const tp_summary *s);

#endif
