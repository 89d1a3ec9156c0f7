/* test_bases.c: no figure sits next to a figure of another base without
 * saying so (issue 36 item 3). */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define RANK0 "external/hta/trace_filter_sampled_rank-0.json.gz"
#define RANK1 "external/hta/trace_filter_sampled_rank-1.json.gz"

/* a job of HTA's two ranks: the median step (one step, 615 ms) sat beside the GPU idle over the whole trace
 * (675 ms, two steps) under the same kind of head; each whole-trace column and row now says so */
TEST(job_rank_figures_name_their_base)
{
    const char *dir = tp_test_tmp("bases.job");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' '%s' -o '%s'", tp_test_bin(), tp_test_shared(RANK0),
                             tp_test_shared(RANK1), dir),
                 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "Over each rank's whole trace (its GPU span, 2 steps), in ms"));
    /* one table per base (and each fits a comment column, item 9): the one step, then the whole trace */
    CHECK(md && strstr(md, "| rank | median step (ms) | flags | its top finding |"));
    CHECK(md && strstr(md, "| rank | computation | exposed comm | GPU idle | overlapped | waited | made others wait |"));
    CHECK(md && strstr(md, "| GPU idle, trace | 651.136 | 1 |"));
    CHECK(md && !strstr(md, "| GPU idle (ms) |"));
    CHECK(md && strstr(md, "\n<details><summary>More")); /* item 9: a comment's head, the rest folded */
    free(md);
    if (!tp_test_have("pdftotext"))
        return;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "GPU idle (whole trace)") && strstr(out, "median step time"));
    free(out);
}

/* the steps page's whole-trace idle (host window - busy: 642.727 ms) sat under the head "idle" while the GPU time
 * page's whole-trace idle (GPU span - busy: 642.678 ms) had the same name: each now names its base */
TEST(steps_page_idle_names_its_base)
{
    const char *dir = tp_test_tmp("bases.steps");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/kineto/kineto_plugin_resnet50_array_2020-12.pt.trace.json.gz"),
                             dir),
                 0);
    if (!tp_test_have("pdftotext"))
        return;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "host - busy") && strstr(out, "whole trace (first to last slice)"));
    /* the GPU time page names the unit in its column head ("idle (ms)"): 642.678 (49.7%) */
    CHECK(out && strstr(out, "642.727 ms") && strstr(out, "642.678 (49.7%)"));
    free(out);
}
