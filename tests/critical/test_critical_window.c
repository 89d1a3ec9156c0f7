/* test_critical_window.c: --critical-path-window values a user may give
 * (docs/REPORT.md "Critical path", Windows). */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static const char trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":2,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":30,\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::b\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::c\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":10}\n"
    "]}\n";

/* report's summary.json for the window, NULL when the run failed */
static char *summary_of(const char *in, const char *window, const char *name)
{
    const char *dir = tp_test_tmp(name);
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' report '%s' --critical-path-window '%s' -o '%s' 2>&1", tp_test_bin(), in, window, dir);
    free(out);
    if (rc != 0)
        return NULL;
    char *js = NULL;
    if (tp_test_run(&js, "cat '%s/summary.json'", dir) != 0) {
        free(js);
        return NULL;
    }
    return js;
}

/* An empty name with an instance ("#2") is the whole trace, as "" and "#0"
 * (HTA's annotation "" ignores instance_id); it took the third event of any
 * name (aten::b: a 10 us window). */
TEST(critical_path_window_empty_name_any_instance)
{
    const char *in = tp_test_write_text("cp_window.json", trace);
    const char *windows[3] = {"", "#0", "#2"}, *names[3] = {"cp_w_empty", "cp_w_0", "cp_w_2"};
    for (int k = 0; k < 3; k++) {
        char *js = summary_of(in, windows[k], names[k]);
        /* the whole trace: 0 .. 50 us, no window event */
        CHECK(js && strstr(js, "\"critical_path\":[\n{\"step\":null,\"window\":null,"));
        CHECK(js && strstr(js, "\"length_ns\":50000,"));
        free(js);
    }
    /* a name with an instance past the last is still an error */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --critical-path-window 'aten::#9' -o '%s' 2>&1", tp_test_bin(), in,
                             tp_test_tmp("cp_w_9")),
                 2);
    CHECK(out && strstr(out, "aten:: has 3 instances (asked for #9"));
    free(out);
}
