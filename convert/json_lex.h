/* json_lex.h: low-level JSON scanning over a byte range, shared by every
 * JSON-based reader.  Functions return TP_JL_OK, TP_JL_MORE when the range
 * ends inside the token (a streaming caller refills and retries), or
 * TP_JL_BAD (malformed; *why says what).  Nothing allocates except
 * tp_json_unescape, which appends to a caller's buffer. */
#ifndef TP_JSON_LEX_H
#define TP_JSON_LEX_H

#include "common.h"

enum { TP_JL_OK = 0, TP_JL_MORE = 1, TP_JL_BAD = 2 };

#define TP_JSON_MAX_DEPTH 512

static inline const char *tp_json_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p points at the opening double quote.  On OK: *s and *len is the raw content,
 * still escaped; *escaped tells whether it has backslashes, *next is past the closing quote. */
int tp_json_string(const char *p, const char *end, const char **s, size_t *len, bool *escaped,
                   const char **next, const char **why);

/* Decode an escaped string body into b (appends).  Bad escapes and lone
 * surrogates become U+FFFD and are counted in *bad (when not NULL). */
void tp_json_unescape(tp_buf *b, const char *s, size_t len, uint64_t *bad);

/* p points at a number's first char.  *len is its text length. */
int tp_json_number(const char *p, const char *end, size_t *len, const char **why);

/* Skip any value starting at p (after whitespace).  *next is past it. */
int tp_json_skip(const char *p, const char *end, const char **next, const char **why);

/* Can byte c stand outside a string in JSON (token, bracket, separator, space)? */
bool tp_json_char_ok(unsigned c);
/* Is s[0..n) exactly a JSON number, true, false or null? */
bool tp_json_token_ok(const char *s, size_t n);

/* Decimal text (JSON number, or the body of a numeric string) to an integer
 * scaled by 10^decimals, exactly: "1712195495519689.047" with 3 -> ns.
 * Digits beyond `decimals` are rounded half away from zero.  Exponents are
 * applied exactly.  Returns 0, or -1 if the text is not a number or the value
 * does not fit in int64 (*why says which). */
int tp_parse_fixed(const char *s, size_t len, int decimals, int64_t *out, const char **why);

/* Integer text (no fraction) to int64; -1 if not an integer or out of range. */
int tp_parse_int(const char *s, size_t len, int64_t *out);

#endif
