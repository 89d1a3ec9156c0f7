/* job_out.h: the job report's text outputs (docs/REPORT.md "Jobs"):
 * summary.json (schema tracepress.job/1) and summary.md. */
#ifndef TP_JOB_OUT_H
#define TP_JOB_OUT_H

#include "report/job/job.h"

#define TP_JOB_SCHEMA "tracepress.job/1"

void tp_job_json(const tp_job *j, tp_buf *b);
/* pngs: the chart files written beside it (NULL-terminated, relative to
 * the folder), or NULL. */
void tp_job_md(const tp_job *j, const char *const *pngs, tp_buf *b);

/* The job's memory (job_mem.c): summary.json's "memory" member, summary.md's line (nothing without memory). */
void tp_job_mem_json(const tp_job *j, tp_buf *b);
void tp_job_mem_md(const tp_job *j, tp_buf *b);

/* "compute, arrival" for a TP_JOB_FLAG_* set, "" for none. */
void tp_job_flags_text(uint32_t flags, char *buf, size_t n);

#endif
