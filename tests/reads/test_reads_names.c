/* test_reads_names.c: a converted trace names every process and track
 * (issue 36 item 7): a trace without metadata events, two streams. */
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* host pid 100 launches one kernel on each of GPU 0's streams 7 and 13; no "M" events */
static const char *NO_META =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":100,\"tid\":101,\"ts\":0,\"dur\":50},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":101,\"ts\":10,\"dur\":5,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":100,\"tid\":101,\"ts\":60,\"dur\":30},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":101,\"ts\":65,\"dur\":5,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":40,"
    "\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_kernel\",\"pid\":0,\"tid\":13,\"ts\":70,\"dur\":10,"
    "\"args\":{\"correlation\":2,\"device\":0,\"stream\":13}}\n"
    "]}\n";

static bool has(const char *doc, const char *what) { return doc && strstr(doc, what) != NULL; }

TEST(convert_names_unnamed_processes_and_streams)
{
    const char *in = tp_test_write_text("nometa.json", NO_META), *out = tp_test_tmp("nometa.out.json");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' -o '%s'", tp_test_bin(), in, out), 0);
    char *doc = tp_test_read_file(out, NULL);
    CHECK(has(doc, "\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}"));
    CHECK(has(doc, "\"name\":\"process_name\",\"pid\":100,\"args\":{\"name\":\"pid 100\"}"));
    CHECK(has(doc, "\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7\"}"));
    CHECK(has(doc, "\"pid\":0,\"tid\":13,\"args\":{\"name\":\"stream 13\"}"));
    CHECK(has(doc, "\"pid\":100,\"tid\":101,\"args\":{\"name\":\"thread 101\"}"));
    /* the derived lines of the two streams are told apart */
    CHECK(has(doc, "\"args\":{\"name\":\"Framework Ops (stream 7)\"}"));
    CHECK(has(doc, "\"args\":{\"name\":\"Framework Ops (stream 13)\"}"));
    CHECK(!has(doc, "\"args\":{\"name\":\"Framework Ops\"}"));
    free(doc);
    /* converted again: the same bytes (names are never renamed) */
    const char *again = tp_test_tmp("nometa.again.json");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' -o '%s' && cmp -s '%s' '%s'", tp_test_bin(), out, again, out,
                             again), 0);
}

/* a negative pid (no operating system gives one) is not shown as "Process -1" */
TEST(convert_names_a_negative_pid)
{
    const char *in = tp_test_write_text("negpid.json",
                                        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"work\",\"pid\":-1,\"tid\":-1,"
                                        "\"ts\":0,\"dur\":5}]}\n");
    const char *out = tp_test_tmp("negpid.out.json"), *pf = tp_test_tmp("negpid.pftrace");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' -o '%s'", tp_test_bin(), in, out), 0);
    char *doc = tp_test_read_file(out, NULL);
    CHECK(has(doc, "\"name\":\"process_name\",\"pid\":-1,\"args\":{\"name\":\"host (no process id)\"}"));
    free(doc);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q '%s' -o '%s'", tp_test_bin(), in, pf), 0);
    size_t n = 0;
    char *bin = tp_test_read_file(pf, &n);
    CHECK(bin && !memmem(bin, n, "Process -1", 10) && memmem(bin, n, "host (no process id)", 20));
    free(bin);
}

/* the report names Kineto's pid -1 (CUPTI's own overhead, as the B200 trace holds) as convert does: the
 * timeline read "pid -1 tid 0" */
TEST(report_names_a_negative_pid)
{
    if (!tp_test_have("pdftotext"))
        return;
    char text[4096];
    snprintf(text, sizeof text, "%.*s,\n{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"Lazy Function Loading\",\"pid\":-1,"
                                "\"tid\":0,\"ts\":30,\"dur\":20}\n]}\n",
             (int)(strstr(NO_META, "\n]}") - NO_META), NO_META);
    const char *in = tp_test_write_text("negpid_report.json", text), *dir = tp_test_tmp("negpid.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' -", dir), 0);
    CHECK(has(out, "host (no process id)") && !has(out, "pid -1"));
    free(out);
}
