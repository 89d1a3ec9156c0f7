/* overheads.c: T1-T5 from the host tree. */
#include "report/analysis/overheads.h"
#include "report/analysis/kernel_table.h"
#include "convert/base/sort.h"
#include "convert/model/str_ranks.h"

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

/* one raw value */
typedef struct val {
    uint8_t type;
    tp_str name;
    int64_t v;
} val;

typedef struct vals {
    val *v;
    size_t n, cap;
} vals;

static void add(vals *vs, uint8_t type, tp_str name, int64_t v)
{
    TP_GROW(vs->v, vs->cap, vs->n + 1);
    vs->v[vs->n++] = (val){type, name, v};
}

/* by type, then name (text order, through its rank), then value */
static inline bool val_less(const val *x, const val *y, const uint32_t *rank)
{
    if (x->type != y->type)
        return x->type < y->type;
    if (rank[x->name] != rank[y->name])
        return rank[x->name] < rank[y->name];
    return x->v < y->v;
}
#define VAL_LESS(x, y, rank) val_less((x), (y), (rank))
TP_SORT_DEFINE(sort_vals, val, const uint32_t *, VAL_LESS)

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

static bool skipped(const tp_trace *t, const tp_event *e)
{
    return e->kind == TP_KIND_RUNTIME && in_list(tp_str_get(t, e->name), skip_names);
}

void tp_overheads_build(const tp_trace *t, const tp_host_tree *ht, tp_overheads *ov)
{
    memset(ov, 0, sizeof *ov);
    const int64_t c = TP_CPU_EVENT_OVERHEAD;
    vals vs = {0};
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
            if (skipped(t, e))
                continue;
            S++;
            bool leaf = ht->sub_end[q] == q + 1;
            const char *n = tp_str_get(t, e->name);
            if (e->kind == TP_KIND_RUNTIME && leaf && in_list(n, launch_names)) {
                if (!first)
                    add(&vs, 2, op->name, e->ts - op->ts - between * c);
                else
                    add(&vs, 5, op->name, e->ts - (last->ts + last->dur) - between * c);
                if (!is_sync(n))
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
    uint32_t *rank = tp_str_ranks(t);
    sort_vals(vs.v, vs.n, rank);
    free(rank);
    ov->rows = tp_xmalloc((vs.n + 1) * sizeof *ov->rows);
    int64_t *tmp = tp_xmalloc((vs.n + 1) * sizeof *tmp);
    for (size_t i = 0; i < vs.n;) {
        size_t j = i;
        while (j < vs.n && vs.v[j].type == vs.v[i].type && vs.v[j].name == vs.v[i].name)
            j++;
        size_t neg = 0;
        for (size_t q = i; q < j; q++) { /* already sorted by value: clamping keeps the order */
            tmp[q - i] = vs.v[q].v > 0 ? vs.v[q].v : 0;
            neg += vs.v[q].v < 0;
        }
        tp_overhead_row *r = &ov->rows[ov->n++];
        memset(r, 0, sizeof *r);
        r->clamped = neg;
        r->type = vs.v[i].type;
        r->name = vs.v[i].name;
        stats(tmp, j - i, r);
        i = j;
    }
    qsort_r(ov->rows, ov->n, sizeof *ov->rows, cmp_rows, (void *)t);
    free(tmp);
    free(vs.v);
}

void tp_overheads_free(tp_overheads *ov)
{
    free(ov->rows);
    memset(ov, 0, sizeof *ov);
}
