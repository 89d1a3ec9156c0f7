/* units.c: durations and counts for people (units.h).  Integer arithmetic
 * only, so a value prints the same on every machine. */
#include "render/text/units.h"

#include <stdio.h>
#include <string.h>

static const uint64_t per[] = {1, 1000, 1000000, 1000000000};

/* v with a comma every three digits from the right. */
static void group(char *buf, size_t n, uint64_t v)
{
    char d[32];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    if (n)
        buf[o < n ? o : n - 1] = 0;
}

void tp_fmt_count(char *buf, size_t n, uint64_t v) { group(buf, n, v); }

static uint64_t mag(int64_t ns) { return ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns; }

/* |ns| in thousandths of `unit`, rounded half away from zero (whole ns for ns). */
static uint64_t milli(uint64_t a, int unit)
{
    if (unit == 0)
        return a * 1000;
    return (uint64_t)(((unsigned __int128)a * 2000 + per[unit]) / (2 * (unsigned __int128)per[unit]));
}

int tp_dur_unit(int64_t ns)
{
    uint64_t a = mag(ns);
    int u = a < 1000 ? 0 : a < 1000000 ? 1 : a < 1000000000 ? 2 : 3;
    if (u > 0 && u < 3 && milli(a, u) >= 1000000)
        u++; /* 999.9996 us rounds to 1000.000: 1.000 ms */
    return u;
}

const char *tp_dur_unit_name(int unit)
{
    static const char *const name[] = {"ns", "us", "ms", "s"};
    return unit >= 0 && unit < 4 ? name[unit] : "?";
}

void tp_fmt_dur_in(char *buf, size_t n, int64_t ns, int unit)
{
    if (unit < 0 || unit > 3)
        unit = 0;
    uint64_t m = milli(mag(ns), unit);
    char ip[32];
    group(ip, sizeof ip, m / 1000);
    const char *neg = ns < 0 && m ? "-" : "";
    if (unit == 0)
        snprintf(buf, n, "%s%s", neg, ip);
    else
        snprintf(buf, n, "%s%s.%03llu", neg, ip, (unsigned long long)(m % 1000));
}

void tp_fmt_dur_sep(char *buf, size_t n, int64_t ns, const char *sep)
{
    int u = tp_dur_unit(ns);
    char num[48];
    tp_fmt_dur_in(num, sizeof num, ns, u);
    size_t o = 0; /* num, sep, unit: copied by hand, cut at n - 1 like snprintf */
    for (const char *part[] = {num, sep, tp_dur_unit_name(u)}, **p = part; p < part + 3; p++)
        for (const char *c = *p; *c && o + 1 < n; c++)
            buf[o++] = *c;
    if (n)
        buf[o] = 0;
}

void tp_fmt_dur_delta(char *buf, size_t n, int64_t ns, const char *sep)
{
    char t[48];
    tp_fmt_dur_sep(t, sizeof t, ns < 0 ? (ns == INT64_MIN ? INT64_MAX : -ns) : ns, sep);
    snprintf(buf, n, "%s%s", ns < 0 ? "-" : ns > 0 ? "+" : "", t);
}

void tp_fmt_dur_sig(char *buf, size_t n, int64_t ns, int64_t ref_ns, const char *sep)
{
    int u = tp_dur_unit(ref_ns);
    uint64_t r = milli(mag(ref_ns), u) / 1000; /* ref's integer part in its unit: 1 to 3 digits */
    int decimals = u == 0 ? 0 : r >= 100 ? 0 : r >= 10 ? 1 : 2; /* three significant digits of ref */
    static const uint64_t per_unit[] = {1, 1000, 1000000, 1000000000};
    uint64_t scale = decimals == 0 ? 1 : decimals == 1 ? 10 : 100;
    /* once from the exact ns (rounding the thousandths first rounded 874.5 us to 0.88 ms), half away from zero */
    uint64_t m = (uint64_t)(((unsigned __int128)mag(ns) * scale + per_unit[u] / 2) / per_unit[u]);
    char ip[32];
    group(ip, sizeof ip, m / scale);
    const char *neg = ns < 0 && m ? "-" : "";
    if (decimals == 0 || u == 0)
        snprintf(buf, n, "%s%s%s%s", neg, ip, sep, tp_dur_unit_name(u));
    else
        snprintf(buf, n, "%s%s.%0*llu%s%s", neg, ip, decimals, (unsigned long long)(m % scale), sep,
                 tp_dur_unit_name(u));
}
