/* dvdt_analysis.c: see dvdt_analysis.h. */
#include "report/formats/dvdt/dvdt_analysis.h"
#include "convert/codec/json_value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One kernel execution with what the analysis needs from its args. */
typedef struct kx {
    uint32_t ev;
    uint32_t rep;        /* index into reps */
    tp_str name;
    int64_t ts, dur, wait; /* wait < 0: unknown */
    uint64_t m, n, k;
    bool mnk;
} kx;

/* qsort with empty arrays (a NULL base) is undefined: skip those. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

static void sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                   const tp_trace *t)
{
    if (n > 1)
        qsort_r(base, n, size, cmp, (void *)t);
}

/* Totals saturate instead of overflowing (durations are >= 0). */
static int64_t sat_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const int64_t *v, size_t n, double q)
{
    double pos = (double)(n - 1) * q;
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    if (lo + 1 >= n)
        return (double)v[n - 1];
    return (double)v[lo] + ((double)v[lo + 1] - (double)v[lo]) * frac;
}

void tp_describe_values(int64_t *v, size_t n, tp_describe *d)
{
    d->count = n;
    if (n == 0) {
        d->mean = d->std = d->min = d->p25 = d->p50 = d->p75 = d->max = NAN;
        return;
    }
    sort(v, n, sizeof *v, cmp_i64);
    __int128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    d->mean = (double)sum / (double)n;
    if (n > 1) {
        double ss = 0; /* deviations from the exact mean: no cancellation */
        for (size_t i = 0; i < n; i++) {
            double x = (double)v[i] - d->mean;
            ss += x * x;
        }
        d->std = sqrt(ss / (double)(n - 1));
    } else
        d->std = NAN;
    d->min = (double)v[0];
    d->max = (double)v[n - 1];
    d->p25 = quantile(v, n, 0.25);
    d->p50 = quantile(v, n, 0.50);
    d->p75 = quantile(v, n, 0.75);
}

/* The args object of event e parsed into d (NULL if none). */
static const tp_jv *event_args(const tp_trace *t, const tp_event *e, tp_jdoc *d)
{
    if (!e->args)
        return NULL;
    const char *a, *x;
    size_t al, xl;
    tp_args_split(t, e->args, &a, &al, &x, &xl);
    if (!a || !al)
        return NULL;
    const tp_jv *v;
    tp_err err = {0};
    tp_jdoc_reset(d);
    return tp_jv_parse_all(d, a, al, &v, &err) == 0 ? v : NULL;
}

static int64_t arg_int(const tp_jv *args, const char *key, int64_t dflt)
{
    int64_t v;
    return tp_jv_int(tp_jv_get(args, key), &v) == 0 ? v : dflt;
}

static int cmp_kx_name(const void *a, const void *b)
{
    const kx *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int cmp_kx_rep_time(const void *a, const void *b)
{
    const kx *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int cmp_kx_gemm(const void *a, const void *b)
{
    const kx *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int cmp_krow(const void *a, const void *b, void *ctx)
{
    const tp_trace *sort_t = ctx;
    const tp_dvdt_kernel_row *x = a, *y = b;
    if (x->exec_total_ns != y->exec_total_ns)
        return x->exec_total_ns > y->exec_total_ns ? -1 : 1;
    return strcmp(tp_str_get(sort_t, x->name), tp_str_get(sort_t, y->name));
}

static int cmp_grow(const void *a, const void *b, void *ctx)
{
    const tp_trace *sort_t = ctx;
    const tp_dvdt_gemm_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    int c = strcmp(tp_str_get(sort_t, x->name), tp_str_get(sort_t, y->name));
    if (c)
        return c;
    return x->m != y->m ? (x->m < y->m ? -1 : 1) : x->n != y->n ? (x->n < y->n ? -1 : 1) : (x->k > y->k) - (x->k < y->k);
}

static int cmp_part(const void *a, const void *b, void *ctx)
{
    const tp_trace *sort_t = ctx;
    const tp_dvdt_layer_part *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(tp_str_get(sort_t, x->name), tp_str_get(sort_t, y->name));
}

static void kernel_rows(const tp_trace *t, kx *ks, size_t nk, tp_dvdt_analysis *a)
{
    kx *s = tp_xmalloc((nk + 1) * sizeof *s);
    if (nk)
        memcpy(s, ks, nk * sizeof *s);
    sort(s, nk, sizeof *s, cmp_kx_name);
    int64_t *w = tp_xmalloc((nk + 1) * sizeof *w), *x = tp_xmalloc((nk + 1) * sizeof *x);
    a->kernels = tp_xcalloc(nk + 1, sizeof *a->kernels);
    for (size_t i = 0; i < nk;) {
        size_t j = i, nw = 0, nx = 0;
        tp_dvdt_kernel_row *r = &a->kernels[a->nkernels++];
        r->name = s[i].name;
        for (; j < nk && s[j].name == s[i].name; j++) {
            x[nx++] = s[j].dur;
            r->exec_total_ns = sat_add(r->exec_total_ns, s[j].dur);
            if (s[j].wait >= 0)
                w[nw++] = s[j].wait;
        }
        tp_describe_values(x, nx, &r->exec);
        tp_describe_values(w, nw, &r->wait);
        i = j;
    }
    sort_r(a->kernels, a->nkernels, sizeof *a->kernels, cmp_krow, t);
    free(w);
    free(x);
    free(s);
}

static void position_rows(kx *ks, size_t nk, tp_dvdt_analysis *a)
{
    /* ks sorted by (rep, ts): position = index within the rep */
    size_t *first = tp_xcalloc(a->nreps + 1, sizeof *first);
    size_t maxn = 0;
    for (size_t i = 0, r = 0; r < a->nreps; r++) {
        first[r] = i;
        while (i < nk && ks[i].rep == r)
            i++;
        if (i - first[r] > maxn)
            maxn = i - first[r];
    }
    first[a->nreps] = nk;
    a->positions = tp_xcalloc(maxn + 1, sizeof *a->positions);
    int64_t *v = tp_xmalloc((a->nreps + 1) * sizeof *v);
    for (size_t p = 0; p < maxn; p++) {
        tp_dvdt_position_row *row = &a->positions[a->npositions++];
        row->position = (uint32_t)p;
        size_t n = 0;
        bool named = false;
        for (size_t r = 0; r < a->nreps; r++) {
            if (first[r] + p >= first[r + 1])
                continue;
            const kx *k = &ks[first[r] + p];
            if (!named) {
                row->name = k->name;
                named = true;
            } else if (k->name != row->name)
                row->mixed = true;
            v[n++] = k->dur;
        }
        tp_describe_values(v, n, &row->exec);
    }
    free(v);
    free(first);
}

static void gemm_rows(const tp_trace *t, const kx *ks, size_t nk, tp_dvdt_analysis *a)
{
    kx *s = tp_xmalloc((nk + 1) * sizeof *s);
    size_t n = 0;
    for (size_t i = 0; i < nk; i++)
        if (ks[i].mnk)
            s[n++] = ks[i];
    sort(s, n, sizeof *s, cmp_kx_gemm);
    a->gemms = tp_xcalloc(n + 1, sizeof *a->gemms);
    for (size_t i = 0; i < n;) {
        tp_dvdt_gemm_row *g = &a->gemms[a->ngemms++];
        g->name = s[i].name;
        g->m = s[i].m;
        g->n = s[i].n;
        g->k = s[i].k;
        size_t j = i;
        for (; j < n && s[j].name == g->name && s[j].m == g->m && s[j].n == g->n && s[j].k == g->k; j++) {
            g->count++;
            g->total_ns = sat_add(g->total_ns, s[j].dur);
        }
        g->gflop = 2.0 * (double)g->m * (double)g->n * (double)g->k * (double)g->count / 1e9;
        g->gflops = g->total_ns > 0 ? g->gflop / ((double)g->total_ns * 1e-9) : 0;
        i = j;
    }
    sort_r(a->gemms, a->ngemms, sizeof *a->gemms, cmp_grow, t);
    free(s);
}

/* Layers: derived lines named "Layers"; kernels of the same repetition
 * whose start lies in a layer's window (the first such window) belong to it. */
static void layer_rows(const tp_trace *t, const kx *ks, size_t nk, const uint32_t *rep_of_proc,
                       tp_dvdt_analysis *a, tp_jdoc *d)
{
    tp_str layers_name = 0;
    for (size_t i = 0; i < t->ntracks && !layers_name; i++)
        if (t->tracks[i].role == TP_TRACK_DERIVED && strcmp(tp_str_get(t, t->tracks[i].name), "Layers") == 0)
            layers_name = t->tracks[i].name;
    if (!layers_name)
        return;
    size_t cap = 0, pcap = 0;
    bool *rep_has_layers = tp_xcalloc(a->nreps + 1, sizeof *rep_has_layers);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        const tp_track *tr = &t->tracks[e->track];
        if (e->ph != 'X' || (e->flags & TP_EV_DROPPED) || tr->role != TP_TRACK_DERIVED || tr->name != layers_name ||
            rep_of_proc[tr->process] == TP_NONE)
            continue;
        TP_GROW(a->layers, cap, a->nlayers + 1);
        tp_dvdt_layer_row *L = &a->layers[a->nlayers++];
        memset(L, 0, sizeof *L);
        L->repetition = (int)rep_of_proc[tr->process];
        rep_has_layers[L->repetition] = true;
        L->label = e->name;
        L->ts = e->ts;
        L->dur = e->dur;
        int64_t ns;
        const tp_jv *args = event_args(t, e, d);
        L->time_ns = tp_jv_fixed(tp_jv_get(args, "time_ms"), 6, &ns) == 0 ? ns : -1;
    }
    /* layers come in repetition, then time order from the reader; assign kernels */
    uint32_t *owner = tp_xmalloc((nk + 1) * sizeof *owner);
    for (size_t i = 0; i < nk; i++) {
        owner[i] = TP_NONE;
        for (size_t l = 0; l < a->nlayers; l++) {
            const tp_dvdt_layer_row *L = &a->layers[l];
            if ((uint32_t)L->repetition == ks[i].rep && ks[i].ts >= L->ts && ks[i].ts < L->ts + L->dur) {
                owner[i] = (uint32_t)l;
                break;
            }
        }
        if (owner[i] == TP_NONE && rep_has_layers[ks[i].rep])
            a->unassigned++;
    }
    for (size_t l = 0; l < a->nlayers; l++) {
        tp_dvdt_layer_row *L = &a->layers[l];
        L->first_part = a->nparts;
        for (size_t i = 0; i < nk; i++) {
            if (owner[i] != l)
                continue;
            L->kernels++;
            L->kernel_ns = sat_add(L->kernel_ns, ks[i].dur);
            size_t p = L->first_part;
            while (p < a->nparts && a->parts[p].name != ks[i].name)
                p++;
            if (p == a->nparts) {
                TP_GROW(a->parts, pcap, a->nparts + 1);
                a->parts[a->nparts++] = (tp_dvdt_layer_part){ks[i].name, 0, 0};
            }
            a->parts[p].count++;
            a->parts[p].total_ns = sat_add(a->parts[p].total_ns, ks[i].dur);
        }
        L->nparts = a->nparts - L->first_part;
        if (L->nparts)
            sort_r(a->parts + L->first_part, L->nparts, sizeof *a->parts, cmp_part, t);
    }
    free(owner);
    free(rep_has_layers);
}

void tp_dvdt_analyse(const tp_trace *t, tp_dvdt_analysis *a)
{
    memset(a, 0, sizeof *a);
    tp_jdoc d;
    tp_jdoc_init(&d);
    /* repetitions: device processes in reader order */
    uint32_t *rep_of_proc = tp_xmalloc((t->nprocesses + 1) * sizeof *rep_of_proc);
    a->reps = tp_xcalloc(t->nprocesses + 1, sizeof *a->reps);
    for (size_t p = 0; p < t->nprocesses; p++) {
        rep_of_proc[p] = TP_NONE;
        if (!t->processes[p].is_device)
            continue;
        rep_of_proc[p] = (uint32_t)a->nreps;
        tp_dvdt_rep_row *r = &a->reps[a->nreps];
        r->repetition = (int)a->nreps++;
        r->process = (uint32_t)p;
        r->time_fw_ns = -1;
    }
    size_t nk = 0, cap = 0;
    kx *ks = NULL;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || (e->flags & TP_EV_DROPPED))
            continue;
        if (e->kind == TP_KIND_ANNOTATION && t->tracks[e->track].role == TP_TRACK_HOST) {
            /* a CK repetition: {"repetition": r, "time_fw_ms": ...} */
            const tp_jv *args = event_args(t, e, &d);
            int64_t r = arg_int(args, "repetition", -1), fw;
            if (r >= 0 && (size_t)r < a->nreps && tp_jv_fixed(tp_jv_get(args, "time_fw_ms"), 6, &fw) == 0)
                a->reps[r].time_fw_ns = fw;
            continue;
        }
        uint32_t rep = rep_of_proc[t->tracks[e->track].process];
        if (e->kind != TP_KIND_KERNEL || rep == TP_NONE)
            continue;
        TP_GROW(ks, cap, nk + 1);
        kx *k = &ks[nk++];
        memset(k, 0, sizeof *k);
        k->ev = (uint32_t)i;
        k->rep = rep;
        k->name = e->name;
        k->ts = e->ts;
        k->dur = e->dur;
        const tp_jv *args = event_args(t, e, &d);
        k->wait = arg_int(args, "queue_wait_ns", -1);
        int64_t m = arg_int(args, "M", -1), n = arg_int(args, "N", -1), kk = arg_int(args, "K", -1);
        if (m >= 0 && n >= 0 && kk >= 0) {
            k->mnk = true;
            k->m = (uint64_t)m;
            k->n = (uint64_t)n;
            k->k = (uint64_t)kk;
        }
        a->reps[rep].kernels++;
        a->reps[rep].exec_total_ns = sat_add(a->reps[rep].exec_total_ns, e->dur);
    }
    kernel_rows(t, ks, nk, a);
    sort(ks, nk, sizeof *ks, cmp_kx_rep_time);
    position_rows(ks, nk, a);
    gemm_rows(t, ks, nk, a);
    layer_rows(t, ks, nk, rep_of_proc, a, &d);

    int64_t *v = tp_xmalloc((a->nreps + 1) * sizeof *v);
    size_t n = 0;
    for (size_t r = 0; r < a->nreps; r++)
        v[n++] = a->reps[r].exec_total_ns;
    tp_describe_values(v, n, &a->rep_exec);
    n = 0;
    for (size_t r = 0; r < a->nreps; r++)
        if (a->reps[r].time_fw_ns >= 0)
            v[n++] = a->reps[r].time_fw_ns;
    tp_describe_values(v, n, &a->rep_time_fw);
    free(v);
    free(ks);
    free(rep_of_proc);
    tp_jdoc_free(&d);
}

void tp_dvdt_analysis_free(tp_dvdt_analysis *a)
{
    free(a->kernels);
    free(a->positions);
    free(a->gemms);
    free(a->reps);
    free(a->layers);
    free(a->parts);
    memset(a, 0, sizeof *a);
}
