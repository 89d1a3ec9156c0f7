/* chart_roofline.c: the roofline chart (chart_roofline.h). */
#include "render/charts/chart_roofline.h"

#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_FS 7.5
#define MAX_DECADES 16 /* an axis longer than this keeps its top decades */
#define PAD 1.5        /* around a label's text, its white box */

typedef struct box {
    double x0, y0, x1, y1;
} box;

static bool overlap(box a, box b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

typedef struct plot {
    double x, y, w, h;
    int xlo, xhi, ylo, yhi;
} plot;

static double px(const plot *p, double v) { return p->x + (log10(v) - p->xlo) / (p->xhi - p->xlo) * p->w; }
static double py(const plot *p, double v) { return p->y + p->h - (log10(v) - p->ylo) / (p->yhi - p->ylo) * p->h; }

static bool valid(const tp_roofline_mark *m) { return isfinite(m->x) && isfinite(m->y) && m->x > 0 && m->y > 0; }

static tp_color darker(tp_color c)
{
    tp_color out = 0;
    for (int sh = 0; sh <= 16; sh += 8)
        out |= (tp_color)((double)(c >> sh & 255) * 0.55 + 0.5) << sh;
    return out;
}

/* ---- decade tick labels: "0.01" ... "10000", else 10 with a raised exponent ---- */

static bool plain_ticks(int lo, int hi) { return lo >= -3 && hi <= 4; }

static void plain_text(int e, char *b, size_t n)
{
    if (e >= 0)
        snprintf(b, n, "%.0f", pow(10, e));
    else
        snprintf(b, n, "%.*f", -e, pow(10, e));
}

static double tick_w(int e, bool plain, double fs)
{
    char b[32];
    if (plain) {
        plain_text(e, b, sizeof b);
        return tp_text_width(TP_FONT_REGULAR, fs, b);
    }
    snprintf(b, sizeof b, "%d", e);
    return tp_text_width(TP_FONT_REGULAR, fs, "10") + tp_text_width(TP_FONT_REGULAR, fs * 0.72, b);
}

/* the label with its baseline at y, starting at x (align: of the whole label) */
static void tick_draw(tp_canvas *cv, int e, bool plain, double fs, double x, double y, tp_align a)
{
    double w = tick_w(e, plain, fs);
    double x0 = a == TP_ALIGN_LEFT ? x : a == TP_ALIGN_CENTER ? x - w / 2 : x - w;
    char b[32];
    if (plain) {
        plain_text(e, b, sizeof b);
        tp_cv_text(cv, x0, y, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, b);
        return;
    }
    snprintf(b, sizeof b, "%d", e);
    tp_cv_text(cv, x0, y, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, "10");
    tp_cv_text(cv, x0 + tp_text_width(TP_FONT_REGULAR, fs, "10"), y - fs * 0.42, TP_FONT_REGULAR, fs * 0.72,
               TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, b);
}

/* ---- the axes' ranges ---- */

static void decades(double lo, double hi, double pad_lo, double pad_hi, int *dlo, int *dhi)
{
    *dlo = (int)floor(log10(lo) - pad_lo);
    *dhi = (int)ceil(log10(hi) + pad_hi);
    if (*dhi - *dlo < 2) /* at least two decades: one looks like a linear axis */
        (*dlo)--;
    if (*dhi - *dlo < 2)
        (*dhi)++;
    if (*dhi - *dlo > MAX_DECADES)
        *dlo = *dhi - MAX_DECADES;
}

static int by_weight_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static void ranges(const tp_roofline *c, bool roof, plot *p)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    /* the axes are sized by the marks that carry time (issue 36 item 8): a mark under TP_ROOF_AXIS_SHARE of all
     * the marks' weight does not stretch them (a 2 us shape at 1e-5 FLOP/byte squeezed the rest into a corner);
     * when it falls outside it is not drawn, and counted (stats.outside_small) */
    double total = 0, cut = 0;
    size_t nw = 0;
    double *w = tp_xmalloc((c->n ? c->n : 1) * sizeof *w);
    for (size_t i = 0; i < c->n; i++)
        if (valid(&c->marks[i]) && c->marks[i].weight > 0)
            total += c->marks[i].weight, w[nw++] = c->marks[i].weight;
    /* many marks of similar weight each hold a small share: those that make up 99% of the weight count too */
    qsort(w, nw, sizeof *w, by_weight_desc);
    double run = 0;
    for (size_t i = 0; i < nw; i++) {
        run += w[i];
        cut = w[i];
        if (run >= total * 0.99)
            break;
    }
    free(w);
    cut = fmin(cut, total * TP_ROOF_AXIS_SHARE);
    for (size_t i = 0; i < c->n; i++)
        if (valid(&c->marks[i]) && (total <= 0 || c->marks[i].weight >= cut)) {
            xmin = fmin(xmin, c->marks[i].x), xmax = fmax(xmax, c->marks[i].x);
            ymin = fmin(ymin, c->marks[i].y), ymax = fmax(ymax, c->marks[i].y);
        }
    for (size_t k = 0; roof && k < c->nroofs; k++) {
        double ridge = c->roofs[k].peak / c->bandwidth;
        xmin = fmin(xmin, ridge / 10), xmax = fmax(xmax, ridge * 10); /* a decade of slope, a decade of flat */
        ymin = fmin(ymin, c->roofs[k].peak / 100), ymax = fmax(ymax, c->roofs[k].peak);
    }
    if (!(xmax > 0))
        xmin = 0.1, xmax = 10;
    if (!(ymax > 0))
        ymin = 0.1, ymax = 10;
    /* a third of a decade below the lowest mark: a big mark near a decade
     * line would sit on the frame (the TPU sample's fusions at 0.125) */
    decades(xmin, xmax, 0.3, 0.05, &p->xlo, &p->xhi);
    decades(ymin, ymax, 0.3, 0.2, &p->ylo, &p->yhi); /* room above the highest roof for its label */
}

/* ---- label placement ---- */

typedef struct seg {
    double x0, y0, x1, y1;
} seg;

typedef struct placer {
    const plot *p;
    seg roof[1 + 8]; /* the roof's lines: a label should not cut them */
    size_t nroof;
    box *taken;      /* labels placed, roof labels, labelled marks */
    size_t ntaken, cap;
    const tp_roofline_mark *m;
    const double *rad;
    size_t n;
} placer;

static void take(placer *pl, box b)
{
    TP_GROW(pl->taken, pl->cap, pl->ntaken + 1);
    pl->taken[pl->ntaken++] = b;
}

static bool free_at(const placer *pl, box b)
{
    const plot *p = pl->p;
    if (b.x0 < p->x + 1 || b.x1 > p->x + p->w - 1 || b.y0 < p->y + 1 || b.y1 > p->y + p->h - 1)
        return false;
    for (size_t i = 0; i < pl->ntaken; i++)
        if (overlap(b, pl->taken[i]))
            return false;
    return true;
}

/* what a label box hides: the area of the marks under it (pt^2) */
static double hidden(const placer *pl, box b)
{
    double s = 0;
    for (size_t i = 0; i < pl->n; i++) {
        if (!valid(&pl->m[i]))
            continue;
        double x = px(pl->p, pl->m[i].x), y = py(pl->p, pl->m[i].y), r = pl->rad[i];
        if (x + r > b.x0 && x - r < b.x1 && y + r > b.y0 && y - r < b.y1)
            s += r * r;
    }
    return s;
}

/* whether segment s passes through box b (Liang-Barsky clipping) */
static bool cuts(seg s, box b)
{
    double t0 = 0, t1 = 1, dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {s.x0 - b.x0, b.x1 - s.x0, s.y0 - b.y0, b.y1 - s.y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = fmax(t0, t);
        else
            t1 = fmin(t1, t);
        if (t0 > t1)
            return false;
    }
    return true;
}

/* what a label there costs: the marks it hides, the roof lines it cuts */
static double cost_at(const placer *pl, box b)
{
    double c = hidden(pl, b);
    for (size_t k = 0; k < pl->nroof; k++)
        if (cuts(pl->roof[k], b))
            c += 400;
    return c;
}

/* The best free box for text w x h next to the mark at (cx, cy) of radius
 * r: eight directions, growing distances; the one hiding the fewest marks
 * (ties: the nearest).  false when none is free. */
static bool place(const placer *pl, double cx, double cy, double r, double w, double h, box *out, double *dist)
{
    static const double dirs[8][2] = {{1, 0}, {0.7071, -0.7071}, {0, -1}, {-0.7071, -0.7071},
                                      {-1, 0}, {-0.7071, 0.7071}, {0, 1},  {0.7071, 0.7071}};
    static const double gaps[] = {2, 7, 14, 24, 38, 56, 80};
    double best = INFINITY;
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        for (int d = 0; d < 8; d++) {
            double ux = dirs[d][0], uy = dirs[d][1], ax = cx + (r + gaps[g]) * ux, ay = cy + (r + gaps[g]) * uy;
            box b;
            b.x0 = ux > 0.3 ? ax : ux < -0.3 ? ax - w : ax - w / 2;
            b.y0 = uy > 0.3 ? ay : uy < -0.3 ? ay - h : ay - h / 2;
            b.x1 = b.x0 + w, b.y1 = b.y0 + h;
            if (!free_at(pl, b))
                continue;
            double cost = cost_at(pl, b) + gaps[g] * 2;
            if (cost < best)
                best = cost, *out = b, *dist = gaps[g];
        }
    return isfinite(best);
}

/* ---- the roof ---- */

static void roof_draw(tp_canvas *cv, const tp_roofline *c, const plot *p, placer *pl)
{
    double top_ridge = 0, top_peak = 0;
    for (size_t k = 0; k < c->nroofs; k++)
        if (c->roofs[k].peak > top_peak)
            top_peak = c->roofs[k].peak, top_ridge = top_peak / c->bandwidth;
    double x0 = pow(10, p->xlo), x1 = pow(10, p->xhi);
    seg s = {px(p, x0), py(p, c->bandwidth * x0), px(p, top_ridge), py(p, top_peak)};
    tp_cv_move_to(cv, s.x0, s.y0);
    tp_cv_line_to(cv, s.x1, s.y1);
    tp_cv_stroke(cv, TP_COLOR_AXIS, 1.2);
    pl->roof[pl->nroof++] = s;
    for (size_t k = 0; k < c->nroofs; k++) {
        double peak = c->roofs[k].peak, ridge = peak / c->bandwidth;
        s = (seg){px(p, ridge), py(p, peak), px(p, x1), py(p, peak)};
        tp_cv_line(cv, s.x0, s.y0, s.x1, s.y1, TP_COLOR_AXIS, 1.2);
        if (pl->nroof < sizeof pl->roof / sizeof pl->roof[0])
            pl->roof[pl->nroof++] = s;
    }
}

/* Labels of the flat parts: above or below the line, at its right end or slid left along it toward the ridge,
 * the free place that hides the least of the marks (a mark at the label's usual place keeps it: the label
 * moves), nearest the right end; their boxes are taken.  No free place: the right end, above. */
static void roof_labels(tp_canvas *cv, const tp_roofline *c, const plot *p, placer *pl, double fs)
{
    double asc = tp_font_ascent(TP_FONT_REGULAR, fs), desc = tp_font_descent(TP_FONT_REGULAR, fs);
    for (size_t k = 0; k < c->nroofs; k++) {
        const char *lab = c->roofs[k].label ? c->roofs[k].label : "";
        double y = py(p, c->roofs[k].peak), ridge_x = px(p, c->roofs[k].peak / c->bandwidth);
        double left = fmax(ridge_x, p->x) + 4;
        char *t = tp_fit_end(TP_FONT_REGULAR, fs, lab, fmax(0, p->x + p->w - 4 - left));
        double w = tp_text_width(TP_FONT_REGULAR, fs, t), right = p->x + p->w - 4;
        box b = {right - w - PAD, y - 2 - asc - desc, right + PAD, y - 2}, cand;
        double best = INFINITY, step = fmax(4, (w + 2 * PAD) / 4);
        for (double r = right; r - w >= left - 0.01; r -= step)
            for (int below = 0; below < 2; below++) {
                double y0 = below ? y + 2 : y - 2 - asc - desc;
                cand = (box){r - w - PAD, y0, r + PAD, y0 + asc + desc};
                if (!free_at(pl, cand))
                    continue;
                double cost = hidden(pl, cand) * 100 + (right - r) + below; /* hide nothing first, then stay right */
                if (cost < best)
                    best = cost, b = cand;
            }
        /* on a white box: a mark it could not avoid lies under it */
        tp_cv_fill_rect(cv, b.x0, b.y0, b.x1 - b.x0, asc + desc, 0xFFFFFF);
        tp_cv_text(cv, b.x1 - PAD, b.y0 + asc, TP_FONT_REGULAR, fs, TP_COLOR_AXIS, TP_ALIGN_RIGHT, 0, t);
        take(pl, b);
        free(t);
    }
    if (!c->bandwidth_label || !*c->bandwidth_label)
        return;
    /* the visible part of the slope, in log units */
    double top_peak = 0;
    for (size_t k = 0; k < c->nroofs; k++)
        top_peak = fmax(top_peak, c->roofs[k].peak);
    double lb = log10(c->bandwidth);
    double a = fmax(p->xlo, p->ylo - lb), e = fmin(log10(top_peak) - lb, p->yhi - lb);
    if (e <= a)
        return;
    double sx0 = px(p, pow(10, a)), sy0 = py(p, pow(10, a + lb)), sx1 = px(p, pow(10, e)), sy1 = py(p, pow(10, e + lb));
    double len = hypot(sx1 - sx0, sy1 - sy0), w = tp_text_width(TP_FONT_REGULAR, fs, c->bandwidth_label);
    if (len < w + 12)
        return;
    double ang = atan2(sy1 - sy0, sx1 - sx0), ca = cos(ang), sa = sin(ang);
    /* along the slope, the baseline 2.5 pt above it: the place that hides
     * the fewest marks and is free, nearest a fifth of the way up */
    double best = INFINITY, bx = 0, by = 0;
    box b = {0};
    for (int i = 0; i <= 40; i++) {
        double t0 = (len - w - 6) * i / 40.0;
        double x0 = sx0 + ca * t0 + sa * 2.5, y0 = sy0 + sa * t0 - ca * 2.5;
        double cx[4] = {0, w, w, 0}, cy[4] = {desc, desc, -asc, -asc}; /* the rotated box's corners */
        box bb = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < 4; k++) {
            double X = x0 + cx[k] * ca - cy[k] * sa, Y = y0 + cx[k] * sa + cy[k] * ca;
            bb.x0 = fmin(bb.x0, X), bb.x1 = fmax(bb.x1, X), bb.y0 = fmin(bb.y0, Y), bb.y1 = fmax(bb.y1, Y);
        }
        if (!free_at(pl, bb))
            continue;
        double cost = hidden(pl, bb) + fabs(t0 - 0.2 * len) * 0.05;
        if (cost < best)
            best = cost, bx = x0, by = y0, b = bb;
    }
    if (!isfinite(best))
        return;
    tp_cv_text(cv, bx, by, TP_FONT_REGULAR, fs, TP_COLOR_AXIS, TP_ALIGN_LEFT, ang * 180 / M_PI,
               c->bandwidth_label);
    take(pl, b);
}

/* ---- marks ---- */

static void circle(tp_canvas *cv, double cx, double cy, double r)
{
    int sides = (int)(r * 2.5) + 8;
    sides = sides > 40 ? 40 : sides;
    for (int i = 0; i < sides; i++) {
        double a = 2 * M_PI * i / sides;
        if (i == 0)
            tp_cv_move_to(cv, cx + r, cy);
        else
            tp_cv_line_to(cv, cx + r * cos(a), cy + r * sin(a));
    }
    tp_cv_close_path(cv);
}

typedef struct order {
    double w;
    size_t i;
} order;

static int by_weight(const void *pa, const void *pb)
{
    const order *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static void marks_draw(tp_canvas *cv, const tp_roofline *c, const plot *p, const double *rad, tp_roofline_stats *st)
{
    order *o = tp_xmalloc((c->n ? c->n : 1) * sizeof *o);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const tp_roofline_mark *m = &c->marks[i];
        double lx = valid(m) ? log10(m->x) : 0, ly = valid(m) ? log10(m->y) : 0;
        if (!valid(m)) {
            st->not_drawn++;
            continue;
        }
        if (lx < p->xlo || lx > p->xhi || ly < p->ylo || ly > p->yhi) {
            st->not_drawn++;
            st->outside++;
            continue;
        }
        o[k++] = (order){m->weight, i};
    }
    qsort(o, k, sizeof *o, by_weight); /* the largest first: small marks stay on top */
    for (size_t j = 0; j < k; j++) {
        const tp_roofline_mark *m = &c->marks[o[j].i];
        double x = px(p, m->x), y = py(p, m->y), r = rad[o[j].i];
        circle(cv, x, y, r);
        tp_cv_fill(cv, m->color);
        circle(cv, x, y, r);
        tp_cv_stroke(cv, darker(m->color), r < 2 ? 0.3 : 0.6);
        if (m->above_roof) { /* flagged, so that it never reads as a rate the roof allows */
            circle(cv, x, y, r + 1.6);
            tp_cv_stroke(cv, TP_COLOR_TEXT, 1.0);
            st->ringed++;
        }
    }
    st->drawn = k;
    free(o);
}

/* The labelled marks are kept clear of every label, the roof's too. */
static void keep_labelled_clear(const tp_roofline *c, const plot *p, placer *pl)
{
    for (size_t i = 0; i < c->n; i++) {
        const tp_roofline_mark *m = &c->marks[i];
        if (m->label && valid(m)) {
            double x = px(p, m->x), y = py(p, m->y), r = pl->rad[i];
            take(pl, (box){x - r, y - r, x + r, y + r});
        }
    }
}

static void mark_labels(tp_canvas *cv, const tp_roofline *c, const plot *p, placer *pl, double fs,
                        tp_roofline_stats *st)
{
    double asc = tp_font_ascent(TP_FONT_REGULAR, fs), desc = tp_font_descent(TP_FONT_REGULAR, fs);
    for (size_t i = 0; i < c->n; i++) {
        const tp_roofline_mark *m = &c->marks[i];
        if (!m->label)
            continue;
        double lx = valid(m) ? log10(m->x) : 0, ly = valid(m) ? log10(m->y) : 0;
        if (!valid(m) || lx < p->xlo || lx > p->xhi || ly < p->ylo || ly > p->yhi)
            continue;
        double x = px(p, m->x), y = py(p, m->y), r = pl->rad[i], h = asc + desc + 2 * PAD, dist = 0;
        const char *texts[2] = {m->label, m->short_label};
        bool done = false;
        for (int t = 0; t < 2 && !done; t++) {
            if (!texts[t])
                continue;
            char *s = tp_fit_middle(TP_FONT_REGULAR, fs, texts[t], p->w * 0.3);
            double w = tp_text_width(TP_FONT_REGULAR, fs, s) + 2 * PAD;
            box b = {0};
            if (place(pl, x, y, r, w, h, &b, &dist)) {
                if (dist > 3) { /* a leader from the mark's edge to the box's nearest point */
                    double nx = fmin(fmax(x, b.x0), b.x1), ny = fmin(fmax(y, b.y0), b.y1);
                    double d = hypot(nx - x, ny - y);
                    if (d > r)
                        tp_cv_line(cv, x + (nx - x) * r / d, y + (ny - y) * r / d, nx, ny, TP_COLOR_MUTED, 0.5);
                }
                tp_cv_fill_rect(cv, b.x0, b.y0, w, h, 0xFFFFFF);
                tp_cv_text(cv, b.x0 + PAD, b.y0 + PAD + asc, TP_FONT_REGULAR, fs, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0, s);
                take(pl, b);
                st->labelled++;
                st->short_labels += t == 1;
                done = true;
            }
            free(s);
        }
        if (!done)
            st->unlabelled++;
    }
}

/* ---- the whole chart ---- */

void tp_roofline_draw(tp_canvas *cv, const tp_roofline *c, tp_rect r, tp_roofline_stats *stats)
{
    tp_roofline_stats st = {0};
    double fs = c->font_size > 0 ? c->font_size : DEF_FS;
    bool roof = c->bandwidth > 0 && c->nroofs > 0;
    for (size_t k = 0; roof && k < c->nroofs; k++)
        roof = c->roofs[k].peak > 0 && isfinite(c->roofs[k].peak);
    plot p = {0};
    ranges(c, roof, &p);
    bool xplain = plain_ticks(p.xlo, p.xhi), yplain = plain_ticks(p.ylo, p.yhi);

    /* the frame: legend above, y ticks and title left, x ticks and title below */
    double lh = c->legend && c->nlegend ? tp_legend_draw(cv, c->legend, c->nlegend, r, fs) + 4 : 0;
    double ytw = 0;
    for (int e = p.ylo; e <= p.yhi; e++)
        ytw = fmax(ytw, tick_w(e, yplain, fs));
    double left = fs * 1.6 + ytw + 5, right = fmax(6, tick_w(p.xhi, xplain, fs) / 2 + 2);
    double bottom = fs * 1.5 + 3 + fs * 1.6;
    p.x = r.x + left, p.y = r.y + lh + fs * 0.6, p.w = r.w - left - right, p.h = r.h - lh - fs * 0.6 - bottom;
    if (p.w < 40 || p.h < 40) {
        if (stats)
            *stats = st;
        return;
    }
    int nx = p.xhi - p.xlo, ny = p.yhi - p.ylo;
    double dx = p.w / nx, dy = p.h / ny;
    /* grid: decades, and the 2..9 ticks inside when a decade is wide enough */
    for (int e = p.xlo; e <= p.xhi; e++) {
        double x = p.x + (e - p.xlo) * dx;
        tp_cv_line(cv, x, p.y, x, p.y + p.h, TP_COLOR_GRID, 0.5);
        for (int m = 2; dx >= 30 && e < p.xhi && m <= 9; m++) {
            double xm = x + log10(m) * dx;
            tp_cv_line(cv, xm, p.y + p.h, xm, p.y + p.h - 3, TP_COLOR_AXIS, 0.4);
        }
    }
    for (int e = p.ylo; e <= p.yhi; e++) {
        double y = p.y + p.h - (e - p.ylo) * dy;
        tp_cv_line(cv, p.x, y, p.x + p.w, y, TP_COLOR_GRID, 0.5);
        for (int m = 2; dy >= 30 && e < p.yhi && m <= 9; m++) {
            double ym = y - log10(m) * dy;
            tp_cv_line(cv, p.x, ym, p.x + 3, ym, TP_COLOR_AXIS, 0.4);
        }
    }
    tp_cv_stroke_rect(cv, p.x, p.y, p.w, p.h, TP_COLOR_AXIS, 0.8);
    /* tick labels, every k-th decade so that they never touch */
    double xw = 0;
    for (int e = p.xlo; e <= p.xhi; e++)
        xw = fmax(xw, tick_w(e, xplain, fs));
    int xe = dx >= xw + 6 ? 1 : (int)ceil((xw + 6) / dx), ye = dy >= fs * 1.5 ? 1 : (int)ceil(fs * 1.5 / dy);
    double tb = p.y + p.h + 3 + tp_font_ascent(TP_FONT_REGULAR, fs);
    for (int e = p.xlo; e <= p.xhi; e++)
        if ((e - p.xlo) % xe == 0)
            tick_draw(cv, e, xplain, fs, p.x + (e - p.xlo) * dx, tb, TP_ALIGN_CENTER);
    /* the lowest y tick stays above the first x tick's top: at the corner the two touched */
    double y_floor = tb - tp_font_ascent(TP_FONT_REGULAR, fs) - (tp_font_ascent(TP_FONT_REGULAR, fs) +
                                                                 tp_font_descent(TP_FONT_REGULAR, fs)) / 2 - 0.5;
    for (int e = p.ylo; e <= p.yhi; e++)
        if ((e - p.ylo) % ye == 0)
            tick_draw(cv, e, yplain, fs, p.x - 4,
                      tp_text_baseline_mid(TP_FONT_REGULAR, fs, fmin(p.y + p.h - (e - p.ylo) * dy, y_floor)),
                      TP_ALIGN_RIGHT);
    if (c->x_title)
        tp_cv_text(cv, p.x + p.w / 2, p.y + p.h + fs * 1.5 + 3 + tp_font_ascent(TP_FONT_REGULAR, fs), TP_FONT_REGULAR,
                   fs, TP_COLOR_TEXT, TP_ALIGN_CENTER, 0, c->x_title);
    if (c->y_title)
        tp_cv_text(cv, r.x + tp_font_ascent(TP_FONT_REGULAR, fs), p.y + p.h / 2, TP_FONT_REGULAR, fs, TP_COLOR_TEXT,
                   TP_ALIGN_CENTER, -90, c->y_title);

    /* radii: area by weight, the largest a few percent of the plot */
    double wmax = 0;
    for (size_t i = 0; i < c->n; i++)
        if (valid(&c->marks[i]) && c->marks[i].weight > wmax)
            wmax = c->marks[i].weight;
    double rmax = fmin(16, fmax(5, fmin(p.w, p.h) * 0.04));
    double *rad = tp_xmalloc((c->n ? c->n : 1) * sizeof *rad);
    for (size_t i = 0; i < c->n; i++) {
        double w = c->marks[i].weight > 0 && wmax > 0 ? c->marks[i].weight / wmax : 0;
        rad[i] = fmax(1.3, rmax * sqrt(w));
    }
    placer pl = {.p = &p, .m = c->marks, .rad = rad, .n = c->n};
    tp_cv_save(cv);
    tp_cv_clip_rect(cv, p.x, p.y, p.w, p.h);
    if (roof)
        roof_draw(cv, c, &p, &pl);
    marks_draw(cv, c, &p, rad, &st);
    tp_cv_restore(cv);
    keep_labelled_clear(c, &p, &pl);
    if (roof)
        roof_labels(cv, c, &p, &pl, fs);
    mark_labels(cv, c, &p, &pl, fs, &st);
    free(pl.taken);
    free(rad);
    st.x_lo = p.xlo, st.x_hi = p.xhi, st.y_lo = p.ylo, st.y_hi = p.yhi;
    if (stats)
        *stats = st;
}
