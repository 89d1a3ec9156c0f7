/* summary.h: every analysis of one report, computed once, and the two text
 * outputs made from them: summary.json (schema "tracepress.summary/1",
 * docs/REPORT.md) and summary.md (a pull-request comment).
 *
 * summary.json keeps what depends on the input file itself (its path, the
 * events read, the reader) under "source"; everything else is a function of
 * the trace's content, so a trace and its `tracepress convert` output give
 * the same summary.json apart from "source". */
#ifndef TP_SUMMARY_H
#define TP_SUMMARY_H

#include "report/analysis/hosttree.h"
#include "report/analysis/kernel_table.h"
#include "report/analysis/op_breakdown.h"
#include "report/analysis/overheads.h"
#include "report/analysis/steps.h"

typedef struct tp_report_opts {
    const char *path;       /* the input as given */
    const char *steps;      /* --steps text or NULL */
    int64_t batch_size;     /* --batch-size, 0 when not given */
} tp_report_opts;

typedef struct tp_summary {
    const tp_trace *t;
    tp_report_opts opts;
    char name[256];         /* trace base name */
    char date[32];          /* "2024-04-03T18:51:38Z", or "" when unknown */
    char **devices;         /* device names from deviceProperties */
    size_t ndevices;
    uint64_t slices;        /* complete events analysed */
    tp_kernel_table kt;
    tp_host_tree ht;
    tp_op_kernels ob;
    tp_step_figures sf;
    tp_overheads ov;
    /* Format-specific content (format_pages.h): the row for t->format and
     * its analysis, set by tp_format_pages_build; NULL for other formats. */
    const struct tp_format_pages *fp;
    void *fp_state;
} tp_summary;

void tp_summary_build(const tp_trace *t, const tp_report_opts *o, tp_summary *s);
void tp_summary_free(tp_summary *s);

void tp_summary_json(const tp_summary *s, tp_buf *b);
/* png_names: the chart files written (relative to the report folder), NULL-terminated. */
void tp_summary_md(const tp_summary *s, const char *const *png_names, tp_buf *b);

/* Exact durations for text: "1234.567 us" (ns / 1000, three decimals). */
void tp_fmt_us(char *buf, size_t n, int64_t ns);
/* "12.3%" of part in whole, one decimal, rounded half up; "-" when whole is 0. */
void tp_fmt_pct(char *buf, size_t n, int64_t part, int64_t whole);
/* The base name of a path without .gz/.json/.pt.trace suffixes. */
void tp_trace_basename(const char *path, char *buf, size_t n);

#endif
