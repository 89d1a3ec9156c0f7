/* md_oracle.h: what the Markdown writers (summary.md, diff.md, the format
 * sections) guarantee whatever names a trace holds, checked on the text
 * itself, independently of report/out/text.c (fuzz_report, fuzz_diff and
 * tests/report/test_markdown.c; the tests also render with cmark-gfm).
 *
 * A name may only ever appear escaped (tp_md_text) or in a closed code span
 * (tp_md_code).  So, outside code spans and backslash escapes: no <, [, ],
 * !, ~, $, &, >, *, no "://" or "www.", no _ that could emphasise, no @
 * without the zero-width space after it; a line starts only as the writers
 * start one; a code span closes on its line; and every row of a table has
 * its header's number of cells, counting pipes as GFM splits them (a
 * backslash escapes the next byte, code spans do not protect).  The
 * writers' own constructs (bold labels, the chart links, <sub>) are the
 * only exceptions, each matched exactly.  Header only: static functions. */
#ifndef TP_MD_ORACLE_H
#define TP_MD_ORACLE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool mdo_alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }
static bool mdo_punct(char c) { return c > 0x20 && c < 0x7F && !mdo_alnum(c); }

/* Cells of a table line: unescaped pipes minus one (leading and trailing pipes). */
static int mdo_cells(const char *l, size_t n)
{
    int pipes = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i] == '\\' && i + 1 < n)
            i++;
        else if (l[i] == '|')
            pipes++;
    }
    return pipes - 1;
}

static bool mdo_is(const char *l, size_t n, const char *s) { return strlen(s) == n && memcmp(l, s, n) == 0; }
static bool mdo_starts(const char *l, size_t n, const char *s) { return n >= strlen(s) && memcmp(l, s, strlen(s)) == 0; }

/* A writer's own line that holds no name: the chart images, from the
 * --image-base-url the command checked (an http(s) URL of printable ASCII
 * with no space, quote, backslash, bracket, brace or pipe). */
static bool mdo_chart_line(const char *l, size_t n)
{
    const char *e = l + n, *p;
    if (!mdo_starts(l, n, "![png/") && !mdo_starts(l, n, "![step times](") && !mdo_starts(l, n, "![largest changes]("))
        return false;
    for (p = l + 2; p < e && *p != ']'; p++)
        if (!(mdo_alnum(*p) || strchr("/._- ", *p)))
            return false;
    if (e - p < 3 || p[1] != '(' || e[-1] != ')')
        return false;
    const char *u = p + 2;
    if (!mdo_starts(u, (size_t)(e - u), "https://") && !mdo_starts(u, (size_t)(e - u), "http://"))
        return false;
    for (; u < e - 1; u++)
        if ((unsigned char)*u <= 0x20 || (unsigned char)*u >= 0x7F || strchr("\"'`\\<>()[]|{}^", *u))
            return false;
    return true;
}

/* The first problem in one line's inline text from `from` on, or NULL. */
static const char *mdo_inline(const char *l, size_t n, size_t from, char *why, size_t wn)
{
    int bold = 0; /* the writers' "**label**" at the start of a line and one more pair after it ("median step **1 ms**") */
    for (size_t i = from; i < n; i++) {
        char c = l[i];
        if ((unsigned char)c < 0x20 || c == 0x7F) {
            snprintf(why, wn, "control character 0x%02x at %zu", (unsigned char)c, i);
            return why;
        }
        if (c == '\\' && i + 1 < n && mdo_punct(l[i + 1])) {
            i++;
            continue;
        }
        if (c == '`') {
            size_t run = 0;
            while (i + run < n && l[i + run] == '`')
                run++;
            size_t j = i + run;
            for (;;) { /* the next run of exactly `run` backticks closes */
                while (j < n && l[j] != '`')
                    j++;
                if (j >= n) {
                    snprintf(why, wn, "a code span opened at %zu does not close on its line", i);
                    return why;
                }
                size_t r2 = 0;
                while (j + r2 < n && l[j + r2] == '`')
                    r2++;
                if (r2 == run)
                    break;
                j += r2;
            }
            i = j + run - 1;
            continue;
        }
        if (c == '*' && i + 1 < n && l[i + 1] == '*' && bold < 4 && (bold || i == from)) {
            bold++;
            i++;
            continue;
        }
        if (c == '@') {
            if (!mdo_starts(l + i + 1, n - i - 1, "&#8203;")) {
                snprintf(why, wn, "an @ without the zero-width space at %zu", i);
                return why;
            }
            i += 7;
            continue;
        }
        if (c == '_') {
            size_t a = i, e = i;
            while (e < n && l[e] == '_')
                e++;
            if (a > 0 && e < n && mdo_alnum(l[a - 1]) && mdo_alnum(l[e])) {
                i = e - 1;
                continue;
            }
        }
        if (c == ':' && i + 2 < n && l[i + 1] == '/' && l[i + 2] == '/') {
            snprintf(why, wn, "an unescaped :// at %zu", i);
            return why;
        }
        if ((c == 'w' || c == 'W') && i + 4 <= n && strncasecmp(l + i, "www.", 4) == 0) {
            snprintf(why, wn, "an unescaped www. at %zu", i);
            return why;
        }
        if (c == '<' && mdo_starts(l + i, n - i, "<br>")) { /* the writers' line break in a table cell (issue 36) */
            i += 3;
            continue;
        }
        if (strchr("<>[]!~$&*_", c)) {
            snprintf(why, wn, "an unescaped '%c' at %zu", c, i);
            return why;
        }
    }
    return NULL;
}

/* Block starts a name could make where a writer's "- " puts text. */
static const char *mdo_block_start(const char *l, size_t n, size_t i, char *why, size_t wn)
{
    while (i < n && l[i] == ' ')
        i++;
    size_t d = i;
    while (d < n && l[d] >= '0' && l[d] <= '9')
        d++;
    if ((i < n && strchr("#-+=>*", l[i])) || (d > i && d < n && (l[d] == '.' || l[d] == ')'))) {
        snprintf(why, wn, "text starts a block (heading, list, quote) at %zu", i);
        return why;
    }
    return NULL;
}

/* The length of "N. " (one to three digits) at the start of l, else 0. */
static size_t mdo_ordered_item(const char *l, size_t n)
{
    size_t d = 0;
    while (d < n && d < 3 && l[d] >= '0' && l[d] <= '9')
        d++;
    return d > 0 && d + 1 < n && l[d] == '.' && l[d + 1] == ' ' ? d + 2 : 0;
}

/* NULL when md keeps every guarantee, else a message (static storage)
 * naming the line. */
static const char *tp_md_oracle(const char *md, size_t len)
{
    static char msg[600];
    char why[200];
    int table = -1; /* cells of the current table's header, -1 outside one */
    size_t lineno = 0;
    for (size_t p = 0; p < len;) {
        const char *l = md + p;
        const char *nl = memchr(l, '\n', len - p);
        size_t n = nl ? (size_t)(nl - l) : len - p;
        p += n + 1;
        lineno++;
        const char *bad = NULL;
        if (memchr(l, '\r', n))
            bad = "a carriage return";
        else if (n == 0)
            table = -1;
        else if (table >= 0 || (l[0] == '|' && nl && (size_t)(nl + 1 - md) < len && nl[1] == '|' &&
                                nl + 2 < md + len && (nl[2] == '-' || nl[2] == ':' || nl[2] == ' '))) {
            /* a table: every line until a blank one is a row of the header's width */
            int cells = mdo_cells(l, n);
            if (l[0] != '|' || l[n - 1] != '|' || (n >= 2 && l[n - 2] == '\\'))
                bad = "a table row that does not start and end with a pipe";
            else if (table < 0)
                table = cells;
            else if (cells != table) {
                snprintf(why, sizeof why, "a table row of %d cells under a header of %d", cells, table);
                bad = why;
            }
            if (!bad)
                bad = mdo_inline(l, n, 0, why, sizeof why);
        } else if (l[0] == '#') {
            size_t h = 0;
            while (h < n && l[h] == '#')
                h++;
            if ((h != 3 && h != 4) || h >= n || l[h] != ' ')
                bad = "a heading the writers never write";
            else
                bad = mdo_inline(l, n, h + 1, why, sizeof why);
        } else if (mdo_chart_line(l, n)) {
            bad = NULL;
        } else if (mdo_is(l, n, "</details>")) {
            bad = NULL; /* a long table's fold (diff.md, issue 36) */
        } else if (mdo_starts(l, n, "<details><summary>")) {
            if (n < 28 || !mdo_is(l + n - 10, 10, "</summary>"))
                bad = "a <details> line that does not end with </summary>";
            else {
                char in[1024];
                size_t m = n - 28 < sizeof in - 1 ? n - 28 : sizeof in - 1;
                memcpy(in, l + 18, m);
                bad = mdo_inline(in, m, 0, why, sizeof why);
            }
        } else if (mdo_starts(l, n, "<sub>")) {
            if (n < 11 || !mdo_is(l + n - 6, 6, "</sub>"))
                bad = "a <sub> line that does not end with </sub>";
            else {
                char in[1024];
                size_t m = n - 11 < sizeof in - 1 ? n - 11 : sizeof in - 1;
                memcpy(in, l + 5, m);
                bad = mdo_inline(in, m, 0, why, sizeof why);
            }
        } else if (mdo_starts(l, n, "- ")) {
            bad = mdo_block_start(l, n, 2, why, sizeof why);
            if (!bad)
                bad = mdo_inline(l, n, 2, why, sizeof why);
        } else if (mdo_ordered_item(l, n) && mdo_starts(l + mdo_ordered_item(l, n), n - mdo_ordered_item(l, n), "**")) {
            /* the writers' ranked findings: "1. **title** ..." (summary.md) */
            bad = mdo_inline(l, n, mdo_ordered_item(l, n), why, sizeof why);
        } else if (strchr("-+=>*", l[0]) && !mdo_starts(l, n, "**")) {
            bad = "a line that starts a list, a quote or a setext heading";
        } else {
            bad = mdo_starts(l, n, "**") ? NULL : mdo_block_start(l, n, 0, why, sizeof why);
            /* the writers' "13 more kernels in ..." lines start with a number, never "13." */
            if (!bad)
                bad = mdo_inline(l, n, 0, why, sizeof why);
        }
        if (bad) {
            snprintf(msg, sizeof msg, "line %zu: %s: %.*s", lineno, bad, (int)(n > 300 ? 300 : n), l);
            return msg;
        }
    }
    return NULL;
}

#endif
