/* diff_eff.h: the efficiency rows of two runs matched per shape (`diff`,
 * docs/DIFF.md "Efficiency").
 *
 * A base row and a candidate row match when op, input dims, dtypes and
 * strides are the same (FLOPs and bytes then are too).  For each matched
 * shape: count, device time and the row rate (TFLOPS/s over the row:
 * count x FLOPs / device time) of both runs, the rate's relative change
 * (absent when the base rate is 0) and the time delta.  Ordered by |time
 * delta|, largest first, then op and shape.  Rows of one run only are
 * counted with their device time. */
#ifndef TP_DIFF_EFF_H
#define TP_DIFF_EFF_H

#include "report/analysis/summary.h"

typedef struct tp_diff_eff_row {
    const tp_eff_row *r[2]; /* base, candidate (owned by the summaries) */
    int64_t delta_ns;       /* candidate time - base time */
    bool has_rel;
    double tflops_rel;      /* candidate rate / base rate - 1 */
} tp_diff_eff_row;

typedef struct tp_diff_eff {
    tp_diff_eff_row *rows;
    size_t n;
    size_t only[2];         /* rows of the base only, of the candidate only */
    int64_t only_ns[2];
} tp_diff_eff;

void tp_diff_eff_build(const tp_summary *base, const tp_summary *cand, tp_diff_eff *d);
void tp_diff_eff_free(tp_diff_eff *d);
/* diff.json's "efficiency":{...} (no separator around) */
void tp_diff_eff_json(const tp_diff_eff *d, tp_buf *b);
/* diff.md's section: the top `top` matched shapes by |time delta| whose rate
 * or time changed; nothing when none did. */
void tp_diff_eff_md(const tp_diff_eff *d, size_t top, tp_buf *b);

#endif
