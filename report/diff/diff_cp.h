/* diff_cp.h: the critical paths of two runs compared by bound type (`diff`,
 * docs/DIFF.md "Critical path"): over each run's windows (its steps, the
 * whole trace without steps), the time of each bound type and its share of
 * the paths' time (= the windows' time), and the change of the share. */
#ifndef TP_DIFF_CP_H
#define TP_DIFF_CP_H

#include "report/analysis/summary.h"

/* diff.json's "critical_path":{...} (no separator around) */
void tp_diff_cp_json(const tp_summary *base, const tp_summary *cand, tp_buf *b);
/* diff.md's section "Critical path": a row per bound type either run has; nothing when neither has a path. */
void tp_diff_cp_md(const tp_summary *base, const tp_summary *cand, tp_buf *b);

#endif
