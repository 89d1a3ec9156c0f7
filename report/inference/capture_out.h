/* capture_out.h: what the graph-capture merge did (convert/pipeline/graph_capture.h),
 * as summary.json's `graph_capture` member and one line of summary.md and of
 * `stats` (docs/REPORT.md "Graph capture").  Nothing is written for a trace
 * with no graph replay and no capture trace, so such reports are unchanged;
 * a trace whose graph replays got no capture trace gets one line saying
 * what a capture trace would add. */
#ifndef TP_CAPTURE_OUT_H
#define TP_CAPTURE_OUT_H

#include "report/analysis/summary.h"

/* `"graph_capture":{...},\n` (nothing when there is nothing to say). */
void tp_capture_json(const tp_summary *s, tp_buf *b);
/* One Markdown line ending in "\n\n" (nothing when there is nothing to say). */
void tp_capture_md(const tp_summary *s, tp_buf *b);
/* The same line as plain text, ending in "\n" (stats). */
void tp_capture_text(const tp_trace *t, const struct tp_capture_stats *c, tp_buf *b);

/* diff.md: each side's capture line (the replays without ops, or none),
 * and a note when only one side has a capture; nothing when neither has. */
void tp_capture_diff_md(const tp_summary *base, const tp_summary *cand, tp_buf *b);

#endif
