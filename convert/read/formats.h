/* formats.h: the table of input formats.  Each reader is one tp_format:
 * a probe that says how sure it is that the first bytes are its format, and
 * a read function that fills a tp_trace.  `tracepress formats` prints this
 * table; format detection asks every probe and takes the most confident.
 * Adding a reader: docs/ARCHITECTURE.md "Adding a reader". */
#ifndef TP_FORMATS_H
#define TP_FORMATS_H

#include "convert/io/input.h"
#include "convert/model/model.h"

#define TP_MAX_FORMATS 16

/* Options every reader may look at (set from the command line). */
typedef struct tp_read_opts {
    bool strict;             /* lenient problems (bad UTF-8, trailing commas...) become errors */
    bool keep_args;          /* keep event args (convert) or skip them (stats, report) */
    /* With keep_args off: keep the args of the events whose name this
     * accepts all the same (the report: the ops whose recorded shapes the
     * efficiency analysis reads).  NULL: none. */
    bool (*keep_args_of)(const char *name, size_t len);
    bool no_corr;            /* correlation ids are not needed (nothing will be linked, set for `stats`
                              * only): may skip them, and events that only draw links (Chrome flow
                              * events, see chrome_events.c keep_flow) need not all be kept */
    /* Only what `stats --kernels-only` (and --csv) prints is needed: the
     * events counted, the tracks that hold an event (not dropped, not
     * metadata), the steps, the device activities (kernels, copies, fills,
     * syncs: their tracks and processes), the warnings and errors.  A reader
     * may leave out any other event as long as all of these stay as they
     * were (the Chrome reader keeps one event per track and category of the
     * others, chrome_events.c light_event; nsys and rocpd each host thread's
     * first row and the step rows).  tp_load clears it when anything after
     * the read looks at other events: links (--steps), --drop-cat,
     * --min-dur; TP_DEVICE_ONLY=0 clears it too (the tests compare both
     * paths).  Readers that do not know it read everything; it never changes
     * what is printed. */
    bool device_only;
    /* Launch flows as ids (report, stats, diff, a job's ranks, convert of
     * one file: tp_load_opts.written): a reader may note its launch flows (Kineto's "ac2g" 's'/'f'
     * pairs: arrows for a viewer, a fifth of a real trace's events) in
     * t->launch_flows (model.h tp_flow_note: the id, the end, where the
     * event stood) instead of keeping them as events, as long as what reads
     * flows reads the notes too and nothing it writes changes: every track
     * that held an event still holds one, the same warnings, drops and
     * errors, the same strings in the same order (the Chrome reader:
     * chrome_events.c flow_as_id, which leaves --strict to the full path).
     * tp_load clears it when nothing is linked, under --steps and
     * TP_FLOWS_AS_IDS=0 (the tests compare both paths), and for a trace
     * written from standard input or a pipe, or with --drop-cat or --min-dur
     * (tp_load_opts.written). */
    bool flows_as_ids;
    int derive_era;          /* derived-line merge rule: 0 = current (2024), 2022 or 2020 (--derive-rule) */
    bool report_data;        /* keep what the report's format pages need in t->format_data (XPlane) */
    /* Each format's own options (tp_format.options), by its place in
     * tp_formats[]: a pointer to a struct the format defines in its folder,
     * or NULL for its defaults.  Read with tp_format_opts. */
    const void *format_opts[TP_MAX_FORMATS];
    /* Files the formats' options name (tp_format_option.reads_file:
     * --etrecord): inputs of the run too, protected from every output and
     * part of what made an output (batch hashes them). */
    const char *side_inputs[4];
    size_t nside_inputs;
    /* When set, a reader that derives lines while reading (XPlane) leaves
     * them to the caller instead: it moves its derivation input there (the
     * pipeline builds the lines beside linking, derive.h) */
    struct tp_derive_later *derive_later;
} tp_read_opts;

/* An option only some formats read, declared in their row: the command
 * line's load options ask every row (tp_format_option_parse), so nothing
 * outside a format's folder knows its options. */
typedef struct tp_format_option {
    const char *flag;        /* "--etrecord" */
    const char *arg;         /* "FILE" (the option takes a value), or NULL (a flag) */
    const char *help;        /* one line for the commands' help */
    /* Apply the value (NULL for a flag) to the format's options in *slot
     * (set *slot to the format's own struct the first time); 0, or -1 with
     * *why set for a bad value. */
    int (*apply)(const void **slot, const char *value, const char **why);
    bool reads_file;         /* the value names a file the run reads (--etrecord): an input too
                              * (arg "FILE" implies it: a new file option is protected for free) */
} tp_format_option;

/* What the pipeline must know of a format (tp_format.caps). */
enum {
    /* The file may hold derived lines `convert` wrote (Chrome JSON, the form
     * tracepress writes): they are recognised and stay derived lines. */
    TP_FMT_KEEPS_DERIVED_LINES = 1u << 0,
    /* The reader builds its own derived lines (XLA ops, PlaidML programs):
     * the pipeline derives none from launch links. */
    TP_FMT_OWN_DERIVED_LINES = 1u << 1,
};

typedef struct tp_format {
    const char *name;        /* short name for --format and stats "format" */
    const char *description; /* one line for `tracepress formats` */
    const char *extensions;  /* typical file names, for help text */
    /* 0 (not mine) .. 100 (certain), from the first (decompressed) bytes and the name */
    int (*probe)(const unsigned char *head, size_t n, const char *path);
    /* Fill t; on bad input: tp_fail + return -1.  Sets t->format. */
    int (*read)(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err);
    unsigned caps;                     /* TP_FMT_* */
    const tp_format_option *options;   /* its own options, ended by a NULL flag; or NULL */
} tp_format;

extern const tp_format tp_format_chrome; /* Chrome trace JSON, PyTorch profiler / Kineto */
extern const tp_format tp_format_xplane; /* TensorFlow / JAX XSpace (convert/read/xplane/xplane_read.c) */
extern const tp_format tp_format_etdump; /* ExecuTorch ETDump (convert/read/etdump/etdump_read.c) */
extern const tp_format tp_format_plaidml; /* PlaidML / Vertex.AI event log (eventlog.gz) */
extern const tp_format tp_format_dvdt;   /* dv/dt prof OpenCL traces and CK experiment points */
extern const tp_format tp_format_nsys;   /* Nsight Systems SQLite export (convert/read/nsys/) */
extern const tp_format tp_format_rocprof; /* rocprofv3 JSON, rocprofiler-sdk-tool (convert/read/rocprof/) */
extern const tp_format tp_format_rocpd;   /* rocprofv3 rocpd SQLite database (convert/read/nsys/rocpd_read.c) */
extern const tp_format tp_format_pftrace; /* Perfetto protobuf trace (convert/read/pftrace/) */

/* NULL-terminated list of all formats, in `tracepress formats` order. */
extern const tp_format *const tp_formats[];

const tp_format *tp_format_find(const char *name);
/* The format's own options in o (its struct), or NULL for its defaults. */
const void *tp_format_opts(const tp_read_opts *o, const tp_format *f);
void tp_format_opts_set(tp_read_opts *o, const tp_format *f, const void *opts);
/* If argv[*i] is an option of one or more formats, apply it to each of them,
 * advance *i past its value and return 1; -1 on a bad value (message
 * printed); 0 when no format knows it. */
int tp_format_option_parse(int argc, char **argv, int *i, tp_read_opts *o);
/* Help lines for every format's options ("  --flag ARG   help (formats)\n"). */
void tp_format_options_help(FILE *f);
/* The most confident probe, or NULL (err says what the file looks like). */
const tp_format *tp_format_detect(tp_input *in, tp_err *err);

#endif
