/* test_chrome_categories.c: nothing dropped in silence (issue 19, part 6):
 * MTIA traces read as device activity (convert/read/chrome/chrome_cats.c),
 * device events of unknown categories named in a warning, and JSON that is
 * not a trace refused (exit 2, one line, no output).  The MTIA numbers were
 * recounted from the sample with Python's json and Decimal, independently
 * of tracepress. */
#include "tests/lib/harness.h"
#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>

#define MTIA "external/hta/mtia_inference_rank_0.json.gz"
#define CUPTI "external/hta/cupti_profiler_trace.json.gz"

static int load(const char *path, tp_trace *t, bool links)
{
    tp_trace_init(t);
    tp_load_opts o = {0};
    o.no_links = !links;
    tp_err err = {0};
    int rc = tp_load(path, &o, t, &err);
    if (rc)
        fprintf(stderr, "load %s: %s\n", path, err.msg);
    return rc;
}

static const tp_kernel_row *row(const tp_trace *t, const tp_kernel_table *kt, const char *name)
{
    for (size_t i = 0; i < kt->n; i++)
        if (strcmp(tp_str_get(t, kt->rows[i].name), name) == 0)
            return &kt->rows[i];
    return NULL;
}

/* Events of one name by kind, and how many are linked to a launch call. */
static size_t count_named(const tp_trace *t, const char *name, int kind, size_t *linked)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind == kind && strcmp(tp_str_get(t, e->name), name) == 0) {
            n++;
            if (linked && e->link != TP_NONE)
                ++*linked;
        }
    }
    return n;
}

TEST(mtia_device_events_are_kernels_memcpy_and_sync)
{
    tp_trace t;
    CHECK_EQ_INT(load(tp_test_shared(MTIA), &t, false), 0);
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    /* recount: mtia_ccp_events merge 36 / pe_exe 24 / remote 37 kernels, dma_request 877 copies */
    CHECK_EQ_INT(kt.n, 4);
    CHECK_EQ_INT(kt.instances, 974);
    CHECK_EQ_INT(kt.total_ns, 459456313);
    static const struct {
        const char *name;
        int kind;
        uint64_t count;
        int64_t total, min, max;
    } want[] = {
        {"merge", TP_KIND_KERNEL, 36, 257869750, 6884489, 7606409},
        {"pe_exe", TP_KIND_KERNEL, 24, 107685728, 1087603, 7676234},
        {"remote", TP_KIND_KERNEL, 37, 48529645, 709768, 1569657},
        {"dma_request", TP_KIND_MEMCPY, 877, 45371190, 4144, 1196221},
    };
    int64_t kernels = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tp_kernel_row *r = row(&t, &kt, want[i].name);
        CHECK(r != NULL);
        if (!r)
            continue;
        CHECK_EQ_INT(r->kind, want[i].kind);
        CHECK_EQ_INT(r->count, want[i].count);
        CHECK_EQ_INT(r->total_ns, want[i].total);
        CHECK_EQ_INT(r->min_ns, want[i].min);
        CHECK_EQ_INT(r->max_ns, want[i].max);
        if (r->kind == TP_KIND_KERNEL)
            kernels += r->total_ns;
    }
    CHECK_EQ_INT(kernels, 414085123); /* the 97 kernels' device time */
    /* waits and markers on a stream are sync, not work; so is the device's
     * view of synchronizeStream (mtia_runtime on a Submission Queue track) */
    CHECK_EQ_INT(count_named(&t, "event_record", TP_KIND_SYNC, NULL), 291);
    CHECK_EQ_INT(count_named(&t, "event_wait", TP_KIND_SYNC, NULL), 48);
    CHECK_EQ_INT(count_named(&t, "synchronize", TP_KIND_SYNC, NULL), 113);
    CHECK_EQ_INT(count_named(&t, "synchronizeStream", TP_KIND_RUNTIME, NULL), 113);
    CHECK_EQ_INT(count_named(&t, "runFunction - job_prep_and_submit_for_execution", TP_KIND_RUNTIME, NULL), 74);
    /* the device process is a device, the host process is not */
    size_t ndev = 0;
    for (size_t p = 0; p < t.nprocesses; p++)
        if (t.processes[p].is_device) {
            ndev++;
            CHECK_EQ_INT(t.processes[p].pid, 17);
        }
    CHECK_EQ_INT(ndev, 1);
    CHECK_EQ_INT(t.notices.len, 0); /* no unknown-category notice: MTIA's categories are known */
    CHECK_EQ_INT(t.notices.len, 0);
    tp_kernel_table_free(&kt);
    tp_trace_free(&t);
}

TEST(mtia_device_events_link_to_their_runtime_calls_by_correlation)
{
    tp_trace t;
    CHECK_EQ_INT(load(tp_test_shared(MTIA), &t, true), 0);
    /* recount: merge 36 and remote 37 <- runFunction, dma_request 657 of 877
     * <- enqueueCommand memcpy*Async, event_record 224 of 291 <- recordEvent,
     * event_wait 37 of 48 <- enqueueCommand waitOnEvent, pe_exe has no
     * correlation id; synchronize 113 <- synchronizeStream */
    size_t l = 0;
    CHECK_EQ_INT(count_named(&t, "merge", TP_KIND_KERNEL, &l), 36);
    CHECK_EQ_INT(l, 36);
    l = 0;
    CHECK_EQ_INT(count_named(&t, "remote", TP_KIND_KERNEL, &l), 37);
    CHECK_EQ_INT(l, 37);
    l = 0;
    count_named(&t, "pe_exe", TP_KIND_KERNEL, &l);
    CHECK_EQ_INT(l, 0);
    l = 0;
    count_named(&t, "dma_request", TP_KIND_MEMCPY, &l);
    CHECK_EQ_INT(l, 657);
    l = 0;
    count_named(&t, "event_record", TP_KIND_SYNC, &l);
    CHECK_EQ_INT(l, 224);
    l = 0;
    count_named(&t, "event_wait", TP_KIND_SYNC, &l);
    CHECK_EQ_INT(l, 37);
    l = 0;
    count_named(&t, "synchronize", TP_KIND_SYNC, &l);
    CHECK_EQ_INT(l, 113);
    for (size_t i = 0; i < t.nevents; i++) { /* every link is to a host runtime call of the same id */
        const tp_event *e = &t.events[i];
        if (e->link == TP_NONE || (e->flags & TP_EV_DROPPED))
            continue;
        const tp_event *c = &t.events[e->link];
        CHECK_EQ_INT(c->kind, TP_KIND_RUNTIME);
        CHECK_EQ_INT(c->corr, e->corr);
        CHECK(!t.processes[t.tracks[c->track].process].is_device);
    }
    tp_trace_free(&t);
}

TEST(mtia_stats_shows_the_kernels_and_no_warning)
{
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>/dev/null", tp_test_bin(), tp_test_shared(MTIA)), 0);
    CHECK(out && strstr(out, "974 kernel/memcpy/memset instances of 4 names, 459456313 ns in total"));
    CHECK(out && strstr(out, "257869750         36"));
    /* no category warning; the one thing stats says is the trace's own duplicate ids */
    CHECK_EQ_INT(tp_test_run(&err, "%s stats '%s' 2>&1 >/dev/null", tp_test_bin(), tp_test_shared(MTIA)), 0);
    char want[1024];
    snprintf(want, sizeof want, "tracepress: %s: warning: duplicate correlation ids on launch calls (first kept): 62\n",
             tp_test_shared(MTIA));
    CHECK(err && strcmp(err, want) == 0);
    free(out);
    free(err);
}

TEST(cupti_profiler_ranges_are_named_in_a_warning)
{
    char *err = NULL, *out = NULL;
    const char *in = tp_test_shared(CUPTI);
    CHECK_EQ_INT(tp_test_run(&err, "%s stats '%s' 2>&1 >/dev/null", tp_test_bin(), in), 0);
    char want[2048];
    snprintf(want, sizeof want,
             "tracepress: %s: warning: 77 device events in unknown category \"cuda_profiler_range\" not read as "
             "device activity (kept in conversions, not counted as kernels)\n",
             in);
    CHECK_STR(err, want);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>/dev/null", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "0 kernel/memcpy/memset instances"));
    free(out);
    free(err);
    /* convert keeps them (written) and names them in the same one notice; not an error with --strict */
    CHECK_EQ_INT(tp_test_run(&err, "%s convert --strict '%s' -o '%s' 2>&1", tp_test_bin(), in,
                             tp_test_tmp("cupti.json")), 0);
    CHECK(err && strstr(err, "warning: 77 device events in unknown category \"cuda_profiler_range\"") &&
          !strstr(err, "warnings:"));
    free(err);
    CHECK_EQ_INT(tp_test_run(&out, "grep -o '\"cat\":\"cuda_profiler_range\"' '%s' | wc -l", tp_test_tmp("cupti.json")),
                 0);
    CHECK(out && atoi(out) == 77);
    free(out);
}

/* A device (a kernel on pid 1) with slices of seven unknown categories, one
 * of them hostile (a control character, a quote, bytes that are not ASCII,
 * 60 bytes long); a host thread with an unknown category (not counted); a
 * process labelled "GPU 3" with no known device activity. */
static const char *unknown_cats_trace(void)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n"
                    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":3,\"args\":{\"labels\":\"GPU 3\"}},\n"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2},\n"
                    "{\"ph\":\"X\",\"cat\":\"host_thing\",\"name\":\"h\",\"pid\":9,\"tid\":9,\"ts\":1,\"dur\":2}");
    static const struct {
        const char *cat;
        int n, pid;
    } cats[] = {{"c_seven", 7, 1}, {"c_six", 6, 1}, {"c_five", 5, 3}, {"c_four", 4, 1}, {"c_three", 3, 1},
                {"c_two_a", 2, 1}, {"c_two_b", 2, 3}};
    for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++)
        for (int i = 0; i < cats[c].n; i++)
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"x\",\"pid\":%d,\"tid\":8,\"ts\":%d,\"dur\":1}",
                          cats[c].cat, cats[c].pid, 10 + i);
    for (int i = 0; i < 8; i++) /* 8: the most, listed first */
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"evil\\u001b[2J\\\"\\u00e9%s\",\"name\":\"x\",\"pid\":1,"
                          "\"tid\":8,\"ts\":%d,\"dur\":1}",
                      "0123456789012345678901234567890123456789012345678901234", 30 + i);
    tp_buf_puts(&b, "\n]}\n");
    const char *p = tp_test_write_text("unknown_cats.json", b.data);
    tp_buf_free(&b);
    return p;
}

TEST(unknown_device_categories_are_named_escaped_and_capped)
{
    const char *in = unknown_cats_trace();
    char want[2048];
    snprintf(want, sizeof want,
             "tracepress: %s: warning: 37 device events in 8 unknown categories: "
             "\"evil\\x1b[2J\\\"\\xc3\\xa90123456789012345678901234567890123456...\" (8), "
             "\"c_seven\" (7), \"c_six\" (6), \"c_five\" (5), \"c_four\" (4) and 3 more "
             "not read as device activity (kept in conversions, not counted as kernels)\n",
             in);
    /* one reader, and two (the second half joined at an event boundary) */
    static const char *const env[] = {"TP_READ_THREADS=1", "TP_READ_SPLIT_MIN=0"};
    for (int k = 0; k < 2; k++) {
        char *err = NULL;
        CHECK_EQ_INT(tp_test_run(&err, "%s %s stats '%s' 2>&1 >/dev/null", env[k], tp_test_bin(), in), 0);
        CHECK_STR(err, want);
        free(err);
    }
    char *split = NULL;
    tp_test_run(&split, "TP_READ_SPLIT_MIN=0 TP_READ_SPLIT_REPORT=1 %s stats '%s' 2>&1 >/dev/null", tp_test_bin(), in);
    CHECK(split && strstr(split, "joined")); /* the join path was taken */
    free(split);
}

/* A document that is not a trace: exit 2, exactly one line naming the
 * problem at its offset, no output; the same from stats. */
static void refused(const char *name, const char *text, const char *msg)
{
    const char *in = tp_test_write_text(name, text);
    char out[1200], want[2048];
    snprintf(out, sizeof out, "%s.out.json", in);
    snprintf(want, sizeof want, "tracepress: %s: %s\n", in, msg);
    char *err = NULL;
    CHECK_EQ_INT(tp_test_run(&err, "%s convert '%s' -o '%s' 2>&1", tp_test_bin(), in, out), 2);
    CHECK_STR(err, want);
    CHECK(!tp_test_file_exists(out));
    free(err);
    CHECK_EQ_INT(tp_test_run(&err, "%s stats '%s' 2>&1", tp_test_bin(), in), 2);
    CHECK_STR(err, want);
    free(err);
}

static void accepted(const char *name, const char *text, int events)
{
    const char *in = tp_test_write_text(name, text);
    char out[1200];
    snprintf(out, sizeof out, "%s.out.json", in);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, out), 0);
    CHECK(tp_test_file_exists(out));
    char *st = NULL;
    CHECK_EQ_INT(tp_test_run(&st, "%s stats --json '%s' 2>&1", tp_test_bin(), in), 0);
    char want[64];
    snprintf(want, sizeof want, "\"events\":%d,", events);
    CHECK(st && strstr(st, want));
    free(st);
}

TEST(json_that_is_not_a_trace_is_an_error)
{
    refused("nt_obj.json", "{\"foo\":1}", "offset 0: not a trace: a JSON object without \"traceEvents\"");
    refused("nt_empty_obj.json", "  {}", "offset 2: not a trace: a JSON object without \"traceEvents\"");
    refused("nt_obj_comma.json", "{\"foo\":1,}", "offset 0: not a trace: a JSON object without \"traceEvents\"");
    /* a PyTorch Execution Trace (torch.profiler.ExecutionTraceObserver's layout), either key order */
    static const char et_msg[] = "offset 0: not a trace: a PyTorch Execution Trace (\"schema\", \"nodes\"), which has "
                                 "no times; read the profiler's Kineto trace instead";
    refused("nt_et.json",
            "{\"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 7, \"time\": \"2024-05-01 10:00:00\", \"start_ts\": 10,"
            " \"nodes\": [{\"id\": 1, \"name\": \"[pytorch|profiler|execution_trace|process]\", \"ctrl_deps\": 0,"
            " \"inputs\": {\"values\": [], \"shapes\": [], \"types\": []}, \"outputs\": {\"values\": [],"
            " \"shapes\": [], \"types\": []}, \"attrs\": [{\"name\": \"rf_id\", \"type\": \"uint64\", \"value\": 0}]}],"
            " \"finish_ts\": 20}",
            et_msg);
    refused("nt_et2.json", "{\"nodes\": [], \"schema\": \"1.0.1\"}", et_msg);
    refused("nt_num.json", "42", "offset 0: not a trace: a number at the top level (a trace is an object with "
                                  "\"traceEvents\" or an array of events)");
    refused("nt_str.json", "\n\"x\"", "offset 1: not a trace: a string at the top level (a trace is an object with "
                                      "\"traceEvents\" or an array of events)");
    refused("nt_true.json", "true", "offset 0: not a trace: a boolean at the top level (a trace is an object with "
                                    "\"traceEvents\" or an array of events)");
    refused("nt_arr.json", "[1, 2]", "offset 1: not a trace: the top-level array holds a number, not event objects");
    refused("nt_arr2.json", "[[]]", "offset 1: not a trace: the top-level array holds an array, not event objects");
    /* what stays a trace: an empty one in either form, one of ftrace text only, events after other keys */
    accepted("ok_arr.json", "[]", 0);
    accepted("ok_events.json", "{\"traceEvents\": []}", 0);
    accepted("ok_system.json", "{\"systemTraceEvents\": \"\"}", 0);
    accepted("ok_schema.json", "{\"schema\": 1, \"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,"
                               "\"pid\":1,\"tid\":1}], \"nodes\": []}", 1);
    accepted("ok_bare.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]", 1);
}
