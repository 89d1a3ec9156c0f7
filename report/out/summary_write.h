/* summary_write.h: the two text outputs of a report: summary.json (schema
 * "tracepress.summary/2", docs/REPORT.md) and summary.md (a pull-request
 * comment).
 *
 * summary.json keeps what depends on the input file itself (its path, the
 * events read, the reader) under "source"; everything else is a function of
 * the trace's content, so a trace and its `tracepress convert` output give
 * the same summary.json apart from "source". */
#ifndef TP_SUMMARY_WRITE_H
#define TP_SUMMARY_WRITE_H

#include "report/analysis/summary.h"

/* More content from above this room (the format pages): appends to b at its
 * place, or NULL for none. */
typedef void (*tp_summary_extra)(const tp_summary *s, tp_buf *b);

/* extra adds top-level members (",\n\"key\":value") before the closing brace. */
void tp_summary_json(const tp_summary *s, tp_summary_extra extra, tp_buf *b);
/* png_names: the chart files written (relative to the report folder),
 * NULL-terminated; extra adds sections after the top kernels. */
void tp_summary_md(const tp_summary *s, const char *const *png_names, tp_summary_extra extra, tp_buf *b);
/* The devices the summary names, as summary.md and diff.md list them: "NVIDIA H100 80GB HBM3",
 * "2 x ...", escaped for Markdown; nothing for none. */
void tp_md_devices(tp_buf *b, const tp_summary *s);

#endif
