/* xplane_read_int.h: what the XPlane reader's files share (private to
 * convert/read/xplane/).
 *
 *   xplane_read.c    the file, the XSpace, its planes in two passes
 *   xplane_wire.c    protobuf wire decoding of the messages (pbwire: every
 *                    case, every error); the usual encoding is decoded
 *                    inline below, as it is the per-event hot path
 *   xplane_meta.c    a plane's metadata tables and resolved stats
 *   xplane_event.c   a plane's lines and events into the model (tp_trace)
 *   xplane_annot.c   what the derivation engine and the report get of a
 *                    device event (ops parsed once per name)
 *   xplane_args.c    args rendered at write time from the file
 *                    (TP_ARGS_EXTERNAL handles: t->args_source)
 *   xplane_parts.c   the later planes read on a second thread, appended
 *   xplane_costs.c   the device planes' descriptions and the XLA ops'
 *                    recorded costs (t->devinfo, t->costs)
 *
 * Ownership: a reader (xp_reader) owns everything it points to but t, o and
 * err; its renderer state (xp_src) goes to t->format_data at the end. */
#ifndef TP_XPLANE_READ_INT_H
#define TP_XPLANE_READ_INT_H

#include "convert/base/file_window.h"
#include "convert/base/i64map.h"
#include "convert/codec/pbwire.h"
#include "convert/model/derive.h"
#include "convert/read/xplane/xplane.h"

#include <string.h>

/* Stats the reader itself looks at. */
enum {
    WK_NONE = 0, WK_GROUP_ID, WK_STEP_NAME, WK_KERNEL_DETAILS, WK_MEMCPY_DETAILS, WK_MEMSET_DETAILS,
    WK_CORRELATION_ID, WK_DEVICE_ID, WK_TF_OP, WK_LEVEL0, WK_HLO_OP, WK_HLO_MODULE, WK_PROGRAM_ID,
    WK_NAME, WK_SOURCE, WK_IS_ASYNC, WK_CUDA_GRAPH_EXEC, WK_FLOPS, WK_BYTES_ACCESSED, WK_COUNT
};

enum { XS_DOUBLE = 1, XS_UINT, XS_INT, XS_STR, XS_BYTES, XS_REF };

/* ---- metadata id -> index: a plain array when the ids are small and dense
 * (they are in every file seen), a hash map otherwise ---- */

typedef struct xp_ids {
    uint32_t *dense;
    size_t ndense;
    tp_i64map map;
} xp_ids;

static inline uint32_t ids_get(const xp_ids *m, int64_t id)
{
    if ((uint64_t)id < m->ndense)
        return m->dense[id];
    return m->map.n ? tp_i64map_get(&m->map, id) : TP_I64MAP_EMPTY;
}

/* keys[i] -> i, later entries replacing earlier ones (as a map put does). */
void xp_ids_build(xp_ids *m, const int64_t *keys, size_t n);
void xp_ids_free(xp_ids *m);

/* ---- what the writers need of a plane, kept after reading ---- */

typedef struct xp_psm {      /* stat metadata */
    tp_str name;             /* interned when a stat first uses it (0: empty or unused) */
    uint8_t wk;
    bool named;
} xp_psm;

typedef struct xp_pst {      /* a metadata stat, resolved */
    int64_t mid;
    uint32_t sm, ref;        /* stat metadata of its name / of its ref_value, or TP_I64MAP_EMPTY */
    uint8_t type;
    uint64_t v;              /* numbers; XS_BYTES: the length */
    tp_str str;              /* XS_STR, XS_REF: the value */
} xp_pst;

typedef struct xp_pem {      /* event metadata */
    tp_str full;             /* full name when a display name is shown (arg long_name), else 0 */
    uint32_t st, nst;        /* its stats: src->pst[st .. st + nst) */
} xp_pem;

typedef struct xp_plane {
    xp_ids sids, eids;
    xp_psm *sm;
    size_t nsm;
    xp_pem *em;
    size_t nem;
} xp_plane;

/* A handle: TP_ARGS_EXTERNAL | plane << 44 | offset of the XEvent field in
 * the file (bit 62 is the model's, TP_ARGS_RESERVED). */
#define XP_OFF_BITS 44
#define XP_MAX_PLANES (UINT64_C(1) << (62 - XP_OFF_BITS))

/* ---- decoded messages ---- */

/* One stat while decoding (read time and render time). */
typedef struct xp_stat {
    int64_t mid;
    uint32_t sm;             /* stat metadata of the name, or TP_I64MAP_EMPTY */
    uint32_t ref;            /* XS_REF: stat metadata of the value, or TP_I64MAP_EMPTY (shown empty) */
    uint8_t type;
    uint64_t v;
    const uint8_t *s;        /* XS_STR/XS_BYTES/XS_REF (resolved) */
    size_t len;
    tp_str sid;              /* the value as an interned string, when known */
    const uint8_t *kn;       /* the name of its stat metadata (resolved) */
    size_t kl;
} xp_stat;

typedef struct xp_stats {
    xp_stat *v;
    size_t n, cap;
} xp_stats;

typedef struct xp_evhdr {
    int64_t mid, off, dur, occ;
    bool has_occ, has_stats;
} xp_evhdr;

/* Line header fields (everything but the events), and how many events. */
typedef struct xp_line {
    int64_t id, display_id, ts_ns;
    const uint8_t *name, *disp;
    size_t nlen, dlen;
    int64_t nevents;         /* its event fields */
} xp_line;

/* An entry of a plane's event or stat metadata map, its value's fields. */
typedef struct xp_meta_entry {
    int64_t id;              /* the map key, or the value's id without one */
    const uint8_t *msg;      /* the value message */
    size_t msglen;
    const uint8_t *name, *disp; /* field 2; field 4 (event metadata: display name) */
    size_t nlen, dlen;
    bool has_stats;          /* field 5 (event metadata: stats) */
} xp_meta_entry;

/* ---- the args renderer ---- */

/* What one thread needs to render args: a window of the file and scratch. */
typedef struct xp_cursor {
    uint8_t *win;            /* a window of the file: [woff, woff + wlen) */
    size_t wcap, wlen, wnext;
    uint64_t woff;
    xp_stats st, ev;
    tp_buf json;
    tp_err err;
    tp_fwin fw;              /* the mapped file's windows it touched (file_window.h) */
} xp_cursor;

/* The args renderer's state: t->format_data of an XPlane trace with args.
 * Read-only once the trace is read (threads render with cursors of their own). */
typedef struct xp_src {
    int fd;                  /* the input file, or -1 */
    const uint8_t *map;      /* its mapping (read in place), or NULL: pread into windows */
    uint8_t *mem;            /* or the input in memory (owned) */
    uint64_t size;
    xp_plane *planes;
    size_t nplanes, planes_cap;
    xp_pst *pst;
    size_t npst, pst_cap;
    tp_str k_long_name, k_occ, k_corr;
    xp_cursor own;           /* for tp_args_get and visits without a cursor */
    tp_xplane_data *xd;      /* the report's data, when also asked for (batch) */
} xp_src;

/* ---- the reader ---- */

typedef struct xp_smeta {    /* stat metadata while reading its plane */
    const uint8_t *name;     /* in the file */
    uint32_t len;
    uint8_t wk;
    uint32_t op, op_colon;   /* the value parsed as an op (index into ops), or TP_NONE */
    tp_str hlo_ops, hlo_low; /* the value split as HLO op levels */
    bool hlo_done;
    tp_str module;           /* "<value>(<program id>)" for module_prog */
    int64_t module_prog;
    bool module_done;
} xp_smeta;

typedef struct xp_emeta {    /* event metadata while reading its plane */
    const uint8_t *name, *disp;
    uint32_t nlen, dlen;
    const uint8_t *msg;      /* the XEventMetadata message, for its stats */
    uint32_t msglen;
    bool has_stats, interned, decoded;
    tp_str shown;            /* display name (or name) */
    uint32_t st, nst;        /* its stats decoded: r->mst[st .. st + nst) */
    uint32_t badrefs;        /* ref_values among them without their string */
    uint8_t cost;            /* its events' cost: XP_COST_* (xplane_costs.c) */
    uint64_t flops, bytes;   /* XP_COST_SEEN: the first event's */
    bool has_cost;
} xp_emeta;

/* An op's cost as its events carry it (flops and bytes_accessed stats,
 * the metadata's or the event's own); has false: an op event without. */
typedef struct xp_cost {
    tp_str name;
    bool has;
    uint64_t flops, bytes;
} xp_cost;

enum { XP_COST_UNSEEN = 0, XP_COST_SEEN, XP_COST_DONE };

/* A line's header, found by the walk that counts events (two threads), so
 * reading does not walk the line's frames once more for it. */
typedef struct xp_lcache {
    const uint8_t *data;     /* the line's bytes: the key */
    xp_line L;
} xp_lcache;

typedef struct xp_reader {
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    tp_pb top;
    xp_src *src;             /* what the writers keep (also when args are not kept: freed at the end) */
    xp_plane *pl;            /* the current plane, src->planes[pi] */
    size_t pi;
    xp_smeta *sm;
    size_t nsm, sm_cap;
    xp_emeta *em;
    size_t nem, em_cap;
    int64_t *skeys, *ekeys;  /* metadata ids, in file order */
    size_t skeys_cap, ekeys_cap;
    xp_stat *mst;            /* metadata stats of the plane's event metadata, decoded */
    size_t nmst, mst_cap;
    xp_stats st, ev;         /* an event's stats: merged / as in the event */
    tp_argb ab;
    tp_buf planes_json;      /* per-plane summary for the top-level "xplane" object */
    tp_derive_input din;
    tp_xplane_data *xd;      /* kept for the report (report_data), else NULL */
    tp_i64map opcache;       /* interned op full name -> parsed op (index into ops) */
    tp_annot *ops;
    size_t nops, ops_cap;
    xp_cost *costs;          /* one per (plane, event metadata) of op events, more when they differ */
    size_t ncosts, costs_cap;
    tp_device_info dev;      /* the current plane's description (xplane_costs.c) */
    bool dev_plane, dev_caps; /* a /device:GPU|TPU:N plane; with device-cap stats */
    int nhost, nother;
    size_t ev_limit;         /* events its trace may hold (two threads: each writes its part of one array) */
    xp_lcache *lcache;       /* headers of the lines to read, in order (two threads), and the next one */
    size_t nlcache, lcache_cap, lcache_next;
    size_t page;
    bool lazy_args;          /* args rendered from the file later (else JSON now) */
    tp_str cat_kind[TP_KIND_COUNT], cat_derived; /* interned once */
    /* current plane */
    uint32_t process;        /* TP_NONE for planes without a process yet */
    bool plane_is_device, plane_is_gpu, plane_derive, plane_has_derived;
    int64_t plane_id;
    const uint8_t *plane_name;
    size_t plane_name_len;
    uint64_t plane_events;
} xp_reader;

/* ---- small helpers ---- */

static inline bool has_prefix(const uint8_t *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

static inline xp_stat *stats_push(xp_stats *v)
{
    if (v->n >= v->cap)
        TP_GROW(v->v, v->cap, v->n + 16);
    return &v->v[v->n++];
}

static inline uint8_t stat_wk(const xp_plane *pl, const xp_stat *s)
{
    return s->sm == TP_I64MAP_EMPTY ? WK_NONE : pl->sm[s->sm].wk;
}

static inline bool stat_int(const xp_stat *s, int64_t *v)
{
    if (s->type == XS_INT || s->type == XS_UINT) {
        *v = (int64_t)s->v;
        return true;
    }
    if (s->type == XS_DOUBLE) {
        *v = (int64_t)tp_pb_double(s->v);
        return true;
    }
    return false;
}

/* A count (flops, bytes): a non-negative integer, or a double holding one
 * exactly (below 2^63); anything else is not a count. */
static inline bool stat_count(const xp_stat *s, uint64_t *v)
{
    if (s->type == XS_UINT || (s->type == XS_INT && (int64_t)s->v >= 0)) {
        *v = s->v;
        return true;
    }
    if (s->type == XS_DOUBLE) {
        double d = tp_pb_double(s->v);
        if (d >= 0 && d < 9223372036854775808.0 && d == (double)(uint64_t)d) {
            *v = (uint64_t)d;
            return true;
        }
    }
    return false;
}

static inline bool stat_text(const xp_stat *s)
{
    return s->type == XS_STR || s->type == XS_REF;
}

/* ---- wire decoding, general path (xplane_wire.c) ---- */

/* The XStat messages (field `num`) of msg[0..len), appended to v unmerged. */
int xp_decode_stats(const uint8_t *base, const uint8_t *msg, size_t len, uint32_t num, xp_stats *v, tp_err *err);
/* One XEvent: header fields, and its stats appended to v unmerged. */
int xp_decode_event_slow(const uint8_t *base, const uint8_t *msg, size_t len, xp_evhdr *h, xp_stats *v,
                         tp_err *err);
/* One XLine: header fields and its events counted (every frame walked). */
int xp_decode_line(const tp_pb *plane, const tp_pb_field *lf, xp_line *L, tp_err *err);
/* The id of an XLine (field 1, serialised first: only read up to it):
 * 1 with *id, 0 without one, -1 on a framing error. */
int xp_peek_line_id(const tp_pb *plane, const tp_pb_field *lf, int64_t *id, tp_err *err);
/* One entry of an event (event true) or stat metadata map.  Event metadata
 * over 4 GB is an error (its length is kept in 32 bits). */
int xp_decode_meta_entry(const tp_pb *plane, const tp_pb_field *entry, bool event, xp_meta_entry *m, tp_err *err);

/* Add s to the list; a stat with the same metadata id as an earlier one
 * replaces it (event stats override metadata stats). */
void xp_stats_merge(xp_stats *v, const xp_stat *s);
/* Merge an event's stats (ev) after its metadata's (st). */
void xp_stats_merge_all(xp_stats *st, xp_stats *ev);

/* ---- wire decoding: the usual encoding inline (one-byte keys, known wire
 * types); false means "not the usual shape": decode it with pbwire instead.
 * Inline here: once per event at read time and at write time. ---- */

static inline bool fast_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return true;
    }
    if (end - p >= 10) { /* no bounds check per byte */
        uint64_t x = p[0] & 0x7f, b;
        int i;
        for (i = 1; i < 9; i++) {
            b = p[i];
            x |= (b & 0x7f) << (7 * i);
            if (b < 0x80) {
                *v = x;
                *pp = p + i + 1;
                return true;
            }
        }
        b = p[9];
        if (b > 1)
            return false;
        *v = x | b << 63;
        *pp = p + 10;
        return true;
    }
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return false;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            *pp = p;
            return true;
        }
    }
    return false;
}

/* Keys compared whole, in the order files use them: a repeating pattern the
 * branch predictor learns (a switch on the field number compiled to a jump
 * table that mispredicted).  Any other key: pbwire decodes the event. */
static inline bool stat_fast(const uint8_t *p, const uint8_t *end, xp_stat *s)
{
    s->mid = 0;
    s->type = 0;
    s->v = 0;
    s->s = NULL;
    s->len = 0;
    s->sid = 0;
    while (p < end) {
        uint8_t key = *p++;
        uint64_t v;
        if (key == (1 << 3 | TP_PB_VARINT)) {
            if (!fast_varint(&p, end, &v))
                return false;
            s->mid = (int64_t)v;
        } else if (key == (4 << 3 | TP_PB_VARINT) || key == (7 << 3 | TP_PB_VARINT) ||
                   key == (3 << 3 | TP_PB_VARINT)) {
            if (!fast_varint(&p, end, &v))
                return false;
            s->type = key == (4 << 3 | TP_PB_VARINT) ? XS_INT : key == (7 << 3 | TP_PB_VARINT) ? XS_REF : XS_UINT;
            s->v = v;
        } else if (key == (5 << 3 | TP_PB_LEN) || key == (6 << 3 | TP_PB_LEN)) {
            if (!fast_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return false;
            s->type = key == (5 << 3 | TP_PB_LEN) ? XS_STR : XS_BYTES;
            s->s = p;
            s->len = (size_t)v;
            p += v;
        } else if (key == (2 << 3 | TP_PB_I64) && end - p >= 8) {
            uint64_t x = 0;
            for (int i = 7; i >= 0; i--)
                x = (x << 8) | p[i];
            s->type = XS_DOUBLE;
            s->v = x;
            p += 8;
        } else
            return false;
    }
    return true;
}

static inline bool event_fast(const uint8_t *p, const uint8_t *end, xp_evhdr *h, xp_stats *v)
{
    memset(h, 0, sizeof *h);
    size_t n0 = v->n;
    while (p < end) {
        uint8_t key = *p++;
        uint64_t x;
        if (key == (4 << 3 | TP_PB_LEN)) { /* a stat */
            if (!fast_varint(&p, end, &x) || x > (uint64_t)(end - p))
                goto slow;
            h->has_stats = true;
            if (!stat_fast(p, p + x, stats_push(v)))
                goto slow;
            p += x;
            continue;
        }
        if ((key & 7) != TP_PB_VARINT || key < 8 || key >= 0x80 || !fast_varint(&p, end, &x))
            goto slow;
        if (key == (1 << 3 | TP_PB_VARINT))
            h->mid = (int64_t)x;
        else if (key == (2 << 3 | TP_PB_VARINT))
            h->off = (int64_t)x;
        else if (key == (3 << 3 | TP_PB_VARINT))
            h->dur = (int64_t)x;
        else if (key == (5 << 3 | TP_PB_VARINT)) {
            h->occ = (int64_t)x;
            h->has_occ = true;
        }
    }
    return true;
slow:
    v->n = n0;
    return false;
}

/* One XEvent (msg[0..len), base: the buffer's start for error offsets). */
static inline int decode_event(const uint8_t *base, const uint8_t *msg, size_t len, xp_evhdr *h, xp_stats *v,
                               tp_err *err)
{
    if (event_fast(msg, msg + len, h, v))
        return 0;
    return xp_decode_event_slow(base, msg, len, h, v, err);
}

/* ---- a plane's tables (xplane_meta.c) ---- */

int xp_read_stat_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry);
int xp_read_event_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry);
/* The stats of event metadata mi, decoded once per plane (m->decoded); with
 * args kept, also resolved into src->pst for the writers. */
int xp_emeta_stats(xp_reader *r, uint32_t mi);
/* Event metadata mi's shown name interned (and its full name for long_name). */
void xp_emeta_intern(xp_reader *r, uint32_t mi);

/* The name of stat metadata i as an interned string (once). */
static inline tp_str smeta_name(xp_reader *r, uint32_t i)
{
    xp_psm *p = &r->pl->sm[i];
    if (!p->named) {
        p->named = true;
        p->name = tp_intern(r->t, (const char *)r->sm[i].name, r->sm[i].len);
    }
    return p->name;
}

/* Resolve a decoded stat: its name, and a ref_value's string. */
static inline void resolve_stat(xp_reader *r, xp_stat *s, uint32_t *badrefs)
{
    s->sm = ids_get(&r->pl->sids, s->mid);
    s->ref = TP_I64MAP_EMPTY;
    s->kn = NULL;
    s->kl = 0;
    if (s->sm != TP_I64MAP_EMPTY) {
        s->kn = r->sm[s->sm].name;
        s->kl = r->sm[s->sm].len;
    }
    if (s->type == XS_REF) {
        s->ref = ids_get(&r->pl->sids, (int64_t)s->v);
        if (s->ref == TP_I64MAP_EMPTY) {
            (*badrefs)++;
            s->s = (const uint8_t *)"";
            s->len = 0;
        } else {
            s->s = r->sm[s->ref].name ? r->sm[s->ref].name : (const uint8_t *)"";
            s->len = r->sm[s->ref].len;
        }
    }
}

/* A text stat's value as an interned string (a ref_value's is its metadata's name). */
static inline tp_str stat_str(xp_reader *r, const xp_stat *v)
{
    if (v->type == XS_REF && v->ref != TP_I64MAP_EMPTY)
        return smeta_name(r, v->ref);
    return tp_intern(r->t, (const char *)v->s, v->len);
}

/* ---- events (xplane_event.c, xplane_annot.c) ---- */

/* One line (field lf of the current plane): its track and events into the model. */
int xp_read_line(xp_reader *r, const tp_pb *plane, const tp_pb_field *lf);
/* What the derivation engine needs from one device event (r->st: its
 * stats): fills *out; with hlo_key (the report's data) also the event's
 * "<outermost hlo op> (<module>)" key. */
void xp_annotate(xp_reader *r, uint32_t ev, int64_t group, bool op_source, const xp_emeta *m, tp_annot *out,
                 tp_str *hlo_key);

/* ---- the file and its planes (xplane_read.c) ---- */

/* Read plane pf (both passes) into r's trace. */
int xp_read_plane(xp_reader *r, const tp_pb_field *pf);
/* Free what r owns (not its trace). */
void xp_reader_free(xp_reader *r);
void xp_data_free(void *p);

/* ---- args (xplane_args.c) ---- */

extern const tp_args_source xp_args_source;
/* An event's args as JSON: long_name, num_occurrences, then every stat. */
void xp_args_json(tp_buf *b, const xp_plane *pl, const char *long_name, size_t lnlen, bool has_occ, int64_t occ,
                  const xp_stats *st);
void xp_src_free(void *p);
/* Give the renderer the input's bytes: an open file (fd >= 0) or a buffer
 * it takes over (mem); both are closed/freed when t has no renderer. */
void xp_attach_bytes(tp_trace *t, int fd, void *mem);

/* ---- devices and op costs (xplane_costs.c) ---- */

/* The current plane's description from its stats (r->st, merged), before
 * its lines are read. */
void xp_device_begin(xp_reader *r);
/* After its lines: t->devinfo gets it when the plane has events or device caps. */
void xp_device_end(xp_reader *r);
/* An op event (a kernel on a device line, not async) of event metadata mi
 * named `name`, with its merged stats' costs (has: both present). */
static inline void xp_cost_event(xp_reader *r, uint32_t mi, tp_str name, bool has, uint64_t flops, uint64_t bytes)
{
    xp_emeta *m = &r->em[mi];
    if (!has)
        flops = bytes = 0;
    if (m->cost == XP_COST_DONE ||
        (m->cost == XP_COST_SEEN && m->has_cost == has && m->flops == flops && m->bytes == bytes))
        return;
    /* the first event of this metadata, or one that differs from it (then
     * the name has two costs: none is kept; no need to look further) */
    m->cost = m->cost == XP_COST_UNSEEN ? XP_COST_SEEN : XP_COST_DONE;
    m->has_cost = has;
    m->flops = flops;
    m->bytes = bytes;
    TP_GROW(r->costs, r->costs_cap, r->ncosts + 1);
    r->costs[r->ncosts++] = (xp_cost){name, has, flops, bytes};
}
/* At the end: the costs of names whose op events all agree into t->costs. */
void xp_costs_finish(xp_reader *r);

/* ---- two threads (xplane_parts.c) ---- */

/* Read the planes: on this thread, or the later ones on a second. */
int xp_read_planes(xp_reader *r, const tp_pb_field *planes, size_t n);

#endif
