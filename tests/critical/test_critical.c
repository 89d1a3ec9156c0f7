/* test_critical.c: the critical path (convert/critical/critical.h): a
 * hand-computed synthetic step (nesting, launch delay, a cudaStreamWaitEvent
 * matched to its cudaEventRecord, a graph launch's two kernels, a
 * cudaStreamSynchronize), HTA's own numbers on the shared AlexNet trace
 * (HolisticTraceAnalysis critical_path_analysis on
 * hta_critical_path_alexnet_2023.json.gz, annotation
 * [param|pytorch.model.alex_net|0|0|0|measure|forward] instance 1, with
 * CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 as HTA's tests run it), the
 * overlay of `convert --critical-path`, and the errors. */
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "convert/critical/critical.h"

#include <stdlib.h>
#include <string.h>

/* Times in us.  Host pid 1 tid 1, GPU pid 0 streams 7 and 20.
 *   ProfilerStep#1 0..200
 *   aten::op1 10..60
 *     cudaLaunchKernel 20..25 (1)     -> k1 stream 7 30..80: launch delay 10
 *     cudaEventRecord 30..31 (2)        records stream 7 after k1's launch
 *     cudaStreamWaitEvent 32..33 (3)  -> Stream Wait Event on stream 20 (waits for record 2 on stream 7)
 *     cudaLaunchKernel 40..42 (4)     -> k2 stream 20 81..90: waits for k1 (sync edge, weight 0)
 *   cudaGraphLaunch 65..70 (5)        -> g1 stream 7 95..100, g2 101..105: kernel-kernel 15, 1
 *   cudaStreamSynchronize 110..150 (6) -> Stream Sync stream 7: g2's end -> the call's end (weight 0)
 *   aten::op2 155..190
 * The path: op1 start -> launch start -> k1 -> g1 -> g2 -> sync end -> op2:
 * weight 10+10+50+15+5+1+4+0+0+35 = 130 us; the window's time: outside
 * 0..10 and 190..200, cpu_op 10..20, 150..155 (between ops), 155..190 = 50,
 * launch 10, kernel 50+5+4 = 59, kernel gap 16, sync 105..150 = 45. */
static const char synth[] =
    "{\"traceEvents\":[\n"
#define HOST(cat, name, ts, dur, c)                                                                              \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #c "}},\n"
#define DEV(cat, name, tid, ts, dur, c, more)                                                                    \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #c more "}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":200},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},\n"
    HOST("cuda_runtime", "cudaLaunchKernel", 20, 5, 1) HOST("cuda_runtime", "cudaEventRecord", 30, 1, 2)
    HOST("cuda_runtime", "cudaStreamWaitEvent", 32, 1, 3) HOST("cuda_runtime", "cudaLaunchKernel", 40, 2, 4)
    HOST("cuda_runtime", "cudaGraphLaunch", 65, 5, 5) HOST("cuda_runtime", "cudaStreamSynchronize", 110, 40, 6)
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op2\",\"pid\":1,\"tid\":1,\"ts\":155,\"dur\":35},\n"
    DEV("kernel", "k1", 7, 30, 50, 1, "") DEV("kernel", "k2", 20, 81, 9, 4, "")
    DEV("kernel", "g1", 7, 95, 5, 5, "") DEV("kernel", "g2", 7, 101, 4, 5, "")
    DEV("cuda_sync", "Stream Wait Event", 20, 33, 1, 3,
        ",\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":2,\"stream\":20")
    DEV("cuda_sync", "Stream Sync", 7, 110, 40, 6, ",\"stream\":7")
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::after\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":1}\n"
    "]}\n";
#undef HOST
#undef DEV

static bool on_path(const tp_trace *t, const tp_cp_path *p, const char *name)
{
    for (size_t i = 0; i < p->nlinks; i++)
        if (strcmp(tp_str_get(t, t->events[p->links[i].from_ev].name), name) == 0 ||
            strcmp(tp_str_get(t, t->events[p->links[i].to_ev].name), name) == 0)
            return true;
    return false;
}

TEST(critical_path_synthetic_step)
{
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(tp_test_write_text("cp_synth.json", synth), &t, &s) == 0);
    CHECK_EQ_INT((long long)s.cp.n, 1);
    const tp_cp_path *p = &s.cp.paths[0];
    CHECK_EQ_INT(p->step, 1);
    /* 8 host events, 4 device activities, the 2 sync events on a stream (as HTA: no edge) */
    CHECK_EQ_INT(p->nodes, 28);
    CHECK_EQ_INT(p->length_ns, 200000);
    CHECK_EQ_INT(p->weighted_ns, 130000);
    int64_t sum = 0;
    for (int k = 0; k < TP_CPB_COUNT; k++)
        sum += p->bound_ns[k];
    CHECK_EQ_INT(sum, p->length_ns);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_OUTSIDE], 20000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_CPU], 50000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_LAUNCH], 10000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_KERNEL], 59000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_KERNEL_GAP], 16000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_SYNC], 45000);
    /* the stream wait (k1 -> k2) and the stream sync (g2 -> the call's end), weight 0 */
    CHECK_EQ_INT(p->edges_of[TP_CPE_SYNC], 2);
    CHECK_EQ_INT(p->sync_nonzero, 0);
    /* the graph launch's two kernels are nodes, and on the path */
    CHECK(on_path(&t, p, "g1") && on_path(&t, p, "g2") && on_path(&t, p, "k1"));
    CHECK(!on_path(&t, p, "k2") && !on_path(&t, p, "aten::after"));
    CHECK_EQ_INT(p->path_events, 7);
    CHECK_EQ_INT((long long)p->nlinks, 10);
    CHECK_EQ_INT(p->longest_cpu_ns, 35000);
    CHECK_STR(tp_str_get(&t, p->longest_cpu_name), "aten::op2");
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* Without the stream wait's record the kernel has no sync edge: the match is
 * what makes it (HTA _get_cuda_event_record_df). */
TEST(critical_path_wait_needs_its_record)
{
    char *text = tp_xstrdup(synth);
    char *r = strstr(text, "\"wait_on_cuda_event_record_corr_id\":2");
    CHECK(r != NULL);
    r[strlen("\"wait_on_cuda_event_record_corr_id\":")] = '9'; /* no record 9 */
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(tp_test_write_text("cp_norecord.json", text), &t, &s) == 0);
    CHECK_EQ_INT(s.cp.paths[0].edges_of[TP_CPE_SYNC], 1);
    tp_summary_free(&s);
    tp_trace_free(&t);
    free(text);
}

static const char *alexnet(void) { return tp_test_shared("external/kineto/hta_critical_path_alexnet_2023.json.gz"); }
#define ALEX_WINDOW "[param|pytorch.model.alex_net|0|0|0|measure|forward]#1"

/* HTA on this window: 462 nodes (ours 424: HTA also makes nodes of every
 * Stream Wait Event of the trace, in every window; no edge touches them), 456 edges
 * (operator 354, dependency 23, launch delay 40, kernel-kernel 34, sync 5),
 * 149 path nodes, 77 critical events, the path's weights 32042 + 3712 + 50
 * + 30 us = 35834 us. */
TEST(critical_path_alexnet_equals_hta)
{
    const char *dir = tp_test_tmp("cp_alex_report");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report '%s' --critical-path-window '" ALEX_WINDOW "' -o '%s'", tp_test_bin(),
                             alexnet(), dir),
                 0);
    free(out);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js != NULL);
    if (!js)
        return;
    CHECK(strstr(js, "\"edges\":456,\"edges_by_type\":{\"operator\":354,\"dependency\":23,\"launch_delay\":40,"
                     "\"kernel_kernel_delay\":34,\"sync\":5},\"sync_edges_weighted\":0") != NULL);
    CHECK(strstr(js, "\"weighted_ns\":35834000") != NULL);
    CHECK(strstr(js, "\"path_events\":77,\"path_edges\":148") != NULL);
    free(js);
    /* the overlay marks the same 77 events */
    const char *conv = tp_test_tmp("cp_alex.json");
    CHECK_EQ_INT(tp_test_run(&out, "%s convert '%s' --critical-path-window '" ALEX_WINDOW "' -o '%s' -q", tp_test_bin(),
                             alexnet(), conv),
                 0);
    free(out);
    size_t len = 0;
    char *text = tp_test_read_file(conv, &len);
    CHECK(text != NULL);
    size_t marked = 0, flows = 0;
    for (const char *q = text; q && (q = strstr(q, "\"critical\":1")) != NULL; q++)
        marked++;
    for (const char *q = text; q && (q = strstr(q, "{\"ph\":\"s\",\"cat\":\"critical_path\"")) != NULL; q++)
        flows++;
    CHECK_EQ_INT((long long)marked, 77);
    CHECK_EQ_INT((long long)flows, 148);
    CHECK(text && strstr(text, "\"name\":\"Critical path\"") != NULL);
    free(text);
    /* it loads in the trace engine with every slice nested (tests/check_trace.mjs) */
    if (tp_test_have("node") && tp_test_file_exists("build/node/node_modules")) {
        CHECK_EQ_INT(tp_test_run(&out, "node tests/check_trace.mjs '%s'", conv), 0);
        CHECK(out && strstr(out, "\"bad_nesting\":0") && strstr(out, "\"problems\":[]"));
        free(out);
    }
}

/* Every step: the length is the step's span, the bound types add up to it,
 * every path node is an event of the step. */
TEST(critical_path_each_step_adds_up)
{
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report("golden/example.pt.trace.json", &t, &s) == 0);
    CHECK(s.cp.n == (s.sf.nsteps ? s.sf.nsteps : 1));
    for (size_t i = 0; i < s.cp.n; i++) {
        const tp_cp_path *p = &s.cp.paths[i];
        const tp_step_row *r = s.sf.nsteps ? &s.sf.steps[i] : &s.sf.whole;
        CHECK_EQ_INT(p->length_ns, r->host_ns);
        int64_t sum = 0;
        for (int k = 0; k < TP_CPB_COUNT; k++)
            sum += p->bound_ns[k];
        CHECK_EQ_INT(sum, r->host_ns);
        CHECK(!p->cycle && p->nlinks > 0);
        for (size_t j = 0; j < p->nlinks; j++) {
            uint32_t evs[2] = {p->links[j].from_ev, p->links[j].to_ev};
            for (int e = 0; e < 2; e++) {
                const tp_event *ev = &t.events[evs[e]];
                int64_t at = ev->link != TP_NONE ? t.events[ev->link].ts : ev->ts;
                CHECK(at >= p->ws && at <= p->we);
            }
        }
    }
    tp_summary_free(&s);
    tp_trace_free(&t);
}

TEST(critical_path_window_errors)
{
    char *out = NULL;
    const char *in = tp_test_write_text("cp_err.json", synth);
    const char *dir = tp_test_tmp("cp_err_report");
    CHECK_EQ_INT(tp_test_run(&out, "%s report '%s' --critical-path-window 'no such op#0' -o '%s'", tp_test_bin(), in, dir),
                 2);
    CHECK(out && strstr(out, "--critical-path-window: no such op has 0 instances") != NULL);
    free(out);
    CHECK(!tp_test_file_exists(dir));
    const char *conv = tp_test_tmp("cp_err.out.json");
    CHECK_EQ_INT(tp_test_run(&out, "%s convert '%s' --critical-path-window 'aten::op1#1' -o '%s'", tp_test_bin(), in, conv),
                 2);
    CHECK(out && strstr(out, "aten::op1 has 1 instance (asked for #1, counted from 0)") != NULL);
    free(out);
    CHECK(!tp_test_file_exists(conv));
    /* the plain conversion has no trace of the path */
    CHECK_EQ_INT(tp_test_run(&out, "%s convert '%s' -o '%s' -q", tp_test_bin(), in, conv), 0);
    free(out);
    char *text = tp_test_read_file(conv, NULL);
    CHECK(text && !strstr(text, "critical"));
    free(text);
}

/* The findings that read the path: on the example every step's path is
 * 400 us of host work in 680 us (58.8% >= 50%): cpu_bound_path, with the
 * median step's share and its longest host op as evidence.  Its impact is
 * bounded by the device's idle time (648.625 us of the 1.957 ms GPU span:
 * host work is saved only where the device waited), and it corroborates:
 * ranked after the findings that name the host work's cause (the syncs,
 * the copies), whatever its impact. */
TEST(critical_path_findings)
{
    const char *dir = tp_test_tmp("cp_find_report");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report golden/example.pt.trace.json -o '%s'", tp_test_bin(), dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strncmp(md, "**Host synchronisations leave the GPU idle", 42) == 0);
    CHECK(md && strstr(md, "3. **Host work on the critical path keeps the GPU waiting** (`cpu_bound_path`, medium): up to "
                           "648.625 us, 31.8% of the steps' time"));
    CHECK(md && strstr(md, "the median step #2 is host-bound for 58.8% of its critical path (400.000 us)"));
    CHECK(md && strstr(md, "**Critical path** (median step #2, 680.000"));
    free(md);
    /* left out, the measures cannot tell (and say why) */
    CHECK_EQ_INT(tp_test_run(&out, "TP_CRITICAL_PATH=0 %s stats golden/example.pt.trace.json", tp_test_bin()), 0);
    CHECK(out && !strstr(out, "cpu_bound_path [") && strstr(out, "no critical path was computed"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats golden/example.pt.trace.json", tp_test_bin()), 0);
    CHECK(out && strstr(out, "bounded by the device's idle time, 648.625 us: the device did not wait for the rest"));
    CHECK(out && strstr(out, "ranked after sync_stall, exposed_memcpy, which name the causes on the path"));
    free(out);
}

/* diff compares the breakdowns: the example (cpu_op 58.8% of its steps'
 * paths) against the AlexNet trace (99.9% of its whole-trace path). */
TEST(critical_path_in_diff)
{
    const char *dir = tp_test_tmp("cp_diff");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s diff -q golden/example.pt.trace.json '%s' -o '%s'", tp_test_bin(), alexnet(), dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "#### Critical path (what the steps waited on"));
    CHECK(md && strstr(md, "| cpu_op | 1.200\u00a0ms | 43.362\u00a0s | 58.8% | 99.9% | +41.0 |"));
    CHECK(md && strstr(md, "| kernel | 360.750\u00a0us | 3.812\u00a0ms | 17.7% | 0.0% | -17.7 |"));
    free(md);
    char *js = tp_test_read_in(dir, "diff.json");
    CHECK(js && strstr(js, "\"critical_path\":{\"base\":{\"windows\":3,\"length_ns\":2040000,\"bound_ns\":{\"cpu_op\":1200000,"));
    free(js);
}

/* A trace without sync events (PyTorch before 2.1): the
 * cudaStreamSynchronize still waits for the streams' work so far (k1..g2
 * on stream 7, k2 on stream 20): the same path as with its "Stream Sync". */
TEST(critical_path_sync_without_sync_events)
{
    char *text = tp_xstrdup(synth);
    char *line = strstr(text, "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\"");
    CHECK(line != NULL);
    if (!line) {
        free(text);
        return;
    }
    char *end = strchr(line, '\n');
    memmove(line, end + 1, strlen(end + 1) + 1);
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(tp_test_write_text("cp_nosync.json", text), &t, &s) == 0);
    const tp_cp_path *p = &s.cp.paths[0];
    CHECK_EQ_INT(p->edges_of[TP_CPE_SYNC], 3); /* the stream wait, and the call's end after both streams */
    CHECK_EQ_INT(p->weighted_ns, 130000);
    CHECK_EQ_INT(p->bound_ns[TP_CPB_SYNC], 45000);
    CHECK(on_path(&t, p, "g2") && on_path(&t, p, "cudaStreamSynchronize"));
    tp_summary_free(&s);
    tp_trace_free(&t);
    free(text);
}

/* An older trace records the data loader as an op (cpu_op
 * "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"): its time
 * on the path is data loading, not host op time. */
TEST(critical_path_data_loading)
{
    const char *dir = tp_test_tmp("cp_resnet");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/kineto/kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz"), dir),
                 0);
    free(out);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "{\"step\":5,\"window\":\"ProfilerStep#5\""));
    CHECK(js && strstr(js, "\"length_ns\":176078000,"));
    CHECK(js && strstr(js, "\"data_loading\":47120000,"));
    free(js);
}
