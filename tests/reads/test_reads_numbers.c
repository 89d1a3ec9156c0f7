/* test_reads_numbers.c: numbers and labels that read right (issue 36 item 8). */
#include "render/text/units.h"
#include "tests/lib/harness.h"
#include "report/diff/diff.h"

#include <stdlib.h>
#include <string.h>

#define QWEN "external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"

/* the opportunities table is numbered 1, 2, 3 in its own order; the shape's # (its row above and its roofline
 * mark) is a column of its own */
TEST(opportunities_numbered_in_order)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("qwen.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(QWEN), dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - | grep -A12 '^Opportunities:' | "
                                   "grep -E '^ *[0-9]+ ' | awk '{print $1}' | tr '\\n' ' '",
                             dir),
                 0);
    CHECK(out && strncmp(out, "1 2 3 4 5 6 7 8 ", 16) == 0);
    free(out);
}

/* a summary figure: three significant digits, its spread in the figure's unit and precision */
TEST(summary_figures_three_significant_digits)
{
    char b[64];
    tp_fmt_dur_sig(b, sizeof b, 19865000, 19865000, " ");
    CHECK_STR(b, "19.9 ms");
    tp_fmt_dur_sig(b, sizeof b, 361215, 19865000, " ");
    CHECK_STR(b, "0.4 ms");
    tp_fmt_dur_sig(b, sizeof b, 874500, 4426000, " ");
    CHECK_STR(b, "0.87 ms");
    tp_fmt_dur_sig(b, sizeof b, 615400000, 615400000, " ");
    CHECK_STR(b, "615 ms");
    tp_fmt_dur_sig(b, sizeof b, 999, 999, " ");
    CHECK_STR(b, "999 ns");
    tp_fmt_dur_sig(b, sizeof b, 1234567000000, 1234567000000, " ");
    CHECK_STR(b, "1,235 s");
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("xg.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"), dir),
                 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "median step **19.9" TP_NBSP "ms** ± 0.4" TP_NBSP "ms (half the IQR of 2 steps)"));
    free(md);
}

/* Item 2: ops under 1% of the device time get no panel of their own, and the title says how many were left out
 * (SGLang decode, its capture_traces/ merged: 8 ops of the replayed graphs drawn, ten ops of 4-54 us not) */
TEST(dominating_ops_drop_ops_under_one_percent)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("sglang.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
                             dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - | tr '\\n' ' '", dir), 0);
    /* the capture-merged ops: 8 of 18 drawn (issue 36 item 2: bar heights by time, named in the title) */
    CHECK(out && strstr(out, "Dominating ops by time: kernel mix by category, bar height = time (top 8 of 18; 10 under 1% "
                             "not drawn)"));
    free(out);
}

/* a diff row's share of the gross change: a small improvement read "-0.0%" in diff.pdf and diff.md */
TEST(diff_share_never_minus_zero)
{
    char b[32];
    tp_diff_row r = {0};
    r.has_share = true;
    r.share = -0.0004;
    tp_diff_fmt_share(b, sizeof b, &r);
    CHECK_STR(b, "0.0%");
    r.share = 0.0004;
    tp_diff_fmt_share(b, sizeof b, &r);
    CHECK_STR(b, "0.0%");
    r.share = -0.123;
    tp_diff_fmt_share(b, sizeof b, &r);
    CHECK_STR(b, "-12.3%");
    r.has_share = false;
    tp_diff_fmt_share(b, sizeof b, &r);
    CHECK_STR(b, "-");
}
