/* format_pages.h: the table of format-specific report content (one row per
 * format that has some, report/pages/fpage.h) and the calls the report
 * makes into it; all do nothing for formats without a row. */
#ifndef TP_FORMAT_PAGES_H
#define TP_FORMAT_PAGES_H

#include "report/formats/dvdt/fpage_dvdt.h"
#include "report/formats/etdump/fpage_etdump.h"
#include "report/formats/plaidml/fpage_plaidml.h"
#include "report/formats/xplane/fpage_xplane.h"

/* The row for t->format, or NULL. */
const tp_format_pages *tp_format_pages_find(const char *format);

/* Build the row's analysis into s (after tp_summary_build; tp_summary_free
 * frees it), then the four outputs. */
int tp_format_pages_build(tp_summary *s, const tp_fp_opts *o, tp_err *err);
void tp_format_pages_json(const tp_summary *s, tp_buf *b); /* ",\n\"key\":value" */
void tp_format_pages_md(const tp_summary *s, tp_buf *b);
void tp_format_pages_draw(tp_canvas *cv, const tp_pagectx *pc);
/* Every format's PNG files ("png/etdump_operators.png", ...), whichever
 * a report has: at most cap into v; returns how many there are. */
size_t tp_format_pages_png_files(const char **v, size_t cap);
int tp_format_pages_png(const char *dir, const tp_pagectx *pc, double scale, const char ***names, size_t *nn,
                        size_t cap, tp_err *err);

#endif
