/* memory.c: see memory.h.  Work: one pass over the events to find the
 * memory events (none: nothing more), their args read once, a sort of the
 * memory events by time, and per allocation live at a device's peak (the
 * holders: the only records whose op is asked) a search in its thread's host
 * slices plus a walk up its enclosing slices. */
#include "report/memory/memory.h"

#include "convert/base/i64map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec { /* 64 bytes, one cache line: the passes over 280k of them (1 GB) stream them */
    int64_t ts;
    int64_t type, id, bytes, addr, allocated, reserved; /* tp_mem_event's */
    uint32_t ev;
    bool has_addr, has_levels;
} rec;
_Static_assert(sizeof(rec) == 64, "a memory record is one cache line");

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev; /* input order */
}

/* ---- who allocated: the slices enclosing the event on its thread ---- */

typedef struct encl_res {
    uint32_t op;   /* innermost framework op, TP_NONE */
    tp_str module; /* innermost module name, 0 */
    bool known;
} encl_res;

typedef struct encl {
    const tp_trace *t;
    const tp_mem_inputs *in;
    size_t *first, *last; /* logical track -> range of in->order, found when first asked (SIZE_MAX: not yet) */
    size_t *cur;          /* logical track -> the position found for its previous event */
    size_t ntracks;
    uint8_t *module;      /* name id -> 0 not asked, 1 a module label, 2 not */
    uint8_t *op_name;     /* name id -> 0 not asked, 1 a host op of this name is an op, 2 not */
    encl_res *res;        /* host tree position -> its slice's op and module, worked out once */
    uint32_t *path;       /* resolve()'s slices not worked out yet */
    size_t npath, path_cap;
} encl;

static void encl_init(encl *x, const tp_trace *t, const tp_mem_inputs *in)
{
    memset(x, 0, sizeof *x);
    x->t = t;
    x->in = in;
    x->module = tp_xcalloc(t->nstr + 1, 1);
    x->op_name = tp_xcalloc(t->nstr + 1, 1);
    if (!in->order || !in->parent || !in->logical || !in->pos)
        return;
    x->ntracks = t->ntracks;
    x->first = tp_xmalloc((x->ntracks + 1) * sizeof *x->first);
    x->last = tp_xmalloc((x->ntracks + 1) * sizeof *x->last);
    x->cur = tp_xcalloc(x->ntracks + 1, sizeof *x->cur);
    for (size_t k = 0; k < x->ntracks; k++)
        x->first[k] = SIZE_MAX;
}

static void encl_free(encl *x)
{
    free(x->first);
    free(x->last);
    free(x->cur);
    free(x->module);
    free(x->op_name);
    free(x->res);
    free(x->path);
}

/* first position of in->order whose logical track is at least lt (the order is by logical track) */
static size_t track_lower(const encl *x, uint32_t lt)
{
    size_t lo = 0, hi = x->in->norder;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->in->logical[x->t->events[x->in->order[mid]].track] < lt)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool is_module(encl *x, tp_str name)
{
    if (!x->module[name]) {
        const char *s = tp_str_get(x->t, name);
        x->module[name] = (x->in->is_module && x->in->is_module(s)) || strncmp(s, "nn.Module: ", 11) == 0 ? 1 : 2;
    }
    return x->module[name] == 1;
}

/* in->is_op, asked once per name for host ops that are not steps (its name alone decides them: 212k
 * calls of string compares were a third of the model on a 500 MB trace) */
static bool is_op(encl *x, const tp_event *ev)
{
    if (!x->in->is_op)
        return false;
    if (ev->kind != TP_KIND_HOST_OP || (ev->flags & TP_EV_STEP))
        return x->in->is_op(x->t, ev);
    if (!x->op_name[ev->name])
        x->op_name[ev->name] = x->in->is_op(x->t, ev) ? 1 : 2;
    return x->op_name[ev->name] == 1;
}

static bool covers(const tp_event *e, int64_t ts) { return e->ts <= ts && ts <= e->ts + e->dur; }

/* The innermost host slice on the event's thread that covers ts: the last
 * slice starting at or before ts, or the first of its ancestors covering ts
 * (preorder by start: whatever covers ts encloses that slice). */
static uint32_t innermost(encl *x, uint32_t track, int64_t ts)
{
    if (!x->first || track >= x->ntracks)
        return TP_NONE;
    uint32_t lt = x->in->logical[track];
    if (x->first[lt] == SIZE_MAX) {
        x->first[lt] = track_lower(x, lt);
        x->last[lt] = track_lower(x, lt + 1);
    }
    if (x->first[lt] == x->last[lt])
        return TP_NONE;
    /* the first position starting after ts: galloping forward from where the thread's previous event
     * ended (memory events come in time order), else a binary search over the thread */
    const tp_event *ev = x->t->events;
    const uint32_t *ord = x->in->order;
    size_t a = x->first[lt], b = x->last[lt], at = x->cur[lt];
    if (at > a && at <= b && ev[ord[at - 1]].ts <= ts) {
        size_t step = 1;
        a = at;
        while (a + step < b && ev[ord[a + step - 1]].ts <= ts) {
            a += step;
            step *= 2;
        }
        if (a + step < b)
            b = a + step;
    }
    size_t lo = a, hi = b;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[ord[mid]].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    x->cur[lt] = lo;
    if (lo == x->first[lt])
        return TP_NONE;
    uint32_t e = x->in->order[lo - 1];
    for (size_t guard = 0; e != TP_NONE && guard < x->in->norder; guard++) {
        if (covers(&x->t->events[e], ts))
            return e;
        e = x->in->parent[e];
    }
    return TP_NONE;
}

/* The innermost op and module enclosing slice e (and e itself): each slice worked out once, from its
 * parent's (a deep nesting costs its depth once, not once per memory event under it). */
static void resolve(encl *x, uint32_t e, uint32_t *op, tp_str *module)
{
    const tp_trace *t = x->t;
    if (!x->res) /* one entry a host slice, by its place in the host tree; untouched pages stay unmapped */
        x->res = tp_xcalloc(x->in->norder + 1, sizeof *x->res);
    x->npath = 0;
    uint32_t a = e;
    while (a != TP_NONE && !x->res[x->in->pos[a]].known) {
        TP_GROW(x->path, x->path_cap, x->npath + 1);
        x->path[x->npath++] = a;
        a = x->in->parent[a];
    }
    uint32_t cur_op = a != TP_NONE ? x->res[x->in->pos[a]].op : TP_NONE;
    tp_str cur_mod = a != TP_NONE ? x->res[x->in->pos[a]].module : 0;
    while (x->npath) {
        a = x->path[--x->npath];
        const tp_event *ev = &t->events[a];
        if (is_op(x, ev))
            cur_op = a;
        if (is_module(x, ev->name))
            cur_mod = ev->name;
        x->res[x->in->pos[a]] = (encl_res){cur_op, cur_mod, true};
    }
    *op = cur_op;
    *module = cur_mod;
}

/* r's innermost op, its top-level op and its innermost module (names; 0 none) */
static void attribute(encl *x, const rec *r, tp_str *op_name, tp_str *top_name, tp_str *module)
{
    const tp_trace *t = x->t;
    *op_name = *top_name = *module = 0;
    uint32_t e = innermost(x, t->events[r->ev].track, r->ts);
    if (e == TP_NONE)
        return;
    uint32_t op;
    resolve(x, e, &op, module);
    if (op == TP_NONE)
        return;
    *op_name = t->events[op].name;
    uint32_t top = x->in->top ? x->in->top[op] : TP_NONE;
    *top_name = top != TP_NONE ? t->events[top].name : *op_name;
}

/* ---- holders ---- */

static int cmp_holder_key(const void *a, const void *b)
{
    const tp_mem_holder *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    return x->module < y->module ? -1 : x->module > y->module;
}

static int cmp_holder_bytes(const void *a, const void *b)
{
    const tp_mem_holder *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return cmp_holder_key(a, b); /* interned ids: the input's order, deterministic */
}

/* live[0..n) grouped by (op, module), largest first; *out owns the rows */
static size_t group_holders(tp_mem_holder *live, size_t n, tp_mem_holder **out)
{
    if (n == 0) {
        *out = NULL;
        return 0;
    }
    qsort(live, n, sizeof *live, cmp_holder_key);
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (g && live[g - 1].op == live[i].op && live[g - 1].module == live[i].module) {
            live[g - 1].bytes = tp_sat_add(live[g - 1].bytes, live[i].bytes);
            live[g - 1].allocations += live[i].allocations;
        } else
            live[g++] = live[i];
    }
    qsort(live, g, sizeof *live, cmp_holder_bytes);
    *out = tp_xmalloc(g * sizeof **out);
    memcpy(*out, live, g * sizeof **out);
    return g;
}

/* Replay one device's allocations and frees to its peak; the live ones there are the holders. */
static void holders_at_peak(tp_memory *m, tp_mem_device *d, encl *x, rec **rs, size_t n, size_t peak_pos)
{
    tp_i64map by_addr;
    tp_i64map by_addr0 = {0};
    by_addr = by_addr0;
    uint8_t *freed = tp_xcalloc(n ? n : 1, 1);
    for (size_t k = 0; k < n; k++) {
        const rec *r = rs[k];
        if (!r->has_addr) {
            m->no_addr++;
            continue;
        }
        if (r->bytes > 0)
            tp_i64map_put(&by_addr, r->addr, (uint32_t)k);
        else if (r->bytes < 0) {
            uint32_t a = tp_i64map_get(&by_addr, r->addr);
            if (a == TP_I64MAP_EMPTY || freed[a])
                m->unmatched_frees++;
            else
                freed[a] = k <= peak_pos ? 1 : 2; /* 2: freed after the peak (live at it) */
        }
    }
    tp_mem_holder *live = tp_xmalloc((peak_pos + 1) * sizeof *live), *inner = tp_xmalloc((peak_pos + 1) * sizeof *inner);
    size_t nl = 0;
    d->held_seen = 0;
    for (size_t k = 0; k <= peak_pos && k < n; k++) {
        const rec *r = rs[k];
        if (r->bytes <= 0 || !r->has_addr || freed[k] == 1)
            continue;
        tp_str op, top, module;
        attribute(x, r, &op, &top, &module);
        live[nl] = (tp_mem_holder){top, module, r->bytes, 1};
        inner[nl] = (tp_mem_holder){op, module, r->bytes, 1};
        nl++;
        d->held_seen = tp_sat_add(d->held_seen, r->bytes);
    }
    d->held_before = d->peak_allocated - d->held_seen;
    d->nholders = group_holders(live, nl, &d->holders);
    d->nholders_inner = group_holders(inner, nl, &d->holders_inner);
    free(live);
    free(inner);
    free(freed);
    tp_i64map_free(&by_addr);
}

/* ---- levels ---- */

static int64_t step_of(const tp_mem_inputs *in, int64_t ts)
{
    for (size_t i = 0; i < in->nsteps; i++) /* steps are few (hundreds) */
        if (in->steps[i].ts <= ts && ts < in->steps[i].end)
            return in->steps[i].step;
    return -1;
}

/* first position in rs[0..n) at or after ts */
static size_t first_at(rec **rs, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rs[mid]->ts < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void device_levels(tp_memory *m, tp_mem_device *d, const tp_trace *t, const tp_mem_inputs *in, encl *x,
                          rec **rs, size_t n)
{
    /* levels only from the events that carry them */
    size_t nl = 0;
    for (size_t k = 0; k < n; k++)
        nl += rs[k]->has_levels;
    rec **lv = tp_xmalloc((nl ? nl : 1) * sizeof *lv);
    nl = 0;
    for (size_t k = 0; k < n; k++)
        if (rs[k]->has_levels)
            lv[nl++] = rs[k];
    d->events = nl;
    if (nl == 0) {
        free(lv);
        return;
    }
    d->pts = tp_xmalloc(nl * sizeof *d->pts);
    size_t peak = 0, peak_r = 0;
    for (size_t k = 0; k < nl; k++) {
        d->pts[k] = (tp_mem_point){lv[k]->ts, lv[k]->allocated, lv[k]->reserved};
        if (lv[k]->allocated > lv[peak]->allocated)
            peak = k;
        if (lv[k]->reserved > lv[peak_r]->reserved)
            peak_r = k;
    }
    d->npts = nl;
    d->peak_allocated = lv[peak]->allocated;
    d->peak_allocated_ts = lv[peak]->ts;
    d->peak_allocated_step = step_of(in, d->peak_allocated_ts);
    d->peak_event = lv[peak]->ev;
    d->peak_reserved = lv[peak_r]->reserved;
    d->peak_reserved_ts = lv[peak_r]->ts;
    d->peak_reserved_step = step_of(in, d->peak_reserved_ts);
    /* the level before the first event: what the allocator held when the trace began */
    d->first_allocated = lv[0]->allocated - lv[0]->bytes;
    if (d->first_allocated < 0)
        d->first_allocated = 0;
    d->last_allocated = lv[nl - 1]->allocated;
    d->last_reserved = lv[nl - 1]->reserved;
    d->nsteps = in->nsteps;
    d->steps = tp_xcalloc(in->nsteps ? in->nsteps : 1, sizeof *d->steps);
    for (size_t s = 0; s < in->nsteps; s++) {
        tp_mem_step *st = &d->steps[s];
        size_t a = first_at(lv, nl, in->steps[s].ts), b = first_at(lv, nl, in->steps[s].end);
        st->step = in->steps[s].step;
        st->start = a ? lv[a - 1]->allocated : d->first_allocated;
        st->end = b ? lv[b - 1]->allocated : d->first_allocated;
        st->peak = st->start;
        st->peak_reserved = a ? lv[a - 1]->reserved : lv[0]->reserved;
        st->events = b - a;
        for (size_t k = a; k < b; k++) {
            if (lv[k]->allocated > st->peak)
                st->peak = lv[k]->allocated;
            if (lv[k]->reserved > st->peak_reserved)
                st->peak_reserved = lv[k]->reserved;
        }
    }
    /* the peak's place among all this device's events (with or without levels) */
    size_t peak_pos = 0;
    for (size_t k = 0; k < n; k++)
        if (rs[k] == lv[peak])
            peak_pos = k;
    holders_at_peak(m, d, x, rs, n, peak_pos);
    for (size_t i = 0; i < t->ndevinfo; i++)
        if (d->type == 1 && t->devinfo[i].id == d->id && t->devinfo[i].memory_bytes > 0)
            d->capacity = t->devinfo[i].memory_bytes;
    free(lv);
}

struct tp_mem_prep {
    rec *rs;
    size_t n;
    bool done;
};

void tp_memory_prepare(const tp_trace *t, tp_memory *m)
{
    memset(m, 0, sizeof *m);
    m->prep = tp_xcalloc(1, sizeof *m->prep);
    m->prep->done = true;
    tp_str name = tp_mem_event_name(t);
    if (!name)
        return;
    size_t n = 0, nidx = 0;
    /* one pass over the events (2 M at 1 GB): their indexes, then the records; room for every event, of which
     * the pages of those met are touched (no growing: 280 k at 1 GB took 24 reallocations) */
    uint32_t *idx = tp_xmalloc((t->nevents + 1) * sizeof *idx);
    for (size_t i = 0; i < t->nevents; i++)
        if (tp_mem_event_is(t, name, &t->events[i]))
            idx[nidx++] = (uint32_t)i;
    rec *rs = tp_xmalloc((nidx ? nidx : 1) * sizeof *rs);
    tp_mem_reader *rd = tp_mem_reader_new(t);
    for (size_t q = 0; q < nidx; q++) {
        size_t i = idx[q];
        const tp_event *e = &t->events[i];
        m->events++;
        tp_mem_event me;
        if (tp_mem_event_read(rd, e, &me) < 0) {
            m->lacking++;
            continue;
        }
        if (!me.has_levels)
            m->no_levels++;
        m->allocations += me.bytes > 0;
        m->frees += me.bytes < 0;
        rs[n++] = (rec){e->ts, me.type, me.id, me.bytes, me.addr, me.allocated, me.reserved, (uint32_t)i, me.has_addr,
                        me.has_levels};
    }
    tp_mem_reader_free(rd);
    free(idx);
    m->prep->rs = rs;
    m->prep->n = n;
}

void tp_memory_build(const tp_trace *t, const tp_mem_inputs *in, tp_memory *m)
{
    if (!m->prep || !m->prep->done)
        tp_memory_prepare(t, m);
    rec *rs = m->prep->rs;
    size_t n = m->prep->n;
    free(m->prep);
    m->prep = NULL;
    if (n == 0) {
        free(rs);
        return;
    }
    bool sorted = true; /* the profiler writes them in time order: then no sort */
    for (size_t k = 1; k < n && sorted; k++)
        sorted = cmp_rec(&rs[k - 1], &rs[k]) < 0;
    if (!sorted)
        qsort(rs, n, sizeof *rs, cmp_rec);
    /* each record's device: the devices met so far, at most TP_MEM_MAX_DEVICES (a machine has a host
     * and a few GPUs: a short scan, the previous record's device first); the records of more are
     * counted.  Then the records bucketed by device, in time order. */
    int64_t dtype[TP_MEM_MAX_DEVICES], did[TP_MEM_MAX_DEVICES];
    size_t nd = 0, count[TP_MEM_MAX_DEVICES] = {0};
    uint8_t *dev_of = tp_xmalloc(n ? n : 1);
    size_t last = 0;
    for (size_t k = 0; k < n; k++) {
        size_t j = last;
        if (!(j < nd && dtype[j] == rs[k].type && did[j] == rs[k].id))
            for (j = 0; j < nd && (dtype[j] != rs[k].type || did[j] != rs[k].id); j++)
                ;
        if (j == nd && nd < TP_MEM_MAX_DEVICES) {
            dtype[nd] = rs[k].type;
            did[nd++] = rs[k].id;
        }
        if (j == nd) { /* a hostile number of devices: counted, not modelled */
            m->past_devices++;
            dev_of[k] = UINT8_MAX;
            continue;
        }
        dev_of[k] = (uint8_t)j;
        count[j]++;
        last = j;
    }
    /* the devices by (type, id) */
    size_t order[TP_MEM_MAX_DEVICES], start[TP_MEM_MAX_DEVICES + 1];
    for (size_t j = 0; j < nd; j++)
        order[j] = j;
    for (size_t j = 1; j < nd; j++) /* at most 64: insertion */
        for (size_t i = j; i > 0; i--) {
            size_t u = order[i - 1], v = order[i];
            if (dtype[u] < dtype[v] || (dtype[u] == dtype[v] && did[u] <= did[v]))
                break;
            order[i - 1] = v;
            order[i] = u;
        }
    size_t at[TP_MEM_MAX_DEVICES];
    start[0] = 0;
    for (size_t j = 0; j < nd; j++) {
        at[order[j]] = start[j];
        start[j + 1] = start[j] + count[order[j]];
    }
    rec **per = tp_xmalloc((n ? n : 1) * sizeof *per);
    for (size_t k = 0; k < n; k++)
        if (dev_of[k] != UINT8_MAX)
            per[at[dev_of[k]]++] = &rs[k];
    free(dev_of);
    m->dev = tp_xcalloc(nd ? nd : 1, sizeof *m->dev);
    encl x;
    encl_init(&x, t, in);
    for (size_t j = 0; j < nd; j++) {
        tp_mem_device *d = &m->dev[m->ndev++];
        d->type = dtype[order[j]];
        d->id = did[order[j]];
        tp_mem_device_label(d->type, d->id, d->label, sizeof d->label);
        device_levels(m, d, t, in, &x, per + start[j], start[j + 1] - start[j]);
    }
    encl_free(&x);
    free(per);
    free(rs);
}

void tp_memory_free(tp_memory *m)
{
    if (m->prep)
        free(m->prep->rs);
    free(m->prep);
    for (size_t j = 0; j < m->ndev; j++) {
        free(m->dev[j].holders);
        free(m->dev[j].holders_inner);
        free(m->dev[j].steps);
        free(m->dev[j].pts);
    }
    free(m->dev);
    memset(m, 0, sizeof *m);
}

const tp_mem_device *tp_memory_top(const tp_memory *m)
{
    const tp_mem_device *best = NULL;
    for (size_t j = 0; j < m->ndev; j++)
        if (m->dev[j].events && (!best || m->dev[j].peak_allocated > best->peak_allocated))
            best = &m->dev[j];
    return best;
}

void tp_mem_bytes(char *buf, size_t n, int64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    uint64_t u = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes;
    const char *sign = bytes < 0 ? "-" : "";
    double v = (double)u;
    int k = 0;
    while (v >= 1024 && k < 4) {
        v /= 1024;
        k++;
    }
    if (k == 0)
        snprintf(buf, n, "%s%llu B", sign, (unsigned long long)u);
    else
        snprintf(buf, n, v >= 99.95 ? "%s%.0f %s" : "%s%.1f %s", sign, v, unit[k]);
}
