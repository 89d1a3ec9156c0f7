/* measures.c: the measure catalogue of the findings (findings.h,
 * docs/REPORT.md "Findings"): each computes its value, impact and evidence
 * from the summary's analyses; nothing here decides whether it is a finding
 * (the rules do). */
#include "report/findings/findings.h"
#include "convert/base/common.h"
#include "render/labels/kname.h"
#include "render/text/units.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_KERNEL_NS 10000 /* "small": under 10 us (findings.rules says why) */
#define TOP_EVIDENCE 3

static const char *const sync_names[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy", "hipDeviceSynchronize",
    "hipStreamSynchronize",  "hipEventSynchronize",   "hipMemcpy",            "aten::_local_scalar_dense",
    "aten::item"};
#define NSYNC (sizeof sync_names / sizeof *sync_names)

static const char *ev_name(const tp_summary *s, uint32_t ev) { return tp_str_get(s->t, s->t->events[ev].name); }

/* "12.346 ms (3.5%)" pieces */
static void dur(char *b, size_t n, int64_t ns) { tp_fmt_dur(b, n, ns); }
static void pct(char *b, size_t n, int64_t part, int64_t whole) { tp_find_pct(b, n, tp_find_milli(part, whole)); }

/* ---- synchronisations: host calls that wait for the device ---- */

typedef tp_find_span span; /* track: the host thread that waits */

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->s != y->s ? (x->s < y->s ? -1 : 1) : (x->e < y->e ? -1 : x->e > y->e);
}

/* by thread, then time: a sync stalls only the thread that called it */
static int span_track_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->track != y->track ? (x->track < y->track ? -1 : 1) : span_cmp(a, b);
}

typedef struct sync_scan {
    span *spans; /* merged per thread, sorted by thread then time */
    size_t n;
    int64_t host_ns; /* union of the sync calls */
    uint64_t count[NSYNC];
    int64_t ns[NSYNC];
    uint32_t issuer[TOP_EVIDENCE]; /* name ids of the ops around the runtime sync calls, by count */
    uint64_t issuer_n[TOP_EVIDENCE];
} sync_scan;

/* One pass over the events for the sync calls (compared by name id). */
static void scan_syncs(const tp_summary *s, sync_scan *o)
{
    const tp_trace *t = s->t;
    memset(o, 0, sizeof *o);
    tp_str ids[NSYNC];
    bool any = false;
    for (size_t k = 0; k < NSYNC; k++) {
        ids[k] = tp_str_find(t, sync_names[k], strlen(sync_names[k]));
        any |= ids[k] != 0;
    }
    if (!any)
        return;
    size_t cap = 0;
    /* issuers: a small table of (op name, count), the top kept */
    tp_str iss[64];
    uint64_t issn[64];
    size_t niss = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if ((e->kind != TP_KIND_RUNTIME && e->kind != TP_KIND_HOST_OP && e->kind != TP_KIND_SYNC) || e->dur <= 0 ||
            (e->flags & TP_EV_DROPPED) || t->tracks[e->track].role != TP_TRACK_HOST)
            continue;
        size_t k = 0;
        while (k < NSYNC && (ids[k] == 0 || ids[k] != e->name))
            k++;
        if (k == NSYNC)
            continue;
        o->count[k]++;
        o->ns[k] += e->dur;
        TP_GROW(o->spans, cap, o->n + 1);
        o->spans[o->n++] = (span){e->ts, e->ts + e->dur, e->track};
        if (e->kind == TP_KIND_RUNTIME && e->op != TP_NONE) {
            tp_str on = t->events[e->op].name;
            size_t j = 0;
            while (j < niss && iss[j] != on)
                j++;
            if (j == niss && niss < 64) {
                iss[niss] = on;
                issn[niss++] = 0;
            }
            if (j < niss)
                issn[j]++;
        }
    }
    if (o->n) /* qsort of a NULL array, even empty, is undefined */
        qsort(o->spans, o->n, sizeof *o->spans, span_cmp); /* the host time: the union over all threads */
    int64_t reach = INT64_MIN;
    for (size_t i = 0; i < o->n; i++) {
        int64_t from = o->spans[i].s > reach ? o->spans[i].s : reach;
        if (o->spans[i].e > from)
            o->host_ns += o->spans[i].e - from;
        if (o->spans[i].e > reach)
            reach = o->spans[i].e;
    }
    if (o->n)
        qsort(o->spans, o->n, sizeof *o->spans, span_track_cmp);
    size_t m = 0;
    for (size_t i = 0; i < o->n; i++) {
        if (m && o->spans[i].track == o->spans[m - 1].track && o->spans[i].s <= o->spans[m - 1].e) {
            if (o->spans[i].e > o->spans[m - 1].e)
                o->spans[m - 1].e = o->spans[i].e;
        } else
            o->spans[m++] = o->spans[i];
    }
    o->n = m;
    for (size_t r = 0; r < TOP_EVIDENCE; r++) { /* the top issuers by count, then first seen */
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < niss; j++)
            if (issn[j] && (best == SIZE_MAX || issn[j] > issn[best]))
                best = j;
        if (best == SIZE_MAX)
            break;
        o->issuer[r] = iss[best];
        o->issuer_n[r] = issn[best];
        issn[best] = 0;
    }
}

/* Whether thread `track` sat in a sync call at time x (spans merged per thread, sorted). */
static bool in_sync_on(const sync_scan *y, uint32_t track, int64_t x)
{
    size_t lo = 0, hi = y->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (y->spans[mid].track < track || (y->spans[mid].track == track && y->spans[mid].e < x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < y->n && y->spans[lo].track == track && y->spans[lo].s <= x;
}

/* The thread that launches the activity ending a gap is the one a sync can hold back: a sync on
 * another thread (an output or logging thread) does not stop it launching.  Without a launch
 * link, any thread's sync counts. */
static bool in_sync(const tp_trace *t, const sync_scan *y, const tp_event *next, int64_t x)
{
    if (next->link != TP_NONE)
        return in_sync_on(y, t->events[next->link].track, x);
    for (size_t i = 0; i < y->n; i++)
        if ((i == 0 || y->spans[i].track != y->spans[i - 1].track) && in_sync_on(y, y->spans[i].track, x))
            return true;
    return false;
}

/* ---- the device's idle gaps, by what the host did (gpu_time.h tp_gpu_gap) ---- */

enum { GAP_SYNC = 0, GAP_HOST, GAP_KERNEL, GAP_OTHER, GAP_DATA };

typedef struct gap_split {
    int64_t ns[5];
    uint64_t n[5];
    size_t top_host[TOP_EVIDENCE]; /* the longest host-wait gaps, indexes into gt.gaps */
    size_t top_sync[TOP_EVIDENCE];
    size_t top_data[TOP_EVIDENCE];
    size_t ntop_host, ntop_sync, ntop_data;
    uint64_t launched; /* gaps whose next activity has a launch call */
    /* what the launching thread ran during the host-wait gaps: its top-level ops by the time they
     * overlap the gaps (before the late launch call), the largest first */
    tp_str fill_name[TOP_EVIDENCE];
    int64_t fill_ns[TOP_EVIDENCE];
    size_t nfill;
    int64_t fill_total; /* of the host-wait time, inside a top-level op of the launching thread */
    int64_t *step_ns[5]; /* per step of s->sf (the gaps clipped to the step windows), NULL without steps */
} gap_split;

/* Adds the time top-level op ev overlaps [a, b) to its name's sum. */
static void fill_add(const tp_trace *t, uint32_t ev, int64_t a, int64_t b, tp_i64map *ix, tp_str *names, int64_t *ns,
                     size_t *n, size_t cap)
{
    const tp_event *e = &t->events[ev];
    int64_t s0 = e->ts > a ? e->ts : a, s1 = e->ts + e->dur < b ? e->ts + e->dur : b;
    if (s1 <= s0)
        return;
    uint32_t k = tp_i64map_get(ix, e->name);
    if (k == TP_I64MAP_EMPTY && *n < cap) {
        k = (uint32_t)(*n)++;
        names[k] = e->name;
        ns[k] = 0;
        tp_i64map_put(ix, e->name, k);
    }
    if (k != TP_I64MAP_EMPTY)
        ns[k] += s1 - s0;
}

/* The top-level ops of the launch call's thread that overlap [a, b): the
 * host's work while the device waited.  Top-level ops of one thread do not
 * nest, so walking the thread's slices back from the launch call (by start)
 * meets every top-level op that starts in the window; the first slice that
 * starts before a ends the walk: it is a top-level op, or nested in the one
 * top-level op that can still overlap a (any other starting before a would
 * have been met first).  O(the slices in the window): a thread whose slices
 * all sit under one long range (an NVTX range, a Python frame) no longer
 * walks back to its first slice for every gap. */
static void fill_ops(const tp_summary *s, uint32_t launch, int64_t a, int64_t b, tp_i64map *ix, tp_str *names,
                     int64_t *ns, size_t *n, size_t cap)
{
    const tp_trace *t = s->t;
    const tp_host_tree *ht = &s->ht;
    if (!ht->pos || ht->pos[launch] == TP_NONE || b <= a)
        return;
    uint32_t lt = ht->logical[t->events[launch].track];
    for (uint32_t p = ht->pos[launch] + 1; p-- > 0;) {
        uint32_t ev = ht->order[p];
        const tp_event *e = &t->events[ev];
        if (ht->logical[e->track] != lt)
            break; /* the thread's first slice passed */
        if (e->ts < a) {
            if (ht->top[ev] != TP_NONE) /* none: no op starting before a can overlap it */
                fill_add(t, ht->top[ev], a, b, ix, names, ns, n, cap);
            break;
        }
        if (ht->top[ev] == ev) /* only the top-level ops themselves */
            fill_add(t, ev, a, b, ix, names, ns, n, cap);
    }
}

static void top_insert(const tp_gpu_gap *gaps, size_t *top, size_t *n, size_t g)
{
    int64_t len = gaps[g].end_ns - gaps[g].start_ns;
    size_t at = *n;
    while (at > 0 && gaps[top[at - 1]].end_ns - gaps[top[at - 1]].start_ns < len)
        at--;
    if (at >= TOP_EVIDENCE)
        return;
    size_t last = *n < TOP_EVIDENCE ? *n : TOP_EVIDENCE - 1;
    for (size_t k = last; k > at; k--)
        top[k] = top[k - 1];
    top[at] = g;
    if (*n < TOP_EVIDENCE)
        (*n)++;
}

/* The part of a gap the host spent in the dataloader is the input
 * pipeline's (the host was fetching the next batch, not launching).  The
 * rest is the sync's when the gap starts inside a synchronisation (the host
 * was waiting when the device ran dry, so it launched nothing ahead); else
 * the host's when the next activity's launch call began after the gap began
 * (as idle.h's host wait); else a short gap (< 30 us) between launches
 * already made is the kernels' own launch cost; else other. */
#define FILL_NAMES 4096 /* distinct top-level op names counted; more are left out of the evidence only */

static void split_gaps(const tp_summary *s, const sync_scan *y, const tp_find_data *dl, gap_split *o)
{
    const tp_trace *t = s->t;
    memset(o, 0, sizeof *o);
    const tp_gpu_time *g = &s->gt;
    tp_find_wins wins;
    tp_find_wins_build(s, &wins);
    for (int k = 0; k < 5 && s->sf.nsteps; k++)
        o->step_ns[k] = tp_xcalloc(s->sf.nsteps, sizeof *o->step_ns[k]);
    tp_i64map fix = {0};
    tp_str *fname = tp_xmalloc(FILL_NAMES * sizeof *fname);
    int64_t *fns = tp_xmalloc(FILL_NAMES * sizeof *fns);
    size_t nf = 0;
    for (size_t i = 0; i < g->ngaps; i++) {
        const tp_gpu_gap *gp = &g->gaps[i];
        int64_t len = gp->end_ns - gp->start_ns;
        const tp_event *next = &t->events[gp->next];
        bool launched = next->link != TP_NONE;
        o->launched += launched;
        int64_t data = dl->n ? tp_find_overlap(dl->spans, dl->n, gp->start_ns, gp->end_ns) : 0;
        if (data > 0) {
            o->ns[GAP_DATA] += data;
            o->n[GAP_DATA]++;
            top_insert(g->gaps, o->top_data, &o->ntop_data, i);
            len -= data;
            if (len <= 0) {
                tp_find_wins_add(&wins, g->devices[gp->device].process, gp->start_ns, gp->end_ns, dl, -1, GAP_DATA,
                                 o->step_ns);
                continue;
            }
        }
        int cls;
        if (y->n && in_sync(t, y, next, gp->start_ns))
            cls = GAP_SYNC;
        else if (launched && t->events[next->link].ts > gp->start_ns)
            cls = GAP_HOST;
        else if (len < TP_IDLE_SHORT_GAP_NS)
            cls = GAP_KERNEL;
        else
            cls = GAP_OTHER;
        o->ns[cls] += len;
        o->n[cls]++;
        tp_find_wins_add(&wins, g->devices[gp->device].process, gp->start_ns, gp->end_ns, dl, cls, GAP_DATA, o->step_ns);
        if (cls == GAP_HOST) {
            top_insert(g->gaps, o->top_host, &o->ntop_host, i);
            int64_t end = t->events[next->link].ts < gp->end_ns ? t->events[next->link].ts : gp->end_ns;
            fill_ops(s, next->link, gp->start_ns, end, &fix, fname, fns, &nf, FILL_NAMES);
        }
        else if (cls == GAP_SYNC)
            top_insert(g->gaps, o->top_sync, &o->ntop_sync, i);
    }
    for (size_t k = 0; k < nf; k++) { /* the largest, ties by name: deterministic */
        o->fill_total += fns[k];
        size_t at = o->nfill;
        while (at > 0 && (o->fill_ns[at - 1] < fns[k] ||
                          (o->fill_ns[at - 1] == fns[k] && strcmp(tp_str_get(t, o->fill_name[at - 1]), tp_str_get(t, fname[k])) > 0)))
            at--;
        if (at >= TOP_EVIDENCE)
            continue;
        size_t last = o->nfill < TOP_EVIDENCE ? o->nfill : TOP_EVIDENCE - 1;
        for (size_t j = last; j > at; j--) {
            o->fill_name[j] = o->fill_name[j - 1];
            o->fill_ns[j] = o->fill_ns[j - 1];
        }
        o->fill_name[at] = fname[k];
        o->fill_ns[at] = fns[k];
        if (o->nfill < TOP_EVIDENCE)
            o->nfill++;
    }
    tp_i64map_free(&fix);
    free(fname);
    free(fns);
    tp_find_wins_free(&wins);
}

/* "1.234 ms on GPU 0 at +5.000 ms before kernel K (launched by aten::copy_)" */
static void gap_line(const tp_summary *s, tp_measure *m, const tp_gpu_gap *gp, const char *what)
{
    const tp_trace *t = s->t;
    const tp_event *next = &t->events[gp->next];
    char d[48], at[48];
    dur(d, sizeof d, gp->end_ns - gp->start_ns);
    dur(at, sizeof at, gp->start_ns - s->sf.span_start);
    char *kn = tp_kname_cut(tp_str_get(t, next->name), 60);
    uint32_t op = next->op;
    char *on = op != TP_NONE ? tp_kname_cut(ev_name(s, op), 60) : NULL;
    tp_measure_evidence(m, "%s: %s idle on %s at +%s, until %s%s%s%s", what, d, s->gt.devices[gp->device].label, at, kn,
                        on ? " (launched under " : "", on ? on : "", on ? ")" : "");
    free(kn);
    free(on);
}

/* The scans several measures read, made once, when the first asks. */
struct tp_find_ctx {
    bool done;
    bool partial;       /* the trace's events were filtered or sampled (find_partial.c) */
    char partial_why[400];
    sync_scan y;
    tp_find_data dl;
    gap_split gs;
};

tp_find_ctx *tp_find_ctx_new(void) { return tp_xcalloc(1, sizeof(tp_find_ctx)); }

void tp_find_ctx_free(tp_find_ctx *c)
{
    if (c) {
        free(c->y.spans);
        free(c->dl.spans);
        for (int k = 0; k < 5; k++)
            free(c->gs.step_ns[k]);
    }
    free(c);
}

static const tp_find_ctx *scans_of(const tp_summary *s, tp_find_ctx *c)
{
    if (!c->done) {
        scan_syncs(s, &c->y);
        tp_find_data_scan(s, &c->dl);
        split_gaps(s, &c->y, &c->dl, &c->gs);
        c->partial = tp_find_partial(s, c->partial_why, sizeof c->partial_why);
        c->done = true;
    }
    return c;
}

/* The measure's per-step figures: part from `part` (or each step's figure at
 * offset `field` of the GPU time model's step row), whole each step's GPU span. */
static void per_step(const tp_summary *s, tp_measure *m, const int64_t *part, size_t field)
{
    size_t n = s->sf.nsteps;
    if (n < 2 || s->gt.nsteps != n || (!part && field == SIZE_MAX))
        return;
    m->nsteps = n;
    m->step_part = tp_xcalloc(n, sizeof *m->step_part);
    m->step_whole = tp_xcalloc(n, sizeof *m->step_whole);
    for (size_t i = 0; i < n; i++) {
        m->step_part[i] = part ? part[i] : *(const int64_t *)((const char *)&s->gt.steps[i] + field);
        m->step_whole[i] = s->gt.steps[i].span_ns;
    }
}

/* A filtered trace's idle gaps are partly the events it lost: the measures
 * that read the gaps cannot tell there (said once: the same reason for each). */
static bool partial_trace(const tp_find_ctx *c, tp_measure *m)
{
    if (!c->partial)
        return false;
    m->available = false;
    snprintf(m->why, sizeof m->why, "%s", c->partial_why);
    return true;
}

/* Exposed time of a partial trace may be time its lost computation covered. */
static void partial_note(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    if (scans_of(s, cx)->partial)
        m->confidence = tp_xstrdup("the trace's events were filtered or sampled: computation it lost may have hidden "
                                   "part of this");
}

static void launch_delay_line(const tp_summary *s, tp_measure *m)
{
    const tp_idle_stream *best = NULL; /* the stream with the most launches */
    for (size_t i = 0; i < s->idle.n; i++)
        if (!best || s->idle.streams[i].launched > best->launched)
            best = &s->idle.streams[i];
    if (!best || !best->launched)
        return;
    char lab[160], p50[48], p90[48];
    tp_stream_label(s->t, best->track, lab, sizeof lab);
    dur(p50, sizeof p50, best->delay_p50_ns);
    dur(p90, sizeof p90, best->delay_p90_ns);
    tp_measure_evidence(m, "launch delay on %s (%llu launches): p50 %s, p90 %s; up to %llu launches queued", lab,
                        (unsigned long long)best->launched, p50, p90, (unsigned long long)best->queue_max);
}

static void host_wait_idle(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_gpu_figs *g = &s->gt.whole;
    m->base = m->impact_base = "the GPU span";
    m->bound = "the GPU's idle time that waited for a launch: launching earlier can at most close it";
    if (g->span_ns <= 0)
        return;
    const tp_find_ctx *c = scans_of(s, cx);
    if (partial_trace(c, m))
        return;
    if (c->gs.launched == 0 && s->gt.ngaps) {
        m->available = false;
        snprintf(m->why, sizeof m->why,
                 "no device activity after an idle gap is linked to its launch call: whether the host was late "
                 "cannot be told");
        return;
    }
    m->part = m->impact_ns = c->gs.ns[GAP_HOST];
    m->whole = m->impact_base_ns = g->span_ns;
    per_step(s, m, c->gs.step_ns[GAP_HOST], SIZE_MAX);
    char a[48], b[48], d[48];
    pct(a, sizeof a, g->idle_ns, g->span_ns);
    dur(d, sizeof d, g->idle_ns);
    pct(b, sizeof b, c->gs.ns[GAP_HOST], g->idle_ns);
    tp_measure_evidence(m, "GPU idle %s of the GPU span (%s); %s of the idle waited for the host to launch (%llu gaps)",
                        a, d, b, (unsigned long long)c->gs.n[GAP_HOST]);
    for (size_t k = 0; k < c->gs.ntop_host; k++)
        gap_line(s, m, &s->gt.gaps[c->gs.top_host[k]], k ? "next gap" : "largest gap");
    if (c->gs.ns[GAP_HOST] > 0 && c->gs.fill_total * 10 < c->gs.ns[GAP_HOST]) { /* no op to name: say where it was */
        char w[48];
        pct(w, sizeof w, c->gs.fill_total, c->gs.ns[GAP_HOST]);
        tp_measure_evidence(m, "during those gaps the launching thread was inside a top-level op for %s of the wait "
                               "only: the rest is host code outside the framework's ops (Python, the scheduler)", w);
    } else if (c->gs.nfill) { /* the host's work while the device waited: what to move off the step or capture */
        tp_buf line = {0};
        char w[48];
        pct(w, sizeof w, c->gs.fill_total, c->gs.ns[GAP_HOST]);
        tp_buf_printf(&line, "during those gaps the launching thread ran (top-level ops, %s of the wait): ", w);
        for (size_t k = 0; k < c->gs.nfill; k++) {
            char fd[48];
            char *on = tp_kname_cut(tp_str_get(s->t, c->gs.fill_name[k]), 60);
            dur(fd, sizeof fd, c->gs.fill_ns[k]);
            tp_buf_printf(&line, "%s%s %s", k ? ", " : "", on, fd);
            free(on);
        }
        tp_measure_evidence(m, "%s", line.data);
        tp_buf_free(&line);
    }
    launch_delay_line(s, m);
    /* what makes the verdict less certain: one gap holding most of the wait (the profiler's window
     * rather than the steps), work already replayed in graphs (the wait is between replays) */
    tp_buf note = {0};
    if (c->gs.ntop_host) {
        const tp_gpu_gap *big = &s->gt.gaps[c->gs.top_host[0]];
        int64_t share = tp_find_milli(big->end_ns - big->start_ns, c->gs.ns[GAP_HOST]);
        if (share >= 50000) {
            char p[32];
            tp_find_pct(p, sizeof p, share);
            tp_buf_printf(&note, "one gap holds %s of the host wait: it may be the profiling window, not the %s", p,
                          s->sf.nsteps ? "steps" : "work"); /* no per-step wording without steps */
        }
    }
    int64_t graph = 0;
    for (size_t i = 0; i < s->cat.n; i++)
        graph += s->cat.rows[i].graph_ns;
    if (s->cat.total_ns > 0 && tp_find_milli(graph, s->cat.total_ns) >= 50000) {
        char p[32];
        tp_find_pct(p, sizeof p, tp_find_milli(graph, s->cat.total_ns));
        tp_buf_printf(&note, "%s%s of the device time already runs in CUDA/HIP graph replays: the wait is between "
                             "replays", note.len ? "; " : "", p);
    }
    if (note.len)
        m->confidence = tp_xstrdup(note.data);
    tp_buf_free(&note);
}

/* The prelude of the measures of one kind of idle gap (sync, dataloader):
 * the GPU span as base, the scans, a partial trace said once, part and
 * impact the gaps of that kind, per step too.  NULL: nothing to measure. */
static const tp_find_ctx *gap_measure(const tp_summary *s, tp_find_ctx *cx, tp_measure *m, int kind, const char *bound)
{
    const tp_gpu_figs *g = &s->gt.whole;
    m->base = m->impact_base = "the GPU span";
    m->bound = bound;
    if (g->span_ns <= 0)
        return NULL;
    const tp_find_ctx *c = scans_of(s, cx);
    if (partial_trace(c, m))
        return NULL;
    m->part = m->impact_ns = c->gs.ns[kind];
    m->whole = m->impact_base_ns = g->span_ns;
    per_step(s, m, c->gs.step_ns[kind], SIZE_MAX);
    return c;
}

static void sync_idle(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_gpu_figs *g = &s->gt.whole;
    const tp_find_ctx *c = gap_measure(s, cx, m, GAP_SYNC,
                                       "the GPU's idle time that began while the host sat in a synchronisation: "
                                       "removing it can at most close that idle");
    if (!c)
        return;
    char a[48], d[48];
    dur(d, sizeof d, c->y.host_ns);
    pct(a, sizeof a, c->gs.ns[GAP_SYNC], g->span_ns);
    tp_buf b = {0};
    for (size_t k = 0; k < NSYNC; k++)
        if (c->y.count[k]) {
            char x[48];
            dur(x, sizeof x, c->y.ns[k]);
            tp_buf_printf(&b, "%s%s x%llu (%s)", b.len ? ", " : "", sync_names[k], (unsigned long long)c->y.count[k], x);
        }
    if (b.len)
        tp_measure_evidence(m, "host time in synchronisations %s: %s", d, b.data);
    tp_buf_free(&b);
    tp_measure_evidence(m, "GPU idle that began inside them: %s of the GPU span (%llu gaps)", a,
                        (unsigned long long)c->gs.n[GAP_SYNC]);
    for (size_t k = 0; k < TOP_EVIDENCE && c->y.issuer_n[k]; k++) {
        char *on = tp_kname_cut(tp_str_get(s->t, c->y.issuer[k]), 60);
        tp_measure_evidence(m, "issued under %s: %llu synchronisations", on, (unsigned long long)c->y.issuer_n[k]);
        free(on);
    }
    for (size_t k = 0; k < c->gs.ntop_sync && k < 2; k++)
        gap_line(s, m, &s->gt.gaps[c->gs.top_sync[k]], k ? "next gap" : "largest gap");
}

static void dataloader_idle(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_gpu_figs *g = &s->gt.whole;
    const tp_find_ctx *c = gap_measure(s, cx, m, GAP_DATA,
                                       "the GPU's idle time while the host was in the dataloader: a faster input "
                                       "pipeline can at most close that idle");
    if (!c || !c->dl.calls)
        return;
    char a[48], d[48], b[48];
    dur(d, sizeof d, c->dl.host_ns);
    pct(a, sizeof a, c->gs.ns[GAP_DATA], g->span_ns);
    dur(b, sizeof b, c->gs.ns[GAP_DATA]);
    tp_measure_evidence(m, "host time in the dataloader %s (%llu slices); the GPU idled %s of it, %s of the GPU span "
                        "(%llu gaps)", d, (unsigned long long)c->dl.calls, b, a,
                        (unsigned long long)c->gs.n[GAP_DATA]);
    for (size_t k = 0; k < 3 && c->dl.names_ns[k]; k++) {
        char *on = tp_kname_cut(tp_str_get(s->t, c->dl.names[k]), 80);
        char x[48];
        dur(x, sizeof x, c->dl.names_ns[k]);
        tp_measure_evidence(m, "%s: %s", on, x);
        free(on);
    }
    for (size_t k = 0; k < c->gs.ntop_data && k < 2; k++)
        gap_line(s, m, &s->gt.gaps[c->gs.top_data[k]], k ? "next gap" : "largest gap");
}

static void exposed_communication(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_gpu_figs *g = &s->gt.whole;
    m->base = m->impact_base = "the GPU span";
    m->bound = "the exposed communication time: hiding it behind computation saves at most that";
    m->part = m->impact_ns = g->exposed_communication_ns;
    m->whole = m->impact_base_ns = g->span_ns;
    per_step(s, m, NULL, offsetof(tp_gpu_figs, exposed_communication_ns));
    if (g->communication_ns <= 0)
        return;
    partial_note(s, cx, m);
    char a[48], b[48], c[48];
    pct(a, sizeof a, g->exposed_communication_ns, g->span_ns);
    dur(b, sizeof b, g->communication_ns);
    tp_find_pct(c, sizeof c, tp_gpu_overlap_milli_pct(g));
    tp_measure_evidence(m, "exposed communication %s of the GPU span; communication %s, %s of it overlapped", a, b, c);
    const tp_collectives *co = &s->coll;
    for (size_t i = 0; i < co->n && i < TOP_EVIDENCE; i++) {
        const tp_coll_row *r = &co->rows[i];
        char t[48], sz[48] = "size unknown";
        dur(t, sizeof t, r->total_ns);
        if (r->bytes)
            snprintf(sz, sizeof sz, "%llu bytes", (unsigned long long)r->bytes);
        if (r->factor > 0)
            tp_measure_evidence(m, "%s of %s: %llu calls, %s, bus bandwidth %.1f GB/s", r->kind, sz,
                                (unsigned long long)r->count, t, r->busbw);
        else
            tp_measure_evidence(m, "%s of %s: %llu calls, %s", r->kind, sz, (unsigned long long)r->count, t);
    }
    if (co->calls && !co->n)
        tp_measure_evidence(m, "%llu collective kernels without a recorded kind or size",
                            (unsigned long long)co->calls);
}

/* The ops that issued the copies (each copy's leaf op, attribution.h), the
 * 3 with the most copy time: where to pin memory or move the copy. */
static void copy_issuers(const tp_summary *s, tp_measure *m)
{
    const tp_trace *t = s->t;
    if (!s->at.leaf)
        return;
    enum { CAP = 256 }; /* distinct issuing op names counted; more are left out of the evidence only */
    tp_str name[CAP];
    int64_t ns[CAP];
    uint64_t n[CAP];
    size_t k = 0;
    tp_i64map ix = {0};
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_MEMCPY || !tp_is_device_activity(e) || s->at.leaf[i] == TP_NONE)
            continue;
        tp_str op = t->events[s->at.leaf[i]].name;
        uint32_t j = tp_i64map_get(&ix, op);
        if (j == TP_I64MAP_EMPTY && k < CAP) {
            j = (uint32_t)k++;
            name[j] = op, ns[j] = 0, n[j] = 0;
            tp_i64map_put(&ix, op, j);
        }
        if (j != TP_I64MAP_EMPTY)
            ns[j] += e->dur > 0 ? e->dur : 0, n[j]++;
    }
    tp_i64map_free(&ix);
    tp_buf line = {0};
    for (size_t r = 0; r < TOP_EVIDENCE && k; r++) { /* the largest left, ties by name */
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < k; j++)
            if (n[j] && (best == SIZE_MAX || ns[j] > ns[best] ||
                         (ns[j] == ns[best] && strcmp(tp_str_get(t, name[j]), tp_str_get(t, name[best])) < 0)))
                best = j;
        if (best == SIZE_MAX)
            break;
        char d[48];
        char *on = tp_kname_cut(tp_str_get(t, name[best]), 60);
        dur(d, sizeof d, ns[best]);
        tp_buf_printf(&line, "%s%s x%llu, %s", r ? "; " : "issued by: ", on, (unsigned long long)n[best], d);
        free(on);
        n[best] = 0; /* taken */
    }
    if (line.len)
        tp_measure_evidence(m, "%s", line.data);
    tp_buf_free(&line);
}

static void exposed_memcpy(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_gpu_figs *g = &s->gt.whole;
    m->base = m->impact_base = "the GPU span";
    m->bound = "the exposed memcpy time: overlapping or removing the copies saves at most that";
    m->part = m->impact_ns = g->exposed_memcpy_ns;
    m->whole = m->impact_base_ns = g->span_ns;
    per_step(s, m, NULL, offsetof(tp_gpu_figs, exposed_memcpy_ns));
    if (g->memcpy_ns <= 0)
        return;
    partial_note(s, cx, m);
    char a[48], b[48];
    pct(a, sizeof a, g->exposed_memcpy_ns, g->span_ns);
    dur(b, sizeof b, g->memcpy_ns);
    tp_measure_evidence(m, "exposed memcpy %s of the GPU span; all copies %s", a, b);
    /* by direction, from the kernel table's memcpy rows (their names say the direction and pageable memory) */
    int64_t ns[3] = {0}, pg_ns = 0;
    uint64_t n[3] = {0}, pg = 0;
    for (size_t i = 0; i < s->kt.n; i++) {
        const tp_kernel_row *r = &s->kt.rows[i];
        if (r->kind != TP_KIND_MEMCPY)
            continue;
        const char *nm = tp_str_get(s->t, r->name);
        /* Kineto "Memcpy HtoD", nsys "[CUDA memcpy Host-to-Device]", rocprofv3 "MEMORY_COPY_HOST_TO_DEVICE" */
        int d = strstr(nm, "HtoD") || strstr(nm, "HostToDevice") || strstr(nm, "Host-to-Device") ||
                        strstr(nm, "HOST_TO_DEVICE")
                    ? 0
                : strstr(nm, "DtoH") || strstr(nm, "DeviceToHost") || strstr(nm, "Device-to-Host") ||
                        strstr(nm, "DEVICE_TO_HOST")
                    ? 1
                    : 2;
        ns[d] += r->total_ns;
        n[d] += r->count;
        if (strstr(nm, "Pageable")) {
            pg_ns += r->total_ns;
            pg += r->count;
        }
    }
    static const char *const dir[3] = {"host to device", "device to host", "other (device to device, peer)"};
    for (int d = 0; d < 3; d++)
        if (n[d]) {
            char x[48];
            dur(x, sizeof x, ns[d]);
            tp_measure_evidence(m, "%s: %llu copies, %s", dir[d], (unsigned long long)n[d], x);
        }
    if (pg) {
        char x[48];
        dur(x, sizeof x, pg_ns);
        tp_measure_evidence(m, "from or to pageable memory: %llu copies, %s (not pinned: the copy cannot overlap)",
                            (unsigned long long)pg, x);
    }
    copy_issuers(s, m);
}

static void small_kernels(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_trace *t = s->t;
    m->base = "the kernels (count)";
    m->impact_base = "the GPU span";
    m->bound = "the short gaps between kernels launched ahead (the launch cost the device sees): fewer, larger "
               "kernels remove at most those";
    uint64_t small = 0, all = 0;
    int64_t small_ns = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL || !tp_is_device_activity(e))
            continue;
        all++;
        if (e->dur < SMALL_KERNEL_NS) {
            small++;
            small_ns += e->dur > 0 ? e->dur : 0;
        }
    }
    m->part = (int64_t)small;
    m->whole = (int64_t)all;
    if (!small)
        return;
    const tp_find_ctx *c = scans_of(s, cx);
    m->impact_ns = c->gs.ns[GAP_KERNEL];
    m->impact_base_ns = s->gt.whole.span_ns;
    char a[48], b[48], d[48], k[48];
    pct(a, sizeof a, (int64_t)small, (int64_t)all);
    dur(b, sizeof b, small_ns);
    dur(d, sizeof d, c->gs.ns[GAP_KERNEL]);
    tp_fmt_count(k, sizeof k, small);
    tp_measure_evidence(m, "%s kernels under 10 us: %s of the kernels, %s of device time", k, a, b);
    tp_measure_evidence(m, "short gaps between kernels launched ahead: %s (%llu gaps)", d,
                        (unsigned long long)c->gs.n[GAP_KERNEL]);
    size_t shown = 0; /* the kernels with the most small launches: rows whose median is under 10 us */
    for (size_t i = 0; i < s->kt.n && shown < TOP_EVIDENCE; i++) {
        const tp_kernel_row *r = &s->kt.rows[i];
        if (r->kind != TP_KIND_KERNEL || r->p50_ns >= SMALL_KERNEL_NS)
            continue;
        char *kn = tp_kname_cut(tp_str_get(t, r->name), 60);
        char md[48];
        dur(md, sizeof md, r->p50_ns);
        tp_measure_evidence(m, "%s: %llu launches, median %s", kn, (unsigned long long)r->count, md);
        free(kn);
        shown++;
    }
}

static void compute_headroom(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_efficiency *e = &s->eff;
    m->base = m->impact_base = "the device time";
    m->bound = "each modelled op shape's device time x (1 - its fraction of the roof): the time it would save "
               "running at the roof";
    if (s->opts.lean) {
        m->available = false;
        snprintf(m->why, sizeof m->why, "the roofline is computed by `report`, not `stats`");
        return;
    }
    if (e->device_ns <= 0)
        return;
    if (!e->have_device || !e->device.known) {
        m->available = false;
        snprintf(m->why, sizeof m->why, "the device's peaks are unknown, so no op has a roof (--device-spec FILE adds them)");
        return;
    }
    int64_t cov = tp_find_milli(e->modelled_ns, e->device_ns);
    if (cov < 50000) { /* under half the device time: the biggest opportunity may be in what is not modelled */
        m->available = false;
        snprintf(m->why, sizeof m->why,
                 "the cost model covers %lld.%lld%% of the device time (under 50%%): too little to rank op shapes%s%s%s",
                 (long long)((cov + 50) / 1000), (long long)((cov + 50) % 1000 / 100),
                 e->with_shapes ? "" : "; the trace has no shapes (", e->with_shapes ? "" : tp_eff_shapes_hint(e),
                 e->with_shapes ? "" : ")");
        return;
    }
    int64_t opp = 0; /* the GEMM shapes that waste tensor-core tiles are gemm_tiles' (measures_more.c) */
    char why[160];
    for (size_t i = 0; i < e->nopportunities; i++)
        if (!tp_find_gemm_misaligned(s, &e->rows[e->by_opportunity[i]], why, sizeof why))
            opp += e->rows[e->by_opportunity[i]].opportunity_ns;
    m->part = m->impact_ns = opp;
    m->whole = m->impact_base_ns = e->device_ns;
    if (cov < 90000) {
        char c[160];
        char p[32];
        tp_find_pct(p, sizeof p, cov);
        snprintf(c, sizeof c, "the cost model covers %s of the device time", p);
        m->confidence = tp_xstrdup(c);
    }
    for (size_t i = 0, shown = 0; i < e->nopportunities && shown < TOP_EVIDENCE; i++) {
        const tp_eff_row *r = &e->rows[e->by_opportunity[i]];
        if (tp_find_gemm_misaligned(s, r, why, sizeof why))
            continue;
        shown++;
        char d[48], o[48];
        dur(d, sizeof d, r->device_ns);
        dur(o, sizeof o, r->opportunity_ns);
        char *dims = tp_kname_cut(r->input_dims, 60);
        tp_measure_evidence(m, "%s %s: %llu calls, %s at %.0f%% of its roof (%s-bound); headroom %s", r->op, dims,
                            (unsigned long long)r->count, d, r->peak_fraction * 100,
                            r->bound == TP_BOUND_COMPUTE ? "compute" : r->bound == TP_BOUND_MEMORY ? "memory" : "?", o);
        free(dims);
    }
}

/* Outlier steps: beyond Q3 + 1.5 IQR (Tukey) and 10% over the median. */
static void step_outliers(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    const tp_step_figures *sf = &s->sf;
    m->base = m->impact_base = "the host time of the steps";
    m->bound = "each outlier step's time over the median step: bringing it to the median saves at most that";
    snprintf(m->scope, sizeof m->scope, "steps");
    tp_step_spread sp;
    tp_step_spread_of(sf, &sp);
    if (sp.median_of < 4) {
        m->available = false;
        if (!sf->nsteps) /* not "0 steps with device work": the trace marks no steps at all */
            snprintf(m->why, sizeof m->why, "the trace marks no steps, so no step "
                                            "can be an outlier");
        else
            snprintf(m->why, sizeof m->why, "%zu step%s with device work: outliers need at least 4", sp.median_of,
                     sp.median_of == 1 ? "" : "s");
        return;
    }
    int64_t fence = sp.q3 + sp.iqr + sp.iqr / 2, floor10 = sp.median + sp.median / 10;
    int64_t over = 0;
    size_t top[TOP_EVIDENCE], ntop = 0, nout = 0;
    size_t *outl = tp_xcalloc(sf->nsteps, sizeof *outl); /* the outliers in step order: the scope */
    for (size_t i = 0; i < sf->nsteps; i++) {
        const tp_step_row *r = &sf->steps[i];
        if (r->host_ns <= fence || r->host_ns <= floor10)
            continue;
        over += r->host_ns - sp.median;
        outl[nout++] = i;
        size_t at = ntop;
        while (at > 0 && sf->steps[top[at - 1]].host_ns < r->host_ns)
            at--;
        if (at < TOP_EVIDENCE) {
            for (size_t k = ntop < TOP_EVIDENCE ? ntop : TOP_EVIDENCE - 1; k > at; k--)
                top[k] = top[k - 1];
            top[at] = i;
            ntop += ntop < TOP_EVIDENCE;
        }
    }
    m->part = m->impact_ns = over;
    m->whole = m->impact_base_ns = sf->steps_host_ns;
    if (nout) {
        tp_find_steps_scope(s, outl, nout, sf->nsteps, m->scope, sizeof m->scope);
        /* the outliers name the scope (their time over the median, on the step's time) */
        m->nsteps = sf->nsteps;
        m->steps_scope_only = true;
        m->step_part = tp_xcalloc(sf->nsteps, sizeof *m->step_part);
        m->step_whole = tp_xcalloc(sf->nsteps, sizeof *m->step_whole);
        for (size_t k = 0; k < nout; k++) {
            m->step_part[outl[k]] = sf->steps[outl[k]].host_ns - sp.median;
            m->step_whole[outl[k]] = sf->steps[outl[k]].host_ns;
        }
    }
    free(outl);
    if (!nout)
        return;
    char md[48];
    dur(md, sizeof md, sp.median);
    tp_measure_evidence(m, "%zu of %zu steps are outliers (over Q3 + 1.5 IQR and 10%% over the median); the median "
                        "step lasts %s", nout, sf->nsteps, md);
    const tp_gpu_figs *mf = s->gt.nsteps && sf->median != SIZE_MAX ? &s->gt.steps[sf->median] : NULL;
    for (size_t k = 0; k < ntop; k++) {
        const tp_step_row *r = &sf->steps[top[k]];
        char lab[160], d[48], why[200] = "";
        tp_step_label(s->t, sf, r, lab, sizeof lab);
        dur(d, sizeof d, r->host_ns);
        if (mf) { /* what grew most against the median step */
            const tp_gpu_figs *f = &s->gt.steps[top[k]];
            int64_t host_only_f = r->host_ns - f->span_ns, host_only_m = sf->steps[sf->median].host_ns - mf->span_ns;
            int64_t dl[5] = {f->computation_ns - mf->computation_ns,
                             f->exposed_communication_ns - mf->exposed_communication_ns,
                             f->exposed_memcpy_ns - mf->exposed_memcpy_ns, f->idle_ns - mf->idle_ns,
                             host_only_f - host_only_m};
            static const char *const part[5] = {"computation", "exposed communication", "exposed memcpy", "GPU idle",
                                                "host time outside the GPU span"};
            int b = 0;
            for (int p = 1; p < 5; p++)
                if (dl[p] > dl[b])
                    b = p;
            if (dl[b] > 0) {
                char x[48];
                tp_fmt_dur_delta(x, sizeof x, dl[b], " ");
                snprintf(why, sizeof why, "; %s %s against the median step", part[b], x);
            }
        }
        tp_measure_evidence(m, "step %s: %s%s", lab, d, why);
        if (k < 2) /* what it ran that the median step did not: the two longest outliers */
            tp_find_step_diff(s, top[k], sf->median, m);
    }
}

/* The pages named are the report's titles (report/pages): the overview links those the report drew. */
#define GPU_PAGE "Where the GPU time goes"
const tp_measure_def tp_measure_catalogue[] = {
    {"host_wait_idle", host_wait_idle, {GPU_PAGE, "Timeline"}},
    {"sync_idle", sync_idle, {GPU_PAGE, "Timeline"}},
    {"dataloader_idle", dataloader_idle, {"Timeline", GPU_PAGE}},
    {"exposed_communication", exposed_communication, {GPU_PAGE, NULL}},
    {"exposed_memcpy", exposed_memcpy, {GPU_PAGE, NULL}},
    {"small_kernels", small_kernels, {"Kernel statistics", "Timeline"}},
    {"fusible_chains", tp_measure_fusible_chains, {"Timeline", "Top kernels by total time"}},
    {"compute_headroom", compute_headroom, {"How efficient is it", NULL}},
    {"gemm_tiles", tp_measure_gemm_tiles, {"How efficient is it", NULL}},
    {"step_outliers", step_outliers, {"Steps", NULL}},
    {"critical_cpu", tp_measure_critical_cpu, {"Critical path", NULL}},
    {"critical_launch", tp_measure_critical_launch, {"Critical path", "Timeline"}},
    {"memory_near_capacity", tp_measure_memory_near_capacity, {"Memory", NULL}},
    {"memory_fragmentation", tp_measure_memory_fragmentation, {"Memory", NULL}},
    {"memory_growth", tp_measure_memory_growth, {"Memory", NULL}},
};
const size_t tp_measure_count = sizeof tp_measure_catalogue / sizeof *tp_measure_catalogue;
