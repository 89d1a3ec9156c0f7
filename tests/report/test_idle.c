/* test_idle.c: idle attribution and launch statistics per stream
 * (report/analysis/idle.h): a hand-computed synthetic trace with every gap
 * kind, and HTA's test traces against HTA's definitions recomputed by hand
 * (scripts/hta_idle.py --no-filter: HTA's own tests assert nothing on these
 * files). */
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"
#include "report/out/idle_json.h"

#include <stdlib.h>

/* Times in us; host thread pid 1 tid 1; streams 7 and 20 of GPU 0.
 * Stream 7 (span 20..420):
 *   K1  20..50     launch 10..15 (corr 1)          delay 5, queued 10..20
 *   K2  50.5..60   launch 16..18 (2)   gap 0.5 before a call from 16: kernel wait; delay 32.5, queued 16..50.5
 *   K3  76..80     launch 70..75 (3)   gap 16 after a call from 70 > 60: host wait; delay 1
 *   K4  150..160   launch 78..79 (4)   gap 70 >= 30, call before it: other; delay 71, queued 78..150
 *   K5  165..170   no launch           gap 5 < 30: kernel wait
 *   K6  250..260   no launch           gap 80: other
 *   K7  263..270   launch 262..264.25 (7): gap 3 host wait; starts before the call ends: delay 0, clipped
 *   K8  400..410   cudaGraphLaunch 300..301 (8): gap 130 host wait; no delay, not queued
 *   K9  405..408   inside K8, no launch
 *   K10 412..420   no launch           gap 2 from K8's end (410, not K9's 408): kernel wait
 * Stream 20 (span 25..97), overlapping stream 7 in time:
 *   memcpy 25..45  cudaMemcpyAsync 12..14 (11)    delay 11, queued 12..25
 *   K12 45..55     launch 13..14.5 (12)            back to back: no gap; delay 30.5, queued 13..45
 *   K13 90..95     launch 100..101 (13)            gap 35 host wait; starts before its call: delay 0 clipped, not queued
 *   memset 96..97  cudaMemsetAsync 94..94.5 (14)   gap 1 kernel wait; delay 1.5, queued 94..96 */
static const char synth[] =
    "{\"traceEvents\":[\n"
#define RT(name, ts, dur, c)                                                                                     \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #c "}},\n"
#define DEV(cat, name, tid, ts, dur, c)                                                                          \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #c "}},\n"
#define DEV0(name, tid, ts, dur)                                                                                 \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur "},\n"
    RT("cudaLaunchKernel", 10, 5, 1) RT("cudaMemcpyAsync", 12, 2, 11) RT("cudaLaunchKernel", 13, 1.5, 12)
    RT("cudaLaunchKernel", 16, 2, 2) RT("cudaLaunchKernel", 70, 5, 3) RT("cudaLaunchKernel", 78, 1, 4)
    RT("cudaMemsetAsync", 94, 0.5, 14) RT("cudaLaunchKernel", 100, 1, 13) RT("cudaLaunchKernel", 262, 2.25, 7)
    RT("cudaGraphLaunch", 300, 1, 8)
    DEV("kernel", "k1", 7, 20, 30, 1) DEV("kernel", "k2", 7, 50.5, 9.5, 2) DEV("kernel", "k3", 7, 76, 4, 3)
    DEV("kernel", "k4", 7, 150, 10, 4) DEV0("k5", 7, 165, 5) DEV0("k6", 7, 250, 10)
    DEV("kernel", "k7", 7, 263, 7, 7) DEV("kernel", "k8", 7, 400, 10, 8) DEV0("k9", 7, 405, 3)
    DEV0("k10", 7, 412, 8)
    DEV("gpu_memcpy", "Memcpy HtoD", 20, 25, 20, 11) DEV("kernel", "k12", 20, 45, 10, 12)
    DEV("kernel", "k13", 20, 90, 5, 13) DEV("gpu_memset", "Memset (Device)", 20, 96, 1, 14)
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::end\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":1}\n"
    "]}\n";
#undef RT
#undef DEV
#undef DEV0


typedef struct want {
    int64_t span, host, kernel, other;
    uint64_t launched, clipped;
    int64_t p50, p90, max;
    uint64_t qmax;
    int64_t wait, window;
} want;

static void check_stream(const tp_idle_stream *r, const want *w, int line)
{
    int64_t got[] = {r->end_ns - r->start_ns, r->host_wait_ns, r->kernel_wait_ns, r->other_ns, (int64_t)r->launched,
                     r->delay_p50_ns, r->delay_p90_ns, r->delay_max_ns, (int64_t)r->queue_max, r->queue_wait_ns,
                     r->queue_window_ns};
    int64_t exp[] = {w->span, w->host, w->kernel, w->other, (int64_t)w->launched, w->p50, w->p90, w->max,
                     (int64_t)w->qmax, w->wait, w->window};
    static const char *const what[] = {"span", "host wait", "kernel wait", "other", "launched", "p50", "p90", "max",
                                       "queue max", "queue wait", "queue window"};
    for (size_t i = 0; i < sizeof got / sizeof *got; i++)
        if (got[i] != exp[i])
            tp_test_fail(__FILE__, line, "%s is %lld, expected %lld", what[i], (long long)got[i], (long long)exp[i]);
    if (w->clipped != (uint64_t)-1 && r->clipped != w->clipped)
        tp_test_fail(__FILE__, line, "clipped is %llu, expected %llu", (unsigned long long)r->clipped,
                     (unsigned long long)w->clipped);
    /* the invariants */
    if (r->host_wait_ns + r->kernel_wait_ns + r->other_ns != r->idle_ns ||
        r->busy_ns + r->idle_ns != r->end_ns - r->start_ns)
        tp_test_fail(__FILE__, line, "idle parts do not add up");
}

TEST(idle_synthetic_every_gap_kind_hand_computed)
{
    tp_trace t;
    CHECK(tp_test_load(tp_test_write_text("idle.json", synth), &t) == 0);
    tp_report_opts ro = {"idle.json", NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    CHECK_EQ_INT(s.idle.n, 2);
    if (s.idle.n == 2) {
        const tp_idle_stream *a = &s.idle.streams[0], *b = &s.idle.streams[1];
        /* stream 7: host wait 16 + 3 + 130, kernel wait 0.5 + 5 + 2, other 70 + 80 us; delays
         * 0 1 5 32.5 71: p90 at 3.6 = 32.5 + 0.6 * 38.5; queued 10 + 34.5 + 6 + 72 + 1 us in 10..420 */
        check_stream(a, &(want){400000, 149000, 7500, 150000, 5, 1, 5000, 55600, 71000, 2, 123500, 410000}, __LINE__);
        CHECK_EQ_INT(a->activities, 10);
        CHECK_EQ_INT(a->busy_ns, 93500);
        CHECK_EQ_INT(a->gaps, 8);
        CHECK_EQ_INT(a->host_wait_gaps, 3);
        CHECK_EQ_INT(a->kernel_wait_gaps, 3);
        CHECK_EQ_INT(a->other_gaps, 2);
        /* stream 20: delays 0 1.5 11 30.5: p50 at 1.5, p90 at 2.7; queued 13 + 32 + 2 us in 12..97 */
        check_stream(b, &(want){72000, 35000, 1000, 0, 4, 1, 6250, 24650, 30500, 2, 47000, 85000}, __LINE__);
        CHECK_EQ_INT(b->gaps, 2);
    }
    tp_buf js = {0};
    tp_idle_json(&s, &js);
    CHECK(js.data && strstr(js.data, "{\"stream\":\"device 0 tid 7\",\"device\":\"device 0\",\"activities\":10,"
                                     "\"span_ns\":400000,\"busy_ns\":93500,\"idle_ns\":306500,\"host_wait_ns\":149000,"
                                     "\"kernel_wait_ns\":7500,\"other_ns\":150000,\"gaps\":{\"host_wait\":3,"
                                     "\"kernel_wait\":3,\"other\":2},\"launch_delay\":{\"count\":5,\"clipped\":1,"
                                     "\"p50_ns\":5000,\"p90_ns\":55600,\"max_ns\":71000},\"queue_length\":{\"max\":2,"
                                     "\"mean\":0.301220}}"));
    CHECK(js.data && strstr(js.data, "\"queue_length\":{\"max\":2,\"mean\":0.552941}}]"));
    tp_buf_free(&js);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

TEST(idle_no_launches_and_no_streams)
{
    tp_trace t;
    /* one unlinked kernel: no gap, no delay (null in JSON), queue 0 */
    CHECK(tp_test_load(tp_test_write_text("idle1.json", "{\"traceEvents\":["
                                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                                                "\"ts\":5,\"dur\":2}]}"),
               &t) == 0);
    tp_report_opts ro = {"idle1.json", NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    CHECK_EQ_INT(s.idle.n, 1);
    tp_buf js = {0};
    tp_idle_json(&s, &js);
    CHECK(js.data && strstr(js.data, "\"span_ns\":2000,\"busy_ns\":2000,\"idle_ns\":0,"));
    CHECK(js.data && strstr(js.data, "\"launch_delay\":{\"count\":0,\"clipped\":0,\"p50_ns\":null,\"p90_ns\":null,"
                                     "\"max_ns\":null},\"queue_length\":{\"max\":0,\"mean\":0.000000}}]"));
    tp_buf_free(&js);
    tp_summary_free(&s);
    tp_trace_free(&t);
    /* no device activity: an empty list */
    CHECK(tp_test_load(tp_test_write_text("idle0.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\","
                                                "\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2}]}"),
               &t) == 0);
    tp_summary_build(&t, &ro, &s);
    CHECK_EQ_INT(s.idle.n, 0);
    tp_idle_json(&s, &js);
    CHECK(js.data && strcmp(js.data, "\"idle_attribution\":[]") == 0);
    tp_buf_free(&js);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* HTA's trace_filter samples (the same bytes as HTA's tests/data/trace_filter/):
 * HTA's definitions recomputed by scripts/hta_idle.py --no-filter on every
 * device event give exactly these; no stream has overlapping activities, so
 * HTA's gap rule and ours agree. */
TEST(idle_hta_trace_filter_samples_match_hta_definitions)
{
    static const struct {
        const char *file;
        size_t stream;
        want w;
    } cases[] = {
        {"rank-0", 0, {1202935000, 397917000, 3765000, 598335000, 1052, (uint64_t)-1, 11940500, 60682200, 111018000, 80,
                       19370601000, 1202959000}},
        {"rank-0", 1, {1222847000, 1214793000, 160000, 34000, 126, (uint64_t)-1, 0, 187000, 779000, 4, 8948000,
                       1222863000}},
        {"rank-0", 2, {661435000, 560120000, 35000, 100413000, 16, (uint64_t)-1, 62567500, 67770000, 68511000, 8,
                       814824000, 677609000}},
        {"rank-0", 3, {1088108000, 794901000, 6000, 3142000, 8, (uint64_t)-1, 26578500, 64997900, 73008000, 2,
                       243519000, 1088121000}},
        {"rank-0", 4, {664213000, 558073000, 0, 0, 2, (uint64_t)-1, 56287000, 61141400, 62355000, 1, 112623000,
                       726587000}},
        {"rank-1", 0, {1203790000, 407794000, 3475000, 524657000, 1002, (uint64_t)-1, 13381500, 44002200, 120824000, 91,
                       19110640000, 1203824000}},
        {"rank-1", 1, {1231186000, 1222526000, 134000, 30000, 126, (uint64_t)-1, 0, 82000, 1084000, 2, 7917000,
                       1231203000}},
        {"rank-1", 2, {660404000, 556447000, 17000, 91823000, 16, (uint64_t)-1, 60509500, 65772000, 66139000, 8,
                       729589000, 675608000}},
        {"rank-1", 3, {1052582000, 715850000, 0, 62586000, 8, (uint64_t)-1, 30174000, 78066400, 104518000, 1, 299720000,
                       1073357000}},
        {"rank-1", 4, {663940000, 559033000, 0, 0, 2, (uint64_t)-1, 65737500, 70798700, 72064000, 1, 131514000,
                       736023000}},
    };
    static const char *const labels[] = {"stream 7", "stream 23", "stream 25", "stream 84", "stream 203"};
    for (int r = 0; r < 2; r++) {
        char rel[128];
        snprintf(rel, sizeof rel, "external/hta/trace_filter_sampled_rank-%d.json.gz", r);
        tp_trace t;
        CHECK(tp_test_load(tp_test_shared(rel), &t) == 0);
        tp_report_opts ro = {rel, NULL, 0, NULL, false, NULL, false, NULL};
        tp_summary s;
        tp_summary_build(&t, &ro, &s);
        CHECK_EQ_INT(s.idle.n, 5);
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            if (cases[k].file[5] - '0' != r || cases[k].stream >= s.idle.n)
                continue;
            const tp_idle_stream *st = &s.idle.streams[cases[k].stream];
            char lab[128];
            tp_stream_label(&t, st->track, lab, sizeof lab);
            CHECK(strstr(lab, labels[cases[k].stream]) != NULL);
            check_stream(st, &cases[k].w, __LINE__);
        }
        /* clipped launch delays (kernels that started before their launch call returned), stream 7 */
        CHECK_EQ_INT(s.idle.streams[0].clipped, r == 0 ? 57 : 126);
        tp_summary_free(&s);
        tp_trace_free(&t);
    }
}
