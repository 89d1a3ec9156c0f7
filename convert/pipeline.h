/* pipeline.h: loading a trace the way every command does: open, detect the
 * format, read, then the format-independent post-processing:
 *   1. tp_classify: device processes, track roles;
 *   2. tp_link: device event -> launch call by correlation id, launch call ->
 *      innermost enclosing host op on the same thread (events a reader
 *      already linked keep their links);
 *   3. tp_steps: step annotations (ProfilerStep#N, reader-marked steps);
 *   4. --steps A:B filtering;
 *   5. derived lines (derivation engine, when present).
 * Writers and analyses only ever see a trace that went through tp_load. */
#ifndef TP_PIPELINE_H
#define TP_PIPELINE_H

#include "formats.h"

typedef struct tp_load_opts {
    tp_read_opts read;
    const char *format;      /* force a format by name, or NULL to detect */
    bool no_links;           /* skip linking (stats without --steps does not need it) */
    bool has_steps;          /* --steps A:B given */
    int64_t step_first, step_last;
} tp_load_opts;

/* Parse "A:B", "A:", ":B" or "N" into first/last (INT64_MIN/MAX for open ends). */
int tp_parse_steps(const char *s, int64_t *first, int64_t *last);

/* Load PATH into t (initialised by the caller with tp_trace_init).  Returns 0,
 * or -1 with err filled (the caller prints it with tp_report_error). */
int tp_load(const char *path, const tp_load_opts *o, tp_trace *t, tp_err *err);

#endif
