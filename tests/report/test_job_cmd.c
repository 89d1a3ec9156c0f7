/* `report` of a job, through the binary: the two real HTA ranks recounted
 * by hand, shards merged give the one-process bytes, refusals. */
#include "tests/lib/harness.h"

#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *rank_file(int r)
{
    static char b[2][512];
    snprintf(b[r], sizeof b[r], "%s", tp_test_shared(r ? "external/hta/trace_filter_sampled_rank-1.json.gz"
                                                       : "external/hta/trace_filter_sampled_rank-0.json.gz"));
    return b[r];
}

static bool has(const char *text, const char *needle)
{
    bool ok = text && strstr(text, needle) != NULL;
    if (!ok)
        fprintf(stderr, "  missing: %s\n", needle);
    return ok;
}

/* By hand (python over the two files): of each rank's 10 NCCL kernels, 5
 * pairs end within 0.33 ms of each other at offset 0 (an all-to-all ends at
 * 1682725898187835 us on both); in each pair the shorter kernel arrived
 * last.  Rank 1 was last at 4 (waits 4.859 + 3.357 + 22.320 + 1.481 =
 * 32.017 ms), rank 0 at one all-gather (0.248 ms). */
TEST(job_report_hta_two_ranks_by_hand)
{
    const char *dir = tp_test_tmp("hta_job");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0), rank_file(1), dir), 0);
    free(out);
    char *j = tp_test_read_in(dir, "summary.json");
    CHECK(has(j, "\"schema\":\"tracepress.job/1\""));
    CHECK(has(j, "\"ranks_given\":2,\"world_size\":128,\"steps\":2,"));
    CHECK(has(j, "\"collective_instances\":5,\"unmatched_calls\":10,"));
    CHECK(has(j, "\"rank\":1,\"rank_from\":\"distributedInfo\""));
    CHECK(has(j, "\"clock_offset_ns\":0,\"alignment\":\"collectives\",\"aligned_on_calls\":5,\"alignment_spread_ns\":332000"));
    CHECK(has(j, "\"wait_caused_ns\":32017000,\"waited_ns\":248000,\"last_arrivals\":4"));
    CHECK(has(j, "\"wait_caused_ns\":248000,\"waited_ns\":32017000,\"last_arrivals\":1"));
    /* the all-reduce rank 0 waited 22.320 ms at: 22,866,616 bytes in 13.838 ms */
    CHECK(has(j, "{\"kind\":\"all_reduce\",\"dtype\":\"float\",\"process_group\":null,\"group_ranks\":null,"
                 "\"group_size\":null,\"bytes\":22866616,\"instances\":1,\"single_rank_instances\":0,\"calls\":2,\"transfer_ns\":13838000,"
                 "\"rank_ns\":49996000,\"wait_ns\":22320000,\"bus_factor\":null,\"algbw_gb_per_s\":1.65245,"));
    /* step 552: rank 1's late arrivals cost rank 0 7.103 ms + ... */
    CHECK(has(j, "\"straggler_rank\":1"));
    free(j);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(has(md, "### Job: 2 ranks of 128, 2 steps"));
    CHECK(has(md, "**Straggler: rank 1**"));
    free(md);
    CHECK(tp_test_exists_in(dir, "ranks/000000-trace_filter_sampled_rank-0.rank.json"));
}

TEST(job_report_shards_merge_to_the_same_bytes)
{
    const char *one = tp_test_tmp("job_one"), *sh = tp_test_tmp("job_sharded");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0), rank_file(1), one), 0);
    free(out);
    /* the second shard first, the merge last */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --shard 2/2 '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0),
                             rank_file(1), sh), 0);
    free(out);
    /* a merge with a shard missing names what is missing */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s' 2>&1", tp_test_bin(), sh), 2);
    CHECK(has(out, "1 of the job's 2 rank summaries (input 0 is missing"));
    free(out);
    CHECK(!tp_test_exists_in(sh, "summary.json"));
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --shard 1/2 '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0),
                             rank_file(1), sh), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge -o '%s' 2>&1", tp_test_bin(), sh), 0);
    free(out);
    static const char *files[] = {"summary.json", "summary.md", "report.pdf", "png/job_ranks.png", "png/job_heatmap.png",
                                  "ranks/000000-trace_filter_sampled_rank-0.rank.json",
                                  "ranks/000001-trace_filter_sampled_rank-1.rank.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/%s' '%s/%s'", one, files[i], sh, files[i]), 0);
    }
}

TEST(job_report_refuses_other_jobs_and_bad_summaries)
{
    /* rank 1's trace claiming a world of 64 */
    const char *other = tp_test_tmp("rank-1-of-64.json");
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc '%s' | sed 's/\"world_size\": 128/\"world_size\": 64/' > '%s'",
                             rank_file(1), other), 0);
    const char *dir = tp_test_tmp("job_refused");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0), other, dir), 2);
    CHECK(has(out, "not one job:"));
    CHECK(has(out, "has world_size") && has(out, "128") && has(out, "64")); /* either file may come first */
    free(out);
    CHECK(!tp_test_exists_in(dir, "summary.json"));
    /* the same rank twice */
    const char *copy = tp_test_tmp("copy-of-rank0.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "cp '%s' '%s'", rank_file(0), copy), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0), copy, dir), 2);
    CHECK(has(out, "two traces are rank 0"));
    free(out);
    /* a distributedInfo rank not below its world size is refused, not replaced by the file name's */
    const char *lie = tp_test_tmp("rank-1-claims-128.json");
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc '%s' | sed 's/\"rank\": 1,/\"rank\": 128,/' > '%s'", rank_file(1), lie), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s' 2>&1", tp_test_bin(), rank_file(0), lie, dir), 2);
    CHECK(has(out, "rank-1-claims-128.json: its distributedInfo has a problem: a rank not below world_size"));
    free(out);
    /* rank summaries edited by hand: an input twice (not neighbours by name), a count of 7e10 inputs
     * (was a loop to it: minutes) */
    const char *ed = tp_test_tmp("job_edited");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), rank_file(0),
                             rank_file(1), copy, ed), 2); /* rank 0 twice: the rank summaries stay */
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s/ranks' && ls *.rank.json | wc -l | grep -qx 3 && "
                             "sed -i 's/\"input_index\":2,/\"input_index\":0,/; s/\"rank\":0,/\"rank\":2,/' "
                             "$(ls *.rank.json | tail -1)", ed), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s' 2>&1", tp_test_bin(), ed), 2);
    CHECK(has(out, "input 0 twice among the rank summaries"));
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s/ranks' && rm $(ls *.rank.json | tail -1) && "
                             "sed -i 's/\"inputs\":3,/\"inputs\":70000000000,/' *.rank.json", ed), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report --merge '%s' 2>&1", tp_test_bin(), ed), 2);
    CHECK(has(out, "2 of the job's 70000000000 rank summaries (input 2 is missing"));
    free(out);
    /* a corrupt rank summary is one line naming it */
    const char *sd = tp_test_tmp("job_corrupt");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s/ranks' && printf '{\"schema\":1}' > '%s/ranks/000000-x.rank.json'", sd, sd), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s' 2>&1", tp_test_bin(), sd), 2);
    CHECK(has(out, "000000-x.rank.json"));
    CHECK(has(out, "not a rank summary"));
    CHECK(out && !strchr(strchr(out, '\n') + 1, '\n')); /* one line */
    free(out);
    /* usage: a job needs -o; --merge takes no inputs */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' '%s' 2>/dev/null", tp_test_bin(), rank_file(0), rank_file(1)), 1);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --merge '%s' -o '%s' 2>/dev/null", tp_test_bin(), rank_file(0), sd), 1);
}

/* ---- a generated job (scripts/gen/gen_job.c): the planted truth recovered exactly ---- */

#include "convert/codec/json_value.h"

static const tp_jv *parse_file(tp_jdoc *doc, const char *path, char **text)
{
    size_t len = 0;
    *text = tp_test_read_file(path, &len);
    const tp_jv *root = NULL;
    tp_err err = {0};
    if (!*text || tp_jv_parse_all(doc, *text, len, &root, &err) != 0)
        return NULL;
    return root;
}

static int64_t geti(const tp_jv *o, const char *key)
{
    int64_t v = -999;
    const tp_jv *x = tp_jv_get(o, key);
    if (!x || tp_jv_int(x, &v) != 0)
        return -999;
    return v;
}

static void gets_(const tp_jv *o, const char *key, char *buf, size_t n)
{
    size_t len = 0;
    const char *s = tp_jv_str(tp_jv_get(o, key), &len);
    snprintf(buf, n, "%.*s", s ? (int)len : 0, s ? s : "");
}

static double getd(const tp_jv *o, const char *key)
{
    int64_t milli = -1;
    const tp_jv *x = tp_jv_get(o, key);
    if (!x || tp_jv_fixed(x, 6, &milli) != 0)
        return -1;
    return (double)milli / 1e6;
}

TEST(job_report_generated_job_planted_truth)
{
    const char *gen = tp_test_tmp("genjob"), *rep = tp_test_tmp("genjob.report"), *sh = tp_test_tmp("genjob.sharded");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 6 --steps 5 --slow-rank 2 --slow-us 3000 "
                                   "--offsets-us 0,-1500,2500,-40000,7,33 --out '%s' -q", gen), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s/rank-*.json' -o '%s' 2>&1", tp_test_bin(), gen, rep), 0);
    free(out);
    tp_jdoc pd, jd;
    tp_jdoc_init(&pd);
    tp_jdoc_init(&jd);
    char *pt, *jt;
    char path[600];
    snprintf(path, sizeof path, "%s/planted.json", gen);
    const tp_jv *planted = parse_file(&pd, path, &pt);
    snprintf(path, sizeof path, "%s/summary.json", rep);
    const tp_jv *root = parse_file(&jd, path, &jt);
    const tp_jv *job = root ? tp_jv_get(root, "job") : NULL;
    CHECK(planted && job);
    if (planted && job) {
        const tp_jv *offs = tp_jv_get(planted, "offsets_ns"), *ranks = tp_jv_get(job, "ranks");
        CHECK_EQ_INT(ranks->n, 6);
        for (size_t r = 0; r < 6; r++) {
            int64_t off = 0;
            tp_jv_int(tp_jv_at(offs, r), &off);
            const tp_jv *x = tp_jv_at(ranks, r);
            CHECK_EQ_INT(geti(x, "rank"), (int64_t)r);
            CHECK_EQ_INT(geti(x, "clock_offset_ns"), -off); /* recorded = true + off, rank 0's off = 0 */
            CHECK_EQ_INT(geti(x, "alignment_spread_ns"), r ? 0 : 0);
        }
        /* per step: the planted last rank and the waiting it caused */
        const tp_jv *psteps = tp_jv_get(planted, "steps"), *jsteps = tp_jv_get(job, "per_step");
        CHECK_EQ_INT(jsteps->n, psteps->n);
        for (size_t k = 0; k < psteps->n && k < jsteps->n; k++) {
            CHECK_EQ_INT(geti(tp_jv_at(jsteps, k), "straggler_rank"), geti(tp_jv_at(psteps, k), "last_rank"));
            CHECK_EQ_INT(geti(tp_jv_at(jsteps, k), "straggler_wait_caused_ns"), geti(tp_jv_at(psteps, k), "wait_ns"));
        }
        /* every planted collective: S, bandwidths and instances (tp pairs: one row per pair) */
        const tp_jv *pc = tp_jv_get(planted, "collectives"), *jc = tp_jv_get(job, "collectives");
        for (size_t i = 0; i < pc->n; i++) {
            const tp_jv *p = tp_jv_at(pc, i);
            int64_t bytes = geti(p, "bytes"), inst = 0, rows = 0;
            char pg[32], cn[64], kind[64], group[32];
            gets_(p, "pg_name", pg, sizeof pg);
            gets_(p, "collective_name", cn, sizeof cn);
            for (size_t k = 0; k < jc->n; k++) {
                const tp_jv *c = tp_jv_at(jc, k);
                gets_(c, "kind", kind, sizeof kind);
                gets_(c, "process_group", group, sizeof group);
                if (geti(c, "bytes") != bytes || strcmp(group, pg) != 0)
                    continue;
                bool same = (strstr(cn, "allreduce") && strcmp(kind, "all_reduce") == 0) ||
                            (strstr(cn, "allgather") && strcmp(kind, "all_gather") == 0) ||
                            (strstr(cn, "reduce_scatter") && strcmp(kind, "reduce_scatter") == 0) ||
                            (strstr(cn, "broadcast") && strcmp(kind, "broadcast") == 0);
                if (!same)
                    continue;
                rows++;
                inst += geti(c, "instances");
                /* summary.json has 6 significant digits */
                CHECK(fabs(getd(c, "algbw_gb_per_s") - getd(p, "algbw_GBps")) <= 5e-6 * getd(p, "algbw_GBps"));
                CHECK(fabs(getd(c, "busbw_gb_per_s") - getd(p, "busbw_GBps")) <= 5e-6 * getd(p, "busbw_GBps"));
                CHECK_EQ_INT(geti(c, "transfer_ns"), geti(p, "transfer_ns") * geti(c, "instances"));
            }
            CHECK(rows >= 1);
            CHECK_EQ_INT(inst, geti(p, "instances"));
        }
    }
    free(pt);
    free(jt);
    tp_jdoc_free(&pd);
    tp_jdoc_free(&jd);
    /* three shards (in any order) and a merge give the same bytes */
    for (int k = 3; k >= 1; k--)
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --shard %d/3 '%s'/rank-*.json -o '%s' 2>/dev/null", tp_test_bin(), k, gen, sh), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --merge '%s' 2>/dev/null", tp_test_bin(), sh), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/summary.json' '%s/summary.json' && cmp '%s/summary.md' '%s/summary.md' && "
                                   "cmp '%s/report.pdf' '%s/report.pdf' && cmp '%s/png/job_heatmap.png' '%s/png/job_heatmap.png'",
                             rep, sh, rep, sh, rep, sh, rep, sh), 0);
}

TEST(job_diff_two_runs)
{
    const char *a = tp_test_tmp("jd_a"), *b = tp_test_tmp("jd_b"), *ra = tp_test_tmp("jd_a.report"),
               *out = tp_test_tmp("jd_diff");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 4 --steps 4 --slow-rank 1 --slow-us 1000 --out '%s' -q && "
                                   "build/gen/gen_job --ranks 4 --steps 4 --slow-rank 1 --slow-us 7000 --out '%s' -q",
                             a, b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s/rank-*.json' -o '%s' 2>/dev/null", tp_test_bin(), a, ra), 0);
    /* a report folder against traces; the gate trips on the slower job */
    char *o = NULL;
    CHECK_EQ_INT(tp_test_run(&o, "'%s' diff '%s' '%s/rank-*.json' -o '%s' --fail-if-slower 5 2>&1", tp_test_bin(), ra, b,
                             out), 3);
    CHECK(has(o, "gate: the job's median step grew"));
    free(o);
    char *j = tp_test_read_in(out, "diff.json");
    CHECK(has(j, "\"schema\":\"tracepress.jobdiff/1\""));
    CHECK(has(j, "\"matched_ranks\":4"));
    CHECK(has(j, "\"verdict\":\"slower\""));
    /* rank 1 made the others wait 3 x 1 ms a step, then 3 x 7 ms */
    CHECK(has(j, "{\"rank\":1,"));
    CHECK(has(j, "\"wait_caused_ns\":[12000000,84000000]"));
    free(j);
    char *md = tp_test_read_in(out, "diff.md");
    CHECK(has(md, "### Job diff: slower"));
    free(md);
    /* the same job on both sides */
    CHECK_EQ_INT(tp_test_run(&o, "'%s' diff '%s' '%s/rank-*.json' -o '%s' 2>&1", tp_test_bin(), ra, a, out), 0);
    CHECK(has(o, "no change"));
    free(o);
}

TEST(job_report_refuses_mixed_shards_and_its_own_folder)
{
    const char *a = tp_test_tmp("mix_a"), *b = tp_test_tmp("mix_b"), *d = tp_test_tmp("mix.report");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 4 --steps 2 --out '%s' -q && "
                                   "build/gen/gen_job --ranks 4 --steps 2 --slow-rank 0 --out '%s' -q", a, b), 0);
    /* shard 1 of one job, shard 2 of another, into one folder: the merge refuses */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --shard 1/2 '%s/rank-*.json' -o '%s' 2>/dev/null", tp_test_bin(), a, d), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report --shard 2/2 '%s/rank-*.json' -o '%s' 2>/dev/null", tp_test_bin(), b, d), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s' 2>&1", tp_test_bin(), d), 2);
    CHECK(has(out, "made from another list of inputs"));
    free(out);
    CHECK(!tp_test_exists_in(d, "summary.json"));
    /* the traces' folder as the output folder */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' 2>&1", tp_test_bin(), a, a), 1);
    CHECK(has(out, "the output folder is the input folder"));
    free(out);
}

/* Ranks run two at once in forked workers and end in any order; their
 * warnings reach stderr in input order all the same, each line whole (a
 * small rank after a large one used to print first). */
TEST(job_report_prints_the_ranks_warnings_in_input_order)
{
    char path[2][PATH_MAX];
    for (int r = 0; r < 2; r++) {
        tp_buf b = {0};
        tp_buf_printf(&b, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":[\n"
                          "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\",\"pid\":1,\"tid\":1,\"ts\":\"soon\",\"dur\":1}",
                      r);
        for (int i = 0; i < (r ? 10 : 60000); i++) /* the first rank takes far longer */
            tp_buf_printf(&b,
                          ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5}"
                          ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":3}",
                          i % 50, i * 10, i * 10 + 2);
        tp_buf_puts(&b, "\n]}\n");
        char name[32];
        snprintf(name, sizeof name, "order_rank%d.json", r);
        snprintf(path[r], sizeof path[r], "%s", tp_test_write_text(name, b.data));
        tp_buf_free(&b);
    }
    char *first = NULL;
    for (int run = 0; run < 3; run++) {
        char *err = NULL;
        tp_test_run(NULL, "rm -rf '%s'", tp_test_tmp("order_job"));
        CHECK_EQ_INT(tp_test_run(&err, "'%s' report '%s' '%s' -o '%s' -q -j 2 2>&1 >/dev/null", tp_test_bin(), path[0],
                                 path[1], tp_test_tmp("order_job")),
                     0);
        const char *a = err ? strstr(err, "order_rank0.json: warning: bad or out-of-range ts/dur") : NULL;
        const char *b = err ? strstr(err, "order_rank1.json: warning: bad or out-of-range ts/dur") : NULL;
        CHECK(a && b && a < b);
        if (!first)
            first = err;
        else {
            CHECK_STR(err, first);
            free(err);
        }
    }
    free(first);
}
