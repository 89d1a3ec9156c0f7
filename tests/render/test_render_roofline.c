/* The roofline chart (render/charts/chart_roofline.h): a golden of a small
 * chart with two roofs, thousands of marks with no overlapping labels, and
 * the chart without a roof and with marks it cannot place. */
#include "render/canvas.h"
#include "render/charts/chart_roofline.h"
#include "render/charts/palette.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static tp_buf rec;

static char *draw(const tp_roofline *c, tp_rect r, tp_roofline_stats *st)
{
    rec = (tp_buf){0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_cv_begin_page(cv, 800, 480, "test");
    tp_roofline_draw(cv, c, r, st);
    tp_cv_end_page(cv);
    tp_canvas_close(cv, NULL);
    tp_buf_putc(&rec, 0);
    rec.len--;
    return rec.data;
}

/* The label boxes: "rect x y w h" followed by a white fill (nothing else in
 * the chart is filled white).  Returns how many; boxes[] gets them. */
static size_t label_boxes(const char *s, double (*boxes)[4], size_t max)
{
    size_t n = 0;
    for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        double b[4];
        if (sscanf(p, "rect %lf %lf %lf %lf", &b[0], &b[1], &b[2], &b[3]) != 4)
            continue;
        const char *nl = strchr(p, '\n');
        if (nl && strncmp(nl + 1, "fill #ffffff", 12) == 0 && n < max) {
            memcpy(boxes[n], b, sizeof b);
            n++;
        }
    }
    return n;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

TEST(render_roofline_golden_two_roofs)
{
    tp_roof roofs[] = {{"matrix bf16 100 TFLOPS/s", 100}, {"vector fp32 20 TFLOPS/s", 20}};
    tp_roofline_mark m[] = {
        {50, 60, 400, 0x0072B2, "#1 aten::mm", "#1", false},
        {0.25, 0.4, 300, 0x009E73, "#2 aten::add", "#2", false},
        {8, 5, 100, 0xCC79A7, "#3 aten::_scaled_dot_product_flash_attention", "#3", false},
        {0.5, 0.9, 50, 0x009E73, NULL, NULL, false},
        {200, 15, 10, 0x0072B2, NULL, NULL, false},
        {0, 3, 10, 0x0072B2, "#6 no bytes", "#6", false}, /* not drawn: x = 0 */
    };
    tp_legend_item leg[] = {{"GEMM (2)", 0x0072B2}, {"elementwise (2)", 0x009E73}};
    tp_roofline c = {"arithmetic intensity (FLOP/byte)", "achieved TFLOPS/s", 2.0, "memory 2 TB/s", roofs, 2, m, 6,
                     leg, 2, 0};
    tp_roofline_stats st;
    char *s = draw(&c, (tp_rect){16, 16, 768, 448}, &st);
    CHECK_EQ_INT(st.drawn, 5);
    CHECK_EQ_INT(st.not_drawn, 1);
    CHECK_EQ_INT(st.labelled + st.unlabelled, 3); /* the labelled mark that is not drawn gets no label */
    CHECK_EQ_INT(st.labelled, 3);
    /* decades: x from 0.25 and the ridges 10 and 50 (a decade each side) to 500: 0.1 .. 1000 */
    CHECK_EQ_INT(st.x_lo, -1);
    CHECK_EQ_INT(st.x_hi, 3);
    CHECK_EQ_INT(st.y_lo, -1); /* 0.4, and a roof a hundred times down: 0.2 */
    CHECK_EQ_INT(st.y_hi, 3);  /* 100 with room above for its label */
    CHECK(strstr(s, "\"matrix bf16 100 TFLOPS/s\"") && strstr(s, "\"vector fp32 20 TFLOPS/s\"") &&
          strstr(s, "\"memory 2 TB/s\""));
    CHECK(strstr(s, "\"0.1\"") && strstr(s, "\"1000\"")); /* plain tick labels inside 0.001 .. 10000 */
    CHECK(strstr(s, "\"#1 aten::mm\"") && strstr(s, "\"#2 aten::add\""));
    CHECK_GOLDEN("render/render_roofline.rec", s, strlen(s));
    free(rec.data);
}

/* 3000 marks in two clouds, the 8 largest labelled: every mark drawn, the
 * labels in the plot and never on each other. */
TEST(render_roofline_thousands_of_marks_readable)
{
    enum { N = 3000 };
    tp_roofline_mark *m = tp_xcalloc(N, sizeof *m);
    char labels[8][32];
    unsigned long long x = 42;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) / 9007199254740992.0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(x >> 11) / 9007199254740992.0;
        bool gemm = i % 3 != 0;
        m[i].x = gemm ? 20 + 400 * u : 0.1 + 0.2 * u;
        m[i].y = gemm ? m[i].x * 2 * (0.05 + 0.9 * v) : 0.3 * v + 0.001;
        m[i].weight = (double)(N - i);
        m[i].color = gemm ? 0x0072B2 : 0x009E73;
        if (i < 8) {
            snprintf(labels[i], sizeof labels[i], "#%zu %s", i + 1, gemm ? "aten::mm" : "aten::add");
            m[i].label = labels[i];
            m[i].short_label = "#";
        }
    }
    tp_roof roofs[] = {{"matrix bf16 989.4 TFLOPS/s", 989.4}};
    tp_roofline c = {"x", "y", 3.35, "memory 3.35 TB/s", roofs, 1, m, N, NULL, 0, 0};
    tp_roofline_stats st;
    tp_rect r = {16, 16, 768, 448};
    char *s = draw(&c, r, &st);
    CHECK_EQ_INT(st.drawn, N);
    CHECK_EQ_INT(st.labelled + st.unlabelled, 8);
    CHECK(st.labelled >= 6);
    double b[16][4];
    size_t nb = label_boxes(s, b, 16);
    CHECK_EQ_INT(nb, st.labelled + 1); /* and the roof's label, on a white box of its own */
    for (size_t i = 0; i < nb; i++) {
        CHECK(b[i][0] >= r.x && b[i][1] >= r.y && b[i][0] + b[i][2] <= r.x + r.w && b[i][1] + b[i][3] <= r.y + r.h);
        for (size_t j = i + 1; j < nb; j++)
            if (b[i][0] < b[j][0] + b[j][2] && b[j][0] < b[i][0] + b[i][2] && b[i][1] < b[j][1] + b[j][3] &&
                b[j][1] < b[i][1] + b[i][3])
                tp_test_fail(__FILE__, __LINE__, "label boxes %zu and %zu overlap", i, j);
    }
    /* one closed polygon per mark, no more */
    CHECK_EQ_INT(count(s, "close\n"), 2 * N);
    free(rec.data);
    free(m);
}

/* No roof (an unknown device): no roof line or label, marks still drawn;
 * marks that are zero, negative or not finite are counted, not drawn;
 * axes beyond 10^4 are labelled as powers of ten. */
TEST(render_roofline_no_roof_bad_marks_powers)
{
    tp_roofline_mark m[] = {
        {1e-6, 1e-5, 1, 0x0072B2, NULL, NULL, false}, {1e5, 1e3, 2, 0x0072B2, "big", NULL, false},
        {-1, 1, 1, 0x0072B2, NULL, NULL, false},      {1, NAN, 1, 0x0072B2, NULL, NULL, false},
        {INFINITY, 1, 1, 0x0072B2, NULL, NULL, false},
    };
    tp_roofline c = {"x", "y", 0, "memory", NULL, 0, m, 5, NULL, 0, 0};
    tp_roofline_stats st;
    char *s = draw(&c, (tp_rect){16, 16, 768, 448}, &st);
    CHECK_EQ_INT(st.drawn, 2);
    CHECK_EQ_INT(st.not_drawn, 3);
    CHECK_EQ_INT(st.labelled, 1);
    CHECK(!strstr(s, "\"memory\""));
    CHECK_EQ_INT(st.x_lo, -7);
    CHECK_EQ_INT(st.x_hi, 6);
    /* "10" with a raised exponent, never "1e+05" */
    CHECK(strstr(s, "\"10\"") && strstr(s, "\"-7\"") && strstr(s, "\"6\"") && !strstr(s, "e+"));
    free(rec.data);
}
