/* xplane_parts.c: the later planes of a large file read on a second thread.
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
 * smallest input split (tests set it low).
 *
 * Both parts' events go into one array: each part first counts its own
 * (a walk over the frames that also keeps every line's header, so reading
 * does not walk them again), both at once (tp_run_pair); then the first
 * reserves the array and gives the second its slice, and both read at once
 * (tp_side_start / tp_side_join).  Without a second thread the same steps
 * run one after the other, with the same result. */
#include "convert/read/xplane/xplane_read_int.h"
#include "convert/base/threads.h"
#include "convert/model/trace_append.h"

#include <stdio.h>
#include <stdlib.h>

#define XP_SPLIT_MIN ((uint64_t)64 << 20)

/* The second part: planes [from, to) read by a reader of its own into a
 * trace of its own (its events in a slice of the first part's array). */
typedef struct plane_part {
    xp_reader r;
    tp_trace t;
    tp_err err;
    const tp_pb_field *planes;
    size_t from, to;
    int rc;
    int64_t count;           /* its events, -1 on a framing error */
} plane_part;

typedef struct count_job {   /* the first part's count, with the caller's reader */
    xp_reader *r;
    const tp_pb_field *planes;
    size_t to;
    int64_t count;
} count_job;

static int64_t planes_events(xp_reader *r, const tp_pb_field *planes, size_t from, size_t to);

/* Free a part (its events are in our array: not freed with its trace). */
static void part_free(plane_part *q)
{
    q->t.events = NULL;
    xp_reader_free(&q->r);
    tp_trace_free(&q->t);
    free(q);
}

static void *part_count(void *p)
{
    plane_part *q = p;
    q->count = planes_events(&q->r, q->planes, q->from, q->to);
    return NULL;
}

static void *first_count(void *p)
{
    count_job *c = p;
    c->count = planes_events(c->r, c->planes, 0, c->to);
    return NULL;
}

static void *part_main(void *p)
{
    plane_part *q = p;
    q->rc = 0;
    for (size_t i = q->from; i < q->to && q->rc == 0; i++)
        q->rc = xp_read_plane(&q->r, &q->planes[i]);
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
    tp_pb_field f;
    tp_err e = {0};
    int k;
    int64_t n = 0;
    while ((k = tp_pb_next(&plane, &f, &e)) == 1) {
        if (f.num != 3 || f.wt != TP_PB_LEN)
            continue;
        xp_line L;
        if (xp_decode_line(&plane, &f, &L, &e) < 0)
            return -1;
        if (!(tp_xplane_opts_of(r->o)->rederive && tp_xplane_is_derived_line_id(L.id))) /* (xp_read_line skips those) */
            n += L.nevents;
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

/* The derivation input is XPlane's own: appended once the strings are
 * mapped and before t changes, as it may still decline (then the part is
 * read again: the strings interned meanwhile are interned anyway, in the
 * same order). */
typedef struct append_ctx {
    xp_reader *r;
    plane_part *q;
} append_ctx;

static bool derive_append(void *ctx, const tp_append_map *m)
{
    append_ctx *c = ctx;
    return tp_derive_input_append(&c->r->din, &c->q->r.din, m->first_event, m->str);
}

/* Append part q (read after the planes in r) to r: its trace with
 * tp_trace_append, then what is XPlane's own.  Returns false, changing
 * nothing but strings, when the part must be read again on r's thread (see
 * above). */
static bool part_append(xp_reader *r, plane_part *q)
{
    tp_trace *t = r->t, *u = &q->t;
    xp_reader *b = &q->r;
    /* (its events must be the slice just after ours: tp_trace_append would
     * otherwise copy them and free the slice) */
    if ((r->nhost && b->nhost) || (r->nother && b->nother) || u->events != t->events + t->nevents)
        return false;
    for (size_t i = 0; i < u->nprocesses; i++)
        if (has_pid(t, u->processes[i].pid))
            return false;
    append_ctx c = {r, q};
    tp_append_how how = {.merge_meta = false, .strings_mapped = derive_append, .ctx = &c};
    tp_append_map m;
    if (!tp_trace_append(t, u, &how, &m)) {
        tp_append_map_free(&m);
        return false;
    }
    const tp_str *smap = m.str;
    uint32_t first_ev = m.first_event;
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
    /* the op costs seen (t->costs is made of them at the end) */
    TP_GROW(r->costs, r->costs_cap, r->ncosts + b->ncosts);
    for (size_t i = 0; i < b->ncosts; i++) {
        xp_cost oc = b->costs[i];
        oc.name = smap[oc.name];
        r->costs[r->ncosts++] = oc;
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
    tp_append_map_free(&m);
    return true;
}

/* Read the planes: on this thread, or the later ones on a second. */
int xp_read_planes(xp_reader *r, const tp_pb_field *planes, size_t n)
{
    size_t s = split_point(planes, n);
    plane_part *q = NULL;
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
        count_job c = {r, planes, s, 0};
        tp_run_pair(part_count, q, first_count, &c, "TP_READ_THREADS");
        tp_trace *t = r->t;
        int64_t na = c.count;
        bool go = na >= 0 && q->count >= 0 && t->nevents + (uint64_t)na + (uint64_t)q->count < UINT32_MAX - 1;
        if (go) { /* (else a framing error, or too many events: one reader reports it) */
            TP_GROW_EVENTS(t, t->nevents + (size_t)na + (size_t)q->count);
            r->ev_limit = t->nevents + (size_t)na;
            q->t.events = t->events + r->ev_limit; /* its slice of our array */
            q->t.events_cap = (size_t)q->count;
            q->r.ev_limit = (size_t)q->count;
        }
        tp_timing("read: planes counted");
        if (!go) {
            part_free(q);
            q = NULL;
            s = 0;
        }
    }
    tp_side side;
    if (q)
        tp_side_start(&side, part_main, q, "TP_READ_THREADS");
    int rc = 0;
    size_t to = s ? s : n;
    for (size_t i = 0; i < to && rc == 0; i++)
        rc = xp_read_plane(r, &planes[i]);
    if (!q)
        return rc;
    tp_timing("read: planes, first part");
    tp_side_join(&side);
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
            rc = xp_read_plane(r, &planes[i]);
    return rc;
}
