/* test_gen_kineto.c: the synthetic Kineto generator (scripts/gen/gen_kineto.c,
 * built by `make` as build/gen/gen_kineto) writes valid JSON, the same bytes
 * for the same arguments, and traces whose counts `tracepress stats` finds.
 * Benchmarks use it at 100 MB-4 GB; here only tiny outputs. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

#define GEN "build/gen/gen_kineto"

/* The integer after "key": in a small JSON text (first occurrence), -1 if absent. */
static long long json_int(const char *text, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = text ? strstr(text, pat) : NULL;
    if (!p)
        return -1;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    return strtoll(p, NULL, 10);
}

static char *gen(const char *args, const char *name, char **summary)
{
    const char *out = tp_test_tmp(name);
    char sum[512];
    snprintf(sum, sizeof sum, "%s.summary", out);
    int st = tp_test_run(NULL, "%s %s --summary %s -q %s", GEN, args, sum, out);
    CHECK_EQ_INT(st, 0);
    if (summary)
        *summary = tp_test_read_file(sum, NULL);
    return strdup(out);
}

/* Checks the JSON parses with jq, or python3 when jq is missing. */
static void check_valid_json(const char *path, const char *zcat)
{
    int st;
    if (tp_test_have("jq"))
        st = tp_test_run(NULL, "%s %s | jq empty", zcat, path);
    else
        st = tp_test_run(NULL, "%s %s | python3 -m json.tool > /dev/null", zcat, path);
    CHECK_EQ_INT(st, 0);
}

/* The summary's kernel/memcpy/memset counts against `tracepress stats --json`. */
static void check_stats_counts(const char *path, const char *summary)
{
    char *out = NULL;
    int st = tp_test_run(&out, "%s stats %s --json", tp_test_bin(), path);
    CHECK_EQ_INT(st, 0);
    long long kernels = json_int(summary, "kernels"), memcpy_ = json_int(summary, "memcpy"),
              memset_ = json_int(summary, "memset");
    CHECK(kernels > 0);
    CHECK_EQ_INT(json_int(out, "kernel_instances"), kernels + memcpy_ + memset_);
    CHECK_EQ_INT(json_int(out, "steps"), json_int(summary, "steps"));
    free(out);
    if (tp_test_have("jq")) {
        out = NULL;
        st = tp_test_run(&out, "%s stats %s --json | jq '[.kernels[] | select(.kind == \"kernel\") | .count] | add'",
                         tp_test_bin(), path);
        CHECK_EQ_INT(st, 0);
        CHECK_EQ_INT(out ? strtoll(out, NULL, 10) : -1, kernels);
        free(out);
    }
}

TEST(gen_kineto_small_trace_is_valid_json_with_the_counts_stats_finds)
{
    char *summary = NULL;
    char *path = gen("--events 200", "gen200.json", &summary);
    CHECK(summary != NULL);
    CHECK(json_int(summary, "trace_events") >= 200);
    CHECK(json_int(summary, "steps") >= 1);
    check_valid_json(path, "cat");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s --json", tp_test_bin(), path), 0);
    CHECK_EQ_INT(json_int(out, "events"), json_int(summary, "trace_events"));
    free(out);
    check_stats_counts(path, summary);
    free(summary);
    free(path);
}

TEST(gen_kineto_is_deterministic_and_gzip_holds_the_same_bytes)
{
    char *a = gen("--events 500 --seed 7", "det_a.json", NULL);
    char *b = gen("--events 500 --seed 7", "det_b.json", NULL);
    char *c = gen("--events 500 --seed 8", "det_c.json", NULL);
    char *z = gen("--events 500 --seed 7 --gzip", "det_a.json.gz", NULL);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", a, b), 0);
    CHECK(tp_test_run(NULL, "cmp -s %s %s", a, c) != 0);
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc %s | cmp -s - %s", z, a), 0);
    free(a);
    free(b);
    free(c);
    free(z);
}

TEST(gen_kineto_size_lands_close_to_the_request)
{
    char *summary = NULL;
    char *path = gen("--size 2M", "size2m.json", &summary);
    long long bytes = json_int(summary, "bytes");
    CHECK(bytes >= 2000000 && bytes < 2200000);
    size_t len = 0;
    char *data = tp_test_read_file(path, &len);
    CHECK_EQ_INT((long long)len, bytes);
    free(data);
    free(summary);
    free(path);
}

TEST(gen_kineto_gzip_and_old_layouts_read_back)
{
    char *summary = NULL;
    char *path = gen("--events 300 --gzip", "gz300.json.gz", &summary);
    check_valid_json(path, "gzip -dc");
    check_stats_counts(path, summary);
    free(summary);
    free(path);

    /* PyTorch 1.8: bare array, Operator/Runtime/Kernel, string tids "stream 7" */
    path = gen("--events 300 --old", "old300.json", &summary);
    check_valid_json(path, "cat");
    char *text = tp_test_read_file(path, NULL);
    CHECK(text && text[0] == '[');
    CHECK(text && strstr(text, "\"tid\": \"stream 7\""));
    CHECK(text && strstr(text, "\"cat\": \"Runtime\""));
    free(text);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s --json", tp_test_bin(), path), 0);
    CHECK_EQ_INT(json_int(out, "kernel_instances"),
                 json_int(summary, "kernels") + json_int(summary, "memcpy") + json_int(summary, "memset"));
    CHECK_EQ_INT(json_int(out, "steps"), json_int(summary, "steps")); /* ProfilerStep#N as Operator */
    free(out);
    free(summary);
    free(path);
}

TEST(gen_kineto_quirks_are_repaired_leniently_and_refused_by_strict)
{
    char *path = gen("--events 300 --quirks", "quirks.json", NULL);
    CHECK_EQ_INT(tp_test_run(NULL, "%s stats %s --json", tp_test_bin(), path), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s stats --strict %s", tp_test_bin(), path), 2);
    free(path);
}

/* The JSON writer formats chunks of 4096 events on two threads; the bytes
 * must be those of one thread (TP_WRITER_THREADS=1), flows included: here
 * every launch has two kernels, so the v1 flow ids of the second ones run
 * across chunk boundaries. */
TEST(convert_two_writer_threads_write_the_bytes_of_one)
{
    char *path = gen("--events 40000 --seed 3", "threads.json", NULL);
    const char *one = tp_test_tmp("threads.one.json"), *two = tp_test_tmp("threads.two.json");
    CHECK_EQ_INT(tp_test_run(NULL, "TP_WRITER_THREADS=1 %s convert -q %s -o %s", tp_test_bin(), path, one), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), path, two), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", one, two), 0);
    free(path);

    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < 6000; i++) {
        long long ts = 1000 + i * 50LL;
        tp_buf_printf(&b,
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%lld,\"dur\":5,\"args\":{\"correlation\":%d}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":10,"
                      "\"args\":{\"correlation\":%d}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":8,\"ts\":%lld,\"dur\":10,"
                      "\"args\":{\"correlation\":%d,\"note\":\"caf\\u00e9 \\ud83d\\ude00\"}}%s\n",
                      ts, i + 1, i % 7, ts + 20, i + 1, i % 5, ts + 30, i + 1, i + 1 < 6000 ? "," : "");
    }
    tp_buf_puts(&b, "]}\n");
    const char *in = tp_test_tmp("threads.v1.json");
    FILE *f = fopen(in, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(b.data, 1, b.len, f);
    fclose(f);
    tp_buf_free(&b);
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "TP_WRITER_THREADS=1 %s convert %s -o %s", tp_test_bin(), in, one), 0);
    CHECK(log && strstr(log, "18000 events in"));
    free(log);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in, two), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", one, two), 0);
    /* both kinds of flow are there: 6000 v2 (bind_id) and 6000 v1 pairs */
    char *o = tp_test_read_file(two, NULL);
    size_t v1 = 0, v2 = 0, dup = 0;
    static char seen[20000];
    memset(seen, 0, sizeof seen);
    for (const char *p = o; p && (p = strstr(p, "\"ph\":\"s\",\"cat\":\"launch\"")); p++) {
        v1++;
        const char *id = strstr(p, "\"id\":"); /* v1 ids follow the 6000 bind ids and never repeat */
        long v = id ? strtol(id + 5, NULL, 10) : -1;
        if (v <= 6000 || v >= 20000 || seen[v]++)
            dup++;
    }
    CHECK_EQ_INT(dup, 0);
    for (const char *p = o; p && (p = strstr(p, "\"flow_out\":true")); p++)
        v2++;
    CHECK_EQ_INT(v1, 6000);
    CHECK_EQ_INT(v2, 6000);
    free(o);
}
