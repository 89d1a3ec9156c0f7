/* json_write.c: JSON string escaping and exact decimal formatting. */
#include "json_write.h"

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

/* Bytes that need no escaping and are plain ASCII: 8 at a time. */
static size_t plain_run(const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        /* a byte >= 0x80, < 0x20, '"' or '\\' stops the run */
        uint64_t bad = (w | (w - ones * 0x20) | ((w ^ ones * '"') - ones) | ((w ^ ones * '\\') - ones)) & highs;
        if (bad)
            break;
    }
    while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\')
        i++;
    return i;
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
        size_t run = plain_run(p, (size_t)(end - p)); /* most strings are one plain run */
        memcpy(o, p, run);
        o += run;
        p += run;
        if (p >= end)
            break;
        unsigned c = *p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            *o++ = (char)c;
            p++;
        } else if (c < 0x80) {
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
            size_t n = tp_utf8_seq_len(p, (size_t)(end - p));
            if (n) {
                memcpy(o, p, n);
                o += n;
                p += n;
            } else {
                memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
                o += 3;
                p++;
                if (bad_utf8)
                    ++*bad_utf8;
            }
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

size_t tp_format_fixed(char *out, int64_t value, int decimals)
{
    if (decimals == 3 && value >= 0) { /* the writers' microseconds from ns: two digits at a time */
        uint64_t ip = (uint64_t)value / 1000, frac = (uint64_t)value % 1000;
        char tmp[32];
        int n = 32;
        tmp[--n] = (char)('0' + frac % 10);
        tmp[--n] = (char)('0' + frac / 10 % 10);
        tmp[--n] = (char)('0' + frac / 100);
        tmp[--n] = '.';
        while (ip >= 100) {
            const char *d = digit_pairs + 2 * (ip % 100);
            ip /= 100;
            tmp[--n] = d[1];
            tmp[--n] = d[0];
        }
        if (ip >= 10) {
            tmp[--n] = digit_pairs[2 * ip + 1];
            tmp[--n] = digit_pairs[2 * ip];
        } else
            tmp[--n] = (char)('0' + ip);
        size_t w = (size_t)(32 - n);
        memcpy(out, tmp + n, w);
        out[w] = 0;
        return w;
    }
    char tmp[48];
    size_t n = 0;
    bool neg = value < 0;
    /* work in unsigned to handle INT64_MIN */
    uint64_t v = neg ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    if (decimals < 0)
        decimals = 0;
    if (decimals > 18)
        decimals = 18;
    int d = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
        d++;
        if (d == decimals)
            tmp[n++] = '.';
    } while (v || d <= decimals);
    size_t w = 0;
    if (neg)
        out[w++] = '-';
    while (n)
        out[w++] = tmp[--n];
    out[w] = 0;
    return w;
}
