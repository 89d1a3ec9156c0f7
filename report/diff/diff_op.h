/* diff_op.h: which top-level op launched each kernel-table row (issue 36
 * item 6), for the diff's third matching pass (diff.h TP_DM_OP). */
#ifndef TP_DIFF_OP_H
#define TP_DIFF_OP_H

#include "report/analysis/summary.h"

/* out[i] for each row i of s->kt: the name of the op (tp_opk_op_name) whose
 * occurrences spent the most of row i's time (same name and kind), ties to
 * the op first in s->ob's order; NULL when no real op launched it (the
 * "(no host op)" group) or the breakdown does not hold the row.  The
 * strings belong to s.  O(k log k) for the breakdown's k kernel entries. */
void tp_diff_kernel_ops(const tp_summary *s, const char **out);

#endif
