/* etdump_stats.h: the ExecuTorch Inspector run on a loaded ETDump trace,
 * for the report's ETDump pages and the `stats --json` section alike. */
#ifndef TP_ETDUMP_STATS_H
#define TP_ETDUMP_STATS_H

#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/formats.h"

/* The Inspector's blocks of trace t read from path: from the decoded file the
 * reader kept (t->format_data), or the file read again (a trace loaded with
 * args); with the ETRecord and time scale of o's ETDump options.  0, or -1
 * with err filled.  *etrecord: whether an ETRecord was given. */
int tp_etdump_inspect_trace(const tp_trace *t, const char *path, const tp_read_opts *o, tp_inspector *in,
                            bool *etrecord, tp_err *err);

/* The `stats --json` section (one JSON value): the Inspector's event blocks,
 * or null for standard input (it cannot be read twice). */
int tp_etdump_stats_json(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err);

#endif
