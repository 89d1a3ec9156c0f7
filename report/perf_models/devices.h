/* devices.h: the table of device peaks (ANALYSIS.md §3, docs/REPORT.md
 * "Device peaks").
 *
 * The peaks are data: report/perf_models/devices.table (built into the
 * program) and, before it, the entries of a user's file (`--device-spec
 * FILE`, same format).  Each entry names a device, the rules that recognise
 * it in a trace (a name glob, optionally a memory range and a core count)
 * and its dense peak TFLOPS per class and memory bandwidth, each number with
 * its source.  A device the trace describes (convert/model/model.h
 * tp_device_info) resolves to the first entry with a rule that matches it. */
#ifndef TP_DEVICES_H
#define TP_DEVICES_H

#include "convert/model/model.h"

typedef enum tp_peak_class {
    TP_PEAK_MATRIX_FP8,
    TP_PEAK_MATRIX_BF16,
    TP_PEAK_MATRIX_FP16,
    TP_PEAK_MATRIX_TF32,
    TP_PEAK_MATRIX_FP32,
    TP_PEAK_VECTOR_FP32,
    TP_PEAK_CLASSES
} tp_peak_class;
extern const char *const tp_peak_class_names[TP_PEAK_CLASSES]; /* "matrix_fp8", ... "vector_fp32" */

/* One rule: the name glob (fnmatch, case-insensitive, over the whole name)
 * and optional conditions; a condition the trace has no figure for fails. */
typedef struct tp_device_match {
    char *glob;
    double mem_lo, mem_hi;   /* GiB (2^30 bytes), inclusive; mem_hi 0 = no condition */
    int32_t cores_lo, cores_hi; /* inclusive; cores_hi 0 = no condition */
} tp_device_match;

typedef struct tp_device_entry {
    char *id;                /* "H100-SXM5-80GB" */
    char *label;             /* "NVIDIA H100 SXM5 80GB" */
    char *source;            /* the first source's "DOCUMENT <URL>" */
    tp_device_match *match;
    size_t nmatch;
    double tflops[TP_PEAK_CLASSES]; /* 0 = not supported */
    double mem_tbps;         /* 0 = not given */
    bool user;               /* from --device-spec FILE */
} tp_device_entry;

typedef struct tp_device_table {
    tp_device_entry *e;      /* user entries first, then the built-in ones */
    size_t n;
} tp_device_table;

/* The built-in entries, after those of user_file when not NULL (a user entry
 * with a built-in entry's id replaces it).  0 ok; -1 with a one-line reason
 * in err ("offset 120: line 5: ...") for a bad file. */
int tp_device_table_load(tp_device_table *dt, const char *user_file, char *err, size_t errn);
void tp_device_table_free(tp_device_table *dt);
/* For a command's `--device-spec FILE` (NULL: the built-in table only): 0, or
 * the one-line error printed ("tracepress: FILE: offset N: line L: ...") and
 * TP_EXIT_INPUT. */
int tp_device_table_for_command(const char *file, tp_device_table *dt);
#define TP_DEVICE_SPEC_HELP                                                                                           \
    "  --device-spec FILE  device peaks tried before the built-in table: entries\n"                                  \
    "                      device/match/CLASS TFLOPS/memory_tbps/source lines\n"                                     \
    "                      (docs/REPORT.md \"Device peaks\")\n"

typedef struct tp_device_peaks {
    bool known;                 /* peaks found (table entry or the trace's own figures) */
    char label[96];             /* display name: the table entry's label, else the trace's name, else "" */
    char trace_name[96];        /* the name as the trace spells it ("" unknown) */
    char id[48];                /* table entry id ("H100-SXM5-80GB"), "" when not from the table */
    char source[256];           /* where the numbers come from: the entry's source, or "the trace's own device plane" */
    double tflops[TP_PEAK_CLASSES]; /* dense peak TFLOPS per class, 0 = not supported / unknown */
    double mem_tbps;            /* TB/s, 0 unknown */
} tp_device_peaks;

/* Resolve one described device: the first table entry that matches it; else,
 * when the trace carries its own peak figures (XPlane TPU planes:
 * d->peak_tflops/peak_mem_gbps), those (peak_tflops as matrix_bf16, the TPU
 * MXU's type); else known=false with the label set from the name.  dt NULL =
 * the built-in table. */
void tp_device_resolve(const tp_device_table *dt, const tp_trace *t, const tp_device_info *d, tp_device_peaks *out);
/* The note printed/shown for an unknown device: how to add it. */
const char *tp_device_unknown_hint(void);

#endif
