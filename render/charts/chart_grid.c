/* chart_grid.c: dominating-op breakdown grid (see chart_grid.h). */
#include "render/charts/chart_grid.h"

#include "render/charts/axis.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define BOX_TITLE_FS 8.0
#define LEGEND_FS 8.0
#define SMALL_FS 6.5
#define BAR_W 22.0
#define WIDE_BAR_W 64.0 /* an op with few mixes: bars wide enough to name their categories (issue 36 item 2) */
#define WIDE_MIXES 4
#define MIN_BAR_H 2.0   /* a bar of a tiny share of the time stays visible */
#define BAR_GAP 8.0
#define BOX_PAD 6.0
#define BOX_GAP 8.0
#define MIN_BOX_W 80.0
#define MIN_ROW_H 150.0
#define MAX_ROW_H 230.0
#define LABEL_BAND 96.0 /* room above the tallest bar for the bars' names (issue 36 item 2) */
#define LABEL_BAND_SHARE 0.4 /* ... at most this share of a bar's frame */
#define LABEL_BAND_MIN_SHARE 0.3 /* ... and at least this share (a tall frame gives the tallest bar's name room) */

typedef struct {
    size_t op;        /* index into ops */
    size_t m0, m1;    /* mixes [m0, m1) */
    int part, nparts; /* "op (part/nparts)" when split */
    size_t page;
    double x, y, w; /* position relative to the grid area */
} box;

struct tp_grid_layout {
    box *boxes;
    size_t nboxes;
    size_t pages;
    double row_h, top; /* top: height of title + legend + axis note */
    tp_mix_part *fam;  /* legend entries (family, colour), display order */
    size_t nfam;
    double max_mix;    /* the longest mix's time: a bar's height is its time over this one's */
};

/* A box's bar width: wide (names fit) when the op has few mixes. */
static double bar_w(size_t nmixes) { return nmixes <= WIDE_MIXES ? WIDE_BAR_W : BAR_W; }

static double mix_total(const tp_kernel_mix *mix)
{
    double t = 0;
    for (size_t i = 0; i < mix->nparts; i++)
        t += mix->parts[i].ns > 0 ? (double)mix->parts[i].ns : 0;
    return t;
}

/* a part's colour: its own, else its family's fixed one */
static tp_color part_color(const tp_mix_part *p) { return p->color ? p->color : tp_palette_key(p->family); }

static int cmp_fam(const void *a, const void *b)
{
    const tp_mix_part *x = a, *y = b;
    int rx = tp_palette_rank(x->family), ry = tp_palette_rank(y->family);
    return rx != ry ? (rx > ry) - (rx < ry) : strcmp(x->family, y->family);
}

static void collect_families(const tp_grid_chart *g, tp_grid_layout *L)
{
    size_t cap = 0;
    for (size_t o = 0; o < g->nops; o++)
        for (size_t m = 0; m < g->ops[o].nmixes; m++)
            for (size_t p = 0; p < g->ops[o].mixes[m].nparts; p++) {
                TP_GROW(L->fam, cap, L->nfam + 1);
                const tp_mix_part *q = &g->ops[o].mixes[m].parts[p];
                const char *f = q->family ? q->family : "other";
                L->fam[L->nfam++] = (tp_mix_part){f, 0, q->color ? q->color : tp_palette_key(f)};
            }
    if (L->nfam > 1) /* qsort(NULL, 0) is undefined */
        qsort(L->fam, L->nfam, sizeof *L->fam, cmp_fam);
    size_t k = 0; /* unique */
    for (size_t i = 0; i < L->nfam; i++)
        if (k == 0 || strcmp(L->fam[k - 1].family, L->fam[i].family) != 0)
            L->fam[k++] = L->fam[i];
    L->nfam = k;
}

/* "op", "op (1/2)", "op (8 of 19 mixes)", "op (1/2; 8 of 19 mixes)".  The
 * layout sizes boxes as if the part were always shown (`for_width`). */
static void box_title(char *t, size_t len, const tp_op_breakdown *op, int part, int nparts, bool for_width)
{
    const char *name = op->op ? op->op : "";
    bool cut = op->total_mixes > op->nmixes;
    if ((nparts > 1 || for_width) && cut)
        snprintf(t, len, "%s (%d/%d; %zu of %zu mixes)", name, part, nparts, op->nmixes, op->total_mixes);
    else if (nparts > 1 || for_width)
        snprintf(t, len, "%s (%d/%d)", name, part, nparts);
    else if (cut)
        snprintf(t, len, "%s (%zu of %zu mixes)", name, op->nmixes, op->total_mixes);
    else
        snprintf(t, len, "%s", name);
}

static double box_width(size_t nbars, size_t nmixes, const char *title)
{
    double w = (double)nbars * (bar_w(nmixes) + BAR_GAP) - BAR_GAP + 2 * BOX_PAD;
    double tw = tp_text_width(TP_FONT_BOLD, BOX_TITLE_FS, title ? title : "") + 2 * BOX_PAD;
    return fmax(w, fmin(fmax(tw, MIN_BOX_W), 160));
}

static tp_legend_item *legend_items(const tp_grid_layout *L)
{
    tp_legend_item *it = tp_xcalloc(L->nfam ? L->nfam : 1, sizeof *it);
    for (size_t i = 0; i < L->nfam; i++)
        it[i] = (tp_legend_item){L->fam[i].family, L->fam[i].color};
    return it;
}

tp_grid_layout *tp_grid_layout_new(const tp_grid_chart *g, double w, double h)
{
    tp_grid_layout *L = tp_xcalloc(1, sizeof *L);
    collect_families(g, L);
    for (size_t o = 0; o < g->nops; o++)
        for (size_t m = 0; m < g->ops[o].nmixes; m++)
            L->max_mix = fmax(L->max_mix, mix_total(&g->ops[o].mixes[m]));
    tp_legend_item *it = legend_items(L);
    L->top = (g->title ? TITLE_FS * 1.8 : 0) + tp_legend_height(it, L->nfam, w, LEGEND_FS) + 6;
    free(it);
    double avail = h - L->top;
    /* how many mixes fit in one row at most */
    size_t per_row = (size_t)fmax(1, floor((w - 2 * BOX_PAD + BAR_GAP) / (BAR_W + BAR_GAP)));
    size_t cap = 0;
    for (size_t o = 0; o < g->nops; o++) {
        size_t nm = g->ops[o].nmixes ? g->ops[o].nmixes : 1;
        int parts = (int)((nm + per_row - 1) / per_row);
        for (int p = 0; p < parts; p++) {
            TP_GROW(L->boxes, cap, L->nboxes + 1);
            size_t m0 = (size_t)p * per_row, m1 = m0 + per_row < nm ? m0 + per_row : nm;
            L->boxes[L->nboxes++] = (box){o, m0, m1, p + 1, parts, 0, 0, 0, 0};
        }
    }
    /* rows: flow boxes; then rows per page from the space */
    size_t rows = 0;
    double x = 0;
    for (size_t i = 0; i < L->nboxes; i++) {
        box *b = &L->boxes[i];
        char t[300];
        box_title(t, sizeof t, &g->ops[b->op], b->part, b->nparts, true);
        b->w = fmin(box_width(b->m1 - b->m0, g->ops[b->op].nmixes, t), w);
        if (i == 0 || x + b->w > w + 1e-9) {
            rows++;
            x = 0;
        }
        b->x = x;
        b->y = (double)(rows - 1); /* row index for now */
        x += b->w + BOX_GAP;
    }
    size_t rows_per_page = (size_t)fmax(1, floor(avail / MIN_ROW_H));
    if (rows && rows < rows_per_page)
        rows_per_page = rows;
    L->row_h = fmin(MAX_ROW_H, avail / (double)rows_per_page);
    for (size_t i = 0; i < L->nboxes; i++) {
        size_t row = (size_t)L->boxes[i].y;
        L->boxes[i].page = row / rows_per_page;
        L->boxes[i].y = (double)(row % rows_per_page) * L->row_h;
    }
    L->pages = rows ? (rows + rows_per_page - 1) / rows_per_page : 1;
    return L;
}

size_t tp_grid_pages(const tp_grid_layout *L) { return L->pages; }

void tp_grid_layout_free(tp_grid_layout *L)
{
    if (!L)
        return;
    free(L->boxes);
    free(L->fam);
    free(L);
}

/* One mix as a stacked bar of its families (merged, in display order), as high as its time is of the longest
 * mix's (`max`: a 4 us mix beside a 9.66 ms graph replay is a sliver, not a full bar), bw wide; a wide bar names
 * each family in its segment when the name fits. */
static double draw_mix(tp_canvas *cv, const tp_kernel_mix *mix, double x, double y, double h, double bw, double max,
                       double band)
{
    size_t n = mix->nparts;
    tp_mix_part *p = tp_xcalloc(n ? n : 1, sizeof *p);
    size_t k = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        const char *f = mix->parts[i].family ? mix->parts[i].family : "other";
        double ns = mix->parts[i].ns > 0 ? (double)mix->parts[i].ns : 0;
        total += ns;
        size_t j = 0;
        while (j < k && strcmp(p[j].family, f) != 0)
            j++;
        if (j == k)
            p[k++] = (tp_mix_part){f, 0, mix->parts[i].color};
        int64_t v = mix->parts[i].ns > 0 ? mix->parts[i].ns : 0; /* saturated: corrupt durations */
        p[j].ns = p[j].ns > INT64_MAX - v ? INT64_MAX : p[j].ns + v;
    }
    qsort(p, k, sizeof *p, cmp_fam); /* family is the first member */
    double bh = max > 0 ? fmax(MIN_BAR_H, (h - band) * total / max) : h - band;
    tp_cv_stroke_rect(cv, x, y, bw, h, TP_COLOR_GRID, 0.5); /* the frame is the longest mix's height */
    double yb = y + h;
    for (size_t i = 0; i < k && total > 0; i++) {
        double share = (double)p[i].ns / total, sh = share * bh;
        if (sh <= 0)
            continue;
        tp_color col = part_color(&p[i]);
        tp_cv_fill_rect(cv, x, yb - sh, bw, sh, col);
        if (sh >= SMALL_FS + 2) {
            char pct[16], named[96];
            snprintf(pct, sizeof pct, "%.0f%%", share * 100);
            snprintf(named, sizeof named, "%s %s", p[i].family, pct);
            const char *txt = tp_text_width(TP_FONT_REGULAR, SMALL_FS, named) <= bw - 2 ? named : pct;
            tp_cv_text(cv, x + bw / 2, tp_text_baseline_mid(TP_FONT_REGULAR, SMALL_FS, yb - sh / 2), TP_FONT_REGULAR,
                       SMALL_FS, tp_text_color_on(col), TP_ALIGN_CENTER, 0, txt);
        }
        yb -= sh;
    }
    char tb[32];
    tp_format_duration(tb, sizeof tb, total);
    char *fit = tp_fit_end(TP_FONT_REGULAR, SMALL_FS, tb, bw + BAR_GAP - 1);
    tp_cv_text(cv, x + bw / 2, y + h + SMALL_FS * 1.3, TP_FONT_REGULAR, SMALL_FS, TP_COLOR_TEXT, TP_ALIGN_CENTER, 0,
               fit);
    free(fit);
    free(p);
    return bh;
}

/* The page's labelled mixes: whether any, and the band above the tallest bar kept for their names. */
static double label_band(const tp_grid_chart *g, const tp_grid_layout *L, size_t page, double h)
{
    for (size_t i = 0; i < L->nboxes; i++) {
        const box *b = &L->boxes[i];
        const tp_op_breakdown *op = &g->ops[b->op];
        for (size_t m = b->m0; b->page == page && m < b->m1 && m < op->nmixes; m++)
            if (op->mixes[m].label && op->mixes[m].label[0])
                return fmin(fmax(LABEL_BAND, h * LABEL_BAND_MIN_SHARE), h * LABEL_BAND_SHARE);
    }
    return 0;
}

/* A bar's name, written up its column from just above the bar to the frame's top: each in its own column (no
 * two overlap), fitted apart with the page's other names (two different names never read the same). */
typedef struct bar_label {
    const char *text;
    size_t more;
    double x, y_bottom, room; /* the column's centre, the bar's top, the length free above it */
} bar_label;

static void draw_labels(tp_canvas *cv, const bar_label *lb, size_t n)
{
    if (n == 0)
        return;
    const char **texts = tp_xcalloc(n, sizeof *texts);
    double *rooms = tp_xcalloc(n, sizeof *rooms);
    for (size_t i = 0; i < n; i++) {
        char plus[32] = "";
        if (lb[i].more)
            snprintf(plus, sizeof plus, " +%zu", lb[i].more);
        texts[i] = lb[i].text;
        rooms[i] = lb[i].room - tp_text_width(TP_FONT_REGULAR, SMALL_FS, plus);
        if (rooms[i] < lb[i].room / 2) /* " +N" only when it leaves the name room */
            rooms[i] = lb[i].room;
    }
    char **fits = tp_fit_apart(TP_FONT_REGULAR, SMALL_FS, texts, n, rooms, tp_fit_name);
    /* rotated -90 degrees the text runs up and its ascent lies left of the baseline */
    double shift = (tp_font_ascent(TP_FONT_REGULAR, SMALL_FS) - tp_font_descent(TP_FONT_REGULAR, SMALL_FS)) / 2;
    for (size_t i = 0; i < n; i++) {
        char t[400];
        if (lb[i].more && rooms[i] < lb[i].room)
            snprintf(t, sizeof t, "%s +%zu", fits[i], lb[i].more);
        else
            snprintf(t, sizeof t, "%s", fits[i]);
        tp_cv_text(cv, lb[i].x + shift, lb[i].y_bottom, TP_FONT_REGULAR, SMALL_FS, TP_COLOR_TEXT, TP_ALIGN_LEFT,
                   -90, t);
    }
    tp_fit_apart_free(fits, n);
    free(rooms);
    free(texts);
}

void tp_grid_draw_page(tp_canvas *cv, const tp_grid_chart *g, const tp_grid_layout *L, size_t page, tp_rect r)
{
    double y = r.y;
    if (g->title) {
        char t[400];
        if (L->pages > 1)
            snprintf(t, sizeof t, "%s (page %zu of %zu)", g->title, page + 1, L->pages);
        else
            snprintf(t, sizeof t, "%s", g->title);
        char *f = tp_fit_end(TP_FONT_BOLD, TITLE_FS, t, r.w);
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_BOLD, TITLE_FS), TP_FONT_BOLD, TITLE_FS, TP_COLOR_TEXT,
                   TP_ALIGN_LEFT, 0, f);
        free(f);
        y += TITLE_FS * 1.8;
    }
    if (L->nboxes == 0) {
        tp_cv_stroke_rect(cv, r.x, y, r.w, r.y + r.h - y, TP_COLOR_GRID, 1);
        tp_cv_text(cv, r.x + r.w / 2, tp_text_baseline_mid(TP_FONT_REGULAR, 11, (y + r.y + r.h) / 2), TP_FONT_REGULAR,
                   11, TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, "no data");
        return;
    }
    tp_legend_item *it = legend_items(L);
    tp_legend_draw(cv, it, L->nfam, (tp_rect){r.x, y, r.w, 0}, LEGEND_FS);
    free(it);
    double gy = r.y + L->top;
    double title_h = BOX_TITLE_FS * 2, foot_h = SMALL_FS * 2;
    double band = label_band(g, L, page, L->row_h - BOX_GAP - title_h - foot_h - 2);
    bar_label *labels = NULL;
    size_t nlabels = 0, cap = 0;
    for (size_t i = 0; i < L->nboxes; i++) {
        const box *b = &L->boxes[i];
        if (b->page != page)
            continue;
        const tp_op_breakdown *op = &g->ops[b->op];
        double bx = r.x + b->x, by = gy + b->y, bh = L->row_h - BOX_GAP;
        tp_cv_stroke_rect(cv, bx, by, b->w, bh, TP_COLOR_TEXT, 1);
        char t[300];
        box_title(t, sizeof t, op, b->part, b->nparts, false);
        char *ft = tp_fit_middle(TP_FONT_BOLD, BOX_TITLE_FS, t, b->w - 2 * BOX_PAD);
        tp_cv_text(cv, bx + b->w / 2, by + BOX_TITLE_FS * 1.4, TP_FONT_BOLD, BOX_TITLE_FS, TP_COLOR_TEXT,
                   TP_ALIGN_CENTER, 0, ft);
        free(ft);
        size_t nb = b->m1 - b->m0;
        double bw = bar_w(op->nmixes), used = (double)nb * (bw + BAR_GAP) - BAR_GAP;
        double x0 = bx + (b->w - used) / 2, top = by + title_h, h = bh - title_h - foot_h - 2;
        for (size_t m = b->m0; m < b->m1 && m < op->nmixes; m++) {
            const tp_kernel_mix *mix = &op->mixes[m];
            double mx = x0 + (double)(m - b->m0) * (bw + BAR_GAP);
            double bar_h = draw_mix(cv, mix, mx, top, h, bw, L->max_mix, band);
            if (band > 0 && mix->label && mix->label[0]) {
                TP_GROW(labels, cap, nlabels + 1);
                labels[nlabels++] = (bar_label){mix->label, mix->more, mx + bw / 2, top + h - bar_h - 2,
                                                h - bar_h - 4};
            }
        }
    }
    draw_labels(cv, labels, nlabels);
    free(labels);
}
