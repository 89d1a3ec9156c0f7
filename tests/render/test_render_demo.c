/* render_demo: every chart to PNG and a multi-page PDF, for eyeballing.
 *     TP_KEEP_TMP=1 build/tp_tests render_demo
 * prints the directory.  The test checks the files exist, are identical
 * across two renders, pass qpdf --check and carry their text. */
#include "render/canvas.h"
#include "render/charts/chart_bar.h"
#include "render/charts/chart_errbar.h"
#include "render/charts/chart_grid.h"
#include "render/charts/chart_table.h"
#include "render/charts/chart_timeline.h"
#include "tests/lib/categorize.h"
#include "tests/lib/harness.h"
#include "render/labels/kname.h"
#include "render/charts/axis.h"
#include "tests/lib/render_samples.h"

#include <stdlib.h>

typedef void (*draw_fn)(tp_canvas *cv, double w, double h);

static void demo_bar80(tp_canvas *cv, double w, double h)
{
    char **names;
    int64_t *values;
    tp_sample_top_kernels(80, &names, &values);
    tp_barchart c = {.title = "Top 80 kernels by total time",
                     .value_label = "total time",
                     .n = 80,
                     .labels = (const char *const *)names,
                     .values = values,
                     .shorten_names = 1,
                     .value_labels = 1};
    tp_cv_begin_page(cv, w, h, "Top 80 kernels");
    tp_barchart_draw(cv, &c, (tp_rect){24, 24, w - 48, h - 48});
    tp_cv_end_page(cv);
    tp_sample_free(names, values, 80);
}

static void demo_bar_log(tp_canvas *cv, double w, double h)
{
    const char *names[] = {"1 ns", "10 ns", "1 us", "35 us", "1 ms", "0.2 s", "10 s", "zero"};
    int64_t values[] = {1, 10, 1000, 35000, 1000000, 200000000, 10000000000LL, 0};
    tp_barchart c = {.title = "Log scale: 1 ns to 10 s",
                     .value_label = "mean time",
                     .n = 8,
                     .labels = names,
                     .values = values,
                     .log_scale = 1,
                     .value_labels = 1};
    tp_cv_begin_page(cv, w, h, "Log scale");
    tp_barchart_draw(cv, &c, (tp_rect){24, 24, w - 48, h - 48});
    tp_cv_end_page(cv);
}

/* The full names behind the shortened labels of demo_bar80. */
static void demo_names_table(tp_canvas *cv, double w, double h)
{
    char **names;
    int64_t *values;
    size_t n = 80;
    tp_sample_top_kernels(n, &names, &values);
    tp_barchart c = {.n = n, .labels = (const char *const *)names, .values = values, .shorten_names = 1};
    char **shorts = tp_barchart_labels(&c);
    const char **cells = calloc(n * 4, sizeof *cells);
    char(*tb)[32] = calloc(n, sizeof *tb);
    for (size_t i = 0; i < n; i++) {
        tp_format_duration(tb[i], sizeof tb[i], (double)values[i]);
        cells[i * 4 + 0] = shorts[i];
        cells[i * 4 + 1] = tp_test_category(names[i]);
        cells[i * 4 + 2] = tb[i];
        cells[i * 4 + 3] = names[i];
    }
    tp_table_col cols[] = {{"short name", 0, TP_FIT_MIDDLE, 0},
                           {"family", 0, TP_FIT_END, 0},
                           {"total", 1, TP_FIT_END, 0},
                           {"full kernel name", 0, TP_FIT_WRAP, 1}};
    tp_table t = {"Kernel names", 4, cols, n, cells, 7, 12, NULL};
    tp_rect r = {24, 24, w - 48, h - 48};
    tp_table_layout *L = tp_table_layout_new(&t, r.w, r.h);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        tp_cv_begin_page(cv, w, h, p == 0 ? "Kernel names" : NULL);
        tp_table_draw_page(cv, &t, L, p, r);
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
    free(cells);
    free(tb);
    tp_kname_free(shorts, n);
    tp_sample_free(names, values, n);
}

/* Ops with kernel mixes, as the breakdown analysis would hand them over. */
static void demo_grid(tp_canvas *cv, double w, double h)
{
    static const tp_mix_part mm1[] = {{"GEMM", 900000, 0}, {"elementwise", 50000, 0}};
    static const tp_mix_part mm2[] = {{"GEMM", 500000, 0}, {"reduce", 120000, 0}, {"elementwise", 30000, 0}};
    static const tp_mix_part conv1[] = {{"CONV", 2000000, 0}, {"other", 300000, 0}, {"elementwise", 80000, 0}};
    static const tp_mix_part conv2[] = {{"CONV", 1500000, 0}, {"GEMM", 200000, 0}};
    static const tp_mix_part conv3[] = {{"CONV", 900000, 0}, {"reduce", 300000, 0}, {"memset", 20000, 0}};
    static const tp_mix_part bn[] = {{"normalisation", 400000, 0}, {"reduce", 100000, 0}};
    static const tp_mix_part emb[] = {{"embedding", 700000, 0}, {"other", 100000, 0}};
    static const tp_mix_part embb[] = {
        {"embedding", 1200000, 0}, {"other", 200000, 0}, {"memset", 90000, 0}, {"other", 150000, 0}};
    static const tp_mix_part cat[] = {{"other", 300000, 0}};
    static const tp_mix_part cp[] = {{"memcpy", 250000, 0}};
    static const tp_mix_part ar[] = {{"communication", 3000000, 0}};
    static const tp_mix_part sm[] = {{"softmax", 150000, 0}, {"elementwise", 20000, 0}};
    static const tp_kernel_mix mm[] = {{mm1, 2, NULL, 0}, {mm2, 3, NULL, 0}};
    static const tp_kernel_mix cv_[] = {{conv1, 3, NULL, 0}, {conv2, 2, NULL, 0}, {conv3, 3, NULL, 0}};
    static const tp_kernel_mix bnm[] = {{bn, 2, NULL, 0}};
    static const tp_kernel_mix embm[] = {{emb, 2, NULL, 0}};
    static const tp_kernel_mix embbm[] = {{embb, 4, NULL, 0}};
    static const tp_kernel_mix catm[] = {{cat, 1, NULL, 0}};
    static const tp_kernel_mix cpm[] = {{cp, 1, NULL, 0}};
    static const tp_kernel_mix arm[] = {{ar, 1, NULL, 0}};
    static const tp_kernel_mix smm[] = {{sm, 2, NULL, 0}};
    tp_op_breakdown ops[40] = {
        {"nccl:all_reduce", arm, 1, 0},
        {"aten::cudnn_convolution", cv_, 3, 0},
        {"aten::embedding_dense_backward", embbm, 1, 0},
        {"aten::addmm", mm, 2, 0},
        {"aten::embedding", embm, 1, 0},
        {"aten::native_batch_norm", bnm, 1, 0},
        {"aten::cat", catm, 1, 0},
        {"aten::copy_", cpm, 1, 0},
        {"aten::_softmax", smm, 1, 0},
    };
    size_t nops = 9;
    /* more ops to force a second page */
    static char extra[31][40];
    for (size_t i = 0; nops < 40; i++, nops++) {
        snprintf(extra[i], sizeof extra[i], "aten::op_number_%zu", i);
        ops[nops] = (tp_op_breakdown){extra[i], i % 2 ? mm : cv_, i % 2 ? 2 : 3, 0};
    }
    tp_grid_chart g = {"Dominating ops: kernel breakdown", ops, nops};
    tp_rect r = {24, 24, w - 48, h - 48};
    tp_grid_layout *L = tp_grid_layout_new(&g, r.w, r.h);
    for (size_t p = 0; p < tp_grid_pages(L); p++) {
        tp_cv_begin_page(cv, w, h, p == 0 ? "Dominating ops" : NULL);
        tp_grid_draw_page(cv, &g, L, p, r);
        tp_cv_end_page(cv);
    }
    tp_grid_layout_free(L);
}

static void demo_timeline(tp_canvas *cv, double w, double h)
{
    static const char *const tracks[] = {"python thread 1234", "stream 7", "stream 20",
                                         "a very long track label that has to be shortened somehow"};
    tp_tl_item items[64];
    size_t n = 0;
    int64_t t = 1000000;
    for (int i = 0; i < 12; i++) { /* host ops and the kernels they launch */
        items[n++] = (tp_tl_item){0, t, 180000, i % 3 ? "aten::addmm" : "aten::cudnn_convolution", "cpu_op", 0};
        items[n++] = (tp_tl_item){1, t + 60000, i % 3 ? 150000 : 260000,
                                  i % 3 ? "volta_sgemm_128x64_nn" : "implicit_convolve_sgemm", i % 3 ? "GEMM" : "CONV", 0};
        if (i % 4 == 0)
            items[n++] = (tp_tl_item){2, t + 30000, 40000, "Memcpy HtoD (Pageable -> Device)", "memcpy", 0};
        if (i % 5 == 0)
            items[n++] = (tp_tl_item){3, t + 90000, 2000, "tiny", "elementwise", 0};
        t += 210000;
    }
    tp_timeline tl = {"Step 3 timeline", 4, tracks, n, items, 0};
    tp_cv_begin_page(cv, w, h, "Timeline");
    tp_timeline_draw(cv, &tl, (tp_rect){24, 24, w - 48, h * 0.6});
    tp_cv_end_page(cv);
}

static void demo_errbar(tp_canvas *cv, double w, double h)
{
    static const int64_t a[] = {1000000, 1100000, 950000, 1300000, 1020000};
    static const int64_t b[] = {2500000, 2400000, 2700000, 2600000, 2550000};
    static const int64_t c[] = {400000, 380000, 900000, 410000, 405000};
    static const int64_t d[] = {1800000};
    tp_rep_series s[] = {{"resnet50 fwd", a, 5}, {"resnet50 bwd", b, 5}, {"optimizer", c, 5}, {"one run", d, 1}};
    tp_cv_begin_page(cv, w, h, "Repetitions");
    tp_errbar_draw(cv, "Step time over 5 repetitions (min..max)", "step time", s, 4, TP_ERR_MINMAX,
                   (tp_rect){24, 24, w / 2 - 36, h - 48});
    tp_errbar_draw(cv, "Same, mean +- stddev", "step time", s, 4, TP_ERR_STDDEV,
                   (tp_rect){w / 2 + 12, 24, w / 2 - 36, h - 48});
    tp_cv_end_page(cv);
}

/* Edge cases on one page: no data, one bar, identical values. */
static void demo_edges(tp_canvas *cv, double w, double h)
{
    const char *one[] = {"void at::native::only_kernel<float>(float*)"};
    int64_t v1[] = {123456};
    const char *same[] = {"a", "b", "c", "d"};
    int64_t vs[] = {5000, 5000, 5000, 5000};
    tp_barchart none = {.title = "Zero categories", .value_label = "time", .shorten_names = 1, .value_labels = 1};
    tp_barchart single = {.title = "One bar",
                          .value_label = "time",
                          .n = 1,
                          .labels = one,
                          .values = v1,
                          .shorten_names = 1,
                          .value_labels = 1};
    tp_barchart ident = {
        .title = "Identical values", .value_label = "time", .n = 4, .labels = same, .values = vs, .value_labels = 1};
    tp_barchart identlog = {.title = "Identical values, log",
                            .value_label = "time",
                            .n = 4,
                            .labels = same,
                            .values = vs,
                            .log_scale = 1,
                            .value_labels = 1};
    tp_cv_begin_page(cv, w, h, "Edge cases");
    double cw = (w - 72) / 2, ch = (h - 72) / 2;
    tp_barchart_draw(cv, &none, (tp_rect){24, 24, cw, ch});
    tp_barchart_draw(cv, &single, (tp_rect){48 + cw, 24, cw, ch});
    tp_barchart_draw(cv, &ident, (tp_rect){24, 48 + ch, cw, ch});
    tp_barchart_draw(cv, &identlog, (tp_rect){48 + cw, 48 + ch, cw, ch});
    tp_cv_end_page(cv);
}

static const struct {
    const char *name;
    draw_fn fn;
} demos[] = {{"bar80", demo_bar80},   {"names", demo_names_table}, {"grid", demo_grid},  {"timeline", demo_timeline},
             {"errbar", demo_errbar}, {"barlog", demo_bar_log},    {"edges", demo_edges}};
#define NDEMOS (sizeof demos / sizeof demos[0])

static void render_all(const char *dir)
{
    tp_err err = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    tp_canvas *pdf = tp_canvas_pdf(path, &(tp_pdf_meta){.title = "tracepress render demo"}, &err);
    CHECK(pdf != NULL);
    for (size_t i = 0; i < NDEMOS; i++) {
        demos[i].fn(pdf, 842, 595);
        snprintf(path, sizeof path, "%s/%s.png", dir, demos[i].name);
        tp_canvas *png = tp_canvas_png(path, 2, &err);
        demos[i].fn(png, 842, 595);
        CHECK_EQ_INT(tp_canvas_close(png, &err), 0);
    }
    CHECK_EQ_INT(tp_canvas_close(pdf, &err), 0);
}

TEST(render_demo_outputs)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s", tp_test_tmp("demo"));
    snprintf(b, sizeof b, "%s", tp_test_tmp("demo2"));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' '%s'", a, b), 0);
    render_all(a);
    render_all(b);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && for f in *; do cmp -s \"$f\" '%s'/\"$f\" || exit 1; done", a, b), 0);
    if (getenv("TP_KEEP_TMP"))
        fprintf(stderr, "  render demo files in %s\n", a);
    if (!tp_test_have("qpdf") || !tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping qpdf/pdftotext checks: tools not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s/report.pdf'", a), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>/dev/null", a), 0);
    CHECK(out && strstr(out, "Top 80 kernels by total time") && strstr(out, "volta_sgemm_128x64_nn"));
    CHECK(out && strstr(out, "Dominating ops") && strstr(out, "Kernel names (continued)") && strstr(out, "no data"));
    free(out);
}
