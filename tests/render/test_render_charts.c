/* Chart goldens through the recording backend, plus layout properties
 * that must hold whatever the golden says (labels inside the rectangle,
 * pagination, "no data"). */
#include "render/canvas.h"
#include "render/charts/chart_bar.h"
#include "render/charts/chart_errbar.h"
#include "render/charts/chart_grid.h"
#include "render/charts/chart_table.h"
#include "render/charts/chart_timeline.h"
#include "tests/lib/harness.h"
#include "tests/lib/render_samples.h"

#include <stdlib.h>

static tp_buf rec_buf;
static tp_canvas *rec_begin(double w, double h)
{
    rec_buf = (tp_buf){0};
    tp_canvas *cv = tp_canvas_rec(&rec_buf);
    tp_cv_begin_page(cv, w, h, "test");
    return cv;
}
static char *rec_end(tp_canvas *cv)
{
    tp_canvas_close(cv, NULL);
    tp_buf_putc(&rec_buf, 0);
    rec_buf.len--;
    return rec_buf.data;
}
static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Every "text" and "rect" line's anchor lies inside [x0,x1] x [y0,y1]. */
static int anchors_inside(const char *rec, double x0, double y0, double x1, double y1)
{
    const char *p = rec;
    while (p && *p) {
        double x, y, w, h, size;
        char font[16];
        if (sscanf(p, "text %15s %lf %lf %lf", font, &size, &x, &y) == 4 ||
            sscanf(p, "rect %lf %lf %lf %lf", &x, &y, &w, &h) == 4) {
            if (x < x0 - 0.01 || x > x1 + 0.01 || y < y0 - 0.01 || y > y1 + 0.01) {
                fprintf(stderr, "  outside: %.60s\n", p);
                return 0;
            }
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return 1;
}

TEST(render_bar_golden_small)
{
    const char *names[] = {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
                           "at::detail::Array<char*, 3>)",
                           "volta_sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)"};
    int64_t v[] = {7300000, 2500000, 12000};
    tp_barchart c = {.title = "Top kernels",
                     .value_label = "total time",
                     .n = 3,
                     .labels = names,
                     .values = v,
                     .shorten_names = 1,
                     .value_labels = 1};
    tp_canvas *cv = rec_begin(600, 300);
    tp_barchart_draw(cv, &c, (tp_rect){20, 20, 560, 260});
    char *r = rec_end(cv);
    CHECK(strstr(r, "\"8 ms\"") && strstr(r, "\"vectorized_elementwise_kernel\"") && strstr(r, "\"7.3 ms\""));
    CHECK(anchors_inside(r, 20, 20, 580, 280));
    CHECK_GOLDEN("render/render_bar_small.rec", r, strlen(r));
    free(r);
}

TEST(render_bar_80_long_names_golden)
{
    char **names;
    int64_t *values;
    tp_sample_top_kernels(80, &names, &values);
    tp_barchart c = {.title = "Top 80",
                     .value_label = "total",
                     .n = 80,
                     .labels = (const char *const *)names,
                     .values = values,
                     .shorten_names = 1,
                     .value_labels = 1};
    tp_canvas *cv = rec_begin(842, 595);
    tp_barchart_draw(cv, &c, (tp_rect){24, 24, 794, 547});
    char *r = rec_end(cv);
    CHECK_EQ_INT(count(r, " -90.00 #000000"), 80 + 80 + 1); /* labels, values, axis title */
    CHECK(anchors_inside(r, 24, 24, 818, 571));
    /* no 200-char name survives: labels are shortened and fitted */
    const char *p = r;
    while ((p = strstr(p, "text regular"))) {
        const char *q = strchr(p, '"'), *e = q ? strchr(q + 1, '\n') : NULL;
        CHECK(q && e && e - q < 90);
        p = e ? e : p + 1;
    }
    CHECK_GOLDEN("render/render_bar_80.rec", r, strlen(r));
    free(r);
    tp_sample_free(names, values, 80);
}

/* 80 bars whose tallest is just under the top tick (the PlaidML "by mean"
 * chart: 4.79 ms on a 5 ms axis): its rotated value does not fit above the
 * bar, and it used to be dropped; it now goes inside the bar's top. */
TEST(render_bar_tallest_value_label_kept)
{
    const char *names[80];
    char nb[80][24];
    int64_t v[80];
    for (int i = 0; i < 80; i++) {
        snprintf(nb[i], sizeof nb[i], "kernel_c4_sdk_%d", i);
        names[i] = nb[i];
        v[i] = i == 0 ? 4788371 : 4560894 / i;
    }
    tp_barchart c = {.title = "Top 80 kernels by mean time",
                     .value_label = "mean time per call",
                     .n = 80,
                     .labels = names,
                     .values = v,
                     .value_labels = 1};
    tp_canvas *cv = rec_begin(842, 595);
    tp_barchart_draw(cv, &c, (tp_rect){24, 24, 794, 400});
    char *r = rec_end(cv);
    CHECK(strstr(r, "\"5 ms\"") != NULL);    /* the axis ends just above the tallest bar */
    CHECK(strstr(r, "\"4.79 ms\"") != NULL); /* and its value is shown */
    CHECK(strstr(r, "\"4.56 ms\"") != NULL);
    CHECK(anchors_inside(r, 24, 24, 818, 424));
    free(r);
}

TEST(render_bar_edge_cases_golden)
{
    tp_barchart none = {.title = "Nothing", .value_label = "time", .shorten_names = 1, .value_labels = 1};
    tp_canvas *cv = rec_begin(400, 300);
    tp_barchart_draw(cv, &none, (tp_rect){10, 10, 380, 280});
    char *r = rec_end(cv);
    CHECK(strstr(r, "\"no data\"") != NULL);
    CHECK_EQ_INT(count(r, "fill #0072b2"), 0);
    free(r);

    const char *one[] = {"x"};
    int64_t v1[] = {0}; /* one bar, value 0 */
    tp_barchart single = {.n = 1, .labels = one, .values = v1, .value_labels = 1};
    cv = rec_begin(400, 300);
    tp_barchart_draw(cv, &single, (tp_rect){10, 10, 380, 280});
    r = rec_end(cv);
    CHECK(strstr(r, "\"0 ns\"") && strstr(r, "\"x\""));
    free(r);

    const char *ln[] = {"a", "b", "c"};
    int64_t vl[] = {1, 1000000, 10000000000LL}; /* 1 ns .. 10 s */
    tp_barchart lg = {.n = 3, .labels = ln, .values = vl, .log_scale = 1, .value_labels = 1};
    cv = rec_begin(400, 300);
    tp_barchart_draw(cv, &lg, (tp_rect){10, 10, 380, 280});
    r = rec_end(cv);
    CHECK(strstr(r, "\"1 ns\"") && strstr(r, "\"10 s\"") && strstr(r, "\"1 ms\""));
    CHECK_EQ_INT(count(r, "fill #0072b2"), 3); /* the 1 ns bar is still drawn */
    CHECK_GOLDEN("render/render_bar_log.rec", r, strlen(r));
    free(r);
}

TEST(render_errbar_stats_and_golden)
{
    int64_t x[] = {10, 20, 30, 40};
    int64_t m, lo, hi;
    tp_errbar_stats(x, 4, TP_ERR_MINMAX, &m, &lo, &hi);
    CHECK_EQ_INT(m, 25);
    CHECK_EQ_INT(lo, 10);
    CHECK_EQ_INT(hi, 40);
    tp_errbar_stats(x, 4, TP_ERR_STDDEV, &m, &lo, &hi); /* sample sd = 12.91 */
    CHECK_EQ_INT(lo, 12);
    CHECK_EQ_INT(hi, 38);
    tp_errbar_stats(x, 0, TP_ERR_STDDEV, &m, &lo, &hi);
    CHECK_EQ_INT(m, 0);
    int64_t big[] = {INT64_MAX / 2, INT64_MAX / 2}; /* no overflow in the mean */
    tp_errbar_stats(big, 2, TP_ERR_MINMAX, &m, &lo, &hi);
    CHECK(m > 0);
    int64_t a[] = {1000, 1200, 900}, b[] = {5000};
    tp_rep_series s[] = {{"a", a, 3}, {"b", b, 1}};
    tp_canvas *cv = rec_begin(400, 300);
    tp_errbar_draw(cv, "Reps", "time", s, 2, TP_ERR_MINMAX, (tp_rect){10, 10, 380, 280});
    char *r = rec_end(cv);
    CHECK_GOLDEN("render/render_errbar.rec", r, strlen(r));
    free(r);
}

static const tp_mix_part mix_a[] = {{"GEMM", 750, 0}, {"elementwise", 250, 0}};
static const tp_mix_part mix_b[] = {{"CONV", 100, 0}, {"GEMM", 100, 0}, {"CONV", 200, 0}}; /* conv merged: 75% */
static const tp_kernel_mix mixes_ab[] = {{mix_a, 2, NULL, 0}, {mix_b, 3, NULL, 0}};

TEST(render_grid_golden_and_pages)
{
    tp_op_breakdown ops[] = {{"aten::addmm", mixes_ab, 2, 5}, {"aten::conv2d", mixes_ab + 1, 1, 0}};
    tp_grid_chart g = {"Breakdown", ops, 2};
    tp_grid_layout *L = tp_grid_layout_new(&g, 500, 300);
    CHECK_EQ_INT(tp_grid_pages(L), 1);
    tp_canvas *cv = rec_begin(540, 340);
    tp_grid_draw_page(cv, &g, L, 0, (tp_rect){20, 20, 500, 300});
    char *r = rec_end(cv);
    /* issue 36 item 2: an op of few mixes gets bars wide enough to name each category in its segment */
    CHECK(strstr(r, "\"GEMM 75%\"") && strstr(r, "\"elementwise 25%\"") && strstr(r, "\"CONV 75%\"") &&
          strstr(r, "\"aten::addmm (2 of 5 mixes)\""));
    CHECK(strstr(r, "\"GEMM\"") && strstr(r, "\"CONV\"") && strstr(r, "\"elementwise\""));
    CHECK(anchors_inside(r, 20, 20, 520, 320));
    CHECK_GOLDEN("render/render_grid.rec", r, strlen(r));
    free(r);
    tp_grid_layout_free(L);

    /* 200 ops do not fit one page: several pages, every op drawn once */
    tp_op_breakdown many[200];
    char names[200][24];
    for (int i = 0; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "op%d", i);
        many[i] = (tp_op_breakdown){names[i], mixes_ab, 2, 0};
    }
    tp_grid_chart gm = {NULL, many, 200};
    L = tp_grid_layout_new(&gm, 794, 547);
    CHECK(tp_grid_pages(L) > 2);
    tp_buf all = {0};
    tp_canvas *c2 = tp_canvas_rec(&all);
    for (size_t p = 0; p < tp_grid_pages(L); p++) {
        tp_cv_begin_page(c2, 842, 595, NULL);
        tp_grid_draw_page(c2, &gm, L, p, (tp_rect){24, 24, 794, 547});
        tp_cv_end_page(c2);
    }
    tp_canvas_close(c2, NULL);
    tp_buf_putc(&all, 0);
    CHECK(strstr(all.data, "\"op0\"") && strstr(all.data, "\"op199\""));
    CHECK(anchors_inside(all.data, 0, 0, 842, 595));
    tp_buf_free(&all);
    tp_grid_layout_free(L);

    /* one op with 100 mixes: split into numbered boxes */
    tp_kernel_mix lots[100];
    for (int i = 0; i < 100; i++)
        lots[i] = mixes_ab[i % 2];
    tp_op_breakdown wide = {"aten::wide", lots, 100, 0};
    tp_grid_chart gw = {NULL, &wide, 1};
    L = tp_grid_layout_new(&gw, 500, 1000);
    cv = rec_begin(540, 1040);
    tp_grid_draw_page(cv, &gw, L, 0, (tp_rect){20, 20, 500, 1000});
    r = rec_end(cv);
    CHECK(strstr(r, "\"aten::wide (1/") != NULL);
    CHECK(strstr(r, "mixes") == NULL); /* all of its mixes drawn: no note */
    CHECK(anchors_inside(r, 20, 20, 520, 1020));
    free(r);
    tp_grid_layout_free(L);

    tp_grid_chart empty = {"Empty", NULL, 0};
    L = tp_grid_layout_new(&empty, 500, 300);
    CHECK_EQ_INT(tp_grid_pages(L), 1);
    cv = rec_begin(540, 340);
    tp_grid_draw_page(cv, &empty, L, 0, (tp_rect){20, 20, 500, 300});
    r = rec_end(cv);
    CHECK(strstr(r, "\"no data\"") != NULL);
    free(r);
    tp_grid_layout_free(L);
}

TEST(render_timeline_golden)
{
    const char *tracks[] = {"thread 1", "stream 7"};
    tp_tl_item items[] = {
        {0, 1000, 5000, "aten::addmm", "host_op", 0},
        {1, 2000, 3000, "volta_sgemm_128x64_nn", "GEMM", 0},
        {1, 4000, 100, "overlapping tiny kernel", "GEMM", 0},
        {7, 0, 1, "unknown track: ignored", "GEMM", 0},
    };
    tp_timeline tl = {"Step", 2, tracks, 4, items, 0};
    tp_canvas *cv = rec_begin(500, 200);
    tp_timeline_draw(cv, &tl, (tp_rect){10, 10, 480, 180});
    char *r = rec_end(cv);
    CHECK(strstr(r, "\"aten::addmm\"") && strstr(r, "\"5 us\"") && strstr(r, "\"thread 1\""));
    CHECK(strstr(r, "unknown track") == NULL);
    CHECK(anchors_inside(r, 10, 10, 490, 190));
    CHECK_GOLDEN("render/render_timeline.rec", r, strlen(r));
    free(r);

    /* 500 tracks: the busiest rows that fit at 7.5 pt, the rest merged into one */
    const char **many = malloc(500 * sizeof *many);
    tp_tl_item *it = malloc(500 * sizeof *it);
    for (int i = 0; i < 500; i++) {
        many[i] = "track";
        it[i] = (tp_tl_item){(uint32_t)i, i, 10, NULL, "GEMM", 0};
    }
    tp_timeline big = {NULL, 500, many, 500, it, 0};
    cv = rec_begin(500, 400);
    tp_timeline_draw(cv, &big, (tp_rect){10, 10, 480, 380});
    r = rec_end(cv);
    CHECK(strstr(r, "\"456 other rows\"") != NULL && strstr(r, "more tracks not shown") == NULL); /* 44 + 1 rows */
    CHECK(anchors_inside(r, 10, 10, 490, 390));
    free(r);
    /* keep_last: the last two tracks (device streams) are drawn all the
     * same; max_rows: the 20 busiest optional ones (all tie: the first 20),
     * the rest merged */
    many[498] = "device stream A";
    many[499] = "device stream B";
    big.keep_last = 2;
    cv = rec_begin(500, 400);
    tp_timeline_draw_view(cv, &big, &(tp_tl_view){.max_rows = 20}, (tp_rect){10, 10, 480, 380});
    r = rec_end(cv);
    CHECK(strstr(r, "\"device stream A\"") && strstr(r, "\"device stream B\"") && strstr(r, "\"478 other rows\""));
    CHECK(anchors_inside(r, 10, 10, 490, 390));
    free(r);
    /* more kept tracks than fit at 7.5 pt: the first that fit, and a note */
    big.keep_last = 500;
    cv = rec_begin(500, 400);
    tp_timeline_draw(cv, &big, (tp_rect){10, 10, 480, 380});
    r = rec_end(cv);
    CHECK(strstr(r, "\"455 more tracks not shown\"") && strstr(r, "other rows") == NULL); /* 45 rows of 7.5 pt */
    free(r);
    big.keep_last = 0;
    cv = rec_begin(500, 400);
    tp_timeline_draw(cv, &big, (tp_rect){10, 10, 480, 380});
    r = rec_end(cv);
    CHECK(strstr(r, "device stream") == NULL);
    free(r);
    free(many);
    free(it);

    tp_timeline none = {"Empty", 0, NULL, 0, NULL, 0};
    cv = rec_begin(500, 200);
    tp_timeline_draw(cv, &none, (tp_rect){10, 10, 480, 180});
    r = rec_end(cv);
    CHECK(strstr(r, "\"no data\"") != NULL);
    free(r);
}

TEST(render_table_golden_and_pagination)
{
    tp_table_col cols[] = {{"name", 0, TP_FIT_MIDDLE, 0}, {"count", 1, TP_FIT_END, 0}, {"note", 0, TP_FIT_WRAP, 0}};
    const char *cells[] = {"short",  "1",
                           "a note", "a much longer name that has to be shortened in the middle",
                           "12345",  "wrapped text that goes on and on and on over several lines of the column"};
    tp_table t = {"Table", 3, cols, 2, cells, 8, 3, NULL};
    tp_table_layout *L = tp_table_layout_new(&t, 300, 200);
    CHECK_EQ_INT(tp_table_pages(L), 1);
    tp_canvas *cv = rec_begin(340, 240);
    tp_table_draw_page(cv, &t, L, 0, (tp_rect){20, 20, 300, 200});
    char *r = rec_end(cv);
    CHECK(strstr(r, "\"12345\"") && strstr(r, "\"count\"") && strstr(r, "\xE2\x80\xA6"));
    CHECK(anchors_inside(r, 20, 20, 320, 220));
    CHECK_GOLDEN("render/render_table.rec", r, strlen(r));
    free(r);
    tp_table_layout_free(L);

    /* 1000 rows: header on every page, rows in order, none lost */
    size_t n = 1000;
    const char **big = malloc(n * 3 * sizeof *big);
    char(*num)[16] = malloc(n * sizeof *num);
    for (size_t i = 0; i < n; i++) {
        snprintf(num[i], sizeof num[i], "%zu", i);
        big[i * 3] = "row";
        big[i * 3 + 1] = num[i];
        big[i * 3 + 2] = i % 7 ? "x" : "a long note that wraps onto more than one line in this narrow column";
    }
    tp_table tb = {"Big", 3, cols, n, big, 8, 3, NULL};
    L = tp_table_layout_new(&tb, 300, 500);
    size_t pages = tp_table_pages(L);
    CHECK(pages > 10);
    tp_buf all = {0};
    tp_canvas *c2 = tp_canvas_rec(&all);
    for (size_t p = 0; p < pages; p++) {
        tp_cv_begin_page(c2, 340, 540, NULL);
        tp_table_draw_page(c2, &tb, L, p, (tp_rect){20, 20, 300, 500});
        tp_cv_end_page(c2);
    }
    tp_canvas_close(c2, NULL);
    tp_buf_putc(&all, 0);
    CHECK_EQ_INT(count(all.data, "\"count\""), pages);
    CHECK_EQ_INT(count(all.data, "\"Big (continued)\""), pages - 1);
    CHECK(strstr(all.data, "\"0\"") && strstr(all.data, "\"999\""));
    CHECK(anchors_inside(all.data, 20, 20, 320, 520));
    tp_buf_free(&all);
    tp_table_layout_free(L);
    free(big);
    free(num);

    tp_table empty = {NULL, 3, cols, 0, NULL, 0, 0, NULL};
    L = tp_table_layout_new(&empty, 300, 200);
    cv = rec_begin(340, 240);
    tp_table_draw_page(cv, &empty, L, 0, (tp_rect){20, 20, 300, 200});
    r = rec_end(cv);
    CHECK(strstr(r, "\"no data\"") != NULL);
    free(r);
    tp_table_layout_free(L);
}
