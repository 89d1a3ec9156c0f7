/* report_write.h: write a report folder from a summary: report.pdf, png/,
 * summary.json, summary.md.  The one place `report` and `batch` share, and
 * the one that calls both the common pages (report/pages) and the format
 * pages (report/formats), so a page added for a format shows up in both. */
#ifndef TP_REPORT_WRITE_H
#define TP_REPORT_WRITE_H

#include "report/pages/fpage.h"
#include "convert/io/output.h"

/* Builds the format pages into s (when its format has some), then writes
 * DIR/report.pdf, the PNG charts in DIR/png, DIR/summary.json and
 * DIR/summary.md as one set (tp_outset): every file under a temporary name,
 * all renamed at the end, none left on failure or a signal; the previous
 * report stays whole until then.  0; -1 with err when the format pages
 * cannot be built (the input's fault); TP_REPORT_WRITE_FAILED with err
 * naming the output file when a write fails. */
#define TP_REPORT_WRITE_FAILED (-2)
int tp_report_write(tp_summary *s, const tp_fp_opts *fo, const tp_page_opts *po, const char *dir, tp_err *err);

/* The job report's PNG files, by tp_job_png (report/job): listed here
 * with the rest of the members of a report set. */
extern const char *const tp_report_job_pngs[3];
/* SET (a report's, one trace's or a job's) replaces the earlier report in
 * DIR: once published, the members of a report set it did not write again
 * are removed (tp_outset_replaces), whichever kind the earlier one was. */
void tp_report_replaces(tp_outset *set, const char *dir);
/* Before anything is written: the input (a trace, a file an option names:
 * tp_out_protected) that is one of the files a report in DIR may write,
 * with that output's path in OUT; NULL when there is none. */
const char *tp_report_output_input(const char *dir, char *out, size_t nout);

/* Draw every PDF page on any canvas (the recording backend in golden tests). */
void tp_report_draw(tp_canvas *cv, const tp_summary *s, const tp_page_opts *o);

/* summary.json with the format's member, as tp_report_write writes it. */
void tp_report_summary_json(const tp_summary *s, tp_buf *b);

#endif
