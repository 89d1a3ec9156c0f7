/* etdump_opts.h: ExecuTorch's own options (tp_format_etdump.options:
 * --etrecord, --time-scale), read by the reader and the report's ETDump
 * pages and stats section. */
#ifndef TP_ETDUMP_OPTS_H
#define TP_ETDUMP_OPTS_H

#include "convert/read/formats.h"

typedef struct tp_etdump_opts {
    const char *etrecord;   /* the program's ETRecord side-car, or NULL */
    const char *time_scale; /* the ETDump's time unit ("ns", "us", "ms", "s", "cycles:HZ"), or NULL (ns) */
} tp_etdump_opts;

static inline const tp_etdump_opts *tp_etdump_opts_of(const tp_read_opts *o)
{
    static const tp_etdump_opts defaults;
    const tp_etdump_opts *e = tp_format_opts(o, &tp_format_etdump);
    return e ? e : &defaults;
}

#endif
