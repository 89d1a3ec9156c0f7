/* units.h: the one way durations and counts are written for people (every
 * page, PNG chart, summary.md, diff.md, the job report's summary.md).
 * summary.json, diff.json, CSV and `stats` text keep exact integers.
 *
 * The rule (docs/REPORT.md "Numbers"): the unit is the one that gives the
 * integer part 1 to 3 digits (ns, us, ms, s; seconds go on past 999), with
 * three decimals, whole nanoseconds: 999 ns, 1.235 us, 12.346 ms, 43.459 s,
 * 1,234.568 s.  Rounding is half away from zero and may carry into the next
 * unit (999.9996 us -> 1.000 ms).  A table column takes the unit of its
 * largest value and names it in its header ("total (ms)").  Integer parts
 * of four digits or more take thousands separators: 1,234,567. */
#ifndef TP_UNITS_H
#define TP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* U+00A0, for Markdown cells that must not wrap between number and unit. */
#define TP_NBSP "\xC2\xA0"

/* The unit for |ns|: 0 ns, 1 us, 2 ms, 3 s. */
int tp_dur_unit(int64_t ns);
const char *tp_dur_unit_name(int unit); /* "ns", "us", "ms", "s" */
/* ns in `unit` without the unit's name: "12.346", "1,234.568", "87" (ns). */
void tp_fmt_dur_in(char *buf, size_t n, int64_t ns, int unit);
/* "12.346 ms"; sep goes between number and unit (" " or TP_NBSP). */
void tp_fmt_dur_sep(char *buf, size_t n, int64_t ns, const char *sep);
static inline void tp_fmt_dur(char *buf, size_t n, int64_t ns) { tp_fmt_dur_sep(buf, n, ns, " "); }
/* A signed change: "+1.235 ms", "-980 ns", "0 ns". */
void tp_fmt_dur_delta(char *buf, size_t n, int64_t ns, const char *sep);
/* A summary figure: ns in the unit of ref_ns with the decimals that give
 * ref_ns three significant digits (ref 19.865 ms: "19.9 ms"; ns 361.215 us
 * beside it: "0.4 ms"; ref 4.426 ms: "0.87 ms"), so a spread reads in its
 * figure's unit and precision (docs/REPORT.md "Numbers"). */
void tp_fmt_dur_sig(char *buf, size_t n, int64_t ns, int64_t ref_ns, const char *sep);
/* "1,234,567". */
void tp_fmt_count(char *buf, size_t n, uint64_t v);

#endif
