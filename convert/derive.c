/* derive.c: the derivation engine (see derive.h, XPLANE.md §5). */
#include "derive.h"
#include "i64map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L_STEPS, L_LAUNCH, L_SCOPE, L_OPS, L_MODULES, L_HLO, L_SOURCE, L_N };

/* A derived event while its line is being built. */
typedef struct dev {
    int64_t ts, end;
    int64_t group;
    tp_str name, long_name;
    uint64_t args; /* prebuilt args (Launch Stats), else 0 */
} dev;

/* The last event of one level, and (2022 rule) the low-level names it covers. */
typedef struct dlevel {
    int64_t ev; /* index into the line's events, -1 = none */
    tp_str key;
    uint32_t inst;
    int64_t group;
    tp_i64map seen;
} dlevel;

typedef struct dline {
    dev *ev;
    size_t n, cap;
    dlevel *lv;
    size_t nlv, lvcap;
    int deps[3];
    int ndeps;
} dline;

typedef struct builder {
    tp_trace *t;
    const tp_derive_opts *o;
    dline line[L_N];
    bool gap_rule; /* non-GPU device: ungrouped events merge only across small gaps (2025) */
} builder;

void tp_derive_input_free(tp_derive_input *in)
{
    free(in->annots);
    free(in->launches);
    free(in->names);
    free(in->inst);
    memset(in, 0, sizeof *in);
}

static dlevel *level_at(dline *L, size_t level)
{
    while (L->nlv <= level) {
        TP_GROW(L->lv, L->lvcap, L->nlv + 1);
        memset(&L->lv[L->nlv], 0, sizeof L->lv[0]);
        L->lv[L->nlv].ev = -1;
        L->nlv++;
    }
    return &L->lv[level];
}

/* Make each deeper level of a stack of identical spans 1 ns shorter, so
 * viewers nest them deterministically (AdjustDurationForTraceViewer). */
static void adjust_for_viewer(dline *L, size_t level)
{
    if (level >= L->nlv || L->lv[level].ev < 0)
        return;
    size_t max = level;
    while (max + 1 < L->nlv && L->lv[max + 1].ev >= 0)
        max++;
    if (max == level)
        return;
    dev *top = &L->ev[L->lv[max].ev];
    int64_t max_shrink = top->end - top->ts - 1, shrink = 0;
    bool have_prev = false;
    int64_t pts = 0, pend = 0;
    for (size_t i = level; i <= max; i++) {
        dev *e = &L->ev[L->lv[i].ev];
        if (shrink < max_shrink && have_prev && pts == e->ts && pend == e->end)
            shrink++;
        have_prev = true;
        pts = e->ts;
        pend = e->end;
        if (shrink)
            e->end -= shrink;
    }
}

static void reset_levels(builder *b, int li, size_t level)
{
    dline *L = &b->line[li];
    if (b->o->era == TP_DERIVE_2024)
        adjust_for_viewer(L, level);
    for (size_t i = level; i < L->nlv; i++) {
        L->lv[i].ev = -1;
        tp_i64map_clear(&L->lv[i].seen);
    }
    if (level == 0)
        for (int d = 0; d < L->ndeps; d++)
            reset_levels(b, L->deps[d], 0);
}

static void expand_or_add(builder *b, int li, size_t level, tp_str key, uint32_t inst, tp_str name,
                          tp_str long_name, const tp_event *src, int64_t group, tp_str low)
{
    dline *L = &b->line[li];
    dlevel *lv = level_at(L, level);
    int64_t end = src->ts + src->dur;
    if (lv->ev >= 0) {
        dev *last = &L->ev[lv->ev];
        bool same = lv->key == key && lv->inst == inst;
        if (b->o->era != TP_DERIVE_2020)
            same = same && lv->group == group;
        if (b->o->era == TP_DERIVE_2020 && li == L_MODULES)
            same = false; /* 2020: one module event per kernel */
        if (same && b->o->era == TP_DERIVE_2022 && low && tp_i64map_get(&lv->seen, low) != TP_I64MAP_EMPTY)
            same = false; /* a repeated kernel is a new invocation of the op */
        if (same && b->gap_rule && group == TP_DERIVE_NO_GROUP && last->end + 2 * (last->end - last->ts) < src->ts)
            same = false;
        if (same) {
            if (end > last->end || b->o->era == TP_DERIVE_2020) /* 2020 set the end, even backwards */
                last->end = end;
            if (b->o->era == TP_DERIVE_2022 && low)
                tp_i64map_put(&lv->seen, low, 1);
            return;
        }
    }
    reset_levels(b, li, level);
    lv = level_at(L, level);
    TP_GROW(L->ev, L->cap, L->n + 1);
    dev *e = &L->ev[L->n];
    e->ts = src->ts;
    e->end = end;
    e->group = group;
    e->name = name;
    e->long_name = long_name != name ? long_name : 0;
    e->args = 0;
    lv->ev = (int64_t)L->n++;
    lv->key = key;
    lv->inst = inst;
    lv->group = group;
    if (b->o->era == TP_DERIVE_2022 && low)
        tp_i64map_put(&lv->seen, low, 1);
}

/* Levels of a TP_DERIVE_SEP-joined path; calls expand_or_add per level. */
static size_t expand_path(builder *b, int li, tp_str path, tp_str prefix, const uint32_t *inst,
                          const tp_event *src, int64_t group, tp_str low)
{
    tp_trace *t = b->t;
    const char *s = tp_str_get(t, path);
    size_t n = tp_str_len(t, path), level = 0, i = 0;
    tp_buf key = {0};
    while (i <= n && n) {
        const char *q = memchr(s + i, TP_DERIVE_SEP, n - i);
        size_t j = q ? (size_t)(q - s) : n;
        /* tp_str ids are stable, but the string pointer may move when interning: copy first */
        size_t len = j - i;
        char *piece = tp_xstrndup(s + i, len);
        tp_str name = tp_intern(t, piece, len);
        tp_str k = name;
        if (prefix) {
            key.len = 0;
            tp_buf_puts(&key, tp_str_get(t, prefix));
            tp_buf_putc(&key, '/');
            tp_buf_put(&key, piece, len);
            k = tp_intern(t, key.data, key.len);
        }
        free(piece);
        s = tp_str_get(t, path);
        expand_or_add(b, li, level, k, inst ? inst[level] : 0, name, name, src, group, low);
        level++;
        i = j + 1;
        if (!q)
            break;
    }
    tp_buf_free(&key);
    if (b->o->era != TP_DERIVE_2020) /* 2020 kept deeper levels open for the next call */
        reset_levels(b, li, level);
    return level;
}

static tp_str step_name(tp_trace *t, const tp_derive_input *in, int64_t group)
{
    for (size_t i = 0; i < in->nnames; i++)
        if (in->names[i].group == group)
            return in->names[i].name;
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)group);
    return tp_intern_cstr(t, b);
}

static int cmp_annot_time(const void *pa, const void *pb, void *ctx)
{
    const tp_trace *t = ctx;
    const tp_annot *a = pa, *b = pb;
    const tp_event *x = &t->events[a->event], *y = &t->events[b->event];
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return a->event < b->event ? -1 : a->event > b->event;
}

static const char *line_name(const tp_derive_opts *o, int li)
{
    switch (li) {
    case L_STEPS: return "Steps";
    case L_LAUNCH: return "Launch Stats";
    case L_SCOPE: return o->framework_names ? "Framework Name Scope" : "TensorFlow Name Scope";
    case L_OPS: return o->framework_names ? "Framework Ops" : "TensorFlow Ops";
    case L_MODULES: return "XLA Modules";
    case L_HLO: return "XLA Ops";
    default: return "Source code";
    }
}

/* Derived lines of one device from its annotations (sorted by time). */
static size_t derive_device(builder *b, uint32_t proc, const tp_annot *an, size_t n, const tp_derive_input *in)
{
    tp_trace *t = b->t;
    const tp_derive_opts *o = b->o;
    memset(b->line, 0, sizeof b->line);
    b->line[L_SCOPE].deps[b->line[L_SCOPE].ndeps++] = L_OPS;
    b->line[L_MODULES].deps[b->line[L_MODULES].ndeps++] = L_SCOPE;
    b->line[L_MODULES].deps[b->line[L_MODULES].ndeps++] = L_HLO;
    if (o->era == TP_DERIVE_2020) {
        b->line[L_STEPS].deps[b->line[L_STEPS].ndeps++] = L_OPS;
        b->line[L_STEPS].deps[b->line[L_STEPS].ndeps++] = L_SCOPE;
        b->line[L_STEPS].deps[b->line[L_STEPS].ndeps++] = L_HLO;
    }
    const char *pname = tp_str_get(t, t->processes[proc].name);
    b->gap_rule = strncmp(pname, "/device:", 8) == 0 && strncmp(pname, "/device:GPU:", 12) != 0;

    for (size_t i = 0; i < n; i++) {
        const tp_annot *a = &an[i];
        tp_event src = t->events[a->event]; /* a copy: interning below never moves events, but be safe */
        if (o->era == TP_DERIVE_2020 && a->group != TP_DERIVE_NO_GROUP) {
            tp_str g = step_name(t, in, a->group);
            expand_or_add(b, L_STEPS, 0, g, 0, g, g, &src, a->group, 0);
        }
        if (!(a->flags & TP_ANNOT_OP_SOURCE))
            continue;
        if (a->module)
            expand_or_add(b, L_MODULES, 0, a->module, 0, a->module, a->module, &src, a->group, a->low_name);
        if (a->hlo_ops)
            expand_path(b, L_HLO, a->hlo_ops, a->hlo_prefix, NULL, &src, a->group, a->low_name);
        if (a->op) {
            if (a->scopes)
                expand_path(b, L_SCOPE, a->scopes, 0, a->scope_inst == TP_NONE ? NULL : in->inst + a->scope_inst, &src,
                            a->group, a->low_name);
            else if (o->era != TP_DERIVE_2020)
                reset_levels(b, L_SCOPE, 0);
            expand_or_add(b, L_OPS, 0, a->op, a->op_inst, a->op_display, a->op, &src, a->group, a->low_name);
        }
        if (a->source)
            expand_or_add(b, L_SOURCE, 0, a->source, 0, a->source, a->source, &src, a->group, 0);
    }
    if (o->era != TP_DERIVE_2020) /* Steps: a pass of its own over every grouped event */
        for (size_t i = 0; i < n; i++)
            if (an[i].group != TP_DERIVE_NO_GROUP) {
                tp_event src = t->events[an[i].event];
                tp_str g = step_name(t, in, an[i].group);
                expand_or_add(b, L_STEPS, 0, g, 0, g, g, &src, an[i].group, 0);
            }
    for (int li = 0; li < L_N; li++)
        reset_levels(b, li, 0);

    /* Launch Stats: one event per step over the launches to this device */
    dline *LS = &b->line[L_LAUNCH];
    for (size_t i = 0; i < in->nlaunches; i++) {
        const tp_launch *la = &in->launches[i];
        if (la->device != proc)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = in->launches[j].device == proc && in->launches[j].group == la->group;
        if (seen)
            continue;
        int64_t lo = la->ts, hi = la->ts + la->dur, mx = 0, sum = 0, cnt = 0;
        for (size_t j = i; j < in->nlaunches; j++) {
            const tp_launch *x = &in->launches[j];
            if (x->device != proc || x->group != la->group)
                continue;
            lo = x->ts < lo ? x->ts : lo;
            hi = x->ts + x->dur > hi ? x->ts + x->dur : hi;
            mx = x->dur > mx ? x->dur : mx;
            sum += x->dur;
            cnt++;
        }
        tp_buf nb = {0};
        tp_buf_printf(&nb, "Launch Stats for %s", tp_str_get(t, step_name(t, in, la->group)));
        tp_argb ab = {0};
        tp_argb_int(&ab, "group_id", la->group);
        tp_argb_int(&ab, "num_launches", cnt);
        tp_argb_fixed(&ab, "max_launch_time_us", mx, 3);
        tp_argb_fixed(&ab, "avg_launch_time_us", (sum + cnt / 2) / cnt, 3);
        TP_GROW(LS->ev, LS->cap, LS->n + 1);
        dev *e = &LS->ev[LS->n++];
        memset(e, 0, sizeof *e);
        e->ts = lo;
        e->end = hi;
        e->group = la->group;
        e->name = tp_intern(t, nb.data, nb.len);
        e->args = tp_argb_commit(t, &ab);
        tp_argb_free(&ab);
        tp_buf_free(&nb);
    }

    /* commit: tracks in the viewer's order, beside the device's first stream */
    uint32_t first = TP_NONE;
    for (size_t i = 0; i < t->ntracks && first == TP_NONE; i++)
        if (t->tracks[i].process == proc && t->tracks[i].role == TP_TRACK_DEVICE)
            first = (uint32_t)i;
    size_t added = 0;
    tp_argb ab = {0};
    for (int li = 0; li < L_N; li++) {
        dline *L = &b->line[li];
        if (L->n) {
            uint32_t tr = tp_track_add(t, proc, tp_intern_cstr(t, line_name(o, li)), TP_TRACK_DERIVED, first);
            for (size_t i = 0; i < L->n; i++) {
                dev *d = &L->ev[i];
                tp_event e;
                tp_event_init(&e);
                e.ts = d->ts;
                e.dur = d->end - d->ts;
                e.track = tr;
                e.name = d->name;
                e.kind = TP_KIND_ANNOTATION;
                e.flags = TP_EV_DERIVED;
                if (li == L_STEPS && o->mark_steps && d->group != TP_DERIVE_NO_GROUP) {
                    e.flags |= TP_EV_STEP;
                    e.id = (uint64_t)d->group;
                }
                if (d->args) {
                    e.args = d->args;
                } else {
                    if (d->long_name)
                        tp_argb_str(&ab, "long_name", tp_str_get(t, d->long_name), tp_str_len(t, d->long_name));
                    if (d->group != TP_DERIVE_NO_GROUP)
                        tp_argb_int(&ab, "group_id", d->group);
                    e.args = tp_argb_commit(t, &ab);
                }
                tp_event_add(t, &e);
                added++;
            }
        }
        for (size_t i = 0; i < L->nlv; i++)
            tp_i64map_free(&L->lv[i].seen);
        free(L->lv);
        free(L->ev);
    }
    tp_argb_free(&ab);
    memset(b->line, 0, sizeof b->line);
    return added;
}

size_t tp_derive_from(tp_trace *t, const tp_derive_input *in, const tp_derive_opts *o)
{
    if (in->nannots == 0 && in->nlaunches == 0)
        return 0;
    tp_annot *an = tp_xmalloc((in->nannots + 1) * sizeof *an);
    memcpy(an, in->annots, in->nannots * sizeof *an);
    qsort_r(an, in->nannots, sizeof *an, cmp_annot_time, t);
    builder b;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.o = o;
    /* device processes in index order: output is deterministic */
    uint32_t *dev_of = tp_xmalloc((in->nannots + 1) * sizeof *dev_of);
    for (size_t i = 0; i < in->nannots; i++)
        dev_of[i] = t->tracks[t->events[an[i].event].track].process;
    size_t added = 0, nproc = t->nprocesses;
    tp_annot *sub = tp_xmalloc((in->nannots + 1) * sizeof *sub);
    for (uint32_t p = 0; p < nproc; p++) {
        size_t n = 0;
        for (size_t i = 0; i < in->nannots; i++)
            if (dev_of[i] == p)
                sub[n++] = an[i];
        bool launches = false;
        for (size_t i = 0; i < in->nlaunches && !launches; i++)
            launches = in->launches[i].device == p;
        if (n || launches)
            added += derive_device(&b, p, sub, n, in);
    }
    free(sub);
    free(dev_of);
    free(an);
    return added;
}
