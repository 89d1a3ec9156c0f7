/* link.c: device activity -> launch call -> host op (see link.h). */
#include "convert/pipeline/link.h"
#include "convert/base/threads.h"
#include "convert/model/tracks.h"

#include <stdlib.h>
#include <string.h>

static bool is_host_slice(const tp_trace *t, const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) && t->tracks[e->track].role == TP_TRACK_HOST;
}

typedef struct corr_map {
    uint32_t *keys; /* corr + 1 (0 = empty) */
    uint32_t *vals;
    size_t cap;
    bool dense;     /* slot = corr: ids count up from about 1 (half the memory of the hash table) */
} corr_map;

static size_t corr_slot(const corr_map *m, uint32_t corr)
{
    if (m->dense) /* the last slot stays empty: ids beyond the launches' */
        return corr < m->cap - 1 ? corr : m->cap - 1;
    size_t i = ((uint64_t)corr * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != corr + 1u)
        i = (i + 1) & (m->cap - 1);
    return i;
}

typedef struct corr_ev {
    uint32_t corr, ev;
} corr_ev;

/* One half of the events [lo, hi): its launch calls and host slices (in
 * event order), then its host slices put in their tracks' places. */
typedef struct walk_half {
    const tp_trace *t;
    size_t lo, hi;
    corr_ev *rt;
    size_t nrt, rt_cap;
    uint32_t maxcorr;
    uint32_t *host;
    size_t nhost, host_cap;
    size_t *count; /* per track: this half's host slices; then where its next one goes in idx */
    uint32_t *idx;
    bool any_op;   /* an event with an op (a reader's): else there may be none to pass on */
    int step;
} walk_half;

static void *walk_half_main(void *p)
{
    walk_half *w = p;
    const tp_trace *t = w->t;
    if (w->step == 1) {
        for (size_t j = 0; j < w->nhost; j++)
            w->idx[w->count[t->events[w->host[j]].track]++] = w->host[j];
        return NULL;
    }
    for (size_t i = w->lo; i < w->hi; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind == TP_KIND_RUNTIME && (e->flags & TP_EV_HAS_CORR) && e->ph == 'X' &&
            !(e->flags & TP_EV_DROPPED) && e->corr != UINT32_MAX) {
            TP_GROW(w->rt, w->rt_cap, w->nrt + 1);
            w->rt[w->nrt++] = (corr_ev){e->corr, (uint32_t)i};
            w->maxcorr = e->corr > w->maxcorr ? e->corr : w->maxcorr;
        }
        w->any_op |= e->op != TP_NONE;
        if (is_host_slice(t, e)) {
            TP_GROW(w->host, w->host_cap, w->nhost + 1);
            w->host[w->nhost++] = (uint32_t)i;
            w->count[e->track]++;
        }
    }
    return NULL;
}

/* launch -> op: each host thread's slices in time order, swept with a stack
 * of the open ones (writes the op of host runtime calls only). */
typedef struct sweep_job {
    tp_trace *t;
    const tp_host_slices *hs;
    bool any_op; /* a call got an op */
} sweep_job;

static void *sweep_main(void *p)
{
    sweep_job *s = p;
    tp_trace *t = s->t;
    uint32_t *stack = NULL;
    size_t scap = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        size_t n = s->hs->start[k + 1] - s->hs->start[k];
        if (n == 0)
            continue;
        uint32_t *list = s->hs->list + s->hs->start[k];
        tp_sort_by_time(t, list, n);
        size_t depth = 0;
        for (size_t j = 0; j < n; j++) {
            tp_event *e = &t->events[list[j]];
            while (depth && t->events[stack[depth - 1]].ts + t->events[stack[depth - 1]].dur <= e->ts &&
                   !(t->events[stack[depth - 1]].dur == 0 && t->events[stack[depth - 1]].ts == e->ts))
                depth--;
            if (e->kind == TP_KIND_RUNTIME && e->op == TP_NONE) { /* a reader's own op is kept */
                for (size_t d = depth; d > 0; d--)
                    if (t->events[stack[d - 1]].kind == TP_KIND_HOST_OP) {
                        e->op = stack[d - 1];
                        s->any_op = true;
                        break;
                    }
            }
            TP_GROW(stack, scap, depth + 1);
            stack[depth++] = list[j];
        }
    }
    free(stack);
    return NULL;
}

/* device activity -> its launch call by correlation id (the first of a
 * duplicate id kept).  A reader's own link is kept, except one the Chrome
 * reader restored from flow keys: correlation comes first.  Notes the
 * input's flow events and every linked event (whose op is its call's, once
 * the sweep is done).  Writes the link of device activity only, which is on
 * no host track: the sweep beside never reads it. */
typedef struct corr_job {
    tp_trace *t;
    const walk_half *half; /* [2]: the launch calls, in event order */
    size_t linked;         /* links made here */
    uint32_t *flows, *with_link;
    size_t nflows, flows_cap, nwith, with_cap;
} corr_job;

static void *corr_main(void *p)
{
    corr_job *c = p;
    tp_trace *t = c->t;
    size_t nrt = c->half[0].nrt + c->half[1].nrt;
    uint32_t maxcorr = c->half[0].maxcorr > c->half[1].maxcorr ? c->half[0].maxcorr : c->half[1].maxcorr;
    corr_map m = {0};
    if (nrt) {
        m.cap = 64;
        while (m.cap < nrt * 2)
            m.cap *= 2;
        m.dense = maxcorr < nrt * 2 + 1024;
        if (m.dense)
            m.cap = (size_t)maxcorr + 2;
        m.keys = tp_xcalloc(m.cap, sizeof *m.keys);
        m.vals = tp_xmalloc(m.cap * sizeof *m.vals);
        for (int h = 0; h < 2; h++)
            for (size_t j = 0; j < c->half[h].nrt; j++) {
                const corr_ev *r = &c->half[h].rt[j];
                size_t s = corr_slot(&m, r->corr);
                if (m.keys[s]) {
                    tp_warn(t, "duplicate correlation ids on launch calls (first kept)", 1);
                    continue;
                }
                m.keys[s] = r->corr + 1u;
                m.vals[s] = r->ev;
            }
    }
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        if (e->ph == 's' || e->ph == 't' || e->ph == 'f') {
            TP_GROW(c->flows, c->flows_cap, c->nflows + 1);
            c->flows[c->nflows++] = (uint32_t)i;
            continue;
        }
        if (nrt && tp_is_device_kind(e->kind) && (e->flags & TP_EV_HAS_CORR) &&
            (e->link == TP_NONE || (e->flags & TP_EV_LINK_FLOW)) && e->ph == 'X' && e->corr != UINT32_MAX) {
            size_t s = corr_slot(&m, e->corr);
            if (m.keys[s]) { /* (TP_EV_LINK_FLOW stays: read only here, and X events' flags may be read beside) */
                e->link = m.vals[s];
                c->linked++;
            }
        }
        if (e->link != TP_NONE) {
            TP_GROW(c->with_link, c->with_cap, c->nwith + 1);
            c->with_link[c->nwith++] = (uint32_t)i;
        }
    }
    free(m.keys);
    free(m.vals);
    return NULL;
}

void tp_link_events(tp_trace *t, const tp_str cats[4], tp_host_slices *hs)
{
    size_t nt = t->ntracks;
    walk_half half[2] = {{.t = t, .lo = 0, .hi = t->nevents / 2}, {.t = t, .lo = t->nevents / 2, .hi = t->nevents}};
    for (int h = 0; h < 2; h++)
        half[h].count = tp_xcalloc(nt + 1, sizeof *half[h].count);
    tp_run_pair(walk_half_main, &half[1], walk_half_main, &half[0], NULL);
    /* each track's host slices together, in event order (the first half's first) */
    size_t *start = tp_xcalloc(nt + 1, sizeof *start);
    for (size_t k = 0; k < nt; k++) {
        start[k + 1] = start[k] + half[0].count[k] + half[1].count[k];
        half[1].count[k] = start[k] + half[0].count[k];
        half[0].count[k] = start[k];
    }
    uint32_t *idx = tp_xmalloc((start[nt] + 1) * sizeof *idx);
    for (int h = 0; h < 2; h++) {
        half[h].idx = idx;
        half[h].step = 1;
    }
    tp_run_pair(walk_half_main, &half[1], walk_half_main, &half[0], NULL);
    for (int h = 0; h < 2; h++) {
        free(half[h].host);
        free(half[h].count);
    }
    *hs = (tp_host_slices){idx, start, t->nevents, nt};
    /* the sweep here, the correlation ids beside */
    sweep_job sweep = {t, hs, false};
    corr_job corr = {.t = t, .half = half};
    tp_run_pair(corr_main, &corr, sweep_main, &sweep, NULL);
    for (int h = 0; h < 2; h++)
        free(half[h].rt);
    /* a device event's op is its launch call's (in event order: a link to
     * an event linked before it reads that one's op as set here) */
    if (half[0].any_op || half[1].any_op || sweep.any_op) /* (XPlane: no host op, a miss per kernel saved) */
        for (size_t j = 0; j < corr.nwith; j++) {
            tp_event *e = &t->events[corr.with_link[j]];
            if (e->op == TP_NONE)
                e->op = t->events[e->link].op;
        }
    free(corr.with_link);
    /* the input's own launch flows are replaced by flows bound to the slices */
    for (size_t j = 0; corr.linked && j < corr.nflows; j++) {
        const tp_event *e = &t->events[corr.flows[j]];
        for (int c = 0; c < 4; c++)
            if (cats[c] && e->cat == cats[c]) {
                tp_drop(t, corr.flows[j], "launch flows (replaced by flows bound to the slices)");
                break;
            }
    }
    free(corr.flows);
}
