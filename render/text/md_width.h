/* md_width.h: a summary.md's tables fit a pull-request comment column
 * (issue 36 item 9): about 700 px at GitHub's font.  The estimate: 14 px
 * text and code at 85% take about 7.2 px a character, a cell 13 px of
 * padding each side and a border (27 px a column), 1 px for the table's
 * edge; backticks and backslash escapes are not shown, a <br> starts a
 * new line of the cell.  tests/reads/test_reads_width.c checks the
 * estimate on cmark-gfm's HTML of the shared samples' reports. */
#ifndef TP_MD_WIDTH_H
#define TP_MD_WIDTH_H

#include "convert/base/common.h"

#define TP_MD_CHAR_PX 7.2
#define TP_MD_CELL_PAD_PX 27.0
#define TP_MD_COMMENT_PX 700.0

/* The width of a cell's text (n bytes of Markdown), widest <br> line. */
double tp_md_cell_px(const char *c, size_t n);

/* Each table of md (5 columns or more, its key under 60% of max_px)
 * wider than max_px is split into tables of its first
 * column (the rows' key) and as many of the next columns as fit, in order,
 * one blank line apart; tables that fit are left as they are.  A writer
 * that knows better splits its own (the job's ranks by base).  Cost: each
 * table's lines are read once per part (at most 64 columns) and its first
 * 64 rows compared pairwise for the key: O(64 x length of md). */
void tp_md_narrow(tp_buf *md, double max_px);

#endif
