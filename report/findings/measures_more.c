/* measures_more.c: the measures over kernel sequences, the input pipeline and
 * GEMM shapes (findings.h, docs/REPORT.md "Findings"): fusible chains of
 * memory-bound kernels, the dataloader's host time (its spans, read by the
 * device idle split in measures.c) and GEMM dimensions that waste
 * tensor-core tiles. */
#include "report/findings/findings.h"
#include "convert/base/common.h"
#include "convert/base/i64map.h"
#include "render/labels/kname.h"
#include "render/text/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TOP_EVIDENCE 3

static void dur(char *b, size_t n, int64_t ns) { tp_fmt_dur(b, n, ns); }

/* ---- the dataloader: host slices the input pipeline records ---- */

/* PyTorch's profiler names the iterator's step "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
 * (or _MultiProcessingDataLoaderIter), and with Python stacks "torch/utils/data/dataloader.py(N): __next__":
 * every such name holds "dataloader", in any case. */
static bool dataloader_name(const char *n)
{
    for (const char *p = n; *p; p++)
        if ((*p == 'd' || *p == 'D') && strncasecmp(p, "dataloader", 10) == 0)
            return true;
    return false;
}

static int span_cmp(const void *a, const void *b)
{
    const tp_find_span *x = a, *y = b;
    return x->s != y->s ? (x->s < y->s ? -1 : 1) : (x->e < y->e ? -1 : x->e > y->e);
}

void tp_find_data_scan(const tp_summary *s, tp_find_data *d)
{
    const tp_trace *t = s->t;
    memset(d, 0, sizeof *d);
    /* the names first (a trace has far fewer names than events): which name ids are the dataloader's */
    uint8_t *is = tp_xcalloc(t->nstr + 1, 1);
    bool any = false;
    for (size_t i = 1; i < t->nstr; i++)
        if (dataloader_name(tp_str_get(t, (tp_str)i)))
            is[i] = 1, any = true;
    size_t cap = 0;
    tp_str nm[64];
    int64_t nmns[64];
    size_t nnm = 0;
    for (size_t i = 0; any && i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->dur <= 0 || e->name >= t->nstr || !is[e->name] || (e->flags & TP_EV_DROPPED) ||
            t->tracks[e->track].role != TP_TRACK_HOST)
            continue;
        d->calls++;
        TP_GROW(d->spans, cap, d->n + 1);
        d->spans[d->n++] = (tp_find_span){e->ts, e->ts + e->dur, e->track};
        size_t j = 0;
        while (j < nnm && nm[j] != e->name)
            j++;
        if (j == nnm && nnm < 64) {
            nm[nnm] = e->name;
            nmns[nnm++] = 0;
        }
        if (j < nnm)
            nmns[j] += e->dur;
    }
    free(is);
    if (d->n) /* qsort of a NULL array, even empty, is undefined */
        qsort(d->spans, d->n, sizeof *d->spans, span_cmp);
    size_t m = 0; /* merged: nested slices (the iterator inside enumerate) count once */
    for (size_t i = 0; i < d->n; i++) {
        if (m && d->spans[i].s <= d->spans[m - 1].e) {
            if (d->spans[i].e > d->spans[m - 1].e)
                d->spans[m - 1].e = d->spans[i].e;
        } else
            d->spans[m++] = d->spans[i];
    }
    d->n = m;
    for (size_t i = 0; i < m; i++)
        d->host_ns += d->spans[i].e - d->spans[i].s;
    for (size_t r = 0; r < TOP_EVIDENCE; r++) { /* the names with the most time, then first seen */
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < nnm; j++)
            if (nmns[j] > 0 && (best == SIZE_MAX || nmns[j] > nmns[best]))
                best = j;
        if (best == SIZE_MAX)
            break;
        d->names[r] = nm[best];
        d->names_ns[r] = nmns[best];
        nmns[best] = 0;
    }
}

int64_t tp_find_overlap(const tp_find_span *sp, size_t n, int64_t a, int64_t b)
{
    size_t lo = 0, hi = n; /* the first span ending after a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp[mid].e <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t o = 0;
    for (size_t i = lo; i < n && sp[i].s < b; i++)
        o += (sp[i].e < b ? sp[i].e : b) - (sp[i].s > a ? sp[i].s : a);
    return o;
}

/* ---- fusible chains: runs of memory-bound kernels on a stream ---- */

/* A chain: a run of two or more consecutive kernels of a stream whose category is elementwise or
 * normalisation, ended by any other kernel of the stream (typically a GEMM or attention); two chains
 * are the same sequence when their kernels' names are.  Kernels a
 * compiler generated (classify.h TP_RAN_COMPILED) end a run: the compiler already fused what it could. */
#define CHAIN_MIN 2
#define CHAIN_SHOW 4 /* kernels named per chain in the evidence */

typedef struct chain_kind {
    size_t first;     /* index into the sorted kernels of its first occurrence */
    uint32_t len;
    uint32_t track;
    uint64_t count;
    int64_t kernel_ns; /* the occurrences' kernel time */
    int64_t impact_ns; /* each occurrence's kernel time less its longest kernel */
} chain_kind;

static int kernel_cmp(const void *a, const void *b, void *ctx)
{
    const tp_trace *t = ctx;
    const tp_event *x = &t->events[*(const uint32_t *)a], *y = &t->events[*(const uint32_t *)b];
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static uint64_t seq_hash(const tp_trace *t, const uint32_t *k, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ t->events[k[i]].name) * 1099511628211ull;
    return h;
}

static bool seq_same(const tp_trace *t, const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t->events[a[i]].name != t->events[b[i]].name)
            return false;
    return true;
}

static int kind_by_impact(const void *a, const void *b)
{
    const chain_kind *x = a, *y = b;
    if (x->impact_ns != y->impact_ns)
        return x->impact_ns > y->impact_ns ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The index of category `name` in the rules, UINT32_MAX when none. */
static uint32_t category(const tp_summary *s, const char *name)
{
    for (size_t i = 0; s->rules && i < s->rules->nnames; i++)
        if (strcmp(s->rules->names[i], name) == 0)
            return (uint32_t)i;
    return UINT32_MAX;
}

void tp_measure_fusible_chains(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    (void)cx;
    const tp_trace *t = s->t;
    m->base = m->impact_base = "the GPU span";
    m->bound = "each repeated chain's kernel time less its longest kernel: one fused kernel still takes at least "
               "as long as the longest of them (the launch gaps inside the chains are the host's, not counted here)";
    m->whole = m->impact_base_ns = s->gt.whole.span_ns;
    uint32_t ew = category(s, "elementwise"), nm = category(s, "normalisation");
    if (!s->cls.of || m->whole <= 0 || (ew == UINT32_MAX && nm == UINT32_MAX))
        return;
    size_t nk = 0, cap = 0;
    uint32_t *k = NULL;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].kind == TP_KIND_KERNEL && tp_is_device_activity(&t->events[i])) {
            TP_GROW(k, cap, nk + 1);
            k[nk++] = (uint32_t)i;
        }
    if (nk)
        qsort_r(k, nk, sizeof *k, kernel_cmp, (void *)t);
    chain_kind *kinds = NULL;
    size_t nkinds = 0, kcap = 0;
    tp_i64map map = {0};
    uint64_t chains = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && t->events[k[j]].track == t->events[k[i]].track) {
            uint32_t c = s->cls.of[k[j]];
            if ((c != ew && c != nm) || s->cls.ran[k[j]] == TP_RAN_COMPILED)
                break;
            j++;
        }
        /* a run [i, j) counts when another kernel of the stream ends it on both sides */
        bool closed = j < nk && t->events[k[j]].track == t->events[k[i]].track && i > 0 &&
                      t->events[k[i - 1]].track == t->events[k[i]].track;
        if (j - i >= CHAIN_MIN && closed && j - i <= UINT32_MAX) {
            chains++;
            int64_t busy = 0, longest = 0;
            for (size_t q = i; q < j; q++) {
                int64_t d = t->events[k[q]].dur > 0 ? t->events[k[q]].dur : 0;
                busy += d;
                longest = d > longest ? d : longest;
            }
            int64_t key = (int64_t)(seq_hash(t, &k[i], j - i) & INT64_MAX);
            uint32_t at;
            for (;;) { /* a probe past other sequences of the same hash */
                at = tp_i64map_get(&map, key);
                if (at == TP_I64MAP_EMPTY || (kinds[at].len == j - i && kinds[at].track == t->events[k[i]].track &&
                                              seq_same(t, &k[kinds[at].first], &k[i], j - i)))
                    break;
                key = (key + 1) & INT64_MAX;
            }
            if (at == TP_I64MAP_EMPTY) {
                TP_GROW(kinds, kcap, nkinds + 1);
                kinds[nkinds] = (chain_kind){i, (uint32_t)(j - i), t->events[k[i]].track, 0, 0, 0};
                at = (uint32_t)nkinds++;
                tp_i64map_put(&map, key, at);
            }
            kinds[at].count++;
            kinds[at].kernel_ns += busy;
            kinds[at].impact_ns += busy - longest;
        }
        i = j > i ? j : i + 1;
    }
    tp_i64map_free(&map);
    /* only sequences that repeat: a chain seen once is no pattern a compiler or a fused kernel is worth */
    size_t nrep = 0;
    uint64_t rep_chains = 0;
    for (size_t q = 0; q < nkinds; q++)
        if (kinds[q].count >= 2) {
            kinds[nrep++] = kinds[q];
            m->part += kinds[q].kernel_ns;
            m->impact_ns += kinds[q].impact_ns;
            rep_chains += kinds[q].count;
        }
    if (m->part > m->whole) /* streams run side by side: a share of the span, at most all of it */
        m->part = m->whole;
    if (m->impact_ns > m->impact_base_ns)
        m->impact_ns = m->impact_base_ns;
    if (nrep)
        qsort(kinds, nrep, sizeof *kinds, kind_by_impact);
    if (nrep) {
        char a[48], b[48];
        dur(a, sizeof a, m->part);
        tp_find_pct(b, sizeof b, tp_find_milli(m->part, m->whole));
        tp_measure_evidence(m, "%llu chains of elementwise / normalisation kernels between other kernels repeat "
                               "(%zu distinct sequences of %llu chains): kernel time %s, %s of the GPU span",
                            (unsigned long long)rep_chains, nrep, (unsigned long long)chains, a, b);
    }
    for (size_t q = 0; q < nrep && q < TOP_EVIDENCE; q++) {
        const chain_kind *c = &kinds[q];
        tp_buf seq = {0};
        for (uint32_t r = 0; r < c->len && r < CHAIN_SHOW; r++) {
            /* the op that launched it says more than a generic kernel name (vectorized_elementwise_kernel) */
            const tp_event *e = &t->events[k[c->first + r]];
            char *base = e->op != TP_NONE ? tp_xstrdup(tp_str_get(t, t->events[e->op].name))
                                          : tp_kname_base(tp_str_get(t, e->name));
            char *cut = tp_kname_cut(base, 40);
            tp_buf_printf(&seq, "%s%s", r ? " -> " : "", cut);
            free(cut);
            free(base);
        }
        if (c->len > CHAIN_SHOW)
            tp_buf_printf(&seq, " -> ... (%u more)", c->len - CHAIN_SHOW);
        char lab[160], d[48], g[48];
        tp_stream_label(t, c->track, lab, sizeof lab);
        dur(d, sizeof d, c->kernel_ns);
        dur(g, sizeof g, c->impact_ns);
        tp_measure_evidence(m, "%llu x [%s] (%u kernels) on %s: %s, up to %s to gain", (unsigned long long)c->count,
                            seq.data, c->len, lab, d, g);
        tp_buf_free(&seq);
    }
    free(kinds);
    free(k);
}

/* ---- GEMM dimensions that waste tensor-core tiles ---- */

/* The multiple a GEMM dimension needs for full tensor-core tiles at the peak class the row is held
 * against (NVIDIA's matrix-multiplication guide: 16-bit 8 elements, 8-bit 16, TF32 4: 16 bytes);
 * 0 when the class has no such need (fp32 on vector units). */
static int align_of(int peak)
{
    return peak == TP_PEAK_MATRIX_BF16 || peak == TP_PEAK_MATRIX_FP16 ? 8
           : peak == TP_PEAK_MATRIX_FP8                               ? 16
           : peak == TP_PEAK_MATRIX_TF32                              ? 4
                                                                      : 0;
}

/* The tensors of a compact "Input Dims" text ("[[4095,4096],[4096,4096]]"): up to 4 of rank <= 4. */
typedef struct dims {
    int n;
    int rank[4];
    int64_t d[4][4];
} dims;

static bool parse_dims(const char *p, dims *o)
{
    memset(o, 0, sizeof *o);
    if (*p++ != '[')
        return false;
    while (*p == '[' && o->n < 4) {
        p++;
        int r = 0;
        while (*p >= '0' && *p <= '9') {
            int64_t v = 0;
            while (*p >= '0' && *p <= '9' && v < INT64_MAX / 10)
                v = v * 10 + (*p++ - '0');
            if (r < 4)
                o->d[o->n][r] = v;
            r++;
            if (*p == ',')
                p++;
        }
        if (*p != ']')
            return false; /* a list of lists (a tensor list) or text: not a plain GEMM */
        p++;
        o->rank[o->n++] = r <= 4 ? r : -1;
        if (*p == ',')
            p++;
    }
    return true;
}

/* At or above this fraction of its roof a GEMM wastes too little to be worth padding: well-tuned kernels
 * reach 70-80% (as findings.rules says of compute_headroom). */
#define TILES_FRACTION 0.75

bool tp_find_gemm_misaligned(const tp_summary *s, const tp_eff_row *r, char *why, size_t n)
{
    if (r->family != TP_FAM_GEMM || r->bound != TP_BOUND_COMPUTE || r->peak_fraction < 0 ||
        r->peak_fraction >= TILES_FRACTION)
        return false;
    int a = align_of(r->peak);
    dims d;
    if (!a || !parse_dims(r->input_dims, &d))
        return false;
    (void)s;
    /* M, N, K by the op's argument order (op_models_matrix.c): addmm and baddbmm lead with the bias */
    bool linear = strcmp(r->op, "aten::linear") == 0;
    int ia = strcmp(r->op, "aten::addmm") == 0 || strcmp(r->op, "aten::baddbmm") == 0 ? 1 : 0;
    if (ia + 1 >= d.n || d.rank[ia] < 1 || d.rank[ia + 1] < 2) /* rank -1: more than 4 dims, not read */
        return false;
    const int64_t *A = d.d[ia], *B = d.d[ia + 1];
    int ra = d.rank[ia], rb = d.rank[ia + 1];
    int64_t M = ra >= 2 ? A[ra - 2] : 1, K = A[ra - 1], N = linear ? B[0] : B[rb - 1];
    if (linear) {
        M = 1;
        for (int q = 0; q < ra - 1; q++)
            M *= A[q];
    }
    const char *bad = K % a ? "K" : N % a ? "N" : M % a ? "M" : NULL;
    if (!bad)
        return false;
    snprintf(why, n, "M %lld, N %lld, K %lld: %s not a multiple of %d (%s)", (long long)M, (long long)N, (long long)K,
             bad, a, tp_peak_class_names[r->peak]);
    return true;
}

void tp_measure_gemm_tiles(const tp_summary *s, tp_find_ctx *cx, tp_measure *m)
{
    (void)cx;
    const tp_efficiency *e = &s->eff;
    m->base = m->impact_base = "the device time";
    m->bound = "the headroom under the roof of those GEMM shapes (device time x (1 - fraction of the roof)): "
               "padding the dimension can at most bring them to the roof";
    if (s->opts.lean) {
        m->available = false;
        snprintf(m->why, sizeof m->why, "GEMM shapes are read by `report`, not `stats`");
        return;
    }
    if (e->device_ns <= 0)
        return;
    if (!e->with_shapes || !e->have_device || !e->device.known) {
        m->available = false;
        if (!e->with_shapes)
            snprintf(m->why, sizeof m->why, "the trace has no shapes (%s)", tp_eff_shapes_hint(e));
        else
            snprintf(m->why, sizeof m->why, "%s", "the device's peaks are unknown, so no GEMM has a roof "
                                                  "(--device-spec FILE adds them)");
        return;
    }
    m->whole = m->impact_base_ns = e->device_ns;
    size_t shown = 0;
    uint64_t rows = 0;
    for (size_t i = 0; i < e->n; i++) { /* rows by device time: the heaviest shapes first */
        const tp_eff_row *r = &e->rows[i];
        char why[160];
        if (!tp_find_gemm_misaligned(s, r, why, sizeof why))
            continue;
        rows++;
        m->part += r->device_ns;
        m->impact_ns += r->opportunity_ns;
        if (shown < TOP_EVIDENCE) {
            char d[48], o[48];
            dur(d, sizeof d, r->device_ns);
            dur(o, sizeof o, r->opportunity_ns);
            char *dm = tp_kname_cut(r->input_dims, 60);
            tp_measure_evidence(m, "%s %s: %s; %llu calls, %s at %.0f%% of its roof; headroom %s", r->op, dm, why,
                                (unsigned long long)r->count, d, r->peak_fraction * 100, o);
            free(dm);
            shown++;
        }
    }
    if (rows > shown)
        tp_measure_evidence(m, "%llu more such GEMM shapes", (unsigned long long)(rows - shown));
}
