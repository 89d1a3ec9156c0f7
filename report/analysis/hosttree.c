/* hosttree.c: parent links, preorder and top-level ops of host slices. */
#include "report/analysis/hosttree.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

static const char *const label_markers[] = {"##", "__", "module::", "DLRM ", "DistributedDataParallel", NULL};

bool tp_is_module_label(const char *name)
{
    for (int i = 0; label_markers[i]; i++)
        if (strncmp(name, label_markers[i], strlen(label_markers[i])) == 0)
            return true;
    return false;
}

bool tp_is_op(const tp_trace *t, const tp_event *e)
{
    if (e->kind != TP_KIND_HOST_OP || (e->flags & TP_EV_STEP))
        return false;
    const char *n = tp_str_get(t, e->name);
    return strncmp(n, "ProfilerStep#", 13) != 0 && !tp_is_module_label(n);
}

static bool ends_with(const char *s, const char *suf, size_t *prefix)
{
    size_t a = strlen(s), b = strlen(suf);
    if (a < b || strcmp(s + a - b, suf) != 0)
        return false;
    *prefix = a - b;
    return true;
}

uint32_t *tp_logical_tracks(const tp_trace *t)
{
    uint32_t *lg = tp_xmalloc((t->ntracks + 1) * sizeof *lg);
    for (size_t k = 0; k < t->ntracks; k++) {
        const tp_track *tk = &t->tracks[k];
        lg[k] = (uint32_t)k;
        if (tk->role == TP_TRACK_OVERFLOW && tk->derived_of != TP_NONE) {
            lg[k] = tk->derived_of;
            continue;
        }
        size_t plen;
        const char *name = tp_str_get(t, tk->name);
        if (!ends_with(name, " (overlap)", &plen))
            continue;
        for (size_t j = 0; j < t->ntracks; j++) {
            const tp_track *o = &t->tracks[j];
            if (j == k || o->process != tk->process || tp_str_len(t, o->name) != plen)
                continue;
            if (memcmp(tp_str_get(t, o->name), name, plen) == 0) {
                lg[k] = (uint32_t)j;
                break;
            }
        }
    }
    /* a chain of overlap rows ("x (overlap) (overlap)") ends at the base */
    for (size_t k = 0; k < t->ntracks; k++)
        for (int hops = 0; hops < 8 && lg[lg[k]] != lg[k]; hops++)
            lg[k] = lg[lg[k]];
    return lg;
}

/* The sort key of a host slice, copied out of the event so the sort reads
 * contiguous memory; ties in (track, start, longer first) are rare and go
 * to the names, then the event index. */
typedef struct host_key {
    uint32_t track, idx;
    int64_t ts, dur;
} host_key;

static inline bool host_less(const host_key *x, const host_key *y, const tp_trace *t)
{
    if (x->track != y->track)
        return x->track < y->track;
    if (x->ts != y->ts)
        return x->ts < y->ts;
    if (x->dur != y->dur)
        return x->dur > y->dur;
    int s = strcmp(tp_str_get(t, t->events[x->idx].name), tp_str_get(t, t->events[y->idx].name));
    return s ? s < 0 : x->idx < y->idx;
}
#define HOST_LESS(x, y, t) host_less((x), (y), (t))
TP_SORT_DEFINE(sort_host_keys, host_key, const tp_trace *, HOST_LESS)

void tp_host_tree_build(const tp_trace *t, tp_host_tree *ht)
{
    memset(ht, 0, sizeof *ht);
    size_t ne = t->nevents;
    ht->logical = tp_logical_tracks(t);
    ht->pos = tp_xmalloc((ne + 1) * sizeof *ht->pos);
    ht->parent = tp_xmalloc((ne + 1) * sizeof *ht->parent);
    ht->top = tp_xmalloc((ne + 1) * sizeof *ht->top);
    memset(ht->pos, 0xff, ne * sizeof *ht->pos); /* TP_NONE */
    memset(ht->parent, 0xff, ne * sizeof *ht->parent);
    memset(ht->top, 0xff, ne * sizeof *ht->top);
    /* host slices: ph 'X', not dropped, on a host thread (or a row folded into one) */
    bool *host = tp_xmalloc(t->ntracks + 1);
    for (size_t k = 0; k < t->ntracks; k++)
        host[k] = t->tracks[ht->logical[k]].role == TP_TRACK_HOST;
    /* by track first (a counting pass, which also counts the trace's slices for the report), then each track's keys
     * sorted alone (a thread's slices mostly come in start order, in a few runs: the sort merges those): the same
     * order as one sort of all keys, at a fraction of its merge passes and copies (the sort was a third of the
     * tree's time) */
    size_t *first = tp_xcalloc(t->ntracks + 2, sizeof *first);
    ht->device = tp_xmalloc((ne + 1) * sizeof *ht->device); /* the pages of those noted only: trimmed below */
    for (size_t i = 0; i < ne; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || (e->flags & TP_EV_DROPPED))
            continue;
        ht->slices += !(e->flags & TP_EV_DERIVED);
        if (host[e->track])
            first[ht->logical[e->track] + 1]++;
        if (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET)
            ht->device[ht->ndevice++] = (uint32_t)i;
    }
    ht->device = tp_xrealloc(ht->device, (ht->ndevice + 1) * sizeof *ht->device);
    for (size_t k = 0; k < t->ntracks; k++)
        first[k + 1] += first[k];
    size_t n = first[t->ntracks];
    ht->order = tp_xmalloc((n + 1) * sizeof *ht->order);
    ht->sub_end = tp_xmalloc((n + 1) * sizeof *ht->sub_end);
    ht->n = n;
    host_key *keys = tp_xmalloc((n + 1) * sizeof *keys);
    size_t *fill = tp_xmalloc((t->ntracks + 1) * sizeof *fill);
    memcpy(fill, first, (t->ntracks + 1) * sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph == 'X' && !(e->flags & TP_EV_DROPPED) && host[e->track])
            keys[fill[ht->logical[e->track]]++] = (host_key){ht->logical[e->track], (uint32_t)i, e->ts, e->dur};
    }
    free(host);
    free(fill);
    for (size_t k = 0; k < t->ntracks; k++)
        sort_host_keys(keys + first[k], first[k + 1] - first[k], t);
    free(first);
    for (size_t p = 0; p < n; p++)
        ht->order[p] = keys[p].idx;
    free(keys);
    uint32_t *stack = tp_xmalloc((n + 1) * sizeof *stack); /* positions */
    size_t depth = 0;
    uint32_t cur_track = TP_NONE;
    for (size_t p = 0; p < n; p++) {
        uint32_t ei = ht->order[p];
        const tp_event *e = &t->events[ei];
        ht->pos[ei] = (uint32_t)p;
        if (ht->logical[e->track] != cur_track) {
            while (depth)
                ht->sub_end[stack[--depth]] = (uint32_t)p;
            cur_track = ht->logical[e->track];
        }
        int64_t end = e->ts + e->dur;
        /* pop what ended before e starts or does not cover e (crossover) */
        while (depth) {
            const tp_event *s = &t->events[ht->order[stack[depth - 1]]];
            int64_t send = s->ts + s->dur;
            if (send > e->ts && end <= send)
                break;
            ht->sub_end[stack[--depth]] = (uint32_t)p;
        }
        if (depth) {
            uint32_t par = ht->order[stack[depth - 1]];
            ht->parent[ei] = par;
            ht->top[ei] = ht->top[par];
        }
        if (ht->top[ei] == TP_NONE && tp_is_op(t, e))
            ht->top[ei] = ei;
        stack[depth++] = (uint32_t)p;
    }
    while (depth)
        ht->sub_end[stack[--depth]] = (uint32_t)n;
    free(stack);
}

void tp_host_tree_free(tp_host_tree *ht)
{
    free(ht->order);
    free(ht->pos);
    free(ht->parent);
    free(ht->top);
    free(ht->sub_end);
    free(ht->logical);
    free(ht->device);
    memset(ht, 0, sizeof *ht);
}

uint32_t tp_top_op_of(const tp_trace *t, const tp_host_tree *ht, uint32_t ev)
{
    if (ev == TP_NONE)
        return TP_NONE;
    const tp_event *e = &t->events[ev];
    if (e->link != TP_NONE && ht->pos[ev] == TP_NONE)
        ev = e->link;
    return ht->top[ev];
}
