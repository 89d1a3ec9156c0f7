/* test_reads_labels.c: labels that stay distinct after fitting (issue 36 item 8). */
#include "render/charts/chart_bar.h"
#include "render/canvas.h"
#include "render/text/textfit.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* five MI300 backward-GEMM kernels whose names differ past where a bar's label is cut */
static const char *const IGEMM[] = {
    "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws2x2_wr2x2_s1x4x1x4_s1x4x1x32_pta",
    "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws2x2_wr2x2_s1x4x1x4_s1x4x1x32_gkgs",
    "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x32_wt32x32x8_ws2x2_wr2x2_s1x4x1x4_s1x4x1x32",
    "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x32_wt16x16x8_ws1x1_wr2x2_s1x4x1x4_s1x4x1x32_vs8",
    "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x32_wt16x16x8_ws1x1_wr2x2_s1x4x1x4_s1x4x1x32_vs8_pta",
};

TEST(fitted_labels_stay_distinct)
{
    double w[5] = {150, 150, 150, 150, 150};
    /* fitted one by one, as the tables and charts did: the same label */
    char *a = tp_fit_end(TP_FONT_REGULAR, 7, IGEMM[0], w[0]), *b = tp_fit_end(TP_FONT_REGULAR, 7, IGEMM[2], w[0]);
    CHECK(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    for (int mode = 0; mode < 3; mode++) {
        tp_fit_fn fn = mode == 0 ? tp_fit_end : mode == 1 ? tp_fit_middle : tp_fit_name;
        char **f = tp_fit_apart(TP_FONT_REGULAR, 7, IGEMM, 5, w, fn);
        for (size_t i = 0; i < 5; i++) {
            CHECK(tp_text_width(TP_FONT_REGULAR, 7, f[i]) <= w[i] + 0.01);
            for (size_t j = i + 1; j < 5; j++)
                CHECK(strcmp(f[i], f[j]) != 0);
        }
        tp_fit_apart_free(f, 5);
    }
    /* equal inputs stay equal, fitting ones untouched */
    const char *const same[] = {"aten::mm", "aten::mm", "short"};
    double w3[3] = {150, 150, 150};
    char **f = tp_fit_apart(TP_FONT_REGULAR, 7, same, 3, w3, tp_fit_end);
    CHECK(strcmp(f[0], "aten::mm") == 0 && strcmp(f[1], "aten::mm") == 0 && strcmp(f[2], "short") == 0);
    tp_fit_apart_free(f, 3);
}

/* 80 bars on a narrow chart: every text stays >= 6 pt (fewer labels, not smaller text) */
TEST(bar_labels_stay_at_least_6pt)
{
    enum { N = 80 };
    const char *labels[N];
    int64_t values[N];
    char names[N][32];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "kernel_number_%02d", i);
        labels[i] = names[i];
        values[i] = 1000 * (i + 1);
    }
    tp_barchart c = {.title = "t", .n = N, .labels = labels, .values = values};
    tp_buf rec = {0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_cv_begin_page(cv, 400, 300, NULL);
    tp_barchart_draw(cv, &c, (tp_rect){10, 10, 380, 280});
    tp_cv_end_page(cv);
    tp_canvas_close(cv, NULL);
    /* the recording: "text <font> <size> ..." lines */
    size_t small = 0, texts = 0;
    for (const char *p = rec.data; p && (p = strstr(p, "\ntext ")); p++) {
        const char *sz = strchr(p + 6, ' ');
        texts++;
        small += sz && atof(sz + 1) < 5.999;
    }
    CHECK(texts > 5);
    CHECK_EQ_INT((int)small, 0);
    tp_buf_free(&rec);
}
