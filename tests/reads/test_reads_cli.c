/* test_reads_cli.c: the report reads right from the command line (issue 36):
 * a word on success (item 11) and folders of symlinks (item 10). */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define EXAMPLE "golden/example.pt.trace.json"

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* report, like convert, says in one line where it wrote; -q silences it */
TEST(report_says_where_it_wrote)
{
    const char *dir = tp_test_tmp("ok.report");
    char *out = NULL, want[1200];
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report %s -o '%s'", tp_test_bin(), EXAMPLE, dir), 0);
    snprintf(want, sizeof want, "tracepress report: example.pt.trace.json; wrote %s/report.pdf, summary.md, summary.json", dir);
    CHECK(out && strncmp(out, want, strlen(want)) == 0 && strstr(out, " charts in png/\n"));
    CHECK_EQ_INT((int)lines(out), 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report -q %s -o '%s'", tp_test_bin(), EXAMPLE, dir), 0);
    CHECK(out && out[0] == 0);
    free(out);
}

/* the job report, its shards and its merge say it too */
TEST(job_report_says_where_it_wrote)
{
    const char *in = tp_test_tmp("job.in"), *dir = tp_test_tmp("job.report"), *sh = tp_test_tmp("job.sharded");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp %s '%s/r0.json' && cp %s '%s/r1.json'", in, EXAMPLE, in, EXAMPLE,
                             in), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s/r0.json' '%s/r1.json' -o '%s'", tp_test_bin(), in, in, dir), 0);
    CHECK(out && strstr(out, "tracepress report: job of 2 ranks; wrote ") && strstr(out, "/report.pdf"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s/r0.json' '%s/r1.json' --shard 1/1 -o '%s'", tp_test_bin(), in, in,
                             sh), 0);
    CHECK(out && strstr(out, "tracepress report: shard 1/1: wrote the rank summaries in ") && strstr(out, "--merge"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s'", tp_test_bin(), sh), 0);
    CHECK(out && strstr(out, "tracepress report: job of 2 ranks; wrote "));
    free(out);
}

/* diff and batch already name what they wrote: kept so */
TEST(diff_and_batch_say_where_they_wrote)
{
    const char *d = tp_test_tmp("ok.diff"), *b = tp_test_tmp("ok.batch");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff %s %s -o '%s'", tp_test_bin(), EXAMPLE, EXAMPLE, d), 0);
    CHECK(out && strstr(out, "; wrote ") && strstr(out, "/diff.md\n"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch %s -o '%s'", tp_test_bin(), EXAMPLE, b), 0);
    CHECK(out && strstr(out, "1 ok, 0 failed; index: ") && strstr(out, "/index.md\n"));
    free(out);
}
