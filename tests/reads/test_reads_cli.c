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

/* Item 10: a folder of links to traces is read by batch, report and convert */
TEST(folder_of_links_is_read)
{
    const char *in = tp_test_tmp("links"), *ex = "golden/example.pt.trace.json";
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && ln -s \"$PWD/%s\" '%s/a.json' && ln -s \"$PWD/%s\" '%s/b.json'", in,
                             ex, in, ex, in), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("links.batch")), 0);
    CHECK(out && strstr(out, "2 ok, 0 failed"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("links.report")), 0);
    CHECK(out && strstr(out, "job of 2 ranks"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("links.json")), 0);
    CHECK(out && strstr(out, "rank 1 ("));
    free(out);
}

/* Item 10: skipped links are named in the one warning line, and "0 files no
 * reader recognises" never stands alone for "links were skipped" */
TEST(skipped_links_are_named)
{
    const char *in = tp_test_tmp("badlinks");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && ln -s nowhere '%s/gone.json' && ln -s / '%s/root.json' && "
                             "mkfifo '%s/pipe.json'", in, in, in, in), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' convert '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("bl.json")), 2);
    CHECK(out && strstr(out, "gone.json (a broken link)") && strstr(out, "pipe.json (a FIFO)") &&
          strstr(out, "root.json (a link to a folder)") && strstr(out, "3 entries not a regular file"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("bl.rep")), 2);
    CHECK(out && strstr(out, "skipped: ") && strstr(out, "gone.json (a broken link)"));
    free(out);
}

/* Item 10: a folder holding one trace and other files is that trace's report, not a one-rank job */
TEST(folder_of_one_trace_is_one_trace)
{
    const char *in = tp_test_tmp("one"), *dir = tp_test_tmp("one.report");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp %s '%s/' && echo notes > '%s/README.md'", in, EXAMPLE, in, in), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    CHECK(out && strstr(out, "1 file in the folders given is not a trace (skipped)"));
    free(out);
    char *json = tp_test_read_in(dir, "summary.json");
    CHECK(json && strstr(json, "tracepress.summary/") && !strstr(json, "tracepress.job/"));
    free(json);
    CHECK(!tp_test_exists_in(dir, "ranks"));
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), in), 0);
    CHECK(out && !strstr(out, "Job:") && strstr(out, "example.pt.trace.json"));
    free(out);
    /* convert: the one trace's bytes, as when it is named */
    const char *a = tp_test_tmp("one.a.json"), *b = tp_test_tmp("one.b.json");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' -o '%s' && '%s' convert -q %s -o '%s' && cmp -s '%s' '%s'",
                             tp_test_bin(), in, a, tp_test_bin(), EXAMPLE, b, a, b), 0);
}

/* Item 10: the files skipped as no trace are named in their one line, as the skipped links are ("1 file in the folders
 * given is not a trace" left the user to guess which: a planted.json beside a job's ranks, notes beside a trace), the
 * first three by name and a count of the rest, in the same words for report, batch, convert and stats */
TEST(skipped_non_traces_are_named)
{
    const char *in = tp_test_tmp("named");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && ln -s \"$PWD/%s\" '%s/run.json' && for f in a.txt b.md c.csv d.log; "
                             "do echo notes > '%s/'$f; done", in, EXAMPLE, in, in), 0);
    const char *cmds[] = {"report", "batch", "convert", "stats"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *out = NULL;
        const char *o = tp_test_tmp(cmds[i]);
        char to[700] = "";
        if (strcmp(cmds[i], "stats"))
            snprintf(to, sizeof to, "-o '%s'", o);
        CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' %s '%s' %s 2>&1 >/dev/null", tp_test_bin(), cmds[i], in, to), 0);
        const char *line = out ? strstr(out, "4 files in the folders given are not traces (skipped): ") : NULL;
        if (!line)
            fprintf(stderr, "  %s: %s\n", cmds[i], out ? out : "(no output)");
        CHECK(line && strstr(line, "named/a.txt, ") && strstr(line, "named/b.md, ") &&
              strstr(line, "named/c.csv and 1 more\n"));
        free(out);
    }
}
