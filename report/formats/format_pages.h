/* format_pages.h: format-specific report content.  A format whose own
 * analysis says more than the generic pages (the ExecuTorch Inspector for
 * ETDump, ...) adds one row to the table in format_pages.c: its analysis is
 * computed once after the summary, then asked for one summary.json member,
 * a summary.md section, PDF pages (after the summary page) and PNG charts.
 * Traces of other formats get nothing from it.  A row's file is
 * report/fpage_<format>.c; docs/ARCHITECTURE.md "Adding a report page". */
#ifndef TP_FORMAT_PAGES_H
#define TP_FORMAT_PAGES_H

#include "render/charts/chart_table.h"
#include "convert/read/formats.h"
#include "report/pages/pages_int.h"

/* The report options only some formats look at. */
typedef struct tp_fp_opts {
    tp_read_opts read;  /* --etrecord, --time-scale (ETDump), --with-source (PlaidML) */
    size_t invocation;  /* --invocation N (PlaidML; 0 = the format's default) */
} tp_fp_opts;

/* One PNG chart: png/<file>, 800x480 pt like the generic charts. */
typedef struct tp_fp_png {
    const char *file; /* "png/etdump_operators.png" (static: listed in summary.md) */
    /* Draw the chart in r; NULL `has` = always written, else only when it says so. */
    void (*draw)(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);
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

extern const tp_format_pages tp_fpages_etdump;
extern const tp_format_pages tp_fpages_plaidml;
extern const tp_format_pages tp_fpages_dvdt;
extern const tp_format_pages tp_fpages_xplane;

/* The row for t->format, or NULL. */
const tp_format_pages *tp_format_pages_find(const char *format);

/* Called by the report: build (after tp_summary_build), free (by
 * tp_summary_free), and the four outputs; all do nothing for formats
 * without a row. */
int tp_format_pages_build(tp_summary *s, const tp_fp_opts *o, tp_err *err);
void tp_format_pages_free(tp_summary *s);
void tp_format_pages_json(const tp_summary *s, tp_buf *b); /* ",\n\"key\":value" */
void tp_format_pages_md(const tp_summary *s, tp_buf *b);
void tp_format_pages_draw(tp_canvas *cv, const tp_pagectx *pc);
int tp_format_pages_png(const char *dir, const tp_pagectx *pc, double scale, const char ***names, size_t *nn,
                        size_t cap, tp_err *err);

/* Helpers for the rows' pages. */
/* A table over as many landscape pages as it needs; on the first page a
 * bold `heading` (also its bookmark; NULL = none) and `intro` lines above it. */
void tp_fp_paged_table(tp_canvas *cv, const tp_pagectx *pc, const tp_table *t, const char *heading,
                       const char *const *intro, size_t nintro);
/* A landscape page with a title and a muted note ("nothing to show"). */
void tp_fp_note_page(tp_canvas *cv, const tp_pagectx *pc, const char *title, const char *note);

#endif
