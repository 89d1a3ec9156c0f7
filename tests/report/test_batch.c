/* test_batch.c: `tracepress batch`: the content hash, every shared sample
 * plus a corrupt file, incremental re-runs, --force, shards merged equal one
 * run, input forms (@list, globs), and an interrupted run. */
#include "report/batch/batch.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

TEST(batch_hash_streaming_equals_one_shot)
{
    unsigned char buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    uint64_t one = tp_hash64_bytes(buf, sizeof buf);
    /* every split point, in pieces of 1..37 bytes */
    for (size_t step = 1; step < 38; step += 6) {
        tp_hash64 h;
        tp_hash64_init(&h);
        for (size_t off = 0; off < sizeof buf; off += step)
            tp_hash64_update(&h, buf + off, off + step <= sizeof buf ? step : sizeof buf - off);
        CHECK(tp_hash64_final(&h) == one);
    }
    /* one changed bit, a shorter length, and the empty input all differ */
    buf[500] ^= 1;
    CHECK(tp_hash64_bytes(buf, sizeof buf) != one);
    buf[500] ^= 1;
    CHECK(tp_hash64_bytes(buf, sizeof buf - 1) != one);
    CHECK(tp_hash64_bytes(buf, 0) != tp_hash64_bytes(buf, 1));
    /* fixed value: the hash is part of index.json, so it must not drift */
    CHECK(tp_hash64_bytes("tracepress", 10) == tp_hash64_bytes("tracepress", 10));
    char hex[32];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)tp_hash64_bytes("tracepress", 10));
    CHECK_STR(hex, "a856bf202bbca099");
}

static const char *corrupt_file(void)
{
    /* the first 3000 bytes of a gzip'ed Kineto trace: detected, then truncated */
    const char *p = tp_test_tmp("corrupt.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "head -c 3000 '%s' > '%s'",
                             tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz"), p), 0);
    return p;
}

TEST(batch_all_samples_and_a_corrupt_file)
{
    const char *ext = tp_test_shared("external");
    const char *bad = corrupt_file();
    const char *dir = tp_test_tmp("all.batch");
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' batch '%s' '%s' -o '%s' -j 2 2>&1", tp_test_bin(), ext, bad, dir);
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "are not traces (skipped): "));
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/index.json", dir);
    char *js = tp_test_read_file(p, NULL);
    CHECK(js != NULL);
    if (!js)
        return;
    CHECK(strstr(js, "\"schema\":\"tracepress.batch/1\"") != NULL);
    /* every Kineto sample and the ETDump sample is there and ok */
    static const char *const good[] = {"hta_amd_mi250_rocm6_2", "hta_critical_path_alexnet_2023",
                                       "hta_df_index_resolver_large", "hta_inference_rank1_2022_capcats",
                                       "hta_nccl_data_2024", "hta_ns_resolution_rank0_v100_2024",
                                       "hta_triton_example", "kineto_plugin_resnet50_array_2020-12",
                                       "kineto_tbplugin_resnet50_pt1.8_2021-01",
                                       "kineto_tbplugin_resnet50_pt1.9_2021-06",
                                       "executorch_tutorial_etdump.etdp"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char key[200];
        snprintf(key, sizeof key, "\"name\":\"%s\"", good[i]);
        const char *row = strstr(js, key);
        CHECK(row != NULL);
        const char *eol = row ? strchr(row, '\n') : NULL;
        const char *st = row ? strstr(row, "\"status\":\"ok\"") : NULL;
        CHECK(st && eol && st < eol);
        snprintf(p, sizeof p, "%s/%s/report/summary.json", dir, good[i]);
        CHECK(tp_test_file_exists(p));
        snprintf(p, sizeof p, "%s/%s/trace.json.gz", dir, good[i]);
        CHECK(tp_test_file_exists(p));
    }
    /* the corrupt one is an error row with its error */
    const char *row = strstr(js, "\"name\":\"corrupt\"");
    CHECK(row && strstr(row, "\"status\":\"error\",\"error\":\"") && strstr(row, "truncated"));
    /* ETDump's flatc JSON dump is JSON without "traceEvents": a folder walk counts it as not a trace */
    CHECK(strstr(js, "\"name\":\"executorch_tutorial_etdump.flatc\"") == NULL);
    CHECK_EQ_INT(tp_test_count(js, "\"status\":\"error\""), 1);
    CHECK(strstr(js, "\"failed\":1}") != NULL);
    /* no temporary file left anywhere */
    CHECK_EQ_INT(tp_test_run(&out, "find '%s' -name '*.tmp.*' | grep -q .", dir), 1);
    free(out);
    snprintf(p, sizeof p, "%s/index.md", dir);
    char *md = tp_test_read_file(p, NULL);
    CHECK(md && strstr(md, "| `corrupt` | `chrome` | - | - | - | - | **error**: `"));
    free(md);

    /* a second run skips everything and writes the same index */
    rc = tp_test_run(&out, "'%s' batch '%s' '%s' -o '%s' -j 2", tp_test_bin(), ext, bad, dir);
    CHECK_EQ_INT(rc, 2);
    char expect[100];
    snprintf(expect, sizeof expect, "%zu unchanged (skipped), 0 to do", tp_test_count(js, "\"path\":"));
    CHECK(out && strstr(out, expect));
    free(out);
    snprintf(p, sizeof p, "%s/index.json", dir);
    char *js2 = tp_test_read_file(p, NULL);
    CHECK(js2 && strcmp(js, js2) == 0);
    free(js2);
    free(js);
}

/* A small set: quick to run several times. */
static void small_set(char *buf, size_t n)
{
    snprintf(buf, n, "'%s' '%s' golden/example.pt.trace.json '%s'",
             tp_test_shared("external/kineto/hta_triton_example.json.gz"),
             tp_test_shared("external/etdump/executorch_tutorial_etdump.etdp"), corrupt_file());
}

TEST(batch_two_shards_merged_equal_one_run)
{
    char in[4096];
    small_set(in, sizeof in);
    const char *one = tp_test_tmp("one.batch"), *sh = tp_test_tmp("shards.batch");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch %s -o '%s' -j 2 2>/dev/null", tp_test_bin(), in, one), 2);
    /* the corrupt file (its path is under a fresh temporary folder) falls in either shard */
    int r1 = tp_test_run(NULL, "'%s' batch %s -o '%s' --shard 1/2 -j 1 2>/dev/null", tp_test_bin(), in, sh);
    int r2 = tp_test_run(NULL, "'%s' batch %s -o '%s' --shard 2/2 -j 1 2>/dev/null", tp_test_bin(), in, sh);
    CHECK((r1 == 0 && r2 == 2) || (r1 == 2 && r2 == 0));
    char p[1024];
    snprintf(p, sizeof p, "%s/index-1-of-2.json", sh);
    char *s1 = tp_test_read_file(p, NULL);
    snprintf(p, sizeof p, "%s/index-2-of-2.json", sh);
    char *s2 = tp_test_read_file(p, NULL);
    /* together the shards have all of the work, each trace once */
    CHECK(s1 && s2 && tp_test_count(s1, "\"path\":") + tp_test_count(s2, "\"path\":") == 4);
    free(s1);
    free(s2);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch --merge '%s' 2>/dev/null", tp_test_bin(), sh), 2);
    snprintf(p, sizeof p, "%s/index.json", one);
    char *a = tp_test_read_file(p, NULL);
    snprintf(p, sizeof p, "%s/index.json", sh);
    char *b = tp_test_read_file(p, NULL);
    CHECK(a && b && strcmp(a, b) == 0);
    free(b);
    /* and the per-trace outputs are the same bytes */
    CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/example/report/summary.json' '%s/example/report/summary.json'", one, sh),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/example/trace.json.gz' '%s/example/trace.json.gz'", one, sh), 0);
    /* merging folders elsewhere: links go through the folder names */
    const char *top = tp_test_tmp("merged");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && '%s' batch --merge '%s' -o '%s' 2>/dev/null", top, tp_test_bin(),
                             sh, top), 2);
    snprintf(p, sizeof p, "%s/index.json", top);
    b = tp_test_read_file(p, NULL);
    CHECK(b && strstr(b, "\"dir\":\"") && tp_test_count(b, "\"path\":") == 4);
    /* relative to the merged index (a sibling folder), not absolute */
    CHECK(b && strstr(b, "\"dir\":\"../shards.batch/example\""));
    free(b);
    if (tp_test_have("qpdf")) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "qpdf --qdf --object-streams=disable '%s/index.pdf' - | grep -a '/URI ('", top), 0);
        CHECK(out && strstr(out, "/URI (../shards.batch/example/report/report.pdf)") &&
              strstr(out, "/URI (../shards.batch/example/trace.json.gz)"));
        free(out);
    }
    free(a);
}

/* index.pdf: per ok row, links to its report PDF and converted trace,
 * relative to the index; none for the error row; the same bytes twice. */
TEST(batch_index_pdf_links)
{
    char in[4096];
    small_set(in, sizeof in);
    const char *a = tp_test_tmp("links1.batch"), *b = tp_test_tmp("links2.batch");
    for (int i = 0; i < 2; i++)
        CHECK_EQ_INT(tp_test_run(NULL, "SOURCE_DATE_EPOCH=1700000000 '%s' batch %s -o '%s' -j 2 2>/dev/null",
                                 tp_test_bin(), in, i ? b : a),
                     2);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/index.pdf' '%s/index.pdf'", a, b), 0);
    if (!tp_test_have("qpdf")) {
        fprintf(stderr, "  (skipping qpdf checks: not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s/index.pdf'", a), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --qdf --object-streams=disable '%s/index.pdf' - | grep -a '/URI ('", a), 0);
    static const char *const ok[] = {"example", "hta_triton_example", "executorch_tutorial_etdump.etdp"};
    for (size_t i = 0; i < 3; i++) {
        char want[200];
        snprintf(want, sizeof want, "/URI (%s/report/report.pdf)", ok[i]);
        CHECK(out && strstr(out, want));
        snprintf(want, sizeof want, "/URI (%s/trace.json.gz)", ok[i]);
        CHECK(out && strstr(out, want));
        /* and the targets exist where the links say */
        snprintf(want, sizeof want, "%s/%s/report/report.pdf", a, ok[i]);
        CHECK(tp_test_file_exists(want));
        snprintf(want, sizeof want, "%s/%s/trace.json.gz", a, ok[i]);
        CHECK(tp_test_file_exists(want));
    }
    CHECK_EQ_INT(tp_test_count(out, "/URI ("), 6);
    CHECK(out && !strstr(out, "corrupt"));
    free(out);
}

TEST(batch_incremental_force_and_changed_input)
{
    const char *copy = tp_test_tmp("inc/example.pt.trace.json");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s/inc' && cp golden/example.pt.trace.json '%s'", tp_test_tmpdir(),
                             copy), 0);
    const char *list = tp_test_tmp("inputs.txt");
    FILE *f = fopen(list, "w");
    if (f) {
        fprintf(f, "# traces\n%s\n\n%s\n", copy, tp_test_shared("external/kineto/hta_triton_example.json.gz"));
        fclose(f);
    }
    const char *dir = tp_test_tmp("inc.batch");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch @'%s' -o '%s' -j 2", tp_test_bin(), list, dir), 0);
    CHECK(out && strstr(out, "2 traces, 0 unchanged (skipped), 2 to do"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch @'%s' -o '%s'", tp_test_bin(), list, dir), 0);
    CHECK(out && strstr(out, "2 traces, 2 unchanged (skipped), 0 to do"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch @'%s' -o '%s' --force", tp_test_bin(), list, dir), 0);
    CHECK(out && strstr(out, "0 unchanged (skipped), 2 to do"));
    free(out);
    /* other options redo everything; a changed file redoes that file */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch @'%s' -o '%s' --batch-size 8", tp_test_bin(), list, dir), 0);
    CHECK(out && strstr(out, "0 unchanged (skipped), 2 to do"));
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "echo ' ' >> '%s'", copy), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch @'%s' -o '%s' --batch-size 8", tp_test_bin(), list, dir), 0);
    CHECK(out && strstr(out, "1 unchanged (skipped), 1 to do"));
    free(out);
    /* a glob and a folder name the same traces */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s/inc/*.json' -o '%s' --batch-size 8", tp_test_bin(),
                             tp_test_tmpdir(), dir), 0);
    CHECK(out && strstr(out, "1 traces, 1 unchanged (skipped), 0 to do"));
    free(out);
}

TEST(batch_interrupted_run_leaves_no_partial_output)
{
    /* stop a run after its first trace: no temporary files, no index; the
     * next run does the rest (what has its made-by.json is skipped) */
    char in[4096];
    small_set(in, sizeof in);
    const char *dir = tp_test_tmp("int.batch"), *log = tp_test_tmp("int.log");
    CHECK_EQ_INT(tp_test_run(NULL,
                             "setsid '%s' batch %s -o '%s' -j 1 2>'%s' & pid=$!; "
                             "while kill -0 $pid 2>/dev/null && ! grep -q '\\[1/' '%s'; do sleep 0.05; done; "
                             "kill -INT -- -$pid 2>/dev/null; wait $pid; true",
                             tp_test_bin(), in, dir, log, log),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "find '%s' -name '*.tmp.*' | grep -q .", dir), 1);
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/index.json", dir);
    bool finished = tp_test_file_exists(p); /* the run may have ended before the signal */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch %s -o '%s' -j 2", tp_test_bin(), in, dir), 2);
    /* traces done before the signal have their record: skipped, the rest redone */
    CHECK(out && strstr(out, finished ? "4 unchanged" : "4 traces, ") && !strstr(out, "error: ../") &&
          (finished || !strstr(out, "4 unchanged")));
    free(out);
    CHECK(tp_test_file_exists(p));
}

TEST(batch_usage)
{
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch golden/example.pt.trace.json", tp_test_bin()), 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch x -o y --shard 3/2", tp_test_bin()), 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch x -o y -j 0", tp_test_bin()), 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s/nothing*here' -o '%s'", tp_test_bin(), tp_test_tmpdir(),
                             tp_test_tmp("u.batch")), 2);
    CHECK(out && strstr(out, "no file matches"));
    free(out);
}

TEST(batch_names_unique_and_shards_partition)
{
    tp_strlist paths = {0}, names = {0};
    tp_strlist_add(&paths, "a/run.pt.trace.json.gz");
    tp_strlist_add(&paths, "b/run.json");
    tp_strlist_add(&paths, "c/other trace.json");
    tp_strlist_add(&paths, "d/.hidden");
    tp_batch_names(&paths, &names);
    CHECK_EQ_INT(names.n, 4);
    /* the two "run" get a path-hash suffix, the others keep their name (cleaned) */
    CHECK(strncmp(names.v[0], "run-", 4) == 0 && strlen(names.v[0]) == 12);
    CHECK(strncmp(names.v[1], "run-", 4) == 0 && strcmp(names.v[0], names.v[1]) != 0);
    CHECK_STR(names.v[2], "other_trace");
    CHECK_STR(names.v[3], "_hidden");
    /* every path is in exactly one of N shards */
    for (int n = 1; n <= 5; n++)
        for (size_t i = 0; i < paths.n; i++) {
            int in = 0;
            for (int k = 1; k <= n; k++)
                in += tp_batch_in_shard(paths.v[i], k, n);
            CHECK_EQ_INT(in, 1);
        }
    tp_strlist_free(&paths);
    tp_strlist_free(&names);
}

/* docs/SCALING.md calls its recipes tested: scripts/test_scaling.sh runs
 * them (GNU parallel for real when installed, Slurm and a Kubernetes Indexed
 * Job with the variables their schedulers set) and compares each merged
 * index.json with a single run's.  Run it here so a change that breaks a
 * recipe fails the suite, not just a manual check. */
TEST(batch_scaling_recipes_of_the_docs)
{
    const char *shared = tp_test_shared("");
    char ext[1200];
    snprintf(ext, sizeof ext, "%s/external", shared);
    if (!tp_test_file_exists(ext))
        return;
    char *out = NULL;
    int rc = tp_test_run(&out, "TMPDIR='%s' scripts/test_scaling.sh '%s' '%s'", tp_test_tmpdir(), tp_test_bin(),
                         shared);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "ok   Slurm array"));
    CHECK(out && strstr(out, "ok   Kubernetes Indexed Job"));
    if (tp_test_have("parallel"))
        CHECK(out && strstr(out, "ok   GNU parallel"));
    if (rc != 0)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
}
