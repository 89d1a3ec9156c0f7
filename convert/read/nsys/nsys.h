/* nsys.h: the Nsight Systems SQLite export reader's shared state
 * (nsys_read.c opens and checks the database, nsys_tables.c reads the
 * activity tables).  docs/formats/nsys.md says what is read and where it goes. */
#ifndef TP_NSYS_H
#define TP_NSYS_H

#include "convert/read/formats.h"

#include <sqlite3.h>

/* Bounds on a hostile database (docs/ERRORS.md "Nsight Systems exports"). */
#define NS_MAX_VALUE_BYTES (1 << 20)  /* one string or blob value: SQLite refuses longer (SQLITE_LIMIT_LENGTH) */
#define NS_MAX_COLUMNS 256            /* columns a table of the schema may declare before it is refused */
#define NS_STEPS_PER_BYTE 64          /* SQLite VM steps allowed per byte of the file, plus NS_STEPS_BASE */
#define NS_STEPS_BASE 100000000ull
#define NS_MAX_SLURP ((uint64_t)4 << 30) /* a compressed or piped export is read into memory up to this */

/* The launch map (nsys_launches.c): (process << 32 | correlation id) -> event,
 * a sorted array of ids per process and a hash map for ids out of order. */
typedef struct ns_corr_run {
    uint32_t *corr, *ev;
    size_t n, cap, cursor;
} ns_corr_run;
typedef struct ns_launches {
    tp_i64map procs;   /* process (the key's high half) -> index in runs */
    ns_corr_run *runs;
    size_t nruns, runs_cap;
    tp_i64map aside;   /* keys that came below their run's end and were not in it */
    int64_t last_hi;
    uint32_t last_run;
} ns_launches;
uint32_t ns_launch_get(ns_launches *m, int64_t key); /* TP_I64MAP_EMPTY when absent or key < 0 */
void ns_launch_put(ns_launches *m, int64_t key, uint32_t ev); /* insert or replace; key < 0 ignored */
void ns_launch_clear(ns_launches *m);
void ns_launch_free(ns_launches *m);

typedef struct ns_ctx {
    sqlite3 *db;
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    tp_i64map strings;     /* StringIds id -> tp_str */
    tp_i64map proc_names;  /* OS pid -> tp_str of PROCESSES.name */
    tp_i64map thread_names; /* globalTid -> tp_str of ThreadNames */
    tp_i64map api_names;   /* an API call's name -> the name shown (without its _vN suffix) */
    tp_str last_api, last_api_shown, last_api_cat; /* the last API call's name, as shown, its category */
    int64_t last_dev[3];   /* the last device row's device, context, stream, and its track */
    uint32_t last_dev_track;
    int64_t last_gid;      /* the host track of the last row (rows of one thread come in runs) */
    uint32_t last_track;
    /* launch calls by (OS pid << 32 | correlationId): event index; the
     * innermost of calls that share an id (the runtime call inside its
     * driver call) */
    ns_launches launches;
    bool corr_only;        /* device tables without globalPid: launches keyed by correlation id alone */
    /* device tracks seen: (device << 32 | stream) -> context that owns the tid */
    tp_i64map stream_ctx;
    tp_argb ab;
    uint64_t rows;         /* rows read, for error positions */
    int schema_major, schema_minor; /* EXPORT_SCHEMA_VERSION (0.0: not recorded) */
    tp_str cat_kernel, cat_memcpy, cat_memset, cat_runtime, cat_driver, cat_nvtx, cat_osrt, cat_mpi;
    /* o->device_only (stats --kernels-only): the host rows read but not kept (events_in counts them),
     * and per track whether it holds a kept row (ns_keep_host) */
    uint64_t unkept;
    bool *host_kept;
    size_t host_kept_cap;
    tp_i64map agents;      /* rocpd: rocpd_info_agent id -> device number (GPU agents only) */
    tp_i64map kernel_names; /* rocpd: rocpd_info_kernel_symbol id -> name */
} ns_ctx;

/* 1 when the table exists (a real table, never a view: a view runs the file's SQL) */
int ns_has_table(ns_ctx *c, const char *table);
/* Prepare "SELECT cols FROM table" with NULL for columns the table lacks
 * (older exports).  0 and *st NULL when the table is missing; -1 on error.
 * present[i] says whether column i exists. */
int ns_select(ns_ctx *c, const char *table, const char *const *cols, size_t ncols, const char *tail,
              sqlite3_stmt **st, bool *present);
/* sqlite3_step with the error contract: 1 row, 0 done, -1 (err set) */
int ns_step(ns_ctx *c, sqlite3_stmt *st, const char *table);
/* An INTEGER column; false for NULL, and for a value of another type (counted). */
bool ns_int(ns_ctx *c, sqlite3_stmt *st, int col, int64_t *v);
/* Columns col..col+5 as two args "[x, y, z]" named first and second (a kernel's grid and block: nsys's
 * gridX..blockZ, rocpd's grid and workgroup sizes), when all six are integers. */
void ns_dims(ns_ctx *c, sqlite3_stmt *st, int col, const char *first, const char *second);
/* A row's start and end (columns 0 and 1) into e; false when unusable: the row is dropped, counted under
 * `dropped` and said once as `warning` by every command (static strings, the reader's own words). */
bool ns_row_times(ns_ctx *c, sqlite3_stmt *st, tp_event *e, const char *dropped, const char *warning);
/* Whether a host row (an API call, an NVTX range, an OS runtime or MPI call) becomes an event: always,
 * unless o->device_only.  Then the command prints the kernel table and, of the host rows, only how many
 * were read, how many tracks hold one and the steps: so a host track's first row is kept (the track
 * counts), and the rows that make a step (the reader's TP_EV_STEP, or a name the pipeline takes for one:
 * "ProfilerStep#N"); the others are counted in c->unkept.  Call it after every check of the row (its
 * warnings are said either way) and in place of tp_event_add. */
bool ns_keep_host(ns_ctx *c, const tp_event *e);
/* A table of activity the reader does not read (table + sfx): its rows counted in a notice
 * "READER: table T: N rows not read", so nothing is dropped in silence.  0, or -1 with c->err set. */
int ns_count_unread(ns_ctx *c, const char *reader, const char *table, const char *sfx);
/* A StringIds reference as an interned string (counted when unknown). */
tp_str ns_string(ns_ctx *c, int64_t id);
/* The first k bytes of an interned string, interned: copied out first, as
 * interning may move the strings it reads from. */
tp_str ns_intern_prefix(ns_ctx *c, tp_str s, size_t k);
/* A TEXT column interned (0 when NULL or another type). */
tp_str ns_text(ns_ctx *c, sqlite3_stmt *st, int col);

/* The host thread's track of a serialized GlobalId (pid and tid in it). */
uint32_t ns_host_track(ns_ctx *c, int64_t global_tid);
/* The device stream's track. */
uint32_t ns_device_track(ns_ctx *c, int64_t device, int64_t context, int64_t stream);
/* The OS pid inside a serialized GlobalId. */
static inline int64_t ns_gid_pid(int64_t gid) { return (gid >> 24) & 0xFFFFFF; }
static inline int64_t ns_gid_tid(int64_t gid) { return gid & 0xFFFFFF; }

/* nsys_tables.c: every activity table the reader knows. */
int ns_read_tables(ns_ctx *c);

/* rocpd_read.c: a rocpd database (rocprofv3's SQLite output), read through
 * the same hardened connection; docs/formats/rocpd.md. */
int rocpd_read_tables(ns_ctx *c);

#endif
