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
    CHECK(out && strstr(out, "aligned on collective ends to rank 0 (largest offset +0.000 us)"));
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
    CHECK(out && strstr(out, "(largest offset +0.000 us)"));
    CHECK(out && strstr(out, "30000 instances matched across ranks (0 calls seen on one rank only)"));
    free(out);
}
