/* chrome_read_int.h: the Chrome reader's own header, shared by its files
 * (docs/JSON_READER.md):
 *   chrome_read.c       the format, its probe, the buffer, the top-level value
 *   chrome_parse.h      JSON text -> one raw event (inline, no side effects)
 *   chrome_events.c     the traceEvents array: raw events -> the model
 *   chrome_begin_end.c  'B'/'E' pairs
 *   chrome_flows.c      flow keys -> the links they stand for
 *   chrome_halves.c     a large file read by two threads, joined
 *   chrome_args.c       args left in the mapped file
 *   chrome_cats.c       categories decided by event name (MTIA), unknown
 *                       categories on devices (counted, named in a warning)
 *   chrome_devices.c    the top-level deviceProperties into t->devinfo
 * The small helpers every event passes through are inline here. */
#ifndef TP_CHROME_READ_INT_H
#define TP_CHROME_READ_INT_H

#include "convert/base/i64map.h"
#include "convert/codec/json_lex.h"
#include "convert/io/input.h"
#include "convert/model/model.h"
#include "convert/read/formats.h"

#include <stdatomic.h>
#include <string.h>

#define CHUNK (4u << 20)
/* The largest single unit (one event, or one top-level key and its value)
 * the reader holds in memory.  Streaming keeps memory flat however long the
 * file is; this keeps one endless string or array (a gzip bomb, a corrupt
 * file) from growing the buffer until the machine runs out.  Real units are
 * kilobytes. */
#define MAX_UNIT ((size_t)128 << 20)

/* A token's text inside the buffer. */
typedef struct span {
    const char *p;
    size_t n;
    bool str;     /* was a JSON string */
    bool escaped; /* string with backslash escapes */
    /* a number [-]digits[.digits] as scan_scalar's fast path found it: the
     * digits before and after the point (int_n 0: not known, or over 255) */
    uint8_t int_n, frac_n;
} span;

/* One event as parsed, pointing into the buffer; committed all at once. */
typedef struct raw_event {
    span ph, name, cat, ts, dur, pid, tid, id, bp, scope;
    const char *args;
    size_t args_n;
    tp_buf *extra; /* other keys, as "\"key\":value" pieces */
    bool has_corr;
    int64_t corr;
    /* 'M' args we interpret */
    span m_name, m_labels, m_sort;
    /* flow v2 keys ("bind_id", "flow_in":true, "flow_out":true): not kept
     * as keys, the writer regenerates them from the links they restore */
    span bind;
    uint8_t flow; /* FLOW_IN | FLOW_OUT */
} raw_event;

enum { FLOW_OUT = 1, FLOW_IN = 2, FLOW_V1 = 4 };

/* An event that carries flow keys, for restore_flows once all are read:
 * a slice with a v2 bind id (FLOW_OUT / FLOW_IN), or the 'f' of a v1
 * "launch" pair the writer adds for a launch's further device events. */
typedef struct flow_rec {
    uint64_t id;  /* bind id (FLOW_V1: the pair's id) */
    uint32_t ev;  /* event index */
    uint8_t what; /* FLOW_OUT, FLOW_IN or FLOW_V1 */
} flow_rec;

/* (pid text, tid text) -> track cache: events repeat a handful of pairs. */
typedef struct track_slot {
    tp_str pid, tid; /* interned raw texts; pid==0 && tid==0 means empty */
    bool pid_str, tid_str;
    uint32_t track;
    bool used;
} track_slot;

/* Slices of a category no table knows, per (track, category). */
typedef struct unk_cat {
    tp_str cat;
    uint32_t track;
    uint64_t count;
} unk_cat;

/* reader.cat_kind values beyond 1 + tp_kind (chrome_cats.c): a known
 * category of no device activity (kind other, not counted as unknown), and
 * categories whose events are told apart by name */
enum { CAT_KNOWN_OTHER = 0x20, CAT_MTIA_DEVICE = 0x40, CAT_MTIA_RUNTIME = 0x41 };

/* An 'E' event of the second half whose 'B' may be open in the first. */
typedef struct orphan_e {
    uint32_t track;
    uint64_t at;   /* its file offset, for --strict's error */
    int64_t ts;
    uint64_t args; /* the E's args in the second half's arena (0 = none) */
} orphan_e;

typedef struct reader {
    tp_input *in;
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    const char *buf;  /* the text being parsed: `own`, or the mapped file */
    char *own;        /* the streamed buffer (NULL when the file is mapped) */
    size_t cap, len, pos;
    uint64_t buf_off; /* input offset of buf[0] */
    bool eof;
    const char *map;  /* the whole file, parsed in place (tp_input_map), or NULL */
    uint64_t released; /* mapped pages before this offset are handed back */
    tp_buf extra;     /* scratch for extra keys */
    uint8_t *want;    /* name id -> 0 not asked, 1 keep its args, 2 not (o->keep_args_of) */
    size_t want_cap;
    tp_buf scratch;   /* scratch for unescaping */
    track_slot *slots;
    size_t nslots, nused;
    /* open B events per track: stack of event indexes */
    uint32_t **bstack;
    size_t *bdepth, *bcap;
    size_t bstack_tracks;
    uint64_t bad_utf8;
    uint64_t bad_utf8_at; /* 1 + offset of the first bad string, 0 = none */
    uint64_t ev_at;       /* offset of the event being committed */
    /* the last few (pid, tid) texts and their tracks: events mostly repeat
     * the pair of one of the last few (a kernel's device stream, its
     * launch's host thread, ...) */
    struct last_pair {
        char pid[24], tid[24];
        uint8_t pid_n, tid_n;
        uint8_t flags; /* 1 valid, 2 pid string, 4 tid string, 8 tid present, 16 pid present */
        uint32_t track;
    } last[4];
    unsigned last_next; /* the entry replaced next */
    uint8_t *cat_kind;   /* cat string id -> tp_kind + 1 (0 = not looked up yet) */
    size_t cat_kind_cap;
    bool top_is_array;
    bool saw_events_key;
    bool saw_system_key;   /* "systemTraceEvents": a trace (of ftrace text, not read) */
    uint8_t saw_et_keys;   /* 1 "schema", 2 "nodes": a PyTorch Execution Trace */
    /* names and categories repeat: the id of a text seen recently, found
     * by its length and end bytes instead of hashing all of it (see intern_text);
     * a, b: the text's first and last (up to) eight bytes, the whole text up to 16 */
    struct { uint64_t a, b; uint32_t id, len; } recent[512];
    /* two halves (chrome_halves.c): the first reader's job, the second
     * reader's bookkeeping */
    struct half_job *half;     /* first half: the second half's job, or NULL */
    uint64_t half_split;       /* first half: file offset of the second half's first event */
    bool second;               /* this reader reads the second half */
    atomic_bool *abandon;      /* second half: set when the first half found the split bad */
    orphan_e *orphans;         /* second half: 'E' events whose 'B' may be in the first half */
    size_t norphans, orphans_cap;
    uint8_t *meta_set;         /* second half: per track / process, what metadata events set */
    size_t meta_set_cap;       /* (TP_APPEND_SET_NAME, TP_APPEND_SET_LABEL) */
    uint8_t *pmeta_set;
    size_t pmeta_set_cap;
    flow_rec *flows;           /* events with flow keys (see restore_flows) */
    size_t nflows, flows_cap;
    tp_i64map flow_seen;       /* no_corr: (track, cat) pairs that kept a flow event (keep_flow), or with
                                * device_only any event of a light category (chrome_events.c light_event),
                                * or with flows_as_ids a launch flow (flow_as_id) */
    tp_str ac2g;               /* flows_as_ids: the "ac2g" category's id (0 until one is seen) */
    uint64_t flow_kept[2];     /* 1 + the (track, cat) keys flow_as_id last found kept, 0 = none */
    uint64_t light_last;       /* 1 + the (track, cat) key light_event last found kept, 0 = none */
    /* chrome_cats.c */
    uint8_t *dev_track;        /* per track: 1 when it holds device activity */
    size_t dev_track_cap;
    unk_cat *unk;              /* slices of unknown categories, per (track, category) */
    size_t nunk, unk_cap;
    tp_i64map unk_index;       /* (track << 32 | cat) -> index in unk */
    int64_t unk_last_key;      /* the last key looked up, and its index */
    uint32_t unk_last;
    uint32_t *mtia_rt;         /* mtia_runtime slices: sync when on a device (chrome_cats_finish) */
    size_t nmtia_rt, mtia_rt_cap;
    tp_i64map name_kind;       /* (cat << 32 | name) -> kind, for categories told apart by name */
    /* the whitespace before an event's keys, after their colons, before
     * events (json_lex.h: tp_json_ws_guess) */
    tp_ws_guess ws_key, ws_colon, ws_event;
} reader;

static inline uint64_t off_of(const reader *r, const char *p) { return r->buf_off + (uint64_t)(p - r->buf); }

/* Mapped pages count in the resident size: hand back those behind the
 * parser every RELEASE bytes (stats' peak is otherwise the whole file). */
#define RELEASE ((size_t)32 << 20)

static inline void release_behind(reader *r)
{
    if (r->map && r->pos - r->released >= RELEASE) {
        tp_input_unmap_pages(r->map, r->released, r->pos);
        r->released = r->pos;
    }
}

static inline bool key_is(const char *k, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(k, lit, l) == 0;
}

/* --strict's error names the first bad string in the file. */
static inline void bad_string_at(reader *r, uint64_t off)
{
    if (!r->bad_utf8_at || off + 1 < r->bad_utf8_at)
        r->bad_utf8_at = off + 1;
}

/* tp_read_opts.device_only as this reader takes it (chrome_events.c
 * light_event): not with links, --strict (it checks every string) or args. */
static inline bool chrome_device_only(const reader *r)
{
    const tp_read_opts *o = r->o;
    return o->device_only && o->no_corr && !o->strict && !o->keep_args && !o->keep_args_of;
}

/* chrome_read.c */
int chrome_refill(reader *r, size_t keep_from);
void chrome_use_map(reader *r, const char *map, uint64_t size, uint64_t pos);
int chrome_more_or_truncated(reader *r, const char *at, const char *inside);
int chrome_strict_error(reader *r);
const char *chrome_json_what(char c); /* "a number", "a string", ... by a value's first byte */
void chrome_reader_free(reader *r);
/* The top-level "deviceProperties" value v..ve into t->devinfo (chrome_devices.c). */
void chrome_read_devices(reader *r, const char *v, const char *ve);

/* chrome_events.c: the traceEvents array from r->pos (just after its '['),
 * each event parsed and committed.  0 or -1. */
int chrome_read_events(reader *r);

/* chrome_begin_end.c */
void chrome_bstack_push(reader *r, uint32_t track, uint32_t ev);
void chrome_merge_args(reader *r, tp_event *b, const raw_event *ev);
int chrome_close_open_b(reader *r);

/* chrome_flows.c */
void chrome_note_flow(reader *r, const raw_event *ev, const tp_event *e, uint32_t idx);
void chrome_restore_flows(reader *r);

/* chrome_cats.c: a category's class (1 + tp_kind, or CAT_*); the kind of
 * an event of a CAT_* class by its name; note a committed event (device
 * tracks, unknown categories, MTIA runtime calls); the second half's notes
 * after the first's; at the end of the read, device-side runtime calls and
 * the warning naming unknown categories. */
uint8_t chrome_cat_class(const char *cat, size_t n);
uint8_t chrome_kind_by_name(const tp_trace *t, uint8_t cls, tp_str name);
void chrome_cats_note(reader *r, const tp_event *e, uint32_t idx, uint8_t cls);
struct tp_append_map;
void chrome_cats_join(reader *a, const reader *b, const struct tp_append_map *m);
void chrome_cats_finish(reader *r);

/* chrome_halves.c */
void chrome_half_start(reader *r);
int chrome_half_meet(reader *r, uint64_t at);
void chrome_half_cancel(reader *r);

#endif
