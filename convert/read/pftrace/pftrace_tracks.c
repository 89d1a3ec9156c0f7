/* pftrace_tracks.c: the file's tracks into processes and tracks, slices
 * matched, flows bound (after the last packet: descriptors may follow the
 * events that use them, and Perfetto sorts by time before it matches).
 *
 * A track with a ThreadDescriptor is that thread (pid, tid); one with a
 * ProcessDescriptor is its process (slices and instants on it go on the
 * process's thread 0, instants scoped to the process); any other track
 * belongs to the process of its nearest described ancestor and is named by
 * its name ("stream N" is thread N, as Kineto's device streams are).  A root
 * track that no descriptor places names a process: "<name> (pid N)" and
 * "Process N" (what convert writes for processes whose pid no Perfetto
 * process can take) are process N, any other name a process of that name.
 * Counter tracks' values become 'C' events of their process named "<name>
 * <key>" (convert's naming split at the last space; "value" when none). */
#include "convert/read/pftrace/pftrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TrackDescriptor fields, ProcessDescriptor's and ThreadDescriptor's */
enum {
    TD_UUID = 1,
    TD_NAME = 2,
    TD_PROCESS = 3,
    TD_THREAD = 4,
    TD_PARENT = 5,
    TD_COUNTER = 8,
    TD_STATIC_NAME = 10,
    TD_RANK = 12,
    PD_PID = 1,
    PD_NAME = 6,
    THD_PID = 1,
    THD_TID = 2,
    THD_NAME = 5,
};

static uint32_t new_slot(pf_ctx *c)
{
    TP_GROW(c->slots, c->slots_cap, c->nslots + 1);
    pf_slot *s = &c->slots[c->nslots];
    memset(s, 0, sizeof *s);
    s->track = TP_NONE;
    s->process = TP_NONE;
    return (uint32_t)c->nslots++;
}

uint32_t pf_slot_get(pf_ctx *c, uint64_t uuid)
{
    uint32_t i = tp_i64map_get(&c->slot_of, (int64_t)uuid);
    if (i != TP_I64MAP_EMPTY)
        return i;
    i = new_slot(c);
    c->slots[i].uuid = uuid;
    tp_i64map_put(&c->slot_of, (int64_t)uuid, i);
    return i;
}

static int64_t thread_key(int64_t pid, int64_t tid)
{
    return (int64_t)(((uint64_t)pid << 32) | ((uint64_t)tid & 0xFFFFFFFFu));
}

uint32_t pf_thread_slot(pf_ctx *c, int64_t pid, int64_t tid, const uint8_t *name, size_t nlen)
{
    int64_t key = thread_key(pid, tid);
    uint32_t i = tp_i64map_get(&c->thread_slot, key);
    if (i == TP_I64MAP_EMPTY) {
        i = new_slot(c);
        c->slots[i].is_thread = c->slots[i].described = true;
        c->slots[i].pid = pid;
        c->slots[i].tid = tid;
        tp_i64map_put(&c->thread_slot, key, i);
    }
    if (name && nlen)
        c->slots[i].name = tp_intern(c->t, (const char *)name, nlen);
    return i;
}

/* ProcessDescriptor / ThreadDescriptor: pid, tid (int32) and the name. */
static int read_desc(pf_ctx *c, const tp_pb *parent, const tp_pb_field *f, uint32_t name_field, int64_t *pid,
                     int64_t *tid, const uint8_t **name, size_t *nlen)
{
    tp_pb r = tp_pb_sub(parent, f);
    tp_pb_field g;
    int k;
    while ((k = tp_pb_next(&r, &g, c->err)) == 1) {
        if (g.wt == TP_PB_VARINT && g.num == 1)
            *pid = (int32_t)(uint32_t)g.v;
        else if (g.wt == TP_PB_VARINT && g.num == 2 && tid)
            *tid = (int32_t)(uint32_t)g.v;
        else if (g.wt == TP_PB_LEN && g.num == name_field) {
            *name = g.data;
            *nlen = g.len;
        }
    }
    return k < 0 ? -1 : 0;
}

int pf_track_descriptor(pf_ctx *c, const tp_pb *pk, const tp_pb_field *f)
{
    tp_pb r = tp_pb_sub(pk, f);
    tp_pb_field g;
    int k;
    bool has_uuid = false, has_parent = false, counter = false, has_rank = false, counter_delta = false;
    int64_t counter_mult = 0;
    uint64_t uuid = 0, parent = 0;
    int64_t rank = 0, pid = 0, tid = 0;
    const uint8_t *name = NULL, *pname = NULL;
    size_t nlen = 0, pnlen = 0;
    int desc = 0; /* 1 process, 2 thread */
    while ((k = tp_pb_next(&r, &g, c->err)) == 1) {
        if (g.wt == TP_PB_VARINT) {
            if (g.num == TD_UUID) {
                uuid = g.v;
                has_uuid = true;
            } else if (g.num == TD_PARENT) {
                parent = g.v;
                has_parent = true;
            } else if (g.num == TD_RANK) {
                rank = (int32_t)(uint32_t)g.v;
                has_rank = true;
            }
        } else if (g.wt == TP_PB_LEN) {
            if (g.num == TD_NAME || g.num == TD_STATIC_NAME) {
                name = g.data;
                nlen = g.len;
            } else if (g.num == TD_COUNTER) {
                counter = true;
                tp_pb q = tp_pb_sub(&r, &g); /* CounterDescriptor: unit_multiplier 4, is_incremental 5 */
                tp_pb_field h;
                while ((k = tp_pb_next(&q, &h, c->err)) == 1)
                    if (h.wt == TP_PB_VARINT && h.num == 4)
                        counter_mult = (int64_t)h.v;
                    else if (h.wt == TP_PB_VARINT && h.num == 5)
                        counter_delta = h.v != 0;
                if (k < 0)
                    return -1;
            }
            else if (g.num == TD_PROCESS || g.num == TD_THREAD) {
                desc = g.num == TD_PROCESS ? 1 : 2;
                if (read_desc(c, &r, &g, desc == 1 ? PD_NAME : THD_NAME, &pid, desc == 2 ? &tid : NULL, &pname,
                              &pnlen) < 0)
                    return -1;
            }
        }
    }
    if (k < 0)
        return -1;
    if (!has_uuid) {
        tp_warn(c->t, "pftrace: track descriptors without a uuid (not read)", 1);
        return 0;
    }
    uint32_t i = pf_slot_get(c, uuid);
    pf_slot *s = &c->slots[i];
    s->described = true;
    if (has_parent && parent != uuid) {
        s->parent = parent;
        s->has_parent = true;
    }
    if (counter) {
        s->is_counter = true;
        s->counter_delta = counter_delta;
        s->counter_mult = counter_mult;
    }
    if (has_rank) {
        s->rank = rank;
        s->has_rank = true;
    }
    if (desc) {
        s->is_process = desc == 1;
        s->is_thread = desc == 2;
        s->pid = pid;
        s->tid = tid;
    }
    if (name && nlen)
        s->name = tp_intern(c->t, (const char *)name, nlen);
    else if (pname && pnlen)
        s->name = tp_intern(c->t, (const char *)pname, pnlen);
    if (desc == 2 && tp_i64map_get(&c->thread_slot, thread_key(pid, tid)) == TP_I64MAP_EMPTY)
        tp_i64map_put(&c->thread_slot, thread_key(pid, tid), i);
    return 0;
}

int pf_thread_packet(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f)
{
    int64_t pid = 0, tid = 0;
    const uint8_t *name = NULL;
    size_t nlen = 0;
    if (read_desc(c, pk, f, THD_NAME, &pid, &tid, &name, &nlen) < 0)
        return -1;
    s->thread_slot = pf_thread_slot(c, pid, tid, name, nlen);
    s->has_thread = true;
    return 0;
}

int pf_process_packet(pf_ctx *c, const tp_pb *pk, const tp_pb_field *f)
{
    int64_t pid = 0;
    const uint8_t *name = NULL;
    size_t nlen = 0;
    if (read_desc(c, pk, f, PD_NAME, &pid, NULL, &name, &nlen) < 0)
        return -1;
    uint32_t p = tp_process_get(c->t, pid);
    if (name && nlen)
        c->t->processes[p].name = tp_intern(c->t, (const char *)name, nlen);
    return 0;
}

/* ---- resolving ---- */

/* "<name> (pid N)" or "Process N": N, and the name's length before " (pid". */
static bool group_name(const char *s, size_t n, int64_t *pid, size_t *base)
{
    long long v;
    int used = 0;
    if (n > 8 && strncmp(s, "Process ", 8) == 0 && sscanf(s + 8, "%lld%n", &v, &used) == 1 && (size_t)used == n - 8) {
        *pid = v;
        *base = 0;
        return true;
    }
    const char *o = n > 7 ? memmem(s, n, " (pid ", 6) : NULL;
    for (const char *q = o; q; q = memmem(q + 1, n - (size_t)(q + 1 - s), " (pid ", 6))
        o = q; /* the last one */
    if (!o || s[n - 1] != ')')
        return false;
    size_t at = (size_t)(o - s) + 6;
    if (sscanf(s + at, "%lld%n", &v, &used) != 1 || at + (size_t)used != n - 1)
        return false;
    *pid = v;
    *base = (size_t)(o - s);
    return true;
}

static void name_process(pf_ctx *c, uint32_t p, tp_str name)
{
    if (name && !c->t->processes[p].name)
        c->t->processes[p].name = name;
}

/* The model process of slot i (its nearest ancestor that says which). */
static uint32_t process_of(pf_ctx *c, uint32_t i, int depth)
{
    pf_slot *s = &c->slots[i];
    if (s->process != TP_NONE)
        return s->process;
    tp_trace *t = c->t;
    uint32_t p;
    if (s->is_process || s->is_thread) {
        p = tp_process_get(t, s->pid);
        if (s->is_process)
            name_process(c, p, s->name);
    } else if (s->has_parent && depth < PF_MAX_PARENTS &&
               tp_i64map_get(&c->slot_of, (int64_t)s->parent) != TP_I64MAP_EMPTY) {
        p = process_of(c, tp_i64map_get(&c->slot_of, (int64_t)s->parent), depth + 1);
    } else {
        const char *n = tp_str_get(t, s->name);
        size_t len = tp_str_len(t, s->name), base;
        int64_t pid;
        if (group_name(n, len, &pid, &base)) {
            p = tp_process_get(t, pid);
            if (base) { /* copied first: interning may move the pool n points into */
                c->scratch.len = 0;
                tp_buf_put(&c->scratch, n, base);
                name_process(c, p, tp_intern(t, c->scratch.data, base));
            }
            s->is_process = true; /* its own events are the process's */
        } else {
            if (depth >= PF_MAX_PARENTS)
                tp_warn(t, "pftrace: track parent chains longer than 64 or circular (cut)", 1);
            tp_str key = s->name ? s->name : tp_intern_cstr(t, "Perfetto tracks");
            p = tp_process_get_key(t, key);
            name_process(c, p, key);
            s->global = !s->has_parent;
        }
    }
    s = &c->slots[i]; /* (recursion may have grown the table) */
    s->process = p;
    return p;
}

/* "stream N" -> N */
static bool stream_tid(const char *s, size_t n, int64_t *tid)
{
    long long v;
    int used = 0;
    while (n && s[n - 1] == ' ') /* Kineto names them "stream 7 " */
        n--;
    if (n > 7 && n < 40 && strncmp(s, "stream ", 7) == 0 && s[7] >= '0' && s[7] <= '9' &&
        sscanf(s + 7, "%lld%n", &v, &used) == 1 && (size_t)used == n - 7) {
        *tid = v;
        return true;
    }
    return false;
}

/* Slot i's track.  Pass 0: threads, process-level tracks and streams;
 * pass 1: the other named tracks, each a thread of its own numbered after
 * the process's largest tid (next[]: the model keys tracks by tid, and
 * the analyses tell streams and lines apart by it). */
static void resolve(pf_ctx *c, uint32_t i, int pass, int64_t *next)
{
    tp_trace *t = c->t;
    uint32_t p = process_of(c, i, 0);
    pf_slot *s = &c->slots[i];
    uint32_t k;
    int64_t tid;
    bool plain = false;
    if (s->is_thread) {
        k = tp_track_get(t, p, s->tid);
    } else if (s->is_process || s->global || s->is_counter) { /* counters: values of the process */
        k = tp_track_get(t, p, 0);
        if (s->global && !t->tracks[k].name)
            t->tracks[k].name = s->name;
        s->track = k;
        return;
    } else if (stream_tid(tp_str_get(t, s->name), tp_str_len(t, s->name), &tid)) {
        k = tp_track_get(t, p, tid);
    } else {
        plain = true;
        if (pass == 0)
            return;
        k = tp_track_get(t, p, ++next[p]);
        if (!s->name) {
            char b[48];
            int n = snprintf(b, sizeof b, "track %llu", (unsigned long long)s->uuid);
            t->tracks[k].name = tp_intern(t, b, (size_t)n);
        }
    }
    if (pass != plain)
        return;
    if (s->name && !t->tracks[k].name)
        t->tracks[k].name = s->name;
    s->track = k;
}

static bool device_slot(pf_ctx *c, const pf_slot *s);

static void resolve_all(pf_ctx *c)
{
    tp_trace *t = c->t;
    for (uint32_t i = 0; i < c->nslots; i++)
        process_of(c, i, 0);
    for (uint32_t i = 0; i < c->nslots; i++)
        resolve(c, i, 0, NULL);
    int64_t *next = tp_xcalloc(t->nprocesses + 1, sizeof *next);
    for (size_t k = 0; k < t->ntracks; k++) {
        int64_t tid = t->tracks[k].tid;
        uint32_t p = t->tracks[k].process;
        if (!t->tracks[k].key && tid > next[p] && tid < INT32_MAX)
            next[p] = tid;
    }
    for (uint32_t i = 0; i < c->nslots; i++)
        if (c->slots[i].track == TP_NONE)
            resolve(c, i, 1, next);
    free(next);
    for (uint32_t i = 0; i < c->nslots; i++) /* once per track, not per event */
        c->slots[i].device = device_slot(c, &c->slots[i]);
}

/* A slice with no category on a device's track: its kind by name. */
static uint8_t device_kind(const char *name)
{
    if (strncmp(name, "Memcpy", 6) == 0 || strncmp(name, "memcpy", 6) == 0)
        return TP_KIND_MEMCPY;
    if (strncmp(name, "Memset", 6) == 0 || strncmp(name, "memset", 6) == 0)
        return TP_KIND_MEMSET;
    return TP_KIND_KERNEL;
}

static bool device_slot(pf_ctx *c, const pf_slot *s)
{
    const tp_trace *t = c->t;
    const char *pn = tp_str_get(t, t->processes[s->process].name);
    int64_t tid;
    return strncmp(pn, "GPU ", 4) == 0 || stream_tid(tp_str_get(t, s->name), tp_str_len(t, s->name), &tid);
}

/* A counter value: named by its track, "<name> <key>" split at the last space. */
static void counter_event(pf_ctx *c, tp_event *e, const pf_slot *s)
{
    tp_trace *t = c->t;
    size_t len = tp_str_len(t, s->name), alen;
    /* the track's name and the value's text, copied: interning may move the pools */
    c->scratch.len = 0;
    tp_buf_put(&c->scratch, tp_str_get(t, s->name), len);
    tp_buf_putc(&c->scratch, 0);
    const char *args = tp_args_get(t, e->args, &alen); /* {"value":V} */
    const char *v = args ? memchr(args, ':', alen) : NULL;
    if (v)
        tp_buf_put(&c->scratch, v + 1, (size_t)(args + alen - v - 2));
    tp_buf_putc(&c->scratch, 0);
    char *n = c->scratch.data;
    const char *sp = len ? memrchr(n, ' ', len) : NULL;
    if (!sp || sp == n || sp + 1 == n + len || !v) {
        e->name = s->name;
        return;
    }
    n[sp - n] = 0; /* "<name>\0<key>\0<value>\0" */
    e->name = tp_intern(t, n, (size_t)(sp - n));
    n = c->scratch.data;
    tp_argb_reset(&c->ab);
    tp_argb_raw(&c->ab, n + (sp - n) + 1, n + len + 1, strlen(n + len + 1));
    e->args = tp_argb_commit(t, &c->ab);
}

static int cmp_mark(const void *a, const void *b)
{
    const pf_mark *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The marks by (slot, time, file order): a stable bucket pass by slot keeps
 * file order, and a slot's marks are usually in time order already (a
 * writer emits a track's events in order), so only the slots that are not
 * are sorted (a sort of all the marks was a tenth of reading a .pftrace). */
static void sort_marks(pf_ctx *c)
{
    size_t n = c->nmarks;
    if (!n)
        return;
    size_t *start = tp_xcalloc(c->nslots + 2, sizeof *start);
    for (size_t i = 0; i < n; i++)
        start[c->marks[i].slot + 1]++;
    for (size_t k = 0; k <= c->nslots; k++)
        start[k + 1] += start[k];
    pf_mark *out = tp_xmalloc(n * sizeof *out);
    size_t *at = tp_xmalloc((c->nslots + 1) * sizeof *at);
    memcpy(at, start, (c->nslots + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++)
        out[at[c->marks[i].slot]++] = c->marks[i];
    free(at);
    for (size_t k = 0; k < c->nslots; k++) {
        size_t a = start[k], b = start[k + 1];
        for (size_t i = a + 1; i < b; i++)
            if (out[i].ts < out[i - 1].ts) {
                qsort(out + a, b - a, sizeof *out, cmp_mark);
                break;
            }
    }
    free(start);
    free(c->marks);
    c->marks = out;
    c->marks_cap = n;
}

static void match_slices(pf_ctx *c)
{
    tp_trace *t = c->t;
    sort_marks(c);
    uint32_t *stack = NULL;
    size_t cap = 0, depth = 0;
    uint64_t orphans = 0;
    for (size_t q = 0; q <= c->nmarks; q++) {
        if (q == c->nmarks || (q && c->marks[q].slot != c->marks[q - 1].slot)) {
            for (; depth; depth--)
                tp_drop(t, stack[depth - 1], "pftrace: slices without an end (dropped)");
            if (q == c->nmarks)
                break;
        }
        const pf_mark *m = &c->marks[q];
        if (m->ev != TP_NONE) {
            TP_GROW(stack, cap, depth + 1);
            stack[depth++] = m->ev;
            continue;
        }
        if (!depth) {
            orphans++;
            continue;
        }
        tp_event *e = &t->events[stack[--depth]];
        int64_t d = m->ts - e->ts;
        if (d >= TP_DUR_MAX)
            tp_drop(t, stack[depth], "pftrace: slices longer than 2^61 ns");
        else
            e->dur = d;
    }
    if (orphans)
        tp_warn(t, PF_W_ORPHAN_END, orphans);
    free(stack);
}

static int cmp_flow(const void *a, const void *b, void *ctx)
{
    const pf_flow *x = a, *y = b;
    const tp_trace *t = ctx;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    int64_t tx = t->events[x->ev].ts, ty = t->events[y->ev].ts;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static bool is_device(uint8_t k) { return k >= TP_KIND_KERNEL && k <= TP_KIND_SYNC; }

/* A flow from event a to event b: a launch link when b is device activity
 * started by a host call (and no correlation id binds them already), flow
 * events ('s' on a, 'f' on b) otherwise. */
static void flow_pair(pf_ctx *c, uint64_t id, uint32_t a, uint32_t b, tp_str name)
{
    tp_trace *t = c->t;
    tp_event *x = &t->events[a], *y = &t->events[b];
    if ((x->flags & TP_EV_DROPPED) || (y->flags & TP_EV_DROPPED))
        return;
    if ((x->flags & y->flags & TP_EV_HAS_CORR) && x->corr == y->corr && is_device(y->kind) != is_device(x->kind))
        return; /* the pipeline links them by correlation id */
    if (is_device(y->kind) && !is_device(x->kind) && x->ph == 'X' && y->link == TP_NONE) {
        y->link = a;
        y->flags |= TP_EV_LINK_FLOW;
        return;
    }
    tp_event s, f;
    tp_event_init(&s);
    s.ph = 's';
    s.ts = x->ts;
    s.track = x->track;
    s.name = s.cat = name;
    s.id = id;
    s.flags = TP_EV_HAS_ID;
    f = s;
    f.ph = 'f';
    f.ts = y->ts;
    f.track = y->track;
    f.flags |= TP_EV_BP_ENCLOSING;
    tp_event_add(t, &s);
    tp_event_add(t, &f);
}

static void bind_flows(pf_ctx *c)
{
    tp_trace *t = c->t;
    if (!c->nflows)
        return;
    qsort_r(c->flows, c->nflows, sizeof *c->flows, cmp_flow, t);
    tp_str name = tp_intern_cstr(t, "flow");
    uint64_t single = 0;
    for (size_t i = 0; i < c->nflows;) {
        size_t j = i + 1;
        while (j < c->nflows && c->flows[j].id == c->flows[i].id)
            j++;
        if (j - i == 1)
            single++;
        /* a chain: each event to the next one; a terminating id ends it */
        uint32_t from = c->flows[i].ev;
        bool open = !c->flows[i].terminating;
        for (size_t q = i + 1; q < j; q++) {
            uint32_t to = c->flows[q].ev;
            if (open && to != from)
                flow_pair(c, c->flows[i].id, from, to, name);
            from = to;
            open = !c->flows[q].terminating;
        }
        i = j;
    }
    if (single)
        tp_warn(t, "pftrace: flow ids on one event only (not read)", single);
}

/* Device activity on a track of a process that also has host threads
 * (rocprofv3 puts its queues under the process): the model's devices are
 * processes of their own (the analyses take a whole process as a device),
 * so such tracks move to a process "<name> devices" of that pid's, one per
 * host process. */
static void rehome_devices(pf_ctx *c, const bool *dev_slot)
{
    tp_trace *t = c->t;
    bool *has_thread = tp_xcalloc(t->nprocesses + 1, sizeof *has_thread);
    uint32_t *moved_to = tp_xmalloc((t->nprocesses + 1) * sizeof *moved_to);
    size_t np = t->nprocesses;
    for (size_t p = 0; p < np; p++)
        moved_to[p] = TP_NONE;
    for (uint32_t i = 0; i < c->nslots; i++)
        if (c->slots[i].is_thread && c->slots[i].process < np)
            has_thread[c->slots[i].process] = true;
    for (uint32_t i = 0; i < c->nslots; i++) {
        pf_slot *s = &c->slots[i];
        if (!dev_slot[i] || s->is_thread || s->process >= np || !has_thread[s->process])
            continue;
        uint32_t p = s->process;
        if (moved_to[p] == TP_NONE) {
            const tp_process *hp = &t->processes[p];
            c->scratch.len = 0;
            if (hp->name)
                tp_buf_printf(&c->scratch, "%s devices (pid %lld)", tp_str_get(t, hp->name), (long long)hp->pid);
            else
                tp_buf_printf(&c->scratch, "devices (pid %lld)", (long long)hp->pid);
            tp_str key = tp_intern(t, c->scratch.data, c->scratch.len);
            moved_to[p] = tp_process_get_key(t, key);
            t->processes[moved_to[p]].name = key;
        }
        const tp_track *old = &t->tracks[s->track];
        int64_t tid = old->tid;
        tp_str name = old->name;
        s->process = moved_to[p];
        s->track = tp_track_get(t, moved_to[p], tid);
        if (!t->tracks[s->track].name)
            t->tracks[s->track].name = name;
    }
    free(has_thread);
    free(moved_to);
}

/* "GPU 3", "MTIA 17": how Kineto labels a device process (process_labels) */
static bool kineto_device_label(const tp_trace *t, tp_str name)
{
    const char *v = name ? tp_str_get(t, name) : "";
    size_t skip = strncmp(v, "GPU ", 4) == 0 ? 4 : strncmp(v, "MTIA ", 5) == 0 ? 5 : 0;
    if (!skip || !v[skip])
        return false;
    for (v += skip; *v; v++)
        if (*v < '0' || *v > '9')
            return false;
    return true;
}

/* "/device:GPU:3" (an XPlane plane, as convert names its process): 3, else
 * -1.  Its pid is no device number: convert numbers XPlane's planes from 1. */
static int32_t xla_device_number(const tp_trace *t, tp_str name)
{
    const char *v = name ? tp_str_get(t, name) : "";
    if (strncmp(v, "/device:GPU:", 12) != 0 && strncmp(v, "/device:TPU:", 12) != 0)
        return -1;
    int32_t n = 0;
    size_t i = 12;
    for (; v[i] >= '0' && v[i] <= '9' && i < 18; i++)
        n = n * 10 + (v[i] - '0');
    return i > 12 && !v[i] ? n : -1;
}

void pf_finish(pf_ctx *c)
{
    tp_trace *t = c->t;
    resolve_all(c);
    uint64_t undescribed = 0;
    for (uint32_t i = 0; i < c->nslots; i++)
        undescribed += !c->slots[i].described;
    if (undescribed)
        tp_warn(t, "pftrace: tracks no descriptor describes (named by uuid)", undescribed);
    size_t n = t->nevents;
    /* kinds first (a slice without a category on a device's track), and which
     * tracks hold device activity */
    bool *dev_slot = tp_xcalloc(c->nslots + 1, sizeof *dev_slot);
    for (size_t i = 0; i < n; i++) {
        tp_event *e = &t->events[i];
        if (e->ph == 'X' && !e->cat && c->slots[e->track].device)
            e->kind = device_kind(tp_str_get(t, e->name));
        dev_slot[e->track] |= is_device(e->kind);
    }
    rehome_devices(c, dev_slot);
    free(dev_slot);
    for (size_t i = 0; i < n; i++) {
        tp_event *e = &t->events[i];
        const pf_slot *s = &c->slots[e->track];
        e->track = s->track;
        if (e->ph == 'i' && (s->is_process || s->global))
            e->flags |= s->global ? TP_EV_INSTANT_GLOBAL : TP_EV_INSTANT_PROCESS;
        if (e->ph == 'C')
            counter_event(c, e, s);
    }
    /* a process of device activity is labelled "GPU <pid>", as Kineto labels
     * its devices (the label is not in the file; convert writes no labels),
     * unless its name is such a label already ("MTIA 17": Kineto's MTIA
     * device, which convert writes as the process's name) */
    bool *dev = tp_xcalloc(t->nprocesses + 1, sizeof *dev);
    for (size_t i = 0; i < n; i++)
        if (is_device(t->events[i].kind))
            dev[t->tracks[t->events[i].track].process] = true;
    /* MTIA runtime calls on a device (its "Submission Queue" tracks) are the
     * device's view of a host sync, as the Chrome reader has them */
    for (size_t i = 0; i < n; i++) {
        tp_event *e = &t->events[i];
        if (e->cat && e->cat < c->cat_kind_cap && c->cat_kind[e->cat] == PF_CAT_MTIA_RUNTIME &&
            dev[t->tracks[e->track].process])
            e->kind = TP_KIND_SYNC;
    }
    for (size_t p = 0; p < t->nprocesses; p++)
        if (dev[p] && t->processes[p].device < 0 && xla_device_number(t, t->processes[p].name) >= 0)
            t->processes[p].device = xla_device_number(t, t->processes[p].name); /* "device N", as XPlane's reader */
        else if (dev[p] && !t->processes[p].label && kineto_device_label(t, t->processes[p].name))
            t->processes[p].label = t->processes[p].name;
        else if (dev[p] && !t->processes[p].label && !t->processes[p].key && t->processes[p].pid >= 0 &&
                 t->processes[p].pid < (1 << 20)) {
            char b[32];
            int len = snprintf(b, sizeof b, "GPU %lld", (long long)t->processes[p].pid);
            t->processes[p].label = tp_intern(t, b, (size_t)len);
        }
    free(dev);
    match_slices(c);
    bind_flows(c);
}
