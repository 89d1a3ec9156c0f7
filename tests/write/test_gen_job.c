/* test_gen_job.c: the synthetic job generator (scripts/gen/gen_job.c, built
 * as build/gen/gen_job) writes one valid Kineto trace per rank that tracepress
 * reads without a warning (96 compute kernels and 6 collectives a step, every
 * launch linked), the same bytes for the same arguments, and a planted truth
 * that the independent checker (scripts/check_job_planted) recovers from the
 * files, and no longer recovers once one collective's duration is changed. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

#define GEN "build/gen/gen_job"

static long long int_after(const char *p, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = p ? strstr(p, pat) : NULL;
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

TEST(gen_job_ranks_read_clean_and_the_planted_truth_is_recovered)
{
    const char *a = tp_test_tmp("job-a"), *b = tp_test_tmp("job-b");
    const char *args = "--ranks 4 --steps 3 --slow-rank 2 --slow-us 700 --offsets-us 0,-1500,2500,-40000 -q";
    CHECK_EQ_INT(tp_test_run(NULL, "%s %s --out %s && %s %s --out %s", GEN, args, a, GEN, args, b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp %s/rank-3.json %s/rank-3.json && cmp %s/planted.json %s/planted.json", a, b, a, b),
                 0);

    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s/rank-1.json --json", tp_test_bin(), a), 0);
    CHECK(out && !strstr(out, "warning"));
    CHECK_EQ_INT(int_after(out, "kernel_instances"), 3 * (96 + 6)); /* 4 ranks: tp pairs, so 6 collectives */
    CHECK_EQ_INT(int_after(out, "steps"), 3);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert %s/rank-2.json -o %s", tp_test_bin(), a, tp_test_tmp("job-r2.json")), 0);
    CHECK(out && strstr(out, " 306 launch flows") && !strstr(out, "warning"));
    free(out);

    char *planted = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/planted.json", a);
    planted = tp_test_read_file(path, NULL);
    CHECK(planted && strstr(planted, "\"offsets_ns\": [0, -1500000, 2500000, -40000000]"));
    CHECK_EQ_INT(int_after(planted, "slow_rank"), 2);
    free(planted);

    if (!tp_test_have("python3"))
        return;
    CHECK_EQ_INT(tp_test_run(NULL, "python3 scripts/check_job_planted %s", a), 0);
    /* one rank's all-gather 1 ns longer: the checker must see it */
    CHECK_EQ_INT(tp_test_run(NULL, "sed -i '0,/\"dur\": 262.144/s//\"dur\": 262.145/' %s/rank-1.json", b), 0);
    CHECK(tp_test_run(NULL, "cmp -s %s/rank-1.json %s/rank-1.json", a, b) != 0);
    CHECK(tp_test_run(NULL, "python3 scripts/check_job_planted %s", b) != 0);
}
