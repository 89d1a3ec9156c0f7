/* xplane_wire.c: the XPlane messages' protobuf wire decoding with pbwire,
 * every case and every error: XStat, XEvent (when the inline decoder in
 * xplane_read_int.h declines), an XLine's header, and the entries of the
 * metadata maps.  One decoder per message, used by the reading, the walk
 * that counts events (two threads) and the args renderer.  Also the rule
 * that merges an event's stats over its metadata's. */
#include "convert/read/xplane/xplane_read_int.h"

#include <stdlib.h>

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

int xp_decode_stats(const uint8_t *base, const uint8_t *msg, size_t len, uint32_t num, xp_stats *v, tp_err *err)
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

int xp_decode_event_slow(const uint8_t *base, const uint8_t *msg, size_t len, xp_evhdr *h, xp_stats *v,
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
    return h->has_stats ? xp_decode_stats(base, msg, len, 4, v, err) : 0;
}

int xp_decode_line(const tp_pb *plane, const tp_pb_field *lf, xp_line *L, tp_err *err)
{
    tp_pb p = tp_pb_sub(plane, lf);
    tp_pb_field f;
    memset(L, 0, sizeof *L);
    int k;
    while ((k = tp_pb_next_fast(&p, &f, err)) == 1) {
        if (f.wt == TP_PB_VARINT) {
            if (f.num == 1)
                L->id = (int64_t)f.v;
            else if (f.num == 10)
                L->display_id = (int64_t)f.v;
            else if (f.num == 3)
                L->ts_ns = (int64_t)f.v;
        } else if (f.wt == TP_PB_LEN) {
            if (f.num == 4)
                L->nevents++;
            else if (f.num == 2) {
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

int xp_peek_line_id(const tp_pb *plane, const tp_pb_field *lf, int64_t *id, tp_err *err)
{
    tp_pb lp = tp_pb_sub(plane, lf);
    tp_pb_field g;
    int k;
    *id = 0;
    while ((k = tp_pb_next(&lp, &g, err)) == 1)
        if (g.num == 1 && g.wt == TP_PB_VARINT) {
            *id = (int64_t)g.v;
            return 1;
        }
    return k < 0 ? -1 : 0;
}

int xp_decode_meta_entry(const tp_pb *plane, const tp_pb_field *entry, bool event, xp_meta_entry *m, tp_err *err)
{
    tp_pb e = tp_pb_sub(plane, entry);
    tp_pb_field f;
    int64_t key = 0, id = 0;
    bool has_key = false;
    memset(m, 0, sizeof *m);
    int k;
    while ((k = tp_pb_next(&e, &f, err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_VARINT) {
            key = (int64_t)f.v;
            has_key = true;
        } else if (f.num == 2 && f.wt == TP_PB_LEN) {
            if (event && f.len > UINT32_MAX)
                return tp_fail(err, tp_pb_offset(&e), "XPlane event metadata larger than 4 GB");
            m->msg = f.data;
            m->msglen = f.len;
            tp_pb v = tp_pb_sub(&e, &f);
            tp_pb_field g;
            while ((k = tp_pb_next(&v, &g, err)) == 1) {
                if (g.num == 1 && g.wt == TP_PB_VARINT)
                    id = (int64_t)g.v;
                else if (g.num == 2 && g.wt == TP_PB_LEN) {
                    m->name = g.data;
                    m->nlen = g.len;
                } else if (g.num == 4 && g.wt == TP_PB_LEN) {
                    m->disp = g.data;
                    m->dlen = g.len;
                } else if (g.num == 5 && g.wt == TP_PB_LEN)
                    m->has_stats = true;
            }
            if (k < 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    if (!event && m->nlen > UINT32_MAX)
        return tp_fail(err, tp_pb_offset(&e), "XPlane stat name longer than 4 GB");
    m->id = has_key ? key : id;
    return 0;
}

/* ---- merging stats ---- */

void xp_stats_merge(xp_stats *v, const xp_stat *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i].mid == s->mid) {
            v->v[i] = *s;
            return;
        }
    *stats_push(v) = *s;
}

/* Usually there are no metadata stats and no repeated ids: then ev becomes
 * st as it is (the two swap buffers). */
void xp_stats_merge_all(xp_stats *st, xp_stats *ev)
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
        xp_stats_merge(st, &ev->v[i]);
}
