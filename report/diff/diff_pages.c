/* diff_pages.c: diff.pdf and the diff's PNG charts (diff.h). */
#include "render/charts/axis.h"
#include "render/charts/chart_bar.h"
#include "render/charts/chart_diverging.h"
#include "render/charts/chart_table.h"
#include "report/diff/diff.h"
#include "render/text/report_text.h"
#include "report/pages/page_common.h"
#include "render/text/units.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DP_TOP 20        /* bars in the changes chart */
#define DP_STEPS_MAX 40  /* steps per run in the PDF's step chart */
#define DP_PNG_STEPS 20  /* steps per run in png/steps.png */
#define DP_PNG_W 800.0   /* points; 2 px per point by default, so GitHub shows it at half size */
#define DP_PNG_H 480.0   /* the step chart's height; the changes chart's follows its rows */
#define DP_PNG_FONT 12.0 /* PNG text: 24 px, 12 px where GitHub halves the image */
#define DP_PNG_PAD 16.0
#define DP_MARGIN 36.0
#define DP_BASE_COLOR 0x999999
#define DP_CAND_COLOR 0xE69F00

/* The largest |delta| kernel rows, in table order (regressions, then improvements). */
typedef struct changes {
    tp_diverging c;
    const char **labels, **notes;
    int64_t *vals;
    char (*nb)[96];
    char title[160];
} changes;

static void changes_build(const tp_diff *d, changes *ch)
{
    /* kernel names that barely overlap (H100 -> MI300X): the ops that launched them, as diff.md leads */
    double share = 1;
    bool ops = tp_diff_ops_lead(d, &share);
    const tp_diff_table *t = ops ? &d->ops : &d->kernels;
    size_t *pick = tp_xcalloc(t->n + 1, sizeof *pick), np = 0;
    /* rows are sorted by delta: take from both ends by size */
    size_t lo = 0, hi = t->n;
    while (np < DP_TOP && lo < hi) {
        int64_t a = t->rows[lo].delta, b = -t->rows[hi - 1].delta;
        if (a <= 0 && b <= 0)
            break;
        if (a >= b)
            pick[np++] = lo++;
        else
            pick[np++] = --hi;
    }
    /* table order */
    for (size_t i = 1; i < np; i++)
        for (size_t j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
            size_t x = pick[j];
            pick[j] = pick[j - 1];
            pick[j - 1] = x;
        }
    ch->labels = tp_xcalloc(np + 1, sizeof *ch->labels);
    ch->notes = tp_xcalloc(np + 1, sizeof *ch->notes);
    ch->vals = tp_xcalloc(np + 1, sizeof *ch->vals);
    ch->nb = tp_xcalloc(np + 1, sizeof *ch->nb);
    for (size_t i = 0; i < np; i++) {
        const tp_diff_row *row = &t->rows[pick[i]];
        ch->labels[i] = row->label;
        ch->vals[i] = row->delta;
        char dl[48], rel[32];
        tp_diff_fmt_delta(dl, sizeof dl, row->delta);
        tp_diff_fmt_rel(rel, sizeof rel, row);
        snprintf(ch->nb[i], sizeof ch->nb[i], "%s (%s)", dl, rel);
        ch->notes[i] = ch->nb[i];
    }
    free(pick);
    if (ops)
        snprintf(ch->title, sizeof ch->title, "Largest op changes (device time they launched, candidate - base): "
                 "kernel names barely overlap (%.0f%% of the kernel time)", share * 100.0);
    else
        snprintf(ch->title, sizeof ch->title, "Largest kernel changes (total time, candidate - base)");
    ch->c = (tp_diverging){ch->title, "slower", "faster", np, ch->labels, ch->vals, ch->notes, 0, 0};
}

static void changes_free(changes *ch)
{
    free(ch->labels);
    free(ch->notes);
    free(ch->vals);
    free(ch->nb);
}

static void draw_changes(tp_canvas *cv, const tp_diff *d, tp_rect r)
{
    changes ch;
    changes_build(d, &ch);
    tp_diverging_draw(cv, &ch.c, r);
    changes_free(&ch);
}

/* Step times of both runs, at most `max` steps each; `fs` as tp_barchart.font_size. */
static void draw_steps(tp_canvas *cv, const tp_diff *d, tp_rect r, size_t max, double fs)
{
    size_t all0 = d->s[0]->sf.nsteps, all1 = d->s[1]->sf.nsteps;
    size_t n0 = all0 > max ? max : all0, n1 = all1 > max ? max : all1;
    size_t n = n0 + n1;
    const char **labels = tp_xcalloc(n + 1, sizeof *labels);
    int64_t *vals = tp_xcalloc(n + 1, sizeof *vals);
    tp_color *cols = tp_xcalloc(n + 1, sizeof *cols);
    char (*lb)[40] = tp_xcalloc(n + 1, sizeof *lb);
    for (size_t i = 0; i < n; i++) {
        int k = i < n0 ? 0 : 1;
        const tp_step_row *s = &d->s[k]->sf.steps[k ? i - n0 : i];
        snprintf(lb[i], sizeof lb[i], "%s %lld", k ? "cand" : "base", (long long)s->step);
        labels[i] = lb[i];
        vals[i] = s->host_ns;
        cols[i] = k ? DP_CAND_COLOR : DP_BASE_COLOR;
    }
    char title[160];
    if (all0 > n0 || all1 > n1)
        snprintf(title, sizeof title, "Step times (host duration; first %zu steps of each run)", max);
    else
        snprintf(title, sizeof title, "Step times (host duration of each step)");
    tp_legend_item leg[2] = {{"base", DP_BASE_COLOR}, {"candidate", DP_CAND_COLOR}};
    tp_barchart c = {.title = title,
                     .value_label = "step time",
                     .n = n,
                     .labels = labels,
                     .values = vals,
                     .colors = cols,
                     .value_labels = 1,
                     .legend = leg,
                     .nlegend = 2,
                     .font_size = fs};
    tp_barchart_draw(cv, &c, r);
    free(labels);
    free(vals);
    free(cols);
    free(lb);
}

void tp_diff_png_page(struct tp_canvas *cv, const tp_diff *d, int which)
{
    const double w = DP_PNG_W, pad = DP_PNG_PAD;
    if (which == 0) {
        changes ch;
        changes_build(d, &ch);
        ch.c.font_size = DP_PNG_FONT;
        double h = ceil(2 * pad + tp_diverging_height(&ch.c, w - 2 * pad));
        tp_cv_begin_page(cv, w, h, "png/changes.png");
        tp_cv_fill_rect(cv, 0, 0, w, h, 0xFFFFFF);
        tp_diverging_draw(cv, &ch.c, (tp_rect){pad, pad, w - 2 * pad, h - 2 * pad});
        changes_free(&ch);
    } else {
        const double h = DP_PNG_H;
        tp_cv_begin_page(cv, w, h, "png/steps.png");
        tp_cv_fill_rect(cv, 0, 0, w, h, 0xFFFFFF);
        draw_steps(cv, d, (tp_rect){pad, pad, w - 2 * pad, h - 2 * pad}, DP_PNG_STEPS, DP_PNG_FONT);
    }
    tp_cv_end_page(cv);
}

static int write_png(const char *dir, const char *name, const tp_diff *d, double scale, int which, tp_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tp_canvas *cv = tp_canvas_png(path, scale, err);
    if (!cv)
        return -1;
    tp_diff_png_page(cv, d, which);
    return tp_canvas_close(cv, err);
}

/* The tables flow down the pages (issue 36: no page holds a lone one-row
 * table): a table starts below the previous one when the room left holds
 * all of it or a third of the page, else on a new page; each shows the rows
 * that fit (the largest changes), diff.json has them all under `key`. */
typedef struct table_flow {
    double w, h, y; /* the page's size; y: where the next table goes, 0 when no page is open */
} table_flow;

static void table_page(tp_canvas *cv, const char *title, const char *what, const char *key, const tp_diff_table *t,
                       table_flow *fl)
{
    const double w = fl->w, h = fl->h;
    static const tp_table_col base_cols[] = {
        {NULL, 0, TP_FIT_MIDDLE, 1}, {"count base", 1, 0, 0}, {"count cand", 1, 0, 0},
        {"total base", 1, 0, 0},     {"total cand", 1, 0, 0}, {"change", 1, 0, 0},
        {"change %", 1, 0, 0},       {"share", 1, 0, 0},      {"match", 0, TP_FIT_END, 0}};
    tp_table_col cols[9];
    memcpy(cols, base_cols, sizeof cols);
    cols[0].header = what;
    tp_strs c = {0};
    const char **cv_cells = tp_xcalloc(t->n * 9 + 1, sizeof *cv_cells);
    for (size_t i = 0; i < t->n; i++) {
        const tp_diff_row *r = &t->rows[i];
        char a[40], b[40], dl[48], rel[32];
        tp_fmt_dur(a, sizeof a, r->total[0]);
        tp_fmt_dur(b, sizeof b, r->total[1]);
        tp_diff_fmt_delta(dl, sizeof dl, r->delta);
        tp_diff_fmt_rel(rel, sizeof rel, r);
        const char **row = cv_cells + i * 9;
        row[0] = r->label; /* the short name summary.md, diff.md and the charts show */
        row[1] = tp_strs_add(&c, "%llu", (unsigned long long)r->count[0]);
        row[2] = tp_strs_add(&c, "%llu", (unsigned long long)r->count[1]);
        row[3] = tp_strs_add(&c, "%s", a);
        row[4] = tp_strs_add(&c, "%s", b);
        row[5] = tp_strs_add(&c, "%s", dl);
        row[6] = tp_strs_add(&c, "%s", rel);
        char sh[32];
        tp_diff_fmt_share(sh, sizeof sh, r);
        row[7] = tp_strs_add(&c, "%s", sh);
        row[8] = r->op ? tp_strs_add(&c, "op %s", r->op) : tp_diff_match_name(r->match);
    }
    tp_table tb = {title, 9, cols, t->n, cv_cells, 7, 2, NULL};
    const double full_h = h - 2 * DP_MARGIN, gap = 18;
    tp_table_layout *L = tp_table_layout_new(&tb, w - 2 * DP_MARGIN, full_h - 14);
    double need = tp_table_page_height(&tb, L, 0) + 14; /* its first page's rows and the "first N of M" line */
    tp_table_layout_free(L);
    double room = fl->y > 0 ? h - DP_MARGIN - (fl->y + gap) : 0;
    if (fl->y <= 0 || room < fmin(need, full_h / 3)) {
        if (fl->y > 0)
            tp_cv_end_page(cv);
        tp_cv_begin_page(cv, w, h, title);
        fl->y = DP_MARGIN;
        room = full_h;
    } else
        fl->y += gap;
    tp_rect area = {DP_MARGIN, fl->y, w - 2 * DP_MARGIN, room};
    fl->y = tp_page_table_top(cv, &tb, area, tp_strs_add(&c, "diff.json \"%s\"", key));
    tp_strs_free(&c);
    free(cv_cells);
}

static void draw_pdf(tp_canvas *cv, const tp_diff *d, const char *verdict, const char *why)
{
    const double w = 842, h = 595;
    tp_cv_begin_page(cv, w, h, "Summary and largest changes");
    double y = DP_MARGIN;
    char line[600];
    /* each name fitted to half the room and kept apart: a cut of the whole line could leave two equal names */
    const char *names[2] = {d->s[0]->name, d->s[1]->name};
    double room = (w - 2 * DP_MARGIN - tp_text_width(TP_FONT_BOLD, 14, "tracepress diff:  -> ")) / 2;
    double rooms[2] = {fmax(room, 2 * room - tp_text_width(TP_FONT_BOLD, 14, names[1])), /* a short name lends */
                       fmax(room, 2 * room - tp_text_width(TP_FONT_BOLD, 14, names[0]))};
    if (rooms[0] <= room && rooms[1] <= room) /* both long: halves */
        rooms[0] = rooms[1] = room;
    char **fit = tp_fit_apart(TP_FONT_BOLD, 14, names, 2, rooms, tp_fit_middle);
    snprintf(line, sizeof line, "tracepress diff: %s -> %s", fit[0], fit[1]);
    tp_fit_apart_free(fit, 2);
    tp_cv_text(cv, DP_MARGIN, y + tp_font_ascent(TP_FONT_BOLD, 14), TP_FONT_BOLD, 14, TP_COLOR_TEXT, TP_ALIGN_LEFT,
               0, line);
    y += 20;
    /* what ran where: a cross-vendor diff says so before any number */
    tp_buf dv = {0};
    for (int k = 0; k < 2; k++) {
        const tp_summary *sk = d->s[k];
        tp_buf_printf(&dv, "%s: %s", k ? "; candidate" : "Base", sk->ndevices ? sk->devices[0] : "device not recorded");
        if (sk->ndevices > 1)
            tp_buf_printf(&dv, " and %zu more", sk->ndevices - 1);
        tp_buf_printf(&dv, " (%s)", sk->t && sk->t->format ? sk->t->format : "?");
    }
    char *dfit = tp_fit_end(TP_FONT_REGULAR, 10, dv.data, w - 2 * DP_MARGIN);
    tp_cv_text(cv, DP_MARGIN, y + tp_font_ascent(TP_FONT_REGULAR, 10), TP_FONT_REGULAR, 10, TP_COLOR_TEXT,
               TP_ALIGN_LEFT, 0, dfit);
    free(dfit);
    tp_buf_free(&dv);
    y += 16;
    /* the verdict, then why (the noise), each on a line of its own */
    tp_cv_text(cv, DP_MARGIN, y + tp_font_ascent(TP_FONT_BOLD, 10), TP_FONT_BOLD, 10, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0,
               verdict);
    y += 14;
    tp_cv_text(cv, DP_MARGIN, y + tp_font_ascent(TP_FONT_REGULAR, 10), TP_FONT_REGULAR, 10, TP_COLOR_TEXT,
               TP_ALIGN_LEFT, 0, why);
    y += 20;
    draw_changes(cv, d, (tp_rect){DP_MARGIN, y, w - 2 * DP_MARGIN, h - DP_MARGIN - y});
    tp_cv_end_page(cv);
    if (d->has_steps) {
        tp_cv_begin_page(cv, w, h, "Step times");
        draw_steps(cv, d, (tp_rect){DP_MARGIN, DP_MARGIN, w - 2 * DP_MARGIN, h - 2 * DP_MARGIN}, DP_STEPS_MAX, 0);
        tp_cv_end_page(cv);
    }
    table_flow fl = {w, h, 0};
    if (d->has_steps)
        table_page(cv, "Steps", "step", "steps", &d->steps, &fl);
    table_page(cv, "Kernels", "kernel", "kernels", &d->kernels, &fl);
    if (d->ops.n)
        table_page(cv, "Ops (device time launched)", "op", "ops", &d->ops, &fl);
    tp_cv_end_page(cv);
}

int tp_diff_pages(const tp_diff *d, const char *dir, double png_scale, const char ***pngs, tp_err *err)
{
    *pngs = tp_xcalloc(3, sizeof **pngs);
    size_t n = 0;
    if (write_png(dir, "png/changes.png", d, png_scale, 0, err) < 0)
        return -1;
    (*pngs)[n++] = "png/changes.png";
    if (d->has_steps) {
        if (write_png(dir, "png/steps.png", d, png_scale, 1, err) < 0)
            return -1;
        (*pngs)[n++] = "png/steps.png";
    }
    char path[4096], v[600], a[40], b[40], why[200];
    snprintf(path, sizeof path, "%s/diff.pdf", dir);
    tp_fmt_dur(a, sizeof a, d->head[0]);
    tp_fmt_dur(b, sizeof b, d->head[1]);
    tp_diff_noise_text(d, why, sizeof why - 1);
    strcat(why, ".");
    why[0] = (char)toupper((unsigned char)why[0]); /* a line of its own: a sentence */
    snprintf(v, sizeof v, "Verdict: %s. %s: %s -> %s", tp_diff_verdict_name(d->verdict),
             d->has_steps ? "Median step time" : "Total device time", a, b);
    if (d->head_has_rel)
        snprintf(v + strlen(v), sizeof v - strlen(v), " (%+.1f%%)", d->head_rel * 100.0 + 0.0);
    char title[600];
    snprintf(title, sizeof title, "tracepress diff: %s -> %s", d->s[0]->name, d->s[1]->name);
    tp_canvas *cv = tp_canvas_pdf(path,
                                  &(tp_pdf_meta){.title = title,
                                                 .subject = "Two traces compared: step time, kernels, ops, "
                                                            "categories and the GPU time split, with a verdict"},
                                  err);
    if (!cv)
        return -1;
    draw_pdf(cv, d, v, why);
    return tp_canvas_close(cv, err);
}
