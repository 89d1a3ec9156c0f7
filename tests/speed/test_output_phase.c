/* test_output_phase.c: the report's output phase does its work once and no
 * more than it needs (issue 37), with the same bytes:
 * - summary.json and summary.md write the inference figures the report
 *   writer built once (report/inference/infer_figs.h), the same as each
 *   file's own pass over the events gave;
 * - the timeline's host slices come from one walk of the host tree that
 *   skips the subtrees outside the window (tp_timeline_hosts): the same
 *   slices, depths, children counts and longest children as a look at every
 *   slice, on trees with levels past the 64 looked at, slices spanning the
 *   window, crossovers and empty slices; and the walk looks at a window's
 *   slices, not the trace's. */
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "report/inference/infer_figs.h"
#include "report/out/summary_write.h"
#include "report/pages/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SGLANG "external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz"

TEST(output_phase_inference_figures_once_write_the_same_files)
{
    const char *path = tp_test_shared(SGLANG);
    if (!tp_test_file_exists(path)) {
        fprintf(stderr, "  (skipping: %s not found)\n", path);
        return;
    }
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(path, &t, &s) == 0);
    tp_buf json[2] = {{0}}, md[2] = {{0}};
    tp_summary_json(&s, NULL, &json[0]); /* each file counts for itself */
    tp_summary_md(&s, NULL, NULL, &md[0]);
    tp_infer_figs f;
    tp_infer_figs_build(&s, &f);
    CHECK(f.it.n > 0 && f.replay_counted && f.replay_kernels > 0); /* the sample has both: iterations and replays */
    s.infer = &f;
    tp_summary_json(&s, NULL, &json[1]);
    tp_summary_md(&s, NULL, NULL, &md[1]);
    CHECK(json[0].len == json[1].len && memcmp(json[0].data, json[1].data, json[0].len) == 0);
    CHECK(md[0].len == md[1].len && memcmp(md[0].data, md[1].data, md[0].len) == 0);
    /* and they are what is written: no file counts again */
    f.it.requests_max = 777;
    f.replay_kernels = 4242;
    tp_buf j = {0}, m = {0};
    tp_summary_json(&s, NULL, &j);
    tp_summary_md(&s, NULL, NULL, &m);
    tp_buf_putc(&j, 0);
    tp_buf_putc(&m, 0);
    CHECK(strstr(j.data, "\"requests_max\":777,") && strstr(j.data, "\"kernels\":4242,"));
    CHECK(strstr(m.data, "(4,242 kernels)"));
    tp_buf_free(&j);
    tp_buf_free(&m);
    for (int k = 0; k < 2; k++)
        tp_buf_free(&json[k]), tp_buf_free(&md[k]);
    s.infer = NULL;
    tp_infer_figs_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* Thread 1: a root spanning everything, three steps, in each a chain of 70 nested frames (past the 64 levels
 * looked at), ops launching kernels, an empty slice, a crossover; thread 2: 390 slices with a child each in
 * one loop before the steps, and 10 in them. */
static const char *tree_trace(void)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"main.py(1): <module>\","
                    "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100000}");
    int corr = 1;
    for (int st = 0; st < 3; st++) {
        long base = 10000 + 20000L * st, len = 15000 + 1000L * st;
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,"
                          "\"tid\":1,\"ts\":%ld,\"dur\":%ld}", st + 1, base, len);
        for (int d = 0; d < 70; d++)
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"frame_%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                              "\"dur\":%ld}", d % 3 ? "python_function" : "cpu_op", d, base + 10 + d, len - 400 - 2L * d);
        for (int k = 0; k < 4; k++) { /* under frame_69: ops, each launching a kernel */
            long at = base + 200 + 1500L * k;
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
                              "\"ts\":%ld,\"dur\":1000}", at);
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                              "\"tid\":1,\"ts\":%ld,\"dur\":20,\"args\":{\"correlation\":%d}}", at + 10, corr);
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,"
                              "\"dur\":%d,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                          k, at + 400, 900 + 10 * st, corr);
            corr++;
        }
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                          "\"dur\":0}", base + 7000);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"crossing\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                          "\"dur\":5000}", base + len - 1000);
    }
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"worker_loop\",\"pid\":1,\"tid\":2,"
                    "\"ts\":0,\"dur\":3995}");
    for (int i = 0; i < 400; i++) { /* thread 2: 390 under worker_loop, 10 in the steps */
        long at = i < 390 ? 10L * i : 10000 + 3000L * (i - 390);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"worker\",\"pid\":1,\"tid\":2,\"ts\":%ld,"
                          "\"dur\":8},\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"worker_inner\",\"pid\":1,\"tid\":2,"
                          "\"ts\":%ld,\"dur\":4}", at, at + 2);
    }
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    const char *p = tp_test_write_text("timeline_tree.json", b.data);
    tp_buf_free(&b);
    return p;
}

/* The window's slices by looking at every slice of the tree: the definition the walk must meet. */
static tp_tl_host *every_slice(const tp_trace *t, const tp_host_tree *ht, int64_t ws, int64_t we, size_t *nout)
{
    tp_tl_host *v = calloc(ht->n + 1, sizeof *v);
    size_t n = 0;
    for (size_t p = 0; p < ht->n; p++) {
        uint32_t ev = ht->order[p];
        const tp_event *e = &t->events[ev];
        size_t depth = 0;
        for (uint32_t q = ht->parent[ev]; q != TP_NONE; q = ht->parent[q])
            depth++;
        int64_t end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (depth >= TP_TL_SCAN || e->ts >= we || end <= ws)
            continue;
        tp_tl_host h = {(uint32_t)p, 0, 0, (uint8_t)depth};
        for (size_t q = 0; q < ht->n; q++)
            if (ht->parent[ht->order[q]] == ev) {
                h.nchild++;
                int64_t d = t->events[ht->order[q]].dur;
                h.child_dur = d > h.child_dur ? d : h.child_dur;
            }
        v[n++] = h;
    }
    *nout = n;
    return v;
}

TEST(output_phase_timeline_walk_keeps_the_window_slices)
{
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(tree_trace(), &t, &s) == 0);
    CHECK(s.ht.n > 1000);
    int64_t tw0, tw1;
    CHECK(tp_timeline_window(&s, &tw0, &tw1));
    const int64_t us = 1000;
    const int64_t windows[][2] = {{tw0, tw1},
                                  {0, 1},
                                  {-5 * us, 0},
                                  {200 * us, 300 * us},
                                  {INT64_MIN, INT64_MAX},
                                  {30 * us + 100 * us / 1000, 30 * us + 200 * us / 1000}, /* inside the deep chain */
                                  {10 * us + 40, 10 * us + 60},
                                  {44 * us, 46 * us}, /* the crossing slice and a step's end */
                                  {17 * us, 17 * us + 1}, /* the empty slice's start */
                                  {3 * us, 11 * us}};
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
        size_t n, nref, looked;
        tp_tl_host *v = tp_timeline_hosts(&t, &s.ht, windows[w][0], windows[w][1], &n, &looked);
        tp_tl_host *ref = every_slice(&t, &s.ht, windows[w][0], windows[w][1], &nref);
        CHECK_EQ_INT(n, nref);
        for (size_t k = 0; k < n && k < nref; k++)
            if (v[k].p != ref[k].p || v[k].depth != ref[k].depth || v[k].nchild != ref[k].nchild ||
                v[k].child_dur != ref[k].child_dur)
                tp_test_fail(__FILE__, __LINE__, "window %zu, slice %zu: position %u depth %u children %u longest %lld, "
                                                 "not %u %u %u %lld",
                             w, k, v[k].p, v[k].depth, v[k].nchild, (long long)v[k].child_dur, ref[k].p, ref[k].depth,
                             ref[k].nchild, (long long)ref[k].child_dur);
        if (w == 0) {
            CHECK(n > 64 && n < 150); /* the median step's levels, and the ops under them */
            /* the walk looks at the roots, the window's slices and their children: not the other steps' chains
             * nor the 780 slices in thread 2's loop before the steps (all 1,045 before) */
            CHECK(looked < 200);
        }
        free(v);
        free(ref);
    }
    tp_summary_free(&s);
    tp_trace_free(&t);
}
