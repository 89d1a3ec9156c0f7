/* json_min.c: the args minifier (see json_min.h).
 *
 * It runs over every args byte of a converted trace (12% of a 1 GB Kineto
 * conversion), so the common bytes take short paths: string runs and
 * numbers are copied 16 bytes at a time (into room kept past the end, see
 * SLACK), numbers are checked as they are scanned (no second pass), a
 * space costs one comparison and a run of them is skipped 16 bytes at a
 * time.  The grammar walk itself is a small state machine with a bracket
 * stack. */
#include "convert/codec/json_min.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Output room kept past what the input can need, so that a 16-byte store
 * at the output's end never runs past the buffer. */
#define SLACK 64

/* The end of the number or literal at p when it is exactly one (the next
 * byte cannot continue a token: "01", "1.2.3", "truex" are not JSON), else
 * NULL. */
static inline const unsigned char *token_end(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *q;
    size_t avail = (size_t)(end - p);
    if (*p == 't' && avail >= 4 && !memcmp(p, "true", 4))
        q = p + 4;
    else if (*p == 'f' && avail >= 5 && !memcmp(p, "false", 5))
        q = p + 5;
    else if (*p == 'n' && avail >= 4 && !memcmp(p, "null", 4))
        q = p + 4;
    else if (!(q = (const unsigned char *)tp_json_number_end((const char *)p, (const char *)end)))
        return NULL;
    return q < end && tp_json_token_char(*q) ? NULL : q;
}

/* Copy k bytes (a token): one 16-byte store when the input has 16 bytes
 * there (the output has SLACK). */
static inline char *copy_short(char *o, const unsigned char *p, const unsigned char *end, size_t k)
{
#ifdef __SSE2__
    if (k <= 16 && end - p >= 16) {
        _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)p));
        return o + k;
    }
#endif
    memcpy(o, p, k);
    return o + k;
}

bool tp_json_min(tp_buf *b, const char *s, size_t n, int mode, uint64_t *bad_utf8)
{
    enum { S_VALUE, S_VALUE_OR_CLOSE, S_KEY, S_KEY_OR_CLOSE, S_COLON, S_COMMA_OR_CLOSE, S_END };
    size_t mark = b->len;
    uint64_t bad = 0;
    char stack[TP_JSON_MAX_DEPTH + 1];
    int depth = 0, st = S_VALUE;
    if (mode != TP_MIN_VALUE) {
        stack[depth++] = '}'; /* the braces the members live in */
        st = mode == TP_MIN_MEMBERS ? S_KEY : S_COMMA_OR_CLOSE;
    }
    /* every input byte gives at most 3 output bytes (U+FFFD for one bad
     * byte) until a raw control character (6: \u00XX) grows it again */
    TP_GROW(b->data, b->cap, b->len + n * 3 + 8 + SLACK);
    char *o = b->data + b->len;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
#define FAIL()                                                                                                   \
    do {                                                                                                         \
        b->len = mark;                                                                                           \
        if (b->data)                                                                                             \
            b->data[mark] = 0;                                                                                   \
        return false;                                                                                            \
    } while (0)
    while (p < end) {
        unsigned c = *p;
        if (c <= ' ' && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
            p++;
#ifdef __SSE2__
            /* a run (Kineto indents args by a newline and 6 spaces, and
             * pads members with spaces): its end 16 bytes at a time.  Not
             * in json_lex.h's tp_json_ws: the reader calls that on short
             * gaps, and with this in it a 1 GB conversion took 0.12 s more. */
            if (end - p >= 16 && (*p == ' ' || *p == '\n')) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
                unsigned m = ~tp_json_ws_bits16(v) & 0xffff; /* the bytes that are not */
                p += m ? (unsigned)__builtin_ctz(m) : 16;
            }
#endif
            continue;
        }
        bool value_done = false;
        switch (st) {
        case S_VALUE:
        case S_VALUE_OR_CLOSE:
            if (c == '"')
                goto string; /* a string value */
            if (c == ']' && st == S_VALUE_OR_CLOSE)
                goto close; /* an empty array */
            if (c == '{' || c == '[') {
                if (depth >= TP_JSON_MAX_DEPTH)
                    FAIL();
                stack[depth++] = c == '{' ? '}' : ']';
                *o++ = (char)c;
                p++;
                st = c == '{' ? S_KEY_OR_CLOSE : S_VALUE_OR_CLOSE;
            } else {
                const unsigned char *q = token_end(p, end);
                if (!q)
                    FAIL();
                o = copy_short(o, p, end, (size_t)(q - p));
                p = q;
                value_done = true;
            }
            break;
        case S_KEY:
        case S_KEY_OR_CLOSE:
            if (c == '"')
                goto string; /* a key */
            if (c == '}' && st == S_KEY_OR_CLOSE)
                goto close; /* an empty object */
            FAIL();
        case S_COLON:
            if (c != ':')
                FAIL();
            *o++ = ':';
            p++;
            st = S_VALUE;
            break;
        case S_COMMA_OR_CLOSE:
            if (c == ',') {
                *o++ = ',';
                p++;
                st = stack[depth - 1] == '}' ? S_KEY : S_VALUE;
            } else if ((c == '}' || c == ']') && depth > (mode != TP_MIN_VALUE) && stack[depth - 1] == (char)c) {
                goto close;
            } else
                FAIL();
            break;
        default: /* S_END: nothing may follow the value */
            FAIL();
        }
        if (value_done)
            st = depth == 0 ? S_END : S_COMMA_OR_CLOSE;
        continue;
    close: /* c ends the innermost object or array (the states check which) */
        depth--;
        *o++ = (char)c;
        p++;
        st = depth == 0 ? S_END : S_COMMA_OR_CLOSE;
        continue;
    string: {
        bool is_key = st == S_KEY || st == S_KEY_OR_CLOSE;
        *o++ = '"';
        p++;
        for (;;) {
            /* plain ASCII: stored 16 bytes at a time, the end found in the
             * same load (what json_lex.h's tp_json_plain_end tests) */
#ifdef __SSE2__
            const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
            while (end - p >= 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
                _mm_storeu_si128((__m128i *)(void *)o, v);
                __m128i m = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)));
                unsigned mask = (unsigned)_mm_movemask_epi8(m);
                if (mask) {
                    unsigned k = (unsigned)__builtin_ctz(mask);
                    p += k;
                    o += k;
                    goto special;
                }
                p += 16;
                o += 16;
            }
#endif
            while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
                *o++ = (char)*p++;
#ifdef __SSE2__
        special:
#endif
            if (p >= end)
                FAIL(); /* unterminated string */
            c = *p;
            if (c == '"') {
                *o++ = '"';
                p++;
                break;
            }
            if (c == '\\') {
                size_t k = tp_json_escape_len((const char *)p, (size_t)(end - p));
                if (!k)
                    FAIL(); /* not one of JSON's escapes */
                memcpy(o, p, k);
                o += k;
                p += k;
            } else if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                size_t at = (size_t)(o - b->data);
                b->len = at;
                TP_GROW(b->data, b->cap, b->len + (size_t)(end - p) * 6 + 8 + SLACK);
                o = b->data + at;
                *o++ = '\\';
                *o++ = 'u';
                *o++ = '0';
                *o++ = '0';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
                p++;
            } else {
                size_t k = tp_utf8_seq_len(p, (size_t)(end - p));
                if (k) {
                    memcpy(o, p, k);
                    o += k;
                    p += k;
                } else {
                    memcpy(o, "\xEF\xBF\xBD", 3);
                    o += 3;
                    p++;
                    bad++;
                }
            }
        }
        if (is_key)
            st = S_COLON;
        else
            st = depth == 0 ? S_END : S_COMMA_OR_CLOSE;
    }
    }
    bool complete = mode == TP_MIN_VALUE ? st == S_END
                                         : (st == S_COMMA_OR_CLOSE && depth == 1) || (mode == TP_MIN_MEMBERS && n == 0);
    if (!complete)
        FAIL();
#undef FAIL
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
    if (bad_utf8)
        *bad_utf8 += bad;
    return true;
}
