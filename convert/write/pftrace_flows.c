/* pftrace_flows.c: flow ids of a .pftrace (see pftrace_flows.h). */
#include "convert/write/pftrace_flows.h"

#include <stdlib.h>
#include <string.h>

typedef struct tp_pf_pair {
    uint32_t ev, id;
} pair;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->ev != y->ev)
        return x->ev < y->ev ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void push_extra(tp_pf_flows *f, uint32_t ev, uint32_t id)
{
    TP_GROW(f->extra, f->extra_cap, f->nextra + 1);
    f->extra[f->nextra++] = (pair){ev, id};
}

static void add_pair(tp_pf_flows *a, uint32_t ev, uint32_t id)
{
    uint32_t *one = &a->one[ev];
    if (*one == 0)
        *one = id;
    else if (*one == TP_PF_MANY)
        push_extra(a, ev, id);
    else if (*one != id) {
        push_extra(a, ev, *one);
        push_extra(a, ev, id);
        *one = TP_PF_MANY;
    }
}

static bool is_flow(const tp_event *e) { return e->ph == 's' || e->ph == 't' || e->ph == 'f'; }

static bool launch_ok(const tp_trace *t, const tp_event *e)
{
    if (e->link == TP_NONE || e->ph != 'X')
        return false;
    const tp_event *l = &t->events[e->link];
    return !(l->flags & TP_EV_DROPPED) && l->ph == 'X';
}

/* the rule of tp_nest_repair: is slice s still open at event e? */
static bool still_open(const tp_event *s, const tp_event *e)
{
    return s->ts + s->dur > e->ts || (s->dur == 0 && e->dur == 0 && s->ts == e->ts);
}

/* Bind every input flow event to a slice: bound[k] for flow event fl[k]. */
static void bind_flows(const tp_trace *t, const tp_track_index *ix, uint32_t *slice_of)
{
    uint32_t *stack = NULL, *pending = NULL;
    size_t scap = 0, pcap = 0;
    for (size_t k = 0; k < ix->ntracks; k++) {
        size_t depth = 0, np = 0;
        for (size_t q = ix->start[k]; q < ix->start[k + 1]; q++) {
            uint32_t i = ix->ev[q];
            const tp_event *e = &t->events[i];
            if (e->ph != 'X' && !is_flow(e))
                continue;
            while (depth && !still_open(&t->events[stack[depth - 1]], e))
                depth--;
            if (e->ph == 'X') {
                for (size_t j = 0; j < np; j++)
                    slice_of[pending[j]] = i;
                np = 0;
                TP_GROW(stack, scap, depth + 1);
                stack[depth++] = i;
                continue;
            }
            uint32_t top = depth ? stack[depth - 1] : TP_NONE;
            if (e->ph != 'f' || (e->flags & TP_EV_BP_ENCLOSING))
                slice_of[i] = top;
            else if (top != TP_NONE && t->events[top].ts == e->ts)
                slice_of[i] = top; /* a slice starting right here is the next one */
            else {
                TP_GROW(pending, pcap, np + 1);
                pending[np++] = i;
            }
        }
    }
    free(stack);
    free(pending);
}

typedef struct fctx {
    const tp_trace *t;
} fctx;

/* chain order: (cat, string id?, id, ts, s before t before f, index) */
static int cmp_flow(const void *a, const void *b, void *vctx)
{
    const tp_trace *t = ((const fctx *)vctx)->t;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    const tp_event *x = &t->events[ia], *y = &t->events[ib];
    if (x->cat != y->cat)
        return x->cat < y->cat ? -1 : 1;
    int sx = !!(x->flags & TP_EV_ID_STRING), sy = !!(y->flags & TP_EV_ID_STRING);
    if (sx != sy)
        return sx - sy;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    int px = x->ph == 's' ? 0 : x->ph == 't' ? 1 : 2, py = y->ph == 's' ? 0 : y->ph == 't' ? 1 : 2;
    if (px != py)
        return px - py;
    return ia < ib ? -1 : ia > ib;
}

void tp_pf_flows_begin(tp_pf_flows *f, const tp_trace *t)
{
    memset(f, 0, sizeof *f);
    f->one = tp_xcalloc(t->nevents + 1, sizeof *f->one);
    f->next = 1;
}

/* Launch flows numbered by their device events in the order visited; input
 * flow events listed (their ids follow, sorted in tp_pf_flows_end). */
void tp_pf_flows_visit(tp_pf_flows *f, const tp_trace *t, uint32_t i)
{
    const tp_event *e = &t->events[i];
    if (launch_ok(t, e)) {
        add_pair(f, i, f->next);
        add_pair(f, e->link, f->next);
        f->next++;
    } else if (is_flow(e)) {
        TP_GROW(f->fl, f->flcap, f->nfl + 1);
        f->fl[f->nfl++] = i;
    }
}

void tp_pf_flows_end(tp_pf_flows *f, const tp_trace *t, const tp_track_index *ix)
{
    f->launch = f->next - 1;
    uint32_t next = f->next, *fl = f->fl;
    size_t nfl = f->nfl;
    tp_pf_flows *ps = f;
    if (nfl) {
        uint32_t *slice_of = tp_xmalloc(t->nevents * sizeof *slice_of);
        for (size_t k = 0; k < nfl; k++)
            slice_of[fl[k]] = TP_NONE;
        bind_flows(t, ix, slice_of);
        fctx ctx = {t};
        qsort_r(fl, nfl, sizeof *fl, cmp_flow, &ctx);
        uint32_t cur = 0, bound = 0;
        for (size_t k = 0; k < nfl; k++) {
            const tp_event *e = &t->events[fl[k]];
            const tp_event *p = k ? &t->events[fl[k - 1]] : NULL;
            bool new_key = !p || p->cat != e->cat || p->id != e->id ||
                           (p->flags & TP_EV_ID_STRING) != (e->flags & TP_EV_ID_STRING);
            if (cur && (new_key || e->ph == 's')) { /* the chain ends */
                f->input += bound >= 2;
                cur = 0;
            }
            if (!cur) {
                cur = next++;
                bound = 0;
            }
            if (slice_of[fl[k]] != TP_NONE) {
                add_pair(ps, slice_of[fl[k]], cur);
                bound++;
            } else
                f->unbound++;
            if (e->ph == 'f') {
                f->input += bound >= 2;
                cur = 0;
            }
        }
        if (cur)
            f->input += bound >= 2;
        free(slice_of);
    }
    free(fl);
    f->fl = NULL;
    f->nfl = f->flcap = 0;

    /* events with several ids: ascending, each id once */
    if (f->nextra)
        qsort(f->extra, f->nextra, sizeof *f->extra, cmp_pair);
    f->mev = tp_xmalloc((f->nextra + 1) * sizeof *f->mev);
    f->mid = tp_xmalloc((f->nextra + 1) * sizeof *f->mid);
    for (size_t k = 0; k < f->nextra; k++) {
        if (k && f->extra[k].ev == f->extra[k - 1].ev && f->extra[k].id == f->extra[k - 1].id)
            continue;
        f->mev[f->nm] = f->extra[k].ev;
        f->mid[f->nm++] = f->extra[k].id;
    }
    free(f->extra);
    f->extra = NULL;
    f->nextra = f->extra_cap = 0;
}

void tp_pf_flows_free(tp_pf_flows *f)
{
    free(f->one);
    free(f->mev);
    free(f->mid);
    memset(f, 0, sizeof *f);
}
