/* job_diff.c: two runs of a job compared (job_diff.h). */
#include "report/job/job_diff.h"
#include "convert/codec/json_write.h"
#include "report/job/job_out.h"
#include "report/out/coll_out.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median and IQR (linear between closest ranks) of the steps' medians. */
static void step_stats(const tp_job *j, int64_t *median, int64_t *iqr)
{
    int64_t *v = tp_xmalloc((j->nsteps + 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < j->nsteps; k++)
        if (j->steps[k].ranks)
            v[n++] = j->steps[k].median_step_ns;
    qsort(v, n, sizeof *v, cmp_i64);
    *median = j->median_step_ns;
    *iqr = -1;
    if (n >= 2) {
        double q[2];
        for (int i = 0; i < 2; i++) {
            double pos = (i ? 0.75 : 0.25) * (double)(n - 1);
            size_t lo = (size_t)pos;
            double f = pos - (double)lo;
            q[i] = lo + 1 < n ? (double)v[lo] + f * (double)(v[lo + 1] - v[lo]) : (double)v[lo];
        }
        *iqr = (int64_t)(q[1] - q[0] + 0.5);
    }
    free(v);
}

static bool same_coll(const tp_job_coll *x, const tp_job_coll *y)
{
    return x->bytes == y->bytes && x->group_size == y->group_size && strcmp(x->kind, y->kind) == 0 &&
           strcmp(x->dtype, y->dtype) == 0 && strcmp(x->group, y->group) == 0 && strcmp(x->ranks, y->ranks) == 0;
}

static const tp_measure *fired(const tp_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->items[i].rule->id, id) == 0)
            return f->items[i].m;
    return NULL;
}

static int64_t find_impact(const tp_job_diff_finding *x)
{
    const tp_measure *m = x->status == TP_FIND_GONE ? x->m[0] : x->m[1];
    return m ? m->impact_ns : 0;
}

static int cmp_find(const void *pa, const void *pb)
{
    const tp_job_diff_finding *x = pa, *y = pb;
    if (x->status != y->status)
        return x->status < y->status ? -1 : 1;
    int64_t ix = find_impact(x), iy = find_impact(y);
    if (ix != iy)
        return ix > iy ? -1 : 1;
    return strcmp(x->rule->id, y->rule->id);
}

/* The job findings of both runs, rule by rule. */
static void diff_findings(const tp_job *a, const tp_job *b, tp_job_diff *d)
{
    const tp_find_rules *r = a->findings.own_rules;
    size_t n = r ? r->n : 0;
    d->finds = tp_xcalloc(n + 1, sizeof *d->finds);
    for (size_t i = 0; i < n; i++) {
        const tp_measure *x = fired(&a->findings, r->rules[i].id), *y = fired(&b->findings, r->rules[i].id);
        if (!x && !y)
            continue;
        d->finds[d->nfinds++] = (tp_job_diff_finding){&r->rules[i],
                                                      tp_find_change(x != NULL, x ? x->impact_milli : 0, y != NULL,
                                                                     y ? y->impact_milli : 0),
                                                      {x, y}};
    }
    qsort(d->finds, d->nfinds, sizeof *d->finds, cmp_find);
}

void tp_job_diff_build(const tp_job *a, const tp_job *b, tp_job_diff *d)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    d->b = b;
    d->pair_a = tp_xcalloc(a->nranks + 1, sizeof *d->pair_a);
    d->pair_b = tp_xcalloc(a->nranks + 1, sizeof *d->pair_b);
    size_t i = 0, k = 0; /* both sorted by rank */
    while (i < a->nranks || k < b->nranks) {
        if (k >= b->nranks || (i < a->nranks && a->ranks[i].rank < b->ranks[k].rank))
            d->only_a++, i++;
        else if (i >= a->nranks || b->ranks[k].rank < a->ranks[i].rank)
            d->only_b++, k++;
        else {
            d->pair_a[d->npairs] = i++;
            d->pair_b[d->npairs++] = k++;
        }
    }
    /* collectives: base rows in their order, then the candidate's new ones */
    d->coll_a = tp_xcalloc(a->ncolls + b->ncolls + 1, sizeof *d->coll_a);
    d->coll_b = tp_xcalloc(a->ncolls + b->ncolls + 1, sizeof *d->coll_b);
    bool *used = tp_xcalloc(b->ncolls + 1, sizeof *used);
    for (i = 0; i < a->ncolls; i++) {
        d->coll_a[d->ncoll] = i;
        d->coll_b[d->ncoll] = SIZE_MAX;
        for (k = 0; k < b->ncolls; k++)
            if (!used[k] && same_coll(&a->colls[i], &b->colls[k])) {
                used[k] = true;
                d->coll_b[d->ncoll] = k;
                break;
            }
        d->ncoll++;
    }
    for (k = 0; k < b->ncolls; k++)
        if (!used[k]) {
            d->coll_a[d->ncoll] = SIZE_MAX;
            d->coll_b[d->ncoll++] = k;
        }
    free(used);
    diff_findings(a, b, d);
    int64_t iqr[2];
    step_stats(a, &d->head[0], &iqr[0]);
    step_stats(b, &d->head[1], &iqr[1]);
    d->noise_ns = -1;
    if (d->head[0] < 0 || d->head[1] < 0) {
        d->verdict = "no steps";
        return;
    }
    if (iqr[0] >= 0 && iqr[1] >= 0) {
        int64_t w = iqr[0] > iqr[1] ? iqr[0] : iqr[1];
        d->noise_ns = w + w / 2;
        if (d->noise_ns < d->head[0] / 100)
            d->noise_ns = d->head[0] / 100;
    }
    int64_t delta = d->head[1] - d->head[0];
    if (delta == 0)
        d->verdict = "no change";
    else if (d->noise_ns < 0)
        d->verdict = "no noise estimate";
    else if (llabs(delta) <= d->noise_ns)
        d->verdict = "within noise";
    else
        d->verdict = delta > 0 ? "slower" : "faster";
}

void tp_job_diff_free(tp_job_diff *d)
{
    free(d->pair_a);
    free(d->pair_b);
    free(d->coll_a);
    free(d->coll_b);
    free(d->finds);
    memset(d, 0, sizeof *d);
}

bool tp_job_diff_slower(const tp_job_diff *d, double pct, tp_buf *why)
{
    if (d->head[0] <= 0 || d->head[1] < 0)
        return false;
    double rel = (double)(d->head[1] - d->head[0]) / (double)d->head[0] * 100.0;
    if (rel <= pct || !(strcmp(d->verdict, "slower") == 0 || strcmp(d->verdict, "no noise estimate") == 0))
        return false;
    char a[48], b[48];
    tp_fmt_dur(a, sizeof a, d->head[0]);
    tp_fmt_dur(b, sizeof b, d->head[1]);
    tp_buf_printf(why, "the job's median step grew %.1f%% (%s → %s), more than %g%%, %s\n", rel, a, b, pct,
                  d->verdict);
    return true;
}

/* ---- JSON ---- */

static void pair_i64(tp_buf *b, const char *key, int64_t x, int64_t y)
{
    tp_buf_printf(b, ",\"%s\":[", key);
    tp_buf_printf(b, x < 0 ? "null," : "%lld,", (long long)x);
    tp_buf_printf(b, y < 0 ? "null]" : "%lld]", (long long)y);
}

static void pair_rate(tp_buf *b, const char *key, double x, double y)
{
    tp_buf_printf(b, ",\"%s\":[", key);
    tp_buf_printf(b, x > 0 ? "%.6g," : "null,", x);
    tp_buf_printf(b, y > 0 ? "%.6g]" : "null]", y);
}

static int64_t mean_transfer(const tp_job_coll *c)
{
    return c && c->instances ? c->transfer_ns / (int64_t)c->instances : -1;
}

void tp_job_diff_json(const tp_job_diff *d, const tp_buf *why, bool tripped, tp_buf *b)
{
    tp_buf_printf(b, "{\"schema\":\"" TP_JOB_DIFF_SCHEMA "\",\n\"ranks\":[%zu,%zu],\"matched_ranks\":%zu,"
                     "\"ranks_only_in_base\":%zu,\"ranks_only_in_candidate\":%zu",
                  d->a->nranks, d->b->nranks, d->npairs, d->only_a, d->only_b);
    pair_i64(b, "median_step_ns", d->head[0], d->head[1]);
    tp_buf_printf(b, d->noise_ns < 0 ? ",\"noise_ns\":null" : ",\"noise_ns\":%lld", (long long)d->noise_ns);
    tp_buf_printf(b, ",\"verdict\":\"%s\",\"gate_tripped\":%s,\"gate_reasons\":", d->verdict,
                  tripped ? "true" : "false");
    tp_json_put_string(b, why->data ? why->data : "", why->len, NULL);
    tp_buf_puts(b, ",\n\"findings\":[");
    for (size_t i = 0; i < d->nfinds; i++) {
        const tp_job_diff_finding *x = &d->finds[i];
        tp_buf_puts(b, i ? ",\n{\"id\":" : "\n{\"id\":");
        tp_json_str(b, x->rule->id);
        tp_buf_puts(b, ",\"title\":");
        tp_json_str(b, x->rule->title);
        tp_buf_printf(b, ",\"severity\":\"%s\",\"status\":\"%s\"", tp_find_severity_name(x->rule->severity),
                      tp_find_change_name(x->status));
        for (int k = 0; k < 2; k++) {
            const tp_measure *m = x->m[k];
            tp_buf_puts(b, k ? ",\"candidate\":" : ",\"base\":");
            if (!m) {
                tp_buf_puts(b, "null");
                continue;
            }
            tp_buf_printf(b, "{\"scope\":\"%s\",\"impact_ns\":%lld,\"impact_pct\":%lld.%03lld,\"impact_base\":\"%s\"}",
                          m->scope, (long long)m->impact_ns, (long long)(m->impact_milli / 1000),
                          (long long)(m->impact_milli % 1000), m->impact_base);
        }
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "],\n\"per_rank\":[");
    for (size_t p = 0; p < d->npairs; p++) {
        const tp_job_rank *x = &d->a->ranks[d->pair_a[p]], *y = &d->b->ranks[d->pair_b[p]];
        tp_buf_printf(b, "%s{\"rank\":%lld", p ? ",\n" : "\n", (long long)x->rank);
        pair_i64(b, "median_step_ns", x->median_step_ns, y->median_step_ns);
        pair_i64(b, "gpu_span_computation_ns", x->computation_ns, y->computation_ns);
        pair_i64(b, "gpu_span_exposed_communication_ns", x->exposed_communication_ns, y->exposed_communication_ns);
        pair_i64(b, "gpu_span_idle_ns", x->idle_ns, y->idle_ns);
        pair_i64(b, "waited_ns", x->waited_ns, y->waited_ns);
        pair_i64(b, "wait_caused_ns", x->wait_caused_ns, y->wait_caused_ns);
        tp_buf_printf(b, ",\"flags\":[%u,%u]}", x->flags, y->flags);
    }
    tp_buf_puts(b, "],\n\"collectives\":[");
    for (size_t i = 0; i < d->ncoll; i++) {
        const tp_job_coll *x = d->coll_a[i] == SIZE_MAX ? NULL : &d->a->colls[d->coll_a[i]];
        const tp_job_coll *y = d->coll_b[i] == SIZE_MAX ? NULL : &d->b->colls[d->coll_b[i]];
        const tp_job_coll *c = x ? x : y;
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        tp_coll_key_json(b, c->kind, c->dtype, c->group, c->ranks);
        tp_buf_printf(b, c->bytes ? ",\"bytes\":%llu" : ",\"bytes\":null", (unsigned long long)c->bytes);
        pair_i64(b, "instances", x ? (int64_t)x->instances : -1, y ? (int64_t)y->instances : -1);
        pair_i64(b, "mean_transfer_ns", mean_transfer(x), mean_transfer(y));
        pair_rate(b, "busbw_gb_per_s", x && x->factor > 0 ? x->busbw : 0, y && y->factor > 0 ? y->busbw : 0);
        pair_rate(b, "algbw_gb_per_s", x ? x->algbw : 0, y ? y->algbw : 0);
        pair_i64(b, "wait_ns", x ? x->wait_ns : -1, y ? y->wait_ns : -1);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]}\n");
}

/* ---- Markdown ---- */

static const char *ms(char *buf, size_t n, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%lld.%03lld", (long long)((ns + 500) / 1000 / 1000), (long long)((ns + 500) / 1000 % 1000));
    return buf;
}

static const char *change(char *buf, size_t n, int64_t x, int64_t y)
{
    if (x <= 0 || y < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.1f%%", (double)(y - x) / (double)x * 100.0 + 0.0);
    return buf;
}

/* "1. **title** (rank 1) (`straggler`, high): new, 16.000 ms, 37.7% of the steps' time" */
static void findings_md(const tp_job_diff *d, tp_buf *b)
{
    tp_buf_puts(b, "\n#### Job findings\n\n");
    if (!d->nfinds) {
        tp_buf_puts(b, "No job finding in either run.\n");
        return;
    }
    for (size_t i = 0; i < d->nfinds; i++) {
        const tp_job_diff_finding *x = &d->finds[i];
        const tp_measure *m = x->m[1] ? x->m[1] : x->m[0];
        char dur[2][48], p[2][32];
        for (int k = 0; k < 2; k++) {
            tp_fmt_dur(dur[k], sizeof dur[k], x->m[k] ? x->m[k]->impact_ns : 0);
            tp_find_pct(p[k], sizeof p[k], x->m[k] ? x->m[k]->impact_milli : 0);
        }
        tp_buf_printf(b, "%zu. **", i + 1); /* as summary.md's ranked findings */
        tp_md_text(b, x->rule->title, 200);
        tp_buf_puts(b, "**");
        if (strncmp(m->scope, "rank ", 5) == 0)
            tp_buf_printf(b, " (%s)", m->scope);
        if (x->m[0] && x->m[1] && strcmp(x->m[0]->scope, x->m[1]->scope) != 0)
            tp_buf_printf(b, " (in the base: %s)", x->m[0]->scope); /* another rank straggles: not the same finding grown */
        tp_buf_printf(b, " (`%s`, %s): %s, ", x->rule->id, tp_find_severity_name(x->rule->severity),
                      tp_find_change_name(x->status));
        if (x->status == TP_FIND_NEW)
            tp_buf_printf(b, "%s, %s of %s", dur[1], p[1], m->impact_base);
        else if (x->status == TP_FIND_GONE)
            tp_buf_printf(b, "was %s, %s of %s", dur[0], p[0], m->impact_base);
        else
            tp_buf_printf(b, "%s → %s, %s → %s of %s", dur[0], dur[1], p[0], p[1], m->impact_base);
        tp_buf_puts(b, "\n");
    }
}

void tp_job_diff_md(const tp_job_diff *d, const tp_buf *why, bool tripped, tp_buf *b)
{
    char t[12][48];
    tp_buf_printf(b, "### Job diff: %s\n\n", d->verdict);
    tp_buf_printf(b, "Median step %s ms → %s ms (%s; noise %s ms). %zu rank%s matched", ms(t[0], 48, d->head[0]),
                  ms(t[1], 48, d->head[1]), change(t[2], 48, d->head[0], d->head[1]), ms(t[3], 48, d->noise_ns),
                  d->npairs, d->npairs == 1 ? "" : "s");
    if (d->only_a || d->only_b)
        tp_buf_printf(b, "; %zu only in the base, %zu only in the candidate", d->only_a, d->only_b);
    tp_buf_puts(b, ".\n");
    if (tripped) {
        tp_buf_puts(b, "\n**Gate tripped**: ");
        tp_md_text(b, why->data ? why->data : "", why->len);
        tp_buf_puts(b, "\n");
    }
    findings_md(d, b);
    tp_buf_puts(b, "\n#### Per rank\n\nColumns headed \"trace\": over the rank's whole trace (its GPU span); the median step is one step.\n\n"
                   "| rank | median step (ms) | change | GPU computation, trace (ms) | exposed comm, trace (ms) | "
                   "GPU idle, trace (ms) | made others wait, trace (ms) | flags |\n|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t p = 0; p < d->npairs; p++) {
        const tp_job_rank *x = &d->a->ranks[d->pair_a[p]], *y = &d->b->ranks[d->pair_b[p]];
        char fa[48], fb[48];
        tp_job_flags_text(x->flags, fa, sizeof fa);
        tp_job_flags_text(y->flags, fb, sizeof fb);
        tp_buf_printf(b, "| %lld | %s → %s | %s | %s → %s | %s → %s | %s → %s | %s → %s | %s → %s |\n",
                      (long long)x->rank, ms(t[0], 48, x->median_step_ns), ms(t[1], 48, y->median_step_ns),
                      change(t[2], 48, x->median_step_ns, y->median_step_ns), ms(t[3], 48, x->computation_ns),
                      ms(t[4], 48, y->computation_ns), ms(t[5], 48, x->exposed_communication_ns),
                      ms(t[6], 48, y->exposed_communication_ns), ms(t[7], 48, x->idle_ns), ms(t[8], 48, y->idle_ns),
                      ms(t[9], 48, x->wait_caused_ns), ms(t[10], 48, y->wait_caused_ns), fa[0] ? fa : "-",
                      fb[0] ? fb : "-");
    }
    if (!d->ncoll)
        return;
    tp_buf_puts(b, "\n#### Collectives\n\n| kind | bytes | group | instances | mean transfer (ms) | busbw (GB/s) | "
                   "waiting (ms) |\n|---|---:|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < d->ncoll && i < 30; i++) {
        const tp_job_coll *x = d->coll_a[i] == SIZE_MAX ? NULL : &d->a->colls[d->coll_a[i]];
        const tp_job_coll *y = d->coll_b[i] == SIZE_MAX ? NULL : &d->b->colls[d->coll_b[i]];
        const tp_job_coll *c = x ? x : y;
        tp_buf_puts(b, "| ");
        tp_md_text(b, c->kind, 40);
        tp_buf_printf(b, " | %llu | ", (unsigned long long)c->bytes);
        tp_md_text(b, c->group[0] ? c->group : "?", 40);
        char ba[32] = "-", bb[32] = "-";
        if (x && x->factor > 0 && x->busbw > 0)
            snprintf(ba, sizeof ba, "%.3f", x->busbw);
        if (y && y->factor > 0 && y->busbw > 0)
            snprintf(bb, sizeof bb, "%.3f", y->busbw);
        char ia[24] = "-", ib[24] = "-";
        if (x)
            snprintf(ia, sizeof ia, "%llu", (unsigned long long)x->instances);
        if (y)
            snprintf(ib, sizeof ib, "%llu", (unsigned long long)y->instances);
        tp_buf_printf(b, " | %s → %s | %s → %s | %s → %s | %s → %s |\n", ia, ib, ms(t[0], 48, mean_transfer(x)),
                      ms(t[1], 48, mean_transfer(y)), ba, bb, ms(t[2], 48, x ? x->wait_ns : -1),
                      ms(t[3], 48, y ? y->wait_ns : -1));
    }
    if (d->ncoll > 30)
        tp_buf_printf(b, "\n%zu more rows in diff.json.\n", d->ncoll - 30);
}
