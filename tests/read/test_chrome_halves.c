/* test_chrome_halves.c: the Chrome reader reads large plain files in two
 * halves on two threads (convert/read/chrome/chrome_halves.c).  The trace
 * must be exactly the one a single reader builds: every sample, every bad
 * input and crafted cases that put a B/E pair, metadata, string pids and
 * stream labels across the split give the same stats, the same converted
 * bytes, the same exit code and the same error line either way. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run CMD (with %s for the binary and the input) once with one reader and
 * once split whatever the size; both must agree on output and status.
 * Returns how the split went ("joined", "abandoned" or "none"). */
static const char *compare_run(const char *what, const char *in, const char *out_one, const char *out_two)
{
    char *a = NULL, *b = NULL;
    int ra = tp_test_run(&a, "TP_READ_THREADS=1 %s %s %s %s 2>&1", tp_test_bin(), what, in, out_one);
    int rb = tp_test_run(&b, "TP_READ_SPLIT_MIN=0 TP_READ_SPLIT_REPORT=1 %s %s %s %s 2>&1", tp_test_bin(), what, in,
                         out_two);
    CHECK_EQ_INT(ra, rb);
    /* b has the report line first; the rest must be a's text */
    const char *how = "none";
    const char *rest = b ? b : "";
    if (strncmp(rest, "tracepress: halves: split at ", 29) == 0) {
        const char *eol = strchr(rest, '\n');
        how = eol && eol - rest >= 7 && memcmp(eol - 7, " joined", 7) == 0 ? "joined" : "abandoned";
        rest = eol ? eol + 1 : rest + strlen(rest);
    }
    if (strcmp(a ? a : "", rest) != 0) {
        fprintf(stderr, "  %s %s differs:\n--- one reader\n%.400s\n--- two halves\n%.400s\n", what, in, a ? a : "",
                rest);
        CHECK(false);
    }
    free(a);
    free(b);
    return how;
}

static const char *same_both_ways(const char *in)
{
    const char *one = tp_test_tmp("halves.one.json"), *two = tp_test_tmp("halves.two.json");
    compare_run("stats --json", in, "", "");
    remove(one);
    remove(two);
    char flag_one[4200], flag_two[4200];
    snprintf(flag_one, sizeof flag_one, "-o %s", one);
    snprintf(flag_two, sizeof flag_two, "-o %s", two);
    const char *how = compare_run("convert -q", in, flag_one, flag_two);
    bool a = tp_test_run(NULL, "test -f %s", one) == 0, b = tp_test_run(NULL, "test -f %s", two) == 0;
    CHECK_EQ_INT(a, b);
    if (a && b)
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", one, two), 0);
    return how;
}

static const char *write_text(const char *name, const char *text)
{
    const char *path = tp_test_tmp(name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

TEST(halves_real_samples_read_the_same)
{
    static const char *samples[] = {
        "external/kineto/hta_nccl_data_2024.json.gz",
        "external/kineto/hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz",
        "external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
        "external/kineto/kineto_plugin_resnet50_array_2020-12.pt.trace.json.gz",
        "external/kineto/hta_critical_path_alexnet_2023.json.gz",
    };
    int joined = 0;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const char *plain = tp_test_tmp("halves.sample.json");
        if (tp_test_run(NULL, "gzip -dc %s > %s", tp_test_shared(samples[i]), plain) != 0)
            continue; /* the sample is missing: other tests say so */
        joined += strcmp(same_both_ways(plain), "joined") == 0;
    }
    CHECK(joined >= 3); /* Kineto's one-event-a-line layout splits */
}

TEST(halves_generated_traces_read_the_same)
{
    const char *gen[] = {"--events 20000 --seed 5", "--events 20000 --seed 6 --quirks", "--events 20000 --old"};
    for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++) {
        const char *path = tp_test_tmp("halves.gen.json");
        CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_kineto -q %s %s", gen[i], path), 0);
        CHECK_STR(same_both_ways(path), "joined");
    }
}

TEST(halves_bad_inputs_fail_the_same)
{
    char *list = NULL;
    CHECK_EQ_INT(tp_test_run(&list, "ls tests/bad/chrome/*.json"), 0);
    for (char *line = list; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (*line)
            same_both_ways(line);
        line = nl ? nl + 1 : line + strlen(line);
    }
    free(list);
}

/* Crafted: N lines of events; what crosses the middle is set by the caller. */
static void crafted(tp_buf *b, int n, const char *first_half_extra, const char *second_half_extra)
{
    tp_buf_puts(b, "{\"traceEvents\": [\n");
    tp_buf_puts(b, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"main\"}}");
    for (int i = 0; i < n; i++) {
        if (i == n / 4 && first_half_extra)
            tp_buf_printf(b, ",\n  %s", first_half_extra);
        if (i == 3 * n / 4 && second_half_extra)
            tp_buf_printf(b, ",\n  %s", second_half_extra);
        tp_buf_printf(b, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": %d, \"tid\": %d, "
                         "\"ts\": %d.5, \"dur\": 1, \"args\": {\"i\": %d, \"s\": \"caf\\u00e9\"}}",
                      i % 13, 1 + i % 2, 1 + i % 3, 1000 + i * 10, i);
    }
    tp_buf_puts(b, "\n], \"deviceProperties\": [{\"id\": 0}], \"baseTimeNanoseconds\": 1000}\n");
}

TEST(halves_state_across_the_split_reads_the_same)
{
    struct {
        const char *name, *first, *second;
    } cases[] = {
        /* a B in the first half, its E in the second; and a second-half E with no B at all */
        {"be", "{\"ph\": \"B\", \"name\": \"outer\", \"pid\": 1, \"tid\": 9, \"ts\": 1, \"args\": {\"a\": 1}}",
         "{\"ph\": \"E\", \"pid\": 1, \"tid\": 9, \"ts\": 99999, \"args\": {\"b\": 2}}"},
        {"orphan", NULL, "{\"ph\": \"E\", \"pid\": 1, \"tid\": 77, \"ts\": 5}"},
        /* a B opened in the second half, never ended */
        {"open", NULL, "{\"ph\": \"B\", \"name\": \"late\", \"pid\": 2, \"tid\": 2, \"ts\": 7}"},
        /* metadata in the second half renames a first-half track and process */
        {"meta", NULL,
         "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"renamed\"}},\n"
         "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"args\": {\"name\": \"\"}},\n"
         "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 1, \"tid\": 2, \"args\": {\"sort_index\": 5}}"},
        /* string pids and stream labels first seen on either side */
        {"strings", "{\"ph\": \"X\", \"name\": \"span\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 3, \"dur\": 1}",
         "{\"ph\": \"X\", \"name\": \"k\", \"cat\": \"kernel\", \"pid\": 1, \"tid\": \"stream 7\", \"ts\": 4, \"dur\": 1},\n"
         "  {\"ph\": \"X\", \"name\": \"span2\", \"pid\": \"Spans\", \"tid\": \"Other\", \"ts\": 5, \"dur\": 1},\n"
         "  {\"ph\": \"X\", \"name\": \"t\", \"pid\": \"Trace\", \"tid\": 3, \"ts\": 6, \"dur\": 1, \"id\": \"0x1f\"}"},
        /* invalid UTF-8 and a warning on the second side only */
        {"warn", NULL, "{\"ph\": \"X\", \"name\": \"bad \xff\", \"pid\": 1, \"tid\": 1, \"ts\": 8, \"dur\": -1}"},
        /* an error in the second half: the same error line either way */
        {"error", NULL, "{\"ph\": \"X\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": tru, \"dur\": 1}"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tp_buf b = {0};
        crafted(&b, 4000, cases[c].first, cases[c].second);
        char name[64];
        snprintf(name, sizeof name, "halves.%s.json", cases[c].name);
        const char *path = write_text(name, b.data);
        tp_buf_free(&b);
        CHECK_STR(same_both_ways(path), "joined");
        /* --strict turns the second half's repairs into the same error */
        compare_run("stats --strict", path, "", "");
    }
    /* a split guess inside an args array is found out and abandoned */
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"big\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
                    "\"dur\": 1, \"args\": {\"list\": [\n");
    for (int i = 0; i < 5000; i++)
        tp_buf_printf(&b, "%s{\"ph\": \"X\", \"name\": \"fake%d\", \"pid\": 5, \"tid\": 5, \"ts\": %d, \"dur\": 1}",
                      i ? ",\n" : "", i, i);
    tp_buf_puts(&b, "\n]}},\n  {\"ph\": \"X\", \"name\": \"after\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}\n]}\n");
    const char *path = write_text("halves.inside.json", b.data);
    tp_buf_free(&b);
    CHECK_STR(same_both_ways(path), "abandoned");
}
