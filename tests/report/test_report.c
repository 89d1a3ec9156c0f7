/* test_report.c: the report's analyses (op breakdown, steps, throughput,
 * T1-T5 on a hand-computed synthetic trace), summary.json vs stats --json,
 * report on a converted trace, and the report files themselves. */
#include "render/text/units.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "convert/codec/json_value.h"
#include "convert/codec/json_write.h"
#include "report/analysis/op_breakdown.h"
#include "report/analysis/overheads.h"
#include "report/assemble/report_write.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/steps.h"
#include "report/analysis/summary.h"
#include "render/text/report_text.h"

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
 *   F aten::alias 900..901 (no launch: T5 = 1 - 2 = -1 us, counted as 0)
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
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::alias\",\"pid\":1,\"tid\":1,\"ts\":900,\"dur\":1},\n"
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
    CHECK(tp_test_load(tp_test_write_text("synth.json", synth), &t) == 0);
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_overheads ov;
    tp_overheads_build(&t, &ht, &ov);
    CHECK(ov.applicable);
    CHECK_EQ_INT(ov.ops, 6);      /* A B C D E F */
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
    /* F: 1 us long, less than the model's 2 us of profiler cost: T5 counts 0, clamped */
    CHECK((r = find_row(&t, &ov, 5, "aten::alias")) != NULL);
    if (r) {
        CHECK_EQ_INT(r->count, 1);
        CHECK_EQ_INT(r->clamped, 1);
        CHECK_EQ_INT(r->mean_ns, 0);
        CHECK_EQ_INT(r->min_ns, 0);
    }
    CHECK((r = find_row(&t, &ov, 5, "aten::size")) != NULL && r->clamped == 0);
    /* T4: 5 launches x (10 - 2 - 4) us */
    CHECK((r = find_row(&t, &ov, 4, "cudaLaunchKernel")) != NULL && r->count == 5 && r->mean_ns == 4000);
    tp_overheads_free(&ov);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}

TEST(report_op_breakdown_groups_by_top_level_op_and_mix)
{
    tp_trace t;
    CHECK(tp_test_load(tp_test_write_text("synth.json", synth), &t) == 0);
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_op_kernels ob;
    tp_op_kernels_build(&t, &ht, NULL, &ob);
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
    tp_op_kernels_free(&ob);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}

TEST(report_step_figures_busy_overlap_idle_and_throughput)
{
    tp_trace t;
    CHECK(tp_test_load(tp_test_write_text("synth.json", synth), &t) == 0);
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

/* ---- end to end: the report command ---- */

static const char *sample(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", tp_test_shared(name));
    return buf[k];
}

#define ALEXNET "external/kineto/hta_critical_path_alexnet_2023.json.gz"

/* text between `from` and `to` (exclusive), malloc'ed; NULL if absent */
static char *between(const char *s, const char *from, const char *to)
{
    const char *a = s ? strstr(s, from) : NULL;
    if (!a)
        return NULL;
    a += strlen(from);
    const char *b = strstr(a, to);
    if (!b)
        return NULL;
    char *r = malloc((size_t)(b - a) + 1);
    memcpy(r, a, (size_t)(b - a));
    r[b - a] = 0;
    return r;
}

static int run_report(const char *in, const char *dir, const char *extra)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' report '%s' -o '%s' %s", tp_test_bin(), in, dir, extra ? extra : "");
    if (rc != 0)
        fprintf(stderr, "report %s: rc %d: %s\n", in, rc, out ? out : "");
    free(out);
    return rc;
}

TEST(report_summary_kernels_identical_to_stats_json)
{
    const char *dir = tp_test_tmp("r_alex");
    CHECK_EQ_INT(run_report(sample(ALEXNET), dir, NULL), 0);
    char *sum = tp_test_read_in(dir, "summary.json"), *st = NULL;
    CHECK_EQ_INT(tp_test_run(&st, "'%s' stats --json '%s'", tp_test_bin(), sample(ALEXNET)), 0);
    char *a = between(sum, "\"kernels\":[", "],\n\"ops\":"), *b = between(st, "\"kernels\":[", "],\n\"kernels_only\"");
    CHECK(a && b && strlen(a) > 1000);
    CHECK(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    /* the GPU time model and the categories too: one analysis, two outputs */
    a = between(sum, "\"gpu_time\":", ",\n\"leaf_ops\"");
    b = between(st, "\"gpu_time\":", ",\n\"leaf_ops\"");
    CHECK(a && b && strlen(a) > 500 && strstr(a, "\"categories\":["));
    CHECK(a && b && strcmp(a, b) == 0);
    CHECK(sum && strstr(sum, "{\"schema\":\"tracepress.summary/2\",") == sum);
    /* kernels, memcpys and memsets counted apart (recounted from the file: 79 kernels
     * for 10.692 ms, 16 memcpys for 55.503 ms, 3 memsets for 8 us) */
    CHECK(sum && strstr(sum, "\"device_total_ns\":66203000,\"kernel_total_ns\":10692000,\"kernel_instances\":79,"
                             "\"kernel_names\":16,\"memcpy_instances\":16,\"memset_instances\":3,"));
    free(a);
    free(b);
    free(st);
    free(sum);
}

TEST(report_on_converted_trace_gives_same_summary)
{
    static const char *const names[] = {ALEXNET, "external/kineto/hta_amd_mi250_rocm6_2.json.gz",
                                        "external/kineto/hta_inference_rank1_2022_capcats.json.gz", NULL};
    for (int i = 0; names[i]; i++) {
        char conv[1024], d1[1024], d2[1024];
        snprintf(conv, sizeof conv, "%s", tp_test_tmp("conv.json"));
        snprintf(d1, sizeof d1, "%s", tp_test_tmp("orig.report"));
        snprintf(d2, sizeof d2, "%s", tp_test_tmp("conv.report"));
        CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && '%s' convert '%s' -o '%s' -q", conv, tp_test_bin(),
                                 sample(names[i]), conv),
                     0);
        CHECK_EQ_INT(run_report(sample(names[i]), d1, "--batch-size 16"), 0);
        CHECK_EQ_INT(run_report(conv, d2, "--batch-size 16"), 0);
        char *a = tp_test_read_in(d1, "summary.json"), *b = tp_test_read_in(d2, "summary.json");
        /* everything after the "source" line (file name, reader, events read) */
        const char *ta = a ? strstr(a, "\n\"trace\":") : NULL, *tb = b ? strstr(b, "\n\"trace\":") : NULL;
        CHECK(ta && tb);
        if (ta && tb && strcmp(ta, tb) != 0) {
            size_t k = 0;
            while (ta[k] && ta[k] == tb[k])
                k++;
            tp_test_fail(__FILE__, __LINE__, "%s: summaries differ at byte %zu: ...%.80s", names[i], k,
                         ta + (k > 40 ? k - 40 : 0));
        }
        free(a);
        free(b);
    }
}

TEST(report_pdf_checks_and_text)
{
    if (!tp_test_have("qpdf") || !tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping: qpdf/pdftotext not installed)\n");
        return;
    }
    const char *dir = tp_test_tmp("r_pdf");
    CHECK_EQ_INT(run_report(sample(ALEXNET), dir, "--batch-size 64 --paper letter"), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s/report.pdf'", dir), 0);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir), 0);
    static const char *const want[] = {"tracepress report", "hta_critical_path_alexnet_2023", "Headline numbers",
                                       "Top ops by device time", "Top 18 kernels by total time",
                                       "Top 18 kernels by mean time", "Dominating ops", "Timeline of the whole trace",
                                       "Kernel statistics", "CPU overheads T1-T5",
                                       "Names: the short names shown, with the full (demangled) names",
                                       "79 / 16 / 10.692 ms", /* kernels apart from memcpy/memset */
                                       "55.503 ms",           /* the memcpy row's total */
                                       "ampere_sgemm_32x32_sliced1x4_tn", "NVIDIA A100-PG509-200", /* the one of 8 that ran (issue 36) */
                                       "2023-09-27T17:25:42Z", NULL};
    for (int i = 0; want[i]; i++)
        if (!out || !strstr(out, want[i]))
            tp_test_fail(__FILE__, __LINE__, "pdftotext output lacks \"%s\"", want[i]);
    CHECK(out && !strstr(out, "8 x NVIDIA")); /* deviceProperties lists 8 GPUs; the trace's work ran on one */
    free(out);
    /* letter size, landscape chart pages */
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdfinfo -f 1 -l 3 '%s/report.pdf' 2>/dev/null", dir), 0);
    CHECK(out && strstr(out, "612 x 792") && strstr(out, "792 x 612"));
    free(out);
}

/* qpdf --json outlines: mark the page of every bookmark; `parent` is the
 * title of the enclosing one ("" at the top). */
static void outline_walk(const tp_jv *arr, const char *parent, int64_t parent_pg, bool *seen, size_t npages,
                         int *child_ok)
{
    for (size_t i = 0; arr && i < arr->n; i++) {
        const tp_jv *o = tp_jv_at(arr, i);
        int64_t pg = 0;
        size_t tl = 0;
        const char *t = tp_jv_str(tp_jv_get(o, "title"), &tl);
        char title[200];
        snprintf(title, sizeof title, "%.*s", (int)(t ? tl : 0), t ? t : "");
        if (tp_jv_int(tp_jv_get(o, "destpageposfrom1"), &pg) == 0 && pg >= 1 && (size_t)pg <= npages)
            seen[pg - 1] = true;
        /* a section's second page is a child of its first, pointing at its own page */
        size_t pl = strlen(parent);
        if (pl && strncmp(title, parent, pl) == 0 &&
            (strncmp(title + pl, " (2/", 4) == 0 || strcmp(title + pl, " (page 2)") == 0) && pg == parent_pg + 1)
            (*child_ok)++;
        outline_walk(tp_jv_get(o, "kids"), title, pg, seen, npages, child_ok);
    }
}

TEST(report_pdf_has_a_bookmark_for_every_page)
{
    if (!tp_test_have("qpdf") || !tp_test_have("pdfinfo")) {
        fprintf(stderr, "  (skipping: qpdf/pdfinfo not installed)\n");
        return;
    }
    const char *dir = tp_test_tmp("r_outline");
    CHECK_EQ_INT(run_report(sample("external/hta/trace_filter_sampled_rank-0.json.gz"), dir, NULL), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdfinfo '%s/report.pdf' 2>/dev/null", dir), 0);
    const char *pp = out ? strstr(out, "Pages:") : NULL;
    size_t npages = pp ? strtoul(pp + 6, NULL, 10) : 0;
    free(out);
    CHECK(npages >= 12); /* "Names", the appendix, runs over several pages */
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --json --json-key=outlines '%s/report.pdf'", dir), 0);
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *root = NULL;
    tp_err err = {0};
    CHECK(out && tp_jv_parse_all(&d, out, strlen(out), &root, &err) == 0);
    bool *seen = tp_xcalloc(npages + 1, sizeof *seen);
    int child_ok = 0;
    if (root)
        outline_walk(tp_jv_get(root, "outlines"), "", 0, seen, npages, &child_ok);
    for (size_t i = 0; i < npages; i++)
        if (!seen[i])
            tp_test_fail(__FILE__, __LINE__, "page %zu of %zu has no bookmark", i + 1, npages);
    CHECK_EQ_INT(child_ok, 1); /* the continuation is a child of its section, pointing at its own page */
    free(seen);
    tp_jdoc_free(&d);
    free(out);
}

/* An op with more kernel mixes than the grid draws says so in its box, and
 * summary.json keeps every mix (19 for ConvolutionBackward0 here). */
TEST(report_grid_says_how_many_mixes_it_draws)
{
    if (!tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping: pdftotext not installed)\n");
        return;
    }
    const char *dir = tp_test_tmp("r_mixes");
    CHECK_EQ_INT(run_report(sample("external/kineto/hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz"), dir, NULL), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir), 0);
    CHECK(out && strstr(out, "(8 of 19 mixes)"));
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    size_t n = 0;
    char *js = tp_test_read_file(path, &n);
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *root = NULL;
    tp_err err = {0};
    CHECK(js && tp_jv_parse_all(&d, js, n, &root, &err) == 0);
    const tp_jv *ops = root ? tp_jv_get(root, "ops") : NULL;
    size_t variants = 0;
    for (size_t i = 0; ops && i < ops->n; i++)
        if (tp_jv_str_eq(tp_jv_get(tp_jv_at(ops, i), "name"),
                         "autograd::engine::evaluate_function: ConvolutionBackward0"))
            variants = tp_jv_get(tp_jv_at(ops, i), "variants")->n;
    CHECK_EQ_INT(variants, 19);
    tp_jdoc_free(&d);
    free(js);
}

/* The AMD sample has 2 steps, #2 a near-empty 49 us one: the timeline shows
 * the median of the steps with device work, #1, not the lower median #2. */
TEST(report_timeline_median_prefers_steps_with_device_work)
{
    if (!tp_test_have("pdftotext")) {
        fprintf(stderr, "  (skipping: pdftotext not installed)\n");
        return;
    }
    const char *dir = tp_test_tmp("r_amd_median");
    CHECK_EQ_INT(run_report(sample("external/kineto/hta_amd_mi250_rocm6_2.json.gz"), dir, NULL), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir), 0);
    CHECK(out && strstr(out, "Timeline of step #1 (the 1 of 2 steps with device work;") != NULL);
    free(out);
}

static void png_size(const char *path, unsigned *w, unsigned *h)
{
    size_t n = 0;
    unsigned char *p = (unsigned char *)tp_test_read_file(path, &n);
    *w = *h = 0;
    if (p && n > 24 && memcmp(p + 12, "IHDR", 4) == 0) {
        *w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
        *h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
    }
    free(p);
}

TEST(report_png_sizes_as_documented)
{
    const char *dir = tp_test_tmp("r_png");
    CHECK_EQ_INT(run_report(sample("external/kineto/hta_amd_mi250_rocm6_2.json.gz"), dir, NULL), 0);
    static const char *const pngs[] = {"gpu_time", "kernels_total", "kernels_mean", "timeline", "breakdown", "steps", NULL};
    for (int i = 0; pngs[i]; i++) {
        char p[1024];
        unsigned w, h;
        snprintf(p, sizeof p, "%s/png/%s.png", dir, pngs[i]);
        png_size(p, &w, &h);
        /* the PDF's landscape page (A4: 842 x 595 pt) at 2 px per pt, cropped to the content and
         * an 8 pt margin: these full charts keep nearly all of it */
        if (w > 1684 || h > 1190 || w < 1400 || h < 300)
            tp_test_fail(__FILE__, __LINE__, "%s is %ux%u, expected at most 1684x1190, mostly full", p, w, h);
    }
    char p[1024];
    unsigned w, h, w2, h2;
    snprintf(p, sizeof p, "%s/png/overview.png", dir); /* one step: a short chart, cropped */
    png_size(p, &w, &h);
    CHECK(w > 1400 && w <= 1684 && h < 400);
    const char *dir2 = tp_test_tmp("r_png2");
    CHECK_EQ_INT(run_report(sample("external/kineto/hta_amd_mi250_rocm6_2.json.gz"), dir2, "--scale 2"), 0);
    snprintf(p, sizeof p, "%s/png/kernels_total.png", dir);
    png_size(p, &w, &h);
    snprintf(p, sizeof p, "%s/png/kernels_total.png", dir2);
    png_size(p, &w2, &h2);
    /* --scale 2 doubles it (anti-aliased edges move the crop by a few pixels) */
    CHECK(w2 + 4 >= 2 * w && w2 <= 2 * w + 4 && h2 + 4 >= 2 * h && h2 <= 2 * h + 4);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "#### Top kernels by total time") && strstr(md, "`png/kernels_total.png`") &&
          strstr(md, "`png/steps.png`") && strstr(md, "**Charts**: `png/overview.png`, `png/gpu_time.png`"));
    free(md);
}

/* Page 2, "Where the GPU time goes", shows the split of summary.json's
 * gpu_time exactly, and summary.md has the GPU time line and the
 * categories table (the example: one GPU, three steps, GEMM on top). */
TEST(report_gpu_time_page_and_summary_md_categories)
{
    const char *dir = tp_test_tmp("r_gpu_time");
    CHECK_EQ_INT(run_report("golden/example.pt.trace.json", dir, NULL), 0);
    char *sum = tp_test_read_in(dir, "summary.json");
    CHECK(sum != NULL);
    if (!sum)
        return;
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *root = NULL;
    tp_err err = {0};
    CHECK(tp_jv_parse_all(&d, sum, strlen(sum), &root, &err) == 0);
    const tp_jv *whole = tp_jv_get(tp_jv_get(root, "gpu_time"), "whole");
    int64_t span = 0, comp = 0, xmem = 0, idle = 0, xcomm = -1;
    CHECK(tp_jv_int(tp_jv_get(whole, "span_ns"), &span) == 0 && tp_jv_int(tp_jv_get(whole, "computation_ns"), &comp) == 0 &&
          tp_jv_int(tp_jv_get(whole, "exposed_memcpy_ns"), &xmem) == 0 &&
          tp_jv_int(tp_jv_get(whole, "exposed_communication_ns"), &xcomm) == 0 &&
          tp_jv_int(tp_jv_get(whole, "idle_ns"), &idle) == 0);
    CHECK_EQ_INT(comp + xcomm + xmem + idle, span);
    CHECK_EQ_INT(span, 1957375); /* the example's GPU span: first kernel to last memcpy end */
    /* the page's cells: "duration (share of the span)" (render/text/units.h) */
    char us[48], pct[32], cell[96], span_cell[48];
    tp_fmt_dur(us, sizeof us, comp);
    tp_fmt_pct(pct, sizeof pct, comp, span);
    snprintf(cell, sizeof cell, "%s (%s)", us, pct);
    CHECK_STR(cell, "1.172 ms (59.9%)");
    tp_fmt_dur(span_cell, sizeof span_cell, span);
    const tp_jv *cat0 = tp_jv_at(tp_jv_get(root, "categories"), 0);
    CHECK(tp_jv_str_eq(tp_jv_get(cat0, "name"), "GEMM"));
    int64_t gemm = 0;
    CHECK(tp_jv_int(tp_jv_get(cat0, "device_ns"), &gemm) == 0 && gemm == 1172250);
    tp_jdoc_free(&d);
    free(sum);
    if (tp_test_have("pdftotext")) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout -f 3 -l 3 '%s/report.pdf' - 2>/dev/null", dir), 0);
        static const char *const want[] = {"Where the GPU time goes", "Whole trace", "Per step", "outside the steps",
                                           "Op categories", "aten::addmm (100.0%)", "85.0% - 86.4%", NULL};
        for (int i = 0; want[i]; i++)
            if (!out || !strstr(out, want[i]))
                tp_test_fail(__FILE__, __LINE__, "page 3 lacks \"%s\"", want[i]);
        /* the page writes a column in one unit, named in its head: "computation (ms)" over "1.172 (59.9%)" */
        char in_ms[48], page_cell[96], page_span[48];
        tp_fmt_dur_in(in_ms, sizeof in_ms, comp, 2);
        snprintf(page_cell, sizeof page_cell, "%s (%s)", in_ms, pct);
        tp_fmt_dur_in(page_span, sizeof page_span, span, 2);
        CHECK(strcmp(span_cell, "1.957 ms") == 0);
        if (!out || !strstr(out, page_cell) || !strstr(out, page_span) || !strstr(out, "computation (ms)") ||
            !strstr(out, "GPU span (ms)"))
            tp_test_fail(__FILE__, __LINE__, "page 3 lacks \"%s\" or \"%s\" in ms", page_cell, page_span);
        free(out);
    }
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "\n**GPU time** (shares of the GPU span, first to last device activity: 1.957" TP_NBSP "ms): "
                           "busy 66.9% (computation 59.9%, exposed communication 0.0%, exposed memcpy 7.0%), "
                           "idle 33.1%.\n"));
    CHECK(md && strstr(md, "\n#### Categories\n\n| category | device time (ms) | share | top op |\n|---|---:|---:|---|\n"
                           "| GEMM | 1.172 | 85.6% | `aten::addmm` |\n"));
    CHECK(md && strstr(md, "**Charts**: `png/overview.png`, `png/gpu_time.png`, "));
    free(md);
    /* no device activity: the page says so, no PNG, one line in summary.md */
    const char *in = tp_test_write_text("nodev.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,"
                                                      "\"tid\":1,\"ts\":5,\"dur\":3}]}");
    const char *dir2 = tp_test_tmp("r_gpu_time_none");
    CHECK_EQ_INT(run_report(in, dir2, NULL), 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/png/gpu_time.png", dir2);
    CHECK(!tp_test_file_exists(p));
    md = tp_test_read_in(dir2, "summary.md");
    CHECK(md && strstr(md, "\n**GPU time**: no device activity.\n") && !strstr(md, "Categories"));
    free(md);
    if (tp_test_have("pdftotext")) {
        char *out = NULL;
        /* no page: the overview says why */
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 1 -l 1 '%s/report.pdf' - 2>/dev/null", dir2), 0);
        CHECK(out && strstr(out, "Where the GPU time goes: no device activity in this trace"));
        free(out);
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>/dev/null", dir2), 0);
        CHECK(out && !strstr(out, "computation + exposed communication"));
        free(out);
    }
}

TEST(report_is_byte_identical_and_dated_from_source_date_epoch)
{
    const char *in = sample("external/kineto/hta_amd_mi250_rocm6_2.json.gz");
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", tp_test_tmp("det_a"));
    snprintf(b, sizeof b, "%s", tp_test_tmp("det_b"));
    CHECK_EQ_INT(run_report(in, a, NULL), 0);
    CHECK_EQ_INT(run_report(in, b, NULL), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && for f in report.pdf summary.json summary.md png/*; do cmp -s \"$f\" "
                                   "'%s'/\"$f\" || exit 1; done",
                             a, b),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "SOURCE_DATE_EPOCH=1700000000 '%s' report '%s' -o '%s' && grep -c "
                                   "'\"date\":\"2023-11-14T22:13:20Z\"' '%s/summary.json'",
                             tp_test_bin(), in, a, a),
                 0);
    free(out);
}

/* The analyses run two at a time on two threads (report/analysis/summary.c): the
 * report must be the one a single thread writes. */
TEST(report_is_the_same_from_one_thread_and_two)
{
    const char *ins[] = {sample("external/kineto/hta_critical_path_alexnet_2023.json.gz"),
                         sample("external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz"),
                         "golden/example.pt.trace.json"};
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        const char *one = tp_test_tmp("threads_one"), *two = tp_test_tmp("threads_two");
        CHECK_EQ_INT(tp_test_run(NULL, "TP_REPORT_THREADS=1 '%s' report '%s' -o '%s' 2>/dev/null", tp_test_bin(), ins[i], one), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' 2>/dev/null", tp_test_bin(), ins[i], two), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && for f in report.pdf summary.json summary.md png/*; do cmp -s \"$f\" "
                                       "'%s'/\"$f\" || exit 1; done",
                                 one, two),
                     0);
    }
}

TEST(report_empty_and_tiny_traces)
{
    static const char *const traces[] = {
        "{\"traceEvents\":[]}",
        "[]",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":3}]}",
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":3}]}",
        NULL};
    for (int i = 0; traces[i]; i++) {
        char name[32], dir[1024];
        snprintf(name, sizeof name, "tiny%d.json", i);
        const char *in = tp_test_write_text(name, traces[i]);
        snprintf(dir, sizeof dir, "%s", tp_test_tmp("tiny.report"));
        CHECK_EQ_INT(tp_test_run(NULL, "rm -rf '%s'", dir), 0);
        CHECK_EQ_INT(run_report(in, dir, "--batch-size 8"), 0);
        char *sum = tp_test_read_in(dir, "summary.json");
        CHECK(sum && strstr(sum, "\"schema\":\"tracepress.summary/2\""));
        if (i < 3)
            CHECK(sum && strstr(sum, "\"kernels\":[],"));
        else
            CHECK(sum && strstr(sum, "\"kernel_total_ns\":3000,") && strstr(sum, "\"samples_per_s\":2666666.667"));
        free(sum);
        if (tp_test_have("qpdf"))
            CHECK_EQ_INT(tp_test_run(NULL, "qpdf --check '%s/report.pdf' >/dev/null", dir), 0);
    }
}

TEST(report_many_distinct_kernel_names)
{
    const char *in = tp_test_tmp("many.json");
    FILE *f = fopen(in, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"traceEvents\":[\n", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void ns::k%d<float>(int)\",\"pid\":0,\"tid\":7,"
                   "\"ts\":%d,\"dur\":%d}\n",
                i ? "," : "", i, i * 10, 1 + i % 7);
    fputs("]}\n", f);
    fclose(f);
    const char *dir = tp_test_tmp("many.report");
    CHECK_EQ_INT(run_report(in, dir, NULL), 0);
    char *sum = tp_test_read_in(dir, "summary.json");
    CHECK(sum && strstr(sum, "\"kernel_names\":20000"));
    free(sum);
    if (tp_test_have("pdftotext")) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/report.pdf' - 2>/dev/null", dir), 0);
        CHECK(out && strstr(out, "kernels with the most time, of 20000") &&
              strstr(out, "Top 80 kernels by total time (of 20000)"));
        free(out);
    }
}

TEST(report_usage_and_input_errors)
{
    char *out = NULL;
    const char *dir = tp_test_tmp("err.report");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --paper a3", tp_test_bin(), sample(ALEXNET), dir), 1);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --batch-size 0", tp_test_bin(), sample(ALEXNET), dir), 1);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report", tp_test_bin()), 1);
    free(out);
    out = NULL;
    const char *bad = tp_test_write_text("bad.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), bad, dir), 2);
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    CHECK(!tp_test_file_exists(p));
    snprintf(p, sizeof p, "%s/report.pdf", dir);
    CHECK(!tp_test_file_exists(p));
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report /nonexistent/x.json -o '%s'", tp_test_bin(), dir), 2);
    free(out);
}

/* The Triton sample lists its GPU track before its host threads: stream
 * numbering must not depend on that (it once read past the matrix). */
TEST(report_triton_sample_device_first)
{
    const char *dir = tp_test_tmp("r_triton");
    CHECK_EQ_INT(run_report(sample("external/kineto/hta_triton_example.json.gz"), dir, NULL), 0);
    char *sum = tp_test_read_in(dir, "summary.json");
    CHECK(sum && strstr(sum, "\"streams\":[\"GPU 0 stream 7\"]"));
    CHECK(sum && strstr(sum, "\"gpu_busy_ns\":1760,") && strstr(sum, "\"launched_busy_ns\":1760,"));
    CHECK(sum && strstr(sum, "\"stream_busy_ns\":[1760]}"));
    free(sum);
}

/* Every page of the bundled example's report through the recording backend. */
TEST(report_golden_pages_of_the_example)
{
    unsetenv("SOURCE_DATE_EPOCH"); /* the date comes from the trace */
    tp_trace t;
    CHECK(tp_test_load("golden/example.pt.trace.json", &t) == 0);
    tp_report_opts ro = {"golden/example.pt.trace.json", NULL, 16, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    tp_buf rec = {0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_page_opts po = {595, 842, 2};
    tp_report_draw(cv, &s, &po);
    tp_err err = {0};
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    CHECK(rec.len > 1000);
    CHECK_GOLDEN("report/report_example_pages.rec", rec.data, rec.len);
    /* every link inside the report goes to a page it has (a title no page has would be no link):
     * each `linkpage ... "T"` line has a `page W H "T"` line */
    size_t nlinks = 0;
    for (const char *l = rec.data; (l = strstr(l, "linkpage ")); l++) {
        const char *q = strchr(l, '"'), *e = q ? strchr(q, '\n') : NULL;
        int ok = 0;
        for (const char *p = rec.data; q && e && !ok && (p = strstr(p, "page ")); p++) {
            const char *pq = strchr(p, '"');
            ok = (p == rec.data || p[-1] == '\n') && pq && strchr(p, '\n') > pq &&
                 strncmp(pq, q, (size_t)(e - q)) == 0 && (pq[e - q] == '\n' || pq[e - q] == ' ');
        }
        CHECK(ok);
        nlinks++;
    }
    /* the overview lists the 11 pages after it (summary to names, the critical path's included) and links
     * its top 3 findings to the pages that show them: cpu_bound_path to "Critical path", sync_stall to
     * "Where the GPU time goes" and "Timeline", exposed_memcpy to the first */
    CHECK_EQ_INT(nlinks, 15);
    tp_buf js = {0};
    tp_report_summary_json(&s, &js);
    CHECK_GOLDEN("report/report_example_summary.json", js.data, js.len);
    tp_buf_free(&js);
    tp_buf_free(&rec);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

TEST(report_steps_option_limits_the_steps)
{
    const char *dir = tp_test_tmp("r_steps");
    CHECK_EQ_INT(run_report("golden/example.pt.trace.json", dir, "--steps 2:3 --batch-size 16"), 0);
    char *sum = tp_test_read_in(dir, "summary.json");
    CHECK(sum && strstr(sum, "\"options\":{\"steps\":\"2:3\",\"batch_size\":16}"));
    CHECK(sum && strstr(sum, "\"slices\":") && strstr(sum, "\"steps\":2,"));
    CHECK(sum && strstr(sum, "\"iterations\":2,"));
    free(sum);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report golden/example.pt.trace.json -o '%s' --steps 50:60", tp_test_bin(), dir),
                 2);
    free(out);
}
