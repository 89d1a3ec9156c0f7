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
 * - names, categories and annotation names interned on the one packet
 *   sequence (incremental state cleared on the first packet);
 * - launch flows and the input's own flows as flow_ids on their slices
 *   (pftrace_flows.c);
 * - absolute timestamps in ns (base_ns + ts) on the default (boot time) clock.
 * Same bytes for the same input: every id is numbered in output order. */
#include "pftrace_write.h"
#include "pbwrite.h"
#include "pftrace_args.h"
#include "json_write.h"
#include "pftrace_flows.h"
#include "strset.h"
#include "tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field numbers (perfetto protos; table in docs/PFTRACE.md). */
enum {
    TRACE_PACKET = 1,
    TP_TIMESTAMP = 8,
    TP_SEQ_ID = 10,
    TP_TRACK_EVENT = 11,
    TP_INTERNED = 12,
    TP_SEQ_FLAGS = 13,
    TP_TRACK_DESC = 60,
    SEQ_CLEARED = 1,
    SEQ_NEEDS = 2,

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

#define SEQ_ID 1

/* Interned strings of one kind: string id (a tp_str, or an id in the
 * writer's own strset for annotation names) -> iid (0 = not yet), and the
 * ones first used by the packet being written. */
typedef struct interner {
    uint32_t *iid;
    size_t cap;
    uint32_t next;
    tp_str *pending;
    size_t npending, pending_cap;
} interner;

/* Counter series: (process, "name key") -> counter index, open addressing. */
typedef struct counter_map {
    uint64_t *keys; /* (process << 32 | str) + 1, 0 = empty */
    uint32_t *vals;
    size_t cap, n;
    uint32_t *process; /* per counter: process index */
    uint32_t *name;    /* per counter: track name (id in pfw.own) */
    size_t list_cap;
} counter_map;

/* How often an annotation's string values repeat (indexed by its name iid):
 * values of a name whose values are mostly new are no longer interned. */
typedef struct value_stats {
    uint32_t seen, fresh;
} value_stats;

typedef struct pfw {
    tp_trace *t;
    tp_out *o;
    tp_buf *b;
    tp_pftrace_stats *st;
    interner names, cats, anns, vals; /* names, cats: tp_str ids; anns, vals: ids in `own` */
    tp_strset own; /* annotation names, string values, counter names: the trace's pools do not grow while writing */
    uint32_t *str_own; /* tp_str -> id in `own` (0 unknown; OWN_NOT_VALUE: not a valid UTF-8 value) */
    size_t str_own_cap;
    value_stats *vstats;
    size_t vstats_cap;
    counter_map cm;
    tp_buf scratch, key;
    int64_t shift;        /* added to base_ns + ts so no timestamp is negative */
    bool first_packet;
    uint64_t *puuid;      /* process index -> track uuid */
    uint64_t *tuuid;      /* track index -> track uuid (0: not written) */
    uint64_t counter_base; /* uuid of counter 0 */
    uint64_t global_uuid; /* track of global instants */
    tp_pf_flows flows;
    /* the counter event being written (callback context) */
    uint32_t cur_process;
    int64_t cur_ts;
    tp_str cur_name;
    bool cur_emit;
} pfw;

/* ---- interning ---- */

static uint64_t intern_id(interner *in, tp_str s)
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
    }
    return in->iid[s];
}

static void interner_free(interner *in)
{
    free(in->iid);
    free(in->pending);
}

static uint64_t ann_name_iid(void *ctx, const char *key, size_t len)
{
    pfw *w = ctx;
    return intern_id(&w->anns, tp_strset_add(&w->own, key, len));
}

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
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
static uint32_t str_own(pfw *w, tp_str s)
{
    if ((size_t)s >= w->str_own_cap) {
        size_t old = w->str_own_cap;
        TP_GROW(w->str_own, w->str_own_cap, (size_t)s + 1);
        memset(w->str_own + old, 0, (w->str_own_cap - old) * sizeof *w->str_own);
    }
    if (!w->str_own[s]) {
        const char *p = tp_str_get(w->t, s);
        size_t n = tp_str_len(w->t, s);
        w->str_own[s] = tp_strset_add(&w->own, p, n) | (valid_utf8(p, n) ? 0 : OWN_NOT_VALUE);
    }
    return w->str_own[s];
}

/* String values are interned (InternedData.debug_annotation_string_values):
 * kernel details, op names, shapes repeat on every kernel.  A value the trace
 * interned is shared by definition; others are interned while their
 * annotation's values mostly repeat (checked from the 64th value on) and
 * while the writer's own strings stay below 256 MB. */
static uint64_t value_iid(void *ctx, uint64_t name_iid, const char *s, size_t len)
{
    pfw *w = ctx;
    if (len > 256 || w->own.data.len > (256u << 20))
        return 0;
    if (name_iid >= w->vstats_cap) {
        size_t old = w->vstats_cap;
        TP_GROW(w->vstats, w->vstats_cap, (size_t)name_iid + 1);
        memset(w->vstats + old, 0, (w->vstats_cap - old) * sizeof *w->vstats);
    }
    value_stats *vs = &w->vstats[name_iid];
    if (vs->seen >= 64 && vs->fresh * 2 > vs->seen)
        return 0;
    if (!valid_utf8(s, len))
        return 0;
    size_t before = w->own.n;
    uint32_t own = tp_strset_add(&w->own, s, len);
    vs->seen++;
    vs->fresh += w->own.n != before;
    return intern_id(&w->vals, own);
}

static void put_pending(pfw *w, interner *in, uint32_t field, bool own)
{
    for (size_t i = 0; i < in->npending; i++) {
        size_t m = tp_pbw_begin(w->b, field);
        tp_pbw_uint(w->b, ENTRY_IID, in->iid[in->pending[i]]);
        size_t len;
        const char *str = own ? tp_strset_get(&w->own, in->pending[i], &len) : tp_str_get(w->t, in->pending[i]);
        if (!own)
            len = tp_str_len(w->t, in->pending[i]);
        tp_pbw_utf8(w->b, ENTRY_NAME, str, len, &w->st->bad_utf8); /* InternedString.str is field 2 too */
        tp_pbw_end(w->b, m);
    }
    in->npending = 0;
}

/* One typed arg (external args, tp_args_visit) as a debug annotation. */
static void put_typed_arg(void *ctx, const tp_arg *a)
{
    pfw *w = ctx;
    tp_buf *b = w->b;
    uint64_t name = a->key_id ? intern_id(&w->anns, str_own(w, a->key_id) & ~OWN_NOT_VALUE)
                              : ann_name_iid(w, a->key, a->klen);
    size_t m = tp_pbw_begin(b, TE_DEBUG_ANNOTATIONS);
    tp_pbw_uint(b, DA_NAME_IID, name);
    switch (a->type) {
    case TP_ARG_INT:
        tp_pbw_int(b, DA_INT, a->i);
        break;
    case TP_ARG_DOUBLE:
        tp_pbw_double(b, DA_DOUBLE, a->d);
        break;
    case TP_ARG_STR: {
        uint64_t v = 0;
        if (a->s_id) {
            uint32_t own = str_own(w, a->s_id);
            v = own & OWN_NOT_VALUE ? 0 : intern_id(&w->vals, own);
        } else
            v = value_iid(w, name, a->s, a->len);
        if (v)
            tp_pbw_uint(b, DA_STRING_IID, v);
        else /* repaired silently, as the JSON writer's text of these args is */
            tp_pbw_utf8(b, DA_STRING, a->s, a->len, NULL);
        break;
    }
    default:
        tp_pbw_utf8(b, DA_LEGACY_JSON, a->s, a->len, NULL);
        break;
    }
    tp_pbw_end(b, m);
}

/* ---- packets ---- */

static size_t packet_begin(pfw *w)
{
    return tp_pbw_begin(w->b, TRACE_PACKET);
}

static void put_ts(pfw *w, int64_t ts)
{
    tp_pbw_uint(w->b, TP_TIMESTAMP, (uint64_t)(w->t->base_ns + ts + w->shift));
}

static void packet_end(pfw *w, size_t mark, bool uses_state)
{
    if (w->names.npending || w->cats.npending || w->anns.npending || w->vals.npending) {
        size_t m = tp_pbw_begin(w->b, TP_INTERNED);
        put_pending(w, &w->cats, ID_CATEGORIES, false);
        put_pending(w, &w->names, ID_NAMES, false);
        put_pending(w, &w->anns, ID_ANNOTATION_NAMES, true);
        put_pending(w, &w->vals, ID_ANNOTATION_STRINGS, true);
        tp_pbw_end(w->b, m);
    }
    tp_pbw_uint(w->b, TP_SEQ_ID, SEQ_ID);
    uint64_t flags = (w->first_packet ? SEQ_CLEARED : 0) | (uses_state ? SEQ_NEEDS : 0);
    if (flags)
        tp_pbw_uint(w->b, TP_SEQ_FLAGS, flags);
    w->first_packet = false;
    tp_pbw_end(w->b, mark);
    w->st->packets++;
    tp_out_maybe_flush(w->o);
}

/* ---- track descriptors ---- */

/* A pid or tid Perfetto can take as a real process or thread: int32, and not
 * 0 (in a protobuf trace pid/tid 0 is the kernel's idle "swapper": threads
 * get that name).  Kineto puts GPUs at pid 0, 1, ... and spans at tid 0. */
static bool real_id(int64_t v) { return v > 0 && v <= INT32_MAX; }

static void put_str_field(pfw *w, uint32_t field, tp_str s)
{
    tp_pbw_utf8(w->b, field, tp_str_get(w->t, s), tp_str_len(w->t, s), &w->st->bad_utf8);
}

static void put_process_desc(pfw *w, uint32_t p, int rank)
{
    const tp_process *pr = &w->t->processes[p];
    tp_str name = pr->name ? pr->name : pr->key;
    size_t pk = packet_begin(w);
    size_t td = tp_pbw_begin(w->b, TP_TRACK_DESC);
    tp_pbw_uint(w->b, TD_UUID, w->puuid[p]);
    if (real_id(pr->pid)) {
        size_t pd = tp_pbw_begin(w->b, TD_PROCESS);
        tp_pbw_int(w->b, PD_PID, pr->pid);
        if (name)
            put_str_field(w, PD_NAME, name);
        tp_pbw_end(w->b, pd);
    } else {
        /* a plain track that groups the process's tracks: "<name> (pid N)" */
        w->key.len = 0;
        if (name) {
            tp_buf_put(&w->key, tp_str_get(w->t, name), tp_str_len(w->t, name));
            tp_buf_printf(&w->key, " (pid %lld)", (long long)pr->pid);
        } else
            tp_buf_printf(&w->key, "Process %lld", (long long)pr->pid);
        tp_pbw_utf8(w->b, TD_NAME, w->key.data, w->key.len, &w->st->bad_utf8);
    }
    tp_pbw_uint(w->b, TD_CHILD_ORDERING, ORDER_EXPLICIT);
    tp_pbw_int(w->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(w->b, td);
    packet_end(w, pk, false);
    w->st->tracks++;
}

static void put_track_desc(pfw *w, uint32_t k, int rank)
{
    const tp_track *tk = &w->t->tracks[k];
    const tp_process *pr = &w->t->processes[tk->process];
    tp_str name = tk->name ? tk->name : tk->key;
    /* host threads only: device streams repeat tids across GPUs (stream 7 on
     * every device), and Perfetto keys threads by tid */
    bool thread = tk->role == TP_TRACK_HOST && real_id(pr->pid) && real_id(tk->tid);
    size_t pk = packet_begin(w);
    size_t td = tp_pbw_begin(w->b, TP_TRACK_DESC);
    tp_pbw_uint(w->b, TD_UUID, w->tuuid[k]);
    if (thread) {
        size_t d = tp_pbw_begin(w->b, TD_THREAD);
        tp_pbw_int(w->b, THD_PID, pr->pid);
        tp_pbw_int(w->b, THD_TID, tk->tid);
        if (name)
            put_str_field(w, THD_NAME, name);
        tp_pbw_end(w->b, d);
    } else {
        tp_pbw_uint(w->b, TD_PARENT, w->puuid[tk->process]);
        if (name)
            put_str_field(w, TD_NAME, name);
        else {
            char tmp[48];
            snprintf(tmp, sizeof tmp, "%lld", (long long)tk->tid);
            tp_pbw_bytes(w->b, TD_NAME, tmp, strlen(tmp));
        }
    }
    tp_pbw_int(w->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(w->b, td);
    packet_end(w, pk, false);
    w->st->tracks++;
}

static void put_named_desc(pfw *w, uint64_t uuid, uint64_t parent, const char *name, size_t nlen, bool counter,
                           int rank)
{
    size_t pk = packet_begin(w);
    size_t td = tp_pbw_begin(w->b, TP_TRACK_DESC);
    tp_pbw_uint(w->b, TD_UUID, uuid);
    if (parent)
        tp_pbw_uint(w->b, TD_PARENT, parent);
    tp_pbw_utf8(w->b, TD_NAME, name, nlen, &w->st->bad_utf8);
    if (counter)
        tp_pbw_bytes(w->b, TD_COUNTER, "", 0); /* an empty CounterDescriptor */
    tp_pbw_int(w->b, TD_SIBLING_RANK, rank);
    tp_pbw_end(w->b, td);
    packet_end(w, pk, false);
    w->st->tracks++;
}

/* ---- counters ---- */

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
    uint32_t s = tp_strset_add(&w->own, w->key.data, w->key.len);
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
    size_t pk = packet_begin(w);
    put_ts(w, w->cur_ts);
    size_t te = tp_pbw_begin(w->b, TP_TRACK_EVENT);
    tp_pbw_uint(w->b, TE_TYPE, TYPE_COUNTER);
    tp_pbw_uint(w->b, TE_TRACK_UUID, w->counter_base + *slot);
    tp_pbw_double(w->b, TE_DOUBLE_COUNTER, v);
    tp_pbw_end(w->b, te);
    packet_end(w, pk, false);
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
    if (tp_pf_counter_values(args, alen, on_counter_value, w, &w->scratch) < 0 && emit)
        w->st->invalid_args++;
}

/* ---- track events ---- */

static void put_event(pfw *w, uint32_t i, int type, int64_t ts, uint64_t track)
{
    const tp_event *e = &w->t->events[i];
    size_t pk = packet_begin(w);
    put_ts(w, ts);
    size_t te = tp_pbw_begin(w->b, TP_TRACK_EVENT);
    tp_pbw_uint(w->b, TE_TYPE, (uint64_t)type);
    tp_pbw_uint(w->b, TE_TRACK_UUID, track);
    if (type != TYPE_END) {
        tp_pbw_uint(w->b, TE_NAME_IID, intern_id(&w->names, e->name));
        if (e->cat)
            tp_pbw_uint(w->b, TE_CATEGORY_IIDS, intern_id(&w->cats, e->cat));
        const char *args, *extra;
        size_t alen = 0, elen;
        if (e->args && tp_args_visit(w->t, e->args, put_typed_arg, w) <= 0)
            tp_args_split(w->t, e->args, &args, &alen, &extra, &elen);
        if (alen &&
            tp_pf_put_args(w->b, args, alen, ann_name_iid, value_iid, w, &w->scratch, &w->st->bad_utf8) < 0) {
            size_t m = tp_pbw_begin(w->b, TE_DEBUG_ANNOTATIONS);
            tp_pbw_uint(w->b, DA_NAME_IID, ann_name_iid(w, "invalid_args", 12));
            tp_pbw_utf8(w->b, DA_STRING, args, alen, &w->st->bad_utf8);
            tp_pbw_end(w->b, m);
            w->st->invalid_args++;
        }
        if (type == TYPE_BEGIN) {
            uint32_t one;
            const uint32_t *ids;
            size_t n = tp_pf_flow_ids(&w->flows, i, &one, &ids);
            for (size_t q = 0; q < n; q++)
                tp_pbw_fixed64(w->b, TE_FLOW_IDS, ids[q]);
        }
    }
    tp_pbw_end(w->b, te);
    packet_end(w, pk, true);
}

/* Does the open slice s still enclose an event starting at e? (the rule of
 * tp_nest_repair: a zero-length slice encloses zero-length ones at its time) */
static bool still_open(const tp_event *s, const tp_event *e)
{
    return s->ts + s->dur > e->ts || (s->dur == 0 && e->dur == 0 && s->ts == e->ts);
}

static void write_track(pfw *w, const uint32_t *ev, size_t n, uint64_t uuid, uint32_t **stack, size_t *scap)
{
    tp_trace *t = w->t;
    size_t depth = 0;
    for (size_t q = 0; q < n; q++) {
        uint32_t i = ev[q];
        const tp_event *e = &t->events[i];
        bool slice = e->ph == 'X';
        bool instant = e->ph == 'i' && !(e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS));
        if (!slice && !instant)
            continue;
        while (depth && !still_open(&t->events[(*stack)[depth - 1]], e)) {
            const tp_event *s = &t->events[(*stack)[--depth]];
            put_event(w, (*stack)[depth], TYPE_END, s->ts + s->dur, uuid);
        }
        if (instant) {
            put_event(w, i, TYPE_INSTANT, e->ts, uuid);
            w->st->instants++;
            continue;
        }
        put_event(w, i, TYPE_BEGIN, e->ts, uuid);
        w->st->slices++;
        if (depth) { /* nesting repair gave up on this one: end it with its parent */
            const tp_event *p = &t->events[(*stack)[depth - 1]];
            if (e->ts + e->dur > p->ts + p->dur) {
                w->st->clipped++;
                put_event(w, i, TYPE_END, p->ts + p->dur, uuid);
                continue;
            }
        }
        TP_GROW(*stack, *scap, depth + 1);
        (*stack)[depth++] = i;
    }
    while (depth) {
        const tp_event *s = &t->events[(*stack)[--depth]];
        put_event(w, (*stack)[depth], TYPE_END, s->ts + s->dur, uuid);
    }
}

int tp_write_pftrace(tp_trace *t, tp_out *o, tp_pftrace_stats *st)
{
    memset(st, 0, sizeof *st);
    tp_track_index ix;
    st->repaired = tp_nest_repair(t, &ix);
    tp_assign_ids(t);
    pfw w = {0};
    w.t = t;
    w.o = o;
    w.b = tp_out_buf(o);
    w.st = st;
    w.first_packet = true;

    /* no negative timestamps: shift everything when base_ns + ts < 0 */
    int64_t lo = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!(e->flags & TP_EV_DROPPED) && t->base_ns + e->ts < lo)
            lo = t->base_ns + e->ts;
    }
    w.shift = -lo;

    uint32_t *porder = tp_process_order(t);
    uint32_t *torder = tp_track_order(t);
    tp_pf_flows_plan(t, &ix, torder, &w.flows);
    st->flows = w.flows.launch;
    st->input_flows = w.flows.input;
    st->not_written += w.flows.unbound;

    /* which tracks hold slices or thread instants; what else there is */
    bool *live = tp_xcalloc(t->ntracks + 1, sizeof *live);
    bool has_global = false;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->flags & TP_EV_DROPPED)
            continue;
        if (e->ph == 'X' || (e->ph == 'i' && !(e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS))))
            live[e->track] = true;
        else if (e->ph == 'i' && (e->flags & TP_EV_INSTANT_GLOBAL))
            has_global = true;
        else if (e->ph != 'i' && e->ph != 'C' && e->ph != 's' && e->ph != 't' && e->ph != 'f')
            st->not_written++;
    }
    /* counter series, numbered in output order */
    for (size_t j = 0; j < t->ntracks; j++)
        for (size_t q = ix.start[torder[j]]; q < ix.start[torder[j] + 1]; q++) {
            const tp_event *e = &t->events[ix.ev[q]];
            if (e->ph == 'C')
                counter_event(&w, e, false);
        }

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
        const char *name = tp_strset_get(&w.own, w.cm.name[c], &len);
        put_named_desc(&w, w.counter_base + c, w.puuid[w.cm.process[c]], name, len, true,
                       rank[w.cm.process[c]]++);
    }
    free(rank);

    /* events, track by track */
    uint32_t *stack = NULL;
    size_t scap = 0;
    for (size_t j = 0; j < t->ntracks; j++) {
        uint32_t k = torder[j];
        const uint32_t *ev = ix.ev + ix.start[k];
        size_t n = ix.start[k + 1] - ix.start[k];
        if (live[k])
            write_track(&w, ev, n, w.tuuid[k], &stack, &scap);
        for (size_t q = 0; q < n; q++) {
            const tp_event *e = &t->events[ev[q]];
            if (e->ph == 'C')
                counter_event(&w, e, true);
            else if (e->ph == 'i' && (e->flags & TP_EV_INSTANT_GLOBAL)) {
                put_event(&w, ev[q], TYPE_INSTANT, e->ts, w.global_uuid);
                st->instants++;
            } else if (e->ph == 'i' && (e->flags & TP_EV_INSTANT_PROCESS)) {
                put_event(&w, ev[q], TYPE_INSTANT, e->ts, w.puuid[t->tracks[k].process]);
                st->instants++;
            }
        }
    }
    free(stack);
    free(live);
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
    interner_free(&w.names);
    interner_free(&w.cats);
    interner_free(&w.anns);
    interner_free(&w.vals);
    free(w.str_own);
    free(w.vstats);
    tp_strset_free(&w.own);
    tp_buf_free(&w.scratch);
    tp_buf_free(&w.key);
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
