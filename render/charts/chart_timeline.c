/* chart_timeline.c: Gantt chart of one step (see chart_timeline.h). */
#include "render/charts/chart_timeline.h"

#include "render/charts/axis.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"
#include "convert/base/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_FS 12.0
#define SUB_FS 8.0
#define LABEL_FS 8.0
#define NAME_FS 6.5
#define MIN_FS 6.0 /* no type smaller than this */
#define TICK_FS 7.5
#define MIN_ROW 7.5   /* the smallest row whose label is MIN_FS (label = 0.8 row) */
#define KEEP_ROW 14.0 /* kept rows (device streams) get this much when they fit */
#define MAX_ROW 44.0
#define PAGE_BG 0xFFFFFF
#define NONE_ROW UINT32_MAX

/* an item's place in drawing order: its row, then its (clipped) start */
typedef struct tl_key {
    uint32_t row;
    int64_t a;
    size_t i;
} tl_key;
#define KEY_LESS(x, y, c) ((x)->row < (y)->row || ((x)->row == (y)->row && (x)->a < (y)->a))
TP_SORT_DEFINE(sort_keys, tl_key, int, KEY_LESS)

static int64_t item_end(const tp_tl_item *e)
{
    int64_t d = e->dur_ns > 0 ? e->dur_ns : 0;
    return e->start_ns > INT64_MAX - d ? INT64_MAX : e->start_ns + d; /* corrupt durations saturate */
}

/* A disjoint piece of a row's busy time: the part of an item not covered
 * by the items that started before it. */
typedef struct piece {
    int64_t a, b;
    const tp_tl_item *e;
} piece;

static size_t row_pieces(const tl_key *k, size_t n, const tp_tl_item *items, int64_t t1, piece *out)
{
    size_t np = 0;
    int64_t cur = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const tp_tl_item *e = &items[k[i].i];
        int64_t a = k[i].a > cur ? k[i].a : cur, b = item_end(e) < t1 ? item_end(e) : t1;
        if (b <= a)
            continue;
        out[np++] = (piece){a, b, e};
        cur = b;
    }
    return np;
}

static tp_color item_color(const tp_tl_item *e)
{
    return e->color ? e->color : tp_palette_key(e->category ? e->category : "other");
}

/* c lightened towards bg: f = 1 is c, 0 is bg */
static tp_color blend(tp_color bg, tp_color c, double f)
{
    if (f >= 1 - 1e-9)
        return c;
    tp_color out = 0;
    for (int s = 0; s <= 16; s += 8) {
        double b = (bg >> s) & 0xFF, v = (c >> s) & 0xFF;
        out |= (tp_color)lround(b + f * (v - b)) << s;
    }
    return out;
}

/* Colour weights of a mark made of several items: the heaviest wins. */
typedef struct weights {
    tp_color c[8];
    double w[8];
    int n;
} weights;

static void weigh(weights *W, tp_color c, double w)
{
    int i = 0;
    while (i < W->n && W->c[i] != c)
        i++;
    if (i == W->n) {
        if (W->n == 8)
            i = 7; /* more colours than slots: the last slot takes the rest */
        else
            W->c[W->n++] = c;
    }
    W->w[i] += w;
}

static tp_color heaviest(const weights *W)
{
    int best = 0;
    for (int i = 1; i < W->n; i++)
        if (W->w[i] > W->w[best])
            best = i;
    return W->n ? W->c[best] : TP_COLOR_OTHER;
}

/* Draws one row; a pending column gathers the bursts narrower than res. */
typedef struct painter {
    tp_canvas *cv;
    double px, pw, scale, res, by, bh;
    int64_t t0;
    tp_color bg;
    bool pend;
    long long col;
    double fs, busy, solid_end;
    weights W;
} painter;

static double xat(const painter *P, int64_t t) { return P->px + (double)(t - P->t0) * P->scale; }

/* The pending column ends at fe: one mark over its free part (the part no
 * solid run covers), lightened by the busy fraction of that part. */
static void flush(painter *P, double fe)
{
    if (!P->pend)
        return;
    P->pend = false;
    fe = fmin(fe, P->px + P->pw);
    double w = fe - P->fs;
    if (w <= 0 || P->busy <= 0)
        return;
    tp_cv_fill_rect(P->cv, P->fs, P->by, w, P->bh, blend(P->bg, heaviest(&P->W), fmin(1, P->busy / w)));
}

static void column(painter *P, long long k)
{
    if (P->pend && P->col == k)
        return;
    flush(P, (double)(P->col + 1) * P->res);
    P->pend = true;
    P->col = k;
    P->fs = fmax((double)k * P->res, fmax(P->solid_end, P->px));
    P->busy = 0;
    P->W.n = 0;
}

static void add_burst(painter *P, double x0, double x1, tp_color c)
{
    long long k0 = (long long)floor(x0 / P->res), k1 = (long long)floor(x1 / P->res);
    if (k1 > k0 && (double)k1 * P->res >= x1)
        k1--;
    for (long long k = k0; k <= k1; k++) {
        double ov = fmin(x1, (double)(k + 1) * P->res) - fmax(x0, (double)k * P->res);
        if (ov <= 0)
            continue;
        column(P, k);
        P->busy += ov;
        weigh(&P->W, c, ov);
    }
}

/* A run of busy time at least res wide: every piece at least res wide in
 * its own colour with its name; the narrower ones between them as one
 * rect in their heaviest colour (still solid: the run has no gap). */
static void solid_run(painter *P, const piece *p, size_t n)
{
    double xa = xat(P, p[0].a);
    if (P->pend)
        flush(P, (long long)floor(xa / P->res) == P->col ? xa : (double)(P->col + 1) * P->res);
    for (size_t i = 0; i < n;) {
        double x0 = xat(P, p[i].a), x1 = xat(P, p[i].b);
        if (x1 - x0 >= P->res) {
            tp_color col = item_color(p[i].e);
            tp_cv_fill_rect(P->cv, x0, P->by, x1 - x0, P->bh, col);
            double nfs = fmin(NAME_FS, P->bh * 0.8);
            if (p[i].e->name && x1 - x0 > 14 && nfs >= MIN_FS) {
                char *nm = tp_fit_end(TP_FONT_REGULAR, nfs, p[i].e->name, x1 - x0 - 4);
                if (*nm && strcmp(nm, "\xE2\x80\xA6") != 0)
                    tp_cv_text(P->cv, x0 + 2, tp_text_baseline_mid(TP_FONT_REGULAR, nfs, P->by + P->bh / 2),
                               TP_FONT_REGULAR, nfs, tp_text_color_on(col), TP_ALIGN_LEFT, 0, nm);
                free(nm);
            }
            i++;
            continue;
        }
        weights W = {0};
        size_t j = i;
        for (; j < n && xat(P, p[j].b) - xat(P, p[j].a) < P->res; j++)
            weigh(&W, item_color(p[j].e), (double)(p[j].b - p[j].a));
        double xe = xat(P, p[j - 1].b);
        tp_cv_fill_rect(P->cv, x0, P->by, xe - x0, P->bh, heaviest(&W));
        i = j;
    }
    P->solid_end = xat(P, p[n - 1].b);
}

static void draw_row(painter *P, const piece *p, size_t np)
{
    P->pend = false;
    P->solid_end = -INFINITY;
    for (size_t i = 0; i < np;) {
        size_t j = i + 1;
        while (j < np && p[j].a == p[j - 1].b) /* touching pieces: one run of busy time */
            j++;
        double xa = xat(P, p[i].a), xb = xat(P, p[j - 1].b);
        if (xb - xa >= P->res) {
            solid_run(P, p + i, j - i);
        } else {
            for (size_t q = i; q < j; q++)
                add_burst(P, xat(P, p[q].a), xat(P, p[q].b), item_color(p[q].e));
        }
        i = j;
    }
    flush(P, INFINITY);
}

/* Strip trailing zeros (and the dot) of a printed number. */
static void trim(char *s)
{
    if (!strchr(s, '.'))
        return;
    size_t l = strlen(s);
    while (l && s[l - 1] == '0')
        s[--l] = 0;
    if (l && s[l - 1] == '.')
        s[--l] = 0;
}

/* Ticks inside [lo, hi] (ns since the origin) on a 1-2-5 step; positions
 * are stored relative to lo. */
static void window_ticks(double lo, double hi, int target, tp_ticks *t)
{
    tp_ticks_linear(hi - lo, target, t);
    double step = t->n > 1 ? t->v[1] - t->v[0] : hi - lo;
    tp_time_unit u = tp_time_unit_for(fmax(fabs(lo), fabs(hi)));
    double su = step / u.ns;
    int dec = su >= 1 ? 0 : (int)ceil(-log10(su) - 1e-9);
    int n = 0;
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < TP_MAX_TICKS; v += step) {
        t->v[n] = v - lo;
        if (fabs(v) < step * 1e-9) {
            strcpy(t->label[n], "0");
        } else {
            char num[20];
            snprintf(num, sizeof num, "%.*f", dec, v / u.ns);
            trim(num);
            snprintf(t->label[n], sizeof t->label[n], "%s %s", num, u.name);
        }
        n++;
    }
    t->n = n;
    t->lo = 0;
    t->hi = hi - lo;
}

/* Row layout: which tracks get a row, and how tall. */
typedef struct row_spec {
    size_t track; /* SIZE_MAX: the merged row */
    double h;
} row_spec;

typedef struct kept_busy {
    int64_t busy;
    size_t i;
} kept_busy;

/* busiest first; ties: the earlier track */
static int cmp_kept_busy(const void *a, const void *b)
{
    const kept_busy *x = a, *y = b;
    if (x->busy != y->busy)
        return x->busy > y->busy ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static size_t layout_rows(const tp_timeline *tl, const int64_t *busy, double H, size_t cap, row_spec *rows,
                          size_t *merged, size_t *hidden)
{
    size_t K = tl->keep_last < tl->ntracks ? tl->keep_last : tl->ntracks, O = tl->ntracks - K;
    size_t kshow = K;
    if (K && H / (double)K < MIN_ROW)
        kshow = (size_t)floor(H / MIN_ROW);
    double hk = kshow ? fmin(KEEP_ROW, H / (double)kshow) : 0;
    size_t mcap = kshow < K ? 0 : (size_t)floor((H - (double)kshow * hk) / MIN_ROW + 1e-9);
    size_t lim = cap && cap + 1 < mcap ? cap + 1 : mcap, m = O, rest = 0;
    if (O > lim) {
        m = lim ? lim - 1 : 0;
        rest = lim ? 1 : 0;
    }
    /* the m busiest optional tracks (ties: the earlier track) */
    bool *pick = tp_xcalloc(O + 1, sizeof *pick);
    for (size_t c = 0; c < m; c++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < O; i++)
            if (!pick[i] && (best == SIZE_MAX || busy[i] > busy[best]))
                best = i;
        pick[best] = true;
    }
    size_t S = kshow + m + rest, n = 0;
    double u = S ? fmin(MAX_ROW, H / (double)S) : 0;
    double ho = u >= hk || !(m + rest) ? u : fmin(hk, (H - (double)kshow * hk) / (double)(m + rest));
    double hkept = u >= hk ? u : hk;
    for (size_t i = 0; i < O; i++)
        if (pick[i])
            rows[n++] = (row_spec){i, ho};
    if (rest)
        rows[n++] = (row_spec){SIZE_MAX, ho};
    /* kept tracks that do not all fit: the busiest kshow, in their order (a
     * rocprofv3 run with 568 HIP streams showed its first 62, nearly empty,
     * and left out the stream holding 37,300 of its 43,915 kernels) */
    bool *kpick = tp_xcalloc(K + 1, sizeof *kpick);
    if (kshow < K) {
        kept_busy *kb = tp_xmalloc((K + 1) * sizeof *kb);
        for (size_t i = 0; i < K; i++)
            kb[i] = (kept_busy){busy[O + i], i};
        qsort(kb, K, sizeof *kb, cmp_kept_busy);
        for (size_t i = 0; i < kshow; i++)
            kpick[kb[i].i] = true;
        free(kb);
    } else
        for (size_t i = 0; i < K; i++)
            kpick[i] = true;
    for (size_t i = 0; i < K; i++)
        if (kpick[i])
            rows[n++] = (row_spec){O + i, hkept};
    free(kpick);
    *merged = rest ? O - m : 0;
    *hidden = tl->ntracks - kshow - m - *merged;
    free(pick);
    return n;
}

void tp_timeline_draw(tp_canvas *cv, const tp_timeline *tl, tp_rect r) { tp_timeline_draw_view(cv, tl, NULL, r); }

void tp_timeline_draw_view(tp_canvas *cv, const tp_timeline *tl, const tp_tl_view *v, tp_rect r)
{
    static const tp_tl_view none = {0};
    if (!v)
        v = &none;
    double y = r.y;
    if (tl->title) {
        char *t = tp_fit_end(TP_FONT_BOLD, TITLE_FS, tl->title, r.w);
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_BOLD, TITLE_FS), TP_FONT_BOLD, TITLE_FS, TP_COLOR_TEXT,
                   TP_ALIGN_LEFT, 0, t);
        free(t);
        y += TITLE_FS * 1.8;
    }
    if (v->subtitle) {
        char *t = tp_fit_end(TP_FONT_REGULAR, SUB_FS, v->subtitle, r.w);
        tp_cv_text(cv, r.x, y + tp_font_ascent(TP_FONT_REGULAR, SUB_FS) - TITLE_FS * 0.3, TP_FONT_REGULAR, SUB_FS,
                   TP_COLOR_MUTED, TP_ALIGN_LEFT, 0, t);
        free(t);
        y += SUB_FS * 1.6;
    }
    /* time range; items on unknown tracks are ignored */
    bool fixed = v->t1 > v->t0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < tl->nitems; i++) {
        const tp_tl_item *e = &tl->items[i];
        if (e->track >= tl->ntracks)
            continue;
        if (e->start_ns < t0)
            t0 = e->start_ns;
        if (item_end(e) > t1)
            t1 = item_end(e);
    }
    if (tl->ntracks == 0 || t0 == INT64_MAX) {
        tp_cv_stroke_rect(cv, r.x, y, r.w, r.y + r.h - y, TP_COLOR_GRID, 1);
        tp_cv_text(cv, r.x + r.w / 2, tp_text_baseline_mid(TP_FONT_REGULAR, 11, (y + r.y + r.h) / 2), TP_FONT_REGULAR,
                   11, TP_COLOR_MUTED, TP_ALIGN_CENTER, 0, "no data");
        return;
    }
    if (fixed) {
        t0 = v->t0;
        t1 = v->t1;
    }
    /* legend: distinct categories, in their usual order */
    const char **cats = tp_xmalloc((tl->nitems + 1) * sizeof *cats);
    tp_color *cols = tp_xmalloc((tl->nitems + 1) * sizeof *cols);
    for (size_t i = 0; i < tl->nitems; i++) {
        cats[i] = tl->items[i].category;
        cols[i] = item_color(&tl->items[i]);
    }
    size_t k;
    tp_legend_item *it = tp_legend_for_keys(cats, cols, tl->nitems, &k);
    free(cols);
    y += tp_legend_draw(cv, it, k, (tp_rect){r.x, y, r.w, 0}, LABEL_FS) + 4;
    free(it);
    free(cats);

    /* items inside the window, by track then start; each track's busy time */
    tl_key *keys = tp_xmalloc((tl->nitems + 1) * sizeof *keys);
    size_t nk = 0;
    for (size_t i = 0; i < tl->nitems; i++) {
        const tp_tl_item *e = &tl->items[i];
        int64_t a = e->start_ns > t0 ? e->start_ns : t0, b = item_end(e) < t1 ? item_end(e) : t1;
        if (e->track < tl->ntracks && b > a)
            keys[nk++] = (tl_key){e->track, a, i};
    }
    sort_keys(keys, nk, 0); /* no global context: pages are drawn on two threads */
    piece *pc = tp_xmalloc((nk + 1) * sizeof *pc);
    int64_t *busy = tp_xcalloc(tl->ntracks + 1, sizeof *busy);
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && keys[j].row == keys[i].row)
            j++;
        size_t np = row_pieces(keys + i, j - i, tl->items, t1, pc);
        for (size_t q = 0; q < np; q++)
            busy[keys[i].row] += pc[q].b - pc[q].a;
        i = j;
    }

    /* rows */
    double axis_h = TICK_FS * 3;
    double avail = r.y + r.h - y - axis_h;
    row_spec *rows = tp_xmalloc((tl->ntracks + 1) * sizeof *rows);
    size_t merged, hidden;
    size_t nrows = layout_rows(tl, busy, avail, v->max_rows, rows, &merged, &hidden);
    uint32_t *row_of = tp_xmalloc((tl->ntracks + 1) * sizeof *row_of);
    uint32_t rest_row = NONE_ROW;
    for (size_t i = 0; i < tl->ntracks; i++)
        row_of[i] = NONE_ROW;
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].track == SIZE_MAX)
            rest_row = (uint32_t)i;
        else
            row_of[rows[i].track] = (uint32_t)i;
    }
    size_t K = tl->keep_last < tl->ntracks ? tl->keep_last : tl->ntracks;
    for (size_t i = 0; i < tl->ntracks - K; i++)
        if (row_of[i] == NONE_ROW)
            row_of[i] = rest_row; /* optional tracks not shown share the merged row */
    char rest_label[96];
    snprintf(rest_label, sizeof rest_label, "%zu %s", merged, v->rest_noun ? v->rest_noun : "other rows");
    double *ry = tp_xmalloc((nrows + 1) * sizeof *ry);
    double lw = 0;
    for (size_t i = 0; i < nrows; i++) {
        ry[i] = i ? ry[i - 1] + rows[i - 1].h : y;
        const char *l = rows[i].track == SIZE_MAX ? rest_label : tl->track_labels[rows[i].track];
        lw = fmax(lw, tp_text_width(TP_FONT_REGULAR, fmin(LABEL_FS, rows[i].h * 0.8), l ? l : ""));
    }
    lw = fmin(lw, r.w * 0.25);
    double px = r.x + lw + 8, pw = r.x + r.w - px - 4;
    double span = (double)(t1 - t0);
    tp_ticks t;
    int target = (int)fmax(2, fmin(10, pw / 80));
    double scale;
    if (fixed) {
        window_ticks((double)(t0 - v->origin_ns), (double)(t1 - v->origin_ns), target, &t);
        scale = pw / span;
    } else {
        tp_ticks_linear(span, target, &t);
        scale = pw / t.hi;
    }
    for (size_t i = 0; i < nrows; i++) {
        if (i % 2)
            tp_cv_fill_rect(cv, px, ry[i], pw, rows[i].h, TP_COLOR_ZEBRA);
        double lfs = fmin(LABEL_FS, rows[i].h * 0.8);
        const char *l = rows[i].track == SIZE_MAX ? rest_label : tl->track_labels[rows[i].track];
        char *lab = tp_fit_middle(TP_FONT_REGULAR, lfs, l ? l : "", lw);
        tp_cv_text(cv, px - 6, tp_text_baseline_mid(TP_FONT_REGULAR, lfs, ry[i] + rows[i].h / 2), TP_FONT_REGULAR, lfs,
                   rows[i].track == SIZE_MAX ? TP_COLOR_MUTED : TP_COLOR_TEXT, TP_ALIGN_RIGHT, 0, lab);
        free(lab);
    }
    double bottom = nrows ? ry[nrows - 1] + rows[nrows - 1].h : y;
    for (int i = 0; i < t.n; i++) {
        double x = px + t.v[i] * scale;
        tp_cv_line(cv, x, y, x, bottom, TP_COLOR_GRID, 0.5);
        tp_cv_line(cv, x, bottom, x, bottom + 3, TP_COLOR_AXIS, 0.8);
        tp_cv_text(cv, x, bottom + 3 + TICK_FS * 1.1, TP_FONT_REGULAR, TICK_FS, TP_COLOR_TEXT, TP_ALIGN_CENTER, 0,
                   t.label[i]);
    }
    /* bars, row by row in start order */
    for (size_t i = 0; i < nk; i++)
        keys[i].row = row_of[keys[i].row];
    sort_keys(keys, nk, 0);
    tp_cv_save(cv);
    tp_cv_clip_rect(cv, px, y, pw, bottom - y);
    painter P = {.cv = cv, .px = px, .pw = pw, .scale = scale, .res = v->res_pt > 0 ? v->res_pt : 0.5, .t0 = t0};
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && keys[j].row == keys[i].row)
            j++;
        uint32_t ri = keys[i].row;
        if (ri != NONE_ROW) {
            P.by = ry[ri] + rows[ri].h * 0.12;
            P.bh = rows[ri].h * 0.76;
            P.bg = ri % 2 ? TP_COLOR_ZEBRA : PAGE_BG;
            draw_row(&P, pc, row_pieces(keys + i, j - i, tl->items, t1, pc));
        }
        i = j;
    }
    tp_cv_restore(cv);
    tp_cv_line(cv, px, bottom, px + pw, bottom, TP_COLOR_AXIS, 0.8);
    tp_cv_text(cv, px + pw, bottom + 3 + TICK_FS * 2.4, TP_FONT_REGULAR, TICK_FS, TP_COLOR_MUTED, TP_ALIGN_RIGHT, 0,
               v->axis_note ? v->axis_note : "time since the first event");
    if (hidden) {
        char note[80];
        snprintf(note, sizeof note, "%zu more tracks not shown", hidden);
        tp_cv_text(cv, r.x, bottom + 3 + TICK_FS * 2.4, TP_FONT_REGULAR, TICK_FS, TP_COLOR_MUTED, TP_ALIGN_LEFT, 0,
                   note);
    }
    free(ry);
    free(row_of);
    free(rows);
    free(busy);
    free(pc);
    free(keys);
}
