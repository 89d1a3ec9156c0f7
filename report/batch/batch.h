/* batch.h: `tracepress batch`: many traces -> per-trace converted trace and
 * report folder, and an index (docs/SCALING.md).
 *
 * Layout of DIR:
 *   DIR/<name>/trace.json.gz       the converted trace (tracepress convert)
 *   DIR/<name>/report/...          the report folder (tracepress report)
 *   DIR/index.json                 schema tracepress.batch/1, one row per trace;
 *                                  the state incremental runs read; written last
 *   DIR/index.md, DIR/index.pdf    the same rows for people
 * With --shard K/N the index is DIR/index-K-of-N.{json,md,pdf}; `batch --merge`
 * joins the shard indexes into DIR/index.*.
 *
 * <name>: the input's base name without .gz/.json/.pt.trace (tp_trace_basename),
 * made of [A-Za-z0-9._-] (others become '_'); a name that would be or shadow
 * the index's (one starting with "index." or "index-", any case) gets a
 * leading '_'; names that repeat among all the inputs get "-" and 8 hex
 * digits of the path's hash appended, so every shard names every trace the
 * same way.
 *
 * DIR/<name>/made-by.json records what made that trace's outputs (the
 * input's path, size, mtime and content hash, the options and the
 * tracepress version); a worker removes it before writing and writes it
 * after both outputs are complete, and a re-run skips the trace only when
 * it matches.  DIR/.tracepress-batch.lock: one run per folder (per shard). */
#ifndef TP_BATCH_H
#define TP_BATCH_H

#include "convert/base/common.h"
#include "convert/pipeline/inputs.h"

/* A fast 64-bit hash of bytes (4 lanes of multiply-rotate over 8-byte
 * words, murmur-style finalizer; written for tracepress, not a standard).
 * The same bytes give the same hash on every little-endian machine. */
typedef struct tp_hash64 {
    uint64_t lane[4];
    unsigned char tail[32];
    size_t ntail;
    uint64_t len;
} tp_hash64;
void tp_hash64_init(tp_hash64 *h);
void tp_hash64_update(tp_hash64 *h, const void *p, size_t n);
uint64_t tp_hash64_final(const tp_hash64 *h);
uint64_t tp_hash64_bytes(const void *p, size_t n);
/* Hash a file's bytes (as stored, compressed or not).  0 or -1 (err). */
int tp_hash64_file(const char *path, uint64_t *out, uint64_t *size, tp_err *err);
/* A trace's options hash with the capture traces found beside it (a
 * capture_traces/ folder: its execution_details.json and the files it
 * names, graph_capture.h) folded in, as they change its report: `options`
 * itself when there is no such folder. */
uint64_t tp_batch_capture_key(const char *trace, uint64_t options);

/* One trace of the index. */
typedef struct tp_batch_row {
    char *path;    /* the input path */
    char *name;    /* output folder name */
    char *dir;     /* folder relative to the index ("<name>", or "<shard dir>/<name>" after --merge) */
    char *format;  /* reader name, "" when unknown */
    char *status;  /* "ok" or "error" */
    char *error;   /* the error line, NULL when ok */
    uint64_t bytes, hash, options;
    int64_t events, steps;
    int64_t median_step_ns; /* -1 without steps */
    int64_t device_ns, span_ns;
} tp_batch_row;

typedef struct tp_batch_rows {
    tp_batch_row *v;
    size_t n, cap;
} tp_batch_rows;
void tp_batch_row_free(tp_batch_row *r);
void tp_batch_rows_free(tp_batch_rows *rs);
void tp_batch_rows_sort(tp_batch_rows *rs); /* by path */

/* index.json: write, read (0, or -1 with err; a missing file is 0 with no rows). */
void tp_batch_index_json(const tp_batch_rows *rs, tp_buf *b);
void tp_batch_row_json(const tp_batch_row *r, tp_buf *b); /* one row: a JSON object */
/* Parse one row object at *pp (unknown keys ignored); 0, or -1 with err. */
int tp_batch_row_parse(const char **pp, const char *end, tp_batch_row *r, tp_err *err);
int tp_batch_index_read(const char *path, tp_batch_rows *rs, tp_err *err);
void tp_batch_index_md(const tp_batch_rows *rs, tp_buf *b);
/* Writes DIR/<stem>.pdf, .md, then .json (last). */
int tp_batch_index_write(const tp_batch_rows *rs, const char *dir, const char *stem, tp_err *err);

/* Output names for sorted paths (see above).  names->v[i] for paths->v[i]. */
void tp_batch_names(const tp_strlist *paths, tp_strlist *names);
/* The files of a capture_traces/ folder beside another of the paths (a
 * replay: the folder is its graph capture, discovered with it, docs/REPORT.md
 * "Graph capture") are its input, not traces to report: moved from paths to
 * captures (their order kept). */
void tp_batch_split_captures(tp_strlist *paths, tp_strlist *captures);
/* Shard k of n (1-based): the path's hash modulo n == k-1. */
bool tp_batch_in_shard(const char *path, int k, int n);

/* Work on one trace (in a forked worker): the converted trace and the
 * report folder under DIR/<name>; fills the row's result fields. */
struct tp_load_opts;
typedef struct tp_batch_opts {
    const char *steps;
    int64_t batch_size;
    const struct tp_load_opts *load; /* load options (--format, --drop-cat, ...), or NULL */
    const char *made_with;           /* the options text the row's options hash is of */
    const struct tp_cat_rules *rules; /* --categories with the built-in rules */
    const struct tp_device_table *devices; /* --device-spec with the built-in table */
    const struct tp_find_rules *find_rules; /* --rules with the built-in finding rules */
} tp_batch_opts;
/* r holds the input's path, name, bytes, hash and options on entry. */
void tp_batch_work(const char *path, const char *dir, const char *name, const tp_batch_opts *o, tp_batch_row *r);

/* DIR/<name>/made-by.json (batch_state.c).  Write: 0 or -1 with err.
 * Matches: the record is there, is for this path, name, size, content
 * hash and options hash, says ok, and both outputs exist; then the row's
 * results (format, events, steps, times) are taken from it. */
int tp_batch_record_write(const char *dir, const tp_batch_row *r, const char *made_with, tp_err *err);
void tp_batch_record_remove(const char *dir, const char *name);
/* Before any worker starts: the input (a trace, a file an option names)
 * that is one of the files the row NAME writes in DIR (its record,
 * trace.json.gz, its report), with that file's path in OUT; or NULL. */
const char *tp_batch_row_output_input(const char *dir, const char *name, char *out, size_t nout);
bool tp_batch_record_matches(const char *dir, tp_batch_row *r);

/* One batch per output folder: convert/io/dir_lock.h (who "batch"). */
#include "convert/io/dir_lock.h"
static inline int tp_batch_lock(const char *dir, int shard_k, int shard_n, bool wait)
{
    return tp_dir_lock(dir, "batch", shard_k, shard_n, wait);
}

#endif
