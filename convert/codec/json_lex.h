/* json_lex.h: low-level JSON scanning over a byte range, shared by every
 * JSON-based reader.  Functions return TP_JL_OK, TP_JL_MORE when the range
 * ends inside the token (a streaming caller refills and retries), or
 * TP_JL_BAD (malformed; *why says what).  Nothing allocates except
 * tp_json_unescape, which appends to a caller's buffer. */
#ifndef TP_JSON_LEX_H
#define TP_JSON_LEX_H

#include "convert/base/common.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { TP_JL_OK = 0, TP_JL_MORE = 1, TP_JL_BAD = 2 };

#define TP_JSON_MAX_DEPTH 512

/* The end of the run of bytes at p that a JSON string can hold as they
 * are: printable ASCII other than '"' and '\\'.  Returns the first byte
 * that needs a look (quote, backslash, control character, non-ASCII), or
 * end.  SSE2 (baseline on x86-64) tests 16 bytes at a time: a signed
 * "less than 0x20" catches both the controls and the bytes >= 0x80. */
static inline const char *tp_json_plain_end(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)));
        int mask = _mm_movemask_epi8(m);
        if (mask)
            return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"' && *p != '\\')
        p++;
    return p;
}

static inline bool tp_json_is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

#ifdef __SSE2__
/* Bit i set where byte i of the 16 in v is JSON whitespace (the two
 * minifiers' runs of indent: json_min.c, pftrace_args.c). */
static inline unsigned tp_json_ws_bits16(__m128i v)
{
    __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), nl = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
    __m128i cr = _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), tab = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(sp, nl), _mm_or_si128(cr, tab)));
}
#endif

static inline const char *tp_json_ws(const char *p, const char *end)
{
    while (p < end && tp_json_is_ws(*p))
        p++;
    return p;
}

/* The whitespace one place in a pretty-printed file last held (up to 16
 * bytes: a newline and the indent before a key, the space after a colon).
 * tp_json_ws_guess checks that the same bytes stand at p, and a
 * non-whitespace byte after them, with two word compares: the next token's
 * place then follows from the guess, not from the bytes (a loop over the
 * indent, or a SIMD scan, makes every later step wait for the bytes: the
 * indent loop was 15% of `stats`' cycles on 1 GB real-shaped input).  A
 * miss takes tp_json_ws and remembers what it found. */
typedef struct tp_ws_guess {
    uint64_t w[2], m[2]; /* the bytes, and a mask of the first n */
    size_t n;
} tp_ws_guess;

static inline const char *tp_json_ws_guess(tp_ws_guess *g, const char *p, const char *end)
{
    if (p < end && (unsigned char)*p > ' ')
        return p; /* no whitespace (minified files): nothing to guess */
    if (end - p > 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        if (!(((a ^ g->w[0]) & g->m[0]) | ((b ^ g->w[1]) & g->m[1])) && (unsigned char)p[g->n] > ' ')
            return p + g->n;
    }
    const char *q = tp_json_ws(p, end);
    size_t n = (size_t)(q - p);
    if (n <= 16 && end - p > 16) {
        unsigned char bytes[16] = {0}, mask[16] = {0};
        memcpy(bytes, p, n);
        memset(mask, 0xFF, n);
        memcpy(g->w, bytes, 16);
        memcpy(g->m, mask, 16);
        g->n = n;
    }
    return q;
}

/* Bit 8k+7 (at least) set where byte k of x (8 bytes of text, loaded
 * little-endian) is not an ASCII digit; 0 when all eight are.  A byte
 * >= 0xFA carries into the next one when 6 is added, but only into bytes
 * after the first non-digit, which is all callers look for.  (Finding a
 * number's end with it in the scanner cost time: the next token's place
 * waited on it; a loop per digit is predicted and does not.) */
static inline uint64_t tp_nondigits8(uint64_t x)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, zeros = 0x3030303030303030ull;
    return ((x & hi) ^ zeros) | (((x + 0x0606060606060606ull) & hi) ^ zeros);
}

/* The value of the 8 ASCII digits in x (loaded little-endian: the first
 * byte is the most significant digit): pairs of digits, then pairs of
 * pairs, in three multiplies. */
static inline uint64_t tp_eight_digits(uint64_t x)
{
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8); /* byte 2k: the two digits 2k, 2k+1 */
    const uint64_t two = 0x000000FF000000FFull;
    return ((x & two) * (100 + (1000000ull << 32)) + ((x >> 16) & two) * (1 + (10000ull << 32))) >> 32;
}

/* 10^n for n <= 19 */
static inline uint64_t tp_pow10(unsigned n)
{
    static const uint64_t p[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                   100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                   1000000000000ull, 10000000000000ull, 100000000000000ull,
                                   1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                   1000000000000000000ull, 10000000000000000000ull};
    return p[n];
}

/* The value of the n (1..16) bytes at s, all ASCII digits (the caller
 * checked), from two words at most: the last word is the 8 bytes that end
 * at s + n, with the bytes before s masked as '0': when n < 8 it starts
 * 8 - n bytes before s, and the caller makes sure they can be read.  No
 * loop per digit: the reader's ts and dur. */
static inline uint64_t tp_digits_value(const char *s, size_t n)
{
    uint64_t x, v = 0;
    if (n > 8) {
        memcpy(&x, s, 8);
        v = tp_eight_digits(x);
        s += 8;
        n -= 8;
    }
    memcpy(&x, s + n - 8, 8);
    uint64_t keep = ~0ull << (8 * (8 - n));
    x = (x & keep) | (0x3030303030303030ull & ~keep);
    return v * tp_pow10((unsigned)n) + tp_eight_digits(x);
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

/* Can byte c be part of a number, true, false or null?  (The token's
 * grammar is tp_json_token_ok's job.) */
static inline bool tp_json_token_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == 't' ||
           c == 'r' || c == 'u' || c == 'f' || c == 'a' || c == 'l' || c == 's' || c == 'n';
}
/* Is s[0..n) exactly a JSON number, true, false or null? */
bool tp_json_token_ok(const char *s, size_t n);
/* The length of the valid JSON escape at c (c[0] is the backslash): 2, or 6
 * for \uXXXX; 0 when it is not one of JSON's escapes. */
size_t tp_json_escape_len(const char *c, size_t avail);

/* Full grammar checks (RFC 8259, iterative, nesting up to TP_JSON_MAX_DEPTH)
 * for text that is copied to an output verbatim: s[0..n) is exactly one
 * value (surrounding whitespace allowed).  Inside strings only the escapes
 * are checked: raw control characters and invalid UTF-8 are left to the
 * writer, which repairs them. */
bool tp_json_valid(const char *s, size_t n);
/* s[0..n) is a list of object members `"k":v,"k":v` (each may also start
 * with a comma: `,"k":v,"k":v`), as kept for extra keys; empty is valid. */
bool tp_json_valid_members(const char *s, size_t n);

/* Decimal text (JSON number, or the body of a numeric string) to an integer
 * scaled by 10^decimals, exactly: "1712195495519689.047" with 3 -> ns.
 * Digits beyond `decimals` are rounded half away from zero.  Exponents are
 * applied exactly.  Returns 0, or -1 if the text is not a number or the value
 * does not fit in int64 (*why says which). */
int tp_parse_fixed(const char *s, size_t len, int decimals, int64_t *out, const char **why);
/* tp_parse_fixed without its fast path for plain [-]digits[.digits] text:
 * the twin the tests and the fuzz target compare it with. */
int tp_parse_fixed_general(const char *s, size_t len, int decimals, int64_t *out, const char **why);

/* Integer text (no fraction) to int64; -1 if not an integer or out of range. */
int tp_parse_int(const char *s, size_t len, int64_t *out);

/* The end of the run of ASCII digits at p: 16 bytes looked at once (SSE2),
 * so a number's length costs no mispredicted loop exit (Kineto's ts, dur,
 * pid and tid, and the shapes and strides in its args: runs of every length). */
static inline const char *tp_json_digits_end(const char *p, const char *end)
{
#ifdef __SSE2__
    if (end - p >= 16) {
        /* '0'..'9' become -128..-119 as signed bytes, every other byte more */
        __m128i x = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8((char)('0' + 128)));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(x, _mm_set1_epi8(-128 + 9)));
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* The end of the JSON number at p, exactly -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * or NULL when p does not start one (the grammar check and the args minifier). */
static inline const char *tp_json_number_end(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return NULL;
    if (*p == '0')
        p++;
    else
        p = tp_json_digits_end(p, end);
    if (p < end && *p == '.') {
        const char *d = ++p;
        p = tp_json_digits_end(p, end);
        if (p == d)
            return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *d = p;
        p = tp_json_digits_end(p, end);
        if (p == d)
            return NULL;
    }
    return p;
}

/* The value of one hexadecimal digit, or -1 (JSON's \uXXXX, and the
 * readers' hex fields). */
static inline int tp_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
