/* axis.c: units, number formatting and tick placement. */
#include "render/charts/axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tp_time_unit tp_time_unit_for(double ns)
{
    double a = fabs(ns);
    if (a < 1e3)
        return (tp_time_unit){"ns", 1};
    if (a < 1e6)
        return (tp_time_unit){"us", 1e3};
    if (a < 1e9)
        return (tp_time_unit){"ms", 1e6};
    return (tp_time_unit){"s", 1e9};
}

/* Print v with `dec` decimals, then drop trailing zeros and the dot. */
static void fmt_trim(char *buf, size_t n, double v, int dec)
{
    snprintf(buf, n, "%.*f", dec < 0 ? 0 : dec, v);
    if (strchr(buf, '.')) {
        size_t l = strlen(buf);
        while (l > 0 && buf[l - 1] == '0')
            buf[--l] = 0;
        if (l > 0 && buf[l - 1] == '.')
            buf[--l] = 0;
    }
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
}

void tp_format_duration(char *buf, size_t n, double ns)
{
    if (ns == 0 || !isfinite(ns)) {
        snprintf(buf, n, "0 ns");
        return;
    }
    tp_time_unit u = tp_time_unit_for(ns);
    double v = ns / u.ns;
    /* rounding can carry into the next unit: 999.96 us -> 1 ms */
    if (fabs(v) >= 999.95 && u.ns < 1e9) {
        u = tp_time_unit_for(ns * 1.001);
        v = ns / u.ns;
    }
    int dec = fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2;
    if (u.ns == 1)
        dec = 0; /* integer ns input: no fractions of a ns */
    char num[32];
    fmt_trim(num, sizeof num, v, dec);
    snprintf(buf, n, "%s %s", num, u.name);
}

static double nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double e = pow(10, floor(log10(raw)));
    double f = raw / e;
    double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return m * e;
}

void tp_ticks_linear(double max, int target, tp_ticks *t)
{
    memset(t, 0, sizeof *t);
    if (!(max > 0) || !isfinite(max))
        max = 1; /* all zero (or no data): a 0..1 ns axis */
    if (target < 1)
        target = 1;
    if (target > TP_MAX_TICKS - 2)
        target = TP_MAX_TICKS - 2;
    double step = nice_step(max / target);
    if (step < 1)
        step = 1; /* integer ns: no ticks between nanoseconds */
    double top = ceil(max / step - 1e-9) * step;
    int n = (int)llround(top / step) + 1;
    while (n > TP_MAX_TICKS) { /* only when step was clamped to 1 ns */
        step *= 2;
        top = ceil(max / step - 1e-9) * step;
        n = (int)llround(top / step) + 1;
    }
    t->lo = 0;
    t->hi = top;
    t->n = n;
    tp_time_unit u = tp_time_unit_for(top);
    double su = step / u.ns;
    int dec = su >= 1 ? 0 : (int)ceil(-log10(su) - 1e-9);
    for (int i = 0; i < n; i++) {
        t->v[i] = step * i;
        if (i == 0) {
            strcpy(t->label[0], "0");
            continue;
        }
        char num[20];
        fmt_trim(num, sizeof num, t->v[i] / u.ns, dec);
        snprintf(t->label[i], sizeof t->label[i], "%s %s", num, u.name);
    }
}

void tp_ticks_log(double min, double max, tp_ticks *t)
{
    memset(t, 0, sizeof *t);
    if (!(min >= 1) || !isfinite(min))
        min = 1;
    if (!(max >= min) || !isfinite(max))
        max = min;
    int d0 = (int)floor(log10(min) + 1e-9), d1 = (int)ceil(log10(max) - 1e-9);
    if (d1 <= d0)
        d1 = d0 + 1;
    if (d1 - d0 + 1 > TP_MAX_TICKS)
        d0 = d1 - (TP_MAX_TICKS - 1);
    t->log = 1;
    t->lo = pow(10, d0);
    t->hi = pow(10, d1);
    for (int d = d0; d <= d1; d++) {
        double v = pow(10, d);
        t->v[t->n] = v;
        tp_time_unit u = tp_time_unit_for(v);
        char num[20];
        fmt_trim(num, sizeof num, v / u.ns, 0);
        snprintf(t->label[t->n], sizeof t->label[t->n], "%s %s", num, u.name);
        t->n++;
    }
}

double tp_ticks_pos(const tp_ticks *t, double v)
{
    double p;
    if (t->log) {
        if (!(v >= t->lo))
            return 0;
        p = (log10(v) - log10(t->lo)) / (log10(t->hi) - log10(t->lo));
    } else {
        p = t->hi > t->lo ? (v - t->lo) / (t->hi - t->lo) : 0;
    }
    return p < 0 ? 0 : p > 1 ? 1 : p;
}
