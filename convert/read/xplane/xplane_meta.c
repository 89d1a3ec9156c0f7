/* xplane_meta.c: a plane's metadata tables while it is read.  Pass 1 of a
 * plane puts its event and stat metadata here (names stay pointers into
 * the file); the ids resolve through xp_ids; an event metadata's stats are
 * decoded and resolved once per plane, and with args kept also copied into
 * what the args renderer keeps (xp_src.pst, names interned). */
#include "convert/read/xplane/xplane_read_int.h"

#include <stdlib.h>

static const char *const wk_names[WK_COUNT] = {
    "", "group_id", "step_name", "kernel_details", "memcpy_details", "Memset_details",
    "correlation_id", "device_id", "tf_op", "level 0", "hlo_op", "hlo_module", "program_id",
    "name", "source", "_a", "cuda_graph_exec_id", "flops", "bytes_accessed",
};

void xp_ids_build(xp_ids *m, const int64_t *keys, size_t n)
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

void xp_ids_free(xp_ids *m)
{
    free(m->dense);
    tp_i64map_free(&m->map);
    memset(m, 0, sizeof *m);
}

int xp_read_stat_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry)
{
    xp_meta_entry e;
    if (xp_decode_meta_entry(plane, entry, false, &e, r->err) < 0)
        return -1;
    TP_GROW(r->sm, r->sm_cap, r->nsm + 1);
    TP_GROW(r->skeys, r->skeys_cap, r->nsm + 1);
    xp_smeta *m = &r->sm[r->nsm];
    memset(m, 0, sizeof *m);
    m->name = e.name;
    m->len = (uint32_t)e.nlen;
    m->op = m->op_colon = TP_NONE;
    for (int w = 1; w < WK_COUNT; w++)
        if (strlen(wk_names[w]) == e.nlen && memcmp(wk_names[w], e.name, e.nlen) == 0)
            m->wk = (uint8_t)w;
    r->skeys[r->nsm++] = e.id;
    return 0;
}

int xp_read_event_metadata(xp_reader *r, const tp_pb *plane, const tp_pb_field *entry)
{
    xp_meta_entry e;
    if (xp_decode_meta_entry(plane, entry, true, &e, r->err) < 0)
        return -1;
    xp_emeta m;
    memset(&m, 0, sizeof m);
    m.msg = e.msg;
    m.msglen = (uint32_t)e.msglen;
    m.name = e.name;
    m.nlen = (uint32_t)e.nlen;
    m.disp = e.disp;
    m.dlen = (uint32_t)e.dlen;
    m.has_stats = e.has_stats;
    TP_GROW(r->em, r->em_cap, r->nem + 1);
    TP_GROW(r->ekeys, r->ekeys_cap, r->nem + 1);
    r->em[r->nem] = m;
    r->ekeys[r->nem++] = e.id;
    return 0;
}

int xp_emeta_stats(xp_reader *r, uint32_t mi)
{
    xp_emeta *m = &r->em[mi];
    if (m->decoded)
        return 0;
    m->decoded = true;
    xp_stats v = {0};
    if (m->has_stats && xp_decode_stats(r->top.base, m->msg, m->msglen, 5, &v, r->err) < 0) {
        free(v.v);
        return -1;
    }
    xp_stats merged = {0};
    for (size_t i = 0; i < v.n; i++) {
        resolve_stat(r, &v.v[i], &m->badrefs);
        xp_stats_merge(&merged, &v.v[i]);
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

void xp_emeta_intern(xp_reader *r, uint32_t mi)
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
