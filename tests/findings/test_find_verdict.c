/* test_find_verdict.c: one trace, one verdict (docs/REPORT.md "Findings").
 * `stats` reads what `report` reads for its findings (the "Ev Idx" that
 * tells a partial trace, the shapes of the roofline), so both name the same
 * top finding; a graph replay whose capture trace lies beside it is not
 * taken for a partial trace by the capture's own numbering. */
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The id of the first finding of a summary.json / stats --json text, "" when none. */
static const char *top_id(const char *json, char *buf, size_t n)
{
    buf[0] = 0;
    const char *p = json ? strstr(json, "\"findings\":[") : NULL;
    if (!p)
        return buf;
    p = strstr(p, "\"id\":\"");
    const char *end = p ? strchr(p + 6, '"') : NULL;
    if (end && (size_t)(end - (p + 6)) < n) {
        memcpy(buf, p + 6, (size_t)(end - (p + 6)));
        buf[end - (p + 6)] = 0;
    }
    return buf;
}

/* HTA's sampled rank: `report` withholds host_bound (its gaps are the filter's); `stats` said
 * host_bound 29.7% on the same trace when it kept no args. */
TEST(find_verdict_stats_equals_report_on_a_sampled_trace)
{
    const char *in = tp_test_shared("external/hta/trace_filter_sampled_rank-0.json.gz");
    if (!tp_test_file_exists(in))
        return;
    char *out = NULL;
    const char *dir = tp_test_tmp("sampled_out");
    CHECK_EQ_INT(tp_test_run(&out, "%s report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    free(out);
    char *rep = tp_test_read_in(dir, "summary.json");
    char *st = NULL;
    CHECK_EQ_INT(tp_test_run(&st, "%s stats --json '%s' 2>/dev/null", tp_test_bin(), in), 0);
    char a[64], b[64];
    CHECK_STR(top_id(rep, a, sizeof a), "exposed_comm");
    CHECK_STR(top_id(st, b, sizeof b), a);
    free(rep);
    free(st);
}

/* TraceLens's SGLang decode: 97.9% of its GPU span idle, all of it waiting for the host; its
 * capture_traces/ (found beside it) lends the replay ops numbered 0..58,644, which read among the
 * replay's made 941 of 1,493 pairs skip: the trace was called sampled and host_bound withheld. */
TEST(find_verdict_graph_replay_with_its_capture_is_host_bound)
{
    const char *in = tp_test_shared("external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz");
    if (!tp_test_file_exists(in))
        return;
    char *out = NULL;
    const char *dir = tp_test_tmp("sglang_out");
    CHECK_EQ_INT(tp_test_run(&out, "%s report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "(`host_bound`).\n") && strstr(md, "(`host_bound`).\n") < strchr(md, '\n') + 1);
    CHECK(md && !strstr(md, "filtered or sampled"));
    free(md);
    char *st = NULL;
    CHECK_EQ_INT(tp_test_run(&st, "%s stats --json '%s' 2>/dev/null", tp_test_bin(), in), 0);
    char b[64];
    CHECK_STR(top_id(st, b, sizeof b), "host_bound");
    free(st);
}

/* An XPlane of 3 GPUs: the whole-trace GPU figures are summed over the devices, so an impact of
 * 587 ms in a shorter trace is right only with its base saying so (it read "of the GPU span"). */
TEST(find_verdict_base_of_several_devices_says_summed)
{
    const char *in = tp_test_shared("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb");
    if (!tp_test_file_exists(in))
        return;
    const char *dir = tp_test_tmp("multi_gpu_out");
    CHECK_EQ_INT(tp_test_run(NULL, "%s report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "of the GPU span summed over 3 devices (`host_bound`)") &&
          strstr(md, "summed over 3 devices") < strchr(md, '\n'));
    /* a device's own step in a sentence's words: "step 0 on GPU:6", not "step 0 GPU:6" */
    CHECK(md && strstr(md, "in step 0 on GPU:6**") && !strstr(md, "step 0 GPU:6"));
    free(md);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "\"impact_base\":\"the GPU span summed over 3 devices\"") &&
          !strstr(js, "\"impact_base\":\"the GPU span\""));
    free(js);
}

/* The same trace diffed with itself: each finding's impact base in diff.json is the one its report
 * says.  With several devices that text lives in the finding's measure, which the diff freed before
 * writing: a use after free the fuzzer found; the old binary wrote freed bytes into diff.json
 * ("binary file matches") and fails this, under ASan at once. */
TEST(find_verdict_diff_keeps_the_base_of_several_devices)
{
    const char *in = tp_test_shared("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb");
    if (!tp_test_file_exists(in))
        return;
    const char *dir = tp_test_tmp("multi_gpu_diff");
    CHECK_EQ_INT(tp_test_run(NULL, "%s diff -q '%s' '%s' -o '%s'", tp_test_bin(), in, in, dir), 0);
    char *js = tp_test_read_in(dir, "diff.json");
    CHECK(js && strstr(js, "\"id\":\"host_bound\"") &&
          strstr(js, "\"impact_base\":\"the GPU span summed over 3 devices\""));
    free(js);
}
