/* idle.c: idle attribution and launch statistics per device stream (idle.h). */
#include "report/analysis/idle.h"
#include "report/analysis/attribution.h"
#include "report/analysis/kernel_table.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    int64_t s;   /* start */
    int64_t ls;  /* launch call start, INT64_MAX without one */
    uint32_t ev; /* event index */
} item;

/* by start, then the earliest launched first: a gap is the host's fault only
 * when every activity that ends it was launched after it began */
#define ITEM_LESS(x, y, c) ((x)->s != (y)->s ? (x)->s < (y)->s : (x)->ls < (y)->ls)
TP_SORT_DEFINE(sort_items, item, int, ITEM_LESS)
#define I64_LESS(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_i64, int64_t, int, I64_LESS)

typedef struct scratch {
    int64_t *delay, *tmp, *lstart, *astart;
    uint8_t *graph; /* name id -> 0 not looked at, 1 not a graph launch, 2 a graph launch */
} scratch;

static bool graph_launch(const tp_trace *t, scratch *sc, tp_str name)
{
    if (!sc->graph[name])
        sc->graph[name] = tp_is_graph_launch(tp_str_get(t, name)) ? 2 : 1;
    return sc->graph[name] == 2;
}

static void add_gap(tp_idle_stream *r, const tp_event *next_launch, int64_t from, int64_t to)
{
    int64_t g = to - from;
    r->gaps++;
    r->idle_ns += g;
    if (next_launch && next_launch->ts > from) {
        r->host_wait_ns += g;
        r->host_wait_gaps++;
    } else if (g < TP_IDLE_SHORT_GAP_NS) {
        r->kernel_wait_ns += g;
        r->kernel_wait_gaps++;
    } else {
        r->other_ns += g;
        r->other_gaps++;
    }
}

/* the largest number of [lstart, astart) intervals open at once; both sorted,
 * an interval ending at x is closed before one starting at x opens */
static uint64_t queue_max(const int64_t *lstart, const int64_t *astart, size_t n)
{
    uint64_t q = 0, max = 0;
    for (size_t i = 0, j = 0; j < n;) {
        if (i < n && astart[i] <= lstart[j]) {
            q--;
            i++;
        } else {
            q++;
            j++;
            if (q > max)
                max = q;
        }
    }
    return max;
}

static bool sorted_items(const item *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (ITEM_LESS(&a[i], &a[i - 1], 0))
            return false;
    return true;
}

static bool sorted_i64(const int64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i] < a[i - 1])
            return false;
    return true;
}

static void stream_figures(const tp_trace *t, item *a, size_t n, scratch *sc, tp_idle_stream *r)
{
    if (!sorted_items(a, n))
        sort_items(a, n, 0);
    r->activities = n;
    size_t nl = 0, nq = 0;
    int64_t end = INT64_MIN, window = a[0].s;
    for (size_t i = 0; i < n; i++) {
        const tp_event *e = &t->events[a[i].ev];
        const tp_event *l = e->link != TP_NONE ? &t->events[e->link] : NULL;
        int64_t s = a[i].s, ee = s + (e->dur > 0 ? e->dur : 0);
        if (i == 0)
            r->start_ns = s;
        else if (s > end)
            add_gap(r, l, end, s);
        if (ee > end)
            end = ee;
        if (!l || graph_launch(t, sc, l->name))
            continue;
        int64_t d = s - (l->ts + (l->dur > 0 ? l->dur : 0));
        if (d < 0) {
            r->clipped++;
            d = 0;
        }
        sc->delay[nl++] = d;
        if (s > l->ts) {
            r->queue_wait_ns += s - l->ts;
            if (l->ts < window)
                window = l->ts;
            sc->lstart[nq] = l->ts;
            sc->astart[nq++] = s;
        }
    }
    r->end_ns = end;
    r->busy_ns = end - r->start_ns - r->idle_ns;
    r->queue_window_ns = end - window;
    r->launched = nl;
    if (nl) {
        tp_sort_nonneg(sc->delay, nl, sc->tmp);
        r->delay_p50_ns = tp_percentile(sc->delay, nl, 50);
        r->delay_p90_ns = tp_percentile(sc->delay, nl, 90);
        r->delay_max_ns = sc->delay[nl - 1];
    }
    /* launch calls of one thread come in time order: sorting is rarely needed */
    if (!sorted_i64(sc->lstart, nq))
        sort_i64(sc->lstart, nq, 0);
    r->queue_max = queue_max(sc->lstart, sc->astart, nq);
}

void tp_idle_build(const tp_trace *t, const tp_host_tree *ht, const tp_step_figures *sf, tp_idle *out)
{
    memset(out, 0, sizeof *out);
    out->n = sf->nstreams;
    out->streams = tp_xcalloc(sf->nstreams + 1, sizeof *out->streams);
    if (!sf->nstreams)
        return;
    /* track -> stream index */
    uint32_t *stream_of = tp_xmalloc((t->ntracks + 1) * sizeof *stream_of);
    for (size_t k = 0; k < t->ntracks; k++)
        stream_of[k] = TP_NONE;
    for (size_t i = 0; i < sf->nstreams; i++) {
        out->streams[i].track = sf->streams[i];
        out->streams[i].process = t->tracks[sf->streams[i]].process;
        stream_of[sf->streams[i]] = (uint32_t)i;
    }
    for (size_t k = 0; k < t->ntracks; k++)
        stream_of[k] = stream_of[ht->logical[k]];
    /* the activities in event order (one pass over the events), then
     * bucketed by stream */
    item *all = NULL;
    uint32_t *st_of = NULL;
    size_t total = 0, cap = 0, cap2 = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        uint32_t st;
        if (!tp_is_device_activity(e) || (st = stream_of[e->track]) == TP_NONE)
            continue;
        TP_GROW(all, cap, total + 1);
        TP_GROW(st_of, cap2, total + 1);
        all[total] = (item){e->ts, e->link != TP_NONE ? t->events[e->link].ts : INT64_MAX, (uint32_t)i};
        st_of[total++] = st;
    }
    size_t *first = tp_xcalloc(sf->nstreams + 2, sizeof *first);
    for (size_t i = 0; i < total; i++)
        first[st_of[i] + 2]++;
    size_t most = 0;
    for (size_t i = 0; i < sf->nstreams; i++) {
        most = first[i + 2] > most ? first[i + 2] : most;
        first[i + 2] += first[i + 1];
    }
    item *a = tp_xmalloc((total + 1) * sizeof *a);
    for (size_t i = 0; i < total; i++)
        a[first[st_of[i] + 1]++] = all[i];
    free(all);
    free(st_of);
    free(stream_of);
    scratch sc;
    sc.delay = tp_xmalloc((most + 1) * sizeof *sc.delay);
    sc.tmp = tp_xmalloc((most + 1) * sizeof *sc.tmp);
    sc.lstart = tp_xmalloc((most + 1) * sizeof *sc.lstart);
    sc.astart = tp_xmalloc((most + 1) * sizeof *sc.astart);
    sc.graph = tp_xcalloc(t->nstr + 1, 1);
    for (size_t i = 0; i < sf->nstreams; i++)
        if (first[i + 1] > first[i])
            stream_figures(t, a + first[i], first[i + 1] - first[i], &sc, &out->streams[i]);
    free(sc.delay);
    free(sc.tmp);
    free(sc.lstart);
    free(sc.astart);
    free(sc.graph);
    free(a);
    free(first);
}

void tp_idle_free(tp_idle *d)
{
    free(d->streams);
    memset(d, 0, sizeof *d);
}
