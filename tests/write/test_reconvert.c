/* test_reconvert.c: a converted trace of every input format, converted
 * again, gives the same bytes, launch flows included (the Chrome reader
 * restores the links from the writer's flow keys: chrome_read.c "flow
 * keys"); and flow keys that make no pair are counted, never fatal.
 * The Kineto samples' round trip is in test_chrome.c
 * (samples_convert_load_in_trace_engine_and_reconvert_identically), the
 * XPlane samples' in test_xplane.c, ETDump with an ETRecord in
 * test_etdump_scope.c. */
#include "tests/lib/dvdt_samples.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>

/* Load IN as convert does (args kept, links made); a failure fails the test. */
static void load_for_convert(const char *in, tp_trace *t)
{
    tp_trace_init(t);
    tp_load_opts o = {0};
    o.read.keep_args = true;
    tp_err err;
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(tp_load(in, &o, t, &err), 0);
}

/* "N launch flows" of a summary line, or -1. */
static long launch_flows(const char *log)
{
    const char *p = log ? strstr(log, " launch flows") : NULL;
    if (!p)
        return -1;
    while (p > log && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtol(p, NULL, 10);
}

/* Convert IN, convert the output again (ENV before the second run, e.g. to
 * read it in two halves), compare the bytes; the launch flow count of the
 * first conversion is returned (and must be that of the second). */
static long round_trip(const char *in, const char *env)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", tp_test_tmp("rt1.json"));
    snprintf(b, sizeof b, "%s", tp_test_tmp("rt2.json"));
    char *l1 = NULL, *l2 = NULL;
    int rc1 = tp_test_run(&l1, "%s convert '%s' -o '%s'", tp_test_bin(), in, a);
    int rc2 = tp_test_run(&l2, "%s %s convert '%s' -o '%s'", env, tp_test_bin(), a, b);
    CHECK_EQ_INT(rc1, 0);
    CHECK_EQ_INT(rc2, 0);
    long f1 = launch_flows(l1), f2 = launch_flows(l2);
    CHECK(f1 >= 0);
    CHECK_EQ_INT(f2, f1);
    int same = tp_test_run(NULL, "cmp -s '%s' '%s'", a, b);
    CHECK_EQ_INT(same, 0);
    if (same || f1 != f2 || rc1 || rc2)
        fprintf(stderr, "  %s:\n  %s  %s", in, l1 ? l1 : "", l2 ? l2 : "");
    free(l1);
    free(l2);
    return f1;
}

TEST(reconvert_every_format_identically_with_its_launch_flows)
{
    static const struct {
        const char *rel;
        long flows; /* launch flows of the conversion (-1: not checked) */
    } samples[] = {
        {"external/dvdt/dvdt_prof_armcl_tmp-dvdt-prof.json", 100},
        {"external/plaidml/plaidml_2017_mnist_mlp_log.gz", 19598},
        {"external/plaidml/plaidml_hello_eventlog.gz", 0},
        {"external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb", 105},
        {"external/etdump/executorch_tutorial_etdump.etdp", 0},
        {"external/kineto/hta_triton_example.json.gz", 1},
        {"external/kineto/hta_inference_rank1_2022_capcats.json.gz", 4},
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        long f = round_trip(tp_test_shared(samples[i].rel), "");
        CHECK_EQ_INT(f, samples[i].flows);
    }
    /* a dv/dt CK point (three repetitions, a Layers line) */
    CHECK_EQ_INT(round_trip(tp_test_dvdt_ck_point("ckp-0123456789abcdef.0001.json", 3), ""), 6);
    /* the second reading in two halves: the flow keys of both are joined */
    CHECK_EQ_INT(round_trip(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), "TP_READ_SPLIT_MIN=0"),
                 19598);
}

/* One launch call, three kernels: the first gets the v2 flow, the others a
 * v1 "launch" pair each.  With correlation ids (Kineto) and without (as
 * dv/dt and PlaidML output reads: the links come from the flow keys only). */
#define MULTI_LAUNCH(CORR)                                                                                     \
    "{\"traceEvents\":[\n"                                                                                     \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5" \
    CORR "},\n"                                                                                                \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5" CORR "},\n"       \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5" CORR "},\n"       \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":8,\"ts\":40,\"dur\":5" CORR "}\n"        \
    "]}\n"

TEST(reconvert_launch_with_several_device_events)
{
    /* with correlation: the v1 pairs used to come back twice */
    CHECK_EQ_INT(round_trip(tp_test_write_text("multi_corr.json", MULTI_LAUNCH(",\"args\":{\"correlation\":5}")), ""), 3);
    /* without: a converted trace with its links only in the flow keys */
    const char *conv = tp_test_tmp("multi_conv.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_write_text("multi_corr2.json", MULTI_LAUNCH(",\"args\":{\"correlation\":5}")), conv),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "sed -i 's/,\"args\":{\"correlation\":5}//' '%s'", conv), 0);
    char *text = tp_test_read_file(conv, NULL);
    CHECK(text && !strstr(text, "correlation") && strstr(text, "\"ph\":\"s\",\"cat\":\"launch\""));
    free(text);
    CHECK_EQ_INT(round_trip(conv, ""), 3);
    CHECK_EQ_INT(round_trip(conv, "TP_READ_SPLIT_MIN=0"), 3);
    /* the links as the model holds them */
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts o = {0};
    o.read.keep_args = true;
    tp_err err;
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(tp_load(conv, &o, &t, &err), 0);
    uint32_t launch = TP_NONE;
    int linked = 0, dropped = 0;
    for (size_t i = 0; i < t.nevents; i++)
        if (strcmp(tp_str_get(&t, t.events[i].name), "cudaLaunchKernel") == 0)
            launch = (uint32_t)i;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->kind == TP_KIND_KERNEL) {
            CHECK_EQ_INT(e->link, launch);
            CHECK(e->flags & TP_EV_LINK_FLOW);
            linked++;
        }
        dropped += (e->flags & TP_EV_DROPPED) != 0;
    }
    CHECK_EQ_INT(linked, 3);
    CHECK_EQ_INT(dropped, 4); /* the two v1 pairs, drawn again by the writer */
    CHECK_EQ_INT(t.nwarnings, 0);
    tp_trace_free(&t);
}

/* Correlation first: flow keys only fill in what correlation did not link. */
TEST(reconvert_flow_keys_yield_to_correlation)
{
    const char *in = tp_test_write_text(
        "corr_first.json",
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
        "\"args\":{\"correlation\":5}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"bind_id\":1,"
        "\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5,\"bind_id\":1,"
        "\"flow_in\":true,\"args\":{\"correlation\":5}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5,\"bind_id\":2,"
        "\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"m\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":5,\"bind_id\":2,"
        "\"flow_in\":true,\"args\":{\"correlation\":9}}\n"
        "]}\n");
    tp_trace t;
    load_for_convert(in, &t);
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        const char *n = tp_str_get(&t, e->name);
        if (strcmp(n, "k") == 0) { /* correlation 5 names A, the flow B: A wins */
            CHECK(e->link != TP_NONE && strcmp(tp_str_get(&t, t.events[e->link].name), "A") == 0);
        }
        if (strcmp(n, "m") == 0) { /* correlation 9 names no launch: the flow's C stays */
            CHECK(e->link != TP_NONE && strcmp(tp_str_get(&t, t.events[e->link].name), "C") == 0);
            CHECK(e->flags & TP_EV_LINK_FLOW);
        }
    }
    tp_trace_free(&t);
}

/* Broken flow keys: each kind counted, the good pair still linked; with
 * --strict the first one is an error. */
TEST(reconvert_broken_flow_keys_are_counted)
{
#define SL(NAME, TID, TS, KEYS)                                                                                  \
    "{\"ph\":\"X\",\"cat\":\"" NAME "\",\"name\":\"" NAME "\",\"pid\":1,\"tid\":" TID ",\"ts\":" TS ",\"dur\":1" \
    KEYS "},\n"
    const char *text =
        "{\"traceEvents\":[\n"
        SL("runtime", "1", "10", ",\"bind_id\":1,\"flow_out\":true")       /* a good pair */
        SL("kernel", "2", "11", ",\"flow_in\":true,\"bind_id\":1")
        SL("runtime", "1", "20", ",\"bind_id\":2,\"flow_out\":true")       /* id 2 twice out: first kept */
        SL("runtime", "1", "22", ",\"bind_id\":2,\"flow_out\":true")
        SL("kernel", "2", "23", ",\"bind_id\":2,\"flow_in\":true")
        SL("kernel", "2", "30", ",\"bind_id\":3,\"flow_in\":true")         /* in without out */
        SL("runtime", "1", "40", ",\"bind_id\":4,\"flow_out\":true")       /* out without in */
        SL("kernel", "2", "50", ",\"bind_id\":\"5\",\"flow_in\":true")     /* not integers, out of range */
        SL("kernel", "2", "51", ",\"bind_id\":0,\"flow_in\":true")
        SL("kernel", "2", "52", ",\"bind_id\":-6,\"flow_in\":true")
        SL("kernel", "2", "53", ",\"bind_id\":7.5,\"flow_in\":true")
        SL("kernel", "2", "54", ",\"bind_id\":99999999999999999999,\"flow_in\":true")
        SL("kernel", "2", "55", ",\"bind_id\":{\"a\":1},\"flow_in\":true")
        SL("kernel", "2", "60", ",\"flow_in\":true")                       /* no bind_id */
        SL("kernel", "2", "61", ",\"bind_id\":8")                          /* no direction */
        SL("kernel", "2", "62", ",\"bind_id\":8,\"flow_in\":false")
        SL("kernel", "2", "63", ",\"bind_id\":9,\"flow_in\":true,\"flow_out\":true") /* both */
        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":70,\"s\":\"t\",\"bind_id\":10,\"flow_out\":true},\n"
        "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":80,\"id\":11},\n" /* a v1 pair */
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"pid\":1,\"tid\":2,\"ts\":81,\"id\":11}\n"
        "]}\n";
#undef SL
    const char *in = tp_test_write_text("broken_flows.json", text);
    tp_trace t;
    load_for_convert(in, &t);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: bind_id on more than one flow_out or flow_in (first kept)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: flow_in without a flow_out (ignored)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: flow_out without a flow_in (ignored)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: bind_id not an integer from 1 to 2^63-1 (ignored)"), 6);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: flow_in/flow_out without bind_id (ignored)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: bind_id without flow_in/flow_out true (ignored)"), 2);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: flow_in and flow_out on one slice (ignored)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys on events that are not slices (ignored)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: \"launch\" flow pairs not next to their slices (kept as they are)"), 1);
    int linked = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->link == TP_NONE)
            continue;
        linked++;
        CHECK(e->ts == 11000 || e->ts == 23000);
        CHECK_EQ_INT(t.events[e->link].ts, e->ts == 11000 ? 10000 : 20000);
    }
    CHECK_EQ_INT(linked, 2);
    tp_trace_free(&t);
    /* the CLI: exit 0, the two flows drawn, the warnings on the summary line;
     * --strict refuses the file */
    char *log = NULL;
    const char *out = tp_test_tmp("broken_flows.out.json");
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o '%s'", tp_test_bin(), in, out), 0);
    CHECK(log && strstr(log, " 2 launch flows,") && strstr(log, "flow keys: flow_in without a flow_out (ignored): 1"));
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s convert --strict '%s' -o '%s'", tp_test_bin(), in, out), 2);
    CHECK(log && strstr(log, "rejected by --strict"));
    free(log);
    /* stats links (its GPU time model counts unlinked work), so --strict refuses
     * there too; --kernels-only reads no links: the keys are dropped without a word */
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --strict '%s'", tp_test_bin(), in), 2);
    CHECK(log && strstr(log, "rejected by --strict"));
    free(log);
    CHECK_EQ_INT(tp_test_run(&log, "%s stats --kernels-only --strict '%s'", tp_test_bin(), in), 0);
    free(log);
}

/* Bind ids far apart (not the writer's 1, 2, 3...): the sorted path. */
TEST(reconvert_sparse_bind_ids)
{
    const char *in = tp_test_write_text(
        "sparse_flows.json",
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"runtime\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,"
        "\"bind_id\":9223372036854775807,\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"runtime\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":1,"
        "\"bind_id\":123456789,\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"runtime\",\"name\":\"b2\",\"pid\":1,\"tid\":1,\"ts\":22,\"dur\":1,"
        "\"bind_id\":123456789,\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kb\",\"pid\":1,\"tid\":2,\"ts\":25,\"dur\":1,"
        "\"bind_id\":123456789,\"flow_in\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ka\",\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":1,"
        "\"bind_id\":9223372036854775807,\"flow_in\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kc\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":1,"
        "\"bind_id\":55555555555,\"flow_in\":true}\n"
        "]}\n");
    tp_trace t;
    load_for_convert(in, &t);
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        const char *n = tp_str_get(&t, e->name), *l = e->link != TP_NONE ? tp_str_get(&t, t.events[e->link].name) : "";
        if (strcmp(n, "ka") == 0)
            CHECK_STR(l, "a");
        if (strcmp(n, "kb") == 0)
            CHECK_STR(l, "b"); /* the first flow_out */
        if (strcmp(n, "kc") == 0)
            CHECK_STR(l, "");
    }
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: bind_id on more than one flow_out or flow_in (first kept)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "flow keys: flow_in without a flow_out (ignored)"), 1);
    tp_trace_free(&t);
    /* converted, then converted again: the same bytes */
    CHECK_EQ_INT(round_trip(in, ""), 2);
}

/* A synthetic XSpace whose derived lines overlap themselves: nesting repair
 * gives "(overlap)" rows, and "(overlap) (overlap)" ones, which must sit
 * right after their line (they were appended after every stream: the track
 * order expanded one level of "beside" tracks only), and the converted trace
 * must convert again to the same bytes. */
TEST(reconvert_overlap_rows_of_derived_lines_sit_beside_them)
{
    const char *x = tp_test_tmp("ov.xplane.pb"), *a = tp_test_tmp("ov1.json");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_xplane 5 '%s' > /dev/null", x), 0);
    round_trip(x, "");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), x, a), 0);
    char *text = tp_test_read_file(a, NULL);
    CHECK(text != NULL);
    if (!text)
        return;
    /* the thread names of the first device, in output order */
    const char *line = strstr(text, "\"name\":\"TensorFlow Name Scope\"");
    const char *ov = strstr(text, "\"name\":\"TensorFlow Name Scope (overlap)\"");
    const char *ov2 = strstr(text, "\"name\":\"TensorFlow Name Scope (overlap) (overlap)\"");
    const char *ops = line ? strstr(line, "\"name\":\"TensorFlow Ops\"") : NULL;
    CHECK(line && ov && ov2 && ops);
    if (line && ov && ov2 && ops)
        CHECK(line < ov && ov < ov2 && ov2 < ops); /* beside the line, before the next line */
    free(text);
}
