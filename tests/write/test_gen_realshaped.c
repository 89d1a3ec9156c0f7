/* test_gen_realshaped.c: the real-shaped generator (scripts/gen/gen_realshaped.c,
 * built as build/gen/gen_realshaped) repeats a real Kineto trace so that each
 * copy is the sample again: three copies give exactly three times its kernels,
 * totals, steps and launch->kernel links, in valid JSON, the same bytes for
 * the same arguments, and one copy is the sample itself. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

#define GEN "build/gen/gen_realshaped"
#define SAMPLE "external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz"

/* The integer after "key": from p on, -1 if absent. */
static long long int_after(const char *p, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = p ? strstr(p, pat) : NULL;
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* The number before " launch flows" in convert's summary line, -1 if absent. */
static long long launch_flows(const char *log)
{
    const char *p = log ? strstr(log, " launch flows") : NULL;
    if (!p)
        return -1;
    while (p > log && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtoll(p, NULL, 10);
}

static char *stats_json(const char *path)
{
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' --json --kernels-only", tp_test_bin(), path), 0);
    return out;
}

TEST(gen_realshaped_three_copies_hold_three_times_the_sample)
{
    const char *sample = tp_test_shared(SAMPLE);
    if (!tp_test_file_exists(sample))
        return; /* no shared samples here */
    const char *out = tp_test_tmp("real3.json"), *sum = tp_test_tmp("real3.summary");
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --copies 3 --sample '%s' --summary %s %s", GEN, sample, sum, out), 0);
    if (tp_test_have("jq"))
        CHECK_EQ_INT(tp_test_run(NULL, "jq empty %s", out), 0);
    else
        CHECK_EQ_INT(tp_test_run(NULL, "python3 -m json.tool %s > /dev/null", out), 0);

    char *a = stats_json(sample), *b = stats_json(out), *summary = tp_test_read_file(sum, NULL);
    long long meta = int_after(summary, "metadata_events");
    CHECK(meta > 0);
    CHECK_EQ_INT(int_after(b, "events"), 3 * int_after(a, "events") - 2 * meta); /* metadata once */
    CHECK_EQ_INT(int_after(b, "events"), int_after(summary, "trace_events"));
    CHECK(int_after(a, "kernel_instances") > 0);
    CHECK_EQ_INT(int_after(b, "kernel_instances"), 3 * int_after(a, "kernel_instances"));
    CHECK_EQ_INT(int_after(b, "kernel_total_ns"), 3 * int_after(a, "kernel_total_ns"));
    CHECK_EQ_INT(int_after(b, "steps"), 3 * int_after(a, "steps")); /* ProfilerStep#N renumbered */
    /* every kernel row: the same name in the same order, count and total x3 */
    const char *pa = strstr(a, "\"kernels\":["), *pb = strstr(b, "\"kernels\":[");
    int rows = 0;
    while (pa && pb && (pa = strstr(pa + 1, "{\"name\":")) && (pb = strstr(pb + 1, "{\"name\":"))) {
        const char *ea = strstr(pa, "\",\"kind\""), *eb = strstr(pb, "\",\"kind\"");
        CHECK(ea && eb && ea - pa == eb - pb && !memcmp(pa, pb, (size_t)(ea - pa)));
        CHECK_EQ_INT(int_after(pb, "count"), 3 * int_after(pa, "count"));
        CHECK_EQ_INT(int_after(pb, "total_ns"), 3 * int_after(pa, "total_ns"));
        rows++;
    }
    CHECK(rows > 5);

    /* launch->kernel links: ids renumbered per copy, so each copy links to itself */
    const char *ja = tp_test_tmp("real1.out.json"), *jb = tp_test_tmp("real3.out.json");
    char *la = NULL, *lb = NULL;
    CHECK_EQ_INT(tp_test_run(&la, "%s convert '%s' -o %s", tp_test_bin(), sample, ja), 0);
    CHECK_EQ_INT(tp_test_run(&lb, "%s convert %s -o %s", tp_test_bin(), out, jb), 0);
    CHECK(launch_flows(la) > 0);
    CHECK_EQ_INT(launch_flows(lb), 3 * launch_flows(la));
    /* ids shared between copies would link anyway, with this warning */
    CHECK(la && !strstr(la, "warnings:"));
    CHECK(lb && !strstr(lb, "warnings:"));
    free(la);
    free(lb);
    free(a);
    free(b);
    free(summary);
}

TEST(gen_realshaped_is_deterministic_and_one_copy_is_the_sample)
{
    const char *sample = tp_test_shared(SAMPLE);
    if (!tp_test_file_exists(sample))
        return;
    const char *x = tp_test_tmp("det_x.json"), *y = tp_test_tmp("det_y.json"), *one = tp_test_tmp("one.json"),
               *z = tp_test_tmp("det_x.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --copies 2 --sample '%s' %s", GEN, sample, x), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --copies 2 --sample '%s' %s", GEN, sample, y), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --copies 2 --gzip --sample '%s' %s", GEN, sample, z), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", x, y), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc %s | cmp -s - %s", z, x), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --copies 1 --sample '%s' %s", GEN, sample, one), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc '%s' | cmp -s - %s", sample, one), 0);
    /* --size lands within half a copy of the request */
    const char *sized = tp_test_tmp("sized.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s -q --size 5M --sample '%s' %s", GEN, sample, sized), 0);
    size_t len = 0;
    char *d = tp_test_read_file(sized, &len);
    CHECK(len > 4400000 && len < 5600000);
    free(d);
}
