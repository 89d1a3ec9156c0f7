/* A replay with its capture_traces/ folder (issue 33 review): vLLM's
 * unfused MoE (vllm::moe_forward) costed from what the capture trace records
 * (the up GEMM's output allocation inside the op gives the experts'
 * intermediate size N, never taken equal to the hidden size; without it, no
 * cost and the reason); batch reports the replay, not its capture folder;
 * execution_details.json members ignored are said, and its mode is
 * Markdown-escaped. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BF16 "\"c10::BFloat16\""
#define UP_K "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu"
#define DOWN_K "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"

/* A replay of one graph launch running the MoE's three kernels. */
static const char *write_replay(const char *dir)
{
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/replay.json", dir);
    snprintf(text, sizeof text,
             "{\"traceEvents\":[\n"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":100,"
             "\"dur\":20,\"args\":{\"correlation\":9}},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"topk_k\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":5,"
             "\"args\":{\"correlation\":9,\"device\":0,\"stream\":7}},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" UP_K "\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":50,"
             "\"args\":{\"correlation\":9,\"device\":0,\"stream\":7}},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" DOWN_K "\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":40,"
             "\"args\":{\"correlation\":9,\"device\":0,\"stream\":7}}\n]}\n");
    return tp_test_write_text(path, text);
}

static void launch(tp_buf *b, double ts, const char *kernel, int corr)
{
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                  "\"ts\":%.1f,\"dur\":2,\"args\":{\"kernel\":\"%s\",\"correlation\":%d}}",
                  ts, kernel, corr);
}

static void empty(tp_buf *b, double ts, const char *size)
{
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":%.1f,"
                  "\"dur\":1,\"args\":{\"Input Dims\":[[],[],[],[],[],[]],\"Input type\":[\"\",\"\",\"\",\"\",\"\",\"\"],"
                  "\"Concrete Inputs\":[\"%s\",\"15\",\"\","
                  "\"\",\"False\",\"\"]}}",
                  ts, size);
}

/* The capture: moe_forward on 2 tokens of hidden size 64, 8 experts; TopK
 * k = 4 inside it; with_allocs: the up GEMM's output [1, 8, 96] (M topk =
 * 8 rows, N = 96) and the down GEMM's [1, 1, 8, 64] allocated in it. */
static const char *write_capture(const char *dir, bool with_allocs)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamBeginCapture\","
                    "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"args\":{\"correlation\":1}}");
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"vllm::moe_forward\",\"pid\":1,\"tid\":1,\"ts\":20,"
                    "\"dur\":200,\"args\":{\"Input Dims\":[[2,64],[2,8],[],[]],\"Input type\":[" BF16 "," BF16
                    ",\"\",\"\"]}}");
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"TopK\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":10,"
                    "\"args\":{\"Input Dims\":[[2,8],[],[]],\"Input type\":[" BF16 ",\"Scalar\",\"Scalar\"],"
                    "\"Concrete Inputs\":[\"\",\"4\",\"True\"]}}");
    launch(&b, 32, "topk_k", 2);
    empty(&b, 45, "[2, 4]"); /* routing: 2 rows, not M topk */
    if (with_allocs)
        empty(&b, 50, "[1, 8, 96]");
    launch(&b, 60, UP_K, 3);
    if (with_allocs)
        empty(&b, 70, "[1, 1, 8, 64]");
    launch(&b, 80, DOWN_K, 4);
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamEndCapture\",\"pid\":1,\"tid\":1,"
                    "\"ts\":300,\"dur\":1,\"args\":{\"correlation\":6}}\n]}\n");
    tp_buf_putc(&b, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/capture_traces", dir);
    tp_test_run(NULL, "mkdir -p %s", tp_test_tmp(path));
    snprintf(path, sizeof path, "%s/capture_traces/capture.json", dir);
    const char *p = tp_test_write_text(path, b.data);
    tp_buf_free(&b);
    return p;
}

static char *report_of(const char *name, bool with_allocs)
{
    tp_test_run(NULL, "mkdir -p %s", tp_test_tmp(name));
    char replay[512];
    snprintf(replay, sizeof replay, "%s", write_replay(name));
    write_capture(name, with_allocs);
    const char *dir = tp_test_tmp(name);
    char out[512];
    snprintf(out, sizeof out, "%s/out", dir);
    char *o = NULL;
    CHECK_EQ_INT(tp_test_run(&o, "%s report %s -o %s -q", tp_test_bin(), replay, out), 0);
    free(o);
    return tp_test_read_in(out, "summary.json");
}

TEST(moe_unfused_intermediate_size_from_capture)
{
    char *j = report_of("moe_capture_allocs", true);
    CHECK(j != NULL);
    /* up (gated) 2 M K N topk x2 + down 2 M N K topk = 6 x 2 x 64 x 96 x 4 = 294912 FLOPs; bytes: E_active =
     * 8 (1 - (4/8)^2) = 6; up 2*64*2 + 6*2*64*96*0.5 + 2*96*4*2, down 2*96*4*2 + 6*96*64*0.5 + 2*64*2 */
    const char *r = j ? strstr(j, "{\"op\":\"vllm::moe_forward\",\"family\"") : NULL;
    CHECK(r != NULL);
    CHECK(r && strstr(r, "\"flops\":294912,") != NULL);
    CHECK(r && strstr(r, "\"bytes\":58880,") != NULL);
    free(j);
}

TEST(moe_unfused_without_allocation_no_cost)
{
    char *j = report_of("moe_capture_no_allocs", false);
    CHECK(j != NULL);
    CHECK(j && !strstr(j, "{\"op\":\"vllm::moe_forward\",\"family\""));
    CHECK(j && strstr(j, "intermediate size is not recorded") != NULL);
    free(j);
}

static void write_details(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/capture_traces/execution_details.json", name);
    tp_test_write_text(path, text);
}

TEST(capture_folder_batch_reports_the_replay_only)
{
    free(report_of("capture_batch", true));
    write_details("capture_batch", "[{\"file\": \"capture.json\", \"batch_size\": 2, \"mode\": \"FULL\"}]");
    char *o = NULL;
    CHECK_EQ_INT(tp_test_run(&o, "%s batch %s -o %s/b", tp_test_bin(), tp_test_tmp("capture_batch"),
                             tp_test_tmp("capture_batch_out")),
                 0);
    CHECK(o && strstr(o, "1 traces,") != NULL);
    CHECK(o && strstr(o, "2 files in capture_traces/ folders beside the traces used as their graph captures") != NULL);
    free(o);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/b", tp_test_tmp("capture_batch_out"));
    char *idx = tp_test_read_in(dir, "index.json");
    CHECK(idx && !strstr(idx, "execution_details") && !strstr(idx, "\"capture\"") && strstr(idx, "replay"));
    free(idx);
    char *md = NULL;
    tp_test_run(&md, "cat %s/replay/report/summary.md", dir);
    CHECK(md && strstr(md, "graph capture: `capture.json` (batch 2, FULL)") != NULL); /* merged into the replay */
    free(md);
}

TEST(capture_folder_details_ignored_said_and_mode_escaped)
{
    free(report_of("capture_details", true));
    write_details("capture_details", "[{\"file\": \"capture.json\", \"batch_size\": -3, \"mode\": \"*F_U<b>\"}]");
    const char *dir = tp_test_tmp("capture_details");
    char *o = NULL;
    CHECK_EQ_INT(tp_test_run(&o, "%s report %s/replay.json -o %s/o2 -q", tp_test_bin(), dir, dir), 0);
    free(o);
    char out[600];
    snprintf(out, sizeof out, "%s/o2", dir);
    char *md = tp_test_read_in(out, "summary.md");
    CHECK(md && strstr(md, "\"batch_size\" ignored (not a positive whole number)") != NULL);
    CHECK(md && strstr(md, "(\\*F_U\\<b\\>)") != NULL); /* no emphasis, no HTML */
    free(md);
    char *j = tp_test_read_in(out, "summary.json");
    CHECK(j && strstr(j, "\"note\":\"execution_details.json entry 1: \\\"batch_size\\\" ignored") != NULL);
    free(j);
    write_details("capture_details", "[{\"file\": \"capture.json\", \"batch_size\": 2, \"mode\": \"PIECEWISE_LONGER_X\"}]");
    CHECK_EQ_INT(tp_test_run(&o, "%s report %s/replay.json -o %s/o3 -q", tp_test_bin(), dir, dir), 0);
    free(o);
    snprintf(out, sizeof out, "%s/o3", dir);
    md = tp_test_read_in(out, "summary.md");
    CHECK(md && strstr(md, "\"mode\" ignored (longer than 15 characters)") != NULL);
    free(md);
}
