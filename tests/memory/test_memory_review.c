/* test_memory_review.c: defects found in the review of issue 34 (device
 * memory): diff's wording of a memory risk, the memory gate's threshold
 * syntax, the caveats' wording. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

/* one step, one op, a kernel; with mem, two allocations whose levels leave reserved at 2000 B over a
 * 1300 B peak (fragmentation: 35% of the peak reserved is free) */
static const char *trace(const char *name, bool mem)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"traceEvents\":[\n"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#0\",\"pid\":1,\"tid\":1,\"ts\":0,"
             "\"dur\":1000},\n"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":800,"
             "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}%s]}\n",
             mem ? ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":150,\"args\":{"
                   "\"Device Type\":1,\"Device Id\":0,\"Addr\":8192,\"Bytes\":200,\"Total Allocated\":1300,"
                   "\"Total Reserved\":2000}},\n"
                   "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":160,\"args\":{"
                   "\"Device Type\":1,\"Device Id\":0,\"Addr\":8192,\"Bytes\":-200,\"Total Allocated\":1100,"
                   "\"Total Reserved\":2000}}\n"
                 : "");
    return tp_test_write_text(name, text);
}

/* A memory risk's value is a share of its own base, not of time: diff.md and the finding gate read
 * "35.0% of no time (a memory risk)" (was). */
TEST(memory_diff_risk_finding_names_its_base)
{
    const char *a = trace("nomem.json", false), *b = trace("frag.json", true), *dir = tp_test_tmp("drisk");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff %s %s -o %s -q --fail-on-finding memory_fragmentation 2>&1", tp_test_bin(),
                             a, b, dir),
                 3);
    CHECK(out && strstr(out, "finding memory_fragmentation (medium) is new: a memory risk, 35.0% of the peak reserved"));
    CHECK(out && !strstr(out, "no time"));
    free(out);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "(`memory_fragmentation`, medium): a memory risk, 35.0% of the peak reserved (not found in "
                           "the base)"));
    CHECK(md && !strstr(md, "of no time"));
    free(md);
}

/* The threshold is digits (a fraction allowed) and a unit: strtod alone took "0x10" as 16%, "1e2" as 100%
 * and " 5" as 5% (was exit 0 or 3; a usage error is exit 1). */
TEST(memory_gate_threshold_strict)
{
    char a[1024], b[1024]; /* the harness's paths rotate through 8 buffers: the loops below use more */
    snprintf(a, sizeof a, "%s", trace("g_base.json", true));
    snprintf(b, sizeof b, "%s", trace("g_cand.json", true));
    static const char *const bad[] = {"0x10", "1e2", " 5", "5.", ".5", "5 %", "-5", "nan", "inf", "5%%", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        char name[32];
        snprintf(name, sizeof name, "gbad%zu", i);
        int rc = tp_test_run(&out, "%s diff %s %s -q -o %s --fail-if-memory-higher '%s' 2>&1", tp_test_bin(), a, b,
                             tp_test_tmp(name), bad[i]);
        if (rc != 1)
            tp_test_fail(__FILE__, __LINE__, "--fail-if-memory-higher '%s': exit %d, want 1", bad[i], rc);
        CHECK(out && strstr(out, "--fail-if-memory-higher takes a percentage"));
        free(out);
    }
    static const char *const good[] = {"5", "5%", "0.5", "2.25%", "512MiB", "1.5GiB", "1048576B", "2GB"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char *out = NULL;
        char name[32];
        snprintf(name, sizeof name, "ggood%zu", i);
        int rc = tp_test_run(&out, "%s diff %s %s -q -o %s --fail-if-memory-higher '%s' 2>&1", tp_test_bin(), a, b,
                             tp_test_tmp(name), good[i]);
        if (rc != 0)
            tp_test_fail(__FILE__, __LINE__, "--fail-if-memory-higher '%s': exit %d, want 0: %s", good[i], rc, out ? out : "");
        free(out);
    }
}

/* The caveats count in the right number ("1 memory events lack", "1 lack Addr", "1 frees" were), and a
 * double free is named, not only a block made before the trace. */
TEST(memory_caveats_singular_and_plural)
{
    const char *in = tp_test_write_text(
        "caveats.json",
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":110,\"args\":{\"Device Id\":0,"
        "\"Bytes\":5}},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":120,\"args\":{\"Device Type\":1,"
        "\"Device Id\":0,\"Bytes\":5,\"Total Allocated\":5,\"Total Reserved\":10}},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":130,\"args\":{\"Device Type\":1,"
        "\"Device Id\":0,\"Addr\":64,\"Bytes\":-8,\"Total Allocated\":0,\"Total Reserved\":10}},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":140,\"args\":{\"Device Type\":1,"
        "\"Device Id\":0,\"Addr\":72,\"Bytes\":3}}\n"
        "]}\n");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "1 memory event lacks Device Type or Bytes (skipped)") &&
          strstr(out, "1 lacks Total Allocated/Total Reserved") && strstr(out, "1 lacks Addr (not in the holders)") &&
          strstr(out, "1 free without an allocation in the trace (made before it began, or freed twice)"));
    free(out);
}
