/* cp_overlay.c: `convert --critical-path` (critical.h): the path drawn in
 * the converted trace.  The path's events get "critical":1 in their args
 * (as HTA's overlaid trace), each edge of the path becomes a flow from its
 * first node to its second (category "critical_path", args type, weight in
 * ns, bound), and a process "Critical path" holds one slice per stretch of
 * the path (the window time each edge covers, named by its bound type and
 * event), so that Perfetto shows what each step waited on in one row. */
#include "convert/critical/critical.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Flow ids of their own: far above the writer's launch flows (numbered
 * from 1), and under a category of their own. */
#define CP_FLOW_ID_BASE (UINT64_C(1) << 40)

static void mark(tp_trace *t, uint32_t ev, tp_buf *b)
{
    tp_event *e = &t->events[ev];
    const char *a = NULL, *extra = NULL;
    size_t alen = 0, elen = 0;
    tp_args_split(t, e->args, &a, &alen, &extra, &elen);
    b->len = 0;
    /* "{...}" -> "{...,"critical":1}"; no args -> {"critical":1} */
    size_t body = alen;
    while (body && (a[body - 1] == ' ' || a[body - 1] == '\n' || a[body - 1] == '\t' || a[body - 1] == '\r'))
        body--;
    if (body >= 2 && a[0] == '{' && a[body - 1] == '}') {
        size_t inner = body - 1;
        tp_buf_put(b, a, inner);
        bool empty = true;
        for (size_t k = 1; k < inner; k++)
            if (a[k] != ' ' && a[k] != '\n' && a[k] != '\t' && a[k] != '\r')
                empty = false;
        tp_buf_puts(b, empty ? "\"critical\":1}" : ",\"critical\":1}");
    } else
        tp_buf_puts(b, "{\"critical\":1}");
    if (elen) {
        tp_buf_putc(b, '\x1f');
        tp_buf_put(b, extra, elen);
    }
    uint64_t h = tp_args_add(t, b->data, b->len);
    t->events[ev].args = h;
}

static int64_t node_ts(const tp_trace *t, uint32_t ev, bool start, int64_t ts)
{
    const tp_event *e = &t->events[ev];
    if (start || e->dur <= 0)
        return ts;
    return ts - 1; /* inside the slice, so the flow binds to it */
}

static void flow_end(tp_trace *t, char ph, uint32_t ev, bool start, uint64_t id, tp_str cat, uint64_t args)
{
    /* the node's time: its event's start or end (as cp_graph.c made it) */
    int64_t ts = start ? t->events[ev].ts : tp_sat_add(t->events[ev].ts, t->events[ev].dur);
    tp_event f;
    tp_event_init(&f);
    f.ph = ph;
    f.ts = node_ts(t, ev, start, ts);
    f.track = t->events[ev].track;
    f.name = cat;
    f.cat = cat;
    f.id = id;
    f.args = args;
    f.flags = TP_EV_HAS_ID | (ph == 'f' ? TP_EV_BP_ENCLOSING : 0);
    tp_event_add(t, &f);
}

size_t tp_critical_overlay(tp_trace *t, const tp_critical *c)
{
    size_t n0 = t->nevents, marked = 0;
    uint8_t *on = tp_xcalloc(n0 + 1, 1);
    for (size_t w = 0; w < c->n; w++)
        for (size_t i = 0; i < c->paths[w].nlinks; i++) {
            on[c->paths[w].links[i].from_ev] = 1;
            on[c->paths[w].links[i].to_ev] = 1;
        }
    tp_buf b = {0};
    for (size_t i = 0; i < n0; i++)
        if (on[i]) {
            mark(t, (uint32_t)i, &b);
            marked++;
        }
    free(on);
    tp_str cat = tp_intern_cstr(t, "critical_path");
    /* the path's own process, after every pid of the trace */
    int64_t pid = 0;
    for (size_t k = 0; k < t->nprocesses; k++)
        pid = t->processes[k].pid >= pid ? t->processes[k].pid + 1 : pid;
    uint32_t proc = TP_NONE, track = TP_NONE;
    uint64_t id = CP_FLOW_ID_BASE;
    tp_argb ab = {0};
    for (size_t w = 0; w < c->n; w++) {
        const tp_cp_path *p = &c->paths[w];
        for (size_t i = 0; i < p->nlinks; i++) {
            const tp_cp_link *l = &p->links[i];
            tp_argb_reset(&ab);
            tp_argb_cstr(&ab, "type", tp_cp_edge_name(l->type));
            tp_argb_int(&ab, "weight_ns", l->weight);
            tp_argb_cstr(&ab, "bound", tp_cp_bound_name(l->bound));
            uint64_t args = tp_argb_commit(t, &ab);
            flow_end(t, 's', l->from_ev, l->from_start, id, cat, args);
            flow_end(t, 'f', l->to_ev, l->to_start, id, cat, args);
            id++;
            if (l->time_ns <= 0)
                continue;
            if (proc == TP_NONE) {
                proc = tp_process_get(t, pid);
                t->processes[proc].name = tp_intern_cstr(t, "Critical path");
                track = tp_track_get(t, proc, 0);
                t->tracks[track].name = tp_intern_cstr(t, "critical path");
            }
            tp_event s;
            tp_event_init(&s);
            s.ts = l->from_ns;
            s.dur = l->time_ns;
            s.track = track;
            s.cat = cat;
            char name[64];
            snprintf(name, sizeof name, "%s", tp_cp_bound_name(l->bound));
            s.name = l->attr_ev != TP_NONE ? t->events[l->attr_ev].name : tp_intern_cstr(t, name);
            tp_argb_reset(&ab);
            tp_argb_cstr(&ab, "bound", tp_cp_bound_name(l->bound));
            tp_argb_cstr(&ab, "edge", tp_cp_edge_name(l->type));
            if (p->step >= 0)
                tp_argb_int(&ab, "step", p->step);
            s.args = tp_argb_commit(t, &ab);
            tp_event_add(t, &s);
        }
    }
    tp_argb_free(&ab);
    tp_buf_free(&b);
    return marked;
}
