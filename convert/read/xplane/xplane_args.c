/* xplane_args.c: an XPlane trace's args, rendered when they are written.
 * An event's args handle is TP_ARGS_EXTERNAL | plane | offset of its XEvent
 * in the file; t->args_source (xp_args_source, state xp_src in
 * t->format_data) decodes that event again and resolves its stats through
 * what the reader kept of each plane (metadata names and stats as interned
 * strings), giving JSON text (the same text the reader makes when it keeps
 * args as JSON) or typed values.  The file is read in place when mapped,
 * else with pread into windows; each writer thread has a cursor of its own. */
#include "convert/read/xplane/xplane_read_int.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

void xp_args_json(tp_buf *b, const xp_plane *pl, const char *long_name, size_t lnlen, bool has_occ, int64_t occ,
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

/* ---- rendering args from the file (tp_args_source) ---- */

void xp_src_free(void *p)
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
        xp_ids_free(&s->planes[i].sids);
        xp_ids_free(&s->planes[i].eids);
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
    xp_data_free(s->xd);
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
    xp_stats_merge_all(&s->st, &s->ev);
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
    xp_args_json(&s->json, &src->planes[pi], full ? tp_str_get(t, full) : NULL, tp_str_len(t, full), hd.has_occ,
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

const tp_args_source xp_args_source = {
    .json = src_json, .visit = src_visit, .cursor_new = cursor_new, .cursor_free = cursor_free};

const tp_xplane_data *tp_xplane_report_data(const tp_trace *t)
{
    if (!t->format || strcmp(t->format, "xplane") != 0 || !t->format_data)
        return NULL;
    if (t->args_source == &xp_args_source)
        return ((const xp_src *)t->format_data)->xd;
    return t->format_data;
}

void xp_attach_bytes(tp_trace *t, int fd, void *mem)
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

