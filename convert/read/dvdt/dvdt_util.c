/* dvdt_util.c: small text parsers and writers of the dv/dt reader (ISO and
 * glog times, little-endian hex, pointer handles, printf-free numbers).
 * No state. */
#include "convert/read/dvdt/dvdt.h"

#include <stdlib.h>
#include <string.h>


int64_t dv_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    /* Howard Hinnant's days_from_civil, proleptic Gregorian */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int dv_digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "HH:MM:SS[.f{1,9}]" at s, exactly len chars -> ns of the day */
int dv_parse_clock(const char *s, size_t len, int64_t *ns)
{
    int hh, mm, ss;
    if (len < 8 || s[2] != ':' || s[5] != ':' || dv_digits(s, 2, &hh) || dv_digits(s + 3, 2, &mm) ||
        dv_digits(s + 6, 2, &ss) || hh > 23 || mm > 59 || ss > 60)
        return -1;
    int64_t frac = 0;
    size_t i = 8;
    if (i < len) {
        if (s[i] != '.' || len - i - 1 < 1 || len - i - 1 > 9)
            return -1;
        int nd = 0;
        for (i++; i < len; i++, nd++) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            frac = frac * 10 + (s[i] - '0');
        }
        for (; nd < 9; nd++)
            frac *= 10;
    }
    *ns = ((int64_t)hh * 3600 + mm * 60 + ss) * 1000000000LL + frac;
    return 0;
}

int dv_parse_iso(const char *s, size_t len, int64_t *ns)
{
    int y, mo, d;
    /* years limited so that every sum of times below stays inside int64 ns */
    if (len < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || dv_digits(s, 4, &y) || dv_digits(s + 5, 2, &mo) ||
        dv_digits(s + 8, 2, &d) || y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31)
        return -1;
    int64_t tod;
    if (dv_parse_clock(s + 11, len - 11, &tod))
        return -1;
    *ns = dv_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400000000000LL + tod;
    return 0;
}

int dv_hex_le(const char *s, size_t len, uint64_t *out)
{
    if (len % 2 || len > 16)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i += 2) {
        int hi = tp_hex_digit(s[i]), lo = tp_hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        v |= (uint64_t)(hi * 16 + lo) << (4 * i); /* byte i/2 is bits 8*(i/2) */
    }
    *out = v;
    return 0;
}

bool dv_all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tp_hex_digit(s[i]) < 0)
            return false;
    return true;
}

/* "0x55a2b3dc00" / "0" / "(nil)" -> value; -1 if not a pointer. */
int dv_parse_ptr(const tp_jv *v, uint64_t *out)
{
    size_t n;
    const char *s = tp_jv_str(v, &n);
    if (!s)
        return -1;
    if (n == 5 && memcmp(s, "(nil)", 5) == 0) {
        *out = 0;
        return 0;
    }
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int h = tp_hex_digit(s[i]);
        if (h < 0)
            return -1;
        x = x * 16 + (unsigned)h;
    }
    *out = x;
    return 0;
}

/* printf-free integer output: args are built for every call of big traces */
void dv_put_u64(tp_buf *b, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char out[24];
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    tp_buf_put(b, out, (size_t)n);
}

void dv_put_i64(tp_buf *b, int64_t v)
{
    if (v < 0) {
        tp_buf_putc(b, '-');
        dv_put_u64(b, (uint64_t)0 - (uint64_t)v);
    } else
        dv_put_u64(b, (uint64_t)v);
}

void dv_put_hex(tp_buf *b, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char out[18];
    int n = 18;
    do
        out[--n] = hex[v & 15];
    while ((v >>= 4) != 0);
    out[--n] = 'x';
    out[--n] = '0';
    tp_buf_put(b, out + n, (size_t)(18 - n));
}

