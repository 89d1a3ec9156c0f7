/* test_hardening3_cost.c: small inputs that cost minutes or gigabytes
 * before (issue 29, docs/ERRORS.md "Round 3: cost bounds").  Each case runs
 * at a size where the old code is far over its bound, under `timeout` and/or
 * `ulimit -v`, and checks the result, never the time of a normal run. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* n all-reduce kernels without Seq (one key), ending `gap_ns` apart: a
 * rank's trace. */
static char *same_key_collectives(size_t n, int64_t gap_ns)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < n; i++) {
        int64_t ts = 1000000000 + (int64_t)i * gap_ns;
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\","
                      "\"pid\":0,\"tid\":7,\"ts\":%lld.%03lld,\"dur\":4,\"args\":{\"stream\":7}}\n",
                      i ? "," : "", (long long)(ts / 1000), (long long)(ts % 1000));
    }
    tp_buf_printf(&b, "]}\n");
    char *s = tp_xstrdup(b.data);
    tp_buf_free(&b);
    return s;
}

/* Item 3: two identical ranks of 30,000 same-key calls within 1 ms (32 ns
 * apart): every call is within the tolerance of every other one.  The old
 * alignment scanned the whole window per call and candidate (30,000^2 x 8:
 * over 10 s) and found +480 us; in order, the k-th call pairs with the k-th. */
TEST(cost_clock_align_same_key_calls_in_order)
{
    char *t = same_key_collectives(30000, 32);
    const char *dir = tp_test_tmp("align_job");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    char path[PATH_MAX];
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "align_job/rank-%d.json", r);
        tp_test_write_text(path, t);
    }
    free(t);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' stats '%s'", tp_test_bin(), dir), 0);
    CHECK(out && strstr(out, "aligned on collective ends to rank 0 (largest offset 0 ns)"));
    CHECK(out && strstr(out, "30000 instances matched across ranks (0 calls seen on one rank only)"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), dir,
                             tp_test_tmp("align_job.json")), 0);
    CHECK(out && strstr(out, "clock offset +0.000 us from 30000 of 30000 collectives (spread 0.000 us)"));
    free(out);
}

/* All the calls of the key end at the same nanosecond: each rank's k-th call
 * is one instance with the other's k-th (the old sort put one rank's calls
 * all before the other's: 1 instance, 59,998 calls alone). */
TEST(cost_clock_align_equal_ends_pair_in_order)
{
    char *t = same_key_collectives(30000, 0);
    const char *dir = tp_test_tmp("align_equal");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    char path[PATH_MAX];
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "align_equal/rank-%d.json", r);
        tp_test_write_text(path, t);
    }
    free(t);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' stats '%s'", tp_test_bin(), dir), 0);
    CHECK(out && strstr(out, "(largest offset 0 ns)"));
    CHECK(out && strstr(out, "30000 instances matched across ranks (0 calls seen on one rank only)"));
    free(out);
}

/* The ulimit -v wrapper of a run when the binary runs under one (ASan
 * reserves terabytes of address space: no cap there, the checks of the
 * outputs still hold). */
static const char *memory_cap(long kb)
{
    static char s[64];
    bool works = tp_test_run(NULL, "(ulimit -v %ld && '%s' --version; exit $?) >/dev/null 2>&1", kb, tp_test_bin()) == 0;
    snprintf(s, sizeof s, works ? "ulimit -v %ld; " : "", kb);
    return s;
}

/* Item 4: n nested scopes on one thread (python_function, named fmt + i),
 * each launching a kernel inside it before the next scope opens. */
static char *nested_scopes(size_t n, const char *fmt)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"%s%zu\",\"pid\":100,"
                      "\"tid\":100,\"ts\":%zu,\"dur\":%zu},\n"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,"
                      "\"ts\":%zu,\"dur\":2,\"args\":{\"correlation\":%zu}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":3,"
                      "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%zu}}\n",
                      i ? "," : "", fmt, i, 1000 + 10 * i, 20 * n - 20 * i, 1000 + 10 * i + 1, i + 1, i % 50,
                      1000 + 10 * i + 5, i + 1);
    tp_buf_printf(&b, "]}\n");
    char *s = tp_xstrdup(b.data);
    tp_buf_free(&b);
    return s;
}

/* 8,000 nested scopes: the old code built every kernel's whole path (the
 * derived Name Scope line: 0.8 GB in convert; the module paths: 1.7 GB in
 * report and a 350 MB summary.json).  Now a path holds 64 levels at most
 * and the levels left out are counted. */
TEST(cost_nested_scopes_memory_linear_in_depth)
{
    char *t = nested_scopes(8000, "nn.Module: Layer_");
    const char *in = tp_test_write_text("nested.json", t);
    free(t);
    const char *cap = memory_cap(600L * 1024);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%stimeout 20 '%s' convert '%s' -o '%s' 2>&1", cap, tp_test_bin(), in,
                             tp_test_tmp("nested_out.json")), 0);
    /* kernel i runs in i + 1 levels: sum over i of (i + 1 - 64) levels are left out */
    CHECK(out && strstr(out, "name-scope levels deeper than 64 not derived (TP_DERIVE_MAX_LEVELS): 31494016"));
    free(out);
    const char *dir = tp_test_tmp("nested_report");
    CHECK_EQ_INT(tp_test_run(&out, "%stimeout 20 '%s' report '%s' -o '%s' 2>&1", cap, tp_test_bin(), in, dir), 0);
    free(out);
    size_t len = 0;
    char *sum = tp_test_read_file(tp_test_tmp("nested_report/summary.json"), &len);
    CHECK(sum && len < 16u * 1024 * 1024);
    CHECK(sum && strstr(sum, "\"modules_cut\":7936")); /* the scopes past 64 levels */
    CHECK(sum && strstr(sum, "\"path\":\"Layer_0/Layer_1/"));
    free(sum);
    CHECK_EQ_INT(tp_test_run(&out, "%stimeout 20 '%s' stats '%s'", cap, tp_test_bin(), in), 0);
    free(out);
}

/* 30,000 nested library frames (torch/...: they name no scope of the user's
 * model): the old report walked every kernel's ancestors up to a named one
 * (450 M frame tests, over 15 s); now each host slice's answer comes from its
 * parent's.  Release build only (the size is the point; ASan is 10x slower). */
TEST(cost_nested_library_frames_linear)
{
    if (strstr(tp_test_bin(), "asan"))
        return;
    char *t = nested_scopes(30000, "torch/nn/modules/module.py(1747): _call_impl_");
    const char *in = tp_test_write_text("nested_lib.json", t);
    free(t);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' stats '%s'", tp_test_bin(), in), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' report '%s' -o '%s' 2>&1", tp_test_bin(), in,
                             tp_test_tmp("nested_lib_report")), 0);
    free(out);
    char *sum = tp_test_read_file(tp_test_tmp("nested_lib_report/summary.json"), NULL);
    /* each kernel's leaf is the frame around its launch (no named scope above it) */
    CHECK(sum && strstr(sum, "{\"name\":\"torch/nn/modules/module.py(1747): _call_impl_29999\",\"category\""));
    free(sum);
}

/* Item 5: n one-step ranks, rank r's step numbered r (distinct steps). */
static const char *tiny_ranks(const char *name, size_t n)
{
    static char dir[PATH_MAX]; /* tp_test_tmp's buffers rotate: the writes below reuse them */
    snprintf(dir, sizeof dir, "%s", tp_test_tmp(name));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    char path[PATH_MAX], text[1024];
    for (size_t r = 0; r < n; r++) {
        snprintf(path, sizeof path, "%s/rank-%zu.json", name, r);
        snprintf(text, sizeof text,
                 "{\"distributedInfo\":{\"rank\":%zu,\"world_size\":%zu},\"traceEvents\":[\n"
                 "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%zu\",\"pid\":10,\"tid\":10,"
                 "\"ts\":1000,\"dur\":100},\n"
                 "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,"
                 "\"ts\":1010,\"dur\":5,\"args\":{\"correlation\":1}},\n"
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1020,\"dur\":%zu,"
                 "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}]}\n",
                 r, n, r, 30 + r % 7);
        tp_test_write_text(path, text);
    }
    return dir;
}

/* 2,000 ranks with distinct steps: the old job held ranks x the union of
 * step numbers (4 M cells, 320 MB, and the heatmap 80 MB more); now the
 * 2,000 cells that exist.  Under a 200 MB cap the old binary exits 2. */
TEST(cost_job_cells_bounded_by_the_steps_that_exist)
{
    /* under ASan (no cap possible, a fork costs 10 ms) the same at 200 ranks */
    size_t n = strstr(tp_test_bin(), "asan") ? 200 : 2000;
    const char *dir = tiny_ranks("tiny_job", n);
    char rep[PATH_MAX], head[80], last[80];
    snprintf(rep, sizeof rep, "%s", tp_test_tmp("tiny_job_report"));
    const char *cap = memory_cap(200L * 1024);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%stimeout 60 '%s' stats '%s'", cap, tp_test_bin(), dir), 0);
    snprintf(head, sizeof head, "### Job: %zu ranks of %zu, %zu steps", n, n, n);
    CHECK(out && strstr(out, head));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "%stimeout 60 '%s' report '%s' -o '%s' 2>&1", cap, tp_test_bin(), dir, rep), 0);
    free(out);
    char *sum = tp_test_read_file(tp_test_tmp("tiny_job_report/summary.json"), NULL);
    /* every rank's one step, with its own number */
    snprintf(last, sizeof last, "\"per_step\":[[%zu,100000,", n - 1);
    CHECK(sum && strstr(sum, last));
    free(sum);
    CHECK(tp_test_file_exists(tp_test_tmp("tiny_job_report/png/job_heatmap.png")));
}

/* The rank summaries' folder is swept once for temporary files of dead runs
 * (each rank's write scanned it: ranks x ranks entries); what a dead run
 * left is still removed, and other files stay. */
TEST(cost_job_ranks_folder_swept_once)
{
    const char *dir = tiny_ranks("sweep_job", 3);
    char rep[PATH_MAX];
    snprintf(rep, sizeof rep, "%s", tp_test_tmp("sweep_report"));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s/ranks' && touch '%s/ranks/000001-x.rank.json.tmp.999999999.AbC123' "
                                   "'%s/ranks/notes.tmp.txt' '%s/ranks/y.tmp.12.short'",
                             rep, rep, rep, rep),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' 2>&1", tp_test_bin(), dir, rep), 0);
    free(out);
    CHECK(!tp_test_file_exists(tp_test_tmp("sweep_report/ranks/000001-x.rank.json.tmp.999999999.AbC123")));
    CHECK(tp_test_file_exists(tp_test_tmp("sweep_report/ranks/notes.tmp.txt")));
    CHECK(tp_test_file_exists(tp_test_tmp("sweep_report/ranks/y.tmp.12.short")));
}
