/* derive_linked.c: derived lines for traces whose device events are linked
 * to the host calls that launched them (PyTorch / Kineto after tp_link):
 *   Framework Ops  = the top-level host op around the launch call,
 *   Name Scope     = the annotations (modules, user_annotation,
 *                    python_function) around the launch, outermost first,
 *   Steps          = the step (ProfilerStep#N) around the launch.
 * Annotations carry the host event of each op call and scope so that two
 * calls of one op stay two events; the engine in derive.c does the rest. */
#include "convert/model/derive.h"
#include "convert/model/tracks.h"

#include <stdlib.h>
#include <string.h>

void tp_host_slices_free(tp_host_slices *hs)
{
    free(hs->list);
    free(hs->start);
    memset(hs, 0, sizeof *hs);
}

#define HOST_SLICE(e)                                                                                                  \
    ((e)->ph == 'X' && !((e)->flags & (TP_EV_DROPPED | TP_EV_DERIVED)) && (e)->track < t->ntracks &&                 \
     t->tracks[(e)->track].role == TP_TRACK_HOST)

/* Each track's host slices in time order (a counting partition, then the
 * inlined merge sort: qsort_r over all of them cost twice as much at 1 GB). */
static void sort_host_slices(const tp_trace *t, tp_host_slices *hs)
{
    size_t *start = tp_xcalloc(t->ntracks + 1, sizeof *start);
    for (size_t i = 0; i < t->nevents; i++)
        if (HOST_SLICE(&t->events[i]))
            start[t->events[i].track + 1]++;
    for (size_t k = 0; k < t->ntracks; k++)
        start[k + 1] += start[k];
    uint32_t *list = tp_xmalloc((start[t->ntracks] + 1) * sizeof *list);
    size_t *fill = tp_xmalloc((t->ntracks + 1) * sizeof *fill);
    memcpy(fill, start, (t->ntracks + 1) * sizeof *fill);
    for (size_t i = 0; i < t->nevents; i++)
        if (HOST_SLICE(&t->events[i]))
            list[fill[t->events[i].track]++] = (uint32_t)i;
    free(fill);
    for (size_t k = 0; k < t->ntracks; k++)
        tp_sort_by_time(t, list + start[k], start[k + 1] - start[k]);
    *hs = (tp_host_slices){list, start, t->nevents, t->ntracks};
}

static bool is_step(const tp_trace *t, const tp_event *e, int64_t *num)
{
    if (e->flags & TP_EV_STEP) {
        *num = (int64_t)e->id;
        return true;
    }
    const char *s = tp_str_get(t, e->name);
    if (strncmp(s, "ProfilerStep#", 13) != 0 || !s[13])
        return false;
    char *end;
    long long v = strtoll(s + 13, &end, 10);
    if (*end)
        return false;
    *num = v;
    return true;
}

/* parent[i]: the innermost complete event on the same host track enclosing
 * i.  hs: linking's lists when they are still the trace's (then the slices
 * dropped or derived since are skipped), else sorted here.  The same walk
 * lists the host step events (ProfilerStep#N) in *steps (any order: the
 * caller sorts them), instead of a pass of its own over every event. */
static uint32_t *host_parents(const tp_trace *t, const tp_host_slices *linked, uint32_t **steps, size_t *nsteps)
{
    size_t steps_cap = 0;
    uint32_t *parent = tp_xmalloc((t->nevents + 1) * sizeof *parent);
    memset(parent, 0xff, (t->nevents + 1) * sizeof *parent); /* TP_NONE */
    tp_host_slices own = {0};
    const tp_host_slices *hs = linked;
    if (!hs || !hs->list || hs->nevents != t->nevents || hs->ntracks != t->ntracks) {
        sort_host_slices(t, &own);
        hs = &own;
    }
    uint32_t *stack = tp_xmalloc((hs->start[t->ntracks] + 1) * sizeof *stack);
    for (size_t k = 0; k < t->ntracks; k++) {
        const uint32_t *list = hs->list + hs->start[k];
        size_t n = hs->start[k + 1] - hs->start[k], sp = 0;
        for (size_t j = 0; j < n; j++) {
            const tp_event *e = &t->events[list[j]];
            if (!HOST_SLICE(e))
                continue;
            while (sp && t->events[stack[sp - 1]].ts + t->events[stack[sp - 1]].dur < e->ts + e->dur)
                sp--; /* the top ends before e ends: not an ancestor */
            parent[list[j]] = sp ? stack[sp - 1] : TP_NONE;
            stack[sp++] = list[j];
            int64_t num;
            if (is_step(t, e, &num)) {
                TP_GROW(*steps, steps_cap, *nsteps + 1);
                (*steps)[(*nsteps)++] = list[j];
            }
        }
    }
    free(stack);
    tp_host_slices_free(&own);
    return parent;
}
#undef HOST_SLICE

/* The step whose time holds `at`: steps[] is in time order; when the steps
 * overlap, the first in event order (a scan), else the one a binary search
 * finds (a trace has hundreds of steps and millions of kernels). */
static uint32_t step_at(const tp_trace *t, const uint32_t *steps, size_t n, bool disjoint, int64_t at)
{
    if (!disjoint) {
        uint32_t best = TP_NONE;
        for (size_t s = 0; s < n; s++) {
            const tp_event *h = &t->events[steps[s]];
            if (h->ts <= at && at < h->ts + h->dur && steps[s] < best)
                best = steps[s];
        }
        return best;
    }
    size_t lo = 0, hi = n; /* the first step starting after at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->events[steps[mid]].ts <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return TP_NONE;
    const tp_event *h = &t->events[steps[lo - 1]];
    return at < h->ts + h->dur ? steps[lo - 1] : TP_NONE;
}

static void add_name(tp_derive_input *in, int64_t group, tp_str name)
{
    if (in->nnames && in->names[in->nnames - 1].group == group)
        return; /* kernels come step by step: the common case, without the scan */
    for (size_t s = 0; s < in->nnames; s++)
        if (in->names[s].group == group)
            return;
    TP_GROW(in->names, in->names_cap, in->nnames + 1);
    in->names[in->nnames].group = group;
    in->names[in->nnames++].name = name;
}

void tp_derived_lines_recognise(tp_trace *t)
{
    /* a converted trace read again: device tracks whose events are all
     * "derived" are derived lines */
    tp_str cat = tp_str_find(t, TP_DERIVED_CAT, strlen(TP_DERIVED_CAT));
    if (!cat) /* no event has the category: not a converted trace */
        return;
    uint32_t *nall = tp_xcalloc(t->ntracks + 1, sizeof *nall), *nder = tp_xcalloc(t->ntracks + 1, sizeof *nder);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->track >= t->ntracks || e->ph == 'M' || (e->flags & TP_EV_DROPPED))
            continue;
        nall[e->track]++;
        nder[e->track] += e->cat == cat;
    }
    for (int pass = 0; pass < 2; pass++) /* derived lines, then the writer's "(overlap)" rows of them */
        for (size_t k = 0; k < t->ntracks; k++) {
            tp_track *tr = &t->tracks[k];
            if (tr->role != TP_TRACK_DEVICE || nall[k] == 0 || nder[k] != nall[k])
                continue;
            const char *name = tp_str_get(t, tr->name);
            size_t nl = strlen(name);
            bool overlap = nl > 10 && strcmp(name + nl - 10, " (overlap)") == 0;
            if (overlap != (pass == 1))
                continue;
            uint32_t anchor = TP_NONE;
            if (!overlap) { /* beside the stream before it (per-stream lines), else the first stream */
                for (size_t j = 0; j < t->ntracks && (anchor == TP_NONE || j < k); j++)
                    if (t->tracks[j].process == tr->process && t->tracks[j].role == TP_TRACK_DEVICE &&
                        (nall[j] == 0 || nder[j] != nall[j]))
                        anchor = (uint32_t)j;
            } else { /* beside the last derived line of that name before it */
                for (size_t j = 0; j < k; j++)
                    if (t->tracks[j].process == tr->process && t->tracks[j].role == TP_TRACK_DERIVED &&
                        tp_str_len(t, t->tracks[j].name) == nl - 10 &&
                        strncmp(tp_str_get(t, t->tracks[j].name), name, nl - 10) == 0)
                        anchor = (uint32_t)j;
            }
            if (anchor != TP_NONE) {
                tr->role = overlap ? TP_TRACK_OVERFLOW : TP_TRACK_DERIVED;
                tr->derived_of = anchor;
            }
        }
    free(nall);
    free(nder);
    /* their events are derived: not counted as the trace's own slices */
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        if (e->cat == cat && e->track < t->ntracks &&
            (t->tracks[e->track].role == TP_TRACK_DERIVED ||
             (t->tracks[e->track].role == TP_TRACK_OVERFLOW && t->tracks[e->track].derived_of != TP_NONE &&
              t->tracks[t->tracks[e->track].derived_of].role == TP_TRACK_DERIVED)))
            e->flags |= TP_EV_DERIVED;
    }
}

/* What a launch inside host event h belongs to, from h and its ancestors:
 * computed once per host event from its parent's (a kernel used to walk
 * its whole chain: 12k nested modules cost 72M steps and 1.8 GB of paths). */
typedef struct scope_info {
    uint32_t step;    /* the outermost step event (ProfilerStep#N), TP_NONE */
    int64_t group;    /* its number */
    uint32_t top;     /* the outermost host op, TP_NONE */
    uint32_t levels;  /* annotations above the top op in the path (at most TP_DERIVE_MAX_LEVELS) */
    uint64_t dropped; /* annotations above the top op left out (TP_DERIVE_MAX_LEVELS, TP_DERIVE_MAX_PATH_BYTES) */
    tp_str path;      /* their names, outermost first, joined by TP_DERIVE_SEP; 0 while empty */
    uint32_t inst;    /* offset in tp_derive_input.inst of their host events (+1) */
} scope_info;

typedef struct scope_memo {
    tp_i64map index; /* host event -> infos[] */
    scope_info *infos;
    size_t n, cap;
    uint32_t *chain;
    size_t chain_cap;
    tp_buf path;
    tp_i64map joined; /* (path << 32 | annotation name) -> the path with that level added: every step
                       * repeats the module tree, and joining and interning each instance's path anew
                       * (its whole prefix hashed at every level) was a third of the derived lines' time */
} scope_memo;

static scope_info scope_extend(tp_trace *t, tp_derive_input *in, scope_memo *m, const scope_info *base, uint32_t h)
{
    scope_info s = *base;
    const tp_event *e = &t->events[h];
    int64_t num;
    if (is_step(t, e, &num)) {
        if (s.group == TP_DERIVE_NO_GROUP) { /* the outermost step */
            s.step = h;
            s.group = num;
        }
    } else if (e->kind == TP_KIND_HOST_OP) {
        if (s.top == TP_NONE)
            s.top = h;
    } else if (e->kind == TP_KIND_ANNOTATION && s.top == TP_NONE) {
        /* scopes above the top-level op (inside it they are its internals); only the levels
         * that become derived events, so a path costs at most TP_DERIVE_MAX_LEVELS levels and
         * TP_DERIVE_MAX_PATH_BYTES, whatever the depth */
        size_t had = s.path ? tp_str_len(t, s.path) : 0, len = tp_str_len(t, e->name);
        if (s.dropped || s.levels == TP_DERIVE_MAX_LEVELS || had + (had > 0) + len > TP_DERIVE_MAX_PATH_BYTES) {
            s.dropped++;
            return s;
        }
        int64_t key = (int64_t)((uint64_t)s.path << 32 | e->name);
        uint32_t joined = tp_i64map_get(&m->joined, key);
        if (joined != TP_I64MAP_EMPTY)
            s.path = joined;
        else {
            m->path.len = 0;
            if (had) {
                tp_buf_put(&m->path, tp_str_get(t, s.path), had);
                tp_buf_putc(&m->path, TP_DERIVE_SEP);
            }
            /* one level per annotation, as in.inst has one entry per level: a separator
             * inside a name (hostile input) would add a level past the end of in.inst */
            for (const char *c = tp_str_get(t, e->name); *c; c++)
                tp_buf_putc(&m->path, *c == TP_DERIVE_SEP ? ' ' : *c);
            s.path = m->path.len ? tp_intern(t, m->path.data, m->path.len) : 0;
            tp_i64map_put(&m->joined, key, s.path);
        }
        TP_GROW(in->inst, in->inst_cap, in->ninst + s.levels + 1);
        if (s.levels)
            memcpy(in->inst + in->ninst, in->inst + base->inst, s.levels * sizeof *in->inst);
        in->inst[in->ninst + s.levels] = h + 1;
        s.inst = (uint32_t)in->ninst;
        in->ninst += ++s.levels;
    }
    return s;
}

/* The scope info of host event h (TP_NONE: none), its ancestors' first. */
static scope_info scope_of(tp_trace *t, tp_derive_input *in, scope_memo *m, const uint32_t *parent, uint32_t h)
{
    const scope_info none = {TP_NONE, TP_DERIVE_NO_GROUP, TP_NONE, 0, 0, 0, 0};
    size_t nc = 0;
    uint32_t p = h, at = TP_I64MAP_EMPTY;
    for (; p != TP_NONE && (at = tp_i64map_get(&m->index, p)) == TP_I64MAP_EMPTY; p = parent[p]) {
        TP_GROW(m->chain, m->chain_cap, nc + 1);
        m->chain[nc++] = p;
    }
    scope_info s = p == TP_NONE ? none : m->infos[at];
    while (nc-- > 0) { /* outermost first */
        s = scope_extend(t, in, m, &s, m->chain[nc]);
        TP_GROW(m->infos, m->cap, m->n + 1);
        m->infos[m->n] = s;
        tp_i64map_put(&m->index, m->chain[nc], (uint32_t)m->n++);
    }
    return s;
}

int tp_derive_lines(tp_trace *t, const tp_derive_opts *o, const tp_host_slices *hs)
{
    /* devices that already have derived lines (read from the file) keep them */
    bool *has_derived = tp_xcalloc(t->nprocesses + 1, sizeof *has_derived);
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].role == TP_TRACK_DERIVED)
            has_derived[t->tracks[i].process] = true;
    bool any = false; /* no linked kernel on a device without derived lines: nothing to do */
    for (size_t i = 0; i < t->nevents && !any; i++) {
        const tp_event *e = &t->events[i];
        any = e->kind == TP_KIND_KERNEL && e->link != TP_NONE && e->track < t->ntracks &&
              !has_derived[t->tracks[e->track].process];
    }
    if (!any) {
        free(has_derived);
        return 0;
    }
    /* host step events (ProfilerStep#N), for launches outside their thread */
    uint32_t *steps = NULL;
    size_t nsteps = 0;
    uint32_t *parent = host_parents(t, hs, &steps, &nsteps);
    tp_sort_by_time(t, steps, nsteps); /* (ts, longest first, index): one order whatever the listing's */
    bool steps_disjoint = true;
    for (size_t k = 1; k < nsteps && steps_disjoint; k++)
        steps_disjoint = t->events[steps[k - 1]].ts + t->events[steps[k - 1]].dur <= t->events[steps[k]].ts;
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    scope_memo memo = {0};
    size_t nev = t->nevents;
    for (size_t i = 0; i < nev; i++) {
        const tp_event e = t->events[i];
        if (e.kind != TP_KIND_KERNEL || e.link == TP_NONE || e.link >= nev || e.ph != 'X' ||
            (e.flags & (TP_EV_DROPPED | TP_EV_DERIVED)) || e.track >= t->ntracks)
            continue;
        uint32_t proc = t->tracks[e.track].process;
        if (has_derived[proc])
            continue;
        tp_annot a;
        memset(&a, 0, sizeof a);
        a.event = (uint32_t)i;
        a.flags = TP_ANNOT_OP_SOURCE;
        a.group = TP_DERIVE_NO_GROUP;
        a.scope_inst = TP_NONE;
        a.low_name = e.name;
        /* what the ancestors of the launch call say */
        const scope_info sc = scope_of(t, &in, &memo, parent, parent[e.link]);
        if (sc.step != TP_NONE) {
            a.group = sc.group;
            add_name(&in, sc.group, t->events[sc.step].name);
        }
        uint32_t top = sc.top; /* the outermost host op */
        in.levels_dropped += sc.dropped;
        if (top == TP_NONE && t->events[e.link].kind == TP_KIND_HOST_OP)
            top = e.link;
        if (a.group == TP_DERIVE_NO_GROUP) { /* launched from another thread (autograd): the step by time */
            uint32_t s = step_at(t, steps, nsteps, steps_disjoint, t->events[e.link].ts);
            int64_t num;
            if (s != TP_NONE && is_step(t, &t->events[s], &num)) {
                a.group = num;
                add_name(&in, num, t->events[s].name);
            }
        }
        if (top != TP_NONE) {
            a.op = t->events[top].name;
            a.op_display = a.op;
            a.op_inst = top + 1;
        }
        if (sc.path) {
            a.scopes = sc.path;
            a.scope_inst = sc.inst;
        }
        if (a.op || a.scopes || a.group != TP_DERIVE_NO_GROUP) {
            if (!a.op) { /* scopes and steps without an op: name the op line by the launch */
                a.op = t->events[e.link].name;
                a.op_display = a.op;
                a.op_inst = e.link + 1;
            }
            tp_derive_add(&in, &a);
        }
    }
    tp_derive_from(t, &in, o);
    tp_i64map_free(&memo.index);
    tp_i64map_free(&memo.joined);
    free(memo.infos);
    free(memo.chain);
    tp_buf_free(&memo.path);
    free(steps);
    free(parent);
    free(has_derived);
    tp_derive_input_free(&in);
    return 0;
}
