/* cp_graph.c: one window's graph and its longest path (critical.h has the
 * definitions).  The passes follow HTA's CPGraph in its order (runtime
 * lock, call stacks, device activity), so that edges are met in the same
 * order and the longest path breaks ties the same way networkx does. */
#include "convert/critical/cp_prep.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

/* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: a longer gap between two kernels
 * of a stream is a dependency the trace does not show. */
#define KERNEL_GAP_MAX_NS 1500000

/* 16 bytes: a window may hold every event of the trace (the whole-trace
 * window of a trace without steps); its place in the window is
 * cp_local(p, ev) */
typedef struct node {
    int64_t ts;
    uint32_t ev;
    bool start;
    bool synced; /* a whole-device sync's edge leaves it (device_pass) */
    uint8_t bits; /* its name's CPN_* bits (cp_prep.h): the passes need not read the event */
} node;
#define NODE_LESS(x, y, c) ((x)->ts < (y)->ts || ((x)->ts == (y)->ts && ((x)->ev < (y)->ev || ((x)->ev == (y)->ev && (x)->start && !(y)->start))))
TP_SORT_DEFINE(sort_nodes, node, int, NODE_LESS)

/* 16 bytes (as node): the weight is the nodes' time difference unless
 * zero is set (edge_w) */
typedef struct edge {
    uint32_t u, v, attr;
    uint8_t type;
    bool zero;
} edge;

typedef struct hkey { /* 24 bytes: the sort copies them */
    int64_t ts, end;
    uint32_t track;
    uint32_t ev;
} hkey;
#define HKEY_LESS(x, y, c)                                                                                             \
    ((x)->track < (y)->track ||                                                                                        \
     ((x)->track == (y)->track && ((x)->ts < (y)->ts || ((x)->ts == (y)->ts && ((x)->end > (y)->end || ((x)->end == (y)->end && (x)->ev < (y)->ev))))))
TP_SORT_DEFINE(sort_hkeys, hkey, int, HKEY_LESS)

typedef struct dkey {
    int64_t at;
    uint32_t ev;
    uint32_t pos;
} dkey;
#define DKEY_LESS(x, y, c) ((x)->at < (y)->at || ((x)->at == (y)->at && (x)->ev < (y)->ev))
TP_SORT_DEFINE(sort_dkeys, dkey, int, DKEY_LESS)

typedef struct graph {
    cp_prep *p;
    const tp_trace *t;
    node *nodes;
    size_t nnodes;
    uint32_t *start_of, *end_of; /* local -> node index */
    uint32_t *locals;            /* local -> event */
    size_t nlocals;
    edge *edges;
    size_t nedges, cap;
    uint32_t negative;
    uint64_t sync_skipped; /* whole-device sync edges left out past the budget (device_pass) */
} graph;

typedef struct csr {
    uint32_t *off; /* node -> first entry */
    uint32_t *e;   /* edge indexes, insertion order within a node */
} csr;

/* The edge's weight: dst.ts - src.ts, 0 for zero edges and clock skew */
static int64_t edge_w(const graph *g, const edge *e)
{
    if (e->zero)
        return 0;
    int64_t w = g->nodes[e->v].ts - g->nodes[e->u].ts;
    return w < 0 ? 0 : w;
}

/* A sync event on a stream ("Stream Sync", "Stream Wait Event") is a pair
 * of nodes as in HTA (which makes nodes of every event with a stream); no
 * edge touches them: their dependencies are the edges of device_pass. */
static bool on_stream_sync(const tp_trace *t, const tp_event *e)
{
    return e->kind == TP_KIND_SYNC && t->tracks[e->track].tid >= 0;
}

static void add_edge(graph *g, uint32_t u, uint32_t v, uint8_t type, bool zero, uint32_t attr)
{
    if (u == v)
        return;
    TP_GROW(g->edges, g->cap, g->nedges + 1);
    zero = zero || type == TP_CPE_DEPENDENCY || type == TP_CPE_SYNC;
    if (!zero && g->nodes[v].ts < g->nodes[u].ts)
        g->negative++; /* counted as 0 (edge_w) */
    g->edges[g->nedges++] = (edge){u, v, attr, type, zero};
}

static bool is_lock(const graph *g, const node *n)
{
    (void)g;
    return n->bits & CPN_LOCK;
}

/* HTA _shares_cuda_runtime_lock: both lock calls and not an (end, start) pair */
static bool shares_lock(const graph *g, uint32_t a, uint32_t b)
{
    return is_lock(g, &g->nodes[a]) && is_lock(g, &g->nodes[b]) && (g->nodes[a].start || !g->nodes[b].start);
}

/* cudaLaunchKernel / cudaMemcpyAsync / cudaHostAlloc hold one lock: the
 * calls of all threads, in completion order (HTA
 * _construct_graph_from_cuda_runtime_events). */
static void lock_pass(graph *g)
{
    uint32_t *open = tp_xmalloc((g->nnodes + 1) * sizeof *open);
    size_t nopen = 0;
    uint32_t last = TP_NONE;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        if (!is_lock(g, &g->nodes[i]))
            continue;
        if (g->nodes[i].start)
            open[nopen++] = i;
        else {
            while (nopen) {
                uint32_t prev = open[--nopen];
                if (g->nodes[prev].ev == g->nodes[i].ev)
                    add_edge(g, prev, i, TP_CPE_OPERATOR, false, g->nodes[i].ev);
                else
                    add_edge(g, prev, i, TP_CPE_DEPENDENCY, false, TP_NONE);
            }
            if (last != TP_NONE && !g->nodes[last].start)
                add_edge(g, last, i, TP_CPE_DEPENDENCY, false, TP_NONE);
        }
        last = i;
    }
    free(open);
}

#define U32_LESS(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_u32, uint32_t, int, U32_LESS)

/* The window's host events in HKEY_LESS order without sorting them: they come by (ts, ev) (p->host's order), so
 * dealt out by thread (in track order, keeping their order) they are by (track, ts, ev); only runs of one start on
 * one thread are left to sort (longer first).  The lane's last_of (TP_NONE everywhere between passes) holds each
 * thread's place meanwhile. */
static hkey *thread_order(graph *g, size_t nhost)
{
    const tp_trace *t = g->t;
    uint32_t *slot = g->p->last_of;
    hkey *in = tp_xmalloc((nhost + 1) * sizeof *in);
    uint32_t *threads = tp_xmalloc((nhost + 1) * sizeof *threads), *at = tp_xmalloc((nhost + 1) * sizeof *at);
    size_t nthreads = 0;
    for (size_t i = 0; i < nhost; i++) {
        const tp_event *e = &t->events[g->locals[i]];
        in[i] = (hkey){e->ts, e->ts + e->dur, g->p->logical[e->track], g->locals[i]};
        uint32_t *s = &slot[in[i].track];
        if (*s == TP_NONE) {
            *s = (uint32_t)nthreads;
            threads[nthreads] = in[i].track;
            at[nthreads++] = 0;
        }
        at[*s]++;
    }
    sort_u32(threads, nthreads, 0);
    uint32_t first = 0; /* each thread's first place, in track order */
    for (size_t k = 0; k < nthreads; k++) {
        uint32_t *n = &at[slot[threads[k]]];
        uint32_t count = *n;
        *n = first;
        first += count;
    }
    hkey *out = tp_xmalloc((nhost + 1) * sizeof *out);
    for (size_t i = 0; i < nhost; i++)
        out[at[slot[in[i].track]]++] = in[i];
    for (size_t k = 0; k < nthreads; k++)
        slot[threads[k]] = TP_NONE;
    free(in);
    free(threads);
    free(at);
    for (size_t a = 0, b; a < nhost; a = b) {
        for (b = a + 1; b < nhost && out[b].track == out[a].track && out[b].ts == out[a].ts; b++)
            ;
        if (b - a > 1)
            sort_hkeys(out + a, b - a, 0);
    }
    return out;
}

/* Nested host events of each thread, entered and left in order (HTA
 * _construct_graph_from_call_stack). */
static void stack_pass(graph *g, size_t nhost)
{
    hkey *k = thread_order(g, nhost);
    uint32_t *stack = tp_xmalloc((nhost + 1) * sizeof *stack); /* positions in k */
    size_t depth = 0;
    uint32_t last = TP_NONE, last_parent = TP_NONE;
    for (size_t i = 0; i <= nhost; i++) {
        bool new_track = i == nhost || i == 0 || k[i].track != k[i - 1].track;
        while (depth && (new_track || k[i].ts >= k[stack[depth - 1]].end)) {
            /* leave the innermost */
            uint32_t ev = k[stack[depth - 1]].ev, local = cp_local(g->p, ev);
            uint32_t end = g->end_of[local];
            uint32_t parent = depth >= 2 ? k[stack[depth - 2]].ev : TP_NONE;
            if (last != TP_NONE && !shares_lock(g, last, end)) {
                uint32_t attr = g->nodes[last].start ? g->nodes[last].ev : ev; /* cases 2 and 3 */
                add_edge(g, last, end, TP_CPE_OPERATOR, g->nodes[end].bits & CPN_BLOCKING, attr);
            }
            last = end;
            last_parent = parent;
            depth--;
        }
        if (i == nhost)
            break;
        if (new_track) {
            last = TP_NONE;
            last_parent = TP_NONE;
        }
        uint32_t ev = k[i].ev, start = g->start_of[cp_local(g->p, ev)];
        if (last != TP_NONE && !shares_lock(g, last, start)) {
            /* cases 1 and 4 of HTA _attribute_edge: from a start, the event
             * it starts; from an end, the parent of the event that ended */
            uint32_t attr = g->nodes[last].start ? g->nodes[last].ev : last_parent;
            add_edge(g, last, start, depth == 0 ? TP_CPE_DEPENDENCY : TP_CPE_OPERATOR, false, attr);
        }
        last = start;
        last_parent = depth ? k[stack[depth - 1]].ev : TP_NONE;
        stack[depth++] = (uint32_t)i;
    }
    free(stack);
    free(k);
}

/* Device activity in start order (sync events at their end), per stream
 * (HTA _construct_graph_from_kernels). */
static bool unrecorded_sync(const graph *g, uint32_t local, uint32_t ev)
{
    return (g->nodes[g->start_of[local]].bits & CPN_DEVICE_WAIT) && !g->p->has_sync[ev];
}

static void device_pass(graph *g, size_t nhost, size_t d0, size_t d1)
{
    const tp_trace *t = g->t;
    cp_prep *p = g->p;
    dkey *k = tp_xmalloc((d1 - d0 + nhost + 1) * sizeof *k);
    size_t n = 0;
    /* a device or stream synchronisation the trace has no sync event of: at
     * its end, as the sync events are (pos UINT32_MAX marks it) */
    for (size_t i = 0; i < nhost; i++)
        if (unrecorded_sync(g, (uint32_t)i, g->locals[i])) {
            const tp_event *e = &t->events[g->locals[i]];
            k[n++] = (dkey){tp_sat_add(e->ts, e->dur), g->locals[i], UINT32_MAX};
        }
    for (size_t i = d0; i < d1; i++) {
        const tp_event *e = &t->events[p->dev[i]];
        int kind = cp_item_kind(p, e);
        if (kind == CP_ITEM_OTHER)
            continue;
        k[n++] = (dkey){kind == CP_ITEM_ACTIVITY ? e->ts : e->ts + e->dur, p->dev[i], (uint32_t)i};
    }
    sort_dkeys(k, n, 0);
    uint32_t *streams = tp_xmalloc((n + 1) * sizeof *streams); /* streams with a last node, first seen first */
    size_t nstreams = 0;
    /* A whole-device sync (cudaDeviceSynchronize, Context Sync) waits for
     * every stream's last work: HTA's edge from each.  S streams and C such
     * syncs make S x C edges (a hostile trace of 6,000 of each: 36 M edges,
     * 700 MB).  Past a budget of edges proportional to the window's nodes,
     * only a stream whose last work changed since the previous whole-device
     * sync gets one (the others' edge would repeat one already made to an
     * earlier sync), the rest counted in sync_skipped. */
    uint32_t *changed = tp_xmalloc((n + 1) * sizeof *changed); /* streams whose last changed since that sync */
    size_t nchanged = 0, budget = 2 * g->nnodes + 4096, spent = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_event *e = &t->events[k[i].ev];
        int kind = k[i].pos == UINT32_MAX ? CP_ITEM_CONTEXT_SYNC : cp_item_kind(p, e);
        uint32_t run_local = k[i].pos == UINT32_MAX ? TP_NONE : cp_local(p, e->link);
        if (kind == CP_ITEM_CONTEXT_SYNC && (k[i].pos == UINT32_MAX || run_local != TP_NONE)) {
            /* every stream's work so far, to the call's end; an unrecorded
             * sync (pos UINT32_MAX) only from work ended by then */
            bool unrecorded = k[i].pos == UINT32_MAX;
            uint32_t call_end = g->end_of[unrecorded ? cp_local(p, k[i].ev) : run_local];
            bool all = spent + nstreams <= budget;
            size_t m = all ? nstreams : nchanged, added = 0;
            spent += all ? nstreams : 0;
            for (size_t s = 0; s < m; s++) {
                uint32_t last = p->last_of[all ? streams[s] : changed[s]];
                if ((!all && g->nodes[last].synced) || (unrecorded && g->nodes[last].ts > g->nodes[call_end].ts))
                    continue;
                add_edge(g, last, call_end, TP_CPE_SYNC, true, TP_NONE);
                g->nodes[last].synced = true;
                added++;
            }
            if (!all)
                g->sync_skipped += nstreams - added;
            nchanged = 0;
            continue;
        }
        if (kind != CP_ITEM_ACTIVITY) {
            if (run_local == TP_NONE)
                continue;
            uint32_t run_end = g->end_of[run_local];
            if (kind == CP_ITEM_STREAM_SYNC) {
                uint32_t last = p->last_of[p->logical[e->track]];
                if (last != TP_NONE)
                    add_edge(g, last, run_end, TP_CPE_SYNC, true, TP_NONE);
            } else {
                uint32_t src = p->sync_src[k[i].pos];
                uint32_t src_local = src == TP_NONE ? TP_NONE : cp_local(p, src);
                if (src_local != TP_NONE)
                    add_edge(g, g->end_of[src_local], run_end, TP_CPE_SYNC, true, TP_NONE);
            }
            continue;
        }
        uint32_t local = cp_local(p, k[i].ev);
        if (local == TP_NONE)
            continue;
        uint32_t start = g->start_of[local], end = g->end_of[local];
        add_edge(g, start, end, TP_CPE_OPERATOR, false, k[i].ev);
        uint32_t stream = p->logical[e->track];
        uint32_t last = p->last_of[stream];
        uint32_t src = p->wait_src[k[i].pos];
        uint32_t src_local = src == TP_NONE ? TP_NONE : cp_local(p, src);
        uint32_t sync_end = src_local == TP_NONE ? TP_NONE : g->end_of[src_local];
        if (sync_end != TP_NONE)
            add_edge(g, sync_end, start, TP_CPE_SYNC, true, TP_NONE);
        int64_t run_ts = t->events[e->link].ts;
        bool launched = false;
        if (p->q_run[k[i].pos] == 1 && p->q_dev[k[i].pos] == 0 && (last == TP_NONE || g->nodes[last].ts < run_ts) &&
            (src == TP_NONE || (sync_end != TP_NONE && g->nodes[sync_end].ts < run_ts)) && run_local != TP_NONE) {
            add_edge(g, g->start_of[run_local], start, TP_CPE_LAUNCH, false, TP_NONE);
            launched = true;
        } else if (last != TP_NONE && g->nodes[start].ts - g->nodes[last].ts < KERNEL_GAP_MAX_NS &&
                   (src == TP_NONE || (sync_end != TP_NONE && g->nodes[sync_end].ts < g->nodes[last].ts))) {
            add_edge(g, last, start, TP_CPE_KERNEL_KERNEL, false, g->nodes[last].ev);
        }
        /* a device activity never starts before its launch call: a 0 edge
         * keeps that order (HTA CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE) */
        if (!launched && run_local != TP_NONE)
            add_edge(g, g->start_of[run_local], start, TP_CPE_LAUNCH, true, TP_NONE);
        if (last == TP_NONE)
            streams[nstreams++] = stream;
        p->last_of[stream] = end;
        changed[nchanged++] = stream; /* may repeat a stream: its node is marked once linked */
    }
    for (size_t s = 0; s < nstreams; s++)
        p->last_of[streams[s]] = TP_NONE;
    free(streams);
    free(changed);
    free(k);
}

/* ---- the longest path, as networkx dag_longest_path finds it ---- */

static void csr_build(csr *c, const edge *es, size_t ne, size_t nn, bool by_dst)
{
    c->off = tp_xcalloc(nn + 2, sizeof *c->off);
    c->e = tp_xmalloc((ne + 1) * sizeof *c->e);
    for (size_t i = 0; i < ne; i++)
        c->off[(by_dst ? es[i].v : es[i].u) + 1]++;
    for (size_t i = 0; i < nn; i++)
        c->off[i + 1] += c->off[i];
    uint32_t *fill = tp_xmalloc((nn + 1) * sizeof *fill);
    memcpy(fill, c->off, nn * sizeof *fill);
    for (size_t i = 0; i < ne; i++)
        c->e[fill[by_dst ? es[i].v : es[i].u]++] = (uint32_t)i;
    free(fill);
}

/* networkx keeps one edge per (u, v): a later add updates the first one's
 * data in place.  Mark the later duplicates dead (type 255). */
static void dedupe(edge *es, size_t ne, const csr *out, size_t nn)
{
    uint32_t *seen = tp_xmalloc((nn + 1) * sizeof *seen); /* v -> edge index of (u, v) for the current u */
    uint32_t *stamp = tp_xmalloc((nn + 1) * sizeof *stamp);
    memset(stamp, 0xff, (nn + 1) * sizeof *stamp);
    for (size_t u = 0; u < nn; u++)
        for (uint32_t j = out->off[u]; j < out->off[u + 1]; j++) {
            edge *e = &es[out->e[j]];
            if (stamp[e->v] == u) {
                edge *first = &es[seen[e->v]];
                first->zero = e->zero;
                first->type = e->type;
                first->attr = e->attr;
                e->type = 255;
            } else {
                stamp[e->v] = (uint32_t)u;
                seen[e->v] = out->e[j];
            }
        }
    (void)ne;
    free(seen);
    free(stamp);
}

/* Topological generations (Kahn, generation after generation, children in
 * edge order), then the best predecessor of each node (the first with the
 * greatest length; none when that is negative), then back from the first
 * node of greatest length.  Returns the path's node count (0: a cycle). */
static size_t longest_path(graph *g, uint32_t **path_out, uint32_t **edge_out, int64_t *len_out)
{
    size_t nn = g->nnodes, ne = g->nedges;
    csr out, in;
    csr_build(&out, g->edges, ne, nn, false);
    dedupe(g->edges, ne, &out, nn);
    uint32_t *indeg = tp_xcalloc(nn + 1, sizeof *indeg);
    for (size_t i = 0; i < ne; i++)
        if (g->edges[i].type != 255)
            indeg[g->edges[i].v]++;
    uint32_t *order = tp_xmalloc((nn + 1) * sizeof *order);
    size_t no = 0;
    for (size_t v = 0; v < nn; v++)
        if (!indeg[v])
            order[no++] = (uint32_t)v;
    for (size_t head = 0; head < no; head++) {
        uint32_t u = order[head];
        for (uint32_t j = out.off[u]; j < out.off[u + 1]; j++) {
            const edge *e = &g->edges[out.e[j]];
            if (e->type != 255 && --indeg[e->v] == 0)
                order[no++] = e->v;
        }
    }
    /* the successors are not needed any more: the best predecessor's edge is
     * kept (from_e), so that the peak holds one adjacency, not two */
    free(indeg);
    free(out.off);
    free(out.e);
    csr_build(&in, g->edges, ne, nn, true);
    size_t n = 0;
    if (no == nn && nn) {
        /* the best predecessor of a node is its edge's source: no array of its own (4 bytes a node) */
        int64_t *dist = tp_xmalloc(nn * sizeof *dist);
        uint32_t *from_e = tp_xmalloc(nn * sizeof *from_e);
        for (size_t k = 0; k < nn; k++) {
            uint32_t v = order[k];
            int64_t best = INT64_MIN;
            uint32_t be = TP_NONE;
            for (uint32_t j = in.off[v]; j < in.off[v + 1]; j++) {
                const edge *e = &g->edges[in.e[j]];
                if (e->type == 255)
                    continue;
                int64_t c = tp_sat_add(dist[e->u], edge_w(g, e));
                if (c > best) {
                    best = c;
                    be = in.e[j];
                }
            }
            if (best == INT64_MIN || best < 0) {
                best = 0;
                be = TP_NONE;
            }
            dist[v] = best;
            from_e[v] = be;
        }
        uint32_t v = order[0];
        for (size_t k = 1; k < nn; k++)
            if (dist[order[k]] > dist[v])
                v = order[k];
        *len_out = dist[v];
        free(dist);
        free(in.off);
        free(in.e);
        in.off = in.e = NULL;
        /* the path back from v, reversed into order's room; path_e[i]: the
         * edge into path[i] (TP_NONE for the first; no edge is a loop) */
        uint32_t *path = order;
        for (;;) {
            path[n++] = v;
            if (from_e[v] == TP_NONE)
                break;
            v = g->edges[from_e[v]].u;
        }
        uint32_t *path_e = tp_xmalloc(n * sizeof *path_e);
        for (size_t a = 0, b = n - 1; a < b; a++, b--) {
            uint32_t x = path[a];
            path[a] = path[b];
            path[b] = x;
        }
        for (size_t i = 0; i < n; i++)
            path_e[i] = i ? from_e[path[i]] : TP_NONE;
        free(from_e);
        *path_out = path;
        *edge_out = path_e;
        order = NULL;
    }
    free(in.off);
    free(in.e);
    free(order);
    return n;
}


static uint8_t bound_of(const graph *g, const edge *e)
{
    switch (e->type) {
    case TP_CPE_LAUNCH:
        return TP_CPB_LAUNCH;
    case TP_CPE_KERNEL_KERNEL:
        return TP_CPB_KERNEL_GAP;
    case TP_CPE_SYNC:
        return TP_CPB_SYNC;
    case TP_CPE_DEPENDENCY:
        return TP_CPB_CPU; /* the host thread between two ops (or waiting on the runtime lock) */
    default:
        break;
    }
    if (e->attr == TP_NONE)
        return TP_CPB_CPU;
    const tp_event *a = &g->t->events[e->attr];
    if (a->kind == TP_KIND_MEMCPY || a->kind == TP_KIND_MEMSET)
        return TP_CPB_MEMCPY;
    if (a->kind == TP_KIND_KERNEL)
        return (cp_name_bits(g->p, a->name) & CPN_COMM) ? TP_CPB_COMM : TP_CPB_KERNEL;
    if (cp_is_data_loading(g->p, a))
        return TP_CPB_DATA_LOADING;
    if (edge_w(g, e) == 0 && (cp_name_bits(g->p, a->name) & CPN_BLOCKING))
        return TP_CPB_SYNC; /* a blocking call's end: waiting on the device */
    return TP_CPB_CPU;
}

/* 16 bytes: a whole-trace path may have millions of links.  key: the
 * event, then (after the events are summed) its name. */
typedef struct share {
    int64_t ns;
    uint32_t key;
    uint8_t bound;
} share;
#define SHARE_BY_KEY(x, y, c) ((x)->key < (y)->key || ((x)->key == (y)->key && (x)->bound < (y)->bound))
TP_SORT_DEFINE(sort_by_key, share, int, SHARE_BY_KEY)
#define SHARE_BY_NS(x, y, c) ((x)->ns > (y)->ns)
TP_SORT_DEFINE(sort_by_ns, share, int, SHARE_BY_NS)

/* Sum the entries of one (key, bound): s sorted by them; returns the count left. */
static size_t sum_by_key(share *s, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[m - 1].key == s[i].key && s[m - 1].bound == s[i].bound)
            s[m - 1].ns += s[i].ns;
        else
            s[m++] = s[i];
    }
    return m;
}

/* A link's share of the path's time, when it has one (s[*n], counted). */
static void share_of(const tp_cp_link *l, share *s, size_t *n)
{
    if (l->time_ns > 0 && l->attr_ev != TP_NONE)
        s[(*n)++] = (share){l->time_ns, l->attr_ev, l->bound};
}

/* The path's time by event: the longest host op, the top names (s: the
 * links' shares, freed here). */
static void shares(const tp_trace *t, tp_cp_path *out, share *s, size_t n)
{
    sort_by_key(s, n, 0);
    size_t m = sum_by_key(s, n);
    for (size_t i = 0; i < m; i++) {
        s[i].key = t->events[s[i].key].name;
        if (s[i].bound == TP_CPB_CPU && s[i].ns > out->longest_cpu_ns) {
            out->longest_cpu_ns = s[i].ns;
            out->longest_cpu_name = s[i].key;
        }
    }
    sort_by_key(s, m, 0);
    n = sum_by_key(s, m);
    sort_by_ns(s, n, 0);
    for (size_t i = 0; i < n && out->ntop < TP_CP_TOP; i++)
        out->top[out->ntop++] = (tp_cp_top){s[i].key, s[i].bound, s[i].ns};
    free(s);
}

static int64_t launch_ts(const cp_prep *p, size_t i)
{
    return p->t->events[p->t->events[p->dev[i]].link].ts;
}

/* The first host candidate starting after at (after: > at, else >= at). */
static size_t host_from(const cp_prep *p, int64_t at, bool after)
{
    size_t lo = 0, hi = p->nhost;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t ts = p->t->events[p->host[mid]].ts;
        if (ts < at || (after && ts == at))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The same for the device candidates, by their launch call's start. */
static size_t dev_from(const cp_prep *p, int64_t at, bool after)
{
    size_t lo = 0, hi = p->ndev;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t ts = launch_ts(p, mid);
        if (ts < at || (after && ts == at))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t cp_window_size(const cp_prep *p, const tp_cp_window *w)
{
    return host_from(p, w->we, true) - host_from(p, w->ws, false) + dev_from(p, w->we, true) -
           dev_from(p, w->ws, false);
}

void cp_path_skipped(const tp_cp_window *w, tp_cp_path *out)
{
    memset(out, 0, sizeof *out);
    out->step = w->step;
    out->window_ev = w->ev;
    out->ws = w->ws;
    out->we = w->we;
    out->length_ns = w->we - w->ws;
    out->bound_ns[TP_CPB_OUTSIDE] = out->length_ns; /* no path: the window is outside it */
    out->skipped = true;
}

void cp_path_window(cp_prep *p, const tp_cp_window *w, tp_cp_path *out)
{
    const tp_trace *t = p->t;
    memset(out, 0, sizeof *out);
    out->step = w->step;
    out->window_ev = w->ev;
    out->ws = w->ws;
    out->we = w->we;
    out->length_ns = w->we - w->ws;
    size_t h0 = host_from(p, w->ws, false), h1 = h0 > host_from(p, w->we, true) ? h0 : host_from(p, w->we, true);
    size_t d0 = dev_from(p, w->ws, false), d1 = d0 > dev_from(p, w->we, true) ? d0 : dev_from(p, w->we, true);

    graph g = {0};
    g.p = p;
    g.t = t;
    g.locals = tp_xmalloc((h1 - h0 + d1 - d0 + 1) * sizeof *g.locals);
    for (size_t i = h0; i < h1; i++) {
        p->ev2local[p->host[i]] = (uint32_t)g.nlocals + 1;
        g.locals[g.nlocals++] = p->host[i];
    }
    size_t nhost = g.nlocals;
    for (size_t i = d0; i < d1; i++)
        if (cp_is_activity(&t->events[p->dev[i]]) || on_stream_sync(t, &t->events[p->dev[i]])) {
            p->ev2local[p->dev[i]] = (uint32_t)g.nlocals + 1;
            g.locals[g.nlocals++] = p->dev[i];
        }
    g.nnodes = 2 * g.nlocals;
    g.cap = g.nnodes + g.nnodes / 8 + 16; /* about one edge a node: the edges grown once or never */
    g.edges = tp_xmalloc(g.cap * sizeof *g.edges);
    g.nodes = tp_xmalloc((g.nnodes + 1) * sizeof *g.nodes);
    /* The host starts are in node order already (p->host is by (ts, ev)): only the other nodes are sorted (at the
     * array's tail), then merged with them in place ((ts, ev, start) is unique: one order, however made). */
    size_t na = nhost, nb = g.nnodes - nhost, j = 0;
    node *rest = g.nodes + na;
    for (size_t i = 0; i < g.nlocals; i++) {
        const tp_event *e = &t->events[g.locals[i]];
        uint8_t bits = cp_name_bits(p, e->name);
        if (i >= nhost)
            rest[j++] = (node){e->ts, g.locals[i], true, false, bits};
        rest[j++] = (node){tp_sat_add(e->ts, e->dur), g.locals[i], false, false, bits};
    }
    sort_nodes(rest, nb, 0);
    j = 0;
    for (size_t i = 0; i < na; i++) { /* node k = i + j is written before rest[j] (at na + j) is read */
        const tp_event *e = &t->events[g.locals[i]];
        node a = {e->ts, g.locals[i], true, false, cp_name_bits(p, e->name)};
        while (j < nb && NODE_LESS(&rest[j], &a, 0)) {
            g.nodes[i + j] = rest[j];
            j++;
        }
        g.nodes[i + j] = a;
    }
    g.start_of = tp_xmalloc((g.nlocals + 1) * sizeof *g.start_of);
    g.end_of = tp_xmalloc((g.nlocals + 1) * sizeof *g.end_of);
    for (uint32_t i = 0; i < g.nnodes; i++)
        (g.nodes[i].start ? g.start_of : g.end_of)[cp_local(p, g.nodes[i].ev)] = i;

    lock_pass(&g);
    stack_pass(&g, nhost);
    device_pass(&g, nhost, d0, d1);
    free(g.start_of); /* the edges are made: the lookups are done with */
    free(g.end_of);
    free(g.locals); /* (every node names its event: ev2local is reset from them) */
    g.start_of = g.end_of = g.locals = NULL;

    uint32_t *path = NULL, *path_e = NULL;
    int64_t weighted = 0;
    size_t np = g.nnodes ? longest_path(&g, &path, &path_e, &weighted) : 0;
    for (size_t i = 0; i < g.nedges; i++)
        if (g.edges[i].type != 255) {
            out->edges++;
            out->edges_of[g.edges[i].type]++;
            out->sync_nonzero += g.edges[i].type == TP_CPE_SYNC && edge_w(&g, &g.edges[i]) != 0;
        }
    out->nodes = (uint32_t)g.nnodes;
    out->negative = g.negative;
    out->sync_skipped = g.sync_skipped;
    out->cycle = g.nnodes && np == 0;
    out->weighted_ns = weighted;

    /* the path as window time: every piece clipped to [ws, we], each from
     * where the previous stopped, so that the pieces add up to we - ws */
    int64_t cursor = w->ws;
    share *sh = NULL; /* the links' shares: made here when the links are not kept (16 bytes a link, not 40) */
    size_t nsh = 0;
    if (np) {
        int64_t first = g.nodes[path[0]].ts;
        first = first < w->ws ? w->ws : first > w->we ? w->we : first;
        out->bound_ns[TP_CPB_OUTSIDE] += first - w->ws;
        cursor = first;
        if (p->keep_links)
            out->links = tp_xmalloc(np * sizeof *out->links);
        else
            sh = tp_xmalloc(np * sizeof *sh);
        bool *seen = tp_xcalloc(g.nlocals + 1, 1);
        for (size_t i = 0; i < np; i++) {
            const node *b = &g.nodes[path[i]];
            uint32_t b_local = cp_local(p, b->ev);
            if (!seen[b_local]) {
                seen[b_local] = true;
                out->path_events++;
            }
            if (i == 0)
                continue;
            const node *a = &g.nodes[path[i - 1]];
            const edge *e = path_e[i] == TP_NONE ? NULL : &g.edges[path_e[i]];
            int64_t to = b->ts < w->ws ? w->ws : b->ts > w->we ? w->we : b->ts;
            int64_t next = to > cursor ? to : cursor;
            tp_cp_link lk = {a->ev, b->ev, e ? edge_w(&g, e) : 0, cursor, next - cursor,
                             e ? e->attr : TP_NONE, e ? e->type : TP_CPE_DEPENDENCY, TP_CPB_CPU, a->start, b->start};
            lk.bound = e ? bound_of(&g, e) : TP_CPB_CPU;
            out->bound_ns[lk.bound] += next - cursor;
            out->path_edges++;
            out->path_edges_of[lk.type]++;
            if (p->keep_links)
                out->links[out->nlinks++] = lk;
            else
                share_of(&lk, sh, &nsh);
            cursor = next;
        }
        free(seen);
    }
    out->bound_ns[TP_CPB_OUTSIDE] += w->we - cursor;

    /* the graph is done with before the shares are summed (the peak holds
     * one of them, not both) */
    for (size_t i = 0; i < g.nnodes; i++) /* (locals are freed: every local has a node) */
        p->ev2local[g.nodes[i].ev] = 0;
    free(path);
    free(path_e);
    free(g.edges);
    free(g.nodes);
    if (p->keep_links) { /* the shares of the links kept: made now, the graph freed */
        sh = tp_xmalloc((out->nlinks + 1) * sizeof *sh);
        for (size_t i = 0; i < out->nlinks; i++)
            share_of(&out->links[i], sh, &nsh);
    }
    shares(t, out, sh, nsh);
}
