/* report_text.h: numbers as the report writes them, and table cells owned
 * together; shared by summary.md, the PDF pages, the format pages and diff. */
#ifndef TP_REPORT_TEXT_H
#define TP_REPORT_TEXT_H

#include "convert/base/common.h"
#include "render/text/units.h"

/* Exact durations for `stats` text and the job report's clock offsets:
 * "1234.567 us" (ns / 1000, three decimals).  Pages and Markdown write
 * durations for reading with tp_fmt_dur (render/text/units.h). */
void tp_fmt_us(char *buf, size_t n, int64_t ns);
/* A duration in a Markdown table cell: tp_fmt_dur with a no-break space
 * before the unit, so GitHub never wraps "1.235 ms" inside a cell. */
void tp_md_dur(char *buf, size_t n, int64_t ns);
/* Spaces in buf become no-break spaces ("12.5 MiB" in a Markdown cell). */
void tp_str_nbsp(char *buf, size_t n);
/* A message size: "12.5 MiB", "400 MiB", "3.0 KiB", "512 B" (binary
 * units, one decimal below 100 of a unit), "?" for 0 (unknown). */
void tp_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* "12.3%" of part in whole, one decimal, rounded half up; "-" when whole is 0. */
void tp_fmt_pct(char *buf, size_t n, int64_t part, int64_t whole);

/* GitHub Markdown from strings a trace or a file name chose (kernel, op,
 * device, block names, the title, error text): nothing in them may become
 * HTML, a link, an image, an autolink, a mention, emphasis, a heading, a
 * list or a table break.  Both write at most max bytes of s, cut at a
 * UTF-8 boundary with "..." after (SIZE_MAX: all of s); newlines, tabs and
 * other control characters become spaces.  docs/REPORT.md lists the rules.
 *
 * tp_md_text: plain text for a line or a table cell.  Every character GFM
 * gives a meaning to is backslash-escaped: \ ` * _ [ ] < > | ! ~ & $ (not
 * an _ between ASCII letters or digits, which cannot emphasise), and # - +
 * = first or . ) after a leading number (a heading or a list where the
 * text starts a block, as after "- ").  "://" and "www." get an escape
 * (GFM autolinks them in plain text), and "@" is followed by a zero-width
 * space (&#8203;) so GitHub links neither a mention nor an e-mail address
 * (a backslash does not stop a mention). */
void tp_md_text(tp_buf *b, const char *s, size_t max);
/* A code span for a table cell: fenced with one backtick more than the
 * longest run inside, padded with a space when the content starts or ends
 * with a backtick or with spaces on both ends (CommonMark strips one);
 * "|" written "\|", which GFM's table splitting needs even inside a code
 * span (a zero-width space keeps an odd run of backslashes before it from
 * escaping the escape).  Empty s: "` `". */
void tp_md_code(tp_buf *b, const char *s, size_t max);

/* A CSV text cell (RFC 4180) from a string a trace or a file name chose:
 * invalid UTF-8 repaired as in the JSON outputs, quoted, quotes doubled;
 * control characters as spaces when controls_as_spaces.  A cell that would
 * start with = + - @ tab or CR (OWASP's CSV injection list) gets a leading
 * ' so a spreadsheet shows it as text instead of running it as a formula
 * (docs/ERRORS.md "Round 3").  Numeric cells are written as numbers, not
 * through this. */
void tp_csv_text(tp_buf *b, const char *s, size_t n, bool controls_as_spaces);

/* --image-base-url: http:// or https://, a host, then only characters that
 * cannot end or break a Markdown link (no space, control, quote, backtick,
 * backslash, < > ( ) [ ] |, nor anything outside ASCII) and no query or
 * fragment ('?', '#': the chart's path is appended), at most 1,000 bytes.
 * 0 when good, else -1 with why set to one line. */
int tp_md_url_check(const char *url, const char **why);

/* A list of strings owned together (table cells). */
typedef struct tp_strs {
    char **v;
    size_t n, cap;
} tp_strs;
const char *tp_strs_add(tp_strs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tp_strs_us(tp_strs *s, int64_t ns); /* "1234.567" (us, exact) */
const char *tp_strs_dur(tp_strs *s, int64_t ns); /* "1.235 ms" (tp_fmt_dur) */
const char *tp_strs_count(tp_strs *s, uint64_t v); /* "1,234,567" */
void tp_strs_free(tp_strs *s);

#endif
