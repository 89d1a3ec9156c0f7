/* pages.h: the report's common pages and charts, one file each
 * (report/pages/page_*.c); the page table that orders them is
 * report/assemble/report_write.c. */
#ifndef TP_PAGES_H
#define TP_PAGES_H

#include "report/pages/page_common.h"

/* Page 1: the lines a reader needs, each step's time split (the chart alone
 * in r: png/overview.png), what the report leaves out (pc->notes). */
void tp_page_overview(tp_canvas *cv, const tp_pagectx *pc);
/* The findings block that leads page 1 (docs/REPORT.md "Findings"): the top
 * 3 findings, each its verdict (naming the rank of a job's finding about one
 * rank) and impact, its first 2 evidence lines and next step; or "No
 * finding" in words; the measures that could not tell.  The job overview
 * leads with it too.  Strings made for it live in st.  The y below. */
struct tp_findings;
/* pc: the report whose pages the findings link to; NULL (the job report's PDF): no links */
double tp_page_findings(tp_canvas *cv, const tp_pagectx *pc, const struct tp_findings *f, double x, double y, double w,
                        tp_strs *st);
void tp_chart_overview(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_page_summary(tp_canvas *cv, const tp_pagectx *pc);
/* "Where the GPU time goes": the GPU time split per device and step and the
 * op categories, as a landscape page and as one picture in r (a PNG). */
void tp_page_gpu_time(tp_canvas *cv, const tp_pagectx *pc);
void tp_chart_gpu_time(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
/* "How efficient is it": the roofline of the op shapes (the page and one
 * picture in r, png/efficiency.png), then a page of the shapes with the most
 * time and the opportunities when there are shapes (page_efficiency.c). */
void tp_page_efficiency(tp_canvas *cv, const tp_pagectx *pc);
void tp_chart_efficiency(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_chart_kernels(tp_canvas *cv, const tp_pagectx *pc, int by_mean, tp_rect r);
/* Which kernel table rows a report shows (the top-kernel charts, by total
 * and by mean, and the statistics page): s->kt.n flags, free() them. */
bool *tp_kernels_shown(const tp_pagectx *pc);
/* The two top-kernel chart pages (by total and by mean time). */
void tp_pages_kernel_charts(tp_canvas *cv, const tp_pagectx *pc);
/* Kernel statistics (one page: the top rows) and the names of its rows. */
void tp_pages_kernel_table(tp_canvas *cv, const tp_pagectx *pc);
size_t tp_pages_breakdown(tp_canvas *cv, const tp_pagectx *pc, double w, double h); /* returns pages */
/* The same grid for another breakdown (format pages): `what` names its keys
 * ("TF ops"): title "Dominating <what>: ...", bookmark "Dominating <what>". */
size_t tp_pages_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what,
                             double w, double h);
/* The same in r as one picture (a PNG chart): the top ops that fit on one page. */
void tp_chart_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what, tp_rect r);
void tp_chart_timeline(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
/* A host slice of the timeline's window: its position in the host tree and what the choice of the levels shown
 * reads of it. */
#define TP_TL_SCAN 64 /* host levels looked at per thread (deeper ones are never shown) */
typedef struct tp_tl_host {
    uint32_t p;        /* position in ht->order */
    uint32_t nchild;   /* its children, all of them (in the window or not) */
    int64_t child_dur; /* its longest child's duration, 0 at least */
    uint8_t depth;     /* < TP_TL_SCAN */
} tp_tl_host;
/* The host slices that meet [ws, we) (start before we, end after ws) less than TP_TL_SCAN levels down, in tree
 * order (malloc'ed, *n of them; *looked, when not NULL: the slices the walk looked at). */
tp_tl_host *tp_timeline_hosts(const tp_trace *t, const tp_host_tree *ht, int64_t ws, int64_t we, size_t *n,
                              size_t *looked);
/* Its rows and bars built now into pc's cache (page_common.h), for the drawings to read: the report builds them
 * beside the findings, where a core is free, not on the way of the PDF and PNG passes. */
void tp_timeline_prepare(const tp_pagectx *pc);
/* Its time window: the device work of the step shown, 2% margin (true), or the host span (false, no device work). */
bool tp_timeline_window(const tp_summary *s, int64_t *t0, int64_t *t1);
void tp_chart_steps(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_pages_steps(tp_canvas *cv, const tp_pagectx *pc);
/* Where the steps page draws its chart (above its table), and the chart
 * drawn there whatever r is (png/steps.png: the same picture as the page). */
tp_rect tp_steps_chart_rect(const tp_pagectx *pc);
void tp_chart_steps_png(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_pages_overheads(tp_canvas *cv, const tp_pagectx *pc);
/* "Critical path": the median step's path over its timeline (page_critical.c). */
void tp_page_critical(tp_canvas *cv, const tp_pagectx *pc);
/* "Memory" (page_memory.c): allocated and reserved over the trace with the steps and the peak, the holders at
 * the peak; no page without memory levels.  The chart alone in r: png/memory.png. */
/* planning: the page laid out without its chart (the chart reads every memory event; 2% of the memory's cost) */
void tp_pages_memory(tp_canvas *cv, const tp_pagectx *pc, bool planning);
void tp_chart_memory(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
void tp_chart_memory_png(tp_canvas *cv, const tp_pagectx *pc, tp_rect r); /* png/memory.png: the page's chart */
/* The appendix "Names": each kernel name the pages show shortened, with its
 * full (demangled) name wrapped, never cut (page_names.c); no page when
 * every name is shown whole. */
void tp_pages_names(tp_canvas *cv, const tp_pagectx *pc);

#endif
