/* chrome_flows.c: the flow keys the writer draws links with, read back as
 * links.  Part of the Chrome reader (chrome_read_int.h).
 *
 * The writer draws each launch link (a device event's `link`, model.h) as a
 * flow v2 on the slices: "bind_id":N with "flow_out":true on the launch call
 * and "flow_in":true on its first device event; further device events of the
 * same call get a v1 pair right after them ({"ph":"s","cat":"launch",
 * "name":"launch"} on the call's thread at its start, {"ph":"f","bp":"e",...}
 * at the device event).  Formats whose links do not come from a
 * "correlation" arg (dv/dt, PlaidML) would lose them on a second conversion,
 * so the reader notes the events that carry these keys (only those pay) and
 * chrome_restore_flows links them back once everything is read: device side ->
 * launch side, flagged TP_EV_LINK_FLOW so that a correlation link, which the
 * pipeline finds later, still wins.  Matched v1 pairs are dropped: the writer
 * draws them again from the link.  Keys that make no pair are counted. */
#include "convert/read/chrome/chrome_read_int.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

static bool is_v1_launch_f(const raw_event *ev, const tp_event *e)
{
    return (e->flags & TP_EV_BP_ENCLOSING) && (e->flags & TP_EV_HAS_ID) && !(e->flags & TP_EV_ID_STRING) &&
           ev->cat.n == 6 && !ev->cat.escaped && memcmp(ev->cat.p, "launch", 6) == 0 && ev->name.n == 6 &&
           !ev->name.escaped && memcmp(ev->name.p, "launch", 6) == 0;
}

void chrome_note_flow(reader *r, const raw_event *ev, const tp_event *e, uint32_t idx)
{
    tp_trace *t = r->t;
    if (r->o->no_corr)
        return; /* no links wanted (stats without --steps): the keys are only dropped */
    flow_rec fr = {0, idx, 0};
    if (e->ph == 'f' && is_v1_launch_f(ev, e)) {
        fr.id = e->id;
        fr.what = FLOW_V1;
    } else if (!ev->bind.p && !ev->flow) {
        return; /* an 'f' of someone else's flow */
    } else if (!ev->bind.p) {
        tp_warn(t, "flow keys: flow_in/flow_out without bind_id (ignored)", 1);
        return;
    } else if (!ev->flow) {
        tp_warn(t, "flow keys: bind_id without flow_in/flow_out true (ignored)", 1);
        return;
    } else if (e->ph != 'X' && e->ph != 'B') {
        tp_warn(t, "flow keys on events that are not slices (ignored)", 1);
        return;
    } else if (ev->flow == (FLOW_IN | FLOW_OUT)) {
        tp_warn(t, "flow keys: flow_in and flow_out on one slice (ignored)", 1);
        return;
    } else {
        int64_t id;
        if (ev->bind.str || tp_parse_int(ev->bind.p, ev->bind.n, &id) != 0 || id <= 0) {
            tp_warn(t, "flow keys: bind_id not an integer from 1 to 2^63-1 (ignored)", 1);
            return;
        }
        fr.id = (uint64_t)id;
        fr.what = ev->flow;
    }
    TP_GROW(r->flows, r->flows_cap, r->nflows + 1);
    r->flows[r->nflows++] = fr;
}

static int flow_rec_cmp(const void *a, const void *b)
{
    const flow_rec *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* a launch slice of a v2 flow, for matching the v1 pairs by (track, ts) */
typedef struct launch_at {
    uint32_t track;
    int64_t ts;
    uint32_t ev;
} launch_at;

static int launch_at_cmp(const void *a, const void *b)
{
    const launch_at *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The first launch slice at (track, ts), or TP_NONE. */
static uint32_t launch_find(const launch_at *l, size_t n, uint32_t track, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l[mid].track < track || (l[mid].track == track && l[mid].ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && l[lo].track == track && l[lo].ts == ts ? l[lo].ev : TP_NONE;
}

/* Link the in side of a v2 flow to its out side. */
static bool flow_link(tp_trace *t, uint32_t out, uint32_t in)
{
    if (t->events[out].ph != 'X' || t->events[in].ph != 'X' || t->events[in].link != TP_NONE)
        return false;
    t->events[in].link = out;
    t->events[in].flags |= TP_EV_LINK_FLOW;
    return true;
}

/* The pairs found so far: unmatched ends counted, and with v1 pairs in the
 * file the launches they start from. */
typedef struct flow_pairing {
    tp_trace *t;
    bool v1;
    uint64_t no_out, no_in;
    launch_at *launch;
    size_t nlaunch, launch_cap;
} flow_pairing;

static void pair_flow(flow_pairing *fp, uint32_t out, uint32_t in)
{
    if (out == TP_NONE)
        fp->no_out++;
    else if (in == TP_NONE)
        fp->no_in++;
    else if (flow_link(fp->t, out, in) && fp->v1) {
        TP_GROW(fp->launch, fp->launch_cap, fp->nlaunch + 1);
        fp->launch[fp->nlaunch++] = (launch_at){fp->t->events[out].track, fp->t->events[out].ts, out};
    }
}

void chrome_restore_flows(reader *r)
{
    tp_trace *t = r->t;
    if (!r->nflows)
        return;
    /* the v1 'f' records to the end (few), the v2 ones keep their input order */
    size_t nv2 = 0;
    uint64_t maxid = 0;
    for (size_t i = 0; i < r->nflows; i++)
        if (r->flows[i].what != FLOW_V1) {
            flow_rec x = r->flows[i];
            r->flows[i] = r->flows[nv2];
            r->flows[nv2++] = x;
            if (x.id > maxid)
                maxid = x.id;
        }
    bool v1 = nv2 < r->nflows;
    uint64_t dup = 0;
    flow_pairing fp = {t, v1, 0, 0, NULL, 0, 0};
    /* v2: one flow_out and one flow_in per bind id, the first of each kept */
    if (maxid <= (uint64_t)nv2 * 2 + 1024) {
        /* the writer numbers its flows 1, 2, 3...: a table indexed by id */
        uint32_t *end = tp_xmalloc(((size_t)maxid + 1) * 2 * sizeof *end); /* [id][0 out, 1 in] */
        for (size_t k = 0; k <= maxid * 2 + 1; k++)
            end[k] = TP_NONE;
        for (size_t i = 0; i < nv2; i++) {
            uint32_t *side = &end[r->flows[i].id * 2 + (r->flows[i].what == FLOW_IN)];
            if (*side == TP_NONE)
                *side = r->flows[i].ev;
            else
                dup++;
        }
        for (size_t id = 1; id <= maxid; id++) {
            uint32_t out = end[id * 2], in = end[id * 2 + 1];
            if (out != TP_NONE || in != TP_NONE)
                pair_flow(&fp, out, in);
        }
        free(end);
    } else {
        qsort(r->flows, nv2, sizeof *r->flows, flow_rec_cmp);
        for (size_t i = 0; i < nv2;) {
            uint32_t out = TP_NONE, in = TP_NONE;
            size_t j = i;
            for (; j < nv2 && r->flows[j].id == r->flows[i].id; j++) {
                uint32_t *side = r->flows[j].what == FLOW_OUT ? &out : &in;
                if (*side == TP_NONE)
                    *side = r->flows[j].ev;
                else
                    dup++;
            }
            i = j;
            pair_flow(&fp, out, in);
        }
    }
    if (dup)
        tp_warn(t, "flow keys: bind_id on more than one flow_out or flow_in (first kept)", dup);
    if (fp.no_out)
        tp_warn(t, "flow keys: flow_in without a flow_out (ignored)", fp.no_out);
    if (fp.no_in)
        tp_warn(t, "flow keys: flow_out without a flow_in (ignored)", fp.no_in);
    if (!v1)
        return;
    /* v1 "launch" pairs: the writer puts the device slice, the 's' and the
     * 'f' one after the other, the 's' at the start of a launch slice that
     * has a v2 flow */
    qsort(fp.launch, fp.nlaunch, sizeof *fp.launch, launch_at_cmp);
    uint64_t unmatched = 0;
    for (size_t i = nv2; i < r->nflows; i++) {
        uint32_t f = r->flows[i].ev;
        const tp_event *fe = &t->events[f], *se = f >= 2 ? &t->events[f - 1] : NULL;
        tp_event *de = f >= 2 ? &t->events[f - 2] : NULL;
        uint32_t l = TP_NONE;
        /* a launch flow noted in place of an event between them (tp_read_opts.flows_as_ids) parts them as
         * the event would */
        size_t nb = se ? tp_launch_flow_first_at(t, f - 1) : 0;
        if (se && nb < t->nlaunch_flows && t->launch_flows[nb].at <= f)
            se = NULL;
        if (se && se->ph == 's' && se->cat == fe->cat && se->name == fe->name && (se->flags & TP_EV_HAS_ID) &&
            !(se->flags & TP_EV_ID_STRING) && se->id == fe->id && !(se->flags & TP_EV_DROPPED) && de->ph == 'X' &&
            de->track == fe->track && de->ts == fe->ts && de->link == TP_NONE)
            l = launch_find(fp.launch, fp.nlaunch, se->track, se->ts);
        if (l == TP_NONE || l == f - 2) {
            unmatched++;
            continue;
        }
        de->link = l;
        de->flags |= TP_EV_LINK_FLOW;
        tp_drop(t, f - 1, "launch flows (replaced by flows bound to the slices)");
        tp_drop(t, f, "launch flows (replaced by flows bound to the slices)");
    }
    if (unmatched)
        tp_warn(t, "flow keys: \"launch\" flow pairs not next to their slices (kept as they are)", unmatched);
    free(fp.launch);
}
