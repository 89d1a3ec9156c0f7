/* md_width.c: Markdown tables narrowed to a comment column (md_width.h). */
#include "render/text/md_width.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

double tp_md_cell_px(const char *c, size_t n)
{
    while (n && c[0] == ' ') /* the cell's own padding is not its text */
        c++, n--;
    while (n && c[n - 1] == ' ')
        n--;
    double best = 0, w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 4 <= n && !memcmp(c + i, "<br>", 4)) {
            best = w > best ? w : best;
            w = 0;
            i += 3;
            continue;
        }
        unsigned char ch = (unsigned char)c[i];
        if (ch == '`' || ch == '\\' || (ch & 0xC0) == 0x80) /* not shown, or inside a character */
            continue;
        w += TP_MD_CHAR_PX;
    }
    return w > best ? w : best;
}

/* The cells of a table line "| a | b |": starts and lengths (between unescaped pipes), at most max. */
static size_t cells(const char *s, size_t n, size_t *at, size_t *len, size_t max)
{
    size_t k = 0, i = n && s[0] == '|' ? 1 : 0;
    while (i < n && k < max) {
        size_t j = i;
        while (j < n && s[j] != '|')
            j += (s[j] == '\\' && j + 1 < n) ? 2 : 1;
        if (j >= n) { /* no closing pipe: a last cell, unless only blanks follow the last pipe */
            size_t b = i;
            while (b < n && s[b] == ' ')
                b++;
            if (b == n)
                break;
        }
        at[k] = i, len[k] = (j < n ? j : n) - i;
        k++;
        i = j + 1;
    }
    return k;
}

static bool is_row(const char *s, size_t n) { return n > 1 && s[0] == '|'; }

static bool is_delim(const char *s, size_t n)
{
    if (!is_row(s, n))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("|-: ", s[i]))
            return false;
    return memchr(s, '-', n) != NULL;
}

#define MAX_COLS 64
#define KEY_ROWS 64 /* rows compared to tell whether the first column is a key: pairs, so bounded */

/* One table (lines [l0, l1) of md, header and delimiter first) written to out, split when wider than max_px. */
static void table_out(tp_buf *out, const char *const *line, const size_t *llen, size_t nl, double max_px)
{
    size_t at[MAX_COLS], len[MAX_COLS], ncol = 0;
    double col[MAX_COLS] = {0};
    for (size_t r = 0; r < nl; r++) {
        size_t k = cells(line[r], llen[r], at, len, MAX_COLS);
        ncol = k > ncol ? k : ncol;
        for (size_t c = 0; r != 1 && c < k; c++) { /* the delimiter row says nothing of width */
            double w = tp_md_cell_px(line[r] + at[c], len[c]) + TP_MD_CELL_PAD_PX;
            col[c] = w > col[c] ? w : col[c];
        }
    }
    double total = 1;
    for (size_t c = 0; c < ncol; c++)
        total += col[c];
    if (total <= max_px || ncol < 5 || ncol >= MAX_COLS) { /* a figure table (figure, base, candidate, change) stays whole */ /* fits, or nothing to split by */
        for (size_t r = 0; r < nl; r++) {
            tp_buf_put(out, line[r], llen[r]);
            tp_buf_putc(out, '\n');
        }
        return;
    }
    /* groups of columns after the key (the first column, or the first two when the first repeats: plaidml's
     * "kernel, ranked by"), repeated in each part, each group as wide as fits */
    size_t key = 1;
    for (size_t r = 2; r < nl && r < 2 + KEY_ROWS && key == 1; r++) {
        size_t ka = cells(line[r], llen[r], at, len, MAX_COLS);
        for (size_t q = r + 1; ka && q < nl && q < 2 + KEY_ROWS; q++) {
            size_t qat[MAX_COLS], qlen[MAX_COLS];
            if (cells(line[q], llen[q], qat, qlen, MAX_COLS) && qlen[0] == len[0] &&
                !memcmp(line[q] + qat[0], line[r] + at[0], len[0])) {
                key = 2;
                break;
            }
        }
    }
    double kw = 0;
    for (size_t c = 0; c < key; c++)
        kw += col[c];
    if (kw > max_px * 0.6) { /* the key alone is most of the column: parts of one or two columns would not help */
        for (size_t r = 0; r < nl; r++) {
            tp_buf_put(out, line[r], llen[r]);
            tp_buf_putc(out, '\n');
        }
        return;
    }
    /* how many parts the greedy fill needs, then the columns spread evenly over them (4 columns in two parts
     * of two, not three and a lone one) */
    size_t parts = 0;
    for (size_t from = key; from < ncol; parts++) {
        double w = 1 + kw + col[from];
        size_t to = from + 1;
        while (to < ncol && w + col[to] <= max_px)
            w += col[to++];
        from = to;
    }
    size_t from = key;
    for (size_t part = 0; from < ncol; part++) {
        size_t left = parts > part ? parts - part : 1, most = (ncol - from + left - 1) / left;
        double w = 1 + kw + col[from];
        size_t to = from + 1;
        while (to < ncol && to - from < most && w + col[to] <= max_px)
            w += col[to++];
        if (from > key)
            tp_buf_putc(out, '\n');
        for (size_t r = 0; r < nl; r++) {
            size_t k = cells(line[r], llen[r], at, len, MAX_COLS);
            tp_buf_putc(out, '|');
            for (size_t c = 0; c < to; c = c + 1 == key ? from : c + 1) {
                if (c < k)
                    tp_buf_put(out, line[r] + at[c], len[c]);
                else
                    tp_buf_puts(out, r == 1 ? "---" : " ");
                tp_buf_putc(out, '|');
            }
            tp_buf_putc(out, '\n');
        }
        from = to;
    }
}

void tp_md_narrow(tp_buf *md, double max_px)
{
    if (!md->data || !md->len)
        return;
    const char *s = md->data;
    size_t n = md->len, nlines = 0;
    for (size_t i = 0; i < n; i++)
        nlines += s[i] == '\n';
    const char **line = tp_xmalloc((nlines + 2) * sizeof *line);
    size_t *llen = tp_xmalloc((nlines + 2) * sizeof *llen), k = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - s) : n;
        line[k] = s + i, llen[k] = e - i, k++;
        i = nl ? e + 1 : n;
    }
    tp_buf out = {0};
    bool changed = false;
    for (size_t i = 0; i < k;) {
        if (i + 1 < k && is_row(line[i], llen[i]) && is_delim(line[i + 1], llen[i + 1])) {
            size_t j = i + 2;
            while (j < k && is_row(line[j], llen[j]))
                j++;
            size_t before = out.len;
            table_out(&out, line + i, llen + i, j - i, max_px);
            changed |= out.len - before != (size_t)(line[j - 1] + llen[j - 1] - line[i]) + 1;
            i = j;
            continue;
        }
        tp_buf_put(&out, line[i], llen[i]);
        if (line[i] + llen[i] < s + n) /* the text's own newline, none added at its end */
            tp_buf_putc(&out, '\n');
        i++;
    }
    free(line);
    free(llen);
    if (!changed) {
        tp_buf_free(&out);
        return;
    }
    tp_buf_free(md);
    *md = out;
}
