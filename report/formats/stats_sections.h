/* stats_sections.h: optional format-specific sections of `stats --json`.
 * A format whose own analysis says more than the generic kernel table (the
 * ExecuTorch Inspector table for ETDump) registers one row here: its key
 * appears as one more top-level member of the JSON object, computed from
 * what the reader kept (tp_trace.format_data) or from the input file. */
#ifndef TP_STATS_SECTIONS_H
#define TP_STATS_SECTIONS_H

#include "convert/read/formats.h"

typedef struct tp_stats_section {
    const char *format; /* tp_format name */
    const char *key;    /* top-level JSON key */
    /* Append one JSON value to out; -1 with err filled on failure.  t is the
     * loaded trace (its format_data when the reader kept some). */
    int (*json)(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err);
} tp_stats_section;

/* Append ",\"KEY\":VALUE" for every section of t->format (nothing for other
 * formats).  Returns 0, or -1 with err filled. */
int tp_stats_sections_json(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err);

#endif
