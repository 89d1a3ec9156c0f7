/* The job report's pages (report/job/job_pages.c) and their charts
 * (chart_heatmap, chart_hstack): jobs built from hand-made rank summaries,
 * drawn on the recording backend. */
#include "render/charts/chart_heatmap.h"
#include "render/charts/chart_hstack.h"
#include "convert/io/output.h"
#include "report/job/job_pages.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdlib.h>

/* A synchronous job: every step, each rank computes (comp_ns, more on the
 * slow rank), then one all-reduce that ends together on every rank, after
 * the last arrival plus transfer_ns; each rank's clock is off by 1.5 us x
 * its rank. */
typedef struct jspec {
    size_t nranks, nsteps;
    int64_t step_ns, comp_ns, transfer_ns;
    int64_t slow_rank, slow_step; /* -1: none / every step */
    int64_t extra_ns;             /* the slow rank's extra computation */
    bool colls;
    int64_t jitter_ns;            /* computation +-jitter, step time +-jitter/4, by a fixed pattern */
} jspec;

static char *xs(const char *s) { return tp_xstrdup(s); }

static void make_sum(const jspec *js, size_t r, tp_rank_sum *s)
{
    memset(s, 0, sizeof *s);
    char b[64];
    snprintf(b, sizeof b, "traces/rank-%zu.json", r);
    s->path = xs(b);
    snprintf(b, sizeof b, "rank-%zu.json", r);
    s->name = xs(b);
    s->format = xs("kineto");
    s->device = xs("GPU 0");
    s->dist_present = true;
    s->dist_rank = (int64_t)r;
    s->world_size = (int64_t)js->nranks;
    s->backend = xs("nccl");
    s->pg_size = -1;
    int64_t off = (int64_t)r * 1500, base = 1000000000;
    s->steps = tp_xcalloc(js->nsteps + 1, sizeof *s->steps);
    s->nsteps = js->nsteps;
    if (js->colls) {
        s->colls = tp_xcalloc(1, sizeof *s->colls);
        s->ncolls = 1;
        tp_buf rk = {0};
        tp_buf_puts(&rk, "[");
        for (size_t i = 0; i < js->nranks; i++)
            tp_buf_printf(&rk, "%s%zu", i ? ", " : "", i);
        tp_buf_puts(&rk, "]");
        tp_buf_putc(&rk, 0);
        s->colls[0] = (tp_rank_coll){xs("all_reduce"), xs("Float"), xs("0"), xs(rk.data), (int64_t)js->nranks,
                                     64 << 20, js->nsteps, 0};
        tp_buf_free(&rk);
        s->calls = tp_xcalloc(js->nsteps + 1, sizeof *s->calls);
        s->ncalls = js->nsteps;
    }
    for (size_t k = 0; k < js->nsteps; k++) {
        bool slow = (int64_t)r == js->slow_rank && (js->slow_step < 0 || (int64_t)k == js->slow_step);
        bool any_slow = js->slow_rank >= 0 && (js->slow_step < 0 || (int64_t)k == js->slow_step);
        int64_t jit = (int64_t)((r * 7919 + k * 104729) % 21) - 10, sjit = (int64_t)((r * 31 + k * 17) % 11) - 5;
        int64_t comp = js->comp_ns + (slow ? js->extra_ns : 0) + jit * js->jitter_ns / 10;
        int64_t last = js->comp_ns + (any_slow ? js->extra_ns : 0) + js->jitter_ns; /* the latest arrival */
        int64_t dur = js->step_ns + sjit * js->jitter_ns / 20;
        int64_t start = base + (int64_t)k * js->step_ns;
        int64_t comm = js->colls ? last + js->transfer_ns - comp : 0;
        s->steps[k] = (tp_rank_step){(int64_t)k + 10, start + off, dur, {0}};
        tp_gpu_figs *g = &s->steps[k].gpu;
        g->computation_ns = comp;
        g->communication_ns = comm;
        g->exposed_communication_ns = comm;
        g->idle_ns = dur - comp - comm > 0 ? dur - comp - comm : 0;
        g->span_ns = comp + comm + g->idle_ns;
        g->busy_ns = comp + comm;
        g->kernels = 10;
        if (js->colls)
            s->calls[k] = (tp_rank_call){0, start + comp + off, comm, (int64_t)k};
        s->whole.span_ns += g->span_ns;
        s->whole.computation_ns += comp;
        s->whole.communication_ns += comm;
        s->whole.exposed_communication_ns += comm;
        s->whole.idle_ns += g->idle_ns;
        s->whole.busy_ns += g->busy_ns;
        if (js->colls)
            s->colls[0].total_ns += comm;
    }
}

static void make_job(const jspec *js, tp_job *j)
{
    tp_rank_sum *sums = tp_xcalloc(js->nranks + 1, sizeof *sums);
    for (size_t r = 0; r < js->nranks; r++) /* given out of order: the job sorts them */
        make_sum(js, js->nranks - 1 - r, &sums[r]);
    tp_err err = {0};
    CHECK_EQ_INT(tp_job_build(sums, js->nranks, j, &err), 0);
    free(sums);
}

static char *draw(const tp_job *j, tp_buf *rec)
{
    *rec = (tp_buf){0};
    tp_canvas *cv = tp_canvas_rec(rec);
    tp_page_opts po = {595, 842, 2};
    tp_job_draw(cv, j, &po);
    tp_err err = {0};
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    tp_buf_putc(rec, 0);
    rec->len--;
    return rec->data;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Pages in a recording: its lines that start with "page ". */
static size_t pages(const char *rec) { return (strncmp(rec, "page ", 5) == 0) + count(rec, "\npage "); }

/* The recording of page k (1-based). */
static char *page_of(const char *rec, int k)
{
    const char *p = rec;
    for (int i = 1; i < k && p; i++)
        if ((p = strstr(p, "\npage ")))
            p++;
    if (!p)
        return tp_xstrdup("");
    const char *e = strstr(p, "\npage ");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *s = tp_xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static const jspec three = {3, 4, 10000000, 6000000, 1000000, 1, 2, 2000000, true, 0};

TEST(job_pages_golden_three_ranks_with_a_straggler)
{
    tp_job j;
    make_job(&three, &j);
    CHECK_EQ_INT(j.nranks, 3);
    CHECK_EQ_INT(j.nstragglers, 1);
    CHECK_EQ_INT(j.stragglers[0].rank, 1);
    CHECK_EQ_INT(j.stragglers[0].step, 12);
    tp_buf rec;
    const char *s = draw(&j, &rec);
    /* overview, heatmap, stragglers, collectives' time, collectives */
    CHECK_EQ_INT(pages(s), 5);
    CHECK(strstr(s, "Time in collectives, all ranks together: transferring vs waiting") != NULL);
    CHECK(strstr(s, "Job overview") != NULL);
    CHECK(strstr(s, "Rank x step heatmap") != NULL);
    CHECK(strstr(s, "Stragglers") != NULL);
    CHECK(strstr(s, "Collectives") != NULL);
    char *p1 = page_of(s, 1);
    CHECK(strstr(p1, "3 ranks (world size 3), 4 steps, median step time 10.000 ms") != NULL);
    CHECK(strstr(p1, "Ranks 0 to 2; the rank from distributedInfo.") != NULL);
    CHECK(strstr(p1, "Straggler: rank 1, last to arrive in 1 of 4 steps") != NULL); /* named as summary.md names it */
    CHECK(strstr(p1, "flagged (rank, step) cells on 1 rank") != NULL);
    CHECK(strstr(p1, "Spread across ranks") != NULL);
    CHECK(strstr(p1, "Clock alignment (offsets onto rank 0's clock)") != NULL);
    /* rank 2's clock is 3 us ahead: its offset brings it back */
    CHECK(strstr(p1, "-3.000 us") != NULL);
    CHECK_EQ_INT(count(p1, "\"rank 0\"\n") + count(p1, "\"rank 1\"\n") + count(p1, "\"rank 2\"\n"), 3);
    free(p1);
    /* the heatmap: the slow cell carries its flags' letters (computation,
     * late arrival) in both panels, and its colour is the deviation's */
    char *p2 = page_of(s, 2);
    CHECK_EQ_INT(count(p2, "\"CA\"\n"), 2);
    CHECK(strstr(p2, "GPU computation per rank and step") != NULL);
    CHECK(strstr(p2, "Step time per rank and step") != NULL);
    double dev = 2000000.0 / 6000000.0; /* +33%: the +50% scale */
    char want[32];
    snprintf(want, sizeof want, "fill #%06x\n", (unsigned)tp_heatmap_color(dev, 0.5));
    CHECK(tp_heatmap_color(dev, 0.5) != 0xFFFFFF);
    CHECK(tp_heatmap_color(dev, 0.5) != tp_heatmap_color(0, 0.5));
    CHECK(strstr(p2, want) != NULL);
    CHECK(strstr(p2, "+50%") != NULL);
    free(p2);
    char *p3 = page_of(s, 3);
    CHECK(strstr(p3, "\"computation, late arrival\"") != NULL);
    CHECK(strstr(p3, "+2.000 ms, +33.3%") != NULL);
    free(p3);
    char *p4 = page_of(s, 4);
    CHECK(strstr(p4, "all_reduce") != NULL);
    CHECK(strstr(p4, "64.0 MiB") != NULL);
    free(p4);
    CHECK_GOLDEN("report/job_pages_3ranks.rec", rec.data, rec.len);
    tp_buf_free(&rec);
    tp_job_free(&j);
}

TEST(job_pages_no_straggler_is_a_line_not_a_page)
{
    jspec js = three;
    js.slow_rank = -1;
    tp_job j;
    make_job(&js, &j);
    CHECK_EQ_INT(j.nstragglers, 0);
    tp_buf rec;
    const char *s = draw(&j, &rec);
    CHECK_EQ_INT(pages(s), 4); /* overview, heatmap, collectives' time, collectives */
    CHECK(strstr(s, "\"No straggler: every rank's step and computation are within the noise") != NULL);
    CHECK(strstr(s, "\"Stragglers\"") == NULL);
    tp_buf_free(&rec);
    tp_job_free(&j);
}

TEST(job_pages_one_rank_without_steps_nor_collectives)
{
    jspec js = {1, 0, 10000000, 6000000, 0, -1, -1, 0, false, 0};
    tp_job j;
    make_job(&js, &j);
    tp_buf rec;
    const char *s = draw(&j, &rec);
    CHECK_EQ_INT(pages(s), 1);
    CHECK(strstr(s, "No steps (ProfilerStep#N) on any rank") != NULL);
    CHECK(strstr(s, "No collective call on any rank") != NULL);
    CHECK(strstr(s, "One rank: no other rank to compare it with") != NULL);
    CHECK(strstr(s, "No GPU activity on any rank") != NULL); /* no steps: no GPU time in this builder */
    tp_buf_free(&rec);
    tp_job_free(&j);
}

TEST(job_pages_many_ranks_show_the_worst_24)
{
    jspec js = {64, 8, 10000000, 6000000, 1000000, 37, -1, 3000000, true, 0};
    tp_job j;
    make_job(&js, &j);
    tp_buf rec;
    const char *s = draw(&j, &rec);
    /* the job's findings lead page 1: the GPU time chart of 24 ranks follows on page 2 */
    char *p1 = page_of(s, 1), *p2 = page_of(s, 2);
    CHECK(strstr(p1, "One rank arrives late at collectives and the others wait for it (rank 37)") != NULL);
    CHECK(strstr(p2, "the 24 of 64 ranks with the most idle + exposed communication") != NULL);
    CHECK(strstr(p2, "40 more ranks are in summary.json") != NULL);
    CHECK(strstr(p1, "and 56 more ranks, |offset| at most") != NULL);
    /* rank 37 waited least (it was the one waited for): not among the 24 */
    CHECK(strstr(p2, "\"rank 37\"\n") == NULL);
    CHECK(strstr(p2, "\"rank 0\"\n") != NULL);
    free(p1);
    free(p2);
    /* every step of rank 37 is flagged */
    CHECK_EQ_INT(j.nstragglers, 8);
    tp_buf_free(&rec);
    tp_job_free(&j);
}

TEST(job_pages_write_the_pdf_and_pngs)
{
    tp_job j;
    make_job(&three, &j);
    const char *dir = tp_test_tmp("jobpages");
    tp_err err = {0};
    char png[4096];
    snprintf(png, sizeof png, "%s/png", dir);
    CHECK_EQ_INT(tp_mkdirs(png, &err), 0);
    const char **pngs = NULL;
    tp_page_opts po = {595, 842, 1};
    CHECK_EQ_INT(tp_job_pages(&j, dir, &po, &pngs, &err), 0);
    CHECK_STR(pngs[0], "png/job_ranks.png");
    CHECK_STR(pngs[1], "png/job_heatmap.png");
    CHECK_STR(pngs[2], "png/job_collectives.png");
    CHECK(pngs[3] == NULL);
    CHECK(tp_test_exists_in(dir, "png/job_collectives.png"));
    CHECK(tp_test_exists_in(dir, "report.pdf"));
    CHECK(tp_test_exists_in(dir, "png/job_ranks.png"));
    CHECK(tp_test_exists_in(dir, "png/job_heatmap.png"));
    free(pngs);
    tp_job_free(&j);
}

/* ---- the charts ---- */

TEST(job_hstack_bars_are_proportional)
{
    static const int64_t v[] = {600, 200, 0, 200, 300, 100, 0, 100};
    static const tp_color col[] = {0x111111, 0x222222, 0x333333, 0xFFFFFF};
    static const char *const names[] = {"a", "b", "c", "d"}, *const labels[] = {"rank 0", "rank 1"};
    tp_hstack c = {"t", NULL, 2, 4, labels, v, col, names, NULL, 0};
    tp_buf rec = {0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_cv_begin_page(cv, 600, 400, "x");
    tp_hstack_draw(cv, &c, (tp_rect){10, 10, 580, 380});
    tp_canvas_close(cv, NULL);
    tp_buf_putc(&rec, 0);
    /* the bars' rects of colour #111111 (the last two: the legend's swatch comes first) */
    double w[8] = {0}, x;
    int n = 0;
    for (const char *p = rec.data; (p = strstr(p, "rect ")) && n < 8; p++) {
        double y, ww, h;
        const char *f = strstr(p, "\n");
        if (sscanf(p, "rect %lf %lf %lf %lf", &x, &y, &ww, &h) == 4 && f && strncmp(f + 1, "fill #111111", 12) == 0)
            w[n++] = ww;
    }
    CHECK_EQ_INT(n, 3);
    w[0] = w[1];
    w[1] = w[2];
    CHECK(w[0] > 50 && fabs(w[0] / w[1] - 2.0) < 0.01);
    CHECK(strstr(rec.data, "\"rank 1\"\n") != NULL);
    tp_buf_free(&rec);
}

static void heat_sized(size_t R, size_t S, tp_rect r, size_t *rg, size_t *cg, tp_buf *rec)
{
    double *v = tp_xcalloc(R * S + 1, sizeof *v);
    uint32_t *m = tp_xcalloc(R * S + 1, sizeof *m);
    const char **rl = tp_xcalloc(R + 1, sizeof *rl), **cl = tp_xcalloc(S + 1, sizeof *cl);
    tp_strs st = {0};
    for (size_t i = 0; i < R; i++)
        rl[i] = tp_strs_add(&st, "%zu", i);
    for (size_t k = 0; k < S; k++)
        cl[k] = tp_strs_add(&st, "%zu", k);
    for (size_t i = 0; i < R * S; i++)
        v[i] = (double)(i % 7) * 0.01 - 0.03;
    v[R * S - 1] = 0.3;
    m[R * S - 1] = 1;
    tp_heatmap h = {"t", "dev", "rank", "step", "ranks", "steps", R, S, rl, cl, v, m, "C", "flagged", 0, 0, NULL, NULL};
    tp_heatmap_fit fit = tp_heatmap_measure(&h, r);
    *rg = fit.row_group;
    *cg = fit.col_group;
    tp_canvas *cv = tp_canvas_rec(rec);
    tp_cv_begin_page(cv, r.x * 2 + r.w, r.y * 2 + r.h, "x");
    tp_heatmap_draw(cv, &h, r);
    tp_canvas_close(cv, NULL);
    tp_buf_putc(rec, 0);
    rec->len--;
    free(v);
    free(m);
    free(rl);
    free(cl);
    tp_strs_free(&st);
}

TEST(job_heatmap_sizes_and_aggregation)
{
    tp_rect r = {36, 36, 770, 523};
    size_t rg, cg;
    tp_buf rec = {0};
    heat_sized(1, 1, r, &rg, &cg, &rec);
    CHECK_EQ_INT(rg, 1);
    CHECK_EQ_INT(cg, 1);
    CHECK(strstr(rec.data, "Aggregated") == NULL);
    CHECK_EQ_INT(count(rec.data, "\"C\"\n"), 1); /* the one cell, marked */
    tp_buf_free(&rec);
    heat_sized(64, 8, r, &rg, &cg, &rec);
    CHECK_EQ_INT(rg, 1);
    CHECK_EQ_INT(cg, 1);
    tp_buf_free(&rec);
    heat_sized(512, 100, r, &rg, &cg, &rec);
    CHECK(rg > 1);
    CHECK_EQ_INT(cg, 1);
    CHECK(strstr(rec.data, "Aggregated to stay legible") != NULL);
    /* the marked last cell's group is outlined: a black stroke */
    CHECK(strstr(rec.data, "stroke #000000") != NULL);
    tp_buf_free(&rec);
    heat_sized(2000, 3000, r, &rg, &cg, &rec);
    CHECK(rg > 1 && cg > 1);
    tp_buf_free(&rec);
    /* the scale: white at 0, the two ends apart, clamped beyond the limit */
    CHECK_EQ_INT(tp_heatmap_color(0, 0.1), 0xFFFFFF);
    CHECK_EQ_INT(tp_heatmap_color(0.1, 0.1), TP_HEATMAP_POS);
    CHECK_EQ_INT(tp_heatmap_color(-0.5, 0.1), TP_HEATMAP_NEG);
    CHECK_EQ_INT(tp_heatmap_color(NAN, 0.1), TP_HEATMAP_MISSING);
}

