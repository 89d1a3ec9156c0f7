/* model.h: the one in-memory trace that every reader fills and every writer
 * and analysis reads.
 *
 * OWNERSHIP RULE (the only one in tracepress):
 *   A tp_trace owns everything reachable from it: strings (interned, see
 *   tp_intern), args text, events, tracks, processes and the top-level extras.
 *   Readers and analyses copy what they keep into the trace through the
 *   functions below and never free any part of it; everything is released at
 *   once by tp_trace_free().  Keep ids and indexes (tp_str, args handles,
 *   uint32_t event/track/process indexes), not pointers: the pools grow by
 *   reallocation, so a pointer from tp_str_get() or tp_args_get() is valid
 *   only until the next tp_intern*() or tp_args_add(), and a pointer into the
 *   event, track or process arrays only until the next addition.
 *   Anything an analysis allocates for itself (tables, sorted copies) is owned
 *   by the struct it returns and released by that struct's own _free().
 *
 * Times are int64 nanoseconds on the trace's own clock; the absolute time of
 * an event is trace->base_ns + event.ts (Chrome input keeps its
 * baseTimeNanoseconds there).  Writers rebase on the earliest event.
 *
 * Adding an input format: see docs/ARCHITECTURE.md "Adding a reader". */
#ifndef TP_MODEL_H
#define TP_MODEL_H

#include "convert/base/common.h"
#include "convert/base/i64map.h"

#define TP_NONE UINT32_MAX /* "no event / no track" in index fields */
/* Times the model can hold without overflow anywhere downstream: ts in
 * [TP_TS_MIN, TP_TS_MAX) ns (about 1897 .. 2116 as epoch times), dur below
 * TP_DUR_MAX (73 years), so ts + dur and end - earliest start always fit in
 * int64.  Every reader keeps its events inside (drops and counts the rest). */
#define TP_TS_MIN (-((int64_t)1 << 61))
#define TP_TS_MAX ((int64_t)1 << 62)
#define TP_DUR_MAX ((int64_t)1 << 61)

typedef uint32_t tp_str; /* interned string id; 0 is the empty string */

/* The canonical kind of an event: analyses look at this, never at a format's
 * own category names, so they work the same for every reader. */
typedef enum tp_kind {
    TP_KIND_OTHER = 0,
    TP_KIND_HOST_OP,    /* framework operator on a host thread (aten::mm, TF op) */
    TP_KIND_RUNTIME,    /* runtime / driver / launch API call (cudaLaunchKernel) */
    TP_KIND_KERNEL,     /* device kernel execution */
    TP_KIND_MEMCPY,     /* device copy */
    TP_KIND_MEMSET,     /* device fill */
    TP_KIND_SYNC,       /* synchronisation (cudaStreamSynchronize shown on device) */
    TP_KIND_ANNOTATION, /* user annotation / step / module scope */
    TP_KIND_COUNT
} tp_kind;

const char *tp_kind_name(tp_kind k); /* "host_op", "runtime", "kernel", ... */

/* Event flags. */
enum {
    TP_EV_STEP = 1u << 0,       /* a training/inference step (ProfilerStep#N); step number in `id` */
    TP_EV_BP_ENCLOSING = 1u << 1, /* flow 'f' with "bp":"e" */
    TP_EV_DROPPED = 1u << 2,    /* removed by a filter or replaced (not written, not analysed) */
    TP_EV_FROM_BE = 1u << 3,    /* built from a B/E pair */
    TP_EV_HAS_ID = 1u << 4,     /* `id` holds an id from the input (flow/async/counter) */
    TP_EV_ID_STRING = 1u << 5,  /* the input id was a string: `id` is its tp_str */
    TP_EV_HAS_CORR = 1u << 6,   /* `corr` holds a correlation id */
    TP_EV_FRAMEWORK = 1u << 7,  /* reserved framework event (ExecuTorch Method::execute ...) */
    TP_EV_DERIVED = 1u << 8,    /* made by the derivation engine, not read */
    TP_EV_INSTANT_GLOBAL = 1u << 9, /* instant scope "g" */
    TP_EV_INSTANT_PROCESS = 1u << 10, /* instant scope "p" */
    TP_EV_LINK_FLOW = 1u << 11, /* the reader restored `link` from the input's flow keys (Chrome
                                 * reader); a correlation link found by the pipeline replaces
                                 * it.  Read by linking only (left set after it: X events'
                                 * flags are read beside linking) */
    TP_EV_CAPTURED = 1u << 12,  /* an op of a graph-capture trace copied for the replayed kernels it
                                 * launched (convert/pipeline/graph_capture.h): always with
                                 * TP_EV_DROPPED (on no timeline, never written); `link` holds its
                                 * copied enclosing op or module scope, TP_NONE at the top */
};

/* One event.  64 bytes; strings and args live in the trace's arenas.
 * ph is the Chrome phase letter ('X' complete, 'i' instant, 'C' counter,
 * 'b'/'e'/'n' async, 's'/'t'/'f' flow, or whatever unknown letter was read). */
typedef struct tp_event {
    int64_t ts;      /* start, ns */
    int64_t dur;     /* ns; 0 for instants */
    uint64_t args;   /* handle from tp_args_add (0 = none) */
    uint64_t id;     /* flow/async/counter id, step number for TP_EV_STEP */
    uint32_t track;  /* index into trace->tracks */
    tp_str name;
    tp_str cat;
    uint32_t corr;   /* correlation id (kernel <-> launch), when TP_EV_HAS_CORR */
    uint32_t link;   /* device event: index of the host call that launched it, or TP_NONE */
    uint32_t op;     /* device event / launch call: index of the enclosing host op, or TP_NONE */
    uint16_t flags;
    uint8_t kind;    /* tp_kind */
    char ph;
    uint32_t depth;  /* nesting depth on its track, filled by tp_nest_repair */
} tp_event;

/* What a track is, for ordering and for analyses. */
typedef enum tp_track_role {
    TP_TRACK_HOST = 0,   /* host thread */
    TP_TRACK_DEVICE,     /* device stream / queue / line of device activity */
    TP_TRACK_DERIVED,    /* derived line (TF Ops, XLA Modules, Steps...) of `derived_of` */
    TP_TRACK_OVERFLOW,   /* overlapping slices moved off `derived_of` by nesting repair */
    TP_TRACK_GLOBAL,     /* global (scope "g") instants and spans */
} tp_track_role;

typedef struct tp_process {
    int64_t pid;         /* numeric id; for string pids, assigned (see key) */
    tp_str key;          /* original string pid, or 0 if the input had a number */
    tp_str name;         /* process_name */
    tp_str label;        /* process_labels (kept for output) */
    uint32_t job_slot;   /* merged job trace: 1 + the rank's place (processes sort by it first); 0 otherwise */
    int64_t sort_index;  /* process_sort_index, valid if has_sort */
    bool has_sort;
    bool is_device;      /* holds device activity (set by readers or tp_classify) */
    int32_t device;      /* device ordinal when known, else -1 */
} tp_process;

typedef struct tp_track {
    uint32_t process;    /* index into trace->processes */
    int64_t tid;
    tp_str key;          /* original string tid, or 0 */
    tp_str name;         /* thread_name */
    int64_t sort_index;  /* thread_sort_index, valid if has_sort */
    bool has_sort;
    uint8_t role;        /* tp_track_role */
    uint32_t derived_of; /* for DERIVED/OVERFLOW: the track it sits beside, else TP_NONE */
    uint32_t nevents;    /* filled by tp_index_tracks */
} tp_track;

/* A named warning counter ("invalid UTF-8: 3"). */
typedef struct tp_warning {
    const char *what; /* static string */
    uint64_t count;
    uint64_t at;      /* 1 + input offset of the first one (the smallest), 0 = not known */
} tp_warning;

/* A device the trace describes (Chrome "deviceProperties", an XPlane device
 * plane's stats): what the efficiency analysis matches against the table of
 * device peaks (report/perf_models/devices.h).  0 / empty = not recorded. */
typedef struct tp_device_info {
    int64_t id;            /* the device's number in the trace (Kineto "id", XPlane device ordinal); -1 unknown */
    tp_str name;           /* "NVIDIA H100 80GB HBM3", "TPU v6 lite"; 0 unknown */
    tp_str vendor;         /* "Nvidia", "AMD" (XPlane device_vendor); 0 unknown */
    int64_t memory_bytes;  /* totalGlobalMem, XPlane memory_size */
    int32_t cores;         /* numSms / compute units / XPlane core_count */
    int32_t cc_major, cc_minor; /* compute capability (computeMajor/Minor) */
    double peak_tflops;    /* the trace's own peak (XPlane peak_teraflops_per_second), 0 unknown */
    double peak_mem_gbps;  /* the trace's own memory bandwidth (XPlane peak_hbm_bw_gigabytes_per_second) */
} tp_device_info;

/* A cost a reader found recorded for an op (XPlane XLA ops' `flops` and
 * `bytes_accessed` metadata stats), keyed by the op events' name: every event
 * named `name` on a device line did this much work. */
typedef struct tp_name_cost {
    tp_str name;
    uint64_t flops;
    uint64_t bytes;
} tp_name_cost;

typedef struct tp_trace {
    /* string pool */
    char *str_data;
    size_t str_len, str_cap;
    uint64_t *str_off;     /* id -> offset into str_data (string is NUL-terminated) */
    size_t nstr, str_off_cap;
    uint32_t *str_hash;    /* open addressing table of ids, 0 = empty slot */
    size_t str_hash_cap;

    /* args arena: records of [u32 len][text][NUL] addressed by offset+1 */
    char *args_data;
    size_t args_len, args_cap;

    tp_event *events;
    size_t nevents, events_cap;
    /* lookups by (process, tid) and by pid: a trace may have many thousands */
    tp_i64map track_index, process_index;
    tp_track *tracks;
    size_t ntracks, tracks_cap;
    tp_process *processes;
    size_t nprocesses, processes_cap;

    /* Top-level keys of a Chrome trace other than traceEvents, as JSON text
     * ("\"deviceProperties\":[...]"), in input order; written back verbatim. */
    tp_buf toplevel;

    /* Devices described by the input, in input order (owned; free'd by
     * tp_trace_free). */
    tp_device_info *devinfo;
    size_t ndevinfo, devinfo_cap;
    /* Recorded op costs, sorted by name id, one per name (owned). */
    tp_name_cost *costs;
    size_t ncosts, costs_cap;

    const char *format;    /* reader name ("kineto", "xplane", ...), static */
    int64_t base_ns;       /* offset that input times were relative to (kept) */
    bool strict;           /* reader option: lenient problems become errors */
    bool keep_args;        /* reader option: store args (convert) or skip (stats) */

    /* Launch flows a reader noted instead of keeping them as events
     * (tp_read_opts.flows_as_ids: the analysing commands, and convert of one
     * file), in input order (tp_launch_flow_note).  The analyses read them together
     * with the flow events still in events[]; none when the reader kept
     * them all. */
    struct tp_flow_note *launch_flows;
    size_t nlaunch_flows, launch_flows_cap;

    tp_warning warnings[32];
    size_t nwarnings;
    tp_warning drops[16];  /* events removed on purpose, by reason */
    size_t ndrops;
    uint64_t events_in;    /* events read from the input, before any repair */
    /* Warnings that name what the input holds (a category tracepress does
     * not read, ...): one line each, '\n'-ended, printable ASCII only
     * (the reader escapes the input's text); tp_load prints them as
     * "tracepress: FILE: warning: LINE".  Each is also a counter above. */
    tp_buf notices;

    /* What a reader keeps of its input for format-specific analyses (ETDump:
     * the decoded file, for the Inspector section of `stats --json`, which
     * needs the file's own signatures and should not read the file twice).
     * Owned by the trace: tp_trace_free calls format_data_free(format_data). */
    void *format_data;
    void (*format_data_free)(void *);
    /* Renders the handles with TP_ARGS_EXTERNAL (see tp_args_visit), with
     * format_data; NULL when the reader keeps every args in the arena. */
    const struct tp_args_source *args_source;
    tp_buf *args_text;     /* where tp_args_get renders handles held in themselves */
} tp_trace;

/* Launch flows kept as ids, not events (tp_trace.launch_flows).  Kineto
 * writes each kernel launch's link again as a flow: an "ac2g" 's' on the
 * launch call and an 'f' on the kernel, the correlation id for both, a
 * fifth of a real trace's events.  A viewer draws them as arrows; the
 * analyses ask only whether an id has both ends (TraceLens's "linked",
 * report/analysis/gpu_time.c), and convert replaces them by flows bound to
 * the slices.  A reader asked to (tp_read_opts.flows_as_ids) notes them
 * instead of keeping them as events; what reads flows reads the notes and
 * the flow events still in the trace as one. */
enum { TP_FLOW_START = 1, TP_FLOW_END = 2 }; /* an 's', an 'f' */
/* One noted flow: where it stood too, for what reads events in their order
 * (the v1 launch pairs' neighbours, the partial-trace count of host events
 * between numbered ones): it would have been events[at], and it sat on
 * `track`.  Notes are in input order, so `at` never decreases. */
typedef struct tp_flow_note {
    uint64_t id_end; /* id << 1 | 1 for an end ('f'), | 0 for a start ('s') */
    uint32_t track;
    uint32_t at;     /* the index of the event stored next (t->nevents when noted) */
} tp_flow_note;
/* Note one flow of id (0 .. INT64_MAX) on track. */
void tp_launch_flow_note(tp_trace *t, uint64_t id, bool end, uint32_t track);
/* Append u's notes to t's (a second reader's trace joined to the first:
 * its events from first_event on, its tracks mapped by track[]). */
void tp_launch_flows_append(tp_trace *t, const tp_trace *u, uint32_t first_event, const uint32_t *track);
/* The first note at or after index `at` (t->nlaunch_flows when none). */
size_t tp_launch_flow_first_at(const tp_trace *t, uint32_t at);

void tp_trace_init(tp_trace *t);
void tp_trace_free(tp_trace *t);

/* Strings. */
tp_str tp_intern(tp_trace *t, const char *s, size_t len);
tp_str tp_intern_cstr(tp_trace *t, const char *s);
/* The id of a string already interned, 0 when it is not (nor empty). */
tp_str tp_str_find(const tp_trace *t, const char *s, size_t len);
/* Inline: the writers call them for every event's name and category. */
static inline const char *tp_str_get(const tp_trace *t, tp_str id)
{
    return id < t->nstr ? t->str_data + t->str_off[id] : "";
}
static inline size_t tp_str_len(const tp_trace *t, tp_str id)
{
    return id < t->nstr ? t->str_off[id + 1] - t->str_off[id] - 1 : 0;
}

/* Args: a JSON object text ("{...}") kept verbatim.  tp_args_add copies it
 * and returns a handle (0 for empty input).  A handle with TP_ARGS_EXTERNAL
 * set is kept by the reader in its own form and rendered on demand (below):
 * for those, the text tp_args_get returns is valid only until the next
 * tp_args_get. */
uint64_t tp_args_add(tp_trace *t, const char *json, size_t len);
/* Append u's args arena to t's (a second reader's trace joined to the
 * first): u's arena handles move by the returned shift (add it to them);
 * external handles keep their meaning.  t's arena grows to the exact size. */
uint64_t tp_args_append(tp_trace *t, const tp_trace *u);
const char *tp_args_get(const tp_trace *t, uint64_t handle, size_t *len);

/* External args: a reader that keeps an event's args in a compact form of
 * its own (XPlane: the stats stay in the input file and are decoded again
 * when written, so a multi-GB trace does not hold its args twice) sets
 * TP_ARGS_EXTERNAL in the handle and points t->args_source at functions
 * that render them (from what it keeps in t->format_data). */
#define TP_ARGS_EXTERNAL (UINT64_C(1) << 63)
#define TP_ARGS_RESERVED (UINT64_C(1) << 62) /* used by the model itself (tp_args_name_group) */

/* One arg as a typed value, for writers that want types, not JSON text. */
typedef enum tp_arg_type {
    TP_ARG_INT,    /* i */
    TP_ARG_DOUBLE, /* d (a finite value whose JSON text has a fraction or an exponent) */
    TP_ARG_STR,    /* s[0..len), raw bytes (writers repair invalid UTF-8) */
    TP_ARG_JSON,   /* s[0..len) is the JSON text of the value (null, integers beyond int64) */
} tp_arg_type;

typedef struct tp_arg {
    const char *key;
    size_t klen;
    tp_str key_id; /* the key as an interned string of the trace, or 0 */
    tp_arg_type type;
    int64_t i;
    double d;
    const char *s;
    size_t len;
    tp_str s_id;   /* TP_ARG_STR: the value as an interned string (one many events share), or 0 */
} tp_arg;

typedef void (*tp_arg_fn)(void *ctx, const tp_arg *a);

typedef struct tp_args_source {
    /* The args as JSON object text ("{...}", valid JSON), in a buffer of the
     * cursor's (NULL: the source's own) valid until the next call; NULL with
     * *len 0 when the args cannot be rendered (then *err is a short reason). */
    const char *(*json)(const struct tp_trace *t, void *cursor, uint64_t handle, size_t *len, const char **err);
    /* Each arg in the JSON text's order; 0, or -1 when they cannot be rendered.
     * cursor: from cursor_new (one per thread), or NULL for the source's own. */
    int (*visit)(const struct tp_trace *t, void *cursor, uint64_t handle, tp_arg_fn fn, void *ctx);
    void *(*cursor_new)(const struct tp_trace *t);
    void (*cursor_free)(void *cursor);
    /* json() returns the input's own text, unchecked and not minified (the
     * Chrome reader's args left in the file): writers check it as they check
     * arena args.  Such a source may have no visit (tp_args_visit then says 0). */
    bool raw_text;
} tp_args_source;

/* The handle's text (tp_args_get) is already minified, valid JSON that a
 * writer may copy as it is: args rendered by a reader or held in the handle. */
bool tp_args_is_minified(const tp_trace *t, uint64_t handle);

/* Visit the args of an external handle: 1 visited, 0 not an external handle
 * or a source without visit (use tp_args_get / tp_args_split), -1 the source
 * could not render them.
 * Threads that visit at the same time each use a cursor of their own
 * (tp_args_cursor_new; NULL when the trace needs none); with a NULL cursor
 * only one thread may visit. */
int tp_args_visit(const tp_trace *t, void *cursor, uint64_t handle, tp_arg_fn fn, void *ctx);
void *tp_args_cursor_new(const tp_trace *t);
void tp_args_cursor_free(const tp_trace *t, void *cursor);

/* The args of a derived event, {"long_name":"...","group_id":N} (either part
 * may be absent; 0 when both are), held in the handle itself when they fit
 * (no arena bytes: a multi-GB XSpace has millions of derived events). */
uint64_t tp_args_name_group(tp_trace *t, tp_str long_name, bool has_group, int64_t group);
/* A record may carry event-level keys the Chrome reader did not interpret
 * ("tts", "cname", ...) after a 0x1F byte: "{args}\x1f,\"tts\":12".  This
 * splits a record into the args object (may be empty) and those extras. */
void tp_args_split(const tp_trace *t, uint64_t handle, const char **args, size_t *alen, const char **extra,
                   size_t *elen);
/* tp_args_get and tp_args_split for threads that write at the same time:
 * external args are rendered with the thread's cursor (tp_args_cursor_new)
 * and args held in the handle into the thread's scratch buffer; the text
 * is valid until that thread's next call. */
const char *tp_args_get_r(const tp_trace *t, void *cursor, tp_buf *scratch, uint64_t handle, size_t *len);
void tp_args_split_r(const tp_trace *t, void *cursor, tp_buf *scratch, uint64_t handle, const char **args,
                     size_t *alen, const char **extra, size_t *elen);

/* Builder for args made by non-JSON readers.  Values are escaped correctly. */
typedef struct tp_argb {
    tp_buf buf;
    int n;
} tp_argb;
void tp_argb_reset(tp_argb *b);
void tp_argb_str(tp_argb *b, const char *key, const char *val, size_t len);
void tp_argb_cstr(tp_argb *b, const char *key, const char *val);
void tp_argb_int(tp_argb *b, const char *key, int64_t v);
void tp_argb_uint(tp_argb *b, const char *key, uint64_t v);
void tp_argb_bool(tp_argb *b, const char *key, bool v);
/* A fixed-point decimal value/10^decimals printed exactly ("1.031719"). */
void tp_argb_fixed(tp_argb *b, const char *key, int64_t value, int decimals);
/* Raw JSON value text (an array or object built by the caller). */
void tp_argb_raw(tp_argb *b, const char *key, const char *json, size_t len);
uint64_t tp_argb_commit(tp_trace *t, tp_argb *b); /* adds "{...}" to the trace; 0 if empty */
void tp_argb_free(tp_argb *b);

/* Processes and tracks (found or created). */
uint32_t tp_process_get(tp_trace *t, int64_t pid);
uint32_t tp_process_get_key(tp_trace *t, tp_str key); /* string pid */
/* After pids or keys were changed in place (a merged job's pids made
 * unique): the lookup by pid and key rebuilt from the processes. */
void tp_process_reindex(tp_trace *t);
uint32_t tp_track_get(tp_trace *t, uint32_t process, int64_t tid);
uint32_t tp_track_get_key(tp_trace *t, uint32_t process, tp_str key); /* string tid */
/* A new track not found by tid lookups (derived lines, overflow rows). */
uint32_t tp_track_add(tp_trace *t, uint32_t process, tp_str name, uint8_t role, uint32_t derived_of);

/* Events.  Every reader grows the event array with TP_GROW_EVENTS. */
#define TP_GROW_EVENTS(t, need) TP_GROW((t)->events, (t)->events_cap, (need))
uint32_t tp_event_add(tp_trace *t, const tp_event *e); /* copies; returns index */
void tp_event_init(tp_event *e);                       /* zero, link/op = TP_NONE, ph 'X' */
/* tp_event_init, then the slice [start, end) (the vendors' tables give both
 * ends): false, e untouched, when either lies outside the model's range or
 * end < start. */
bool tp_event_span(tp_event *e, int64_t start, int64_t end);

/* Warnings: counted by name; `what` must be a string literal. */
void tp_warn(tp_trace *t, const char *what, uint64_t n);
/* The same with the input offset of (the first of) these: the counter keeps
 * the smallest, which --strict reports. */
void tp_warn_at(tp_trace *t, const char *what, uint64_t n, uint64_t offset);
/* Add another trace's counter (count and first offset). */
void tp_warn_merge(tp_trace *t, const tp_warning *w);
/* The counter with the smallest known offset (the first problem in the
 * input), else the first counted; NULL when there is none. */
const tp_warning *tp_warning_first(const tp_trace *t);
uint64_t tp_warning_count(const tp_trace *t, const char *what);
/* Mark event i dropped (not written, not analysed) and count the reason. */
void tp_drop(tp_trace *t, uint32_t i, const char *why);
/* Count n events a reader dropped before they entered the model (bad ts,
 * no "ph", ...): they are in events_in and the summary line's drops. */
void tp_drop_count(tp_trace *t, const char *why, uint64_t n);
uint64_t tp_dropped_total(const tp_trace *t);

/* Kind of a Chrome/Kineto category name (both vocabularies). */
tp_kind tp_kind_from_cat(const char *cat, size_t len);

/* Devices and recorded op costs (the efficiency analysis's inputs). */
/* Append a copy of *d to t->devinfo (input order). */
void tp_devinfo_add(tp_trace *t, const tp_device_info *d);
/* The cost recorded for events named `name`, or NULL (binary search). */
const tp_name_cost *tp_cost_of(const tp_trace *t, tp_str name);
/* Add n costs (any order; with map, their names are another trace's ids
 * mapped through map[]) to t->costs, which stays sorted by name with one
 * cost per name.  A name given two different costs keeps none: counted in
 * the warning "op costs that disagree for one name (none kept)".  (Only
 * costs still held are compared: a name dropped before and added again
 * from one source comes back.) */
void tp_costs_add(tp_trace *t, const tp_name_cost *c, size_t n, const tp_str *map);

#endif
