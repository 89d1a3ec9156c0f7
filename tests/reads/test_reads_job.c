/* test_reads_job.c: jobs with missing ranks and unrecorded group sizes
 * (issue 36 item 5), on a generated 8-rank job (scripts/gen/gen_job.c). */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static const char *gen8(void)
{
    static char dir[4096];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s", tp_test_tmp("job8"));
        CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 8 --steps 3 --slow-rank 7 --slow-us 2000 --size 300000 "
                                       "--out '%s' -q",
                                 dir),
                     0);
    }
    return dir;
}

/* 2 of 8 ranks: the straggler and bandwidth figures carry a caveat, in summary.md, the finding and the PDF; the
 * PDF overview names the straggler rank as summary.md does */
TEST(job_missing_ranks_caveat_and_named_straggler)
{
    const char *in = tp_test_tmp("job8.two"), *dir = tp_test_tmp("job8.two.report");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s/rank-3.json' '%s/rank-7.json' '%s/'", in, gen8(), gen8(), in),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s/rank-3.json' '%s/rank-7.json' -o '%s'", tp_test_bin(), in, in, dir),
                 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "**Straggler: rank 7**"));
    CHECK(md && strstr(md, "**Caveat**: only 2 of the world's 8 ranks are in these traces"));
    CHECK(md && strstr(md, "Partial evidence: only 2 of the world's 8 ranks"));
    free(md);
    if (!tp_test_have("pdftotext"))
        return;
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - | tr '\\n' ' '", dir), 0);
    CHECK(out && strstr(out, "Straggler: rank 7, last to arrive in 3 of 3 steps"));
    CHECK(out && strstr(out, "Caveat: only 2 of the world's 8 ranks"));
    free(out);
}

/* every rank present and no group size recorded: busbw over the world, said to be implied */
TEST(job_busbw_group_implied_when_all_ranks_took_part)
{
    const char *in = tp_test_tmp("job8.nogroup"), *dir = tp_test_tmp("job8.nogroup.report");
    /* the traces without "Group size", "Process Group Ranks" and distributedInfo's process groups */
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && for f in '%s'/rank-*.json; do sed -E "
                                   "'s/\"Group size\": *[0-9]+, *//g; s/\"Process Group Ranks\": *\"[^\"]*\", *//g; "
                                   "s/, *\"pg_config\": *\\[.*\\], *\"nccl_version\"/, \"nccl_version\"/' \"$f\" > "
                                   "'%s'/$(basename \"$f\"); done",
                             in, gen8(), in),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "grep -q 'Group size' '%s/rank-0.json'", in), 1);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    /* gen_job plants all_reduce 100 MiB at algbw 100 GB/s: busbw = 2 x 7/8 x 100 */
    CHECK(md && strstr(md, "| all_reduce | 100 MiB | Float | 0 all 8 ranks (implied) |") && strstr(md, "| 175.000 |"));
    free(md);
    char *json = tp_test_read_in(dir, "summary.json");
    CHECK(json && strstr(json, "\"group_size_implied\":true"));
    free(json);
}
