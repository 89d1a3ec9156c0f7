/* op_breakdown.c: group device time by top-level op and kernel mix. */
#include "report/analysis/op_breakdown.h"
#include "convert/base/sort.h"
#include "convert/model/str_ranks.h"

#include <stdlib.h>
#include <string.h>

/* A device event with its sort key: the key's text rank (no key: last),
 * the occurrence, the kernel name's rank and kind.  Key 0 is "no key". */
typedef struct item {
    uint64_t key_rank; /* the name's rank x 2 + graph; UINT64_MAX: no key */
    tp_str key;
    uint32_t occ;
    uint32_t kname_rank;
    uint32_t ev; /* the device event */
    uint8_t kind;
} item;


static inline bool item_less(const item *x, const item *y)
{
    if (x->key_rank != y->key_rank)
        return x->key_rank < y->key_rank;
    if (x->occ != y->occ) /* occurrences of one key together (their order does not matter) */
        return x->occ < y->occ;
    if (x->kname_rank != y->kname_rank)
        return x->kname_rank < y->kname_rank;
    return x->kind < y->kind;
}
#define ITEM_LESS(x, y, c) item_less((x), (y))
TP_SORT_DEFINE(sort_items, item, int, ITEM_LESS)

/* one occurrence: its key and its kernels (sorted by name) */
typedef struct occ {
    uint64_t key_rank; /* as in item */
    tp_str key;
    uint32_t id;
    size_t first, n; /* into the occurrence kernel array */
    int64_t total_ns;
    uint64_t instances;
} occ;

typedef struct occ_ctx {
    const uint32_t *rank; /* tp_str_ranks */
    const tp_opk_kernel *k;
} occ_ctx;

/* kernel name order (text, through its rank), then kind */
static int cmp_kname(const uint32_t *rank, const tp_opk_kernel *a, const tp_opk_kernel *b)
{
    if (rank[a->name] != rank[b->name])
        return rank[a->name] < rank[b->name] ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

static int cmp_mix(const occ_ctx *c, const occ *x, const occ *y)
{
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        int r = cmp_kname(c->rank, &c->k[x->first + i], &c->k[y->first + i]);
        if (r)
            return r;
    }
    return x->n < y->n ? -1 : x->n > y->n;
}

/* by key (no key last), then kernel mix; equal mixes keep their order */
static inline bool occ_less(const occ *x, const occ *y, const occ_ctx *c)
{
    if (x->key_rank != y->key_rank)
        return x->key_rank < y->key_rank;
    return cmp_mix(c, x, y) < 0;
}
#define OCC_LESS(x, y, c) occ_less((x), (y), (c))
TP_SORT_DEFINE(sort_occs, occ, const occ_ctx *, OCC_LESS)

static int cmp_kernel_total(const void *a, const void *b, void *vrank)
{
    const tp_opk_kernel *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return cmp_kname(vrank, x, y);
}

typedef struct var_ctx {
    const uint32_t *rank;
    const tp_opk_kernel *k;
} var_ctx;

static int cmp_variant(const void *a, const void *b, void *vc)
{
    const var_ctx *c = vc;
    const tp_opk_variant *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    /* same total: compare the kernel names in name order (first = largest share; use it) */
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        int r = cmp_kname(c->rank, &c->k[x->first + i], &c->k[y->first + i]);
        if (r)
            return r;
    }
    return x->n < y->n ? -1 : x->n > y->n;
}

static int cmp_ops(const void *a, const void *b, void *vc)
{
    const tp_trace *t = vc;
    const tp_opk_op *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    if (x->no_op != y->no_op)
        return x->no_op ? 1 : -1;
    return strcmp(tp_opk_op_name(t, x), tp_opk_op_name(t, y));
}

const char *tp_opk_op_name(const tp_trace *t, const tp_opk_op *op)
{
    if (op->label)
        return op->label;
    return op->no_op ? (op->none ? op->none : "(no key)") : tp_str_get(t, op->name);
}

static bool counted(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}

/* The key of device event ev (a counted one). */
typedef tp_opk_key (*key_fn)(const tp_trace *t, const void *ctx, uint32_t ev);
static void build(const tp_trace *t, key_fn key_of, const void *ctx, const char *none, tp_op_kernels *ob);

typedef struct host_keys {
    const tp_host_tree *ht;
    const tp_attribution *at;
} host_keys;

/* key: the top-level op's name; occurrence: that op event.  Without a
 * top-level op, the enclosing scope that attribution found (a graph
 * replay's annotation or Python function) */
static tp_opk_key host_key(const tp_trace *t, const void *ctx, uint32_t ev)
{
    const host_keys *h = ctx;
    uint32_t top = tp_top_op_of(t, h->ht, ev);
    if (top != TP_NONE) /* (an op without a name counts as none) */
        return (tp_opk_key){t->events[top].name, top, false};
    if (h->at && h->at->leaf[ev] != TP_NONE)
        return (tp_opk_key){t->events[h->at->leaf[ev]].name, h->at->leaf[ev], h->at->how[ev] == TP_ATTR_GRAPH};
    return (tp_opk_key){0, 0, false};
}

void tp_op_kernels_build(const tp_trace *t, const tp_host_tree *ht, const tp_attribution *at, tp_op_kernels *ob)
{
    /* each key found in the one walk of the events (no array of a key per event: 12 bytes x every event) */
    host_keys h = {ht, at};
    build(t, host_key, &h, "(no host op)", ob);
}

static tp_opk_key given_key(const tp_trace *t, const void *ctx, uint32_t ev)
{
    (void)t;
    return ((const tp_opk_key *)ctx)[ev];
}

void tp_op_kernels_build_keyed(const tp_trace *t, const tp_opk_key *keys, const char *none, tp_op_kernels *ob)
{
    build(t, given_key, keys, none, ob);
}

static void build(const tp_trace *t, key_fn key_of, const void *ctx, const char *none, tp_op_kernels *ob)
{
    memset(ob, 0, sizeof *ob);
    size_t n = 0, it_cap = 0;
    item *it = NULL; /* grown in the one walk of the events */
    uint32_t *rank = tp_str_ranks(t);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (counted(e)) {
            tp_opk_key k = key_of(t, ctx, (uint32_t)i);
            uint64_t kr = k.name ? (uint64_t)rank[k.name] * 2 + k.graph : UINT64_MAX;
            TP_GROW(it, it_cap, n + 1);
            it[n++] = (item){kr, k.name, k.occ, rank[e->name], (uint32_t)i, e->kind};
        }
    }
    sort_items(it, n, 0);

    /* occurrences with their (name-sorted, merged) kernels */
    tp_opk_kernel *ok = tp_xmalloc((n + 1) * sizeof *ok);
    occ *oc = tp_xmalloc((n + 1) * sizeof *oc);
    size_t nok = 0, noc = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_event *e = &t->events[it[i].ev];
        if (i == 0 || it[i].key_rank != it[i - 1].key_rank || it[i].occ != it[i - 1].occ) {
            oc[noc].key_rank = it[i].key_rank;
            oc[noc].key = it[i].key;
            oc[noc].id = it[i].occ;
            oc[noc].first = nok;
            oc[noc].n = 0;
            oc[noc].total_ns = 0;
            oc[noc].instances = 0;
            noc++;
        }
        occ *o = &oc[noc - 1];
        if (o->n && ok[nok - 1].name == e->name && ok[nok - 1].kind == e->kind) {
            ok[nok - 1].count++;
            ok[nok - 1].total_ns = tp_sat_add(ok[nok - 1].total_ns, e->dur);
        } else {
            ok[nok].name = e->name;
            ok[nok].kind = e->kind;
            ok[nok].count = 1;
            ok[nok].total_ns = e->dur;
            nok++;
            o->n++;
        }
        o->total_ns = tp_sat_add(o->total_ns, e->dur);
        o->instances++;
    }
    occ_ctx oct = {rank, ok};
    sort_occs(oc, noc, &oct);

    /* variants and ops */
    ob->kernels = tp_xmalloc((nok + 1) * sizeof *ob->kernels);
    ob->variants = tp_xmalloc((noc + 1) * sizeof *ob->variants);
    ob->ops = tp_xmalloc((noc + 1) * sizeof *ob->ops);
    for (size_t i = 0; i < noc; i++) {
        const occ *o = &oc[i];
        bool new_op = i == 0 || o->key_rank != oc[i - 1].key_rank;
        bool new_var = new_op || cmp_mix(&oct, o, &oc[i - 1]) != 0;
        if (new_op) {
            tp_opk_op *op = &ob->ops[ob->nops++];
            memset(op, 0, sizeof *op);
            op->no_op = o->key == 0;
            op->name = op->no_op ? 0 : o->key;
            op->none = none;
            op->first = ob->nvariants;
            if (o->key && (o->key_rank & 1)) { /* a graph replay */
                tp_buf lb = {0};
                tp_buf_printf(&lb, "graph: %s", tp_str_get(t, o->key));
                op->label = lb.data;
            }
        }
        tp_opk_op *op = &ob->ops[ob->nops - 1];
        if (new_var) {
            tp_opk_variant *v = &ob->variants[ob->nvariants++];
            v->occurrences = 0;
            v->total_ns = 0;
            v->first = ob->nkernels;
            v->n = o->n;
            memcpy(&ob->kernels[ob->nkernels], &ok[o->first], o->n * sizeof *ok);
            for (size_t k = 0; k < o->n; k++) {
                ob->kernels[ob->nkernels + k].count = 0;
                ob->kernels[ob->nkernels + k].total_ns = 0;
            }
            ob->nkernels += o->n;
            op->n++;
        }
        tp_opk_variant *v = &ob->variants[ob->nvariants - 1];
        for (size_t k = 0; k < o->n; k++) {
            ob->kernels[v->first + k].count += ok[o->first + k].count;
            ob->kernels[v->first + k].total_ns = tp_sat_add(ob->kernels[v->first + k].total_ns, ok[o->first + k].total_ns);
        }
        v->occurrences++;
        v->total_ns = tp_sat_add(v->total_ns, o->total_ns);
        op->occurrences++;
        op->instances += o->instances;
        op->total_ns = tp_sat_add(op->total_ns, o->total_ns);
        ob->total_ns = tp_sat_add(ob->total_ns, o->total_ns);
    }
    /* orders: variants by total, kernels in a variant by total, ops by total */
    var_ctx vc = {rank, ob->kernels};
    for (size_t i = 0; i < ob->nops; i++)
        qsort_r(&ob->variants[ob->ops[i].first], ob->ops[i].n, sizeof *ob->variants, cmp_variant, &vc);
    for (size_t i = 0; i < ob->nvariants; i++)
        qsort_r(&ob->kernels[ob->variants[i].first], ob->variants[i].n, sizeof *ob->kernels, cmp_kernel_total,
                (void *)rank);
    qsort_r(ob->ops, ob->nops, sizeof *ob->ops, cmp_ops, (void *)t);
    free(oc);
    free(ok);
    free(it);
    free(rank);
}

void tp_op_kernels_free(tp_op_kernels *ob)
{
    for (size_t i = 0; i < ob->nops; i++)
        free(ob->ops[i].label);
    free(ob->ops);
    free(ob->variants);
    free(ob->kernels);
    memset(ob, 0, sizeof *ob);
}
