/* plaidml_emit.c: from merged PlaidML activities to model events: clock
 * alignment, start/end repair, tracks, kinds, links, args. */
#include "convert/read/plaidml/plaidml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LANES 64   /* per group; beyond that the writer's nesting repair takes over */
#define MAX_DEPTH 64   /* ancestor walks stop here (cycles in bad input) */

/* Which clocks are host clocks: clock index 0 of the current schema, and in
 * the 2017 schema the clocks that root activities run on. */
static void find_host_clocks(pml_state *s)
{
    bool any = false;
    for (size_t c = 0; c < s->nclocks; c++)
        if (s->clocks[c].key.tag == 2 && s->clocks[c].key.b == 0)
            s->clocks[c].host = true;
    for (size_t i = 0; i < s->nacts; i++) {
        const pml_act *a = &s->acts[i];
        if (!(a->flags & PML_HAS_START))
            continue;
        if (a->parent == TP_NONE && s->clocks[a->clock].key.tag == 1)
            s->clocks[a->clock].host = true;
        any |= s->clocks[a->clock].host;
    }
    /* no root activity on any clock (a log cut at the front): the clock of
     * the first activity is taken as the host clock */
    for (size_t i = 0; i < s->nacts && !any; i++)
        if (s->acts[i].flags & PML_HAS_START) {
            s->clocks[s->acts[i].clock].host = any = true;
            tp_warn(s->t, "plaidml: no host clock found (the first activity's clock is used)", 1);
        }
}

/* Device clocks get the smallest shift that starts every activity no earlier
 * than its parent on an already aligned clock (spec §7, the analysis tool's
 * _adjust_clocks for the usual host -> device star). */
static void align_clocks(pml_state *s)
{
    size_t nc = s->nclocks;
    if (nc == 0)
        return;
    bool *known = tp_xcalloc(nc, sizeof *known);
    bool *seen = tp_xcalloc(nc, sizeof *seen);
    int64_t *best = tp_xcalloc(nc, sizeof *best);
    for (size_t c = 0; c < nc; c++)
        known[c] = s->clocks[c].host;
    for (size_t pass = 0; pass < nc; pass++) {
        memset(seen, 0, nc * sizeof *seen);
        for (size_t i = 0; i < s->nacts; i++) {
            const pml_act *a = &s->acts[i];
            if (a->parent == TP_NONE || !(a->flags & PML_HAS_START) || known[a->clock])
                continue;
            const pml_act *p = &s->acts[a->parent];
            if (!(p->flags & PML_HAS_START) || !known[p->clock] || p->clock == a->clock)
                continue;
            int64_t d;
            if (__builtin_sub_overflow(p->start + s->clocks[p->clock].offset, a->start, &d))
                continue;
            if (!seen[a->clock] || d > best[a->clock])
                best[a->clock] = d, seen[a->clock] = true;
        }
        bool progress = false;
        for (size_t c = 0; c < nc; c++)
            if (seen[c]) {
                s->clocks[c].offset = best[c] > 0 ? best[c] : 0;
                known[c] = progress = true;
            }
        if (!progress)
            break;
    }
    for (size_t c = 0; c < nc; c++)
        if (!known[c]) {
            bool used = false;
            for (size_t i = 0; i < s->nacts && !used; i++)
                used = s->acts[i].clock == c && (s->acts[i].flags & PML_HAS_START);
            if (used)
                tp_warn(s->t, "plaidml: device clock without host parents (not aligned)", 1);
        }
    free(known);
    free(seen);
    free(best);
}

/* Device activity groups, one track family each; Executing first. */
static int64_t device_group(const pml_state *s, tp_str verb)
{
    const char *v = tp_str_get(s->t, verb);
    if (pml_verb_is_executing(v))
        return 0;
    size_t n = strlen(v);
    if (n >= 10 && strcmp(v + n - 10, "::DevQueue") == 0)
        return 1;
    if (n >= 11 && strcmp(v + n - 11, "::HostQueue") == 0)
        return 2;
    return 3 + (int64_t)verb;
}

/* An activity being placed on a track. */
typedef struct place {
    uint64_t group;  /* device << 63 | clock or domain << 32 | device group */
    int64_t start, end;
    uint32_t act;
} place;

static uint64_t group_key(bool device, uint32_t group, int64_t sub)
{
    return (uint64_t)device << 63 | (uint64_t)(group & 0x7fffffff) << 32 | (uint64_t)(uint32_t)sub;
}

static bool place_device(const place *p) { return p->group >> 63; }
static uint32_t place_group(const place *p) { return (uint32_t)(p->group >> 32) & 0x7fffffff; }
static int64_t place_sub(const place *p) { return (uint32_t)p->group; }

/* Within a track family: by start, enclosing first, then activity order. */
static int act_cmp(const void *x, const void *y, void *ctx)
{
    const pml_state *s = ctx;
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    const pml_act *a = &s->acts[i], *b = &s->acts[j];
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return i < j ? -1 : i > j;
}

static uint64_t group_of(pml_state *s, const pml_act *a);

/* Across families too (only for logs with very many families). */
static int act_cmp_group(const void *x, const void *y, void *ctx)
{
    pml_state *s = ctx;
    uint64_t g = group_of(s, &s->acts[*(const uint32_t *)x]), h = group_of(s, &s->acts[*(const uint32_t *)y]);
    if (g != h)
        return g < h ? -1 : 1;
    return act_cmp(x, y, ctx);
}

static bool sorted(pml_state *s, const uint32_t *o, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (act_cmp(&o[i - 1], &o[i], s) > 0)
            return false;
    return true;
}

/* The track family of an activity (device groups cached per verb). */
static uint64_t group_of(pml_state *s, const pml_act *a)
{
    const pml_clock *c = &s->clocks[a->clock];
    if (c->host)
        return group_key(false, a->domain, 0);
    static const size_t NCACHE = sizeof s->gcache / sizeof s->gcache[0];
    for (size_t i = 0; i < s->ngcache; i++)
        if (s->gcache[i].verb == a->verb)
            return group_key(true, a->clock, s->gcache[i].group);
    int64_t g = device_group(s, a->verb);
    if (s->ngcache < NCACHE)
        s->gcache[s->ngcache++] = (struct pml_gcache){a->verb, g};
    return group_key(true, a->clock, g);
}

typedef struct lane {
    uint32_t track;
    int64_t *ends;
    size_t n, cap;
} lane;

/* Does [start,end) nest in this lane (after closing what ended)? */
static bool lane_fits(lane *l, int64_t start, int64_t end)
{
    while (l->n && l->ends[l->n - 1] <= start)
        l->n--;
    return l->n == 0 || l->ends[l->n - 1] >= end;
}

static void lane_push(lane *l, int64_t end)
{
    TP_GROW(l->ends, l->cap, l->n + 1);
    l->ends[l->n++] = end;
}

static uint32_t make_track(pml_state *s, const place *p, size_t lane_no, bool single_domain)
{
    tp_trace *t = s->t;
    char name[200];
    uint32_t proc;
    int64_t tid;
    if (!place_device(p)) {
        proc = tp_process_get(t, 1 + (int64_t)place_group(p));
        tp_process *P = &t->processes[proc];
        if (!P->name) {
            if (single_domain)
                snprintf(name, sizeof name, "PlaidML host");
            else
                snprintf(name, sizeof name, "PlaidML host (domain %u)", place_group(p));
            P->name = tp_intern_cstr(t, name);
            P->sort_index = 1 + (int64_t)place_group(p);
            P->has_sort = true;
        }
        tid = 1 + (int64_t)lane_no;
        snprintf(name, sizeof name, lane_no ? "activities #%zu" : "activities", lane_no + 1);
    } else {
        proc = tp_process_get(t, 1000 + (int64_t)place_group(p));
        tp_process *P = &t->processes[proc];
        if (!P->name) {
            size_t ndev = 0;
            for (size_t c = 0; c < s->nclocks; c++)
                ndev += !s->clocks[c].host;
            if (ndev == 1 && s->ndevices == 1)
                snprintf(name, sizeof name, "%s (device clock %u)", tp_str_get(t, s->devices[0].name), place_group(p));
            else
                snprintf(name, sizeof name, "PlaidML device clock %u", place_group(p));
            P->name = tp_intern_cstr(t, name);
            P->is_device = true;
            P->device = (int32_t)place_group(p);
            P->sort_index = 1000 + (int64_t)place_group(p);
            P->has_sort = true;
        }
        const char *base = place_sub(p) == 0   ? "Executing"
                           : place_sub(p) == 1 ? "Device queue"
                           : place_sub(p) == 2 ? "Host queue"
                                         : tp_str_get(t, s->acts[p->act].verb);
        if (lane_no)
            snprintf(name, sizeof name, "%s #%zu", base, lane_no + 1);
        else
            snprintf(name, sizeof name, "%s", base);
        tid = place_sub(p) * 100 + 1 + (int64_t)lane_no;
    }
    uint32_t tr = tp_track_get(t, proc, tid);
    tp_track *T = &t->tracks[tr];
    T->name = tp_intern_cstr(t, name);
    T->role = place_device(p) ? TP_TRACK_DEVICE : TP_TRACK_HOST;
    T->sort_index = tid;
    T->has_sort = true;
    return tr;
}

/* The kernel an activity ran: RunInfo on itself or its nearest ancestor. */
static const pml_kinfo *kernel_of(const pml_state *s, uint32_t a)
{
    for (int d = 0; a != TP_NONE && d < MAX_DEPTH; d++, a = s->acts[a].parent) {
        uint32_t k = s->acts[a].kernel;
        if (k != TP_NONE)
            return s->acts[k].kinfo != TP_NONE ? &s->kinfos[s->acts[k].kinfo] : NULL;
    }
    return NULL;
}

static uint8_t kind_of(const pml_state *s, const pml_act *a, bool device)
{
    const char *v = tp_str_get(s->t, a->verb);
    if (pml_verb_is_executing(v))
        return TP_KIND_KERNEL;
    if (device)
        return TP_KIND_OTHER; /* queue waits and other device spans */
    return strncmp(v, "tile::hal::", 11) == 0 ? TP_KIND_RUNTIME : TP_KIND_HOST_OP;
}

/* kind_of once per verb and side, not per activity: verbs are few and
 * string ids dense.  memo[2 * verb + device], 0xff = not worked out yet. */
static uint8_t kind_memo(const pml_state *s, const pml_act *a, bool device, uint8_t *memo, size_t nmemo)
{
    size_t i = 2 * (size_t)a->verb + device;
    if (i >= nmemo)
        return kind_of(s, a, device);
    if (memo[i] == 0xff)
        memo[i] = kind_of(s, a, device);
    return memo[i];
}

int pml_emit(pml_state *s, tp_err *err)
{
    (void)err;
    tp_trace *t = s->t;
    find_host_clocks(s);
    align_clocks(s);

    /* absolute times and repairs; then the activities to place, grouped by
     * track family (a counting sort: groups are few) and within a group by
     * time.  They come almost in time order already, so most groups need
     * no sort. */
    enum { MAXG = 256 };
    uint64_t gkeys[MAXG];
    size_t gcount[MAXG], ng = 0, np = 0, lastg = 0;
    bool too_many_groups = false, single_domain = true;
    int64_t first_domain = -1;
    for (size_t i = 0; i < s->nacts; i++) {
        pml_act *a = &s->acts[i];
        if (!(a->flags & PML_HAS_START)) {
            if (a->verb || (a->flags & PML_HAS_END))
                tp_warn(t, "plaidml: activity without start time (dropped)", 1);
            continue;
        }
        const pml_clock *c = &s->clocks[a->clock];
        if (!(a->flags & PML_HAS_END)) {
            a->end = c->end;
            tp_warn(t, "plaidml: activity without end (ends at the last time on its clock)", 1);
        }
        if (a->end < a->start) {
            if (a->flags & PML_HAS_END)
                tp_warn(t, "plaidml: activity ends before it starts (zero duration)", 1);
            a->end = a->start;
        }
        if (__builtin_add_overflow(a->start, c->offset, &a->start) ||
            __builtin_add_overflow(a->end, c->offset, &a->end)) {
            tp_warn(t, "plaidml: time out of range (ignored)", 1);
            continue;
        }
        a->flags |= PML_PLACED;
        np++;
        if (c->host) {
            if (first_domain < 0)
                first_domain = a->domain;
            else if (first_domain != a->domain)
                single_domain = false;
        }
        uint64_t key = group_of(s, a);
        size_t g = lastg < ng && gkeys[lastg] == key ? lastg : 0;
        while (g < ng && gkeys[g] != key)
            g++;
        if (g == ng) {
            if (ng == MAXG) {
                too_many_groups = true;
                continue;
            }
            gkeys[ng] = key;
            gcount[ng++] = 0;
        }
        gcount[g]++;
        a->group = (uint8_t)g;
        lastg = g;
    }
    /* families in key order (few: insertion sort of their numbers) */
    uint8_t byrank[MAXG];
    for (size_t x = 0; x < ng; x++)
        byrank[x] = (uint8_t)x;
    for (size_t x = 1; x < ng; x++)
        for (size_t y = x; y > 0 && gkeys[byrank[y - 1]] > gkeys[byrank[y]]; y--) {
            uint8_t k = byrank[y];
            byrank[y] = byrank[y - 1];
            byrank[y - 1] = k;
        }
    size_t gat[MAXG], pos = 0;
    for (size_t r = 0; r < ng; r++) {
        gat[byrank[r]] = pos;
        pos += gcount[byrank[r]];
    }
    /* activity indexes, not copies: 4 bytes each keeps page faults down */
    uint32_t *order = tp_xmalloc((np ? np : 1) * sizeof *order);
    size_t fill = 0;
    for (size_t i = 0; i < s->nacts; i++) {
        const pml_act *a = &s->acts[i];
        if (!(a->flags & PML_PLACED))
            continue;
        if (too_many_groups) /* a hostile log: plain order, full sort below */
            order[fill++] = (uint32_t)i;
        else
            order[gat[a->group]++] = (uint32_t)i;
    }
    if (too_many_groups) {
        qsort_r(order, np, sizeof *order, act_cmp_group, s);
    } else {
        pos = 0;
        for (size_t r = 0; r < ng; r++) {
            size_t n = gcount[byrank[r]];
            if (!sorted(s, order + pos, n))
                qsort_r(order + pos, n, sizeof *order, act_cmp, s);
            pos += n;
        }
    }

    /* lanes: a child goes on its parent's lane when it nests there */
    TP_GROW_EVENTS(t, t->nevents + np); /* once, not by steps */
    uint32_t *track_of = tp_xmalloc((s->nacts ? s->nacts : 1) * sizeof *track_of);
    for (size_t i = 0; i < s->nacts; i++)
        track_of[i] = TP_NONE;
    lane lanes[MAX_LANES];
    size_t nlanes = 0;
    memset(lanes, 0, sizeof lanes);
    uint64_t prev_group = 0;
    for (size_t i = 0; i < np; i++) {
        const pml_act *pa = &s->acts[order[i]];
        const place pp = {too_many_groups ? group_of(s, pa) : gkeys[pa->group], pa->start, pa->end, order[i]},
                    *p = &pp;
        if (i == 0 || p->group != prev_group) {
            for (size_t l = 0; l < nlanes; l++)
                lanes[l].n = 0;
            nlanes = 0;
        }
        size_t chosen = MAX_LANES;
        uint32_t par = s->acts[p->act].parent;
        if (par != TP_NONE && track_of[par] != TP_NONE)
            for (size_t l = 0; l < nlanes; l++)
                if (lanes[l].track == track_of[par] && lane_fits(&lanes[l], p->start, p->end))
                    chosen = l;
        for (size_t l = 0; l < nlanes && chosen == MAX_LANES; l++)
            if (lane_fits(&lanes[l], p->start, p->end))
                chosen = l;
        if (chosen == MAX_LANES) {
            if (nlanes < MAX_LANES) {
                chosen = nlanes++;
                lanes[chosen].n = 0;
                lanes[chosen].track = make_track(s, p, chosen, single_domain);
            } else {
                chosen = MAX_LANES - 1;
                tp_warn(t, "plaidml: too many overlapping activities for one track family", 1);
            }
        }
        lane_push(&lanes[chosen], p->end);
        track_of[p->act] = lanes[chosen].track;
        prev_group = p->group;
    }
    for (size_t l = 0; l < MAX_LANES; l++)
        free(lanes[l].ends);
    free(order);

    /* events in activity order (first mention in the log) */
    tp_argb scratch = {0};
    size_t nmemo = 2 * t->nstr;
    uint8_t *memo = tp_xmalloc(nmemo ? nmemo : 1);
    memset(memo, 0xff, nmemo);
    for (size_t i = 0; i < s->nacts; i++) {
        pml_act *a = &s->acts[i];
        if (track_of[i] == TP_NONE)
            continue;
        bool device = !s->clocks[a->clock].host;
        tp_event e;
        tp_event_init(&e);
        e.ts = a->start;
        e.dur = a->end - a->start;
        e.track = track_of[i];
        e.kind = kind_memo(s, a, device, memo, nmemo);
        e.cat = a->verb;
        e.name = a->verb ? a->verb : tp_intern_cstr(t, "(activity without verb)");
        tp_argb *b = a->meta != TP_NONE ? &s->metas[a->meta] : &scratch;
        const pml_kinfo *k = NULL;
        if (device || e.kind == TP_KIND_KERNEL) {
            k = kernel_of(s, (uint32_t)i);
            if (k && k->kname)
                e.name = k->kname;
        }
        if (t->keep_args && !device && a->kernel != TP_NONE && s->acts[a->kernel].kinfo != TP_NONE) {
            tp_str kn = s->kinfos[s->acts[a->kernel].kinfo].kname; /* Kernel::Run: which kernel */
            if (kn)
                tp_argb_cstr(b, "kernel", tp_str_get(t, kn));
        }
        if (t->keep_args && k && e.kind == TP_KIND_KERNEL) {
            if (k->type)
                tp_argb_cstr(b, "kernel_type", tp_str_get(t, k->type));
            if (k->flops >= 0)
                tp_argb_int(b, "flops", k->flops);
            if (k->bytes >= 0)
                tp_argb_int(b, "bytes", k->bytes);
        }
        e.args = tp_argb_commit(t, b);
        a->ev = tp_event_add(t, &e);
    }
    tp_argb_free(&scratch);
    free(memo);
    free(track_of);

    /* parent links: device execution -> the host activity that ran it
     * (`link`, drawn as a flow); everything else -> its parent (`op`) */
    for (size_t i = 0; i < s->nacts; i++) {
        const pml_act *a = &s->acts[i];
        if (a->ev == TP_NONE)
            continue;
        uint32_t p = a->parent;
        for (int d = 0; p != TP_NONE && s->acts[p].ev == TP_NONE && d < MAX_DEPTH; d++)
            p = s->acts[p].parent;
        if (p == TP_NONE || s->acts[p].ev == TP_NONE || p == i)
            continue;
        tp_event *e = &t->events[a->ev];
        bool device = !s->clocks[a->clock].host, pdevice = !s->clocks[s->acts[p].clock].host;
        if (device && !pdevice && e->kind == TP_KIND_KERNEL)
            e->link = s->acts[p].ev;
        else
            e->op = s->acts[p].ev;
    }
    return 0;
}
