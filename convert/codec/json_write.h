/* json_write.h: the pieces of JSON output every writer shares: string
 * escaping with UTF-8 repair, and exact fixed-point numbers from integers. */
#ifndef TP_JSON_WRITE_H
#define TP_JSON_WRITE_H

#include "convert/base/common.h"

/* Append s[0..len) as a JSON string literal (with quotes).  Control characters
 * are escaped; invalid UTF-8 sequences are replaced by U+FFFD and counted in
 * *bad_utf8 (when not NULL). */
void tp_json_put_string(tp_buf *b, const char *s, size_t len, uint64_t *bad_utf8);

/* A C string as a JSON string; NULL or "" as null in the second. */
void tp_json_str(tp_buf *b, const char *s);
void tp_json_str_or_null(tp_buf *b, const char *s);

/* Append s[0..len) unquoted with the same UTF-8 repair (CSV and text outputs:
 * the same name reads the same in every output). */
void tp_buf_put_utf8(tp_buf *b, const char *s, size_t len, uint64_t *bad_utf8);

/* Write value / 10^decimals exactly ("-1.500" for -1500, 3).  decimals 0..18.
 * Returns the number of characters written (at most 42, no NUL counted; the
 * buffer must hold 48). */
size_t tp_format_fixed(char *out, int64_t value, int decimals);

/* Append the decimal text of v (the writers' ids, pids, counts). */
void tp_buf_put_uint(tp_buf *b, uint64_t v);
void tp_buf_put_int(tp_buf *b, int64_t v);

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 if invalid. */
size_t tp_utf8_seq_len(const unsigned char *s, size_t avail);

#endif
