/* derive.c: the derivation engine (see derive.h, XPLANE.md §5). */
#include "convert/model/derive.h"
#include "convert/base/i64map.h"
#include "convert/base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L_STEPS, L_LAUNCH, L_SCOPE, L_OPS, L_MODULES, L_HLO, L_SOURCE, L_LAYERS, L_N };

/* A derived event while its line is being built. */
typedef struct dev {
    int64_t ts, end;
    int64_t group;
    tp_str name, long_name;
    uint64_t args; /* prebuilt args (Launch Stats, windows), else 0 */
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
    size_t nactive; /* levels [nactive, nlv) are reset (ev -1, seen empty): resets stop there, so a
                     * path of depth d costs O(d), not O(d * deepest path seen) */
    int deps[3];
    int ndeps;
} dline;

/* One device's lines, built and not yet in the trace. */
typedef struct dev_lines {
    uint32_t proc, anchor;
    dev *ev[L_N];
    size_t n[L_N];
} dev_lines;

struct tp_derive_job {
    tp_trace *t;
    tp_derive_opts o;
    uint64_t levels_dropped; /* name-scope / HLO levels past TP_DERIVE_MAX_LEVELS (warned at commit) */
    dev_lines *dev;
    size_t ndev;
};

typedef struct builder {
    tp_trace *t;
    const tp_derive_opts *o;
    /* split paths: (prefix << 32 | path) -> offset in pool of [n, name1, key1, ...] */
    tp_i64map paths;
    tp_str *pool;
    size_t npool, pool_cap;
    uint64_t levels_dropped;
    int64_t last_path;     /* the key of the last path split_path returned, and its offset */
    uint32_t last_path_off;
    int64_t last_group;
    tp_str last_group_name;
    dline line[L_N];
    bool gap_rule; /* non-GPU device: ungrouped events merge only across small gaps (2025) */
} builder;

tp_derive_era tp_derive_era_of(int rule)
{
    return rule == 2020 ? TP_DERIVE_2020 : rule == 2022 ? TP_DERIVE_2022 : TP_DERIVE_2024;
}

void tp_derive_input_free(tp_derive_input *in)
{
    free(in->annots);
    free(in->insts);
    free(in->classes);
    tp_i64map_free(&in->class_index);
    free(in->launches);
    tp_i64map_free(&in->launch_index);
    free(in->names);
    free(in->inst);
    free(in->windows);
    memset(in, 0, sizeof *in);
}

static bool same_class(const tp_annot *a, const tp_annot *b)
{
    return a->flags == b->flags && a->op == b->op && a->op_display == b->op_display && a->scopes == b->scopes &&
           a->module == b->module && a->hlo_ops == b->hlo_ops && a->hlo_prefix == b->hlo_prefix &&
           a->source == b->source && a->low_name == b->low_name;
}

static tp_launch *launch_record(tp_derive_input *in, uint32_t device, int64_t group, int64_t lo, int64_t hi);

/* The class of annotation a: found, or added. */
static uint32_t class_of(tp_derive_input *in, const tp_annot *a)
{
    const uint32_t f[9] = {a->flags, a->op, a->op_display, a->scopes, a->module, a->hlo_ops, a->hlo_prefix,
                           a->source, a->low_name};
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 9; i++)
        h = (h ^ f[i]) * 1099511628211ull;
    uint32_t c = tp_i64map_get(&in->class_index, (int64_t)h);
    if (c == TP_I64MAP_EMPTY || !same_class(&in->classes[c], a)) {
        bool fresh = c == TP_I64MAP_EMPTY; /* on a hash collision the class is just not shared */
        TP_GROW(in->classes, in->classes_cap, in->nclasses + 1);
        in->classes[in->nclasses] = *a;
        c = (uint32_t)in->nclasses++;
        if (fresh)
            tp_i64map_put(&in->class_index, (int64_t)h, c);
    }
    return c;
}

void tp_derive_add(tp_derive_input *in, const tp_annot *a)
{
    uint32_t c = class_of(in, a);
    TP_GROW(in->annots, in->annots_cap, in->nannots + 1);
    if (!in->insts && (a->op_inst != 0 || a->scope_inst != TP_NONE)) { /* the first with invocation ids */
        in->insts = tp_xmalloc(in->annots_cap * sizeof *in->insts);
        in->insts_cap = in->annots_cap;
        for (size_t i = 0; i < in->nannots; i++)
            in->insts[i] = (tp_annot_inst){0, TP_NONE};
    }
    if (in->insts) {
        TP_GROW(in->insts, in->insts_cap, in->nannots + 1);
        in->insts[in->nannots] = (tp_annot_inst){a->op_inst, a->scope_inst};
    }
    tp_annot_item *it = &in->annots[in->nannots++];
    it->event = a->event;
    it->cls = c;
    it->group = a->group;
}

bool tp_derive_input_append(tp_derive_input *dst, const tp_derive_input *src, uint32_t ev_shift, const tp_str *smap)
{
    if (src->insts || src->nwindows || src->ninst || src->nnames)
        return false;
    /* classes in their first use, as tp_derive_add would have made them */
    uint32_t *cmap = tp_xmalloc((src->nclasses + 1) * sizeof *cmap);
    for (size_t c = 0; c < src->nclasses; c++)
        cmap[c] = TP_NONE;
    if (dst->insts)
        TP_GROW(dst->insts, dst->insts_cap, dst->nannots + src->nannots);
    TP_GROW(dst->annots, dst->annots_cap, dst->nannots + src->nannots);
    for (size_t i = 0; i < src->nannots; i++) {
        tp_annot_item it = src->annots[i];
        if (cmap[it.cls] == TP_NONE) {
            tp_annot a = src->classes[it.cls];
            tp_str *f[] = {&a.op, &a.op_display, &a.scopes, &a.module, &a.hlo_ops, &a.hlo_prefix, &a.source,
                           &a.low_name};
            for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
                *f[k] = smap[*f[k]];
            cmap[it.cls] = class_of(dst, &a);
        }
        it.cls = cmap[it.cls];
        it.event += ev_shift;
        if (dst->insts)
            dst->insts[dst->nannots] = (tp_annot_inst){0, TP_NONE};
        dst->annots[dst->nannots++] = it;
    }
    free(cmap);
    /* launch records: combined with the same (device, group), as their launches would have been */
    for (size_t i = 0; i < src->nlaunches; i++) {
        const tp_launch *l = &src->launches[i];
        tp_launch *d = launch_record(dst, l->device, l->group, l->lo, l->hi);
        d->lo = l->lo < d->lo ? l->lo : d->lo;
        d->hi = l->hi > d->hi ? l->hi : d->hi;
        d->max_dur = l->max_dur > d->max_dur ? l->max_dur : d->max_dur;
        d->sum_dur += l->sum_dur;
        d->count += l->count;
    }
    return true;
}

void tp_derive_add_window(tp_derive_input *in, const tp_window *w)
{
    TP_GROW(in->windows, in->windows_cap, in->nwindows + 1);
    in->windows[in->nwindows++] = *w;
}

bool tp_launch_counted(const char *name, size_t len)
{
    return !(len >= 2 && name[0] == 'c' && name[1] == 'u');
}

/* The record of (device, group): found, or made empty (count 0) with the span [lo, hi]. */
static tp_launch *launch_record(tp_derive_input *in, uint32_t device, int64_t group, int64_t lo, int64_t hi)
{
    /* small devices and groups share one map key; others are searched */
    bool keyed = device < 256 && group >= 0 && group < (INT64_C(1) << 54);
    int64_t key = group * 256 + (int64_t)device;
    uint32_t i = keyed ? tp_i64map_get(&in->launch_index, key) : TP_I64MAP_EMPTY;
    if (!keyed)
        for (size_t j = 0; j < in->nlaunches && i == TP_I64MAP_EMPTY; j++)
            if (in->launches[j].device == device && in->launches[j].group == group)
                i = (uint32_t)j;
    if (i == TP_I64MAP_EMPTY) {
        TP_GROW(in->launches, in->launches_cap, in->nlaunches + 1);
        tp_launch *la = &in->launches[in->nlaunches];
        memset(la, 0, sizeof *la);
        la->device = device;
        la->group = group;
        la->lo = lo;
        la->hi = hi;
        i = (uint32_t)in->nlaunches++;
        if (keyed)
            tp_i64map_put(&in->launch_index, key, i);
    }
    return &in->launches[i];
}

void tp_derive_add_launch(tp_derive_input *in, uint32_t device, int64_t group, int64_t ts, int64_t dur)
{
    tp_launch *la = launch_record(in, device, group, ts, ts + dur);
    la->lo = ts < la->lo ? ts : la->lo;
    la->hi = ts + dur > la->hi ? ts + dur : la->hi;
    la->max_dur = dur > la->max_dur ? dur : la->max_dur;
    la->sum_dur += dur;
    la->count++;
}

static inline dlevel *level_at(dline *L, size_t level)
{
    if (level < L->nlv)
        return &L->lv[level];
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
    if (level >= L->nactive || L->lv[level].ev < 0)
        return;
    size_t max = level;
    while (max + 1 < L->nactive && L->lv[max + 1].ev >= 0)
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
    for (size_t i = level; i < L->nactive; i++) {
        L->lv[i].ev = -1;
        tp_i64map_clear(&L->lv[i].seen);
    }
    if (level < L->nactive)
        L->nactive = level;
    if (level == 0)
        for (int d = 0; d < L->ndeps; d++)
            reset_levels(b, L->deps[d], 0);
}

/* One kernel's span (ts, end): what the lines need of its event. */
typedef struct span {
    int64_t ts, end;
} span;

static void expand_or_add(builder *b, int li, size_t level, tp_str key, uint32_t inst, tp_str name,
                          tp_str long_name, const span *src, int64_t group, tp_str low)
{
    dline *L = &b->line[li];
    dlevel *lv = level_at(L, level);
    int64_t end = src->end;
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
    if (level + 1 > L->nactive)
        L->nactive = level + 1;
    lv->key = key;
    lv->inst = inst;
    lv->group = group;
    if (b->o->era == TP_DERIVE_2022 && low)
        tp_i64map_put(&lv->seen, low, 1);
}

/* The levels of a TP_DERIVE_SEP-joined path as (name, key) pairs, split and
 * interned once per distinct path and prefix. */
static const tp_str *split_path(builder *b, tp_str path, tp_str prefix)
{
    int64_t k = (int64_t)((uint64_t)prefix << 32 | path);
    if (b->last_path_off != TP_I64MAP_EMPTY && b->last_path == k) /* kernels of one op come together */
        return b->pool + b->last_path_off;
    uint32_t off = tp_i64map_get(&b->paths, k);
    if (off != TP_I64MAP_EMPTY) {
        b->last_path = k;
        b->last_path_off = off;
        return b->pool + off;
    }
    tp_trace *t = b->t;
    char *s = tp_xstrndup(tp_str_get(t, path), tp_str_len(t, path)); /* interning may move the pool */
    size_t n = tp_str_len(t, path), at = b->npool;
    TP_GROW(b->pool, b->pool_cap, b->npool + 1);
    b->pool[b->npool++] = 0;
    tp_buf key = {0};
    for (size_t i = 0; i <= n && n;) {
        const char *q = memchr(s + i, TP_DERIVE_SEP, n - i);
        size_t j = q ? (size_t)(q - s) : n;
        tp_str name = tp_intern(t, s + i, j - i), kk = name;
        if (prefix) {
            key.len = 0;
            tp_buf_puts(&key, tp_str_get(t, prefix));
            tp_buf_putc(&key, '/');
            tp_buf_put(&key, s + i, j - i);
            kk = tp_intern(t, key.data, key.len);
        }
        TP_GROW(b->pool, b->pool_cap, b->npool + 2);
        b->pool[b->npool++] = name;
        b->pool[b->npool++] = kk;
        b->pool[at]++;
        i = j + 1;
        if (!q)
            break;
        if (b->pool[at] == TP_DERIVE_MAX_LEVELS) { /* deeper levels: counted, not derived */
            for (const char *r = q; r; r = memchr(r + 1, TP_DERIVE_SEP, n - (size_t)(r + 1 - s)))
                b->levels_dropped++;
            break;
        }
    }
    tp_buf_free(&key);
    free(s);
    tp_i64map_put(&b->paths, k, (uint32_t)at);
    return b->pool + at;
}

/* Levels of a TP_DERIVE_SEP-joined path; calls expand_or_add per level. */
static size_t expand_path(builder *b, int li, tp_str path, tp_str prefix, const uint32_t *inst,
                          const span *src, int64_t group, tp_str low)
{
    const tp_str *lv = split_path(b, path, prefix); /* the pool does not grow below */
    size_t n = lv[0];
    for (size_t level = 0; level < n; level++) {
        tp_str name = lv[1 + 2 * level], key = lv[2 + 2 * level];
        expand_or_add(b, li, level, key, inst ? inst[level] : 0, name, name, src, group, low);
    }
    if (b->o->era != TP_DERIVE_2020) /* 2020 kept deeper levels open for the next call */
        reset_levels(b, li, n);
    return n;
}

static tp_str step_name_lookup(tp_trace *t, const tp_derive_input *in, int64_t group)
{
    for (size_t i = 0; i < in->nnames; i++)
        if (in->names[i].group == group)
            return in->names[i].name;
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)group);
    return tp_intern_cstr(t, b);
}

static tp_str step_name(builder *b, const tp_derive_input *in, int64_t group)
{
    if (b->last_group_name && b->last_group == group)
        return b->last_group_name;
    b->last_group = group;
    b->last_group_name = step_name_lookup(b->t, in, group);
    return b->last_group_name;
}

static int cmp_dev_start(const void *pa, const void *pb)
{
    const dev *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

static int cmp_launch(const void *pa, const void *pb)
{
    const tp_launch *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Sort key of an annotation: its event's start, longer first, then index. */
typedef struct akey {
    int64_t ts, negdur;
    uint32_t event, item;
} akey;

static bool akey_less(const akey *a, const akey *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->negdur != b->negdur)
        return a->negdur < b->negdur;
    return a->event < b->event;
}

/* A device's annotations come as a few time-sorted runs (one per stream),
 * so merging the runs is O(n log runs) where qsort with a callback through
 * the events was O(n log n) and the largest cost of reading a big XSpace. */
#define AKEY_LESS(x, y, c) akey_less((x), (y))
TP_SORT_DEFINE(sort_keys, akey, int, AKEY_LESS)

static const char *line_name(const tp_derive_opts *o, int li)
{
    switch (li) {
    case L_STEPS: return "Steps";
    case L_LAUNCH: return "Launch Stats";
    case L_SCOPE: return o->framework_names ? "Framework Name Scope" : "TensorFlow Name Scope";
    case L_OPS: return o->framework_names ? "Framework Ops" : "TensorFlow Ops";
    case L_MODULES: return "XLA Modules";
    case L_HLO: return "XLA Ops";
    case L_SOURCE: return "Source code";
    default: return "Layers";
    }
}

/* Derived lines of one device (or one stream: anchor, in per-stream mode;
 * TP_NONE places the lines beside the device's first stream) from its
 * annotations (keys[0..n), in time order) and its windows
 * in->windows[win[0..nwin)]. */
static void derive_device(builder *b, tp_derive_job *job, uint32_t proc, uint32_t anchor, const tp_annot_item *an,
                          const akey *keys, size_t n, const uint32_t *win, size_t nwin, const tp_derive_input *in)
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
        uint32_t ai = keys[i].item;
        const tp_annot *a = &in->classes[an[ai].cls]; /* the shared part */
        int64_t group = an[ai].group;
        uint32_t op_inst = in->insts ? in->insts[ai].op_inst : 0;
        uint32_t scope_inst = in->insts ? in->insts[ai].scope_inst : TP_NONE;
        /* the span from the sort key: the events are not touched again */
        const span sp = {keys[i].ts, keys[i].ts - keys[i].negdur}, *src = &sp;
        if (o->era == TP_DERIVE_2020 && group != TP_DERIVE_NO_GROUP) {
            tp_str g = step_name(b, in, group);
            expand_or_add(b, L_STEPS, 0, g, 0, g, g, src, group, 0);
        }
        if (!(a->flags & TP_ANNOT_OP_SOURCE))
            continue;
        if (a->module)
            expand_or_add(b, L_MODULES, 0, a->module, 0, a->module, a->module, src, group, a->low_name);
        if (a->hlo_ops)
            expand_path(b, L_HLO, a->hlo_ops, a->hlo_prefix, NULL, src, group, a->low_name);
        if (a->op) {
            if (a->scopes)
                expand_path(b, L_SCOPE, a->scopes, 0, scope_inst == TP_NONE ? NULL : in->inst + scope_inst, src, group,
                            a->low_name);
            else if (o->era != TP_DERIVE_2020)
                reset_levels(b, L_SCOPE, 0);
            expand_or_add(b, L_OPS, 0, a->op, op_inst, a->op_display, a->op, src, group, a->low_name);
        }
        if (a->source)
            expand_or_add(b, L_SOURCE, 0, a->source, 0, a->source, a->source, src, group, 0);
    }
    if (o->era != TP_DERIVE_2020) /* Steps: a pass of its own over every grouped event */
        for (size_t i = 0; i < n; i++)
            if (an[keys[i].item].group != TP_DERIVE_NO_GROUP) {
                const tp_annot_item *a = &an[keys[i].item];
                tp_str g = step_name(b, in, a->group);
                const span sp = {keys[i].ts, keys[i].ts - keys[i].negdur};
                expand_or_add(b, L_STEPS, 0, g, 0, g, g, &sp, a->group, 0);
            }
    for (int li = 0; li < L_N; li++)
        reset_levels(b, li, 0);

    /* Launch Stats: one event per step over the launches to this device
     * (launches arrive sorted by device, then group) */
    dline *LS = &b->line[L_LAUNCH];
    for (size_t i = 0; anchor == TP_NONE && i < in->nlaunches; i++) {
        const tp_launch *la = &in->launches[i];
        if (la->device != proc || la->count == 0)
            continue;
        int64_t lo = la->lo, hi = la->hi, mx = la->max_dur, sum = la->sum_dur, cnt = la->count;
        tp_buf nb = {0};
        tp_buf_printf(&nb, "Launch Stats for %s", tp_str_get(t, step_name(b, in, la->group)));
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
    /* ordered by start like every other line */
    if (LS->n)
        qsort(LS->ev, LS->n, sizeof *LS->ev, cmp_dev_start);

    /* Layers: the windows as the file gives them, in its order (the report
     * gives a kernel to the first window holding its start) */
    dline *LW = &b->line[L_LAYERS];
    for (size_t i = 0; i < nwin; i++) {
        const tp_window *w = &in->windows[win[i]];
        TP_GROW(LW->ev, LW->cap, LW->n + 1);
        dev *e = &LW->ev[LW->n++];
        memset(e, 0, sizeof *e);
        e->ts = w->ts;
        e->end = w->ts + w->dur;
        e->group = TP_DERIVE_NO_GROUP;
        e->name = w->name;
        e->args = w->args;
    }

    /* the strings the commit names its lines with, interned here (where
     * one pass interned them before the two were apart: same string ids) */
    tp_intern_cstr(t, TP_DERIVED_CAT);
    for (int li = 0; li < L_N; li++)
        if (b->line[li].n && !(li == L_STEPS && o->no_steps_line))
            tp_intern_cstr(t, line_name(o, li));
    /* keep the events, drop the merge state */
    dev_lines *d = &job->dev[job->ndev++];
    d->proc = proc;
    d->anchor = anchor;
    for (int li = 0; li < L_N; li++) {
        dline *L = &b->line[li];
        for (size_t i = 0; i < L->nlv; i++)
            tp_i64map_free(&L->lv[i].seen);
        free(L->lv);
        d->ev[li] = L->ev;
        d->n[li] = L->n;
    }
    memset(b->line, 0, sizeof b->line);
}

/* Add one device's lines to the trace: tracks in the viewer's order, beside
 * the device's first stream. */
/* A line's name; with STREAM, the stream it sits beside too: a device with
 * several streams has one set of lines per stream, and six lines all named
 * "Framework Ops" left the viewer's reader to guess which stream each was. */
static tp_str line_track_name(tp_trace *t, const tp_derive_opts *o, int li, uint32_t stream)
{
    if (stream == TP_NONE)
        return tp_intern_cstr(t, line_name(o, li));
    const tp_track *k = &t->tracks[stream];
    tp_buf b = {0};
    tp_buf_printf(&b, "%s (", line_name(o, li));
    size_t n = k->name ? tp_str_len(t, k->name) : 0;
    const char *sn = k->name ? tp_str_get(t, k->name) : "";
    while (n && sn[n - 1] == ' ') /* Kineto's "stream 7 " */
        n--;
    if (n)
        tp_buf_put(&b, sn, n);
    else
        tp_buf_printf(&b, "stream %lld", (long long)k->tid);
    tp_buf_putc(&b, ')');
    tp_str name = tp_intern(t, b.data, b.len);
    tp_buf_free(&b);
    return name;
}

static size_t commit_device(tp_trace *t, const tp_derive_opts *o, dev_lines *d, bool name_stream)
{
    uint32_t first = d->anchor;
    for (size_t i = 0; i < t->ntracks && first == TP_NONE; i++)
        if (t->tracks[i].process == d->proc && t->tracks[i].role == TP_TRACK_DEVICE)
            first = (uint32_t)i;
    size_t added = 0;
    tp_str cat = tp_intern_cstr(t, TP_DERIVED_CAT);
    for (int li = 0; li < L_N; li++) {
        if (d->n[li] && !(li == L_STEPS && o->no_steps_line)) {
            tp_str lname = line_track_name(t, o, li, name_stream ? d->anchor : TP_NONE);
            uint32_t tr = tp_track_add(t, d->proc, lname, TP_TRACK_DERIVED, first);
            for (size_t i = 0; i < d->n[li]; i++) {
                const dev *v = &d->ev[li][i];
                tp_event e;
                tp_event_init(&e);
                e.ts = v->ts;
                e.dur = v->end - v->ts;
                e.track = tr;
                e.name = v->name;
                e.kind = TP_KIND_ANNOTATION;
                e.cat = cat;
                e.flags = TP_EV_DERIVED;
                if (li == L_STEPS && o->mark_steps && v->group != TP_DERIVE_NO_GROUP) {
                    e.flags |= TP_EV_STEP;
                    e.id = (uint64_t)v->group;
                }
                e.args = v->args ? v->args : tp_args_name_group(t, v->long_name, v->group != TP_DERIVE_NO_GROUP, v->group);
                tp_event_add(t, &e);
                added++;
            }
        }
        free(d->ev[li]);
        d->ev[li] = NULL;
    }
    return added;
}

tp_derive_job *tp_derive_begin(tp_trace *t, const tp_derive_input *in, const tp_derive_opts *o)
{
    tp_derive_job *job = tp_xcalloc(1, sizeof *job);
    job->t = t;
    job->o = *o;
    job->levels_dropped = in->levels_dropped;
    if (in->nannots == 0 && in->nlaunches == 0 && in->nwindows == 0)
        return job;
    o = &job->o;
    const tp_annot_item *an = in->annots;
    builder b;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.o = o;
    b.last_path_off = TP_I64MAP_EMPTY;
    tp_derive_input sorted = *in; /* launches sorted by device and group (a copy: `in` is const) */
    sorted.launches = tp_xmalloc((in->nlaunches + 1) * sizeof *sorted.launches);
    if (in->nlaunches)
        memcpy(sorted.launches, in->launches, in->nlaunches * sizeof *sorted.launches);
    qsort(sorted.launches, in->nlaunches, sizeof *sorted.launches, cmp_launch);
    /* per device (or per stream), in index order (deterministic output): a
     * counting partition, then each one's annotations sorted by time (an
     * index array: annotations are not copied, memory on big traces) */
    bool per_stream = o->per_stream;
    size_t ngroups = per_stream ? t->ntracks : t->nprocesses;
    job->dev = tp_xcalloc(ngroups + 1, sizeof *job->dev);
#define GROUP_OF(i) (per_stream ? t->events[an[i].event].track : t->tracks[t->events[an[i].event].track].process)
    size_t *start = tp_xcalloc(ngroups + 2, sizeof *start);
    for (size_t i = 0; i < in->nannots; i++)
        start[GROUP_OF(i) + 1]++;
    size_t biggest = 0;
    for (size_t p = 0; p < ngroups; p++) {
        biggest = start[p + 1] > biggest ? start[p + 1] : biggest;
        start[p + 1] += start[p];
    }
    uint32_t *sub = tp_xmalloc((in->nannots + 1) * sizeof *sub);
    size_t *fill = tp_xmalloc((ngroups + 1) * sizeof *fill);
    memcpy(fill, start, (ngroups + 1) * sizeof *fill);
    for (size_t i = 0; i < in->nannots; i++)
        sub[fill[GROUP_OF(i)]++] = (uint32_t)i;
#undef GROUP_OF
    /* the windows too, keeping their order within a group */
#define WGROUP_OF(i) (per_stream ? in->windows[i].track : t->tracks[in->windows[i].track].process)
    size_t *wstart = tp_xcalloc(ngroups + 2, sizeof *wstart);
    for (size_t i = 0; i < in->nwindows; i++)
        wstart[WGROUP_OF(i) + 1]++;
    for (size_t p = 0; p < ngroups; p++)
        wstart[p + 1] += wstart[p];
    uint32_t *wsub = tp_xmalloc((in->nwindows + 1) * sizeof *wsub);
    memcpy(fill, wstart, (ngroups + 1) * sizeof *fill);
    for (size_t i = 0; i < in->nwindows; i++)
        wsub[fill[WGROUP_OF(i)]++] = (uint32_t)i;
#undef WGROUP_OF
    akey *keys = tp_xmalloc((biggest + 1) * sizeof *keys);
    size_t li = 0;
    for (uint32_t p = 0; p < ngroups; p++) {
        size_t n = start[p + 1] - start[p];
        uint32_t *idx = sub + start[p];
        for (size_t q = 0; q < n; q++) {
            const tp_event *e = &t->events[an[idx[q]].event];
            keys[q] = (akey){e->ts, -e->dur, an[idx[q]].event, idx[q]};
        }
        sort_keys(keys, n, 0);
        bool launches = false;
        if (!per_stream) {
            while (li < sorted.nlaunches && sorted.launches[li].device < p)
                li++;
            launches = li < sorted.nlaunches && sorted.launches[li].device == p;
        }
        size_t nw = wstart[p + 1] - wstart[p];
        const uint32_t *win = wsub + wstart[p];
        if (n || launches || nw) {
            if (per_stream)
                derive_device(&b, job, t->tracks[p].process, p, an, keys, n, win, nw, &sorted);
            else
                derive_device(&b, job, p, TP_NONE, an, keys, n, win, nw, &sorted);
        }
    }
    free(keys);
    free(fill);
    free(start);
    free(wstart);
    free(wsub);
    free(sorted.launches);
    free(sub);
    tp_i64map_free(&b.paths);
    free(b.pool);
    job->levels_dropped += b.levels_dropped;
    return job;
}

size_t tp_derive_commit(tp_derive_job *job)
{
    size_t added = 0;
    for (size_t i = 0; i < job->ndev; i++) {
        bool shared = false; /* another stream of this device has lines too */
        for (size_t j = 0; j < job->ndev && !shared && job->dev[i].anchor != TP_NONE; j++)
            shared = j != i && job->dev[j].proc == job->dev[i].proc && job->dev[j].anchor != TP_NONE;
        added += commit_device(job->t, &job->o, &job->dev[i], shared);
    }
    if (job->levels_dropped) /* here, on the loading thread: the job may have run beside it */
        tp_warn(job->t, "name-scope levels deeper than 64 not derived (TP_DERIVE_MAX_LEVELS)",
                job->levels_dropped);
    free(job->dev);
    free(job);
    return added;
}

size_t tp_derive_from(tp_trace *t, const tp_derive_input *in, const tp_derive_opts *o)
{
    return tp_derive_commit(tp_derive_begin(t, in, o));
}
