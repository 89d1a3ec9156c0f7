/* md_fold.h: a pull-request comment's economy (issue 36 item 9): the head
 * of a summary.md stays within a line budget and the rest folds into one
 * <details> block. */
#ifndef TP_MD_FOLD_H
#define TP_MD_FOLD_H

#include "convert/base/common.h"

#define TP_MD_HEAD_LINES 40 /* summary.md's lines before its <details> (docs/REPORT.md "summary.md") */

/* Narrows md's wide tables (md_width.h), then folds md (Markdown text, blocks separated by blank lines) when it holds
 * more than `budget` lines: the head is the blocks that end within
 * budget - 2 lines (at least the first block), then
 *   <details><summary>More: H1, H2, ...</summary>   (the tail's "####" headings, else "More")
 *   (blank line) the tail (blank line) </details>
 * and the last block (the "Full report: ..." line) after it.  A table or a
 * list is one block, so none is cut in two.  O(length of md). */
void tp_md_fold(tp_buf *md, size_t budget);

#endif
