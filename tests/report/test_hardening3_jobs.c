/* test_hardening3_jobs.c: job inputs and folder walks under hostile use
 * (issue 29, items 7, 8, 9 and 13; docs/ERRORS.md "Round 3: job inputs and
 * folder walks"): no hang on a FIFO or a device, bounded @lists, every rank
 * summary a run writes reads back, linked ranks followed, corrupt traces in
 * folders are failed rows, strict --shard, collision-free merged flow ids,
 * and convert --split's summary line counting what it wrote. */
#include "report/job/rank_sum.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t lines(const char *s) { return tp_test_count(s, "\n"); }

/* A rank trace of one step and one all-reduce (its size from nelems), at
 * `ts_us`, into DIR/NAME (DIR made first). */
static const char *rank_trace(const char *dir, const char *name, int rank, const char *ts_us, const char *nelems)
{
    static char path[8][1024];
    static int slot;
    char *p = path[slot++ % 8];
    snprintf(p, 1024, "%s/%s", tp_test_tmp(dir), name);
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", tp_test_tmp(dir)), 0);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f)
        return p;
    fprintf(f,
            "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":[\n"
            "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":%s,\"dur\":100},\n"
            "{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllReduce\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":%s,\"dur\":50,"
            "\"args\":{\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":%s,\"Out msg nelems\":%s,"
            "\"Group size\":2,\"Seq\":0}}\n]}\n",
            rank, ts_us, ts_us, nelems, nelems);
    fclose(f);
    return p;
}

/* Item 8: times past 2^61 ns and sizes past 2^60 bytes: the trace is fine
 * for stats and convert, and the job report reads back what it wrote
 * (it exited 2, blaming its own ranks/000000-....rank.json). */
TEST(h3_job_report_reads_back_extreme_times_and_sizes)
{
    /* 2.4e18 ns > 2^61; 4e17 floats = 1.6e18 bytes > 2^60 */
    const char *a = rank_trace("h3x", "big-rank0.json", 0, "2400000000000000", "400000000000000000");
    const char *b = rank_trace("h3x", "big-rank1.json", 1, "2400000000000000", "400000000000000000");
    const char *dir = tp_test_tmp("h3x.out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s'", tp_test_bin(), a, b, dir), 0);
    CHECK(out && strstr(out, "times beyond a job summary's range (saturated"));
    CHECK(out && !strstr(out, "rank.json:"));
    free(out);
    char *j = tp_test_read_in(dir, "summary.json");
    CHECK(j && strstr(j, "\"bytes\":1600000000000000000"));
    free(j);
    /* the merge reads the same summaries again */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge -o '%s'", tp_test_bin(), dir), 0);
    free(out);
}

/* The writer and the reader agree on every value the struct can hold:
 * what is written parses back (times saturated into the summary's range). */
TEST(h3_rank_summary_round_trip_extreme_values)
{
    tp_rank_step steps[2] = {{INT64_MIN, INT64_MIN, INT64_MAX, {0}}, {INT64_MAX, INT64_MAX, -5, {0}}};
    steps[0].gpu.span_ns = INT64_MAX;
    steps[0].gpu.idle_ns = INT64_MIN;
    steps[0].gpu.kernels = UINT64_MAX;
    tp_rank_coll colls[1] = {{"all_reduce", "float", "0", "[0, 1]", INT64_MAX, UINT64_MAX, UINT64_MAX, INT64_MAX}};
    tp_rank_call calls[2] = {{0, INT64_MIN, INT64_MAX, INT64_MIN}, {0, INT64_MAX, INT64_MIN, INT64_MAX}};
    int64_t pg[2] = {INT64_MIN, INT64_MAX};
    tp_rank_sum r = {.path = "p", .input_index = UINT64_MAX - 1, .inputs = UINT64_MAX, .inputs_hash = UINT64_MAX,
                     .name = "n", .format = "chrome", .device = "", .dist_present = true, .dist_rank = INT64_MIN,
                     .world_size = INT64_MIN, .backend = "nccl", .problem = NULL, .pg_size = INT64_MIN,
                     .pg_ranks = pg, .npg_ranks = 2, .events = UINT64_MAX, .warnings = UINT64_MAX,
                     .steps = steps, .nsteps = 2, .colls = colls, .ncolls = 1, .calls = calls, .ncalls = 2};
    r.whole.busy_ns = INT64_MAX;
    r.whole.memsets = UINT64_MAX;
    tp_buf b = {0};
    tp_rank_sum_json(&r, &b);
    tp_rank_sum back;
    tp_err err = {0};
    int rc = tp_rank_sum_parse(b.data, b.len, &back, &err);
    if (rc != 0)
        fprintf(stderr, "  %s\n", err.msg);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK(back.inputs == UINT64_MAX && back.events == UINT64_MAX && back.dist_rank == INT64_MIN);
        CHECK(back.steps[0].number == INT64_MIN && back.steps[0].start_ns == -TP_RANK_MAX_START_NS);
        CHECK(back.steps[0].dur_ns == TP_RANK_MAX_NS && back.steps[1].dur_ns == 0);
        CHECK(back.steps[0].gpu.span_ns == TP_RANK_MAX_NS && back.steps[0].gpu.idle_ns == 0);
        CHECK(back.steps[0].gpu.kernels == UINT64_MAX && back.whole.memsets == UINT64_MAX);
        CHECK(back.colls[0].bytes == UINT64_MAX && back.colls[0].group_size == INT64_MAX);
        CHECK(back.calls[1].start_ns == TP_RANK_MAX_START_NS && back.calls[1].seq == INT64_MAX);
        /* and once more: the text is a fixed point */
        tp_buf b2 = {0};
        tp_rank_sum_json(&back, &b2);
        CHECK(b2.len == b.len && memcmp(b.data, b2.data, b.len) == 0);
        tp_buf_free(&b2);
        tp_rank_sum_free(&back);
    }
    tp_buf_free(&b);
}

/* Item 8: a rank linked into the job folder is a rank ("1 rank of 2" before). */
TEST(h3_job_folder_follows_linked_ranks)
{
    rank_trace("h3l_src", "rank1.json", 1, "1000", "10");
    rank_trace("h3l", "rank0.json", 0, "1000", "10");
    const char *dir = tp_test_tmp("h3l.out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "ln -s '%s/rank1.json' '%s/rank1.json'", tp_test_tmp("h3l_src"), tp_test_tmp("h3l")), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), tp_test_tmp("h3l"), dir), 0);
    free(out);
    char *j = tp_test_read_in(dir, "summary.json");
    CHECK(j && strstr(j, "\"ranks_given\":2,"));
    free(j);
}

/* A link to a folder named on the command line is that folder, walked (it
 * was skipped as "a link to a folder": no trace among the inputs, exit 2),
 * also written LINK/; links to folders inside it are still skipped. */
TEST(h3_linked_folder_named_on_the_command_line_is_walked)
{
    rank_trace("h3lf_src", "rank0.json", 0, "1000", "10");
    rank_trace("h3lf_src", "rank1.json", 1, "1000", "10");
    const char *src = tp_test_tmp("h3lf_src"), *link = tp_test_tmp("h3lf_link");
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && ln -s '%s' '%s'", link, src, link), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), link), 0);
    CHECK(out && strstr(out, "### Job: 2 ranks of 2") && !strstr(out, "warning"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s/'", tp_test_bin(), link), 0);
    CHECK(out && strstr(out, "### Job: 2 ranks of 2"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), link, src), 1); /* the same folder */
    CHECK(out && lines(out) == 1 && strstr(out, "the output folder is the input folder"));
    free(out);
}

/* Item 7: a FIFO, a link to a device, a link to a folder and a broken link in a walked folder:
 * skipped without opening, counted in one warning line; no hang. */
TEST(h3_folder_walk_skips_fifos_and_counts_them)
{
    rank_trace("h3f", "rank0.json", 0, "1000", "10");
    rank_trace("h3f", "rank1.json", 1, "1000", "10");
    const char *in = tp_test_tmp("h3f");
    CHECK_EQ_INT(tp_test_run(NULL, "mkfifo '%s/pipe.json' && ln -s / '%s/root.json' && ln -s nowhere '%s/gone.json' && "
                             "ln -s /dev/zero '%s/zero.json'", in, in, in, in), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report -q '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("h3f.out")), 0);
    CHECK(out && strstr(out, "tracepress: report: warning: 4 entries in the folders or patterns given are not a regular file"));
    CHECK(out && lines(out) == 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats '%s'", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "tracepress: stats: warning: 4 entries"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' batch '%s' -o '%s' -j 1", tp_test_bin(), in, tp_test_tmp("h3f.batch")), 0);
    CHECK(out && strstr(out, "tracepress: batch: warning: 4 entries"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' convert -q '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("h3f.json")), 0);
    free(out);
    /* a job report refused (a rank is the summary.json it would write) says so in its one line */
    const char *refused = tp_test_tmp("h3f.refused");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && ln -f '%s/rank0.json' '%s/summary.json'", refused, in, refused), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report '%s' -o '%s'", tp_test_bin(), in, refused), 2);
    CHECK(out && lines(out) == 1 && strstr(out, "refusing to overwrite the input file"));
    free(out);
}

/* Item 7: a FIFO among the rank summaries (report --merge, job diff):
 * skipped and counted, no hang (both blocked forever before). */
TEST(h3_fifo_among_rank_summaries)
{
    const char *a = rank_trace("h3m", "rank0.json", 0, "1000", "10");
    const char *b = rank_trace("h3m", "rank1.json", 1, "1000", "10");
    const char *dir = tp_test_tmp("h3m.out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' '%s' -o '%s'", tp_test_bin(), a, b, dir), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "mkfifo '%s/ranks/000007-x.rank.json'", dir), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report -q --merge -o '%s'", tp_test_bin(), dir), 0);
    CHECK(out && strstr(out, "/ranks: warning: 1 *.rank.json entry is not a regular file"));
    CHECK(out && lines(out) == 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' diff '%s' '%s' -o '%s'", tp_test_bin(), dir, dir,
                             tp_test_tmp("h3m.diff")), 0);
    CHECK(out && strstr(out, "1 *.rank.json entry is not a regular file"));
    free(out);
}

/* Item 7: endless or huge @lists stop at the documented bounds, exit 2,
 * one line (@/dev/zero read forever before). */
TEST(h3_endless_at_lists_stop)
{
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats @/dev/zero", tp_test_bin()), 2);
    CHECK(out && strcmp(out, "tracepress: stats: @/dev/zero: offset 0: a line longer than 4096 bytes: not a list "
                             "of paths\n") == 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' report @/dev/zero -o '%s'", tp_test_bin(), tp_test_tmp("h3z")), 2);
    CHECK(out && lines(out) == 1 && strstr(out, "not a list of paths"));
    free(out);
    /* 1,000,001 entries (8 MB): the entry bound */
    const char *many = tp_test_tmp("h3many.list");
    CHECK_EQ_INT(tp_test_run(NULL, "yes golden/example.pt.trace.json | head -n 1000001 > '%s'", many), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats '@%s'", tp_test_bin(), many), 2);
    CHECK(out && lines(out) == 1 && strstr(out, "@lists name more than 1000000 entries"));
    free(out);
}

/* An @list naming one folder 1,000,000 times (`@<(yes DIR)` stops only at
 * the entry bound) walks it once: each walk opened every file in it (here
 * about 40 s; 8 minutes for a folder of 4 gen_job ranks).  DIR/. is the same
 * folder too (its files were each rank twice: exit 2). */
TEST(h3_at_list_repeating_a_folder_walks_it_once)
{
    rank_trace("h3rep", "rank-0.json", 0, "1000", "10");
    rank_trace("h3rep", "rank-1.json", 1, "1000", "10");
    const char *dir = tp_test_tmp("h3rep");
    CHECK_EQ_INT(tp_test_run(NULL, "echo notes > '%s/notes.txt'", dir), 0);
    const char *list = tp_test_tmp("h3rep.list");
    CHECK_EQ_INT(tp_test_run(NULL, "(yes '%s' | head -n 999999; echo '%s/.') > '%s'", dir, dir, list), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats '@%s'", tp_test_bin(), list), 0);
    CHECK(out && strstr(out, "### Job: 2 ranks of 2"));
    CHECK(out && strstr(out, "1 file in the folders given is not a trace"));
    free(out);
}

/* batch DIR -o DIR: the walk skips the output folder, so every trace in it
 * vanished and the run exited 0 with an empty index; refused as report is. */
TEST(h3_batch_into_its_input_folder_is_refused)
{
    const char *in = rank_trace("h3same", "rank-0.json", 0, "1000", "10");
    (void)in;
    const char *dir = tp_test_tmp("h3same");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s/.'", tp_test_bin(), dir, dir), 1);
    CHECK(out && lines(out) == 1 && strstr(out, "the output folder is the input folder"));
    free(out);
    CHECK(!tp_test_exists_in(dir, "index.json") && !tp_test_exists_in(dir, ".tracepress-batch.lock"));
}

/* Item 9: a truncated trace in a folder is a failed row (exit 2), only a
 * note is "not a trace" (batch said "2 files ... are not traces" and
 * exited 0). */
TEST(h3_corrupt_trace_in_folder_is_a_failed_row)
{
    const char *good = rank_trace("h3c", "good.json", 0, "1000", "10");
    const char *in = tp_test_tmp("h3c");
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -c '%s' | head -c 40 > '%s/broken.json.gz' && echo notes > '%s/notes.txt' && "
                             "printf 'not json' > '%s/cut.json' && gzip -c '%s' | head -c 30 > '%s/noname.bin' && "
                             "printf '{\"schemaVersion\":1,\"deviceProperties\":[{\"a\":\"}\"}' > '%s/kineto_cut.json' && "
                             "printf '{\"a\":\"x\\\\\"}\", \"b\":[{}]}' > '%s/config.json'",
                             good, in, in, in, good, in, in, in), 0);
    char *out = NULL;
    const char *dir = tp_test_tmp("h3c.batch");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s' -j 1", tp_test_bin(), in, dir), 2);
    /* notes.txt and config.json (a whole JSON object without "traceEvents") are not traces; a
     * Kineto file cut before its "traceEvents" is */
    CHECK(out && strstr(out, "2 files in the folders given are not traces"));
    CHECK(out && strstr(out, "broken.json.gz: offset 40: gzip stream ends early"));
    CHECK(out && strstr(out, "kineto_cut.json: offset"));
    CHECK(out && strstr(out, "1 ok, 4 failed"));
    free(out);
    char *j = tp_test_read_in(dir, "index.json");
    CHECK(j && tp_test_count(j, "\"status\":\"error\"") == 4);
    free(j);
    /* a job folder: the run fails on it, one line */
    CHECK_EQ_INT(tp_test_run(NULL, "rm '%s/cut.json' '%s/noname.bin' '%s/kineto_cut.json'", in, in, in), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("h3c.job")), 2);
    CHECK(out && strstr(out, "broken.json.gz: offset 40: gzip stream ends early"));
    free(out);
}

/* Item 13: --shard refuses what does not fit instead of wrapping. */
TEST(h3_shard_is_parsed_strictly)
{
    static const char *const bad[] = {"1/4294967297", "1/4294967296", "1/2147483648", "+1/2", " 1/2", "1/2x",
                                      "3/2", "0/2", "1/0", "1/", "/2", "1/99999999999999999999"};
    const char *a = rank_trace("h3s", "rank0.json", 0, "1000", "10");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --shard '%s' -o '%s'", tp_test_bin(), a, bad[i],
                                 tp_test_tmp("h3s.out")), 1);
        CHECK(out && lines(out) == 1 && strstr(out, "--shard takes K/N"));
        free(out);
        CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' --shard '%s' -o '%s'", tp_test_bin(), a, bad[i],
                                 tp_test_tmp("h3s.batch")), 1);
        CHECK(out && lines(out) == 1 && strstr(out, "--shard takes K/N"));
        free(out);
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --shard 2147483647/2147483647 -o '%s'", tp_test_bin(), a,
                             tp_test_tmp("h3s.max")), 0);
    free(out);
}

/* Item 13: rank 1's "x" renamed must not become rank 0's own "x@rank1". */
TEST(h3_merged_string_flow_ids_never_collide)
{
    static const char *const fmt =
        "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1010,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1030,\"dur\":10}%s]}\n";
    static const char *const flow =
        ",\n{\"ph\":\"s\",\"id\":\"%s\",\"name\":\"fl\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":%d},\n"
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":\"%s\",\"name\":\"fl\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":%d}";
    char f0[512], f1[512], f2[256], t0[1500], t1[1500];
    snprintf(f0, sizeof f0, flow, "x", 1011, "x", 1031);
    snprintf(f2, sizeof f2, flow, "x@rank1", 1012, "x@rank1", 1032);
    strncat(f0, f2, sizeof f0 - strlen(f0) - 1);
    snprintf(f1, sizeof f1, flow, "x", 1011, "x", 1031);
    snprintf(t0, sizeof t0, fmt, 0, f0);
    snprintf(t1, sizeof t1, fmt, 1, f1);
    const char *a = tp_test_write_text("h3id_rank0.json", t0), *b = tp_test_write_text("h3id_rank1.json", t1);
    const char *m = tp_test_tmp("h3id_merged.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert -q '%s' '%s' -o '%s'", tp_test_bin(), a, b, m), 0);
    free(out);
    /* three flows, three ids, each on one side of one pid */
    CHECK_EQ_INT(tp_test_run(&out, "grep -o '\"pid\":[0-9]*,[^}]*\"id\":\"[^\"]*\"' '%s' | sed 's/,.*\"id\"/ /' | "
                             "sort -u | awk '{print $2}' | sort | uniq -d | wc -l", m), 0);
    CHECK(out && strcmp(out, "0\n") == 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "grep -o '\"id\":\"[^\"]*\"' '%s' | sort -u | wc -l", m), 0);
    CHECK(out && strcmp(out, "3\n") == 0);
    free(out);
}

/* Item 13: a job's ranks share step numbers: convert --split steps writes
 * one file per step and its summary line counts those files and their
 * events (it said "2 files" for 1, and counted its events twice). */
TEST(h3_job_split_summary_counts_what_it_wrote)
{
    const char *a = rank_trace("h3sp", "rank0.json", 0, "1000", "10");
    const char *b = rank_trace("h3sp", "rank1.json", 1, "1000", "10");
    const char *dir = tp_test_tmp("h3sp.out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' '%s' -o '%s/m.json' --split steps 2>&1 | tail -n 1", tp_test_bin(),
                             a, b, dir), 0);
    CHECK(out && strstr(out, ", 1 files, "));
    char want[64] = "";
    char *nout = out ? strstr(out, " in, ") : NULL;
    long events = nout ? strtol(nout + 5, NULL, 10) : -1;
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "ls '%s' | wc -l; cat '%s'/m.step-*.json | grep -o '\"ph\"' | wc -l", dir, dir), 0);
    snprintf(want, sizeof want, "1\n%ld\n", events);
    CHECK(out && strcmp(out, want) == 0);
    free(out);
}

/* Item 7, the same for batch's shard indexes: `batch --merge` blocked on a
 * FIFO named index-K-of-N.json, and read a link to /dev/zero forever. */
TEST(h3_batch_merge_skips_fifo_indexes)
{
    const char *a = rank_trace("h3bm", "rank0.json", 0, "1000", "10");
    const char *dir = tp_test_tmp("h3bm.batch");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' --shard 1/1 -o '%s' -j 1", tp_test_bin(), a, dir), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "mkfifo '%s/index-1-of-2.json' && ln -s /dev/zero '%s/index-2-of-3.json'", dir, dir), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' batch --merge '%s' -o '%s'", tp_test_bin(), dir,
                             tp_test_tmp("h3bm.merged")), 0);
    CHECK(out && strstr(out, "batch: warning: 2 index-K-of-N.json entries are not a regular file"));
    CHECK(out && strstr(out, "merged 1 traces (0 failed)"));
    free(out);
    /* nothing but a FIFO: no index here, one line, exit 2 */
    const char *only = tp_test_tmp("h3bm.fifo");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && mkfifo '%s/index.json'", only, only), 0);
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' batch --merge '%s' -o '%s'", tp_test_bin(), only,
                             tp_test_tmp("h3bm.merged2")), 2);
    CHECK(out && lines(out) == 1 && strstr(out, "no batch index here"));
    free(out);
}

/* Item 7: a glob's matches are found, not named: a FIFO among them is
 * skipped and counted (stats 'DIR/STAR.json' blocked on it). */
TEST(h3_glob_skips_fifos)
{
    rank_trace("h3g", "rank0.json", 0, "1000", "10");
    rank_trace("h3g", "rank1.json", 1, "1000", "10");
    CHECK_EQ_INT(tp_test_run(NULL, "mkfifo '%s/pipe.json'", tp_test_tmp("h3g")), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats '%s/*.json' 2>&1 >/dev/null", tp_test_bin(), tp_test_tmp("h3g")), 0);
    char want[1200]; /* issue 36: the line names what it skipped */
    snprintf(want, sizeof want, "tracepress: stats: warning: 1 entry in the folders or patterns given is not a regular "
                                "file or a link to one (a FIFO, a device, a socket, a link to a folder or a broken "
                                "link), skipped: %s/pipe.json (a FIFO)\n", tp_test_tmp("h3g"));
    CHECK(out && strcmp(out, want) == 0);
    free(out);
}
