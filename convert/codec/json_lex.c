/* json_lex.c: JSON token scanning and exact decimal parsing. */
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/base/simd.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Next '"' or '\\' at or after p, or NULL. */
static inline const char *next_quote_or_backslash(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)));
        if (mask)
            return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    for (; p < end; p++)
        if (*p == '"' || *p == '\\')
            return p;
    return NULL;
}

int tp_json_string(const char *p, const char *end, const char **s, size_t *len, bool *escaped,
                   const char **next, const char **why)
{
    const char *q = p + 1;
    bool esc = false;
    *escaped = false;
    (void)why;
    for (;;) {
        const char *c = next_quote_or_backslash(q, end);
        if (!c)
            return TP_JL_MORE;
        if (*c == '"') {
            /* control characters inside strings are invalid JSON but common in
             * broken traces; we accept them (the writer escapes them). */
            *s = p + 1;
            *len = (size_t)(c - (p + 1));
            *escaped = esc;
            *next = c + 1;
            return TP_JL_OK;
        }
        esc = true;
        if (c + 1 >= end)
            return TP_JL_MORE;
        q = c + 2; /* the escaped character (\uXXXX's digits are plain) */
    }
}

static int read_u4(const char *s, size_t left)
{
    if (left < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = tp_hex_digit(s[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static void put_cp(tp_buf *b, unsigned cp)
{
    char o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (char)(0xF0 | (cp >> 18));
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    tp_buf_put(b, o, n);
}

void tp_json_unescape(tp_buf *b, const char *s, size_t len, uint64_t *bad)
{
    size_t i = 0;
    while (i < len) {
        const char *bs = memchr(s + i, '\\', len - i);
        size_t plain = bs ? (size_t)(bs - (s + i)) : len - i;
        tp_buf_put(b, s + i, plain);
        i += plain;
        if (i >= len)
            break;
        i++; /* backslash */
        if (i >= len) {
            put_cp(b, 0xFFFD);
            if (bad)
                ++*bad;
            break;
        }
        char c = s[i++];
        switch (c) {
        case '"': tp_buf_putc(b, '"'); break;
        case '\\': tp_buf_putc(b, '\\'); break;
        case '/': tp_buf_putc(b, '/'); break;
        case 'b': tp_buf_putc(b, '\b'); break;
        case 'f': tp_buf_putc(b, '\f'); break;
        case 'n': tp_buf_putc(b, '\n'); break;
        case 'r': tp_buf_putc(b, '\r'); break;
        case 't': tp_buf_putc(b, '\t'); break;
        case 'u': {
            int u = read_u4(s + i, len - i);
            if (u < 0) {
                put_cp(b, 0xFFFD);
                if (bad)
                    ++*bad;
                break;
            }
            i += 4;
            unsigned cp = (unsigned)u;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int lo = (i + 6 <= len && s[i] == '\\' && s[i + 1] == 'u') ? read_u4(s + i + 2, len - i - 2) : -1;
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                    if (bad)
                        ++*bad;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
                if (bad)
                    ++*bad;
            }
            put_cp(b, cp);
            break;
        }
        default:
            put_cp(b, 0xFFFD);
            if (bad)
                ++*bad;
        }
    }
}

int tp_json_number(const char *p, const char *end, size_t *len, const char **why)
{
    const char *q = p;
    if (q < end && *q == '-')
        q++;
    const char *digits = q;
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' ||
                       *q == '-'))
        q++;
    if (q == end)
        return TP_JL_MORE;
    if (q == digits) {
        *why = "expected a number";
        return TP_JL_BAD;
    }
    *len = (size_t)(q - p);
    return TP_JL_OK;
}

/* Character classes for skipping values quickly: one table lookup per byte
 * outside strings.  Only characters that can appear in JSON tokens are
 * accepted, brackets must match, and strings are skipped with memchr. */
enum { C_BAD = 0, C_TOK, C_QUOTE, C_OPEN_OBJ, C_OPEN_ARR, C_CLOSE_OBJ, C_CLOSE_ARR, C_WS, C_SEP };
#define TOKS(x) [x] = C_TOK
static const unsigned char cls[256] = {
    TOKS('0'), TOKS('1'), TOKS('2'), TOKS('3'), TOKS('4'), TOKS('5'), TOKS('6'), TOKS('7'), TOKS('8'),
    TOKS('9'), TOKS('-'), TOKS('+'), TOKS('.'), TOKS('e'), TOKS('E'), TOKS('t'), TOKS('r'), TOKS('u'),
    TOKS('f'), TOKS('a'), TOKS('l'), TOKS('s'), TOKS('n'),
    ['"'] = C_QUOTE, ['{'] = C_OPEN_OBJ, ['['] = C_OPEN_ARR, ['}'] = C_CLOSE_OBJ, [']'] = C_CLOSE_ARR,
    [' '] = C_WS, ['\n'] = C_WS, ['\r'] = C_WS, ['\t'] = C_WS, [','] = C_SEP, [':'] = C_SEP,
};
#undef TOKS

/* End of the string whose opening quote is at p, or NULL if not in range. */
static const char *string_end(const char *p, const char *end)
{
    const char *q = p + 1;
    for (;;) {
        const char *c = next_quote_or_backslash(q, end);
        if (!c)
            return NULL;
        if (*c == '"')
            return c + 1;
        if (c + 1 >= end)
            return NULL;
        q = c + 2;
    }
}

/* Skipping a compound value: only strings and brackets matter for finding
 * its end.  What lies between them is checked where it is used (the writer
 * validates every args byte it copies). */
typedef struct skip_state {
    int depth;
    bool in_str, esc; /* inside a string; the previous byte was a backslash in it */
    char stack[TP_JSON_MAX_DEPTH]; /* the closing bracket each open one needs */
} skip_state;

/* One bracket outside strings at p: 1 when it closed the value. */
static int skip_bracket(skip_state *s, const char *p, const char **why)
{
    char c = *p;
    if (c == '{' || c == '[') {
        if (s->depth >= TP_JSON_MAX_DEPTH) {
            *why = "nesting deeper than 512 levels";
            return -1;
        }
        s->stack[s->depth++] = c == '{' ? '}' : ']';
        return 0;
    }
    if (s->depth == 0 || s->stack[s->depth - 1] != c) {
        *why = s->depth ? "mismatched bracket" : "unexpected closing bracket";
        return -1;
    }
    return --s->depth == 0;
}

/* Byte by byte over [p, lim): TP_JL_OK with *next past the value's end,
 * TP_JL_BAD, or TP_JL_MORE when the value goes on past lim. */
static int skip_bytes(skip_state *s, const char *p, const char *lim, const char **next, const char **why)
{
    for (; p < lim; p++) {
        char c = *p;
        if (s->in_str) {
            if (s->esc)
                s->esc = false;
            else if (c == '\\')
                s->esc = true;
            else if (c == '"')
                s->in_str = false;
            continue;
        }
        if (c == '"') {
            s->in_str = true;
        } else if ((c | 0x20) == '{' || (c | 0x20) == '}') { /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
            int k = skip_bracket(s, p, why);
            if (k < 0)
                return TP_JL_BAD;
            if (k) {
                *next = p + 1;
                return TP_JL_OK;
            }
        }
    }
    return TP_JL_MORE;
}

#ifdef __SSE2__
/* Bit i set where p[i] equals c, for the 64 bytes at p. */
static inline uint64_t eq_mask64(const __m128i v[4], __m128i c)
{
    uint64_t m = 0;
    for (int k = 0; k < 4; k++)
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[k], c)) << (16 * k);
    return m;
}

/* Bit i = XOR of bits 0..i: set from an opening quote up to (not
 * including) its closing quote. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

/* One 64-byte block at p, from its masks: `escapes` when it holds a
 * backslash (or starts escaped: it goes byte by byte), its quotes' prefix
 * XOR, its brackets (inside strings too).  TP_JL_OK with *next past the
 * value, TP_JL_BAD, or TP_JL_MORE for the next block.  Both block loops
 * below (SSE2, AVX2) end here. */
static inline int skip_block(skip_state *s, const char *p, bool escapes, uint64_t quotes_xor, uint64_t br,
                             const char **next, const char **why)
{
    if (escapes)
        return skip_bytes(s, p, p + 64, next, why);
    uint64_t in_str = quotes_xor ^ (s->in_str ? ~(uint64_t)0 : 0);
    for (br &= ~in_str; br; br &= br - 1) {
        int i = __builtin_ctzll(br);
        int k = skip_bracket(s, p + i, why);
        if (k < 0)
            return TP_JL_BAD;
        if (k) {
            *next = p + i + 1;
            return TP_JL_OK;
        }
    }
    s->in_str = in_str >> 63;
    return TP_JL_MORE;
}

#ifdef TP_HAVE_AVX2_PATHS
/* 64 bytes in two AVX2 registers, and bit masks of them (bit i: byte i). */
typedef struct tp_block64 {
    __m256i lo, hi;
} tp_block64;

TP_AVX2 static inline tp_block64 tp_load64(const void *p)
{
    tp_block64 b = {_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)((const char *)p + 32))};
    return b;
}

/* the top bit of each byte of lo, then of hi */
TP_AVX2 static inline uint64_t tp_mask64(__m256i lo, __m256i hi)
{
    return (uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

/* where the byte is c */
TP_AVX2 static inline uint64_t tp_eq64(tp_block64 b, char c)
{
    __m256i k = _mm256_set1_epi8(c);
    return tp_mask64(_mm256_cmpeq_epi8(b.lo, k), _mm256_cmpeq_epi8(b.hi, k));
}

/* every byte ORed with c ('[' | 0x20 is '{', ']' | 0x20 is '}') */
TP_AVX2 static inline tp_block64 tp_or64(tp_block64 b, char c)
{
    __m256i k = _mm256_set1_epi8(c);
    tp_block64 r = {_mm256_or_si256(b.lo, k), _mm256_or_si256(b.hi, k)};
    return r;
}

/* Bit i = XOR of bits 0..i of x: with x the quotes of 64 bytes, the bytes
 * from an opening quote up to (not including) its closing one.  One
 * carry-less multiply by all ones does the six shift-and-XOR steps. */
TP_AVX2 static inline uint64_t tp_prefix_xor(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

/* The block loop with AVX2 (simd.h): two 32-byte loads a block, the prefix
 * XOR in one carry-less multiply.  Args are 40% of a Kineto trace's bytes
 * and all pass here.  *pp: where the blocks stopped (TP_JL_MORE). */
TP_AVX2 static int skip_blocks_avx2(skip_state *s, const char **pp, const char *end, const char **next,
                                    const char **why)
{
    const char *p = *pp;
    for (; end - p >= 64; p += 64) {
        tp_block64 b = tp_load64(p), l = tp_or64(b, 0x20); /* '[' | 0x20 is '{', ']' | 0x20 is '}' */
        int rc = skip_block(s, p, s->esc || tp_eq64(b, '\\'), tp_prefix_xor(tp_eq64(b, '"')),
                            tp_eq64(l, '{') | tp_eq64(l, '}'), next, why);
        if (rc != TP_JL_MORE)
            return rc;
    }
    *pp = p;
    return TP_JL_MORE;
}
#endif

/* p at the '{' or '[' of a compound value.  64 bytes at a time with SSE2
 * (baseline on x86-64): masks of quotes and brackets, the bytes inside
 * strings from a prefix XOR of the quotes, then only the brackets outside
 * strings are looked at one by one.  A block with a backslash (rare in
 * traces) goes byte by byte, as does the tail of the range. */
static int skip_compound(const char *p, const char *end, const char **next, const char **why)
{
    skip_state s;
    s.depth = 0;
    s.in_str = s.esc = false;
#ifdef TP_HAVE_AVX2_PATHS
    if (tp_simd_avx2()) {
        int rc = skip_blocks_avx2(&s, &p, end, next, why);
        if (rc != TP_JL_MORE)
            return rc; /* else under 64 bytes are left, for skip_bytes */
    }
#endif
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), open = _mm_set1_epi8('{'),
                  close = _mm_set1_epi8('}'), lower = _mm_set1_epi8(0x20);
    for (; end - p >= 64; p += 64) {
        __m128i v[4], l[4];
        for (int k = 0; k < 4; k++) {
            v[k] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
            l[k] = _mm_or_si128(v[k], lower);
        }
        int rc = skip_block(&s, p, s.esc || eq_mask64(v, bs), prefix_xor(eq_mask64(v, quote)),
                            eq_mask64(l, open) | eq_mask64(l, close), next, why);
        if (rc != TP_JL_MORE)
            return rc;
    }
#endif
    return skip_bytes(&s, p, end, next, why);
}

int tp_json_skip(const char *p, const char *end, const char **next, const char **why)
{
    p = tp_json_ws(p, end);
    if (p >= end)
        return TP_JL_MORE;
    unsigned c0 = cls[(unsigned char)*p];
    if (c0 == C_TOK || c0 == C_QUOTE) {
        /* a scalar */
        if (c0 == C_QUOTE) {
            const char *e = string_end(p, end);
            if (!e)
                return TP_JL_MORE;
            p = e;
        } else {
            const char *t0 = p;
            while (p < end && cls[(unsigned char)*p] == C_TOK)
                p++;
            if (p >= end)
                return TP_JL_MORE;
            if (!tp_json_token_ok(t0, (size_t)(p - t0))) {
                *why = "invalid number or literal";
                return TP_JL_BAD;
            }
        }
        *next = tp_json_ws(p, end);
        return TP_JL_OK;
    }
    if (c0 != C_OPEN_OBJ && c0 != C_OPEN_ARR) {
        *why = c0 == C_SEP ? "unexpected separator" : c0 == C_BAD ? "unexpected character" : "unexpected closing bracket";
        return TP_JL_BAD;
    }
    int rc = skip_compound(p, end, &p, why);
    if (rc == TP_JL_OK)
        *next = tp_json_ws(p, end);
    return rc;
}


bool tp_json_token_ok(const char *s, size_t n)
{
    if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)) || (n == 4 && !memcmp(s, "null", 4)))
        return true;
    /* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return false;
    if (i < n && s[i] == '.') {
        i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    return i == n;
}

size_t tp_json_escape_len(const char *c, size_t avail)
{
    if (avail < 2)
        return 0;
    switch (c[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u':
        if (avail < 6)
            return 0;
        for (int i = 2; i < 6; i++)
            if (tp_hex_digit(c[i]) < 0)
                return 0;
        return 6;
    default:
        return 0;
    }
}

/* A string starting at its opening quote; returns past the closing quote. */
static const char *valid_string(const char *p, const char *end)
{
    p++;
    for (;;) {
        const char *c = next_quote_or_backslash(p, end);
        if (!c)
            return NULL;
        if (*c == '"')
            return c + 1;
        size_t k = tp_json_escape_len(c, (size_t)(end - c));
        if (!k)
            return NULL;
        p = c + k;
    }
}

/* The grammar walk.  members: s is the inside of an object (no braces). */
static bool valid_json(const char *p, const char *end, bool members)
{
    enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER } st = VALUE;
    char stack[TP_JSON_MAX_DEPTH + 1];
    int depth = 0;
    if (members) {
        p = tp_json_ws(p, end);
        if (p < end && *p == ',')
            p++;
        stack[depth++] = 0; /* the virtual object ends at the end of the text */
        st = KEY_OR_CLOSE;
    }
    for (;;) {
        p = tp_json_ws(p, end);
        if (st == AFTER) {
            if (depth == 0)
                return p == end;
            if (p >= end)
                return depth == 1 && stack[0] == 0;
            char c = *p++;
            if (c == ',') {
                st = stack[depth - 1] == ']' ? VALUE : KEY;
                continue;
            }
            if (c != stack[depth - 1])
                return false;
            depth--;
            continue;
        }
        if (p >= end)
            return members && depth == 1 && st == KEY_OR_CLOSE;
        char c = *p;
        if ((st == VALUE_OR_CLOSE && c == ']') || (st == KEY_OR_CLOSE && c == '}' && stack[depth - 1] == '}')) {
            p++;
            depth--;
            st = AFTER;
            continue;
        }
        if (st == KEY || st == KEY_OR_CLOSE) {
            if (c != '"' || !(p = valid_string(p, end)))
                return false;
            p = tp_json_ws(p, end);
            if (p >= end || *p != ':')
                return false;
            p++;
            st = VALUE;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth >= TP_JSON_MAX_DEPTH)
                return false;
            stack[depth++] = c == '{' ? '}' : ']';
            p++;
            st = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
            continue;
        }
        if (c == '"')
            p = valid_string(p, end);
        else if (c == 't')
            p = end - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
        else if (c == 'f')
            p = end - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
        else if (c == 'n')
            p = end - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
        else
            p = tp_json_number_end(p, end);
        if (!p)
            return false;
        st = AFTER;
    }
}

bool tp_json_valid(const char *s, size_t n) { return valid_json(s, s + n, false); }
bool tp_json_valid_members(const char *s, size_t n) { return valid_json(s, s + n, true); }

int tp_parse_int(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == len)
        return -1;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)v;
    }
    return 0;
}

/* Appends the digits at s[0..n) to *v (8 at a time when it can); returns
 * how many there were. */
static inline size_t take_digits(const char *s, size_t n, uint64_t *v)
{
    size_t i = 0;
    uint64_t acc = *v;
    while (n - i >= 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (tp_nondigits8(x))
            break;
        acc = acc * 100000000u + tp_eight_digits(x);
        i += 8;
    }
    for (; i < n && (unsigned)(s[i] - '0') < 10; i++)
        acc = acc * 10 + (unsigned)(s[i] - '0');
    *v = acc;
    return i;
}

int tp_parse_fixed(const char *s, size_t len, int decimals, int64_t *out, const char **why)
{
    /* fast path: [-]digits[.digits] with at most `decimals` fraction digits
     * and at most 19 digits once scaled (fits in uint64, checked for int64):
     * every Kineto timestamp, epoch microseconds with 3 decimals included.
     * (A value past 19 digits wraps in v, and is then left to the general
     * path by the count.) */
    if (len > 0 && len <= 21) {
        size_t i = s[0] == '-';
        uint64_t v = 0;
        size_t n_int = take_digits(s + i, len - i, &v), n_frac = 0;
        i += n_int;
        bool dot = i < len && s[i] == '.';
        if (dot) {
            n_frac = take_digits(s + i + 1, len - i - 1, &v);
            i += 1 + n_frac;
        }
        if (i == len && n_int > 0 && (!dot || n_frac > 0) && (int)n_frac <= decimals &&
            n_int + (size_t)decimals <= 19) {
            for (int k = (int)n_frac; k < decimals; k++)
                v *= 10;
            if (v <= (uint64_t)INT64_MAX) {
                *out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
                return 0;
            }
        }
    }
    return tp_parse_fixed_general(s, len, decimals, out, why);
}

int tp_parse_fixed_general(const char *s, size_t len, int decimals, int64_t *out, const char **why)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    /* collect up to 40 significant digits and the decimal point position */
    char dig[48];
    int nd = 0, point = -1, lead = 1;
    int dropped_int = 0;      /* integer digits beyond our buffer (overflow anyway) */
    bool any = false;
    char round_digit = 0;     /* first digit beyond the buffer, for rounding */
    for (; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (lead && c == '0' && point < 0)
                continue; /* leading zeros of the integer part */
            lead = 0;
            if (nd < 40)
                dig[nd++] = c;
            else if (point < 0)
                dropped_int++;
            else if (!round_digit)
                round_digit = c;
        } else if (c == '.' && point < 0) {
            point = nd;
            lead = 0;
        } else
            break;
    }
    if (!any) {
        *why = "not a number";
        return -1;
    }
    if (point < 0)
        point = nd;
    long exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        if (i == len) {
            *why = "not a number";
            return -1;
        }
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (s[i] - '0');
        if (eneg)
            exp10 = -exp10;
    }
    if (i != len) {
        *why = "not a number";
        return -1;
    }
    if (dropped_int) {
        *why = "number out of range";
        return -1;
    }
    /* value = 0.dig * 10^(point + exp10); we want it * 10^decimals */
    long int_digits = point + exp10 + decimals; /* digits of dig[] before the scaled point */
    uint64_t v = 0;
    for (long k = 0; k < int_digits; k++) {
        unsigned d = k < nd ? (unsigned)(dig[k] - '0') : 0;
        if (v > (UINT64_MAX - d) / 10) {
            *why = "number out of range";
            return -1;
        }
        v = v * 10 + d;
    }
    /* round half away from zero on the first dropped digit */
    char next = 0;
    if (int_digits >= 0 && int_digits < nd)
        next = dig[int_digits];
    else if (int_digits == nd)
        next = round_digit;
    if (next >= '5') {
        if (v == UINT64_MAX) {
            *why = "number out of range";
            return -1;
        }
        v++;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) {
            *why = "number out of range";
            return -1;
        }
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX) {
            *why = "number out of range";
            return -1;
        }
        *out = (int64_t)v;
    }
    return 0;
}
