/* test_gen_kineto.c: the synthetic Kineto generator (scripts/gen_kineto.c,
 * built by `make` as build/gen/gen_kineto) writes valid JSON, the same bytes
 * for the same arguments, and traces whose counts `tracepress stats` finds.
 * Benchmarks use it at 100 MB-4 GB; here only tiny outputs. */
#include "harness.h"

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
