/* diff.c: matching and subtracting two reports' analyses (diff.h). */
#include "report/diff/diff.h"
#include "report/diff/diff_op.h"
#include "render/text/report_text.h"
#include "render/charts/axis.h"
#include "render/labels/kname.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_diff_match_name(int m)
{
    static const char *const n[] = {"name", "short_name", "added", "removed", "op"};
    return m >= 0 && m < TP_DM_COUNT ? n[m] : "?";
}

typedef struct item {
    const char *name;
    char *base; /* kname base name, filled on demand */
    uint8_t kind;
    uint64_t count;
    int64_t total;
    int64_t step;
    int matched; /* index of the partner + 1, 0 when none */
    const char *op; /* kernels: the op that launched most of its time (diff_op.h), else NULL */
    bool by_op;     /* paired by match_op */
} item;

static const item *g_items; /* qsort context (single-threaded) */
static int by_name(const void *a, const void *b)
{
    const item *x = &g_items[*(const size_t *)a], *y = &g_items[*(const size_t *)b];
    int c = strcmp(x->name, y->name);
    return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}
static int by_base(const void *a, const void *b)
{
    const item *x = &g_items[*(const size_t *)a], *y = &g_items[*(const size_t *)b];
    int c = strcmp(x->base, y->base);
    return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}
static int by_step(const void *a, const void *b)
{
    const item *x = &g_items[*(const size_t *)a], *y = &g_items[*(const size_t *)b];
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* Sorted indexes of the items with matched == 0 (all when !only_free). */
static size_t *sorted_idx(item *it, size_t n, int (*cmp)(const void *, const void *), size_t *nout)
{
    size_t *ix = tp_xmalloc((n ? n : 1) * sizeof *ix), k = 0;
    for (size_t i = 0; i < n; i++)
        if (!it[i].matched)
            ix[k++] = i;
    g_items = it;
    qsort(ix, k, sizeof *ix, cmp);
    *nout = k;
    return ix;
}

static void pair(item *a, size_t i, item *b, size_t j)
{
    a[i].matched = (int)j + 1;
    b[j].matched = (int)i + 1;
}

/* Exact pass: merge walk over both sides sorted by name (or step). */
static void match_exact(item *a, size_t na, item *b, size_t nb, bool steps)
{
    size_t ka, kb;
    int (*cmp)(const void *, const void *) = steps ? by_step : by_name;
    size_t *ia = sorted_idx(a, na, cmp, &ka);
    size_t *ib = sorted_idx(b, nb, cmp, &kb);
    size_t i = 0, j = 0;
    while (i < ka && j < kb) {
        const item *x = &a[ia[i]], *y = &b[ib[j]];
        int c = steps ? (x->step > y->step) - (x->step < y->step) : strcmp(x->name, y->name);
        if (c == 0) {
            pair(a, ia[i], b, ib[j]);
            i++, j++;
        } else if (c < 0)
            i++;
        else
            j++;
    }
    free(ia);
    free(ib);
}

/* Short-name pass: groups of equal base name with exactly one unmatched row on each side. */
static void match_short(item *a, size_t na, item *b, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        if (!a[i].matched)
            a[i].base = tp_kname_base(a[i].name);
    for (size_t i = 0; i < nb; i++)
        if (!b[i].matched)
            b[i].base = tp_kname_base(b[i].name);
    size_t ka, kb;
    size_t *ia = sorted_idx(a, na, by_base, &ka);
    size_t *ib = sorted_idx(b, nb, by_base, &kb);
    size_t i = 0, j = 0;
    while (i < ka && j < kb) {
        const char *x = a[ia[i]].base, *y = b[ib[j]].base;
        int c = strcmp(x, y);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        size_t ei = i, ej = j;
        while (ei < ka && strcmp(a[ia[ei]].base, x) == 0)
            ei++;
        while (ej < kb && strcmp(b[ib[ej]].base, x) == 0)
            ej++;
        if (ei - i == 1 && ej - j == 1)
            pair(a, ia[i], b, ib[j]);
        i = ei, j = ej;
    }
    free(ia);
    free(ib);
}

static const item *g_op_items;
static int by_op_kind(const void *a, const void *b)
{
    const item *x = &g_op_items[*(const size_t *)a], *y = &g_op_items[*(const size_t *)b];
    int c = strcmp(x->op, y->op);
    if (!c)
        c = (x->kind > y->kind) - (x->kind < y->kind);
    return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* The unmatched items of one side that have an op, sorted by (op, kind). */
static size_t *op_sorted(item *it, size_t n, size_t *k)
{
    size_t *ix = tp_xmalloc((n ? n : 1) * sizeof *ix);
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (!it[i].matched && it[i].op)
            ix[(*k)++] = i;
    g_op_items = it;
    qsort(ix, *k, sizeof *ix, by_op_kind);
    return ix;
}

/* Op pass (kernels, after names and short names): a base kernel and a candidate kernel of different names that
 * the same op launched are one kernel renamed (another vendor's library: cunn_SoftMaxForward on H100,
 * cunn_SoftMaxForwardReg on MI300) when that op launched exactly one unmatched kernel of that kind on each side;
 * with several on a side, which one became which is a guess, so none is paired. */
static void match_op(item *a, size_t na, item *b, size_t nb)
{
    size_t ka, kb;
    size_t *ia = op_sorted(a, na, &ka), *ib = op_sorted(b, nb, &kb);
    size_t i = 0, j = 0;
    while (i < ka && j < kb) {
        const item *x = &a[ia[i]], *y = &b[ib[j]];
        int c = strcmp(x->op, y->op);
        if (!c)
            c = (x->kind > y->kind) - (x->kind < y->kind);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        size_t ei = i, ej = j;
        while (ei < ka && !strcmp(a[ia[ei]].op, x->op) && a[ia[ei]].kind == x->kind)
            ei++;
        while (ej < kb && !strcmp(b[ib[ej]].op, x->op) && b[ib[ej]].kind == x->kind)
            ej++;
        if (ei - i == 1 && ej - j == 1) {
            pair(a, ia[i], b, ib[j]);
            a[ia[i]].by_op = b[ib[j]].by_op = true;
        }
        i = ei, j = ej;
    }
    free(ia);
    free(ib);
}

/* Steps left over: paired in order when both sides have as many left. */
static void match_position(item *a, size_t na, item *b, size_t nb)
{
    size_t ka, kb;
    size_t *ia = sorted_idx(a, na, by_step, &ka);
    size_t *ib = sorted_idx(b, nb, by_step, &kb);
    if (ka == kb)
        for (size_t i = 0; i < ka; i++)
            pair(a, ia[i], b, ib[i]);
    free(ia);
    free(ib);
}

static int64_t mean_of(int64_t total, uint64_t count)
{
    if (!count)
        return 0;
    /* round half away from zero */
    int64_t q = total / (int64_t)count, r = total % (int64_t)count;
    if (2 * (r < 0 ? -r : r) >= (int64_t)count)
        q += total < 0 ? -1 : 1;
    return q;
}

static void fill(tp_diff_row *r, const item *x, const item *y)
{
    memset(r, 0, sizeof *r);
    const item *any = x ? x : y;
    r->name = tp_xstrdup(any->name);
    if (x && y && strcmp(x->name, y->name) != 0)
        r->cand_name = tp_xstrdup(y->name);
    r->short_name = any->base ? tp_xstrdup(any->base) : tp_kname_base(any->name);
    r->kind = any->kind;
    r->step = any->step;
    r->match = !x ? TP_DM_ADDED : !y ? TP_DM_REMOVED : x->by_op ? TP_DM_OP : r->cand_name ? TP_DM_SHORT : TP_DM_NAME;
    if (r->match == TP_DM_OP)
        r->op = tp_xstrdup(x->op);
    if (x) {
        r->count[0] = x->count;
        r->total[0] = x->total;
        r->mean[0] = mean_of(x->total, x->count);
    }
    if (y) {
        r->count[1] = y->count;
        r->total[1] = y->total;
        r->mean[1] = mean_of(y->total, y->count);
    }
    r->delta = r->total[1] - r->total[0];
    if (r->total[0] != 0) {
        r->has_rel = true;
        r->rel = (double)r->delta / (double)r->total[0];
    }
}

static int row_cmp_delta(const void *a, const void *b)
{
    const tp_diff_row *x = a, *y = b;
    if (x->delta != y->delta)
        return x->delta > y->delta ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return strcmp(x->cand_name ? x->cand_name : "", y->cand_name ? y->cand_name : "");
}
static int row_cmp_step(const void *a, const void *b)
{
    const tp_diff_row *x = a, *y = b;
    if (x->match == TP_DM_ADDED && y->match != TP_DM_ADDED)
        return 1;
    if (y->match == TP_DM_ADDED && x->match != TP_DM_ADDED)
        return -1;
    return (x->step > y->step) - (x->step < y->step);
}

/* Totals are >= 0 but corrupt durations can sum past int64: saturate (as the kernel table does). */
static int64_t sat_add(int64_t a, int64_t b) { return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b; }

static void build_table(item *a, size_t na, item *b, size_t nb, bool steps, tp_diff_table *t)
{
    match_exact(a, na, b, nb, steps);
    if (steps)
        match_position(a, na, b, nb);
    else
        match_short(a, na, b, nb);
    match_op(a, na, b, nb); /* only kernel items carry an op */
    t->rows = tp_xcalloc(na + nb + 1, sizeof *t->rows);
    for (size_t i = 0; i < na; i++) {
        t->total[0] = sat_add(t->total[0], a[i].total);
        fill(&t->rows[t->n++], &a[i], a[i].matched ? &b[a[i].matched - 1] : NULL);
    }
    for (size_t j = 0; j < nb; j++) {
        t->total[1] = sat_add(t->total[1], b[j].total);
        if (!b[j].matched)
            fill(&t->rows[t->n++], NULL, &b[j]);
    }
    t->delta = t->total[1] - t->total[0];
    int64_t gross = 0;
    for (size_t i = 0; i < t->n; i++)
        gross = sat_add(gross, t->rows[i].delta < 0 ? -t->rows[i].delta : t->rows[i].delta);
    for (size_t i = 0; i < t->n; i++)
        if (gross != 0) {
            t->rows[i].has_share = true;
            t->rows[i].share = (double)t->rows[i].delta / (double)gross;
        }
    qsort(t->rows, t->n, sizeof *t->rows, steps ? row_cmp_step : row_cmp_delta);
    const char **names = tp_xcalloc(t->n + 1, sizeof *names);
    for (size_t i = 0; i < t->n; i++)
        names[i] = t->rows[i].name;
    char **sh = steps ? NULL : tp_kname_shorten(names, t->n);
    for (size_t i = 0; i < t->n; i++)
        t->rows[i].label = sh ? sh[i] : tp_xstrdup(t->rows[i].name);
    free(sh); /* the strings now belong to the rows */
    free(names);
    for (size_t i = 0; i < na; i++)
        free(a[i].base);
    for (size_t j = 0; j < nb; j++)
        free(b[j].base);
}

static item *kernel_items(const tp_summary *s, size_t *n)
{
    item *it = tp_xcalloc(s->kt.n + 1, sizeof *it);
    const char **ops = tp_xcalloc(s->kt.n + 1, sizeof *ops);
    tp_diff_kernel_ops(s, ops);
    for (size_t i = 0; i < s->kt.n; i++) {
        const tp_kernel_row *r = &s->kt.rows[i];
        it[i] = (item){tp_str_get(s->t, r->name), NULL, r->kind, r->count, r->total_ns, 0, 0, ops[i], false};
    }
    free(ops);
    *n = s->kt.n;
    return it;
}

static item *op_items(const tp_summary *s, size_t *n)
{
    item *it = tp_xcalloc(s->ob.nops + 1, sizeof *it);
    for (size_t i = 0; i < s->ob.nops; i++) {
        const tp_opk_op *o = &s->ob.ops[i];
        it[i] = (item){tp_opk_op_name(s->t, o), NULL, 0, o->occurrences, o->total_ns, 0, 0, NULL, false};
    }
    *n = s->ob.nops;
    return it;
}

static item *category_items(const tp_summary *s, size_t *n)
{
    item *it = tp_xcalloc(s->cat.n + 1, sizeof *it);
    for (size_t i = 0; i < s->cat.n; i++) {
        const tp_cat_row *r = &s->cat.rows[i];
        it[i] = (item){s->rules->names[r->category], NULL, 0, r->count, r->device_ns, 0, 0, NULL, false};
    }
    *n = s->cat.n;
    return it;
}

static item *step_items(const tp_summary *s, size_t *n, char ***names)
{
    size_t k = s->sf.nsteps;
    item *it = tp_xcalloc(k + 1, sizeof *it);
    *names = tp_xcalloc(k + 1, sizeof **names);
    for (size_t i = 0; i < k; i++) {
        const tp_step_row *r = &s->sf.steps[i];
        char buf[48];
        snprintf(buf, sizeof buf, "step %lld", (long long)r->step);
        (*names)[i] = tp_xstrdup(buf);
        it[i] = (item){(*names)[i], NULL, 0, 1, r->host_ns, r->step, 0, NULL, false};
    }
    *n = k;
    return it;
}

const char *tp_diff_verdict_name(int v)
{
    static const char *const n[] = {"no change", "within noise", "slower", "faster", "no noise estimate"};
    return v >= 0 && v < 5 ? n[v] : "?";
}

const char *tp_diff_noise_from_name(int f)
{
    static const char *const n[] = {"iqr_base", "iqr_candidate", "floor"};
    return f >= 0 && f < 3 ? n[f] : "?";
}

void tp_diff_quartiles(const int64_t *sorted, size_t n, int64_t *q1, int64_t *q3) { tp_step_quartiles(sorted, n, q1, q3); }

static void spread_of(const tp_summary *s, tp_step_spread *sp) { tp_step_spread_of(&s->sf, sp); }

static int64_t abs64(int64_t x) { return x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x; }

/* floor(1.5 x) for x >= 0, saturating. */
static int64_t times_1_5(int64_t x) { return x > INT64_MAX / 3 * 2 ? INT64_MAX : x + x / 2; }

/* The noise rule and the verdict (diff.h, docs/DIFF.md): the only place
 * that decides whether a change counts; the gate reads d->verdict. */
static void judge(tp_diff *d)
{
    int64_t head_delta = d->head[1] - d->head[0];
    const tp_step_spread *p = d->spread;
    if (d->has_steps) {
        d->noise_known = p[0].median_of >= 2 && p[1].median_of >= 2;
        int64_t term[3] = {times_1_5(p[0].iqr), times_1_5(p[1].iqr), p[0].median / 100};
        d->noise_from = TP_NOISE_IQR_BASE;
        for (int i = 1; i < 3; i++)
            if (term[i] > term[d->noise_from])
                d->noise_from = i;
        d->noise = d->noise_known ? term[d->noise_from] : 0;
        d->beyond_noise = d->noise_known && abs64(d->median_delta) > d->noise;
    }
    if (head_delta == 0 && d->kernels.delta == 0)
        d->verdict = TP_DV_NO_CHANGE;
    else if (d->has_steps && d->noise_known)
        d->verdict = !d->beyond_noise ? TP_DV_WITHIN_NOISE : head_delta > 0 ? TP_DV_SLOWER : TP_DV_FASTER;
    else if (head_delta == 0)
        d->verdict = TP_DV_NO_CHANGE;
    else
        d->verdict = TP_DV_NO_ESTIMATE;
}

void tp_diff_build(const tp_summary *base, const tp_summary *cand, tp_diff *d)
{
    memset(d, 0, sizeof *d);
    d->s[0] = base;
    d->s[1] = cand;
    size_t na, nb;
    item *a = kernel_items(base, &na), *b = kernel_items(cand, &nb);
    build_table(a, na, b, nb, false, &d->kernels);
    free(a);
    free(b);
    a = op_items(base, &na);
    b = op_items(cand, &nb);
    build_table(a, na, b, nb, false, &d->ops);
    free(a);
    free(b);
    a = category_items(base, &na);
    b = category_items(cand, &nb);
    build_table(a, na, b, nb, false, &d->categories);
    free(a);
    free(b);
    tp_diff_eff_build(base, cand, &d->eff);
    char **sa, **sb;
    a = step_items(base, &na, &sa);
    b = step_items(cand, &nb, &sb);
    build_table(a, na, b, nb, true, &d->steps);
    for (size_t i = 0; i < na; i++)
        free(sa[i]);
    for (size_t i = 0; i < nb; i++)
        free(sb[i]);
    free(sa);
    free(sb);
    free(a);
    free(b);

    spread_of(base, &d->spread[0]);
    spread_of(cand, &d->spread[1]);
    d->has_steps = d->spread[0].n > 0 && d->spread[1].n > 0;
    if (d->has_steps) {
        d->median_delta = d->spread[1].median - d->spread[0].median;
        if (d->spread[0].median) {
            d->median_has_rel = true;
            d->median_rel = (double)d->median_delta / (double)d->spread[0].median;
        }
        d->headline = "median_step_time";
        d->head[0] = d->spread[0].median;
        d->head[1] = d->spread[1].median;
    } else {
        d->headline = "total_device_time";
        d->head[0] = base->kt.total_ns;
        d->head[1] = cand->kt.total_ns;
    }
    if (d->head[0]) {
        d->head_has_rel = true;
        d->head_rel = (double)(d->head[1] - d->head[0]) / (double)d->head[0];
    }
    judge(d);
    tp_diff_findings_build(base, cand, &d->find);
    tp_diff_mem_build(base, cand, &d->mem);
}

static void table_free(tp_diff_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->rows[i].name);
        free(t->rows[i].cand_name);
        free(t->rows[i].short_name);
        free(t->rows[i].label);
        free(t->rows[i].op);
    }
    free(t->rows);
}

void tp_diff_free(tp_diff *d)
{
    tp_diff_findings_free(&d->find);
    tp_diff_mem_free(&d->mem);
    table_free(&d->kernels);
    table_free(&d->ops);
    table_free(&d->steps);
    table_free(&d->categories);
    tp_diff_eff_free(&d->eff);
    memset(d, 0, sizeof *d);
}

int tp_diff_slower_gate(const tp_diff *d, const tp_diff_gates *g)
{
    if (!g->slower || !d->head_has_rel || !(d->head_rel * 100.0 > g->slower_pct))
        return 0;
    return d->verdict == TP_DV_SLOWER || d->verdict == TP_DV_NO_ESTIMATE ? 1 : -1;
}

int tp_diff_check(const tp_diff *d, const tp_diff_gates *g, tp_buf *why)
{
    int tripped = 0;
    char a[48], b[48], nz[48];
    if (tp_diff_slower_gate(d, g) > 0) {
        tp_fmt_dur(a, sizeof a, d->head[0]);
        tp_fmt_dur(b, sizeof b, d->head[1]);
        tp_fmt_dur(nz, sizeof nz, d->noise);
        tp_buf_printf(why, "%s %+.1f%% (%s -> %s), ",
                      strcmp(d->headline, "median_step_time") == 0 ? "median step time" : "total device time",
                      d->head_rel * 100.0, a, b);
        if (d->verdict == TP_DV_SLOWER)
            tp_buf_printf(why, "beyond the step-to-step noise (%s), ", nz);
        else
            tp_buf_puts(why, "no noise estimate, ");
        tp_buf_printf(why, "over --fail-if-slower %g%%\n", g->slower_pct);
        tripped++;
    }
    if (g->kernel_slower) {
        double floor0 = (double)d->s[0]->kt.total_ns * g->kernel_min_share_pct / 100.0;
        double floor1 = (double)d->s[1]->kt.total_ns * g->kernel_min_share_pct / 100.0;
        for (size_t i = 0; i < d->kernels.n; i++) {
            const tp_diff_row *r = &d->kernels.rows[i];
            if (r->match == TP_DM_ADDED || r->match == TP_DM_REMOVED || !r->has_rel)
                continue;
            if ((double)r->total[0] < floor0 && (double)r->total[1] < floor1)
                continue;
            if (r->rel * 100.0 > g->kernel_pct) {
                tp_fmt_dur(a, sizeof a, r->total[0]);
                tp_fmt_dur(b, sizeof b, r->total[1]);
                tp_buf_printf(why, "kernel %s %+.1f%% (%s -> %s total), over --fail-if-kernel-slower %g%%\n",
                              r->name, r->rel * 100.0, a, b, g->kernel_pct);
                tripped++;
            }
        }
    }
    if (g->fail_on_finding)
        tripped += tp_diff_finding_gate(&d->find, g->fail_on_finding, why);
    tripped += tp_diff_mem_gate(&d->mem, &g->mem_higher, why);
    return tripped;
}

void tp_diff_noise_text(const tp_diff *d, char *buf, size_t n)
{
    static const char *const from[] = {"1.5 × IQR of the base steps", "1.5 × IQR of the candidate steps",
                                       "1% of the base median"};
    const tp_step_spread *p = d->spread;
    char nz[40];
    if (!d->has_steps)
        snprintf(buf, n, "no steps in at least one trace, so device time is compared, with no spread to tell a change from noise");
    else if (!d->noise_known) {
        int k = p[0].median_of < 2 ? 0 : 1;
        snprintf(buf, n, "the %s run has a single step%s, so there is no step-to-step spread to tell a change from noise",
                 k ? "candidate" : "base", p[k].n > p[k].median_of ? " with device work" : "");
    } else {
        tp_fmt_dur(nz, sizeof nz, d->noise);
        snprintf(buf, n, "step-to-step noise ±%s (%s), so the change is %s", nz, from[d->noise_from],
                 d->beyond_noise ? "larger than the noise" : "within the noise");
    }
}

void tp_diff_fmt_share(char *buf, size_t n, const tp_diff_row *r)
{
    if (!r->has_share) {
        snprintf(buf, n, "-");
        return;
    }
    double pct = r->share * 100.0;
    snprintf(buf, n, "%.1f%%", pct > -0.05 && pct < 0.05 ? 0.0 : pct);
}

void tp_diff_fmt_rel(char *buf, size_t n, const tp_diff_row *r)
{
    if (r->match == TP_DM_ADDED)
        snprintf(buf, n, "new");
    else if (r->match == TP_DM_REMOVED)
        snprintf(buf, n, "gone");
    else if (!r->has_rel)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.1f%%", r->rel * 100.0 + 0.0);
}

void tp_diff_fmt_delta(char *buf, size_t n, int64_t ns)
{
    tp_fmt_dur_delta(buf, n, ns, " ");
}
