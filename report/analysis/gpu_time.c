/* gpu_time.c: the GPU time model per device, whole trace and step
 * (gpu_time.h).  One sweep per device over its activities in start order:
 * since starts are sorted, a class covers time x exactly when the latest end
 * of its activities started so far lies after x, so keeping one end per class
 * finds every elementary segment (and the classes active in it) without
 * sorting the ends. */
#include "report/analysis/gpu_time.h"
#include "convert/base/i64map.h"
#include "convert/base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_COMP = 1, C_COMM = 2, C_MCPY = 4, C_MSET = 8, C_UNL = 16, NCLS = 5 };

typedef struct act {
    int64_t s, e;
    uint32_t dev;
    uint32_t ev; /* the event: its class is set from the classification in build */
    uint8_t cls;
    uint8_t kind;
} act;

#define ACT_LESS(x, y, c) ((x)->dev != (y)->dev ? (x)->dev < (y)->dev : (x)->s < (y)->s)
TP_SORT_DEFINE(sort_acts, act, int, ACT_LESS)

typedef struct win {
    int64_t s, e;
    uint32_t step; /* index into the steps */
} win;

#define WIN_LESS(x, y, c) ((x)->s != (y)->s ? (x)->s < (y)->s : (x)->step < (y)->step)
TP_SORT_DEFINE(sort_wins, win, int, WIN_LESS)

void tp_device_label(const tp_trace *t, uint32_t process, char *buf, size_t n)
{
    const tp_process *p = &t->processes[process];
    if (p->label)
        snprintf(buf, n, "%s", tp_str_get(t, p->label));
    else if (p->device >= 0)
        snprintf(buf, n, "device %d", (int)p->device);
    else if (p->name)
        snprintf(buf, n, "%s", tp_str_get(t, p->name));
    else
        snprintf(buf, n, "pid %lld", (long long)p->pid);
}

int64_t tp_gpu_overlap_milli_pct(const tp_gpu_figs *f)
{
    if (f->communication_ns <= 0)
        return -1;
    __int128 hidden = (__int128)(f->communication_ns - f->exposed_communication_ns) * 100000;
    return (int64_t)((hidden + f->communication_ns / 2) / f->communication_ns);
}

/* one device's sweep state */
typedef struct sweep {
    tp_gpu_figs *whole;
    tp_gpu_figs *steps; /* by step index */
    const win *w;
    size_t nw, cur;     /* windows, the first that may still overlap */
} sweep;

static void add_len(tp_gpu_figs *f, unsigned mask, int64_t len)
{
    f->busy_ns += len;
    if (mask & C_COMP)
        f->computation_ns += len;
    if (mask & C_COMM) {
        f->communication_ns += len;
        if (!(mask & C_COMP))
            f->exposed_communication_ns += len;
    }
    if (mask & C_MCPY) {
        f->memcpy_ns += len;
        if (!(mask & (C_COMP | C_COMM)))
            f->exposed_memcpy_ns += len;
    }
    if (mask & C_MSET)
        f->memset_ns += len;
    if (mask & C_UNL)
        f->unlinked_ns += len;
}

/* [a, b) busy with the classes in mask (a < b, calls in time order) */
static void emit(sweep *sw, unsigned mask, int64_t a, int64_t b)
{
    add_len(sw->whole, mask, b - a);
    while (sw->cur < sw->nw && sw->w[sw->cur].e <= a)
        sw->cur++;
    for (size_t k = sw->cur; k < sw->nw && sw->w[k].s < b; k++) {
        int64_t s = a > sw->w[k].s ? a : sw->w[k].s, e = b < sw->w[k].e ? b : sw->w[k].e;
        if (e > s)
            add_len(&sw->steps[sw->w[k].step], mask, e - s);
    }
}

/* from x to y: the segments where some class is active */
static int64_t advance(sweep *sw, const int64_t ends[NCLS], int64_t x, int64_t y)
{
    while (x < y) {
        unsigned mask = 0;
        int64_t next = y;
        for (int b = 0; b < NCLS; b++)
            if (ends[b] > x) {
                mask |= 1u << b;
                if (ends[b] < next)
                    next = ends[b];
            }
        if (!mask)
            return y;
        emit(sw, mask, x, next);
        x = next;
    }
    return x;
}

static void count_kind(tp_gpu_figs *f, uint8_t kind)
{
    if (kind == TP_KIND_MEMCPY)
        f->memcpys++;
    else if (kind == TP_KIND_MEMSET)
        f->memsets++;
    else
        f->kernels++;
}

/* Sweep a[0..n) (one device, by start) skipping the classes in `skip`;
 * figures into *whole and steps[] by the windows w[0..nw). */
static void sweep_device(const act *a, size_t n, unsigned skip, const win *w, size_t nw, tp_gpu_figs *whole,
                         tp_gpu_figs *steps)
{
    sweep sw = {whole, steps, w, nw, 0};
    int64_t ends[NCLS], x = INT64_MIN, first = INT64_MAX, last = INT64_MIN;
    for (int b = 0; b < NCLS; b++)
        ends[b] = INT64_MIN;
    size_t wc = 0; /* window cursor for the counts */
    for (size_t i = 0; i < n; i++) {
        if (a[i].cls & skip)
            continue;
        if (first == INT64_MAX)
            x = first = a[i].s;
        x = advance(&sw, ends, x, a[i].s);
        if (x < a[i].s)
            x = a[i].s;
        for (int b = 0; b < NCLS; b++)
            if ((a[i].cls & (1u << b)) && a[i].e > ends[b])
                ends[b] = a[i].e;
        if (a[i].e > last)
            last = a[i].e;
        count_kind(whole, a[i].kind);
        while (wc < nw && w[wc].e <= a[i].s)
            wc++;
        if (wc < nw && w[wc].s <= a[i].s)
            count_kind(&steps[w[wc].step], a[i].kind);
    }
    if (first == INT64_MAX)
        return;
    advance(&sw, ends, x, last);
    whole->span_ns = last - first;
    whole->idle_ns = whole->span_ns - whole->busy_ns;
    for (size_t k = 0; k < nw; k++) {
        tp_gpu_figs *f = &steps[w[k].step];
        int64_t s = w[k].s > first ? w[k].s : first, e = w[k].e < last ? w[k].e : last;
        f->span_ns = e > s ? e - s : 0;
        f->idle_ns = f->span_ns - f->busy_ns;
    }
}

#define FIGS_FIELDS(X)                                                                                             \
    X(span_ns) X(busy_ns) X(idle_ns) X(computation_ns) X(communication_ns) X(exposed_communication_ns) X(memcpy_ns) \
        X(exposed_memcpy_ns) X(memset_ns) X(unlinked_ns) X(kernels) X(memcpys) X(memsets)

static void figs_add(tp_gpu_figs *to, const tp_gpu_figs *f)
{
#define ADD(m) to->m += f->m;
    FIGS_FIELDS(ADD)
#undef ADD
}

static void figs_sub(tp_gpu_figs *to, const tp_gpu_figs *f)
{
#define SUB(m) to->m -= f->m;
    FIGS_FIELDS(SUB)
#undef SUB
}

/* The launch flows' ends seen per id: a byte per id of the ids' range when
 * the range is at most four per note plus 1024 (correlation ids count up),
 * else a hash map.  Built from notes of ids as tp_flow_note.id_end holds them. */
typedef struct flow_ends {
    uint8_t *dense;  /* id - lo -> TP_FLOW_START | TP_FLOW_END bits; NULL: the map */
    int64_t lo;
    size_t n;
    tp_i64map map;
} flow_ends;

static void flow_ends_build(flow_ends *f, const uint64_t *notes, size_t n)
{
    memset(f, 0, sizeof *f);
    if (!n)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = notes[i] >> 1;
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
    }
    if (hi - lo < (uint64_t)n * 4 + 1024) {
        f->lo = (int64_t)lo;
        f->n = (size_t)(hi - lo) + 1;
        f->dense = tp_xcalloc(f->n, 1);
        for (size_t i = 0; i < n; i++)
            f->dense[(notes[i] >> 1) - lo] |= (uint8_t)(notes[i] & 1 ? TP_FLOW_END : TP_FLOW_START);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t id = (int64_t)(notes[i] >> 1);
        uint32_t v = tp_i64map_get(&f->map, id);
        tp_i64map_put(&f->map, id, (v == TP_I64MAP_EMPTY ? 0 : v) | (notes[i] & 1 ? TP_FLOW_END : TP_FLOW_START));
    }
}

static uint32_t flow_ends_get(const flow_ends *f, int64_t id)
{
    if (f->dense)
        return id >= f->lo && (uint64_t)(id - f->lo) < f->n ? f->dense[id - f->lo] : 0;
    uint32_t v = tp_i64map_get(&f->map, id);
    return v == TP_I64MAP_EMPTY ? 0 : v;
}

static void flow_ends_free(flow_ends *f)
{
    free(f->dense);
    tp_i64map_free(&f->map);
    memset(f, 0, sizeof *f);
}

/* One of the input's ac2g launch flows (Kineto's "ac2g" s/f pairs, kept in
 * the model though replaced in conversions, dropped or not; cat: the "ac2g"
 * string, 0 when the trace has none), noted as tp_flow_note.id_end (where
 * the reader of an analysed trace notes most of them instead: model.h
 * tp_launch_flow_note).  false when e is not one. */
static bool launch_flow(const tp_event *e, tp_str cat, uint64_t **notes, size_t *n, size_t *cap)
{
    if (!cat || (e->ph != 's' && e->ph != 'f') || e->cat != cat || !(e->flags & TP_EV_HAS_ID) ||
        (e->flags & TP_EV_ID_STRING) || e->id > INT64_MAX)
        return false;
    TP_GROW(*notes, *cap, *n + 1);
    (*notes)[(*n)++] = e->id << 1 | (e->ph == 'f' ? 1u : 0u);
    return true;
}

/* Linked as TraceLens links (gpu_time.h "linked"): a launch call by
 * correlation and, when the trace records launch flows, a flow start and a
 * flow end carrying that correlation id, unless the call is a graph launch
 * (linked by correlation alone). */
static bool tracelens_linked(const tp_trace *t, const tp_event *e, bool flows, const flow_ends *ends,
                             uint8_t *graph_name)
{
    if (e->link == TP_NONE)
        return false;
    if (!flows)
        return true;
    tp_str call = t->events[e->link].name; /* a graph launch? asked once per call name (0 not asked, 1 yes, 2 no) */
    if (!graph_name[call])
        graph_name[call] = tp_is_graph_launch(tp_str_get(t, call)) ? 1 : 2;
    if (graph_name[call] == 1)
        return true;
    return (e->flags & TP_EV_HAS_CORR) && flow_ends_get(ends, (int64_t)e->corr) == (TP_FLOW_START | TP_FLOW_END);
}

void tp_gpu_time_prepare(const tp_trace *t, tp_gpu_time *g)
{
    memset(g, 0, sizeof *g);
    /* devices: processes with activity, in process order */
    uint32_t *dev_of = tp_xmalloc((t->nprocesses + 1) * sizeof *dev_of);
    for (size_t p = 0; p < t->nprocesses; p++)
        dev_of[p] = TP_NONE;
    /* one walk of the events: the device activities (noted, for the walk over them below) and the launch flows */
    size_t nact = 0, act_cap = 0;
    uint32_t *acts = NULL;
    tp_str flow_cat = tp_str_find(t, "ac2g", 4);
    /* the launch flows the reader noted, then those still events */
    size_t nflows = t->nlaunch_flows, flows_cap = nflows;
    uint64_t *notes = tp_xmalloc((nflows + 1) * sizeof *notes);
    for (size_t k = 0; k < nflows; k++)
        notes[k] = t->launch_flows[k].id_end;
    bool flows = nflows > 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (tp_is_device_activity(e)) {
            dev_of[t->tracks[e->track].process] = 0;
            TP_GROW(acts, act_cap, nact + 1);
            acts[nact++] = (uint32_t)i;
        }
        flows |= launch_flow(e, flow_cat, &notes, &nflows, &flows_cap);
    }
    for (size_t p = 0; p < t->nprocesses; p++)
        if (dev_of[p] != TP_NONE)
            dev_of[p] = (uint32_t)g->ndevices++;
    g->devices = tp_xcalloc(g->ndevices + 1, sizeof *g->devices);
    for (size_t p = 0; p < t->nprocesses; p++)
        if (dev_of[p] != TP_NONE) {
            tp_gpu_device *d = &g->devices[dev_of[p]];
            d->process = (uint32_t)p;
            tp_device_label(t, (uint32_t)p, d->label, sizeof d->label);
        }
    /* activities with their classes (communication is set in build, from the classification) */
    act *a = tp_xmalloc((nact + 1) * sizeof *a);
    size_t na = 0;
    flow_ends ends;
    flow_ends_build(&ends, notes, nflows);
    free(notes);
    uint8_t *graph_name = flows ? tp_xcalloc(t->nstr + 1, 1) : NULL;
    for (size_t k = 0; k < nact; k++) {
        uint32_t i = acts[k];
        const tp_event *e = &t->events[i];
        uint8_t cls;
        if (e->kind == TP_KIND_MEMCPY)
            cls = C_MCPY;
        else if (e->kind == TP_KIND_MEMSET)
            cls = C_COMP | C_MSET;
        else
            cls = C_COMP;
        if (!tracelens_linked(t, e, flows, &ends, graph_name))
            cls |= C_UNL;
        int64_t d = e->dur > 0 ? e->dur : 0;
        a[na++] = (act){e->ts, e->ts + d, dev_of[t->tracks[e->track].process], (uint32_t)i, cls, e->kind};
    }
    flow_ends_free(&ends);
    free(graph_name);
    free(acts);
    sort_acts(a, na, 0);
    free(dev_of);
    g->acts = a;
    g->nacts = na;
}

/* The idle gaps of one device's activities (sorted by start): where the
 * next start lies after the latest end so far. */
static void device_gaps(const act *a, size_t n, uint32_t dev, tp_gpu_time *g)
{
    if (n == 0)
        return;
    int64_t end = a[0].e;
    for (size_t k = 1; k < n; k++) {
        if (a[k].s > end) {
            g->gaps[g->ngaps++] = (tp_gpu_gap){end, a[k].s, dev, a[k].ev};
        }
        end = a[k].e > end ? a[k].e : end;
    }
}

void tp_gpu_time_build(const tp_trace *t, const tp_step_figures *sf, const tp_classes *cls, tp_gpu_time *g)
{
    act *a = g->acts;
    size_t na = g->nacts;
    for (size_t i = 0; i < na; i++) /* communication: whatever the classification says is (a kernel, by name or op) */
        if ((a[i].cls & C_COMP) && !(a[i].cls & C_MSET) && tp_class_is_comm(cls, a[i].ev))
            a[i].cls = (uint8_t)((a[i].cls & ~C_COMP) | C_COMM);
    g->nsteps = sf->nsteps;
    g->gaps = tp_xmalloc((na + 1) * sizeof *g->gaps); /* at most one gap per activity */
    g->ngaps = 0;
    g->dev_steps = tp_xcalloc(g->ndevices * sf->nsteps + 1, sizeof *g->dev_steps);
    g->steps = tp_xcalloc(sf->nsteps + 1, sizeof *g->steps);
    for (size_t dv = 0; dv < g->ndevices; dv++)
        g->devices[dv].steps = g->dev_steps + dv * sf->nsteps;
    /* each device's windows: its own steps (XPlane), else the host steps */
    win *w = tp_xmalloc((sf->nsteps + 1) * sizeof *w);
    for (size_t dv = 0, i = 0; dv < g->ndevices; dv++) {
        tp_gpu_device *d = &g->devices[dv];
        size_t j = i;
        while (j < na && a[j].dev == dv)
            j++;
        size_t nw = 0;
        for (size_t k = 0; k < sf->nsteps; k++)
            if (tp_step_device(t, &sf->steps[k]) == d->process)
                w[nw++] = (win){sf->steps[k].ts, sf->steps[k].ts + sf->steps[k].host_ns, (uint32_t)k};
        if (nw == 0)
            for (size_t k = 0; k < sf->nsteps; k++)
                if (tp_step_device(t, &sf->steps[k]) == TP_NONE)
                    w[nw++] = (win){sf->steps[k].ts, sf->steps[k].ts + sf->steps[k].host_ns, (uint32_t)k};
        sort_wins(w, nw, 0);
        for (size_t k = 1; k < nw; k++) /* disjoint: a window starts where the previous ended, at the earliest */
            if (w[k].s < w[k - 1].e)
                w[k].s = w[k - 1].e < w[k].e ? w[k - 1].e : w[k].e;
        if (j > i) {
            d->start_ns = a[i].s;
            d->end_ns = a[i].e;
            for (size_t k = i; k < j; k++)
                d->end_ns = a[k].e > d->end_ns ? a[k].e : d->end_ns;
        }
        sweep_device(a + i, j - i, 0, w, nw, &d->whole, d->steps);
        device_gaps(a + i, j - i, (uint32_t)dv, g);
        tp_gpu_figs scratch_whole = {0};
        tp_gpu_figs *scratch = tp_xcalloc(sf->nsteps + 1, sizeof *scratch);
        sweep_device(a + i, j - i, C_UNL, w, nw, &scratch_whole, scratch);
        free(scratch);
        d->linked = scratch_whole;
        d->outside = d->whole;
        for (size_t k = 0; k < sf->nsteps; k++)
            figs_sub(&d->outside, &d->steps[k]);
        figs_add(&g->whole, &d->whole);
        figs_add(&g->linked, &d->linked);
        figs_add(&g->outside, &d->outside);
        for (size_t k = 0; k < sf->nsteps; k++)
            figs_add(&g->steps[k], &d->steps[k]);
        i = j;
    }
    free(w);
    free(a);
    g->acts = NULL;
    g->nacts = 0;
}

void tp_gpu_time_free(tp_gpu_time *g)
{
    free(g->acts);
    free(g->gaps);
    free(g->devices);
    free(g->dev_steps);
    free(g->steps);
    memset(g, 0, sizeof *g);
}
