/* xplane_read.c: TensorFlow / JAX / XLA profiler XSpace files (*.xplane.pb).
 *
 * The file is walked with pbwire over the mapped bytes, plane by plane; no
 * message tree is built.  A plane serialises its lines before its metadata
 * maps (XPLANE.md §8), so each plane is read in two passes: first the
 * metadata maps and plane stats (lines are only skipped over), then the
 * lines.  Names stay pointers into the file until an event needs them.
 *
 * Mapping (XPLANE.md §6): /host:CPU* planes are pids 701, 702...; device
 * planes pid 1 + plane id (clamped to 1..500), /device:CUSTOM: 501 + id; other
 * planes with lines 801, 802...  A line is a track with tid = (uint32)
 * (display_id or id) and name = display_name or name.  Times: line
 * timestamp_ns + offset_ps, each end rounded to the nearest ns.  Plane stats,
 * hostnames, errors and warnings go to the top-level "xplane" object.
 *
 * Args are not kept as JSON text: an event's args handle is the offset of
 * its XEvent in the file (TP_ARGS_EXTERNAL), and the writers have the stats
 * decoded again and rendered (xp_src, at the end of this file).  The file is
 * read again with pread in windows, so it does not stay resident; what the
 * renderer needs of each plane (names of stat and event metadata, metadata
 * stats) is kept as interned strings.  Hot loops decode the usual encoding
 * inline and hand anything else to pbwire (same results, same errors). */
#include "convert/base/threads.h"
#include "convert/model/derive.h"
#include "convert/base/file_window.h"
#include "convert/base/i64map.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/codec/pbwire.h"
#include "convert/read/xplane/xplane.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stats the reader itself looks at. */
enum {
    WK_NONE = 0, WK_GROUP_ID, WK_STEP_NAME, WK_KERNEL_DETAILS, WK_MEMCPY_DETAILS, WK_MEMSET_DETAILS,
    WK_CORRELATION_ID, WK_DEVICE_ID, WK_TF_OP, WK_LEVEL0, WK_HLO_OP, WK_HLO_MODULE, WK_PROGRAM_ID,
    WK_NAME, WK_SOURCE, WK_IS_ASYNC, WK_CUDA_GRAPH_EXEC, WK_COUNT
};
static const char *const wk_names[WK_COUNT] = {
    "", "group_id", "step_name", "kernel_details", "memcpy_details", "Memset_details",
    "correlation_id", "device_id", "tf_op", "level 0", "hlo_op", "hlo_module", "program_id",
    "name", "source", "_a", "cuda_graph_exec_id",
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
static void ids_build(xp_ids *m, const int64_t *keys, size_t n)
{
    int64_t max = -1;
    bool small = true;
    for (size_t i = 0; i < n && small; i++) {
        small = keys[i] >= 0 && keys[i] < (int64_t)(8 * n + 4096);
        max = keys[i] > max ? keys[i] : max;
    }
    if (small) {
        m->ndense = (size_t)(max + 1);
        m->dense = tp_xmalloc((m->ndense + 1) * sizeof *m->dense);
        for (size_t i = 0; i < m->ndense; i++)
            m->dense[i] = TP_I64MAP_EMPTY;
        for (size_t i = 0; i < n; i++)
            m->dense[keys[i]] = (uint32_t)i;
    } else {
        for (size_t i = 0; i < n; i++)
            tp_i64map_put(&m->map, keys[i], (uint32_t)i);
    }
}

static void ids_free(xp_ids *m)
{
    free(m->dense);
    tp_i64map_free(&m->map);
    memset(m, 0, sizeof *m);
}

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

bool tp_xplane_is_derived_line_id(int64_t id)
{
    int32_t v = (int32_t)(uint32_t)(uint64_t)id;
    int32_t min = (int32_t)0xdeadbeefu;
    return v >= min && v < min + 400;
}

static bool has_prefix(const uint8_t *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

/* ps -> ns, rounded to nearest (half away from zero) */
static int64_t ps_to_ns(int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

static inline xp_stat *stats_push(xp_stats *v)
{
    if (v->n >= v->cap)
        TP_GROW(v->v, v->cap, v->n + 16);
    return &v->v[v->n++];
}

/* Add s to the list; a stat with the same metadata id as an earlier one
 * replaces it (event stats override metadata stats). */
static void stats_merge(xp_stats *v, const xp_stat *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i].mid == s->mid) {
            v->v[i] = *s;
            return;
        }
    *stats_push(v) = *s;
}

/* Merge an event's stats (ev) after its metadata's (st).  Usually there are
 * no metadata stats and no repeated ids: then ev becomes st as it is. */
static void stats_merge_all(xp_stats *st, xp_stats *ev)
{
    if (st->n == 0) {
        bool dup = false;
        for (size_t i = 1; i < ev->n && !dup; i++)
            for (size_t j = 0; j < i && !dup; j++)
                dup = ev->v[i].mid == ev->v[j].mid;
        if (!dup) {
            xp_stats tmp = *st;
            *st = *ev;
            *ev = tmp;
            ev->n = 0;
            return;
        }
    }
    for (size_t i = 0; i < ev->n; i++)
        stats_merge(st, &ev->v[i]);
}

/* ---- decoding: pbwire (every case, every error) ---- */

/* One XStat, value unresolved (XS_REF: v is the referenced metadata id). */
static int decode_stat(const tp_pb *parent, const tp_pb_field *sf, xp_stat *s, tp_err *err)
{
    tp_pb p = tp_pb_sub(parent, sf);
    tp_pb_field f;
    memset(s, 0, sizeof *s);
    int k;
    while ((k = tp_pb_next(&p, &f, err)) == 1) {
        switch (f.num) {
        case 1:
            s->mid = (int64_t)f.v;
            break;
        case 2:
            if (f.wt == TP_PB_I64) {
                s->type = XS_DOUBLE;
                s->v = f.v;
            }
            break;
        case 3:
            s->type = XS_UINT;
            s->v = f.v;
            break;
        case 4:
            s->type = XS_INT;
            s->v = f.v;
            break;
        case 5:
        case 6:
            if (f.wt == TP_PB_LEN) {
                s->type = f.num == 5 ? XS_STR : XS_BYTES;
                s->s = f.data;
                s->len = f.len;
            }
            break;
        case 7:
            s->type = XS_REF;
            s->v = f.v;
            break;
        default:
            break;
        }
    }
    return k < 0 ? -1 : 0;
}

/* The XStat messages (field `num`) of msg[0..len), appended to v unmerged. */
static int decode_stats(const uint8_t *base, const uint8_t *msg, size_t len, uint32_t num, xp_stats *v, tp_err *err)
{
    tp_pb p = tp_pb_init(msg, len);
    p.base = base;
    tp_pb_field f;
    int k;
    while ((k = tp_pb_next(&p, &f, err)) == 1) {
        if (f.num != num || f.wt != TP_PB_LEN)
            continue;
        if (decode_stat(&p, &f, stats_push(v), err) < 0)
            return -1;
    }
    return k < 0 ? -1 : 0;
}

/* One XEvent: header fields, and its stats appended to v unmerged. */
static int decode_event_slow(const uint8_t *base, const uint8_t *msg, size_t len, xp_evhdr *h, xp_stats *v,
                             tp_err *err)
{
    tp_pb p = tp_pb_init(msg, len);
    p.base = base;
    tp_pb_field f;
    int k;
    memset(h, 0, sizeof *h);
    while ((k = tp_pb_next(&p, &f, err)) == 1) {
        if (f.wt == TP_PB_VARINT) {
            if (f.num == 1)
                h->mid = (int64_t)f.v;
            else if (f.num == 2)
                h->off = (int64_t)f.v;
            else if (f.num == 3)
                h->dur = (int64_t)f.v;
            else if (f.num == 5) {
                h->occ = (int64_t)f.v;
                h->has_occ = true;
            }
        } else if (f.num == 4 && f.wt == TP_PB_LEN)
            h->has_stats = true;
    }
    if (k < 0)
        return -1;
    return h->has_stats ? decode_stats(base, msg, len, 4, v, err) : 0;
}

/* ---- decoding: the usual encoding inline (one-byte keys, known wire
 * types); 0 means "not the usual shape": decode it with pbwire instead ---- */

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
static bool stat_fast(const uint8_t *p, const uint8_t *end, xp_stat *s)
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

static bool event_fast(const uint8_t *p, const uint8_t *end, xp_evhdr *h, xp_stats *v)
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

static int decode_event(const uint8_t *base, const uint8_t *msg, size_t len, xp_evhdr *h, xp_stats *v, tp_err *err)
{
    if (event_fast(msg, msg + len, h, v))
        return 0;
    return decode_event_slow(base, msg, len, h, v, err);
}

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
} xp_emeta;

/* Line header fields (everything but the events). */
typedef struct xp_line {
    int64_t id, display_id, ts_ns;
    const uint8_t *name, *disp;
    size_t nlen, dlen;
} xp_line;

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

/* ---- metadata ---- */

static int read_stat_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry)
{
    tp_pb e = tp_pb_sub(plane, entry);
    tp_pb_field f;
    int64_t key = 0, id = 0;
    bool has_key = false;
    const uint8_t *name = NULL;
    size_t nlen = 0;
    int k;
    while ((k = tp_pb_next(&e, &f, r->err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_VARINT) {
            key = (int64_t)f.v;
            has_key = true;
        } else if (f.num == 2 && f.wt == TP_PB_LEN) {
            tp_pb v = tp_pb_sub(&e, &f);
            tp_pb_field g;
            while ((k = tp_pb_next(&v, &g, r->err)) == 1) {
                if (g.num == 1 && g.wt == TP_PB_VARINT)
                    id = (int64_t)g.v;
                else if (g.num == 2 && g.wt == TP_PB_LEN) {
                    name = g.data;
                    nlen = g.len;
                }
            }
            if (k < 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    if (nlen > UINT32_MAX)
        return tp_fail(r->err, tp_pb_offset(&e), "XPlane stat name longer than 4 GB");
    TP_GROW(r->sm, r->sm_cap, r->nsm + 1);
    TP_GROW(r->skeys, r->skeys_cap, r->nsm + 1);
    xp_smeta *m = &r->sm[r->nsm];
    memset(m, 0, sizeof *m);
    m->name = name;
    m->len = (uint32_t)nlen;
    m->op = m->op_colon = TP_NONE;
    for (int w = 1; w < WK_COUNT; w++)
        if (strlen(wk_names[w]) == nlen && memcmp(wk_names[w], name, nlen) == 0)
            m->wk = (uint8_t)w;
    r->skeys[r->nsm++] = has_key ? key : id;
    return 0;
}

static int read_event_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry)
{
    tp_pb e = tp_pb_sub(plane, entry);
    tp_pb_field f;
    int64_t key = 0, id = 0;
    bool has_key = false;
    xp_emeta m;
    memset(&m, 0, sizeof m);
    int k;
    while ((k = tp_pb_next(&e, &f, r->err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_VARINT) {
            key = (int64_t)f.v;
            has_key = true;
        } else if (f.num == 2 && f.wt == TP_PB_LEN) {
            if (f.len > UINT32_MAX)
                return tp_fail(r->err, tp_pb_offset(&e), "XPlane event metadata larger than 4 GB");
            m.msg = f.data;
            m.msglen = (uint32_t)f.len;
            tp_pb v = tp_pb_sub(&e, &f);
            tp_pb_field g;
            while ((k = tp_pb_next(&v, &g, r->err)) == 1) {
                if (g.num == 1 && g.wt == TP_PB_VARINT)
                    id = (int64_t)g.v;
                else if (g.num == 2 && g.wt == TP_PB_LEN) {
                    m.name = g.data;
                    m.nlen = (uint32_t)g.len;
                } else if (g.num == 4 && g.wt == TP_PB_LEN) {
                    m.disp = g.data;
                    m.dlen = (uint32_t)g.len;
                } else if (g.num == 5 && g.wt == TP_PB_LEN)
                    m.has_stats = true;
            }
            if (k < 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    TP_GROW(r->em, r->em_cap, r->nem + 1);
    TP_GROW(r->ekeys, r->ekeys_cap, r->nem + 1);
    r->em[r->nem] = m;
    r->ekeys[r->nem++] = has_key ? key : id;
    return 0;
}

/* ---- stats ---- */

/* The name of stat metadata i as an interned string (once). */
static tp_str smeta_name(xp_reader *r, uint32_t i)
{
    xp_psm *p = &r->pl->sm[i];
    if (!p->named) {
        p->named = true;
        p->name = tp_intern(r->t, (const char *)r->sm[i].name, r->sm[i].len);
    }
    return p->name;
}

/* Resolve a decoded stat: its name, and a ref_value's string. */
static void resolve_stat(xp_reader *r, xp_stat *s, uint32_t *badrefs)
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

/* The stats of event metadata m, decoded once per plane; with args kept,
 * also resolved into src->pst for the writers. */
static int emeta_stats(xp_reader *r, uint32_t mi)
{
    xp_emeta *m = &r->em[mi];
    if (m->decoded)
        return 0;
    m->decoded = true;
    xp_stats v = {0};
    if (m->has_stats && decode_stats(r->top.base, m->msg, m->msglen, 5, &v, r->err) < 0) {
        free(v.v);
        return -1;
    }
    xp_stats merged = {0};
    for (size_t i = 0; i < v.n; i++) {
        resolve_stat(r, &v.v[i], &m->badrefs);
        stats_merge(&merged, &v.v[i]);
    }
    free(v.v);
    m->st = (uint32_t)r->nmst;
    m->nst = (uint32_t)merged.n;
    TP_GROW(r->mst, r->mst_cap, r->nmst + merged.n);
    xp_src *src = r->src;
    if (r->lazy_args) {
        r->pl->em[mi].st = (uint32_t)src->npst;
        r->pl->em[mi].nst = (uint32_t)merged.n;
    }
    for (size_t i = 0; i < merged.n; i++) {
        xp_stat *s = &merged.v[i];
        if (r->lazy_args) {
            if (s->sm != TP_I64MAP_EMPTY)
                smeta_name(r, s->sm);
            TP_GROW(src->pst, src->pst_cap, src->npst + 1);
            xp_pst *p = &src->pst[src->npst++];
            p->mid = s->mid;
            p->sm = s->sm;
            p->ref = s->ref;
            p->type = s->type;
            p->v = s->type == XS_BYTES ? s->len : s->v;
            p->str = s->type == XS_STR ? tp_intern(r->t, (const char *)s->s, s->len)
                     : s->type == XS_REF && s->ref != TP_I64MAP_EMPTY ? smeta_name(r, s->ref)
                                                                      : 0;
            s->sid = p->str;
        }
        r->mst[r->nmst++] = *s;
    }
    free(merged.v);
    return 0;
}

static uint8_t stat_wk(const xp_plane *pl, const xp_stat *s)
{
    return s->sm == TP_I64MAP_EMPTY ? WK_NONE : pl->sm[s->sm].wk;
}

static bool stat_int(const xp_stat *s, int64_t *v)
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

static bool stat_text(const xp_stat *s)
{
    return s->type == XS_STR || s->type == XS_REF;
}

/* ---- args as JSON (the same text at read and at render time) ---- */

static void json_key(tp_buf *b, int *n, const char *key, size_t klen)
{
    tp_buf_putc(b, (*n)++ ? ',' : '{');
    tp_json_put_string(b, key, klen, NULL);
    tp_buf_putc(b, ':');
}

/* The args key of a stat (correlation_id under Kineto's key: a converted
 * trace read again keeps its launch links); tmp holds 40 bytes. */
static const char *stat_key(const xp_stat *s, uint8_t wk, const char *name, size_t nlen, char *tmp, size_t *klen)
{
    if (wk == WK_CORRELATION_ID) {
        *klen = 11;
        return "correlation";
    }
    if (s->sm == TP_I64MAP_EMPTY || nlen == 0) {
        *klen = (size_t)snprintf(tmp, 40, "stat_%lld", (long long)s->mid);
        return tmp;
    }
    *klen = nlen;
    return name;
}

static void json_value(tp_buf *b, const xp_stat *s)
{
    switch (s->type) {
    case XS_DOUBLE: {
        double d = tp_pb_double(s->v);
        if (d != d || d - d != 0) /* NaN or infinity have no JSON form */
            tp_buf_puts(b, "null");
        else
            tp_buf_printf(b, "%.17g", d);
        break;
    }
    case XS_UINT:
        tp_buf_put_uint(b, s->v);
        break;
    case XS_INT:
        tp_buf_put_int(b, (int64_t)s->v);
        break;
    case XS_STR:
    case XS_REF:
        tp_json_put_string(b, (const char *)s->s, s->len, NULL);
        break;
    case XS_BYTES: { /* serialized protos (HloProto...): summarised, not dumped */
        char t[48];
        int n = snprintf(t, sizeof t, "<%zu bytes>", s->len);
        tp_json_put_string(b, t, (size_t)n, NULL);
        break;
    }
    default:
        tp_buf_puts(b, "null");
        break;
    }
}

/* An event's args as JSON: long_name, num_occurrences, then every stat. */
static void args_json(tp_buf *b, const xp_plane *pl, const char *long_name, size_t lnlen, bool has_occ, int64_t occ,
                      const xp_stats *st)
{
    int n = 0;
    if (long_name) {
        json_key(b, &n, "long_name", 9);
        tp_json_put_string(b, long_name, lnlen, NULL);
    }
    if (has_occ) {
        json_key(b, &n, "num_occurrences", 15);
        tp_buf_put_int(b, occ);
    }
    char tmp[40];
    for (size_t i = 0; i < st->n; i++) {
        const xp_stat *s = &st->v[i];
        size_t kl;
        const char *k = stat_key(s, stat_wk(pl, s), (const char *)s->kn, s->kl, tmp, &kl);
        json_key(b, &n, k, kl);
        json_value(b, s);
    }
    if (n)
        tp_buf_putc(b, '}');
}

/* ---- planes ---- */

static void plane_json_begin(xp_reader *r)
{
    tp_buf *b = &r->planes_json;
    if (b->len)
        tp_buf_putc(b, ',');
}

static int plane_stats_json(xp_reader *r, const tp_pb *plane)
{
    r->ev.n = r->st.n = 0;
    if (decode_stats(r->top.base, plane->p, (size_t)(plane->end - plane->p), 6, &r->ev, r->err) < 0)
        return -1;
    uint32_t badrefs = 0;
    for (size_t i = 0; i < r->ev.n; i++) {
        resolve_stat(r, &r->ev.v[i], &badrefs);
        stats_merge(&r->st, &r->ev.v[i]);
    }
    if (badrefs)
        tp_warn(r->t, "XPlane ref_value without its string (shown empty)", badrefs);
    tp_argb_reset(&r->ab);
    args_json(&r->ab.buf, r->pl, NULL, 0, false, 0, &r->st);
    if (r->ab.buf.len) {
        tp_buf_puts(&r->planes_json, ",\"stats\":");
        tp_buf_put(&r->planes_json, r->ab.buf.data, r->ab.buf.len);
    }
    tp_argb_reset(&r->ab);
    return 0;
}

static uint32_t plane_process(xp_reader *r)
{
    if (r->process != TP_NONE)
        return r->process;
    const uint8_t *n = r->plane_name;
    size_t nl = r->plane_name_len;
    int64_t pid;
    bool device = has_prefix(n, nl, "/device:");
    if (has_prefix(n, nl, "/host:CPU"))
        pid = 701 + r->nhost++;
    else if (has_prefix(n, nl, "/device:CUSTOM:"))
        pid = 501 + r->plane_id;
    else if (device)
        pid = (r->plane_id >= 0 && r->plane_id < 500) ? 1 + r->plane_id : 1;
    else
        pid = 801 + r->nother++;
    uint32_t p = tp_process_get(r->t, pid);
    tp_process *pr = &r->t->processes[p];
    pr->name = tp_intern(r->t, (const char *)n, nl);
    pr->sort_index = pid;
    pr->has_sort = true;
    pr->is_device = device;
    if (device) {
        /* ordinal: the digits after the last ':' ("/device:GPU:4") */
        size_t i = nl;
        while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
            i--;
        if (i < nl && i > 0 && n[i - 1] == ':' && nl - i < 9) {
            int32_t d = 0;
            for (size_t j = i; j < nl; j++)
                d = d * 10 + (n[j] - '0');
            pr->device = d;
        }
    }
    r->process = p;
    return p;
}


static int line_header(xp_reader *r, const tp_pb *plane, const tp_pb_field *lf, xp_line *L)
{
    tp_pb p = tp_pb_sub(plane, lf);
    tp_pb_field f;
    memset(L, 0, sizeof *L);
    int k;
    while ((k = tp_pb_next_fast(&p, &f, r->err)) == 1) {
        if (f.wt == TP_PB_VARINT) {
            if (f.num == 1)
                L->id = (int64_t)f.v;
            else if (f.num == 10)
                L->display_id = (int64_t)f.v;
            else if (f.num == 3)
                L->ts_ns = (int64_t)f.v;
        } else if (f.wt == TP_PB_LEN) {
            if (f.num == 2) {
                L->name = f.data;
                L->nlen = f.len;
            } else if (f.num == 11) {
                L->disp = f.data;
                L->dlen = f.len;
            }
        }
    }
    return k < 0 ? -1 : 0;
}

static void emeta_intern(xp_reader *r, uint32_t mi)
{
    xp_emeta *m = &r->em[mi];
    if (m->interned)
        return;
    m->interned = true;
    if (m->dlen) {
        m->shown = tp_intern(r->t, (const char *)m->disp, m->dlen);
        if (m->nlen && !(m->nlen == m->dlen && memcmp(m->name, m->disp, m->dlen) == 0))
            r->pl->em[mi].full = tp_intern(r->t, (const char *)m->name, m->nlen);
    } else {
        m->shown = tp_intern(r->t, (const char *)m->name, m->nlen);
    }
}

/* tp_tfop_parse once per distinct op name: index into r->ops. */
static uint32_t parse_op(xp_reader *r, const char *s, size_t n)
{
    tp_str op = tp_intern(r->t, s, n);
    uint32_t i = tp_i64map_get(&r->opcache, op);
    if (i == TP_I64MAP_EMPTY) {
        tp_annot p;
        memset(&p, 0, sizeof p);
        tp_tfop_parse(r->t, s, n, &p);
        TP_GROW(r->ops, r->ops_cap, r->nops + 1);
        r->ops[r->nops] = p;
        i = (uint32_t)r->nops++;
        tp_i64map_put(&r->opcache, op, i);
    }
    return i;
}

/* The op of a text stat; "jit(f)/dot_general" (no type) parsed as "path:".
 * A ref_value's op is remembered with its stat metadata. */
static uint32_t stat_op(xp_reader *r, const xp_stat *v, bool colon)
{
    uint32_t *cache = NULL;
    if (v->type == XS_REF && v->ref != TP_I64MAP_EMPTY) {
        cache = colon ? &r->sm[v->ref].op_colon : &r->sm[v->ref].op;
        if (*cache != TP_NONE)
            return *cache;
    }
    uint32_t i;
    if (!colon) {
        i = parse_op(r, (const char *)v->s, v->len);
    } else {
        tp_buf b = {0};
        tp_buf_put(&b, v->s, v->len);
        tp_buf_putc(&b, ':');
        i = parse_op(r, b.data, b.len);
        tp_buf_free(&b);
    }
    if (cache)
        *cache = i;
    return i;
}

/* A text stat's value as an interned string (a ref_value's is its metadata's name). */
static tp_str stat_str(xp_reader *r, const xp_stat *v)
{
    if (v->type == XS_REF && v->ref != TP_I64MAP_EMPTY)
        return smeta_name(r, v->ref);
    return tp_intern(r->t, (const char *)v->s, v->len);
}

/* hlo_op levels, joined by "::" upstream: the engine wants TP_DERIVE_SEP. */
static void split_hlo(xp_reader *r, const xp_stat *hlo, tp_str *ops, tp_str *low)
{
    xp_smeta *c = hlo->type == XS_REF && hlo->ref != TP_I64MAP_EMPTY ? &r->sm[hlo->ref] : NULL;
    if (c && c->hlo_done) {
        *ops = c->hlo_ops;
        *low = c->hlo_low;
        return;
    }
    *ops = *low = 0;
    tp_buf b = {0};
    size_t last = 0;
    for (size_t i = 0; i < hlo->len; i++) {
        if (i + 1 < hlo->len && hlo->s[i] == ':' && hlo->s[i + 1] == ':') {
            if (b.len && b.data[b.len - 1] != TP_DERIVE_SEP)
                tp_buf_putc(&b, TP_DERIVE_SEP);
            i++;
            last = b.len;
            continue;
        }
        tp_buf_putc(&b, (char)hlo->s[i]);
    }
    if (b.len && b.data[b.len - 1] == TP_DERIVE_SEP)
        b.len--;
    if (b.len) {
        *ops = tp_intern(r->t, b.data, b.len);
        *low = tp_intern(r->t, b.data + last, b.len - last);
    }
    tp_buf_free(&b);
    if (c) {
        c->hlo_done = true;
        c->hlo_ops = *ops;
        c->hlo_low = *low;
    }
}

/* "<module>(<program id>)" */
static tp_str module_name(xp_reader *r, const xp_stat *mod, int64_t prog)
{
    xp_smeta *c = mod->type == XS_REF && mod->ref != TP_I64MAP_EMPTY ? &r->sm[mod->ref] : NULL;
    if (c && c->module_done && c->module_prog == prog)
        return c->module;
    tp_buf b = {0};
    tp_buf_put(&b, mod->s, mod->len);
    tp_buf_printf(&b, "(%lld)", (long long)prog);
    tp_str id = tp_intern(r->t, b.data, b.len);
    tp_buf_free(&b);
    if (c) {
        c->module_done = true;
        c->module_prog = prog;
        c->module = id;
    }
    return id;
}

/* What the derivation engine needs from one device event: fills *out; with
 * hlo_key (the report's data) also the event's "<outermost hlo op>
 * (<module>)" key. */
static void annotate(xp_reader *r, uint32_t ev, int64_t group, bool op_source, const xp_emeta *m, tp_annot *out,
                     tp_str *hlo_key)
{
    tp_annot a;
    memset(&a, 0, sizeof a);
    a.event = ev;
    a.group = group;
    a.scope_inst = TP_NONE;
    if (op_source)
        a.flags |= TP_ANNOT_OP_SOURCE;
    const xp_stat *tf = NULL, *lvl0 = NULL, *hlo = NULL, *mod = NULL, *pid = NULL, *name = NULL, *src = NULL;
    for (size_t i = 0; i < r->st.n; i++) {
        const xp_stat *s = &r->st.v[i];
        switch (stat_wk(r->pl, s)) {
        case WK_TF_OP: tf = s; break;
        case WK_LEVEL0: lvl0 = s; break;
        case WK_HLO_OP: hlo = s; break;
        case WK_HLO_MODULE: mod = s; break;
        case WK_PROGRAM_ID: pid = s; break;
        case WK_NAME: name = s; break;
        case WK_SOURCE: src = s; break;
        default: break;
        }
    }
    tp_trace *t = r->t;
    int64_t prog = 0;
    bool has_prog = pid && stat_int(pid, &prog);
    if (mod && stat_text(mod) && mod->len)
        a.module = has_prog ? module_name(r, mod, prog) : stat_str(r, mod);
    if (hlo && stat_text(hlo) && hlo->len) {
        split_hlo(r, hlo, &a.hlo_ops, &a.low_name);
        if (hlo_key && a.hlo_ops) { /* the outermost level: what was launched (a fusion, a while loop...) */
            tp_buf b = {0};
            const char *h = tp_str_get(t, a.hlo_ops);
            size_t hl = tp_str_len(t, a.hlo_ops);
            const char *sep = memchr(h, TP_DERIVE_SEP, hl);
            tp_buf_put(&b, h, sep ? (size_t)(sep - h) : hl);
            if (mod && stat_text(mod) && mod->len) {
                tp_buf_puts(&b, " (");
                tp_buf_put(&b, mod->s, mod->len);
                tp_buf_putc(&b, ')');
            }
            *hlo_key = tp_intern(t, b.data, b.len);
            tp_buf_free(&b);
        }
        if (has_prog) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)prog);
            a.hlo_prefix = tp_intern_cstr(t, buf);
        } else if (mod && stat_text(mod)) {
            a.hlo_prefix = stat_str(r, mod);
        }
    }
    if (!a.low_name)
        a.low_name = m ? m->shown : 0;
    if (!r->plane_is_gpu) /* TPU: the runtime writes XLA Modules / XLA Ops lines itself */
        a.module = a.hlo_ops = 0;
    /* the framework op: tf_op (or the 2020 `level 0`); JAX GPU kernels carry
     * tf_op "XlaModule:" and their op path in `name` */
    const xp_stat *op = tf && stat_text(tf) && tf->len ? tf : (lvl0 && stat_text(lvl0) && lvl0->len ? lvl0 : NULL);
    if (op && op->len == 10 && memcmp(op->s, "XlaModule:", 10) == 0)
        op = NULL;
    uint32_t oi = TP_NONE;
    if (op)
        oi = stat_op(r, op, false);
    else if (hlo && name && stat_text(name) && name->len)
        oi = stat_op(r, name, !memchr(name->s, ':', name->len));
    if (oi != TP_NONE) {
        a.op = r->ops[oi].op;
        a.op_display = r->ops[oi].op_display;
        a.scopes = r->ops[oi].scopes;
    }
    if (src && stat_text(src) && src->len)
        a.source = stat_str(r, src);
    *out = a;
}

/* at: the XEvent field (key) in the file; msg[0..len): its payload. */
static int read_event(xp_reader *r, const uint8_t *at, const uint8_t *msg, size_t len, const xp_line *L,
                      uint32_t track, bool is_device_line)
{
    xp_evhdr h;
    r->ev.n = 0;
    if (decode_event(r->top.base, msg, len, &h, &r->ev, r->err) < 0)
        return -1;
    uint64_t evoff = (uint64_t)(msg - r->top.base);
    uint32_t mi = ids_get(&r->pl->eids, h.mid);
    xp_emeta *m = mi == TP_I64MAP_EMPTY ? NULL : &r->em[mi];
    if (!m)
        tp_warn(r->t, "XPlane event metadata id not found (event named by id)", 1);
    r->st.n = 0;
    uint32_t badrefs = 0;
    if (m) {
        if (emeta_stats(r, mi) < 0)
            return -1;
        m = &r->em[mi];
        if (m->nst) {
            TP_GROW(r->st.v, r->st.cap, m->nst);
            memcpy(r->st.v, r->mst + m->st, m->nst * sizeof *r->st.v);
        }
        r->st.n = m->nst;
        badrefs = m->badrefs;
    }
    for (size_t i = 0; i < r->ev.n; i++)
        resolve_stat(r, &r->ev.v[i], &badrefs);
    stats_merge_all(&r->st, &r->ev);
    if (badrefs)
        tp_warn(r->t, "XPlane ref_value without its string (shown empty)", badrefs);

    tp_event e;
    tp_event_init(&e);
    e.track = track;
    int64_t off = h.off, dur = h.dur;
    if (dur < 0 || dur > (INT64_C(1) << 62) || off < -(INT64_C(1) << 62) || off > (INT64_C(1) << 62))
        return tp_fail(r->err, evoff, "XPlane event time out of range (offset_ps %lld, duration_ps %lld)",
                       (long long)off, (long long)dur);
    int64_t s_ns = ps_to_ns(off), e_ns = ps_to_ns(off + dur);
    if (__builtin_add_overflow(L->ts_ns, s_ns, &e.ts) || __builtin_add_overflow(L->ts_ns, e_ns, &e_ns))
        return tp_fail(r->err, evoff, "XPlane event time overflows (line timestamp_ns %lld)", (long long)L->ts_ns);
    e.dur = e_ns - e.ts;
    if (h.has_occ) { /* an aggregated event: no time of its own, kept as an instant */
        e.ph = 'i';
        e.ts = L->ts_ns;
        e.dur = 0;
    }
    if (m) {
        emeta_intern(r, mi);
        e.name = m->shown;
    } else {
        char b[48];
        snprintf(b, sizeof b, "metadata %lld", (long long)h.mid);
        e.name = tp_intern_cstr(r->t, b);
    }

    int64_t group = TP_DERIVE_NO_GROUP, corr = -1, device_id = -1, v;
    bool kernel = false, memcpy_ = false, memset_ = false, graph = false, async = false;
    for (size_t i = 0; i < r->st.n; i++) {
        const xp_stat *s = &r->st.v[i];
        switch (stat_wk(r->pl, s)) {
        case WK_GROUP_ID:
            if (stat_int(s, &v))
                group = v;
            break;
        case WK_STEP_NAME:
            if (stat_text(s) && s->len)
                e.name = stat_str(r, s);
            break;
        case WK_KERNEL_DETAILS: kernel = true; break;
        case WK_MEMCPY_DETAILS: memcpy_ = true; break;
        case WK_MEMSET_DETAILS: memset_ = true; break;
        case WK_CUDA_GRAPH_EXEC: graph = true; break;
        case WK_IS_ASYNC:
            if (stat_int(s, &v) && v)
                async = true;
            break;
        case WK_CORRELATION_ID:
            if (stat_int(s, &v))
                corr = v;
            break;
        case WK_DEVICE_ID:
            if (stat_int(s, &v))
                device_id = v;
            break;
        default: break;
        }
    }
    if (is_device_line) {
        if (memcpy_)
            e.kind = TP_KIND_MEMCPY;
        else if (memset_)
            e.kind = TP_KIND_MEMSET;
        else if (kernel || graph)
            e.kind = TP_KIND_KERNEL;
        else if (!async && !r->plane_is_gpu && L->nlen == 7 && memcmp(L->name, "XLA Ops", 7) == 0)
            e.kind = TP_KIND_KERNEL; /* TPU: the runtime's XLA Ops line is the op executions */
        else
            e.kind = TP_KIND_OTHER;
    } else if (r->plane_is_device) {
        e.kind = TP_KIND_OTHER;
    } else {
        /* a launch: TF 2.x calls have no device_id but the details of what they launch */
        e.kind = corr >= 0 && (device_id >= 0 || kernel || memcpy_ || memset_) ? TP_KIND_RUNTIME : TP_KIND_HOST_OP;
    }
    /* categories: the kind names the converter's own output uses (so a
     * converted trace reads back with the same kinds), "derived" for lines
     * TensorFlow derived */
    if (!r->cat_derived) {
        r->cat_derived = tp_intern_cstr(r->t, TP_DERIVED_CAT);
        for (int kk = 0; kk < TP_KIND_COUNT; kk++)
            r->cat_kind[kk] = tp_intern_cstr(r->t, tp_kind_name((tp_kind)kk));
    }
    e.cat = r->plane_is_device && !is_device_line ? r->cat_derived : r->cat_kind[e.kind];
    if (r->plane_is_device && !is_device_line) /* a line TensorFlow derived: not the trace's own slices */
        e.flags |= TP_EV_DERIVED;
    if (corr >= 0 && (is_device_line || e.kind == TP_KIND_RUNTIME)) {
        e.corr = (uint32_t)corr;
        e.flags |= TP_EV_HAS_CORR;
    }

    if (r->o->keep_args && (r->st.n || h.has_occ || (m && r->pl->em[mi].full))) {
        uint64_t at_off = (uint64_t)(at - r->top.base);
        if (r->lazy_args && r->pi < XP_MAX_PLANES && at_off < (UINT64_C(1) << XP_OFF_BITS)) {
            /* the writers render them from the file: their names must be interned now */
            for (size_t i = 0; i < r->st.n; i++) {
                const xp_stat *s = &r->st.v[i];
                if (s->sm != TP_I64MAP_EMPTY)
                    smeta_name(r, s->sm);
                if (s->type == XS_REF && s->ref != TP_I64MAP_EMPTY)
                    smeta_name(r, s->ref);
            }
            e.args = TP_ARGS_EXTERNAL | (uint64_t)r->pi << XP_OFF_BITS | at_off;
        } else {
            tp_argb_reset(&r->ab);
            args_json(&r->ab.buf, r->pl, m && r->pl->em[mi].full ? (const char *)m->name : NULL, m ? m->nlen : 0,
                      h.has_occ, h.occ, &r->st);
            e.args = tp_args_add(r->t, r->ab.buf.data, r->ab.buf.len);
        }
    }
    if (r->plane_is_device && !is_device_line && group != TP_DERIVE_NO_GROUP && group >= 0 && L->nlen == 5 &&
        memcmp(L->name, "Steps", 5) == 0) { /* a Steps line kept from the file: its events are the steps */
        e.flags |= TP_EV_STEP;
        e.id = (uint64_t)group;
    }
    if (r->t->nevents >= r->ev_limit) /* more events than counted: the file changed under us */
        return tp_fail(r->err, evoff, "XPlane events changed while the file was read");
    uint32_t idx = tp_event_add(r->t, &e);
    r->t->events_in++;
    r->plane_events++;

    bool activity = e.kind == TP_KIND_KERNEL || e.kind == TP_KIND_MEMCPY || e.kind == TP_KIND_MEMSET;
    if (is_device_line && e.ph == 'X' && !async && (r->plane_derive || (r->xd && activity))) {
        tp_annot a;
        tp_str hlo = 0;
        annotate(r, idx, group, kernel || graph || e.kind == TP_KIND_KERNEL, m, &a, r->xd ? &hlo : NULL);
        if (r->plane_derive)
            tp_derive_add(&r->din, &a);
        if (r->xd && activity && (a.op || hlo)) {
            TP_GROW(r->xd->ops, r->xd->ops_cap, r->xd->nops + 1);
            r->xd->ops[r->xd->nops++] = (tp_xplane_opkey){idx, a.op, a.op ? a.op_display : 0, hlo};
        }
    }
    if (!r->plane_is_device && e.kind == TP_KIND_RUNTIME && corr >= 0 &&
        tp_launch_counted(m ? (const char *)m->name : "", m ? m->nlen : 0)) {
        if (group != TP_DERIVE_NO_GROUP && device_id >= 0) /* device: an ordinal until the end */
            tp_derive_add_launch(&r->din, (uint32_t)device_id, group, e.ts, e.dur);
        if (r->xd) {
            TP_GROW(r->xd->launches, r->xd->launches_cap, r->xd->nlaunches + 1);
            r->xd->launches[r->xd->nlaunches++] =
                (tp_xplane_launch){idx, device_id >= 0 && device_id < INT32_MAX ? (uint32_t)device_id : TP_NONE, group};
        }
    }
    return 0;
}

/* Give back the pages of a finished range of a mapped file. */
static void drop_pages(xp_reader *r, const uint8_t *from, const uint8_t *to)
{
    if (!r->page)
        return;
    uintptr_t a = ((uintptr_t)from + r->page - 1) & ~(uintptr_t)(r->page - 1);
    uintptr_t b = (uintptr_t)to & ~(uintptr_t)(r->page - 1);
    if (b > a + 16 * r->page)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

static int read_line(xp_reader *r, const tp_pb *plane, const tp_pb_field *lf)
{
    xp_line L;
    if (r->lcache_next < r->nlcache && r->lcache[r->lcache_next].data == lf->data)
        L = r->lcache[r->lcache_next++].L;
    else if (line_header(r, plane, lf, &L) < 0)
        return -1;
    bool derived = tp_xplane_is_derived_line_id(L.id);
    if (derived && r->o->rederive)
        return 0; /* rebuilt by the engine instead */
    /* a line without events (TPU "Overlay") gets no track: viewers skip them too */
    {
        tp_pb q = tp_pb_sub(plane, lf);
        tp_pb_field g;
        bool any = false;
        int k2;
        while (!any && (k2 = tp_pb_next_fast(&q, &g, r->err)) == 1)
            any = g.num == 4 && g.wt == TP_PB_LEN;
        if (!any)
            return r->err->set ? -1 : 0;
    }
    uint32_t proc = plane_process(r);
    tp_trace *t = r->t;
    int64_t tid = (int64_t)(uint32_t)(uint64_t)(L.display_id ? L.display_id : L.id);
    tp_str name = L.dlen ? tp_intern(t, (const char *)L.disp, L.dlen) : tp_intern(t, (const char *)L.name, L.nlen);
    uint32_t track;
    if (derived) {
        track = tp_track_add(t, proc, name, TP_TRACK_DERIVED, TP_NONE); /* derived_of set after the plane */
        t->tracks[track].tid = tid;
    } else {
        track = tp_track_get(t, proc, tid);
        t->tracks[track].name = name;
        t->tracks[track].role = r->plane_is_device ? TP_TRACK_DEVICE : TP_TRACK_HOST;
    }
    bool is_device_line = r->plane_is_device && !derived;
    tp_pb p = tp_pb_sub(plane, lf);
    tp_pb_field f;
    int k;
    const uint8_t *at = p.p;
    while ((k = tp_pb_next_fast(&p, &f, r->err)) == 1) {
        if (f.num == 4 && f.wt == TP_PB_LEN) {
            if (read_event(r, at, f.data, f.len, &L, track, is_device_line) < 0)
                return -1;
        }
        at = p.p;
    }
    if (k < 0)
        return -1;
    drop_pages(r, lf->data, lf->data + lf->len);
    return 0;
}

static int read_plane(xp_reader *r, const tp_pb_field *pf)
{
    tp_pb plane = tp_pb_sub(&r->top, pf);
    tp_pb_field f;
    int k;
    xp_src *src = r->src;
    TP_GROW(src->planes, src->planes_cap, src->nplanes + 1);
    r->pi = src->nplanes++;
    r->pl = &src->planes[r->pi];
    memset(r->pl, 0, sizeof *r->pl);
    r->nem = r->nsm = r->nmst = 0;
    r->process = TP_NONE;
    r->plane_id = 0;
    r->plane_name = (const uint8_t *)"";
    r->plane_name_len = 0;
    r->plane_events = 0;
    r->plane_has_derived = false;
    uint64_t nlines_raw = 0;
    /* pass 1: everything but the lines */
    while ((k = tp_pb_next(&plane, &f, r->err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_VARINT)
            r->plane_id = (int64_t)f.v;
        else if (f.num == 2 && f.wt == TP_PB_LEN) {
            r->plane_name = f.data;
            r->plane_name_len = f.len;
        } else if (f.num == 3 && f.wt == TP_PB_LEN) {
            nlines_raw++;
            /* only the id (field 1, serialised first): a full scan happens in pass 2 */
            tp_pb lp = tp_pb_sub(&plane, &f);
            tp_pb_field g;
            int k2;
            while ((k2 = tp_pb_next(&lp, &g, r->err)) == 1)
                if (g.num == 1 && g.wt == TP_PB_VARINT) {
                    if (tp_xplane_is_derived_line_id((int64_t)g.v))
                        r->plane_has_derived = true;
                    break;
                }
            if (k2 < 0)
                return -1;
        } else if (f.num == 4 && f.wt == TP_PB_LEN) {
            if (read_event_metadata(r, &plane, &f) < 0)
                return -1;
        } else if (f.num == 5 && f.wt == TP_PB_LEN) {
            if (read_stat_metadata(r, &plane, &f) < 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    xp_plane *pl = r->pl;
    ids_build(&pl->sids, r->skeys, r->nsm);
    ids_build(&pl->eids, r->ekeys, r->nem);
    pl->nsm = r->nsm;
    pl->sm = tp_xcalloc(r->nsm + 1, sizeof *pl->sm);
    for (size_t i = 0; i < r->nsm; i++)
        pl->sm[i].wk = r->sm[i].wk;
    pl->nem = r->nem;
    pl->em = tp_xcalloc(r->nem + 1, sizeof *pl->em);
    r->plane_is_device = has_prefix(r->plane_name, r->plane_name_len, "/device:");
    r->plane_is_gpu = has_prefix(r->plane_name, r->plane_name_len, "/device:GPU:");
    r->plane_derive = r->plane_is_device && (r->o->rederive || !r->plane_has_derived);

    plane_json_begin(r);
    tp_buf_puts(&r->planes_json, "{\"id\":");
    tp_buf_printf(&r->planes_json, "%lld,\"name\":", (long long)r->plane_id);
    tp_json_put_string(&r->planes_json, (const char *)r->plane_name, r->plane_name_len, NULL);
    plane = tp_pb_sub(&r->top, pf);
    if (plane_stats_json(r, &plane) < 0)
        return -1;

    /* pass 2: the lines */
    plane = tp_pb_sub(&r->top, pf);
    while ((k = tp_pb_next(&plane, &f, r->err)) == 1)
        if (f.num == 3 && f.wt == TP_PB_LEN && read_line(r, &plane, &f) < 0)
            return -1;
    if (k < 0)
        return -1;
    if (r->process != TP_NONE) { /* derived lines in the file sit beside the first stream */
        tp_trace *t = r->t;
        uint32_t first = TP_NONE;
        for (size_t i = 0; i < t->ntracks && first == TP_NONE; i++)
            if (t->tracks[i].process == r->process && t->tracks[i].role == TP_TRACK_DEVICE)
                first = (uint32_t)i;
        for (size_t i = 0; i < t->ntracks; i++)
            if (t->tracks[i].process == r->process && t->tracks[i].role == TP_TRACK_DERIVED &&
                t->tracks[i].derived_of == TP_NONE)
                t->tracks[i].derived_of = first;
    }
    tp_buf_printf(&r->planes_json, ",\"lines\":%llu,\"events\":%llu", (unsigned long long)nlines_raw,
                  (unsigned long long)r->plane_events);
    if (r->process != TP_NONE)
        tp_buf_printf(&r->planes_json, ",\"pid\":%lld", (long long)r->t->processes[r->process].pid);
    tp_buf_putc(&r->planes_json, '}');
    return 0;
}

static void json_str_list(tp_buf *b, const char *key, const tp_buf *items)
{
    if (!items->len)
        return;
    tp_buf_printf(b, ",\"%s\":[", key);
    tp_buf_put(b, items->data, items->len);
    tp_buf_putc(b, ']');
}

/* The process of the /device:GPU:<ordinal> plane (the last one, should a
 * file have two), or TP_NONE: what a launch's device_id names. */
static uint32_t gpu_process(const tp_trace *t, uint32_t ordinal)
{
    uint32_t proc = TP_NONE;
    for (size_t p = 0; ordinal != TP_NONE && p < t->nprocesses; p++)
        if (t->processes[p].is_device && t->processes[p].device == (int32_t)ordinal &&
            strncmp(tp_str_get(t, t->processes[p].name), "/device:GPU:", 12) == 0)
            proc = (uint32_t)p;
    return proc;
}

static void xplane_data_free(void *p)
{
    tp_xplane_data *xd = p;
    if (!xd)
        return;
    free(xd->launches);
    free(xd->ops);
    free(xd);
}

/* ---- rendering args from the file (tp_args_source) ---- */

static void src_free(void *p)
{
    xp_src *s = p;
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->map)
        munmap((void *)s->map, s->size);
    free(s->mem);
    for (size_t i = 0; i < s->nplanes; i++) {
        ids_free(&s->planes[i].sids);
        ids_free(&s->planes[i].eids);
        free(s->planes[i].sm);
        free(s->planes[i].em);
    }
    free(s->planes);
    free(s->pst);
    tp_fwin_release(&s->own.fw);
    free(s->own.win);
    free(s->own.st.v);
    free(s->own.ev.v);
    tp_buf_free(&s->own.json);
    xplane_data_free(s->xd);
    free(s);
}

static void *cursor_new(const tp_trace *t)
{
    (void)t;
    return tp_xaligned_zero(64, sizeof(xp_cursor)); /* one per writer thread: lines of its own */
}

static void cursor_free(void *p)
{
    xp_cursor *c = p;
    tp_fwin_release(&c->fw);
    free(c->win);
    free(c->st.v);
    free(c->ev.v);
    tp_buf_free(&c->json);
    free(c);
}

/* n bytes of the input at off, or NULL.  The file is read with pread into a
 * window that grows while the writer walks a line in order (the usual case)
 * and starts small again after a jump (overlap rows, another track). */
static const uint8_t *src_bytes(const xp_src *src, xp_cursor *s, uint64_t off, size_t n)
{
    if (off > src->size || n > src->size - off)
        return NULL;
    if (src->mem)
        return src->mem + off;
    if (src->map) { /* read in place; what stays mapped is bounded per cursor */
        tp_fwin_touch(&s->fw, (const char *)src->map, src->size, off);
        if (n > 1)
            tp_fwin_touch(&s->fw, (const char *)src->map, src->size, off + n - 1);
        return src->map + off;
    }
    if (off >= s->woff && off - s->woff <= s->wlen && n <= s->wlen - (off - s->woff))
        return s->win + (off - s->woff);
    enum { WMIN = 16 << 10, WMAX = 4 << 20 };
    bool onward = s->wlen && off >= s->woff && off <= s->woff + s->wlen + WMIN;
    s->wnext = onward ? (s->wnext * 2 > WMAX ? WMAX : s->wnext * 2) : WMIN;
    size_t want = n > s->wnext ? n : s->wnext;
    if (want > src->size - off)
        want = (size_t)(src->size - off);
    if (want > s->wcap) {
        free(s->win);
        s->win = tp_xmalloc(want);
        s->wcap = want;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t k = pread(src->fd, s->win + got, want - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    s->woff = off;
    s->wlen = got;
    return got >= n ? s->win : NULL;
}

/* Decode the event of handle h again: header, and its merged stats in
 * s->st with names and values resolved through the trace's strings. */
static const char *src_collect(const tp_trace *t, xp_cursor *s, uint64_t h, xp_evhdr *hd, const xp_pem **pem)
{
    const xp_src *src = t->format_data;
    uint64_t pi = (h & ~TP_ARGS_EXTERNAL) >> XP_OFF_BITS, off = h & ((UINT64_C(1) << XP_OFF_BITS) - 1);
    if (pi >= src->nplanes || off >= src->size)
        return "XPlane args: bad handle";
    const xp_plane *pl = &src->planes[pi];
    size_t head = src->size - off < 16 ? (size_t)(src->size - off) : 16;
    const uint8_t *p = src_bytes(src, s, off, head);
    uint64_t len;
    const uint8_t *q = p ? p + 1 : NULL;
    if (!p || p[0] != (4 << 3 | TP_PB_LEN) || !fast_varint(&q, p + head, &len) || len > src->size)
        return "XPlane args: the input file changed since it was read";
    size_t hl = (size_t)(q - p);
    p = src_bytes(src, s, off, hl + (size_t)len);
    if (!p)
        return "XPlane args: the input file changed since it was read";
    s->err.set = false;
    s->ev.n = s->st.n = 0;
    if (decode_event(p, p + hl, (size_t)len, hd, &s->ev, &s->err) < 0)
        return "XPlane args: the input file changed since it was read";
    uint32_t mi = ids_get(&pl->eids, hd->mid);
    *pem = mi == TP_I64MAP_EMPTY ? NULL : &pl->em[mi];
    if (*pem)
        for (uint32_t i = 0; i < (*pem)->nst; i++) {
            const xp_pst *m = &src->pst[(*pem)->st + i];
            xp_stat *x = stats_push(&s->st);
            memset(x, 0, sizeof *x);
            x->mid = m->mid;
            x->sm = m->sm;
            x->ref = m->ref;
            x->type = m->type;
            x->v = m->v;
            if (m->type == XS_STR || m->type == XS_REF) {
                x->s = (const uint8_t *)tp_str_get(t, m->str);
                x->len = tp_str_len(t, m->str);
                x->sid = m->str;
            } else if (m->type == XS_BYTES)
                x->len = (size_t)m->v;
        }
    for (size_t i = 0; i < s->ev.n; i++) {
        xp_stat *x = &s->ev.v[i];
        x->sm = ids_get(&pl->sids, x->mid);
        x->ref = TP_I64MAP_EMPTY;
        if (x->type == XS_REF) {
            x->ref = ids_get(&pl->sids, (int64_t)x->v);
            tp_str v = x->ref == TP_I64MAP_EMPTY ? 0 : pl->sm[x->ref].name;
            x->s = (const uint8_t *)tp_str_get(t, v);
            x->len = tp_str_len(t, v);
            x->sid = v;
        }
    }
    stats_merge_all(&s->st, &s->ev);
    for (size_t i = 0; i < s->st.n; i++) {
        xp_stat *x = &s->st.v[i];
        tp_str k = x->sm == TP_I64MAP_EMPTY ? 0 : pl->sm[x->sm].name;
        x->kn = (const uint8_t *)tp_str_get(t, k);
        x->kl = tp_str_len(t, k);
    }
    return NULL;
}

static const char *src_json(const tp_trace *t, void *cursor, uint64_t h, size_t *len, const char **why)
{
    xp_src *src = t->format_data;
    xp_cursor *s = cursor ? cursor : &src->own;
    xp_evhdr hd;
    const xp_pem *pem;
    *len = 0;
    if ((*why = src_collect(t, s, h, &hd, &pem)) != NULL)
        return NULL;
    uint32_t pi = (uint32_t)((h & ~TP_ARGS_EXTERNAL) >> XP_OFF_BITS);
    s->json.len = 0;
    tp_str full = pem ? pem->full : 0;
    args_json(&s->json, &src->planes[pi], full ? tp_str_get(t, full) : NULL, tp_str_len(t, full), hd.has_occ,
              hd.occ, &s->st);
    *len = s->json.len;
    return s->json.data ? s->json.data : "";
}

static int src_visit(const tp_trace *t, void *cursor, uint64_t h, tp_arg_fn fn, void *ctx)
{
    xp_src *src = t->format_data;
    xp_cursor *s = cursor ? cursor : &src->own;
    xp_evhdr hd;
    const xp_pem *pem;
    if (src_collect(t, s, h, &hd, &pem) != NULL)
        return -1;
    const xp_plane *pl = &src->planes[(h & ~TP_ARGS_EXTERNAL) >> XP_OFF_BITS];
    tp_arg a;
    if (pem && pem->full) {
        memset(&a, 0, sizeof a);
        a.key = "long_name";
        a.klen = 9;
        a.key_id = src->k_long_name;
        a.type = TP_ARG_STR;
        a.s = tp_str_get(t, pem->full);
        a.len = tp_str_len(t, pem->full);
        a.s_id = pem->full;
        fn(ctx, &a);
    }
    if (hd.has_occ) {
        memset(&a, 0, sizeof a);
        a.key = "num_occurrences";
        a.klen = 15;
        a.key_id = src->k_occ;
        a.type = TP_ARG_INT;
        a.i = hd.occ;
        fn(ctx, &a);
    }
    char tmp[40], num[48], bytes[48];
    for (size_t i = 0; i < s->st.n; i++) {
        const xp_stat *x = &s->st.v[i];
        memset(&a, 0, sizeof a);
        uint8_t wk = stat_wk(pl, x);
        a.key = stat_key(x, wk, (const char *)x->kn, x->kl, tmp, &a.klen);
        a.key_id = wk == WK_CORRELATION_ID ? src->k_corr : a.key == (const char *)x->kn ? pl->sm[x->sm].name : 0;
        /* the types the JSON text of these values has (what a JSON reader would see) */
        switch (x->type) {
        case XS_DOUBLE: {
            double d = tp_pb_double(x->v);
            int n = d != d || d - d != 0 ? 0 : snprintf(num, sizeof num, "%.17g", d);
            if (n == 0) {
                a.type = TP_ARG_JSON;
                a.s = "null";
                a.len = 4;
            } else if (strpbrk(num, ".eE") || tp_parse_int(num, (size_t)n, &a.i) != 0) {
                a.type = TP_ARG_DOUBLE;
                a.d = d;
            } else
                a.type = TP_ARG_INT;
            break;
        }
        case XS_UINT:
            if (x->v <= INT64_MAX) {
                a.type = TP_ARG_INT;
                a.i = (int64_t)x->v;
            } else {
                a.type = TP_ARG_JSON;
                a.len = (size_t)snprintf(num, sizeof num, "%llu", (unsigned long long)x->v);
                a.s = num;
            }
            break;
        case XS_INT:
            a.type = TP_ARG_INT;
            a.i = (int64_t)x->v;
            break;
        case XS_STR:
        case XS_REF:
            a.type = TP_ARG_STR;
            a.s = (const char *)x->s;
            a.len = x->len;
            a.s_id = x->sid;
            break;
        case XS_BYTES:
            a.type = TP_ARG_STR;
            a.len = (size_t)snprintf(bytes, sizeof bytes, "<%zu bytes>", x->len);
            a.s = bytes;
            break;
        default:
            a.type = TP_ARG_JSON;
            a.s = "null";
            a.len = 4;
            break;
        }
        fn(ctx, &a);
    }
    return 0;
}

static const tp_args_source xp_args_source = {
    .json = src_json, .visit = src_visit, .cursor_new = cursor_new, .cursor_free = cursor_free};

const tp_xplane_data *tp_xplane_report_data(const tp_trace *t)
{
    if (!t->format || strcmp(t->format, "xplane") != 0 || !t->format_data)
        return NULL;
    if (t->args_source == &xp_args_source)
        return ((const xp_src *)t->format_data)->xd;
    return t->format_data;
}

/* ---- the XSpace ---- */

/* mapped: buf is a private file mapping whose finished lines may be dropped.
 * On success with args kept, t->format_data is the renderer, without the
 * input's bytes yet: the caller attaches them (attach_bytes). */
/* ---- two threads: the later planes read into a trace of their own ----
 *
 * Planes are independent (each has its own metadata, and a plane's lines
 * are one process), so the planes after a split point are read on a second
 * thread by a reader of their own, into a trace of their own, and appended
 * afterwards: strings, processes, tracks, events, the derivation input,
 * the report's data and what the args renderer keeps of each plane.  The
 * result is the trace one reader makes (same strings, tracks and events in
 * the same order: the output does not depend on the threads).  Two cases
 * are read again on one thread instead, as they would need the first
 * planes' state: a process of the second part that the first part also has
 * (two planes with one pid), and host or other planes numbered in both
 * parts (pids 701, 702...).  TP_THREADS=1 or TP_READ_THREADS=1 reads on
 * one thread; TP_READ_SPLIT_MIN (bytes of planes, default 64 MiB) is the
 * smallest input split (tests set it low). */

#define XP_SPLIT_MIN ((uint64_t)64 << 20)

typedef struct plane_part {
    xp_reader r;
    tp_trace t;
    tp_err err;
    const tp_pb_field *planes;
    size_t from, to;
    int rc;
    /* both parts' events go into one array: each part counts its own (a
     * walk over the frames), then the first reserves the array and hands the
     * second its slice (between the two waits) */
    pthread_barrier_t counted, sliced;
    int64_t count;           /* the second part's events, -1 on a framing error */
    bool go;                 /* the slice is there: read (else stop) */
} plane_part;

static void reader_free(xp_reader *r)
{
    free(r->lcache);
    xplane_data_free(r->xd);
    src_free(r->src);
    tp_buf_free(&r->planes_json);
    tp_i64map_free(&r->opcache);
    free(r->ops);
    free(r->em);
    free(r->sm);
    free(r->skeys);
    free(r->ekeys);
    free(r->mst);
    free(r->st.v);
    free(r->ev.v);
    tp_argb_free(&r->ab);
    tp_derive_input_free(&r->din);
    memset(r, 0, sizeof *r);
}

static int64_t planes_events(xp_reader *r, const tp_pb_field *planes, size_t from, size_t to);

/* Free a part (its events are in our array: not freed with its trace). */
static void part_free(plane_part *q)
{
    q->t.events = NULL;
    pthread_barrier_destroy(&q->counted);
    pthread_barrier_destroy(&q->sliced);
    reader_free(&q->r);
    tp_trace_free(&q->t);
    free(q);
}

static void *part_main(void *p)
{
    plane_part *q = p;
    q->rc = 0;
    q->count = planes_events(&q->r, q->planes, q->from, q->to);
    pthread_barrier_wait(&q->counted);
    pthread_barrier_wait(&q->sliced);
    for (size_t i = q->from; i < q->to && q->rc == 0 && q->go; i++)
        q->rc = read_plane(&q->r, &q->planes[i]);
    return NULL;
}

/* Where to split: the plane that makes the two parts' bytes most even, or 0. */
static size_t split_point(const tp_pb_field *planes, size_t n)
{
    if (n < 2 || tp_single_thread("TP_READ_THREADS"))
        return 0;
    uint64_t total = 0, min = XP_SPLIT_MIN, before = 0;
    const char *m = getenv("TP_READ_SPLIT_MIN");
    if (m && *m)
        min = strtoull(m, NULL, 10);
    for (size_t i = 0; i < n; i++)
        total += planes[i].len;
    if (total < min)
        return 0;
    size_t best = 0;
    uint64_t best_gap = UINT64_MAX;
    for (size_t s = 1; s < n; s++) {
        before += planes[s - 1].len;
        uint64_t gap = before > total - before ? before - (total - before) : total - before - before;
        if (gap < best_gap) {
            best_gap = gap;
            best = s;
        }
    }
    return best;
}

/* The events reading plane pf adds (an event field of each line read), or
 * -1 on a framing error (then nothing is split: one reader reports it). */
static int64_t plane_events(xp_reader *r, const tp_pb_field *pf)
{
    tp_pb plane = tp_pb_sub(&r->top, pf);
    tp_pb_field f, g;
    tp_err e = {0};
    int k, k2;
    int64_t n = 0;
    while ((k = tp_pb_next(&plane, &f, &e)) == 1) {
        if (f.num != 3 || f.wt != TP_PB_LEN)
            continue;
        tp_pb lp = tp_pb_sub(&plane, &f);
        int64_t m = 0;
        xp_line L = {0}; /* the fields line_header reads, as it reads them */
        while ((k2 = tp_pb_next_fast(&lp, &g, &e)) == 1) {
            if (g.wt == TP_PB_VARINT) {
                if (g.num == 1)
                    L.id = (int64_t)g.v;
                else if (g.num == 10)
                    L.display_id = (int64_t)g.v;
                else if (g.num == 3)
                    L.ts_ns = (int64_t)g.v;
            } else if (g.wt == TP_PB_LEN) {
                if (g.num == 4)
                    m++;
                else if (g.num == 2) {
                    L.name = g.data;
                    L.nlen = g.len;
                } else if (g.num == 11) {
                    L.disp = g.data;
                    L.dlen = g.len;
                }
            }
        }
        if (k2 < 0)
            return -1;
        if (!(r->o->rederive && tp_xplane_is_derived_line_id(L.id))) /* (read_line skips those) */
            n += m;
        TP_GROW(r->lcache, r->lcache_cap, r->nlcache + 1);
        r->lcache[r->nlcache++] = (xp_lcache){f.data, L};
    }
    return k < 0 ? -1 : n;
}

static int64_t planes_events(xp_reader *r, const tp_pb_field *planes, size_t from, size_t to)
{
    int64_t n = 0;
    for (size_t i = from; i < to; i++) {
        int64_t c = plane_events(r, &planes[i]);
        if (c < 0)
            return -1;
        n += c;
    }
    return n;
}

static bool has_pid(const tp_trace *t, int64_t pid)
{
    for (size_t i = 0; i < t->nprocesses; i++)
        if (t->processes[i].pid == pid)
            return true;
    return false;
}

/* Append part q (read after the planes in r) to r.  Returns false, changing
 * nothing, when the part must be read again on r's thread (see above). */
static bool part_append(xp_reader *r, plane_part *q)
{
    tp_trace *t = r->t, *u = &q->t;
    xp_reader *b = &q->r;
    if ((r->nhost && b->nhost) || (r->nother && b->nother) || u->events != t->events + t->nevents)
        return false;
    for (size_t i = 0; i < u->nprocesses; i++)
        if (has_pid(t, u->processes[i].pid))
            return false;
    tp_str *smap = tp_xmalloc((u->nstr + 1) * sizeof *smap);
    for (size_t i = 0; i < u->nstr; i++)
        smap[i] = tp_intern(t, tp_str_get(u, (tp_str)i), tp_str_len(u, (tp_str)i));
    uint32_t first_ev = (uint32_t)t->nevents;
    if (!tp_derive_input_append(&r->din, &b->din, first_ev, smap)) {
        free(smap); /* (strings interned are harmless: re-reading interns them anyway, in the same order) */
        return false;
    }
    uint32_t *pmap = tp_xmalloc((u->nprocesses + 1) * sizeof *pmap);
    for (size_t i = 0; i < u->nprocesses; i++) {
        const tp_process *x = &u->processes[i];
        uint32_t k = tp_process_get(t, x->pid);
        tp_process *p = &t->processes[k];
        p->name = smap[x->name];
        p->label = smap[x->label];
        p->sort_index = x->sort_index;
        p->has_sort = x->has_sort;
        p->is_device = x->is_device;
        p->device = x->device;
        pmap[i] = k;
    }
    uint32_t *tmap = tp_xmalloc((u->ntracks + 1) * sizeof *tmap);
    for (size_t i = 0; i < u->ntracks; i++) { /* derived_of points back: set below */
        const tp_track *x = &u->tracks[i];
        uint32_t k = x->role == TP_TRACK_DERIVED ? tp_track_add(t, pmap[x->process], smap[x->name], x->role, TP_NONE)
                                                 : tp_track_get(t, pmap[x->process], x->tid);
        tp_track *y = &t->tracks[k];
        y->tid = x->tid;
        y->name = smap[x->name];
        y->role = x->role;
        y->sort_index = x->sort_index;
        y->has_sort = x->has_sort;
        tmap[i] = k;
    }
    for (size_t i = 0; i < u->ntracks; i++)
        if (u->tracks[i].derived_of != TP_NONE)
            t->tracks[tmap[i]].derived_of = tmap[u->tracks[i].derived_of];
    uint64_t shift = tp_args_append(t, u); /* args kept as JSON (handles that do not fit the file form) */
    /* events: the part wrote them into our array, after ours */
    for (size_t i = 0; i < u->nevents; i++) {
        tp_event *e = &u->events[i];
        e->name = smap[e->name];
        e->cat = smap[e->cat];
        e->track = tmap[e->track];
        if (e->args && !(e->args & TP_ARGS_EXTERNAL))
            e->args += shift;
        if (e->flags & TP_EV_ID_STRING)
            e->id = smap[e->id];
        if (e->link != TP_NONE)
            e->link += first_ev;
        if (e->op != TP_NONE)
            e->op += first_ev;
    }
    t->nevents += u->nevents;
    t->events_in += u->events_in;
    for (size_t i = 0; i < u->nwarnings; i++)
        tp_warn_merge(t, &u->warnings[i]);
    for (size_t i = 0; i < u->ndrops; i++)
        tp_drop_count(t, u->drops[i].what, u->drops[i].count);
    /* the report's data */
    if (r->xd && b->xd) {
        tp_xplane_data *x = r->xd, *y = b->xd;
        TP_GROW(x->ops, x->ops_cap, x->nops + y->nops);
        for (size_t i = 0; i < y->nops; i++) {
            tp_xplane_opkey o = y->ops[i];
            x->ops[x->nops++] = (tp_xplane_opkey){o.event + first_ev, smap[o.tf_op], smap[o.tf_type], smap[o.hlo_op]};
        }
        TP_GROW(x->launches, x->launches_cap, x->nlaunches + y->nlaunches);
        for (size_t i = 0; i < y->nlaunches; i++) {
            tp_xplane_launch l = y->launches[i];
            l.event += first_ev;
            x->launches[x->nlaunches++] = l;
        }
    }
    /* what the renderer keeps of each plane: the part's planes follow ours */
    xp_src *src = r->src, *bs = b->src;
    size_t pst0 = src->npst;
    TP_GROW(src->pst, src->pst_cap, src->npst + bs->npst);
    for (size_t i = 0; i < bs->npst; i++) {
        xp_pst x = bs->pst[i];
        x.str = smap[x.str];
        src->pst[src->npst++] = x;
    }
    TP_GROW(src->planes, src->planes_cap, bs->nplanes);
    for (size_t i = q->from; i < bs->nplanes; i++) {
        xp_plane *pl = &bs->planes[i];
        for (size_t j = 0; j < pl->nsm; j++)
            pl->sm[j].name = smap[pl->sm[j].name];
        for (size_t j = 0; j < pl->nem; j++) {
            pl->em[j].full = smap[pl->em[j].full];
            pl->em[j].st += (uint32_t)pst0;
        }
        src->planes[src->nplanes++] = *pl;
        memset(pl, 0, sizeof *pl);
    }
    if (b->planes_json.len) {
        if (r->planes_json.len)
            tp_buf_putc(&r->planes_json, ',');
        tp_buf_put(&r->planes_json, b->planes_json.data, b->planes_json.len);
    }
    r->nhost += b->nhost;
    r->nother += b->nother;
    free(smap);
    free(pmap);
    free(tmap);
    return true;
}

/* Read the planes: on this thread, or the later ones on a second. */
static int read_planes(xp_reader *r, const tp_pb_field *planes, size_t n)
{
    size_t s = split_point(planes, n);
    plane_part *q = NULL;
    pthread_t th;
    if (s) {
        q = tp_xcalloc(1, sizeof *q);
        tp_trace_init(&q->t);
        q->t.format = r->t->format;
        q->t.strict = r->t->strict;
        q->t.keep_args = r->t->keep_args;
        q->r = (xp_reader){.t = &q->t, .o = r->o, .err = &q->err, .top = r->top, .page = r->page,
                           .lazy_args = r->lazy_args};
        q->r.src = tp_xcalloc(1, sizeof *q->r.src);
        q->r.src->fd = -1;
        q->r.src->planes = tp_xcalloc(s, sizeof *q->r.src->planes); /* the first part's: left empty */
        q->r.src->nplanes = q->r.src->planes_cap = s;
        if (r->xd)
            q->r.xd = tp_xcalloc(1, sizeof *q->r.xd);
        q->planes = planes;
        q->from = s;
        q->to = n;
        pthread_barrier_init(&q->counted, NULL, 2);
        pthread_barrier_init(&q->sliced, NULL, 2);
        if (pthread_create(&th, NULL, part_main, q) != 0) {
            part_free(q);
            q = NULL;
            s = 0;
        }
    }
    if (q) {
        int64_t na = planes_events(r, planes, 0, s);
        pthread_barrier_wait(&q->counted);
        tp_trace *t = r->t;
        q->go = na >= 0 && q->count >= 0 && t->nevents + (uint64_t)na + (uint64_t)q->count < UINT32_MAX - 1;
        if (q->go) { /* (else a framing error, or too many events: one reader reports it) */
            TP_GROW_EVENTS(t, t->nevents + (size_t)na + (size_t)q->count);
            r->ev_limit = t->nevents + (size_t)na;
            q->t.events = t->events + r->ev_limit; /* its slice of our array */
            q->t.events_cap = (size_t)q->count;
            q->r.ev_limit = (size_t)q->count;
        }
        pthread_barrier_wait(&q->sliced);
        tp_timing("read: planes counted");
        if (!q->go) {
            pthread_join(th, NULL);
            part_free(q);
            q = NULL;
            s = 0;
        }
    }
    int rc = 0;
    size_t to = s ? s : n;
    for (size_t i = 0; i < to && rc == 0; i++)
        rc = read_plane(r, &planes[i]);
    if (!q)
        return rc;
    tp_timing("read: planes, first part");
    pthread_join(th, NULL);
    if (rc == 0 && q->rc < 0) {
        *r->err = q->err;
        rc = -1;
    }
    bool joined = rc == 0 && q->rc == 0 && part_append(r, q);
    tp_timing("read: planes, second part joined");
    r->ev_limit = SIZE_MAX;
    if (getenv("TP_READ_SPLIT_REPORT"))
        fprintf(stderr, "tracepress: planes: split at %zu of %zu, %s\n", s, n,
                joined ? "joined" : rc == 0 ? "read again" : "failed");
    part_free(q);
    if (rc == 0 && !joined) /* read them here after all */
        for (size_t i = s; i < n && rc == 0; i++)
            rc = read_plane(r, &planes[i]);
    return rc;
}

static int read_space(const void *buf, size_t len, bool mapped, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    xp_reader r;
    memset(&r, 0, sizeof r);
    if (mapped)
        r.page = (size_t)sysconf(_SC_PAGESIZE);
    r.t = t;
    r.o = o;
    r.err = err;
    r.top = tp_pb_init(buf, len);
    r.src = tp_xcalloc(1, sizeof *r.src);
    r.src->fd = -1;
    r.lazy_args = o->keep_args;
    r.ev_limit = SIZE_MAX;
    if (r.lazy_args) {
        r.src->k_long_name = tp_intern_cstr(t, "long_name");
        r.src->k_occ = tp_intern_cstr(t, "num_occurrences");
        r.src->k_corr = tp_intern_cstr(t, "correlation");
    }
    t->format = "xplane";
    if (o->report_data)
        r.xd = tp_xcalloc(1, sizeof *r.xd);
    tp_buf hosts = {0}, errs = {0}, warns = {0};
    tp_pb_field f, *planes = NULL;
    size_t nplanes = 0, planes_cap = 0;
    int k, rc = -1;
    tp_err scan_err = {0}; /* a framing error after some planes: theirs come first */
    while ((k = tp_pb_next(&r.top, &f, &scan_err)) == 1) {
        if (f.wt != TP_PB_LEN)
            continue;
        if (f.num == 1) {
            TP_GROW(planes, planes_cap, nplanes + 1);
            planes[nplanes++] = f;
        } else if (f.num >= 2 && f.num <= 4) {
            tp_buf *b = f.num == 2 ? &errs : f.num == 3 ? &warns : &hosts;
            if (b->len)
                tp_buf_putc(b, ',');
            tp_json_put_string(b, (const char *)f.data, f.len, NULL);
        }
    }
    if (read_planes(&r, planes, nplanes) < 0)
        goto out;
    if (k < 0) {
        *err = scan_err;
        goto out;
    }
    if (nplanes == 0) {
        tp_fail(err, 0, "not an XSpace: no planes");
        goto out;
    }
    /* Launch Stats: the launches' device ordinals become device processes
     * (only devices whose lines we derive) */
    bool *derived_dev = tp_xcalloc(t->nprocesses + 1, sizeof *derived_dev);
    for (size_t a = 0; a < r.din.nannots; a++)
        derived_dev[t->tracks[t->events[r.din.annots[a].event].track].process] = true;
    size_t nl = 0;
    for (size_t i = 0; i < r.din.nlaunches; i++) {
        tp_launch la = r.din.launches[i];
        uint32_t proc = gpu_process(t, la.device);
        if (proc == TP_NONE || !derived_dev[proc])
            continue;
        la.device = proc;
        r.din.launches[nl++] = la;
    }
    free(derived_dev);
    r.din.nlaunches = nl;
    tp_derive_opts dopt = {.framework_names = o->framework_names,
                           .mark_steps = true,
                           .era = tp_derive_era_of(o->derive_era)};
    tp_timing("read: planes");
    if (o->derive_later) {
        o->derive_later->in = r.din;
        o->derive_later->opts = dopt;
        o->derive_later->set = true;
        memset(&r.din, 0, sizeof r.din);
    } else {
        tp_derive_from(t, &r.din, &dopt);
    }

    tp_buf top = {0};
    tp_buf_puts(&top, "\"xplane\":{\"planes\":[");
    tp_buf_put(&top, r.planes_json.data, r.planes_json.len);
    tp_buf_putc(&top, ']');
    json_str_list(&top, "hostnames", &hosts);
    json_str_list(&top, "errors", &errs);
    json_str_list(&top, "warnings", &warns);
    tp_buf_putc(&top, '}');
    if (t->toplevel.len)
        tp_buf_putc(&t->toplevel, ',');
    tp_buf_put(&t->toplevel, top.data, top.len);
    tp_buf_free(&top);
    if (r.xd) {
        uint32_t last = TP_NONE, last_proc = TP_NONE; /* launches come in runs of one device */
        for (size_t i = 0; i < r.xd->nlaunches; i++) {
            uint32_t d = r.xd->launches[i].device;
            if (d != last) {
                last = d;
                last_proc = gpu_process(t, d);
            }
            r.xd->launches[i].device = last_proc;
        }
    }
    rc = 0;
    if (r.lazy_args) {
        r.src->size = len;
        r.src->xd = r.xd; /* the renderer holds format_data: the report's data rides along */
        r.xd = NULL;
        t->format_data = r.src;
        t->format_data_free = src_free;
        t->args_source = &xp_args_source;
        r.src = NULL;
    } else if (r.xd && !t->format_data) {
        t->format_data = r.xd;
        t->format_data_free = xplane_data_free;
        r.xd = NULL;
    }
out:
    free(planes);
    xplane_data_free(r.xd);
    src_free(r.src);
    tp_buf_free(&hosts);
    tp_buf_free(&errs);
    tp_buf_free(&warns);
    tp_buf_free(&r.planes_json);
    tp_i64map_free(&r.opcache);
    free(r.ops);
    free(r.em);
    free(r.sm);
    free(r.skeys);
    free(r.ekeys);
    free(r.mst);
    free(r.st.v);
    free(r.ev.v);
    free(r.lcache);
    tp_argb_free(&r.ab);
    tp_derive_input_free(&r.din);
    return rc;
}

/* Give the renderer the input's bytes: an open file (fd >= 0) or a buffer
 * it takes over (mem). */
static void attach_bytes(tp_trace *t, int fd, void *mem)
{
    xp_src *s = t->args_source == &xp_args_source ? t->format_data : NULL;
    if (!s) {
        if (fd >= 0)
            close(fd);
        free(mem);
        return;
    }
    s->fd = fd;
    s->mem = mem;
    if (fd >= 0 && s->size) { /* the writers read the args in place (a copy cost a tenth of their CPU) */
        void *map = mmap(NULL, (size_t)s->size, PROT_READ, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED)
            s->map = map;
    }
}

int tp_xplane_read_mem(const void *buf, size_t len, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    int rc = read_space(buf, len, false, t, o, err);
    if (rc == 0 && t->args_source == &xp_args_source) { /* the caller keeps its buffer: a copy for the writers */
        void *copy = tp_xmalloc(len + 1);
        memcpy(copy, buf, len);
        attach_bytes(t, -1, copy);
    }
    return rc;
}

static int xplane_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    const char *path = tp_input_path(in);
    /* A plain file is mapped, so finished lines can be given back to the OS
     * (peak memory is the model, not the model plus the file); the writers
     * read the args again through the same descriptor. */
    if (!tp_input_is_gzip(in) && path && strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map != MAP_FAILED) {
                madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
                int rc = read_space(map, (size_t)sb.st_size, true, t, o, err);
                munmap(map, (size_t)sb.st_size);
                if (rc == 0)
                    attach_bytes(t, fd, NULL);
                else
                    close(fd);
                return rc;
            }
            close(fd);
        } else if (fd >= 0) {
            close(fd);
        }
    }
    size_t len;
    char *buf = tp_input_slurp(in, &len, 0, err);
    if (!buf)
        return -1;
    int rc = read_space(buf, len, false, t, o, err);
    if (rc == 0)
        attach_bytes(t, -1, buf); /* gzip or stdin: the writers render args from the bytes in memory */
    else
        free(buf);
    return rc;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* An XSpace starts with field 1 (planes, LEN) whose payload starts with
 * XPlane field 1 (id, varint), 2 (name) or 3 (lines). */
static int xplane_probe(const unsigned char *head, size_t n, const char *path)
{
    if (path && (ends_with(path, ".xplane.pb") || ends_with(path, ".xplane.pb.gz")))
        return 90;
    if (n < 3 || head[0] != 0x0a)
        return 0;
    size_t i = 1;
    uint64_t len = 0;
    int shift = 0;
    while (i < n && (head[i] & 0x80) && shift < 63) {
        len |= (uint64_t)(head[i] & 0x7f) << shift;
        shift += 7;
        i++;
    }
    if (i >= n - 1)
        return 0;
    len |= (uint64_t)head[i] << shift;
    i++;
    if (len == 0)
        return 0;
    return (head[i] == 0x08 || head[i] == 0x12 || head[i] == 0x1a) ? 40 : 0;
}

const tp_format tp_format_xplane = {
    "xplane",
    "TensorFlow / JAX / XLA profiler XSpace (XPlane protobuf)",
    ".xplane.pb",
    xplane_probe,
    xplane_read,
};
