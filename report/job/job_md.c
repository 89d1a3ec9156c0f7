/* job_md.c: the job report's summary.md (job_out.h). */
#include "report/job/job_out.h"
#include "convert/model/clock_align.h"
#include "report/out/find_out.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD_RANKS 32   /* rank rows shown; the rest are in summary.json */
#define MD_ROWS 20    /* straggler and collective rows shown */

/* "1,234.567" ms with three decimals, from ns (exact to the microsecond) */
static const char *ms(char *buf, size_t n, int64_t ns)
{
    if (ns < 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    tp_fmt_dur_in(buf, n, ns, 2); /* units.h: thousands separators, rounded half up */
    return buf;
}

/* Which ranks to show when there are many: flagged first, then by wait
 * caused, then by rank.  (qsort has no user pointer: set around the call.) */
static const tp_job *g_job;
static int cmp_interest(const void *pa, const void *pb)
{
    const tp_job *j = g_job;
    const tp_job_rank *a = &j->ranks[*(const size_t *)pa], *b = &j->ranks[*(const size_t *)pb];
    if ((a->flags != 0) != (b->flags != 0))
        return a->flags ? -1 : 1;
    if (a->wait_caused_ns != b->wait_caused_ns)
        return a->wait_caused_ns > b->wait_caused_ns ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}
static int cmp_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void lead(const tp_job *j, tp_buf *b)
{
    char t1[32], t2[32], t3[32];
    tp_buf_printf(b, "### Job: %zu rank%s", j->nranks, j->nranks == 1 ? "" : "s");
    if (j->world_size > 0)
        tp_buf_printf(b, " of %lld", (long long)j->world_size);
    tp_buf_printf(b, ", %zu step%s\n\n", j->nsteps, j->nsteps == 1 ? "" : "s");
    const tp_job_spread *st = &j->spread[0];
    if (j->median_step_ns >= 0)
        tp_buf_printf(b, "**Median step %s ms** (ranks' median steps %s to %s ms).\n\n", ms(t1, sizeof t1, j->median_step_ns),
                      ms(t2, sizeof t2, st->min), ms(t3, sizeof t3, st->max));
    else
        tp_buf_puts(b, "No steps (ProfilerStep#N) recorded: figures are over each rank's GPU span.\n\n");
    /* the rank that made the others wait in the most steps */
    int64_t best_wait = 0;
    size_t best_steps = 0, flagged_steps = 0;
    int64_t best = tp_job_top_straggler(j, &best_steps, &best_wait);
    for (size_t k = 0; k < j->nsteps; k++)
        flagged_steps += j->steps[k].straggler >= 0;
    if (best >= 0)
        tp_buf_printf(b, "**Straggler: rank %lld**, last to arrive in %zu of %zu step%s (the others waited %s ms for it in all).\n",
                      (long long)best, best_steps, j->nsteps, j->nsteps == 1 ? "" : "s", ms(t1, sizeof t1, best_wait));
    else if (j->nstragglers) {
        /* no late arrival beyond the threshold: name the rank flagged in the most steps */
        size_t most = 0, at = 0;
        for (size_t r = 0; r < j->nranks; r++) {
            size_t k = 0;
            for (size_t i = 0; i < j->nstragglers; i++)
                k += j->stragglers[i].rank == j->ranks[r].rank;
            if (k > most) {
                most = k;
                at = r;
            }
        }
        char fl[48];
        tp_job_flags_text(j->ranks[at].flags, fl, sizeof fl);
        tp_buf_printf(b, "**Slowest: rank %lld**, flagged (%s) in %zu of %zu step%s; no rank arrived late at collectives "
                         "by more than the threshold (%zu flagged (rank, step) pairs in all, below).\n",
                      (long long)j->ranks[at].rank, fl, most, j->nsteps, j->nsteps == 1 ? "" : "s", j->nstragglers);
    }
    else
        tp_buf_puts(b, "No straggler: every rank's step and computation are within the noise of the step's median.\n");
    char miss[400];
    if (tp_job_missing_ranks(j, miss, sizeof miss)) { /* 2 of 128 ranks: every straggler and bandwidth figure is partial */
        tp_buf_puts(b, "\n**Caveat**: ");
        tp_md_text(b, miss, sizeof miss);
        tp_buf_puts(b, ".\n");
    }
    (void)flagged_steps;
    /* clocks */
    size_t aligned = 0, recorded = 0;
    int64_t far = 0;
    for (size_t r = 1; r < j->nranks; r++) {
        aligned += j->ranks[r].align_method == TP_ALIGN_COLLECTIVES;
        recorded += j->ranks[r].align_method == TP_ALIGN_RECORDED;
        if (llabs(j->ranks[r].offset_ns) > llabs(far))
            far = j->ranks[r].offset_ns;
    }
    if (j->nranks > 1) {
        /* offsets are bounded (clock_align.h): no overflow; in the unit that fits ("-42.719 ms", not
         * "-42719.000 us") */
        tp_fmt_dur(t1, sizeof t1, llabs(far));
        tp_buf_printf(b, "\nClocks: %zu of %zu rank%s aligned on collective ends to rank %lld (largest offset %s%s)",
                      aligned, j->nranks - 1, j->nranks == 2 ? "" : "s", (long long)j->ranks[0].rank,
                      far < 0 ? "-" : far > 0 ? "+" : "", t1);
        if (recorded)
            tp_buf_printf(b, "; %zu kept as recorded (no collective in common)", recorded);
        tp_buf_puts(b, ".\n");
    }
}

static void ranks_table(const tp_job *j, tp_buf *b)
{
    char t[9][32];
    size_t n = j->nranks < MD_RANKS ? j->nranks : MD_RANKS;
    size_t *idx = tp_xmalloc((j->nranks + 1) * sizeof *idx);
    for (size_t r = 0; r < j->nranks; r++)
        idx[r] = r;
    if (j->nranks > MD_RANKS) {
        g_job = j;
        qsort(idx, j->nranks, sizeof *idx, cmp_interest);
        g_job = NULL;
        qsort(idx, n, sizeof *idx, cmp_index);
    }
    tp_buf_printf(b, "\n#### Ranks\n\n");
    if (j->nranks > MD_RANKS)
        tp_buf_printf(b, "The %zu ranks that are flagged or made others wait longest; all %zu are in summary.json.\n\n",
                      n, j->nranks);
    /* one base per table (issue 36 items 3 and 9): the median step is one step; the GPU split is over the rank's
     * whole trace (its GPU span: all its steps and what lies between).  Two tables, not one of ten columns: each
     * fits a comment column (~700 px at GitHub's font; the one table was ~1,550 px) */
    tp_buf_puts(b, "| rank | median step (ms) | flags | its top finding |\n|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const tp_job_rank *x = &j->ranks[idx[i]];
        char fl[48];
        tp_job_flags_text(x->flags, fl, sizeof fl);
        tp_buf_printf(b, "| %lld | %s | %s | ", (long long)x->rank, ms(t[0], 32, x->median_step_ns), fl[0] ? fl : "-");
        if (x->sum.top.present) { /* from a rank summary: its id is any read string: a code span fenced
                                   * past any backtick run in it (fuzz_job: backslashes do not escape there) */
            tp_md_code(b, x->sum.top.id, 40);
            tp_find_pct(t[8], 32, x->sum.top.impact_milli);
            tp_buf_printf(b, " %s |\n", t[8]);
        } else
            tp_buf_puts(b, "none |\n");
    }
    tp_buf_printf(b, "\nOver each rank's whole trace (its GPU span, %zu step%s), in ms; overlapped: the share of its "
                     "communication that overlapped computation:\n\n", j->nsteps, j->nsteps == 1 ? "" : "s");
    tp_buf_puts(b, "| rank | computation | exposed comm | GPU idle | overlapped | waited | made others wait |\n"
                   "|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const tp_job_rank *x = &j->ranks[idx[i]];
        if (x->overlap_milli_pct >= 0)
            snprintf(t[5], sizeof t[5], "%lld.%01lld%%", (long long)(x->overlap_milli_pct / 1000),
                     (long long)(x->overlap_milli_pct % 1000 / 100));
        else
            snprintf(t[5], sizeof t[5], "-");
        tp_buf_printf(b, "| %lld | %s | %s | %s | %s | %s | %s |\n", (long long)x->rank, ms(t[1], 32, x->computation_ns),
                      ms(t[2], 32, x->exposed_communication_ns), ms(t[3], 32, x->idle_ns), t[5],
                      ms(t[6], 32, x->waited_ns), ms(t[7], 32, x->wait_caused_ns));
    }
    free(idx);
    tp_buf_puts(b, "\n| figure (per rank) | min (ms) | rank | median (ms) | max (ms) | rank |\n|---|---:|---:|---:|---:|---:|\n");
    static const char *labels[TP_JOB_SPREADS] = {"median step", "GPU computation, trace", "GPU communication, trace",
                                                 "exposed communication, trace", "GPU idle, trace",
                                                 "made others wait, trace"};
    for (int f = 0; f < TP_JOB_SPREADS; f++) {
        const tp_job_spread *sp = &j->spread[f];
        if (!sp->ranks)
            continue;
        tp_buf_printf(b, "| %s | %s | %lld | %s | %s | %lld |\n", labels[f], ms(t[0], 32, sp->min),
                      (long long)sp->min_rank, ms(t[1], 32, sp->median), ms(t[2], 32, sp->max),
                      (long long)sp->max_rank);
    }
}

static void stragglers_table(const tp_job *j, tp_buf *b)
{
    if (!j->nstragglers)
        return;
    char t[6][32], fl[48];
    tp_buf_printf(b, "\n#### Stragglers\n\nA (rank, step) is flagged when its computation or step time exceeds the "
                     "step's median by more than the noise, or when it arrived last at collectives and was late (the "
                     "others' mean wait there) by more than the step's wait threshold "
                     "(docs/REPORT.md \"Stragglers\"). Times in ms, the step's median over the ranks in brackets; "
                     "last: the step's collectives it arrived last at.\n\n"
                     "| step | rank | why | computation | step time | others waited | last |\n"
                     "|---:|---:|---|---:|---:|---:|---:|\n");
    /* the most costly first */
    size_t n = j->nstragglers, shown = n < MD_ROWS ? n : MD_ROWS;
    const tp_job_straggler **v = tp_xmalloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = &j->stragglers[i];
    for (size_t i = 0; i < shown; i++) { /* selection of the top rows, stable */
        size_t m = i;
        for (size_t k = i + 1; k < n; k++) {
            int64_t xa = v[k]->wait_caused_ns + (v[k]->computation_ns - v[k]->median_computation_ns);
            int64_t xb = v[m]->wait_caused_ns + (v[m]->computation_ns - v[m]->median_computation_ns);
            if (xa > xb)
                m = k;
        }
        const tp_job_straggler *s = v[m];
        memmove(v + i + 1, v + i, (m - i) * sizeof *v);
        v[i] = s;
        tp_job_flags_text(s->flags, fl, sizeof fl);
        tp_buf_printf(b, "| %lld | %lld | %s | %s (%s) | %s (%s) | %s | %u of %u |\n", (long long)s->step,
                      (long long)s->rank, fl, ms(t[0], 32, s->computation_ns), ms(t[1], 32, s->median_computation_ns),
                      ms(t[2], 32, s->step_ns), ms(t[3], 32, s->median_step_ns), ms(t[4], 32, s->wait_caused_ns),
                      s->last_arrivals, s->instances);
    }
    if (n > shown)
        tp_buf_printf(b, "\n%zu more in summary.json (`job.stragglers`).\n", n - shown);
    free(v);
}

static void colls_table(const tp_job *j, tp_buf *b)
{
    if (!j->ncolls)
        return;
    char t[6][32];
    tp_buf_printf(b, "\n#### Collectives across ranks\n\n%llu instances matched across ranks (%llu calls seen on one "
                     "rank only). Transfer time: the last rank's kernel (it waited for no one); bandwidths as "
                     "nccl-tests defines them over it. Two tables, rows numbered alike: what each collective moved, "
                     "then how fast.\n\n"
                     "| # | kind | size | dtype | group | instances |\n|---:|---|---:|---|---|---:|\n",
                  (unsigned long long)j->instances, (unsigned long long)j->unmatched_calls);
    size_t shown = j->ncolls < MD_ROWS ? j->ncolls : MD_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const tp_job_coll *c = &j->colls[i];
        tp_buf_printf(b, "| %zu | ", i + 1);
        tp_md_text(b, c->kind, 40);
        tp_fmt_bytes(t[0], 32, c->bytes);
        tp_buf_printf(b, " | %s | ", t[0]);
        tp_md_text(b, c->dtype[0] ? c->dtype : "?", 24);
        tp_buf_puts(b, " | ");
        if (c->group[0] || !c->group_implied)
            tp_md_text(b, c->group[0] ? c->group : "?", 24);
        if (c->ranks[0]) {
            tp_buf_puts(b, " ");
            tp_md_text(b, c->ranks, 40);
        }
        if (c->group_implied) /* no group size recorded; busbw over the world, every rank of which took part */
            tp_buf_printf(b, "%sall %lld ranks (implied)", c->group[0] ? " " : "", (long long)c->group_size);
        tp_buf_printf(b, " | %llu |\n", (unsigned long long)c->instances);
    }
    tp_buf_puts(b, "\n| # | transfer (ms) | algbw (GB/s) | busbw (GB/s) | waiting (ms) | slowest rank |\n"
                   "|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < shown; i++) {
        const tp_job_coll *c = &j->colls[i];
        if (c->algbw > 0)
            snprintf(t[2], 32, "%.3f", c->algbw);
        else
            snprintf(t[2], 32, "-");
        if (c->algbw > 0 && c->factor > 0)
            snprintf(t[3], 32, "%.3f", c->busbw);
        else
            snprintf(t[3], 32, "-");
        if (c->slowest_rank >= 0)
            snprintf(t[4], 32, "%lld (%llu x)", (long long)c->slowest_rank, (unsigned long long)c->slowest_count);
        else
            snprintf(t[4], 32, "-");
        tp_buf_printf(b, "| %zu | %s | %s | %s | %s | %s |\n", i + 1, ms(t[1], 32, c->transfer_ns), t[2], t[3],
                      ms(t[5], 32, c->wait_ns), t[4]);
    }
    if (j->ncolls > shown)
        tp_buf_printf(b, "\n%zu more rows in summary.json (`job.collectives`).\n", j->ncolls - shown);
}

void tp_job_md(const tp_job *j, const char *const *pngs, tp_buf *b)
{
    tp_findings_md(&j->findings, b); /* the verdict first: its first line is the top job finding's */
    lead(j, b);
    tp_job_mem_md(j, b);
    ranks_table(j, b);
    stragglers_table(j, b);
    colls_table(j, b);
    if (pngs && pngs[0]) {
        tp_buf_puts(b, "\nCharts (in the report folder): ");
        for (size_t i = 0; pngs[i]; i++) {
            tp_buf_puts(b, i ? ", `" : "`");
            tp_buf_puts(b, pngs[i]);
            tp_buf_puts(b, "`");
        }
        tp_buf_puts(b, ".\n");
    }
}
