/* formats.h: the table of input formats.  Each reader is one tp_format:
 * a probe that says how sure it is that the first bytes are its format, and
 * a read function that fills a tp_trace.  `tracepress formats` prints this
 * table; format detection asks every probe and takes the most confident.
 * Adding a reader: docs/ARCHITECTURE.md "Adding a reader". */
#ifndef TP_FORMATS_H
#define TP_FORMATS_H

#include "convert/io/input.h"
#include "convert/model/model.h"

/* Options every reader may look at (set from the command line). */
typedef struct tp_read_opts {
    bool strict;             /* lenient problems (bad UTF-8, trailing commas...) become errors */
    bool keep_args;          /* keep event args (convert) or skip them (stats, report) */
    bool no_corr;            /* correlation ids are not needed (nothing will be linked, set for `stats`
                              * only): may skip them, and events that only draw links (Chrome flow
                              * events, see chrome_read.c keep_flow) need not all be kept */
    bool rederive;           /* rebuild derived lines even when the file has them (XPlane) */
    bool framework_names;    /* derived lines named "Framework Ops"/"Framework Name Scope" (--line-names framework) */
    int derive_era;          /* derived-line merge rule: 0 = current (2024), 2022 or 2020 (--derive-rule) */
    bool with_source;        /* keep kernel sources (PlaidML) */
    bool report_data;        /* keep what the report's format pages need in t->format_data (XPlane) */
    const char *etrecord;    /* ETDump: optional ETRecord side-car */
    const char *time_scale;  /* ETDump: source time unit ("ns", "us", "ms", "s", "cycles:HZ") */
    /* When set, a reader that derives lines while reading (XPlane) leaves
     * them to the caller instead: it moves its derivation input there (the
     * pipeline builds the lines beside linking, derive.h) */
    struct tp_derive_later *derive_later;
} tp_read_opts;

typedef struct tp_format {
    const char *name;        /* short name for --format and stats "format" */
    const char *description; /* one line for `tracepress formats` */
    const char *extensions;  /* typical file names, for help text */
    /* 0 (not mine) .. 100 (certain), from the first (decompressed) bytes and the name */
    int (*probe)(const unsigned char *head, size_t n, const char *path);
    /* Fill t; on bad input: tp_fail + return -1.  Sets t->format. */
    int (*read)(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err);
} tp_format;

extern const tp_format tp_format_chrome; /* Chrome trace JSON, PyTorch profiler / Kineto */
extern const tp_format tp_format_xplane; /* TensorFlow / JAX XSpace (convert/read/xplane/xplane_read.c) */
extern const tp_format tp_format_etdump; /* ExecuTorch ETDump (convert/read/etdump/etdump_read.c) */
extern const tp_format tp_format_plaidml; /* PlaidML / Vertex.AI event log (eventlog.gz) */
extern const tp_format tp_format_dvdt;   /* dv/dt prof OpenCL traces and CK experiment points */

/* NULL-terminated list of all formats, in `tracepress formats` order. */
extern const tp_format *const tp_formats[];

const tp_format *tp_format_find(const char *name);
/* The most confident probe, or NULL (err says what the file looks like). */
const tp_format *tp_format_detect(tp_input *in, tp_err *err);

#endif
