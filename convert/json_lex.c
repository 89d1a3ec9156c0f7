/* json_lex.c: JSON token scanning and exact decimal parsing. */
#include "json_lex.h"
#include "json_write.h"

#include <string.h>

int tp_json_string(const char *p, const char *end, const char **s, size_t *len, bool *escaped,
                   const char **next, const char **why)
{
    const char *q = p + 1;
    bool esc = false;
    *escaped = false;
    for (;;) {
        /* fast scan: memchr for the quote, then look for backslashes before it */
        const char *quote = memchr(q, '"', (size_t)(end - q));
        if (!quote)
            return TP_JL_MORE;
        const char *bs = memchr(q, '\\', (size_t)(quote - q));
        if (!bs) {
            /* control characters inside strings are invalid JSON but common in
             * broken traces; we accept them (the writer escapes them). */
            *s = p + 1;
            *len = (size_t)(quote - (p + 1));
            *escaped = esc;
            *next = quote + 1;
            return TP_JL_OK;
        }
        esc = true;
        /* skip the escape: \x (and \uXXXX's digits are plain) */
        if (bs + 1 >= end)
            return TP_JL_MORE;
        q = bs + 2;
        if (q > end)
            return TP_JL_MORE;
        (void)why;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_u4(const char *s, size_t left)
{
    if (left < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
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

static int skip_literal(const char *p, const char *end, const char *lit, const char **next, const char **why)
{
    size_t n = strlen(lit);
    size_t have = (size_t)(end - p);
    if (have < n)
        return memcmp(p, lit, have) == 0 ? TP_JL_MORE : (*why = "invalid literal", TP_JL_BAD);
    if (memcmp(p, lit, n) != 0) {
        *why = "unexpected character";
        return TP_JL_BAD;
    }
    *next = p + n;
    return TP_JL_OK;
}

int tp_json_skip(const char *p, const char *end, const char **next, const char **why)
{
    /* iterative, with an explicit depth counter: deep nesting is an error, not a stack overflow */
    int depth = 0;
    p = tp_json_ws(p, end);
    for (;;) {
        if (p >= end)
            return TP_JL_MORE;
        char c = *p;
        if (c == '{' || c == '[') {
            if (++depth > TP_JSON_MAX_DEPTH) {
                *why = "nesting deeper than 512 levels";
                return TP_JL_BAD;
            }
            p++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                *why = "unexpected closing bracket";
                return TP_JL_BAD;
            }
            depth--;
            p++;
        } else if (c == '"') {
            const char *s;
            size_t len;
            bool esc;
            int r = tp_json_string(p, end, &s, &len, &esc, &p, why);
            if (r)
                return r;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t len;
            int r = tp_json_number(p, end, &len, why);
            if (r)
                return r;
            p += len;
        } else if (c == 't' || c == 'f' || c == 'n') {
            int r = skip_literal(p, end, c == 't' ? "true" : c == 'f' ? "false" : "null", &p, why);
            if (r)
                return r;
        } else if (c == ',' || c == ':') {
            if (depth == 0) {
                *why = "unexpected separator";
                return TP_JL_BAD;
            }
            p++;
        } else {
            *why = "unexpected character";
            return TP_JL_BAD;
        }
        p = tp_json_ws(p, end);
        if (depth == 0) {
            *next = p;
            return TP_JL_OK;
        }
    }
}

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

int tp_parse_fixed(const char *s, size_t len, int decimals, int64_t *out, const char **why)
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
