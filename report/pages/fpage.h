/* fpage.h: what a format's own report content is made of.  A format whose
 * own analysis says more than the common pages (the ExecuTorch Inspector for
 * ETDump, ...) fills one tp_format_pages in report/formats/<format>/ and adds
 * it to the table in report/formats/format_pages.c: its analysis is computed
 * once after the summary, then asked for one summary.json member, a
 * summary.md section, PDF pages (after the summary page and the GPU time page) and PNG charts.
 * Traces of other formats get nothing from it.  docs/ARCHITECTURE.md
 * "Adding a report page". */
#ifndef TP_FPAGE_H
#define TP_FPAGE_H

#include "render/charts/chart_table.h"
#include "convert/read/formats.h"
#include "report/pages/page_common.h"

/* The report options only some formats look at. */
typedef struct tp_fp_opts {
    tp_read_opts read;  /* with each format's own options (tp_format_opts) */
} tp_fp_opts;

/* A chart drawn in r (a PDF page's area or a PNG file's). */
typedef void (*tp_fp_chart_fn)(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);

/* One PNG chart: png/<file>, 800x480 pt like the common charts. */
typedef struct tp_fp_png {
    const char *file; /* "png/etdump_operators.png" (static: listed in summary.md) */
    /* Draw the chart in r; NULL `has` = always written, else only when it says so. */
    tp_fp_chart_fn draw;
    bool (*has)(const tp_summary *s);
} tp_fp_png;

typedef struct tp_format_pages {
    const char *format; /* tp_format name ("etdump") */
    const char *key;    /* summary.json top-level member */
    /* Compute the analysis; *state is what the other callbacks find in
     * s->fp_state.  0, or -1 with err filled (the report fails). */
    int (*build)(const tp_summary *s, const tp_fp_opts *o, void **state, tp_err *err);
    void (*free)(void *state);
    void (*json)(const tp_summary *s, tp_buf *b); /* one JSON value */
    void (*md)(const tp_summary *s, tp_buf *b);   /* "#### ..." section(s) */
    void (*draw)(tp_canvas *cv, const tp_pagectx *pc); /* whole PDF pages */
    const tp_fp_png *pngs;
    size_t npngs;
} tp_format_pages;

/* Helpers for the rows' pages. */
/* A table over as many landscape pages as it needs; on the first page a
 * bold `heading` (also its bookmark; NULL = none) and `intro` lines above it. */
void tp_fp_paged_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *heading,
                       const char *const *intro, size_t nintro);
/* The same on one page: the rows that fit, then a line saying how many
 * there are and that `where` ("summary.json dvdt.positions") has them all. */
void tp_fp_top_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *heading,
                     const char *const *intro, size_t nintro, const char *where);
/* A landscape page titled `title` (its bookmark) holding one chart, then
 * tp_fp_paged_table(t, heading, intro) on the pages after it. */
void tp_fp_chart_and_table(tp_canvas *cv, const tp_pagectx *pc, const char *title, tp_fp_chart_fn chart,
                           const tp_table *t, const char *heading, const char *const *intro, size_t nintro);

#endif
