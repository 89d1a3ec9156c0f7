/* rank_before.c: what a rank did in each step before its first collective
 * call (rank_sum.h tp_rank_before), for the job's straggler evidence: the
 * reduce knows which rank arrived last, only the map has the trace.
 *
 * One pass over the events: O(events x log steps), plus a hash of
 * (step, name) sums and a selection of the top TP_RANK_BEFORE_TOP per step. */
#include "report/job/rank_sum.h"
#include "convert/base/i64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct win {
    int64_t start, end; /* trace clock: [step start, its first collective call's start) */
    size_t step;        /* index into sf.steps */
    size_t out;         /* index into r->before */
} win;

typedef struct acc {
    size_t out;         /* index into r->before */
    tp_str name;
    bool device;        /* a device activity (else a host op) */
    int64_t ns;
} acc;

static void fill(const tp_summary *s, const win *w, size_t nw, tp_rank_before *out, size_t nout);

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_win(const void *a, const void *b)
{
    const win *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The window holding time `at`: the last starting at or before it, when it
 * has not ended (the windows are disjoint: see tp_rank_before_build). */
static const win *win_at(const win *w, size_t n, int64_t at)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w[mid].start <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && at < w[lo - 1].end ? &w[lo - 1] : NULL;
}

/* Time of [s, e) inside the window. */
static int64_t clip(const win *w, int64_t s, int64_t e)
{
    int64_t a = s > w->start ? s : w->start, b = e < w->end ? e : w->end;
    return b > a ? b - a : 0;
}

static void add(tp_i64map *m, acc **v, size_t *n, size_t *cap, const win *w, tp_str name, bool device, int64_t ns)
{
    if (ns <= 0)
        return;
    int64_t key = (int64_t)((uint64_t)w->out << 33 | (uint64_t)device << 32 | name);
    uint32_t at = tp_i64map_get(m, key);
    if (at == TP_I64MAP_EMPTY) {
        TP_GROW(*v, *cap, *n + 1);
        (*v)[*n] = (acc){w->out, name, device, 0};
        at = (uint32_t)(*n)++;
        tp_i64map_put(m, key, at);
    }
    (*v)[at].ns = tp_sat_add((*v)[at].ns, ns);
}

/* Keep item x in top (largest ns first; ties: the lower name id, which is first seen in the trace). */
static void keep(const acc *x, const acc **who)
{
    int k = TP_RANK_BEFORE_TOP;
    while (k > 0 && (!who[k - 1] || x->ns > who[k - 1]->ns || (x->ns == who[k - 1]->ns && x->name < who[k - 1]->name)))
        k--;
    if (k >= TP_RANK_BEFORE_TOP)
        return;
    memmove(who + k + 1, who + k, (size_t)(TP_RANK_BEFORE_TOP - 1 - k) * sizeof *who);
    who[k] = x;
}

/* A name for the summary: at most 1,024 bytes (a templated kernel name is
 * rarely over 2,000; the summary stays a few items a step, whatever a trace
 * holds), cut at a UTF-8 character boundary. */
static char *name_of(const tp_trace *t, tp_str id)
{
    const char *n = tp_str_get(t, id);
    size_t len = strlen(n);
    if (len > 1024) {
        len = 1024;
        while (len > 0 && ((unsigned char)n[len] & 0xC0) == 0x80)
            len--;
    }
    return tp_xstrndup(n, len);
}

void tp_rank_before_build(const tp_summary *s, tp_rank_sum *r)
{
    const tp_step_figures *sf = &s->sf;
    const tp_collectives *c = &s->coll;
    /* the calls' starts, sorted (the list is by start; sorted again when it is not, to be sure) */
    int64_t *starts = tp_xmalloc((c->nlist + 1) * sizeof *starts);
    for (size_t i = 0; i < c->nlist; i++)
        starts[i] = c->list[i].ts;
    for (size_t i = 1; i < c->nlist; i++)
        if (starts[i] < starts[i - 1]) {
            qsort(starts, c->nlist, sizeof *starts, cmp_i64);
            break;
        }
    win *w = tp_xmalloc((sf->nsteps + 1) * sizeof *w);
    size_t nw = 0;
    r->before = tp_xcalloc(sf->nsteps + 1, sizeof *r->before);
    for (size_t i = 0; i < sf->nsteps; i++) {
        const tp_step_row *st = &sf->steps[i];
        int64_t end = st->ts + st->host_ns;
        size_t lo = 0, hi = c->nlist; /* the first call starting at or after the step's start */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (starts[mid] < st->ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == c->nlist || starts[lo] >= end) /* no collective in the step: nothing to arrive late at */
            continue;
        if (r->nbefore && r->before[r->nbefore - 1].number == st->step)
            continue; /* a step number twice: the first counts, as in the job */
        w[nw] = (win){st->ts, starts[lo], i, r->nbefore};
        r->before[r->nbefore++] = (tp_rank_before){.number = st->step, .window_ns = starts[lo] - st->ts};
        nw++;
    }
    free(starts);
    qsort(w, nw, sizeof *w, cmp_win);
    /* steps of one rank do not overlap; when a trace's do, a window ends where the next begins, so the
     * windows are disjoint and sorted: each event and gap is found by a binary search and a gap walks
     * only the windows it overlaps (no steps x gaps on crafted steps) */
    for (size_t k = 0; k + 1 < nw; k++)
        if (w[k].end > w[k + 1].start)
            w[k].end = w[k + 1].start;
    for (size_t k = 0; k < nw; k++)
        r->before[w[k].out].window_ns = w[k].end - w[k].start;
    fill(s, w, nw, r->before, r->nbefore);
    free(w);
}

void tp_rank_window_contents(const tp_summary *s, const int64_t (*span)[2], size_t n, tp_rank_before *out)
{
    win *w = tp_xmalloc((n + 1) * sizeof *w);
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        out[i].window_ns = span[i][1] > span[i][0] ? span[i][1] - span[i][0] : 0;
        if (out[i].window_ns > 0)
            w[nw++] = (win){span[i][0], span[i][1], 0, i};
    }
    qsort(w, nw, sizeof *w, cmp_win);
    for (size_t k = 0; k + 1 < nw; k++) /* disjoint, as above (two windows of one rank rarely meet) */
        if (w[k].end > w[k + 1].start)
            w[k].end = w[k + 1].start;
    fill(s, w, nw, out, n);
    free(w);
}

/* The kernels (communication left out), top-level host ops and GPU idle of
 * each window (sorted, disjoint) into out[w.out]. */
static void fill(const tp_summary *s, const win *w, size_t nw, tp_rank_before *out, size_t nout)
{
    const tp_trace *t = s->t;
    if (!nw)
        return;
    tp_i64map m = {0};
    acc *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || (e->flags & (TP_EV_DROPPED | TP_EV_DERIVED)) || e->dur <= 0)
            continue;
        bool device = e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET;
        bool host = e->kind == TP_KIND_HOST_OP && s->ht.top && s->ht.top[i] == i; /* top-level ops: no nesting twice */
        if (device && tp_class_is_comm(&s->cls, (uint32_t)i))
            continue;
        if (!device && !host)
            continue;
        /* an activity may start before the window and run into it: the window it ends in, else the one it starts in */
        int64_t end = tp_sat_add(e->ts, e->dur);
        const win *x = win_at(w, nw, e->ts);
        const win *y = win_at(w, nw, end - 1);
        if (x)
            add(&m, &v, &n, &cap, x, e->name, device, clip(x, e->ts, end));
        if (y && y != x)
            add(&m, &v, &n, &cap, y, e->name, device, clip(y, e->ts, end));
    }
    tp_i64map_free(&m);
    /* the top items of each window */
    const acc **who = tp_xcalloc(nout * 2 * TP_RANK_BEFORE_TOP + 1, sizeof *who);
    for (size_t i = 0; i < n; i++)
        keep(&v[i], who + (v[i].out * 2 + v[i].device) * TP_RANK_BEFORE_TOP);
    for (size_t b = 0; b < nout; b++)
        for (int k = 0; k < TP_RANK_BEFORE_TOP; k++) {
            const acc *op = who[(b * 2) * TP_RANK_BEFORE_TOP + k], *dv = who[(b * 2 + 1) * TP_RANK_BEFORE_TOP + k];
            if (op)
                out[b].ops[k] = (tp_rank_named){name_of(t, op->name), op->ns};
            if (dv)
                out[b].kernels[k] = (tp_rank_named){name_of(t, dv->name), dv->ns};
        }
    free(who);
    free(v);
    /* the GPU idle in each window: the device gaps (every device's) clipped to it */
    for (size_t i = 0; i < s->gt.ngaps; i++) {
        const tp_gpu_gap *g = &s->gt.gaps[i];
        /* a gap may span several windows: walk them from the one holding its start */
        size_t lo = 0, hi = nw;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (w[mid].end <= g->start_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < nw && w[k].start < g->end_ns; k++)
            out[w[k].out].idle_ns = tp_sat_add(out[w[k].out].idle_ns, clip(&w[k], g->start_ns, g->end_ns));
    }
}
