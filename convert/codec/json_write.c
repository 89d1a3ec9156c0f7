/* json_write.c: JSON string escaping and exact decimal formatting. */
#include "convert/codec/json_write.h"
#include "convert/codec/json_lex.h"

#include <string.h>

size_t tp_utf8_seq_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        min = 0x10000;
    } else
        return 0;
    if (avail < n)
        return 0;
    unsigned cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Copy the UTF-8 sequence at p to o, or U+FFFD for one byte that does not
 * start a valid one (counted in *bad_utf8).  Returns the bytes consumed; *o
 * moves past what was written (at most 4 bytes).  The one repair rule of
 * every output (JSON strings, CSV, text). */
static size_t put_utf8_seq(char **o, const unsigned char *p, size_t avail, uint64_t *bad_utf8)
{
    size_t n = tp_utf8_seq_len(p, avail);
    if (n) {
        memcpy(*o, p, n);
        *o += n;
        return n;
    }
    memcpy(*o, "\xEF\xBF\xBD", 3); /* U+FFFD */
    *o += 3;
    if (bad_utf8)
        ++*bad_utf8;
    return 1;
}

void tp_buf_put_utf8(tp_buf *b, const char *s, size_t len, uint64_t *bad_utf8)
{
    TP_GROW(b->data, b->cap, b->len + len * 3 + 1);
    char *o = b->data + b->len;
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        if (*p < 0x80)
            *o++ = (char)*p++;
        else
            p += put_utf8_seq(&o, p, (size_t)(end - p), bad_utf8);
    }
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

void tp_json_put_string(tp_buf *b, const char *s, size_t len, uint64_t *bad_utf8)
{
    static const char hex[] = "0123456789abcdef";
    /* worst case: every byte becomes \u00XX (6) or U+FFFD (3 bytes) */
    TP_GROW(b->data, b->cap, b->len + len * 6 + 3);
    char *o = b->data + b->len;
    *o++ = '"';
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        const unsigned char *q = (const unsigned char *)tp_json_plain_end((const char *)p, (const char *)end);
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        p = q;
        if (p >= end)
            break;
        unsigned c = *p;
        if (c < 0x80) {
            *o++ = '\\';
            switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '\n': *o++ = 'n'; break;
            case '\t': *o++ = 't'; break;
            case '\r': *o++ = 'r'; break;
            case '\b': *o++ = 'b'; break;
            case '\f': *o++ = 'f'; break;
            default:
                *o++ = 'u';
                *o++ = '0';
                *o++ = '0';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
            }
            p++;
        } else {
            p += put_utf8_seq(&o, p, (size_t)(end - p), bad_utf8);
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

/* "00" "01" ... "99": two digits per division (writers format every ts and dur) */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Write the decimal digits of v backwards ending at p: exactly `width`
 * digits (zero-padded) when width > 0, else as many as v needs (at least
 * one).  Returns the new start. */
static char *put_digits_back(char *p, uint64_t v, int width)
{
    int n = 0;
    while (v >= 100 || (width && n + 2 <= width && v)) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digit_pairs[k + 1];
        *--p = digit_pairs[k];
        n += 2;
    }
    if (v >= 10) {
        unsigned k = (unsigned)v * 2;
        *--p = digit_pairs[k + 1];
        *--p = digit_pairs[k];
        n += 2;
    } else if (v || n == 0 || (width && n < width)) {
        *--p = (char)('0' + v);
        n++;
    }
    while (n < width) {
        *--p = '0';
        n++;
    }
    return p;
}

size_t tp_format_fixed(char *out, int64_t value, int decimals)
{
    static const uint64_t pow10[19] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                       10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                       100000000000ull, 1000000000000ull, 10000000000000ull,
                                       100000000000000ull, 1000000000000000ull, 10000000000000000ull,
                                       100000000000000000ull, 1000000000000000000ull};
    if (decimals < 0)
        decimals = 0;
    if (decimals > 18)
        decimals = 18;
    bool neg = value < 0;
    /* work in unsigned to handle INT64_MIN */
    uint64_t v = neg ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    char tmp[48], *end = tmp + sizeof tmp, *p = end;
    if (decimals) {
        p = put_digits_back(p, v % pow10[decimals], decimals);
        *--p = '.';
        v /= pow10[decimals];
    }
    p = put_digits_back(p, v, 0);
    if (neg)
        *--p = '-';
    size_t w = (size_t)(end - p);
    memcpy(out, p, w);
    out[w] = 0;
    return w;
}

void tp_buf_put_uint(tp_buf *b, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    TP_GROW(b->data, b->cap, b->len + (size_t)n + 1);
    while (n)
        b->data[b->len++] = tmp[--n];
    b->data[b->len] = 0;
}

void tp_buf_put_int(tp_buf *b, int64_t v)
{
    if (v < 0) {
        tp_buf_putc(b, '-');
        tp_buf_put_uint(b, (uint64_t)0 - (uint64_t)v);
    } else
        tp_buf_put_uint(b, (uint64_t)v);
}

void tp_json_str(tp_buf *b, const char *s) { tp_json_put_string(b, s, strlen(s), NULL); }

void tp_json_str_or_null(tp_buf *b, const char *s)
{
    if (s && *s)
        tp_json_str(b, s);
    else
        tp_buf_puts(b, "null");
}
