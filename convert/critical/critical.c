/* critical.c: the windows and the paths of a trace (critical.h). */
#include "convert/critical/cp_prep.h"

#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

const char *tp_cp_edge_name(int type)
{
    static const char *const names[TP_CPE_COUNT] = {"operator", "dependency", "launch_delay", "kernel_kernel_delay",
                                                    "sync"};
    return type >= 0 && type < TP_CPE_COUNT ? names[type] : "?";
}

const char *tp_cp_bound_name(int bound)
{
    static const char *const names[TP_CPB_COUNT] = {"cpu_op", "data_loading", "launch_delay",
                                                    "kernel", "communication", "memcpy",
                                                    "kernel_gap", "sync", "outside_path"};
    return bound >= 0 && bound < TP_CPB_COUNT ? names[bound] : "?";
}

static bool usable(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED));
}

/* The profiler's own span (Kineto's "PyTorch Profiler (0)", category
 * Trace) is no slice of the whole-trace window (as report/analysis steps). */
static bool profiler_span(const tp_trace *t, const tp_event *e)
{
    if (tp_str_len(t, e->cat) == 5 && memcmp(tp_str_get(t, e->cat), "Trace", 5) == 0)
        return true;
    return strncmp(tp_str_get(t, e->name), "PyTorch Profiler (", 18) == 0;
}

static int cmp_window_step(const void *a, const void *b)
{
    const tp_cp_window *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->ws != y->ws)
        return x->ws < y->ws ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

static int cmp_window_start(const void *a, const void *b)
{
    const tp_cp_window *x = a, *y = b;
    if (x->ws != y->ws)
        return x->ws < y->ws ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

int tp_cp_windows(const tp_trace *t, const char *spec, tp_cp_window **out, size_t *n, char *err, size_t errn)
{
    *out = NULL;
    *n = 0;
    tp_cp_window *w = NULL;
    size_t nw = 0, cap = 0;
    bool steps_too = true;
    /* HTA's annotation "": the whole trace, whatever the instance ("#5" took
     * the sixth event of any name, a kernel or an aten::empty) */
    if (spec && (!spec[0] || (spec[0] == '#' && spec[1] && strspn(spec + 1, "0123456789") == strlen(spec + 1))))
        spec = NULL, steps_too = false;
    if (spec) {
        /* NAME[#N]: the last '#' followed by digits only is the instance */
        size_t len = strlen(spec);
        int64_t inst = 0;
        const char *hash = strrchr(spec, '#');
        if (hash && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1) && strlen(hash + 1) <= 9) {
            inst = atoll(hash + 1);
            len = (size_t)(hash - spec);
        }
        for (size_t i = 0; i < t->nevents; i++) {
            const tp_event *e = &t->events[i];
            if (!usable(e) || tp_str_len(t, e->name) < len)
                continue;
            const char *name = tp_str_get(t, e->name);
            if (len && !memmem(name, tp_str_len(t, e->name), spec, len))
                continue;
            TP_GROW(w, cap, nw + 1);
            w[nw++] = (tp_cp_window){e->ts, tp_sat_add(e->ts, e->dur), -1, (uint32_t)i};
        }
        if (nw)
            qsort(w, nw, sizeof *w, cmp_window_start);
        if ((size_t)inst >= nw) {
            snprintf(err, errn, "--critical-path-window: %.*s has %zu instance%s (asked for #%lld, counted from 0)",
                     (int)(len > 200 ? 200 : len), spec, nw, nw == 1 ? "" : "s", (long long)inst);
            free(w);
            return -1;
        }
        w[0] = w[inst];
        *out = w;
        *n = 1;
        return 0;
    }
    for (size_t i = 0; steps_too && i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if ((e->flags & TP_EV_STEP) && usable(e)) {
            TP_GROW(w, cap, nw + 1);
            w[nw++] = (tp_cp_window){e->ts, tp_sat_add(e->ts, e->dur), (int64_t)e->id, (uint32_t)i};
        }
    }
    if (nw) {
        /* one window per step number (its first), in step order */
        qsort(w, nw, sizeof *w, cmp_window_step);
        size_t kept = 0;
        for (size_t k = 0; k < nw; k++)
            if (!kept || w[k].step != w[kept - 1].step)
                w[kept++] = w[k];
        *out = w;
        *n = kept;
        return 0;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!usable(e) || profiler_span(t, e))
            continue;
        lo = e->ts < lo ? e->ts : lo;
        int64_t end = tp_sat_add(e->ts, e->dur);
        hi = end > hi ? end : hi;
    }
    if (lo > hi)
        return 0; /* no slice: no window */
    w = tp_xmalloc(sizeof *w);
    w[0] = (tp_cp_window){lo, hi, -1, TP_NONE};
    *out = w;
    *n = 1;
    return 0;
}

/* Windows may overlap (steps that each span the trace: 3,000 such steps
 * over 33,000 events took 16 s and 7 GB, every window's graph being the
 * whole trace).  The windows' graphs together take at most 4 times the
 * trace's candidates plus 2^20, in window order; a window past that gets
 * no path (skipped, said in summary.json).  Windows that do not overlap
 * never reach it.  skip[i] set for those. */
static void plan_windows(const cp_prep *p, const tp_cp_window *w, size_t n, bool *skip)
{
    uint64_t budget = 4 * ((uint64_t)p->nhost + p->ndev) + (1u << 20), spent = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t size = cp_window_size(p, &w[i]);
        skip[i] = spent + size > budget;
        if (!skip[i])
            spent += size;
    }
}

void tp_critical_build(const tp_trace *t, const tp_cp_window *w, size_t n, const uint32_t *logical, tp_critical *c)
{
    memset(c, 0, sizeof *c);
    if (!n)
        return;
    cp_prep p;
    cp_prep_build(t, logical, &p);
    p.keep_links = true;
    c->paths = tp_xcalloc(n, sizeof *c->paths);
    c->n = n;
    bool *skip = tp_xcalloc(n, sizeof *skip);
    plan_windows(&p, w, n, skip);
    for (size_t i = 0; i < n; i++)
        if (skip[i])
            cp_path_skipped(&w[i], &c->paths[i]);
        else
            cp_path_window(&p, &w[i], &c->paths[i]);
    free(skip);
    cp_prep_free(&p);
}

struct tp_cp_lanes {
    cp_prep p;
    cp_prep lane[2]; /* p with the lane's own ev2local and last_of */
    tp_cp_window *w;
    bool *skip; /* plan_windows */
    size_t n;
    tp_critical *c;
    _Atomic size_t next; /* the next window to take: each lane takes one when it is free */
};

tp_cp_lanes *tp_critical_begin(const tp_trace *t, const tp_cp_window *w, size_t n, const uint32_t *logical,
                               bool keep_links, tp_critical *c)
{
    memset(c, 0, sizeof *c);
    tp_cp_lanes *l = tp_xcalloc(1, sizeof *l);
    l->c = c;
    l->n = n;
    if (!n)
        return l;
    l->w = tp_xmalloc(n * sizeof *l->w);
    memcpy(l->w, w, n * sizeof *w);
    cp_prep_build(t, logical, &l->p);
    l->p.keep_links = keep_links;
    c->paths = tp_xcalloc(n, sizeof *c->paths);
    c->n = n;
    l->skip = tp_xcalloc(n, sizeof *l->skip);
    plan_windows(&l->p, w, n, l->skip); /* before the lanes: the same windows on one thread or two */
    for (int k = 0; k < 2; k++) {
        l->lane[k] = l->p;
        /* lane 0 uses p's arrays, lane 1 its own; one window is computed by one lane only: then both use
         * p's (lane 1's were 4 bytes an event of the trace, never touched by two lanes at once) */
        if (k && n > 1) {
            l->lane[k].ev2local = tp_xcalloc(t->nevents + 1, sizeof *l->lane[k].ev2local);
            l->lane[k].last_of = tp_xmalloc((t->ntracks + 1) * sizeof *l->lane[k].last_of);
            memset(l->lane[k].last_of, 0xff, (t->ntracks + 1) * sizeof *l->lane[k].last_of);
        }
    }
    return l;
}

void tp_critical_lane(tp_cp_lanes *l, int lane)
{
    /* windows taken in turn by whichever lane is free (the lanes end jobs of unequal length): each window's path is
     * the same whichever lane makes it (the lanes differ only in their scratch arrays) */
    for (size_t i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
        if (l->skip[i])
            cp_path_skipped(&l->w[i], &l->c->paths[i]);
        else
            cp_path_window(&l->lane[lane], &l->w[i], &l->c->paths[i]);
}

void tp_critical_end(tp_cp_lanes *l)
{
    if (!l)
        return;
    if (l->n > 1) {
        free(l->lane[1].ev2local);
        free(l->lane[1].last_of);
    }
    if (l->n) {
        cp_prep_free(&l->p);
    }
    free(l->w);
    free(l->skip);
    free(l);
}

void tp_critical_free(tp_critical *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->paths[i].links);
    free(c->paths);
    memset(c, 0, sizeof *c);
}
