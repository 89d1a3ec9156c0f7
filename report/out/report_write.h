/* report_write.h: write a report folder from a summary: report.pdf, png/,
 * summary.json, summary.md.  The one place `report` and `batch` share, so a
 * page added for a format shows up in both. */
#ifndef TP_REPORT_WRITE_H
#define TP_REPORT_WRITE_H

#include "report/formats/format_pages.h"
#include "report/pages/pages.h"
#include "report/analysis/summary.h"

/* Builds the format pages into s (when its format has some), then writes
 * DIR/report.pdf, the PNG charts in DIR/png, DIR/summary.json and DIR/summary.md, each
 * through tp_out (temporary file, renamed when complete).  0 or -1 with err. */
int tp_report_write(tp_summary *s, const tp_fp_opts *fo, const tp_page_opts *po, const char *dir, tp_err *err);

#endif
