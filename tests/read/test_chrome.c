/* test_chrome.c: the Chrome/Kineto JSON reader, pipeline, nesting repair and
 * writer: every construct and error on small inputs, then the real samples. */
#include "convert/write/chrome_write.h"
#include "tests/lib/harness.h"
#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"
#include "convert/model/tracks.h"

#include <stdlib.h>

/* Load JSON text; returns 0 or -1 with err. */
static int load_text(const char *text, tp_trace *t, tp_err *err, bool strict)
{
    const char *p = tp_test_write_text("in.json", text);
    tp_trace_init(t);
    tp_load_opts o = {0};
    o.read.keep_args = true;
    o.read.strict = strict;
    memset(err, 0, sizeof *err);
    return tp_load(p, &o, t, err);
}

static const tp_event *find(const tp_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nevents; i++)
        if (strcmp(tp_str_get(t, t->events[i].name), name) == 0)
            return &t->events[i];
    return NULL;
}

TEST(chrome_object_and_array_forms)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1.5,\"dur\":2}],"
                    "\"deviceProperties\":[{\"id\":0}]}",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(t.nevents, 1);
    CHECK_EQ_INT(t.events[0].ts, 1500);
    CHECK_EQ_INT(t.events[0].dur, 2000);
    CHECK(strstr(t.toplevel.data, "\"deviceProperties\":[{\"id\":0}]") != NULL);
    tp_trace_free(&t);
    CHECK(load_text("  [ {\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1} ]", &t, &err, false) == 0);
    CHECK_EQ_INT(t.nevents, 1);
    tp_trace_free(&t);
}

TEST(chrome_epoch_timestamps_are_exact)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1712195495519689.047,\"dur\":0.001},"
                    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1712195495519689.048,\"dur\":0}]",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(find(&t, "a")->ts, 1712195495519689047LL);
    CHECK_EQ_INT(find(&t, "a")->dur, 1);
    CHECK_EQ_INT(find(&t, "b")->ts - find(&t, "a")->ts, 1);
    tp_trace_free(&t);
}

TEST(chrome_base_time_nanoseconds_after_events)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":5.5,\"dur\":1}],"
                    "\"baseTimeNanoseconds\":1711964646000000000}",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(t.base_ns, 1711964646000000000LL);
    CHECK_EQ_INT(t.events[0].ts, 5500);
    tp_trace_free(&t);
}

TEST(chrome_begin_end_pairs_per_thread_and_merges_args)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"a\":1}},"
                    "{\"ph\":\"B\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":1},"
                    "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":2},"
                    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3},"
                    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":4},"
                    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"b\":2}},"
                    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":11}]",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(find(&t, "outer")->dur, 10000);
    CHECK_EQ_INT(find(&t, "inner")->dur, 1000);
    CHECK_EQ_INT(find(&t, "other")->dur, 3000);
    CHECK(find(&t, "outer")->ph == 'X');
    size_t len;
    const char *a = tp_args_get(&t, find(&t, "outer")->args, &len);
    CHECK_STR(a, "{\"a\":1,\"b\":2}");
    CHECK_EQ_INT(tp_warning_count(&t, "unmatched E events (dropped)"), 1);
    tp_trace_free(&t);
}

TEST(chrome_string_pids_and_tids_map_to_numbers_with_labels)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"op\",\"pid\":5,\"tid\":\"4093687616\",\"ts\":0,"
                    "\"dur\":9},"
                    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1,\"dur\":1},"
                    "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"span\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\","
                    "\"ts\":0,\"dur\":9},"
                    "{\"ph\":\"s\",\"cat\":\"async\",\"name\":\"launch\",\"id\":1,\"pid\":5,\"tid\":4093687616,\"ts\":1}]",
                    &t, &err, false) == 0);
    const tp_event *op = find(&t, "op"), *k = find(&t, "k"), *span = find(&t, "span");
    CHECK_EQ_INT(t.tracks[op->track].tid, 4093687616LL);
    /* the numeric-string tid and the number are the same thread (PyTorch 1.8 flows bind) */
    CHECK_EQ_INT(t.events[3].track, op->track);
    CHECK_EQ_INT(t.tracks[k->track].tid, 7);
    CHECK_STR(tp_str_get(&t, t.tracks[k->track].name), "stream 7");
    CHECK(t.processes[t.tracks[k->track].process].is_device);
    CHECK_STR(tp_str_get(&t, t.processes[t.tracks[span->track].process].key), "Spans");
    tp_assign_ids(&t);
    CHECK(t.processes[t.tracks[span->track].process].pid > 5);
    tp_trace_free(&t);
}

TEST(chrome_lenient_problems_are_counted_and_strict_rejects_them)
{
    const char *text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\\ud800\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
                       "{\"ph\":\"Q\",\"name\":\"q\",\"pid\":1,\"tid\":1,\"ts\":0},{},],}";
    tp_trace t;
    tp_err err;
    CHECK(load_text(text, &t, &err, false) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "trailing commas"), 2);
    CHECK_EQ_INT(tp_warning_count(&t, "objects with no ph, name, ts or pid (skipped)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "unknown phases (kept)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "invalid UTF-8 or escapes (replaced)"), 1);
    CHECK(find(&t, "q") != NULL);
    tp_trace_free(&t);
    CHECK(load_text(text, &t, &err, true) == -1);
    CHECK(err.set);
    tp_trace_free(&t);
}

/* --strict names the first problem in the file, at its offset: problems
 * counted as warnings (bad escapes, empty events) are not passed over for a
 * later one that fails at once (unknown phase, trailing comma). */
TEST(chrome_strict_reports_the_first_problem_at_its_offset)
{
    static const struct {
        const char *text, *where, *msg;
    } cases[] = {
        /* a bad escape (offset 33, the string's quote), then an unknown phase */
        {"[{\"ph\":\"X\",\"pid\":1,\"ts\":0,\"name\":\"a\\ud800\",\"tid\":1,\"dur\":1},"
         "{\"ph\":\"Q\",\"name\":\"q\",\"pid\":1,\"tid\":1,\"ts\":0}]",
         "offset 33", "invalid escape or UTF-8 in a string, rejected by --strict"},
        /* an empty event (offset 1), then a trailing comma */
        {"[{},{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},]", "offset 1",
         "objects with no ph, name, ts or pid (skipped), rejected by --strict"},
        /* an X without dur (offset 38), then a bad escape, then an unknown phase */
        {"[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":0},{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"ts\":0},"
         "{\"ph\":\"X\",\"name\":\"\\udc00\",\"pid\":1,\"ts\":0,\"dur\":1},{\"ph\":\"Q\",\"pid\":1,\"ts\":0}]",
         "offset 38", "X events without \"dur\" (dur 0), rejected by --strict"},
        /* raw bytes that are not UTF-8 in args (offset of the args object) */
        {"[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":0,\"dur\":1,\"args\":{\"k\":\"\xff\"}}]", "offset 52",
         "invalid escape or UTF-8 in a string, rejected by --strict"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_trace t;
        tp_err err;
        CHECK(load_text(cases[i].text, &t, &err, true) == -1);
        CHECK_STR(err.where, cases[i].where);
        CHECK_STR(err.msg, cases[i].msg);
        tp_trace_free(&t);
        /* lenient: read, and the counter keeps the first offset */
        CHECK(load_text(cases[i].text, &t, &err, false) == 0);
        const tp_warning *w = tp_warning_first(&t);
        if (i < 3) {
            char where[48];
            snprintf(where, sizeof where, "offset %llu", w && w->at ? (unsigned long long)(w->at - 1) : 999999ULL);
            CHECK_STR(where, cases[i].where);
        }
        tp_trace_free(&t);
    }
}

TEST(stats_and_report_strict_reject_raw_bytes_that_are_not_utf8)
{
    /* a kernel name with raw bytes that are not UTF-8: convert --strict
     * rejects it (its writer meets the bytes), and so must stats and report,
     * which write no JSON of the names */
    const char *in = tp_test_write_text("rawutf8.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                                               "\"name\":\"k\xff\xfe\",\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2}]}");
    const char *dir = tp_test_tmp("rawutf8.report");
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert --strict '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("raw.json")), 2);
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --strict '%s'", tp_test_bin(), in), 2);
    CHECK(log && strncmp(log, "tracepress: ", 12) == 0 &&
          strstr(log, ": offset 48: invalid escape or UTF-8 in a string, rejected by --strict\n") != NULL);
    CHECK(log && strchr(log, '\n') == log + strlen(log) - 1);
    free(log);
    CHECK_EQ_INT(tp_test_run(NULL, "%s report --strict '%s' -o '%s'", tp_test_bin(), in, dir), 2);
    CHECK(!tp_test_file_exists(dir));
    /* lenient (no --strict): still read, the name repaired where JSON is written */
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --json '%s'", tp_test_bin(), in), 0);
    CHECK(log && strstr(log, "\"name\":\"k\xef\xbf\xbd\xef\xbf\xbd\"") != NULL);
    free(log);
}

/* stats --csv and the text table repair bytes that are not UTF-8 as the
 * JSON outputs do (U+FFFD per bad byte), and CSV still quotes the name. */
TEST(stats_csv_and_text_repair_invalid_utf8_like_json)
{
    const char *in = tp_test_write_text("rawcsv.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                                              "\"name\":\"k\xff\xfe\\\"q\",\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2}]}");
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --csv '%s'", tp_test_bin(), in), 0);
    CHECK(log && strstr(log, "\n\"k\xef\xbf\xbd\xef\xbf\xbd\"\"q\",kernel,1,") != NULL);
    CHECK(log && strchr(log, '\xff') == NULL);
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s stats '%s'", tp_test_bin(), in), 0);
    CHECK(log && strstr(log, "  k\xef\xbf\xbd\xef\xbf\xbd\"q\n") != NULL);
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --json '%s'", tp_test_bin(), in), 0);
    CHECK(log && strstr(log, "\"name\":\"k\xef\xbf\xbd\xef\xbf\xbd\\\"q\"") != NULL);
    free(log);
}

TEST(chrome_integers_beyond_int64)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":99999999999999999999,\"ts\":0,\"dur\":1,"
                    "\"args\":{\"big\":123456789012345678901234567890}}]",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "pid/tid beyond int64 (kept as text)"), 1);
    size_t len;
    CHECK(strstr(tp_args_get(&t, t.events[0].args, &len), "123456789012345678901234567890") != NULL);
    tp_trace_free(&t);
    CHECK(load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":99999999999999999999,\"dur\":1}]", &t,
                    &err, false) == 0);
    CHECK_EQ_INT(t.nevents, 0);
    CHECK_EQ_INT(tp_warning_count(&t, "bad or out-of-range ts/dur (event dropped)"), 1);
    tp_trace_free(&t);
}

/* Events the reader drops (a ts out of range, an 'E' without its 'B') are
 * counted in the summary line's drops, with their reasons. */
TEST(convert_summary_counts_events_the_reader_dropped)
{
    const char *in = tp_test_write_text("drops.json", "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
                                             "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,"
                                             "\"ts\":99999999999999999999,\"dur\":1},"
                                             "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":5}]");
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("drops.out.json")), 0);
    CHECK(log && strstr(log, " 2 dropped (bad or out-of-range ts/dur: 1, 'E' without a matching 'B': 1),") != NULL);
    free(log);
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"dur\":1}]", &t, &err, false) == 0);
    CHECK_EQ_INT(tp_dropped_total(&t), 1); /* no "ts" */
    tp_trace_free(&t);
}

TEST(chrome_errors_name_the_offset)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1", &t, &err, false) == -1);
    CHECK(strstr(err.msg, "truncated") != NULL);
    CHECK_STR(err.where, "offset 16");
    tp_trace_free(&t);
    CHECK(load_text("[{\"ph\":\"X\" \"name\":1}]", &t, &err, false) == -1);
    CHECK_STR(err.where, "offset 1");
    tp_trace_free(&t);
    CHECK(load_text("[{\"ph\":\"X\"} {\"ph\":\"X\"}]", &t, &err, false) == -1);
    CHECK_STR(err.where, "offset 12");
    CHECK(strstr(err.msg, "expected ','") != NULL);
    tp_trace_free(&t);
    CHECK(load_text("", &t, &err, false) == -1);
    CHECK(strstr(err.msg, "empty") != NULL);
    tp_trace_free(&t);
    CHECK(load_text("hello", &t, &err, false) == -1);
    tp_trace_free(&t);
}

TEST(chrome_units_larger_than_the_read_buffer)
{
    /* one event with a 9 MB string arg, then 100k events: crosses many buffer refills */
    size_t big = 9u << 20;
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"big\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"s\":\"");
    for (size_t i = 0; i < big; i++)
        tp_buf_putc(&b, (char)('a' + i % 26));
    tp_buf_puts(&b, "\"}}");
    for (int i = 0; i < 100000; i++)
        tp_buf_printf(&b, ",\n  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d.%03d,\"dur\":1}",
                      i % 10, i, i % 1000);
    tp_buf_puts(&b, "]}");
    tp_trace t;
    tp_err err;
    CHECK(load_text(b.data, &t, &err, false) == 0);
    CHECK_EQ_INT(t.nevents, 100001);
    size_t len;
    tp_args_get(&t, find(&t, "big")->args, &len);
    CHECK_EQ_INT(len, big + 8);
    CHECK_EQ_INT(t.events[100000].ts, 99999999);
    tp_trace_free(&t);
    tp_buf_free(&b);
}

TEST(chrome_links_kernels_to_launches_and_ops)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":2,"
                    "\"dur\":3,\"args\":{\"correlation\":77}},"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":6,\"dur\":4,"
                    "\"args\":{\"correlation\":77}},"
                    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":77,\"pid\":1,\"tid\":1,\"ts\":2},"
                    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":77,\"pid\":0,\"tid\":7,\"ts\":6,\"bp\":\"e\"}]",
                    &t, &err, false) == 0);
    const tp_event *k = find(&t, "gemm");
    CHECK(k->link != TP_NONE);
    CHECK_STR(tp_str_get(&t, t.events[k->link].name), "cudaLaunchKernel");
    CHECK(k->op != TP_NONE);
    CHECK_STR(tp_str_get(&t, t.events[k->op].name), "aten::mm");
    CHECK_EQ_INT(tp_dropped_total(&t), 2); /* the ac2g pair, replaced by a bound flow */
    tp_trace_free(&t);
}

TEST(chrome_nesting_repair_moves_partial_overlaps)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"copy\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"sync\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":10},"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"inner\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]",
                    &t, &err, false) == 0);
    CHECK_EQ_INT(tp_nest_repair(&t, NULL), 1);
    const tp_event *s = find(&t, "sync");
    CHECK_EQ_INT(t.tracks[s->track].role, TP_TRACK_OVERFLOW);
    CHECK_STR(tp_str_get(&t, t.tracks[s->track].name), "7 (overlap)");
    CHECK_EQ_INT(find(&t, "inner")->depth, 1);
    CHECK_EQ_INT(tp_nest_repair(&t, NULL), 0);
    tp_trace_free(&t);
}

TEST(chrome_steps_filter)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts o = {0};
    o.has_steps = true;
    tp_parse_steps("2:2", &o.step_first, &o.step_last);
    tp_err err = {0};
    CHECK(tp_load("golden/example.pt.trace.json", &o, &t, &err) == 0);
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    CHECK_EQ_INT(kt.instances, 7); /* one step: memcpy, 3 gemm, 2 relu, memset */
    tp_kernel_table_free(&kt);
    tp_trace_free(&t);
    tp_trace_init(&t);
    tp_parse_steps("7:9", &o.step_first, &o.step_last);
    memset(&err, 0, sizeof err);
    CHECK(tp_load("golden/example.pt.trace.json", &o, &t, &err) == -1);
    CHECK(strstr(err.msg, "1..3") != NULL);
    tp_trace_free(&t);
    int64_t a, b2;
    CHECK(tp_parse_steps("3:", &a, &b2) == 0 && a == 3 && b2 == INT64_MAX);
    CHECK(tp_parse_steps(":4", &a, &b2) == 0 && a == INT64_MIN && b2 == 4);
    CHECK(tp_parse_steps("5:4", &a, &b2) == -1);
    CHECK(tp_parse_steps("x", &a, &b2) == -1);
}

/* ProfilerStep#N is a step on a host thread only; an event of that name on a
 * device track (a process that has kernels) keeps its kind and id. */
TEST(chrome_steps_only_on_host_threads)
{
    tp_trace t;
    tp_err err;
    CHECK(load_text("{\"traceEvents\":["
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#4\",\"pid\":0,"
                    "\"tid\":9,\"ts\":1,\"dur\":5,\"id\":77},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#5\",\"pid\":1,\"tid\":1,"
                    "\"ts\":1,\"dur\":5},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#x\",\"pid\":1,\"tid\":1,"
                    "\"ts\":7,\"dur\":1}]}",
                    &t, &err, false) == 0);
    const tp_event *dev = find(&t, "ProfilerStep#4"), *host = find(&t, "ProfilerStep#5"),
                   *other = find(&t, "ProfilerStep#x");
    CHECK(dev && host && other);
    if (dev && host && other) {
        CHECK(!(dev->flags & TP_EV_STEP) && dev->kind == TP_KIND_HOST_OP);
        CHECK((host->flags & TP_EV_STEP) && host->kind == TP_KIND_ANNOTATION && host->id == 5);
        CHECK(!(other->flags & TP_EV_STEP) && other->kind == TP_KIND_HOST_OP);
    }
    tp_trace_free(&t);
}

TEST(percentiles_match_numpy_linear)
{
    int64_t v[] = {1, 2, 3, 4, 10};
    CHECK_EQ_INT(tp_percentile(v, 5, 50), 3);
    CHECK_EQ_INT(tp_percentile(v, 5, 90), 8); /* numpy: 7.6 -> 8 */
    CHECK_EQ_INT(tp_percentile(v, 5, 10), 1); /* 1.4 -> 1 */
    int64_t w[] = {100, 200};
    CHECK_EQ_INT(tp_percentile(w, 2, 50), 150);
    CHECK_EQ_INT(tp_percentile(w, 2, 10), 110);
    CHECK_EQ_INT(tp_percentile(w, 1, 90), 100);
    int64_t x[] = {0, 1};
    CHECK_EQ_INT(tp_percentile(x, 2, 50), 1); /* 0.5 rounds half away from zero */
}

/* ---- command-level tests ---- */

static const char *const samples[] = {
    "hta_amd_mi250_rocm6_2.json.gz",
    "hta_critical_path_alexnet_2023.json.gz",
    "hta_df_index_resolver_large.json.gz",
    "hta_inference_rank1_2022_capcats.json.gz",
    "hta_nccl_data_2024.json.gz",
    "hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz",
    "hta_triton_example.json.gz",
    "kineto_plugin_resnet50_array_2020-12.pt.trace.json.gz",
    "kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
    "kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz",
};

/* kernel + memcpy + memset instances per SOURCES.md's X cats */
static const int sample_device_events[] = {16, 98, 22290, 4, 3774, 6095, 1, 9927, 10015, 9096};

static bool node_ready(void)
{
    if (getenv("TP_SKIP_NODE"))
        return false;
    return true; /* required: scripts/setup installs it; a missing client fails the test */
}

TEST(samples_convert_load_in_trace_engine_and_reconvert_identically)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const char *in = tp_test_shared(samples[i]);
        char rel[256];
        snprintf(rel, sizeof rel, "external/kineto/%s", samples[i]);
        in = tp_test_shared(rel);
        char out1[1024], out2[1024];
        snprintf(out1, sizeof out1, "%s", tp_test_tmp("s1.json"));
        snprintf(out2, sizeof out2, "%s", tp_test_tmp("s2.json"));
        char *log = NULL;
        int rc = tp_test_run(&log, "%s convert '%s' -o '%s'", tp_test_bin(), in, out1);
        CHECK_EQ_INT(rc, 0);
        if (rc)
            fprintf(stderr, "%s: %s\n", samples[i], log);
        free(log);
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), out1, out2), 0);
        CHECK(tp_test_run(NULL, "cmp -s '%s' '%s'", out1, out2) == 0);
        /* same kernel numbers before and after conversion */
        char *s_in = NULL, *s_out = NULL;
        tp_test_run(&s_in, "%s stats --json '%s' | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(), in);
        tp_test_run(&s_out, "%s stats --json '%s' | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(), out1);
        CHECK(s_in && s_out && strlen(s_in) > 10 && strcmp(s_in, s_out) == 0);
        free(s_in);
        free(s_out);
        char *st = NULL;
        tp_test_run(&st, "%s stats --json '%s'", tp_test_bin(), in);
        char want[64];
        snprintf(want, sizeof want, "\"kernel_instances\":%d,", sample_device_events[i]);
        CHECK(st && strstr(st, want) != NULL);
        if (st && !strstr(st, want))
            fprintf(stderr, "  %s: expected %s\n", samples[i], want);
        free(st);
        if (node_ready()) {
            char *chk = NULL;
            rc = tp_test_run(&chk, "node tests/check_trace.mjs '%s'", out1);
            CHECK_EQ_INT(rc, 0);
            CHECK(chk && strstr(chk, "\"problems\":[]") && strstr(chk, "\"bad_nesting\":0"));
            if (rc)
                fprintf(stderr, "  %s: %s\n", samples[i], chk ? chk : "");
            free(chk);
        }
    }
}

TEST(pytorch18_flows_are_drawable)
{
    /* the 1.8 sample's own flows bind to nothing in Perfetto (int vs string tid) */
    const char *in = tp_test_shared("external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz");
    const char *out = tp_test_tmp("pt18.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, out), 0);
    char *chk = NULL;
    tp_test_run(&chk, "node tests/check_trace.mjs '%s'", out);
    CHECK(chk && strstr(chk, "\"flows\":9282,\"flows_bound\":9282"));
    free(chk);
}

TEST(convert_gzip_output_and_determinism)
{
    const char *a = tp_test_tmp("ex.json"), *b = tp_test_tmp("ex.json.gz"), *c = tp_test_tmp("ex2.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q golden/example.pt.trace.json -o %s", tp_test_bin(), a), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q golden/example.pt.trace.json -o %s", tp_test_bin(), b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q golden/example.pt.trace.json -o %s", tp_test_bin(), c), 0);
    if (tp_test_run(NULL, "cmp -s %s %s", b, c) != 0) { /* seen once on a busy machine, never reproduced: say how they differ */
        char *why = NULL;
        tp_test_run(&why, "ls -l %s %s; cmp %s %s; gzip -dc %s | cmp - %s; gzip -dc %s | md5sum; gzip -dc %s | md5sum", b, c, b,
                    c, c, a, b, c);
        tp_test_fail(__FILE__, __LINE__, "two .gz conversions differ:\n%s", why ? why : "");
        free(why);
    }
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc %s | cmp -s - %s", b, a), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q golden/example.pt.trace.json -o - | cmp -s - %s", tp_test_bin(), a), 0);
    CHECK(!tp_test_file_exists("-"));
    size_t len;
    char *text = tp_test_read_file(a, &len);
    CHECK(text != NULL);
    if (text)
        CHECK_GOLDEN("convert/example.perfetto.json", text, len);
    free(text);
}

TEST(convert_errors_are_one_line_and_leave_no_output)
{
    char *log = NULL;
    const char *out = tp_test_tmp("never.json");
    CHECK_EQ_INT(tp_test_run(&log, "%s convert /nonexistent.json -o %s", tp_test_bin(), out), 2);
    CHECK(log && strncmp(log, "tracepress: /nonexistent.json: cannot open", 42) == 0);
    free(log);
    const char *bad = tp_test_write_text("trunc.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\"");
    CHECK_EQ_INT(tp_test_run(&log, "%s convert %s -o %s", tp_test_bin(), bad, out), 2);
    CHECK(log && strstr(log, ": offset 16: file ends inside an event (truncated?)\n") != NULL);
    CHECK(log && strchr(log, '\n') == log + strlen(log) - 1); /* exactly one line */
    free(log);
    CHECK(!tp_test_file_exists(out));
    CHECK_EQ_INT(tp_test_run(NULL, "ls %s | grep -c tmp", tp_test_tmpdir()), 1); /* grep found none */
    CHECK_EQ_INT(tp_test_run(&log, "%s convert golden/example.pt.trace.json", tp_test_bin()), 1);
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s convert %s -o %s", tp_test_bin(), bad, bad), 2);
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s nosuchcommand", tp_test_bin()), 1);
    free(log);
}

TEST(cli_help_for_every_command)
{
    const char *cmds[] = {"convert", "stats", "formats", "help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "%s help %s", tp_test_bin(), cmds[i]), 0);
        CHECK(out && strstr(out, "usage: tracepress") != NULL);
        free(out);
        CHECK_EQ_INT(tp_test_run(NULL, "%s %s --help", tp_test_bin(), cmds[i]), 0);
    }
    char *v = NULL;
    CHECK_EQ_INT(tp_test_run(&v, "%s --version", tp_test_bin()), 0);
    CHECK(v && strncmp(v, "tracepress ", 11) == 0);
    free(v);
}

TEST(convert_never_writes_invalid_json_from_bad_args)
{
    /* each of these args is broken JSON; the output must still parse and keep the text */
    const char *cases[] = {"{\"x\":[1 2]}", "{\"x\":tru}", "{\"x\" 1}", "{\"x\":1,}", "{\"x\":{\"y\":1]}",
                           "{\"x\":01}", "{,}", "{\"x\":1}}", "{\"x\":\"\\q\"}", "{\"x\":\"\\u12g4\"}",
                           "{\"x\":\"a\\\x88\"}", "{\"x\":\"\\u12\"}"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[256];
        snprintf(text, sizeof text, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":%s}]",
                 cases[c]);
        const char *in = tp_test_write_text("badargs-case.json", text);
        const char *out = tp_test_tmp("badargs-case.out.json");
        int rc = tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in, out);
        if (rc == 0) {
            CHECK_EQ_INT(tp_test_run(NULL, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", out), 0);
            char *o = tp_test_read_file(out, NULL);
            CHECK(o && strstr(o, "invalid_args") != NULL); /* kept, as a string */
            free(o);
        } else
            CHECK_EQ_INT(rc, 2); /* or rejected with a clear error, never written broken */
    }
    /* an unknown event field is copied too: a bad escape there (found by the fuzzer: a
     * backslash before invalid UTF-8) must not reach the output either */
    const char *in2 = tp_test_write_text("badescape.json", "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,"
                                                  "\"dur\":1,\"extra\":\"bad \\\x88\\u00\"}]");
    const char *out2 = tp_test_tmp("badescape.out.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in2, out2), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", out2), 0);
    const char *in = tp_test_write_text("badargs.json", "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,"
                                               "\"args\":{\"x\":bogus, \"y\":[1,2]}}]");
    const char *out = tp_test_tmp("badargs.out.json");
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "%s convert %s -o %s", tp_test_bin(), in, out), 0);
    CHECK(log && strstr(log, "args that are not valid JSON (kept as a string): 1"));
    free(log);
    CHECK_EQ_INT(tp_test_run(NULL, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", out), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert --strict %s -o %s", tp_test_bin(), in, out), 2);
}

TEST(legacy_autograd_profiler_export)
{
    /* torch.autograd.profiler export_chrome_trace (PyTorch <= 1.7), per KINETO.md §1.6:
     * bare array, no cat, pid "CPU functions" / "CUDA functions", cpu_to_cuda flows */
    tp_trace t;
    tp_err err;
    CHECK(load_text("[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 10.5, \"dur\": 20.25, \"tid\": 1, "
                    "\"pid\": \"CPU functions\", \"args\": {}},"
                    "{\"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": 10.5, \"tid\": 1, \"pid\": \"CPU functions\", "
                    "\"id\": 0, \"cat\": \"cpu_to_cuda\", \"args\": {}},"
                    "{\"name\": \"aten::mm\", \"ph\": \"f\", \"ts\": 15, \"tid\": 0, \"pid\": \"CUDA functions\", "
                    "\"id\": 0, \"cat\": \"cpu_to_cuda\", \"args\": {}},"
                    "{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 15, \"dur\": 8, \"tid\": 0, "
                    "\"pid\": \"CUDA functions\", \"args\": {}}]",
                    &t, &err, false) == 0);
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    CHECK_EQ_INT(kt.n, 1);
    CHECK_EQ_INT(kt.rows[0].total_ns, 8000);
    tp_kernel_table_free(&kt);
    CHECK_EQ_INT(t.events[0].kind, TP_KIND_HOST_OP);
    CHECK(t.processes[t.tracks[t.events[3].track].process].is_device);
    CHECK_EQ_INT(tp_dropped_total(&t), 0); /* its flows are not launch flows: kept */
    tp_trace_free(&t);
}

TEST(python_function_and_annotations_are_annotations)
{
    CHECK_EQ_INT(tp_kind_from_cat("python_function", 15), TP_KIND_ANNOTATION);
    CHECK_EQ_INT(tp_kind_from_cat("gpu_user_annotation", 19), TP_KIND_ANNOTATION);
    CHECK_EQ_INT(tp_kind_from_cat("cuda_driver", 11), TP_KIND_RUNTIME);
    CHECK_EQ_INT(tp_kind_from_cat("Memset", 6), TP_KIND_MEMSET);
    CHECK_EQ_INT(tp_kind_from_cat("cuda_sync", 9), TP_KIND_SYNC);
    CHECK_EQ_INT(tp_kind_from_cat("whatever", 8), TP_KIND_OTHER);
}

TEST(kernel_table_sorts_large_groups_exactly)
{
    /* 5000 instances of one kernel with scrambled durations (radix path) */
    tp_buf b = {0};
    tp_buf_puts(&b, "[");
    uint64_t x = 12345;
    int64_t sum = 0;
    for (int i = 0; i < 5000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t d = (int64_t)((x >> 33) % 5000000); /* ns */
        sum += d;
        tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%lld.%03lld}",
                      i ? "," : "", i * 10, (long long)(d / 1000), (long long)(d % 1000));
    }
    tp_buf_puts(&b, "]");
    tp_trace t;
    tp_err err;
    CHECK(load_text(b.data, &t, &err, false) == 0);
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    CHECK_EQ_INT(kt.rows[0].count, 5000);
    CHECK_EQ_INT(kt.rows[0].total_ns, sum);
    /* recompute percentiles from a qsort'ed copy */
    int64_t *v = malloc(5000 * sizeof *v);
    for (int i = 0; i < 5000; i++)
        v[i] = t.events[i].dur;
    for (int i = 1; i < 5000; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t s = v[j];
            v[j] = v[j - 1];
            v[j - 1] = s;
        }
    CHECK_EQ_INT(kt.rows[0].min_ns, v[0]);
    CHECK_EQ_INT(kt.rows[0].max_ns, v[4999]);
    CHECK_EQ_INT(kt.rows[0].p50_ns, tp_percentile(v, 5000, 50));
    CHECK_EQ_INT(kt.rows[0].p90_ns, tp_percentile(v, 5000, 90));
    free(v);
    tp_kernel_table_free(&kt);
    tp_trace_free(&t);
    tp_buf_free(&b);
}

TEST(old_pytorch_steps_are_operators)
{
    char *out = NULL;
    tp_test_run(&out, "%s stats --json '%s'", tp_test_bin(),
                tp_test_shared("external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz"));
    CHECK(out && strstr(out, "\"steps\":6,") != NULL); /* ProfilerStep#5..#10 */
    free(out);
}

TEST(convert_split_by_steps_and_size_and_filters)
{
    const char *in = tp_test_shared("external/kineto/hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz");
    char base[1024];
    snprintf(base, sizeof base, "%s/split.json.gz", tp_test_tmpdir());
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o '%s' --split steps", tp_test_bin(), in, base), 0);
    CHECK(log && strstr(log, "5 files") != NULL);
    free(log);
    for (int step = 101; step <= 105; step++) {
        char part[1100];
        snprintf(part, sizeof part, "%s/split.step-%d.json.gz", tp_test_tmpdir(), step);
        CHECK(tp_test_file_exists(part));
        char *chk = NULL;
        CHECK_EQ_INT(tp_test_run(&chk, "node tests/check_trace.mjs '%s'", part), 0);
        free(chk);
    }
    /* the parts hold every kernel exactly once */
    char *sum = NULL;
    tp_test_run(&sum, "for f in %s/split.step-*.json.gz; do %s stats --json $f; done | "
                      "sed -n 's/.*\"kernel_instances\":\\([0-9]*\\).*/\\1/p' | paste -sd+ | bc",
                tp_test_tmpdir(), tp_test_bin());
    CHECK(sum && atoi(sum) == 6095);
    free(sum);
    snprintf(base, sizeof base, "%s/sized.json", tp_test_tmpdir());
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o '%s' --split size=4MB", tp_test_bin(), in, base), 0);
    free(log);
    char *sizes = NULL;
    tp_test_run(&sizes, "ls %s/sized.part-*.json | wc -l; stat -c %%s %s/sized.part-*.json | sort -n | tail -1",
                tp_test_tmpdir(), tp_test_tmpdir());
    int nparts = 0;
    long biggest = 0;
    CHECK(sizes && sscanf(sizes, "%d %ld", &nparts, &biggest) == 2);
    CHECK(nparts >= 3);
    CHECK(biggest <= 4000000);
    free(sizes);
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o %s/f.json --min-dur 10us --drop-cat cuda_runtime", tp_test_bin(),
                             in, tp_test_tmpdir()),
                 0);
    CHECK(log && strstr(log, "--drop-cat: 15329") && strstr(log, "shorter than --min-dur"));
    free(log);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o %s/x.json --split bogus", tp_test_bin(), in, tp_test_tmpdir()), 1);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o %s/x.json --min-dur 5parsecs", tp_test_bin(), in,
                             tp_test_tmpdir()),
                 1);
    int64_t ns;
    CHECK(tp_parse_duration("1.5us", &ns) == 0 && ns == 1500);
    CHECK(tp_parse_duration("2s", &ns) == 0 && ns == 2000000000);
    CHECK(tp_parse_duration("250", &ns) == 0 && ns == 250);
    CHECK(tp_parse_duration("-1us", &ns) == -1);
}

/* The writer prints times and ids itself (chrome_write.c, put_us_at and
 * put_u64_at): every length from 1 to 16 integer digits, each side of a
 * power of ten; the output's text must be the input's (rebased on a first
 * event at 0, 3 decimals both sides). */
TEST(chrome_writer_prints_numbers_of_every_length)
{
    tp_buf in = {0}, want = {0};
    tp_buf_puts(&in, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"base\",\"pid\":1,\"tid\":1,\"ts\":0.000,\"dur\":0.000}");
    char num[40];
    int k = 0;
    for (int d = 1; d <= 16; d++)
        for (int side = 0; side < 3; side++) {
            /* 10^(d-1), 10^d - 1 (as d digits), and a fraction that needs its leading zeros */
            uint64_t p = 1;
            for (int i = 1; i < d; i++)
                p *= 10;
            uint64_t us = side == 0 ? p : side == 1 ? p * 10 - 1 : p + 7;
            if (us >= 9000000000000000u) /* past int64 nanoseconds */
                continue;
            const char *frac = side == 0 ? "000" : side == 1 ? "999" : "042";
            snprintf(num, sizeof num, "%llu.%s", (unsigned long long)us, frac);
            tp_buf_printf(&in, ",{\"ph\":\"X\",\"name\":\"e%d\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"dur\":%s}", k, 2 + k, num,
                          num);
            tp_buf_printf(&want, "\"ts\":%s,\"dur\":%s", num, num);
            tp_buf_putc(&want, 0);
            k++;
        }
    tp_buf_puts(&in, "]}");
    const char *path = tp_test_write_text("numbers.json", in.data);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), path, tp_test_tmp("numbers.out.json")), 0);
    char *out = tp_test_read_in(tp_test_tmpdir(), "numbers.out.json");
    CHECK(out != NULL);
    for (size_t at = 0; out && at < want.len; at += strlen(want.data + at) + 1)
        if (!strstr(out, want.data + at)) {
            tp_test_fail(__FILE__, __LINE__, "missing %s", want.data + at);
            break;
        }
    /* thread ids from 2 to k + 1 went through put_u64_at too */
    snprintf(num, sizeof num, "\"tid\":%d,", k + 1);
    CHECK(k > 40 && out && strstr(out, "\"tid\":9,") && strstr(out, "\"tid\":10,") && strstr(out, num));
    free(out);
    tp_buf_free(&in);
    tp_buf_free(&want);
}
