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
 * hostnames, errors and warnings go to the top-level "xplane" object. */
#include "derive.h"
#include "i64map.h"
#include "json_write.h"
#include "pbwire.h"
#include "xplane.h"

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

typedef struct xp_smeta {
    const uint8_t *name;
    uint32_t len;
    uint8_t wk;
    tp_str key; /* interned name, 0 until first used as an args key */
} xp_smeta;

typedef struct xp_emeta {
    const uint8_t *name, *disp;
    uint32_t nlen, dlen;
    const uint8_t *msg; /* the XEventMetadata message, for its stats */
    uint32_t msglen;
    bool has_stats, interned;
    tp_str shown, full; /* display name (or name), and the full name when they differ */
} xp_emeta;

enum { XS_DOUBLE = 1, XS_UINT, XS_INT, XS_STR, XS_BYTES, XS_REF };

typedef struct xp_stat {
    int64_t mid;
    uint32_t sm; /* index into smeta, or TP_I64MAP_EMPTY */
    uint8_t type;
    uint64_t v;
    const uint8_t *s; /* XS_STR/XS_BYTES/XS_REF (resolved) */
    size_t len;
} xp_stat;

typedef struct xp_reader {
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    tp_pb top;
    tp_i64map emap, smap;
    xp_emeta *em;
    size_t nem, em_cap;
    xp_smeta *sm;
    size_t nsm, sm_cap;
    xp_stat *st;
    size_t nst, st_cap;
    tp_argb ab;
    tp_buf planes_json;   /* per-plane summary for the top-level "xplane" object */
    tp_derive_input din;
    tp_xplane_data *xd;   /* kept for the report (report_data), else NULL */
    tp_i64map opcache;    /* interned op full name -> parsed op (index into ops) */
    tp_annot *ops;
    size_t nops, ops_cap;
    int nhost, nother;
    size_t page;
    tp_str cat_kind[TP_KIND_COUNT], cat_derived; /* interned once */
    /* current plane */
    uint32_t process;     /* TP_NONE for planes without a process yet */
    bool plane_is_device, plane_is_gpu, plane_derive, plane_has_derived;
    int64_t plane_id;
    const uint8_t *plane_name;
    size_t plane_name_len;
    uint64_t plane_events;
} xp_reader;

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
    xp_smeta *m = &r->sm[r->nsm];
    m->name = name;
    m->len = (uint32_t)nlen;
    m->key = 0;
    m->wk = WK_NONE;
    for (int w = 1; w < WK_COUNT; w++)
        if (strlen(wk_names[w]) == nlen && memcmp(wk_names[w], name, nlen) == 0)
            m->wk = (uint8_t)w;
    tp_i64map_put(&r->smap, has_key ? key : id, (uint32_t)r->nsm);
    r->nsm++;
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
    r->em[r->nem] = m;
    tp_i64map_put(&r->emap, has_key ? key : id, (uint32_t)r->nem);
    r->nem++;
    return 0;
}

/* ---- stats ---- */

/* Decode one XStat; ref values are resolved to the referenced stat name. */
static int decode_stat(xp_reader *r, const tp_pb *parent, const tp_pb_field *sf, xp_stat *s)
{
    tp_pb p = tp_pb_sub(parent, sf);
    tp_pb_field f;
    memset(s, 0, sizeof *s);
    int k;
    while ((k = tp_pb_next(&p, &f, r->err)) == 1) {
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
    if (k < 0)
        return -1;
    s->sm = tp_i64map_get(&r->smap, s->mid);
    if (s->type == XS_REF) {
        uint32_t ref = tp_i64map_get(&r->smap, (int64_t)s->v);
        if (ref == TP_I64MAP_EMPTY) {
            tp_warn(r->t, "XPlane ref_value without its string (shown empty)", 1);
            s->s = (const uint8_t *)"";
            s->len = 0;
        } else {
            s->s = r->sm[ref].name ? r->sm[ref].name : (const uint8_t *)"";
            s->len = r->sm[ref].len;
        }
    }
    return 0;
}

/* Append the XStat messages of a message (field `num`) to r->st; a stat with
 * the same metadata id as an earlier one replaces it (event stats override
 * metadata stats). */
static int collect_stats(xp_reader *r, const uint8_t *msg, size_t len, uint32_t num)
{
    tp_pb p = tp_pb_init(msg, len);
    p.base = r->top.base;
    tp_pb_field f;
    int k;
    while ((k = tp_pb_next(&p, &f, r->err)) == 1) {
        if (f.num != num || f.wt != TP_PB_LEN)
            continue;
        xp_stat s;
        if (decode_stat(r, &p, &f, &s) < 0)
            return -1;
        size_t i;
        for (i = 0; i < r->nst; i++)
            if (r->st[i].mid == s.mid)
                break;
        if (i == r->nst) {
            TP_GROW(r->st, r->st_cap, r->nst + 1);
            r->nst++;
        }
        r->st[i] = s;
    }
    return k < 0 ? -1 : 0;
}

static uint8_t stat_wk(const xp_reader *r, const xp_stat *s)
{
    return s->sm == TP_I64MAP_EMPTY ? WK_NONE : r->sm[s->sm].wk;
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

/* The args key of a stat: its interned name (NUL-terminated). */
static const char *stat_key(xp_reader *r, const xp_stat *s, char *tmp, size_t tmpn)
{
    if (s->sm == TP_I64MAP_EMPTY) {
        snprintf(tmp, tmpn, "stat_%lld", (long long)s->mid);
        return tmp;
    }
    xp_smeta *m = &r->sm[s->sm];
    if (!m->key) {
        if (m->len == 0) {
            snprintf(tmp, tmpn, "stat_%lld", (long long)s->mid);
            return tmp;
        }
        m->key = tp_intern(r->t, (const char *)m->name, m->len);
    }
    return tp_str_get(r->t, m->key);
}

static void stat_arg(xp_reader *r, const xp_stat *s)
{
    char tmp[40];
    /* correlation_id under Kineto's key: a converted trace read again keeps its launch links */
    const char *key = stat_wk(r, s) == WK_CORRELATION_ID ? "correlation" : stat_key(r, s, tmp, sizeof tmp);
    switch (s->type) {
    case XS_DOUBLE:
        tp_argb_double(&r->ab, key, tp_pb_double(s->v));
        break;
    case XS_UINT:
        tp_argb_uint(&r->ab, key, s->v);
        break;
    case XS_INT:
        tp_argb_int(&r->ab, key, (int64_t)s->v);
        break;
    case XS_STR:
    case XS_REF:
        tp_argb_str(&r->ab, key, (const char *)s->s, s->len);
        break;
    case XS_BYTES: { /* serialized protos (HloProto...): summarised, not dumped */
        char b[48];
        snprintf(b, sizeof b, "<%zu bytes>", s->len);
        tp_argb_cstr(&r->ab, key, b);
        break;
    }
    default:
        tp_argb_raw(&r->ab, key, "null", 4);
        break;
    }
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
    r->nst = 0;
    if (collect_stats(r, plane->p, (size_t)(plane->end - plane->p), 6) < 0)
        return -1;
    tp_argb_reset(&r->ab);
    for (size_t i = 0; i < r->nst; i++)
        stat_arg(r, &r->st[i]);
    if (r->ab.n) {
        tp_buf_putc(&r->ab.buf, '}');
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

/* Line header fields (everything but the events). */
typedef struct xp_line {
    int64_t id, display_id, ts_ns;
    const uint8_t *name, *disp;
    size_t nlen, dlen;
} xp_line;

static int line_header(xp_reader *r, const tp_pb *plane, const tp_pb_field *lf, xp_line *L)
{
    tp_pb p = tp_pb_sub(plane, lf);
    tp_pb_field f;
    memset(L, 0, sizeof *L);
    int k;
    while ((k = tp_pb_next(&p, &f, r->err)) == 1) {
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

static void emeta_intern(xp_reader *r, xp_emeta *m)
{
    if (m->interned)
        return;
    m->interned = true;
    if (m->dlen) {
        m->shown = tp_intern(r->t, (const char *)m->disp, m->dlen);
        if (m->nlen && !(m->nlen == m->dlen && memcmp(m->name, m->disp, m->dlen) == 0))
            m->full = tp_intern(r->t, (const char *)m->name, m->nlen);
    } else {
        m->shown = tp_intern(r->t, (const char *)m->name, m->nlen);
    }
}

/* tp_tfop_parse once per distinct op name. */
static void parse_op(xp_reader *r, const char *s, size_t n, tp_annot *a)
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
    a->op = r->ops[i].op;
    a->op_display = r->ops[i].op_display;
    a->scopes = r->ops[i].scopes;
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
    for (size_t i = 0; i < r->nst; i++) {
        const xp_stat *s = &r->st[i];
        switch (stat_wk(r, s)) {
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
    char buf[64];
    int64_t prog = 0;
    bool has_prog = pid && stat_int(pid, &prog);
    if (mod && stat_text(mod) && mod->len) {
        if (has_prog) {
            tp_buf b = {0};
            tp_buf_put(&b, mod->s, mod->len);
            tp_buf_printf(&b, "(%lld)", (long long)prog);
            a.module = tp_intern(t, b.data, b.len);
            tp_buf_free(&b);
        } else {
            a.module = tp_intern(t, (const char *)mod->s, mod->len);
        }
    }
    if (hlo && stat_text(hlo) && hlo->len) {
        /* levels joined by "::" upstream; the engine wants TP_DERIVE_SEP */
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
            a.hlo_ops = tp_intern(t, b.data, b.len);
            a.low_name = tp_intern(t, b.data + last, b.len - last);
            if (hlo_key) { /* the outermost level: what was launched (a fusion, a while loop...) */
                const char *sep = memchr(b.data, TP_DERIVE_SEP, b.len);
                b.len = sep ? (size_t)(sep - b.data) : b.len;
                if (mod && stat_text(mod) && mod->len) {
                    tp_buf_puts(&b, " (");
                    tp_buf_put(&b, mod->s, mod->len);
                    tp_buf_putc(&b, ')');
                }
                *hlo_key = tp_intern(t, b.data, b.len);
            }
        }
        tp_buf_free(&b);
        if (has_prog) {
            snprintf(buf, sizeof buf, "%lld", (long long)prog);
            a.hlo_prefix = tp_intern_cstr(t, buf);
        } else if (mod && stat_text(mod)) {
            a.hlo_prefix = tp_intern(t, (const char *)mod->s, mod->len);
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
    if (op) {
        parse_op(r, (const char *)op->s, op->len, &a);
    } else if (hlo && name && stat_text(name) && name->len) {
        if (memchr(name->s, ':', name->len)) {
            parse_op(r, (const char *)name->s, name->len, &a);
        } else { /* "jit(f)/dot_general" is an op path without a type: parse it as "path:" */
            tp_buf b = {0};
            tp_buf_put(&b, name->s, name->len);
            tp_buf_putc(&b, ':');
            parse_op(r, b.data, b.len, &a);
            tp_buf_free(&b);
        }
    }
    if (src && stat_text(src) && src->len)
        a.source = tp_intern(t, (const char *)src->s, src->len);
    *out = a;
}

static int read_event(xp_reader *r, const tp_pb *line, const tp_pb_field *ef, const xp_line *L,
                      uint32_t track, bool is_device_line)
{
    tp_pb p = tp_pb_sub(line, ef);
    tp_pb_field f;
    int64_t mid = 0, off = 0, dur = 0, occ = 0;
    bool has_occ = false;
    const uint8_t *start = p.p;
    int k;
    bool has_stats = false;
    while ((k = tp_pb_next(&p, &f, r->err)) == 1) {
        if (f.wt == TP_PB_VARINT) {
            if (f.num == 1)
                mid = (int64_t)f.v;
            else if (f.num == 2)
                off = (int64_t)f.v;
            else if (f.num == 3)
                dur = (int64_t)f.v;
            else if (f.num == 5) {
                occ = (int64_t)f.v;
                has_occ = true;
            }
        } else if (f.num == 4 && f.wt == TP_PB_LEN)
            has_stats = true;
    }
    if (k < 0)
        return -1;
    uint64_t at = (uint64_t)(start - r->top.base);
    uint32_t mi = tp_i64map_get(&r->emap, mid);
    xp_emeta *m = mi == TP_I64MAP_EMPTY ? NULL : &r->em[mi];
    if (!m)
        tp_warn(r->t, "XPlane event metadata id not found (event named by id)", 1);
    r->nst = 0;
    if (m && m->has_stats && collect_stats(r, m->msg, m->msglen, 5) < 0)
        return -1;
    if (has_stats && collect_stats(r, start, (size_t)(p.end - start), 4) < 0)
        return -1;

    tp_event e;
    tp_event_init(&e);
    e.track = track;
    if (dur < 0 || dur > (INT64_C(1) << 62) || off < -(INT64_C(1) << 62) || off > (INT64_C(1) << 62))
        return tp_fail(r->err, at, "XPlane event time out of range (offset_ps %lld, duration_ps %lld)",
                       (long long)off, (long long)dur);
    int64_t s_ns = ps_to_ns(off), e_ns = ps_to_ns(off + dur);
    if (__builtin_add_overflow(L->ts_ns, s_ns, &e.ts) || __builtin_add_overflow(L->ts_ns, e_ns, &e_ns))
        return tp_fail(r->err, at, "XPlane event time overflows (line timestamp_ns %lld)", (long long)L->ts_ns);
    e.dur = e_ns - e.ts;
    if (has_occ) { /* an aggregated event: no time of its own, kept as an instant */
        e.ph = 'i';
        e.ts = L->ts_ns;
        e.dur = 0;
    }
    if (m) {
        emeta_intern(r, m);
        e.name = m->shown;
    } else {
        char b[48];
        snprintf(b, sizeof b, "metadata %lld", (long long)mid);
        e.name = tp_intern_cstr(r->t, b);
    }

    int64_t group = TP_DERIVE_NO_GROUP, corr = -1, device_id = -1, v;
    bool kernel = false, memcpy_ = false, memset_ = false, graph = false, async = false;
    for (size_t i = 0; i < r->nst; i++) {
        const xp_stat *s = &r->st[i];
        switch (stat_wk(r, s)) {
        case WK_GROUP_ID:
            if (stat_int(s, &v))
                group = v;
            break;
        case WK_STEP_NAME:
            if (stat_text(s) && s->len)
                e.name = tp_intern(r->t, (const char *)s->s, s->len);
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
    if (corr >= 0 && (is_device_line || e.kind == TP_KIND_RUNTIME)) {
        e.corr = (uint32_t)corr;
        e.flags |= TP_EV_HAS_CORR;
    }

    if (r->o->keep_args) {
        tp_argb_reset(&r->ab);
        if (m && m->full)
            tp_argb_str(&r->ab, "long_name", (const char *)m->name, m->nlen);
        if (has_occ)
            tp_argb_int(&r->ab, "num_occurrences", occ);
        for (size_t i = 0; i < r->nst; i++)
            stat_arg(r, &r->st[i]);
        e.args = tp_argb_commit(r->t, &r->ab);
    }
    if (r->plane_is_device && !is_device_line && group != TP_DERIVE_NO_GROUP && group >= 0 && L->nlen == 5 &&
        memcmp(L->name, "Steps", 5) == 0) { /* a Steps line kept from the file: its events are the steps */
        e.flags |= TP_EV_STEP;
        e.id = (uint64_t)group;
    }
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
    if (line_header(r, plane, lf, &L) < 0)
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
        while (!any && (k2 = tp_pb_next(&q, &g, r->err)) == 1)
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
    while ((k = tp_pb_next(&p, &f, r->err)) == 1) {
        if (f.num == 4 && f.wt == TP_PB_LEN) {
            if (read_event(r, &p, &f, &L, track, is_device_line) < 0)
                return -1;
        }
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
    tp_i64map_clear(&r->emap);
    tp_i64map_clear(&r->smap);
    r->nem = r->nsm = 0;
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

/* mapped: buf is a private file mapping whose finished lines may be dropped */
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
    t->format = "xplane";
    if (o->report_data)
        r.xd = tp_xcalloc(1, sizeof *r.xd);
    tp_buf hosts = {0}, errs = {0}, warns = {0};
    tp_pb_field f;
    int k, rc = -1;
    uint64_t nplanes = 0;
    while ((k = tp_pb_next(&r.top, &f, err)) == 1) {
        if (f.wt != TP_PB_LEN)
            continue;
        if (f.num == 1) {
            nplanes++;
            if (read_plane(&r, &f) < 0)
                goto out;
        } else if (f.num >= 2 && f.num <= 4) {
            tp_buf *b = f.num == 2 ? &errs : f.num == 3 ? &warns : &hosts;
            if (b->len)
                tp_buf_putc(b, ',');
            tp_json_put_string(b, (const char *)f.data, f.len, NULL);
        }
    }
    if (k < 0)
        goto out;
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
    tp_derive_from(t, &r.din, &dopt);

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
    if (r.xd && !t->format_data) {
        uint32_t last = TP_NONE, last_proc = TP_NONE; /* launches come in runs of one device */
        for (size_t i = 0; i < r.xd->nlaunches; i++) {
            uint32_t d = r.xd->launches[i].device;
            if (d != last) {
                last = d;
                last_proc = gpu_process(t, d);
            }
            r.xd->launches[i].device = last_proc;
        }
        t->format_data = r.xd;
        t->format_data_free = xplane_data_free;
        r.xd = NULL;
    }
    rc = 0;
out:
    xplane_data_free(r.xd);
    tp_buf_free(&hosts);
    tp_buf_free(&errs);
    tp_buf_free(&warns);
    tp_buf_free(&r.planes_json);
    tp_i64map_free(&r.emap);
    tp_i64map_free(&r.smap);
    tp_i64map_free(&r.opcache);
    free(r.ops);
    free(r.em);
    free(r.sm);
    free(r.st);
    tp_argb_free(&r.ab);
    tp_derive_input_free(&r.din);
    return rc;
}

int tp_xplane_read_mem(const void *buf, size_t len, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    return read_space(buf, len, false, t, o, err);
}

static int xplane_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    const char *path = tp_input_path(in);
    /* A plain file is mapped, so finished lines can be given back to the OS
     * (peak memory is the model, not the model plus the file). */
    if (!tp_input_is_gzip(in) && path && strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            close(fd);
            if (map != MAP_FAILED) {
                madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
                int rc = read_space(map, (size_t)sb.st_size, true, t, o, err);
                munmap(map, (size_t)sb.st_size);
                return rc;
            }
        } else if (fd >= 0) {
            close(fd);
        }
    }
    size_t len;
    char *buf = tp_input_slurp(in, &len, 0, err);
    if (!buf)
        return -1;
    int rc = tp_xplane_read_mem(buf, len, t, o, err);
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
