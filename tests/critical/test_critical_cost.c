/* test_critical_cost.c: what the critical path costs in memory on a trace
 * without steps (one whole-trace window: the graph of every event at once).
 * A 127 MB Nsight Systems export (2.74 M events) took the stats peak from
 * 341 to 1018 MB (250 bytes an event for the path); now 702 MB (132).  The
 * check is relative (the address space the path adds to the same run
 * without it, TP_CRITICAL_PATH=0), never a time. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <stdlib.h>

/* n cpu ops on one thread, each launching a kernel on stream 7: no step */
static char *flat_trace(size_t n)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":8},\n"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%zu,\"dur\":2,\"args\":{\"correlation\":%zu}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":3,"
                      "\"args\":{\"correlation\":%zu}}\n",
                      i ? "," : "", 10 * i, 10 * i + 1, i + 1, 10 * i + 5, i + 1);
    tp_buf_printf(&b, "]}\n");
    char *s = tp_xstrdup(b.data);
    tp_buf_free(&b);
    return s;
}

/* stats (report: dir, the report's folder) of in under a cap of kb.  One
 * thread (TP_THREADS=1, which TP_REPORT_THREADS=1 alone is not: the read and
 * the link have their own threads): a thread's first allocation reserves a
 * malloc arena of 64 MB of address space, which lands in one run and not the
 * other as the allocations fall, and is not the path's memory. */
static bool runs_under_cmd(long kb, const char *in, bool path, const char *dir)
{
    if (dir)
        return tp_test_run(NULL, "(rm -rf '%s'; ulimit -v %ld && TP_THREADS=1 TP_REPORT_THREADS=1 TP_CRITICAL_PATH=%d timeout 20 '%s' "
                                 "report '%s' -o '%s'; exit $?) >/dev/null 2>&1",
                           dir, kb, path ? 1 : 0, tp_test_bin(), in, dir) == 0;
    return tp_test_run(NULL, "(ulimit -v %ld && TP_THREADS=1 TP_REPORT_THREADS=1 TP_CRITICAL_PATH=%d timeout 20 '%s' stats '%s'; exit $?) "
                             ">/dev/null 2>&1",
                       kb, path ? 1 : 0, tp_test_bin(), in) == 0;
}

static bool runs_under(long kb, const char *in, bool path)
{
    return runs_under_cmd(kb, in, path, NULL);
}

/* The least address space the run without the path needs, to 4 MB. */
static long least_without_path(const char *in, const char *dir)
{
    long lo = 16L * 1024, hi = 2L * 1024 * 1024;
    if (!runs_under_cmd(hi, in, false, dir))
        return -1;
    while (hi - lo > 4096) {
        long mid = lo + (hi - lo) / 2;
        if (runs_under_cmd(mid, in, false, dir))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* 100,000 ops (300,000 events, no step): the report's critical path page
 * drew 3 items per path piece (3 x 400,000, each named): report needed 90
 * MB more than without the path; now pieces under 1/4096 of the window are
 * merged and short events thinned to one per 1/4096 of a row (33 MB).  At
 * most 200 bytes an event (60 MB). */
TEST(critical_path_page_memory_per_event)
{
    char *t = flat_trace(100000);
    const char *in = tp_test_write_text("cp_flat_page.json", t);
    free(t);
    if (tp_test_run(NULL, "(ulimit -v 4000000 && '%s' --version; exit $?) >/dev/null 2>&1", tp_test_bin()) != 0)
        return; /* ASan: no cap (the stats test runs the path) */
    const char *dir = tp_test_tmp("cp_flat_page_out");
    long base = least_without_path(in, dir);
    CHECK(base > 0);
    CHECK(runs_under_cmd(base + 300000L * 200 / 1024, in, true, dir));
}

/* 150,000 ops (450,000 events, no step): the path may add at most 120 bytes
 * an event of address space to `stats` (53 MB; it added 122 MB, about 270
 * bytes an event, before the graph was made compact; 60 MB, 136 bytes, while
 * stats kept the path's links it does not print; now 45 MB, 102 bytes). */
TEST(critical_path_whole_trace_memory_per_event)
{
    char *t = flat_trace(150000);
    const char *in = tp_test_write_text("cp_flat.json", t);
    free(t);
    if (tp_test_run(NULL, "(ulimit -v 4000000 && '%s' --version; exit $?) >/dev/null 2>&1", tp_test_bin()) != 0) {
        /* ASan reserves terabytes of address space: no cap; the run still holds */
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' stats '%s' >/dev/null 2>&1", tp_test_bin(), in), 0);
        return;
    }
    long base = least_without_path(in, NULL);
    CHECK(base > 0);
    CHECK(runs_under(base + 450000L * 120 / 1024, in, true));
}

/* n kernels each on its own stream, then n cudaDeviceSynchronize calls
 * (no sync events: each waits for every stream) in one step */
static char *many_streams_syncs(size_t n)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                      "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%zu}",
                  20 * n + 100);
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%zu,\"dur\":2,\"args\":{\"correlation\":%zu}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":%zu,\"ts\":%zu,\"dur\":3,"
                      "\"args\":{\"correlation\":%zu}}",
                      10 * i + 1, i + 1, 100 + i, 10 * i + 5, i + 1);
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%zu,\"dur\":5}",
                      10 * n + 10 * i + 10);
    tp_buf_printf(&b, "\n]}\n");
    char *s = tp_xstrdup(b.data);
    tp_buf_free(&b);
    return s;
}

/* 10,000 streams and 10,000 whole-device waits: HTA's edge from every
 * stream to every wait is 10^8 edges (6,000 of each took 720 MB and 2 s
 * before; 10,000 over 2 GB).  Past the budget only the streams whose last
 * work changed get one; the rest are counted; the breakdown still adds up. */
TEST(critical_path_whole_device_syncs_bounded)
{
    char *t = many_streams_syncs(10000);
    const char *in = tp_test_write_text("cp_syncs.json", t);
    free(t);
    bool capped = tp_test_run(NULL, "(ulimit -v 600000 && '%s' --version; exit $?) >/dev/null 2>&1", tp_test_bin()) == 0;
    const char *dir = tp_test_tmp("cp_syncs_out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "(%s TP_REPORT_THREADS=1 timeout 20 '%s' report '%s' -o '%s'; exit $?) 2>&1",
                             capped ? "ulimit -v 600000;" : "", tp_test_bin(), in, dir),
                 0);
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *js = NULL;
    CHECK_EQ_INT(tp_test_run(&js, "cat '%s'", path), 0);
    /* 10,000 x 10,000 would-be edges, 2 x 40,000 nodes + 4,096 made at most */
    CHECK(js && strstr(js, "\"sync_edges_skipped\":"));
    CHECK(js && strstr(js, "\"length_ns\":200100000"));
    CHECK(js && strstr(js, "\"cycle\":false"));
    free(js);
}

/* s steps that each span the whole trace, over n cpu ops */
static char *overlapping_steps(size_t s, size_t n)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < s; i++)
        tp_buf_printf(&b,
                      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%zu\",\"pid\":1,\"tid\":2,"
                      "\"ts\":%zu,\"dur\":%zu},\n",
                      i, i, 10 * n + 10);
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":8}\n",
                      i ? "," : "", 10 * i);
    tp_buf_printf(&b, "]}\n");
    char *t = tp_xstrdup(b.data);
    tp_buf_free(&b);
    return t;
}

/* 2,000 steps over the same 30,000 ops: every window's graph is the whole
 * trace (2,000 x 30,000: 11 s and 4.7 GB before).  The windows' graphs take
 * at most 4 x the candidates + 2^20 in all; the windows past that have no
 * path and say so ("skipped":true), their time all outside_path. */
TEST(critical_path_overlapping_windows_bounded)
{
    char *t = overlapping_steps(2000, 30000);
    const char *in = tp_test_write_text("cp_overlap.json", t);
    free(t);
    bool capped = tp_test_run(NULL, "(ulimit -v 800000 && '%s' --version; exit $?) >/dev/null 2>&1", tp_test_bin()) == 0;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "(%s timeout 20 '%s' report '%s' -o '%s'; exit $?) 2>&1", capped ? "ulimit -v 800000;" : "",
                             tp_test_bin(), in, tp_test_tmp("cp_overlap_out")),
                 0);
    free(out);
    char *js = NULL;
    CHECK_EQ_INT(tp_test_run(&js, "cat '%s/summary.json'", tp_test_tmp("cp_overlap_out")), 0);
    CHECK(js && strstr(js, "\"skipped\":true"));
    /* the first step has its path */
    const char *first = js ? strstr(js, "{\"step\":0,") : NULL;
    const char *next = first ? strstr(first + 1, "{\"step\":1,") : NULL;
    const char *skip = first ? strstr(first, "\"skipped\":true") : NULL;
    CHECK(first && next && (!skip || skip > next));
    free(js);
}
