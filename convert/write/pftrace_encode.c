/* pftrace_encode.c: the .pftrace encoder: interned strings, packets and
 * their sequences, track descriptors, counters and track events (the
 * format is described at the top of pftrace_write.c and in docs/PFTRACE.md). */
#include "convert/write/pftrace_enc.h"
#include "convert/codec/pbwrite.h"
#include "convert/write/pftrace_args.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void pf_penc_init(penc *e, const pfw *w, tp_buf *b, bool cursor)
{
    memset(e, 0, sizeof *e);
    e->w = w;
    e->b = b;
    if (cursor)
        e->cursor = tp_args_cursor_new(w->t);
}

void pf_penc_free(penc *e)
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
void pf_sequence_begin(penc *e, uint32_t seq, uint64_t track, int64_t t0)
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

void pf_put_process_desc(pfw *w, uint32_t p, int rank)
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

void pf_put_track_desc(pfw *w, uint32_t k, int rank)
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

void pf_put_named_desc(pfw *w, uint64_t uuid, uint64_t parent, const char *name, size_t nlen, bool counter,
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

static void on_counter_value(void *ctx, const char *key, size_t klen, double v)
{
    pfw *w = ctx;
    /* track name as Perfetto's JSON importer names it: "<event name> <key>" */
    w->key.len = 0;
    tp_buf_put(&w->key, tp_str_get(w->t, w->cur_name), tp_str_len(w->t, w->cur_name));
    tp_buf_putc(&w->key, ' ');
    tp_buf_put(&w->key, key, klen);
    uint32_t s = tp_strset_add(&w->series, w->key.data, w->key.len);
    int64_t series_key = (int64_t)(((uint64_t)w->cur_process << 32) | s);
    uint32_t c = tp_i64map_get(&w->cm.index, series_key);
    if (c == TP_I64MAP_EMPTY) {
        c = (uint32_t)w->cm.n++;
        tp_i64map_put(&w->cm.index, series_key, c);
        TP_GROW(w->cm.process, w->cm.list_cap, w->cm.n);
        w->cm.name = tp_xrealloc(w->cm.name, w->cm.list_cap * sizeof *w->cm.name);
        w->cm.process[c] = w->cur_process;
        w->cm.name[c] = s;
    }
    TP_GROW(w->cm.val, w->cm.val_cap, w->cm.nval + 1);
    w->cm.val[w->cm.nval++] = (struct counter_value){c, v};
    w->cm.ev[w->cm.nev - 1].nval++;
}

/* The survey's visit of a counter event: its values parsed, its series
 * numbered in output order, the values kept for pf_counter_write (parsing
 * them a second time there was most of the survey's time again). */
void pf_counter_plan(pfw *w, const tp_event *e)
{
    TP_GROW(w->cm.ev, w->cm.ev_cap, w->cm.nev + 1);
    w->cm.ev[w->cm.nev++] = (struct counter_planned){0, false};
    const char *args, *extra;
    size_t alen, elen;
    tp_args_split(w->t, e->args, &args, &alen, &extra, &elen);
    if (!alen)
        return;
    w->cur_process = w->t->tracks[e->track].process;
    w->cur_name = e->name;
    if (tp_pf_counter_values(args, alen, on_counter_value, w, &w->main.scratch) < 0)
        w->cm.ev[w->cm.nev - 1].invalid = true;
}

/* Write counter event e's values (the next event pf_counter_plan met: the
 * write visits them in the survey's order). */
void pf_counter_write(pfw *w, const tp_event *e)
{
    if (w->cm.next_ev >= w->cm.nev) /* (not planned: cannot happen) */
        return;
    const struct counter_planned *pl = &w->cm.ev[w->cm.next_ev++];
    for (uint32_t j = 0; j < pl->nval; j++) {
        const struct counter_value *cv = &w->cm.val[w->cm.next_val++];
        penc *pe = &w->main;
        size_t pk = packet_begin(pe);
        put_time(pe, abs_ts(w, e->ts));
        size_t te = tp_pbw_begin(pe->b, TP_TRACK_EVENT);
        tp_pbw_uint(pe->b, TE_TYPE, TYPE_COUNTER);
        tp_pbw_uint(pe->b, TE_TRACK_UUID, w->counter_base + cv->counter);
        tp_pbw_double(pe->b, TE_DOUBLE_COUNTER, cv->v);
        tp_pbw_end(pe->b, te);
        main_packet_end(w, pk, false);
        w->st->counter_values++;
    }
    if (pl->invalid)
        w->main.invalid_args++;
}

/* ---- track events ---- */

/* track: its uuid, or 0 for the sequence's default track.  The fields
 * around the args go out as short runs (pbwrite.h's cursor); an END packet
 * is one run. */
void pf_put_event(penc *e, uint32_t i, int type, int64_t ts, uint64_t track)
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


/* The slices and thread instants of ev[0..n) on the sequence's track, from an
 * empty stack to an empty stack (chunks are cut where no slice is open). */
void pf_write_chunk(penc *e, const uint32_t *ev, size_t n)
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
            pf_put_event(e, e->stack[depth], TYPE_END, s->ts + s->dur, 0);
        }
        if (x->ph == 'i') {
            pf_put_event(e, i, TYPE_INSTANT, x->ts, 0);
            e->instants++;
            continue;
        }
        pf_put_event(e, i, TYPE_BEGIN, x->ts, 0);
        e->slices++;
        if (depth) { /* nesting repair gave up on this one: end it with its parent */
            const tp_event *p = &t->events[e->stack[depth - 1]];
            if (x->ts + x->dur > p->ts + p->dur) {
                e->clipped++;
                pf_put_event(e, i, TYPE_END, p->ts + p->dur, 0);
                continue;
            }
        }
        TP_GROW(e->stack, e->scap, depth + 1);
        e->stack[depth++] = i;
    }
    while (depth) {
        const tp_event *s = &t->events[e->stack[--depth]];
        pf_put_event(e, e->stack[depth], TYPE_END, s->ts + s->dur, 0);
    }
}
