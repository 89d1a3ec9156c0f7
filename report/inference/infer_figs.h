/* infer_figs.h: the figures of report/inference that summary.json and
 * summary.md both write (the iterations and their window, iterations.h; the
 * graph replays' device time when no capture trace was merged,
 * capture_out.h), computed once per report.  Each is a pass over every
 * event: summary.json and summary.md each made both passes before (0.077 s of
 * a 1 GB report, serial after the pages); the report writer
 * (report/assemble) now builds them once, beside the findings, and sets
 * tp_summary.infer while it writes. */
#ifndef TP_INFER_FIGS_H
#define TP_INFER_FIGS_H

#include "report/inference/iterations.h"

typedef struct tp_infer_figs {
    tp_iterations it;        /* tp_iterations_build with the summary's --tokens and --batch-size */
    bool replay_counted;     /* the two below are set (no capture trace was merged: they are not needed then) */
    uint64_t replay_kernels; /* tp_graph_replay_ns: the device activities of graph replays, and their time */
    int64_t replay_ns;
} tp_infer_figs;

/* Reads s and its trace only (safe beside the findings and the pages). */
void tp_infer_figs_build(const tp_summary *s, tp_infer_figs *f);
void tp_infer_figs_free(tp_infer_figs *f);

/* The graph replays' totals of s: from s->infer when set, else computed (one pass). */
int64_t tp_infer_replay_ns(const tp_summary *s, uint64_t *kernels);

#endif
