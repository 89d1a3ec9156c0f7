/* test_reads_advice.c: advice in the words of the trace's framework
 * (issue 36 item 4): an XLA trace is never told to use torch.profiler or
 * torch.compile, a trace without steps gets no per-step wording, and the
 * device list counts the devices that ran something. */
#include "tests/lib/harness.h"
#include "report/findings/findings.h"

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

/* Every built-in rule, as an XLA trace and as a PyTorch trace without steps
 * would get it: no torch words for XLA, no "step" where there are none (the
 * two rules that need steps aside).  A rule added to findings.rules with
 * PyTorch words and no entry in advice.c fails here, not in a user's report
 * (the critical path's and the memory rules once did). */
TEST(every_builtin_rule_has_framework_words)
{
    tp_find_rules r;
    char err[256];
    CHECK_EQ_INT(tp_find_rules_load(&r, NULL, err, sizeof err), 0);
    for (int xla = 0; xla < 2; xla++) {
        tp_trace t;
        tp_trace_init(&t);
        t.format = xla ? "xplane" : "chrome";
        tp_findings f = {0};
        f.items = tp_xcalloc(r.n, sizeof *f.items);
        for (size_t i = 0; i < r.n; i++)
            f.items[f.n++].rule = &r.rules[i];
        tp_findings_adapt(&f, &t, false);
        for (size_t i = 0; i < f.n; i++) {
            const char *id = f.items[i].rule->id, *next = f.items[i].rule->next;
            if (xla && strstr(next, "torch"))
                tp_test_fail(__FILE__, __LINE__, "%s: an XLA trace is told \"%s\"", id, next);
            bool needs_steps = strcmp(id, "step_variance") == 0 || strcmp(id, "memory_growth") == 0;
            if (!needs_steps && strstr(next, "step"))
                tp_test_fail(__FILE__, __LINE__, "%s: a trace without steps is told \"%s\" (%s)", id, next,
                             xla ? "XLA" : "PyTorch");
        }
        free(f.adapted);
        free(f.items);
        t.format = NULL;
        tp_trace_free(&t);
    }
    tp_find_rules_free(&r);
}

/* A TPU trace is not told to replay CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer): XLA has none on TPUs.
 * The shared TPU inference trace's top finding (cpu_bound_path) said it; a GPU XPlane keeps the words. */
TEST(tpu_trace_is_not_told_cuda_graphs)
{
    char *md = report_md("external/xplane/tpu_inference_2.xplane.pb", "tpu.report");
    CHECK(md && strstr(md, "(`cpu_bound_path`") && strstr(md, "several steps per call"));
    CHECK(md && !strstr(md, "CUDA graphs") && !strstr(md, "command_buffer"));
    free(md);
    if (tp_test_have("pdftotext")) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' -", tp_test_tmp("tpu.report")), 0);
        CHECK(out && !strstr(out, "CUDA graphs") && !strstr(out, "command_buffer"));
        free(out);
    }
    md = report_md("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb", "gpu_xla.report");
    CHECK(md && strstr(md, "CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer)"));
    free(md);
}

/* One step: no "median of 1 steps" or "mean over 1 steps, bars from min to max" (the TraceLens H100 and MI300X runs
 * record one ProfilerStep each): the timeline, critical path and steps pages say it is the trace's one step */
TEST(one_step_is_not_a_median)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("onestep.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && !strstr(out, "1 steps") && !strstr(out, "the median step;"));
    CHECK(out && strstr(out, "Timeline of step #6 (the trace's one step; step time 47.151 ms)") &&
          strstr(out, "Critical path of step #6 (the trace's one step;") &&
          strstr(out, "Step times: the trace's one step (no spread)"));
    free(out);
}
