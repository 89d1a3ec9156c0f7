/* test_reads_timeline.c: the timeline's host levels carry information
 * (issue 36 item 1): Python-stack wrappers are folded and said so, the op
 * that launches shows, and the axis never starts before the step. */
#include "tests/lib/harness.h"

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
