/* pftrace_write.c: the Perfetto protobuf trace writer (see docs/PFTRACE.md).
 *
 * - one TrackDescriptor per process (ProcessDescriptor), per host thread or
 *   device stream (ThreadDescriptor), per derived or overflow line (a named
 *   track under its process) and per counter series (CounterDescriptor);
 *   children of a process carry sibling_order_rank in the JSON writer's
 *   display order, the process asks for explicit child ordering;
 * - slices as SLICE_BEGIN/SLICE_END pairs, emitted per track from the same
 *   time-sorted index and open-slice stack as the nesting repair, so every
 *   track's packets are in time order and properly nested;
 * - each track's slices in chunks of about 64 K events cut where no slice is
 *   open, each chunk a packet sequence of its own: the track is the
 *   sequence's default (TracePacketDefaults), times are deltas on the
 *   sequence's incremental clock, names, categories, annotation names and
 *   string values are interned per sequence.  Chunks are independent, so
 *   worker threads encode them in parallel; the bytes do not depend on the
 *   number of threads;
 * - track descriptors, counters and process / global instants on sequence 1
 *   with absolute times;
 * - launch flows and the input's own flows as flow_ids on their slices
 *   (pftrace_flows.c);
 * - times in ns (base_ns + ts) on the default (boot time) clock.
 * Same bytes for the same input: every id is numbered in output order. */
#include "convert/write/pftrace_write.h"
#include "convert/base/ordered_pool.h"
#include "convert/codec/pbwrite.h"
#include "convert/write/pftrace_args.h"
#include "convert/codec/json_write.h"
#include "convert/write/pftrace_flows.h"
#include "convert/base/strset.h"
#include "convert/model/tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field numbers (perfetto protos; table in docs/PFTRACE.md). */
enum {
    TRACE_PACKET = 1,
    TP_CLOCK_SNAPSHOT = 6,
    TP_TIMESTAMP = 8,
    TP_SEQ_ID = 10,
    TP_TRACK_EVENT = 11,
    TP_INTERNED = 12,
    TP_SEQ_FLAGS = 13,
    TP_TIMESTAMP_CLOCK = 58,
    TP_DEFAULTS = 59,
    TP_TRACK_DESC = 60,
    SEQ_CLEARED = 1,
    SEQ_NEEDS = 2,

    CS_CLOCKS = 1,          /* ClockSnapshot.clocks */
    CLK_ID = 1,             /* ClockSnapshot.Clock */
    CLK_TIMESTAMP = 2,
    CLK_INCREMENTAL = 3,
    PF_CLOCK_BOOTTIME = 6,     /* the default trace clock */
    PF_CLOCK_SEQ = 64,         /* the first sequence-scoped clock id */
    DEF_TRACK_EVENT = 11,   /* TracePacketDefaults.track_event_defaults */
    DEF_TIMESTAMP_CLOCK = 58,
    TED_TRACK_UUID = 11,    /* TrackEventDefaults.track_uuid */

    TD_UUID = 1,
    TD_NAME = 2,
    TD_PROCESS = 3,
    TD_THREAD = 4,
    TD_PARENT = 5,
    TD_COUNTER = 8,
    TD_CHILD_ORDERING = 11,
    TD_SIBLING_RANK = 12,
    ORDER_EXPLICIT = 3,
    PD_PID = 1,
    PD_NAME = 6,
    THD_PID = 1,
    THD_TID = 2,
    THD_NAME = 5,

    TE_CATEGORY_IIDS = 3,
    TE_DEBUG_ANNOTATIONS = 4,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK_UUID = 11,
    TE_DOUBLE_COUNTER = 44,
    TE_FLOW_IDS = 47,
    TYPE_BEGIN = 1,
    TYPE_END = 2,
    TYPE_INSTANT = 3,
    TYPE_COUNTER = 4,

    ID_CATEGORIES = 1,
    ID_NAMES = 2,
    ID_ANNOTATION_NAMES = 3,
    ID_ANNOTATION_STRINGS = 29, /* debug_annotation_string_values: InternedString {iid 1, str 2} */
    ENTRY_IID = 1,
    ENTRY_NAME = 2,

    DA_NAME_IID = 1,
    DA_BOOL = 2,
    DA_INT = 4,
    DA_DOUBLE = 5,
    DA_STRING = 6,
    DA_LEGACY_JSON = 9,
    DA_STRING_IID = 17,
};

#define MAIN_SEQ 1
/* A track's slices go out in chunks of about this many events, each on a
 * packet sequence of its own: chunks are independent (their own interned
 * data and clock), so worker threads encode them in parallel and the output
 * does not depend on how many there are. */
#define CHUNK_EVENTS 65536

static size_t chunk_events(void)
{
    const char *s = getenv("TP_PF_CHUNK_EVENTS"); /* tests: cuts in small traces */
    long n = s && *s ? strtol(s, NULL, 10) : 0;
    return n > 0 ? (size_t)n : CHUNK_EVENTS;
}

/* Interned strings of one kind on one sequence: string id (a tp_str, or an
 * id in the encoder's own strset) -> iid (0 = not yet), the ones first used
 * by the packet being written, and all handed out (to clear the table when
 * a new sequence starts). */
typedef struct interner {
    uint32_t *iid;
    size_t cap;
    uint32_t next;
    uint32_t *pending;
    size_t npending, pending_cap;
    uint32_t *used;
    size_t nused, used_cap;
} interner;

/* How often an annotation's string values repeat (indexed by its name iid):
 * values of a name whose values are mostly new are no longer interned. */
typedef struct value_stats {
    uint32_t seen, fresh;
} value_stats;

struct pfw;

/* What encodes one packet sequence at a time: the main sequence (track
 * descriptors, counters, process and global instants, absolute times), or a
 * worker's chunks (slices of one track, times on the sequence's incremental
 * clock, the track as the sequence's default). */
typedef struct penc {
    /* each worker's encoder on cache lines of its own (they are in one array) */
    _Alignas(64) const struct pfw *w; /* read-only while chunks are encoded */
    tp_buf *b;             /* where the packets go */
    uint32_t seq;
    bool first;            /* the next packet is the sequence's first */
    bool incremental;      /* times are deltas on PF_CLOCK_SEQ */
    int64_t last;          /* the incremental clock: absolute time of the last packet */
    interner names, cats, anns, vals; /* names, cats: tp_str ids; anns, vals: ids in `own` */
    tp_strset own;         /* annotation names and string values: the trace's pools do not grow while writing */
    uint32_t *str_own;     /* tp_str -> id in `own` (0 unknown; OWN_NOT_VALUE: not a valid UTF-8 value) */
    size_t str_own_cap;
    value_stats *vstats;
    size_t vstats_cap;
    uint64_t vbytes;       /* bytes of string values interned on this sequence */
    void *cursor;          /* for tp_args_visit */
    tp_buf scratch;
    uint32_t *stack;
    size_t scap;
    uint64_t packets, slices, instants, clipped, bad_utf8, invalid_args;
} penc;

/* Counter series: (process, "name key") -> counter index, open addressing. */
typedef struct counter_map {
    uint64_t *keys; /* (process << 32 | str) + 1, 0 = empty */
    uint32_t *vals;
    size_t cap, n;
    uint32_t *process; /* per counter: process index */
    uint32_t *name;    /* per counter: track name (id in pfw.series) */
    size_t list_cap;
} counter_map;

typedef struct pfw {
    tp_trace *t;
    tp_out *o;
    tp_pftrace_stats *st;
    const tp_track_index *ix;
    penc main;             /* MAIN_SEQ, written straight into the output */
    counter_map cm;
    tp_strset series;      /* counter track names */
    tp_buf key;
    int64_t shift;         /* added to base_ns + ts so no timestamp is negative */
    uint64_t *puuid;       /* process index -> track uuid */
    uint64_t *tuuid;       /* track index -> track uuid (0: not written) */
    uint64_t counter_base; /* uuid of counter 0 */
    uint64_t global_uuid;  /* track of global instants */
    tp_pf_flows flows;
    /* the counter event being written (callback context) */
    uint32_t cur_process;
    int64_t cur_ts;
    tp_str cur_name;
    bool cur_emit;
} pfw;

static int64_t abs_ts(const pfw *w, int64_t ts) { return w->t->base_ns + ts + w->shift; }

/* ---- interning ---- */

static uint64_t intern_id(interner *in, uint32_t s)
{
    if ((size_t)s >= in->cap) {
        size_t old = in->cap;
        TP_GROW(in->iid, in->cap, (size_t)s + 1);
        memset(in->iid + old, 0, (in->cap - old) * sizeof *in->iid);
    }
    if (!in->iid[s]) {
        in->iid[s] = ++in->next;
        TP_GROW(in->pending, in->pending_cap, in->npending + 1);
        in->pending[in->npending++] = s;
        TP_GROW(in->used, in->used_cap, in->nused + 1);
        in->used[in->nused++] = s;
    }
    return in->iid[s];
}

static void interner_clear(interner *in)
{
    for (size_t i = 0; i < in->nused; i++)
        in->iid[in->used[i]] = 0;
    in->nused = in->npending = 0;
    in->next = 0;
}

static void interner_free(interner *in)
{
    free(in->iid);
    free(in->pending);
    free(in->used);
}

static uint64_t ann_name_iid(void *ctx, const char *key, size_t len)
{
    penc *e = ctx;
    return intern_id(&e->anns, tp_strset_add(&e->own, key, len));
}

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    for (uint64_t w; end - p >= 8; p += 8) { /* ASCII 8 bytes at a time */
        memcpy(&w, p, 8);
        if (w & 0x8080808080808080ull)
            break;
    }
    while (p < end) {
        size_t k = *p < 0x80 ? 1 : tp_utf8_seq_len(p, (size_t)(end - p));
        if (!k)
            return false;
        p += k;
    }
    return true;
}

#define OWN_NOT_VALUE (UINT32_C(1) << 31)

/* The id in `own` of a trace string (with OWN_NOT_VALUE when it is not valid
 * UTF-8: such values are written, repaired, where they occur). */
static uint32_t str_own(penc *e, tp_str s)
{
    if ((size_t)s >= e->str_own_cap) {
        size_t old = e->str_own_cap;
        TP_GROW(e->str_own, e->str_own_cap, (size_t)s + 1);
        memset(e->str_own + old, 0, (e->str_own_cap - old) * sizeof *e->str_own);
    }
    if (!e->str_own[s]) {
        const tp_trace *t = e->w->t;
        const char *p = tp_str_get(t, s);
        size_t n = tp_str_len(t, s);
        e->str_own[s] = tp_strset_add(&e->own, p, n) | (valid_utf8(p, n) ? 0 : OWN_NOT_VALUE);
    }
    return e->str_own[s];
}

/* String values are interned (InternedData.debug_annotation_string_values):
 * kernel details, op names, shapes repeat on every kernel.  A value the trace
 * interned is shared by definition; others are interned while their
 * annotation's values mostly repeat on this sequence (checked from the 64th
 * value on), up to 256 bytes each and 64 MB per sequence. */
static uint64_t value_iid(void *ctx, uint64_t name_iid, const char *s, size_t len)
{
    penc *e = ctx;
    if (len > 256 || e->vbytes > (64u << 20))
        return 0;
    if (name_iid >= e->vstats_cap) {
        size_t old = e->vstats_cap;
        TP_GROW(e->vstats, e->vstats_cap, (size_t)name_iid + 1);
        memset(e->vstats + old, 0, (e->vstats_cap - old) * sizeof *e->vstats);
    }
    value_stats *vs = &e->vstats[name_iid];
    if (vs->seen >= 64 && vs->fresh * 2 > vs->seen)
        return 0;
    if (!valid_utf8(s, len))
        return 0;
    uint32_t own = tp_strset_add(&e->own, s, len);
    uint32_t before = e->vals.next;
    uint64_t iid = intern_id(&e->vals, own);
    vs->seen++;
    if (e->vals.next != before) {
        vs->fresh++;
        e->vbytes += len;
    }
    return iid;
}

static void put_pending(penc *e, interner *in, uint32_t field, bool own)
{
    const tp_trace *t = e->w->t;
    for (size_t i = 0; i < in->npending; i++) {
        size_t m = tp_pbw_begin(e->b, field);
        tp_pbw_uint(e->b, ENTRY_IID, in->iid[in->pending[i]]);
        size_t len;
        const char *str = own ? tp_strset_get(&e->own, in->pending[i], &len) : tp_str_get(t, in->pending[i]);
        if (!own)
            len = tp_str_len(t, in->pending[i]);
        tp_pbw_utf8(e->b, ENTRY_NAME, str, len, &e->bad_utf8); /* InternedString.str is field 2 too */
        tp_pbw_end(e->b, m);
    }
    in->npending = 0;
}

/* One typed arg (tp_args_visit) as a debug annotation.  Ids are interned
 * before anything is written (name, then value: the order of the ids), so
 * that an int, a double or an interned string goes out as one short run. */
static void put_typed_arg(void *ctx, const tp_arg *a)
{
    penc *e = ctx;
    tp_buf *b = e->b;
    uint64_t name = a->key_id ? intern_id(&e->anns, str_own(e, a->key_id) & ~OWN_NOT_VALUE)
                              : ann_name_iid(e, a->key, a->klen);
    uint64_t v = 0;
    if (a->type == TP_ARG_STR) {
        if (a->s_id) {
            uint32_t own = str_own(e, a->s_id);
            v = own & OWN_NOT_VALUE ? 0 : intern_id(&e->vals, own);
        } else
            v = value_iid(e, name, a->s, a->len);
    }
    unsigned char *p = tp_pbw_room(b, 6 + 15 + 15), *base = (unsigned char *)b->data;
    size_t m = tp_pbw_at_begin(&p, base, TE_DEBUG_ANNOTATIONS);
    p = tp_pbw_at_uint(p, DA_NAME_IID, name);
    switch (a->type) {
    case TP_ARG_INT:
        p = tp_pbw_at_uint(p, DA_INT, (uint64_t)a->i);
        break;
    case TP_ARG_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &a->d, sizeof bits);
        p = tp_pbw_at_fixed64(p, DA_DOUBLE, bits);
        break;
    }
    case TP_ARG_STR:
        if (v) {
            p = tp_pbw_at_uint(p, DA_STRING_IID, v);
            break;
        }
        tp_pbw_done(b, p); /* repaired silently, as the JSON writer's text of these args is */
        tp_pbw_utf8(b, DA_STRING, a->s, a->len, NULL);
        tp_pbw_end(b, m);
        return;
    default:
        tp_pbw_done(b, p);
        tp_pbw_utf8(b, DA_LEGACY_JSON, a->s, a->len, NULL);
        tp_pbw_end(b, m);
        return;
    }
    tp_pbw_at_end_short(base, m, p); /* at most 30 bytes */
    tp_pbw_done(b, p);
}

/* ---- packets ---- */

static void penc_init(penc *e, const pfw *w, tp_buf *b, bool cursor)
{
    memset(e, 0, sizeof *e);
    e->w = w;
    e->b = b;
    if (cursor)
        e->cursor = tp_args_cursor_new(w->t);
}

static void penc_free(penc *e)
{
    interner_free(&e->names);
    interner_free(&e->cats);
    interner_free(&e->anns);
    interner_free(&e->vals);
    tp_strset_free(&e->own);
    free(e->str_own);
    free(e->vstats);
    tp_args_cursor_free(e->w->t, e->cursor);
    tp_buf_free(&e->scratch);
    free(e->stack);
}

static size_t packet_begin(penc *e)
{
    return tp_pbw_begin(e->b, TRACE_PACKET);
}

/* ts: absolute ns.  On an incremental sequence a time before the last one
 * (only a slice cut at its parent's end can be) is written absolute on the
 * default clock.  At most 2 * 15 bytes at p. */
static unsigned char *put_time_at(penc *e, unsigned char *p, int64_t ts)
{
    if (!e->incremental)
        return tp_pbw_at_uint(p, TP_TIMESTAMP, (uint64_t)ts);
    if (ts >= e->last) {
        p = tp_pbw_at_uint(p, TP_TIMESTAMP, (uint64_t)(ts - e->last));
        e->last = ts;
        return p;
    }
    p = tp_pbw_at_uint(p, TP_TIMESTAMP, (uint64_t)ts);
    return tp_pbw_at_uint(p, TP_TIMESTAMP_CLOCK, PF_CLOCK_BOOTTIME);
}

static void put_time(penc *e, int64_t ts)
{
    tp_pbw_done(e->b, put_time_at(e, tp_pbw_room(e->b, 2 * 15), ts));
}

static bool interned_pending(const penc *e)
{
    return e->names.npending || e->cats.npending || e->anns.npending || e->vals.npending;
}

/* A packet's last fields, its sequence and flags: at most 2 * 15 bytes at p. */
static unsigned char *put_sequence_at(penc *e, unsigned char *p, bool uses_state)
{
    p = tp_pbw_at_uint(p, TP_SEQ_ID, e->seq);
    uint64_t flags = (e->first ? SEQ_CLEARED : 0) | (uses_state ? SEQ_NEEDS : 0);
    if (flags)
        p = tp_pbw_at_uint(p, TP_SEQ_FLAGS, flags);
    e->first = false;
    e->packets++;
    return p;
}

static void packet_end(penc *e, size_t mark, bool uses_state)
{
    if (interned_pending(e)) {
        size_t m = tp_pbw_begin(e->b, TP_INTERNED);
        put_pending(e, &e->cats, ID_CATEGORIES, false);
        put_pending(e, &e->names, ID_NAMES, false);
        put_pending(e, &e->anns, ID_ANNOTATION_NAMES, true);
        put_pending(e, &e->vals, ID_ANNOTATION_STRINGS, true);
        tp_pbw_end(e->b, m);
    }
    tp_pbw_done(e->b, put_sequence_at(e, tp_pbw_room(e->b, 2 * 15), uses_state));
    tp_pbw_end(e->b, mark);
}

/* The first packet of a chunk's sequence: incremental state cleared, its
 * clock (deltas from t0, which is t0 on the default clock: no conversion)
 * and the track as the default of its events. */
static void sequence_begin(penc *e, uint32_t seq, uint64_t track, int64_t t0)
{
    e->seq = seq;
    e->first = true;
    e->incremental = true;
    e->last = t0;
    interner_clear(&e->names);
    interner_clear(&e->cats);
    interner_clear(&e->anns);
    interner_clear(&e->vals);
    if (e->vstats)
        memset(e->vstats, 0, e->vstats_cap * sizeof *e->vstats);
    e->vbytes = 0;
    if (e->own.data.len > (64u << 20)) { /* a cache only: forgetting it changes no output */
        tp_strset_free(&e->own);
        if (e->str_own)
            memset(e->str_own, 0, e->str_own_cap * sizeof *e->str_own);
    }
    tp_buf *b = e->b;
    size_t pk = packet_begin(e);
    size_t cs = tp_pbw_begin(b, TP_CLOCK_SNAPSHOT);
    size_t c = tp_pbw_begin(b, CS_CLOCKS);
    tp_pbw_uint(b, CLK_ID, PF_CLOCK_SEQ);
    tp_pbw_uint(b, CLK_TIMESTAMP, (uint64_t)t0);
    tp_pbw_uint(b, CLK_INCREMENTAL, 1);
    tp_pbw_end(b, c);
    c = tp_pbw_begin(b, CS_CLOCKS);
    tp_pbw_uint(b, CLK_ID, PF_CLOCK_BOOTTIME);
    tp_pbw_uint(b, CLK_TIMESTAMP, (uint64_t)t0);
    tp_pbw_end(b, c);
    tp_pbw_end(b, cs);
    size_t d = tp_pbw_begin(b, TP_DEFAULTS);
    tp_pbw_uint(b, DEF_TIMESTAMP_CLOCK, PF_CLOCK_SEQ);
    size_t ted = tp_pbw_begin(b, DEF_TRACK_EVENT);
    tp_pbw_uint(b, TED_TRACK_UUID, track);
    tp_pbw_end(b, ted);
    tp_pbw_end(b, d);
    packet_end(e, pk, false);
}

/* ---- track descriptors (main sequence) ---- */

/* A pid or tid Perfetto can take as a real process or thread: int32, and not
 * 0 (in a protobuf trace pid/tid 0 is the kernel's idle "swapper": threads
 * get that name).  Kineto puts GPUs at pid 0, 1, ... and spans at tid 0. */
static bool real_id(int64_t v) { return v > 0 && v <= INT32_MAX; }

static void put_str_field(penc *e, uint32_t field, tp_str s)
{
    tp_pbw_utf8(e->b, field, tp_str_get(e->w->t, s), tp_str_len(e->w->t, s), &e->bad_utf8);
}

static void main_packet_end(pfw *w, size_t mark, bool uses_state)
{
    packet_end(&w->main, mark, uses_state);
    tp_out_maybe_flush(w->o);
}

static void put_process_desc(pfw *w, uint32_t p, int rank)
{
    penc *e = &w->main;
    const tp_process *pr = &w->t->processes[p];
    tp_str name = pr->name ? pr->name : pr->key;
    size_t pk = packet_begin(e);
    size_t td = tp_pbw_begin(e->b, TP_TRACK_DESC);
    tp_pbw_uint(e->b, TD_UUID, w->puuid[p]);
    if (real_id(pr->pid)) {
        size_t pd = tp_pbw_begin(e->b, TD_PROCESS);
        tp_pbw_int(e->b, PD_PID, pr->pid);
        if (name)
            put_str_field(e, PD_NAME, name);
        tp_pbw_end(e->b, pd);
    } else {
        /* a plain track that groups the process's tracks: "<name> (pid N)" */
        w->key.len = 0;
        if (name) {
            tp_buf_put(&w->key, tp_str_get(w->t, name), tp_str_len(w->t, name));
            tp_buf_printf(&w->key, " (pid %lld)", (long long)pr->pid);
        } else
            tp_buf_printf(&w->key, "Process %lld", (long long)pr->pid);
        tp_pbw_utf8(e->b, TD_NAME, w->key.data, w->key.len, &e->bad_utf8);
    }
    tp_pbw_uint(e->b, TD_CHILD_ORDERING, ORDER_EXPLICIT);
    tp_pbw_int(e->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(e->b, td);
    main_packet_end(w, pk, false);
    w->st->tracks++;
}

static void put_track_desc(pfw *w, uint32_t k, int rank)
{
    penc *e = &w->main;
    const tp_track *tk = &w->t->tracks[k];
    const tp_process *pr = &w->t->processes[tk->process];
    tp_str name = tk->name ? tk->name : tk->key;
    /* host threads only: device streams repeat tids across GPUs (stream 7 on
     * every device), and Perfetto keys threads by tid */
    bool thread = tk->role == TP_TRACK_HOST && real_id(pr->pid) && real_id(tk->tid);
    size_t pk = packet_begin(e);
    size_t td = tp_pbw_begin(e->b, TP_TRACK_DESC);
    tp_pbw_uint(e->b, TD_UUID, w->tuuid[k]);
    if (thread) {
        size_t d = tp_pbw_begin(e->b, TD_THREAD);
        tp_pbw_int(e->b, THD_PID, pr->pid);
        tp_pbw_int(e->b, THD_TID, tk->tid);
        if (name)
            put_str_field(e, THD_NAME, name);
        tp_pbw_end(e->b, d);
    } else {
        tp_pbw_uint(e->b, TD_PARENT, w->puuid[tk->process]);
        if (name)
            put_str_field(e, TD_NAME, name);
        else {
            char tmp[48];
            snprintf(tmp, sizeof tmp, "%lld", (long long)tk->tid);
            tp_pbw_bytes(e->b, TD_NAME, tmp, strlen(tmp));
        }
    }
    tp_pbw_int(e->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(e->b, td);
    main_packet_end(w, pk, false);
    w->st->tracks++;
}

static void put_named_desc(pfw *w, uint64_t uuid, uint64_t parent, const char *name, size_t nlen, bool counter,
                           int rank)
{
    penc *e = &w->main;
    size_t pk = packet_begin(e);
    size_t td = tp_pbw_begin(e->b, TP_TRACK_DESC);
    tp_pbw_uint(e->b, TD_UUID, uuid);
    if (parent)
        tp_pbw_uint(e->b, TD_PARENT, parent);
    tp_pbw_utf8(e->b, TD_NAME, name, nlen, &e->bad_utf8);
    if (counter)
        tp_pbw_bytes(e->b, TD_COUNTER, "", 0); /* an empty CounterDescriptor */
    tp_pbw_int(e->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(e->b, td);
    main_packet_end(w, pk, false);
    w->st->tracks++;
}

/* ---- counters (main sequence) ---- */

static uint32_t *counter_slot(counter_map *cm, uint32_t process, uint32_t name, bool *found)
{
    if (cm->n * 2 + 2 > cm->cap) {
        size_t ncap = cm->cap ? cm->cap * 2 : 64;
        uint64_t *nk = tp_xcalloc(ncap, sizeof *nk);
        uint32_t *nv = tp_xmalloc(ncap * sizeof *nv);
        for (size_t i = 0; i < cm->cap; i++)
            if (cm->keys[i]) {
                size_t h = (size_t)((cm->keys[i] * 0x9E3779B97F4A7C15ull) >> 20) & (ncap - 1);
                while (nk[h])
                    h = (h + 1) & (ncap - 1);
                nk[h] = cm->keys[i];
                nv[h] = cm->vals[i];
            }
        free(cm->keys);
        free(cm->vals);
        cm->keys = nk;
        cm->vals = nv;
        cm->cap = ncap;
    }
    uint64_t key = (((uint64_t)process << 32) | name) + 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cm->cap - 1);
    while (cm->keys[h] && cm->keys[h] != key)
        h = (h + 1) & (cm->cap - 1);
    *found = cm->keys[h] == key;
    if (!*found) {
        cm->keys[h] = key;
        cm->n++;
    }
    return &cm->vals[h];
}

static void on_counter_value(void *ctx, const char *key, size_t klen, double v)
{
    pfw *w = ctx;
    /* track name as Perfetto's JSON importer names it: "<event name> <key>" */
    w->key.len = 0;
    tp_buf_put(&w->key, tp_str_get(w->t, w->cur_name), tp_str_len(w->t, w->cur_name));
    tp_buf_putc(&w->key, ' ');
    tp_buf_put(&w->key, key, klen);
    uint32_t s = tp_strset_add(&w->series, w->key.data, w->key.len);
    bool found;
    uint32_t *slot = counter_slot(&w->cm, w->cur_process, s, &found);
    if (!found) {
        uint32_t c = (uint32_t)(w->cm.n - 1);
        *slot = c;
        TP_GROW(w->cm.process, w->cm.list_cap, w->cm.n);
        w->cm.name = tp_xrealloc(w->cm.name, w->cm.list_cap * sizeof *w->cm.name);
        w->cm.process[c] = w->cur_process;
        w->cm.name[c] = s;
    }
    if (!w->cur_emit)
        return;
    penc *e = &w->main;
    size_t pk = packet_begin(e);
    put_time(e, abs_ts(w, w->cur_ts));
    size_t te = tp_pbw_begin(e->b, TP_TRACK_EVENT);
    tp_pbw_uint(e->b, TE_TYPE, TYPE_COUNTER);
    tp_pbw_uint(e->b, TE_TRACK_UUID, w->counter_base + *slot);
    tp_pbw_double(e->b, TE_DOUBLE_COUNTER, v);
    tp_pbw_end(e->b, te);
    main_packet_end(w, pk, false);
    w->st->counter_values++;
}

/* Run the counter event's values through on_counter_value (registering its
 * series; writing packets when emit). */
static void counter_event(pfw *w, const tp_event *e, bool emit)
{
    const char *args, *extra;
    size_t alen, elen;
    tp_args_split(w->t, e->args, &args, &alen, &extra, &elen);
    if (!alen)
        return;
    w->cur_process = w->t->tracks[e->track].process;
    w->cur_ts = e->ts;
    w->cur_name = e->name;
    w->cur_emit = emit;
    if (tp_pf_counter_values(args, alen, on_counter_value, w, &w->main.scratch) < 0 && emit)
        w->main.invalid_args++;
}

/* ---- track events ---- */

/* track: its uuid, or 0 for the sequence's default track.  The fields
 * around the args go out as short runs (pbwrite.h's cursor); an END packet
 * is one run. */
static void put_event(penc *e, uint32_t i, int type, int64_t ts, uint64_t track)
{
    const pfw *w = e->w;
    const tp_trace *t = w->t;
    const tp_event *ev = &t->events[i];
    tp_buf *b = e->b;
    uint64_t name = 0, cat = 0;
    if (type != TYPE_END) { /* ids before the args' (the order of the ids) */
        name = intern_id(&e->names, ev->name);
        if (ev->cat)
            cat = intern_id(&e->cats, ev->cat);
    }
    unsigned char *p = tp_pbw_room(b, 6 + 2 * 15 + 6 + 4 * 15), *base = (unsigned char *)b->data;
    size_t pk = tp_pbw_at_begin(&p, base, TRACE_PACKET);
    p = put_time_at(e, p, abs_ts(w, ts));
    size_t te = tp_pbw_at_begin(&p, base, TP_TRACK_EVENT);
    p = tp_pbw_at_uint(p, TE_TYPE, (uint64_t)type);
    if (track)
        p = tp_pbw_at_uint(p, TE_TRACK_UUID, track);
    if (type == TYPE_END) {
        if (!interned_pending(e)) { /* (none is, after any packet) the whole packet in one run */
            tp_pbw_at_end_short(base, te, p); /* at most 31 bytes */
            p = put_sequence_at(e, p, true);
            tp_pbw_at_end_short(base, pk, p); /* at most 93 bytes */
            tp_pbw_done(b, p);
            return;
        }
        tp_pbw_done(b, p);
    } else {
        p = tp_pbw_at_uint(p, TE_NAME_IID, name);
        if (ev->cat)
            p = tp_pbw_at_uint(p, TE_CATEGORY_IIDS, cat);
        tp_pbw_done(b, p);
        const char *args = NULL, *extra;
        size_t alen = 0, elen;
        int v = ev->args ? tp_args_visit(t, e->cursor, ev->args, put_typed_arg, e) : 1;
        if (v == 0) /* args text: in the arena, or the input file's via this thread's cursor */
            tp_args_split_r(t, e->cursor, NULL, ev->args, &args, &alen, &extra, &elen);
        else if (v < 0) { /* the source could not render them: say so (tp_args_get is not for threads) */
            args = "args not available";
            alen = strlen(args);
        }
        if (alen &&
            (v < 0 || tp_pf_put_args(b, args, alen, ann_name_iid, value_iid, e, &e->scratch, &e->bad_utf8) < 0)) {
            size_t m = tp_pbw_begin(b, TE_DEBUG_ANNOTATIONS);
            tp_pbw_uint(b, DA_NAME_IID, ann_name_iid(e, "invalid_args", 12));
            tp_pbw_utf8(b, DA_STRING, args, alen, &e->bad_utf8);
            tp_pbw_end(b, m);
            e->invalid_args++;
        }
        if (type == TYPE_BEGIN) {
            uint32_t one;
            const uint32_t *ids;
            size_t n = tp_pf_flow_ids(&w->flows, i, &one, &ids);
            for (size_t q = 0; q < n; q++)
                tp_pbw_fixed64(b, TE_FLOW_IDS, ids[q]);
        }
    }
    tp_pbw_end(b, te);
    packet_end(e, pk, true);
}

/* Does the open slice s still enclose an event starting at e? (the rule of
 * tp_nest_repair: a zero-length slice encloses zero-length ones at its time) */
static bool still_open(const tp_event *s, const tp_event *e)
{
    return s->ts + s->dur > e->ts || (s->dur == 0 && e->dur == 0 && s->ts == e->ts);
}

static bool thread_item(const tp_event *e)
{
    return e->ph == 'X' || (e->ph == 'i' && !(e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS)));
}

/* The slices and thread instants of ev[0..n) on the sequence's track, from an
 * empty stack to an empty stack (chunks are cut where no slice is open). */
static void write_chunk(penc *e, const uint32_t *ev, size_t n)
{
    const tp_trace *t = e->w->t;
    size_t depth = 0;
    for (size_t q = 0; q < n; q++) {
        uint32_t i = ev[q];
        const tp_event *x = &t->events[i];
        if (!thread_item(x))
            continue;
        while (depth && !still_open(&t->events[e->stack[depth - 1]], x)) {
            const tp_event *s = &t->events[e->stack[--depth]];
            put_event(e, e->stack[depth], TYPE_END, s->ts + s->dur, 0);
        }
        if (x->ph == 'i') {
            put_event(e, i, TYPE_INSTANT, x->ts, 0);
            e->instants++;
            continue;
        }
        put_event(e, i, TYPE_BEGIN, x->ts, 0);
        e->slices++;
        if (depth) { /* nesting repair gave up on this one: end it with its parent */
            const tp_event *p = &t->events[e->stack[depth - 1]];
            if (x->ts + x->dur > p->ts + p->dur) {
                e->clipped++;
                put_event(e, i, TYPE_END, p->ts + p->dur, 0);
                continue;
            }
        }
        TP_GROW(e->stack, e->scap, depth + 1);
        e->stack[depth++] = i;
    }
    while (depth) {
        const tp_event *s = &t->events[e->stack[--depth]];
        put_event(e, e->stack[depth], TYPE_END, s->ts + s->dur, 0);
    }
}

/* ---- chunks ---- */

typedef struct unit {
    uint32_t track;
    uint32_t seq;
    size_t from, n;        /* ix.ev[from .. from + n) */
    int64_t t0;            /* absolute time of its first packet */
    tp_buf out;
} unit;

/* What one walk over the index in output order finds. */
typedef struct survey {
    bool *live;      /* per track: holds slices or thread instants (it gets a descriptor and chunks) */
    bool *other;     /* per track: holds counters or process / global instants (the main sequence's) */
    bool has_global;
    unit *u;         /* the chunks, in output order */
    size_t nu;
} survey;

/* One walk in output order: which tracks hold what, counter series
 * registered (numbered in output order), events no packet carries counted,
 * every event visited for the flow plan (pftrace_flows.h), and each track's
 * slices cut into chunks of about CHUNK_EVENTS events where no slice is open
 * (the same stack rule as write_chunk). */
static void survey_and_plan(pfw *w, const uint32_t *torder, survey *sv)
{
    const tp_trace *t = w->t;
    const tp_track_index *ix = w->ix;
    sv->live = tp_xcalloc(t->ntracks + 1, sizeof *sv->live);
    sv->other = tp_xcalloc(t->ntracks + 1, sizeof *sv->other);
    size_t cap = 0;
    uint32_t *stack = NULL;
    size_t scap = 0;
    uint32_t seq = MAIN_SEQ + 1;
    size_t chunk = chunk_events();
    for (size_t j = 0; j < t->ntracks; j++) {
        uint32_t k = torder[j];
        size_t a = ix->start[k], end = ix->start[k + 1], depth = 0, items = 0;
        int64_t t0 = 0;
        for (size_t q = a; q <= end; q++) {
            /* launches are far from their device events: fetched ahead (a
             * cache miss each was most of the flow plan's time) */
            if (q + 16 < end)
                __builtin_prefetch(&t->events[ix->ev[q + 16]]);
            if (q + 8 < end) {
                uint32_t ahead = t->events[ix->ev[q + 8]].link;
                if (ahead != TP_NONE)
                    __builtin_prefetch(&t->events[ahead]);
            }
            if (q < end)
                tp_pf_flows_visit(&w->flows, t, ix->ev[q]);
            const tp_event *x = q < end ? &t->events[ix->ev[q]] : NULL;
            if (x && !thread_item(x)) {
                if (x->ph == 'C') {
                    counter_event(w, x, false);
                    sv->other[k] = true;
                } else if (x->ph == 'i') { /* process or global */
                    sv->other[k] = true;
                    sv->has_global |= (x->flags & TP_EV_INSTANT_GLOBAL) != 0;
                } else if (x->ph != 's' && x->ph != 't' && x->ph != 'f') {
                    w->st->not_written++;
                }
                continue;
            }
            if (x)
                sv->live[k] = true;
            while (x && depth && !still_open(&t->events[stack[depth - 1]], x))
                depth--;
            if (!x || (items >= chunk && depth == 0)) {
                if (items) {
                    TP_GROW(sv->u, cap, sv->nu + 1);
                    sv->u[sv->nu++] = (unit){k, seq++, a, q - a, t0, {0}};
                }
                a = q;
                items = 0;
            }
            if (!x)
                break;
            if (!items)
                t0 = abs_ts(w, x->ts);
            items++;
            if (x->ph == 'X' && !(depth && x->ts + x->dur > t->events[stack[depth - 1]].ts + t->events[stack[depth - 1]].dur)) {
                TP_GROW(stack, scap, depth + 1);
                stack[depth++] = ix->ev[q];
            }
        }
    }
    free(stack);
}

/* The chunk is encoded into a buffer header on this thread's stack: units
 * lie side by side, and two workers storing the lengths of neighbouring
 * units' buffers made their cache line bounce between the cores (a quarter
 * of the annotation writer's time). */
static void encode_unit(penc *e, unit *u)
{
    tp_buf out = u->out;
    e->b = &out;
    sequence_begin(e, u->seq, e->w->tuuid[u->track], u->t0);
    write_chunk(e, e->w->ix->ev + u->from, u->n);
    e->b = NULL;
    u->out = out;
}

/* Worker threads encode chunks into buffers of their own; the calling
 * thread writes the buffers out in order (and the main sequence's packets
 * between them), so a few chunks are in memory at once
 * (convert/base/ordered_pool.h).  Each worker has its own encoder. */
static void encode_job(void *job, int worker, void *ctx)
{
    penc *enc = ctx;
    encode_unit(&enc[worker], job);
}

static void add_counts(tp_pftrace_stats *st, const penc *e)
{
    st->packets += e->packets;
    st->slices += e->slices;
    st->instants += e->instants;
    st->clipped += e->clipped;
    st->bad_utf8 += e->bad_utf8;
    st->invalid_args += e->invalid_args;
}

static int nthreads(void)
{
    const char *s = getenv("TP_THREADS"); /* for measurements: 1 encodes on the calling thread */
    long n = s && *s ? strtol(s, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

/* The events of track k that are not its slices (counters, process and
 * global instants), on the main sequence. */
static void write_other_events(pfw *w, uint32_t k)
{
    const tp_trace *t = w->t;
    const uint32_t *ev = w->ix->ev + w->ix->start[k];
    size_t n = w->ix->start[k + 1] - w->ix->start[k];
    for (size_t q = 0; q < n; q++) {
        const tp_event *e = &t->events[ev[q]];
        if (e->ph == 'C')
            counter_event(w, e, true);
        else if (e->ph == 'i' && (e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS))) {
            put_event(&w->main, ev[q], TYPE_INSTANT, e->ts,
                      e->flags & TP_EV_INSTANT_GLOBAL ? w->global_uuid : w->puuid[t->tracks[k].process]);
            tp_out_maybe_flush(w->o);
            w->main.instants++;
        }
    }
}

static void write_events(pfw *w, const uint32_t *torder, const survey *sv)
{
    const tp_trace *t = w->t;
    size_t nu = sv->nu;
    unit *u = sv->u;
    int nw = nthreads();
    size_t window = (size_t)nw * 2 + 2;
    penc *enc = tp_xaligned_zero(64, (size_t)nw * sizeof *enc);
    for (int i = 0; i < nw; i++)
        penc_init(&enc[i], w, NULL, true);
    tp_opool *pool = tp_opool_new(nw > 1 ? nw : 0, window, encode_job, enc);
    /* buffers of written chunks, for the next ones (fresh pages cost a fault each) */
    tp_buf *spare = tp_xcalloc(window + 1, sizeof *spare);
    size_t nspare = 0, given = 0, q = 0;
    for (size_t j = 0; j < t->ntracks; j++) {
        uint32_t k = torder[j];
        for (; q < nu && u[q].track == k; q++) {
            while (given < nu && !tp_opool_full(pool)) {
                if (nspare)
                    u[given].out = spare[--nspare];
                tp_opool_give(pool, &u[given++]);
            }
            unit *x = tp_opool_take(pool); /* u[q]: taken in the order given */
            tp_out_write(w->o, x->out.data, x->out.len);
            x->out.len = 0;
            spare[nspare++] = x->out;
            memset(&x->out, 0, sizeof x->out);
        }
        if (sv->other[k])
            write_other_events(w, k);
    }
    tp_opool_free(pool);
    for (int i = 0; i < nw; i++) {
        add_counts(w->st, &enc[i]);
        penc_free(&enc[i]);
    }
    free(enc);
    for (size_t i = 0; i < nspare; i++)
        tp_buf_free(&spare[i]);
    free(spare);
}

int tp_write_pftrace(tp_trace *t, tp_out *o, tp_pftrace_stats *st)
{
    memset(st, 0, sizeof *st);
    tp_track_index ix;
    st->repaired = tp_nest_repair(t, &ix);
    tp_timing("write: nesting repaired");
    tp_assign_ids(t);
    pfw w = {0};
    w.t = t;
    w.o = o;
    w.st = st;
    w.ix = &ix;
    penc_init(&w.main, &w, tp_out_buf(o), false);
    w.main.seq = MAIN_SEQ;
    w.main.first = true;

    /* no negative timestamps: shift everything when base_ns + ts < 0 (each
     * track's first indexed event is its earliest) */
    int64_t lo = 0;
    for (size_t k = 0; k < ix.ntracks; k++)
        if (ix.start[k] < ix.start[k + 1] && t->base_ns + t->events[ix.ev[ix.start[k]]].ts < lo)
            lo = t->base_ns + t->events[ix.ev[ix.start[k]]].ts;
    w.shift = -lo;

    uint32_t *porder = tp_process_order(t);
    uint32_t *torder = tp_track_order_of(t, porder);

    survey sv = {0};
    tp_pf_flows_begin(&w.flows, t);
    survey_and_plan(&w, torder, &sv); /* (visits every event for the flow plan too) */
    tp_pf_flows_end(&w.flows, t, &ix);
    st->flows = w.flows.launch;
    st->input_flows = w.flows.input;
    st->not_written += w.flows.unbound;
    tp_timing("write: tracks surveyed, flows planned");
    const bool *live = sv.live;
    bool has_global = sv.has_global;

    w.puuid = tp_xmalloc((t->nprocesses + 1) * sizeof *w.puuid);
    w.tuuid = tp_xcalloc(t->ntracks + 1, sizeof *w.tuuid);
    uint64_t uuid = 1;
    for (size_t pi = 0; pi < t->nprocesses; pi++)
        w.puuid[porder[pi]] = uuid++;
    for (size_t j = 0; j < t->ntracks; j++)
        if (live[torder[j]])
            w.tuuid[torder[j]] = uuid++;
    w.counter_base = uuid;
    uuid += w.cm.n;
    w.global_uuid = uuid++;

    /* descriptors: processes, then each process's tracks in display order,
     * then its counters */
    for (size_t pi = 0; pi < t->nprocesses; pi++)
        put_process_desc(&w, porder[pi], (int)pi);
    if (has_global)
        put_named_desc(&w, w.global_uuid, 0, "Global instants", 15, false, (int)t->nprocesses);
    int *rank = tp_xcalloc(t->nprocesses + 1, sizeof *rank);
    for (size_t j = 0; j < t->ntracks; j++)
        if (live[torder[j]])
            put_track_desc(&w, torder[j], rank[t->tracks[torder[j]].process]++);
    for (size_t c = 0; c < w.cm.n; c++) {
        size_t len;
        const char *name = tp_strset_get(&w.series, w.cm.name[c], &len);
        put_named_desc(&w, w.counter_base + c, w.puuid[w.cm.process[c]], name, len, true,
                       rank[w.cm.process[c]]++);
    }
    free(rank);

    tp_timing("write: descriptors");
    write_events(&w, torder, &sv);
    free(sv.live);
    free(sv.other);
    free(sv.u);
    add_counts(st, &w.main);

    free(porder);
    free(torder);
    tp_track_index_free(&ix);
    free(w.puuid);
    free(w.tuuid);
    tp_pf_flows_free(&w.flows);
    free(w.cm.keys);
    free(w.cm.vals);
    free(w.cm.process);
    free(w.cm.name);
    tp_strset_free(&w.series);
    tp_buf_free(&w.key);
    penc_free(&w.main);
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool tp_pftrace_wanted(const char *path)
{
    return ends_with(path, ".pftrace") || ends_with(path, ".pftrace.gz") || ends_with(path, ".perfetto-trace") ||
           ends_with(path, ".perfetto-trace.gz");
}
