/* test_reads_timeline.c: the timeline's host levels carry information
 * (issue 36 item 1): Python-stack wrappers are folded and said so, the op
 * that launches shows, and the axis never starts before the step. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* five frames, each wrapping the next whole, then the op that launches the kernel */
static const char *WRAPPED =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"execute_context\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"decorate_context\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":998},\n"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"_call_impl\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":996},\n"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"forward\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":994},\n"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"run_layer\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":992},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::matmul_launcher\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":600},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu_launcher\",\"pid\":1,\"tid\":1,\"ts\":620,\"dur\":300},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":630,\"dur\":5,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":500,"
    "\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,\"ts\":640,\"dur\":300,"
    "\"args\":{\"correlation\":2,\"device\":0,\"stream\":7}}\n"
    "]}\n";

TEST(timeline_folds_wrappers_and_shows_the_launching_ops)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *in = tp_test_write_text("wrapped.json", WRAPPED), *dir = tp_test_tmp("wrapped.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -raw '%s/report.pdf' - | tr '\\n' ' '",
                             dir),
                 0);
    CHECK(out && strstr(out, "aten::matmul_launcher") && strstr(out, "host levels 1-3 folded") && strstr(out, "pid 1 tid 1 level 4"));
    CHECK(out && !strstr(out, "shown: -"));
    free(out);
}

/* A Python-stack trace's GPU gap (SGLang decode: a 465 ms blocking copy): the frames that made the copy are drawn
 * (the app's populate_from_forward_batch), not Python helpers of microseconds deeper down, nor levels that only
 * repeat a drawn one (aten::copy_ under aten::copy_) or torch's own dispatch frames (__torch_function__). */
static char *gap_trace(bool launch_op)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    static const char *const chain[] = {
        "python_function|execute_context", "python_function|app/runner.py(276): populate_from_forward_batch",
        "python_function|<built-in method copy_ of Tensor object at 0x1>",
        "python_function|torch/utils/_device.py(99): __torch_function__",
        "python_function|<built-in method copy_ of Tensor object at 0x1>", "cpu_op|aten::copy_", "cpu_op|aten::copy_",
        "cuda_runtime|cudaMemcpyWithStream"};
    for (int d = 0; d < 8; d++) { /* the copy: 8 levels, each wrapping the next whole */
        const char *bar = strchr(chain[d], '|');
        tp_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"%.*s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d%s},\n",
                      (int)(bar - chain[d]), chain[d], bar + 1, d, (d < 2 ? 101000 : 100000) - 2 * d,
                      d == 7 ? ",\"args\":{\"correlation\":1}" : "");
    }
    /* then under the app frame: Python helpers 9 levels deep, a few microseconds, and the launch */
    for (int d = 2; d < 11; d++)
        tp_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"helpers.py(%d): h%d\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%d,\"dur\":%d},\n", d, d, 100010 + d, 60 - 2 * d);
    if (launch_op) { /* the kernel launched by aten::mm under six more Python frames (level 9), as vLLM's ops sit */
        for (int d = 2; d < 8; d++)
            tp_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"layers.py(%d): f%d\",\"pid\":1,"
                              "\"tid\":1,\"ts\":%d,\"dur\":%d},\n", d, d, 100080 + d, 40 - 2 * d);
        tp_buf_puts(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100095,"
                        "\"dur\":12},\n"
                        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                        "\"ts\":100096,\"dur\":3,\"args\":{\"correlation\":3}},\n"
                        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"mm_kernel\",\"pid\":0,\"tid\":7,\"ts\":100150,"
                        "\"dur\":40,\"args\":{\"correlation\":3,\"device\":0,\"stream\":7}},\n");
    }
    tp_buf_puts(&b, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":100100,"
                    "\"dur\":5,\"args\":{\"correlation\":2}},\n"
                    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,\"tid\":7,"
                    "\"ts\":99000,\"dur\":900,\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"decode_kernel\",\"pid\":0,\"tid\":7,\"ts\":100200,\"dur\":700,"
                    "\"args\":{\"correlation\":2,\"device\":0,\"stream\":7}}\n]}\n");
    tp_buf_putc(&b, 0);
    return b.data;
}

TEST(timeline_draws_the_frames_around_a_gpu_gap)
{
    if (!tp_test_have("pdftotext"))
        return;
    char *text = gap_trace(false);
    const char *in = tp_test_write_text("gap.json", text), *dir = tp_test_tmp("gap.report");
    free(text);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -raw '%s/report.pdf' - | tr '\\n' ' '", dir), 0);
    /* drawn: the app's frame (level 2), the builtin copy_ (5), aten::copy_ (7), the copy call (8); the old choice
     * drew levels 6, 7, 8 and 11 (aten::copy_ twice, the copy, a 42 us helper) */
    CHECK(out && strstr(out, "pid 1 tid 1 level 2 level 5 level 7 level 8"));
    CHECK(out && strstr(out, "host levels 1, 3-4, 6, 9-11 folded"));
    free(out);
}

/* the op that launches most of the window's kernels (aten::mm: 2, aten::copy_ 1), under Python frames that none of
 * the four rows holds: a fifth row */
TEST(timeline_draws_the_ops_that_launch)
{
    if (!tp_test_have("pdftotext"))
        return;
    char *text = gap_trace(true);
    const char *in = tp_test_write_text("gap_op.json", text), *dir = tp_test_tmp("gap_op.report");
    free(text);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -raw '%s/report.pdf' - | tr '\\n' ' '", dir), 0);
    CHECK(out && strstr(out, "pid 1 tid 1 level 2 level 5 level 7 level 8 level 9 "));
    free(out);
}

/* Threads fold their own levels: the TPU XPlane's subtitle said "host levels 1-11 folded" above rows labelled "level
 * 2" and "level 3" (drawn on other threads); it now says the folding is per thread. A one-thread trace keeps the
 * plain note. */
TEST(timeline_folded_levels_said_per_thread)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("tl.tpu");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/xplane/tpu_inference_2.xplane.pb"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 9 -l 9 '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "Timeline of the whole trace") && strstr(out, "host levels 1-11 folded on some threads (") &&
          strstr(out, "\nlevel 2\n"));
    free(out);
    dir = tp_test_tmp("tl.sglang");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                             dir),
                 0);
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, " folded (wrappers of the next level") && !strstr(out, "on some threads"));
    free(out);
}

/* A window of device work with no host work in it (vLLM's full-graph decode: the host's slices end at 2.409 ms, the
 * replay runs from 8.156 ms) said where the host work is, not a chart of one stream and no word about the host */
TEST(timeline_says_where_the_host_work_is)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *in = tp_test_write_text(
        "nohost.json",
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
        "\"args\":{\"correlation\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":1000,"
        "\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":2100,\"dur\":1000,"
        "\"args\":{\"correlation\":2,\"device\":0,\"stream\":7}}]}\n");
    const char *dir = tp_test_tmp("nohost.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "shown: 958.000 us to 3.142 ms after the first event, where the devices work (2% margin); "
                             "no host work in this window (the host's ops lie at 0 ns to 50.000 us); "));
    free(out);
}
