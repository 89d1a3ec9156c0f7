/* test_timeline_ink.c: the timeline tells the truth about busy time.  The
 * chart is drawn with the recording backend; for each row the ink (the
 * width of its marks, a lightened mark counting by how far its colour sits
 * from the row's background towards its category colour) must equal the
 * row's busy time (the union of its intervals) within one resolution unit
 * per gap that is at least that wide.  A synthetic row of 39 ms busy in
 * 222 ms with gaps from 20 us to 20 ms, and the HTA nccl sample's step #4.
 * The recording rounds to 0.01 pt, so neighbouring marks can overlap by
 * 0.01 pt: the random row (hundreds of marks a few ns apart) reads ~3 pt
 * short of the 134.49 pt the chart draws for it, well inside the bound. */
#include "render/charts/chart_timeline.h"
#include "render/charts/palette.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"
#include "report/pages/pages.h"

#include <math.h>
#include <stdlib.h>

#define RES 0.5 /* the chart's default resolution, pt */
#define BIN 0.01

typedef struct ink_row {
    char label[128];
    double y;   /* the label's baseline */
    double ink; /* pt */
} ink_row;

typedef struct ink {
    double px, py, pw, ph; /* the plot (the clip rectangle) */
    ink_row rows[64];
    int n;
} ink;

static int chan(tp_color c, int s) { return (int)((c >> s) & 0xFF); }

/* How much of a mark's width a colour stands for: 1 for a category colour,
 * f for one lightened towards the white or zebra background by f; -1 when
 * it is neither (a test failure). */
static double ink_of(tp_color c)
{
    static const char *const keys[] = {"GEMM",      "CONV",     "attention",     "normalisation", "softmax",
                                       "elementwise", "reduce", "rotary",        "MoE",           "embedding",
                                       "optimizer", "compiled", "communication", "memcpy",        "memset",
                                       "cpu_op",    "runtime",  "annotation",    "other",         NULL};
    static const tp_color bgs[] = {0xFFFFFF, TP_COLOR_ZEBRA};
    for (int i = 0; keys[i]; i++)
        if (tp_palette_key(keys[i]) == c)
            return 1;
    for (int i = 0; keys[i]; i++) {
        tp_color k = tp_palette_key(keys[i]);
        for (int b = 0; b < 2; b++) {
            int best = 0;
            for (int s = 8; s <= 16; s += 8)
                if (abs(chan(k, s) - chan(bgs[b], s)) > abs(chan(k, best) - chan(bgs[b], best)))
                    best = s;
            int d = chan(k, best) - chan(bgs[b], best);
            if (abs(d) < 16)
                continue;
            double f = (double)(chan(c, best) - chan(bgs[b], best)) / d;
            if (f < 0 || f > 1)
                continue;
            bool fits = true;
            for (int s = 0; s <= 16; s += 8)
                if (fabs(chan(bgs[b], s) + f * (chan(k, s) - chan(bgs[b], s)) - chan(c, s)) > 1.01)
                    fits = false;
            if (fits)
                return f;
        }
    }
    return -1;
}

/* Reads a recording: the row labels left of the plot, then every filled
 * rect inside the clip, painted over a bin array per row (later paint
 * covers earlier, as on a page). */
static void measure(const char *rec, ink *m)
{
    memset(m, 0, sizeof *m);
    const char *clip = strstr(rec, "\nclip ");
    if (!clip || sscanf(clip + 6, "%lf %lf %lf %lf", &m->px, &m->py, &m->pw, &m->ph) != 4) {
        tp_test_fail(__FILE__, __LINE__, "no clip rectangle in the recording");
        return;
    }
    for (const char *l = rec; l < clip; l = strchr(l, '\n') + 1) {
        char font[32], lab[128];
        double size, x, y;
        if (sscanf(l, "text %31s %lf %lf %lf %*f #%*x \"%127[^\"]\"", font, &size, &x, &y, lab) == 5 && x < m->px &&
            y > m->py && y < m->py + m->ph && m->n < 64) {
            snprintf(m->rows[m->n].label, sizeof m->rows[m->n].label, "%s", lab);
            m->rows[m->n++].y = y;
        }
    }
    size_t nb = (size_t)ceil(m->pw / BIN) + 1;
    float *bins = calloc((size_t)m->n * nb, sizeof *bins);
    const char *end = strstr(clip, "\nrestore");
    double rx = 0, ry = 0, rw = 0, rh = 0;
    for (const char *l = clip + 1; l && l < end; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        unsigned c;
        if (sscanf(l, "rect %lf %lf %lf %lf", &rx, &ry, &rw, &rh) == 4)
            continue;
        if (sscanf(l, "fill #%x", &c) != 1)
            continue;
        double f = ink_of(c);
        if (f < 0) {
            tp_test_fail(__FILE__, __LINE__, "a mark of colour #%06x is no category colour, lightened or not", c);
            continue;
        }
        int row = -1;
        for (int i = 0; i < m->n; i++) /* the row whose label sits nearest the mark's middle */
            if (row < 0 || fabs(m->rows[i].y - (ry + rh / 2)) < fabs(m->rows[row].y - (ry + rh / 2)))
                row = i;
        double x0 = fmax(rx, m->px) - m->px, x1 = fmin(rx + rw, m->px + m->pw) - m->px;
        for (size_t b = (size_t)fmax(0, floor(x0 / BIN)); row >= 0 && b < nb && (b + 0.5) * BIN < x1; b++)
            if ((b + 0.5) * BIN >= x0)
                bins[(size_t)row * nb + b] = (float)f;
    }
    for (int i = 0; i < m->n; i++)
        for (size_t b = 0; b < nb; b++)
            m->rows[i].ink += bins[(size_t)i * nb + b] * BIN;
    free(bins);
}

static const ink_row *row_named(const ink *m, const char *label)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->rows[i].label, label) == 0)
            return &m->rows[i];
    tp_test_fail(__FILE__, __LINE__, "no row \"%s\"", label);
    return NULL;
}

/* Busy time of [a,b) intervals (any order, overlapping) clipped to
 * [t0,t1), and how many of its gaps are at least `wide` ns. */
typedef struct span {
    int64_t a, b;
} span;
static int span_cmp(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}
static int64_t union_busy(span *s, size_t n, int64_t t0, int64_t t1, double wide, size_t *wide_gaps)
{
    qsort(s, n, sizeof *s, span_cmp);
    int64_t busy = 0, ca = 0, cb = INT64_MIN;
    *wide_gaps = 0;
    for (size_t i = 0; i <= n; i++) {
        int64_t a = i < n ? (s[i].a > t0 ? s[i].a : t0) : INT64_MAX, b = i < n ? (s[i].b < t1 ? s[i].b : t1) : 0;
        if (i < n && b <= a)
            continue;
        if (a > cb) {
            if (cb != INT64_MIN) {
                busy += cb - ca;
                if (i < n && (double)(a - cb) >= wide)
                    ++*wide_gaps;
            }
            ca = a;
            cb = b;
        } else if (b > cb) {
            cb = b;
        }
    }
    return busy;
}

/* One row's check: the ink is the busy time within RES per wide gap (+1 for the ends). */
static void check_row(const ink *m, const char *label, int64_t busy, int64_t window, size_t wide_gaps, double *err)
{
    const ink_row *r = row_named(m, label);
    if (!r)
        return;
    double want = (double)busy * m->pw / (double)window;
    double tol = RES * (double)(wide_gaps + 1);
    *err = r->ink - want;
    if (fabs(*err) > tol)
        tp_test_fail(__FILE__, __LINE__, "row \"%s\": ink %.3f pt, busy %.3f pt (%.4f of the window), off by %.3f > %.3f",
                     label, r->ink, want, (double)busy / (double)window, *err, tol);
}

#define MS 1000000LL
#define US 1000LL

TEST(timeline_ink_equals_busy_synthetic)
{
    /* row 0: 39 ms busy in 222 ms: 1000 x 10 us every 30 us (gaps of 20 us,
     * far below a pixel), 200 x 50 us every 150 us, 10 x 1 ms every 1.3 ms,
     * 3 x 3 ms with gaps of 5 and 20 ms; nested duplicates count once.
     * row 1: the same shape with overlapping pairs and mixed kinds.
     * row 2: 400 events of pseudo-random length and gap (1 us .. 3 ms). */
    size_t cap = 4000, n = 0;
    tp_tl_item *it = calloc(cap, sizeof *it);
    span *s[3] = {calloc(cap, sizeof(span)), calloc(cap, sizeof(span)), calloc(cap, sizeof(span))};
    size_t ns[3] = {0, 0, 0};
#define ADD(row, a, d, cat)                                                                                      \
    do {                                                                                                         \
        it[n++] = (tp_tl_item){(row), (a), (d), "op", (cat), 0};                                                  \
        s[row][ns[row]++] = (span){(a), (a) + (d)};                                                              \
    } while (0)
    for (int r = 0; r < 2; r++) {
        const char *cat = r ? "memcpy" : "kernel";
        for (int i = 0; i < 1000; i++)
            ADD(r, 5 * MS + i * 30 * US, 10 * US, i % 3 == 0 && r ? "memset" : cat);
        for (int i = 0; i < 200; i++)
            ADD(r, 40 * MS + i * 150 * US, 50 * US, cat);
        for (int i = 0; i < 10; i++) {
            ADD(r, 80 * MS + i * 1300 * US, 1 * MS, cat);
            ADD(r, 80 * MS + i * 1300 * US + 100 * US, 200 * US, "kernel"); /* nested */
            if (r)
                ADD(r, 80 * MS + i * 1300 * US + 850 * US, 150 * US, "memset"); /* overlaps the end */
        }
        ADD(r, 100 * MS, 3 * MS, cat);
        ADD(r, 108 * MS, 3 * MS, cat);
        ADD(r, 131 * MS, 3 * MS, cat);
    }
    uint64_t x = 12345;
    int64_t t = 140 * MS;
    for (int i = 0; i < 400 && t < 220 * MS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t d = (int64_t)(1 + (x >> 33) % 3000) * US / ((x >> 20) % 4 ? 40 : 1);
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t g = (int64_t)(1 + (x >> 33) % 3000) * US / ((x >> 21) % 3 ? 50 : 1);
        if (t + d > 220 * MS)
            break;
        ADD(2, t, d, "cpu_op");
        t += d + g;
    }
    const char *labels[] = {"kernels", "mixed", "random"};
    tp_timeline tl = {"Synthetic", 3, labels, n, it, 1};
    tp_tl_view v = {.t0 = 0, .t1 = 222 * MS};
    tp_buf out = {0};
    tp_canvas *cv = tp_canvas_rec(&out);
    tp_cv_begin_page(cv, 842, 595, "t");
    tp_timeline_draw_view(cv, &tl, &v, (tp_rect){36, 36, 770, 523});
    tp_cv_end_page(cv);
    tp_err err = {0};
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    tp_buf_putc(&out, 0);
    ink m;
    measure(out.data, &m);
    CHECK(m.pw > 600);
    double px_ns = RES * 222.0 * MS / m.pw; /* one resolution unit, ns */
    for (int r = 0; r < 3; r++) {
        size_t wide;
        int64_t busy = union_busy(s[r], ns[r], 0, 222 * MS, px_ns, &wide);
        if (r < 2)
            CHECK_EQ_INT(busy, 39 * MS);
        double e;
        check_row(&m, labels[r], busy, 222 * MS, wide, &e);
        printf("  %s: busy %.2f%% of 222 ms, ink off by %+.4f pt (%zu gaps >= 1 px)\n", labels[r],
               100.0 * (double)busy / (222.0 * MS), e, wide);
    }
    tp_buf_free(&out);
    for (int r = 0; r < 3; r++)
        free(s[r]);
    free(it);
}

/* The HTA nccl sample, step #4 (222 ms): its streams' ink against the
 * steps analysis' own busy time per stream (a union computed apart from the
 * chart). */
TEST(timeline_ink_equals_busy_nccl_step4)
{
    const char *path = tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz");
    if (!tp_test_file_exists(path)) {
        fprintf(stderr, "  (skipping: %s not found)\n", path);
        return;
    }
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace t;
    tp_trace_init(&t);
    CHECK_EQ_INT(tp_load(path, &lo, &t, &err), 0);
    tp_report_opts ro = {"nccl", NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    CHECK(s.sf.median != SIZE_MAX && s.sf.steps[s.sf.median].step == 4);
    int64_t t0, t1;
    CHECK(tp_timeline_window(&s, &t0, &t1));
    tp_buf out = {0};
    tp_canvas *cv = tp_canvas_rec(&out);
    tp_pagectx pc = {&s, 595, 842, 842, 595, NULL, 0, NULL, tp_category_colors(s.rules)};
    tp_cv_begin_page(cv, 842, 595, "Timeline");
    tp_chart_timeline(cv, &pc, (tp_rect){36, 36, 770, 523});
    tp_cv_end_page(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    tp_buf_putc(&out, 0);
    ink m;
    measure(out.data, &m);
    const tp_step_row *st = &s.sf.steps[s.sf.median];
    double px_ns = RES * (double)(t1 - t0) / m.pw;
    for (size_t k = 0; k < s.sf.nstreams; k++) {
        char lab[256];
        tp_stream_label(&t, s.sf.streams[k], lab, sizeof lab);
        /* the stream's activities in the step, for the gap count */
        size_t cap = 0, n = 0;
        span *sp = NULL;
        for (size_t i = 0; i < t.nevents; i++) {
            const tp_event *e = &t.events[i];
            if (e->ph != 'X' || (e->flags & TP_EV_DROPPED) || s.ht.logical[e->track] != s.sf.streams[k] ||
                !(e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET) ||
                !tp_step_holds(&t, st, e))
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                sp = realloc(sp, cap * sizeof *sp);
            }
            sp[n++] = (span){e->ts, e->ts + e->dur};
        }
        size_t wide;
        int64_t busy = union_busy(sp, n, t0, t1, px_ns, &wide);
        CHECK_EQ_INT(busy, st->stream_busy[k]);
        double e;
        check_row(&m, lab, busy, t1 - t0, wide, &e);
        const ink_row *r = row_named(&m, lab);
        printf("  %s: busy %.3f ms of %.3f ms shown (%.2f%%), ink %.2f%% of the width, off by %+.4f pt (%zu events, %zu "
               "gaps >= 1 px)\n",
               lab, (double)busy / 1e6, (double)(t1 - t0) / 1e6, 100.0 * (double)busy / (double)(t1 - t0),
               r ? 100 * r->ink / m.pw : -1, e, n, wide);
        free(sp);
    }
    /* stream 7: busy 39 of 222 ms, so far from solid */
    const ink_row *r7 = row_named(&m, "GPU 0 stream 7");
    CHECK(r7 && r7->ink < 0.25 * m.pw && r7->ink > 0.1 * m.pw);
    tp_buf_free(&out);
    free(pc.cat_colors);
    tp_summary_free(&s);
    tp_trace_free(&t);
}
