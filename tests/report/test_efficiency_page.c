/* The efficiency page (report/pages/page_efficiency.c): the roofline page
 * and its table page after "Where the GPU time goes", png/efficiency.png,
 * the exact cells of a planted trace, the note of a trace without shapes, of
 * an unknown device and of a trace without device work. */
#include "convert/pipeline/pipeline.h"
#include "render/canvas.h"
#include "report/analysis/summary.h"
#include "report/pages/pages.h"
#include "render/text/units.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Kineto trace: per op a host op (with its recorded inputs when
 * `shapes`), a launch and a kernel linked by correlation. */
typedef struct planted {
    const char *name, *dims, *types;
    long long kernel_ns;
} planted;

static const planted ops[] = {
    {"aten::mm", "[[1024,1024],[1024,1024]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", 10000},
    {"aten::mm", "[[1024,1024],[1024,1024]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", 10000},
    {"aten::mm", "[[1024,1024],[1024,1024]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", 10000},
    {"aten::mm", "[[2048,512],[512,256]]", "[\"float\",\"float\"]", 5000},
    {"aten::add", "[[4096,4096],[4096,4096],[]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]", 20000},
};

static const char *write_trace(const char *file, bool shapes)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[");
    long long t = 1000000, gpu = 1000000;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++, t += 100000) {
        const planted *o = &ops[i];
        unsigned c = 100 + (unsigned)i;
        tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":50",
                      i ? "," : "", o->name, t / 1000);
        if (shapes)
            tp_buf_printf(&b, ",\"args\":{\"Input Dims\":%s,\"Input type\":%s}", o->dims, o->types);
        tp_buf_printf(&b, "},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%lld,\"dur\":10,\"args\":{\"correlation\":%u}}",
                      t / 1000 + 10, c);
        gpu = gpu > t + 30000 ? gpu : t + 30000;
        tp_buf_printf(&b, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":7,\"ts\":%lld.%03lld,"
                          "\"dur\":%lld.%03lld,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%u}}",
                      i, gpu / 1000, gpu % 1000, o->kernel_ns / 1000, o->kernel_ns % 1000, c);
        gpu += o->kernel_ns + 1000;
    }
    tp_buf_puts(&b, "]}");
    tp_buf_putc(&b, 0);
    const char *path = tp_test_write_text(file, b.data);
    tp_buf_free(&b);
    return path;
}

static int report(const char *in, const char *dir)
{
    return tp_test_run(NULL, "'%s' report '%s' -o '%s' >/dev/null 2>&1", tp_test_bin(), in, dir);
}

static char *pdf_page(const char *dir, int page)
{
    char *out = NULL;
    if (tp_test_run(&out, "pdftotext -layout -f %d -l %d '%s/report.pdf' - 2>/dev/null", page, page, dir) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Wrapped lines joined, runs of spaces made one: a sentence can be found. */
static void one_line(char *s)
{
    size_t o = 0;
    for (size_t i = 0; s && s[i]; i++) {
        char c = s[i] == '\n' ? ' ' : s[i];
        if (c != ' ' || (o && s[o - 1] != ' '))
            s[o++] = c;
    }
    if (s)
        s[o] = 0;
}

static void want(const char *text, const char *what, int line)
{
    if (!text || !strstr(text, what))
        tp_test_fail(__FILE__, line, "lacks \"%s\" in:\n%.3000s", what, text ? text : "(no text)");
}

static void png_size(const char *path, unsigned *w, unsigned *h)
{
    size_t n = 0;
    unsigned char *p = (unsigned char *)tp_test_read_file(path, &n);
    *w = *h = 0;
    if (p && n > 24 && memcmp(p + 12, "IHDR", 4) == 0) {
        *w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
        *h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
    }
    free(p);
}

/* With shapes: page 3 the roofline, page 4 the table with the planted
 * rates (3 x mm 1024^3 in bf16, 10 us each: 2^31 FLOPs / 10 us = 214.7
 * TFLOPS/s, 3 x 2^21 x 2 bytes / 10 us = 0.629 TB/s, intensity 341.3),
 * page 5 the top kernels; png/efficiency.png the roofline page's chart (the A4 landscape page
 * at 2 px per pt, 1684 x 1190 px, cropped to its content), listed in summary.md. */
TEST(efficiency_page_and_png_with_shapes)
{
    const char *in = write_trace("eff_shapes.json", true);
    const char *dir = tp_test_tmp("r_eff_shapes");
    CHECK_EQ_INT(report(in, dir), 0);
    char p[1024];
    unsigned w, h;
    snprintf(p, sizeof p, "%s/png/efficiency.png", dir);
    png_size(p, &w, &h);
    CHECK(w > 1500 && w <= 1684 && h > 900 && h <= 1190);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "**Charts**: `png/overview.png`, `png/gpu_time.png`, `png/efficiency.png`, "));
    free(md);
    if (!tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping the PDF text: pdftotext not installed)\n");
        return;
    }
    /* page 1 is the overview */
    char *p2 = pdf_page(dir, 3), *p3 = pdf_page(dir, 4), *p4 = pdf_page(dir, 5), *p5 = pdf_page(dir, 6);
    want(p2, "Where the GPU time goes", __LINE__);
    want(p3, "How efficient is it", __LINE__);
    want(p3, "#1 aten::mm", __LINE__);
    want(p3, "The trace names no device: no roof and no % of peak.", __LINE__);
    want(p3, "3 shapes from 5 invocations", __LINE__);
    want(p3, "arithmetic intensity (FLOP/byte)", __LINE__);
    want(p4, "Op shapes by device time (3)", __LINE__);
    /* # op dtype input dims count time share TFLOPS/s TB/s FLOP/B % of peak bound */
    if (!p4 || !strstr(p4, "1024x1024, 1024x1024"))
        tp_test_fail(__FILE__, __LINE__, "page 4 lacks the shape");
    const char *row = p4 ? strstr(p4, "aten::mm") : NULL;
    CHECK(row && strstr(row, "bf16"));
    char cells[256];
    snprintf(cells, sizeof cells, "%s", row ? row : "");
    char *nl = strchr(cells, '\n');
    if (nl)
        *nl = 0;
    CHECK(strstr(cells, " 3 ") && strstr(cells, "30.000") && strstr(cells, " 215 ") && strstr(cells, "0.629") &&
          strstr(cells, " 341 "));
    want(p4, "2048x512, 512x256", __LINE__);
    want(p4, "fp32", __LINE__);
    want(p4, "Opportunities", __LINE__);
    want(p4, "None: they need the device's peaks", __LINE__);
    want(p5, "Top", __LINE__);
    free(p2), free(p3), free(p4), free(p5);
}

/* Without shapes: one page that says so with the profiler setting, no
 * chart, no PNG; the top kernels follow on page 4.  Without device work: one
 * short page. */
TEST(efficiency_page_without_shapes_or_device_work)
{
    const char *in = write_trace("eff_noshapes.json", false);
    const char *dir = tp_test_tmp("r_eff_noshapes");
    CHECK_EQ_INT(report(in, dir), 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/png/efficiency.png", dir);
    CHECK(!tp_test_file_exists(p));
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && !strstr(md, "png/efficiency.png"));
    free(md);
    const char *empty = tp_test_write_text("eff_nodev.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"aten::mm\","
                                                              "\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":3}]}");
    const char *dir2 = tp_test_tmp("r_eff_nodev");
    CHECK_EQ_INT(report(empty, dir2), 0);
    if (!tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping the PDF text: pdftotext not installed)\n");
        return;
    }
    /* no roofline: no page, a line on the overview (its words wrap: compare
     * with the lines joined); the top kernels follow the GPU time page */
    char *p1 = pdf_page(dir, 1), *p3 = pdf_page(dir, 4);
    one_line(p1);
    want(p1, "How efficient is it: no roofline: the trace recorded no op shapes", __LINE__);
    want(p1, TP_EFF_RECORD_SHAPES, __LINE__);
    want(p1, "the most: aten::mm: no args recorded (4, 35.000 us)", __LINE__); /* the reason, the count, the time */
    CHECK(p1 && !strstr(p1, "arithmetic intensity (FLOP/byte)")); /* no chart */
    want(p3, "Top", __LINE__);
    free(p1), free(p3);
    p1 = pdf_page(dir2, 1);
    one_line(p1);
    want(p1, "How efficient is it: no device activity in this trace", __LINE__);
    free(p1);
    char *out = NULL;
    /* the overview, the summary and the timeline of its one op: nothing else has anything to show */
    CHECK(tp_test_run(&out, "pdfinfo '%s/report.pdf'", dir2) == 0 && out && strstr(out, "Pages:           3\n"));
    free(out);
}

/* The device line and the roof: an unknown device named by the trace gets
 * the hint and no roof; a known one its roofs (the peak classes the rows
 * use) and the bandwidth along the slope. */
TEST(efficiency_page_unknown_and_known_device)
{
    const char *in = write_trace("eff_dev.json", true);
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_efficiency_wants_args;
    lo.no_derive = true;
    tp_err err = {0};
    tp_trace t;
    tp_trace_init(&t);
    CHECK(tp_load(in, &lo, &t, &err) == 0);
    tp_report_opts ro = {in, NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    CHECK_EQ_INT(s.eff.n, 3);
    tp_page_opts po = {595, 842, 2};
    tp_pagectx pc;
    tp_pagectx_init(&pc, &s, &po);
    for (int known = 0; known < 2; known++) {
        s.eff.have_device = true;
        s.eff.device.known = known;
        snprintf(s.eff.device.trace_name, sizeof s.eff.device.trace_name, "Acme X9");
        snprintf(s.eff.device.label, sizeof s.eff.device.label, "Acme X9");
        s.eff.device.tflops[TP_PEAK_MATRIX_BF16] = 989.4;
        s.eff.device.tflops[TP_PEAK_MATRIX_FP16] = 989.4;
        s.eff.device.tflops[TP_PEAK_MATRIX_FP32] = 66.9;
        s.eff.device.tflops[TP_PEAK_VECTOR_FP32] = 66.9;
        s.eff.device.tflops[TP_PEAK_MATRIX_TF32] = 494.7;
        s.eff.device.mem_tbps = 3.35;
        tp_buf rec = {0};
        tp_canvas *cv = tp_canvas_rec(&rec);
        tp_page_efficiency(cv, &pc);
        CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
        tp_buf_putc(&rec, 0);
        const char *r = rec.data;
        CHECK(strstr(r, "page 842.00 595.00 \"How efficient is it\"") != NULL);
        CHECK(strstr(r, "\"Op shapes by time, opportunities\"") != NULL);
        if (!known) {
            char hint[40];
            snprintf(hint, sizeof hint, "%.30s", tp_device_unknown_hint());
            if (!strstr(r, "\"Device \\\"Acme X9\\\": ") || !strstr(r, hint)) /* the recording escapes quotes */
                tp_test_fail(__FILE__, __LINE__, "no device hint in:\n%.6000s", r);
            CHECK(!strstr(r, "\"memory 3.35 TB/s\"") && !strstr(r, "989.4"));
        } else {
            /* the rows use bf16 matrix and fp32: two roofs, the fp32 class
             * (matrix or vector, as the model says) with its 66.9 */
            CHECK(strstr(r, "\"matrix bf16 989.4 TFLOPS/s\"") && strstr(r, "fp32 66.9 TFLOPS/s\""));
            CHECK(strstr(r, "\"memory 3.35 TB/s\"") && !strstr(r, "494.7"));
            CHECK(strstr(r, "Device: Acme X9. Roof: memory 3.35 TB/s;") != NULL);
        }
        tp_buf_free(&rec);
    }
    tp_pagectx_free(&pc);
    tp_summary_free(&s);
    tp_trace_free(&t);
}
