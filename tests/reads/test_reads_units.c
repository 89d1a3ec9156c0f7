/* test_reads_units.c: one unit per table column in the PDF (issue 36 item
 * 8), as summary.md's columns have it. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

/* the Steps page: the host column held "211.206 ms" rows above "1.292 s"; the kernel statistics' Avg column "465.494
 * us" beside "1.082 ms" */
TEST(pdf_table_columns_have_one_unit)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("units.resnet");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/kineto/kineto_plugin_resnet50_array_2020-12.pt.trace.json.gz"),
                             dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>&1 | tr -s ' '", dir), 0);
    CHECK(out && strstr(out, " #5 0.211 s 132.133 ms 79.073 ms 0 ns 2,204 132.133 ms"));
    CHECK(out && strstr(out, " whole trace (first to last slice) 1.292 s 649.472 ms 642.727 ms"));
    CHECK(out && strstr(out, " 1 12.3 80.065 ms 172 0.465 ms 0.398 ms 379.000 us 0.812 ms 0.133 ms wgrad_alg0_engine"));
    free(out);
}

/* the roofline's axes are sized by the shapes that carry time: SGLang decode's five 2-4 us copies at 1e-5 TFLOPS/s
 * stretched the y axis over 10 decades (1e-6 .. 1e4); now 0.001 .. 1e4, the five counted under the chart */
TEST(roofline_axes_sized_by_time)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("units.sglang");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                             dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - | tr '\\n' ' '", dir), 0);
    CHECK(out && strstr(out, "5 more lie outside the axes (sized by the shapes with 0.1% of the time or more)."));
    free(out);
}

/* a job's stragglers column "vs median": "+3.856 ms, +0.6%" above "+296.000 us, +0.0%" (a duration then ", ..."
 * was not read as one): now "+0.296 ms, +0.0%" */
TEST(pdf_signed_duration_columns_have_one_unit)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("units.job");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/hta/trace_filter_sampled_rank-0.json.gz"),
                             tp_test_shared("external/hta/trace_filter_sampled_rank-1.json.gz"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>&1 | tr -s ' '", dir), 0);
    CHECK(out && strstr(out, " 607.904 ms +0.296 ms, +0.0% "));
    CHECK(out && !strstr(out, "+296.000 us, +0.0%"));
    free(out);
}

/* the GPU time page's op categories: its device time column read "24.815 ms" above "212.234 us" and "2.368 us" (H100
 * Qwen); now one unit, the largest value's, in the header */
TEST(gpu_time_categories_have_one_unit)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("units.qwen");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 3 -l 3 -layout '%s/report.pdf' - 2>&1 | tr -s ' '", dir), 0);
    CHECK(out && strstr(out, "category device time (ms) share count"));
    CHECK(out && strstr(out, " elementwise 24.815 54.4% 1,047 ") && strstr(out, " memset 0.212 0.5% 241 ") &&
          strstr(out, " memcpy 0.002 0.0% 1 "));
    CHECK(out && !strstr(out, "212.234 us"));
    free(out);
}

/* the GPU time page's split tables: the 3-GPU XPlane's computation column read "0 ns (0.0%)" above "14.825 ms
 * (12.4%)"; each column now in its largest value's unit, named in its head */
TEST(gpu_time_split_columns_have_one_unit)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("units.xgpu3");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 3 -l 3 -layout '%s/report.pdf' - 2>&1 | tr -s ' '", dir), 0);
    CHECK(out && strstr(out, "GPU span (ms) computation (ms)") && strstr(out, "memcpy (us)"));
    CHECK(out && strstr(out, "device 1 13.417 0.000 (0.0%) 0 (0.0%) 33.792 (0.3%) 13.384 (99.7%)"));
    CHECK(out && !strstr(out, "0 ns (0.0%)") && !strstr(out, "14.825 ms"));
    free(out);
}

/* a job's clock offsets in the unit that fits: an 8-rank job read "+8018.000 us" above "-26580.000 us" on the PDF
 * overview and "largest offset -42719.000 us" in summary.md */
TEST(job_clock_offsets_in_the_unit_that_fits)
{
    const char *in = tp_test_tmp("units.job8"), *dir = tp_test_tmp("units.job8.report");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 8 --out '%s' --steps 2 --slow-rank 3 -q", in), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "(largest offset -42.719 ms)"));
    free(md);
    if (!tp_test_have("pdftotext"))
        return;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 1 -l 1 -layout '%s/report.pdf' - 2>&1 | tr -s ' '", dir), 0);
    CHECK(out && strstr(out, " 1 +8.018 ms collectives ") && strstr(out, " 3 -26.580 ms collectives "));
    CHECK(out && !strstr(out, "8018.000 us"));
    free(out);
}
