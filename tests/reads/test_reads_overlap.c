/* test_reads_overlap.c: every bar of the dominating-ops grid named, and no chart text over another (issue 36
 * items 2 and 8): the recorded drawing's text lines are turned into boxes and compared pairwise. */
#include "render/canvas.h"
#include "render/charts/chart_grid.h"
#include "render/charts/chart_roofline.h"
#include "render/text/font.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tbox {
    double x0, y0, x1, y1, size, angle;
    char text[160];
} tbox;

/* The boxes of a recording's text lines ("text FONT SIZE X Y ANGLE #COLOR "s""), at angle 0 or -90. */
static size_t text_boxes(const char *rec, tbox *out, size_t max)
{
    size_t n = 0;
    for (const char *l = rec; l && *l && n < max; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char font[16];
        double size, x, y, angle;
        int used = 0;
        if (sscanf(l, "text %15s %lf %lf %lf %lf #%*x %n", font, &size, &x, &y, &angle, &used) != 5 || !used)
            continue;
        const char *q = l + used + 1, *e = strchr(q, '\n');
        size_t len = (size_t)(e ? e - q : (ptrdiff_t)strlen(q));
        if (len && q[len - 1] == '"')
            len--;
        tbox *b = &out[n++];
        snprintf(b->text, sizeof b->text, "%.*s", (int)len, q);
        tp_font f = strcmp(font, "bold") == 0 ? TP_FONT_BOLD : strcmp(font, "mono") == 0 ? TP_FONT_MONO : TP_FONT_REGULAR;
        double w = tp_text_width(f, size, b->text), asc = tp_font_ascent(f, size), desc = tp_font_descent(f, size);
        b->size = size, b->angle = angle;
        if (fabs(angle + 90) < 0.01) /* runs up from (x, y), its ascent left of the baseline */
            b->x0 = x - asc, b->x1 = x + desc, b->y0 = y - w, b->y1 = y;
        else
            b->x0 = x, b->x1 = x + w, b->y0 = y - asc, b->y1 = y + desc;
    }
    return n;
}

static bool boxes_overlap(const tbox *a, const tbox *b)
{
    return a->x0 < b->x1 - 0.01 && b->x0 < a->x1 - 0.01 && a->y0 < b->y1 - 0.01 && b->y0 < a->y1 - 0.01;
}

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
    return rec_buf.data;
}

/* Item 2: each bar names its top kernel (the bars of a graph replay beside 4 us copies too), up its own column,
 * >= 6 pt, two kernels whose names differ only at their end stay apart, no text over another. */
TEST(grid_bars_named_apart)
{
    static const tp_mix_part big[] = {{"GEMM", 9660000, 0}, {"elementwise", 40000, 0}};
    static const tp_mix_part small1[] = {{"memcpy", 4500, 0}};
    static const tp_mix_part small2[] = {{"elementwise", 54000, 0}};
    static const tp_mix_part small3[] = {{"elementwise", 9000, 0}};
    const char *k1 = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off";
    const char *k2 = "vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>_variant_a";
    const char *k3 = "vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>_variant_b";
    const tp_kernel_mix replay[] = {{big, 2, k1, 41}};
    const tp_kernel_mix adds[] = {{small2, 1, k2, 0}, {small3, 1, k3, 0}, {small1, 1, "Memcpy DtoD", 0}};
    tp_op_breakdown ops[] = {{"graph: decode_bs32", replay, 1, 0}, {"aten::add", adds, 3, 0}};
    tp_grid_chart g = {"Dominating ops", ops, 2};
    tp_grid_layout *L = tp_grid_layout_new(&g, 500, 300);
    tp_canvas *cv = rec_begin(540, 340);
    tp_grid_draw_page(cv, &g, L, 0, (tp_rect){20, 20, 500, 300});
    char *r = rec_end(cv);
    tbox b[200];
    size_t n = text_boxes(r, b, 200);
    size_t vertical = 0;
    const char *names[4] = {NULL};
    for (size_t i = 0; i < n; i++) {
        CHECK(b[i].size >= 6);
        CHECK(b[i].x0 >= 20 - 0.01 && b[i].x1 <= 520 + 0.01 && b[i].y0 >= 20 - 0.01 && b[i].y1 <= 320 + 0.01);
        if (fabs(b[i].angle + 90) < 0.01 && vertical < 4)
            names[vertical++] = b[i].text;
        for (size_t j = i + 1; j < n; j++)
            if (boxes_overlap(&b[i], &b[j])) {
                fprintf(stderr, "overlap: \"%s\" %.1f,%.1f-%.1f,%.1f and \"%s\" %.1f,%.1f-%.1f,%.1f\n", b[i].text, b[i].x0, b[i].y0, b[i].x1, b[i].y1, b[j].text, b[j].x0, b[j].y0, b[j].x1, b[j].y1);
                CHECK(!"two texts overlap");
            }
    }
    CHECK_EQ_INT(vertical, 4); /* every bar named */
    for (size_t i = 0; i < vertical; i++)
        for (size_t j = i + 1; j < vertical; j++)
            CHECK(strcmp(names[i], names[j]) != 0);
    CHECK(strstr(r, "+41\"") != NULL || strstr(r, "sm90") != NULL);
    CHECK(strstr(r, "\"Memcpy DtoD\"") != NULL);
    free(r);
    tp_grid_layout_free(L);
}

/* Item 8: a roof's label never sits over a mark that stands where the label usually goes (the right end of the
 * flat part, just above it), and no mark label overlaps a roof label: a heavy labelled GEMM planted there. */
TEST(roofline_roof_label_moves_off_a_mark)
{
    tp_roof roofs[] = {{"matrix bf16 989.4 TFLOPS/s", 989.4}, {"vector fp32 66.9 TFLOPS/s", 66.9}};
    tp_roofline_mark marks[] = {
        {6500, 1080, 100, 0x0072b2, "#1 aten::mm", NULL, true},   /* at the matrix roof label's place */
        {7000, 70, 60, 0x0072b2, "#2 aten::addmm", NULL, true},   /* and at the vector roof's */
        {0.3, 0.5, 50, 0x009e73, "#3 aten::mul", NULL, false},
    };
    tp_roofline c = {.x_title = "intensity", .y_title = "TFLOPS/s", .bandwidth = 3.35, .bandwidth_label = "memory 3.35 TB/s",
                     .roofs = roofs, .nroofs = 2, .marks = marks, .n = 3};
    tp_canvas *cv = rec_begin(700, 420);
    tp_roofline_stats st;
    tp_roofline_draw(cv, &c, (tp_rect){10, 10, 680, 400}, &st);
    char *r = rec_end(cv);
    CHECK_EQ_INT(st.labelled, 3);
    /* the plot's frame, then where the planted marks lie */
    double fx = 0, fy = 0, fw = 0, fh = 0;
    for (const char *l = r; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        double a, b2, w, h;
        if (sscanf(l, "rect %lf %lf %lf %lf", &a, &b2, &w, &h) == 4 && strncmp(strchr(l, '\n') + 1, "stroke", 6) == 0 &&
            strstr(strchr(l, '\n') + 1, " 0.80\n") == strchr(strchr(l, '\n') + 1, ' ') + 8)
            fx = a, fy = b2, fw = w, fh = h;
    }
    CHECK(fw > 100 && fh > 100);
    tbox b[300];
    size_t n = text_boxes(r, b, 300);
    for (size_t k = 0; k < 2; k++) {
        double mx = fx + (log10(marks[k].x) - st.x_lo) / (st.x_hi - st.x_lo) * fw;
        double my = fy + fh - (log10(marks[k].y) - st.y_lo) / (st.y_hi - st.y_lo) * fh;
        const char *roof = k == 0 ? "matrix bf16" : "vector fp32";
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            if (strncmp(b[i].text, roof, strlen(roof)) != 0)
                continue;
            found = true;
            /* the label box keeps clear of the mark's centre by more than a small mark's radius */
            double dx = fmax(fmax(b[i].x0 - mx, mx - b[i].x1), 0), dy = fmax(fmax(b[i].y0 - my, my - b[i].y1), 0);
            if (hypot(dx, dy) < 5)
                fprintf(stderr, "roof label \"%s\" over the mark at %.1f,%.1f\n", b[i].text, mx, my);
            CHECK(hypot(dx, dy) >= 5);
        }
        CHECK(found);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (boxes_overlap(&b[i], &b[j])) {
                fprintf(stderr, "overlap: \"%s\" %.1f,%.1f-%.1f,%.1f and \"%s\" %.1f,%.1f-%.1f,%.1f\n", b[i].text, b[i].x0, b[i].y0, b[i].x1, b[i].y1, b[j].text, b[j].x0, b[j].y0, b[j].x1, b[j].y1);
                CHECK(!"two texts overlap");
            }
    free(r);
}
