/* axis.h: time units and "nice" axis ticks for integer-nanosecond data.
 *
 * Units: ns below 1 us, us below 1 ms, ms below 1 s, else s ("us" in ASCII
 * like nsys, so every font and pdftotext show it).  Linear ticks step by
 * 1, 2 or 5 x 10^k and always start at 0; log ticks sit on decades. */
#ifndef TP_AXIS_H
#define TP_AXIS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_time_unit {
    const char *name; /* "ns", "us", "ms", "s" */
    double ns;        /* nanoseconds per unit */
} tp_time_unit;

tp_time_unit tp_time_unit_for(double ns); /* the unit that shows |ns| as 1..999 */

/* "1.23 ms": auto unit, 3 significant digits, trailing zeros dropped. */
void tp_format_duration(char *buf, size_t n, double ns);

#define TP_MAX_TICKS 24
typedef struct tp_ticks {
    int n;
    double v[TP_MAX_TICKS];       /* tick values in ns */
    char label[TP_MAX_TICKS][24]; /* "0", "2.5 ms", "10 us" */
    double lo, hi;                /* axis range (ns); for log: decade bounds */
    int log;
} tp_ticks;

/* Linear ticks covering 0..max (max >= 0) with about `target` intervals. */
void tp_ticks_linear(double max, int target, tp_ticks *t);
/* Decade ticks covering [min,max] (both clamped to >= 1 ns). */
void tp_ticks_log(double min, double max, tp_ticks *t);
/* Position of value v in [0,1] along the axis (clamped). */
double tp_ticks_pos(const tp_ticks *t, double v);

#endif
