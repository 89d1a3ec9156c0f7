/* report_write.c: a report folder from a summary: the page table (which
 * pages the PDF has, in order, and which charts are also written as PNG
 * files), the PDF on a second thread, and summary.json and summary.md with
 * the format's own content (report_write.h). */
#include "report/assemble/report_write.h"
#include "report/findings/findings.h"
#include "report/formats/format_pages.h"
#include "report/inference/infer_figs.h"
#include "report/out/summary_write.h"
#include "report/pages/pages.h"
#include "convert/io/output.h"
#include "render/text/font.h"
#include "convert/base/threads.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_MAX_PNGS 40 /* generic charts (at most 9) and format charts */

static void png_kernels_total(tp_canvas *cv, const tp_pagectx *pc, tp_rect r) { tp_chart_kernels(cv, pc, 0, r); }
static void png_kernels_mean(tp_canvas *cv, const tp_pagectx *pc, tp_rect r) { tp_chart_kernels(cv, pc, 1, r); }
static void png_breakdown(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    tp_chart_breakdown_of(cv, pc, &pc->s->ob, "ops", r);
}

/* The common charts written as PNG files, in summary.md's order: each is
 * written exactly when the PDF has its page (the first pass's titles), the
 * same drawing on the same page (tp_chart_rect), then cropped. */
static const struct {
    const char *file, *page; /* file: static, listed in summary.md */
    tp_fp_chart_fn draw;
} png_charts[] = {
    {"png/gpu_time.png", "Where the GPU time goes", tp_chart_gpu_time},
    {"png/efficiency.png", "How efficient is it", tp_chart_efficiency},
    {"png/kernels_total.png", "Top kernels by total time", png_kernels_total},
    {"png/kernels_mean.png", "Top kernels by mean time", png_kernels_mean},
    {"png/timeline.png", "Timeline", tp_chart_timeline},
    {"png/steps.png", "Steps", tp_chart_steps_png},
    {"png/breakdown.png", "Dominating ops", png_breakdown},
    {"png/memory.png", "Memory", tp_chart_memory_png},
};

const char *const tp_report_job_pngs[3] = {"png/job_ranks.png", "png/job_heatmap.png", "png/job_collectives.png"};

/* The members of a report set, one trace's or a job's: what a report in
 * the folder may have left, removed when a later report lacks them. */
#define TP_MAX_MEMBERS (TP_MAX_PNGS + 16)
static size_t report_members(const char **v)
{
    static const char *const fixed[] = {"report.pdf", "summary.json", "summary.md", "png/overview.png"};
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        v[n++] = fixed[i];
    for (size_t i = 0; i < sizeof png_charts / sizeof *png_charts; i++)
        v[n++] = png_charts[i].file;
    for (size_t i = 0; i < sizeof tp_report_job_pngs / sizeof *tp_report_job_pngs; i++)
        v[n++] = tp_report_job_pngs[i];
    size_t k = tp_format_pages_png_files(v + n, TP_MAX_MEMBERS - 1 - n);
    n += k < TP_MAX_MEMBERS - 1 - n ? k : TP_MAX_MEMBERS - 1 - n;
    v[n] = NULL;
    return n;
}

void tp_report_replaces(tp_outset *set, const char *dir)
{
    const char *v[TP_MAX_MEMBERS];
    report_members(v);
    tp_outset_replaces(set, dir, v);
}

const char *tp_report_output_input(const char *dir, char *out, size_t nout)
{
    const char *v[TP_MAX_MEMBERS];
    size_t n = report_members(v);
    for (size_t i = 0; i < n; i++) {
        snprintf(out, nout, "%s/%s", dir, v[i]);
        const char *in = tp_out_protected(out);
        if (in)
            return in;
    }
    return NULL;
}

/* One PNG file holding one chart page. */
static int write_png(const char *dir, const char *file, const tp_pagectx *pc, double scale, tp_fp_chart_fn fn,
                     tp_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    tp_canvas *cv = tp_canvas_png(path, scale, err);
    if (!cv)
        return -1;
    tp_cv_begin_page(cv, pc->lw, pc->lh, file);
    fn(cv, pc, tp_chart_rect(pc));
    tp_cv_end_page(cv);
    return tp_canvas_close(cv, err) != 0 ? -1 : 0;
}

/* Every PDF page after the overview, in order: the report's page table. */
static void draw_rest(tp_canvas *cv, const tp_pagectx *pcp, bool planning)
{
    const tp_pagectx pc = *pcp;
    tp_canvas *pdf = cv;
    tp_page_summary(pdf, &pc);
    tp_page_gpu_time(pdf, &pc);
    tp_page_efficiency(pdf, &pc);
    tp_format_pages_draw(pdf, &pc); /* the format's own pages, when it has a row */
    tp_rect lr = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc.lw - 2 * TP_PAGE_MARGIN, pc.lh - 2 * TP_PAGE_MARGIN};
    tp_pages_kernel_charts(pdf, &pc);
    tp_pages_breakdown(pdf, &pc, pc.lw, pc.lh);
    if (pc.s->slices) {
        tp_cv_begin_page(pdf, pc.lw, pc.lh, "Timeline");
        if (!planning) /* it always has a page; drawing it reads every event (1.4% of a 1 GB report's CPU) */
            tp_chart_timeline(pdf, &pc, lr);
        tp_cv_end_page(pdf);
    } else
        tp_page_note(&pc, "Timeline", "the trace has no slices to draw.");
    tp_page_critical(pdf, &pc);
    tp_pages_steps(pdf, &pc);
    tp_pages_memory(pdf, &pc, planning);
    tp_pages_kernel_table(pdf, &pc);
    tp_pages_overheads(pdf, &pc);
    tp_pages_names(pdf, &pc);
}

static void draw_all(tp_canvas *cv, const tp_pagectx *pc)
{
    tp_page_overview(cv, pc);
    draw_rest(cv, pc, false);
}

/* The context for the pages: a first pass over them on a null canvas
 * learns what they leave out (the overview lists it), then the notes are
 * frozen so the PDF and PNG passes, on two threads, only read them. */
static void plan_pages(tp_pagectx *pc, const tp_summary *s, const tp_page_opts *o)
{
    tp_pagectx_init(pc, s, o);
    tp_canvas *null = tp_canvas_null(&pc->notes->pages, &pc->notes->npages);
    draw_rest(null, pc, true);
    tp_canvas_close(null, NULL);
    pc->notes->frozen = true;
}

void tp_report_draw(tp_canvas *cv, const tp_summary *s, const tp_page_opts *o)
{
    tp_pagectx pc;
    plan_pages(&pc, s, o);
    draw_all(cv, &pc);
    tp_pagectx_free(&pc);
}

/* The generic PNG files of a report, drawn by whichever thread is free: the
 * PDF's thread joins when the PDF is written (drawing and encoding the PNGs
 * was three quarters of the pages' time, the PDF a quarter).  Each file
 * keeps its slot, so the names and the first error come in table order. */
typedef struct png_work {
    const tp_pagectx *pc;
    const char *dir;
    double scale;
    size_t n;
    const char *file[TP_MAX_PNGS];
    tp_fp_chart_fn draw[TP_MAX_PNGS];
    int rc[TP_MAX_PNGS];
    tp_err err[TP_MAX_PNGS];
    _Atomic size_t next;
    _Atomic bool failed; /* no new file after a failure: the set is not published */
} png_work;

static void png_work_add(png_work *w, const char *file, tp_fp_chart_fn draw)
{
    if (w->n < TP_MAX_PNGS) {
        w->file[w->n] = file;
        w->draw[w->n] = draw;
        w->rc[w->n] = 1; /* not drawn */
        w->n++;
    }
}

static void png_work_run(png_work *w)
{
    while (!atomic_load(&w->failed)) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n)
            break;
        w->rc[i] = write_png(w->dir, w->file[i], w->pc, w->scale, w->draw[i], &w->err[i]);
        if (w->rc[i] < 0)
            atomic_store(&w->failed, true);
    }
}

typedef struct pdf_job {
    const tp_pagectx *pc;
    tp_outset *set;
    const char *dir, *name, *format;
    png_work *pngs;
    tp_err err;
    int rc;
} pdf_job;

static void *write_pdf(void *arg)
{
    pdf_job *j = arg;
    char path[4096], title[400], subject[400];
    snprintf(path, sizeof path, "%s/report.pdf", j->dir);
    snprintf(title, sizeof title, "tracepress report: %s", j->name);
    snprintf(subject, sizeof subject, "Performance report of a trace (format: %s): GPU time, kernels, steps, "
                                      "timeline", j->format); /* "a xplane" reads wrong */
    tp_outset *prev = tp_outset_use(j->set); /* this thread's files join the report's set too */
    tp_canvas *pdf = tp_canvas_pdf(path, &(tp_pdf_meta){.title = title, .subject = subject}, &j->err);
    if (pdf) {
        draw_all(pdf, j->pc);
        if (tp_canvas_close(pdf, &j->err) == 0)
            j->rc = 0;
    }
    if (j->rc == 0)
        png_work_run(j->pngs); /* then the PNGs still left */
    tp_outset_use(prev);
    return NULL;
}

/* The PDF and the PNGs of the pages planned in pc (plan_pages). */
static int report_pages(const tp_summary *s, const tp_pagectx *pcp, const char *dir, const tp_page_opts *o,
                        tp_outset *set, const char ***png_names, tp_err *err)
{
    const tp_pagectx pc = *pcp;
    const char **names = tp_xcalloc(TP_MAX_PNGS + 1, sizeof *names);
    size_t nn = 0;
    int rc = -1;

    /* the PNGs to draw, in summary.md's order: the overview as on the overview page (no split of a trace
     * without slices), then each chart whose page the PDF has */
    png_work *w = tp_xcalloc(1, sizeof *w);
    *w = (png_work){.pc = &pc, .dir = dir, .scale = o->png_scale};
    if (s->slices)
        png_work_add(w, "png/overview.png", tp_chart_overview);
    for (size_t i = 0; i < sizeof png_charts / sizeof *png_charts; i++)
        if (tp_page_drawn(&pc, png_charts[i].page))
            png_work_add(w, png_charts[i].file, png_charts[i].draw);

    /* the PDF on a second thread while the PNGs are drawn here: both only
     * read pc and the summary; the fonts are loaded before they start */
    tp_font_check(NULL, 0);
    const char *slash = s->opts.path ? strrchr(s->opts.path, '/') : NULL;
    pdf_job pj = {.pc = &pc, .set = set, .dir = dir, .rc = -1, .format = s->t->format ? s->t->format : "",
                  .pngs = w, .name = slash ? slash + 1 : s->opts.path ? s->opts.path : s->name}; /* the input file's name */
    tp_side pdf_side;
    tp_side_start(&pdf_side, write_pdf, &pj, "TP_REPORT_THREADS");
    png_work_run(w); /* one thread (TP_REPORT_THREADS=1): the PDF and every PNG are written by now */
    tp_side_join(&pdf_side);
    for (size_t i = 0; i < w->n && w->rc[i] <= 0; i++) {
        if (w->rc[i] < 0) {
            *err = w->err[i];
            goto out;
        }
        names[nn++] = w->file[i];
    }
    if (!atomic_load(&w->failed) && pj.rc == 0 && tp_format_pages_png(dir, &pc, o->png_scale, &names, &nn, TP_MAX_PNGS, err) < 0)
        goto out;
    rc = 0;
out:
    if (pj.rc < 0) { /* the PDF's error comes first, as when it was written first */
        *err = pj.err;
        rc = -1;
    }
    free(w);
    if (rc < 0) {
        free(names);
        names = NULL;
    }
    *png_names = names;
    return rc;
}

typedef struct findings_job {
    const tp_summary *s;
    tp_findings *out;
} findings_job;

static void *build_findings(void *p)
{
    findings_job *j = p;
    tp_findings_build(j->s, j->s->opts.find_rules, j->out);
    return NULL;
}

void tp_report_summary_json(const tp_summary *s, tp_buf *b) { tp_summary_json(s, tp_format_pages_json, b); }

int tp_report_write(tp_summary *s, const tp_fp_opts *fo, const tp_page_opts *po, const char *dir, tp_err *err)
{
    if (tp_format_pages_build(s, fo, err) < 0)
        return -1;
    tp_timing("format pages");
    /* the findings once, for the overview page, summary.json and summary.md, on a second thread while the pages'
     * first pass runs here (no page after the overview reads them) */
    tp_findings findings;
    findings_job fj = {s, &findings};
    tp_side fside;
    tp_side_start(&fside, build_findings, &fj, "TP_REPORT_THREADS");
    tp_pagectx pc;
    plan_pages(&pc, s, po);
    /* and the inference figures summary.json and summary.md both write, once (a pass each over every event), and
     * the timeline's rows and bars (two passes over the events and the window's host slices): the findings were the
     * longer side (1 GB, perf: 0.086 s of CPU against 0.011 s for the pages' first pass; with these two, about
     * 0.1 s each) */
    tp_infer_figs infer;
    tp_infer_figs_build(s, &infer);
    if (s->slices) /* when it has a page (draw_rest) */
        tp_timeline_prepare(&pc);
    tp_side_join(&fside);
    const tp_findings *had = s->findings;
    if (!had)
        s->findings = &findings;
    const tp_infer_figs *had_infer = s->infer;
    s->infer = &infer;
    tp_timing("findings | pages planned, inference figures, timeline");
    const char **pngs = NULL;
    tp_buf json = {0}, md = {0};
    char pngdir[4096];
    snprintf(pngdir, sizeof pngdir, "%s/png", dir);
    int rc = 0;
    /* all files or none: each is committed under its temporary name and the
     * set renamed at the end, so the previous report stays whole until then */
    tp_outset *set = tp_outset_new(), *prev = tp_outset_use(set);
    tp_report_replaces(set, dir);
    if (tp_mkdirs(pngdir, err) < 0 || report_pages(s, &pc, dir, po, set, &pngs, err) < 0)
        rc = TP_REPORT_WRITE_FAILED;
    tp_pagectx_free(&pc);
    tp_timing("pages");
    if (rc == 0) {
        tp_report_summary_json(s, &json);
        tp_summary_md(s, pngs, tp_format_pages_md, &md);
        if (tp_out_write_file(dir, "summary.json", json.data, json.len, err) < 0 ||
            tp_out_write_file(dir, "summary.md", md.data, md.len, err) < 0)
            rc = TP_REPORT_WRITE_FAILED;
    }
    if (tp_outset_finish(set, prev, rc, err) < 0 && rc == 0)
        rc = TP_REPORT_WRITE_FAILED; /* the publish failed */
    tp_timing("summary files");
    s->findings = had;
    s->infer = had_infer;
    tp_infer_figs_free(&infer);
    tp_findings_free(&findings);
    free(pngs);
    tp_buf_free(&json);
    tp_buf_free(&md);
    return rc;
}
