/* steps.c: per-step host time, device busy time, overlap and idle time. */
#include "report/analysis/steps.h"
#include "report/analysis/attribution.h"
#include "convert/base/sort.h"
#include "convert/model/tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ival {
    uint32_t bucket; /* step index, or nsteps for the whole trace */
    uint32_t stream; /* index into streams */
    int64_t s, e;
} ival;

/* a device activity of one stream: its interval and its step (TP_NONE: none) */
typedef struct dact {
    int64_t s, e;
    uint32_t step;
} dact;

#define DACT_LESS(x, y, c) ((x)->s != (y)->s ? (x)->s < (y)->s : (x)->e < (y)->e)
TP_SORT_DEFINE(sort_dacts, dact, int, DACT_LESS)

typedef struct edge {
    int64_t at;
    int d; /* +1 start, -1 end */
} edge;

/* ends before starts at the same time */
#define EDGE_LESS(x, y, c) ((x)->at != (y)->at ? (x)->at < (y)->at : (x)->d < (y)->d)
TP_SORT_DEFINE(sort_edges, edge, int, EDGE_LESS)

static int cmp_step_num(const void *a, const void *b)
{
    const tp_step_row *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

typedef struct med_ctx {
    const tp_step_row *rows;
} med_ctx;

static int cmp_median(const void *a, const void *b, void *vc)
{
    const tp_step_row *r = ((const med_ctx *)vc)->rows;
    const tp_step_row *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];
    if (x->host_ns != y->host_ns)
        return x->host_ns < y->host_ns ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

uint32_t tp_step_device(const tp_trace *t, const tp_step_row *r)
{
    if (r->event == TP_NONE)
        return TP_NONE;
    uint32_t p = t->tracks[t->events[r->event].track].process;
    return t->processes[p].is_device ? p : TP_NONE;
}

bool tp_step_holds(const tp_trace *t, const tp_step_row *r, const tp_event *e)
{
    uint32_t p = tp_step_device(t, r);
    int64_t when = e->link != TP_NONE ? t->events[e->link].ts : e->ts;
    if (p != TP_NONE) {
        if (t->tracks[e->track].process != p)
            return false;
        when = e->ts;
    }
    return when >= r->ts && when < r->ts + r->host_ns;
}

void tp_step_label(const tp_trace *t, const tp_step_figures *sf, const tp_step_row *r, char *buf, size_t n)
{
    if (r->step < 0) {
        snprintf(buf, n, "whole trace");
        return;
    }
    uint32_t p = tp_step_device(t, r);
    bool shared = false; /* another step with this number (one per device) */
    for (size_t i = 0; p != TP_NONE && i < sf->nsteps && !shared; i++)
        shared = &sf->steps[i] != r && sf->steps[i].step == r->step;
    if (!shared) {
        snprintf(buf, n, "#%lld", (long long)r->step);
        return;
    }
    const char *name = tp_str_get(t, t->processes[p].name);
    if (strncmp(name, "/device:", 8) == 0 && name[8])
        name += 8;
    snprintf(buf, n, "#%lld %s", (long long)r->step, *name ? name : "device");
}

void tp_stream_label(const tp_trace *t, uint32_t track, char *buf, size_t n)
{
    const tp_track *tk = &t->tracks[track];
    const tp_process *p = &t->processes[tk->process];
    char dev[96], th[96];
    if (p->label)
        snprintf(dev, sizeof dev, "%s", tp_str_get(t, p->label));
    else if (p->device >= 0)
        snprintf(dev, sizeof dev, "device %d", (int)p->device);
    else if (p->name)
        snprintf(dev, sizeof dev, "%s", tp_str_get(t, p->name));
    else if (p->pid >= 0)
        snprintf(dev, sizeof dev, "pid %lld", (long long)p->pid);
    else /* Kineto's pid -1 (CUPTI's own overhead): no process, named as convert names it (names.c) */
        snprintf(dev, sizeof dev, "host (no process id)");
    if (tk->name)
        snprintf(th, sizeof th, "%s", tp_str_get(t, tk->name));
    else if (tk->key)
        snprintf(th, sizeof th, "%s", tp_str_get(t, tk->key));
    else
        snprintf(th, sizeof th, "tid %lld", (long long)tk->tid);
    /* trim trailing spaces ("stream 7 ") */
    size_t l = strlen(th);
    while (l && th[l - 1] == ' ')
        th[--l] = 0;
    snprintf(buf, n, "%s %s", dev, th);
}

void tp_step_figures_build(const tp_trace *t, const tp_host_tree *ht, tp_step_figures *sf)
{
    memset(sf, 0, sizeof *sf);
    sf->median = SIZE_MAX;
    const uint32_t *lg = ht->logical;
    /* streams in display order */
    bool *used = tp_xcalloc(t->ntracks + 1, sizeof *used);
    sf->span_start = INT64_MAX;
    sf->span_end = INT64_MIN;
    uint32_t *step_ev = NULL; /* the step events, noted in this pass: no second walk of every event for them */
    /* the device activities (ph 'X', not dropped, kernel, memcpy or memset; derived ones too), noted by the tree's pass */
    const uint32_t *dev = ht->device;
    size_t ndev = ht->ndevice;
    size_t step_cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        /* the profiler's span asked of the slices that would widen the span only (its name compared: not of
         * every slice) */
        if (e->ph == 'X' && !(e->flags & TP_EV_DROPPED) &&
            (e->ts < sf->span_start || e->ts + e->dur > sf->span_end) && !tp_is_profiler_span(t, e)) {
            if (e->ts < sf->span_start)
                sf->span_start = e->ts;
            if (e->ts + e->dur > sf->span_end)
                sf->span_end = e->ts + e->dur;
        }
        if ((e->flags & TP_EV_STEP) && e->ph == 'X' && !(e->flags & TP_EV_DROPPED)) {
            TP_GROW(step_ev, step_cap, sf->nsteps + 1);
            step_ev[sf->nsteps++] = (uint32_t)i;
        }
    }
    for (size_t q = 0; q < ndev; q++)
        used[lg[t->events[dev[q]].track]] = true;
    if (sf->span_start > sf->span_end)
        sf->span_start = sf->span_end = 0;
    uint32_t *order = tp_track_order(t);
    uint32_t *stream_of = tp_xmalloc((t->ntracks + 1) * sizeof *stream_of);
    sf->streams = tp_xmalloc((t->ntracks + 1) * sizeof *sf->streams);
    for (size_t k = 0; k < t->ntracks; k++)
        stream_of[k] = TP_NONE;
    for (size_t k = 0; k < t->ntracks; k++) {
        if (used[order[k]]) {
            stream_of[order[k]] = (uint32_t)sf->nstreams;
            sf->streams[sf->nstreams++] = order[k];
        }
    }
    free(order);
    free(used);
    /* steps */
    sf->steps = tp_xcalloc(sf->nsteps + 1, sizeof *sf->steps);
    for (size_t k = 0; k < sf->nsteps; k++) {
        const tp_event *e = &t->events[step_ev[k]];
        tp_step_row *r = &sf->steps[k];
        r->step = (int64_t)e->id;
        r->event = step_ev[k];
        r->ts = e->ts;
        r->host_ns = e->dur;
    }
    free(step_ev);
    qsort(sf->steps, sf->nsteps, sizeof *sf->steps, cmp_step_num);
    sf->whole.step = -1;
    sf->whole.event = TP_NONE;
    sf->whole.ts = sf->span_start;
    sf->whole.host_ns = sf->span_end - sf->span_start;
    size_t nb = sf->nsteps + 1;
    sf->matrix = tp_xcalloc(nb * (sf->nstreams ? sf->nstreams : 1), sizeof *sf->matrix);
    for (size_t b = 0; b < nb; b++) {
        tp_step_row *r = b < sf->nsteps ? &sf->steps[b] : &sf->whole;
        r->stream_busy = sf->matrix + b * sf->nstreams;
    }
    /* steps by start time for the lookup */
    size_t *by_ts = tp_xmalloc((sf->nsteps + 1) * sizeof *by_ts);
    for (size_t b = 0; b < sf->nsteps; b++)
        by_ts[b] = b;
    for (size_t a = 1; a < sf->nsteps; a++) { /* insertion sort: steps are few and nearly sorted */
        size_t v = by_ts[a], j = a;
        while (j && sf->steps[by_ts[j - 1]].ts > sf->steps[v].ts) {
            by_ts[j] = by_ts[j - 1];
            j--;
        }
        by_ts[j] = v;
    }
    /* steps on a device (XPlane: one per device and group): that device's
     * work belongs to them by its own start, in by_dev (by device, start) */
    bool *dev_has = tp_xcalloc(t->nprocesses + 1, sizeof *dev_has);
    size_t *by_dev = tp_xmalloc((sf->nsteps + 1) * sizeof *by_dev), ndev_steps = 0;
    for (size_t a = 0; a < sf->nsteps; a++) {
        uint32_t p = tp_step_device(t, &sf->steps[by_ts[a]]);
        if (p == TP_NONE)
            continue;
        dev_has[p] = true;
        size_t j = ndev_steps++; /* insertion by process, by_ts keeps the start order */
        while (j && tp_step_device(t, &sf->steps[by_dev[j - 1]]) > p) {
            by_dev[j] = by_dev[j - 1];
            j--;
        }
        by_dev[j] = by_ts[a];
    }
    /* each device's steps: by_dev[dev_lo[p] .. dev_hi[p]) */
    size_t *dev_lo = tp_xcalloc(t->nprocesses + 1, sizeof *dev_lo), *dev_hi = tp_xcalloc(t->nprocesses + 1, sizeof *dev_hi);
    for (size_t a = 0; a < ndev_steps; a++) {
        uint32_t p = tp_step_device(t, &sf->steps[by_dev[a]]);
        if (a == 0 || tp_step_device(t, &sf->steps[by_dev[a - 1]]) != p)
            dev_lo[p] = a;
        dev_hi[p] = a + 1;
    }
    sf->ev_step = tp_xmalloc((t->nevents + 1) * sizeof *sf->ev_step);
    memset(sf->ev_step, 0xff, t->nevents * sizeof *sf->ev_step); /* TP_NONE */
    /* the activities by stream (a counting pass), each stream's by start then end (a stream's work comes in time
     * order: the sort checks it), then spread stably by step: the intervals come out by (step, stream, start, end),
     * the whole trace's last, as one sort of them all gave them, without it (it was a third of the figures' time) */
    size_t *at = tp_xcalloc(sf->nstreams + 2, sizeof *at);
    for (size_t q = 0; q < ndev; q++)
        at[stream_of[lg[t->events[dev[q]].track]] + 1]++;
    for (size_t k = 0; k < sf->nstreams; k++)
        at[k + 1] += at[k];
    dact *da = tp_xmalloc((ndev + 1) * sizeof *da);
    size_t *in_step = tp_xcalloc(sf->nsteps + 2, sizeof *in_step); /* intervals per step, then where each step's go */
    for (size_t q = 0; q < ndev; q++) {
        size_t i = dev[q];
        const tp_event *e = &t->events[i];
        dact *d = &da[at[stream_of[lg[e->track]]]++];
        *d = (dact){e->ts, e->ts + e->dur, TP_NONE};
        sf->whole.device_events++;
        uint32_t proc = t->tracks[e->track].process;
        const size_t *cand = by_ts;
        size_t lo = 0, hi = sf->nsteps, base = 0;
        int64_t when;
        if (dev_has[proc]) { /* the device's own steps, by the activity's own start */
            when = e->ts;
            cand = by_dev;
            lo = base = dev_lo[proc];
            hi = dev_hi[proc];
        } else { /* the host's steps, by the launch (a miss per kernel: only here) */
            when = e->link != TP_NONE ? t->events[e->link].ts : e->ts;
        }
        /* last step starting at or before `when` */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sf->steps[cand[mid]].ts <= when)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == base)
            continue;
        tp_step_row *r = &sf->steps[cand[lo - 1]];
        if (when >= r->ts + r->host_ns)
            continue;
        d->step = (uint32_t)cand[lo - 1];
        in_step[d->step + 1]++;
        r->device_events++;
        sf->ev_step[i] = (uint32_t)cand[lo - 1];
    }
    free(dev_has);
    free(dev_lo);
    free(dev_hi);
    free(by_dev);
    free(by_ts);
    free(stream_of);
    for (size_t k = sf->nstreams; k > 0; k--) /* at[k]: where stream k's activities begin again */
        at[k] = at[k - 1];
    at[0] = 0;
    for (size_t k = 0; k < sf->nstreams; k++)
        sort_dacts(da + at[k], at[k + 1] - at[k], 0);
    for (size_t b = 0; b < sf->nsteps; b++)
        in_step[b + 1] += in_step[b];
    size_t niv = in_step[sf->nsteps] + ndev;
    ival *iv = tp_xmalloc((niv + 1) * sizeof *iv);
    size_t whole_at = in_step[sf->nsteps];
    for (size_t k = 0; k < sf->nstreams; k++)
        for (size_t q = at[k]; q < at[k + 1]; q++) {
            const dact *d = &da[q];
            if (d->step != TP_NONE)
                iv[in_step[d->step]++] = (ival){d->step, (uint32_t)k, d->s, d->e};
            iv[whole_at++] = (ival){(uint32_t)sf->nsteps, (uint32_t)k, d->s, d->e};
        }
    free(at);
    free(in_step);
    free(da);
    /* merge per (bucket, stream) in place */
    size_t nm = 0;
    for (size_t i = 0; i < niv; i++) {
        if (nm && iv[nm - 1].bucket == iv[i].bucket && iv[nm - 1].stream == iv[i].stream && iv[i].s <= iv[nm - 1].e) {
            if (iv[i].e > iv[nm - 1].e)
                iv[nm - 1].e = iv[i].e;
        } else
            iv[nm++] = iv[i];
    }
    edge *ed = tp_xmalloc((2 * nm + 1) * sizeof *ed);
    for (size_t i = 0; i < nm;) {
        size_t j = i;
        uint32_t b = iv[i].bucket;
        tp_step_row *r = b < sf->nsteps ? &sf->steps[b] : &sf->whole;
        size_t ne = 0;
        for (; j < nm && iv[j].bucket == b; j++) {
            r->stream_busy[iv[j].stream] += iv[j].e - iv[j].s;
            ed[ne++] = (edge){iv[j].s, +1};
            ed[ne++] = (edge){iv[j].e, -1};
        }
        sort_edges(ed, ne, 0);
        int level = 0;
        for (size_t k = 0; k < ne; k++) {
            if (k && ed[k].at > ed[k - 1].at) {
                int64_t len = ed[k].at - ed[k - 1].at;
                if (level >= 1)
                    r->busy_ns += len;
                if (level >= 2)
                    r->overlap_ns += len;
            }
            level += ed[k].d;
        }
        i = j;
    }
    free(ed);
    free(iv);
    for (size_t b = 0; b < nb; b++) {
        tp_step_row *r = b < sf->nsteps ? &sf->steps[b] : &sf->whole;
        r->idle_ns = r->host_ns > r->busy_ns ? r->host_ns - r->busy_ns : 0;
    }
    if (sf->nsteps) {
        /* among the steps with device activity when there are any: a
         * near-empty step (a profiler's last, cut short) is no typical one */
        size_t *ix = tp_xmalloc(sf->nsteps * sizeof *ix), n = 0;
        for (size_t b = 0; b < sf->nsteps; b++)
            if (sf->steps[b].device_events)
                ix[n++] = b;
        if (n == 0)
            for (size_t b = 0; b < sf->nsteps; b++)
                ix[n++] = b;
        med_ctx mc = {sf->steps};
        qsort_r(ix, n, sizeof *ix, cmp_median, &mc);
        sf->median = ix[(n - 1) / 2];
        sf->median_of = n;
        free(ix);
        for (size_t b = 0; b < sf->nsteps; b++)
            sf->steps_host_ns += sf->steps[b].host_ns;
    }
}

void tp_step_figures_free(tp_step_figures *sf)
{
    free(sf->streams);
    free(sf->steps);
    free(sf->matrix);
    free(sf->ev_step);
    memset(sf, 0, sizeof *sf);
}

int64_t tp_throughput_milli(const tp_step_figures *sf, int64_t batch_size)
{
    __int128 iters = sf->nsteps ? (__int128)sf->nsteps : 1;
    __int128 ns = sf->nsteps ? sf->steps_host_ns : sf->whole.host_ns;
    if (ns <= 0 || batch_size <= 0)
        return 0;
    __int128 num = (__int128)batch_size * iters * 1000000000000LL;
    return (int64_t)((num + ns / 2) / ns);
}

/* The step spread (steps.h): moved here from report/diff so that summary.md
 * and diff.md state the same median and quartiles. */
/* x + (quarters/4)(y - x), rounded half up, for x <= y; unsigned so that no
 * step of a corrupt trace overflows it. */
static int64_t lerp_quarter(int64_t x, int64_t y, unsigned quarters)
{
    uint64_t d = (uint64_t)y - (uint64_t)x;
    uint64_t add = quarters * (d / 4) + (quarters * (d % 4) + 2) / 4;
    return (int64_t)((uint64_t)x + add);
}

/* (n-1)p for p = 1/4 or 3/4 is a whole index plus 0, 1/4, 1/2 or 3/4. */
static int64_t quantile_q(const int64_t *v, size_t n, size_t num)
{
    size_t pos4 = (n - 1) * num, i = pos4 / 4;
    unsigned frac = (unsigned)(pos4 % 4);
    return frac ? lerp_quarter(v[i], v[i + 1], frac) : v[i];
}

void tp_step_quartiles(const int64_t *sorted, size_t n, int64_t *q1, int64_t *q3)
{
    *q1 = n ? quantile_q(sorted, n, 1) : 0;
    *q3 = n ? quantile_q(sorted, n, 3) : 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void tp_step_spread_of(const tp_step_figures *sf, tp_step_spread *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->n = sf->nsteps;
    if (!sp->n)
        return;
    sp->min = sp->max = sf->steps[0].host_ns;
    for (size_t i = 1; i < sp->n; i++) {
        int64_t v = sf->steps[i].host_ns;
        sp->min = v < sp->min ? v : sp->min;
        sp->max = v > sp->max ? v : sp->max;
    }
    /* the steps the report's median step is taken over (steps.h): a
     * near-empty last step is no typical one, for the spread either */
    int64_t *v = tp_xmalloc(sp->n * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < sp->n; i++)
        if (sf->steps[i].device_events)
            v[k++] = sf->steps[i].host_ns;
    if (!k)
        for (size_t i = 0; i < sp->n; i++)
            v[k++] = sf->steps[i].host_ns;
    qsort(v, k, sizeof *v, cmp_i64);
    sp->median_of = k;
    sp->median = v[(k - 1) / 2]; /* = the report's median step's host_ns */
    tp_step_quartiles(v, k, &sp->q1, &sp->q3);
    sp->iqr = sp->q3 - sp->q1;
    free(v);
}

