/* test_xplane_parts.c: the XPlane reader reads the later planes on a second
 * thread into a trace of its own and appends it (convert/read/xplane/xplane_parts.c, "two
 * threads").  The result must be the trace one reader builds: the samples,
 * a synthetic XSpace, files whose parts share a pid or number host planes in
 * both (read again on one thread), and broken files (an error in either
 * part, a framing error after the planes) give the same stats, converted
 * bytes (JSON and .pftrace), report summary, exit code and error line
 * either way. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"
#include "tests/lib/pbenc.h"
#include "convert/codec/pbwire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_SAMPLE "external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"
#define AMD_SAMPLE "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"
#define TPU_SAMPLE "external/xplane/tpu_inference_2.xplane.pb"

/* CMD once with one reader and once split whatever the size: same status,
 * same text (the split report line aside).  Returns how the split went:
 * "joined", "read again", "failed" or "none". */
static const char *compare_run(const char *cmd, const char *in, const char *out_one, const char *out_two)
{
    char *a = NULL, *b = NULL;
    int ra = tp_test_run(&a, "TP_READ_THREADS=1 '%s' %s '%s' %s 2>&1", tp_test_bin(), cmd, in, out_one);
    int rb = tp_test_run(&b, "TP_READ_SPLIT_MIN=0 TP_READ_SPLIT_REPORT=1 '%s' %s '%s' %s 2>&1", tp_test_bin(), cmd,
                         in, out_two);
    CHECK_EQ_INT(ra, rb);
    static char how[32];
    snprintf(how, sizeof how, "none");
    const char *rest = b ? b : "";
    const char *tag = "tracepress: planes: split at ";
    const char *line = strstr(rest, tag);
    char *copy = strdup(rest);
    if (line) { /* cut the report line out of b */
        const char *eol = strchr(line, '\n');
        const char *comma = strstr(line, ", ");
        if (comma && eol && comma < eol)
            snprintf(how, sizeof how, "%.*s", (int)(eol - comma - 2), comma + 2);
        size_t at = (size_t)(line - rest);
        memmove(copy + at, copy + at + (eol ? (size_t)(eol + 1 - line) : strlen(line)),
                strlen(copy + at + (eol ? (size_t)(eol + 1 - line) : strlen(line))) + 1);
    }
    if (strcmp(a ? a : "", copy) != 0) {
        fprintf(stderr, "  %s %s differs:\n--- one reader\n%.600s\n--- two parts\n%.600s\n", cmd, in, a ? a : "",
                copy);
        CHECK(false);
    }
    free(copy);
    free(a);
    free(b);
    return how;
}

static void same_file(const char *one, const char *two)
{
    bool a = tp_test_run(NULL, "test -f '%s'", one) == 0, b = tp_test_run(NULL, "test -f '%s'", two) == 0;
    CHECK_EQ_INT(a, b);
    if (a && b && tp_test_run(NULL, "cmp -s '%s' '%s'", one, two) != 0) {
        fprintf(stderr, "  %s and %s differ\n", one, two);
        CHECK(false);
    }
}

/* Everything both ways; returns how the split went (of the stats run). */
static const char *same_both_ways(const char *in)
{
    static char how[32];
    snprintf(how, sizeof how, "%s", compare_run("stats --json", in, "", ""));
    for (int k = 0; k < 2; k++) { /* JSON, then .pftrace */
        char one[4200], two[4200], o1[4300], o2[4300];
        snprintf(one, sizeof one, "%s", tp_test_tmp(k ? "parts.one.pftrace" : "parts.one.json"));
        snprintf(two, sizeof two, "%s", tp_test_tmp(k ? "parts.two.pftrace" : "parts.two.json"));
        remove(one);
        remove(two);
        snprintf(o1, sizeof o1, "-o '%s'", one);
        snprintf(o2, sizeof o2, "-o '%s'", two);
        compare_run("convert -q", in, o1, o2);
        same_file(one, two);
    }
    char d1[4200], d2[4200], o1[4300], o2[4300], s1[4300], s2[4300];
    snprintf(d1, sizeof d1, "%s", tp_test_tmp("parts.rep1"));
    snprintf(d2, sizeof d2, "%s", tp_test_tmp("parts.rep2"));
    tp_test_run(NULL, "rm -rf '%s' '%s'", d1, d2);
    snprintf(o1, sizeof o1, "-o '%s'", d1);
    snprintf(o2, sizeof o2, "-o '%s'", d2);
    compare_run("report -q", in, o1, o2); /* -q: the success line names the output (issue 36) */
    snprintf(s1, sizeof s1, "%s/summary.json", d1);
    snprintf(s2, sizeof s2, "%s/summary.json", d2);
    same_file(s1, s2);
    return how;
}

TEST(xplane_parts_samples_read_the_same_on_two_threads)
{
    CHECK_STR(same_both_ways(tp_test_shared(GPU_SAMPLE)), "joined");
    CHECK_STR(same_both_ways(tp_test_shared(AMD_SAMPLE)), "joined");
    CHECK_STR(same_both_ways(tp_test_shared(TPU_SAMPLE)), "joined");
    const char *syn = tp_test_tmp("parts.synthetic.xplane.pb");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_xplane 3 '%s'", syn), 0);
    CHECK_STR(same_both_ways(syn), "joined");
}

TEST(xplane_parts_shared_pids_and_host_numbers_are_read_again)
{
    /* the GPU sample twice over: every pid (and the host numbering) in both parts */
    size_t len;
    char *buf = tp_test_read_file(tp_test_shared(GPU_SAMPLE), &len);
    CHECK(buf != NULL);
    if (!buf)
        return;
    char *two = malloc(2 * len);
    memcpy(two, buf, len);
    memcpy(two + len, buf, len);
    const char *in = tp_test_write("parts.twice.xplane.pb", two, 2 * len);
    CHECK_STR(same_both_ways(in), "read again");
    free(two);
    free(buf);
}

TEST(xplane_parts_errors_are_the_same_in_either_part)
{
    size_t len;
    char *buf = tp_test_read_file(tp_test_shared(GPU_SAMPLE), &len);
    CHECK(buf != NULL);
    if (!buf)
        return;
    /* cut inside the last plane, inside the first, in the middle; trailing
     * garbage after every plane */
    size_t cuts[] = {len - 1000, len / 10, len / 2};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *in = tp_test_write("parts.cut.xplane.pb", buf, cuts[i]);
        same_both_ways(in); /* the cut plane is a framing error after the planes before it */
    }
    char *junk = malloc(len + 3);
    memcpy(junk, buf, len);
    memcpy(junk + len, "\x0a\xff\x7f", 3); /* a plane field longer than the file */
    CHECK_STR(same_both_ways(tp_test_write("parts.junk.xplane.pb", junk, len + 3)), "joined");
    /* the first or the last plane cut short inside a correct frame: a
     * framing error, found before splitting (one reader reports it) */
    tp_err e0;
    memset(&e0, 0, sizeof e0);
    tp_pb top = tp_pb_init(buf, len);
    tp_pb_field f, planes[64];
    size_t n = 0;
    while (tp_pb_next(&top, &f, &e0) == 1 && n < 64)
        if (f.num == 1 && f.wt == TP_PB_LEN)
            planes[n++] = f;
    CHECK(n >= 3);
    for (size_t cut = 0; cut < 2 && n >= 3; cut++) {
        pbe x = {0};
        for (size_t i = 0; i < n; i++) {
            bool short_one = cut ? i == n - 1 : i == 0;
            size_t l = short_one ? planes[i].len / 2 : planes[i].len;
            pbe_bytes(&x, 1, planes[i].data, l);
        }
        CHECK_STR(same_both_ways(tp_test_write("parts.short.xplane.pb", x.d, x.len)), "none");
        free(x.d);
    }
    /* an event that fails only when read (its time out of range), in the
     * first part or in the second: the part's error, as one reader's */
    for (int bad = 0; bad < 2; bad++) {
        pbe x = {0};
        for (int p = 0; p < 2; p++) {
            pbe plane = {0}, line = {0}, ev = {0}, md = {0}, entry = {0};
            pbe_uint(&ev, 1, 1);
            pbe_uint(&ev, 2, 1000);
            pbe_uint(&ev, 3, p == bad ? UINT64_C(1) << 63 : 5000);
            pbe_uint(&line, 1, 1);
            pbe_str(&line, 2, "stream");
            pbe_uint(&line, 3, 100);
            for (int k = 0; k < 50; k++)
                pbe_msg(&line, 4, &ev);
            pbe_uint(&md, 1, 1);
            pbe_str(&md, 2, "kernel");
            pbe_uint(&entry, 1, 1);
            pbe_msg(&entry, 2, &md);
            pbe_uint(&plane, 1, (uint64_t)p);
            pbe_str(&plane, 2, p ? "/device:GPU:1" : "/device:GPU:0");
            pbe_msg(&plane, 3, &line);
            pbe_msg(&plane, 4, &entry);
            pbe_msg(&x, 1, &plane);
            pbe_free(&plane);
            pbe_free(&line);
            pbe_free(&ev);
            pbe_free(&md);
            pbe_free(&entry);
        }
        CHECK_STR(same_both_ways(tp_test_write("parts.badtime.xplane.pb", x.d, x.len)), "failed");
        pbe_free(&x);
    }
    free(junk);
    free(buf);
}

/* Derived lines are built beside linking (convert/pipeline/pipeline.c); with one
 * thread they are built before it: the same trace either way. */
TEST(xplane_derived_lines_built_beside_linking_are_the_same)
{
    const char *samples[] = {GPU_SAMPLE, AMD_SAMPLE, TPU_SAMPLE};
    const char *one = tp_test_tmp("beside.one.pftrace"), *two = tp_test_tmp("beside.two.pftrace");
    for (size_t i = 0; i < 3; i++) {
        const char *in = tp_test_shared(samples[i]);
        CHECK_EQ_INT(tp_test_run(NULL, "TP_THREADS=1 '%s' convert -q '%s' --rederive -o '%s'", tp_test_bin(), in, one), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' --rederive -o '%s'", tp_test_bin(), in, two), 0);
        same_file(one, two);
    }
}
