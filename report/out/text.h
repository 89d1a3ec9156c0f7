/* text.h: numbers as the report writes them, and table cells owned
 * together; shared by summary.md, the PDF pages, the format pages and diff. */
#ifndef TP_REPORT_TEXT_H
#define TP_REPORT_TEXT_H

#include "convert/base/common.h"

/* Exact durations for text: "1234.567 us" (ns / 1000, three decimals). */
void tp_fmt_us(char *buf, size_t n, int64_t ns);
/* "12.3%" of part in whole, one decimal, rounded half up; "-" when whole is 0. */
void tp_fmt_pct(char *buf, size_t n, int64_t part, int64_t whole);

/* A Markdown table cell: at most max bytes of s ("..." after when cut), a
 * pipe escaped, backticks and line breaks as spaces.  SIZE_MAX: all of s. */
void tp_md_cell(tp_buf *b, const char *s, size_t max);

/* A list of strings owned together (table cells). */
typedef struct tp_strs {
    char **v;
    size_t n, cap;
} tp_strs;
const char *tp_strs_add(tp_strs *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tp_strs_us(tp_strs *s, int64_t ns); /* "1234.567" (us, exact) */
void tp_strs_free(tp_strs *s);

#endif
