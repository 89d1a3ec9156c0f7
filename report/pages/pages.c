/* pages.c: the report's page table: which pages the PDF has, in order, and
 * which charts are also written as PNG files. */
#include "report/formats/format_pages.h"
#include "convert/codec/json_write.h"
#include "report/pages/pages_int.h"
#include "render/charts/chart_table.h"
#include "render/labels/kname.h"

#include "render/text/font.h"
#include "convert/base/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_strs_add(tp_strs *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    if (vasprintf(&p, fmt, ap) < 0)
        p = tp_xstrdup("");
    va_end(ap);
    TP_GROW(s->v, s->cap, s->n + 1);
    s->v[s->n++] = p;
    return p;
}

const char *tp_strs_us(tp_strs *s, int64_t ns)
{
    char b[48];
    tp_format_fixed(b, ns, 3);
    return tp_strs_add(s, "%s", b);
}

void tp_strs_free(tp_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

double tp_draw_small_table(tp_canvas *cv, const char *title, const void *cols, size_t ncols, const char **cells,
                           size_t nrows, tp_rect r)
{
    tp_table t = {title, ncols, cols, nrows, cells, 8, 2, NULL};
    tp_table_layout *L = tp_table_layout_new(&t, r.w, r.h);
    tp_table_draw_page(cv, &t, L, 0, r);
    tp_table_layout_free(L);
    return r.y + r.h;
}

double tp_page_line(tp_canvas *cv, double x, double y, tp_font f, double size, tp_color c, const char *s)
{
    double base = y + tp_font_ascent(f, size);
    tp_cv_text(cv, x, base, f, size, c, TP_ALIGN_LEFT, 0, s);
    return base + tp_font_descent(f, size) + size * 0.35;
}

#define TP_MAX_PNGS 40 /* generic charts (at most 8) and format charts */

/* One PNG file holding one chart page. */
typedef void (*png_fn)(tp_canvas *cv, const tp_pagectx *pc, tp_rect r);

static void png_kernels_total(tp_canvas *cv, const tp_pagectx *pc, tp_rect r) { tp_chart_kernels(cv, pc, 0, r); }
static void png_kernels_mean(tp_canvas *cv, const tp_pagectx *pc, tp_rect r) { tp_chart_kernels(cv, pc, 1, r); }

static int write_png(const char *dir, const char *name, const tp_pagectx *pc, double scale, png_fn fn,
                     const char ***names, size_t *nn, tp_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/png/%s.png", dir, name);
    tp_canvas *cv = tp_canvas_png(path, scale, err);
    if (!cv)
        return -1;
    tp_cv_begin_page(cv, TP_PNG_W, TP_PNG_H, name);
    fn(cv, pc, (tp_rect){16, 16, TP_PNG_W - 32, TP_PNG_H - 32});
    tp_cv_end_page(cv);
    if (tp_canvas_close(cv, err) != 0)
        return -1;
    static const char *const known[] = {"png/kernels_total.png", "png/kernels_mean.png", "png/timeline.png",
                                        "png/steps.png", NULL};
    for (int i = 0; known[i]; i++)
        if (strncmp(known[i] + 4, name, strlen(name)) == 0 && known[i][4 + strlen(name)] == '.')
            (*names)[(*nn)++] = known[i];
    return 0;
}

/* Every PDF page, in order: the report's page table. */
static void draw_all(tp_canvas *cv, const tp_pagectx *pcp)
{
    const tp_pagectx pc = *pcp;
    tp_canvas *pdf = cv;
    tp_page_summary(pdf, &pc);
    tp_format_pages_draw(pdf, &pc); /* the format's own pages, when it has a row */
    tp_rect lr = {TP_PAGE_MARGIN, TP_PAGE_MARGIN, pc.lw - 2 * TP_PAGE_MARGIN, pc.lh - 2 * TP_PAGE_MARGIN};
    tp_cv_begin_page(pdf, pc.lw, pc.lh, "Top kernels by total time");
    tp_chart_kernels(pdf, &pc, 0, lr);
    tp_cv_end_page(pdf);
    tp_cv_begin_page(pdf, pc.lw, pc.lh, "Top kernels by mean time");
    tp_chart_kernels(pdf, &pc, 1, lr);
    tp_cv_end_page(pdf);
    tp_pages_breakdown(pdf, &pc, pc.lw, pc.lh);
    tp_cv_begin_page(pdf, pc.lw, pc.lh, "Timeline");
    tp_chart_timeline(pdf, &pc, lr);
    tp_cv_end_page(pdf);
    tp_pages_steps(pdf, &pc);
    tp_pages_kernel_table(pdf, &pc);
    tp_pages_overheads(pdf, &pc);
}

static void ctx_init(tp_pagectx *pc, const tp_summary *s, const tp_page_opts *o)
{
    *pc = (tp_pagectx){s, o->page_w, o->page_h, o->page_h, o->page_w, NULL, 0};
    pc->nknames = s->kt.n < TP_TABLE_MAX_ROWS ? s->kt.n : TP_TABLE_MAX_ROWS;
    const char **full = tp_xmalloc((pc->nknames + 1) * sizeof *full);
    for (size_t i = 0; i < pc->nknames; i++)
        full[i] = tp_str_get(s->t, s->kt.rows[i].name);
    pc->knames = tp_kname_shorten(full, pc->nknames);
    free(full);
}

void tp_report_draw(tp_canvas *cv, const tp_summary *s, const tp_page_opts *o)
{
    tp_pagectx pc;
    ctx_init(&pc, s, o);
    draw_all(cv, &pc);
    tp_kname_free(pc.knames, pc.nknames);
}

typedef struct pdf_job {
    const tp_pagectx *pc;
    const char *dir, *name;
    tp_err err;
    int rc;
} pdf_job;

static void *write_pdf(void *arg)
{
    pdf_job *j = arg;
    char path[4096], title[400];
    snprintf(path, sizeof path, "%s/report.pdf", j->dir);
    snprintf(title, sizeof title, "tracepress report: %s", j->name);
    tp_canvas *pdf = tp_canvas_pdf(path, &(tp_pdf_meta){title, NULL}, &j->err);
    if (!pdf)
        return NULL;
    draw_all(pdf, j->pc);
    if (tp_canvas_close(pdf, &j->err) == 0)
        j->rc = 0;
    return NULL;
}

int tp_report_pages(const tp_summary *s, const char *dir, const tp_page_opts *o, const char ***png_names,
                    tp_err *err)
{
    tp_pagectx pc;
    ctx_init(&pc, s, o);
    static const char *grid_names[] = {"png/breakdown.png", "png/breakdown-2.png", "png/breakdown-3.png",
                                       "png/breakdown-4.png"};
    const char **names = tp_xcalloc(TP_MAX_PNGS + 1, sizeof *names);
    size_t nn = 0;
    int rc = -1;

    /* the PDF on a second thread while the PNGs are drawn here: both only
     * read pc and the summary; the fonts are loaded before they start */
    tp_font_check(NULL, 0);
    pdf_job pj = {.pc = &pc, .dir = dir, .name = s->name, .rc = -1};
    tp_side pdf_side;
    tp_side_start(&pdf_side, write_pdf, &pj, "TP_REPORT_THREADS");
    char path[4096];
    double scale = o->png_scale;
    if (write_png(dir, "kernels_total", &pc, scale, png_kernels_total, &names, &nn, err) < 0 ||
        write_png(dir, "kernels_mean", &pc, scale, png_kernels_mean, &names, &nn, err) < 0 ||
        write_png(dir, "timeline", &pc, scale, tp_chart_timeline, &names, &nn, err) < 0)
        goto out;
    if (s->sf.nsteps && write_png(dir, "steps", &pc, scale, tp_chart_steps, &names, &nn, err) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/png/breakdown.png", dir);
    tp_canvas *g = tp_canvas_png(path, scale, err);
    if (!g)
        goto out;
    size_t gp = tp_pages_breakdown(g, &pc, TP_PNG_W, TP_PNG_H);
    if (tp_canvas_close(g, err) != 0)
        goto out;
    for (size_t p = 0; p < gp && p < 4; p++)
        names[nn++] = grid_names[p];
    if (tp_format_pages_png(dir, &pc, scale, &names, &nn, TP_MAX_PNGS, err) < 0)
        goto out;
    rc = 0;
out:
    tp_side_join(&pdf_side);
    if (pj.rc < 0) { /* the PDF's error comes first, as when it was written first */
        *err = pj.err;
        rc = -1;
    }
    tp_kname_free(pc.knames, pc.nknames);
    if (rc < 0) {
        free(names);
        names = NULL;
    }
    *png_names = names;
    return rc;
}
