/* tracks.c: per-track ordering, id assignment, nesting repair. */
#include "convert/base/sort.h"
#include "convert/model/tracks.h"
#include "convert/base/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sort keys extracted from the events: comparing them touches no event. */
typedef struct sort_key {
    int64_t ts;
    int64_t negdur;
    uint32_t idx;
} sort_key;

#define KEY_LESS(x, y, c)                                                                                       \
    ((x)->ts != (y)->ts ? (x)->ts < (y)->ts : (x)->negdur != (y)->negdur ? (x)->negdur < (y)->negdur : (x)->idx < (y)->idx)
TP_SORT_DEFINE(sort_keys, sort_key, int, KEY_LESS)

/* A long list (a busy host thread: 1.5 M slices at 1 GB, sorted three
 * times on the way to the writer) is sorted in two halves on two threads
 * and merged; the keys are unique (the index breaks ties), so the order is
 * the one sort gives.  TP_THREADS=1 sorts on the calling thread. */
#define PAR_SORT_MIN ((size_t)1 << 16)

typedef struct half_sort {
    sort_key *k;
    size_t n;
} half_sort;

static void *sort_half(void *p)
{
    half_sort *h = p;
    sort_keys(h->k, h->n, 0);
    return NULL;
}

static void sort_two_halves(sort_key *k, size_t n, uint32_t *ev)
{
    half_sort a = {k, n / 2}, b = {k + n / 2, n - n / 2};
    tp_run_pair(sort_half, &a, sort_half, &b, NULL);
    const sort_key *x = k, *xe = k + n / 2, *y = xe, *ye = k + n;
    size_t o = 0;
    while (x < xe && y < ye)
        ev[o++] = KEY_LESS(y, x, 0) ? (y++)->idx : (x++)->idx;
    while (x < xe)
        ev[o++] = (x++)->idx;
    while (y < ye)
        ev[o++] = (y++)->idx;
}

void tp_sort_by_time(const tp_trace *t, uint32_t *ev, size_t n)
{
    bool sorted = true;
    for (size_t j = 1; j < n && sorted; j++) {
        const tp_event *x = &t->events[ev[j - 1]], *y = &t->events[ev[j]];
        sorted = x->ts < y->ts || (x->ts == y->ts && (x->dur > y->dur || (x->dur == y->dur && ev[j - 1] < ev[j])));
    }
    if (sorted)
        return;
    sort_key *k = tp_xmalloc((n + 1) * sizeof *k);
    for (size_t j = 0; j < n; j++) {
        const tp_event *e = &t->events[ev[j]];
        k[j] = (sort_key){e->ts, -e->dur, ev[j]};
    }
    if (n >= PAR_SORT_MIN && !tp_single_thread(NULL)) {
        sort_two_halves(k, n, ev);
    } else {
        sort_keys(k, n, 0);
        for (size_t j = 0; j < n; j++)
            ev[j] = k[j].idx;
    }
    free(k);
}

/* Two halves of a job at once: a on a second thread, b on this one (both
 * here with TP_THREADS=1 or below `min` items). */
static void run_pair(void *(*fn)(void *), void *a, void *b, size_t items, size_t min)
{
    if (items >= min) {
        tp_run_pair(fn, a, fn, b, NULL);
    } else {
        fn(a);
        fn(b);
    }
}

#define PAR_INDEX_MIN ((size_t)1 << 20) /* events: below, threads cost more than they save */

/* The track that splits a's events into two even halves: tracks [0, m) and [m, ntracks). */
static size_t even_split(const size_t *start, size_t ntracks)
{
    size_t m = 0;
    while (m < ntracks && start[m + 1] * 2 <= start[ntracks])
        m++;
    return m;
}

typedef struct index_part {
    const tp_trace *t;
    tp_track_index *ix;
    size_t lo, hi;   /* events [lo, hi), or tracks when sorting */
    size_t *count;   /* per track: its events in [lo, hi); then where they go */
    int step;
} index_part;

static void *index_part_main(void *p)
{
    index_part *q = p;
    const tp_trace *t = q->t;
    if (q->step == 0) {
        for (size_t i = q->lo; i < q->hi; i++)
            if (!(t->events[i].flags & TP_EV_DROPPED))
                q->count[t->events[i].track]++;
    } else if (q->step == 1) {
        for (size_t i = q->lo; i < q->hi; i++)
            if (!(t->events[i].flags & TP_EV_DROPPED))
                q->ix->ev[q->count[t->events[i].track]++] = (uint32_t)i;
    } else {
        for (size_t k = q->lo; k < q->hi; k++)
            tp_sort_by_time(t, q->ix->ev + q->ix->start[k], q->ix->start[k + 1] - q->ix->start[k]);
    }
    return NULL;
}

/* Counting sort by track (two halves of the events at once, each filling
 * its own places: the order within a track is the event order), then each
 * track sorted by time (two sets of tracks at once). */
void tp_track_index_build(const tp_trace *t, tp_track_index *ix)
{
    size_t nt = t->ntracks, half = t->nevents / 2;
    ix->ntracks = nt;
    ix->start = tp_xcalloc(nt + 1, sizeof *ix->start);
    index_part a = {t, ix, 0, half, tp_xcalloc(nt + 1, sizeof(size_t)), 0};
    index_part b = {t, ix, half, t->nevents, tp_xcalloc(nt + 1, sizeof(size_t)), 0};
    run_pair(index_part_main, &a, &b, t->nevents, PAR_INDEX_MIN);
    for (size_t k = 0; k < nt; k++) {
        ix->start[k + 1] = ix->start[k] + a.count[k] + b.count[k];
        b.count[k] = ix->start[k] + a.count[k]; /* where each half's events of track k go */
        a.count[k] = ix->start[k];
    }
    ix->ev = tp_xmalloc((ix->start[nt] + 1) * sizeof *ix->ev);
    a.step = b.step = 1;
    run_pair(index_part_main, &a, &b, t->nevents, PAR_INDEX_MIN);
    free(a.count);
    free(b.count);
    a.step = b.step = 2;
    a.lo = 0;
    a.hi = b.lo = even_split(ix->start, nt);
    b.hi = nt;
    run_pair(index_part_main, &a, &b, t->nevents, PAR_INDEX_MIN);
}

void tp_track_index_free(tp_track_index *ix)
{
    free(ix->ev);
    free(ix->start);
    memset(ix, 0, sizeof *ix);
}

void tp_assign_ids(tp_trace *t)
{
    int64_t maxpid = -1;
    for (size_t i = 0; i < t->nprocesses; i++)
        if (t->processes[i].key == 0 && t->processes[i].pid > maxpid)
            maxpid = t->processes[i].pid;
    for (size_t i = 0; i < t->nprocesses; i++)
        if (t->processes[i].key != 0 && t->processes[i].pid < 0)
            t->processes[i].pid = ++maxpid;
    /* per process: the largest tid in use, then numbers after it in track order */
    int64_t *maxtid = tp_xmalloc((t->nprocesses + 1) * sizeof *maxtid);
    for (size_t p = 0; p < t->nprocesses; p++)
        maxtid[p] = -1;
    for (size_t k = 0; k < t->ntracks; k++) {
        const tp_track *tk = &t->tracks[k];
        if (tk->tid > maxtid[tk->process])
            maxtid[tk->process] = tk->tid;
    }
    for (size_t k = 0; k < t->ntracks; k++) {
        tp_track *tk = &t->tracks[k];
        if (tk->tid < 0 && (tk->key != 0 || tk->role == TP_TRACK_DERIVED || tk->role == TP_TRACK_OVERFLOW))
            tk->tid = ++maxtid[tk->process];
    }
    free(maxtid);
}

/* Groups come from what a process holds, so they are the same when a
 * converted trace is read again: 0 host activity, 1 device, 2 the rest
 * (profiler spans, processes with metadata only). */
static int *process_groups(const tp_trace *t)
{
    int *g = tp_xmalloc((t->nprocesses + 1) * sizeof *g);
    size_t open = 0; /* processes still in group 2: the walk stops when none is left */
    for (size_t i = 0; i < t->nprocesses; i++) {
        g[i] = t->processes[i].is_device ? 1 : 2;
        open += g[i] == 2;
    }
    for (size_t i = 0; i < t->nevents && open; i++) {
        const tp_event *e = &t->events[i];
        uint32_t p = t->tracks[e->track].process;
        if (g[p] == 2 && e->kind != TP_KIND_OTHER) {
            g[p] = 0;
            open--;
        }
    }
    return g;
}

typedef struct porder_ctx {
    const tp_trace *t;
    const int *group;
} porder_ctx;

static int cmp_process(const void *a, const void *b, void *vctx)
{
    const porder_ctx *ctx = vctx;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    const tp_process *x = &ctx->t->processes[ia], *y = &ctx->t->processes[ib];
    if (x->job_slot != y->job_slot) /* a merged job: rank by rank */
        return x->job_slot < y->job_slot ? -1 : 1;
    if (ctx->group[ia] != ctx->group[ib])
        return ctx->group[ia] - ctx->group[ib];
    /* within a group, input sort indexes first (they make re-conversion stable) */
    if (x->has_sort != y->has_sort)
        return x->has_sort ? -1 : 1;
    if (x->has_sort && x->sort_index != y->sort_index)
        return x->sort_index < y->sort_index ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return ia < ib ? -1 : 1;
}

uint32_t *tp_process_order(const tp_trace *t)
{
    uint32_t *o = tp_xmalloc((t->nprocesses + 1) * sizeof *o);
    for (size_t i = 0; i < t->nprocesses; i++)
        o[i] = (uint32_t)i;
    porder_ctx ctx = {t, process_groups(t)};
    qsort_r(o, t->nprocesses, sizeof *o, cmp_process, &ctx);
    free((void *)ctx.group);
    return o;
}

static int cmp_track(const void *a, const void *b, void *ctx)
{
    const tp_trace *t = ctx;
    const tp_track *x = &t->tracks[*(const uint32_t *)a], *y = &t->tracks[*(const uint32_t *)b];
    if (x->has_sort != y->has_sort)
        return x->has_sort ? -1 : 1;
    if (x->has_sort && x->sort_index != y->sort_index)
        return x->sort_index < y->sort_index ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

uint32_t *tp_track_order(const tp_trace *t)
{
    uint32_t *porder = tp_process_order(t);
    uint32_t *out = tp_track_order_of(t, porder);
    free(porder);
    return out;
}

uint32_t *tp_track_order_of(const tp_trace *t, const uint32_t *porder)
{
    size_t nt = t->ntracks;
    uint32_t *out = tp_xmalloc((nt + 1) * sizeof *out);
    /* tracks bucketed by process, and each track's beside-tracks in creation
     * order (a linked list), so ordering is linear in the number of tracks */
    size_t *pstart = tp_xcalloc(t->nprocesses + 1, sizeof *pstart);
    uint32_t *byproc = tp_xmalloc((nt + 1) * sizeof *byproc);
    uint32_t *child_head = tp_xmalloc((nt + 1) * sizeof *child_head);
    uint32_t *child_tail = tp_xmalloc((nt + 1) * sizeof *child_tail);
    uint32_t *child_next = tp_xmalloc((nt + 1) * sizeof *child_next);
    uint32_t *stack = tp_xmalloc((nt + 1) * sizeof *stack); /* each track is pushed once at most */
    for (size_t k = 0; k < nt; k++) {
        child_head[k] = child_tail[k] = child_next[k] = TP_NONE;
        const tp_track *tk = &t->tracks[k];
        if (tk->derived_of == TP_NONE || tk->has_sort)
            pstart[tk->process + 1]++;
    }
    for (size_t p = 0; p < t->nprocesses; p++)
        pstart[p + 1] += pstart[p];
    size_t *fill = tp_xmalloc((t->nprocesses + 1) * sizeof *fill);
    memcpy(fill, pstart, (t->nprocesses + 1) * sizeof *fill);
    for (size_t k = 0; k < nt; k++) {
        const tp_track *tk = &t->tracks[k];
        if (tk->derived_of == TP_NONE || tk->has_sort)
            byproc[fill[tk->process]++] = (uint32_t)k;
        else if (tk->derived_of < nt && t->tracks[tk->derived_of].process == tk->process) {
            uint32_t base = tk->derived_of;
            if (child_tail[base] == TP_NONE)
                child_head[base] = (uint32_t)k;
            else
                child_next[child_tail[base]] = (uint32_t)k;
            child_tail[base] = (uint32_t)k;
        }
    }
    size_t n = 0;
    for (size_t pi = 0; pi < t->nprocesses; pi++) {
        uint32_t p = porder[pi];
        uint32_t *list = byproc + pstart[p];
        size_t m = pstart[p + 1] - pstart[p];
        qsort_r(list, m, sizeof *list, cmp_track, (void *)t);
        for (size_t j = 0; j < m; j++) {
            /* it, then its overflow and derived tracks in creation order, each
             * followed by its own (a derived line's overlap rows sit beside
             * the line, not at the end of the list): depth first */
            size_t sp = 0;
            stack[sp++] = list[j];
            while (sp) {
                uint32_t k = stack[--sp];
                out[n++] = k;
                size_t first = sp;
                for (uint32_t c = child_head[k]; c != TP_NONE; c = child_next[c])
                    stack[sp++] = c;
                for (size_t a = first, b = sp; a + 1 < b; a++, b--) { /* first child on top */
                    uint32_t x = stack[a];
                    stack[a] = stack[b - 1];
                    stack[b - 1] = x;
                }
            }
        }
    }
    /* tracks placed beside a track of another process, or chains: append */
    if (n < nt) {
        bool *seen = tp_xcalloc(nt, sizeof *seen);
        for (size_t j = 0; j < n; j++)
            seen[out[j]] = true;
        for (size_t k = 0; k < nt; k++)
            if (!seen[k])
                out[n++] = (uint32_t)k;
        free(seen);
    }
    free(fill);
    free(stack);
    free(child_next);
    free(child_tail);
    free(child_head);
    free(byproc);
    free(pstart);
    return out;
}

static uint32_t overflow_track(tp_trace *t, uint32_t base, uint32_t *cache)
{
    if (cache[base] != TP_NONE)
        return cache[base];
    const tp_track *b = &t->tracks[base];
    char name[512];
    const char *bn = tp_str_get(t, b->name);
    if (!*bn)
        snprintf(name, sizeof name, "%lld (overlap)", (long long)b->tid);
    else
        snprintf(name, sizeof name, "%s (overlap)", bn);
    uint32_t anchor = b->role == TP_TRACK_OVERFLOW && b->derived_of != TP_NONE ? b->derived_of : base;
    uint32_t k = tp_track_add(t, b->process, tp_intern_cstr(t, name), TP_TRACK_OVERFLOW, anchor);
    cache[base] = k;
    return k;
}

/* The index after the moves, without sorting again: a track that lost
 * slices (moved or dropped) keeps the rest in order, and each overflow track
 * made by the repair (ids from the old index's ntracks) holds the slices of
 * `moved`, which come grouped by overflow track in id order (row by row,
 * each row's tracks in their base track's order) and time-sorted within (a
 * part of a sorted list).  Costs a copy of the index instead of a walk over
 * every event. */
static void index_after_moves(const tp_trace *t, tp_track_index *ix, const bool *lost, const uint32_t *moved,
                              size_t nmoved)
{
    size_t ntr = t->ntracks, nold = ix->ntracks;
    size_t *start = tp_xcalloc(ntr + 1, sizeof *start);
    uint32_t *ev = tp_xmalloc((ix->start[nold] + 1) * sizeof *ev);
    size_t o = 0;
    for (size_t k = 0; k < nold; k++) {
        start[k] = o;
        const uint32_t *src = ix->ev + ix->start[k];
        size_t n = ix->start[k + 1] - ix->start[k];
        if (!lost[k]) {
            memcpy(ev + o, src, n * sizeof *ev);
            o += n;
            continue;
        }
        for (size_t q = 0; q < n; q++)
            if (t->events[src[q]].track == k && !(t->events[src[q]].flags & TP_EV_DROPPED))
                ev[o++] = src[q];
    }
    size_t m = 0;
    for (size_t k = nold; k < ntr; k++) {
        start[k] = o;
        while (m < nmoved && t->events[moved[m]].track == k)
            ev[o++] = moved[m++];
    }
    start[ntr] = o;
    tp_track_index_free(ix);
    ix->ev = ev;
    ix->start = start;
    ix->ntracks = ntr;
}

/* One set of tracks' walk of the nesting repair: depths set, the slices to
 * move listed in walk order with their row (tracks are made after: see
 * below). */
typedef struct row_stack {
    uint32_t *ev;
    size_t depth, cap;
} row_stack;

typedef struct walk_part {
    tp_trace *t;
    const tp_track_index *ix;
    size_t lo, hi;        /* tracks */
    uint64_t *moved;      /* row << 32 | event, off their track, in walk order */
    size_t nmoved, mcap;
    uint32_t *over;       /* events beyond the last overlap row */
    size_t nover, ocap;
    row_stack rows[TP_OVERLAP_ROWS + 1]; /* row 0: the track itself */
} walk_part;

/* Does row r's open slice (after closing those that ended) enclose e? */
static bool row_takes(const tp_trace *t, row_stack *r, const tp_event *e)
{
    while (r->depth) {
        const tp_event *top = &t->events[r->ev[r->depth - 1]];
        if (top->ts + top->dur > e->ts || (top->dur == 0 && e->dur == 0 && top->ts == e->ts))
            break;
        r->depth--;
    }
    if (!r->depth)
        return true;
    const tp_event *top = &t->events[r->ev[r->depth - 1]];
    return e->ts + e->dur <= top->ts + top->dur;
}

/* Each slice, in the nesting order, goes on the first row (the track, then
 * its overlap rows) where it nests: the same rows as repairing the track,
 * then the slices it moved, and so on, without walking the track again for
 * each row. */
static void *walk_part_main(void *p)
{
    walk_part *w = p;
    tp_trace *t = w->t;
    const tp_track_index *ix = w->ix;
    for (size_t k = w->lo; k < w->hi; k++) {
        size_t used = 1; /* rows with open slices on this track */
        w->rows[0].depth = 0;
        for (size_t j = ix->start[k]; j < ix->start[k + 1]; j++) {
            uint32_t i = ix->ev[j];
            tp_event *e = &t->events[i];
            if (e->ph != 'X')
                continue;
            size_t r = 0;
            while (r < used && !row_takes(t, &w->rows[r], e))
                r++;
            if (r > TP_OVERLAP_ROWS) {
                TP_GROW(w->over, w->ocap, w->nover + 1);
                w->over[w->nover++] = i;
                continue;
            }
            row_stack *rs = &w->rows[r];
            if (r == used) {
                rs->depth = 0;
                used++;
            }
            e->depth = (uint32_t)rs->depth;
            TP_GROW(rs->ev, rs->cap, rs->depth + 1);
            rs->ev[rs->depth++] = i;
            if (r) {
                TP_GROW(w->moved, w->mcap, w->nmoved + 1);
                w->moved[w->nmoved++] = (uint64_t)r << 32 | i;
            }
        }
    }
    return NULL;
}

uint64_t tp_nest_repair(tp_trace *t, tp_track_index *out)
{
    tp_track_index ix;
    tp_track_index_build(t, &ix);
    size_t ntr = t->ntracks;
    /* two sets of tracks walked at once; the moves are then made in walk
     * order, row by row (overflow tracks numbered as repairing the tracks,
     * then their overflow tracks, and so on, would number them) */
    walk_part *a = tp_xcalloc(2, sizeof *a), *b = a + 1;
    a->t = b->t = t;
    a->ix = b->ix = &ix;
    a->lo = 0;
    a->hi = b->lo = even_split(ix.start, ntr);
    b->hi = ntr;
    run_pair(walk_part_main, a, b, ix.start[ntr], PAR_INDEX_MIN);
    size_t nmoved = a->nmoved + b->nmoved, nover = a->nover + b->nover;
    uint64_t *all = tp_xmalloc((nmoved + 1) * sizeof *all);
    if (a->nmoved)
        memcpy(all, a->moved, a->nmoved * sizeof *all);
    if (b->nmoved)
        memcpy(all + a->nmoved, b->moved, b->nmoved * sizeof *all);
    /* stable by row: (row, track, time) */
    size_t count[TP_OVERLAP_ROWS + 2] = {0};
    for (size_t j = 0; j < nmoved; j++)
        count[(all[j] >> 32) + 1]++;
    for (size_t r = 1; r <= TP_OVERLAP_ROWS + 1; r++)
        count[r] += count[r - 1];
    uint32_t *moved = tp_xmalloc((nmoved + 1) * sizeof *moved);
    for (size_t j = 0; j < nmoved; j++)
        moved[count[all[j] >> 32]++] = (uint32_t)all[j];
    /* the track of each (track, row): row r's is the overflow track of row r - 1's */
    bool *lost = tp_xcalloc(ntr + 1, sizeof *lost);
    uint32_t *cache = tp_xmalloc((ntr + nmoved + 1) * sizeof *cache);
    uint32_t *cur = tp_xmalloc((ntr + 1) * sizeof *cur);   /* track k's row track of the row being placed */
    uint32_t *at_row = tp_xcalloc(ntr + 1, sizeof *at_row); /* the row cur[k] is of */
    for (size_t k = 0; k < ntr + nmoved; k++)
        cache[k] = TP_NONE;
    for (size_t k = 0; k < ntr; k++)
        cur[k] = (uint32_t)k;
    for (size_t j = 0, r = 1; j < nmoved; j++) {
        uint32_t i = moved[j], k = t->events[i].track;
        while (j >= count[r])
            r++;
        lost[k] = true;
        if (at_row[k] != r) {
            cur[k] = overflow_track(t, cur[k], cache);
            at_row[k] = (uint32_t)r;
        }
        t->events[i].track = cur[k];
    }
    free(at_row);
    free(cur);
    free(cache);
    free(all);
    for (int h = 0; h < 2; h++)
        for (size_t j = 0; j < (h ? b : a)->nover; j++) { /* past the last overlap row: dropped, counted */
            uint32_t i = (h ? b : a)->over[j];
            lost[t->events[i].track] = true;
            tp_drop(t, i, "slices past " TP_OVERLAP_ROWS_TEXT " overlap rows");
        }
    if (nmoved || nover)
        index_after_moves(t, &ix, lost, moved, nmoved);
    free(lost);
    free(moved);
    for (int h = 0; h < 2; h++) {
        walk_part *w = h ? b : a;
        free(w->moved);
        free(w->over);
        for (size_t r = 0; r <= TP_OVERLAP_ROWS; r++)
            free(w->rows[r].ev);
    }
    free(a);
    if (out)
        *out = ix;
    else
        tp_track_index_free(&ix);
    return nmoved;
}
