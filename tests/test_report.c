/* test_report.c: the report's analyses (op breakdown, steps, throughput,
 * T1-T5 on a hand-computed synthetic trace), summary.json vs stats --json,
 * report on a converted trace, and the report files themselves. */
#include "harness.h"
#include "op_breakdown.h"
#include "overheads.h"
#include "pipeline.h"
#include "steps.h"
#include "summary.h"

#include <stdlib.h>

/* Synthetic trace, times in us (c = 2 us per host event):
 *   ProfilerStep#1 0..1000 on the host thread, holding the top-level ops
 *   A aten::linear 100..300: aten::t 105..110, launch 120..130 (corr 1),
 *       cudaEventRecord 135..137 (skipped), launch 150..160 (corr 2),
 *       aten::view 170..175
 *   B aten::relu 310..360: launches 320..330 (corr 3), 340..350 (corr 4)
 *   C aten::size 400..410 (no launch)
 *   D aten::to 420..425 (no launch, no T5)
 *   E aten::linear 500..600: launch 510..520 (corr 5)
 *   stream 7: gemm_k 140..240 (1), add_k 240..290 (2), relu_k 330..350 (3), gemm_k 530..570 (5)
 *   stream 20: copy_k 345..355 (4)
 * Hand-computed answers are in the tests below. */
static const char synth[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":200},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::t\",\"pid\":1,\"tid\":1,\"ts\":105,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":10,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventRecord\",\"pid\":1,\"tid\":1,\"ts\":135,\"dur\":2,"
    "\"args\":{\"correlation\":99}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":10,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::view\",\"pid\":1,\"tid\":1,\"ts\":170,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":310,\"dur\":50},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":320,\"dur\":10,"
    "\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":340,\"dur\":10,"
    "\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::size\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::to\",\"pid\":1,\"tid\":1,\"ts\":420,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":510,\"dur\":10,"
    "\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_k\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":100,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_k\",\"pid\":0,\"tid\":7,\"ts\":240,\"dur\":50,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_k\",\"pid\":0,\"tid\":7,\"ts\":330,\"dur\":20,"
    "\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"copy_k\",\"pid\":0,\"tid\":20,\"ts\":345,\"dur\":10,"
    "\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_k\",\"pid\":0,\"tid\":7,\"ts\":530,\"dur\":40,"
    "\"args\":{\"correlation\":5}}\n"
    "]}\n";

static const char *write_tmp(const char *name, const char *text)
{
    const char *p = tp_test_tmp(name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

static int load(const char *path, tp_trace *t)
{
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace_init(t);
    int rc = tp_load(path, &lo, t, &err);
    if (rc < 0)
        fprintf(stderr, "load %s: %s\n", path, err.msg);
    return rc;
}

static const tp_overhead_row *find_row(const tp_trace *t, const tp_overheads *ov, int type, const char *name)
{
    for (size_t i = 0; i < ov->n; i++) {
        const tp_overhead_row *r = &ov->rows[i];
        if (r->type == type && strcmp(name ? name : "", r->name ? tp_str_get(t, r->name) : "") == 0)
            return r;
    }
    return NULL;
}

TEST(report_overheads_t1_to_t5_hand_computed)
{
    tp_trace t;
    CHECK(load(write_tmp("synth.json", synth), &t) == 0);
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_overheads ov;
    tp_overheads_build(&t, &ht, &ov);
    CHECK(ov.applicable);
    CHECK_EQ_INT(ov.ops, 5);      /* A B C D E */
    CHECK_EQ_INT(ov.launches, 5);
    const tp_overhead_row *r;
    /* T1: gaps 10, 40, 10, 75 us -> 8, 38, 8, 73; mean 31.75 us, population std 26.780 us */
    CHECK((r = find_row(&t, &ov, 1, NULL)) != NULL);
    if (r) {
        CHECK_EQ_INT(r->count, 4);
        CHECK_EQ_INT(r->kept, 4);
        CHECK_EQ_INT(r->mean_ns, 31750);
        CHECK_EQ_INT(r->stddev_ns, 26780); /* sqrt(2868.75/4) us */
        CHECK_EQ_INT(r->min_ns, 8000);
        CHECK_EQ_INT(r->max_ns, 73000);
    }
    /* T2 linear: 120-100-1*2 = 18, 510-500 = 10 */
    CHECK((r = find_row(&t, &ov, 2, "aten::linear")) != NULL);
    if (r) {
        CHECK_EQ_INT(r->count, 2);
        CHECK_EQ_INT(r->min_ns, 10000);
        CHECK_EQ_INT(r->max_ns, 18000);
        CHECK_EQ_INT(r->mean_ns, 14000);
    }
    /* T3 linear: 300-160-(5-3)*2 = 136, 600-520-(2-1)*2 = 78 */
    CHECK((r = find_row(&t, &ov, 3, "aten::linear")) != NULL);
    if (r) {
        CHECK_EQ_INT(r->min_ns, 78000);
        CHECK_EQ_INT(r->max_ns, 136000);
    }
    /* relu: T2 10, T3 360-350-(3-2)*2 = 8, T5 340-330 = 10 */
    CHECK((r = find_row(&t, &ov, 2, "aten::relu")) != NULL && r->mean_ns == 10000);
    CHECK((r = find_row(&t, &ov, 3, "aten::relu")) != NULL && r->mean_ns == 8000);
    CHECK((r = find_row(&t, &ov, 5, "aten::relu")) != NULL && r->mean_ns == 10000 && r->count == 1);
    /* T5 linear: 150-130-0 = 20 (EventRecord skipped), and 0 for the single launch */
    CHECK((r = find_row(&t, &ov, 5, "aten::linear")) != NULL);
    if (r) {
        CHECK_EQ_INT(r->count, 2);
        CHECK_EQ_INT(r->min_ns, 0);
        CHECK_EQ_INT(r->max_ns, 20000);
    }
    /* no launch: size T5 = 10 - 1*2 = 8; aten::to has none */
    CHECK((r = find_row(&t, &ov, 5, "aten::size")) != NULL && r->mean_ns == 8000);
    CHECK(find_row(&t, &ov, 5, "aten::to") == NULL);
    CHECK(find_row(&t, &ov, 2, "aten::size") == NULL);
    /* T4: 5 launches x (10 - 2 - 4) us */
    CHECK((r = find_row(&t, &ov, 4, "cudaLaunchKernel")) != NULL && r->count == 5 && r->mean_ns == 4000);
    tp_overheads_free(&ov);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}

TEST(report_op_breakdown_groups_by_top_level_op_and_mix)
{
    tp_trace t;
    CHECK(load(write_tmp("synth.json", synth), &t) == 0);
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_op_breakdown ob;
    tp_op_breakdown_build(&t, &ht, &ob);
    CHECK_EQ_INT(ob.nops, 2);
    CHECK_EQ_INT(ob.total_ns, 220000);
    if (ob.nops == 2) {
        const tp_opk_op *a = &ob.ops[0], *b = &ob.ops[1];
        CHECK_STR(tp_opk_op_name(&t, a), "aten::linear");
        CHECK_EQ_INT(a->total_ns, 190000);
        CHECK_EQ_INT(a->occurrences, 2);
        CHECK_EQ_INT(a->instances, 3);
        CHECK_EQ_INT(a->n, 2); /* {gemm_k, add_k} and {gemm_k} */
        const tp_opk_variant *v0 = &ob.variants[a->first], *v1 = &ob.variants[a->first + 1];
        CHECK_EQ_INT(v0->total_ns, 150000);
        CHECK_EQ_INT(v0->n, 2);
        CHECK_STR(tp_str_get(&t, ob.kernels[v0->first].name), "gemm_k");
        CHECK_EQ_INT(ob.kernels[v0->first].total_ns, 100000);
        CHECK_EQ_INT(v1->total_ns, 40000);
        CHECK_EQ_INT(v1->n, 1);
        CHECK_STR(tp_opk_op_name(&t, b), "aten::relu");
        CHECK_EQ_INT(b->total_ns, 30000);
    }
    tp_op_breakdown_free(&ob);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}

TEST(report_step_figures_busy_overlap_idle_and_throughput)
{
    tp_trace t;
    CHECK(load(write_tmp("synth.json", synth), &t) == 0);
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_step_figures sf;
    tp_step_figures_build(&t, &ht, &sf);
    CHECK_EQ_INT(sf.nsteps, 1);
    CHECK_EQ_INT(sf.nstreams, 2);
    CHECK_EQ_INT(sf.median, 0);
    if (sf.nsteps == 1 && sf.nstreams == 2) {
        const tp_step_row *r = &sf.steps[0];
        CHECK_EQ_INT(r->step, 1);
        CHECK_EQ_INT(r->host_ns, 1000000);
        CHECK_EQ_INT(r->stream_busy[0], 210000); /* stream 7: 140..290, 330..350, 530..570 */
        CHECK_EQ_INT(r->stream_busy[1], 10000);  /* stream 20 */
        CHECK_EQ_INT(r->busy_ns, 215000);
        CHECK_EQ_INT(r->overlap_ns, 5000); /* 345..350 */
        CHECK_EQ_INT(r->idle_ns, 785000);
        CHECK_EQ_INT(r->device_events, 5);
        CHECK_EQ_INT(sf.whole.busy_ns, 215000);
        CHECK_EQ_INT(sf.whole.host_ns, 1000000);
    }
    /* 32 samples per 1 ms step = 32000 samples/s */
    CHECK_EQ_INT(tp_throughput_milli(&sf, 32), 32000000);
    tp_step_figures_free(&sf);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}

TEST(report_module_labels_are_not_ops)
{
    CHECK(tp_is_module_label("## Forward ##"));
    CHECK(tp_is_module_label("DistributedDataParallel.forward"));
    CHECK(tp_is_module_label("module::Linear"));
    CHECK(!tp_is_module_label("aten::__and__"));
    CHECK(!tp_is_module_label("aten::mm"));
}
