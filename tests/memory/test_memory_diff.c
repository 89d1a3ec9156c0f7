/* test_memory_diff.c: `diff` of a base and a candidate that holds one
 * planted extra allocation (tests/lib/mem_gen.h): the peak change, the
 * holder that grew, and --fail-if-memory-higher (exit 3 over, 0 under). */
#include "tests/lib/harness.h"
#include "tests/lib/mem_gen.h"

#include <stdlib.h>
#include <string.h>

TEST(memory_diff_planted_extra_allocation_gates)
{
    mg_opts base = {4, (int64_t)1 << 30, 8 << 20, 512 << 20, 0, 2, true};
    mg_opts cand = base;
    cand.extra = 300 << 20; /* 300 MiB in extra_op, step 1, never freed */
    const char *a = mg_write("base.json", &base), *b = mg_write("cand.json", &cand);
    const char *dir = tp_test_tmp("d1");
    char *out = NULL;
    /* 300 MiB more on a 1.5 GiB peak: +19.2%, over 10% and over 200MiB */
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 10", tp_test_bin(), a, b, dir), 3);
    CHECK(out && strstr(out, "cuda:0 peak allocated memory +300 MiB (1.5 GiB -> 1.8 GiB, +19.2%), over "
                             "--fail-if-memory-higher 10%"));
    free(out);
    char *js = tp_test_read_in(dir, "diff.json");
    char want[256];
    snprintf(want, sizeof want, "{\"device\":\"cuda:0\",\"peak_allocated_bytes\":[%lld,%lld]", (long long)mg_peak(&base),
             (long long)mg_peak(&cand));
    CHECK(js && strstr(js, want));
    snprintf(want, sizeof want, "\"peak_allocated_delta_bytes\":%lld}", (long long)cand.extra);
    CHECK(js && strstr(js, want));
    CHECK(js && strstr(js, "\"holders_grew\":[\n{\"device\":\"cuda:0\",\"op\":\"extra_op\",\"module\":\"nn.Module: "
                           "Net_0\",\"base_bytes\":0,\"candidate_bytes\":314572800,\"delta_bytes\":314572800}"));
    CHECK(js && strstr(js, "\"fail_if_memory_higher\":{\"pct\":10}"));
    free(js);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "| cuda:0 | 1.5 GiB | 1.8 GiB | +300 MiB |") && strstr(md, "| cuda:0 | `extra_op` |"));
    free(md);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 200MiB", tp_test_bin(), a, b,
                             tp_test_tmp("d2")), 3);
    free(out);
    out = NULL;
    /* under the threshold: no trip */
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 400MiB", tp_test_bin(), a, b,
                             tp_test_tmp("d3")), 0);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 20%%", tp_test_bin(), a, b,
                             tp_test_tmp("d4")), 0);
    free(out);
    out = NULL;
    /* the same trace twice: nothing grew */
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 0", tp_test_bin(), a, a,
                             tp_test_tmp("d5")), 0);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 5XB", tp_test_bin(), a, b,
                             tp_test_tmp("d6")), 1);
    CHECK(out && strstr(out, "--fail-if-memory-higher takes a percentage"));
    free(out);
}

/* A job of two ranks: each rank's peak (through its rank summary file) and the spread. */
TEST(memory_job_ranks_peak_and_spread)
{
    mg_opts r0 = {4, (int64_t)1 << 30, 8 << 20, 512 << 20, 0, 2, true};
    mg_opts r1 = {4, (int64_t)2 << 30, 0, (int64_t)6 << 30, 0, 1, true};
    const char *a = mg_write("rank0.json", &r0), *b = mg_write("rank1.json", &r1);
    const char *dir = tp_test_tmp("job");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s %s -o %s", tp_test_bin(), a, b, dir), 0);
    free(out);
    char *js = tp_test_read_in(dir, "summary.json");
    char want[400];
    snprintf(want, sizeof want,
             "\"memory\":{\"ranks_with_memory\":2,\"ranks\":[\n{\"rank\":0,\"device\":\"cuda:0\",\"peak_allocated_bytes\":%lld,",
             (long long)mg_peak(&r0));
    CHECK(js && strstr(js, want));
    snprintf(want, sizeof want,
             "\"peak_allocated\":{\"min\":%lld,\"min_rank\":0,\"median\":%lld,\"max\":%lld,\"max_rank\":1,"
             "\"spread_bytes\":%lld}}",
             (long long)mg_peak(&r0), (long long)mg_peak(&r0), (long long)mg_peak(&r1),
             (long long)(mg_peak(&r1) - mg_peak(&r0)));
    CHECK(js && strstr(js, want));
    free(js);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "**Memory**: peak allocated per rank from 1.5 GiB (rank 0) to **8.0 GiB** (rank 1), median "
                           "1.5 GiB; spread 6.5 GiB.\n"));
    free(md);
}

/* An H100 run against an MI300X run: the allocator calls the GPU cuda:0 in one and hip:0 (Device
 * Type 6) in the other.  Matched by label, each was a device of one run only: its peak not compared
 * and every holder "grew" from 0.  GPU N meets GPU N whatever its runtime. */
TEST(memory_diff_matches_cuda_and_hip_gpus)
{
    mg_opts base = {4, (int64_t)1 << 30, 8 << 20, 512 << 20, 0, 2, true};
    mg_opts cand = base;
    cand.extra = 300 << 20;
    const char *a = mg_write("xv_base.json", &base), *b = mg_write("xv_cand.json", &cand);
    size_t n = 0;
    char *text = tp_test_read_file(b, &n);
    CHECK(text != NULL);
    if (!text)
        return;
    for (char *p = text; (p = strstr(p, "\"Device Type\":1,")) != NULL; p++)
        p[14] = '6'; /* hip */
    const char *hip = tp_test_write_text("xv_cand_hip.json", text);
    free(text);
    const char *dir = tp_test_tmp("xv");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-if-memory-higher 10", tp_test_bin(), a, hip, dir), 3);
    CHECK(out && strstr(out, "peak allocated memory +300 MiB (1.5 GiB -> 1.8 GiB, +19.2%)"));
    free(out);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "| cuda:0 / hip:0 | 1.5 GiB | 1.8 GiB | +300 MiB |") &&
          strstr(md, "| cuda:0 / hip:0 | `extra_op` |") && !strstr(md, "| hip:0 |"));
    free(md);
}
