/* job_diff.h: two runs of a distributed job compared (ANALYSIS.md §5, docs/DIFF.md
 * "Jobs"): ranks matched by rank number, collectives by (kind, S, dtype,
 * group, ranks), and the job's median step with its noise. */
#ifndef TP_JOB_DIFF_H
#define TP_JOB_DIFF_H

#include "report/job/job.h"

#define TP_JOB_DIFF_SCHEMA "tracepress.jobdiff/1"

/* One job finding rule that fired in either run (docs/DIFF.md "Jobs"). */
typedef struct tp_job_diff_finding {
    const tp_find_rule *rule;   /* the base's table: the built-in job rules, the same in both runs */
    int status;                 /* TP_FIND_* (findings.h tp_find_change) */
    const tp_measure *m[2];     /* base, candidate: NULL where it did not fire */
} tp_job_diff_finding;

typedef struct tp_job_diff {
    const tp_job *a, *b;        /* base, candidate (borrowed) */
    int64_t head[2];            /* the job's median step (median over steps of the steps' medians), -1 without */
    int64_t noise_ns;           /* max(1.5 x IQR of either run's step medians, 1% of the base), -1 without two steps a side */
    const char *verdict;        /* "no change", "within noise", "slower", "faster", "no noise estimate", "no steps" */
    size_t *pair_a, *pair_b;    /* matched ranks: indexes into a->ranks and b->ranks (npairs each) */
    size_t npairs;
    size_t only_a, only_b;      /* ranks on one side only */
    size_t *coll_a, *coll_b;    /* matched collective rows (SIZE_MAX: on one side only), ncoll each */
    size_t ncoll;
    tp_job_diff_finding *finds; /* new, grew, gone, shrank, same; then impact desc (base's for gone), id */
    size_t nfinds;
} tp_job_diff;

void tp_job_diff_build(const tp_job *a, const tp_job *b, tp_job_diff *d);
void tp_job_diff_free(tp_job_diff *d);
/* Exit 3 gate: the median step grew by more than pct% and beyond the
 * noise (or with no noise estimate).  Writes the reason to why. */
bool tp_job_diff_slower(const tp_job_diff *d, double pct, tp_buf *why);
void tp_job_diff_json(const tp_job_diff *d, const tp_buf *why, bool tripped, tp_buf *b);
void tp_job_diff_md(const tp_job_diff *d, const tp_buf *why, bool tripped, tp_buf *b);

#endif
