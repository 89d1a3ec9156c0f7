/* test_etdump.c: ExecuTorch ETDump reader and Inspector statistics: the real
 * tutorial sample's figures (SOURCES.md), synthetic ETDumps with known
 * answers, and every truncation / corruption of the real file. */
#pragma GCC diagnostic ignored "-Woverride-init" /* XPROF(...) defaults, then the test's fields */
#include "etdump.h"
#include "etdump_build.h"
#include "etdump_inspector.h"
#include "formats.h"
#include "harness.h"
#include "model.h"

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
    tp_read_opts o = {.keep_args = true, .time_scale = scale};
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
