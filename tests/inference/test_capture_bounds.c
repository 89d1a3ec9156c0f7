/* Graph capture under hostile input (issue 33 review): the matching's work
 * is bounded per input item (docs/ERRORS.md "Graph capture"), not replay
 * launches x captured calls; a FIFO in capture_traces/ is refused, not read
 * (it would block); batch redoes a trace whose capture_traces/ changed; a
 * capture graph that only shares a kernel name with the launch is not
 * taken for it; diff.md says which side's replays have captured ops; ops
 * under a deep Python stack are copied without walking it again per op; a
 * discovered capture trace named like an output is refused before any output. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A replay of `launches` graph launches of 64 kernels each (names k00..k63,
 * the first 63 in a different order each time, k63 last: every launch a new
 * kernel sequence) and a capture of `calls` launches of k63 alone: each call
 * finds k63 only 63 activities on and never confirms it, so matching every
 * launch against the capture costs launches x calls x 64 comparisons. */
static void write_pair(const char *replay, const char *capture, int launches, int calls)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,"
                    "\"tid\":1,\"ts\":1,\"dur\":1}");
    unsigned seed = 1;
    for (int l = 0; l < launches; l++) {
        double t0 = 10.0 + 200.0 * l;
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%.1f,\"dur\":5,\"args\":{\"correlation\":%d}}",
                      t0, 100 + l);
        int order[63];
        for (int k = 0; k < 63; k++)
            order[k] = k;
        for (int k = 62; k > 0; k--) { /* a fixed pseudo-random shuffle */
            seed = seed * 1103515245u + 12345u;
            int j = (int)((seed >> 8) % (unsigned)(k + 1)), tmp = order[k];
            order[k] = order[j], order[j] = tmp;
        }
        for (int k = 0; k < 64; k++)
            tp_buf_printf(&b,
                          ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%02d\",\"pid\":0,\"tid\":7,\"ts\":%.1f,"
                          "\"dur\":1,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                          k < 63 ? order[k] : 63, t0 + 10 + 2 * k, 100 + l);
    }
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    tp_test_write_text(replay, b.data);
    b.len = 0;
    tp_buf_printf(&b,
                  "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
                  "\"ts\":1,\"dur\":%d}",
                  3 * calls + 10);
    for (int c = 0; c < calls; c++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%d,\"dur\":1,\"args\":{\"kernel\":\"k63\",\"correlation\":%d}}",
                      2 + 3 * c, c + 1);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    tp_test_write_text(capture, b.data);
    tp_buf_free(&b);
}

TEST(graph_capture_matching_work_bounded)
{
    /* 150 launches x 30,000 calls x 64 x 2 (choice, then mapping) = 5.8e8 comparisons unbounded; the bound
     * is 4096 x (30,000 calls + 9,600 activities) = 1.6e8: the launches past it stay unmatched, said */
    const char *replay = "gc_bound_replay.json", *capture = "gc_bound_capture.json";
    write_pair(replay, capture, 150, 30000);
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats %s --graph-capture %s", tp_test_bin(), tp_test_tmp(replay),
                         tp_test_tmp(capture));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "graph launches left unmatched: the matching's work bound"));
    CHECK(out && strstr(out, "of 150 graph launches matched"));
    free(out);
    out = NULL;
    rc = tp_test_run(&out, "%s stats --json %s --graph-capture %s", tp_test_bin(), tp_test_tmp(replay),
                     tp_test_tmp(capture));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"over_work_bound\":") && !strstr(out, "\"over_work_bound\":0,"));
    free(out);
}

TEST(graph_capture_discovery_refuses_fifo)
{
    mkdir(tp_test_tmp("gc_fifo"), 0755);
    mkdir(tp_test_tmp("gc_fifo/capture_traces"), 0755);
    write_pair("gc_fifo/replay.json", "gc_fifo/capture_traces/a.json", 2, 10);
    unlink(tp_test_tmp("gc_fifo/capture_traces/a.json"));
    CHECK_EQ_INT(mkfifo(tp_test_tmp("gc_fifo/capture_traces/a.json"), 0644), 0);
    char *out = NULL;
    /* (the old code opened the FIFO and waited for a writer: timeout's 124) */
    int rc = tp_test_run(&out, "timeout 20 %s stats %s", tp_test_bin(), tp_test_tmp("gc_fifo/replay.json"));
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "not a regular file"));
    free(out);
    /* an execution_details.json that is a FIFO: refused too, for discovery and for --graph-capture's details */
    unlink(tp_test_tmp("gc_fifo/capture_traces/a.json"));
    write_pair("gc_fifo/replay.json", "gc_fifo/capture_traces/a.json", 2, 10);
    CHECK_EQ_INT(mkfifo(tp_test_tmp("gc_fifo/capture_traces/execution_details.json"), 0644), 0);
    out = NULL;
    rc = tp_test_run(&out, "timeout 20 %s stats %s", tp_test_bin(), tp_test_tmp("gc_fifo/replay.json"));
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "execution_details.json: not a regular file"));
    free(out);
    out = NULL;
    rc = tp_test_run(&out, "timeout 20 %s stats %s --graph-capture %s", tp_test_bin(),
                     tp_test_tmp("gc_fifo/replay.json"), tp_test_tmp("gc_fifo/capture_traces/a.json"));
    CHECK_EQ_INT(rc, 0); /* the details beside a given file only add its batch size and mode */
    free(out);
}

TEST(graph_capture_batch_redoes_when_capture_traces_change)
{
    mkdir(tp_test_tmp("gc_batch"), 0755);
    mkdir(tp_test_tmp("gc_batch/in"), 0755);
    mkdir(tp_test_tmp("gc_batch/in/capture_traces"), 0755);
    write_pair("gc_batch/in/replay.json", "gc_batch/in/capture_traces/a.json", 2, 10);
    char replay[600], out_dir[600], md[700];
    snprintf(replay, sizeof replay, "%s", tp_test_tmp("gc_batch/in/replay.json"));
    snprintf(out_dir, sizeof out_dir, "%s", tp_test_tmp("gc_batch/out"));
    snprintf(md, sizeof md, "%s/replay/report/summary.md", out_dir);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s batch %s -o %s -j 1", tp_test_bin(), replay, out_dir), 0);
    free(out);
    char *text = tp_test_read_file(md, NULL);
    CHECK(text && strstr(text, "graph capture: `a.json`"));
    free(text);
    /* the capture traces go: the report made with them is stale */
    CHECK_EQ_INT(rename(tp_test_tmp("gc_batch/in/capture_traces"), tp_test_tmp("gc_batch/gone")), 0);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s batch %s -o %s -j 1", tp_test_bin(), replay, out_dir), 0);
    CHECK(out && strstr(out, "0 unchanged (skipped), 1 to do"));
    free(out);
    text = tp_test_read_file(md, NULL);
    CHECK(text && !strstr(text, "graph capture: `a.json`") && strstr(text, "without ops or shapes"));
    free(text);
    /* unchanged: skipped */
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s batch %s -o %s -j 1", tp_test_bin(), replay, out_dir), 0);
    CHECK(out && strstr(out, "1 unchanged (skipped)"));
    free(out);
}

TEST(graph_capture_graph_sharing_a_name_is_not_the_one_replayed)
{
    /* the replay's launch ran k00..k63; the capture (another model's) launched k00 alone: it maps 1 of the 64
     * activities, with one aten::mm's shapes: not the graph replayed, so no graph for the launch, no op */
    write_pair("gc_other_replay.json", "gc_other_capture.json", 1, 1);
    tp_test_write_text("gc_other_capture.json",
                       "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
                       "\"tid\":1,\"ts\":1,\"dur\":100,\"args\":{\"Input Dims\":[[8,8],[8,8]]}},\n"
                       "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                       "\"ts\":2,\"dur\":1,\"args\":{\"kernel\":\"k00\",\"correlation\":1}}\n]}\n");
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats %s --graph-capture %s", tp_test_bin(), tp_test_tmp("gc_other_replay.json"),
                         tp_test_tmp("gc_other_capture.json"));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "0 of 64 replayed kernels mapped") && strstr(out, "0 of 1 graph launches matched"));
    free(out);
}

TEST(graph_capture_diff_says_which_side_has_a_capture)
{
    mkdir(tp_test_tmp("gc_diff"), 0755);
    mkdir(tp_test_tmp("gc_diff/a"), 0755);
    mkdir(tp_test_tmp("gc_diff/b"), 0755);
    mkdir(tp_test_tmp("gc_diff/b/capture_traces"), 0755);
    write_pair("gc_diff/a/replay.json", "gc_diff/a/unused.json", 2, 10);
    write_pair("gc_diff/b/replay.json", "gc_diff/b/capture_traces/cap.json", 2, 10);
    char a[600], b[600], o[600];
    snprintf(a, sizeof a, "%s", tp_test_tmp("gc_diff/a/replay.json"));
    snprintf(b, sizeof b, "%s", tp_test_tmp("gc_diff/b/replay.json"));
    snprintf(o, sizeof o, "%s", tp_test_tmp("gc_diff/out"));
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s", tp_test_bin(), a, b, o), 0);
    free(out);
    char *md = tp_test_read_in(o, "diff.md");
    CHECK(md && strstr(md, "Base's graph replays ran") && strstr(md, "Candidate's graph capture: `cap.json`") &&
          strstr(md, "Only one side has its graph replays mapped"));
    free(md);
    /* neither side with a capture: diff.md as before, no such line */
    snprintf(o, sizeof o, "%s", tp_test_tmp("gc_diff/out2"));
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s", tp_test_bin(), a, a, o), 0);
    free(out);
    md = tp_test_read_in(o, "diff.md");
    CHECK(md && !strstr(md, "graph capture") && !strstr(md, "graph replays ran"));
    free(md);
}

TEST(graph_capture_deep_python_stack_walked_once)
{
    /* a capture of 80,000 ops, each launching one kernel, under 80,000 nested Python functions, and a replay of
     * those 80,000 kernels: each op's copy walked the whole stack (80,000 x 80,000 steps, about 30 s of CPU);
     * now the stack is skipped once. (timeout 20: the old code is far over, the new one about 1 s) */
    enum { DEPTH = 80000, OPS = 80000 };
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int d = 0; d < DEPTH; d++)
        tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%d,\"dur\":%d}",
                      d ? ",\n" : "", d, 10 * OPS + 2 * DEPTH + 100 - 2 * d);
    for (int c = 0; c < OPS; c++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                      "\"dur\":5},\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                      "\"tid\":1,\"ts\":%d,\"dur\":1,\"args\":{\"kernel\":\"k%d\"}}",
                      DEPTH + 10 + 10 * c, DEPTH + 11 + 10 * c, c % 50);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    tp_test_write_text("gc_deep_capture.json", b.data);
    b.len = 0;
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,"
                    "\"tid\":1,\"ts\":1,\"dur\":5,\"args\":{\"correlation\":7}}");
    for (int c = 0; c < OPS; c++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,"
                      "\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}}",
                      c % 50, 10 + 2 * c);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    tp_test_write_text("gc_deep_replay.json", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    int rc = tp_test_run(&out, "timeout 20 %s stats %s --graph-capture %s", tp_test_bin(),
                         tp_test_tmp("gc_deep_replay.json"), tp_test_tmp("gc_deep_capture.json"));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "80,000 of 80,000 replayed kernels mapped"));
    free(out);
}

TEST(graph_capture_discovered_file_protected_before_any_output)
{
    mkdir(tp_test_tmp("gc_prot"), 0755);
    mkdir(tp_test_tmp("gc_prot/capture_traces"), 0755);
    write_pair("gc_prot/replay.json", "gc_prot/capture_traces/summary.json", 2, 10);
    char *out = NULL;
    int rc = tp_test_run(&out, "%s report %s -o %s", tp_test_bin(), tp_test_tmp("gc_prot/replay.json"),
                         tp_test_tmp("gc_prot/capture_traces"));
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "refusing to overwrite the input file"));
    free(out);
    /* no partial output: the old code refused only at the write, after making png/ in the input's folder */
    CHECK(!tp_test_exists_in(tp_test_tmp("gc_prot/capture_traces"), "png"));
    CHECK(!tp_test_exists_in(tp_test_tmp("gc_prot/capture_traces"), "summary.md"));
}
