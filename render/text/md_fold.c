/* md_fold.c: the head of a summary.md within its line budget (md_fold.h). */
#include "render/text/md_fold.h"
#include "render/text/md_width.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Offsets of the blank lines' starts that separate blocks (a line holding only "\n"), and the line count. */
static size_t block_ends(const char *s, size_t n, size_t *ends, size_t cap, size_t *lines_before, size_t *nlines)
{
    size_t k = 0, line = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - s) + 1 : n;
        if (e - i == 1 && k < cap) { /* an empty line: the block before it ends here */
            ends[k] = i;
            lines_before[k] = line;
            k++;
        }
        line++;
        i = e;
    }
    *nlines = line;
    return k;
}

void tp_md_fold(tp_buf *md, size_t budget)
{
    tp_md_narrow(md, TP_MD_COMMENT_PX); /* a comment's width first: a split table takes lines of the budget */
    if (!md->data || !md->len || budget < 4)
        return;
    const char *s = md->data;
    size_t n = md->len, nlines = 0;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        cap += s[i] == '\n';
    size_t *ends = tp_xmalloc((cap + 1) * sizeof *ends), *before = tp_xmalloc((cap + 1) * sizeof *before);
    size_t k = block_ends(s, n, ends, cap + 1, before, &nlines);
    if (nlines <= budget || k < 2) {
        free(ends);
        free(before);
        return;
    }
    /* the head: up to the last block end whose lines (and the <details> line) stay within budget; at least one */
    size_t cut = 0;
    for (size_t i = 0; i < k; i++) {
        /* a block that starts a section (a heading, a bold lead, a table) may open the fold; a line such as
         * "2 more categories in report.pdf" stays with the table before it */
        const char *nx = s + ends[i] + 1;
        size_t left = n - ends[i] - 1;
        bool opens = (left > 5 && !memcmp(nx, "#### ", 5)) || (left > 2 && !memcmp(nx, "**", 2)) ||
                     (left > 1 && nx[0] == '|');
        /* nor does a heading leave its table: the line before the blank one is the previous block's last */
        size_t ls = ends[i] ? ends[i] - 1 : 0;
        while (ls > 0 && s[ls - 1] != '\n')
            ls--;
        bool after_heading = ends[i] - ls > 5 && !memcmp(s + ls, "#### ", 5);
        if (before[i] + 1 <= budget - 1 && before[i] > 0 && opens && !after_heading)
            cut = i + 1;
    }
    if (!cut)
        cut = 1;
    size_t head_end = ends[cut - 1];  /* the blank line after the head */
    size_t last = ends[k - 1];        /* the blank line before the last block */
    if (last <= head_end) {           /* nothing between the head and the last block */
        free(ends);
        free(before);
        return;
    }
    tp_buf out = {0};
    tp_buf_put(&out, s, head_end);
    tp_buf_puts(&out, "\n<details><summary>More");
    /* the tail's headings say what the fold holds */
    size_t shown = 0;
    for (size_t i = head_end; i < last;) {
        const char *nl = memchr(s + i, '\n', last - i);
        size_t e = nl ? (size_t)(nl - s) : last;
        if (e - i > 5 && !memcmp(s + i, "#### ", 5) && shown <= 5) {
            tp_buf_puts(&out, shown ? ", " : ": ");
            if (shown++ == 5) /* a summary line, not a table of contents */
                tp_buf_puts(&out, "…");
            else
                for (size_t c = i + 5; c < e; c++) /* our headings, but any '<' would open a tag here */
                    tp_buf_puts(&out, s[c] == '<' ? "&lt;" : s[c] == '>' ? "&gt;" : s[c] == '&' ? "&amp;" : (char[]){s[c], 0});
        }
        i = e + 1;
    }
    tp_buf_puts(&out, "</summary>\n");
    tp_buf_put(&out, s + head_end, last - head_end);
    tp_buf_puts(&out, "\n</details>\n");
    tp_buf_put(&out, s + last, n - last);
    free(ends);
    free(before);
    tp_buf_free(md);
    *md = out;
}
