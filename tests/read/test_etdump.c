/* test_etdump.c: ExecuTorch ETDump reader and Inspector statistics: the real
 * tutorial sample's figures (SOURCES.md), synthetic ETDumps with known
 * answers, and every truncation / corruption of the real file. */
#pragma GCC diagnostic ignored "-Woverride-init" /* XPROF(...) defaults, then the test's fields */
#include "convert/read/etdump/etdump.h"
#include "tests/lib/etdump_build.h"
#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/formats.h"
#include "tests/lib/harness.h"
#include "convert/read/etdump/etdump_opts.h"
#include "convert/model/model.h"

#include <stdlib.h>

#define SAMPLE "external/etdump/executorch_tutorial_etdump.etdp"

static const tp_ed_scale NS = {1, 1, "ns"};

/* Find an Inspector event by name (and instruction id unless -2). */
static const tp_insp_event *insp_find(const tp_insp_block *b, const char *name, int32_t iid)
{
    for (size_t i = 0; i < b->nevents; i++)
        if (strcmp(b->events[i].name, name) == 0 && (iid == -2 || b->events[i].instruction_id == iid))
            return &b->events[i];
    return NULL;
}

static const char *ms(int64_t cns)
{
    static char bufs[4][48];
    static int k;
    char *b = bufs[k++ & 3];
    tp_insp_ms(b, cns);
    return b;
}

/* Parse a buffer (copied: the etdump takes ownership) and inspect it. */
static int inspect_buf(const uint8_t *p, size_t n, tp_etdump *d, tp_inspector *in, const tp_ed_scale *sc)
{
    tp_err err = {0};
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    if (tp_etdump_parse(copy, n, d, &err) < 0)
        return -1;
    return tp_etdump_inspect(d, NULL, sc, in, &err);
}

/* Parse and map into a trace with args. */
static int trace_buf(const uint8_t *p, size_t n, tp_trace *t, const char *scale, tp_err *err)
{
    tp_etdump d;
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    tp_trace_init(t);
    tp_read_opts o = {.keep_args = true};
    tp_etdump_opts eo = {.time_scale = scale};
    tp_format_opts_set(&o, &tp_format_etdump, &eo);
    int rc = tp_etdump_parse(copy, n, &d, err);
    if (rc == 0)
        rc = tp_etdump_to_trace(&d, NULL, &o, t, err);
    tp_etdump_free(&d);
    return rc;
}

static const tp_event *trace_find(const tp_trace *t, const char *name, int nth)
{
    for (size_t i = 0; i < t->nevents; i++)
        if (strcmp(tp_str_get(t, t->events[i].name), name) == 0 && nth-- == 0)
            return &t->events[i];
    return NULL;
}

static const char *args_of(const tp_trace *t, const tp_event *e)
{
    const char *a = tp_args_get(t, e->args, NULL);
    return a ? a : "";
}

TEST(etdump_probe_accepts_prefixed_and_plain)
{
    const unsigned char pre[12] = {0x0c, 9, 0, 0, 8, 0, 0, 0, 'E', 'D', '0', '0'};
    CHECK_EQ_INT(tp_etdump_probe(pre, 12), 100);
    CHECK_EQ_INT(tp_etdump_probe(pre + 4, 8), 100);
    CHECK_EQ_INT(tp_etdump_probe((const unsigned char *)"{\"traceEvents\":[]}", 18), 0);
    CHECK(tp_format_find("etdump") != NULL);
}

TEST(etdump_tutorial_sample_inspector_figures)
{
    tp_etdump d;
    tp_err err = {0};
    CHECK_EQ_INT(tp_etdump_load(tp_test_shared(SAMPLE), &d, &err), 0);
    CHECK_EQ_INT(d.nruns, 2);
    CHECK_EQ_INT(d.nprofile, 31);
    CHECK_EQ_INT(d.ndebug, 0);
    CHECK_EQ_INT(d.nalloc, 0);
    CHECK_EQ_INT(d.fb_base, 4);
    CHECK_EQ_INT(d.version, 0);
    tp_inspector in;
    CHECK_EQ_INT(tp_etdump_inspect(&d, NULL, &NS, &in, &err), 0);
    CHECK_EQ_INT(in.nblocks, 2);
    if (in.nblocks == 2) {
        const tp_insp_block *def = &in.blocks[0], *ex = &in.blocks[1];
        CHECK_STR(def->name, "Default");
        CHECK_STR(ex->name, "Execute");
        CHECK_EQ_INT(def->nevents, 2);
        CHECK_EQ_INT(ex->nevents, 29);
        CHECK_STR(def->events[0].name, "Method::init");
        CHECK_STR(ms(def->events[0].p50_cns), "0.022484");
        CHECK_STR(ms(insp_find(def, "Program::load_method", -2)->max_ns * 100), "0.024857");
        const tp_insp_event *conv = insp_find(ex, "native_call_convolution.out", 3);
        CHECK(conv != NULL);
        if (conv) {
            CHECK_EQ_INT(conv->n, 1);
            CHECK_STR(ms(conv->p10_cns), "1.031719");
            CHECK_STR(ms(conv->p50_cns), "1.031719");
            CHECK_STR(ms(conv->avg_cns), "1.031719");
            CHECK(!conv->delegated && !conv->framework && !conv->excluded);
        }
        CHECK_STR(ms(insp_find(ex, "native_call_convolution.out", 0)->p50_cns), "0.544783");
        CHECK_STR(ms(insp_find(ex, "OPERATOR_CALL", 0)->p50_cns), "0.546816");
        CHECK(insp_find(ex, "OPERATOR_CALL", 0)->excluded);
        CHECK_STR(ms(insp_find(ex, "native_call_relu.out", 1)->p50_cns), "0.008394");
        const tp_insp_event *exec = insp_find(ex, "Method::execute", -2);
        CHECK(exec && exec->framework);
        CHECK_STR(ms(exec->p50_cns), "1.898821");
        CHECK_STR(ex->events[28].name, "Method::execute"); /* last: its own instruction event */
        /* 14 instructions: native_call then OPERATOR_CALL for each */
        for (int i = 0; i < 14; i++) {
            CHECK_EQ_INT(ex->events[2 * i].instruction_id, i);
            CHECK(strncmp(ex->events[2 * i].name, "native_call_", 12) == 0);
            CHECK_STR(ex->events[2 * i + 1].name, "OPERATOR_CALL");
        }
        CHECK(ex->has_tax);
        /* slowest operator: convolution at instruction 3 */
        const tp_insp_event *slow = NULL;
        for (size_t i = 0; i < ex->nevents; i++)
            if (!ex->events[i].framework && !ex->events[i].excluded && (!slow || ex->events[i].max_ns > slow->max_ns))
                slow = &ex->events[i];
        CHECK(slow == conv);
    }
    tp_buf j = {0};
    tp_inspector_json(&in, &j);
    CHECK(strstr(j.data, "\"event_name\":\"native_call_convolution.out\",\"instruction_id\":3,\"chain_index\":0,"
                         "\"count\":1,\"raw_ms\":[1.031719],\"p10_ms\":1.031719") != NULL);
    tp_buf_free(&j);
    tp_inspector_free(&in);
    tp_etdump_free(&d);
}

TEST(etdump_tutorial_sample_trace_model)
{
    size_t n;
    char *raw = tp_test_read_file(tp_test_shared(SAMPLE), &n);
    CHECK(raw != NULL);
    if (!raw)
        return;
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf((uint8_t *)raw, n, &t, NULL, &err), 0);
    CHECK_STR(t.format, "etdump");
    CHECK_EQ_INT(t.nevents, 31 + 2); /* profile events + one span per run */
    int kernels = 0, calls = 0, fw = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        kernels += e->kind == TP_KIND_KERNEL;
        calls += e->kind == TP_KIND_HOST_OP;
        if (e->flags & TP_EV_FRAMEWORK) {
            fw++;
            CHECK_EQ_INT(e->kind, TP_KIND_ANNOTATION);
        }
    }
    CHECK_EQ_INT(kernels, 14);
    CHECK_EQ_INT(calls, 14);
    CHECK_EQ_INT(fw, 3);
    const tp_event *exec = trace_find(&t, "Method::execute", 0);
    const tp_event *conv = trace_find(&t, "native_call_convolution.out", 1);
    CHECK(exec && conv);
    if (exec && conv) {
        CHECK_EQ_INT(exec->ts, 425313);
        CHECK_EQ_INT(exec->dur, 1898821);
        CHECK_EQ_INT(conv->dur, 1031719);
        CHECK(strstr(args_of(&t, conv), "\"instruction_id\":3") != NULL);
        CHECK(strstr(args_of(&t, exec), "\"framework_tax_ms\":") != NULL);
        /* Method::execute encloses every operator call of its run */
        for (size_t i = 0; i < t.nevents; i++)
            if (t.events[i].kind == TP_KIND_KERNEL || t.events[i].kind == TP_KIND_HOST_OP) {
                CHECK(t.events[i].ts >= exec->ts);
                CHECK(t.events[i].ts + t.events[i].dur <= exec->ts + exec->dur);
            }
    }
    const tp_event *run1 = trace_find(&t, "Execute", 0);
    CHECK(run1 && run1->track != exec->track);
    tp_trace_free(&t);
    free(raw);
}

/* Every truncation of the real file is a clean error; with the size prefix
 * patched (so the flatbuffer itself is cut) and without the prefix, no
 * length may crash; every single-byte corruption parses or fails cleanly. */
TEST(etdump_every_truncation_and_corruption_is_clean)
{
    size_t n;
    uint8_t *raw = (uint8_t *)tp_test_read_file(tp_test_shared(SAMPLE), &n);
    CHECK(raw != NULL);
    if (!raw)
        return;
    int clean = 0;
    for (size_t len = 0; len < n; len++) {
        tp_trace t;
        tp_err err = {0};
        if (trace_buf(raw, len, &t, NULL, &err) < 0 && err.set && err.msg[0])
            clean++;
        tp_trace_free(&t);
    }
    CHECK_EQ_INT(clean, n);
    uint8_t *buf = malloc(n);
    int failed_cut = 0;
    for (size_t len = 12; len < n; len++) { /* prefix says len-4: the tables are cut */
        memcpy(buf, raw, len);
        uint32_t size = (uint32_t)len - 4;
        memcpy(buf, &size, 4);
        tp_trace t;
        tp_err err = {0};
        int rc = trace_buf(buf, len, &t, NULL, &err);
        CHECK(rc == 0 || (err.set && strncmp(err.where, "offset ", 7) == 0));
        failed_cut += rc < 0;
        tp_trace_free(&t);
        rc = trace_buf(raw + 4, len - 4, &t, NULL, &err); /* plain, unprefixed */
        tp_trace_free(&t);
    }
    CHECK(failed_cut > (int)n / 2);
    for (size_t pos = 0; pos < n; pos++) {
        memcpy(buf, raw, n);
        buf[pos] ^= (uint8_t)(0x5a + pos);
        tp_trace t;
        tp_err err = {0};
        int rc = trace_buf(buf, n, &t, NULL, &err);
        CHECK(rc == 0 || err.set);
        tp_trace_free(&t);
        tp_etdump d;
        tp_inspector in;
        if (inspect_buf(buf, n, &d, &in, &NS) == 0)
            tp_inspector_free(&in);
        tp_etdump_free(&d);
    }
    free(buf);
    free(raw);
}

/* ---- synthetic ETDumps ---- */

static uint8_t *build(const xrun *runs, int n, size_t *len) { return etdump_build(runs, n, 1, len); }

/* Delegate events with an int id (and metadata) and a string id inside their
 * DELEGATE_CALL, under Method::execute. */
TEST(etdump_synthetic_delegates_int_and_string_ids_with_metadata)
{
    const xev ev[] = {
        XPROF(.instr = 2, .dint = 5, .meta = "\x01\xab", .metalen = 2, .start = 1000, .end = 1500),
        XPROF(.instr = 2, .dstr = "conv_1", .start = 1500, .end = 2300),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 900, .end = 2400),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 800, .end = 2500),
    };
    const xrun run = {"Execute", -1, 4, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(in.nblocks, 1);
    const tp_insp_block *b = &in.blocks[0];
    CHECK_EQ_INT(b->nevents, 4);
    CHECK_STR(b->events[0].name, "5");
    CHECK(b->events[0].delegated && b->events[0].delegate_id_int);
    CHECK_EQ_INT(b->events[0].metadata_samples, 1);
    CHECK_STR(ms(b->events[0].p50_cns), "0.0005");
    CHECK_STR(b->events[1].name, "conv_1");
    CHECK(b->events[1].delegated && !b->events[1].delegate_id_int);
    CHECK_STR(ms(b->events[1].max_ns * 100), "0.0008");
    CHECK_STR(b->events[2].name, "DELEGATE_CALL");
    CHECK(!b->events[2].delegated);
    CHECK_STR(ms(b->events[3].p90_cns), "0.0017");
    CHECK(b->has_tax);
    CHECK_STR(ms(b->framework_tax_cns), "0.0002"); /* 1700 - 1500 ns */
    tp_buf j = {0};
    tp_inspector_json(&in, &j);
    CHECK(strstr(j.data, "\"delegate_debug_identifier\":5,\"is_delegated_op\":true") != NULL);
    CHECK(strstr(j.data, "\"delegate_debug_identifier\":\"conv_1\",\"is_delegated_op\":true") != NULL);
    tp_buf_free(&j);
    tp_inspector_free(&in);
    tp_etdump_free(&d);

    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    const tp_event *d5 = trace_find(&t, "5", 0), *dc = trace_find(&t, "conv_1", 0);
    const tp_event *call = trace_find(&t, "DELEGATE_CALL", 0);
    CHECK(d5 && dc && call);
    if (d5 && dc && call) {
        CHECK_EQ_INT(d5->kind, TP_KIND_KERNEL);
        CHECK_EQ_INT(call->kind, TP_KIND_HOST_OP);
        CHECK_EQ_INT(d5->op, (uint32_t)(call - t.events)); /* nested under its DELEGATE_CALL */
        CHECK_EQ_INT(dc->op, (uint32_t)(call - t.events));
        CHECK(d5->ts >= call->ts && d5->ts + d5->dur <= call->ts + call->dur);
        CHECK_EQ_INT(d5->dur, 500);
        CHECK(strstr(args_of(&t, d5), "\"delegate_debug_id_int\":5") != NULL);
        CHECK(strstr(args_of(&t, d5), "\"delegate_debug_metadata\":\"01ab\",\"delegate_debug_metadata_len\":2") != NULL);
        CHECK(strstr(args_of(&t, dc), "\"delegate_debug_id_str\":\"conv_1\"") != NULL);
    }
    CHECK_EQ_INT(tp_warning_count(&t, "etdump: delegate event outside its DELEGATE_CALL (delegate clock differs?)"), 0);
    tp_trace_free(&t);
    free(buf);
}

/* Debug events: a named tensor and an int at instruction 1, a program output. */
TEST(etdump_synthetic_debug_and_output_events)
{
    const xev ev[] = {
        XPROF(.name = "native_call_conv.out", .instr = 1, .start = 100, .end = 400),
        XDBG(.name = "conv_out", .instr = 1, .vtype = 5, .dtype = 6, .ndims = 2, .dims = {2, 3}),
        XDBG(.instr = 1, .vtype = 1, .ival = 42),
        XPROF(.name = "OPERATOR_CALL", .instr = 1, .start = 50, .end = 450),
        XDBG(.instr = 7, .vtype = 1, .ival = 9, .output = true),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 10, .end = 500),
    };
    const xrun run = {"Execute", -1, 6, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(d.ndebug, 3);
    CHECK_EQ_INT(in.noutputs, 1);
    const tp_insp_block *b = &in.blocks[0];
    CHECK_EQ_INT(b->nevents, 3); /* two profile events of instruction 1 + Method::execute; the output is no event */
    /* upstream: the debug event's name overrides the profile name */
    CHECK_STR(b->events[0].name, "conv_out");
    CHECK_EQ_INT(b->events[0].debug_values, 2);
    CHECK_STR(ms(b->events[0].p50_cns), "0.0003");
    CHECK_STR(b->events[1].name, "conv_out");
    CHECK_EQ_INT(b->outputs, 1);
    tp_inspector_free(&in);
    tp_etdump_free(&d);

    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    const tp_event *tensor = trace_find(&t, "conv_out", 0), *anon = trace_find(&t, "debug", 0);
    const tp_event *out = trace_find(&t, "output", 0);
    CHECK(tensor && anon && out);
    if (tensor && anon && out) {
        CHECK_EQ_INT(tensor->ph, 'i');
        CHECK_EQ_INT(tensor->ts, 400); /* at the end of its instruction's operator */
        CHECK(strstr(args_of(&t, tensor), "\"value\":{\"type\":\"tensor\",\"tensor\":{\"dtype\":\"float\",\"sizes\":[2,3],"
                                          "\"ndim\":2,\"offset\":4096}}") != NULL);
        CHECK(strstr(args_of(&t, anon), "\"value\":{\"type\":\"int\",\"value\":42}") != NULL);
        CHECK(strstr(args_of(&t, out), "\"value\":{\"type\":\"int\",\"value\":9,\"output\":true}") != NULL);
        CHECK_EQ_INT(out->ts, 450); /* no profile event of its own: after the last one so far */
    }
    tp_trace_free(&t);
    free(buf);
}

/* uint32 wraparound (upstream's rule, off by one) and a 64-bit end < start. */
TEST(etdump_synthetic_wraparound_rule)
{
    const xev ev[] = {
        XPROF(.name = "wrapped", .instr = 0, .start = 4294967000u, .end = 200),
        XPROF(.name = "bad", .instr = 1, .start = 5000000000ull, .end = 10),
    };
    const xrun run = {"Execute", -1, 2, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(in.blocks[0].events[0].max_ns, 495); /* (2^32-1 - 4294967000) + 200 */
    CHECK_EQ_INT(in.blocks[0].events[1].max_ns, 0);
    CHECK_EQ_INT(in.nwraparound, 1);
    CHECK_EQ_INT(in.nbad_time, 1);
    tp_inspector_free(&in);
    tp_etdump_free(&d);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    const tp_event *w = trace_find(&t, "wrapped", 0);
    CHECK(w && w->dur == 495 && strstr(args_of(&t, w), "\"uint32_wraparound\":true"));
    CHECK_EQ_INT(tp_warning_count(&t, "etdump: end time before start time beyond the uint32 wraparound rule (duration 0)"), 1);
    tp_trace_free(&t);
    free(buf);
}

/* Two identical Execute runs merge into one block with two samples; a run
 * with another structure and one with a bundled input index do not. */
TEST(etdump_synthetic_identical_runs_merge)
{
    const xev a[] = {
        XPROF(.name = "native_call_add.out", .instr = 0, .start = 100, .end = 1100),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 50, .end = 1200),
    };
    const xev b[] = {
        XPROF(.name = "native_call_add.out", .instr = 0, .start = 2100, .end = 5100),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 2050, .end = 5300),
    };
    const xev c[] = {
        XPROF(.name = "native_call_mul.out", .instr = 0, .start = 6000, .end = 6100),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 5900, .end = 6200),
    };
    const xrun runs[] = {{"Execute", -1, 2, a, 0}, {"Execute", -1, 2, b, 0}, {"Execute", -1, 2, c, 0},
                         {"Execute", 3, 2, a, 0}};
    size_t n;
    uint8_t *buf = build(runs, 4, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(in.nblocks, 3);
    const tp_insp_block *m = &in.blocks[0];
    CHECK_EQ_INT(m->nruns, 2);
    CHECK_EQ_INT(m->runs[1], 1);
    const tp_insp_event *add = &m->events[0];
    CHECK_EQ_INT(add->n, 2);
    CHECK_STR(ms(add->p10_cns), "0.0012"); /* 1000 + 0.1 * 2000 ns */
    CHECK_STR(ms(add->p50_cns), "0.002");
    CHECK_STR(ms(add->p90_cns), "0.0028");
    CHECK_STR(ms(add->avg_cns), "0.002");
    CHECK_STR(ms(add->min_ns * 100), "0.001");
    CHECK_STR(ms(add->max_ns * 100), "0.003");
    CHECK_STR(ms(m->framework_tax_cns), "0.0022"); /* no OPERATOR_CALLs: mean of execute 1150 and 3250 ns */
    CHECK_EQ_INT(in.blocks[1].nruns, 1);
    CHECK_STR(in.blocks[1].events[0].name, "native_call_mul.out");
    CHECK_EQ_INT(in.blocks[2].bundled_input_index, 3);
    tp_inspector_free(&in);
    tp_etdump_free(&d);

    /* the timeline keeps every run, in recorded order */
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    const tp_event *r3 = trace_find(&t, "Execute", 3), *r2 = trace_find(&t, "Execute", 2);
    CHECK(r3 && r2 && r3->ts >= r2->ts + r2->dur); /* run 3 reuses run 0's times: shifted after run 2 */
    CHECK(r3 && (r3->flags & TP_EV_STEP) && r3->id == 3);
    CHECK_EQ_INT(tp_warning_count(&t, "etdump: run started before the previous one ended (laid after it)"), 1);
    tp_trace_free(&t);
    free(buf);
}

/* An allocation event (with allocators) is skipped and counted; the rest reads. */
TEST(etdump_synthetic_allocation_event_skipped)
{
    const xev ev[] = {
        XALLOC(.alloc_id = 0, .alloc_size = 4096),
        XPROF(.name = "native_call_add.out", .instr = 0, .start = 100, .end = 300, .extra_field = true),
    };
    const xrun run = {"Execute", -1, 2, ev, 1};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(d.nalloc, 1);
    CHECK_EQ_INT(d.runs[0].nallocators, 1);
    CHECK_EQ_INT(in.nalloc_skipped, 1);
    CHECK_EQ_INT(in.blocks[0].nevents, 1);
    CHECK_EQ_INT(in.blocks[0].events[0].max_ns, 200);
    tp_inspector_free(&in);
    tp_etdump_free(&d);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    CHECK_EQ_INT(tp_warning_count(&t, "etdump: allocation events skipped"), 1);
    CHECK_EQ_INT(t.nevents, 2); /* the operator + the run span */
    tp_trace_free(&t);
    free(buf);
}

/* Same signature twice in one run: first position, later time (upstream's ordered dict). */
TEST(etdump_synthetic_repeated_signature_in_run_keeps_last)
{
    const xev ev[] = {
        XPROF(.name = "op", .instr = 0, .start = 100, .end = 200),
        XPROF(.name = "other", .instr = 1, .start = 200, .end = 250),
        XPROF(.name = "op", .instr = 0, .start = 300, .end = 700),
    };
    const xrun run = {"Execute", -1, 3, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(in.blocks[0].nevents, 2);
    CHECK_STR(in.blocks[0].events[0].name, "op");
    CHECK_EQ_INT(in.blocks[0].events[0].n, 1);
    CHECK_EQ_INT(in.blocks[0].events[0].max_ns, 400);
    tp_inspector_free(&in);
    tp_etdump_free(&d);
    free(buf);
}

TEST(etdump_time_scale_and_unprefixed_buffer)
{
    const xev ev[] = {XPROF(.name = "op", .instr = 0, .start = 10, .end = 35)};
    const xrun run = {"Execute", -1, 1, ev, 0};
    size_t n;
    uint8_t *buf = etdump_build(&run, 1, 0, &n); /* no size prefix */
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, "us", &err), 0);
    CHECK_EQ_INT(trace_find(&t, "op", 0)->dur, 25000);
    CHECK_EQ_INT(trace_find(&t, "op", 0)->ts, 10000);
    tp_trace_free(&t);
    CHECK_EQ_INT(trace_buf(buf, n, &t, "cycles:500000000", &err), 0); /* 2 ns per cycle */
    CHECK_EQ_INT(trace_find(&t, "op", 0)->dur, 50);
    tp_trace_free(&t);
    tp_ed_scale sc;
    CHECK_EQ_INT(tp_ed_scale_parse("cycles", &sc, &err), -1);
    CHECK(strstr(err.msg, "cycles:HZ") != NULL);
    tp_etdump d;
    tp_inspector in;
    tp_ed_scale ms_scale = {1000000, 1, "ms"};
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &ms_scale), 0);
    CHECK_STR(ms(in.blocks[0].events[0].p50_cns), "25");
    tp_inspector_free(&in);
    tp_etdump_free(&d);
    free(buf);
}

TEST(etdump_trailing_bytes_are_counted)
{
    const xev ev[] = {XPROF(.name = "op", .instr = 0, .start = 10, .end = 35)};
    const xrun run = {"Execute", -1, 1, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    uint8_t *longer = calloc(n + 7, 1);
    memcpy(longer, buf, n);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(longer, n + 7, &t, NULL, &err), 0);
    CHECK_EQ_INT(tp_warning_count(&t, "etdump: bytes after the size-prefixed buffer ignored"), 7);
    CHECK_EQ_INT(trace_find(&t, "op", 0)->dur, 25);
    tp_trace_free(&t);
    free(longer);
    free(buf);
}

TEST(etdump_bad_vtable_is_a_clean_error)
{
    const xev ev[] = {XPROF(.name = "op", .instr = 0, .start = 10, .end = 35)};
    const xrun run = {"Execute", -1, 1, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    uint32_t root;
    memcpy(&root, buf + 4, 4);
    int32_t bogus = -100000; /* root table's vtable far past the end */
    memcpy(buf + 4 + root, &bogus, 4);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), -1);
    CHECK(strstr(err.msg, "vtable") != NULL);
    char where[48];
    snprintf(where, sizeof where, "offset %u", 4 + root);
    CHECK_STR(err.where, where);
    tp_trace_free(&t);
    free(buf);
}

/* ---- ETRecord ---- */

#include "convert/read/etdump/etrecord.h"
#include <zip.h>

TEST(etrecord_real_sample_nodes)
{
    tp_err err = {0};
    tp_etrecord *r = tp_etrecord_load(tp_test_shared("external/etdump/executorch_sample_etrecord.bin"), &err);
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_EQ_INT(tp_etrecord_node_count(r), 1);
    const tp_etr_node *n = tp_etrecord_node(r, 0);
    CHECK_STR(n->target, "aten.mul.Tensor");
    CHECK_EQ_INT(n->handle, 2);
    CHECK(n->stack_trace && strstr(n->stack_trace, "return input * other") != NULL);
    CHECK(n->module == NULL); /* the sample has no nn_module_stack */
    const tp_etr_node *nodes[4];
    const char *backend;
    CHECK_EQ_INT(tp_etrecord_nodes(r, 0, NULL, 0, nodes, 4, &backend), 0); /* its debug_handle_map is {} */
    tp_etrecord_free(r);
    CHECK(tp_etrecord_load(tp_test_shared(SAMPLE), &err) == NULL);
    CHECK(strstr(err.msg, "not a readable ETRecord zip") != NULL);
}

static void zip_put(zip_t *z, const char *name, const char *text)
{
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    CHECK(s && zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
}

/* An ETRecord linking instruction 0 to node mul (handle 2) and delegate 2's
 * ids 5 and "conv_1" to handles 3 and 4, with module stacks. */
static const char *write_etrecord(void)
{
    const char *path = tp_test_tmp("synthetic_etrecord.bin");
    int ze;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    CHECK(z != NULL);
    zip_put(z, "ETRECORD_V0", "");
    zip_put(z, "debug_handle_map", "{\"forward\": {\"0\": [2], \"2\": 9}}");
    zip_put(z, "delegate_map", "{\"forward\": {\"2\": {\"name\": \"XnnpackBackend\", \"delegate_map\": "
                               "{\"5\": [3], \"conv_1\": [4]}}}}");
    zip_put(z, "edge_dialect_exported_program/forward",
            "{\"graph_module\": {\"graph\": {\"nodes\": ["
            "{\"target\": \"executorch.exir.dialects.edge.ops.aten.mul.Tensor\", \"metadata\": {\"debug_handle\": \"2\","
            " \"stack_trace\": \"model.py:18\", \"nn_module_stack\": \"L__self__,,Net;L__self___head,head,torch.nn.Linear\"}},"
            "{\"target\": \"aten.add.Tensor\", \"metadata\": {\"debug_handle\": 3, \"nn_module_stack\": "
            "\"L__self___body,body,Body;L__self___body_conv,body.conv,torch.nn.Conv2d\"}},"
            "{\"target\": \"aten.relu.default\", \"metadata\": {\"debug_handle\": \"4\"}},"
            "{\"target\": \"no_handle\", \"metadata\": {}}]}}}");
    CHECK(zip_close(z) == 0);
    return path;
}

TEST(etrecord_links_events_to_op_types_and_modules)
{
    const char *path = write_etrecord();
    const xev ev[] = {
        XPROF(.name = "native_call_mul.out", .instr = 0, .start = 100, .end = 400),
        XPROF(.name = "OPERATOR_CALL", .instr = 0, .start = 90, .end = 410),
        XPROF(.instr = 2, .dint = 5, .start = 500, .end = 600),
        XPROF(.instr = 2, .dstr = "conv_1", .start = 600, .end = 900),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 450, .end = 950),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 50, .end = 1000),
    };
    const xrun run = {"Execute", -1, 6, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_err err = {0};
    tp_etrecord *r = tp_etrecord_load(path, &err);
    CHECK(r != NULL);
    if (!r) {
        free(buf);
        return;
    }
    CHECK_EQ_INT(tp_etrecord_node_count(r), 3);
    const tp_etr_node *got[4];
    const char *backend = NULL;
    CHECK_EQ_INT(tp_etrecord_nodes(r, 2, "5", 1, got, 4, &backend), 1); /* exact key */
    CHECK_STR(got[0]->target, "aten.add.Tensor");
    CHECK_EQ_INT(tp_etrecord_nodes(r, 2, "pre_conv_1_post", 15, got, 4, &backend), 1); /* a key inside the id */
    CHECK_STR(got[0]->target, "aten.relu.default");
    CHECK_EQ_INT(tp_etrecord_nodes(r, 2, "6", 1, got, 4, &backend), 0);
    CHECK_EQ_INT(tp_etrecord_nodes(r, 0, NULL, 0, got, 4, &backend), 1); /* debug_handle_map */
    CHECK(backend == NULL);
    CHECK_EQ_INT(tp_etrecord_nodes(r, 1, NULL, 0, got, 4, &backend), 0);
    tp_etdump d;
    uint8_t *copy = malloc(n);
    memcpy(copy, buf, n);
    CHECK_EQ_INT(tp_etdump_parse(copy, n, &d, &err), 0);
    tp_inspector in;
    CHECK_EQ_INT(tp_etdump_inspect(&d, r, &NS, &in, &err), 0);
    const tp_insp_block *b = &in.blocks[0];
    const tp_insp_event *mul = insp_find(b, "native_call_mul.out", 0);
    CHECK(mul && mul->op_types && strcmp(mul->op_types, "[\"aten.mul.Tensor\"]") == 0);
    CHECK(mul && mul->module && strcmp(mul->module, "head") == 0);
    CHECK(mul && mul->module_hierarchy && strcmp(mul->module_hierarchy, "head") == 0); /* root path "" skipped */
    const tp_insp_event *d5 = insp_find(b, "5", 2), *dc = insp_find(b, "conv_1", 2);
    CHECK(d5 && d5->op_types && strcmp(d5->op_types, "[\"aten.add.Tensor\"]") == 0);
    CHECK(d5 && d5->backend && strcmp(d5->backend, "XnnpackBackend") == 0);
    CHECK(d5 && d5->module_hierarchy && strcmp(d5->module_hierarchy, "body/body.conv") == 0);
    CHECK(dc && dc->op_types && strcmp(dc->op_types, "[\"aten.relu.default\"]") == 0);
    const tp_insp_event *call = insp_find(b, "DELEGATE_CALL", 2);
    CHECK(call && call->backend && strcmp(call->backend, "XnnpackBackend") == 0);
    CHECK(insp_find(b, "Method::execute", 0)->op_types == NULL); /* framework events are never linked */
    /* time per module: mul 300 ns under head (OPERATOR_CALL not counted), 100 ns under body.conv */
    CHECK_EQ_INT(in.nmodules, 2);
    CHECK_STR(in.modules[0].name, "head");
    CHECK_EQ_INT(in.modules[0].total_ns, 300);
    CHECK_STR(in.modules[1].name, "body.conv");
    CHECK_EQ_INT(in.modules[1].total_ns, 100);
    tp_inspector_free(&in);

    tp_trace t;
    tp_trace_init(&t);
    tp_read_opts o = {.keep_args = true};
    CHECK_EQ_INT(tp_etdump_to_trace(&d, r, &o, &t, &err), 0);
    const tp_event *e5 = trace_find(&t, "5", 0);
    CHECK(e5 && strstr(args_of(&t, e5), "\"delegate_backend_name\":\"XnnpackBackend\",\"op_types\":[\"aten.add.Tensor\"],"
                                        "\"module_hierarchy\":\"body/body.conv\",\"module\":\"body.conv\"") != NULL);
    const tp_event *em = trace_find(&t, "native_call_mul.out", 0);
    CHECK(em && strstr(args_of(&t, em), "\"stack_trace\":\"model.py:18\"") != NULL);
    tp_trace_free(&t);
    tp_etdump_free(&d);
    tp_etrecord_free(r);
    free(buf);
}

/* ---- through the command line ---- */

TEST(etdump_cli_stats_json_has_inspector_figures)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats --json %s", tp_test_bin(), tp_test_shared(SAMPLE));
    CHECK_EQ_INT(rc, 0);
    if (!out)
        return;
    CHECK(strstr(out, "\"format\":\"etdump\"") != NULL);
    CHECK(strstr(out, "\"events\":31,\"tracks\":2,\"steps\":2") != NULL);
    CHECK(strstr(out, "\"kernel_instances\":14") != NULL);
    /* generic kernel table: by name over both convolutions */
    CHECK(strstr(out, "{\"name\":\"native_call_convolution.out\",\"kind\":\"kernel\",\"count\":2,\"total_ns\":1576502,"
                      "\"mean_ns\":788251,\"min_ns\":544783,\"max_ns\":1031719") != NULL);
    /* Inspector: per event */
    CHECK(strstr(out, "\"etdump_inspector\":{\"source_time_scale\":\"ns\",\"target_time_scale\":\"ms\",\"runs\":2,"
                      "\"profile_events\":31") != NULL);
    CHECK(strstr(out, "{\"event_name\":\"native_call_convolution.out\",\"instruction_id\":3,\"chain_index\":0,\"count\":1,"
                      "\"raw_ms\":[1.031719],\"p10_ms\":1.031719,\"p50_ms\":1.031719,\"p90_ms\":1.031719,"
                      "\"avg_ms\":1.031719,\"min_ms\":1.031719,\"max_ms\":1.031719") != NULL);
    CHECK(strstr(out, "{\"event_name\":\"Method::execute\",\"instruction_id\":0,\"chain_index\":-1,\"count\":1,"
                      "\"raw_ms\":[1.898821]") != NULL);
    CHECK(strstr(out, "{\"event_name\":\"Method::init\",\"instruction_id\":0,\"chain_index\":-1,\"count\":1,"
                      "\"raw_ms\":[0.022484]") != NULL);
    CHECK(strstr(out, "{\"event_name\":\"Program::load_method\",\"instruction_id\":0,\"chain_index\":-1,\"count\":1,"
                      "\"raw_ms\":[0.024857]") != NULL);
    free(out);
    /* a source unit of us multiplies every figure by 1000 */
    rc = tp_test_run(&out, "%s stats --json --time-scale us %s", tp_test_bin(), tp_test_shared(SAMPLE));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"raw_ms\":[1031.719]") != NULL);
    free(out);
    rc = tp_test_run(&out, "%s stats --json --time-scale parsecs %s", tp_test_bin(), tp_test_shared(SAMPLE));
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "--time-scale 'parsecs'") != NULL);
    free(out);
}

TEST(etdump_cli_truncated_files_fail_cleanly)
{
    size_t n;
    char *raw = tp_test_read_file(tp_test_shared(SAMPLE), &n);
    CHECK(raw != NULL);
    if (!raw)
        return;
    const size_t cuts[] = {1, 4, 11, 12, 100, 1000, 2319};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *p = tp_test_write("cut.etdp", (const uint8_t *)raw, cuts[i]);
        char *out = NULL;
        int rc = tp_test_run(&out, "%s stats --format etdump %s", tp_test_bin(), p);
        CHECK_EQ_INT(rc, 2);
        CHECK(out && strncmp(out, "tracepress: ", 12) == 0 && strchr(out, '\n') == out + strlen(out) - 1);
        free(out);
    }
    free(raw);
}

static int check_trace(const char *json)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "node tests/check_trace.mjs %s", json);
    if (rc != 0)
        fprintf(stderr, "  check_trace: %s\n", out ? out : "");
    free(out);
    return rc;
}

TEST(etdump_converted_output_loads_in_trace_engine)
{
    if (getenv("TP_SKIP_NODE") || !tp_test_have("node")) {
        fprintf(stderr, "  (node absent or TP_SKIP_NODE: trace-engine check skipped)\n");
        return;
    }
    const char *json = tp_test_tmp("tutorial.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), tp_test_shared(SAMPLE), json), 0);
    CHECK_EQ_INT(check_trace(json), 0);
    /* synthetic: delegates, metadata, debug instants, a wraparound, two runs */
    const xev ev[] = {
        XPROF(.instr = 2, .dint = 5, .meta = "\x01\xab", .metalen = 2, .start = 1000, .end = 1500),
        XPROF(.instr = 2, .dstr = "conv_1", .start = 1500, .end = 2300),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 900, .end = 2400),
        XDBG(.name = "conv_out", .instr = 2, .vtype = 5, .dtype = 6, .ndims = 2, .dims = {2, 3}),
        XPROF(.name = "native_call_add.out", .instr = 3, .start = 4294967000u, .end = 200),
        XDBG(.instr = 7, .vtype = 1, .ival = 9, .output = true),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 800, .end = 2500),
    };
    const xrun runs[] = {{"Execute", -1, 7, ev, 0}, {"Execute", -1, 7, ev, 0}};
    size_t n;
    uint8_t *buf = build(runs, 2, &n);
    const char *in = tp_test_write("synthetic.etdp", buf, n);
    free(buf);
    const char *json2 = tp_test_tmp("synthetic.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in, json2), 0);
    CHECK_EQ_INT(check_trace(json2), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats --json %s", tp_test_bin(), in), 0);
    /* two identical runs: one block, two samples per event */
    CHECK(out && strstr(out, "\"runs\":[0,1]") != NULL);
    CHECK(out && strstr(out, "{\"event_name\":\"5\",\"instruction_id\":2,\"chain_index\":0,\"count\":2,"
                             "\"raw_ms\":[0.0005,0.0005]") != NULL);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats --strict %s", tp_test_bin(), in), 2); /* runs overlap: a repair */
    free(out);
}

/* Runs of three structures, interleaved: three blocks, runs kept in order. */
TEST(etdump_synthetic_interleaved_structures_three_blocks)
{
    enum { R = 300 };
    xev ev[R];
    xrun runs[R];
    static const char *const names[3] = {"a", "b", "c"};
    for (int r = 0; r < R; r++) {
        ev[r] = XPROF(.name = names[r % 3], .instr = r % 3, .start = 1000u * (uint64_t)r + 1, .end = 1000u * (uint64_t)r + 2 + (uint64_t)r);
        runs[r] = (xrun){"Execute", -1, 1, &ev[r], 0};
    }
    size_t n;
    uint8_t *buf = build(runs, R, &n);
    tp_etdump d;
    tp_inspector in;
    CHECK_EQ_INT(inspect_buf(buf, n, &d, &in, &NS), 0);
    CHECK_EQ_INT(in.nblocks, 3);
    for (size_t b = 0; b < in.nblocks && b < 3; b++) {
        CHECK_EQ_INT(in.blocks[b].nruns, R / 3);
        CHECK_EQ_INT(in.blocks[b].runs[1], b + 3);
        CHECK_STR(in.blocks[b].events[0].name, names[b]);
        CHECK_EQ_INT(in.blocks[b].events[0].min_ns, 1 + (int64_t)b); /* run b lasts b+1 ns */
    }
    tp_inspector_free(&in);
    tp_etdump_free(&d);
    free(buf);
}

/* Every truncation and single-byte corruption of a synthetic file that has
 * every kind of table (debug values, tensors, allocators, metadata) parses,
 * maps and groups cleanly or fails with a located error. */
TEST(etdump_synthetic_every_corruption_is_clean)
{
    const xev ev[] = {
        XALLOC(.alloc_id = 0, .alloc_size = 64),
        XPROF(.instr = 2, .dint = 5, .meta = "\x01\xab\x02", .metalen = 3, .start = 1000, .end = 1500),
        XPROF(.instr = 2, .dstr = "conv_1", .start = 1500, .end = 2300),
        XDBG(.name = "t", .instr = 2, .vtype = 5, .dtype = 6, .ndims = 3, .dims = {2, 3, 4}),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 900, .end = 2400),
        XDBG(.instr = 7, .vtype = 1, .ival = 9, .output = true),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 800, .end = 2500),
    };
    const xrun runs[] = {{"Execute", 2, 7, ev, 2}};
    size_t n;
    uint8_t *raw = build(runs, 1, &n);
    uint8_t *buf = malloc(n);
    int ok = 0, failed = 0;
    for (size_t pos = 0; pos < n; pos++)
        for (int pass = 0; pass < 2; pass++) {
            size_t len = n;
            memcpy(buf, raw, n);
            if (pass == 0) {
                buf[pos] ^= 0xff;
            } else if (pos >= 12) { /* cut, with the size prefix telling the truth */
                len = pos;
                uint32_t size = (uint32_t)len - 4;
                memcpy(buf, &size, 4);
            } else {
                continue;
            }
            tp_trace t;
            tp_err err = {0};
            int rc = trace_buf(buf, len, &t, NULL, &err);
            CHECK(rc == 0 || (err.set && err.msg[0]));
            rc == 0 ? ok++ : failed++;
            tp_trace_free(&t);
            tp_etdump d;
            tp_inspector in;
            if (inspect_buf(buf, len, &d, &in, &NS) == 0)
                tp_inspector_free(&in);
            tp_etdump_free(&d);
        }
    CHECK(ok > 0 && failed > 0);
    free(buf);
    free(raw);
}

TEST(etdump_cli_etrecord_option)
{
    const char *rec = write_etrecord();
    const xev ev[] = {
        XPROF(.name = "native_call_mul.out", .instr = 0, .start = 100, .end = 400),
        XPROF(.instr = 2, .dint = 5, .start = 500, .end = 600),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 450, .end = 950),
    };
    const xrun run = {"Execute", -1, 3, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    const char *in = tp_test_write("linked.etdp", buf, n);
    free(buf);
    const char *json = tp_test_tmp("linked.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert -q %s --etrecord %s -o %s", tp_test_bin(), in, rec, json), 0);
    free(out);
    char *text = tp_test_read_file(json, NULL);
    CHECK(text && strstr(text, "\"op_types\":[\"aten.mul.Tensor\"]") != NULL);
    CHECK(text && strstr(text, "\"delegate_backend_name\":\"XnnpackBackend\"") != NULL);
    free(text);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats --json --etrecord %s %s", tp_test_bin(), rec, in), 0);
    CHECK(out && strstr(out, "\"modules\":[{\"module\":\"head\",\"total_ms\":0.0003,\"events\":1}") != NULL);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats --etrecord /nonexistent/etrecord.bin %s", tp_test_bin(), in), 2);
    CHECK(out && strstr(out, "/nonexistent/etrecord.bin: not a readable ETRecord zip") != NULL);
    free(out);
}

/* The converted output, byte for byte (review changes with `make golden` + git diff). */
TEST(etdump_golden_outputs)
{
    const char *a = tp_test_tmp("golden_tutorial.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), tp_test_shared(SAMPLE), a), 0);
    size_t len;
    char *text = tp_test_read_file(a, &len);
    CHECK(text != NULL);
    if (text)
        CHECK_GOLDEN("convert/etdump_tutorial.perfetto.json", text, len);
    free(text);
    const xev ev[] = {
        XALLOC(.alloc_id = 0, .alloc_size = 64),
        XPROF(.instr = 2, .dint = 5, .meta = "\x01\xab\x02", .metalen = 3, .start = 1000, .end = 1500),
        XPROF(.instr = 2, .dstr = "conv_1", .start = 1500, .end = 2300),
        XDBG(.name = "t", .instr = 2, .vtype = 5, .dtype = 6, .ndims = 3, .dims = {2, 3, 4}),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 900, .end = 2400),
        XPROF(.name = "native_call_add.out", .instr = 3, .start = 2450, .end = 2550),
        XPROF(.name = "OPERATOR_CALL", .instr = 3, .start = 2420, .end = 2580),
        XDBG(.instr = 7, .vtype = 1, .ival = 9, .output = true),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 800, .end = 2600),
    };
    const xrun runs[] = {{"Execute", 2, 9, ev, 1}, {"Execute", 2, 9, ev, 1}};
    size_t n;
    uint8_t *buf = build(runs, 2, &n);
    const char *in = tp_test_write("golden.etdp", buf, n);
    free(buf);
    const char *b = tp_test_tmp("golden_synthetic.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in, b), 0);
    text = tp_test_read_file(b, &len);
    CHECK(text != NULL);
    if (text)
        CHECK_GOLDEN("convert/etdump_synthetic.perfetto.json", text, len);
    free(text);
}

/* Every debug value type becomes its summary in the instant's args. */
TEST(etdump_synthetic_debug_value_types)
{
    const xev ev[] = {
        XPROF(.name = "op", .instr = 1, .start = 100, .end = 200),
        XDBG(.name = "b", .instr = 1, .vtype = 2, .ival = 1),
        XDBG(.name = "f", .instr = 1, .vtype = 3, .dval = 0.5),
        XDBG(.name = "d", .instr = 1, .vtype = 4, .dval = -2.25),
        XDBG(.name = "l", .instr = 1, .vtype = 6, .dtype = 15, .ndims = 1, .dims = {7}),
        XDBG(.name = "n", .instr = 1, .vtype = 0),
    };
    const xrun run = {"Execute", -1, 6, ev, 0};
    size_t n;
    uint8_t *buf = build(&run, 1, &n);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(trace_buf(buf, n, &t, NULL, &err), 0);
    static const char *const want[][2] = {
        {"b", "\"value\":{\"type\":\"bool\",\"value\":true}"},
        {"f", "\"value\":{\"type\":\"float\",\"value\":0.5}"},
        {"d", "\"value\":{\"type\":\"double\",\"value\":-2.25}"},
        {"l", "\"value\":{\"type\":\"tensor_list\",\"count\":2,\"tensor\":{\"dtype\":\"bfloat16\",\"sizes\":[7],"
              "\"ndim\":1,\"offset\":4096}}"},
        {"n", "\"value\":{\"type\":\"null\"}"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tp_event *e = trace_find(&t, want[i][0], 0);
        CHECK(e && e->ph == 'i' && e->ts == 200);
        if (e && !strstr(args_of(&t, e), want[i][1]))
            tp_test_fail(__FILE__, __LINE__, "%s: args %s lack %s", want[i][0], args_of(&t, e), want[i][1]);
    }
    tp_trace_free(&t);
    free(buf);
}
