/* kernel_table.c: group device activity by name and compute statistics. */
#include "report/analysis/kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t div_round(__int128 num, int64_t den)
{
    /* half away from zero */
    __int128 q = num / den, r = num % den;
    if (r < 0)
        r = -r;
    if (2 * r >= den)
        q += num < 0 ? -1 : 1;
    return (int64_t)q;
}

int64_t tp_percentile(const int64_t *v, size_t n, int pct)
{
    if (n == 0)
        return 0;
    /* position = (n-1) * pct / 100 = lo + rem/100 */
    uint64_t pos100 = (uint64_t)(n - 1) * (uint64_t)pct;
    size_t lo = (size_t)(pos100 / 100);
    int64_t rem = (int64_t)(pos100 % 100);
    if (rem == 0 || lo + 1 >= n)
        return v[lo];
    __int128 num = (__int128)v[lo] * 100 + (__int128)(v[lo + 1] - v[lo]) * rem;
    return div_round(num, 100);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort non-negative durations: LSD radix, 11 bits a pass, passes stop at the
 * highest bit in use (durations rarely need more than 3 passes). */
static void sort_durations(int64_t *v, size_t n, int64_t *tmp)
{
    if (n < 64) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++)
        if ((uint64_t)v[i] > max)
            max = (uint64_t)v[i];
    int64_t *src = v, *dst = tmp;
    for (int shift = 0; shift < 64 && (max >> shift); shift += 11) {
        size_t count[2048] = {0};
        for (size_t i = 0; i < n; i++)
            count[((uint64_t)src[i] >> shift) & 2047]++;
        size_t sum = 0;
        for (int b = 0; b < 2048; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[((uint64_t)src[i] >> shift) & 2047]++] = src[i];
        int64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

void tp_sort_nonneg(int64_t *v, size_t n, int64_t *tmp)
{
    sort_durations(v, n, tmp);
}

static bool counted(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}

typedef struct rows_ctx {
    const tp_trace *t;
} rows_ctx;

static int cmp_rows(const void *a, const void *b, void *ctx)
{
    const tp_trace *t = ((const rows_ctx *)ctx)->t;
    const tp_kernel_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    int c = strcmp(tp_str_get(t, x->name), tp_str_get(t, y->name));
    if (c)
        return c;
    return (int)x->kind - (int)y->kind;
}

void tp_kernel_table_build(const tp_trace *t, tp_kernel_table *kt)
{
    memset(kt, 0, sizeof *kt);
    /* group id per (name, kind) through a hash table, sized by the groups
     * (it grows below): a trace has hundreds of kernel names, and a table
     * sized by the instances was 12 MB of fresh memory on 1 GB */
    size_t cap = 1024;
    uint64_t *keys = tp_xcalloc(cap, sizeof *keys); /* (name<<8 | kind) + 1 */
    uint32_t *gid = tp_xmalloc(cap * sizeof *gid);
    /* each counted event's group and duration, in one walk of the events (it was three: count, group, fill) */
    uint32_t *ev_group = NULL;
    int64_t *ev_dur = NULL;
    size_t ev_cap = 0, dur_cap = 0;
    size_t ngroups = 0, gcap = 0;
    uint64_t *gkey = NULL;
    size_t j = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!counted(e))
            continue;
        uint64_t key = (((uint64_t)e->name << 8) | e->kind) + 1;
        size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
        while (keys[h] && keys[h] != key)
            h = (h + 1) & (cap - 1);
        if (!keys[h]) {
            if (ngroups * 2 >= cap) { /* a million names: grow */
                size_t ncap = cap * 2;
                uint64_t *nk = tp_xcalloc(ncap, sizeof *nk);
                uint32_t *ng = tp_xmalloc(ncap * sizeof *ng);
                for (size_t q = 0; q < cap; q++) {
                    if (!keys[q])
                        continue;
                    size_t hh = (size_t)((keys[q] * 0x9E3779B97F4A7C15ull) >> 17) & (ncap - 1);
                    while (nk[hh])
                        hh = (hh + 1) & (ncap - 1);
                    nk[hh] = keys[q];
                    ng[hh] = gid[q];
                }
                free(keys);
                free(gid);
                keys = nk;
                gid = ng;
                cap = ncap;
                h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
                while (keys[h] && keys[h] != key)
                    h = (h + 1) & (cap - 1);
            }
            keys[h] = key;
            gid[h] = (uint32_t)ngroups;
            TP_GROW(gkey, gcap, ngroups + 1);
            gkey[ngroups++] = key - 1;
        }
        TP_GROW(ev_group, ev_cap, j + 1);
        TP_GROW(ev_dur, dur_cap, j + 1);
        ev_dur[j] = e->dur;
        ev_group[j++] = gid[h];
    }
    size_t nev = j;
    /* bucket durations by group */
    size_t *start = tp_xcalloc(ngroups + 1, sizeof *start);
    for (size_t q = 0; q < nev; q++)
        start[ev_group[q] + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    int64_t *durs = tp_xmalloc((nev + 1) * sizeof *durs);
    size_t *fill = tp_xmalloc((ngroups + 1) * sizeof *fill);
    memcpy(fill, start, (ngroups + 1) * sizeof *fill);
    for (size_t q = 0; q < nev; q++)
        durs[fill[ev_group[q]]++] = ev_dur[q];
    free(ev_dur);
    kt->rows = tp_xcalloc(ngroups + 1, sizeof *kt->rows);
    kt->n = ngroups;
    int64_t *tmp = tp_xmalloc((nev + 1) * sizeof *tmp);
    for (size_t g = 0; g < ngroups; g++) {
        int64_t *v = durs + start[g];
        size_t n = start[g + 1] - start[g];
        sort_durations(v, n, tmp);
        tp_kernel_row *r = &kt->rows[g];
        r->name = (tp_str)(gkey[g] >> 8);
        r->kind = (uint8_t)(gkey[g] & 0xff);
        r->count = n;
        __int128 sum = 0;
        for (size_t q = 0; q < n; q++)
            sum += v[q];
        r->total_ns = sum > INT64_MAX ? INT64_MAX : (int64_t)sum; /* saturate: corrupt durations */
        r->mean_ns = div_round(sum, (int64_t)n);
        r->min_ns = v[0];
        r->max_ns = v[n - 1];
        r->p10_ns = tp_percentile(v, n, 10);
        r->p50_ns = tp_percentile(v, n, 50);
        r->p90_ns = tp_percentile(v, n, 90);
        /* population standard deviation (long double keeps ns resolution) */
        long double m = (long double)sum / (long double)n, ss = 0;
        for (size_t q = 0; q < n; q++) {
            long double d = (long double)v[q] - m;
            ss += d * d;
        }
        r->stddev_ns = (int64_t)llroundl(sqrtl(ss / (long double)n));
        kt->total_ns = r->total_ns > INT64_MAX - kt->total_ns ? INT64_MAX : kt->total_ns + r->total_ns;
        kt->instances += n;
        if (r->kind == TP_KIND_MEMCPY)
            kt->memcpys += n;
        else if (r->kind == TP_KIND_MEMSET)
            kt->memsets += n;
        else {
            kt->kernels += n;
            kt->kernel_names++;
            kt->kernel_ns = r->total_ns > INT64_MAX - kt->kernel_ns ? INT64_MAX : kt->kernel_ns + r->total_ns;
        }
    }
    rows_ctx ctx = {t};
    qsort_r(kt->rows, kt->n, sizeof *kt->rows, cmp_rows, &ctx);
    free(tmp);
    free(fill);
    free(durs);
    free(start);
    free(gkey);
    free(ev_group);
    free(gid);
    free(keys);
}

void tp_kernel_table_free(tp_kernel_table *kt)
{
    free(kt->rows);
    memset(kt, 0, sizeof *kt);
}
