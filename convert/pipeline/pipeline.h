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

#include "convert/read/formats.h"

typedef struct tp_load_opts {
    tp_read_opts read;
    const char *format;      /* force a format by name, or NULL to detect */
    bool no_links;           /* skip linking (stats without --steps does not need it) */
    bool no_derive;          /* skip step 5: the report reads no derived line it did not load */
    bool has_steps;          /* --steps A:B given */
    /* The trace will be written (convert): launch flows the reader noted as
     * ids (read.flows_as_ids) are dropped with the flow events when linking
     * replaces them, and when nothing links (they are then written) the
     * input is read again with every flow an event.  Noting is left off
     * where that cannot be done the same way: standard input or a pipe,
     * --drop-cat, --min-dur, --steps. */
    bool written;
    int64_t step_first, step_last;
    const char *drop_cats[16]; /* --drop-cat CAT (repeatable): events of these categories go */
    size_t ndrop_cats;
    int64_t min_dur_ns;      /* --min-dur: slices shorter than this go (0 = keep all) */
    /* Graph capture (graph_capture.h), last step of a linked load: the
     * --graph-capture FILE options (repeatable), and whether to look for a
     * capture_traces/ folder beside the input when none is given (the
     * summary commands); what the merge did goes to *capture (NULL: no merge). */
    const char *captures[16];
    size_t ncaptures;
    bool discover_captures;
    struct tp_capture_stats *capture;
} tp_load_opts;

/* If argv[*i] is one of the load options below, apply it, advance *i past
 * its value and return 1; -1 on a bad value (message printed); 0 otherwise. */
int tp_parse_load_option(int argc, char **argv, int *i, tp_load_opts *lo);

/* Help text for those options, shared by every command's help. */
#define TP_LOAD_OPTIONS_HELP                                                                  \
    "  --format NAME       input format instead of detecting it (see `tracepress formats`)\n" \
    "  --steps A:B         keep only iterations A..B (ProfilerStep#A..#B); A: or :B open-ended\n" \
    "  --drop-cat CAT      leave out events of category CAT (repeatable)\n"                 \
    "  --min-dur DUR       leave out slices shorter than DUR (1us, 500ns, 2ms)\n"            \
    "  --strict            treat lenient repairs (bad UTF-8, trailing commas, ...) as errors\n" \
"  --graph-capture F   a trace recorded while the CUDA/HIP graphs were captured: the replayed\n" \
    "                      kernels get the captured ops and shapes (repeatable; default: the files\n" \
    "                      of a capture_traces/ folder beside the trace; docs/REPORT.md \"Graph capture\")\n" \
    "  --max-inflate N     refuse gzip input that expands more than N-fold (default 100; 0: no limit)\n" \
    "  --derive-rule YEAR  merge rule of derived lines: 2024 (default), 2022, 2020 (TF 2.4's)\n" \
    "  --                  what follows is a file, even if it starts with '-'\n"                \
    "  (each format's own options are listed under \"format options\" below)\n"

/* "1us", "250ns", "1.5ms", "2s" (a bare number is ns) to ns; -1 if malformed. */
int tp_parse_duration(const char *s, int64_t *ns);

/* Parse "A:B", "A:", ":B" or "N" into first/last (INT64_MIN/MAX for open ends). */
int tp_parse_steps(const char *s, int64_t *first, int64_t *last);

/* Load PATH into t (initialised by the caller with tp_trace_init).  Returns 0,
 * or -1 with err filled (the caller prints it with tp_report_error). */
int tp_load(const char *path, const tp_load_opts *o, tp_trace *t, tp_err *err);
/* "tracepress: PATH: warning: what: N, what: N" when the reader counted
 * warnings (what it skipped or repaired); nothing otherwise.  For commands
 * without convert's summary line (stats, report). */
void tp_print_warnings(const char *path, const tp_trace *t);

#endif
