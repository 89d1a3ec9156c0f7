/* job_pages.c: the job report's PDF pages and PNG charts (job_pages.h). */
#include "report/job/job_pages.h"
#include "report/pages/pages.h"
#include "report/assemble/report_write.h"
#include "convert/model/clock_align.h"
#include "convert/model/dist_info.h"
#include "render/text/units.h"
#include "render/charts/axis.h"
#include "render/charts/chart_heatmap.h"
#include "render/charts/chart_hstack.h"
#include "render/charts/chart_table.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS 9.0            /* the overview's text */
#define TABLE_FS 7.5
#define PNG_W 800.0       /* points; 2 px per point by default, so GitHub shows it at half size */
#define PNG_HEAT_H 560.0
#define PNG_MAX_H 1400.0
#define PNG_FONT 12.0     /* 12 px where GitHub halves the image */
#define PNG_PAD 16.0
#define MIN_ROW 9.0       /* the split chart's rows on the overview, else it gets its own page */

/* The GPU time split's parts in the colours of the report's "Where the GPU
 * time goes" page (page_gpu_time.c: palette slots 16-18, idle white). */
enum { P_COMP, P_XCOMM, P_XMEMCPY, P_IDLE, NPARTS };
static const char *const part_names[NPARTS] = {"computation", "exposed communication", "exposed memcpy", "idle"};

static tp_color part_color(int p) { return tp_split_color(p); } /* P_* = TP_SPLIT_* */

static void dur(char *b, size_t n, int64_t ns) { tp_fmt_dur(b, n, ns); }

/* a signed change with its share of the base: "+1.2 ms, +15.0%" */
static void excess(char *b, size_t n, int64_t v, int64_t med)
{
    char d[40];
    dur(d, sizeof d, v - med);
    if (med > 0)
        snprintf(b, n, "%s%s, %+.1f%%", v >= med ? "+" : "", d, (double)(v - med) * 100.0 / (double)med + 0.0);
    else
        snprintf(b, n, "%s%s", v >= med ? "+" : "", d);
}

/* as summary.md's collectives table (report/out/coll_out.c) */
static bool has_gpu(const tp_job *j)
{
    for (size_t r = 0; r < j->nranks; r++)
        if (j->ranks[r].sum.whole.span_ns > 0)
            return true;
    return false;
}

static bool has_heatmap(const tp_job *j) { return j->nsteps > 0 && j->nranks >= 2; }

/* A paragraph wrapped to w (at most 4 lines); returns the y below it. */
static double para(tp_canvas *cv, double x, double y, double w, tp_font f, double fs, tp_color c, const char *s)
{
    char **lines;
    size_t n = tp_wrap(f, fs, s, w, 4, &lines);
    for (size_t i = 0; i < n; i++)
        y = tp_page_line(cv, x, y, f, fs, c, lines[i]);
    tp_wrap_free(lines, n);
    return y + 2;
}

/* A table on one page region at its natural height; returns the y below it. */
static double table_at(tp_canvas *cv, const tp_table *t, double x, double y, double w)
{
    tp_table_layout *L = tp_table_layout_new(t, w, 1e6);
    double h = tp_table_page_height(t, L, 0);
    tp_table_draw_page(cv, t, L, 0, (tp_rect){x, y, w, h});
    tp_table_layout_free(L);
    return y + h;
}

/* ---- the GPU time split per rank ---- */

typedef struct bars {
    tp_hstack c;
    size_t *pick;
    const char **labels, **notes;
    int64_t *vals;
    tp_strs st;
    tp_color colors[NPARTS];
    const char *names[NPARTS];
    char title[200];
} bars;

static int64_t rank_part(const tp_job_rank *x, int p)
{
    const tp_gpu_figs *g = &x->sum.whole;
    return p == P_COMP ? g->computation_ns : p == P_XCOMM ? g->exposed_communication_ns
                                           : p == P_XMEMCPY ? g->exposed_memcpy_ns : g->idle_ns;
}

static int64_t lost(const tp_job_rank *x) { return rank_part(x, P_XCOMM) + rank_part(x, P_IDLE); }

static void bars_build(const tp_job *j, bars *b, double fs)
{
    memset(b, 0, sizeof *b);
    size_t n = j->nranks;
    b->pick = tp_xcalloc(n + 1, sizeof *b->pick);
    for (size_t i = 0; i < n; i++)
        b->pick[i] = i;
    if (n > TP_JOB_BARS_ALL) { /* the most idle + exposed communication, then back in rank order */
        for (size_t i = 1; i < n; i++)
            for (size_t k = i; k > 0 && lost(&j->ranks[b->pick[k]]) > lost(&j->ranks[b->pick[k - 1]]); k--) {
                size_t t = b->pick[k];
                b->pick[k] = b->pick[k - 1];
                b->pick[k - 1] = t;
            }
        n = TP_JOB_BARS_TOP;
        for (size_t i = 1; i < n; i++)
            for (size_t k = i; k > 0 && b->pick[k] < b->pick[k - 1]; k--) {
                size_t t = b->pick[k];
                b->pick[k] = b->pick[k - 1];
                b->pick[k - 1] = t;
            }
        snprintf(b->title, sizeof b->title,
                 "GPU time split per rank: the %zu of %zu ranks with the most idle + exposed communication", n,
                 j->nranks);
    } else
        snprintf(b->title, sizeof b->title, "GPU time split per rank (the whole trace)");
    /* the parts some rank has (exposed memcpy is often none) */
    int parts[NPARTS], np = 0;
    for (int p = 0; p < NPARTS; p++) {
        bool any = p != P_XMEMCPY;
        for (size_t i = 0; i < j->nranks && !any; i++)
            any = rank_part(&j->ranks[i], p) > 0;
        if (any) {
            b->colors[np] = part_color(p);
            b->names[np] = part_names[p];
            parts[np++] = p;
        }
    }
    b->labels = tp_xcalloc(n + 1, sizeof *b->labels);
    b->notes = tp_xcalloc(n + 1, sizeof *b->notes);
    b->vals = tp_xcalloc(n * NPARTS + 1, sizeof *b->vals);
    for (size_t i = 0; i < n; i++) {
        const tp_job_rank *x = &j->ranks[b->pick[i]];
        b->labels[i] = tp_strs_add(&b->st, "rank %lld", (long long)x->rank);
        for (int p = 0; p < np; p++)
            b->vals[i * (size_t)np + (size_t)p] = rank_part(x, parts[p]);
        char xc[32], id[32];
        tp_fmt_pct(xc, sizeof xc, rank_part(x, P_XCOMM), x->sum.whole.span_ns);
        tp_fmt_pct(id, sizeof id, rank_part(x, P_IDLE), x->sum.whole.span_ns);
        b->notes[i] = tp_strs_add(&b->st, "exposed comm %s, idle %s", xc, id);
    }
    b->c = (tp_hstack){b->title, "GPU time (each rank's GPU span, split)", n, (size_t)np, b->labels, b->vals,
                       b->colors, b->names, b->notes, fs};
}

static void bars_free(bars *b)
{
    free(b->pick);
    free(b->labels);
    free(b->notes);
    free(b->vals);
    tp_strs_free(&b->st);
}

/* ---- the collectives' time on all ranks: transferring vs waiting ---- */

#define COLL_BARS 16
#define WAIT_COLOR 0xD55E00 /* vermillion (Okabe-Ito): the waiting a late rank caused */

typedef struct cbars {
    tp_hstack c;
    const char **labels, **notes;
    int64_t *vals;
    tp_strs st;
    tp_color colors[2];
    char title[200];
} cbars;

static void cbars_build(const tp_job *j, cbars *b, double fs)
{
    static const char *const names[2] = {"transferring (every rank's share of the transfer time)",
                                         "waiting for the last rank"};
    memset(b, 0, sizeof *b);
    size_t n = j->ncolls < COLL_BARS ? j->ncolls : COLL_BARS; /* rows come by waiting, then transfer time */
    b->labels = tp_xcalloc(n + 1, sizeof *b->labels);
    b->notes = tp_xcalloc(n + 1, sizeof *b->notes);
    b->vals = tp_xcalloc(2 * n + 1, sizeof *b->vals);
    for (size_t i = 0; i < n; i++) {
        const tp_job_coll *c = &j->colls[i];
        char sz[40];
        tp_fmt_bytes(sz, sizeof sz, c->bytes);
        b->labels[i] = tp_strs_add(&b->st, "%.24s %s%s%.16s", c->kind, sz, *c->group ? " pg " : "", c->group);
        b->vals[2 * i] = c->rank_ns - c->wait_ns;
        b->vals[2 * i + 1] = c->wait_ns;
        char wt[32];
        tp_fmt_pct(wt, sizeof wt, c->wait_ns, c->rank_ns);
        bool bus = c->busbw > 0 && c->factor > 0;
        double bw = bus ? c->busbw : c->algbw;
        if (bw >= 0.05)
            b->notes[i] = tp_strs_add(&b->st, "waiting %s, %s %.1f GB/s", wt, bus ? "busbw" : "algbw", bw);
        else if (bw > 0)
            b->notes[i] = tp_strs_add(&b->st, "waiting %s, %s < 0.1 GB/s", wt, bus ? "busbw" : "algbw");
        else
            b->notes[i] = tp_strs_add(&b->st, "waiting %s", wt);
    }
    b->colors[0] = part_color(P_XCOMM);
    b->colors[1] = WAIT_COLOR;
    snprintf(b->title, sizeof b->title, "Time in collectives, all ranks together: transferring vs waiting%s",
             j->ncolls > n ? " (the rows with the most waiting)" : "");
    b->c = (tp_hstack){b->title, "time in the collective's kernels, summed over the ranks", n, 2, b->labels,
                       b->vals, b->colors, names, b->notes, fs};
}

static void cbars_free(cbars *b)
{
    free(b->labels);
    free(b->notes);
    free(b->vals);
    tp_strs_free(&b->st);
}

static void cbars_page(tp_canvas *cv, const tp_job *j, double w, double h)
{
    cbars b;
    cbars_build(j, &b, 0);
    double m = TP_PAGE_MARGIN, ch = fmin(h - 2 * m, tp_hstack_height(&b.c, w - 2 * m));
    tp_cv_begin_page(cv, w, h, "Collectives: transferring vs waiting");
    tp_hstack_draw(cv, &b.c, (tp_rect){m, m, w - 2 * m, ch});
    tp_cv_end_page(cv);
    cbars_free(&b);
}

/* The chart's note when ranks were left out. */
static double bars_note(tp_canvas *cv, const tp_job *j, double x, double y, double w, double fs)
{
    if (j->nranks <= TP_JOB_BARS_ALL)
        return y;
    char s[200];
    snprintf(s, sizeof s, "%zu more ranks are in summary.json (job.ranks).", j->nranks - TP_JOB_BARS_TOP);
    return para(cv, x, y + 2, w, TP_FONT_REGULAR, fs, TP_COLOR_MUTED, s);
}

/* ---- the rank x step heatmap ---- */

typedef struct heat_panel {
    const tp_job *j;
    bool comp; /* computation, else step time */
} heat_panel;

typedef struct heat {
    tp_heatmap h[2]; /* computation, step time */
    int n;
    heat_panel panel[2];
    const char **rl, **cl;
    tp_strs st;
} heat;

static double deviation(int64_t v, int64_t med)
{
    if (med > 0)
        return (double)(v - med) / (double)med;
    return v > 0 ? 1.0 : 0.0;
}

/* The chart's range over the cells that exist (tp_heatmap.range): per rank
 * the cells of steps [c0, c1), rows in order and each row by step, so ties
 * of |v| go to the first as over a full grid.  O(ranks x log + cells). */
static double heat_range(const void *ctx, size_t r0, size_t r1, size_t c0, size_t c1, uint32_t *marks, bool *missing)
{
    const heat_panel *P = ctx;
    const tp_job *j = P->j;
    double best = NAN;
    size_t seen = 0;
    *marks = 0;
    for (size_t r = r0; r < r1; r++) {
        size_t lo = j->rank_cells[r], hi = j->rank_cells[r + 1];
        while (lo < hi) { /* the rank's first cell of a step >= c0 */
            size_t mid = lo + (hi - lo) / 2;
            if (j->cells[mid].step < c0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i < j->rank_cells[r + 1] && j->cells[i].step < c1; i++) {
            const tp_job_cell *c = &j->cells[i];
            const tp_job_step *st = &j->steps[c->step];
            double v = P->comp ? deviation(c->computation_ns, st->median_computation_ns)
                               : deviation(c->step_ns, st->median_step_ns);
            if (!isnan(v) && (isnan(best) || fabs(v) > fabs(best)))
                best = v;
            *marks |= c->flags; /* TP_JOB_FLAG_* bits 0, 1, 2: "CSA" */
            seen++;
        }
    }
    *missing = seen < (r1 - r0) * (c1 - c0);
    return best;
}

static void heat_build(const tp_job *j, heat *H, double fs)
{
    memset(H, 0, sizeof *H);
    size_t R = j->nranks, S = j->nsteps;
    bool comp = false;
    for (size_t i = 0; i < j->ncells; i++)
        comp = comp || j->cells[i].computation_ns > 0;
    H->rl = tp_xcalloc(R + 1, sizeof *H->rl);
    H->cl = tp_xcalloc(S + 1, sizeof *H->cl);
    for (size_t r = 0; r < R; r++)
        H->rl[r] = tp_strs_add(&H->st, "%lld", (long long)j->ranks[r].rank);
    for (size_t k = 0; k < S; k++)
        H->cl[k] = tp_strs_add(&H->st, "%lld", (long long)j->steps[k].number);
    H->n = comp ? 2 : 1;
    for (int p = 0; p < H->n; p++) {
        bool is_comp = comp && p == 0;
        H->panel[p] = (heat_panel){j, is_comp};
        H->h[p] = (tp_heatmap){
            is_comp ? "GPU computation per rank and step" : "Step time per rank and step",
            is_comp ? "computation vs the step's median:" : "step time vs the step's median:",
            "rank",
            "step",
            "ranks",
            "steps",
            R,
            S,
            H->rl,
            H->cl,
            NULL,
            NULL,
            "CSA",
            "flagged: C computation, S step time, A late arrival",
            0,
            fs,
            heat_range,
            &H->panel[p],
        };
    }
}

static void heat_free(heat *H)
{
    free(H->rl);
    free(H->cl);
    tp_strs_free(&H->st);
}

/* Both panels (computation, step time) in r: one above the other when
 * each still gets rows of 1.4 x the text with no aggregation, else side by
 * side; a line above says how to read them. */
static void heat_draw(tp_canvas *cv, const tp_job *j, tp_rect r, double fs)
{
    heat H;
    heat_build(j, &H, fs);
    double f = fs > 0 ? fs : 7.5;
    double y = para(cv, r.x, r.y, r.w, TP_FONT_REGULAR, f, TP_COLOR_TEXT,
                    "Each cell is one rank in one step against the median of the ranks in that step: white at the "
                    "median, vermillion above, blue below; flagged cells are outlined, with letters saying why.");
    r.h -= y + f * 0.6 - r.y;
    r.y = y + f * 0.6;
    double gap = f * 5, hh = (r.h - gap) / 2;
    tp_heatmap_fit fit = tp_heatmap_measure(&H.h[0], (tp_rect){r.x, r.y, r.w, hh});
    bool stacked = H.n == 2 && fit.row_group == 1 && fit.col_group == 1 && fit.cell_h >= f * 1.4;
    for (int p = 0; p < H.n; p++) {
        tp_rect pr = H.n == 1 ? r
                     : stacked ? (tp_rect){r.x, r.y + (hh + gap) * p, r.w, hh}
                               : (tp_rect){r.x + ((r.w - gap) / 2 + gap) * p, r.y, (r.w - gap) / 2, r.h};
        tp_heatmap_draw(cv, &H.h[p], pr);
    }
    heat_free(&H);
}

/* ---- the overview ---- */

static void ranks_text(const tp_job *j, char *b, size_t n)
{
    size_t from[3] = {0};
    bool contiguous = true;
    for (size_t r = 0; r < j->nranks; r++) {
        int f = j->ranks[r].rank_from;
        from[f >= 0 && f < 3 ? f : 2]++;
        contiguous = contiguous && (r == 0 || j->ranks[r].rank == j->ranks[r - 1].rank + 1);
    }
    int k = 0;
    if (j->nranks == 1)
        k = snprintf(b, n, "Rank %lld", (long long)j->ranks[0].rank);
    else if (contiguous)
        k = snprintf(b, n, "Ranks %lld to %lld", (long long)j->ranks[0].rank, (long long)j->ranks[j->nranks - 1].rank);
    else
        k = snprintf(b, n, "%zu ranks from %lld to %lld (not all in between)", j->nranks, (long long)j->ranks[0].rank,
                     (long long)j->ranks[j->nranks - 1].rank);
    if (j->world_size > (int64_t)j->nranks)
        k += snprintf(b + k, n - (size_t)k, " of a world of %lld", (long long)j->world_size);
    static const char *const what[3] = {"distributedInfo", "the file name", "the order given"};
    k += snprintf(b + k, n - (size_t)k, "; the rank from ");
    bool first = true;
    for (int f = 0; f < 3; f++) {
        if (!from[f])
            continue;
        if (from[f] == j->nranks)
            k += snprintf(b + k, n - (size_t)k, "%s", what[f]);
        else
            k += snprintf(b + k, n - (size_t)k, "%s%s (%zu)", first ? "" : ", ", what[f], from[f]);
        first = false;
    }
    snprintf(b + k, n - (size_t)k, ".");
}

static void steps_text(const tp_job *j, char *b, size_t n)
{
    if (!j->nsteps) {
        snprintf(b, n, "No steps (ProfilerStep#N) on any rank: the figures are over the whole trace, and there is "
                       "no rank x step heatmap nor straggler flag.");
        return;
    }
    size_t all = 0;
    for (size_t k = 0; k < j->nsteps; k++)
        all += j->steps[k].ranks == j->nranks;
    char m[40];
    dur(m, sizeof m, j->median_step_ns);
    snprintf(b, n, "%zu steps matched by number, %zu on every rank; median step time %s (the median over steps of "
                   "each step's median across ranks).", j->nsteps, all, m);
}

static void colls_text(const tp_job *j, char *b, size_t n)
{
    if (!j->ncolls) {
        snprintf(b, n, "No collective call on any rank: no clock alignment on collectives, no waiting and no "
                       "bandwidth.");
        return;
    }
    int k = snprintf(b, n, "Collectives: %" PRIu64 " instance%s matched across ranks, in %zu row%s (kind, size, group)",
                     j->instances, j->instances == 1 ? "" : "s", j->ncolls, j->ncolls == 1 ? "" : "s");
    if (j->unmatched_calls)
        k += snprintf(b + k, n - (size_t)k, "; %" PRIu64 " calls matched no other rank's", j->unmatched_calls);
    snprintf(b + k, n - (size_t)k, ".");
}

static void stragglers_text(const tp_job *j, char *b, size_t n)
{
    if (j->nranks < 2) {
        snprintf(b, n, "One rank: no other rank to compare it with, so no heatmap and no straggler.");
        return;
    }
    if (!j->nstragglers) {
        snprintf(b, n, "No straggler: every rank's step and computation are within the noise of the median, and no "
                       "rank arrived late at collectives by more than the limit (1%% of the step).");
        return;
    }
    size_t ranks = 0, steps = 0;
    for (size_t r = 0; r < j->nranks; r++)
        ranks += j->ranks[r].flags != 0;
    int64_t wait = 0, top = tp_job_top_straggler(j, &steps, &wait);
    int k = 0;
    if (top >= 0) { /* named as summary.md names it */
        char w[48];
        tp_fmt_dur(w, sizeof w, wait);
        k = snprintf(b, n, "Straggler: rank %lld, last to arrive in %zu of %zu step%s (the others waited %s for it in "
                           "all). ", (long long)top, steps, j->nsteps, j->nsteps == 1 ? "" : "s", w);
        if (k < 0 || (size_t)k >= n)
            return;
    }
    snprintf(b + k, n - (size_t)k, "Stragglers: %zu flagged (rank, step) cells on %zu rank%s (the Stragglers page).",
             j->nstragglers, ranks, ranks == 1 ? "" : "s");
}

static const char *figure_name(const char *f)
{
    static const char *const names[][2] = {{"median_step_ns", "median step time"},
                                           {"gpu_span_computation_ns", "GPU computation (whole trace)"},
                                           {"gpu_span_communication_ns", "GPU communication (whole trace)"},
                                           {"gpu_span_exposed_communication_ns", "exposed communication (whole trace)"},
                                           {"gpu_span_idle_ns", "GPU idle (whole trace)"},
                                           {"wait_caused_ns", "wait caused at collectives (whole trace)"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], f) == 0)
            return names[i][1];
    return f;
}

static double spread_table(tp_canvas *cv, const tp_job *j, double x, double y, double w)
{
    static const tp_table_col cols[] = {{"figure", 0, TP_FIT_END, 0},
                                        {"min (rank)", 1, 0, 0},
                                        {"median", 1, 0, 0},
                                        {"max (rank)", 1, 0, 0},
                                        {"max - min", 1, 0, 0},
                                        {"ranks", 1, 0, 0}};
    tp_strs st = {0};
    const char *cells[TP_JOB_SPREADS * 6];
    size_t n = 0;
    for (int f = 0; f < TP_JOB_SPREADS; f++) {
        const tp_job_spread *s = &j->spread[f];
        if (!s->ranks)
            continue;
        char a[40], b[40], c[40], d[40];
        dur(a, sizeof a, s->min);
        dur(b, sizeof b, s->median);
        dur(c, sizeof c, s->max);
        dur(d, sizeof d, s->max - s->min);
        const char **row = cells + n++ * 6;
        row[0] = figure_name(s->figure);
        row[1] = tp_strs_add(&st, "%s (%lld)", a, (long long)s->min_rank);
        row[2] = tp_strs_add(&st, "%s", b);
        row[3] = tp_strs_add(&st, "%s (%lld)", c, (long long)s->max_rank);
        row[4] = tp_strs_add(&st, "%s", d);
        row[5] = tp_strs_add(&st, "%u", (unsigned)s->ranks);
    }
    if (n) {
        tp_table t = {"Spread across ranks", 6, cols, n, cells, TABLE_FS, 1, NULL};
        y = table_at(cv, &t, x, y, w) + 8;
    }
    tp_strs_free(&st);
    return y;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static double clock_table(tp_canvas *cv, const tp_job *j, double x, double y, double w)
{
    if (j->nranks < 2)
        return y;
    size_t n = j->nranks, *o = tp_xcalloc(n + 1, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = i;
    if (n > TP_JOB_OFFSETS) { /* the largest |offset| first, ties by rank */
        for (size_t i = 1; i < n; i++)
            for (size_t k = i; k > 0 && abs64(j->ranks[o[k]].offset_ns) > abs64(j->ranks[o[k - 1]].offset_ns); k--) {
                size_t t = o[k];
                o[k] = o[k - 1];
                o[k - 1] = t;
            }
        n = TP_JOB_OFFSETS;
    }
    static const tp_table_col cols[] = {{"rank", 1, 0, 0},         {"offset", 1, 0, 0},
                                        {"method", 0, TP_FIT_END, 0}, {"matched ends", 1, 0, 0},
                                        {"spread", 1, 0, 0},       {"trace", 0, TP_FIT_MIDDLE, 0}};
    tp_strs st = {0};
    const char **cells = tp_xcalloc(n * 6 + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const tp_job_rank *r = &j->ranks[o[i]];
        char off[48], sp[48];
        /* in the unit that fits, the table's one a column (chart_table.c): "+8018.000 us" above "-26580.000 us"
         * (an 8-rank job) read as a raw number, not as the -26.580 ms it is */
        tp_fmt_dur(off, sizeof off, r->offset_ns);
        tp_fmt_dur(sp, sizeof sp, r->align_spread_ns);
        const char **row = cells + i * 6;
        row[0] = tp_strs_add(&st, "%lld", (long long)r->rank);
        row[1] = tp_strs_add(&st, "%s%s", r->offset_ns > 0 ? "+" : "", off);
        row[2] = tp_align_method_name(r->align_method);
        row[3] = r->align_method == TP_ALIGN_COLLECTIVES ? tp_strs_add(&st, "%u", (unsigned)r->align_matched) : "-";
        row[4] = r->align_method == TP_ALIGN_COLLECTIVES ? tp_strs_add(&st, "%s", sp) : "-";
        row[5] = r->sum.name ? r->sum.name : "";
    }
    char title[160];
    snprintf(title, sizeof title, "Clock alignment (offsets onto rank %lld's clock)%s", (long long)j->ranks[0].rank,
             j->nranks > n ? ": the largest" : "");
    tp_table t = {title, 6, cols, n, cells, TABLE_FS, 1, NULL};
    y = table_at(cv, &t, x, y, w);
    if (j->nranks > n) {
        char a[48], s[200];
        tp_fmt_dur(a, sizeof a, abs64(j->ranks[o[n]].offset_ns));
        snprintf(s, sizeof s, "and %zu more ranks, |offset| at most %s (all in summary.json).", j->nranks - n, a);
        y = para(cv, x, y + 2, w, TP_FONT_REGULAR, TABLE_FS, TP_COLOR_MUTED, s);
    }
    free(cells);
    free(o);
    tp_strs_free(&st);
    return y + 8;
}

static void overview(tp_canvas *cv, const tp_job *j, double pw, double ph)
{
    double m = TP_PAGE_MARGIN, w = pw - 2 * m, y = m;
    tp_cv_begin_page(cv, pw, ph, "Job overview");
    y = tp_page_line(cv, m, y, TP_FONT_BOLD, 16, TP_COLOR_TEXT, "tracepress job report");
    char s[600], md[40];
    dur(md, sizeof md, j->median_step_ns);
    int k = snprintf(s, sizeof s, "%zu rank%s", j->nranks, j->nranks == 1 ? "" : "s");
    if (j->world_size > 0)
        k += snprintf(s + k, sizeof s - (size_t)k, " (world size %lld)", (long long)j->world_size);
    k += snprintf(s + k, sizeof s - (size_t)k, ", %zu step%s", j->nsteps, j->nsteps == 1 ? "" : "s");
    if (j->median_step_ns >= 0)
        snprintf(s + k, sizeof s - (size_t)k, ", median step time %s", md);
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 11, TP_COLOR_MUTED, s);
    y += 6;
    tp_strs st = {0}; /* the job's findings first, as a trace's page 1 (docs/REPORT.md "Jobs") */
    y = tp_page_findings(cv, NULL, &j->findings, m, y, w, &st);
    tp_strs_free(&st);
    ranks_text(j, s, sizeof s);
    y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    steps_text(j, s, sizeof s);
    y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    colls_text(j, s, sizeof s);
    y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    stragglers_text(j, s, sizeof s);
    y = para(cv, m, y, w, j->nstragglers ? TP_FONT_BOLD : TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    char miss[400];
    if (tp_job_missing_ranks(j, miss, sizeof miss)) { /* said beside the figures it qualifies */
        snprintf(s, sizeof s, "Caveat: %s.", miss);
        y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    }
    uint64_t warn = 0;
    size_t wranks = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        warn += j->ranks[r].sum.warnings;
        wranks += j->ranks[r].sum.warnings > 0;
    }
    if (warn) {
        snprintf(s, sizeof s, "%" PRIu64 " warnings while reading %zu of the traces (each rank's summary).", warn,
                 wranks);
        y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, s);
    }
    bool gpu = has_gpu(j);
    if (!gpu)
        y = para(cv, m, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT,
                 "No GPU activity on any rank: no GPU time split per rank.");
    y += 8;
    if (j->nranks >= 2) { /* one rank: no spread, no clock to align */
        y = spread_table(cv, j, m, y, w);
        y = clock_table(cv, j, m, y, w);
    }
    if (!gpu) {
        tp_cv_end_page(cv);
        return;
    }
    bars b;
    bars_build(j, &b, 0);
    double room = ph - m - y - (j->nranks > TP_JOB_BARS_ALL ? 16 : 0);
    double need = tp_hstack_height(&b.c, w) - 2.4 * 7.5 * (double)b.c.n + MIN_ROW * (double)b.c.n;
    if (need > room) { /* the chart on a page of its own */
        tp_cv_end_page(cv);
        tp_cv_begin_page(cv, pw, ph, "GPU time per rank");
        y = m;
        room = ph - 2 * m - (j->nranks > TP_JOB_BARS_ALL ? 16 : 0);
    }
    double h = fmin(room, tp_hstack_height(&b.c, w));
    tp_hstack_draw(cv, &b.c, (tp_rect){m, y, w, h});
    bars_note(cv, j, m, y + h, w, TABLE_FS);
    bars_free(&b);
    tp_cv_end_page(cv);
}

/* ---- the tables ---- */

static int64_t straggler_excess(const tp_job_straggler *s)
{
    int64_t a = s->computation_ns - s->median_computation_ns, b = s->step_ns - s->median_step_ns;
    return a > b ? a : b;
}

static int cmp_straggler(const void *pa, const void *pb)
{
    const tp_job_straggler *a = *(const tp_job_straggler *const *)pa, *b = *(const tp_job_straggler *const *)pb;
    if (a->wait_caused_ns != b->wait_caused_ns)
        return a->wait_caused_ns > b->wait_caused_ns ? -1 : 1;
    int64_t x = straggler_excess(a), y = straggler_excess(b);
    if (x != y)
        return x > y ? -1 : 1;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* A table's pages (at most TP_JOB_TABLE_TOP rows: one page), then its note. */
static void table_pages(tp_canvas *cv, const char *section, const tp_table *t, const char *note, double w, double h)
{
    double m = TP_PAGE_MARGIN, noteh = note ? 16 : 0;
    tp_rect area = {m, m, w - 2 * m, h - 2 * m - noteh};
    tp_table_layout *L = tp_table_layout_new(t, area.w, area.h);
    size_t np = tp_table_pages(L);
    for (size_t p = 0; p < np; p++) {
        tp_cv_begin_section_page(cv, w, h, section, p, np);
        tp_table_draw_page(cv, t, L, p, area);
        if (note && p + 1 == np)
            para(cv, m, area.y + tp_table_page_height(t, L, p) + 4, area.w, TP_FONT_REGULAR, TABLE_FS, TP_COLOR_MUTED,
                 note);
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
}

static void stragglers_page(tp_canvas *cv, const tp_job *j, double w, double h)
{
    size_t n = j->nstragglers;
    const tp_job_straggler **v = tp_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = &j->stragglers[i];
    qsort(v, n, sizeof *v, cmp_straggler);
    size_t shown = n < TP_JOB_TABLE_TOP ? n : TP_JOB_TABLE_TOP;
    enum { NC = 9 };
    static const tp_table_col cols[NC] = {
        {"step", 1, 0, 0},          {"rank", 1, 0, 0},           {"why", 0, TP_FIT_END, 0},
        {"computation", 1, 0, 0},   {"vs median", 1, 0, 0},      {"step time", 1, 0, 0},
        {"vs median", 1, 0, 0},     {"wait caused", 1, 0, 0},    {"last arrivals, late / limit", 1, 0, 0}};
    tp_strs st = {0};
    const char **cells = tp_xcalloc(shown * NC + 1, sizeof *cells);
    for (size_t i = 0; i < shown; i++) {
        const tp_job_straggler *s = v[i];
        char a[40], b[64], c[40], d[64], e[40], f[40], g[40];
        dur(a, sizeof a, s->computation_ns);
        excess(b, sizeof b, s->computation_ns, s->median_computation_ns);
        dur(c, sizeof c, s->step_ns);
        excess(d, sizeof d, s->step_ns, s->median_step_ns);
        dur(e, sizeof e, s->wait_caused_ns);
        dur(f, sizeof f, s->late_ns);
        dur(g, sizeof g, s->wait_threshold_ns);
        const char **row = cells + i * NC;
        row[0] = tp_strs_add(&st, "%lld", (long long)s->step);
        row[1] = tp_strs_add(&st, "%lld", (long long)s->rank);
        char why[64] = "";
        static const char *const flag_names[3] = {"computation", "step time", "late arrival"};
        for (int bit = 0; bit < 3; bit++)
            if (s->flags >> bit & 1)
                snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", *why ? ", " : "", flag_names[bit]);
        row[2] = tp_strs_add(&st, "%s", why);
        row[3] = tp_strs_add(&st, "%s", a);
        row[4] = tp_strs_add(&st, "%s", b);
        row[5] = tp_strs_add(&st, "%s", c);
        row[6] = tp_strs_add(&st, "%s", d);
        row[7] = s->wait_caused_ns > 0 ? tp_strs_add(&st, "%s", e) : "0";
        row[8] = tp_strs_add(&st, "%u of %u, %s / %s", (unsigned)s->last_arrivals, (unsigned)s->instances,
                             s->late_ns > 0 ? f : "0", g);
    }
    char note[400], title[160];
    int k = 0;
    if (n > shown)
        k = snprintf(note, sizeof note, "And %zu more in summary.json (job.stragglers). ", n - shown);
    snprintf(note + k, sizeof note - (size_t)k,
             "Why: computation or step time above the step's median by more than the noise (3 x the MAD of "
             "computation, at least 0.1%% of the step), or arrived last at the step's collectives later than the "
             "limit (1%% of the step) on average over the ranks that waited.");
    snprintf(title, sizeof title, "Stragglers: %s%zu flagged (rank, step), by the waiting they caused",
             n > shown ? "the top " : "", n > shown ? shown : n);
    tp_table t = {title, NC, cols, shown, cells, TABLE_FS, 1, NULL};
    table_pages(cv, "Stragglers", &t, note, w, h);
    free(cells);
    free(v);
    tp_strs_free(&st);
}

static void collectives_page(tp_canvas *cv, const tp_job *j, double w, double h)
{
    size_t shown = j->ncolls < TP_JOB_TABLE_TOP ? j->ncolls : TP_JOB_TABLE_TOP;
    enum { NC = 11 };
    static const tp_table_col cols[NC] = {
        {"kind", 0, TP_FIT_END, 0},   {"S", 1, 0, 0},          {"dtype", 0, TP_FIT_END, 0},
        {"group (ranks)", 0, TP_FIT_MIDDLE, 0}, {"size", 1, 0, 0}, {"instances", 1, 0, 0},
        {"transfer time", 1, 0, 0},   {"algbw", 1, 0, 0},      {"busbw", 1, 0, 0},
        {"wait", 1, 0, 0},            {"slowest rank (times)", 1, 0, 0}};
    tp_strs st = {0};
    const char **cells = tp_xcalloc(shown * NC + 1, sizeof *cells);
    for (size_t i = 0; i < shown; i++) {
        const tp_job_coll *c = &j->colls[i];
        char sz[40], tr[40], wt[40];
        tp_fmt_bytes(sz, sizeof sz, c->bytes);
        dur(tr, sizeof tr, c->transfer_ns);
        dur(wt, sizeof wt, c->wait_ns);
        const char **row = cells + i * NC;
        row[0] = c->kind;
        row[1] = tp_strs_add(&st, "%s", sz);
        row[2] = *c->dtype ? c->dtype : "-";
        bool grp = *c->group || *c->ranks;
        row[3] = grp ? tp_strs_add(&st, "%s%s%s", c->group, *c->group && *c->ranks ? " " : "", c->ranks) : "-";
        row[4] = c->group_size > 0 ? tp_strs_add(&st, "%lld%s", (long long)c->group_size, c->group_implied ? " (implied)" : "")
                                   : "?";
        row[5] = tp_strs_add(&st, "%" PRIu64, c->instances);
        row[6] = tp_strs_add(&st, "%s", tr);
        row[7] = c->algbw > 0 ? tp_strs_add(&st, "%.2f GB/s", c->algbw) : "-";
        row[8] = c->busbw > 0 ? tp_strs_add(&st, "%.2f GB/s", c->busbw) : "-";
        row[9] = c->wait_ns > 0 ? tp_strs_add(&st, "%s", wt) : "0";
        row[10] = c->slowest_rank >= 0 ? tp_strs_add(&st, "%lld (%" PRIu64 ")", (long long)c->slowest_rank,
                                                     c->slowest_count)
                                       : "-";
    }
    char note[300], title[160];
    int k = 0;
    if (j->ncolls > shown)
        k = snprintf(note, sizeof note, "And %zu more rows in summary.json (job.collectives). ", j->ncolls - shown);
    snprintf(note + k, sizeof note - (size_t)k,
             "Transfer time: the last arrival's duration, summed over instances; algbw = instances x S / transfer "
             "time, busbw = algbw x the nccl-tests factor; wait: what the other ranks waited.");
    snprintf(title, sizeof title, "Collectives across ranks%s, by the waiting",
             j->ncolls > shown ? " (the top rows)" : "");
    tp_table t = {title, NC, cols, shown, cells, TABLE_FS, 1, NULL};
    table_pages(cv, "Collectives", &t, note, w, h);
    free(cells);
    tp_strs_free(&st);
}

/* ---- the document ---- */

void tp_job_draw(tp_canvas *cv, const tp_job *j, const tp_page_opts *o)
{
    double pw = o->page_w, ph = o->page_h, lw = ph, lh = pw, m = TP_PAGE_MARGIN;
    overview(cv, j, pw, ph);
    if (has_heatmap(j)) {
        tp_cv_begin_page(cv, lw, lh, "Rank x step heatmap");
        heat_draw(cv, j, (tp_rect){m, m, lw - 2 * m, lh - 2 * m}, 0);
        tp_cv_end_page(cv);
    }
    if (j->nstragglers)
        stragglers_page(cv, j, lw, lh);
    if (j->ncolls) {
        cbars_page(cv, j, lw, lh);
        collectives_page(cv, j, lw, lh);
    }
}

bool tp_job_png_page(tp_canvas *cv, const tp_job *j, int which)
{
    const double pad = PNG_PAD, w = PNG_W;
    if (which == TP_JOB_PNG_RANKS) {
        if (!j->nranks || !has_gpu(j))
            return false;
        bars b;
        bars_build(j, &b, PNG_FONT);
        double note = j->nranks > TP_JOB_BARS_ALL ? PNG_FONT * 1.8 : 0;
        double h = ceil(fmin(PNG_MAX_H, 2 * pad + tp_hstack_height(&b.c, w - 2 * pad) + note));
        tp_cv_begin_page(cv, w, h, tp_report_job_pngs[TP_JOB_PNG_RANKS]);
        tp_cv_fill_rect(cv, 0, 0, w, h, 0xFFFFFF);
        tp_hstack_draw(cv, &b.c, (tp_rect){pad, pad, w - 2 * pad, h - 2 * pad - note});
        bars_note(cv, j, pad, h - pad - note, w - 2 * pad, PNG_FONT);
        bars_free(&b);
    } else if (which == TP_JOB_PNG_COLLECTIVES) {
        if (!j->ncolls)
            return false;
        cbars b;
        cbars_build(j, &b, PNG_FONT);
        double h = ceil(fmin(PNG_MAX_H, 2 * pad + tp_hstack_height(&b.c, w - 2 * pad)));
        tp_cv_begin_page(cv, w, h, tp_report_job_pngs[TP_JOB_PNG_COLLECTIVES]);
        tp_cv_fill_rect(cv, 0, 0, w, h, 0xFFFFFF);
        tp_hstack_draw(cv, &b.c, (tp_rect){pad, pad, w - 2 * pad, h - 2 * pad});
        cbars_free(&b);
    } else {
        if (!has_heatmap(j))
            return false;
        const double h = PNG_HEAT_H;
        tp_cv_begin_page(cv, w, h, tp_report_job_pngs[TP_JOB_PNG_HEATMAP]);
        tp_cv_fill_rect(cv, 0, 0, w, h, 0xFFFFFF);
        heat_draw(cv, j, (tp_rect){pad, pad, w - 2 * pad, h - 2 * pad}, PNG_FONT);
    }
    tp_cv_end_page(cv);
    return true;
}

int tp_job_pages(const tp_job *j, const char *dir, const tp_page_opts *po, const char ***pngs, tp_err *err)
{
    const char *const *names = tp_report_job_pngs; /* in the order of TP_JOB_PNG_* */
    const char **out = tp_xcalloc(TP_JOB_PNGS + 1, sizeof *out);
    size_t n = 0;
    char path[4096];
    *pngs = NULL;
    for (int which = 0; which < TP_JOB_PNGS; which++) {
        if (which == TP_JOB_PNG_RANKS         ? !j->nranks || !has_gpu(j)
            : which == TP_JOB_PNG_COLLECTIVES ? !j->ncolls
                                              : !has_heatmap(j))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[which]);
        tp_canvas *cv = tp_canvas_png(path, po->png_scale, err);
        if (!cv)
            goto fail;
        tp_job_png_page(cv, j, which);
        if (tp_canvas_close(cv, err) != 0)
            goto fail;
        out[n++] = names[which];
    }
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    char title[96], subject[160];
    snprintf(title, sizeof title, "tracepress job report: %zu ranks", j->nranks);
    snprintf(subject, sizeof subject, "A distributed job of %zu rank traces: per rank and step where the GPU time "
                                      "goes, stragglers, collectives", j->nranks);
    tp_canvas *pdf = tp_canvas_pdf(path, &(tp_pdf_meta){.title = title, .subject = subject}, err);
    if (!pdf)
        goto fail;
    tp_job_draw(pdf, j, po);
    if (tp_canvas_close(pdf, err) != 0)
        goto fail;
    *pngs = out;
    return 0;
fail:
    free(out);
    return -1;
}
