/* test_reads_advice.c: advice in the words of the trace's framework
 * (issue 36 item 4): an XLA trace is never told to use torch.profiler or
 * torch.compile, a trace without steps gets no per-step wording, and the
 * device list counts the devices that ran something. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define JAX_MI300 "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"
#define NCCL "external/kineto/hta_nccl_data_2024.json.gz"

static char *report_md(const char *rel, const char *name)
{
    const char *dir = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(rel), dir), 0);
    return tp_test_read_in(dir, "summary.md");
}

TEST(xla_trace_is_not_told_torch)
{
    char *md = report_md(JAX_MI300, "jax.report");
    CHECK(md && !strstr(md, "torch"));
    CHECK(md && strstr(md, "XProf")); /* what to record it with, in XLA's words */
    /* no steps: no "0 steps with device work", no "not the steps" */
    CHECK(md && !strstr(md, "steps with device work") && !strstr(md, "not the steps"));
    free(md);
    if (!tp_test_have("pdftotext"))
        return;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' -", tp_test_tmp("jax.report")), 0);
    CHECK(out && !strstr(out, "torch") && !strstr(out, "device / step") && !strstr(out, "Launches per step"));
    free(out);
}

TEST(pytorch_trace_keeps_torch_advice)
{
    char *md = report_md("external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz", "bert.report");
    CHECK(md && !strstr(md, "XProf"));
    free(md);
}

/* 8 devices in deviceProperties, one ran the trace's work */
TEST(device_list_counts_devices_with_activity)
{
    char *md = report_md(NCCL, "nccl.report");
    CHECK(md && strstr(md, "| devices | NVIDIA A100-PG509-200 |") && !strstr(md, "8 x NVIDIA"));
    free(md);
}
