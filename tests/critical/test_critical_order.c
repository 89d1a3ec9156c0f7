/* test_critical_order.c: what the critical path's cheaper passes (issue 37) must keep: the nesting of two host ops
 * that start at once (longer first, whatever their order in the file: the host events are dealt out by thread,
 * then the ties sorted), a communication kernel's bound and a host op's (a name's bits worked out once a trace,
 * not per path link), and the same paths on one thread or two lanes.  The numbers are the ones the code before
 * those changes gave (by hand: below). */
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "convert/critical/critical.h"

#include <stdlib.h>
#include <string.h>

/* Times in us.  Host pid 1 tid 1 (tid 2: another thread), GPU pid 0 stream 7.
 *   ProfilerStep#1 0..100
 *   aten::inner 10..20 (in the file before aten::outer 10..40, which holds it)
 *     cudaLaunchKernel 12..14 (1)  -> ncclDevKernel_AllReduce_Sum_f32 15..44
 *   aten::op3 45..90
 *     cudaLaunchKernel 50..52 (2)  -> gemm 52..80: 8 after the nccl kernel (kernel gap)
 *     cudaLaunchKernel 52..53 (3)  -> gemm2 80..95
 *   aten::bg 5..15 on tid 2
 * The path: aten::inner's start (10) -> the launch (12, cpu_op 2 in aten::inner: it is the innermost) -> the
 * nccl kernel (launch delay 3, communication 29) -> gemm (kernel gap 8, kernel 28) -> gemm2 (15) -> 95;
 * outside 0..10 and 95..100. */
static const char trace[] =
    "{\"traceEvents\":[\n"
#define OP(name, tid, ts, dur)                                                                                   \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur "},\n"
#define LAUNCH(ts, dur, c)                                                                                       \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" #ts      \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #c "}},\n"
#define KERNEL(name, ts, dur, c)                                                                                 \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur     \
    ",\"args\":{\"correlation\":" #c "}}"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
    OP("aten::inner", 1, 10, 10) OP("aten::outer", 1, 10, 30) LAUNCH(12, 2, 1) OP("aten::op3", 1, 45, 45)
    LAUNCH(50, 2, 2) LAUNCH(52, 1, 3) OP("aten::bg", 2, 5, 10)
    KERNEL("ncclDevKernel_AllReduce_Sum_f32", 15, 29, 1) ",\n" KERNEL("gemm", 52, 28, 2) ",\n"
    KERNEL("gemm2", 80, 15, 3) "\n"
    "]}\n";
#undef OP
#undef LAUNCH
#undef KERNEL

TEST(critical_path_ties_and_name_bounds)
{
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(tp_test_write_text("cp_order.json", trace), &t, &s) == 0);
    CHECK_EQ_INT((long long)s.cp.n, 1);
    if (s.cp.n != 1) {
        tp_summary_free(&s);
        tp_trace_free(&t);
        return;
    }
    const tp_cp_path *p = &s.cp.paths[0];
    CHECK_EQ_INT(p->nodes, 20);
    CHECK_EQ_INT(p->edges, 20);
    CHECK_EQ_INT(p->edges_of[TP_CPE_OPERATOR], 14);
    CHECK_EQ_INT(p->edges_of[TP_CPE_DEPENDENCY], 1);
    CHECK_EQ_INT(p->edges_of[TP_CPE_LAUNCH], 3);
    CHECK_EQ_INT(p->edges_of[TP_CPE_KERNEL_KERNEL], 2);
    CHECK_EQ_INT(p->weighted_ns, 85000);
    CHECK_EQ_INT(p->path_events, 6);
    CHECK_EQ_INT((long long)p->nlinks, 8);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_OUTSIDE], 15000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_CPU], 2000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_LAUNCH], 3000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_COMM], 29000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_KERNEL_GAP], 8000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_KERNEL], 43000);
    /* the 2 us before the launch are aten::inner's: the op that starts with aten::outer and ends first is inside it */
    CHECK_EQ_INT(p->longest_cpu_ns, 2000);
    CHECK_STR(tp_str_get(&t, p->longest_cpu_name), "aten::inner");
    CHECK_EQ_INT((long long)p->ntop, 5);
    CHECK_STR(tp_str_get(&t, p->top[0].name), "ncclDevKernel_AllReduce_Sum_f32");
    CHECK_EQ_INT(p->top[0].bound, TP_CPB_COMM);
    CHECK_EQ_INT(p->top[0].ns, 29000);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* Many steps (windows) taken by two lanes or by one thread: the same summary.json, byte for byte. */
TEST(critical_path_lanes_same_as_one_thread)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < 40; i++) {
        int base = 1000 * i;
        tp_buf_printf(&b,
                      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%d,\"dur\":900},\n"
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n"
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
                      "\"args\":{\"correlation\":%d}},\n",
                      i, base, base + 10, 300, base + 10, 100 + i % 7, base + 20, i + 1,
                      i % 3 ? "gemm" : "ncclKernel_AllReduce", 7 + i % 2, base + 30 + i % 5, 200 + 37 * (i % 9), i + 1);
    }
    tp_buf_printf(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::end\",\"pid\":1,\"tid\":1,\"ts\":99000,\"dur\":1}\n]}\n");
    const char *in = tp_test_write_text("cp_lanes.json", b.data);
    tp_buf_free(&b);
    char *one = NULL, *two = NULL;
    CHECK_EQ_INT(tp_test_run(&one, "TP_REPORT_THREADS=1 '%s' stats --json '%s'", tp_test_bin(), in), 0);
    CHECK_EQ_INT(tp_test_run(&two, "'%s' stats --json '%s'", tp_test_bin(), in), 0);
    CHECK(one && two && strcmp(one, two) == 0);
    CHECK(one && strstr(one, "critical"));
    free(one);
    free(two);
}
