/* The job's findings (docs/REPORT.md "Jobs", *Job findings*): a planted
 * late rank (scripts/gen/gen_job.c) is the top finding with its rank named
 * and what it ran before its collectives; a job without one has no
 * straggler finding; the rank summary's `before` and `top_finding` round
 * trip, old summaries without them read, bad ones are refused; job diff
 * lists the findings new, gone or grown. */
#include "tests/lib/harness.h"
#include "report/job/job.h"
#include "report/job/job_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has(const char *text, const char *needle)
{
    bool ok = text && strstr(text, needle) != NULL;
    if (!ok)
        fprintf(stderr, "  missing: %s\n", needle);
    return ok;
}

/* A generated job's report folder: R ranks, 4 steps, rank `slow` X us late (-1: none). */
static const char *job(const char *name, int ranks, int slow, int slow_us)
{
    static char dir[2][600];
    static int turn;
    char *d = dir[turn++ % 2];
    const char *gen = tp_test_tmp(name);
    snprintf(d, sizeof dir[0], "%s.report", gen);
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks %d --steps 4 --slow-rank %d --slow-us %d --out '%s' -q", ranks,
                             slow, slow_us, gen),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s/rank-*.json' -o '%s' 2>/dev/null", tp_test_bin(), gen, d), 0);
    return d;
}

/* gen_job's slow rank runs its last kernel of each step X us longer, so it
 * arrives last at the step's first collective and every other rank waits
 * X us: the others' mean wait is 4 x 4 ms = 16 ms of the 4 steps' 42.4 ms. */
TEST(job_findings_planted_late_rank_is_the_top_finding)
{
    const char *d = job("late", 4, 1, 4000);
    char *j = tp_test_read_in(d, "summary.json");
    CHECK(has(j, "\"findings\":[\n{\"id\":\"straggler\",\"title\":\"One rank arrives late at collectives and the others "
                 "wait for it\",\"severity\":\"high\",\"rule_source\":\"built-in\",\"measure\":\"late_rank\",\"scope\":"
                 "\"rank 1\","));
    CHECK(has(j, "\"impact_ns\":16000000,\"impact_pct\":37.7"));
    /* the evidence: how often, what it cost, what it ran in the window it was late in: from the others'
     * first arrival at the collective to its own (its trace read again at the reduce), where the planted
     * 4 ms of its CatArrayBatchedCopy kernel ran */
    CHECK(has(j, "rank 1 arrived last in 4 of 4 steps, each other rank waiting 16.000 ms for it on average"));
    CHECK(has(j, ", in the 4.000 ms it was late in, it ran most "));
    CHECK(has(j, "CatArray"));
    CHECK(has(j, ": 4.000 ms late at its all_reduce; in the 4.000 ms it was late in (from the other ranks' first arrival "
                 "to its own arrival) it ran: kernels: "));
    CHECK(has(j, "CatArrayBatched\u2026 4.000 ms; host ops: none; GPU idle 0 ns"));
    CHECK(has(j, "; host ops: "));
    /* each rank's own top finding */
    CHECK(has(j, "\"top_finding\":{\"id\":\"exposed_comm\""));
    free(j);
    char *md = tp_test_read_in(d, "summary.md");
    CHECK(md != NULL);
    if (md) {
        const char *nl = strchr(md, '\n');
        CHECK(nl && nl - md < 200);
        CHECK(strncmp(md, "**One rank arrives late at collectives and the others wait for it (rank 1)**: up to 16.000 ms",
                      strlen("**One rank arrives late at collectives and the others wait for it (rank 1)**: up to "
                             "16.000 ms")) == 0);
        CHECK(has(md, "| its top finding |"));
        CHECK(has(md, "`exposed_comm` "));
        if (tp_test_have("cmark-gfm")) { /* the verdict reads as bold text through a real Markdown renderer */
            char *html = NULL;
            CHECK_EQ_INT(tp_test_run(&html, "head -n 1 '%s/summary.md' | cmark-gfm", d), 0);
            CHECK(has(html, "<p><strong>One rank arrives late at collectives and the others wait for it (rank "
                            "1)</strong>: up to 16.000 ms"));
            free(html);
        }
    }
    free(md);
    /* the PDF's overview leads with it */
    if (tp_test_have("pdftotext")) {
        char *txt = NULL;
        CHECK_EQ_INT(tp_test_run(&txt, "pdftotext -l 1 '%s/report.pdf' -", d), 0);
        CHECK(has(txt, "1. One rank arrives late at collectives and the others wait for it (rank 1): up to 16.000 ms"));
        free(txt);
    }
}

/* stats --csv of a job: each rank's own top finding in the last two columns. */
TEST(job_findings_stats_csv_has_each_ranks_top_finding)
{
    const char *gen = tp_test_tmp("csv");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 2 --steps 2 --slow-rank 1 --out '%s' -q", gen), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --csv '%s'/rank-*.json 2>/dev/null", tp_test_bin(), gen), 0);
    CHECK(has(out, ",last_arrivals,flags,top_finding,top_finding_impact_ns\n0,"));
    CHECK(has(out, "\"\",\"exposed_comm\","));
    free(out);
}

/* Another rank of another job: the rank named is the planted one. */
TEST(job_findings_names_the_planted_rank)
{
    const char *d = job("late3", 6, 3, 5000);
    char *j = tp_test_read_in(d, "summary.json");
    CHECK(has(j, "\"findings\":[\n{\"id\":\"straggler\","));
    CHECK(has(j, "\"scope\":\"rank 3\""));
    CHECK(has(j, "rank 3 arrived last in 4 of 4 steps"));
    free(j);
}

/* gen_job's defaults at 8 ranks: the last rank 2 ms late in each of 8 steps (16 ms, 21.8% of the
 * steps' time), while the collectives, which overlap nothing, leave 21.2 ms of exposed
 * communication a rank: the late rank, which only the job shows, still leads (ranked by impact
 * alone the exposed communication would). */
TEST(job_findings_late_rank_leads_the_exposed_communication)
{
    const char *gen = tp_test_tmp("dflt"), *d = tp_test_tmp("dflt.report");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 8 --out '%s' -q", gen), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s/rank-*.json' -o '%s' 2>/dev/null", tp_test_bin(), gen, d), 0);
    char *md = tp_test_read_in(d, "summary.md");
    CHECK(md && strncmp(md, "**One rank arrives late at collectives and the others wait for it (rank 7)**: up to "
                            "16.000 ms to gain, 21.8% of the steps' time (`straggler`).\n",
                        strlen("**One rank arrives late at collectives and the others wait for it (rank 7)**: up to "
                               "16.000 ms to gain, 21.8% of the steps' time (`straggler`).\n")) == 0);
    CHECK(has(md, "3. **Communication is not hidden behind computation on the ranks** (`job_exposed_comm`, high): up "
                  "to 21.234 ms"));
    free(md);
}

/* No slow rank: the ranks differ by nanoseconds of jitter, so nobody is late by more than the
 * steps' wait threshold and no rank computes more: no straggler, no imbalance (the exposed
 * communication of gen_job's unoverlapped collectives remains, and is real). */
TEST(job_findings_no_slow_rank_no_straggler)
{
    const char *d = job("clean", 4, -1, 2000);
    char *j = tp_test_read_in(d, "summary.json");
    CHECK(j && !strstr(j, "\"id\":\"straggler\""));
    CHECK(j && !strstr(j, "\"id\":\"imbalance\""));
    CHECK(has(j, "\"findings\":[\n{\"id\":\"job_exposed_comm\","));
    CHECK(has(j, "\"findings_unsure\":[]"));
    free(j);
    /* job diff: clean -> late: the straggler is new; late -> clean: gone */
    const char *late = job("late_d", 4, 1, 4000), *out = tp_test_tmp("jf_diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), d, late, out), 0);
    char *dj = tp_test_read_in(out, "diff.json"), *dm = tp_test_read_in(out, "diff.md");
    CHECK(has(dj, "{\"id\":\"straggler\",\"title\":\"One rank arrives late at collectives and the others wait for "
                  "it\",\"severity\":\"high\",\"status\":\"new\",\"base\":null,\"candidate\":{\"scope\":\"rank 1\","
                  "\"impact_ns\":16000000,"));
    CHECK(has(dm, "#### Job findings\n\n1. **One rank arrives late at collectives and the others wait for it** "
                  "(rank 1) (`straggler`, high): new, 16.000 ms, 37.7% of the steps' time\n"));
    CHECK(has(dm, "**Communication is not hidden behind computation on the ranks** (`job_exposed_comm`, high): shrank, "));
    free(dj);
    free(dm);
    /* the gate: a new straggler trips it by id and by severity; gone, it does not */
    char *o = NULL;
    CHECK_EQ_INT(tp_test_run(&o, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding straggler 2>&1", tp_test_bin(), d, late,
                             out),
                 3);
    CHECK(has(o, "gate: finding straggler (high) is new: 37.7% of the steps' time, over --fail-on-finding straggler"));
    free(o);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding medium", tp_test_bin(), d, late, out), 3);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding straggler", tp_test_bin(), late, d,
                             out),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), late, d, out), 0);
    dm = tp_test_read_in(out, "diff.md");
    CHECK(has(dm, "**One rank arrives late at collectives and the others wait for it** (rank 1) (`straggler`, "
                  "high): gone, was 16.000 ms"));
    free(dm);
}

/* A merge of summaries written without `before` (an older tracepress): the straggler is still
 * found, and its confidence says what it lacks. */
TEST(job_findings_without_before_say_so)
{
    const char *d = job("nob", 4, 1, 4000);
    for (int r = 0; r < 4; r++) {
        char path[700];
        snprintf(path, sizeof path, "%s/ranks/%06d-rank-%d.rank.json", d, r, r);
        size_t len = 0;
        char *text = tp_test_read_file(path, &len);
        char *cut = text ? strstr(text, ",\n\"before\":") : NULL;
        CHECK(cut != NULL);
        if (cut) {
            strcpy(cut, "}\n");
            FILE *f = fopen(path, "w");
            CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
        }
        free(text);
    }
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --merge -o '%s' 2>/dev/null", tp_test_bin(), d), 0);
    char *j = tp_test_read_in(d, "summary.json");
    CHECK(has(j, "\"findings\":[\n{\"id\":\"straggler\","));
    CHECK(has(j, "\"confidence\":\"what the late rank ran before its collectives is not in its rank summary\"}"));
    CHECK(has(j, "\"top_finding\":null"));
    free(j);
}

/* The rank summary's optional members: written, read back to the same
 * bytes; a summary without them (an older one) reads as none; bad ones are
 * refused with a message. */
TEST(job_findings_rank_summary_members_round_trip)
{
    const char *d = job("rt", 2, 1, 3000);
    char path[700];
    snprintf(path, sizeof path, "%s/ranks/000001-rank-1.rank.json", d);
    size_t len = 0;
    char *text = tp_test_read_file(path, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK(has(text, "\n\"before\":[\n[0,"));
    CHECK(has(text, "\"top_finding\":{\"id\":"));
    tp_rank_sum s;
    tp_err err = {0};
    CHECK_EQ_INT(tp_rank_sum_parse(text, len, &s, &err), 0);
    CHECK_EQ_INT((int)s.nbefore, 4);
    CHECK(s.top.present);
    CHECK(s.nbefore && s.before[0].kernels[0].name && strstr(s.before[0].kernels[0].name, "CatArray"));
    CHECK(s.nbefore && s.before[0].window_ns > 3000000);
    tp_buf back = {0};
    tp_rank_sum_json(&s, &back);
    CHECK(back.len == len && memcmp(back.data, text, len) == 0);
    tp_buf_free(&back);
    tp_rank_sum_free(&s);
    /* without the members: none */
    char *old = strdup(text);
    char *cut = strstr(old, ",\n\"before\":");
    CHECK(cut != NULL);
    if (cut) {
        strcpy(cut, "}\n");
        CHECK_EQ_INT(tp_rank_sum_parse(old, strlen(old), &s, &err), 0);
        CHECK_EQ_INT((int)s.nbefore, 0);
        CHECK(!s.top.present);
        tp_rank_sum_free(&s);
    }
    free(old);
    static const struct {
        const char *from, *to, *msg;
    } bad[] = {{"\"before\":[", "\"before\":7,\"x\":[", "\"before\" is not an array"},
               {"\"before\":[\n[0,", "\"before\":[\n[0,1,", "is not [step, window, idle, kernels, host ops]"},
               {"\"before\":[\n[0,", "\"before\":[\n[5,", "not by step number"},
               {"\"before\":[\n[0,", "\"before\":[\n[0,-1,", "window"},
               {"]],[[\"", "],[\"a\",1]],[[\"", "at most 3"},
               {"\"severity\":\"", "\"severity\":\"x", "severity"},
               {"\"impact_milli_pct\":", "\"impact_milli_pct\":1000000", "share"},
               {"\"top_finding\":{", "\"top_finding\":7,\"y\":{", "not an object"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *at = strstr(text, bad[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        tp_buf t = {0};
        tp_buf_put(&t, text, (size_t)(at - text));
        tp_buf_puts(&t, bad[i].to);
        tp_buf_puts(&t, at + strlen(bad[i].from));
        memset(&err, 0, sizeof err);
        CHECK(tp_rank_sum_parse(t.data, t.len, &s, &err) < 0);
        if (!strstr(err.msg, bad[i].msg))
            tp_test_fail(__FILE__, __LINE__, "case %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].msg);
        tp_buf_free(&t);
    }
    free(text);
}

/* What a rank ran before its collectives is one pass over its events: a
 * trace whose 40,000 steps all overlap (each from its own start to the
 * end) and whose 40,000 kernels leave 40,000 gaps inside every step's
 * window once cost steps x gaps (20,000 of each: 12.7 s against 0.27 s
 * now); the windows are cut disjoint, so it runs in a moment. */
TEST(job_findings_overlapping_steps_stay_linear)
{
    enum { N = 40000 };
    tp_buf t = {0};
    tp_buf_puts(&t, "{\"traceEvents\":[\n");
    for (int i = 0; i < N; i++)
        tp_buf_printf(&t, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%d,\"dur\":%d},\n",
                      i, i, 4 * N + 100 - i);
    for (int k = 0; k < N; k++)
        tp_buf_printf(&t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1},\n",
                      N + 2 * k);
    tp_buf_printf(&t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
                      "unsigned long, ncclWork*)\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5}]}\n",
                  3 * N + 10);
    const char *a = tp_test_write("ov-rank-0.json", t.data, t.len), *b = tp_test_write("ov-rank-1.json", t.data, t.len);
    tp_buf_free(&t);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats '%s' '%s' 2>&1", tp_test_bin(), a, b), 0);
    CHECK(has(out, "Job: 2 ranks"));
    free(out);
}

/* A name in `before` is at most 1,024 bytes, cut at a character boundary:
 * the rank summary stays small whatever names a trace holds. */
TEST(job_findings_before_names_are_bounded)
{
    tp_buf t = {0};
    tp_buf_puts(&t, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
                    "\"tid\":1,\"ts\":0,\"dur\":100},\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k");
    for (int i = 0; i < 2000; i++)
        tp_buf_puts(&t, "\xc3\xa9"); /* é: two bytes, so 1,024 falls inside one */
    tp_buf_puts(&t, "\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":20},\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
                    "\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\",\"pid\":0,"
                    "\"tid\":7,\"ts\":40,\"dur\":5}]}\n");
    const char *a = tp_test_write("nm-rank-0.json", t.data, t.len), *b = tp_test_write("nm-rank-1.json", t.data, t.len);
    tp_buf_free(&t);
    const char *d = tp_test_tmp("nm.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), a, b, d), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/ranks/000000-nm-rank-0.rank.json", d);
    size_t len = 0;
    char *text = tp_test_read_file(path, &len);
    tp_rank_sum s;
    tp_err err = {0};
    CHECK(text && tp_rank_sum_parse(text, len, &s, &err) == 0);
    if (text && s.nbefore == 1) {
        const char *k = s.before[0].kernels[0].name;
        CHECK(k && strlen(k) == 1023 && k[0] == 'k' && (unsigned char)k[1022] == 0xa9);
        CHECK_EQ_INT((int)s.before[0].window_ns, 40000);
        tp_rank_sum_free(&s);
    } else
        CHECK(false);
    free(text);
}
