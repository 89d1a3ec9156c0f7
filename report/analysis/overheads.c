/* overheads.c: T1-T5 from the host tree. */
#include "report/analysis/overheads.h"
#include "report/analysis/kernel_table.h"
#include "convert/base/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const skip_names[] = {"cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                                         "cudaPeakAtLastError", "cudaStreamGetCaptureInfo", "cudaEventQuery",
                                         "cudaEventRecord", NULL};
static const char *const launch_names[] = {"cudaLaunchKernel", "cudaMemcpyAsync",   "cudaStreamSynchronize",
                                           "hipLaunchKernel",  "hipExtLaunchKernel", "hipMemcpyAsync",
                                           "hipStreamSynchronize", "cuLaunchKernel", NULL};

static bool in_list(const char *n, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(n, list[i]) == 0)
            return true;
    return false;
}

static bool is_sync(const char *n) { return strstr(n, "StreamSynchronize") != NULL; }

/* The (type, name) pairs met, numbered as met: a name's number is looked up by its id (names are interned),
 * so no value is compared by name; the rows are ordered at the end (cmp_rows). */
typedef struct groups {
    uint32_t *name_no; /* name id -> 1 + its number among the names met, 0 unmet */
    tp_str *names;     /* number -> name id */
    size_t nnames, names_cap;
} groups;

#define NTYPES 5 /* T1..T5 */

static uint32_t group_of(groups *g, uint8_t type, tp_str name)
{
    if (!g->name_no[name]) {
        TP_GROW(g->names, g->names_cap, g->nnames + 1);
        g->names[g->nnames++] = name;
        g->name_no[name] = (uint32_t)g->nnames;
    }
    return (g->name_no[name] - 1) * NTYPES + (uint32_t)(type - 1);
}

/* one raw value of a (type, name) group */
typedef struct val {
    uint32_t group;
    int64_t v;
} val;

typedef struct vals {
    val *v;
    size_t n, cap;
    groups g;
} vals;

static void add(vals *vs, uint8_t type, tp_str name, int64_t v)
{
    TP_GROW(vs->v, vs->cap, vs->n + 1);
    vs->v[vs->n++] = (val){group_of(&vs->g, type, name), v};
}

#define I64_LESS(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_i64, int64_t, int, I64_LESS)

/* What a name is to the subtree walk, found once per name id: a skipped runtime call, a launch call, a
 * synchronisation (the bits), NAME_KNOWN once looked at. */
enum { NAME_SKIP = 1, NAME_LAUNCH = 2, NAME_SYNC = 4, NAME_KNOWN = 8 };

static int cmp_rows(const void *a, const void *b, void *vc)
{
    const tp_trace *t = vc;
    const tp_overhead_row *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(tp_str_get(t, x->name), tp_str_get(t, y->name));
}

static int64_t round_ld(long double x) { return (int64_t)llroundl(x); }

static void stats(const int64_t *v, size_t n, tp_overhead_row *r)
{
    r->count = n;
    r->min_ns = v[0];
    r->max_ns = v[n - 1];
    int64_t q1 = tp_percentile(v, n, 25), q3 = tp_percentile(v, n, 75);
    __int128 iqr = (__int128)q3 - q1;
    /* bounds q1 - 1.5 iqr, q3 + 1.5 iqr compared exactly in halves */
    __int128 lo2 = 2 * (__int128)q1 - 3 * iqr, hi2 = 2 * (__int128)q3 + 3 * iqr;
    __int128 sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (2 * (__int128)v[i] >= lo2 && 2 * (__int128)v[i] <= hi2) {
            sum += v[i];
            k++;
        }
    r->kept = k;
    if (!k)
        return;
    long double m = (long double)sum / (long double)k, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (2 * (__int128)v[i] >= lo2 && 2 * (__int128)v[i] <= hi2) {
            long double d = (long double)v[i] - m;
            ss += d * d;
        }
    r->mean_ns = round_ld(m);
    r->stddev_ns = round_ld(sqrtl(ss / (long double)k));
}

static unsigned name_kind(const tp_trace *t, uint8_t *kinds, tp_str name)
{
    if (!kinds[name]) {
        const char *n = tp_str_get(t, name);
        kinds[name] = (uint8_t)(NAME_KNOWN | (in_list(n, skip_names) ? NAME_SKIP : 0) |
                                (in_list(n, launch_names) ? NAME_LAUNCH : 0) | (is_sync(n) ? NAME_SYNC : 0));
    }
    return kinds[name];
}

void tp_overheads_build(const tp_trace *t, const tp_host_tree *ht, tp_overheads *ov)
{
    memset(ov, 0, sizeof *ov);
    const int64_t c = TP_CPU_EVENT_OVERHEAD;
    vals vs = {0};
    vs.g.name_no = tp_xcalloc(t->nstr + 1, sizeof *vs.g.name_no);
    uint8_t *kinds = tp_xcalloc(t->nstr + 1, 1);
    bool any_launch = false;
    uint32_t prev_op = TP_NONE, prev_track = TP_NONE;
    tp_str none = 0;
    for (size_t p = 0; p < ht->n; p++) {
        uint32_t ei = ht->order[p];
        const tp_event *op = &t->events[ei];
        if (ht->logical[op->track] != prev_track) {
            prev_track = ht->logical[op->track];
            prev_op = TP_NONE;
        }
        if (ht->top[ei] != ei)
            continue;
        ov->ops++;
        /* T1 */
        if (prev_op != TP_NONE && ht->parent[prev_op] == ht->parent[ei]) {
            const tp_event *q = &t->events[prev_op];
            int64_t gap = op->ts - (q->ts + q->dur);
            if (gap > c && gap < TP_T1_MAX_GAP)
                add(&vs, 1, none, gap - c);
        }
        prev_op = ei;
        /* walk the subtree in preorder */
        uint32_t end = ht->sub_end[p];
        int64_t S = 1, between = 0, sum_n1 = 0, k = 0;
        const tp_event *first = NULL, *last = NULL;
        for (uint32_t q = (uint32_t)p + 1; q < end; q++) {
            const tp_event *e = &t->events[ht->order[q]];
            unsigned kind = e->kind == TP_KIND_RUNTIME ? name_kind(t, kinds, e->name) : 0;
            if (kind & NAME_SKIP)
                continue;
            S++;
            bool leaf = ht->sub_end[q] == q + 1;
            if ((kind & NAME_LAUNCH) && leaf) {
                if (!first)
                    add(&vs, 2, op->name, e->ts - op->ts - between * c);
                else
                    add(&vs, 5, op->name, e->ts - (last->ts + last->dur) - between * c);
                if (!(kind & NAME_SYNC))
                    add(&vs, 4, e->name, TP_KERNEL_LAUNCH_LENGTH - TP_CPU_EVENT_OVERHEAD - TP_GPU_EVENT_OVERHEAD);
                if (!first)
                    first = e;
                last = e;
                sum_n1 += between + 1;
                between = 0;
                k++;
                ov->launches++;
            } else
                between++;
        }
        if (k) {
            any_launch = true;
            int64_t t3 = op->ts + op->dur - (last->ts + last->dur) - (S - sum_n1) * c;
            add(&vs, 3, op->name, t3); /* below 0: clamped with the others */
            if (k == 1)
                add(&vs, 5, op->name, 0);
        } else if (strcmp(tp_str_get(t, op->name), "aten::to") != 0)
            add(&vs, 5, op->name, op->dur - S * c);
    }
    ov->applicable = ov->ops > 0 && any_launch;
    free(kinds);
    free(vs.g.name_no);
    /* the values by group (a counting pass), each group's sorted for its quartiles: the rows come out in the
     * order the groups were met, put in theirs by cmp_rows (a total order: one row per type and name) */
    size_t ng = vs.g.nnames * NTYPES;
    size_t *at = tp_xcalloc(ng + 2, sizeof *at);
    for (size_t i = 0; i < vs.n; i++)
        at[vs.v[i].group + 1]++;
    for (size_t k = 0; k < ng; k++)
        at[k + 1] += at[k];
    int64_t *by_group = tp_xmalloc((vs.n + 1) * sizeof *by_group);
    for (size_t i = 0; i < vs.n; i++)
        by_group[at[vs.v[i].group]++] = vs.v[i].v;
    free(vs.v);
    ov->rows = tp_xmalloc((ng + 1) * sizeof *ov->rows);
    for (size_t k = 0, lo = 0; k < ng; lo = at[k++]) { /* at[k]: now the end of group k */
        size_t m = at[k] - lo;
        if (!m)
            continue;
        int64_t *v = by_group + lo;
        sort_i64(v, m, 0);
        size_t neg = 0;
        for (size_t q = 0; q < m; q++) { /* sorted: clamping keeps the order */
            neg += v[q] < 0;
            v[q] = v[q] > 0 ? v[q] : 0;
        }
        tp_overhead_row *r = &ov->rows[ov->n++];
        memset(r, 0, sizeof *r);
        r->clamped = neg;
        r->type = (uint8_t)(k % NTYPES + 1);
        r->name = vs.g.names[k / NTYPES];
        stats(v, m, r);
    }
    free(at);
    free(by_group);
    free(vs.g.names);
    qsort_r(ov->rows, ov->n, sizeof *ov->rows, cmp_rows, (void *)t);
}

void tp_overheads_free(tp_overheads *ov)
{
    free(ov->rows);
    memset(ov, 0, sizeof *ov);
}
