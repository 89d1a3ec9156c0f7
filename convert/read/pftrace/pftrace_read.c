/* pftrace_read.c: the Perfetto protobuf trace reader (.pftrace,
 * .perfetto-trace): Trace { repeated TracePacket packet = 1 }, read whole.
 * Each packet belongs to a sequence (trusted_packet_sequence_id) whose
 * incremental state (interned strings, TracePacketDefaults, incremental
 * clocks) is reset by SEQ_INCREMENTAL_STATE_CLEARED; times go through the
 * clock snapshots onto the trace clock (BOOTTIME unless a snapshot names
 * another); compressed_packets are inflated (zlib) within a budget of
 * 64 MB + --max-inflate times the file's size for all of them together, so
 * the work per input byte stays bounded.  docs/formats/pftrace.md. */
#include "convert/read/pftrace/pftrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* TracePacket fields (trace_packet.proto) */
enum {
    PK_CLOCK_SNAPSHOT = 6,
    PK_TIMESTAMP = 8,
    PK_SEQ_ID = 10,
    PK_TRACK_EVENT = 11,
    PK_INTERNED = 12,
    PK_SEQ_FLAGS = 13,
    PK_STATE_CLEARED = 41,  /* deprecated bool form of SEQ_INCREMENTAL_STATE_CLEARED */
    PK_PROCESS_DESC = 43,
    PK_THREAD_DESC = 44,
    PK_COMPRESSED = 50,
    PK_CLOCK_ID = 58,
    PK_DEFAULTS = 59,
    PK_TRACK_DESC = 60,
    PK_ZSTD = 133,
    SEQ_CLEARED = 1,
    SEQ_NEEDS_STATE = 2,
    CLOCK_BOOTTIME = 6,
    CLOCK_SEQ_FIRST = 64, /* sequence-scoped clock ids: 64..127 */
    CLOCK_SEQ_LAST = 127,
};

/* JSON text (whitespace, then an object or an array) also starts with 0x0a
 * when its first line is empty: the name alone does not make it a trace of
 * packets (the Chrome reader's probe reads it). */
static bool json_text(const unsigned char *head, size_t n)
{
    size_t i = 0;
    while (i < n && (head[i] == '\n' || head[i] == '\r' || head[i] == ' ' || head[i] == '\t'))
        i++;
    return i < n && (head[i] == '{' || head[i] == '[');
}

static int pftrace_probe(const unsigned char *head, size_t n, const char *path)
{
    size_t pl = path ? strlen(path) : 0;
    static const char *const ext[] = {".pftrace", ".pftrace.gz", ".perfetto-trace", ".perfetto-trace.gz"};
    bool named = false;
    for (size_t i = 0; i < 4; i++) {
        size_t el = strlen(ext[i]);
        named |= pl >= el && strcmp(path + pl - el, ext[i]) == 0;
    }
    if (n < 3 || head[0] != 0x0a)
        return 0;
    /* field 1, length-delimited (a TracePacket), then a plausible first
     * field of a packet: one of those a trace's packets start with, not
     * XPlane's first fields (1, 2, 3: id, name, lines) */
    tp_pb r = tp_pb_init(head + 1, n - 1);
    uint64_t len;
    tp_err err = {0};
    if (tp_pb_varint(&r, &len, &err) != 1 || len == 0 || r.p >= r.end)
        return 0;
    uint64_t key;
    if (tp_pb_varint(&r, &key, &err) != 1)
        return 0;
    uint64_t num = key >> 3, wt = key & 7;
    /* (3: trusted_uid, first in the tracing service's packets) */
    bool packet_field = (wt == TP_PB_VARINT && (num == 3 || num == PK_TIMESTAMP || num == PK_SEQ_ID || num == PK_SEQ_FLAGS ||
                                               num == PK_CLOCK_ID || num == PK_STATE_CLEARED || num == 42 ||
                                               num == 87 || num == 79)) ||
                        (wt == TP_PB_LEN && (num == PK_CLOCK_SNAPSHOT || num == PK_TRACK_EVENT ||
                                            num == PK_INTERNED || num == PK_PROCESS_DESC || num == PK_THREAD_DESC ||
                                            num == PK_COMPRESSED || num == PK_DEFAULTS || num == PK_TRACK_DESC ||
                                            num == 33 || num == 35 || num == 36 || num == 45 || num == 69 || num == 89));
    if (!packet_field)
        return named && num > 3 && !json_text(head, n) ? 50 : 0;
    /* and the packet's fields up to the end of what is seen have field
     * numbers and wire types a message can have (text that happens to start
     * with a newline does not, for long) */
    r = tp_pb_init(head + 1, n - 1);
    tp_pb_varint(&r, &len, &err);
    if (len < (uint64_t)(r.end - r.p))
        r.end = r.p + len;
    while (r.p < r.end) {
        uint64_t k, v;
        if (tp_pb_varint(&r, &k, &err) != 1)
            break; /* cut by the end of what is seen */
        unsigned w = (unsigned)(k & 7);
        if ((k >> 3) == 0 || (w != TP_PB_VARINT && w != TP_PB_I64 && w != TP_PB_LEN && w != TP_PB_I32))
            return 0;
        if (w == TP_PB_VARINT && tp_pb_varint(&r, &v, &err) != 1)
            break;
        size_t skip = w == TP_PB_I64 ? 8 : w == TP_PB_I32 ? 4 : 0;
        if (w == TP_PB_LEN) {
            if (tp_pb_varint(&r, &v, &err) != 1)
                break;
            skip = v > (uint64_t)(r.end - r.p) ? (size_t)(r.end - r.p) : (size_t)v;
        }
        if (skip > (size_t)(r.end - r.p))
            break;
        r.p += skip;
    }
    return named ? 95 : 60;
}

/* ---- sequences and clocks ---- */

pf_seq *pf_seq_of(pf_ctx *c, uint32_t id)
{
    uint32_t i = tp_i64map_get(&c->seq_index, id);
    if (i != TP_I64MAP_EMPTY)
        return &c->seqs[i];
    TP_GROW(c->seqs, c->seqs_cap, c->nseqs + 1);
    pf_seq *s = &c->seqs[c->nseqs];
    memset(s, 0, sizeof *s);
    s->id = id;
    tp_i64map_put(&c->seq_index, id, (uint32_t)c->nseqs++);
    return s;
}

/* Incremental state cleared: interned data, defaults and sequence clocks
 * go.  A table much larger than what it holds is freed, not wiped: wiping
 * a big empty table at every clear would cost its size each time. */
static void seq_clear(pf_seq *s)
{
    if (s->interned.cap > 4 * s->interned.n + 64)
        tp_i64map_free(&s->interned);
    else if (s->interned.n)
        tp_i64map_clear(&s->interned);
    s->valid = true;
    s->gen++;
    s->def_clock = 0;
    s->has_def_track = false;
    s->nclocks = 0;
}

static pf_clock *clock_find(pf_clock *v, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return &v[i];
    return NULL;
}

bool pf_time(pf_ctx *c, pf_seq *s, uint32_t clock, uint64_t raw, int64_t *ts)
{
    if (!clock)
        clock = s && s->def_clock ? s->def_clock : 0;
    c->trace_clock_used |= clock != 0; /* a time given on no clock is trace time as it is: no use of a clock */
    if (!clock)
        clock = c->trace_clock;
    pf_clock *k = NULL;
    if (clock >= CLOCK_SEQ_FIRST && clock <= CLOCK_SEQ_LAST) {
        k = s ? clock_find(s->clocks, s->nclocks, clock) : NULL;
        if (!k) {
            tp_warn(c->t, PF_W_SEQ_CLOCK, 1);
            return false;
        }
    } else if (clock != c->trace_clock) {
        k = clock_find(c->clocks, c->nclocks, clock);
        if (!k)
            tp_warn(c->t, "pftrace: times on a clock no snapshot relates to the trace clock (read as they are)", 1);
    }
    int64_t v;
    if (raw > (uint64_t)INT64_MAX)
        return false;
    v = (int64_t)raw;
    if (k && k->incremental) {
        if (__builtin_add_overflow(k->last, v, &v))
            return false;
        k->last = v;
    }
    if (k && (__builtin_mul_overflow(v, k->mult, &v) || __builtin_add_overflow(v, k->offset, &v)))
        return false;
    if (v < TP_TS_MIN || v >= TP_TS_MAX)
        return false;
    *ts = v;
    return true;
}

/* ClockSnapshot { repeated Clock clocks = 1 {clock_id 1, timestamp 2,
 * is_incremental 3, unit_multiplier_ns 4}; primary_trace_clock 2 }: each
 * clock's offset onto the trace clock's value in the same snapshot (the
 * latest snapshot wins: one offset per clock, no drift between snapshots). */
static int clock_snapshot(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f)
{
    enum { MAXC = 32 };
    pf_clock v[MAXC];
    size_t n = 0;
    tp_pb r = tp_pb_sub(pk, f);
    tp_pb_field g, h;
    int k;
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        if (g.num == 2 && g.wt == TP_PB_VARINT && g.v && g.v <= UINT32_MAX && g.v != c->trace_clock) {
            /* times already placed on the trace clock stay where they are:
             * a later snapshot cannot move the ground under them (Perfetto's
             * ClockTracker refuses the change too) */
            if (c->trace_clock_used)
                tp_warn(c->t, "pftrace: a change of the trace clock after times were read (ignored)", 1);
            else
                c->trace_clock = (uint32_t)g.v;
        }
        if (g.num != 1 || g.wt != TP_PB_LEN)
            continue;
        if (n == MAXC) {
            tp_warn(c->t, "pftrace: clocks beyond 32 in one snapshot (not read)", 1);
            continue;
        }
        pf_clock x = {0, false, 0, 1, 0};
        tp_pb q = tp_pb_sub(&r, &g);
        while ((k = tp_pb_next(&q, &h, c->err)) == 1) {
            if (h.wt != TP_PB_VARINT)
                continue;
            if (h.num == 1 && h.v <= UINT32_MAX)
                x.id = (uint32_t)h.v;
            else if (h.num == 2)
                x.last = h.v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)h.v;
            else if (h.num == 3)
                x.incremental = h.v != 0;
            else if (h.num == 4 && h.v && h.v <= (uint64_t)1e12)
                x.mult = (int64_t)h.v;
        }
        if (k < 0)
            return -1;
        v[n++] = x;
    }
    if (k < 0)
        return -1;
    const pf_clock *ref = clock_find(v, n, c->trace_clock);
    if (!ref) {
        tp_warn(c->t, "pftrace: clock snapshots without the trace clock (not read)", 1);
        return 0;
    }
    int64_t base = ref->last;
    for (size_t i = 0; i < n; i++) {
        pf_clock x = v[i];
        if (x.id == c->trace_clock || x.id == 0)
            continue;
        int64_t scaled;
        if (__builtin_mul_overflow(x.last, x.mult, &scaled) || __builtin_sub_overflow(base, scaled, &x.offset)) {
            tp_warn(c->t, "pftrace: clock snapshot values out of range (not read)", 1);
            continue;
        }
        bool scoped = x.id >= CLOCK_SEQ_FIRST && x.id <= CLOCK_SEQ_LAST;
        if (scoped && !s)
            continue;
        pf_clock **list = scoped ? &s->clocks : &c->clocks;
        size_t *len = scoped ? &s->nclocks : &c->nclocks, *cap = scoped ? &s->clocks_cap : &c->clocks_cap;
        pf_clock *old = clock_find(*list, *len, x.id);
        if (!old && *len >= 64) { /* ids are looked up per packet: a few, not any number */
            tp_warn(c->t, "pftrace: clocks beyond 64 distinct ids (not read)", 1);
            continue;
        }
        if (!old && *len == *cap) { /* a sequence holds a clock or two: not TP_GROW's 16 */
            size_t more = *cap ? 2 * *cap : 2;
            *list = tp_xrealloc(*list, more * sizeof **list);
            *cap = more;
        }
        if (!old)
            old = &(*list)[(*len)++];
        *old = x;
    }
    return 0;
}

/* TracePacketDefaults { timestamp_clock_id 58; track_event_defaults 11 {track_uuid 11} } */
static int defaults(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f)
{
    tp_pb r = tp_pb_sub(pk, f);
    tp_pb_field g, h;
    int k;
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        if (g.num == 58 && g.wt == TP_PB_VARINT && g.v <= UINT32_MAX)
            s->def_clock = (uint32_t)g.v;
        else if (g.num == 11 && g.wt == TP_PB_LEN) {
            tp_pb q = tp_pb_sub(&r, &g);
            while ((k = tp_pb_next(&q, &h, c->err)) == 1)
                if (h.num == 11 && h.wt == TP_PB_VARINT) {
                    s->def_track = h.v;
                    s->has_def_track = true;
                }
            if (k < 0)
                return -1;
        }
    }
    return k < 0 ? -1 : 0;
}

/* ---- packets ---- */

static int read_packets(pf_ctx *c, const uint8_t *data, size_t len, int depth);

static bool over_budget(const pf_ctx *c, size_t more)
{
    return c->inflate_budget && c->inflated + more > c->inflate_budget;
}

static int budget_error(pf_ctx *c)
{
    return tp_fail(c->err, c->at,
                   "compressed_packets expand beyond %llu bytes (64 MB + %u-fold the file): a zip bomb? "
                   "(--max-inflate N raises the limit)",
                   (unsigned long long)c->inflate_budget, tp_input_max_inflate());
}

/* compressed_packets: a zlib (or gzip) stream of TracePacket fields, as the
 * Trace itself.  Inflated into this depth's buffer, within the budget. */
static int inflate_packets(pf_ctx *c, const tp_pb_field *f, int depth)
{
    if (depth + 1 >= PF_MAX_NESTING)
        return tp_fail(c->err, c->at, "compressed_packets nested more than %d deep", PF_MAX_NESTING - 1);
    tp_buf *b = &c->inflate_buf[depth];
    b->len = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return tp_fail(c->err, c->at, "cannot start zlib");
    z.next_in = (Bytef *)f->data;
    z.avail_in = f->len > UINT32_MAX ? UINT32_MAX : (uInt)f->len;
    int zr = Z_OK;
    while (zr != Z_STREAM_END) {
        if (over_budget(c, b->len)) {
            inflateEnd(&z);
            return budget_error(c);
        }
        if (b->cap - b->len < 65536)
            TP_GROW(b->data, b->cap, b->len + 65536);
        z.next_out = (Bytef *)b->data + b->len;
        size_t room = b->cap - b->len < (1u << 24) ? b->cap - b->len : (1u << 24); /* the budget is checked between steps */
        z.avail_out = (uInt)room;
        uInt before = z.avail_out;
        zr = inflate(&z, Z_NO_FLUSH);
        b->len += before - z.avail_out;
        if (zr == Z_STREAM_END)
            break;
        if (zr != Z_OK) {
            inflateEnd(&z);
            return tp_fail(c->err, c->at, "corrupt compressed_packets (%s)",
                           zr == Z_BUF_ERROR ? "the stream ends early" : z.msg ? z.msg : "inflate failed");
        }
    }
    bool trailing = z.avail_in != 0;
    inflateEnd(&z);
    if (trailing)
        tp_warn(c->t, "pftrace: bytes after a compressed_packets stream's end (not read)", 1);
    if (over_budget(c, b->len))
        return budget_error(c);
    c->inflated += b->len;
    if (read_packets(c, (const uint8_t *)b->data, b->len, depth + 1) == 0)
        return 0;
    /* offsets inside an inflated stream are not the file's: the packet's */
    snprintf(c->err->where, sizeof c->err->where, "compressed_packets at offset %llu", (unsigned long long)c->at);
    return -1;
}

static int packet(pf_ctx *c, const tp_pb *top, const tp_pb_field *pf, int depth)
{
    tp_pb r = tp_pb_sub(top, pf);
    tp_pb_field f;
    int k;
    uint32_t seq_id = 0, flags = 0, clock = 0;
    bool has_ts = false, cleared = false;
    uint64_t raw_ts = 0;
    /* the fields that set state first, wherever they are in the packet */
    while ((k = tp_pb_next_fast(&r, &f, c->err)) == 1) {
        if (f.wt == TP_PB_VARINT) {
            if (f.num == PK_SEQ_ID && f.v <= UINT32_MAX)
                seq_id = (uint32_t)f.v;
            else if (f.num == PK_SEQ_FLAGS)
                flags = (uint32_t)f.v;
            else if (f.num == PK_STATE_CLEARED)
                cleared = f.v != 0;
            else if (f.num == PK_TIMESTAMP) {
                has_ts = true;
                raw_ts = f.v;
            } else if (f.num == PK_CLOCK_ID && f.v <= UINT32_MAX)
                clock = (uint32_t)f.v;
        }
    }
    if (k < 0)
        return -1;
    pf_seq *s = pf_seq_of(c, seq_id);
    if ((flags & SEQ_CLEARED) || cleared)
        seq_clear(s);
    if ((flags & SEQ_NEEDS_STATE) && !s->valid) {
        /* as Perfetto: interned data it cannot have is not guessed */
        tp_warn(c->t, PF_W_STATE, 1);
        return 0;
    }
    r = tp_pb_sub(top, pf);
    int rc = 0;
    bool snapshot = false;
    while (rc == 0 && (k = tp_pb_next_fast(&r, &f, c->err)) == 1) {
        if (f.wt != TP_PB_LEN)
            continue;
        if (f.num == PK_INTERNED)
            rc = pf_interned(c, s, &r, &f);
        else if (f.num == PK_DEFAULTS)
            rc = defaults(c, s, &r, &f);
        else if (f.num == PK_CLOCK_SNAPSHOT) {
            rc = clock_snapshot(c, s, &r, &f);
            snapshot = true;
        }
    }
    if (k < 0 || rc < 0)
        return -1;
    /* as Perfetto's reader: a clock snapshot's packet ends at the snapshot
     * (its time moves no incremental clock, the rest of it is not read) */
    if (snapshot) {
        r = tp_pb_sub(top, pf);
        while ((k = tp_pb_next_fast(&r, &f, c->err)) == 1)
            if (f.wt == TP_PB_LEN && f.num != PK_INTERNED && f.num != PK_DEFAULTS && f.num != PK_CLOCK_SNAPSHOT)
                tp_warn(c->t, "pftrace: payloads in a clock snapshot's packet (not read, as Perfetto)", 1);
        return k < 0 ? -1 : 0;
    }
    /* every packet's time moves its incremental clock, whatever it holds */
    int64_t ts = 0;
    bool ts_ok = has_ts && pf_time(c, s, clock, raw_ts, &ts);
    r = tp_pb_sub(top, pf);
    while (rc == 0 && (k = tp_pb_next_fast(&r, &f, c->err)) == 1) {
        if (f.wt != TP_PB_LEN)
            continue;
        switch (f.num) {
        case PK_TRACK_EVENT:
            if (has_ts && !ts_ok) {
                tp_drop_count(c->t, "pftrace: times out of range or on an unknown clock (events dropped)", 1);
                c->t->events_in++;
                break;
            }
            rc = pf_track_event(c, s, &r, &f, has_ts, ts);
            break;
        case PK_TRACK_DESC:
            rc = pf_track_descriptor(c, &r, &f);
            break;
        case PK_THREAD_DESC:
            rc = pf_thread_packet(c, s, &r, &f);
            break;
        case PK_PROCESS_DESC:
            rc = pf_process_packet(c, &r, &f);
            break;
        case PK_COMPRESSED:
            rc = inflate_packets(c, &f, depth);
            break;
        case PK_ZSTD:
            tp_warn(c->t, "pftrace: zstd_compressed_packets (not read)", 1);
            break;
        case PK_INTERNED:
        case PK_DEFAULTS:
        case PK_CLOCK_SNAPSHOT:
            break;
        default:
            if (f.num != 33 && f.num != 35 && f.num != 89 && f.num != 36) /* config, stats, uuid, sync marker */
                tp_warn(c->t, "pftrace: packets of kinds other than track events and descriptors (not read)", 1);
        }
    }
    return k < 0 || rc < 0 ? -1 : 0;
}

/* The Trace message (or an inflated compressed_packets): packets, field 1. */
static int read_packets(pf_ctx *c, const uint8_t *data, size_t len, int depth)
{
    tp_pb r = tp_pb_init(data, len);
    if (depth == 0)
        r.base = c->base;
    tp_pb_field f;
    int k;
    while ((k = tp_pb_next_fast(&r, &f, c->err)) == 1) {
        if (depth == 0) {
            c->at = (uint64_t)(f.data ? f.data - c->base : 0);
            if (c->map && c->at - c->unmapped > ((uint64_t)64 << 20)) { /* read once: not resident */
                tp_input_unmap_pages(c->map, c->unmapped, c->at);
                c->unmapped = c->at;
            }
        }
        if (f.num != 1 || f.wt != TP_PB_LEN) {
            tp_warn(c->t, "pftrace: Trace fields other than packets (not read)", 1);
            continue;
        }
        if (packet(c, &r, &f, depth) < 0)
            return -1;
    }
    return k < 0 ? -1 : 0;
}

/* --strict: the file's problems are errors (what it holds that this reader
 * does not read is not a problem of the file). */
static int strict_check(const tp_trace *t, tp_err *err)
{
    static const char *const problems[] = {PF_W_IID, PF_W_STATE, PF_W_ORPHAN_END, PF_W_SEQ_CLOCK, PF_W_NO_NAME};
    for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++) {
        uint64_t n = tp_warning_count(t, problems[i]);
        if (n)
            return tp_fail_at(err, "", "%s (%llu), rejected by --strict", problems[i], (unsigned long long)n);
    }
    if (t->ndrops)
        return tp_fail_at(err, "", "%s (%llu), rejected by --strict", t->drops[0].what,
                          (unsigned long long)t->drops[0].count);
    return 0;
}

static int pftrace_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    t->format = "pftrace";
    t->strict = o->strict;
    t->keep_args = o->keep_args;
    size_t len = 0;
    /* a plain file is mapped, not copied (nothing points into it after the
     * read: every string is interned); gzip and pipes are read whole */
    uint64_t msize = 0;
    const char *map = tp_input_map(in, &msize);
    char *owned = NULL;
    const char *buf;
    if (map && msize > PF_MAX_BYTES)
        return tp_fail(err, 0, "the file is larger than %llu bytes", (unsigned long long)PF_MAX_BYTES);
    if (map) {
        buf = map;
        len = (size_t)msize;
    } else {
        buf = owned = tp_input_slurp(in, &len, PF_MAX_BYTES, err);
        if (!buf)
            return -1;
    }
    pf_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.o = o;
    c.err = err;
    c.base = (const uint8_t *)buf;
    c.map = map;
    c.trace_clock = CLOCK_BOOTTIME;
    unsigned ratio = tp_input_max_inflate();
    c.inflate_budget = ratio ? PF_INFLATE_FLOOR + (uint64_t)ratio * len : 0;
    int rc = 0;
    if (len == 0)
        rc = tp_fail(err, 0, "an empty file: not a Perfetto trace");
    else if ((unsigned char)buf[0] != 0x0a)
        rc = tp_fail(err, 0, "not a Perfetto trace (a Trace starts with a packet, field 1)");
    if (rc == 0)
        rc = read_packets(&c, c.base, len, 0);
    if (rc == 0)
        pf_finish(&c);
    /* every command says what was dropped (stats, report: not only
     * convert's line), as the Chrome reader does */
    for (size_t i = 0; rc == 0 && i < t->ndrops; i++)
        tp_warn(t, t->drops[i].what, t->drops[i].count);
    if (rc == 0 && o->strict)
        rc = strict_check(t, err);
    for (size_t i = 0; i < c.nseqs; i++) {
        tp_i64map_free(&c.seqs[i].interned);
        free(c.seqs[i].clocks);
    }
    free(c.seqs);
    tp_i64map_free(&c.seq_index);
    free(c.clocks);
    free(c.slots);
    tp_i64map_free(&c.slot_of);
    tp_i64map_free(&c.thread_slot);
    free(c.marks);
    free(c.flows);
    free(c.cat_kind);
    for (int i = 0; i < PF_MAX_NESTING; i++)
        tp_buf_free(&c.inflate_buf[i]);
    tp_argb_free(&c.ab);
    tp_buf_free(&c.scratch);
    free(owned);
    return rc < 0 ? -1 : 0;
}

const tp_format tp_format_pftrace = {
    .name = "pftrace",
    .description = "Perfetto protobuf trace (TrackEvent: slices, instants, counters, flows; interned data; "
                   "compressed_packets)",
    .extensions = "*.pftrace *.perfetto-trace",
    .probe = pftrace_probe,
    .read = pftrace_read,
    .caps = TP_FMT_KEEPS_DERIVED_LINES,
    .options = NULL,
};
