/* job_pages.h: the job report's PDF pages and PNG charts (docs/REPORT.md
 * "The job report's pages"), drawn from a tp_job (job.h) alone.
 *
 * Pages: the overview (portrait: the job, the spread of the headline figures
 * across ranks, the clock alignment, the GPU time split per rank; that chart
 * gets a portrait page of its own when it does not fit), the rank x step
 * heatmap (landscape; only with steps and at least two ranks), the
 * stragglers (landscape; only when some (rank, step) is flagged) and the
 * collectives (landscape; only when there are some).  What is missing is a
 * line on the overview, never a page of its own. */
#ifndef TP_JOB_PAGES_H
#define TP_JOB_PAGES_H

#include "report/job/job.h"
#include "report/pages/page_common.h"

#define TP_JOB_BARS_ALL 48   /* ranks in the split chart; above, only TP_JOB_BARS_TOP */
#define TP_JOB_BARS_TOP 24   /* the ranks with the most idle + exposed communication */
#define TP_JOB_OFFSETS 8     /* rows of the clock alignment table (the largest |offset|) */
#define TP_JOB_TABLE_TOP 30  /* rows of the stragglers and collectives tables */

/* Every PDF page on any canvas (tests draw on the recording one). */
void tp_job_draw(tp_canvas *cv, const tp_job *j, const tp_page_opts *o);

/* One PNG chart as one page on any canvas, drawn by the code of the PDF's
 * chart at 12 pt text: TP_JOB_PNG_RANKS (png/job_ranks.png, 800 pt wide, as
 * high as its rows need), TP_JOB_PNG_COLLECTIVES (png/job_collectives.png:
 * each collective row's time on all ranks, transferring vs waiting, as high
 * as its rows need) or TP_JOB_PNG_HEATMAP (png/job_heatmap.png,
 * 800 x 560 pt).  false, nothing drawn, when the job has no such chart (no
 * GPU activity; no steps or a single rank). */
enum { TP_JOB_PNG_RANKS = 0, TP_JOB_PNG_HEATMAP, TP_JOB_PNG_COLLECTIVES, TP_JOB_PNGS };
bool tp_job_png_page(tp_canvas *cv, const tp_job *j, int which);

/* Writes DIR/png/job_ranks.png and DIR/png/job_heatmap.png (those the job
 * has, at po->png_scale pixels per point), then DIR/report.pdf, all on the
 * calling thread.  *pngs: a NULL-terminated malloc'ed array of the static
 * names written ("png/job_ranks.png", ...), for summary.md; the caller frees
 * the array (also after a failure; NULL then).  0, or -1 with err.
 *
 * The caller makes DIR/png (tp_mkdirs) and, to publish the job report as
 * one set, wraps this call and its own summary.json / summary.md writes
 * (tp_out_write_file) in a tp_outset as cmd_diff.c does:
 *     tp_outset *set = tp_outset_new(), *prev = tp_outset_use(set);
 *     rc = tp_job_pages(...) + the summary files;
 *     tp_outset_use(prev);
 *     rc < 0 ? tp_outset_abort(set) : (rc = tp_outset_publish(set, &err));
 * Every file here is opened on the calling thread, so each joins the set. */
int tp_job_pages(const tp_job *j, const char *dir, const tp_page_opts *po, const char ***pngs, tp_err *err);

#endif
