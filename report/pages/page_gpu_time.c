/* page_gpu_time.c: "Where the GPU time goes": the GPU time split
 * (computation, exposed communication, exposed memcpy, idle: they add up to
 * the GPU span) of the whole trace per device and per step, and the op
 * categories with their top ops (docs/REPORT.md "Where the GPU time goes").
 * One drawing in a rectangle, for the PDF page and png/gpu_time.png. */
#include "render/charts/axis.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"
#include "report/pages/pages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS 7.5           /* table text */
#define ROW_H 12.0       /* table row */
#define HEAD_H 20.0      /* two-line header of the split tables */
#define TITLE_FS 9.0     /* a part's title */
#define TITLE_H 15.0
#define MAX_DEVICES 16   /* device rows; the rest are counted */
#define MAX_STEP_BARS 200 /* steps in the per-step chart; the rest are counted */
#define MIN_CAT_ROWS 5   /* category rows kept when the steps need room */
#define CHART_MIN_H 90.0 /* below this the per-step chart is not drawn */
#define TOP_OPS 3        /* top ops shown per category */

/* The split's four parts, in bar order; their colours are palette slots no
 * category takes (category_color), so no colour means two things here. */
enum { PART_COMP, PART_XCOMM, PART_XMEMCPY, PART_IDLE, NPARTS };
static const char *const part_head[NPARTS][2] = {
    {"computation", ""}, {"exposed", "communication"}, {"exposed", "memcpy"}, {"idle", ""}};

static tp_color part_color(int p) { return tp_split_color(p); } /* PART_* = TP_SPLIT_* */

static int64_t part_ns(const tp_gpu_figs *f, int p)
{
    return p == PART_COMP ? f->computation_ns
           : p == PART_XCOMM ? f->exposed_communication_ns
           : p == PART_XMEMCPY ? f->exposed_memcpy_ns
                               : f->idle_ns;
}

/* s with control characters (a newline in an op name) as spaces: the
 * fonts draw nothing for them, and text measured with them would leave gaps */
static char *clean(const char *s)
{
    char *c = tp_xstrdup(s ? s : "");
    for (char *p = c; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F)
            *p = ' ';
    return c;
}

static void text(tp_canvas *cv, double x, double y_mid, tp_font f, double size, tp_color c, tp_align a, const char *s)
{
    char *t = clean(s);
    tp_cv_text(cv, x, tp_text_baseline_mid(f, size, y_mid), f, size, c, a, 0, t);
    free(t);
}

/* s fitted into w (end elided) and drawn */
static void text_fit(tp_canvas *cv, double x, double y_mid, tp_font f, double size, tp_color c, double w,
                     const char *s)
{
    char *t = clean(s), *fit = tp_fit_end(f, size, t, fmax(0, w));
    text(cv, x, y_mid, f, size, c, TP_ALIGN_LEFT, fit);
    free(fit);
    free(t);
}

static double part_title(tp_canvas *cv, double x, double y, double w, const char *s)
{
    text_fit(cv, x, y + TITLE_H / 2, TP_FONT_BOLD, TITLE_FS, TP_COLOR_TEXT, w, s);
    return y + TITLE_H;
}

static double note(tp_canvas *cv, double x, double y, double w, const char *s)
{
    text_fit(cv, x, y + ROW_H / 2, TP_FONT_REGULAR, FS, TP_COLOR_MUTED, w, s);
    return y + ROW_H;
}

/* ---- the split tables: label | GPU span | four parts | bar ---- */

typedef struct split_row {
    const char *label;
    const tp_gpu_figs *f;
    bool bar; /* draw its bar (not for a sum over devices) */
} split_row;

typedef struct split_cols {
    double x, w;          /* the table */
    double label_w;       /* label column */
    double num_w[1 + NPARTS]; /* span, then the parts */
    double bar_x, bar_w;
    int64_t bar_max;      /* span drawn as the whole bar width */
    const char *head;     /* the label column's head: "device / step", "device" in a trace without steps */
    int unit[1 + NPARTS]; /* a column's one unit, its largest value's, named in its head (docs/REPORT.md "Numbers") */
} split_cols;

static int64_t cell_ns(const tp_gpu_figs *f, int c) { return c == 0 ? f->span_ns : part_ns(f, c - 1); }

/* One unit a column: the 3-GPU XPlane's computation column read "0 ns (0.0%)" above "14.825 ms (12.4%)", its exposed
 * memcpy "33.792 us" beside the idle's "13.384 ms" of one row. */
static void cell_text(const tp_gpu_figs *f, int c, int unit, char *buf, size_t n)
{
    char d[48];
    tp_fmt_dur_in(d, sizeof d, cell_ns(f, c), unit);
    if (c == 0) {
        snprintf(buf, n, "%s", d);
        return;
    }
    char pct[32];
    tp_fmt_pct(pct, sizeof pct, part_ns(f, c - 1), f->span_ns);
    snprintf(buf, n, "%s (%s)", d, pct);
}

/* A column's head lines, the unit after the last: "GPU span (ms)", "exposed" / "communication (ms)". */
static void col_head(const split_cols *L, size_t c, char *h0, char *h1, size_t n)
{
    const char *a = c ? part_head[c - 1][0] : "GPU span", *b = c ? part_head[c - 1][1] : "";
    const char *u = tp_dur_unit_name(L->unit[c]);
    if (*b) {
        snprintf(h0, n, "%s", a);
        snprintf(h1, n, "%s (%s)", b, u);
    } else {
        snprintf(h0, n, "%s (%s)", a, u);
        h1[0] = 0;
    }
}

/* Column widths that fit every row of both tables. */
static split_cols split_layout(const split_row *rows, size_t n, double x, double w, bool steps)
{
    split_cols L = {.x = x, .w = w, .head = steps ? "device / step" : "device"};
    double labw = tp_text_width(TP_FONT_BOLD, FS, L.head);
    for (size_t c = 0; c <= NPARTS; c++) { /* both tables' rows: one unit a column on the page */
        int64_t most = 0;
        for (size_t i = 0; i < n; i++)
            most = cell_ns(rows[i].f, (int)c) > most ? cell_ns(rows[i].f, (int)c) : most;
        L.unit[c] = tp_dur_unit(most);
        char h0[64], h1[64];
        col_head(&L, c, h0, h1, sizeof h0);
        L.num_w[c] = fmax(tp_text_width(TP_FONT_BOLD, FS, h0), tp_text_width(TP_FONT_BOLD, FS, h1)) + (c ? FS + 3 : 0);
    }
    for (size_t i = 0; i < n; i++) {
        labw = fmax(labw, tp_text_width(rows[i].bar ? TP_FONT_REGULAR : TP_FONT_BOLD, FS, rows[i].label));
        for (size_t c = 0; c <= NPARTS; c++) {
            char b[96];
            cell_text(rows[i].f, (int)c, L.unit[c], b, sizeof b);
            L.num_w[c] = fmax(L.num_w[c], tp_text_width(TP_FONT_REGULAR, FS, b));
        }
        if (rows[i].bar && rows[i].f->span_ns > L.bar_max)
            L.bar_max = rows[i].f->span_ns;
    }
    double nums = 0;
    for (size_t c = 0; c <= NPARTS; c++)
        nums += L.num_w[c] + 10;
    /* the label takes what it needs up to a quarter, the bar the rest (at least 80) */
    L.label_w = fmin(labw + 6, fmax(40, fmin(w * 0.25, w - nums - 80)));
    L.bar_x = x + L.label_w + nums + 6;
    L.bar_w = fmax(0, x + w - L.bar_x);
    return L;
}

static void split_header(tp_canvas *cv, const split_cols *L, double y)
{
    tp_cv_fill_rect(cv, L->x, y, L->w, HEAD_H, TP_COLOR_HEADER);
    double mid1 = y + HEAD_H * 0.3, mid2 = y + HEAD_H * 0.72, x = L->x + L->label_w;
    for (size_t c = 0; c <= NPARTS; c++) {
        x += L->num_w[c] + 10;
        char h0[64], h1[64];
        col_head(L, c, h0, h1, sizeof h0);
        bool two = *h1 != 0;
        text(cv, x - 4, two ? mid1 : y + HEAD_H / 2, TP_FONT_BOLD, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, h0);
        if (two)
            text(cv, x - 4, mid2, TP_FONT_BOLD, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, h1);
        if (c) { /* the swatch: this header is the split's legend */
            double tw = fmax(tp_text_width(TP_FONT_BOLD, FS, h0), tp_text_width(TP_FONT_BOLD, FS, h1));
            double sx = x - 4 - tw - FS - 3, sy = y + (HEAD_H - FS) / 2;
            tp_cv_fill_rect(cv, sx, sy, FS, FS, part_color((int)c - 1));
            tp_cv_stroke_rect(cv, sx, sy, FS, FS, TP_COLOR_AXIS, 0.4);
        }
    }
    text(cv, L->x + 3, y + HEAD_H / 2, TP_FONT_BOLD, FS, TP_COLOR_TEXT, TP_ALIGN_LEFT, L->head);
    if (L->bar_w > 30)
        text(cv, L->bar_x, y + HEAD_H / 2, TP_FONT_BOLD, FS, TP_COLOR_TEXT, TP_ALIGN_LEFT, "GPU span, split");
}

static void split_row_draw(tp_canvas *cv, const split_cols *L, const split_row *r, size_t i, double y, tp_strs *st)
{
    if (i % 2)
        tp_cv_fill_rect(cv, L->x, y, L->w, ROW_H, TP_COLOR_ZEBRA);
    double mid = y + ROW_H / 2;
    text_fit(cv, L->x + 3, mid, r->bar ? TP_FONT_REGULAR : TP_FONT_BOLD, FS, TP_COLOR_TEXT, L->label_w - 6, r->label);
    double x = L->x + L->label_w;
    for (size_t c = 0; c <= NPARTS; c++) {
        char b[96];
        cell_text(r->f, (int)c, L->unit[c], b, sizeof b);
        x += L->num_w[c] + 10;
        text(cv, x - 4, mid, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, b);
    }
    if (!r->bar || L->bar_max <= 0 || L->bar_w <= 0 || r->f->span_ns <= 0)
        return;
    /* the bar: its length the span (to the longest span of the table), split
     * in the four parts, which add up to the span exactly */
    double bx = L->bar_x, bh = ROW_H - 4, scale = L->bar_w / (double)L->bar_max;
    int64_t cum = 0;
    for (int p = 0; p < NPARTS; p++) {
        int64_t v = part_ns(r->f, p);
        double x0 = bx + (double)cum * scale, x1 = bx + (double)(cum + v) * scale;
        if (v > 0)
            tp_cv_fill_rect(cv, x0, y + 2, fmax(0.3, x1 - x0), bh, part_color(p));
        cum += v;
    }
    tp_cv_stroke_rect(cv, bx, y + 2, (double)r->f->span_ns * scale, bh, TP_COLOR_AXIS, 0.4);
}

static double split_table(tp_canvas *cv, const split_cols *L, const split_row *rows, size_t n, double y)
{
    tp_strs st = {0};
    split_header(cv, L, y);
    y += HEAD_H;
    for (size_t i = 0; i < n; i++, y += ROW_H)
        split_row_draw(cv, L, &rows[i], i, y, &st);
    tp_strs_free(&st);
    return y;
}

/* ---- per step: a stacked column chart when the table would not fit ---- */

static void steps_chart(tp_canvas *cv, const tp_pagectx *pc, size_t n, tp_rect r)
{
    const tp_gpu_time *g = &pc->s->gt;
    int64_t max = 0;
    for (size_t k = 0; k < n; k++)
        max = g->steps[k].span_ns > max ? g->steps[k].span_ns : max;
    tp_ticks t;
    tp_ticks_linear((double)max, 4, &t);
    double tickw = 0;
    for (int i = 0; i < t.n; i++)
        tickw = fmax(tickw, tp_text_width(TP_FONT_REGULAR, FS, t.label[i]));
    double px = r.x + tickw + 6, pw = r.x + r.w - px, py = r.y + 4, ph = r.h - ROW_H - 8;
    double base = py + ph, slot = pw / (double)n, bw = fmax(0.4, slot * 0.8);
    for (int i = 0; i < t.n; i++) {
        double yy = base - tp_ticks_pos(&t, t.v[i]) * ph;
        if (i > 0)
            tp_cv_line(cv, px, yy, px + pw, yy, TP_COLOR_GRID, 0.5);
        text(cv, px - 4, yy, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, t.label[i]);
    }
    for (size_t k = 0; k < n; k++) {
        double cx = px + slot * ((double)k + 0.5);
        int64_t cum = 0;
        for (int p = 0; p < NPARTS; p++) {
            int64_t v = part_ns(&g->steps[k], p);
            if (v <= 0)
                continue;
            double y0 = base - tp_ticks_pos(&t, (double)cum) * ph, y1 = base - tp_ticks_pos(&t, (double)(cum + v)) * ph;
            tp_cv_fill_rect(cv, cx - bw / 2, y1, bw, fmax(0.3, y0 - y1), part_color(p));
            cum += v;
        }
        /* the idle part is white: the outline shows the span; narrow columns
         * get only their top edge (outlines side by side would be a grid) */
        double top = base - tp_ticks_pos(&t, (double)cum) * ph;
        if (cum > 0 && bw >= 5)
            tp_cv_stroke_rect(cv, cx - bw / 2, top, bw, base - top, TP_COLOR_AXIS, 0.4);
        else if (cum > 0)
            tp_cv_line(cv, cx - bw / 2, top, cx + bw / 2, top, TP_COLOR_AXIS, 0.8);
    }
    tp_cv_line(cv, px, py, px, base, TP_COLOR_AXIS, 0.8);
    tp_cv_line(cv, px, base, px + pw, base, TP_COLOR_AXIS, 0.8);
    /* step labels: every k-th, so that they never touch */
    double labw = 0;
    char lab[160];
    for (size_t k = 0; k < n; k++) {
        tp_step_label(pc->s->t, &pc->s->sf, &pc->s->sf.steps[k], lab, sizeof lab);
        labw = fmax(labw, tp_text_width(TP_FONT_REGULAR, FS, lab));
    }
    labw = fmin(labw, 120);
    size_t every = slot >= labw + 6 ? 1 : (size_t)ceil((labw + 6) / slot);
    for (size_t k = 0; k < n; k += every) {
        tp_step_label(pc->s->t, &pc->s->sf, &pc->s->sf.steps[k], lab, sizeof lab);
        char *fit = tp_fit_end(TP_FONT_REGULAR, FS, lab, fmax(slot * (double)every - 6, 0));
        text(cv, px + slot * ((double)k + 0.5), base + 3 + ROW_H / 2, TP_FONT_REGULAR, FS, TP_COLOR_TEXT,
             TP_ALIGN_CENTER, fit);
        free(fit);
    }
}

/* ---- the categories table ---- */

static double categories_table(tp_canvas *cv, const tp_pagectx *pc, size_t nrows, double x, double y, double w)
{
    const tp_categories *c = &pc->s->cat;
    const tp_color *col = pc->cat_colors;
    tp_strs st = {0};
    bool per_step = c->nsteps >= 2;
    enum { C_NAME, C_TIME, C_SHARE, C_COUNT, C_STEP, C_TOP, NC };
    /* one unit for the time column, its largest value's, named in the header (docs/REPORT.md "Numbers"): the rows
     * read "24.815 ms" above "212.234 us" and "2.368 us" (H100 Qwen) */
    int64_t most = 0;
    for (size_t i = 0; i < nrows; i++)
        most = c->rows[i].device_ns > most ? c->rows[i].device_ns : most;
    int unit = tp_dur_unit(most);
    const char *head[NC] = {"category", tp_strs_add(&st, "device time (%s)", tp_dur_unit_name(unit)), "share", "count",
                            "share per step (min - max)", "top ops (share of the category)"};
    const char **cells = tp_xcalloc(nrows * NC + 1, sizeof *cells);
    for (size_t i = 0; i < nrows; i++) {
        const tp_cat_row *r = &c->rows[i];
        const char **cl = cells + i * NC;
        char p[32];
        cl[C_NAME] = c->rules->names[r->category];
        char in_unit[48];
        tp_fmt_dur_in(in_unit, sizeof in_unit, r->device_ns, unit);
        cl[C_TIME] = tp_strs_add(&st, "%s", in_unit);
        tp_fmt_pct(p, sizeof p, r->device_ns, c->total_ns);
        cl[C_SHARE] = tp_strs_add(&st, "%s", p);
        cl[C_COUNT] = tp_strs_count(&st, r->count);
        if (per_step) { /* over the steps with device time */
            int64_t lo_n = 0, lo_d = 0, hi_n = 0, hi_d = 0;
            for (size_t k = 0; k < c->nsteps; k++) {
                int64_t d = c->step_total[k], v = r->step_ns[k];
                if (d <= 0)
                    continue;
                if (!lo_d || (__int128)v * lo_d < (__int128)lo_n * d)
                    lo_n = v, lo_d = d;
                if (!hi_d || (__int128)v * hi_d > (__int128)hi_n * d)
                    hi_n = v, hi_d = d;
            }
            char a[32], b[32];
            tp_fmt_pct(a, sizeof a, lo_n, lo_d);
            tp_fmt_pct(b, sizeof b, hi_n, hi_d);
            cl[C_STEP] = lo_d ? tp_strs_add(&st, "%s - %s", a, b) : "-";
        }
    }
    /* widths: the numbers keep theirs, the top ops take the rest */
    double cw[NC];
    for (int k = 0; k < NC; k++) {
        cw[k] = tp_text_width(TP_FONT_BOLD, FS, head[k]) + 10;
        for (size_t i = 0; i < nrows; i++)
            if (cells[i * NC + k])
                cw[k] = fmax(cw[k], tp_text_width(TP_FONT_REGULAR, FS, cells[i * NC + k]) + 10);
    }
    cw[C_NAME] += FS + 4; /* the swatch */
    cw[C_NAME] = fmin(cw[C_NAME], 130);
    if (!per_step)
        cw[C_STEP] = 0;
    cw[C_TOP] = fmax(60, w - cw[C_NAME] - cw[C_TIME] - cw[C_SHARE] - cw[C_COUNT] - cw[C_STEP]);
    double cx[NC + 1];
    cx[0] = x;
    for (int k = 0; k < NC; k++)
        cx[k + 1] = cx[k] + cw[k];
    /* header */
    tp_cv_fill_rect(cv, x, y, w, ROW_H + 2, TP_COLOR_HEADER);
    for (int k = 0; k < NC; k++) {
        if (!cw[k])
            continue;
        double mid = y + (ROW_H + 2) / 2;
        if (k == C_NAME || k == C_TOP)
            text_fit(cv, cx[k] + 3, mid, TP_FONT_BOLD, FS, TP_COLOR_TEXT, cw[k] - 6, head[k]);
        else
            text(cv, cx[k + 1] - 5, mid, TP_FONT_BOLD, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, head[k]);
    }
    y += ROW_H + 2;
    for (size_t i = 0; i < nrows; i++, y += ROW_H) {
        const tp_cat_row *r = &c->rows[i];
        const char **cl = cells + i * NC;
        double mid = y + ROW_H / 2;
        if (i % 2)
            tp_cv_fill_rect(cv, x, y, w, ROW_H, TP_COLOR_ZEBRA);
        tp_cv_fill_rect(cv, cx[C_NAME] + 3, mid - FS / 2, FS, FS, col[c->rows[i].category]);
        tp_cv_stroke_rect(cv, cx[C_NAME] + 3, mid - FS / 2, FS, FS, TP_COLOR_AXIS, 0.4);
        text_fit(cv, cx[C_NAME] + 3 + FS + 4, mid, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, cw[C_NAME] - FS - 10, cl[C_NAME]);
        for (int k = C_TIME; k <= C_STEP; k++)
            if (cw[k] && cl[k])
                text(cv, cx[k + 1] - 5, mid, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, TP_ALIGN_RIGHT, cl[k]);
        /* top ops: "name (share)" each; long names elided in the middle so
         * that every one of them shows */
        size_t nt = r->ntop < TOP_OPS ? r->ntop : TOP_OPS;
        double room = cw[C_TOP] - 6, sep = tp_text_width(TP_FONT_REGULAR, FS, ", ");
        char *part[TOP_OPS], *names[TOP_OPS];
        double need = 0, tail_w[TOP_OPS];
        for (size_t k = 0; k < nt; k++) {
            const tp_leaf_row *l = &c->leaves[r->top[k]];
            char p[32];
            tp_fmt_pct(p, sizeof p, l->device_ns, r->device_ns);
            char tail[40];
            snprintf(tail, sizeof tail, " (%s)", p);
            tail_w[k] = tp_text_width(TP_FONT_REGULAR, FS, tail);
            names[k] = clean(l->name);
            need += tp_text_width(TP_FONT_REGULAR, FS, names[k]) + tail_w[k] + (k ? sep : 0);
        }
        double xx = cx[C_TOP] + 3;
        for (size_t k = 0; k < nt; k++) {
            const tp_leaf_row *l = &c->leaves[r->top[k]];
            double each = (room - sep * (double)(nt - 1)) / (double)nt - tail_w[k];
            char *nm = need <= room ? tp_xstrdup(names[k]) : tp_fit_middle(TP_FONT_REGULAR, FS, names[k], fmax(0, each));
            free(names[k]);
            char p[32];
            tp_fmt_pct(p, sizeof p, l->device_ns, r->device_ns);
            part[k] = tp_xmalloc(strlen(nm) + 48);
            sprintf(part[k], "%s%s (%s)", k ? ", " : "", nm, p);
            free(nm);
            text_fit(cv, xx, mid, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, cx[C_TOP] + cw[C_TOP] - 3 - xx, part[k]);
            xx += tp_text_width(TP_FONT_REGULAR, FS, part[k]);
            free(part[k]);
        }
    }
    free(cells);
    tp_strs_free(&st);
    return y;
}

/* ---- the whole drawing ---- */

/* height of the categories part with `rows` of its n rows */
static double cat_height(size_t n, size_t rows)
{
    return TITLE_H + (rows ? ROW_H + 2 : 0) + ROW_H * (double)rows + (rows < n ? ROW_H : 0);
}

void tp_chart_gpu_time(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const tp_summary *s = pc->s;
    const tp_gpu_time *g = &s->gt;
    const tp_categories *c = &s->cat;
    tp_strs st = {0};
    double x = r.x, w = r.w, y = r.y, bottom = r.y + r.h;
    text_fit(cv, x, y + 8, TP_FONT_BOLD, 13, TP_COLOR_TEXT, w, "Where the GPU time goes");
    y += 20;
    y = note(cv, x, y, w,
             "computation + exposed communication + exposed memcpy + idle = GPU span (first to last device activity), "
             "per device. Shares of the GPU span (docs/REPORT.md).");
    y += 4;
    if (g->whole.span_ns <= 0) {
        note(cv, x, y, w, "No device activity in this trace: no GPU time to split, no categories.");
        tp_strs_free(&st);
        return;
    }

    /* (a) whole trace, per device */
    size_t ndev = g->ndevices < MAX_DEVICES ? g->ndevices : MAX_DEVICES;
    bool sum_row = g->ndevices > 1;
    size_t nsteps = g->nsteps, nstep_rows = nsteps + (g->outside.span_ns > 0);
    split_row *rows = tp_xcalloc(ndev + 1 + nstep_rows + 1, sizeof *rows);
    size_t na = 0;
    for (size_t d = 0; d < ndev; d++)
        rows[na++] = (split_row){g->devices[d].label, &g->devices[d].whole, true};
    if (sum_row)
        rows[na++] = (split_row){tp_strs_add(&st, "sum of %zu devices", g->ndevices), &g->whole, false};
    split_row *srows = rows + na;
    for (size_t k = 0; k < nsteps; k++) {
        char lab[160];
        tp_step_label(s->t, &s->sf, &s->sf.steps[k], lab, sizeof lab);
        srows[k] = (split_row){tp_strs_add(&st, "%s", lab), &g->steps[k], true};
    }
    if (nstep_rows > nsteps)
        srows[nsteps] = (split_row){"outside the steps", &g->outside, true};

    /* heights: (a) as it is; the steps as a table when it fits with at
     * least MIN_CAT_ROWS categories, else as a chart; the categories the
     * rows left */
    double avail = bottom - y;
    double ha = TITLE_H + HEAD_H + ROW_H * (double)na + (g->ndevices > ndev ? ROW_H : 0) + 8;
    size_t ncat = c->n, ncat_rows = ncat;
    double hb = 0;
    bool step_table = false;
    if (nsteps) {
        double table_h = TITLE_H + HEAD_H + ROW_H * (double)nstep_rows + 8;
        while (ncat_rows > MIN_CAT_ROWS && ha + table_h + cat_height(ncat, ncat_rows) > avail)
            ncat_rows--;
        if (ha + table_h + cat_height(ncat, ncat_rows) <= avail) {
            step_table = true;
            hb = table_h;
        } else {
            ncat_rows = ncat;
            while (ncat_rows > MIN_CAT_ROWS && avail - ha - cat_height(ncat, ncat_rows) < CHART_MIN_H + TITLE_H + 8)
                ncat_rows--;
            hb = avail - ha - cat_height(ncat, ncat_rows);
            if (hb < CHART_MIN_H + TITLE_H + 8)
                hb = ROW_H + 4; /* a note instead */
        }
    }
    while (ncat_rows > 0 && ha + hb + cat_height(ncat, ncat_rows) > avail)
        ncat_rows--;
    split_cols L = split_layout(rows, na + (step_table ? nstep_rows : 0), x, w, nsteps > 0);

    y = part_title(cv, x, y,  w,
                   g->ndevices > 1 ? tp_strs_add(&st, "Whole trace, per device (%zu devices)", g->ndevices)
                                   : "Whole trace");
    y = split_table(cv, &L, rows, na, y);
    if (g->ndevices > ndev)
        y = note(cv, x, y, w,
                 tp_strs_add(&st, "%zu more devices: summary.json gpu_time.devices", g->ndevices - ndev));
    y += 8;

    /* (b) per step */
    if (nsteps && step_table) {
        y = part_title(cv, x, y, w, "Per step (device work clipped to the step's window; the rows add up to the whole)");
        y = split_table(cv, &L, srows, nstep_rows, y);
        y += 8;
    } else if (nsteps && hb >= CHART_MIN_H + TITLE_H + 8) {
        size_t n = nsteps < MAX_STEP_BARS ? nsteps : MAX_STEP_BARS;
        const char *t = n < nsteps ? tp_strs_add(&st, "Per step: the first %zu of %zu steps (%zu more in "
                                                       "summary.json gpu_time.steps), split as above",
                                                 n, nsteps, nsteps - n)
                                   : tp_strs_add(&st, "Per step (%zu steps): the GPU span of each, split as above",
                                                 nsteps);
        y = part_title(cv, x, y, w, t);
        steps_chart(cv, pc, n, (tp_rect){x, y, w, hb - TITLE_H - 8});
        y += hb - TITLE_H;
    } else if (nsteps) {
        y = note(cv, x, y, w, tp_strs_add(&st, "%zu steps: their split is in summary.json gpu_time.steps", nsteps));
        y += 4;
    }

    /* (c) categories */
    char tot[64];
    tp_fmt_dur(tot, sizeof tot, c->total_ns);
    y = part_title(cv, x, y, w,
                   tp_strs_add(&st, "Op categories: device time (sum of activity durations; all: %s), top ops", tot));
    if (ncat_rows)
        y = categories_table(cv, pc, ncat_rows, x, y, w);
    if (ncat > ncat_rows)
        note(cv, x, y, w,
             tp_strs_add(&st, "%zu more %s: summary.json categories", ncat - ncat_rows,
                         ncat - ncat_rows == 1 ? "category" : "categories"));
    free(rows);
    tp_strs_free(&st);
}

void tp_page_gpu_time(tp_canvas *cv, const tp_pagectx *pc)
{
    double m = TP_PAGE_MARGIN;
    if (pc->s->gt.whole.span_ns <= 0) {
        tp_page_note(pc, "Where the GPU time goes", "no device activity in this trace, no GPU time to split.");
        return;
    }
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Where the GPU time goes");
    tp_chart_gpu_time(cv, pc, (tp_rect){m, m, pc->lw - 2 * m, pc->lh - 2 * m});
    tp_cv_end_page(cv);
}
